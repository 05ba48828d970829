/* test_direct.c: one launch a run (runtime/cl/run.c's direct entry,
 * emit_opencl.c's NB_DIRECT and NB_DIN) on PoCL's CPU device.  A kernel
 * whose inputs and results are all device nbrt_arrays reads and stores
 * them itself in one launch (NB_DIN); the same kernel loaded under
 * NBRT_DIRECT=1 converts its inputs before it and stores its results
 * itself, and under NBRT_DIRECT=0 converts them after it too (the path
 * of before).  All three, on the same inputs, give the same bits: sums
 * (gravity.nbl), min and argmin (nearest.nbl) and logsumexp
 * (gauss_logsumexp.nbl), float and double (and gravity in dd), at N = 0,
 * 1, 127 and 4096, waited, queued and untimed; each within a stated
 * tolerance of the same reduction in long double.  NBRT_VERBOSE names the
 * path, and the launches counted at the kernel's free are one a run and
 * no conversion for NB_DIN, one a run and the inputs' conversion for
 * NBRT_DIRECT=1, two a run for the old path.  A run of several launches
 * (NBRT_MAX_INTERACTIONS) or of j-slices (NBRT_SLICES) goes the old path
 * and is right, as does a kernel whose one-launch build fails
 * (NBRT_TEST_FAIL=direct_build); a kernel whose NB_DIN build fails
 * (din_build) or with one input on the host stores its results itself
 * after its inputs' conversion; a sliced run builds no one-launch entry
 * (a later unsliced run of the same kernel does, and takes it); a run
 * after NB_DIN runs reads arrays written since; NBRT_DIN_MAX limits the
 * float runs that take NB_DIN, as the gpu-nvidia row's din_max does
 * under NBRT_DEVICE_CLASS; a float kernel's NB_DIN entry reads float
 * copies of the arrays, kept by nbrt_array_axpy and axpy2 (shadow_axpy).
 * Exit 77 without an
 * OpenCL CPU device.  Seed printed; NBCC_TEST_SEED=S repeats it. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"
#include "capture.h"
#include "cpudev.h"
#include "seed.h"
#include "unit.h"

#ifndef ROOT
#define ROOT "."
#endif
#define MAXV 16

static unsigned short rng[3];

static double urand(double a, double b)
{
	return a + (b - a) * erand48(rng);
}

/* The kernels: file, the CONST's name and value. */
enum { GRAV, NEAR, LSE };
static const struct {
	const char *file, *cst;
	double c;
} kern[] = {
	{ROOT "/dsl-examples/gravity.nbl", "eps2", 1e-3},
	{ROOT "/dsl-examples/nearest.nbl", NULL, 0},
	{ROOT "/dsl-examples/gauss_logsumexp.nbl", "ih2", 20},
};

/* One kernel three times on one device: k[0] the default (NB_DIN where
 * it can), k[1] under NBRT_DIRECT=1 (its results stored, its inputs
 * converted), k[2] under NBRT_DIRECT=0 (both converted); the same input
 * arrays, result arrays of their own. */
enum { NK = 3 };
static const char *const mode[NK] = {NULL, "1", "0"};
typedef struct Pair {
	nbrt *rt;
	nbrt_kernel *k[NK];
	const nb_iface *f;
	int which;
	size_t ni, nj;
	double *h[MAXV];
	nbrt_array *in[MAXV], *res[NK][MAXV];
} Pair;

static nbrt_kernel *load(Pair *s, nb_prec p, const char *direct)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	char *was = env_keep("NBRT_DIRECT");
	if (direct)
		setenv("NBRT_DIRECT", direct, 1);
	else
		unsetenv("NBRT_DIRECT");
	nbrt_kernel *k = nbrt_load(s->rt, kern[s->which].file, &o);
	env_back("NBRT_DIRECT", was);
	ck_assert_msg(k != NULL, "%s", nbrt_error(s->rt));
	if (kern[s->which].cst)
		ck_assert_int_eq(nbrt_set_const(k, kern[s->which].cst,
		                                kern[s->which].c, 0), 0);
	return k;
}

static nbrt_array *array(Pair *s, size_t n)
{
	nbrt_array *a = nbrt_array_new(s->rt, n);
	ck_assert_msg(a != NULL, "%s", nbrt_error(s->rt));
	ck_assert_int_eq(nbrt_array_on_device(a), 1);
	return a;
}

static void make(Pair *s, int which, nb_prec p, size_t ni, size_t nj)
{
	memset(s, 0, sizeof *s);
	s->which = which;
	s->ni = ni;
	s->nj = nj;
	s->rt = nbrt_open("cpu", NULL);
	ck_assert_ptr_nonnull(s->rt);
	for (int q = 0; q < NK; q++)
		s->k[q] = load(s, p, mode[q]);
	s->f = nbrt_iface(s->k[0]);
	ck_assert_int_le(s->f->nvar, MAXV);
	for (int v = 0; v < s->f->nvar; v++) {
		const nb_var *x = &s->f->var[v];
		if (x->role == NB_CONST)
			continue;
		if (x->role == NB_RMEM) {
			for (int q = 0; q < NK; q++) {
				s->res[q][v] = array(s, ni);
				ck_assert_int_eq(nbrt_bind_array(s->k[q], x->name,
				                                 s->res[q][v]), 0);
			}
			continue;
		}
		size_t n = x->role == NB_BMEM ? nj : ni;
		s->h[v] = malloc((n ? n : 1) * sizeof(double));
		for (size_t e = 0; e < n; e++)
			s->h[v][e] = urand(-1, 1);
		s->in[v] = array(s, n);
		ck_assert_int_eq(nbrt_array_write(s->in[v], s->h[v]), 0);
		for (int q = 0; q < NK; q++)
			ck_assert_int_eq(nbrt_bind_array(s->k[q], x->name, s->in[v]),
			                 0);
	}
}

/* The kernels freed (each notes its launches under NBRT_VERBOSE). */
static void free_kernels(Pair *s)
{
	for (int q = 0; q < NK; q++) {
		nbrt_free(s->k[q]);
		s->k[q] = NULL;
	}
}

static void unmake(Pair *s)
{
	free_kernels(s);
	for (int v = 0; v < MAXV; v++) {
		nbrt_array_free(s->in[v]);
		for (int q = 0; q < NK; q++)
			nbrt_array_free(s->res[q][v]);
		free(s->h[v]);
	}
	nbrt_close(s->rt);
}

/* One run of each kernel. */
static void run_all(Pair *s)
{
	for (int q = 0; q < NK; q++)
		ck_assert_msg(nbrt_run(s->k[q], s->ni, s->nj) == 0, "%s",
		              nbrt_error(s->rt));
}

/* Result v of kernel q read back (wait included) into a. */
static void read1(Pair *s, int q, int v, double *a)
{
	ck_assert_msg(nbrt_array_read(s->res[q][v], a) == 0, "%s",
	              nbrt_error(s->rt));
}

/* h[v] by name */
static const double *col(const Pair *s, const char *name)
{
	for (int v = 0; v < s->f->nvar; v++)
		if (!strcmp(s->f->var[v].name, name))
			return s->h[v];
	ck_abort_msg("no variable %s", name);
	return NULL;
}

/* The results of row i in long double, each result variable v's into
 * val[v] with the size its rounding scales with into mag[v] (the sum of
 * the terms' sizes; a least distance's own size plus what rounding the
 * coordinates to the kernel's type moves it by, 2 |d| (|x| + |y|) a
 * coordinate, which for near points is far more than the distance
 * itself); nearest's least distance and its size also into least and
 * lmag.  One pass over j for all of a row's results: a pass a result
 * (and the columns looked up by name a pair) took 31 of the sanitized
 * test's 48 CPU s, 6 of the plain one's 17. */
typedef struct Ref {
	long double val[MAXV], mag[MAXV], least, lmag;
} Ref;

static void ref_row(const Pair *s, size_t i, Ref *o)
{
	long double sum[4] = {0, 0, 0, 0}, mag[4] = {0, 0, 0, 0};
	long double best = INFINITY, bmag = 0;
	size_t arg = 0;
	if (s->which == LSE) {
		const double *x[3] = {col(s, "xi"), col(s, "yi"), col(s, "zi")};
		const double *y[3] = {col(s, "yx"), col(s, "yy"), col(s, "yz")};
		const double *lw = col(s, "lw");
		long double e[4096], top = -INFINITY;
		for (size_t j = 0; j < s->nj; j++) {
			long double r2 = 0;
			for (int c = 0; c < 3; c++)
				r2 += ((long double)x[c][i] - y[c][j]) *
				      ((long double)x[c][i] - y[c][j]);
			e[j] = lw[j] - kern[LSE].c * r2;
			top = e[j] > top ? e[j] : top;
		}
		for (size_t j = 0; j < s->nj; j++)
			sum[0] += expl(e[j] - top);
		sum[0] = s->nj ? top + logl(sum[0]) : -INFINITY;
		mag[0] = fabsl(top) + 1;
	} else {
		const double *x[3] = {col(s, "xi"), col(s, "yi"), col(s, "zi")};
		const double *y[3] = {col(s, "xj"), col(s, "yj"), col(s, "zj")};
		const double *mj = s->which == GRAV ? col(s, "mj") : NULL;
		for (size_t j = 0; j < s->nj; j++) {
			long double d[3], r2 = 0;
			for (int c = 0; c < 3; c++) {
				d[c] = (long double)y[c][j] - x[c][i];
				r2 += d[c] * d[c];
			}
			if (s->which == NEAR) {
				r2 = j != i ? r2 : 1e30L;
				if (r2 < best) {
					best = r2;
					arg = j;
					bmag = r2;
					for (int c = 0; c < 3; c++)
						bmag += 2 * fabsl(d[c]) *
						        (fabsl((long double)x[c][i]) +
						         fabsl(y[c][j]));
				}
				continue;
			}
			long double ri = 1 / sqrtl(r2 + kern[GRAV].c), m = mj[j];
			for (int c0 = 0; c0 < 4; c0++) {
				long double t = c0 < 3 ? m * ri * ri * ri * d[c0] : -m * ri;
				sum[c0] += t;
				mag[c0] += fabsl(t);
			}
		}
	}
	o->least = best;
	o->lmag = bmag;
	for (int v = 0; v < s->f->nvar; v++) {
		const char *name = s->f->var[v].name;
		if (s->f->var[v].role != NB_RMEM)
			continue;
		if (s->which == NEAR) {
			o->val[v] = name[0] == 'k' ? (long double)arg : best;
			o->mag[v] = bmag;
			continue;
		}
		/* gravity's ax, ay, az and pot; logsumexp's one */
		int c0 = s->which == GRAV ? (name[1] == 'x' ? 0 : name[1] == 'y' ?
		                             1 : name[1] == 'z' ? 2 : 3) : 0;
		o->val[v] = sum[c0];
		o->mag[v] = mag[c0];
	}
}

/* The kernels' results: the same bits, and within tol of long double
 * (relative to the terms' sizes; an argmin's index: a j whose distance
 * is the least within tol). */
static void check(Pair *s, double tol, const char *what)
{
	size_t n = s->ni ? s->ni : 1;
	double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	Ref *ref = malloc(n * sizeof *ref);
	ck_assert(a && b && ref);
	for (size_t i = 0; i < s->ni; i++)
		ref_row(s, i, &ref[i]);
	for (int v = 0; v < s->f->nvar; v++) {
		const nb_var *x = &s->f->var[v];
		if (x->role != NB_RMEM)
			continue;
		read1(s, NK - 1, v, b);
		for (int q = 0; q < NK - 1; q++) {
			read1(s, q, v, a);
			ck_assert_msg(memcmp(a, b, s->ni * sizeof *a) == 0,
			              "%s N = %zu, %s: %s differs between the path "
			              "of NBRT_DIRECT=%s and the old one",
			              kern[s->which].file, s->ni, what, x->name,
			              mode[q] ? mode[q] : "(unset)");
		}
		double worst = 0;
		for (size_t i = 0; i < s->ni; i++) {
			long double mag = ref[i].mag[v], r = ref[i].val[v], e;
			if (x->red == NB_ARGMIN) {
				long double d2 = 0;
				size_t j = (size_t)a[i];
				assert_each(a[i] >= 0 && j < s->nj && (double)j == a[i],
				            "%s: index %g", x->name, a[i]);
				for (int c = 0; c < 3; c++) {
					long double d = (long double)s->h[c][i] -
					                col(s, c == 0 ? "xj" : c == 1 ? "yj" :
					                    "zj")[j];
					d2 += d * d;
				}
				d2 = j != i ? d2 : 1e30L;
				mag = ref[i].lmag;
				e = fabsl(d2 - ref[i].least) / (mag > 0 ? mag : 1);
			} else {
				e = fabsl(a[i] - r) / (mag > 0 ? mag : 1);
			}
			worst = (double)e > worst || e != e ? (double)e : worst;
		}
		ck_assert_msg(worst < tol, "%s N = %zu, %s: %s error %g against "
		              "long double", kern[s->which].file, s->ni, what,
		              x->name, worst);
	}
	free(a);
	free(b);
	free(ref);
}

static double tol_of(nb_prec p)
{
	return p == NB_FLOAT ? 2e-5 : 1e-12;
}

/* The runs of both kernels, the second on unchanged inputs, under queue
 * mode q; the notes say which path each took and how many launches. */
static void both(int which, nb_prec p, size_t n, int q)
{
	Pair s;
	char text[8192];
	char *was = env_keep("NBRT_VERBOSE");
	setenv("NBRT_VERBOSE", "1", 1);
	Capture c;
	ck_assert_int_eq(capture_start(&c), 0);
	make(&s, which, p, n, n);
	ck_assert_int_eq(nbrt_set_queue(s.rt, q), 0);
	for (int r = 0; r < 2; r++)
		run_all(&s);
	ck_assert_msg(nbrt_wait(s.rt, NULL) == 0, "%s", nbrt_error(s.rt));
	char what[64];
	snprintf(what, sizeof what, "%s, queue %d", nb_prec_name(p), q);
	check(&s, tol_of(p), what);
	free_kernels(&s); /* their notes of the launches */
	capture_end(&c, text, sizeof text);
	env_back("NBRT_VERBOSE", was);
	int din = strstr(text, "its inputs read from them by the kernel: one "
	                 "launch a run, ") != NULL;
	int one = strstr(text, "stored into the arrays by the kernel: one "
	                 "launch a run") != NULL;
	int two = strstr(text, "then converted into the arrays") != NULL;
	/* each kernel's note of its launches, in their order: NB_DIN's no
	 * conversions but, in float, its float copies' making at the first
	 * run (one launch: at most 8 columns); NBRT_DIRECT=1's its inputs' at its first run
	 * (gravity: 1, its 7 columns of floats in one launch); the old
	 * path's those and its results' after each run (gravity: 1 a run, 4
	 * columns; nearest in float: 2, its index a double) */
	long cnt[NK][3] = {{0}};
	const char *at = text;
	for (int kk = 0; kk < NK && (at = strstr(at, "2 runs: ")); kk++, at++)
		ck_assert_int_eq(sscanf(at, "%ld runs: %ld launches of the kernel, "
		                        "%ld of conversions", &cnt[kk][0],
		                        &cnt[kk][1], &cnt[kk][2]), 3);
	long res = (cnt[2][2] - cnt[1][2]) / 2;
	/* N = 0: nbrt_run launches nothing, nor reaches the device */
	ck_assert_msg(din == (n > 0) && one == (n > 0) && two == (n > 0) &&
	              (n ? cnt[0][1] == 2 && cnt[1][1] == 2 && cnt[2][1] == 2 &&
	                   cnt[0][2] == (p == NB_FLOAT) && cnt[1][2] >= 1 &&
	                   res >= 1 &&
	                   cnt[2][2] == cnt[1][2] + 2 * res &&
	                   (which != GRAV || (cnt[1][2] == 1 && res == 1)) :
	                   !cnt[0][0] && !cnt[1][0] && !cnt[2][0]),
	              "%s N = %zu, %s: notes:\n%s", kern[which].file, n, what,
	              text);
	unmake(&s);
}

static const size_t sizes[] = {0, 1, 127, 4096};

START_TEST(sums)
{
	nb_prec p = _i < 4 ? NB_FLOAT : _i < 8 ? NB_DOUBLE : NB_DD;
	if (p == NB_DD && sizes[_i % 4] > 127)
		return; /* dd's 4096^2 on PoCL: seconds for the same code */
	both(GRAV, p, sizes[_i % 4], 0);
}
END_TEST

START_TEST(argmin)
{
	both(NEAR, _i < 4 ? NB_FLOAT : NB_DOUBLE, sizes[_i % 4], 0);
}
END_TEST

START_TEST(logsumexp)
{
	both(LSE, _i < 4 ? NB_FLOAT : NB_DOUBLE, sizes[_i % 4], 0);
}
END_TEST

/* queued and untimed runs, as waited ones */
START_TEST(queued)
{
	both(_i < 2 ? GRAV : NEAR, NB_FLOAT, 127, 1 + _i % 2);
}
END_TEST

/* Two runs of kernel `which` at N = 300 (float), one by each kernel,
 * with $var set to val and NBRT_VERBOSE=1: their notes in text. */
static void noted(Pair *s, int which, const char *var, const char *val,
                  char *text, size_t cap)
{
	char *was = env_keep(var), *vb = env_keep("NBRT_VERBOSE");
	setenv(var, val, 1);
	setenv("NBRT_VERBOSE", "1", 1);
	Capture c;
	ck_assert_int_eq(capture_start(&c), 0);
	make(s, which, NB_FLOAT, 300, 300);
	run_all(s);
	capture_end(&c, text, cap);
	env_back(var, was);
	env_back("NBRT_VERBOSE", vb);
}

/* Several launches or j-slices: the old path for the allowed kernel too,
 * right against long double, the same bits as the kernel that never
 * takes the direct path. */
START_TEST(old_path)
{
	const char *var = _i == 0 ? "NBRT_MAX_INTERACTIONS" : "NBRT_SLICES";
	Pair s;
	char text[8192];
	noted(&s, GRAV, var, _i == 0 ? "5000" : "3", text, sizeof text);
	long ld = nbrt_launches(s.k[0]);
	check(&s, tol_of(NB_FLOAT), var);
	ck_assert_msg(strstr(text, "then converted into the arrays") &&
	              !strstr(text, "one launch a run"), "%s: notes:\n%s", var,
	              text);
	ck_assert_msg(_i == 1 ? strstr(text, "3 j-slices") != NULL : ld > 1,
	              "%s: %ld launches; notes:\n%s", var, ld, text);
	unmake(&s);
}
END_TEST

/* The one-launch entry built only by a run that takes it: a sliced run
 * (NBRT_SLICES=3) builds no NB_DIRECT program (NBRT_CACHE=0: every
 * program built, each noted with its options) and converts its results;
 * the same kernel's next run, unsliced, builds it and takes it.  Both
 * right, the same bits as the kernel that never takes it. */
START_TEST(built_when_taken)
{
	Pair s;
	char text[8192];
	char *cache = env_keep("NBRT_CACHE");
	setenv("NBRT_CACHE", "0", 1);
	noted(&s, GRAV, "NBRT_SLICES", "3", text, sizeof text);
	check(&s, tol_of(NB_FLOAT), "sliced");
	ck_assert_msg(strstr(text, "3 j-slices") &&
	              strstr(text, "then converted into the arrays") &&
	              !strstr(text, "NB_DIRECT=1") &&
	              !strstr(text, "one launch a run"), "sliced: notes:\n%s",
	              text);
	char *vb = env_keep("NBRT_VERBOSE");
	setenv("NBRT_VERBOSE", "1", 1);
	Capture c;
	ck_assert_int_eq(capture_start(&c), 0);
	run_all(&s);
	capture_end(&c, text, sizeof text);
	env_back("NBRT_VERBOSE", vb);
	env_back("NBRT_CACHE", cache);
	check(&s, tol_of(NB_FLOAT), "unsliced");
	ck_assert_msg(strstr(text, "NB_DIRECT=1") &&
	              strstr(text, "one launch a run") &&
	              !strstr(text, "j-slices"), "unsliced: notes:\n%s", text);
	unmake(&s);
}
END_TEST

/* The one-launch build failing (NBRT_TEST_FAIL=direct_build): noted,
 * the conversion after the kernel as before (NBRT_DIRECT=1's kernel; the
 * default's NB_DIN build is another), the results right. */
START_TEST(build_fails)
{
	Pair s;
	char text[8192];
	noted(&s, NEAR, "NBRT_TEST_FAIL", "direct_build", text, sizeof text);
	check(&s, tol_of(NB_FLOAT), "direct_build");
	ck_assert_msg(strstr(text, "the build storing its results into the "
	                     "arrays failed (NBRT_TEST_FAIL=direct_build); they "
	                     "are converted after it") &&
	              !strstr(text, "stored into the arrays by the kernel: one "
	                      "launch a run"), "notes:\n%s", text);
	unmake(&s);
}
END_TEST

/* The NB_DIN build failing (NBRT_TEST_FAIL=din_build): noted, the
 * inputs converted before the kernel, its results still stored by it. */
START_TEST(din_fails)
{
	Pair s;
	char text[8192];
	noted(&s, GRAV, "NBRT_TEST_FAIL", "din_build", text, sizeof text);
	check(&s, tol_of(NB_FLOAT), "din_build");
	ck_assert_msg(strstr(text, "the build reading its inputs from the "
	                     "arrays failed (NBRT_TEST_FAIL=din_build); they "
	                     "are converted before it") &&
	              strstr(text, "stored into the arrays by the kernel: one "
	                     "launch a run") &&
	              !strstr(text, "its inputs read from them"), "notes:\n%s",
	              text);
	unmake(&s);
}
END_TEST

/* Loading gravity on PoCL with var set to a bad value fails, naming var;
 * var is put back after. */
static void load_refused(const char *var, const char *value)
{
	char *was = env_keep(var);
	setenv(var, value, 1);
	nbrt *rt = nbrt_open("cpu", NULL);
	ck_assert_ptr_nonnull(rt);
	nb_options o;
	nb_options_init(&o);
	ck_assert_ptr_null(nbrt_load(rt, kern[GRAV].file, &o));
	ck_assert_msg(strstr(nbrt_error(rt), var) != NULL, "%s: %s", var,
	              nbrt_error(rt));
	nbrt_close(rt);
	env_back(var, was);
}

/* NBRT_DIN_MAX=P: a float run of more than P pairs converts its inputs
 * (its results still stored by the kernel), one of P reads the arrays;
 * both right, the old path's bits.  A value that is no count is an error
 * at the load. */
START_TEST(din_max)
{
	Pair s;
	char text[8192];
	const char *max = _i ? "90000" : "89999"; /* N = 300: 90000 pairs */
	noted(&s, GRAV, "NBRT_DIN_MAX", max, text, sizeof text);
	check(&s, tol_of(NB_FLOAT), max);
	int din = strstr(text, "its inputs read from them") != NULL;
	ck_assert_msg(din == _i && (_i || strstr(text, "stored into the arrays "
	                                         "by the kernel: one launch")),
	              "NBRT_DIN_MAX=%s: notes:\n%s", max, text);
	unmake(&s);
	load_refused("NBRT_DIN_MAX", "many");
}
END_TEST

/* The defaults row's din_max itself (PoCL's rows have none): under
 * NBRT_DEVICE_CLASS=gpu-nvidia (runtime/core.c) a float run of at most
 * its row's pairs reads the arrays, one of a j-element more converts its
 * inputs (its results still stored by the kernel); with no limit (0,
 * the row's since its inputs are read from float copies) both read the
 * arrays (the second run's way not named again: it is the first's),
 * Nj = 10000 (session 20's limit, 2e8 pairs).  Ni = 20000
 * against Nj = din_max / Ni and one more: some 2e8 interactions a run
 * (the case 0.8 s warm on PoCL), the one kernel, its notes each run's
 * own.  NBRT_SLICES=1, as the row's 16 j-slices of a launch of that
 * size would take neither one-launch entry. */
START_TEST(din_row)
{
	const nb_defaults *row = nb_defaults_find("opencl", "gpu-nvidia",
	                                          NB_FLOAT);
	ck_assert(row && row->din_max >= 0);
	size_t ni = 20000, nj = row->din_max ? (size_t)row->din_max / ni : 10000;
	static const char *const var[3] = {"NBRT_DEVICE_CLASS", "NBRT_SLICES",
	                                   "NBRT_VERBOSE"};
	static const char *const val[3] = {"gpu-nvidia", "1", "1"};
	char *was[3];
	for (int e = 0; e < 3; e++) {
		was[e] = env_keep(var[e]);
		setenv(var[e], val[e], 1);
	}
	Pair s;
	memset(&s, 0, sizeof s);
	s.which = GRAV;
	s.rt = nbrt_open("cpu", NULL);
	ck_assert_ptr_nonnull(s.rt);
	s.k[0] = load(&s, NB_FLOAT, NULL);
	s.f = nbrt_iface(s.k[0]);
	for (int v = 0; v < s.f->nvar; v++) {
		const nb_var *x = &s.f->var[v];
		if (x->role == NB_CONST)
			continue;
		/* j's as long as the longer run's */
		size_t n = x->role == NB_BMEM ? nj + 1 : ni;
		s.in[v] = array(&s, n);
		if (x->role != NB_RMEM) {
			s.h[v] = malloc(n * sizeof(double));
			for (size_t e = 0; e < n; e++)
				s.h[v][e] = urand(-1, 1);
			ck_assert_int_eq(nbrt_array_write(s.in[v], s.h[v]), 0);
		}
		ck_assert_int_eq(nbrt_bind_array(s.k[0], x->name, s.in[v]), 0);
	}
	for (int over = 0; over < 2; over++) {
		char text[8192];
		Capture c;
		ck_assert_int_eq(capture_start(&c), 0);
		int rc = nbrt_run(s.k[0], ni, nj + (size_t)over);
		capture_end(&c, text, sizeof text);
		ck_assert_msg(rc == 0, "%s", nbrt_error(s.rt));
		int din = strstr(text, "its inputs read from them") != NULL;
		int one = strstr(text, "stored into the arrays by the kernel: "
		                 "one launch") != NULL;
		/* no limit: the second run's way is the first's, so not
		 * named again (path_note) */
		int same = !strstr(text, "its results stored");
		ck_assert_msg(row->din_max ? din == !over && (!over || one)
		                           : over ? same : din,
		              "%zu x %zu pairs against the row's din_max %lld: "
		              "notes:\n%s", ni, nj + (size_t)over, row->din_max,
		              text);
	}
	unmake(&s);
	for (int e = 0; e < 3; e++)
		env_back(var[e], was[e]);
}
END_TEST

/* Inputs written between runs, and the default kernel's runs switching
 * between NB_DIN and the converted inputs (one input bound from the
 * host, then the array again): every run reads the values as they are
 * (a converted buffer kept from before an NB_DIN run, or a stale one,
 * would not be). */
START_TEST(din_then_not)
{
	Pair s;
	make(&s, _i ? NEAR : GRAV, NB_FLOAT, 300, 300);
	run_all(&s);
	check(&s, tol_of(NB_FLOAT), "first");
	int x = nb_iface_find(s.f, "xi"), y = nb_iface_find(s.f, "xj");
	ck_assert_int_ge(x, 0);
	ck_assert_int_ge(y, 0);
	for (int round = 0; round < 4; round++) {
		/* new values in an i- and a j-column */
		for (int w = 0; w < 2; w++) {
			int v = w ? y : x;
			for (size_t e = 0; e < 300; e++)
				s.h[v][e] = urand(-1, 1);
			ck_assert_int_eq(nbrt_array_write(s.in[v], s.h[v]), 0);
		}
		/* rounds 1 and 3: xi from the host (the same values), which
		 * the NB_DIN entry cannot take; rounds 0 and 2: the array */
		ck_assert_int_eq(round % 2 ? nbrt_bind(s.k[0], "xi", NBRT_DOUBLE,
		                                       s.h[x])
		                           : nbrt_bind_array(s.k[0], "xi", s.in[x]),
		                 0);
		run_all(&s);
		char what[32];
		snprintf(what, sizeof what, "round %d", round);
		check(&s, tol_of(NB_FLOAT), what);
	}
	unmake(&s);
}
END_TEST

/* A float kernel's NB_DIN entry reads its arrays' float copies, which
 * nbrt_array_axpy and nbrt_array_axpy2 write beside what they update:
 * rounds of a leap-frog's drift on the i-positions (axpy2, z) and a
 * plain update of the j-positions (axpy), then a run: the same bits as
 * the kernels that convert the arrays themselves, within tolerance of
 * long double on the host's copies (updated by the same loops: the
 * arrays' contract gives their bits), and no conversion of the entry's
 * but the first run's (the copies made) until mj is written from the
 * host (one more), and one for the update of xi beside a velocity
 * where the velocities have no copies (_i = 0; _i = 1: they are a
 * kernel's inputs too, so they have). */
START_TEST(shadow_axpy)
{
	Pair s;
	char text[8192];
	char *vb = env_keep("NBRT_VERBOSE");
	setenv("NBRT_VERBOSE", "1", 1);
	Capture c;
	ck_assert_int_eq(capture_start(&c), 0);
	make(&s, GRAV, NB_FLOAT, 300, 300);
	run_all(&s);
	static const char *const iname[3] = {"xi", "yi", "zi"};
	static const char *const jname[3] = {"xj", "yj", "zj"};
	nbrt_array *vel[3], *zi[3], *zj[3];
	double *hv[3], *hi[3], *hj[3];
	for (int d = 0; d < 3; d++) {
		vel[d] = array(&s, 300);
		hv[d] = malloc(300 * sizeof(double));
		ck_assert_ptr_nonnull(hv[d]);
		for (size_t e = 0; e < 300; e++)
			hv[d][e] = urand(-1, 1);
		ck_assert_int_eq(nbrt_array_write(vel[d], hv[d]), 0);
		int vi = nb_iface_find(s.f, iname[d]), vj = nb_iface_find(s.f,
		                                                       jname[d]);
		ck_assert(vi >= 0 && vj >= 0);
		zi[d] = s.in[vi];
		hi[d] = s.h[vi];
		zj[d] = s.in[vj];
		hj[d] = s.h[vj];
	}
	/* _i = 1: the velocities are a kernel's inputs too, so they have
	 * float copies, which axpy2 leaves stale (it writes z's) */
	nbrt_kernel *kv = NULL;
	if (_i) {
		kv = load(&s, NB_FLOAT, NULL);
		nbrt_array *res[4];
		for (int d = 0; d < 3; d++) {
			ck_assert_int_eq(nbrt_bind_array(kv, iname[d], vel[d]), 0);
			ck_assert_int_eq(nbrt_bind_array(kv, jname[d], vel[d]), 0);
		}
		ck_assert_int_eq(nbrt_bind_array(kv, "mj", s.in[nb_iface_find(s.f,
		                                                  "mj")]), 0);
		static const char *const rn[4] = {"ax", "ay", "az", "pot"};
		for (int r = 0; r < 4; r++) {
			res[r] = array(&s, 300);
			ck_assert_int_eq(nbrt_bind_array(kv, rn[r], res[r]), 0);
		}
		ck_assert_msg(nbrt_run(kv, 300, 300) == 0, "%s", nbrt_error(s.rt));
		nbrt_free(kv);
		for (int r = 0; r < 4; r++)
			nbrt_array_free(res[r]);
	}
	for (int round = 0; round < 3; round++) {
		double h = urand(0.01, 0.1), g = urand(0.01, 0.1);
		ck_assert_msg(nbrt_array_axpy2(vel, h, zj, zi, g, 3) == 0, "%s",
		              nbrt_error(s.rt));
		ck_assert_msg(nbrt_array_axpy(zj, g, vel, 3) == 0, "%s",
		              nbrt_error(s.rt));
		for (int d = 0; d < 3; d++)
			for (size_t e = 0; e < 300; e++) {
				hv[d][e] += h * hj[d][e];
				hi[d][e] += g * hv[d][e];
			}
		for (int d = 0; d < 3; d++)
			for (size_t e = 0; e < 300; e++)
				hj[d][e] += g * hv[d][e];
		if (round == 2) {
			/* an update of a shadowed array beside one without a
			 * copy (_i = 0): no copies written, xi's made again */
			nbrt_array *y2[2] = {zi[0], vel[1]}, *x2[2] = {vel[0], vel[2]};
			ck_assert_msg(nbrt_array_axpy(y2, h, x2, 2) == 0, "%s",
			              nbrt_error(s.rt));
			for (size_t e = 0; e < 300; e++) {
				hi[0][e] += h * hv[0][e];
				hv[1][e] += h * hv[2][e];
			}
		}
		run_all(&s);
		char what[32];
		snprintf(what, sizeof what, "round %d", round);
		check(&s, tol_of(NB_FLOAT), what);
	}
	int m = nb_iface_find(s.f, "mj");
	for (size_t e = 0; e < 300; e++)
		s.h[m][e] = urand(0.5, 1);
	ck_assert_int_eq(nbrt_array_write(s.in[m], s.h[m]), 0);
	run_all(&s);
	check(&s, tol_of(NB_FLOAT), "mj written");
	free_kernels(&s);
	capture_end(&c, text, sizeof text);
	env_back("NBRT_VERBOSE", vb);
	long runs = 0, kl = 0, conv = -1;
	const char *at = strstr(text, "5 runs: ");
	ck_assert_msg(at && sscanf(at, "%ld runs: %ld launches of the kernel, "
	                           "%ld of conversions", &runs, &kl, &conv) == 3 &&
	              kl == 5 && conv == 3 - _i,
	              "the NB_DIN kernel's launches: %ld, conversions: %ld (want "
	              "5 and %d); notes:\n%s", kl, conv, 3 - _i, text);
	for (int d = 0; d < 3; d++) {
		nbrt_array_free(vel[d]);
		free(hv[d]);
	}
	unmake(&s);
}
END_TEST

/* NBRT_DIN_SHADOW=0: the NB_DIN entry reads the doubles and casts each,
 * no float copies (no conversion launch of its own at all), the same
 * bits as the converting kernels; a value that is no 0 or 1 is an error
 * at the load, naming it. */
START_TEST(no_shadow)
{
	Pair s;
	char text[8192];
	noted(&s, GRAV, "NBRT_DIN_SHADOW", "0", text, sizeof text);
	check(&s, tol_of(NB_FLOAT), "NBRT_DIN_SHADOW=0");
	ck_assert_msg(strstr(text, "one launch a run, no conversions") != NULL,
	              "notes:\n%s", text);
	unmake(&s);
	load_refused("NBRT_DIN_SHADOW", "2");
}
END_TEST

/* The shadow room made again: a second kernel on the same device whose
 * arrays' copies do not fit moves every copy (the first kernel's too,
 * then stale) into a larger room; its results the same bits as the same
 * kernel converting its inputs (NBRT_DIRECT=0), and the first kernel's
 * after it the same bits as its converting twins; then the big arrays
 * freed and made again (their places empty until the room is made
 * again), once more. */
START_TEST(shadow_room)
{
	Pair s;
	make(&s, GRAV, NB_FLOAT, 300, 300);
	run_all(&s);
	check(&s, tol_of(NB_FLOAT), "before");
	enum { NB = 40000, NI = 64 };
	for (int round = 0; round < 2; round++) {
		nbrt_kernel *kb[2] = {load(&s, NB_FLOAT, NULL),
		                      load(&s, NB_FLOAT, "0")};
		nbrt_array *big[MAXV] = {NULL}, *res[2][MAXV] = {{NULL}};
		double *h = malloc(NB * sizeof *h), *a = malloc(NB * sizeof *a),
		       *b = malloc(NB * sizeof *b);
		ck_assert(h && a && b);
		for (int v = 0; v < s.f->nvar; v++) {
			const nb_var *x = &s.f->var[v];
			if (x->role == NB_CONST)
				continue;
			for (int q = 0; q < 2; q++) {
				nbrt_array **slot = x->role == NB_RMEM ? &res[q][v] : &big[v];
				if (!*slot) {
					*slot = array(&s, NB);
					for (size_t e = 0; e < NB; e++)
						h[e] = urand(x->role == NB_BMEM && !strcmp(x->name,
						                                           "mj") ? 0.5 : -1, 1);
					ck_assert_int_eq(nbrt_array_write(*slot, h), 0);
				}
				ck_assert_int_eq(nbrt_bind_array(kb[q], x->name, *slot), 0);
			}
		}
		for (int q = 0; q < 2; q++)
			ck_assert_msg(nbrt_run(kb[q], NI, NB) == 0, "%s",
			              nbrt_error(s.rt));
		for (int v = 0; v < s.f->nvar; v++)
			if (s.f->var[v].role == NB_RMEM) {
				ck_assert_int_eq(nbrt_array_read(res[0][v], a), 0);
				ck_assert_int_eq(nbrt_array_read(res[1][v], b), 0);
				ck_assert_msg(memcmp(a, b, NI * sizeof *a) == 0, "round %d: "
				              "%s differs from the converting kernel's", round,
				              s.f->var[v].name);
			}
		run_all(&s);
		check(&s, tol_of(NB_FLOAT), round ? "after the second" : "after");
		for (int q = 0; q < 2; q++)
			nbrt_free(kb[q]);
		for (int v = 0; v < MAXV; v++) {
			nbrt_array_free(big[v]);
			nbrt_array_free(res[0][v]);
			nbrt_array_free(res[1][v]);
		}
		free(h);
		free(a);
		free(b);
	}
	unmake(&s);
}
END_TEST

int main(void)
{
	seed_rng("test_direct", rng);
	Suite *s;
	TCase *tc = unit_case(&s, "direct", 300);
	int missing = cpu_missing();
	if (!missing) {
		tcase_add_loop_test(tc, sums, 0, 12);
		tcase_add_loop_test(tc, argmin, 0, 8);
		tcase_add_loop_test(tc, logsumexp, 0, 8);
		tcase_add_loop_test(tc, queued, 0, 4);
		tcase_add_loop_test(tc, old_path, 0, 2);
		tcase_add_test(tc, build_fails);
		tcase_add_test(tc, din_fails);
		tcase_add_loop_test(tc, din_max, 0, 2);
		tcase_add_test(tc, din_row);
		tcase_add_loop_test(tc, din_then_not, 0, 2);
		tcase_add_test(tc, built_when_taken);
		tcase_add_loop_test(tc, shadow_axpy, 0, 2);
		tcase_add_test(tc, shadow_room);
		tcase_add_test(tc, no_shadow);
	}
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? 1 : missing ? 77 : 0;
}
