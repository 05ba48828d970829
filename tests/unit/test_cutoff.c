/* test_cutoff.c: cell-list runs (nbrt_run_cutoff) against the dense sweep
 * (nbrt_run) of the same kernel on the same device, for kernels zero
 * beyond the cutoff: every reduction (sum, count, min, max, argmin,
 * argmax, logsumexp, and a sum of the indices i and j), each masked by r2
 * < rc2 so that its dense result is the reference.  Periodic runs are
 * compared with a dense sweep over every image of j (the index taken
 * modulo Nj).  Fresh random inputs (NBCC_TEST_SEED repeats a run) in 1, 2
 * and 3-D, open, periodic and mixed boxes, uniform, in one cell, at one
 * point and on cell faces, sizes 0, 1 and primes (a thousand with
 * NBCC_TEST_HEAVY=1, left out by default for the time it takes); float,
 * double and dd (dd up to 97 points, 13 on the IL interpreter, unless
 * NBCC_TEST_HEAVY=1); on the host C path, on OpenCL (PoCL here; left out
 * without an OpenCL CPU device) and on the AMD IL interpreter (small
 * sizes, no argmin/argmax nor indices, which it cannot map back from
 * sorted copies, and logsumexp in float only).  Tolerances: counts,
 * min/max and their indices exact (the index where some j is within the
 * cutoff); sums of positive terms and logsumexp within 4 (count + 1)
 * units of the precision's rounding of their size (the bound of a sum in
 * another order).  Also the dsl-examples zero beyond a cutoff
 * (Lennard-Jones, Coulomb, SPH) on the host and PoCL, nbrt_arrays,
 * nbrt_pairs, every bad input, and the same bits on any number of
 * threads.  On OpenCL the cases of cells of one cutoff over open axes
 * are the device's own lists (cl/cells.c; NBRT_DEVICE_CELLS=0 leaves
 * them to the host's), and a self run, a grid too sparse for the device
 * and a NaN position are run both ways and compared.
 * tags: slow */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"
#include "nbrt_impl.h" /* nbrt_cells_build: the pair count */

#include "seed.h"
#include "capture.h"

#ifndef ROOT
#define ROOT "."
#endif

static unsigned short rng[3];

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

/* Every reduction masked by the cutoff, and the indices. */
#define INPUTS "LMEM xi, yi, zi;\nBMEM xj, yj, zj, wj;\n"
#define NEAR                                                                 \
	"CONST rc2, inf;\n"                                                    \
	"dx = xi - xj;\n"                                                      \
	"dy = yi - yj;\n"                                                      \
	"dz = zi - zj;\n"                                                      \
	"r2 = dx*dx + dy*dy + dz*dz;\n"                                        \
	"near = r2 < rc2;\n"                                                   \
	"s += near ? wj*(rc2 - r2) : 0;\n"                                     \
	"c += near;\n"                                                         \
	"mn min= near ? r2 + wj : inf;\n"                                      \
	"mx max= near ? wj - r2 : -inf;\n"
static const char src_all[] =
    INPUTS "RMEM s, c, mn, am, mx, ax, l, sj;\n" NEAR
    "am argmin= near ? r2 + wj : inf;\n"
    "ax argmax= near ? wj - r2 : -inf;\n"
    "l logsumexp= near ? -r2/rc2 : -inf;\n"
    "sj += near ? j + 0.5*i : 0;\n";
/* The IL interpreter's: no argmin or argmax (their index is mapped back
 * from the sorted copies, which it cannot do), and logsumexp in float
 * only (it has no double or dd form there). */
static const char src_il[] =
    INPUTS "RMEM s, c, mn, mx, l;\n" NEAR
    "l logsumexp= near ? -r2/rc2 : -inf;\n";
static const char src_il_nolse[] = INPUTS "RMEM s, c, mn, mx;\n" NEAR;

enum { S, C, MN, AM, MX, AX, L, SJ, NOUT };
static const char *const outn[NOUT] = {"s", "c", "mn", "am", "mx", "ax",
                                       "l", "sj"};
static const char *const in_i[3] = {"xi", "yi", "zi"};
static const char *const in_j[3] = {"xj", "yj", "zj"};

static const char *const devs[] = {"host", "cpu", "amdil"};
enum { HOST, OCL, IL, NDEVS };
static nbrt *dev[NDEVS];
static int tried[NDEVS];

static nbrt *device(int d)
{
	if (!tried[d]) {
		char *err = NULL;
		tried[d] = 1;
		dev[d] = nbrt_open(devs[d], &err);
		if (!dev[d]) {
			ck_assert_msg(d == OCL, "nbrt_open(%s): %s", devs[d], err);
			printf("test_cutoff: no OpenCL CPU device (%s): OpenCL left "
			       "out\n", err);
		} else {
			printf("test_cutoff: %s: %s\n", devs[d],
			       nbrt_device_name(dev[d]));
		}
		free(err);
		fflush(stdout);
	}
	return dev[d];
}

static nbrt_type host_type(nb_prec p)
{
	return p == NB_FLOAT ? NBRT_FLOAT : p == NB_DOUBLE ? NBRT_DOUBLE : NBRT_DD;
}

static const char *pname(nb_prec p)
{
	return p == NB_FLOAT ? "float" : p == NB_DOUBLE ? "double" : "dd";
}

/* 2^-24, 2^-53, 2^-104: a unit of each precision's rounding */
static double unit(nb_prec p)
{
	return p == NB_FLOAT ? 0x1p-24 : p == NB_DOUBLE ? 0x1p-53 : 0x1p-104;
}

static nbrt_kernel *load(nbrt *rt, const char *name, const char *text,
                         nb_prec p)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	nbrt_kernel *k = nbrt_load_source(rt, name, text, strlen(text), &o);
	ck_assert_msg(k != NULL, "load %s: %s", name, nbrt_error(rt));
	return k;
}

/* --- host arrays of a type -------------------------------------------- */

static size_t tsize(nbrt_type t)
{
	return t == NBRT_FLOAT ? 4 : t == NBRT_DOUBLE ? 8 : 16;
}

static void *array(nbrt_type t, size_t n)
{
	void *a = calloc(n ? n : 1, tsize(t));
	ck_assert(a != NULL);
	return a;
}

static void put(void *a, nbrt_type t, size_t e, double hi, double lo)
{
	if (t == NBRT_FLOAT) {
		((float *)a)[e] = (float)hi;
	} else if (t == NBRT_DOUBLE) {
		((double *)a)[e] = hi;
	} else {
		((double *)a)[2 * e] = hi;
		((double *)a)[2 * e + 1] = lo;
	}
}

static double get(const void *a, nbrt_type t, size_t e)
{
	if (t == NBRT_FLOAT)
		return ((const float *)a)[e];
	if (t == NBRT_DOUBLE)
		return ((const double *)a)[e];
	return ((const double *)a)[2 * e] + ((const double *)a)[2 * e + 1];
}

/* x + s as the runtime's image copies round it in type t: float and
 * double once, dd exactly (two-sum). */
static void put_shifted(void *a, nbrt_type t, size_t e, double x, double s)
{
	if (t != NBRT_DD) {
		put(a, t, e, t == NBRT_FLOAT ? (double)(float)(x + s) : x + s, 0);
		return;
	}
	double h = x + s, bb = h - x, err = (x - (h - bb)) + (s - bb);
	double hi = h + err;
	put(a, t, e, hi, err - (hi - h));
}

/* --- one comparison ------------------------------------------------------- */

typedef struct Case {
	int dim, per;      /* per: bit d, axis d periodic */
	double rc, L[3];
	size_t ni, nj;
	double *x[3], *y[3], *w; /* positions of i and j (floats), weights */
} Case;

enum { UNIFORM, CLUSTER, POINT, FACES, NKIND };

static void make_case(Case *cs, int dim, int per, int kind, size_t ni,
                      size_t nj)
{
	memset(cs, 0, sizeof *cs);
	cs->dim = dim;
	cs->per = per;
	cs->ni = ni;
	cs->nj = nj;
	double span = urand(1, 4);
	/* some tens of neighbours on average */
	cs->rc = (float)(span * pow(urand(3, 30) / (double)(nj ? nj : 1),
	                            1.0 / dim) / 2);
	/* a period of exactly two cutoffs now and then, but not at tens of
	 * thousands of points: it packs them tens of times denser, and the
	 * threads test ran for minutes */
	double tight = nj < 10000 ? 0.2 : 0;
	for (int d = 0; d < dim; d++)
		if (per >> d & 1)
			cs->L[d] = erand48(rng) < tight ? 2 * cs->rc
			                                : (float)fmax(span, 2 * cs->rc);
	double p0[3];
	for (int d = 0; d < 3; d++)
		p0[d] = urand(0, cs->L[d] > 0 ? cs->L[d] : span);
	for (int side = 0; side < 2; side++) {
		size_t n = side ? nj : ni;
		double **col = side ? cs->y : cs->x;
		for (int d = 0; d < 3; d++) {
			col[d] = calloc(n ? n : 1, sizeof(double));
			double L = cs->L[d], w = L > 0 ? L : span;
			for (size_t e = 0; e < n && d < dim; e++) {
				double v;
				switch (kind) {
				case CLUSTER:
					v = p0[d] + urand(0, cs->rc / 3);
					break;
				case POINT:
					v = p0[d];
					break;
				case FACES:
					v = cs->rc * floor(urand(0, w / cs->rc));
					break;
				default:
					v = urand(0, w);
				}
				v = (float)v;
				if (L > 0 && !(v >= 0 && v < L))
					v = 0;
				col[d][e] = v;
			}
		}
	}
	cs->w = malloc((nj ? nj : 1) * sizeof(double));
	for (size_t e = 0; e < nj; e++)
		cs->w[e] = (float)urand(0.1, 1);
}

static void free_case(Case *cs)
{
	for (int d = 0; d < 3; d++) {
		free(cs->x[d]);
		free(cs->y[d]);
	}
	free(cs->w);
}

/* Case after case, the device's cells (a CPU's: one cutoff), then cells
 * of half and a quarter of it in groups of 4 and 8 (runtime/cells.c). */
static nbrt_cutoff params(const Case *cs)
{
	static const int cells[3][2] = {{0, 0}, {2, 4}, {4, 8}};
	static int turn;
	nbrt_cutoff c;
	memset(&c, 0, sizeof c);
	c.split = cells[turn % 3][0];
	c.group = cells[turn++ % 3][1];
	c.cutoff = cs->rc;
	c.dim = cs->dim;
	for (int d = 0; d < 3; d++) {
		c.ipos[d] = in_i[d];
		c.jpos[d] = in_j[d];
		c.period[d] = cs->L[d];
	}
	return c;
}

/* The cell-list run and the dense one (over every image of j where an
 * axis is periodic) of kernel k, compared output by output. */
/* Cell-list runs the device built (cl/cells.c), of the sweep so far. */
static int ndevice;

/* Whether the case may be the device's own cell lists (cl/cells.c, with
 * NBRT_DEVICE_CELLS=1): an OpenCL device, cells of one cutoff, open axes,
 * both sides non-empty (the grid's density aside, checked by the device). */
static int device_case(const nbrt *rt, const nbrt_cutoff *c, size_t ni,
                       size_t nj)
{
	int open = 1;
	for (int d = 0; d < c->dim; d++)
		open &= c->period[d] == 0;
	return rt == dev[OCL] && ni && nj && open && c->split == 0 &&
	       c->group == 0;
}

static int compare(nbrt *rt, nbrt_kernel *k, nb_prec p, const Case *cs,
                   const char *where)
{
	nbrt_type t = host_type(p);
	const nb_iface *f = nbrt_iface(k);
	size_t ni = cs->ni, nj = cs->nj;
	/* images: every shift of the periodic axes, the unshifted first */
	int nimg = 1;
	for (int d = 0; d < cs->dim; d++)
		nimg *= cs->per >> d & 1 ? 3 : 1;
	size_t njd = nj * (size_t)nimg;
	void *xi[3], *xj[3], *xjd[3], *w = array(t, nj), *wd = array(t, njd);
	for (int d = 0; d < 3; d++) {
		xi[d] = array(t, ni);
		xj[d] = array(t, nj);
		xjd[d] = array(t, njd);
		for (size_t e = 0; e < ni; e++)
			put(xi[d], t, e, cs->x[d][e], 0);
		for (size_t e = 0; e < nj; e++)
			put(xj[d], t, e, cs->y[d][e], 0);
	}
	for (size_t e = 0; e < nj; e++)
		put(w, t, e, cs->w[e], 0);
	for (int m = 0; m < nimg; m++) {
		int sh[3] = {0, 0, 0}, r = m;
		for (int d = 0; d < cs->dim; d++)
			if (cs->per >> d & 1) {
				sh[d] = (r % 3 + 1) % 3 - 1; /* 0, 1, -1 */
				r /= 3;
			}
		for (size_t e = 0; e < nj; e++) {
			size_t q = (size_t)m * nj + e;
			for (int d = 0; d < 3; d++)
				put_shifted(xjd[d], t, q, cs->y[d][e], sh[d] * cs->L[d]);
			put(wd, t, q, cs->w[e], 0);
		}
	}
	void *got[NOUT] = {0}, *want[NOUT] = {0};
	int has[NOUT] = {0};
	for (int o = 0; o < NOUT; o++) {
		has[o] = nb_iface_find(f, outn[o]) >= 0;
		if (has[o]) {
			got[o] = array(t, ni);
			want[o] = array(t, ni);
		}
	}
	double rc2 = (double)cs->rc * cs->rc;
	ck_assert(nbrt_set_const(k, "rc2", rc2, 0) == 0);
	ck_assert(nbrt_set_const(k, "inf", INFINITY, 0) == 0);

	/* dense over the images */
	for (int d = 0; d < 3; d++) {
		ck_assert(nbrt_bind(k, in_i[d], t, xi[d]) == 0);
		ck_assert(nbrt_bind(k, in_j[d], t, xjd[d]) == 0);
	}
	ck_assert(nbrt_bind(k, "wj", t, wd) == 0);
	for (int o = 0; o < NOUT; o++)
		if (has[o])
			ck_assert(nbrt_bind(k, outn[o], t, want[o]) == 0);
	ck_assert_msg(nbrt_run(k, ni, njd) == 0, "%s: dense: %s", where,
	              nbrt_error(rt));

	/* cell lists */
	for (int d = 0; d < 3; d++)
		ck_assert(nbrt_bind(k, in_j[d], t, xj[d]) == 0);
	ck_assert(nbrt_bind(k, "wj", t, w) == 0);
	for (int o = 0; o < NOUT; o++)
		if (has[o])
			ck_assert(nbrt_bind(k, outn[o], t, got[o]) == 0);
	nbrt_cutoff c = params(cs);
	struct nbrt_cutoff_stats st;
	c.stats = &st;
	if (nbrt_run_cutoff(k, ni, nj, &c) != 0)
		ck_abort_msg("%s: nbrt_run_cutoff: %s", where, nbrt_error(rt));
	if (!device_case(rt, &c, ni, nj))
		ck_assert_msg(!st.device, "%s: the device's lists", where);
	ndevice += st.device;

	/* the pair count is the cell list's */
	nbrt_cells cl;
	char err[256];
	const double *ip[3] = {cs->x[0], cs->x[1], cs->x[2]};
	const double *jp[3] = {cs->y[0], cs->y[1], cs->y[2]};
	if (!c.split) { /* a CPU's cells (runtime/cutoff.c): every device here */
		c.split = 1;
		c.group = 1 << 30;
	}
	ck_assert(nbrt_cells_build(&cl, &c, ip, ni, jp, nj, 1e18, err,
	                           sizeof err) == 0);
	ck_assert_msg(nbrt_pairs(k) == cl.pairs, "%s: nbrt_pairs %g, the cells "
	              "%g", where, nbrt_pairs(k), cl.pairs);
	nbrt_cells_free(&cl);

	double u = unit(p);
	for (size_t i = 0; i < ni; i++) {
		double cnt = has[C] ? get(want[C], t, i) : 27;
		for (int o = 0; o < NOUT; o++) {
			if (!has[o] || (o == SJ && cs->per))
				continue; /* the dense images' j are not the caller's */
			double g = get(got[o], t, i), v = get(want[o], t, i);
			if (o == AM || o == AX) {
				/* with no j within the cutoff every value is masked
				 * (min = inf), and the index one of equals: the dense
				 * sweep's smallest j, the lists' first or none */
				if (cnt == 0)
					continue;
				v = fmod(v, (double)nj);
			}
			/* a sum of cnt positive terms in another order: within
			 * (cnt - 1) u of their sum, here 4 (cnt + 1) u; logsumexp
			 * of values in [-1, 0] the same on the log scale */
			double tol = 0;
			if (o == S || o == SJ)
				tol = 4 * (cnt + 1) * u * fabs(v);
			else if (o == L)
				tol = 4 * (cnt + 1) * u * (2 + fabs(v));
			int ok = o == S || o == L || o == SJ
			             ? (isinf(v) ? g == v : fabs(g - v) <= tol)
			             : g == v;
			/* ck_assert writes its place to a file at every pass: only
			 * a failure calls it */
			if (!ok)
				ck_abort_msg("%s: %s[%zu] = %.17g, dense %.17g (tolerance "
				             "%.3g, %g neighbours)", where, outn[o], i, g, v,
				             tol, cnt);
		}
	}
	for (int d = 0; d < 3; d++) {
		free(xi[d]);
		free(xj[d]);
		free(xjd[d]);
	}
	free(w);
	free(wd);
	for (int o = 0; o < NOUT; o++) {
		free(got[o]);
		free(want[o]);
	}
	return st.device;
}

static const size_t sizes[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1},
                                  {13, 11}, {97, 101}, {211, 199},
                                  {1009, 997}};
static const size_t il_sizes[][2] = {{0, 3}, {3, 0}, {1, 1}, {13, 11},
                                     {61, 59}};

/* Device d, precision p: every dim, box and kind. */
static void sweep(int d, nb_prec p)
{
	nbrt *rt = device(d);
	if (!rt)
		return;
	/* Float on OpenCL: the kernel as loaded (NBRT_AUTO_SPLIT=0, read at
	 * the load), its block-sparse runs in tasks of a work group's i-
	 * elements, a path no other case here takes.  The j-splits the
	 * small groups choose by the cells' density are a PoCL program each
	 * (four in float); the same reductions take them in double and dd,
	 * and float's small groups are autosplit.sh's. */
	int as_loaded = d == OCL && p == NB_FLOAT;
	char *keep = as_loaded ? env_keep("NBRT_AUTO_SPLIT") : NULL;
	if (as_loaded)
		setenv("NBRT_AUTO_SPLIT", "0", 1);
	nbrt_kernel *k = d != IL      ? load(rt, "cut_all", src_all, p)
	                 : p == NB_FLOAT ? load(rt, "cut_il", src_il, p)
	                                 : load(rt, "cut_il", src_il_nolse, p);
	if (as_loaded)
		env_back("NBRT_AUTO_SPLIT", keep);
	const char *heavy = getenv("NBCC_TEST_HEAVY");
	int big = heavy && !strcmp(heavy, "1");
	ndevice = 0;
	const size_t(*sz)[2] = d == IL ? il_sizes : sizes;
	size_t nsz = d == IL ? sizeof il_sizes / sizeof *il_sizes
	                     : sizeof sizes / sizeof *sizes;
	for (int dim = 1; dim <= 3; dim++) {
		int pers[3] = {0, (1 << dim) - 1, 1};
		for (int q = 0; q < (dim > 1 ? 3 : 2); q++)
			for (int kind = 0; kind < NKIND; kind++)
				for (size_t z = 0; z < nsz; z++) {
					if (sz[z][0] > 500 && (kind != UNIFORM || !big))
						continue;
					/* dd's own work in the cell path (16-byte copies,
					 * images shifted in dd, its ranges entry) shows at
					 * any size; float and double take the sizes past a
					 * work group (211) on the same devices */
					if (p == NB_DD && !big &&
					    sz[z][0] > (d == IL ? 13u : 100u))
						continue;
					Case cs;
					make_case(&cs, dim, pers[q], kind, sz[z][0], sz[z][1]);
					char where[160];
					snprintf(where, sizeof where, "%s %s, %d-D, periodic "
					         "axes %d, kind %d, Ni %zu, Nj %zu, cutoff %g",
					         devs[d], pname(p), dim, pers[q], kind, cs.ni,
					         cs.nj, cs.rc);
					compare(rt, k, p, &cs, where);
					free_case(&cs);
				}
	}
	const char *e = getenv("NBRT_DEVICE_CELLS");
	if (d == OCL && e && !strcmp(e, "1"))
		ck_assert_msg(ndevice > 0, "OpenCL %s: no run took the device's "
		              "cell lists", pname(p));
	nbrt_free(k);
}

/* --- the examples ----------------------------------------------------- */

/* Each dsl-example zero beyond its cutoff, one set of particles for both
 * sides (a jittered lattice: no pair closer than 0.6), against the dense
 * sweep: within 1e-12 (double) or 1e-4 (float) of the output's largest
 * |value|, counts exact.  lennard_jones_self reads i and j (j != i), so
 * it checks the maps back to the caller's indices. */
typedef struct Example {
	const char *file;
	const char *extra[2]; /* LMEM and BMEM beyond the positions */
	const char *cname[3];
	double cval[3];
	const char *out[5];
} Example;

static const Example examples[] = {
	{"lennard_jones_self.nbl", {NULL, NULL}, {"sig2", "eps", "rc2"},
	 {0.25, 1, 6.25}, {"fx", "fy", "fz", "u", "n"}},
	{"coulomb_cutoff.nbl", {NULL, "qj"}, {"rc2", "rcinv", NULL},
	 {6.25, 0.4, 0}, {"ex", "ey", "ez", "phi", NULL}},
	{"sph_density.nbl", {"hi", "mj"}, {NULL, NULL, NULL}, {0, 0, 0},
	 {"rho", NULL, NULL, NULL, NULL}},
};

static void example(int d, nb_prec p, const Example *ex)
{
	nbrt *rt = device(d);
	if (!rt)
		return;
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	char path[512];
	snprintf(path, sizeof path, "%s/dsl-examples/%s", ROOT, ex->file);
	nbrt_kernel *k = nbrt_load(rt, path, &o);
	ck_assert_msg(k != NULL, "%s: %s", path, nbrt_error(rt));
	nbrt_type t = host_type(p);
	enum { M = 9, N = M * M * M };
	void *pos[3], *other[2], *got[5], *want[5];
	for (int a = 0; a < 3; a++) {
		pos[a] = array(t, N);
		for (size_t e = 0; e < N; e++) {
			size_t c = a == 0 ? e % M : a == 1 ? e / M % M : e / (M * M);
			put(pos[a], t, e, (float)((double)c + urand(-0.2, 0.2)), 0);
		}
		ck_assert(nbrt_bind(k, in_i[a], t, pos[a]) == 0);
		ck_assert(nbrt_bind(k, in_j[a], t, pos[a]) == 0);
	}
	for (int q = 0; q < 2; q++) {
		other[q] = array(t, N);
		for (size_t e = 0; e < N; e++)
			put(other[q], t, e,
			    q == 0 ? (float)urand(1, 1.25) /* h <= rc / 2 */
			           : (float)urand(-1, 1), 0);
		if (ex->extra[q])
			ck_assert(nbrt_bind(k, ex->extra[q], t, other[q]) == 0);
	}
	for (int c = 0; c < 3; c++)
		if (ex->cname[c])
			ck_assert(nbrt_set_const(k, ex->cname[c], ex->cval[c], 0) == 0);
	for (int r = 0; r < 5; r++) {
		got[r] = array(t, N);
		want[r] = array(t, N);
	}
	for (int r = 0; r < 5 && ex->out[r]; r++)
		ck_assert(nbrt_bind(k, ex->out[r], t, want[r]) == 0);
	ck_assert_msg(nbrt_run(k, N, N) == 0, "%s: %s", ex->file, nbrt_error(rt));
	for (int r = 0; r < 5 && ex->out[r]; r++)
		ck_assert(nbrt_bind(k, ex->out[r], t, got[r]) == 0);
	nbrt_cutoff c;
	memset(&c, 0, sizeof c);
	c.cutoff = 2.5;
	c.dim = 3;
	for (int a = 0; a < 3; a++) {
		c.ipos[a] = in_i[a];
		c.jpos[a] = in_j[a];
	}
	ck_assert_msg(nbrt_run_cutoff(k, N, N, &c) == 0, "%s: %s", ex->file,
	              nbrt_error(rt));
	ck_assert(nbrt_pairs(k) < 0.5 * N * N);
	double rel = p == NB_FLOAT ? 1e-4 : 1e-12;
	for (int r = 0; r < 5 && ex->out[r]; r++) {
		double big = 0;
		for (size_t e = 0; e < N; e++)
			big = fmax(big, fabs(get(want[r], t, e)));
		int exact = !strcmp(ex->out[r], "n");
		for (size_t e = 0; e < N; e++) {
			double g = get(got[r], t, e), v = get(want[r], t, e);
			if (!(exact ? g == v : fabs(g - v) <= rel * big))
				ck_abort_msg("%s on %s, %s: %s[%zu] = %.17g, dense %.17g "
				             "(the largest %g)", ex->file, devs[d], pname(p),
				             ex->out[r], e, g, v, big);
		}
	}
	for (int a = 0; a < 3; a++)
		free(pos[a]);
	for (int q = 0; q < 2; q++)
		free(other[q]);
	for (int r = 0; r < 5; r++) {
		free(got[r]);
		free(want[r]);
	}
	nbrt_free(k);
}

/* Float once, in the example that maps i and j back (each kernel is two
 * cc -O3 builds a precision): the host's float cell path is the sweep's
 * (host, NB_FLOAT) on every reduction; SPH's float cutoff run on the
 * host is nbrun_ranges.sh's, Coulomb's float kernel text generated/'s. */
START_TEST(examples_host)
{
	for (size_t e = 0; e < sizeof examples / sizeof *examples; e++) {
		example(HOST, NB_DOUBLE, &examples[e]);
		if (e == 0)
			example(HOST, NB_FLOAT, &examples[e]);
	}
}
END_TEST

START_TEST(examples_opencl)
{
	for (size_t e = 0; e < sizeof examples / sizeof *examples; e++)
		example(OCL, NB_DOUBLE, &examples[e]);
}
END_TEST

/* --- nbrt_arrays ------------------------------------------------------ */

/* Positions and a result in nbrt_arrays (on the device where it keeps
 * them) give the bits of host arrays; the result's values past Ni stay.
 * per: the periodic axes (0: open, the device's own lists on OpenCL). */
static void arrays(int d, int per)
{
	nbrt *rt = device(d);
	if (!rt)
		return;
	nbrt_kernel *k = load(rt, "cut_all", src_all, NB_DOUBLE);
	Case cs;
	make_case(&cs, 3, per, UNIFORM, 301, 283);
	nbrt_cutoff c = params(&cs);
	if (!per)
		c.split = c.group = 0;
	size_t ni = cs.ni, nj = cs.nj;
	nbrt_array *ai[3], *aj[3], *as = nbrt_array_new(rt, ni + 3);
	ck_assert(as != NULL);
	double *s1 = calloc(ni, sizeof *s1), *s2 = calloc(ni + 3, sizeof *s2);
	double *outs[NOUT];
	for (int o = 0; o < NOUT; o++) {
		outs[o] = calloc(ni, sizeof(double));
		ck_assert(nbrt_bind(k, outn[o], NBRT_DOUBLE, outs[o]) == 0);
	}
	ck_assert(nbrt_set_const(k, "rc2", (double)cs.rc * cs.rc, 0) == 0);
	ck_assert(nbrt_set_const(k, "inf", INFINITY, 0) == 0);
	ck_assert(nbrt_bind(k, "wj", NBRT_DOUBLE, cs.w) == 0);
	for (int a = 0; a < 3; a++) {
		ck_assert(nbrt_bind(k, in_i[a], NBRT_DOUBLE, cs.x[a]) == 0);
		ck_assert(nbrt_bind(k, in_j[a], NBRT_DOUBLE, cs.y[a]) == 0);
	}
	ck_assert(nbrt_bind(k, "s", NBRT_DOUBLE, s1) == 0);
	ck_assert_msg(nbrt_run_cutoff(k, ni, nj, &c) == 0, "%s", nbrt_error(rt));
	for (int a = 0; a < 3; a++) {
		ai[a] = nbrt_array_new(rt, ni);
		aj[a] = nbrt_array_new(rt, nj + 5);
		ck_assert(ai[a] && aj[a]);
		double *tmp = calloc(nj + 5, sizeof *tmp);
		memcpy(tmp, cs.y[a], nj * sizeof *tmp);
		ck_assert(nbrt_array_write(ai[a], cs.x[a]) == 0);
		ck_assert(nbrt_array_write(aj[a], tmp) == 0);
		free(tmp);
		ck_assert(nbrt_bind_array(k, in_i[a], ai[a]) == 0);
		ck_assert(nbrt_bind_array(k, in_j[a], aj[a]) == 0);
	}
	for (size_t e = 0; e < ni + 3; e++)
		s2[e] = -7;
	ck_assert(nbrt_array_write(as, s2) == 0);
	ck_assert(nbrt_bind_array(k, "s", as) == 0);
	ck_assert_msg(nbrt_run_cutoff(k, ni, nj, &c) == 0, "%s", nbrt_error(rt));
	ck_assert(nbrt_array_read(as, s2) == 0);
	for (size_t e = 0; e < ni; e++)
		ck_assert_msg(s1[e] == s2[e], "%s: s[%zu] = %.17g from nbrt_arrays, "
		              "%.17g from host arrays", devs[d], e, s2[e], s1[e]);
	for (size_t e = ni; e < ni + 3; e++)
		ck_assert_msg(s2[e] == -7, "%s: s[%zu] past Ni clobbered", devs[d], e);
	for (int a = 0; a < 3; a++) {
		nbrt_array_free(ai[a]);
		nbrt_array_free(aj[a]);
	}
	nbrt_array_free(as);
	for (int o = 0; o < NOUT; o++)
		free(outs[o]);
	free(s1);
	free(s2);
	free_case(&cs);
	nbrt_free(k);
}

START_TEST(nbrt_arrays)
{
	for (int per = 5; per >= 0; per -= 5) {
		arrays(HOST, per);
		arrays(OCL, per);
	}
}
END_TEST

/* --- the device's own cell lists (cl/cells.c) ------------------------- */

/* Ni and Nj points with the weights and results of src_all, bound; the
 * cell-list run's results and whether the device built the lists. */
static int device_run(nbrt_kernel *k, int on, const nbrt_cutoff *c0,
                      size_t ni, size_t nj, double *const xi[3],
                      double *const xj[3], double *w, double *out)
{
	nbrt *rt = device(OCL);
	setenv("NBRT_DEVICE_CELLS", on ? "1" : "0", 1);
	for (int a = 0; a < 3; a++) {
		ck_assert(nbrt_bind(k, in_i[a], NBRT_DOUBLE, xi[a]) == 0);
		ck_assert(nbrt_bind(k, in_j[a], NBRT_DOUBLE, xj[a]) == 0);
	}
	ck_assert(nbrt_bind(k, "wj", NBRT_DOUBLE, w) == 0);
	for (int o = 0; o < NOUT; o++)
		ck_assert(nbrt_bind(k, outn[o], NBRT_DOUBLE, out + o * ni) == 0);
	nbrt_cutoff c = *c0;
	struct nbrt_cutoff_stats st;
	c.stats = &st;
	ck_assert_msg(nbrt_run_cutoff(k, ni, nj, &c) == 0, "%s",
	              nbrt_error(rt));
	return st.device;
}

/* Host-built against device-built lists on the same inputs: counts,
 * min/max and indices exact, sums within rounding (4 (count + 1) u). */
static void same_results(const double *a, const double *b, size_t ni,
                         const char *what)
{
	for (size_t i = 0; i < ni; i++) {
		double cnt = a[C * ni + i];
		for (int o = 0; o < NOUT; o++) {
			double g = b[o * ni + i], v = a[o * ni + i];
			double tol = o == S || o == SJ ? 4 * (cnt + 1) * 0x1p-53 * fabs(v)
			           : o == L ? 4 * (cnt + 1) * 0x1p-53 * (2 + fabs(v)) : 0;
			if (!(g == v || fabs(g - v) <= tol))
				ck_abort_msg("%s: %s[%zu] = %.17g on the device's lists, "
				             "%.17g on the host's", what, outn[o], i, g, v);
		}
	}
}

/* A self run (i and j the same arrays: sorted once; also in the
 * device's finer cells, NBRT_DEVICE_CELL_SPLIT), a grid too sparse for
 * the device (two clusters far apart: the host builds the lists), and a
 * NaN position (the host's message), each against the host's lists; the
 * default of NBRT_DEVICE_CELLS restored after. */
START_TEST(device_cells)
{
	nbrt *rt = device(OCL);
	if (!rt)
		return;
	char *keep = env_keep("NBRT_DEVICE_CELLS");
	nbrt_kernel *k = load(rt, "cut_all", src_all, NB_DOUBLE);
	for (int kase = 0; kase < 3; kase++) {
		Case cs;
		make_case(&cs, 3, 0, UNIFORM, 509, 509);
		size_t n = cs.ni;
		if (kase == 1) /* half of them 10^4 cutoffs away along y */
			for (size_t e = n / 2; e < n; e++) {
				cs.x[1][e] += 1e4 * cs.rc;
				cs.y[1][e] += 1e4 * cs.rc;
			}
		if (kase == 2)
			cs.x[2][n / 3] = NAN;
		if (kase == 0) /* dense enough for a run a cell of cutoff / 3 */
			cs.rc = (float)(cs.rc * 3);
		nbrt_cutoff c = params(&cs);
		c.split = c.group = 0;
		c.self = kase == 0;
		ck_assert(nbrt_set_const(k, "rc2", (double)cs.rc * cs.rc, 0) == 0);
		ck_assert(nbrt_set_const(k, "inf", INFINITY, 0) == 0);
		double *a = malloc(NOUT * n * sizeof *a), *b = malloc(NOUT * n * sizeof *b);
		double *const *xj = kase == 0 ? cs.x : cs.y;
		if (kase == 2) {
			char msg[2][512];
			for (int on = 0; on < 2; on++) {
				setenv("NBRT_DEVICE_CELLS", on ? "1" : "0", 1);
				for (int e = 0; e < 3; e++) {
					ck_assert(nbrt_bind(k, in_i[e], NBRT_DOUBLE, cs.x[e]) == 0);
					ck_assert(nbrt_bind(k, in_j[e], NBRT_DOUBLE, xj[e]) == 0);
				}
				ck_assert(nbrt_run_cutoff(k, n, n, &c) == -1);
				snprintf(msg[on], sizeof msg[on], "%s", nbrt_error(rt));
			}
			ck_assert_msg(strstr(msg[1], "zi[") && strstr(msg[1], "= nan: "
			              "positions must be finite"), "%s", msg[1]);
			ck_assert_str_eq(msg[0], msg[1]);
		} else {
			ck_assert(device_run(k, 0, &c, n, n, cs.x, xj, cs.w, a) == 0);
			double ph = nbrt_pairs(k);
			ck_assert_msg(device_run(k, 1, &c, n, n, cs.x, xj, cs.w, b) ==
			              (kase == 0), "case %d: device lists %s", kase,
			              kase == 0 ? "not used" : "used on a sparse grid");
			ck_assert_msg(nbrt_pairs(k) == ph, "case %d: pairs %g, host %g",
			              kase, nbrt_pairs(k), ph);
			same_results(a, b, n, kase == 0 ? "self run" : "sparse grid");
			/* pairs cut into many launches (their tasks on the host) */
			if (kase == 0) {
				setenv("NBRT_MAX_INTERACTIONS", "5000", 1);
				ck_assert(device_run(k, 1, &c, n, n, cs.x, xj, cs.w, b) == 1);
				unsetenv("NBRT_MAX_INTERACTIONS");
				ck_assert(nbrt_launches(k) > 1);
				same_results(a, b, n, "launches of 5000 pairs");
			}
			/* the caller's arrays through pinned staging (a GPU's
			 * default: each result copied out while the next one's
			 * read crosses) and straight: the same bits */
			if (kase == 0) {
				double *s0 = malloc(NOUT * n * sizeof *s0);
				ck_assert(s0 != NULL);
				for (int st = 0; st < 2; st++) {
					setenv("NBRT_CELL_STAGE", st ? "1" : "0", 1);
					ck_assert(device_run(k, 1, &c, n, n, cs.x, xj, cs.w,
					                     st ? b : s0) == 1);
					unsetenv("NBRT_CELL_STAGE");
				}
				ck_assert_msg(!memcmp(s0, b, NOUT * n * sizeof *s0),
				              "NBRT_CELL_STAGE=0 and 1 differ");
				same_results(a, b, n, "staged");
				free(s0);
			}
			/* the device's finer cells (cutoff / 2 and / 3, rows of 5
			 * and 7 cells): the same results from fewer pairs */
			for (int sp = 2; kase == 0 && sp <= 3; sp++) {
				setenv("NBRT_DEVICE_CELL_SPLIT", sp == 2 ? "2" : "3", 1);
				ck_assert(device_run(k, 1, &c, n, n, cs.x, xj, cs.w, b) == 1);
				unsetenv("NBRT_DEVICE_CELL_SPLIT");
				ck_assert_msg(nbrt_pairs(k) < ph, "split %d: pairs %g, "
				              "host's cells of one cutoff %g", sp,
				              nbrt_pairs(k), ph);
				same_results(a, b, n, sp == 2 ? "cells of cutoff / 2"
				                              : "cells of cutoff / 3");
				/* tasks of one i-element made on the device, cut
				 * into launches without host tasks (p->per) */
				setenv("NBRT_DEVICE_CELL_SPLIT", sp == 2 ? "2" : "3", 1);
				setenv("NBRT_MAX_INTERACTIONS", "5000", 1);
				ck_assert(device_run(k, 1, &c, n, n, cs.x, xj, cs.w, b) == 1);
				unsetenv("NBRT_MAX_INTERACTIONS");
				unsetenv("NBRT_DEVICE_CELL_SPLIT");
				ck_assert(nbrt_launches(k) > 1);
				same_results(a, b, n, "finer cells, launches of 5000 pairs");
			}
		}
		free(a);
		free(b);
		free_case(&cs);
	}
	/* cells of a third of the cutoff at tens of neighbours (about one
	 * i-element a busy cell): a split of 32, a task an i-element, made on
	 * the device, in launches of 5000 pairs, against the host's lists */
	{
		Case cs;
		make_case(&cs, 3, 0, UNIFORM, 3001, 3001);
		size_t n = cs.ni;
		double span = 0;
		for (size_t e = 0; e < n; e++)
			span = fmax(span, cs.x[0][e]);
		/* 50 neighbours: 0.44 elements a cell of a third (sparser grids
		 * go to the host) */
		cs.rc = (float)(span * cbrt(50 / (4.19 * (double)n)));
		nbrt_cutoff c = params(&cs);
		c.split = c.group = 0;
		c.self = 1;
		ck_assert(nbrt_set_const(k, "rc2", (double)cs.rc * cs.rc, 0) == 0);
		double *a = malloc(NOUT * n * sizeof *a), *b = malloc(NOUT * n * sizeof *b);
		ck_assert(device_run(k, 0, &c, n, n, cs.x, cs.x, cs.w, a) == 0);
		double ph = nbrt_pairs(k);
		setenv("NBRT_DEVICE_CELL_SPLIT", "3", 1);
		setenv("NBRT_MAX_INTERACTIONS", "5000", 1);
		int r = device_run(k, 1, &c, n, n, cs.x, cs.x, cs.w, b);
		unsetenv("NBRT_MAX_INTERACTIONS");
		unsetenv("NBRT_DEVICE_CELL_SPLIT");
		ck_assert(r == 1);
		ck_assert(nbrt_launches(k) > 1);
		ck_assert_msg(nbrt_pairs(k) < ph, "pairs %g, host's %g", nbrt_pairs(k),
		              ph);
		same_results(a, b, n, "cells of cutoff / 3, tasks of one element");
		/* the same with the shape's tasks made on the host
		 * (NBRT_CELL_PACK=0), packed 4 and 1 a work group (j-split 8
		 * and 32; 16 and 2 above), and with either ranges kernel (a
		 * cell a work item: a CPU's; a block of cells a work group: a
		 * GPU's) */
		static const char *const var[5][2] = {
			{"NBRT_CELL_PACK", "0"}, {"NBRT_RANGES_SPLIT_MAX", "8"},
			{"NBRT_RANGES_SPLIT_MAX", "32"}, {"NBRT_CELL_RANGES", "0"},
			{"NBRT_CELL_RANGES", "1"}};
		for (int q = 0; q < 5; q++) {
			setenv("NBRT_DEVICE_CELL_SPLIT", "3", 1);
			setenv("NBRT_MAX_INTERACTIONS", "5000", 1);
			setenv(var[q][0], var[q][1], 1);
			r = device_run(k, 1, &c, n, n, cs.x, cs.x, cs.w, b);
			unsetenv(var[q][0]);
			unsetenv("NBRT_MAX_INTERACTIONS");
			unsetenv("NBRT_DEVICE_CELL_SPLIT");
			ck_assert(r == 1);
			ck_assert(nbrt_launches(k) > 1);
			same_results(a, b, n, var[q][0]);
		}
		/* NBRT_DEVICE_CELL_SPLIT=0 (by density) takes the same third; at
		 * 5 neighbours that grid is too sparse and it takes one cutoff,
		 * still on the device */
		double p3 = nbrt_pairs(k);
		for (int sparse = 0; sparse < 2; sparse++) {
			if (sparse) {
				cs.rc = (float)(span * cbrt(5 / (4.19 * (double)n)));
				c = params(&cs);
				c.split = c.group = 0;
				c.self = 1;
				ck_assert(nbrt_set_const(k, "rc2", (double)cs.rc * cs.rc,
				                         0) == 0);
				ck_assert(device_run(k, 0, &c, n, n, cs.x, cs.x, cs.w, a) == 0);
			}
			setenv("NBRT_DEVICE_CELL_SPLIT", "0", 1);
			r = device_run(k, 1, &c, n, n, cs.x, cs.x, cs.w, b);
			unsetenv("NBRT_DEVICE_CELL_SPLIT");
			ck_assert(r == 1);
			if (!sparse)
				ck_assert(nbrt_pairs(k) == p3);
			same_results(a, b, n, sparse ? "split by density, sparse"
			                             : "split by density");
		}
		free(a);
		free(b);
		free_case(&cs);
	}
	/* the same in 2-D at a half and a third (rows of 5 and 7 cells, the
	 * third's corners pruned) and in 1-D, at 12 neighbours */
	for (int dim = 2; dim >= 1; dim--)
		for (int sp = 2; sp <= 3; sp++) {
			Case cs;
			make_case(&cs, dim, 0, UNIFORM, 2003, 2003);
			size_t n = cs.ni;
			double span = 0;
			for (size_t e = 0; e < n; e++)
				span = fmax(span, cs.x[0][e]);
			cs.rc = (float)(dim == 2 ? span * sqrt(12 / (3.14 * (double)n))
			                         : span * 6 / (double)n);
			nbrt_cutoff c = params(&cs);
			c.split = c.group = 0;
			c.self = 1;
			ck_assert(nbrt_set_const(k, "rc2", (double)cs.rc * cs.rc, 0) == 0);
			double *a = malloc(NOUT * n * sizeof *a);
			double *b = malloc(NOUT * n * sizeof *b);
			ck_assert(device_run(k, 0, &c, n, n, cs.x, cs.x, cs.w, a) == 0);
			for (int block = 0; block < 2; block++) {
				setenv("NBRT_DEVICE_CELL_SPLIT", sp == 2 ? "2" : "3", 1);
				setenv("NBRT_CELL_RANGES", block ? "1" : "0", 1);
				int r = device_run(k, 1, &c, n, n, cs.x, cs.x, cs.w, b);
				unsetenv("NBRT_CELL_RANGES");
				unsetenv("NBRT_DEVICE_CELL_SPLIT");
				ck_assert_msg(r == 1, "%d-D, split %d: not on the device", dim,
				              sp);
				same_results(a, b, n, dim == 2 ? "2-D finer cells"
				                               : "1-D finer cells");
			}
			free(a);
			free(b);
			free_case(&cs);
		}
	/* a bad NBRT_CELL_STAGE or NBRT_CELL_RANGES (read by the device's
	 * path) is refused, the outputs untouched */
	{
		Case cs;
		make_case(&cs, 3, 0, UNIFORM, 100, 100);
		nbrt_cutoff c = params(&cs);
		c.split = c.group = 0;
		double *a = malloc(NOUT * cs.ni * sizeof *a);
		setenv("NBRT_DEVICE_CELLS", "1", 1);
		for (int e = 0; e < 3; e++) {
			ck_assert(nbrt_bind(k, in_i[e], NBRT_DOUBLE, cs.x[e]) == 0);
			ck_assert(nbrt_bind(k, in_j[e], NBRT_DOUBLE, cs.y[e]) == 0);
		}
		ck_assert(nbrt_bind(k, "wj", NBRT_DOUBLE, cs.w) == 0);
		for (size_t e = 0; e < NOUT * cs.ni; e++)
			a[e] = 42;
		for (int o = 0; o < NOUT; o++)
			ck_assert(nbrt_bind(k, outn[o], NBRT_DOUBLE, a + o * cs.ni) == 0);
		static const char *const bad[2] = {"NBRT_CELL_STAGE",
		                                   "NBRT_CELL_RANGES"};
		for (int q = 0; q < 2; q++) {
			char want[80];
			snprintf(want, sizeof want, "%s='on': it must be 0 or 1", bad[q]);
			setenv(bad[q], "on", 1);
			int r = nbrt_run_cutoff(k, cs.ni, cs.nj, &c);
			unsetenv(bad[q]);
			ck_assert(r == -1);
			ck_assert_msg(strstr(nbrt_error(rt), want), "%s", nbrt_error(rt));
			for (size_t e = 0; e < NOUT * cs.ni; e++)
				ck_assert(a[e] == 42);
		}
		free(a);
		free_case(&cs);
	}
	nbrt_free(k);
	env_back("NBRT_DEVICE_CELLS", keep);
}
END_TEST

/* The block ranges kernel's room for a cell's ranges (NBRT_CELLS_MAXR,
 * 49: reach 3's 7 x 7 rows, so no cell has more today): a device opened
 * under NBRT_TEST_FAIL=block_room builds that kernel with room for 25
 * (runtime/cl/cl_impl.h's CL_TEST_FAILS), so that cells of a third (49
 * ranges) asking for it (NBRT_CELL_RANGES=1) take the per-cell kernel:
 * NBRT_VERBOSE says so and the results are the bits of the per-cell
 * kernel on the usual device; cells of a half (25 ranges) still take the
 * block kernel, within rounding of the third's. */
START_TEST(block_room)
{
	nbrt *rt = device(OCL);
	if (!rt)
		return;
	char *keep = env_keep("NBRT_DEVICE_CELLS");
	Case cs;
	make_case(&cs, 3, 0, UNIFORM, 509, 509);
	cs.rc = (float)(cs.rc * 3); /* dense enough for cells of a third */
	size_t n = cs.ni;
	nbrt_cutoff c = params(&cs);
	c.split = c.group = 0;
	c.self = 1;
	double *want = malloc(NOUT * n * sizeof *want);
	double *got = malloc(NOUT * n * sizeof *got);
	ck_assert(want && got);
	nbrt_kernel *k = load(rt, "cut_all", src_all, NB_DOUBLE);
	ck_assert(nbrt_set_const(k, "rc2", (double)cs.rc * cs.rc, 0) == 0);
	ck_assert(nbrt_set_const(k, "inf", INFINITY, 0) == 0);
	setenv("NBRT_DEVICE_CELL_SPLIT", "3", 1);
	setenv("NBRT_CELL_RANGES", "0", 1);
	ck_assert(device_run(k, 1, &c, n, n, cs.x, cs.x, cs.w, want) == 1);
	setenv("NBRT_TEST_FAIL", "block_room", 1);
	setenv("NBRT_VERBOSE", "1", 1);
	char *err = NULL;
	nbrt *small = nbrt_open(devs[OCL], &err);
	unsetenv("NBRT_VERBOSE");
	ck_assert_msg(small != NULL, "%s", err);
	nbrt_kernel *ks = load(small, "cut_all", src_all, NB_DOUBLE);
	ck_assert(nbrt_set_const(ks, "rc2", (double)cs.rc * cs.rc, 0) == 0);
	ck_assert(nbrt_set_const(ks, "inf", INFINITY, 0) == 0);
	for (int sp = 3; sp >= 2; sp--) {
		setenv("NBRT_DEVICE_CELL_SPLIT", sp == 3 ? "3" : "2", 1);
		setenv("NBRT_CELL_RANGES", "1", 1);
		Capture cap; /* its notes */
		static char notes[1 << 14];
		ck_assert(capture_start(&cap) == 0);
		int r = device_run(ks, 1, &c, n, n, cs.x, cs.x, cs.w, got);
		capture_end(&cap, notes, sizeof notes);
		ck_assert_msg(r == 1, "split %d: not on the device", sp);
		int per_cell = strstr(notes, "cells of 49 ranges: the per-cell "
		                      "ranges kernel (the block kernel holds 25)") !=
		               NULL;
		if (sp == 3) {
			ck_assert_msg(per_cell, "no per-cell kernel noted: %s", notes);
			ck_assert_msg(!memcmp(want, got, NOUT * n * sizeof *got),
			              "the per-cell kernel's bits differ");
		} else {
			ck_assert_msg(!strstr(notes, "the per-cell ranges kernel"),
			              "a half took the per-cell kernel: %s", notes);
			same_results(want, got, n, "a half, the block kernel of 25");
		}
	}
	unsetenv("NBRT_TEST_FAIL");
	unsetenv("NBRT_CELL_RANGES");
	unsetenv("NBRT_DEVICE_CELL_SPLIT");
	env_back("NBRT_DEVICE_CELLS", keep);
	nbrt_free(ks);
	nbrt_close(small);
	nbrt_free(k);
	free(want);
	free(got);
	free_case(&cs);
}
END_TEST

/* --- bad input ---------------------------------------------------------- */

static void refused(nbrt_kernel *k, size_t ni, size_t nj,
                    const nbrt_cutoff *c, const char *want)
{
	nbrt *rt = device(HOST);
	ck_assert_msg(nbrt_run_cutoff(k, ni, nj, c) == -1, "accepted: %s", want);
	ck_assert_msg(strstr(nbrt_error(rt), want) != NULL, "message \"%s\", "
	              "expected \"%s\"", nbrt_error(rt), want);
}

START_TEST(bad_input)
{
	nbrt *rt = device(HOST);
	nbrt_kernel *k = load(rt, "cut_all", src_all, NB_FLOAT);
	enum { N = 5 };
	float x[3][N], w[N], out[NOUT][N];
	for (int a = 0; a < 3; a++) {
		for (int e = 0; e < N; e++)
			x[a][e] = (float)e / 4;
		ck_assert(nbrt_bind(k, in_i[a], NBRT_FLOAT, x[a]) == 0);
		ck_assert(nbrt_bind(k, in_j[a], NBRT_FLOAT, x[a]) == 0);
	}
	for (int e = 0; e < N; e++)
		w[e] = 1;
	ck_assert(nbrt_bind(k, "wj", NBRT_FLOAT, w) == 0);
	ck_assert(nbrt_set_const(k, "rc2", 1, 0) == 0);
	ck_assert(nbrt_set_const(k, "inf", INFINITY, 0) == 0);
	for (int o = 0; o < NOUT; o++) {
		for (int e = 0; e < N; e++)
			out[o][e] = 42;
		ck_assert(nbrt_bind(k, outn[o], NBRT_FLOAT, out[o]) == 0);
	}
	nbrt_cutoff c;
	memset(&c, 0, sizeof c);
	c.cutoff = 1;
	c.dim = 3;
	for (int a = 0; a < 3; a++) {
		c.ipos[a] = in_i[a];
		c.jpos[a] = in_j[a];
		c.period[a] = 2;
	}
	const char *pre = "kernel cut_all: nbrt_run_cutoff: ";
	char want[512];
#define REFUSED(msg)                                                         \
	do {                                                                     \
		snprintf(want, sizeof want, "%s%s", pre, msg);                       \
		refused(k, N, N, &c, want);                                          \
	} while (0)
	refused(k, N, N, NULL, "kernel cut_all: nbrt_run_cutoff: no cutoff "
	        "(NULL)");
	c.cutoff = 0;
	REFUSED("cutoff 0: must be finite and > 0");
	c.cutoff = NAN;
	REFUSED("cutoff nan: must be finite and > 0");
	c.cutoff = 1.5;
	REFUSED("cutoff 1.5 is larger than half the period 2 of axis 0: at "
	        "most 1 is allowed");
	c.cutoff = 1;
	c.dim = 0;
	REFUSED("dim 0: must be 1, 2 or 3");
	c.dim = 3;
	c.split = -1;
	REFUSED("split -1, group 0: each must be 0 (the defaults) or positive");
	c.split = 0;
	c.group = -8;
	REFUSED("split 0, group -8: each must be 0 (the defaults) or positive");
	c.group = 0;
	c.period[2] = -2;
	REFUSED("period[2] = -2: must be finite and >= 0 (0: an open axis)");
	c.period[2] = 2;
	c.ipos[1] = NULL;
	REFUSED("ipos[1] is NULL: dim 3 needs a i position column there, one "
	        "of its LMEM (xi, yi, zi)");
	c.ipos[1] = "qq";
	REFUSED("ipos[1] = 'qq': the kernel has no variable of that name; its "
	        "LMEM are xi, yi, zi");
	c.ipos[1] = "xj";
	REFUSED("ipos[1] = 'xj' is BMEM; the i positions must be LMEM (xi, yi, "
	        "zi)");
	c.ipos[1] = "xi";
	REFUSED("ipos[0] and ipos[1] both name 'xi': each axis needs its own "
	        "column");
	c.ipos[1] = "yi";
	c.jpos[2] = "s";
	REFUSED("jpos[2] = 's' is RMEM; the j positions must be BMEM (xj, yj, "
	        "zj, wj)");
	c.jpos[2] = "wj"; /* a BMEM, allowed: its values are checked */
	w[3] = 2;
	REFUSED("wj[3] = 2 lies outside the periodic box [0, 2) of axis 2");
	w[3] = 1;
	c.jpos[2] = "zj";
	x[1][4] = NAN;
	REFUSED("yi[4] = nan: positions must be finite");
	x[1][4] = -0.5f;
	REFUSED("yi[4] = -0.5 lies outside the periodic box [0, 2) of axis 1");
	x[1][4] = 0.5f;
	ck_assert(nbrt_bind(k, "zj", NBRT_FLOAT, NULL) == 0);
	refused(k, N, N, &c, "kernel cut_all: BMEM 'zj' is bound to NULL");
	ck_assert(nbrt_bind(k, "zj", NBRT_FLOAT, x[2]) == 0);
	/* the environment's knobs, read once a call and checked (cutoff.c) */
	static const char *const knob[][3] = {
		{"NBRT_CELL_SPLIT", "2x", "an integer from 1 to 8"},
		{"NBRT_CELL_SPLIT", "9", "an integer from 1 to 8"},
		{"NBRT_CELL_GROUP", "0", "an integer from 1 to 2147483647"},
		{"NBRT_DEVICE_CELLS", "yes", "0 or 1"},
		{"NBRT_DEVICE_CELLS", "2", "0 or 1"},
		{"NBRT_DEVICE_CELL_SPLIT", "4", "an integer from 0 to 3"},
		{"NBRT_DEVICE_CELL_SPLIT", " 2", "an integer from 0 to 3"},
	};
	for (size_t q = 0; q < sizeof knob / sizeof *knob; q++) {
		const char *was = getenv(knob[q][0]);
		char *keep = was ? strdup(was) : NULL;
		setenv(knob[q][0], knob[q][1], 1);
		int r = nbrt_run_cutoff(k, N, N, &c);
		if (keep) /* before any check fails: the tests share a process */
			setenv(knob[q][0], keep, 1);
		else
			unsetenv(knob[q][0]);
		free(keep);
		snprintf(want, sizeof want, "%s='%s': it must be %s", knob[q][0],
		         knob[q][1], knob[q][2]);
		ck_assert_msg(r == -1, "accepted: %s", want);
		ck_assert_msg(strstr(nbrt_error(rt), want) != NULL, "message \"%s\", "
		              "expected \"%s\"", nbrt_error(rt), want);
	}
	/* nothing written by a refused run */
	for (int o = 0; o < NOUT; o++)
		for (int e = 0; e < N; e++)
			ck_assert(out[o][e] == 42);
	/* and the caller's bindings as they were: a run now works */
	ck_assert_msg(nbrt_run_cutoff(k, N, N, &c) == 0, "%s", nbrt_error(rt));
	/* points on the diagonal, sqrt(3)/4 apart: 0 meets 0, 1 and 2 */
	ck_assert_msg(out[C][0] == 3, "c[0] = %g", out[C][0]);
#undef REFUSED
	nbrt_free(k);
}
END_TEST

/* The same bits on 1, 2 and 3 threads, and call after call into the
 * buffers the kernel keeps (runtime/work.c): every output of src_all on
 * the host C path and on PoCL, in double, at 70001 points, where every
 * loop of the lists, copies and scatter goes parallel; an open box with
 * i and j the same points (j sorted as i), and a periodic one with
 * images. */
START_TEST(threads)
{
	int keep = omp_get_max_threads();
	for (int d = 0; d < 2; d++) {
		nbrt *rt = device(d == 0 ? HOST : OCL);
		if (!rt)
			continue;
		/* cut_all by name: the sweep's double builds, none of its own */
		nbrt_kernel *k = load(rt, "cut_all", src_all, NB_DOUBLE);
		for (int per = 0; per < 8; per += 7) {
			Case cs;
			make_case(&cs, 3, per, UNIFORM, 70001, 70001);
			/* an eighth of the neighbours: what is tested is the host's
			 * phases, not the kernel's pairs */
			cs.rc = (float)(cs.rc / 2);
			size_t n = cs.ni;
			for (int e = 0; e < 3; e++) {
				ck_assert(nbrt_bind(k, in_i[e], NBRT_DOUBLE, cs.x[e]) == 0);
				ck_assert(nbrt_bind(k, in_j[e], NBRT_DOUBLE,
				                    per ? cs.y[e] : cs.x[e]) == 0);
			}
			ck_assert(nbrt_bind(k, "wj", NBRT_DOUBLE, cs.w) == 0);
			ck_assert(nbrt_set_const(k, "rc2", (double)cs.rc * cs.rc, 0) == 0);
			ck_assert(nbrt_set_const(k, "inf", INFINITY, 0) == 0);
			double *out = malloc(NOUT * n * sizeof *out);
			double *first = malloc(NOUT * n * sizeof *first);
			for (int o = 0; o < NOUT; o++)
				ck_assert(nbrt_bind(k, outn[o], NBRT_DOUBLE, out + o * n) == 0);
			nbrt_cutoff c = params(&cs);
			c.split = 1; /* the default lists, and the same every call */
			c.group = 0;
			for (int th = 1; th <= 3; th++) {
				omp_set_num_threads(th);
				ck_assert_msg(nbrt_run_cutoff(k, n, n, &c) == 0, "%s: %s",
				              devs[d == 0 ? HOST : OCL], nbrt_error(rt));
				if (th == 1)
					memcpy(first, out, NOUT * n * sizeof *out);
				for (int o = 0; o < NOUT; o++)
					ck_assert_msg(!memcmp(out + o * n, first + o * n,
					                      n * sizeof *out),
					              "%s, period %d: %s differs on %d threads",
					              devs[d == 0 ? HOST : OCL], per, outn[o], th);
			}
			omp_set_num_threads(keep);
			ck_assert(nbrt_pairs(k) > 0);
			free(out);
			free(first);
			free_case(&cs);
		}
		nbrt_free(k);
	}
}
END_TEST

START_TEST(host) { sweep(HOST, (nb_prec)_i); }
END_TEST
START_TEST(opencl) { sweep(OCL, (nb_prec)_i); }
END_TEST
START_TEST(amdil) { sweep(IL, (nb_prec)_i); }
END_TEST

int main(void)
{
	seed_rng("test_cutoff", rng);
	/* OpenCL's cell lists of the cases it takes built on the device
	 * (cl/cells.c), unless the caller chose (NBRT_DEVICE_CELLS=0: the
	 * host's); device_cells compares the two */
	setenv("NBRT_DEVICE_CELLS", "1", 0);
	Suite *s = suite_create("cutoff");
	TCase *t = tcase_create("cutoff");
	tcase_set_timeout(t, 1200);
	tcase_add_loop_test(t, host, NB_FLOAT, NB_DD + 1);
	tcase_add_loop_test(t, opencl, NB_FLOAT, NB_DD + 1);
	tcase_add_loop_test(t, amdil, NB_FLOAT, NB_DD + 1);
	tcase_add_test(t, examples_host);
	tcase_add_test(t, examples_opencl);
	tcase_add_test(t, nbrt_arrays);
	tcase_add_test(t, device_cells);
	tcase_add_test(t, block_room);
	tcase_add_test(t, bad_input);
	tcase_add_test(t, threads);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int d = 0; d < NDEVS; d++)
		nbrt_close(dev[d]);
	return failed ? 1 : 0;
}
