/* test_newton.c: Newton's third law (nbrt_run_self) against a direct
 * double evaluation of every pair written here, on fresh random inputs,
 * in float, double and dd, at sizes around the runtime's blocks (in cell
 * lists also on PoCL, double and dd: runtime/cl/newton.c): a force
 * (ANTISYMMETRIC), a potential taken with -= and a count (SYMMETRIC), the
 * self pair's term to its element once.  The results' bits are the same
 * twice in a row and under 1, 2 and 3 OpenMP threads; a kernel with an
 * undeclared result, or a device without the entry, computes every pair. */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"

#include "seed.h"

static unsigned short rng[3];

/* Softened gravity in force form: m_i m_j f(x_j - x_i) is antisymmetric,
 * the potential and the count of near pairs symmetric; the self pair
 * adds -m_i^2 / eps to pot and 1 to n, nothing to the force. */
static const char src[] =
    "LMEM xi, yi, zi, mi;\n"
    "BMEM xj, yj, zj, mj;\n"
    "RMEM fx, fy, fz, pot, n;\n"
    "ANTISYMMETRIC fx, fy, fz;\n"
    "SYMMETRIC pot, n;\n"
    "CONST eps2;\n"
    "dx = xj - xi; dy = yj - yi; dz = zj - zi;\n"
    "r2 = eps2 + dx*dx + dy*dy + dz*dz;\n"
    "rinv = r2**-0.5;\n"
    "mm = mi*mj*rinv;\n"
    "f = mm*rinv*rinv;\n"
    "fx += f*dx; fy += f*dy; fz += f*dz;\n"
    "pot -= mm;\n"
    "n += r2 < 0.1;\n";

enum { FX, FY, FZ, POT, CNT, NOUT };
static const char *const outn[NOUT] = {"fx", "fy", "fz", "pot", "n"};
#define EPS2 0.01

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

/* The reference of every pair, and the sum of the terms' magnitudes,
 * which bounds the rounding of any order of the sum. */
static void reference(size_t n, double *const *in, double *ref, double *mag)
{
	const double *x = in[0], *y = in[1], *z = in[2], *m = in[3];
	for (size_t i = 0; i < n; i++) {
		double *r = ref + NOUT * i, *a = mag + NOUT * i;
		memset(r, 0, NOUT * sizeof *r);
		memset(a, 0, NOUT * sizeof *a);
		for (size_t j = 0; j < n; j++) {
			double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
			double r2 = EPS2 + dx * dx + dy * dy + dz * dz;
			double ri = 1 / sqrt(r2), mm = m[i] * m[j] * ri;
			double f = mm * ri * ri;
			double t[NOUT] = {f * dx, f * dy, f * dz, -mm, r2 < 0.1};
			for (int o = 0; o < CNT; o++) {
				r[o] += t[o];
				a[o] += fabs(t[o]);
			}
			/* the count's "magnitude": pairs a float kernel's rounding
			 * of r2 (about 3e-8 here) may put on either side */
			r[CNT] += t[CNT];
			a[CNT] += fabs(r2 - 0.1) <= 1e-6;
		}
	}
}

static nbrt_kernel *load(nbrt *rt, const char *s, nb_prec p)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	nbrt_kernel *k = nbrt_load_source(rt, "newton-test", s, strlen(s), &o);
	ck_assert_msg(k != NULL, "%s", nbrt_error(rt));
	return k;
}

/* Inputs (float values, so every precision sees the same ones) bound to
 * both sides; results (2 doubles an element, for dd) bound to res. */
static double *in[4];
static void inputs(nbrt_kernel *k, size_t n)
{
	static const char *const ln[] = {"xi", "yi", "zi", "mi"};
	static const char *const bn[] = {"xj", "yj", "zj", "mj"};
	for (int c = 0; c < 4; c++) {
		free(in[c]);
		in[c] = malloc((n ? n : 1) * sizeof(double));
		for (size_t i = 0; i < n; i++)
			in[c][i] = (float)(c < 3 ? urand(0, 1) : urand(0.5, 1));
		ck_assert(nbrt_bind(k, ln[c], NBRT_DOUBLE, in[c]) == 0);
		ck_assert(nbrt_bind(k, bn[c], NBRT_DOUBLE, in[c]) == 0);
	}
	ck_assert(nbrt_set_const(k, "eps2", EPS2, 0) == 0);
}

static void outputs(nbrt_kernel *k, nb_prec p, double **res, size_t n)
{
	for (int o = 0; o < NOUT; o++) {
		free(res[o]);
		res[o] = malloc(2 * (n ? n : 1) * sizeof(double));
		for (size_t i = 0; i < 2 * n; i++)
			res[o][i] = NAN;
		ck_assert(nbrt_bind(k, outn[o], p == NB_DD ? NBRT_DD : NBRT_DOUBLE,
		                    res[o]) == 0);
	}
}

/* res against the reference: within the precision's rounding of a sum
 * of n terms (relative to the sum of magnitudes); counts exactly but for
 * the pairs on the cutoff's edge, mag's count (0 where positions are on
 * a grid). */
static void check_res(double *const *res, nb_prec p, size_t n,
                      const double *ref, const double *mag, const char *what)
{
	double u = p == NB_FLOAT ? 0x1p-24 : p == NB_DOUBLE ? 0x1p-53 : 0x1p-80;
	/* the reference itself is double */
	double tol = 4 * u * (double)(n + 8) + 4 * 0x1p-53 * (double)n;
	int w = p == NB_DD ? 2 : 1;
	for (size_t i = 0; i < n; i++)
		for (int o = 0; o < NOUT; o++) {
			double got = res[o][w * i] + (w == 2 ? res[o][2 * i + 1] : 0);
			double want = ref[NOUT * i + o], t = tol * mag[NOUT * i + o];
			if (o == CNT)
				t = mag[NOUT * i + o];
			/* on failure only: a passing ck_assert is a record */
			if (!(fabs(got - want) <= t))
				ck_abort_msg("%s %s n %zu: i %zu: %s = %.17g, want "
				             "%.17g (tolerance %.3g)", what,
				             nb_prec_name(p), n, i, outn[o], got, want, t);
		}
}

START_TEST(against_every_pair)
{
	static const size_t sizes[] = {0, 1, 7, 97, 256, 257, 1000, 2048, 2049};
	nbrt *rt = nbrt_open("host", NULL);
	ck_assert(rt != NULL);
	for (int pi = 0; pi < 3; pi++) {
		nb_prec p = (nb_prec)pi;
		nbrt_kernel *k = load(rt, src, p);
		ck_assert(nbrt_set_newton(k, NBRT_NEWTON_ON) == 0);
		double *res[NOUT] = {0}, *again[NOUT] = {0};
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
			size_t n = sizes[s];
			/* dd is slow: not its largest */
			if (p == NB_DD && n > 1000)
				continue;
			inputs(k, n);
			double *ref = malloc(NOUT * (n ? n : 1) * sizeof *ref);
			double *mag = malloc(NOUT * (n ? n : 1) * sizeof *mag);
			reference(n, in, ref, mag);
			outputs(k, p, res, n);
			ck_assert_msg(nbrt_run_self(k, n) == 0, "%s", nbrt_error(rt));
			ck_assert_int_eq(nbrt_newton_used(k), 1);
			/* fewer pairs than n^2 once there are two blocks */
			if (n > 512)
				ck_assert_msg(nbrt_pairs(k) < 0.7 * (double)n * (double)n,
				              "n %zu: %g pairs", n, nbrt_pairs(k));
			check_res(res, p, n, ref, mag, "newton");
			/* the same bits again, and under other thread counts */
			int w = p == NB_DD ? 2 : 1;
			for (int th = 1; th <= 3; th++) {
				omp_set_num_threads(th);
				outputs(k, p, again, n);
				ck_assert(nbrt_run_self(k, n) == 0);
				for (int o = 0; o < NOUT; o++)
					ck_assert_msg(memcmp(res[o], again[o], (size_t)w * n *
					                     sizeof(double)) == 0,
					              "%s n %zu: %s differs under %d threads",
					              nb_prec_name(p), n, outn[o], th);
			}
			omp_set_num_threads(omp_get_num_procs());
			/* off: every pair, the same results within rounding */
			ck_assert(nbrt_set_newton(k, NBRT_NEWTON_OFF) == 0);
			outputs(k, p, again, n);
			ck_assert(nbrt_run_self(k, n) == 0);
			ck_assert_int_eq(nbrt_newton_used(k), 0);
			check_res(again, p, n, ref, mag, "off");
			ck_assert(nbrt_set_newton(k, NBRT_NEWTON_ON) == 0);
			free(ref);
			free(mag);
		}
		for (int o = 0; o < NOUT; o++) {
			free(res[o]);
			free(again[o]);
		}
		nbrt_free(k);
	}
	nbrt_close(rt);
}
END_TEST

/* --- In cell lists (nbrt_run_cutoff with self) --------------------------
 * The same force cut off at rc: the reference meets every image of j on
 * the periodic axes (the box [0, 4)^3, rc at most half of it).
 * Positions on a grid of 2^-8, so that images, differences and squared
 * distances are exact in float: every precision and order masks the
 * same pairs as the reference. */
static const char cut_src[] =
    "LMEM xi, yi, zi, mi;\n"
    "BMEM xj, yj, zj, mj;\n"
    "RMEM fx, fy, fz, pot, n;\n"
    "ANTISYMMETRIC fx, fy, fz;\n"
    "SYMMETRIC pot, n;\n"
    "CONST eps2, rc2;\n"
    "dx = xj - xi; dy = yj - yi; dz = zj - zi;\n"
    "d2 = dx*dx + dy*dy + dz*dz;\n"
    "w = d2 < rc2;\n"
    "r2 = eps2 + d2;\n"
    "rinv = r2**-0.5;\n"
    "mm = w*mi*mj*rinv;\n"
    "f = mm*rinv*rinv;\n"
    "fx += f*dx; fy += f*dy; fz += f*dz;\n"
    "pot -= mm;\n"
    "n += w;\n";
#define BOX 4.0

static void cut_reference(size_t n, const double *period, double rc,
                          double *ref, double *mag)
{
	const double *x = in[0], *y = in[1], *z = in[2], *m = in[3];
	int lim[3];
	for (int d = 0; d < 3; d++)
		lim[d] = period[d] > 0;
	for (size_t i = 0; i < n; i++) {
		double *r = ref + NOUT * i, *a = mag + NOUT * i;
		memset(r, 0, NOUT * sizeof *r);
		memset(a, 0, NOUT * sizeof *a);
		for (size_t j = 0; j < n; j++)
			for (int sx = -lim[0]; sx <= lim[0]; sx++)
				for (int sy = -lim[1]; sy <= lim[1]; sy++)
					for (int sz = -lim[2]; sz <= lim[2]; sz++) {
						double dx = x[j] + sx * period[0] - x[i];
						double dy = y[j] + sy * period[1] - y[i];
						double dz = z[j] + sz * period[2] - z[i];
						double d2 = dx * dx + dy * dy + dz * dz;
						if (!(d2 < rc * rc))
							continue;
						double ri = 1 / sqrt(EPS2 + d2), mm = m[i] * m[j] * ri;
						double f = mm * ri * ri;
						double t[NOUT] = {f * dx, f * dy, f * dz, -mm, 1};
						for (int o = 0; o < CNT; o++) {
							r[o] += t[o];
							a[o] += fabs(t[o]);
						}
						r[CNT] += 1; /* exact: grid positions */
					}
	}
}

static void cut_inputs(nbrt_kernel *k, size_t n, double rc)
{
	static const char *const ln[] = {"xi", "yi", "zi", "mi"};
	static const char *const bn[] = {"xj", "yj", "zj", "mj"};
	for (int c = 0; c < 4; c++) {
		free(in[c]);
		in[c] = malloc((n ? n : 1) * sizeof(double));
		for (size_t i = 0; i < n; i++)
			in[c][i] = c < 3 ? floor(urand(0, BOX) * 0x1p8) * 0x1p-8
			                 : (float)urand(0.5, 1);
		ck_assert(nbrt_bind(k, ln[c], NBRT_DOUBLE, in[c]) == 0);
		ck_assert(nbrt_bind(k, bn[c], NBRT_DOUBLE, in[c]) == 0);
	}
	ck_assert(nbrt_set_const(k, "eps2", EPS2, 0) == 0);
	ck_assert(nbrt_set_const(k, "rc2", rc * rc, 0) == 0);
}

START_TEST(cell_lists)
{
	static const size_t sizes[] = {0, 1, 2, 97, 1009};
	/* open; periodic, 3 cells an axis; periodic with one cell an axis
	 * (rc half the box: both images of a face); mixed; open, all in one
	 * cell (OpenCL: blocks of up to 97 cut into slices) */
	static const struct {
		double rc, period[3];
	} box[] = {{0.7, {0, 0, 0}}, {1.2, {BOX, BOX, BOX}},
	           {BOX / 2, {BOX, BOX, BOX}}, {0.9, {BOX, 0, BOX}},
	           {2 * BOX, {0, 0, 0}}};
	static const char *const devs[] = {"host", "cpu"};
	for (int d = 0; d < 2; d++) {
		nbrt *rt = nbrt_open(devs[d], NULL);
		if (!rt)
			continue; /* no OpenCL CPU device */
		/* dd on PoCL: its pairs entry in dd arithmetic.  Float there
		 * not (seven PoCL programs, the ranges kernel's j-splits among
		 * them): runtime/cl/newton.c is the same code in any precision
		 * but for the sizes, float's cell lists on PoCL are
		 * test_cutoff's sweep, and float's pairs program (its _pairs,
		 * _termij, _fold and _dense entries) is built and run on PoCL
		 * by nbrun_newton_dense.sh (gravity_force) */
		for (int pi = d; pi < 2 + d; pi++) {
			nb_prec p = pi == 2 ? NB_DD : pi ? NB_DOUBLE : NB_FLOAT;
			nbrt_kernel *k = load(rt, cut_src, p);
			ck_assert(nbrt_set_newton(k, NBRT_NEWTON_ON) == 0);
			double *res[NOUT] = {0}, *again[NOUT] = {0};
			for (size_t b = 0; b < sizeof box / sizeof *box; b++)
				for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
					size_t n = sizes[s];
					if ((box[b].rc >= BOX / 2 || p == NB_DD) && n > 97)
						continue; /* every pair, or dd: slow */
					cut_inputs(k, n, box[b].rc);
					nbrt_cutoff c = {.cutoff = box[b].rc, .dim = 3,
					                 .ipos = {"xi", "yi", "zi"},
					                 .jpos = {"xj", "yj", "zj"},
					                 .self = 1,
					                 /* the lists Newton takes by
					                  * default, for the run without
					                  * it too: the pairs compare */
					                 .split = 1, .group = 1 << 30};
					memcpy(c.period, box[b].period, sizeof c.period);
					double *ref = malloc(NOUT * (n ? n : 1) * sizeof *ref);
					double *mag = malloc(NOUT * (n ? n : 1) * sizeof *mag);
					cut_reference(n, box[b].period, box[b].rc, ref, mag);
					outputs(k, p, res, n);
					ck_assert_msg(nbrt_run_cutoff(k, n, n, &c) == 0, "%s",
					              nbrt_error(rt));
					ck_assert_int_eq(nbrt_newton_used(k), 1);
					check_res(res, p, n, ref, mag, "cells");
					double pairs = nbrt_pairs(k);
					/* the same bits twice; every pair's run the same
					 * within rounding, with more pairs */
					outputs(k, p, again, n);
					ck_assert(nbrt_run_cutoff(k, n, n, &c) == 0);
					size_t w = p == NB_DD ? 2 : 1;
					for (int o = 0; o < NOUT; o++)
						ck_assert_msg(memcmp(res[o], again[o], w * n *
						                     sizeof(double)) == 0,
						              "%s n %zu box %zu: %s differs run to "
						              "run", nb_prec_name(p), n, b, outn[o]);
					ck_assert(nbrt_set_newton(k, NBRT_NEWTON_OFF) == 0);
					outputs(k, p, again, n);
					ck_assert(nbrt_run_cutoff(k, n, n, &c) == 0);
					ck_assert_int_eq(nbrt_newton_used(k), 0);
					check_res(again, p, n, ref, mag, "cells off");
					if (n > 97)
						ck_assert_msg(pairs < 0.7 * nbrt_pairs(k),
						              "n %zu box %zu: %g pairs, %g without",
						              n, b, pairs, nbrt_pairs(k));
					ck_assert(nbrt_set_newton(k, NBRT_NEWTON_ON) == 0);
					if (d == 1 && n > 97) {
						/* OpenCL's tasks of whole cells (cl/newton.c:
						 * slices of 64 work items), where by default
						 * they are cut into slices of 8 or 16 */
						setenv("NBRT_NEWTON_SLICE", "64", 1);
						outputs(k, p, again, n);
						ck_assert_msg(nbrt_run_cutoff(k, n, n, &c) == 0,
						              "%s", nbrt_error(rt));
						unsetenv("NBRT_NEWTON_SLICE");
						ck_assert_int_eq(nbrt_newton_used(k), 1);
						check_res(again, p, n, ref, mag, "cells slice 64");
					}
					if (n > 97) {
						/* groups of several finer cells: tasks of whole
						 * runs of other groups (newton.c) */
						nbrt_cutoff f = c;
						f.split = 2;
						f.group = 4;
						outputs(k, p, again, n);
						ck_assert(nbrt_run_cutoff(k, n, n, &f) == 0);
						ck_assert_int_eq(nbrt_newton_used(k), 1);
						check_res(again, p, n, ref, mag, "cells split 2");
					}
					free(ref);
					free(mag);
				}
			for (int o = 0; o < NOUT; o++) {
				free(res[o]);
				free(again[o]);
			}
			nbrt_free(k);
		}
		nbrt_close(rt);
	}
}
END_TEST

/* Without every result declared a self run is nbrt_run(k, n, n); on
 * PoCL, asked for, it takes the dense entry (runtime/cl/newton.c). */
START_TEST(falls_back)
{
	char half[sizeof src];
	memcpy(half, src, sizeof src);
	char *s = strstr(half, "SYMMETRIC pot, n;");
	memcpy(s, "// ", 3); /* pot and n undeclared */
	static const char *const devs[] = {"host", "cpu"};
	for (int d = 0; d < 2; d++) {
		nbrt *rt = nbrt_open(devs[d], NULL);
		if (!rt)
			continue; /* no OpenCL CPU device */
		{
			/* the host with the undeclared results, PoCL with all */
			nbrt_kernel *k = load(rt, d == 0 ? half : src, NB_DOUBLE);
			ck_assert(nbrt_set_newton(k, NBRT_NEWTON_ON) == 0);
			size_t n = 600;
			inputs(k, n);
			double *res[NOUT] = {0};
			double *ref = malloc(NOUT * n * sizeof *ref);
			double *mag = malloc(NOUT * n * sizeof *mag);
			reference(n, in, ref, mag);
			outputs(k, NB_DOUBLE, res, n);
			ck_assert_msg(nbrt_run_self(k, n) == 0, "%s", nbrt_error(rt));
			ck_assert_int_eq(nbrt_newton_used(k), d);
			/* PoCL: blocks of 4 rows of its work group (512): fewer */
			ck_assert_msg(d ? nbrt_pairs(k) < 0.9 * (double)n * (double)n :
			              nbrt_pairs(k) == (double)n * (double)n,
			              "%s: %g pairs", devs[d], nbrt_pairs(k));
			check_res(res, NB_DOUBLE, n, ref, mag, devs[d]);
			for (int o = 0; o < NOUT; o++)
				free(res[o]);
			free(ref);
			free(mag);
			nbrt_free(k);
		}
		nbrt_close(rt);
	}
}
END_TEST

START_TEST(bad_mode)
{
	nbrt *rt = nbrt_open("host", NULL);
	nbrt_kernel *k = load(rt, src, NB_DOUBLE);
	ck_assert_int_eq(nbrt_set_newton(k, (nbrt_newton)7), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "mode 7") != NULL, "%s",
	              nbrt_error(rt));
	nbrt_free(k);
	nbrt_close(rt);
}
END_TEST

int main(void)
{
	seed_rng("test_newton", rng);
	Suite *s = suite_create("newton");
	TCase *tc = tcase_create("newton");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, against_every_pair);
	tcase_add_test(tc, cell_lists);
	tcase_add_test(tc, falls_back);
	tcase_add_test(tc, bad_mode);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int c = 0; c < 4; c++)
		free(in[c]);
	return nf ? 1 : 0;
}
