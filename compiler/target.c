/* target.c: the one table of back ends.  --target, the -o extension, the
 * help texts and the interface reader all look targets up here, so a new
 * back end is its emit_*.c file and one line below. */
#include <stdio.h>
#include <string.h>
#include "emit.h"

/* The first is the default: a compilation that names no target (and no
 * output to tell it by) writes OpenCL C. */
static const Target *const targets[] = {
	&target_opencl, &target_c, &target_amdil,
};

const Target *target_default(void)
{
	return targets[0];
}

const Target *target_named(const char *name)
{
	for (size_t i = 0; i < NELEM(targets); i++)
		if (strcmp(targets[i]->name, name) == 0)
			return targets[i];
	return NULL;
}

const char *path_ext(const char *path)
{
	/* the extension of the last component: "dir.cl/k" has none */
	const char *b = strrchr(path, '/');
	const char *dot = strrchr(b ? b : path, '.');
	return dot ? dot : "";
}

const Target *target_of_ext(const char *path)
{
	const char *ext = path_ext(path);
	for (size_t i = 0; *ext && i < NELEM(targets); i++)
		if (strcmp(targets[i]->ext, ext) == 0)
			return targets[i];
	return NULL;
}

const char *nb_target_of_ext(const char *path)
{
	const Target *t = target_of_ext(path);
	return t ? t->name : NULL;
}

/* Built on first use, one text per kind: the table is constant, so the
 * texts are too (per thread, so that no two threads write one buffer). */
const char *nb_target_list(int what)
{
	static _Thread_local char text[3][256];
	char *b = text[what];
	size_t n = 0;
	if (*b)
		return b;
	for (size_t i = 0; i < NELEM(targets) && n < sizeof text[0]; i++) {
		const Target *t = targets[i];
		const char *sep = i == 0 ? "" :
		                  what != NB_TL_LANGS && i + 1 == NELEM(targets) ?
		                  " or " : ", ";
		int k;
		if (what == NB_TL_LANGS)
			k = snprintf(b + n, sizeof text[0] - n, "%s%s (%s)", sep,
			             t->ext, t->lang);
		else
			k = snprintf(b + n, sizeof text[0] - n, "%s%s", sep,
			             what == NB_TL_NAMES ? t->name : t->ext);
		n += (size_t)k;
	}
	return b;
}
