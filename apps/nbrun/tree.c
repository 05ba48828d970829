/* tree.c (nbrun): --tree's far kernel, found beside the kernel's name in
 * far/ unless --far gives it, and the columns of nbrt_run_tree read from
 * the kernel's interface: positions, then the sources (mass or vector). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prog.h"
#include "tree.h"

/* far/STEM_*.nbl under folder dir; 0 found (*path set), 1 none, -1 more
 * than one (printed). */
static int look(const char *dir, const char *stem, size_t n, char **path)
{
	size_t len = strlen(dir) + n + 16;
	char *pat = malloc(len);
	if (!pat)
		return prog_fail("out of memory"), -1;
	snprintf(pat, len, "%s/far/%.*s_*.nbl", dir, (int)n, stem);
	glob_t g;
	int rc = glob(pat, 0, NULL, &g);
	free(pat);
	if (rc) {
		if (rc != GLOB_NOMATCH)
			globfree(&g);
		return 1;
	}
	if (g.gl_pathc > 1) {
		prog_fail("--tree: %s and %s are both far kernels of %.*s: choose "
		          "one with --far FILE", g.gl_pathv[0], g.gl_pathv[1],
		          (int)n, stem);
		globfree(&g);
		return -1;
	}
	*path = strdup(g.gl_pathv[0]);
	globfree(&g);
	return *path ? 0 : (prog_fail("out of memory"), -1);
}

char *tree_find_far(const char *kernel)
{
	const char *slash = strrchr(kernel, '/');
	const char *base = slash ? slash + 1 : kernel;
	const char *dot = strrchr(base, '.');
	size_t n = dot ? (size_t)(dot - base) : strlen(base);
	char *dir = slash ? strndup(kernel, (size_t)(slash - kernel)) :
	            strdup(".");
	char *up = dir ? malloc(strlen(dir) + 4) : NULL;
	if (!up) {
		free(dir);
		prog_fail("out of memory");
		return NULL;
	}
	sprintf(up, "%s/..", dir);
	const char *where[] = {dir, up, ROOT};
	char *path = NULL;
	int rc = 1;
	for (int w = 0; w < 3 && rc == 1; w++)
		rc = look(where[w], base, n, &path);
	if (rc == 1)
		prog_fail("--tree: kernel %s has no far-field kernel: no "
		          "far/%.*s_*.nbl in %s, %s or %s; write one (docs/"
		          "treecode.md) and give it with --far FILE", kernel, (int)n,
		          base, dir, up, ROOT);
	free(dir);
	free(up);
	return path;
}

/* The first n variables of role r of f not among skip[0..ns), into v. */
static int pick(const nb_iface *f, nb_role r, const char *const *skip,
                int ns, const char **v, int n)
{
	int got = 0;
	for (int x = 0; x < f->nvar && got < n; x++) {
		int s = 0;
		while (s < ns && strcmp(skip[s], f->var[x].name))
			s++;
		if (f->var[x].role == r && s == ns)
			v[got++] = f->var[x].name;
	}
	return got;
}

int tree_columns(const nb_iface *f, int dim, const char *const ipos[3],
                 const char *const jpos[3], nbrt_tree *t)
{
	if (dim && dim != 3)
		return prog_fail("--tree: --pos names %d axes; the tree is of "
		                 "three: --pos xi,yi,zi:xj,yj,zj", dim);
	for (int d = 0; d < 3 && dim; d++) {
		t->ipos[d] = ipos[d];
		t->jpos[d] = jpos[d];
	}
	if (!dim && (pick(f, NB_LMEM, NULL, 0, t->ipos, 3) < 3 ||
	             pick(f, NB_BMEM, NULL, 0, t->jpos, 3) < 3))
		return prog_fail("--tree: kernel %s has fewer than three LMEMs or "
		                 "BMEMs, which would be its positions", f->kernel);
	const char *src[4];
	int ns = pick(f, NB_BMEM, t->jpos, 3, src, 4);
	if (ns != 1 && ns != 3)
		return prog_fail("--tree: kernel %s has %d BMEMs besides its "
		                 "positions %s, %s, %s: the tree's sources are one "
		                 "(a mass) or three (a vector, as vortex strengths)",
		                 f->kernel, ns, t->jpos[0], t->jpos[1], t->jpos[2]);
	t->jmass = ns == 1 ? src[0] : NULL;
	for (int d = 0; d < 3; d++)
		t->jsrc[d] = ns == 3 ? src[d] : NULL;
	return 0;
}

void tree_report(const struct nbrt_tree_stats *st)
{
	static const char *const phase[5] = {"build", "moments", "walk", "far",
	                                     "near"};
	fprintf(stderr, "tree: %zu cells, %zu groups, %.0f near pairs, %.0f far "
	        "pairs; seconds:", st->cells, st->groups, st->near_pairs,
	        st->far_pairs);
	for (int p = 0; p < 5; p++)
		fprintf(stderr, " %s %.3g", phase[p], st->time[p]);
	fputc('\n', stderr);
}
