/* iface.c: the kernel interface as text.  Every generated file starts with
 * it, inside a comment, one "key values" line each, between the lines
 * "nbcc-interface 1" and "end"; the runtime reads it back to launch a
 * kernel without its .nbl:
 *
 *   nbcc-interface 1
 *   kernel gravity              function name
 *   target opencl
 *   source dsl-examples/gravity.nbl
 *   flags --precision=float     nbcc flags it was built with
 *   options -cl-denorms-are-zero  build options the kernel asks for
 *   precision float
 *   unroll 4 1 1                NI NJ T
 *   launch 128 128              work-group size, tile
 *   flops 20 38                 per interaction: counted, 38-convention
 *   pack 0 float 4 4            BMEM pack: index type values scalars
 *   var xi LMEM float           name role type [pack comp]
 *   var xj BMEM float 0 0
 *   end
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"

int nb_iface_count(const nb_iface *f, nb_role role)
{
	int n = 0;
	for (int i = 0; i < f->nvar; i++)
		n += f->var[i].role == role;
	return n;
}

int nb_iface_find(const nb_iface *f, const char *name)
{
	for (int i = 0; i < f->nvar; i++)
		if (strcmp(f->var[i].name, name) == 0)
			return i;
	return -1;
}

void nb_iface_free(nb_iface *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nvar; i++)
		free(f->var[i].name);
	free(f->var);
	free(f->pack);
	free(f->kernel);
	free(f->target);
	free(f->source);
	free(f->flags);
	free(f->options);
	free(f);
}

void nb_iface_print(const nb_iface *f, FILE *out, const char *p)
{
	fprintf(out, "%snbcc-interface 1\n", p);
	fprintf(out, "%skernel %s\n", p, f->kernel);
	fprintf(out, "%starget %s\n", p, f->target);
	fprintf(out, "%ssource %s\n", p, f->source ? f->source : "-");
	fprintf(out, "%sflags %s\n", p, f->flags ? f->flags : "");
	if (f->options && *f->options)
		fprintf(out, "%soptions %s\n", p, f->options);
	fprintf(out, "%sprecision %s\n", p, nb_prec_name(f->precision));
	fprintf(out, "%sunroll %d %d %d\n", p, f->unroll_i, f->unroll_j,
	        f->jsplit);
	fprintf(out, "%slaunch %d %d\n", p, f->wg, f->tile);
	fprintf(out, "%sflops %.17g %.17g\n", p, f->flops, f->flops_conv);
	for (int i = 0; i < f->npack; i++)
		fprintf(out, "%spack %d %s %d %d\n", p, i,
		        nb_prec_name(f->pack[i].type), f->pack[i].width,
		        f->pack[i].vwidth);
	for (int i = 0; i < f->nvar; i++) {
		const nb_var *v = &f->var[i];
		fprintf(out, "%svar %s %s %s", p, v->name, nb_role_name(v->role),
		        nb_prec_name(v->type));
		if (v->role == NB_BMEM)
			fprintf(out, " %d %d", v->pack, v->comp);
		fputc('\n', out);
	}
	fprintf(out, "%send\n", p);
}

static int prec_of(const char *s, nb_prec *p)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, nb_prec_name((nb_prec)i)) == 0) {
			*p = (nb_prec)i;
			return 0;
		}
	return -1;
}

static int role_of(const char *s, nb_role *r)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, nb_role_name((nb_role)i)) == 0) {
			*r = (nb_role)i;
			return 0;
		}
	return -1;
}

static char *dupn(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

/* Splits a line into at most 8 words in place. */
static int words(char *s, char **w)
{
	int n = 0;
	while (*s && n < 8) {
		while (*s == ' ' || *s == '\t')
			*s++ = 0;
		if (!*s)
			break;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	return n;
}

nb_iface *nb_iface_parse(const char *text, size_t len, char *err,
                         size_t errlen)
{
	const char *start = NULL;
	const char *key = "nbcc-interface 1";
	size_t kl = strlen(key);
	/* the interface sits at the top; do not scan a whole kernel for it */
	size_t lim = len < 65536 ? len : 65536;
	for (size_t i = 0; i + kl <= lim; i++)
		if (memcmp(text + i, key, kl) == 0) {
			start = text + i;
			break;
		}
	if (!start) {
		snprintf(err, errlen, "no 'nbcc-interface 1' header: not a file "
		         "written by nbcc");
		return NULL;
	}
	nb_iface *f = calloc(1, sizeof *f);
	if (!f)
		goto oom;
	const char *end = text + len;
	const char *p = start;
	int lineno = 0, done = 0;
	while (p < end && !done) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		char *line = dupn(p, (size_t)(nl - p));
		if (!line)
			goto oom;
		p = nl + 1;
		lineno++;
		/* drop the comment prefix: spaces, '*', ';', '/' */
		char *s = line;
		while (*s && strchr(" \t*;/", *s))
			s++;
		size_t sl = strlen(s);
		while (sl && (s[sl - 1] == '\r' || s[sl - 1] == ' '))
			s[--sl] = 0;
		if (lineno == 1) {
			free(line);
			continue;
		}
		char *rest = strchr(s, ' ');
		char *w[8];
		int ok = 1;
		if (strcmp(s, "end") == 0) {
			done = 1;
		} else if (strncmp(s, "source ", 7) == 0) {
			f->source = dupn(s + 7, strlen(s + 7));
		} else if (strncmp(s, "flags", 5) == 0 && (!s[5] || s[5] == ' ')) {
			const char *v = rest ? rest + 1 : "";
			f->flags = dupn(v, strlen(v));
		} else if (strncmp(s, "options ", 8) == 0) {
			f->options = dupn(s + 8, strlen(s + 8));
		} else {
			int n = words(s, w);
			if (n == 2 && strcmp(w[0], "kernel") == 0) {
				f->kernel = dupn(w[1], strlen(w[1]));
			} else if (n == 2 && strcmp(w[0], "target") == 0) {
				f->target = dupn(w[1], strlen(w[1]));
			} else if (n == 2 && strcmp(w[0], "precision") == 0) {
				ok = prec_of(w[1], &f->precision) == 0;
			} else if (n == 4 && strcmp(w[0], "unroll") == 0) {
				f->unroll_i = atoi(w[1]);
				f->unroll_j = atoi(w[2]);
				f->jsplit = atoi(w[3]);
				ok = f->unroll_i > 0 && f->unroll_j > 0 &&
				     f->jsplit > 0;
			} else if (n == 3 && strcmp(w[0], "launch") == 0) {
				f->wg = atoi(w[1]);
				f->tile = atoi(w[2]);
				ok = f->wg >= 0 && f->tile >= 0;
			} else if (n == 3 && strcmp(w[0], "flops") == 0) {
				f->flops = atof(w[1]);
				f->flops_conv = atof(w[2]);
			} else if (n == 5 && strcmp(w[0], "pack") == 0) {
				nb_pack *np = realloc(f->pack, sizeof(nb_pack) *
				                      (size_t)(f->npack + 1));
				if (!np)
					goto oom;
				f->pack = np;
				nb_pack *k = &f->pack[f->npack];
				ok = atoi(w[1]) == f->npack &&
				     prec_of(w[2], &k->type) == 0;
				k->width = atoi(w[3]);
				k->vwidth = atoi(w[4]);
				ok = ok && k->width >= 1 && k->vwidth >= 1 &&
				     k->vwidth <= 16;
				f->npack++;
			} else if ((n == 4 || n == 6) && strcmp(w[0], "var") == 0) {
				nb_var *nv = realloc(f->var, sizeof(nb_var) *
				                     (size_t)(f->nvar + 1));
				if (!nv)
					goto oom;
				f->var = nv;
				nb_var *v = &f->var[f->nvar];
				memset(v, 0, sizeof *v);
				v->pack = v->comp = -1;
				v->name = dupn(w[1], strlen(w[1]));
				f->nvar++;
				ok = role_of(w[2], &v->role) == 0 &&
				     prec_of(w[3], &v->type) == 0;
				if (ok && v->role == NB_BMEM) {
					ok = n == 6;
					if (ok) {
						v->pack = atoi(w[4]);
						v->comp = atoi(w[5]);
					}
				}
			} else {
				ok = 0;
			}
		}
		if (!ok) {
			snprintf(err, errlen, "malformed interface line %d: "
			         "'%.60s'", lineno, s);
			free(line);
			nb_iface_free(f);
			return NULL;
		}
		free(line);
	}
	const char *miss = !done ? "end" : !f->kernel ? "kernel" :
	                   !f->target ? "target" : !f->unroll_i ? "unroll" :
	                   NULL;
	if (miss) {
		snprintf(err, errlen, "interface header has no '%s' line", miss);
		nb_iface_free(f);
		return NULL;
	}
	for (int i = 0; i < f->nvar; i++) {
		nb_var *v = &f->var[i];
		if (v->role == NB_BMEM &&
		    (v->pack < 0 || v->pack >= f->npack || v->comp < 0 ||
		     v->comp >= f->pack[v->pack].width)) {
			snprintf(err, errlen, "interface: BMEM '%s' is in no pack",
			         v->name);
			nb_iface_free(f);
			return NULL;
		}
	}
	return f;
oom:
	snprintf(err, errlen, "out of memory");
	nb_iface_free(f);
	return NULL;
}
