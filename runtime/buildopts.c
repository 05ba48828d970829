/* buildopts.c: the build options a kernel brings in its interface header,
 * or the user in the environment, checked before they reach a compiler:
 * only those a back end allows, and none that breaks dd arithmetic. */
#include <stdio.h>
#include <string.h>
#include "nbrt_impl.h"

int nbrt_options_ok(nbrt_kernel *k, const char *const *allowed)
{
	const char *o = k->f->options ? k->f->options : "";
	while (*o) {
		while (*o == ' ')
			o++;
		size_t n = strcspn(o, " ");
		if (!n)
			break;
		int ok = 0;
		for (int i = 0; allowed[i] && !ok; i++)
			ok = strlen(allowed[i]) == n && strncmp(allowed[i], o, n) == 0;
		if (!ok) {
			/* the header's bytes: shown escaped */
			char w[256];
			snprintf(w, sizeof w, "%.*s", (int)n, o);
			return nbrt_fail(k->rt, "%s: the kernel asks for the build "
			                 "option '%s', which this runtime does not "
			                 "pass on", k->name, nb_esc(w));
		}
		o += n;
	}
	return 0;
}

/* Whether the code does dd arithmetic: the back ends paste ddlib.h into
 * exactly those kernels, and a dd variable says so even in a file some
 * tool has rewritten.  The guard's #define, not its bare name: a float
 * kernel (built with float's estimates) may be named NB_DDLIB_H. */
static int has_dd(const nbrt_kernel *k, const char *code, size_t len)
{
	for (int v = 0; v < k->f->nvar; v++)
		if (k->f->var[v].type == NB_DD)
			return 1;
	static const char guard[] = "\n#define NB_DDLIB_H\n";
	return memmem(code, len, guard, sizeof guard - 1) != NULL;
}

int nbrt_dd_options_ok(nbrt_kernel *k, const char *code, size_t len,
                       const char *opts, const char *from,
                       const nbrt_badopt *bad)
{
	if (!opts || !has_dd(k, code, len))
		return 0;
	const char *o = opts;
	while (*o) {
		while (*o == ' ' || *o == '\t' || *o == '\n')
			o++;
		size_t n = strcspn(o, " \t\n");
		if (!n)
			break;
		/* the shell takes quotes away: '-ffast-math' is -ffast-math */
		char w[64];
		size_t m = 0;
		for (size_t i = 0; i < n && m + 1 < sizeof w; i++)
			if (o[i] != '\'' && o[i] != '"' && o[i] != '\\')
				w[m++] = o[i];
		w[m] = 0;
		for (int i = 0; bad[i].opt; i++)
			if (strcmp(w, bad[i].opt) == 0)
				return nbrt_fail(k->rt, "%s: refusing the build option "
				                 "'%s' from %s for a kernel with "
				                 "double-double arithmetic: %s",
				                 k->name, nb_esc(w), from, bad[i].why);
		o += n;
	}
	return 0;
}
