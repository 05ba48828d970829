/* query.c: the library as a binding in another language sees it (the
 * Python package's ctypes), which reads no C header: the names of the
 * enums' values, the kinds of files, and accessors for the structs whose
 * layout it should not assume.  Each answer comes from the table that
 * states the fact (prec.c, iface.c's reductions, target.c). */
#include <stdlib.h>
#include <string.h>
#include "emit.h"

const char *nb_version(void) { return NBCC_VERSION; }

const char *nb_source_ext(void) { return NB_SOURCE_EXT; }

size_t nb_max_source(void) { return NB_MAX_SOURCE; }

static const char *prec_at(int v)
{
	return (unsigned)v < NPREC ? prec[v].name : NULL;
}

static const char *role_at(int v)
{
	return (unsigned)v < NB_NROLE ? nb_role_name((nb_role)v) : NULL;
}

static const char *red_at(int v)
{
	return (unsigned)v < NB_NRED ? nb_red_name((nb_red)v) : NULL;
}

static const char *num_at(int v)
{
	switch (v) {
	case NB_NUM_SYNTAX: return "syntax";
	case NB_NUM_NONFINITE: return "nonfinite";
	case NB_NUM_RANGE: return "range";
	}
	return NULL;
}

static const struct {
	const char *type;
	const char *(*name)(int v);
} enums[] = {
	{"nb_prec", prec_at}, {"nb_role", role_at}, {"nb_red", red_at},
	{"nb_num", num_at},
};

const char *nb_enum_name(const char *type, int v)
{
	for (size_t i = 0; type && i < NELEM(enums); i++)
		if (strcmp(enums[i].type, type) == 0)
			return enums[i].name(v);
	return NULL;
}

int nb_is_generated(const char *name, const char *src, size_t len)
{
	if (target_of_ext(name))
		return 1;
	if (strcmp(path_ext(name), NB_SOURCE_EXT) == 0)
		return 0;
	size_t lim = len < 4096 ? len : 4096;
	return memmem(src, lim, NB_IFACE_MAGIC, strlen(NB_IFACE_MAGIC)) != NULL;
}

nb_options *nb_options_new(void)
{
	nb_options *o = malloc(sizeof *o);
	if (o)
		nb_options_init(o);
	return o;
}

void nb_options_free(nb_options *o) { free(o); }

char *nb_compile_text(const char *path, const char *src, size_t len,
                      const nb_options *o, const char *emit, FILE *diag,
                      size_t *outlen)
{
	nb_output out;
	char *code = NULL;
	if (nb_compile(path, src, len, o, emit, diag, &out) == 0 && out.code) {
		code = out.code;
		*outlen = out.len;
		out.code = NULL;
	}
	nb_output_free(&out);
	return code;
}

const char *nb_iface_field(const nb_iface *f, const char *key)
{
	const struct {
		const char *key, *value;
	} fields[] = {
		{"kernel", f->kernel}, {"entry", f->entry}, {"target", f->target},
		{"source", f->source}, {"flags", f->flags},
		{"options", f->options}, {"precision", prec_at(f->precision)},
	};
	for (size_t i = 0; key && i < NELEM(fields); i++)
		if (strcmp(fields[i].key, key) == 0)
			return fields[i].value;
	return NULL;
}

const char *nb_iface_var(const nb_iface *f, int i, int *role, int *type,
                         int *red)
{
	if (i < 0 || i >= f->nvar)
		return NULL;
	const nb_var *v = &f->var[i];
	if (role)
		*role = (int)v->role;
	if (type)
		*type = (int)v->type;
	if (red)
		*red = (int)v->red;
	return v->name;
}
