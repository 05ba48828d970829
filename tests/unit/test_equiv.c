/* test_equiv.c: the loop transforms keep the kernel's meaning.  For every
 * kernel in dsl-examples/ and every NI in {1,2,3,4,8}, NJ in {1,2,4},
 * T in {1,2,4}, the C back end's result on random inputs of odd sizes is
 * compared with the untransformed kernel's (NI = NJ = T = 1, no
 * scheduling).  Unrolling keeps every sum in its order, so with T = 1 the
 * results must be bitwise equal; a j-split adds partial sums in another
 * order, so with T > 1 they must agree to a norm-wise tolerance: 1e-5 for
 * float, 1e-13 for double, 1e-28 for dd.  All variants of one kernel go
 * into one C file, compiled once (cc -O0; kept for the sanitized pass:
 * load_so) and loaded with dlopen.  -O0: what is compared is nbcc's
 * transforms, not cc's, and with -std=c11 (no contraction) and SSE
 * arithmetic every level gives the same bits; -O1 took 38 CPU s for the
 * largest file against 5 (a cold run 96 s against 40), and the runs, at
 * these sizes, cost little either way.
 * tags: slow */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "nbcc.h"
#include "seed.h"
#include "unit.h"

#ifndef ROOT
#define ROOT "."
#endif

typedef void entry_fn(long, long, long, long, int, void *const *,
                      const double *);

static const int NIS[] = {1, 2, 3, 4, 8}, NJS[] = {1, 2, 4}, TS[] = {1, 2, 4};
#define NVAR (5 * 3 * 3)
/* Which loops and tails a size takes is its remainder modulo 24 in i (the
 * i-groups of 1, 2, 3, 4, 8) and 16 in j (j-steps NJ * T of 1 to 16; a
 * j-split's parts interleave, so theirs follow from it too), with a whole
 * step before the tail: 63 x 88 takes 1023 x 1000's, at a 190th of the
 * interactions (that size was most of make check's time, and timed out
 * on a loaded machine), and the long thin sizes 7 x 31 and 40 x 7 take
 * 7 x 1023's and 1000 x 7's, at a 33rd and a 25th (those were 10 of this
 * test's 15 CPU s, most of it oneloop_deform.nbl's dd at -O0). */
static const long SIZES[][2] = {{1, 1}, {7, 31}, {40, 7}, {63, 88}};

static unsigned long long seed;
static double uniform(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return ((seed >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static int scalars(nb_prec p) { return p == NB_DD ? 2 : 1; }
static size_t esize(nb_prec p) { return p == NB_FLOAT ? 4 : 8; }

/* Value e of an array of type p, as a double (dd: hi + lo). */
static double get(const void *a, nb_prec p, long e)
{
	if (p == NB_FLOAT)
		return ((const float *)a)[e];
	if (p == NB_DD)
		return ((const double *)a)[2 * e] + ((const double *)a)[2 * e + 1];
	return ((const double *)a)[e];
}

/* The command that builds a kernel file's shared object: its first line. */
#define CC_CMD "cc -std=c11 -O0 -fno-math-errno -fopenmp -fPIC -shared"

/* Whether FILE holds exactly the n bytes at s. */
static int same_text(const char *file, const char *s, size_t n)
{
	FILE *fp = fopen(file, "rb");
	if (!fp)
		return 0;
	size_t i = 0;
	int c;
	while ((c = getc(fp)) != EOF && i < n && c == (unsigned char)s[i])
		i++;
	fclose(fp);
	return c == EOF && i == n;
}

/* The shared object of one kernel's C file (the CC_CMD comment first),
 * loaded.  cc is most of this test's time, and the sanitized pass of
 * make check compiles the same text with the same cc (only this test's
 * own code is sanitized), so the objects are kept in build/equiv-cache
 * under a hash of the text, beside the text, and one is used only where
 * that text is the same to the byte: the second pass links what the
 * first built.  Files are renamed into place, the object first, so a
 * text there always has its whole object. */
static void *load_so(const char *text, size_t n)
{
	unsigned long long h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
	char cache[512], cfile[600], sofile[600], cmd[1400];
	snprintf(cache, sizeof cache, "%s/build/equiv-cache", ROOT);
	(void)mkdir(cache, 0700);
	snprintf(cfile, sizeof cfile, "%s/%016llx.c", cache, h);
	snprintf(sofile, sizeof sofile, "%s/%016llx.so", cache, h);
	char dir[] = "/tmp/nbequivXXXXXX", tc[64], tso[64];
	int built = !same_text(cfile, text, n);
	if (built) {
		ck_assert(mkdtemp(dir) != NULL);
		snprintf(tc, sizeof tc, "%s/k.c", dir);
		snprintf(tso, sizeof tso, "%s/k.so", dir);
		FILE *cf = fopen(tc, "w");
		ck_assert(cf != NULL);
		ck_assert(fwrite(text, 1, n, cf) == n && fclose(cf) == 0);
		snprintf(cmd, sizeof cmd, CC_CMD " -o %s %s -lm", tso, tc);
		ck_assert_msg(system(cmd) == 0, "cc failed on %s", tc);
		/* a cache that cannot be written (a read-only tree): the
		 * object is loaded from the scratch copy */
		if (rename(tso, sofile))
			snprintf(sofile, sizeof sofile, "%s", tso);
		else
			(void)rename(tc, cfile);
	}
	/* NODELETE: OpenMP worker threads outlive the call; unmapping libgomp
	 * under them on dlclose would crash them */
	void *so = dlopen(sofile, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	ck_assert_msg(so != NULL, "%s", dlerror());
	if (built) {
		unlink(tso);
		unlink(tc);
		rmdir(dir);
	}
	return so;
}

static void check_kernel(const char *path)
{
	size_t len;
	char err[512];
	char *src = nb_read_file(path, &len, err, sizeof err);
	ck_assert_msg(src != NULL, "%s", err);
	char *all = NULL;
	size_t alen = 0;
	FILE *code = open_memstream(&all, &alen);
	fputs("/* " CC_CMD " */\n", code);
	nb_iface *ifc[NVAR + 1] = {0};
	nb_output ref;
	for (int v = 0; v <= NVAR; v++) {
		nb_options o;
		nb_options_init(&o);
		o.target = "c";
		char name[64];
		if (v == NVAR) {
			o.unroll_i = o.unroll_j = o.jsplit = 1;
			o.sched = 0;
			snprintf(name, sizeof name, "k_ref");
		} else {
			o.unroll_i = NIS[v / 9];
			o.unroll_j = NJS[v / 3 % 3];
			o.jsplit = TS[v % 3];
			snprintf(name, sizeof name, "k_%d", v);
		}
		o.kname = name;
		nb_output out;
		int rc = nb_compile(path, src, len, &o, "code", stderr, &out);
		ck_assert_msg(rc == 0, "%s does not compile (variant %d)", path, v);
		/* the dd library comes once, with the first variant */
		const char *text = out.code;
		if (v > 0) {
			const char *fn = strstr(text, "\nvoid nbk_k_");
			ck_assert(fn != NULL);
			text = fn;
		}
		fputs(text, code);
		ifc[v] = out.iface;
		out.iface = NULL;
		if (v == NVAR)
			ref = out;
		else
			nb_output_free(&out);
	}
	fclose(code);
	free(src);

	void *so = load_so(all, alen);
	free(all);

	const nb_iface *f = ifc[NVAR];
	int nv = f->nvar;
	for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
		long ni = SIZES[s][0], nj = SIZES[s][1];
		void **arr = calloc((size_t)nv, sizeof *arr);
		void **res = calloc((size_t)nv, sizeof *res);
		double *cst = calloc((size_t)nv * 2 + 2, sizeof *cst);
		int na = 0, nc = 0;
		void **args = calloc((size_t)nv + 1, sizeof *args);
		for (int v = 0; v < nv; v++) {
			const nb_var *x = &f->var[v];
			if (x->role == NB_CONST) {
				cst[2 * nc++] = 0.1 + uniform();
				continue;
			}
			long n = x->role == NB_BMEM ? nj : ni;
			size_t bytes = esize(x->type) * (size_t)scalars(x->type) *
			               (size_t)n;
			arr[v] = malloc(bytes);
			for (long e = 0; e < n * scalars(x->type); e++) {
				double u = (x->type == NB_DD && e % 2) ? 0 : uniform();
				if (x->type == NB_FLOAT)
					((float *)arr[v])[e] = (float)u;
				else
					((double *)arr[v])[e] = u;
			}
			args[na++] = arr[v];
		}
		/* reference run */
		entry_fn *fn = (entry_fn *)dlsym(so, f->entry);
		ck_assert_msg(fn != NULL, "%s", f->entry);
		fn(ni, nj, 0, 0, 0, args, cst);
		for (int v = 0; v < nv; v++)
			if (f->var[v].role == NB_RMEM) {
				size_t bytes = esize(f->var[v].type) *
				               (size_t)scalars(f->var[v].type) * (size_t)ni;
				res[v] = malloc(bytes ? bytes : 1);
				memcpy(res[v], arr[v], bytes);
			}
		for (int k = 0; k < NVAR; k++) {
			fn = (entry_fn *)dlsym(so, ifc[k]->entry);
			ck_assert_msg(fn != NULL, "%s", ifc[k]->entry);
			/* poison the outputs: every element must be written */
			for (int v = 0; v < nv; v++)
				if (f->var[v].role == NB_RMEM)
					memset(arr[v], 0xff, esize(f->var[v].type) *
					       (size_t)scalars(f->var[v].type) * (size_t)ni);
			fn(ni, nj, 0, 0, 0, args, cst);
			int t = ifc[k]->jsplit;
			for (int v = 0; v < nv; v++) {
				const nb_var *x = &f->var[v];
				if (x->role != NB_RMEM)
					continue;
				double d2 = 0, r2 = 0;
				for (long e = 0; e < ni; e++) {
					double a = get(arr[v], x->type, e);
					double b = get(res[v], x->type, e);
					if (isnan(a) && isnan(b))
						continue;
					if (t == 1) {
						size_t sz = esize(x->type) *
						            (size_t)scalars(x->type);
						assert_each(memcmp((char *)arr[v] + sz * e,
						                   (char *)res[v] + sz * e,
						                   sz) == 0,
						            "%s %s: %s[%ld] = %.17g, untransformed "
						            "%.17g (ni=%ld nj=%ld, seed %llu)",
						            path, ifc[k]->flags, x->name, e, a, b,
						            ni, nj, seed);
					}
					/* equal infinities (a float r^-13 of two close
					 * random points) add nothing, not inf - inf */
					if (isinf(a) && a == b)
						continue;
					d2 += (a - b) * (a - b);
					r2 += b * b;
				}
				double tol = x->type == NB_FLOAT ? 1e-5 :
				             x->type == NB_DOUBLE ? 1e-13 : 1e-28;
				/* dd values compared as doubles: only the hi part */
				if (x->type == NB_DD)
					tol = 1e-15;
				ck_assert_msg(d2 <= tol * tol * r2,
				              "%s %s: %s differs by %.3g (norm-wise, "
				              "tolerance %g; ni=%ld nj=%ld, seed %llu)", path,
				              ifc[k]->flags, x->name, sqrt(d2 / r2), tol, ni,
				              nj, seed);
			}
		}
		for (int v = 0; v < nv; v++) {
			free(arr[v]);
			free(res[v]);
		}
		free(arr);
		free(res);
		free(cst);
		free(args);
	}
	dlclose(so);
	for (int v = 0; v <= NVAR; v++)
		nb_iface_free(ifc[v]);
	nb_output_free(&ref);
}

/* The kernels, each a test of its own: Check's time limit is a test's,
 * and on a loaded machine all of them together could pass it. */
static char paths[64][512];

START_TEST(one_example) { check_kernel(paths[_i]); }
END_TEST

int main(void)
{
	seed = test_seed("test_equiv");
	if (!seed)
		seed = 1;
	/* NBCC_EXAMPLES=DIR narrows the run to another directory's kernels */
	const char *dir = getenv("NBCC_EXAMPLES");
	if (!dir)
		dir = ROOT "/dsl-examples";
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "test_equiv: cannot open %s\n", dir);
		return EXIT_FAILURE;
	}
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".nbl") != 0)
			continue;
		if (n == (int)(sizeof paths / sizeof paths[0])) {
			fprintf(stderr, "test_equiv: more than %d kernels in %s\n", n,
			        dir);
			return EXIT_FAILURE;
		}
		snprintf(paths[n++], sizeof paths[0], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n == 0) {
		fprintf(stderr, "test_equiv: no kernel in %s\n", dir);
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("equiv");
	TCase *tc = tcase_create("transforms");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, one_example, 0, n);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
