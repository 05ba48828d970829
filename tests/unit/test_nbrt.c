/* test_nbrt.c: the runtime on both devices, the host C path and OpenCL
 * (PoCL here; NBRT_DEVICE=gpu, say, picks another).  Gravity kernels run
 * on fresh random inputs (seed printed; NBCC_TEST_SEED=S repeats a run) for
 * every Ni, Nj in {0, 1, 7, 1000, 1023} against a direct double sum
 * written here; a dd kernel against QD; other launch shapes, split
 * launches, conversions between host and kernel types, arrays kept on
 * the device (nbrt_array), the cache, timing, and the message of every
 * error a user can cause.  One process (no
 * fork): kernels are built once and reused.  Without an OpenCL CPU device
 * (and no NBRT_DEVICE naming another) only the host runs, and the exit
 * status is 77, skipped (tests/run.sh). */
#include <check.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <ftw.h>
#include <unistd.h>
#include <qd/c_dd.h>
#include "nbrt.h"
#include "nbrt_impl.h" /* nbrt_slices_rule, nbrt_own_rule */

#ifndef ROOT
#define ROOT "."
#endif
#define GRAVITY ROOT "/dsl-examples/gravity.nbl"

#include "seed.h"

static unsigned short rng[3]; /* erand48's state, from seed_rng */

static char cachedir[] = "/tmp/test_nbrt-XXXXXX";

/* The devices: 0 the host, 1 OpenCL; and kernels loaded on each. */
enum { HOST, OCL, NDEV };
static nbrt *dev[NDEV];
static const char *devspec[NDEV] = {"host", "cpu"};
static nbrt_kernel *gfloat[NDEV], *gdouble[NDEV], *ddk[NDEV];
static int ndev = NDEV; /* HOST + 1 when there is no OpenCL device */

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

static nbrt *device(int d)
{
	if (!dev[d]) {
		char *err = NULL;
		dev[d] = nbrt_open(devspec[d], &err);
		ck_assert_msg(dev[d] != NULL, "nbrt_open(%s): %s", devspec[d], err);
		printf("test_nbrt: device %d: %s\n", d, nbrt_device_name(dev[d]));
		fflush(stdout);
	}
	return dev[d];
}

static nbrt_kernel *gravity(int d, nb_prec p)
{
	nbrt_kernel **slot = p == NB_FLOAT ? &gfloat[d] : &gdouble[d];
	if (!*slot) {
		nb_options o;
		nb_options_init(&o);
		o.precision = p;
		*slot = nbrt_load(device(d), GRAVITY, &o);
		ck_assert_msg(*slot != NULL, "load gravity: %s",
		              nbrt_error(device(d)));
	}
	return *slot;
}

/* --- host arrays of any type ------------------------------------------ */

static void *as_type(const double *v, size_t n, nbrt_type t)
{
	size_t m = n ? n : 1;
	if (t == NBRT_FLOAT) {
		float *a = malloc(m * sizeof *a);
		for (size_t i = 0; i < n; i++)
			a[i] = (float)v[i];
		return a;
	}
	double *a = malloc(m * (t == NBRT_DD ? 2 : 1) * sizeof *a);
	for (size_t i = 0; i < n; i++) {
		if (t == NBRT_DD) {
			a[2 * i] = v[i];
			a[2 * i + 1] = 0;
		} else {
			a[i] = v[i];
		}
	}
	return a;
}

static void *nan_array(size_t n, nbrt_type t)
{
	size_t m = (n ? n : 1) * (t == NBRT_DD ? 2 : 1);
	if (t == NBRT_FLOAT) {
		float *a = malloc(m * sizeof *a);
		for (size_t i = 0; i < m; i++)
			a[i] = NAN;
		return a;
	}
	double *a = malloc(m * sizeof *a);
	for (size_t i = 0; i < m; i++)
		a[i] = NAN;
	return a;
}

static double get(const void *a, nbrt_type t, size_t i)
{
	if (t == NBRT_FLOAT)
		return ((const float *)a)[i];
	if (t == NBRT_DOUBLE)
		return ((const double *)a)[i];
	return ((const double *)a)[2 * i] + ((const double *)a)[2 * i + 1];
}

static const char *tname(nbrt_type t)
{
	return t == NBRT_FLOAT ? "float" : t == NBRT_DOUBLE ? "double" : "dd";
}

/* --- gravity ---------------------------------------------------------- */

/* Inputs are floats (so a float kernel sees exactly the values the
 * reference uses), kept as doubles. */
typedef struct Grav {
	size_t ni, nj;
	double eps2;
	double *xi[3], *xj[4];  /* xi, yi, zi; xj, yj, zj, mj */
	double *ref[4];         /* ax, ay, az, pot */
	double *mag[4];         /* the same sums of |term| */
} Grav;

static const char *const gin[3] = {"xi", "yi", "zi"};
static const char *const gjn[4] = {"xj", "yj", "zj", "mj"};
static const char *const gout[4] = {"ax", "ay", "az", "pot"};

static double *rand_floats(size_t n, double a, double b)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)urand(a, b);
	return v;
}

/* Eq. 1 of paper 000, directly, in double. */
static void grav_ref(Grav *g)
{
	for (int c = 0; c < 4; c++) {
		g->ref[c] = calloc(g->ni ? g->ni : 1, sizeof(double));
		g->mag[c] = calloc(g->ni ? g->ni : 1, sizeof(double));
	}
	for (size_t i = 0; i < g->ni; i++)
		for (size_t j = 0; j < g->nj; j++) {
			double dx = g->xj[0][j] - g->xi[0][i];
			double dy = g->xj[1][j] - g->xi[1][i];
			double dz = g->xj[2][j] - g->xi[2][i];
			double r2 = g->eps2 + dx * dx + dy * dy + dz * dz;
			double rinv = 1 / sqrt(r2);
			double mr = g->xj[3][j] * rinv;
			double mr3 = mr * rinv * rinv;
			g->ref[0][i] += mr3 * dx;
			g->ref[1][i] += mr3 * dy;
			g->ref[2][i] += mr3 * dz;
			g->ref[3][i] -= mr;
			g->mag[0][i] += fabs(mr3 * dx);
			g->mag[1][i] += fabs(mr3 * dy);
			g->mag[2][i] += fabs(mr3 * dz);
			g->mag[3][i] += mr;
		}
}

static Grav grav_make(size_t ni, size_t nj)
{
	Grav g = {ni, nj, 1.0 / 64, {0}, {0}, {0}, {0}};
	for (int c = 0; c < 3; c++)
		g.xi[c] = rand_floats(ni, -1, 1);
	for (int c = 0; c < 3; c++)
		g.xj[c] = rand_floats(nj, -1, 1);
	g.xj[3] = rand_floats(nj, 0.01, 1);
	grav_ref(&g);
	return g;
}

static void grav_free(Grav *g)
{
	for (int c = 0; c < 3; c++)
		free(g->xi[c]);
	for (int c = 0; c < 4; c++) {
		free(g->xj[c]);
		free(g->ref[c]);
		free(g->mag[c]);
	}
}

/* Runs k on g with host arrays of the given types and checks each result
 * vector: max_i |r_i - ref_i| <= tol * max_i mag_i, where mag_i is the sum
 * of the magnitudes of the terms of ref_i: the norm a sum's rounding error
 * scales with (ax of a single particle may cancel to near 0, so its own
 * size is no measure); exactly 0 when Nj = 0; left alone when Ni = 0. */
static void grav_check_keep(nbrt *rt, nbrt_kernel *k, const Grav *g,
                            nbrt_type tl, nbrt_type tb, nbrt_type tr,
                            double tol, const char *what, double *pot)
{
	void *in[3], *jn[4], *out[4];
	for (int c = 0; c < 3; c++) {
		in[c] = as_type(g->xi[c], g->ni, tl);
		ck_assert_int_eq(nbrt_bind(k, gin[c], tl, in[c]), 0);
	}
	for (int c = 0; c < 4; c++) {
		jn[c] = as_type(g->xj[c], g->nj, tb);
		ck_assert_int_eq(nbrt_bind(k, gjn[c], tb, jn[c]), 0);
	}
	for (int c = 0; c < 4; c++) {
		out[c] = nan_array(g->ni, tr);
		ck_assert_int_eq(nbrt_bind(k, gout[c], tr, out[c]), 0);
	}
	ck_assert_int_eq(nbrt_set_const(k, "eps2", g->eps2, 0), 0);
	ck_assert_msg(nbrt_run(k, g->ni, g->nj) == 0, "%s: %s", what,
	              nbrt_error(rt));
	for (int c = 0; c < 4; c++) {
		if (g->ni == 0) {
			ck_assert_msg(isnan(get(out[c], tr, 0)), "%s: Ni = 0 wrote %s",
			              what, gout[c]);
			continue;
		}
		double err = 0, norm = 0;
		for (size_t i = 0; i < g->ni; i++) {
			double r = get(out[c], tr, i);
			ck_assert_msg(isfinite(r), "%s: %s[%zu] = %g", what, gout[c], i,
			              r);
			err = fmax(err, fabs(r - g->ref[c][i]));
			norm = fmax(norm, g->mag[c][i]);
		}
		if (g->nj == 0)
			ck_assert_msg(err == 0, "%s: Nj = 0 but %s is not 0", what,
			              gout[c]);
		else
			ck_assert_msg(err <= tol * norm, "%s: %s: error %.3g of norm "
			              "%.3g, relative %.3g > %.1g", what, gout[c], err,
			              norm, err / norm, tol);
	}
	for (size_t i = 0; pot && i < g->ni; i++)
		pot[i] = get(out[3], tr, i);
	/* the kernel keeps pointers to freed arrays: bind anew before a run */
	for (int c = 0; c < 3; c++)
		free(in[c]);
	for (int c = 0; c < 4; c++) {
		free(jn[c]);
		free(out[c]);
	}
}

static void grav_check(nbrt *rt, nbrt_kernel *k, const Grav *g, nbrt_type tl,
                       nbrt_type tb, nbrt_type tr, double tol, const char *what)
{
	grav_check_keep(rt, k, g, tl, tb, tr, tol, what, NULL);
}

static const size_t sizes[] = {0, 1, 7, 1000, 1023};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Every pair of sizes; the host types turn over so that each kernel sees
 * each conversion.  max: NBRT_MAX_INTERACTIONS, or 0 for the default (one
 * launch a run at these sizes). */
static void grav_sizes(int d, nb_prec p, double tol, size_t max)
{
	nbrt_kernel *k = gravity(d, p);
	static const nbrt_type ts[3] = {NBRT_FLOAT, NBRT_DOUBLE, NBRT_DD};
	for (size_t a = 0; a < NSIZES; a++)
		for (size_t b = 0; b < NSIZES; b++) {
			Grav g = grav_make(sizes[a], sizes[b]);
			nbrt_type tl = ts[(a + b) % 3], tb = ts[(a + 2 * b) % 3];
			/* float results would round away double's precision */
			nbrt_type tr = p == NB_FLOAT ? ts[(2 * a + b + 1) % 3] :
			               ts[1 + (a + b) % 2];
			char what[160];
			char m[32];
			snprintf(m, sizeof m, "%zu", max);
			snprintf(what, sizeof what, "%s %s Ni=%zu Nj=%zu (%s/%s/%s) "
			         "max %s", nbrt_device_name(device(d)),
			         nb_prec_name(p), g.ni, g.nj, tname(tl), tname(tb),
			         tname(tr), max ? m : "default");
			if (max)
				setenv("NBRT_MAX_INTERACTIONS", m, 1);
			grav_check(device(d), k, &g, tl, tb, tr, tol, what);
			unsetenv("NBRT_MAX_INTERACTIONS");
			size_t least = max ? (g.ni * g.nj + max - 1) / max : 1;
			if (!g.ni)
				ck_assert_int_eq(nbrt_launches(k), 0);
			else if (!max)
				ck_assert_int_eq(nbrt_launches(k), 1);
			else
				ck_assert_msg((size_t)nbrt_launches(k) >= least, "%s: %ld "
				              "launches", what, nbrt_launches(k));
			grav_free(&g);
		}
}

/* The j-slices rule (runtime/launch.c) on the figures it was measured on
 * (an H200's 132 units, a double hermite.nbl tile of 512): a square
 * launch takes the row's 16 slices from 2^22 interactions a unit; an
 * active block of few i-elements against many j enough slices for about
 * 8 work groups a unit, at most 64, each slice a tile at least; a small
 * launch whose groups fill the device (float gravity at N = 4096) none. */
START_TEST(slices_rule)
{
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 524288, 524288, 8192, 512), 16);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 16384, 16384, 512, 512), 1);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 4096, 4096, 256, 2048), 1);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 1024, 65536, 64, 512), 32);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 4096, 65536, 256, 512), 8);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 256, 65536, 16, 512), 64);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 256, 40000, 16, 1024), 32);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 256, 16384, 16, 512), 1);
	ck_assert_uint_eq(nbrt_slices_rule(16, 132, 1024, 4194304, 64, 512), 32);
	ck_assert_uint_eq(nbrt_slices_rule(16, 2, 8, 70000, 1, 256), 16);
}
END_TEST

/* Who adds the slices up (nbrt_own_rule), on the launches measured on an
 * H100's 132 units: the kernel itself for Hermite's active blocks sliced
 * for want of groups (2 x 1, split 16, groups of 128: Ni = 256 to 4096
 * have 16 to 256 groups, whatever Nj), the runtime for square float
 * gravity at N = 131072 (4 x 4, split 4, groups of 64: 2048 groups and
 * the row's 16 slices) and for 8192 active (512 groups); never an
 * unsliced launch. */
START_TEST(own_rule)
{
	ck_assert_int_eq(nbrt_own_rule(132, 16, 64), 1);
	ck_assert_int_eq(nbrt_own_rule(132, 64, 32), 1);
	ck_assert_int_eq(nbrt_own_rule(132, 256, 8), 1);
	ck_assert_int_eq(nbrt_own_rule(132, 263, 8), 1);
	ck_assert_int_eq(nbrt_own_rule(132, 264, 8), 0);
	ck_assert_int_eq(nbrt_own_rule(132, 512, 4), 0);
	ck_assert_int_eq(nbrt_own_rule(132, 2048, 16), 0);
	ck_assert_int_eq(nbrt_own_rule(132, 16, 1), 0);
	ck_assert_int_eq(nbrt_own_rule(2, 1, 5), 1);
	ck_assert_int_eq(nbrt_own_rule(2, 8, 5), 0);
}
END_TEST

START_TEST(gravity_float)
{
	grav_sizes(_i, NB_FLOAT, 1e-5, 0);
}
END_TEST

START_TEST(gravity_double)
{
	grav_sizes(_i, NB_DOUBLE, 1e-12, 0);
}
END_TEST

/* The same in launches of at most 3000 interactions (see split_launches
 * for the shape of the split). */
START_TEST(gravity_split)
{
	grav_sizes(_i, NB_FLOAT, 1e-5, 3000);
	grav_sizes(_i, NB_DOUBLE, 1e-12, 3000);
}
END_TEST

/* --- arrays that stay on the device (nbrt_array) ------------------------ */

static double *rand_doubles(size_t n, double a, double b)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = urand(a, b);
	return v;
}

static nbrt_array *array_of(nbrt *rt, const double *v, size_t n)
{
	nbrt_array *a = nbrt_array_new(rt, n);
	ck_assert_msg(a != NULL, "nbrt_array_new: %s", nbrt_error(rt));
	ck_assert_msg(nbrt_array_write(a, v) == 0, "nbrt_array_write: %s",
	              nbrt_error(rt));
	return a;
}

/* Gravity with its inputs and results in arrays: the bits of the same run
 * from host arrays of doubles (the conversions on the device round as the
 * host's), and within the float or double tolerance of grav_ref.  Inputs
 * are doubles that floats cannot hold, Ni < Nj < the arrays' length, and
 * the BMEM pack mixes arrays (xj, yj) with host arrays (zj, mj). */
static void array_gravity(int d, nb_prec p, double tol)
{
	nbrt *rt = device(d);
	nbrt_kernel *k = gravity(d, p);
	size_t n = 1000, ni = 997, nj = 999;
	Grav g = {ni, nj, 1.0 / 64, {0}, {0}, {0}, {0}};
	for (int c = 0; c < 3; c++)
		g.xi[c] = rand_doubles(n, -1, 1);
	for (int c = 0; c < 3; c++)
		g.xj[c] = rand_doubles(n, -1, 1);
	g.xj[3] = rand_doubles(n, 0.01, 1);
	grav_ref(&g);
	double *host[4], *got[4];
	nbrt_array *ai[3], *aj[2], *ar[4];
	for (int c = 0; c < 4; c++) {
		host[c] = malloc(n * sizeof(double));
		got[c] = malloc(n * sizeof(double));
	}
	for (int c = 0; c < 3; c++) {
		ck_assert_int_eq(nbrt_bind(k, gin[c], NBRT_DOUBLE, g.xi[c]), 0);
		ai[c] = array_of(rt, g.xi[c], n);
	}
	for (int c = 0; c < 4; c++)
		ck_assert_int_eq(nbrt_bind(k, gjn[c], NBRT_DOUBLE, g.xj[c]), 0);
	for (int c = 0; c < 2; c++)
		aj[c] = array_of(rt, g.xj[c], n);
	for (int c = 0; c < 4; c++) {
		ck_assert_int_eq(nbrt_bind(k, gout[c], NBRT_DOUBLE, host[c]), 0);
		ar[c] = nbrt_array_new(rt, n);
		ck_assert_ptr_nonnull(ar[c]);
	}
	ck_assert_int_eq(nbrt_set_const(k, "eps2", g.eps2, 0), 0);
	ck_assert_msg(nbrt_run(k, ni, nj) == 0, "%s", nbrt_error(rt));
	for (int c = 0; c < 3; c++)
		ck_assert_int_eq(nbrt_bind_array(k, gin[c], ai[c]), 0);
	for (int c = 0; c < 2; c++)
		ck_assert_int_eq(nbrt_bind_array(k, gjn[c], aj[c]), 0);
	for (int c = 0; c < 4; c++)
		ck_assert_int_eq(nbrt_bind_array(k, gout[c], ar[c]), 0);
	ck_assert_msg(nbrt_run(k, ni, nj) == 0, "%s", nbrt_error(rt));
	const char *what = nbrt_device_name(rt);
	for (int c = 0; c < 4; c++) {
		ck_assert_int_eq(nbrt_array_read(ar[c], got[c]), 0);
		double err = 0, norm = 0;
		for (size_t i = 0; i < ni; i++) {
			ck_assert_msg(memcmp(&got[c][i], &host[c][i], sizeof(double)) == 0,
			              "%s %s: %s[%zu] from arrays %.17g, from the host "
			              "%.17g", what, nb_prec_name(p), gout[c], i, got[c][i],
			              host[c][i]);
			err = fmax(err, fabs(got[c][i] - g.ref[c][i]));
			norm = fmax(norm, g.mag[c][i]);
		}
		ck_assert_msg(err <= tol * norm, "%s %s: %s: error %.3g, norm %.3g",
		              what, nb_prec_name(p), gout[c], err, norm);
	}
	/* an array shorter than the run */
	nbrt_array *shrt = nbrt_array_new(rt, ni - 1);
	ck_assert_int_eq(nbrt_bind_array(k, "yi", shrt), 0);
	ck_assert_int_eq(nbrt_run(k, ni, nj), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "LMEM 'yi' is bound to an array of "
	                     "996 values, and the run needs 997") != NULL,
	              "%s", nbrt_error(rt));
	nbrt_array_free(shrt);
	for (int c = 0; c < 4; c++) {
		nbrt_array_free(ar[c]);
		free(host[c]);
		free(got[c]);
	}
	for (int c = 0; c < 3; c++)
		nbrt_array_free(ai[c]);
	for (int c = 0; c < 2; c++)
		nbrt_array_free(aj[c]);
	grav_free(&g);
}

START_TEST(array_gravity_float)
{
	array_gravity(_i, NB_FLOAT, 1e-5);
}
END_TEST

START_TEST(array_gravity_double)
{
	array_gravity(_i, NB_DOUBLE, 1e-12);
}
END_TEST

/* axpy against the loop written here, bit for bit; the finite check on
 * arrays with one NaN or infinity put anywhere; the kick and the check in
 * one (axpy_finite_queue); write and read back; the errors of mismatched
 * operands. */
START_TEST(array_ops)
{
	nbrt *rt = device(_i);
	size_t n = 1000 + (size_t)(urand(0, 100));
	double *x[3], *y[3], *got = malloc(n * sizeof *got);
	nbrt_array *ax[3], *ay[3];
	for (int c = 0; c < 3; c++) {
		x[c] = rand_doubles(n, -1e3, 1e3);
		y[c] = rand_doubles(n, -1, 1);
		ax[c] = array_of(rt, x[c], n);
		ay[c] = array_of(rt, y[c], n);
	}
	for (int na = 1; na <= 3; na++) {
		double h = urand(-1, 1);
		ck_assert_msg(nbrt_array_axpy(ay, h, ax, na) == 0, "%s",
		              nbrt_error(rt));
		for (int c = 0; c < na; c++) {
			volatile double t; /* no fused multiply-add here either */
			for (size_t i = 0; i < n; i++) {
				t = h * x[c][i];
				y[c][i] = y[c][i] + t;
			}
		}
		for (int c = 0; c < 3; c++) {
			ck_assert_int_eq(nbrt_array_read(ay[c], got), 0);
			ck_assert_msg(memcmp(got, y[c], n * sizeof *got) == 0,
			              "%s: axpy of %d arrays, array %d: not the host "
			              "loop's bits", nbrt_device_name(rt), na, c);
		}
	}
	/* axpy2: y += h x, then z += g y, against the loops written here */
	double *z[3];
	nbrt_array *az[3];
	for (int c = 0; c < 3; c++) {
		z[c] = rand_doubles(n, -1e2, 1e2);
		az[c] = array_of(rt, z[c], n);
	}
	for (int na = 1; na <= 3; na++) {
		double h = urand(-1, 1), g = urand(-1, 1);
		ck_assert_msg(nbrt_array_axpy2(ay, h, ax, az, g, na) == 0, "%s",
		              nbrt_error(rt));
		for (int c = 0; c < na; c++) {
			volatile double t;
			for (size_t i = 0; i < n; i++) {
				t = h * x[c][i];
				y[c][i] = y[c][i] + t;
			}
			for (size_t i = 0; i < n; i++) {
				t = g * y[c][i];
				z[c][i] = z[c][i] + t;
			}
		}
		for (int c = 0; c < 3; c++) {
			ck_assert_int_eq(nbrt_array_read(ay[c], got), 0);
			ck_assert_msg(memcmp(got, y[c], n * sizeof *got) == 0,
			              "%s: axpy2 of %d arrays, y %d: not the host "
			              "loop's bits", nbrt_device_name(rt), na, c);
			ck_assert_int_eq(nbrt_array_read(az[c], got), 0);
			ck_assert_msg(memcmp(got, z[c], n * sizeof *got) == 0,
			              "%s: axpy2 of %d arrays, z %d: not the host "
			              "loop's bits", nbrt_device_name(rt), na, c);
		}
	}
	nbrt_array *all[6] = {ax[0], ax[1], ax[2], ay[0], ay[1], ay[2]};
	int fin = -1;
	ck_assert_int_eq(nbrt_array_finite(all, 6, &fin), 0);
	ck_assert_int_eq(fin, 1);
	for (int t = 0; t < 4; t++) {
		int w = (int)urand(0, 6);
		size_t i = (size_t)urand(0, (double)n);
		double *v = w < 3 ? x[w] : y[w - 3], keep = v[i];
		v[i] = t % 2 ? NAN : t ? -INFINITY : INFINITY;
		ck_assert_int_eq(nbrt_array_write(all[w], v), 0);
		ck_assert_int_eq(nbrt_array_finite(all, 6, &fin), 0);
		ck_assert_msg(fin == 0, "%s: %g at %zu of array %d not found",
		              nbrt_device_name(rt), v[i], i, w);
		/* only the arrays asked about */
		ck_assert_int_eq(nbrt_array_finite(w < 3 ? ay : ax, 3, &fin), 0);
		ck_assert_int_eq(fin, 1);
		/* past the nine arrays of one launch: the tenth */
		nbrt_array *many[11];
		for (int c = 0; c < 11; c++)
			many[c] = c == 9 ? all[w] : (w < 3 ? ay : ax)[c % 3];
		ck_assert_int_eq(nbrt_array_finite(many, 11, &fin), 0);
		ck_assert_msg(fin == 0, "%s: the tenth array's %g not found",
		              nbrt_device_name(rt), v[i]);
		ck_assert_int_eq(nbrt_array_finite(many, 9, &fin), 0);
		ck_assert_int_eq(fin, 1);
		v[i] = keep;
		ck_assert_int_eq(nbrt_array_write(all[w], v), 0);
	}
	/* axpy_finite_queue: axpy's bits, and the check of the arrays as
	 * updated (the y among them), in one launch up to nine arrays, apart
	 * past them (k 3: ten) */
	for (int k = 0; k < 4; k++) {
		int ny = 1 + k % 3, na = k == 3 ? 10 : 6;
		double h = urand(-1, 1);
		nbrt_array *chk[10];
		for (int c = 0; c < na; c++)
			chk[c] = all[c % 6];
		ck_assert_msg(nbrt_array_axpy_finite_queue(ay, h, ax, ny, chk, na) ==
		              0, "%s", nbrt_error(rt));
		for (int c = 0; c < ny; c++) {
			volatile double t;
			for (size_t i = 0; i < n; i++) {
				t = h * x[c][i];
				y[c][i] = y[c][i] + t;
			}
		}
		ck_assert_msg(nbrt_array_finite_take(rt, &fin, NULL) == 0, "%s",
		              nbrt_error(rt));
		ck_assert_int_eq(fin, 1);
		for (int c = 0; c < 3; c++) {
			ck_assert_int_eq(nbrt_array_read(ay[c], got), 0);
			ck_assert_msg(memcmp(got, y[c], n * sizeof *got) == 0,
			              "%s: axpy_finite_queue of %d arrays, y %d: not "
			              "the host loop's bits", nbrt_device_name(rt), ny, c);
		}
	}
	/* a value only the kick makes infinite: the check sees y updated */
	{
		size_t i = (size_t)urand(0, (double)n);
		int c = (int)urand(0, 3);
		double kx = x[c][i], ky = y[c][i];
		x[c][i] = 1.5e308;
		y[c][i] = 1.5e308;
		ck_assert_int_eq(nbrt_array_write(ax[c], x[c]), 0);
		ck_assert_int_eq(nbrt_array_write(ay[c], y[c]), 0);
		ck_assert_msg(nbrt_array_axpy_finite_queue(ay, 1, ax, 3, all, 6) == 0,
		              "%s", nbrt_error(rt));
		ck_assert_int_eq(nbrt_array_finite_take(rt, &fin, NULL), 0);
		ck_assert_msg(fin == 0, "%s: y %d's overflow at %zu not found",
		              nbrt_device_name(rt), c, i);
		x[c][i] = kx;
		y[c][i] = ky;
		for (int d = 0; d < 3; d++) {
			ck_assert_int_eq(nbrt_array_write(ax[d], x[d]), 0);
			ck_assert_int_eq(nbrt_array_write(ay[d], y[d]), 0);
		}
	}
	/* a third check refused before the kick is applied */
	ck_assert_int_eq(nbrt_array_finite_queue(all, 6), 0);
	ck_assert_int_eq(nbrt_array_finite_queue(all, 6), 0);
	ck_assert_int_eq(nbrt_array_axpy_finite_queue(ay, 1, ax, 3, all, 6), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "nbrt_array_axpy_finite_queue: two "
	                     "checks are queued already") != NULL, "%s",
	              nbrt_error(rt));
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(nbrt_array_finite_take(rt, &fin, NULL), 0);
		ck_assert_int_eq(fin, 1);
	}
	ck_assert_int_eq(nbrt_array_read(ay[0], got), 0);
	ck_assert_msg(memcmp(got, y[0], n * sizeof *got) == 0,
	              "%s: a refused axpy_finite_queue changed y",
	              nbrt_device_name(rt));
	nbrt_array *other = nbrt_array_new(rt, n + 1);
	nbrt_array *mixed[3] = {ay[0], other, ay[2]};
	ck_assert_int_eq(nbrt_array_axpy(mixed, 1, ax, 3), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "differ in device or length") !=
	              NULL, "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_array_axpy(ay, 1, ax, 4), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "4 arrays (at most 3)") != NULL,
	              "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_array_axpy2(ay, 1, ax, mixed, 1, 3), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "nbrt_array_axpy2: the arrays "
	                     "differ in device or length") != NULL,
	              "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_array_axpy_finite_queue(ay, 1, ax, 4, all, 6), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "4 arrays (at most 3)") != NULL,
	              "%s", nbrt_error(rt));
	nbrt_array *lone[1] = {other};
	ck_assert_int_eq(nbrt_array_axpy_finite_queue(ay, 1, ax, 3, lone, 1), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "nbrt_array_axpy_finite_queue: the "
	                     "arrays differ in device or length") != NULL,
	              "%s", nbrt_error(rt));
	nbrt_array *longer[3] = {other, other, other};
	ck_assert_int_eq(nbrt_array_axpy2(ay, 1, ax, longer, 1, 3), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "nbrt_array_axpy2: the arrays "
	                     "differ in device or length") != NULL,
	              "%s", nbrt_error(rt));
	nbrt_array_free(other);
	for (int c = 0; c < 3; c++) {
		nbrt_array_free(ax[c]);
		nbrt_array_free(ay[c]);
		nbrt_array_free(az[c]);
		free(x[c]);
		free(y[c]);
		free(z[c]);
	}
	free(got);
}
END_TEST

/* A limit of the device, as nbrt_describe prints it; -1 if not there
 * (the host has none). */
static long long dev_limit(nbrt *rt, const char *key)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	ck_assert_ptr_nonnull(m);
	nbrt_describe(rt, m);
	fclose(m);
	char pat[64];
	snprintf(pat, sizeof pat, "\n%s ", key); /* line 1 is the device */
	char *p = strstr(buf, pat);
	long long v = p ? strtoll(p + strlen(pat), NULL, 10) : -1;
	free(buf);
	return v;
}

/* Other launch shapes of the generated code: i- and j-unrolling that do
 * not divide the sizes, a j-split, a smaller work group and tile, and no
 * local-memory staging at all. */
START_TEST(gravity_shapes)
{
	int d = _i;
	nbrt *rt = device(d);
	struct { int ui, uj, t, wg, tile; } sh[] = {
		{3, 2, 4, 64, 32},
		{1, 3, 1, 32, -1},
	};
	static const size_t ns[][2] = {{1023, 1000}, {7, 1023}, {1, 1}, {1000, 0},
	                               {5, 3}};
	long long maxwg = dev_limit(rt, "max_work_group_size");
	for (size_t v = 0; v < sizeof sh / sizeof sh[0]; v++) {
		if (maxwg >= 0 && sh[v].wg > maxwg) {
			printf("test_nbrt: skip --wg=%d: %s's work groups stop at "
			       "%lld\n", sh[v].wg, nbrt_device_name(rt), maxwg);
			continue;
		}
		nb_options o;
		nb_options_init(&o);
		o.unroll_i = sh[v].ui;
		o.unroll_j = sh[v].uj;
		o.jsplit = sh[v].t;
		o.wg = sh[v].wg;
		o.tile = sh[v].tile;
		nbrt_kernel *k = nbrt_load(rt, GRAVITY, &o);
		ck_assert_msg(k != NULL, "%s", nbrt_error(rt));
		for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
			char what[200];
			Grav g = grav_make(ns[t][0], ns[t][1]);
			snprintf(what, sizeof what, "%s --unroll-i=%d --unroll-j=%d "
			         "--jsplit=%d --wg=%d --tile=%d Ni=%zu Nj=%zu",
			         nbrt_device_name(rt), sh[v].ui, sh[v].uj, sh[v].t,
			         sh[v].wg, sh[v].tile, g.ni, g.nj);
			grav_check(rt, k, &g, NBRT_FLOAT, NBRT_FLOAT, NBRT_FLOAT, 1e-5,
			           what);
			grav_free(&g);
		}
		nbrt_free(k);
	}
}
END_TEST

/* With a small NBRT_MAX_INTERACTIONS: first i-chunks only, then j-chunks
 * too (the later ones adding to the results). */
START_TEST(split_launches)
{
	int d = _i;
	nbrt_kernel *kf = gravity(d, NB_FLOAT), *kd = gravity(d, NB_DOUBLE);
	const nb_iface *f = nbrt_iface(kf);
	size_t u = (size_t)f->unroll_i;
	struct { size_t ni, nj, max; int jsplit; } c[] = {
		{1023, 1000, 100000, 0},
		{1000, 1023, 1500, 1},
		{7, 1023, 100, 1},
		{1023, 7, 64, 0},
		{1, 1, 1, 0},
	};
	for (size_t t = 0; t < sizeof c / sizeof c[0]; t++) {
		char m[32], what[160];
		snprintf(m, sizeof m, "%zu", c[t].max);
		setenv("NBRT_MAX_INTERACTIONS", m, 1);
		Grav g = grav_make(c[t].ni, c[t].nj);
		snprintf(what, sizeof what, "split %s Ni=%zu Nj=%zu max=%zu",
		         nbrt_device_name(device(d)), g.ni, g.nj, c[t].max);
		grav_check(device(d), kf, &g, NBRT_FLOAT, NBRT_FLOAT, NBRT_DOUBLE,
		           1e-5, what);
		long n = nbrt_launches(kf);
		/* no launch has more than max interactions (where max allows a
		 * group of unroll_i at all) */
		size_t least = (g.ni * g.nj + c[t].max - 1) / c[t].max;
		ck_assert_msg((size_t)n >= least, "%s: %ld launches", what, n);
		if (c[t].jsplit)
			ck_assert_msg((size_t)n > (g.ni + u - 1) / u, "%s: %ld launches, "
			              "the j range was not split", what, n);
		grav_check(device(d), kd, &g, NBRT_DOUBLE, NBRT_DD, NBRT_DD, 1e-12,
		           what);
		grav_free(&g);
	}
	/* a bad value is an error before anything runs */
	setenv("NBRT_MAX_INTERACTIONS", "0", 1);
	void *a = nan_array(7, NBRT_FLOAT), *res = nan_array(7, NBRT_FLOAT);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role != NB_CONST)
			nbrt_bind(kf, f->var[v].name, NBRT_FLOAT,
			          f->var[v].role == NB_RMEM ? res : a);
	ck_assert_int_ne(nbrt_run(kf, 7, 7), 0);
	ck_assert_ptr_nonnull(strstr(nbrt_error(device(d)), "NBRT_MAX_INTERACTIONS"));
	free(a);
	free(res);
	unsetenv("NBRT_MAX_INTERACTIONS");
}
END_TEST

/* --- double-double ------------------------------------------------------ */

/* NOTE: dd arithmetic comes from compiler/ddlib.h; while that is still a
 * placeholder this test fails at load time (the kernel does not build). */
static const char ddsrc[] =
	"// a tiny dd kernel: s_i = sum_j w_j x_i / (c + (x_i - y_j)^2)\n"
	"LMEM x;\nBMEM y, w;\nRMEM s;\nCONST c;\n"
	"d = x - y;\n"
	"s += w * x / (c + d * d);\n";

static void rand_dd(double *v, double a, double b)
{
	v[0] = urand(a, b);
	v[1] = v[0] * 0x1p-53 * urand(-1, 1);
	double s = v[0] + v[1]; /* normalize */
	v[1] = v[1] - (s - v[0]);
	v[0] = s;
}

START_TEST(dd_kernel)
{
	int d = _i;
	nbrt *rt = device(d);
	if (!ddk[d]) {
		nb_options o;
		nb_options_init(&o);
		o.precision = NB_DD;
		ddk[d] = nbrt_load_source(rt, "ddtest.nbl", ddsrc, strlen(ddsrc), &o);
		ck_assert_msg(ddk[d] != NULL, "load dd kernel: %s", nbrt_error(rt));
	}
	nbrt_kernel *k = ddk[d];
	static const size_t ns[][2] = {{1, 1}, {7, 1023}, {1023, 7}, {1000, 1000},
	                               {5, 0}};
	for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
		size_t ni = ns[t][0], nj = ns[t][1];
		double *x = malloc(2 * ni * sizeof *x), *y = malloc(2 * (nj + 1) *
		               sizeof *y), *w = malloc(2 * (nj + 1) * sizeof *w);
		double *s = nan_array(ni, NBRT_DD), c[2];
		for (size_t i = 0; i < ni; i++)
			rand_dd(&x[2 * i], 0.5, 2);
		for (size_t j = 0; j < nj; j++) {
			rand_dd(&y[2 * j], -1, 1);
			rand_dd(&w[2 * j], 0.1, 1);
		}
		rand_dd(c, 0.01, 0.1);
		ck_assert_int_eq(nbrt_bind(k, "x", NBRT_DD, x), 0);
		ck_assert_int_eq(nbrt_bind(k, "y", NBRT_DD, y), 0);
		ck_assert_int_eq(nbrt_bind(k, "w", NBRT_DD, w), 0);
		ck_assert_int_eq(nbrt_bind(k, "s", NBRT_DD, s), 0);
		ck_assert_int_eq(nbrt_set_const(k, "c", c[0], c[1]), 0);
		ck_assert_msg(nbrt_run(k, ni, nj) == 0, "dd run: %s", nbrt_error(rt));
		double err = 0, norm = 0;
		for (size_t i = 0; i < ni; i++) {
			double r[2] = {0, 0}, e[2];
			for (size_t j = 0; j < nj; j++) {
				double dd[2], q[2], den[2], num[2];
				c_dd_sub(&x[2 * i], &y[2 * j], dd);
				c_dd_mul(dd, dd, q);
				c_dd_add(c, q, den);
				c_dd_mul(&w[2 * j], &x[2 * i], num);
				c_dd_div(num, den, q);
				c_dd_add(r, q, r);
			}
			c_dd_sub(&s[2 * i], r, e);
			err = fmax(err, fabs(e[0]));
			norm = fmax(norm, fabs(r[0]));
		}
		if (nj == 0)
			ck_assert_msg(err == 0 && norm == 0, "dd Nj = 0: not 0");
		else
			ck_assert_msg(err <= 1e-28 * norm, "dd Ni=%zu Nj=%zu on %s: "
			              "relative error %.3g > 1e-28", ni, nj,
			              nbrt_device_name(rt), err / norm);
		free(x);
		free(y);
		free(w);
		free(s);
	}
	/* a low part that is infinite under a finite high part: every result
	 * was NaN; an infinite high part is dd's infinity, taken */
	ck_assert_int_eq(nbrt_set_const(k, "c", 0.05, INFINITY), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "a dd's low part must be finite "
	                     "where its high part is"), "dd lo inf: '%s'",
	              nbrt_error(rt));
	ck_assert_int_eq(nbrt_set_const(k, "c", 0.05, -INFINITY), -1);
	ck_assert_int_eq(nbrt_set_const(k, "c", INFINITY, 0), 0);
	ck_assert_int_eq(nbrt_set_const(k, "c", INFINITY, INFINITY), 0);
}
END_TEST

/* --- files nbcc wrote ---------------------------------------------------- */

/* The kernel as nbcc writes it for the device, through nb_compile. */
static char *generate(const char *target, const char *path, size_t *len)
{
	size_t n;
	char err[256];
	char *src = nb_read_file(path, &n, err, sizeof err);
	ck_assert_msg(src != NULL, "%s", err);
	nb_options o;
	nb_options_init(&o);
	o.target = target;
	nb_output out;
	ck_assert_int_eq(nb_compile(path, src, n, &o, "code", NULL, &out), 0);
	free(src);
	char *code = out.code;
	*len = out.len;
	out.code = NULL;
	nb_output_free(&out);
	return code;
}

/* A .cl (or .c) loaded from its header matches the .nbl loaded directly. */
START_TEST(generated_file)
{
	int d = _i;
	nbrt *rt = device(d);
	size_t len;
	char *code = generate(d == HOST ? "c" : "opencl", GRAVITY, &len);
	nbrt_kernel *k = nbrt_load_source(rt, d == HOST ? "g.c" : "g.cl", code,
	                                  len, NULL);
	ck_assert_msg(k != NULL, "%s", nbrt_error(rt));
	ck_assert_str_eq(nbrt_iface(k)->kernel, "gravity");
	Grav g = grav_make(1023, 1000);
	grav_check(rt, k, &g, NBRT_FLOAT, NBRT_FLOAT, NBRT_FLOAT, 1e-5,
	           "generated file");
	grav_free(&g);
	nbrt_free(k);
	/* the other device's kind of file is refused, with the reason */
	char *other = generate(d == HOST ? "opencl" : "c", GRAVITY, &len);
	k = nbrt_load_source(rt, d == HOST ? "g.cl" : "g.c", other, len, NULL);
	ck_assert_ptr_null(k);
	ck_assert_ptr_nonnull(strstr(nbrt_error(rt), d == HOST ?
	                             "is an OpenCL kernel" : "is a C kernel"));
	free(other);
	free(code);
}
END_TEST

/* --- errors ----------------------------------------------------------- */

static void expect(nbrt *rt, const char *what, const char *part)
{
	const char *e = nbrt_error(rt);
	ck_assert_msg(strstr(e, part) != NULL, "%s: message '%s' lacks '%s'",
	              what, e, part);
}

START_TEST(open_errors)
{
	char *err = NULL;
	ck_assert_ptr_null(nbrt_open("no-such-device-xyz", &err));
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, "no-such-device-xyz"));
	free(err);
	ck_assert_ptr_null(nbrt_open("9:9", &err));
	ck_assert_ptr_nonnull(strstr(err, "'9:9'"));
	free(err);
	ck_assert_ptr_null(nbrt_open("9:9", NULL)); /* err may be NULL */
	/* a negative nth is no place in the count (it opened the first) */
	ck_assert_ptr_null(nbrt_open_nth("host", -1, &err));
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(strstr(err, "nth -1"));
	free(err);
	ck_assert_ptr_null(nbrt_open_nth(NULL, -3, NULL));
	/* the list names what there is */
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	int nd = nbrt_list(m);
	fclose(m);
	ck_assert_int_ge(nd, ndev > OCL);
	ck_assert_int_eq(nbrt_list(NULL), -1); /* nowhere to list: no crash */
	if (ndev > OCL)
		ck_assert_msg(strncmp(buf, "0:0  ", 5) == 0, "list: '%s'", buf);
	free(buf);
}
END_TEST

START_TEST(load_errors)
{
	int d = _i;
	nbrt *rt = device(d);
	/* what nbody checks a --target against */
	ck_assert_str_eq(nbrt_target(rt), d == HOST ? "c" : "opencl");
	ck_assert_ptr_null(nbrt_load(rt, "/nonexistent/k.nbl", NULL));
	expect(rt, "missing file", "cannot open '/nonexistent/k.nbl'");

	static const char bad[] = "LMEM x;\nRMEM r;\nr += x * undefined_thing;\n";
	ck_assert_ptr_null(nbrt_load_source(rt, "bad.nbl", bad, strlen(bad), NULL));
	expect(rt, ".nbl error", "cannot compile bad.nbl");
	expect(rt, ".nbl error", "undefined_thing");

	/* a syntax error in generated code: the compiler's own output (the
	 * OpenCL build log, or cc's messages) is in the message */
	size_t len;
	char *code = generate(d == HOST ? "c" : "opencl", GRAVITY, &len);
	char *p = strstr(code, "{\n");
	ck_assert_ptr_nonnull(p);
	size_t at = (size_t)(p - code) + 2;
	static const char junk[] = "\tnbrt_undeclared_ident = 1;\n";
	char *broken = malloc(len + sizeof junk);
	memcpy(broken, code, at);
	memcpy(broken + at, junk, sizeof junk - 1);
	memcpy(broken + at + sizeof junk - 1, code + at, len - at);
	const char *name = d == HOST ? "broken.c" : "broken.cl";
	ck_assert_ptr_null(nbrt_load_source(rt, name, broken, len + sizeof junk - 1,
	                                    NULL));
	expect(rt, "broken kernel", "nbrt_undeclared_ident");
	expect(rt, "broken kernel", d == HOST ? "cannot compile broken.c" :
	       "CL_BUILD_PROGRAM_FAILURE");
	if (d == OCL)
		expect(rt, "broken kernel", "build log");
	free(broken);
	free(code);

	/* opts filled in by hand: a precision past nb_prec's was read
	 * beyond the compiler's table and aborted the process */
	nb_options badp;
	nb_options_init(&badp);
	badp.precision = (nb_prec)7;
	ck_assert_ptr_null(nbrt_load(rt, GRAVITY, &badp));
	expect(rt, "bad precision", "precision = 7: it must be float, double "
	       "or dd (nb_prec 0 to 2)");

	static const char nohdr[] = "__kernel void f(void) {}\n";
	ck_assert_ptr_null(nbrt_load_source(rt, "x.cl", nohdr, strlen(nohdr), NULL));
	expect(rt, "no header", "nbcc-interface");
}
END_TEST

START_TEST(bind_errors)
{
	int d = _i;
	nbrt *rt = device(d);
	/* a kernel of its own: errors must not disturb the shared ones */
	nbrt_kernel *k = nbrt_load(rt, GRAVITY, NULL);
	ck_assert_msg(k != NULL, "%s", nbrt_error(rt));
	float a[8] = {0}, res[8] = {0};
	ck_assert_int_eq(nbrt_bind(k, "nosuch", NBRT_FLOAT, a), -1);
	expect(rt, "unknown name", "no variable 'nosuch'");
	expect(rt, "unknown name", "LMEM xi");
	ck_assert_int_eq(nbrt_bind(k, "eps2", NBRT_FLOAT, a), -1);
	expect(rt, "CONST as array", "'eps2' is a CONST");
	ck_assert_int_eq(nbrt_set_const(k, "xi", 1, 0), -1);
	expect(rt, "array as CONST", "'xi' is LMEM");
	ck_assert_int_eq(nbrt_set_const(k, "nosuch", 1, 0), -1);
	expect(rt, "unknown CONST", "no variable 'nosuch'");
	/* a name with control bytes reaches the message escaped */
	ck_assert_int_eq(nbrt_bind_array(k, "\x1b[2Jxi", NULL), -1);
	expect(rt, "escaped name", "'\\x1b[2Jxi' bound to no array");
	ck_assert_int_eq(nbrt_bind_array(k, NULL, NULL), -1);
	expect(rt, "NULL name", "'(null)' bound to no array");
	ck_assert_int_eq(nbrt_set_const(k, "eps2", NAN, 0), -1);
	expect(rt, "NaN CONST", "CONST eps2 set to NaN");
	ck_assert_int_eq(nbrt_set_const(k, "eps2", 1, NAN), -1);
	expect(rt, "NaN CONST lo", "CONST eps2 set to NaN");
	/* hi + lo is the value of a float or double CONST: NaN here */
	ck_assert_int_eq(nbrt_set_const(k, "eps2", INFINITY, -INFINITY), -1);
	expect(rt, "inf - inf CONST", "CONST eps2 set to inf + -inf, which is "
	       "NaN");

	const nb_iface *f = nbrt_iface(k);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role != NB_CONST && strcmp(f->var[v].name, "pot"))
			ck_assert_int_eq(nbrt_bind(k, f->var[v].name, NBRT_FLOAT,
			                           f->var[v].role == NB_RMEM ? res : a),
			                 0);
	ck_assert_int_eq(nbrt_run(k, 8, 8), -1);
	expect(rt, "unset CONST", "CONST 'eps2' is not set");
	ck_assert_int_eq(nbrt_set_const(k, "eps2", 0.1, 0), 0);
	ck_assert_int_eq(nbrt_run(k, 8, 8), -1);
	expect(rt, "unbound RMEM", "RMEM 'pot' is not bound");
	ck_assert_int_eq(nbrt_bind(k, "pot", NBRT_FLOAT, NULL), 0);
	ck_assert_int_eq(nbrt_run(k, 8, 8), -1);
	expect(rt, "NULL RMEM", "'pot' is bound to NULL");
	ck_assert_int_eq(nbrt_run(k, 0, 8), 0); /* no results: NULL is fine */
	ck_assert_int_eq(nbrt_bind(k, "pot", NBRT_FLOAT, res), 0);
	ck_assert_int_eq(nbrt_run(k, 8, 8), 0);
	/* results over an input: the same array, or bytes of one (here ax
	 * starts in mj's last element) */
	float big[16] = {0};
	ck_assert_int_eq(nbrt_bind(k, "mj", NBRT_FLOAT, big), 0);
	ck_assert_int_eq(nbrt_bind(k, "ax", NBRT_FLOAT, big), 0);
	ck_assert_int_eq(nbrt_run(k, 8, 8), -1);
	expect(rt, "RMEM over BMEM", "RMEM 'ax' is bound over the array of "
	       "BMEM 'mj'");
	ck_assert_int_eq(nbrt_bind(k, "ax", NBRT_FLOAT, big + 7), 0);
	ck_assert_int_eq(nbrt_run(k, 8, 8), -1);
	expect(rt, "RMEM within BMEM", "results must not overlap inputs");
	ck_assert_int_eq(nbrt_bind(k, "ax", NBRT_FLOAT, big + 8), 0);
	ck_assert_msg(nbrt_run(k, 8, 8) == 0, "%s", nbrt_error(rt));
	/* at Nj = 7, mj's 8th value is not read: ax may start there */
	ck_assert_int_eq(nbrt_bind(k, "ax", NBRT_FLOAT, big + 7), 0);
	ck_assert_msg(nbrt_run(k, 8, 7) == 0, "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_bind(k, "mj", NBRT_FLOAT, a), 0);
	ck_assert_int_eq(nbrt_bind(k, "ax", NBRT_FLOAT, a), 0);
	ck_assert_int_eq(nbrt_run(k, 8, 8), -1);
	expect(rt, "RMEM over BMEM", "RMEM 'ax' is bound over the array of");
	ck_assert_int_eq(nbrt_bind(k, "ax", NBRT_FLOAT, big), 0);
	if (d == OCL) {
		/* the results far from the inputs (static, they on the stack),
		 * or the claimed 2^31 elements would overlap them */
		static float far[8];
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_RMEM)
				ck_assert_int_eq(nbrt_bind(k, f->var[v].name, NBRT_FLOAT,
				                           far), 0);
		ck_assert_int_eq(nbrt_run(k, (size_t)1 << 31, 8), -1);
		expect(rt, "too large", "index with int");
	}
	nbrt_free(k);
}
END_TEST

/* NULL where a pointer is wanted, counts of nothing and units of no
 * duration: each call fails with its own message, never a crash or
 * another call's message left standing (a probe of the C API, under
 * the sanitizers). */
START_TEST(null_args)
{
	int d = _i;
	nbrt *rt = device(d);
	ck_assert_ptr_null(nbrt_load(rt, NULL, NULL));
	expect(rt, "NULL path", "nbrt_load: no path (NULL)");
	ck_assert_ptr_null(nbrt_load_source(rt, "n.nbl", NULL, 5, NULL));
	expect(rt, "NULL source", "no source (NULL) of 5 bytes");
	ck_assert_ptr_null(nbrt_load_source(rt, "n.nbl", NULL, 0, NULL));
	expect(rt, "NULL empty source", "cannot compile n.nbl");
	ck_assert_int_eq(nbrt_describe(NULL, stdout), -1);
	ck_assert_int_eq(nbrt_describe(rt, NULL), -1);
	double s2[2], three[3] = {1, 2, 3};
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, NULL, NULL, 3, s2), -1);
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, three, NULL, 3, NULL), -1);
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, NULL, NULL, 0, s2), 0);
	ck_assert_int_eq(nbrt_sum(NBRT_DOUBLE, three, NULL, 3, s2), 0);
	ck_assert(s2[0] + s2[1] == 6);

	nbrt_kernel *k = nbrt_load(rt, GRAVITY, NULL);
	ck_assert_msg(k != NULL, "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_run_memory(k, 8, 8, 0, NULL), -1);
	expect(rt, "NULL bytes", "nbrt_run_memory: nowhere (NULL)");
	/* a refusal (a device's buffer past its limit) leaves the caller's
	 * bytes as they were; the host path checks no device */
	double bytes = -1;
	size_t big = (size_t)1 << 40;
	if (nbrt_run_memory(k, big, big, 0, &bytes))
		ck_assert(bytes == -1);
	else
		ck_assert(bytes > 0);
	/* the bindings' forms: NULL names refused by name, NULL periods open */
	double x[8] = {0}, r[8];
	const nb_iface *f = nbrt_iface(k);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role != NB_CONST)
			ck_assert_int_eq(nbrt_bind(k, f->var[v].name, NBRT_DOUBLE,
			                           f->var[v].role == NB_RMEM ? r : x), 0);
	ck_assert_int_eq(nbrt_set_const(k, "eps2", 0.1, 0), 0);
	ck_assert_int_eq(nbrt_run_cutoff_args(k, 8, 8, 1, 1, NULL, NULL, NULL, 0),
	                 -1);
	expect(rt, "NULL ipos", "ipos[0] is NULL");
	const char *ip[1] = {"xi"}, *jp[1] = {"xj"};
	ck_assert_msg(nbrt_run_cutoff_args(k, 8, 8, 1, 1, ip, jp, NULL, 0) == 0,
	              "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_run_tree_args(k, k, 8, 8, 0.5, 16, 16, NULL, NULL,
	                                    "mj", NULL), -1);
	/* the sweep ran every variant, then printed its table to NULL */
	ck_assert_int_eq(nbrt_sweep(k, 8, 8, NULL), -1);
	expect(rt, "NULL table", "nbrt_sweep: nowhere (NULL)");
	nbrt_free(k);

	/* an array no memory holds: refused by its size before any
	 * allocation (a sanitizer's calloc aborted on SIZE_MAX doubles) */
	ck_assert_ptr_null(nbrt_array_new(rt, SIZE_MAX));
	expect(rt, "SIZE_MAX doubles", nbrt_device_arrays(rt) ?
	       "doubles is more than" : "doubles needs");
	nbrt_array *a = nbrt_array_new(rt, 4);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(nbrt_array_write(a, NULL), -1);
	expect(rt, "NULL values", "nbrt_array_write: no values (NULL)");
	ck_assert_int_eq(nbrt_array_read(a, NULL), -1);
	expect(rt, "NULL destination", "nbrt_array_read: nowhere (NULL)");
	nbrt_array *one[1] = {a};
	int fin = -1;
	ck_assert_int_eq(nbrt_array_finite(one, 0, &fin), -1);
	expect(rt, "no arrays", "nbrt_array_finite: 0 arrays (at least 1)");
	ck_assert_int_eq(nbrt_array_axpy(one, 1, one, -1), -1);
	expect(rt, "no arrays", "nbrt_array_axpy: -1 arrays (at least 1)");
	/* a missing operand after a good y: its own message (an earlier
	 * call's was left), and axpy2 without z changes nothing (it did
	 * y += h x, z skipped) */
	nbrt_array *none[1] = {NULL};
	double ones[4] = {1, 1, 1, 1}, back[4];
	ck_assert_int_eq(nbrt_array_write(a, ones), 0);
	ck_assert_int_eq(nbrt_array_axpy(one, 1, NULL, 1), -1);
	expect(rt, "NULL x", "nbrt_array_axpy: no x arrays (NULL)");
	ck_assert_int_eq(nbrt_array_axpy(one, 1, none, 1), -1);
	expect(rt, "no x[0]", "nbrt_array_axpy: no x arrays (NULL)");
	ck_assert_int_eq(nbrt_array_axpy2(one, 1, one, NULL, 1, 1), -1);
	expect(rt, "NULL z", "nbrt_array_axpy2: no z arrays (NULL)");
	ck_assert_int_eq(nbrt_array_axpy2(one, 1, one, none, 1, 1), -1);
	expect(rt, "no z[0]", "nbrt_array_axpy2: no z arrays (NULL)");
	ck_assert_int_eq(nbrt_array_read(a, back), 0);
	ck_assert(back[0] == 1 && back[3] == 1);
	ck_assert_int_eq(nbrt_array_axpy_finite_queue(one, 1, one, 1, NULL, 1),
	                 -1);
	expect(rt, "NULL check", "nbrt_array_axpy_finite_queue: no arrays to "
	       "check (NULL)");
	ck_assert_int_eq(nbrt_array_read(a, back), 0);
	ck_assert(back[0] == 1 && back[3] == 1);
	ck_assert_int_eq(nbrt_array_finite(one, 1, NULL), -1);
	expect(rt, "NULL answer", "nbrt_array_finite: nowhere (NULL)");
	ck_assert_int_eq(nbrt_array_finite_queue(one, 1), 0);
	ck_assert_int_eq(nbrt_array_finite_take(rt, NULL, NULL), -1);
	expect(rt, "NULL answer", "nbrt_array_finite_take: nowhere (NULL)");
	ck_assert_int_eq(nbrt_array_finite_take(rt, &fin, NULL), 0);
	ck_assert_int_eq(fin, 1);
	nbrt_array_free(a);

	double units[] = {0, -1, NAN, INFINITY};
	for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
		ck_assert_ptr_null(nbrt_predictor_new(rt, 4, units[u]));
		expect(rt, "bad unit", "must be finite and > 0");
	}
	ck_assert_ptr_null(nbrt_predictor_new(rt, SIZE_MAX, 1));
	expect(rt, "huge predictor", "more than this process may use");
	nbrt_predictor *p = nbrt_predictor_new(rt, 4, 1);
	ck_assert_msg(p != NULL, "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_predictor_put(p, 2, NULL, NULL, NULL), -1);
	expect(rt, "NULL values", "nbrt_predictor_put: 2 bodies but no values");
	double col[4] = {1, 2, 3, 4};
	const double *cols[12];
	uint64_t ticks[4] = {0, 0, 0, 0};
	for (int c = 0; c < 12; c++)
		cols[c] = c == 7 ? NULL : col;
	ck_assert_int_eq(nbrt_predictor_put(p, 2, NULL, cols, ticks), -1);
	expect(rt, "NULL column", "nbrt_predictor_put: 2 bodies but src[7] is "
	       "NULL");
	cols[7] = col; /* refused whole: the bodies may be put now */
	ck_assert_msg(nbrt_predictor_put(p, 2, NULL, cols, ticks) == 0, "%s",
	              nbrt_error(rt));
	ck_assert_int_eq(nbrt_predict(p, 0, 2, NULL), -1);
	expect(rt, "NULL list", "nbrt_predict: 2 bodies to gather but no list");
	ck_assert_int_eq(nbrt_predict(p, 0, 0, NULL), 0);
	nbrt_predictor_free(p);
}
END_TEST

/* A float kernel's object carries crtfastmath.o (gcc links it under
 * -funsafe-math-optimizations), whose constructor set FTZ and DAZ in the
 * thread that loaded it: after nbrt_load the caller's subnormals were 0,
 * for the rest of the process.  The load leaves the environment as it
 * was. */
START_TEST(fp_env)
{
	nbrt *rt = device(HOST);
	ck_assert_int_eq(fesetenv(FE_DFL_ENV), 0);
	nb_options o;
	nb_options_init(&o);
	o.precision = NB_FLOAT;
	/* a kernel of its own: a fresh object, its constructor run now */
	static const char src[] = "LMEM x;\nBMEM y;\nRMEM r;\n"
	                          "r += 1 / sqrt(x * x + y * y + 1e-3);\n";
	nbrt_kernel *k = nbrt_load_source(rt, "fp_env.nbl", src,
	                                  strlen(src), &o);
	ck_assert_msg(k != NULL, "%s", nbrt_error(rt));
	volatile double tiny = 1e-310, half = 0.5;
	ck_assert_msg(tiny > 0 && tiny * half > 0,
	              "nbrt_load flushed the caller's subnormals to zero");
	nbrt_free(k);
}
END_TEST

/* --- cache and timing ---------------------------------------------------- */

static int rm_entry(const char *p, const struct stat *st, int flag,
                    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int count_files(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "ls '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* A second load of the same kernel takes the cached program, and gives
 * the same results to the bit; an unusable cache directory means no
 * cache, silently. */
START_TEST(cache_hit)
{
	int d = _i;
	char dir[] = "/tmp/test_nbrt-cache-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("NBRT_CACHE_DIR", dir, 1);
	char *err = NULL;
	nbrt *rt = nbrt_open(devspec[d], &err);
	ck_assert_msg(rt != NULL, "%s", err);
	ck_assert_str_eq(nbrt_cache_dir(rt), dir);
	nbrt_kernel *k1 = nbrt_load(rt, GRAVITY, NULL);
	ck_assert_msg(k1 != NULL, "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_cache_hit(k1), 0);
	ck_assert_int_eq(count_files(dir), 1);
	nbrt_kernel *k2 = nbrt_load(rt, GRAVITY, NULL);
	ck_assert_msg(k2 != NULL, "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_cache_hit(k2), 1);
	Grav g = grav_make(100, 333);
	double r1[100], r2[100];
	grav_check_keep(rt, k1, &g, NBRT_FLOAT, NBRT_FLOAT, NBRT_FLOAT, 1e-5,
	                "first", r1);
	grav_check_keep(rt, k2, &g, NBRT_FLOAT, NBRT_FLOAT, NBRT_FLOAT, 1e-5,
	                "cached", r2);
	ck_assert_int_eq(memcmp(r1, r2, sizeof r1), 0);
	nbrt_free(k1);
	nbrt_free(k2);
	nbrt_close(rt);
	grav_free(&g);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);

	/* a file where the directory should be: no cache, still works */
	setenv("NBRT_CACHE_DIR", "/dev/null/nbcc", 1);
	rt = nbrt_open(devspec[d], &err);
	ck_assert_msg(rt != NULL, "%s", err);
	ck_assert_ptr_null(nbrt_cache_dir(rt));
	k1 = nbrt_load(rt, GRAVITY, NULL);
	ck_assert_msg(k1 != NULL, "%s", nbrt_error(rt));
	ck_assert_int_eq(nbrt_cache_hit(k1), 0);
	nbrt_free(k1);
	nbrt_close(rt);
	setenv("NBRT_CACHE_DIR", cachedir, 1);
}
END_TEST

START_TEST(timing)
{
	int d = _i;
	nbrt_kernel *k = gravity(d, NB_FLOAT);
	Grav g = grav_make(1023, 1023);
	grav_check(device(d), k, &g, NBRT_DOUBLE, NBRT_DOUBLE, NBRT_DOUBLE, 1e-5,
	           "timing");
	double tk = nbrt_kernel_time(k), tt = nbrt_total_time(k);
	ck_assert_msg(tk > 0 && tt >= tk && tt < 60, "kernel %g s, total %g s",
	              tk, tt);
	grav_free(&g);
}
END_TEST

/* In one process a failed test skips its own cleanup: put back what the
 * tests may have changed, so one failure does not spread. */
static void restore_env(void)
{
	unsetenv("NBRT_MAX_INTERACTIONS");
	setenv("NBRT_CACHE_DIR", cachedir, 1);
}

int main(void)
{
	seed_rng("test_nbrt", rng);
	/* a cache of our own: runs start cold and leave nothing behind */
	/* the OpenCL device: PoCL's CPU here, NBRT_DEVICE=gpu on a GPU */
	const char *e = getenv("NBRT_DEVICE");
	if (e && *e && strcasecmp(e, "host") && strcasecmp(e, "c"))
		devspec[OCL] = e;
	if (!mkdtemp(cachedir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("NBRT_CACHE_DIR", cachedir, 1);
	unsetenv("NBRT_MAX_INTERACTIONS");
	/* no OpenCL CPU device: the host alone, and skipped; a device named
	 * by NBRT_DEVICE must be there */
	char *err = NULL;
	if (!(dev[OCL] = nbrt_open(devspec[OCL], &err))) {
		if (devspec[OCL] != e)
			ndev = HOST + 1;
		printf("test_nbrt: OpenCL skipped: %s\n", err);
		free(err);
	} else {
		printf("test_nbrt: device %d: %s\n", OCL, nbrt_device_name(dev[OCL]));
	}
	Suite *s = suite_create("nbrt");
	TCase *tc = tcase_create("nbrt");
	tcase_set_timeout(tc, 0);
	tcase_add_checked_fixture(tc, NULL, restore_env);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, slices_rule);
	tcase_add_test(tc, own_rule);
	tcase_add_loop_test(tc, gravity_float, 0, ndev);
	tcase_add_loop_test(tc, gravity_double, 0, ndev);
	tcase_add_loop_test(tc, gravity_split, 0, ndev);
	tcase_add_loop_test(tc, gravity_shapes, 0, ndev);
	tcase_add_loop_test(tc, split_launches, 0, ndev);
	tcase_add_loop_test(tc, generated_file, 0, ndev);
	tcase_add_loop_test(tc, load_errors, 0, ndev);
	tcase_add_loop_test(tc, bind_errors, 0, ndev);
	tcase_add_loop_test(tc, null_args, 0, ndev);
	tcase_add_test(tc, fp_env);
	tcase_add_loop_test(tc, timing, 0, ndev);
	tcase_add_loop_test(tc, cache_hit, 0, ndev);
	tcase_add_loop_test(tc, dd_kernel, 0, ndev);
	tcase_add_loop_test(tc, array_gravity_float, 0, ndev);
	tcase_add_loop_test(tc, array_gravity_double, 0, ndev);
	tcase_add_loop_test(tc, array_ops, 0, ndev);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	/* one process: the devices and kernels outlive each test */
	srunner_set_fork_status(r, CK_NOFORK);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	for (int d = 0; d < NDEV; d++) {
		nbrt_free(gfloat[d]);
		nbrt_free(gdouble[d]);
		nbrt_free(ddk[d]);
		nbrt_close(dev[d]);
	}
	nftw(cachedir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return failed ? 1 : ndev < NDEV ? 77 : 0;
}
