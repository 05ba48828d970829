/* test_tree.c: the treecode (nbrt_run_tree) with dsl-examples/gravity.nbl
 * and far/gravity_quad.nbl against a direct sum in long double written
 * here, on fresh random Plummer and uniform-cube bodies: every cell opened
 * (theta 1e-9) gives the direct sum to rounding; theta 0.5 keeps the
 * relative force error's median and 99th percentile under stated bounds;
 * degenerate bodies (one, coincident, on a line, 1e-10 to 1e10) and sizes
 * 0, 1 and primes, i and j the same bodies or not, on the host C path and
 * OpenCL (PoCL here; every cell opened and the degenerate bodies with the
 * kernels as loaded, NBRT_AUTO_SPLIT=0, the rest as the runtime shapes
 * them); every bad input refused with the caller's arrays and
 * bindings untouched; the same bits whatever the number of threads, from
 * a kernel's later calls (its kept arrays) as from a fresh one, and from
 * the device's sort and scatter as from the host's; far/opt/gravity_oct.nbl's
 * error falling one order faster than the quadrupole's (octupole); each
 * level's cells of one side, the walk's table's (level_sides). */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"
#include "nbrt_impl.h" /* nbrt_octree_build: the cells' sides */

#include "seed.h"
#include "capture.h"
#include "unit.h"

static unsigned short rng[3];

static const char *const devs[] = {"host", "cpu"};
enum { NDEVS = 2 };
static nbrt *dev[NDEVS];
static int have[NDEVS];

/* gravity.nbl's columns */
enum { XI, YI, ZI, XJ, YJ, ZJ, MJ, AX, AY, AZ, POT, NCOL };
static const char *const coln[NCOL] = {"xi", "yi", "zi", "xj", "yj", "zj",
                                       "mj", "ax", "ay", "az", "pot"};
static const double eps2 = 1e-4;

typedef struct Bodies {
	size_t ni, nj;
	double *c[NCOL];  /* the columns, i's and j's, results */
	long double *ref; /* ax, ay, az, pot, and sum m/r^2, a body */
} Bodies;

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

enum { UNIFORM, PLUMMER, LINE, RANGE, COINCIDENT, CORE };

/* A point of the distribution into p[3]. */
static void draw(int kind, double p[3])
{
	if (kind == PLUMMER) {
		double r = 1 / sqrt(pow(urand(1e-6, 1), -2.0 / 3) - 1);
		double z = urand(-1, 1), ph = urand(0, 2 * M_PI);
		double s = sqrt(1 - z * z);
		p[0] = r * s * cos(ph);
		p[1] = r * s * sin(ph);
		p[2] = r * z;
	} else if (kind == LINE) {
		double u = urand(-1, 1);
		p[0] = u;
		p[1] = 2 * u + 0.5;
		p[2] = -u;
	} else if (kind == RANGE) {
		for (int d = 0; d < 3; d++)
			p[d] = (erand48(rng) < 0.5 ? -1 : 1) * pow(10, urand(-10, 10));
	} else if (kind == CORE) { /* 9 in 10 in a small cube at the centre */
		int in = erand48(rng) < 0.9;
		for (int d = 0; d < 3; d++)
			p[d] = in ? urand(0.49, 0.51) : urand(0, 1);
	} else if (kind == COINCIDENT) {
		p[0] = p[1] = p[2] = 0.25;
	} else
		for (int d = 0; d < 3; d++)
			p[d] = urand(-1, 1);
}

/* Leaves the direct sums out of make (sizes where they take minutes). */
static int no_ref;

/* ni i-bodies and nj j-bodies of a distribution; same: the i-bodies are
 * the j-bodies (ni == nj). */
static void make(Bodies *b, size_t ni, size_t nj, int kind, int same)
{
	b->ni = ni;
	b->nj = nj;
	for (int c = 0; c < NCOL; c++)
		b->c[c] = calloc((c >= XJ && c <= MJ ? nj : ni) + 1,
		                 sizeof(double));
	b->ref = calloc(5 * (ni + 1), sizeof *b->ref);
	for (size_t j = 0; j < nj; j++) {
		double p[3];
		draw(kind, p);
		for (int d = 0; d < 3; d++)
			b->c[XJ + d][j] = p[d];
		b->c[MJ][j] = urand(0.5, 1.5) / (double)nj;
	}
	for (size_t i = 0; i < ni; i++) {
		double p[3];
		draw(kind, p);
		for (int d = 0; d < 3; d++)
			b->c[XI + d][i] = same ? b->c[XJ + d][i] : p[d];
	}
	for (size_t i = 0; i < ni && !no_ref; i++) {
		long double *r = b->ref + 5 * i;
		for (size_t j = 0; j < nj; j++) {
			long double dx = (long double)b->c[XJ][j] - b->c[XI][i];
			long double dy = (long double)b->c[YJ][j] - b->c[YI][i];
			long double dz = (long double)b->c[ZJ][j] - b->c[ZI][i];
			long double r2 = eps2 + dx * dx + dy * dy + dz * dz;
			long double ri = 1 / sqrtl(r2), m = b->c[MJ][j];
			r[0] += m * ri * ri * ri * dx;
			r[1] += m * ri * ri * ri * dy;
			r[2] += m * ri * ri * ri * dz;
			r[3] -= m * ri;
			r[4] += m * ri * ri;
		}
	}
}

static void release(Bodies *b)
{
	for (int c = 0; c < NCOL; c++)
		free(b->c[c]);
	free(b->ref);
}

static nbrt_kernel *load(nbrt *rt, const char *path, nb_prec p)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	o.given |= NB_GIVEN_PRECISION;
	nbrt_kernel *k = nbrt_load(rt, path, &o);
	ck_assert_msg(k != NULL, "%s: %s", path, nbrt_error(rt));
	return k;
}

static void bind(nbrt_kernel *k, Bodies *b)
{
	for (int c = 0; c < NCOL; c++)
		ck_assert(nbrt_bind(k, coln[c], NBRT_DOUBLE, b->c[c]) == 0);
	ck_assert(nbrt_set_const(k, "eps2", eps2, 0) == 0);
}

static size_t bucket = 16, group = 64;

static nbrt_tree params(double theta)
{
	nbrt_tree t = {theta, bucket, group, {"xi", "yi", "zi"},
	               {"xj", "yj", "zj"}, "mj", NULL, {NULL, NULL, NULL}};
	return t;
}

/* Relative force errors a body, sorted into e[ni]; the largest potential
 * error relative to |pot| into *perr. */
static void errors(const Bodies *b, double *e, double *perr)
{
	*perr = 0;
	for (size_t i = 0; i < b->ni; i++) {
		const long double *r = b->ref + 5 * i;
		long double d2 = 0, a2 = 0;
		for (int d = 0; d < 3; d++) {
			long double x = b->c[AX + d][i] - r[d];
			d2 += x * x;
			a2 += r[d] * r[d];
		}
		/* a force summing to ~0 measures against its terms' size */
		long double scale = fmaxl(sqrtl(a2), 1e-3L * r[4]);
		e[i] = scale > 0 ? (double)(sqrtl(d2) / scale) :
		       d2 == 0 ? 0 : INFINITY; /* nothing to feel: exactly 0 */
		double pe = (double)(fabsl(b->c[POT][i] - r[3]) / fabsl(r[3]));
		if (!b->nj)
			pe = b->c[POT][i] == 0 ? 0 : INFINITY;
		if (!(pe <= *perr))
			*perr = isnan(pe) ? INFINITY : pe;
	}
	for (size_t x = 1; x < b->ni; x++)
		for (size_t y = x; y > 0 && !(e[y - 1] <= e[y]); y--) {
			double t = e[y];
			e[y] = e[y - 1];
			e[y - 1] = t;
		}
}

/* Runs the tree and returns the median and the 99th percentile of the
 * force errors and the largest potential error. */
static struct nbrt_tree_stats st;
static const char *const quad_nbl = ROOT "/far/gravity_quad.nbl";
static const char *const oct_nbl = ROOT "/far/opt/gravity_oct.nbl";
static const char *far_nbl = quad_nbl; /* run's far kernel */

static void run(nbrt *rt, nb_prec p, Bodies *b, double theta, double q[3])
{
	nbrt_kernel *k = load(rt, ROOT "/dsl-examples/gravity.nbl", p);
	nbrt_kernel *far = load(rt, far_nbl, p);
	bind(k, b);
	for (int c = AX; c <= POT; c++)
		for (size_t i = 0; i < b->ni; i++)
			b->c[c][i] = NAN;
	nbrt_tree t = params(theta);
	t.stats = &st;
	ck_assert_msg(nbrt_run_tree(k, far, b->ni, b->nj, &t) == 0, "%s",
	              nbrt_error(rt));
	double *e = malloc((b->ni + 1) * sizeof *e);
	errors(b, e, &q[2]);
	q[0] = b->ni ? e[b->ni / 2] : 0;
	q[1] = b->ni ? e[(size_t)(0.99 * (double)(b->ni - 1))] : 0;
	if (b->ni)
		ck_assert_msg(!isnan(e[b->ni - 1]), "a NaN force, %zu x %zu, "
		              "theta %g", b->ni, b->nj, theta);
	free(e);
	nbrt_free(far);
	nbrt_free(k);
}

/* every_cell_opened and degenerate take, on OpenCL (device d = 1), the
 * kernels as loaded (NBRT_AUTO_SPLIT=0, read at each load): tasks of a
 * work group's i-elements, j-split 1.  The small groups' shapes, whose
 * j-split follows the cells' density (runtime/ranges.c), were a PoCL
 * program each there: splits 16, 4 and 2 of gravity.nbl, 2 or 4 of
 * gravity_quad.nbl by the draw, of a cold run's 18 builds.  Split 1 of
 * the small shape stays in theta_half and octupole on PoCL; the larger
 * splits are test_cutoff's in double and dd (every reduction) and
 * autosplit.sh's (Lennard-Jones's 16; a tree's 4 on the GPU row).
 * as_loaded(d) sets it for device d; env_back puts back what
 * env_keep("NBRT_AUTO_SPLIT") kept. */
static void as_loaded(int d)
{
	if (d == 1)
		ck_assert(setenv("NBRT_AUTO_SPLIT", "0", 1) == 0);
}

/* theta 1e-9 opens every cell: the direct sum to rounding, for sizes 0,
 * 1 and primes, i and j the same or not, every distribution. */
START_TEST(every_cell_opened)
{
	static const size_t n[][2] = {{0, 0}, {1, 1}, {0, 5}, {7, 0}, {2, 2},
	                              {97, 97}, {13, 211}, {1009, 1009},
	                              {401, 97}};
	char *keep = env_keep("NBRT_AUTO_SPLIT");
	for (int d = 0; d < NDEVS; d++) {
		if (!have[d])
			continue;
		as_loaded(d);
		for (size_t s = 0; s < sizeof n / sizeof *n; s++)
			for (int kind = UNIFORM; kind <= COINCIDENT; kind++) {
				Bodies b;
				int same = n[s][0] == n[s][1] && s % 2;
				make(&b, n[s][0], n[s][1], kind, same);
				double q[3];
				run(dev[d], NB_DOUBLE, &b, 1e-9, q);
				ck_assert_msg(q[1] < 1e-12 && (b.ni == 0 || q[2] < 1e-12),
				              "%s: %zu x %zu, distribution %d: force "
				              "error %g (99%%), potential %g", devs[d], b.ni,
				              b.nj, kind, q[1], q[2]);
				ck_assert(st.far_pairs == 0);
				release(&b);
			}
	}
	env_back("NBRT_AUTO_SPLIT", keep);
}
END_TEST

/* Bounds at theta 0.5, bucket 16, group 64, N = 3001, about three times
 * the largest of seeds 1 to 3 on host and PoCL (docs/treecode.md: median
 * 1.7e-4, 99th percentile 1.1e-3, potential 3.2e-4); bodies on a line,
 * whose cells are long and thin, reached 1.1e-2 at the 99th percentile
 * and 9.7e-4 in the potential. */
static const double bound_med = 5e-4, bound_99 = 3.5e-3, bound_pot = 1e-3;
static const double line_99 = 5e-2, line_pot = 3e-3;

START_TEST(theta_half)
{
	/* one draw of each distribution, and its direct sum, for the runs on
	 * both devices in both precisions: a draw a run was 72 million pairs
	 * in long double, now 18 */
	for (int kind = UNIFORM; kind <= PLUMMER; kind++) {
		Bodies b;
		make(&b, 3001, 3001, kind, 1);
		for (int d = 0; d < NDEVS; d++) {
			if (!have[d])
				continue;
			for (int p = 0; p < 2; p++) {
				double q[3];
				run(dev[d], p ? NB_FLOAT : NB_DOUBLE, &b, 0.5, q);
				printf("test_tree: %s %s %s N = 3001 theta 0.5: force error "
				       "median %.3g, 99%% %.3g; potential %.3g at most\n",
				       devs[d], p ? "float" : "double",
				       kind ? "Plummer" : "uniform", q[0], q[1], q[2]);
				ck_assert_msg(q[0] < bound_med && q[1] < bound_99 &&
				              q[2] < bound_pot, "error over the bounds");
				/* and it does approximate: cells taken whole, fewer pairs */
				ck_assert_msg(st.far_pairs > 0 &&
				              st.near_pairs + st.far_pairs < 3001.0 * 3001,
				              "near %g + far %g pairs", st.near_pairs,
				              st.far_pairs);
			}
		}
		release(&b);
	}
}
END_TEST

/* The largest relative force error, over 64 bodies at distance dist in
 * random directions of the positive octant, of one cell (200 bodies in
 * the unit cube about 0, eps2 0) seen through the far kernel far_path,
 * against the sum in long double.  The tree's cube spans i and j, its
 * corner cells from (-0.5, -0.5, -0.5) hold all the j-bodies from some
 * level on, and with groups of one body and theta 0.9 one of them is
 * each body's far list: the moments of the same bodies about the same
 * centre whatever the distance. */
static double cell_error(nbrt *rt, const char *far_path, double dist)
{
	enum { NI = 64, NJ = 200 };
	Bodies b;
	no_ref = 1;
	make(&b, NI, NJ, UNIFORM, 0);
	no_ref = 0;
	for (size_t j = 0; j < NJ; j++)
		for (int d = 0; d < 3; d++)
			b.c[XJ + d][j] = urand(-0.5, 0.5);
	for (size_t i = 0; i < NI; i++) {
		double u[3], r;
		for (int d = 0; d < 3; d++)
			u[d] = urand(0.2, 1);
		r = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
		for (int d = 0; d < 3; d++)
			b.c[XI + d][i] = dist * u[d] / r;
	}
	nbrt_kernel *k = load(rt, ROOT "/dsl-examples/gravity.nbl", NB_DOUBLE);
	nbrt_kernel *far = load(rt, far_path, NB_DOUBLE);
	bind(k, &b);
	ck_assert(nbrt_set_const(k, "eps2", 0, 0) == 0);
	nbrt_tree t = params(0.9);
	t.group = 1;
	t.stats = &st;
	ck_assert_msg(nbrt_run_tree(k, far, NI, NJ, &t) == 0, "%s",
	              nbrt_error(rt));
	ck_assert_msg(st.near_pairs == 0, "%g near pairs", st.near_pairs);
	double worst = 0;
	for (size_t i = 0; i < NI; i++) {
		long double a[3] = {0, 0, 0}, e2 = 0, a2 = 0;
		for (size_t j = 0; j < NJ; j++) {
			long double x[3], r2 = 0;
			for (int d = 0; d < 3; d++) {
				x[d] = (long double)b.c[XJ + d][j] - b.c[XI + d][i];
				r2 += x[d] * x[d];
			}
			long double ri = 1 / sqrtl(r2);
			for (int d = 0; d < 3; d++)
				a[d] += b.c[MJ][j] * ri * ri * ri * x[d];
		}
		for (int d = 0; d < 3; d++) {
			e2 += (b.c[AX + d][i] - a[d]) * (b.c[AX + d][i] - a[d]);
			a2 += a[d] * a[d];
		}
		worst = fmax(worst, (double)sqrtl(e2 / a2));
	}
	nbrt_free(far);
	nbrt_free(k);
	release(&b);
	return worst;
}

/* far/opt/gravity_oct.nbl: one cell's error falls as (size/distance)^4, the
 * quadrupole's as ^3 (slopes over distances 8 to 64 within 0.5 of
 * theirs); every cell opened gives the direct sum to rounding (1e-12,
 * as every_cell_opened); at theta 0.5 its error is below the
 * quadrupole's on the same bodies (median and 99th percentile, double,
 * host and PoCL). */
START_TEST(octupole)
{
	static const double dist[] = {8, 16, 32, 64};
	double eq[4], eo[4];
	unsigned short from[3]; /* the same bodies at every distance */
	memcpy(from, rng, sizeof rng);
	for (int s = 0; s < 4; s++) {
		memcpy(rng, from, sizeof rng);
		eq[s] = cell_error(dev[0], quad_nbl, dist[s]);
		memcpy(rng, from, sizeof rng);
		eo[s] = cell_error(dev[0], oct_nbl, dist[s]);
		printf("test_tree: one cell at distance %g: force error %.3g "
		       "(quadrupole), %.3g (octupole)\n", dist[s], eq[s], eo[s]);
		ck_assert_msg(eo[s] < eq[s], "octupole over quadrupole");
	}
	for (int s = 0; s + 1 < 4; s++) {
		double sq = log2(eq[s] / eq[s + 1]), so = log2(eo[s] / eo[s + 1]);
		ck_assert_msg(fabs(sq - 3) < 0.5 && fabs(so - 4) < 0.5,
		              "slopes %g (quadrupole), %g (octupole) from distance "
		              "%g", sq, so, dist[s]);
	}
	/* each draw and its direct sum for both devices */
	for (int kind = UNIFORM; kind <= PLUMMER; kind++) {
		Bodies b, c;
		make(&b, 401, 1009, kind, 0);
		make(&c, 3001, 3001, kind, 1);
		for (int d = 0; d < NDEVS; d++) {
			if (!have[d])
				continue;
			double q[3], o[3];
			far_nbl = oct_nbl;
			run(dev[d], NB_DOUBLE, &b, 1e-9, o);
			far_nbl = quad_nbl;
			ck_assert_msg(o[1] < 1e-12 && o[2] < 1e-12 &&
			              st.far_pairs == 0, "%s: every cell opened: "
			              "error %g", devs[d], o[1]);
			run(dev[d], NB_DOUBLE, &c, 0.5, q);
			far_nbl = oct_nbl;
			run(dev[d], NB_DOUBLE, &c, 0.5, o);
			far_nbl = quad_nbl;
			printf("test_tree: %s %s N = 3001 theta 0.5: force error "
			       "median %.3g, 99%% %.3g (quadrupole); %.3g, %.3g "
			       "(octupole)\n", devs[d], kind ? "Plummer" : "uniform",
			       q[0], q[1], o[0], o[1]);
			ck_assert_msg(o[0] < q[0] && o[1] < q[1] && o[2] < q[2],
			              "octupole not below the quadrupole");
		}
		release(&b);
		release(&c);
	}
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a,
	                   y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

/* The walk reads a cell's side^2 / theta^2 from a table by level
 * (tree.c's open_table: the root's side halved level times, squared,
 * over theta^2), which is the cell's own only where every cell of a
 * level has that side to the bit: checked on the cells of the octree's
 * build (its pieces in parallel, from 16384 bodies) over fresh random
 * keys with a run of equal keys (a leaf at the deepest level) and a tight
 * cluster, for cubes whose sides square to subnormals, underflow to 0 and
 * overflow. */
START_TEST(level_sides)
{
	enum { N = 20000 };
	unsigned long long *key = malloc(N * sizeof *key);
	double *x[3], *m = malloc(N * sizeof *m);
	for (int d = 0; d < 3; d++)
		x[d] = malloc(N * sizeof *x[d]);
	ck_assert(key && m && x[0] && x[1] && x[2]);
	unsigned long long top = ~0ULL >> 1, at = rand64(rng) & top;
	for (size_t e = 0; e < N; e++) {
		key[e] = e < 300 ? at : e < 3000 ? (at ^ (rand64(rng) & 0xfffff)) :
		         rand64(rng) & top;
		m[e] = urand(0.5, 1);
		for (int d = 0; d < 3; d++)
			x[d][e] = urand(-1, 1);
	}
	qsort(key, N, sizeof *key, cmp_u64);
	static const double sides[] = {2.0, 0.3, 1e-160, 5e-320, 1e300};
	for (size_t q = 0; q < sizeof sides / sizeof *sides; q++) {
		nbrt_octree t;
		memset(&t, 0, sizeof t);
		t.wcslot = 1;
		ck_assert_msg(nbrt_octree_build(dev[0], &t, key, N, 16, sides[q], x,
		                                m, NULL, NULL, 0) == 0,
		              "%s", nbrt_error(dev[0]));
		double want[NBRT_TREE_DEPTH + 1], s = sides[q];
		for (int l = 0; l <= NBRT_TREE_DEPTH; l++, s *= 0.5)
			want[l] = s;
		int deepest = 0;
		for (size_t c = 0; c < t.ncell; c++) {
			const nbrt_cell *p = &t.cell[c];
			assert_each(p->level >= 0 && p->level <= NBRT_TREE_DEPTH,
			            "cell %zu at level %d", c, p->level);
			assert_each(p->side == want[p->level], "side %g: cell %zu at "
			            "level %d has side %a, not %a", sides[q], c,
			            p->level, p->side, want[p->level]);
			deepest = p->level > deepest ? p->level : deepest;
		}
		ck_assert_int_eq(deepest, NBRT_TREE_DEPTH);
		nbrt_octree_free(&t);
	}
	free(key);
	free(m);
	for (int d = 0; d < 3; d++)
		free(x[d]);
}
END_TEST

/* A dense core in a sparse halo: a halo group whose box touches the core
 * meets nearly every body, and its one work group then outlasts the rest
 * of the near run (docs/treecode.md); such groups are split into octants
 * until their near lists are within max(Nj / 64, 16 * max(group, 256))
 * bodies, at most group / 4 + 8 walks a group.  The forces stay within
 * bounds.  The bound is at least 4096 bodies, which a test of seconds
 * does not reach, so it is set to 256 through $NBRT_TREE_SPLIT: the
 * largest unsplit group here meets 447 bodies. */
START_TEST(split_groups)
{
	size_t n = 4001;
	double budget = 16.0 * 256;
	setenv("NBRT_TREE_SPLIT", "256", 1);
	bucket = 4;
	group = 16;
	Bodies b;
	make(&b, n, n, CORE, 1);
	double q[3];
	run(dev[0], NB_DOUBLE, &b, 0.5, q);
	printf("test_tree: core and halo, N = %zu, groups of 16: %zu groups, "
	       "the most near pairs of one %g (budget %g), errors %.3g %.3g %.3g\n",
	       n, st.groups, st.max_group_pairs, budget, q[0], q[1], q[2]);
	unsetenv("NBRT_TREE_SPLIT");
	/* unsplit, such a group held 1.7 times the budget (7152 pairs) */
	ck_assert_msg(st.max_group_pairs <= 1.25 * budget, "a group of %g near "
	              "pairs, over the budget %g", st.max_group_pairs, budget);
	/* the core's forces nearly cancel (softening 0.01, a core 0.02
	 * wide), so its relative errors are larger than a sphere's (1e-2
	 * median, 3e-3 in the potential, with or without the split) */
	ck_assert_msg(q[0] < 3e-2 && q[1] < 6e-2 && q[2] < 1e-2,
	              "error over the bounds");
	bucket = 16;
	group = 64;
	release(&b);
}
END_TEST

/* The far field streamed (gathered per group, in batches: here of at
 * most 500 expansions, so many) against the cells' ranges read in
 * place, on the host C path, whose default those are: the same pairs,
 * and the same forces but for the order of the far sums. */
START_TEST(far_stream)
{
	Bodies b;
	make(&b, 3001, 3001, PLUMMER, 1);
	double q[3], *a[4];
	for (int c = 0; c < 4; c++)
		a[c] = malloc(b.ni * sizeof **a);
	ck_assert(setenv("NBRT_TREE_FAR", "cells", 1) == 0);
	run(dev[0], NB_DOUBLE, &b, 0.5, q);
	double fp = st.far_pairs, np = st.near_pairs;
	for (int c = 0; c < 4; c++)
		memcpy(a[c], b.c[AX + c], b.ni * sizeof **a);
	ck_assert(setenv("NBRT_TREE_FAR", "stream,500", 1) == 0);
	run(dev[0], NB_DOUBLE, &b, 0.5, q);
	ck_assert(unsetenv("NBRT_TREE_FAR") == 0);
	ck_assert_msg(st.far_pairs == fp && st.near_pairs == np && fp > 0,
	              "far pairs %g and %g, near %g and %g", fp, st.far_pairs,
	              np, st.near_pairs);
	/* against the force's size: a component near 0 is a cancellation,
	 * which another order of the sum moves by more than its rounding */
	for (int c = 0; c < 4; c++)
		for (size_t i = 0; i < b.ni; i++)
			assert_each(fabs(b.c[AX + c][i] - a[c][i]) <= 1e-10 *
			            (c == 3 ? fabs(a[3][i]) : fabs(a[0][i]) +
			             fabs(a[1][i]) + fabs(a[2][i])),
			            "column %d, body %zu: %.17g streamed, %.17g in "
			            "place", c, i, b.c[AX + c][i], a[c][i]);
	for (int c = 0; c < 4; c++)
		free(a[c]);
	release(&b);
}
END_TEST

/* The same bits on 1, 2 and 3 threads, at sizes where the runtime's
 * loops go parallel (65536 bodies: keys, sort, gathers; the octree one
 * piece on 1 thread, pieces of at most an eighth and a twelfth of the
 * bodies on 2 and 3; 256 groups: the walk, whose lists join in group
 * order), i and j the same bodies or not, Plummer, on the host C path. */
START_TEST(threads)
{
	int keep = omp_get_max_threads();
	no_ref = 1;
	for (int same = 0; same < 2; same++) {
		Bodies b;
		size_t ni = 70001, nj = same ? 70001 : 66001;
		make(&b, ni, nj, PLUMMER, same);
		nbrt_kernel *k = load(dev[0], ROOT "/dsl-examples/gravity.nbl",
		                      NB_DOUBLE);
		nbrt_kernel *far = load(dev[0], ROOT "/far/gravity_quad.nbl",
		                        NB_DOUBLE);
		bind(k, &b);
		double *first = malloc(4 * ni * sizeof *first), pairs = 0;
		for (int th = 1; th <= 3; th++) {
			omp_set_num_threads(th);
			nbrt_tree t = params(0.5);
			t.group = 256;
			t.stats = &st;
			ck_assert_msg(nbrt_run_tree(k, far, ni, nj, &t) == 0, "%s",
			              nbrt_error(dev[0]));
			ck_assert_msg(st.groups >= 256, "%zu groups", st.groups);
			for (int c = 0; c < 4; c++) {
				double *r = b.c[AX + c], *f = first + c * ni;
				if (th == 1)
					memcpy(f, r, ni * sizeof *f);
				for (size_t i = 0; th > 1 && i < ni; i++)
					assert_each(!memcmp(&f[i], &r[i], sizeof *f),
					            "same %d, column %d, body %zu: %a on one "
					            "thread, %a on %d", same, c, i, f[i], r[i],
					            th);
			}
			if (th == 1)
				pairs = st.near_pairs + st.far_pairs;
			ck_assert(st.near_pairs + st.far_pairs == pairs);
		}
		free(first);
		nbrt_free(far);
		nbrt_free(k);
		release(&b);
	}
	no_ref = 0;
	omp_set_num_threads(keep);
}
END_TEST

/* Degenerate bodies at theta 0.5: finite, and within the bounds (a line
 * and coincident bodies, where the depth limit leaves big buckets, and
 * positions over 20 decades). */
START_TEST(degenerate)
{
	char *keep = env_keep("NBRT_AUTO_SPLIT");
	for (int d = 0; d < NDEVS; d++) {
		if (!have[d])
			continue;
		as_loaded(d);
		for (int kind = LINE; kind <= COINCIDENT; kind++) {
			Bodies b;
			make(&b, 600, 600, kind, 1);
			double q[3];
			run(dev[d], NB_DOUBLE, &b, 0.5, q);
			printf("test_tree: %s distribution %d, N = 600: force error "
			       "median %.3g, 99%% %.3g; potential %.3g\n", devs[d],
			       kind, q[0], q[1], q[2]);
			int line = kind == LINE;
			ck_assert_msg(q[0] < bound_med &&
			              q[1] < (line ? line_99 : bound_99) &&
			              q[2] < (line ? line_pot : bound_pot),
			              "distribution %d over the bounds", kind);
			release(&b);
		}
		/* one body alone; two coincident */
		for (size_t n = 1; n <= 2; n++) {
			Bodies b;
			make(&b, n, n, COINCIDENT, 1);
			double q[3];
			run(dev[d], NB_DOUBLE, &b, 0.5, q);
			ck_assert_msg(q[1] < 1e-12 && q[2] < 1e-12, "%zu bodies", n);
			release(&b);
		}
	}
	env_back("NBRT_AUTO_SPLIT", keep);
}
END_TEST

/* Columns in nbrt_arrays (on PoCL, in the device's memory: read and
 * written back through doubles): the direct sum at theta 1e-9, and an
 * array shorter than the bodies refused. */
START_TEST(device_arrays)
{
	nbrt *rt = dev[have[1] ? 1 : 0];
	Bodies b;
	make(&b, 300, 300, PLUMMER, 1);
	nbrt_kernel *k = load(rt, ROOT "/dsl-examples/gravity.nbl", NB_DOUBLE);
	nbrt_kernel *far = load(rt, ROOT "/far/gravity_quad.nbl", NB_DOUBLE);
	nbrt_array *a[NCOL];
	for (int c = 0; c < NCOL; c++) {
		a[c] = nbrt_array_new(rt, 300);
		ck_assert_msg(a[c] != NULL, "%s", nbrt_error(rt));
		ck_assert(nbrt_array_write(a[c], b.c[c]) == 0);
		ck_assert(nbrt_bind_array(k, coln[c], a[c]) == 0);
	}
	ck_assert(nbrt_set_const(k, "eps2", eps2, 0) == 0);
	nbrt_tree t = params(1e-9);
	ck_assert_msg(nbrt_run_tree(k, far, 300, 300, &t) == 0, "%s",
	              nbrt_error(rt));
	for (int c = AX; c <= POT; c++)
		ck_assert(nbrt_array_read(a[c], b.c[c]) == 0);
	double *e = malloc(300 * sizeof *e), perr;
	errors(&b, e, &perr);
	ck_assert_msg(e[299] < 1e-12 && perr < 1e-12, "arrays: %g, %g", e[299],
	              perr);
	free(e);
	ck_assert(nbrt_run_tree(k, far, 301, 300, &t) == -1);
	ck_assert_msg(strstr(nbrt_error(rt), "holds 300 values, fewer than"),
	              "%s", nbrt_error(rt));
	nbrt_free(far);
	nbrt_free(k);
	for (int c = 0; c < NCOL; c++)
		nbrt_array_free(a[c]);
	release(&b);
}
END_TEST

/* A refusal: -1, the message names `want`, no result written. */
static void refused(nbrt *rt, nbrt_kernel *k, nbrt_kernel *far, Bodies *b,
                    const nbrt_tree *t, const char *want)
{
	for (size_t i = 0; i < b->ni; i++)
		b->c[AX][i] = 12345;
	ck_assert(nbrt_run_tree(k, far, b->ni, b->nj, t) == -1);
	const char *msg = nbrt_error(rt);
	ck_assert_msg(strstr(msg, want), "message \"%s\" lacks \"%s\"", msg,
	              want);
	for (size_t i = 0; i < b->ni; i++)
		assert_each(b->c[AX][i] == 12345, "body %zu written", i);
}

START_TEST(bad_input)
{
	nbrt *rt = dev[0];
	Bodies b;
	make(&b, 50, 50, UNIFORM, 1);
	nbrt_kernel *k = load(rt, ROOT "/dsl-examples/gravity.nbl", NB_DOUBLE);
	nbrt_kernel *far = load(rt, ROOT "/far/gravity_quad.nbl", NB_DOUBLE);
	bind(k, &b);
	nbrt_tree t = params(0);
	refused(rt, k, far, &b, &t, "theta = 0");
	t.theta = -1;
	refused(rt, k, far, &b, &t, "theta = -1");
	t.theta = NAN;
	refused(rt, k, far, &b, &t, "theta = nan");
	t.theta = INFINITY;
	refused(rt, k, far, &b, &t, "theta = inf");
	t = params(0.5);
	t.bucket = 0;
	refused(rt, k, far, &b, &t, "bucket size of 0");
	t = params(0.5);
	t.group = 0;
	refused(rt, k, far, &b, &t, "group size of 0");
	/* a group left to $NBRT_TREE_GROUP, read by msg.c's checked reader */
	ck_assert_int_eq(setenv("NBRT_TREE_GROUP", "12x", 1), 0);
	refused(rt, k, far, &b, &t, "NBRT_TREE_GROUP='12x': it must be an "
	        "integer from 1");
	ck_assert_int_eq(setenv("NBRT_TREE_GROUP", "0", 1), 0);
	refused(rt, k, far, &b, &t, "NBRT_TREE_GROUP='0'");
	ck_assert_int_eq(unsetenv("NBRT_TREE_GROUP"), 0);
	t = params(0.5);
	ck_assert_int_eq(setenv("NBRT_TREE_SPLIT", "0", 1), 0);
	refused(rt, k, far, &b, &t, "NBRT_TREE_SPLIT='0'");
	ck_assert_int_eq(unsetenv("NBRT_TREE_SPLIT"), 0);
	ck_assert_int_eq(setenv("NBRT_TREE_PIECES", "0", 1), 0);
	refused(rt, k, far, &b, &t, "NBRT_TREE_PIECES='0'");
	ck_assert_int_eq(unsetenv("NBRT_TREE_PIECES"), 0);
	t.ipos[1] = "nope";
	refused(rt, k, far, &b, &t, "'nope' is no LMEM");
	/* one column on two axes: the tree was built from it, silently */
	t = params(0.5);
	t.jpos[2] = "xj";
	refused(rt, k, far, &b, &t, "jpos[0] and jpos[2] both name 'xj'");
	t = params(0.5);
	t.ipos[1] = "zi";
	refused(rt, k, far, &b, &t, "ipos[1] and ipos[2] both name 'zi'");
	t = params(0.5);
	t.jmass = "ax";
	refused(rt, k, far, &b, &t, "'ax' is no BMEM");
	t = params(0.5);
	refused(rt, k, NULL, &b, &t, "no far kernel");
	/* results over inputs, as nbrt_run refuses them: the potentials
	 * were written over the masses */
	double m3 = b.c[MJ][3];
	ck_assert(nbrt_bind(k, "pot", NBRT_DOUBLE, b.c[MJ]) == 0);
	refused(rt, k, far, &b, &t, "RMEM 'pot' is bound over the array of "
	        "BMEM 'mj'");
	ck_assert(b.c[MJ][3] == m3);
	ck_assert(nbrt_bind(k, "pot", NBRT_DOUBLE, b.c[POT]) == 0);
	double keep = b.c[YJ][17];
	b.c[YJ][17] = NAN;
	refused(rt, k, far, &b, &t, "position 'yj' at 17 is nan");
	b.c[YJ][17] = keep;
	keep = b.c[MJ][3];
	b.c[MJ][3] = INFINITY;
	refused(rt, k, far, &b, &t, "mass 'mj' at 3 is inf");
	b.c[MJ][3] = keep;
	/* far kernels that do not fit gravity.nbl */
	static const struct {
		const char *src, *want;
	} bad[] = {
	    {"LMEM xi, yi, zi; BMEM cx, cy, cz, cm; RMEM ax, ay, az;\n"
	     "ax += cm*(cx - xi); ay += cm*(cy - yi); az += cm*(cz - zi);\n",
	     "RMEM 'pot' has no far field"},
	    {"LMEM xi; BMEM cx, foo; RMEM ax, ay, az, pot;\n"
	     "ax += foo*(cx - xi); ay += 0; az += 0; pot += 0;\n",
	     "not the columns of one kind"},
	    {"LMEM xi, wi; BMEM cx, cm; RMEM ax, ay, az, pot;\n"
	     "ax += cm*(cx - xi - wi); ay += 0; az += 0; pot += 0;\n",
	     "LMEM 'wi' is no LMEM of kernel"},
	    {"LMEM xi; BMEM cx, cm; RMEM ax, ay, az, pot;\n"
	     "ax += cm*(cx - xi); ay += 0; az += 0; pot min= cm;\n",
	     "must be a sum"},
	    {"LMEM xi; BMEM cx, cm; RMEM ax, ay, az, pot; CONST g;\n"
	     "ax += g*cm*(cx - xi); ay += 0; az += 0; pot += 0;\n",
	     "CONST 'g' is no CONST of kernel"},
	};
	for (size_t q = 0; q < sizeof bad / sizeof *bad; q++) {
		nbrt_kernel *f = nbrt_load_source(rt, "far-test", bad[q].src,
		                                  strlen(bad[q].src), NULL);
		ck_assert_msg(f != NULL, "%s", nbrt_error(rt));
		refused(rt, k, f, &b, &t, bad[q].want);
		nbrt_free(f);
	}
	/* the bindings are the caller's after all that, and after a run */
	ck_assert(nbrt_run_tree(k, far, b.ni, b.nj, &t) == 0);
	ck_assert(nbrt_run(k, b.ni, b.nj) == 0);
	double *e = malloc(b.ni * sizeof *e), perr;
	errors(&b, e, &perr);
	ck_assert_msg(e[b.ni - 1] < 1e-12, "direct run after the tree: %g",
	              e[b.ni - 1]);
	free(e);
	nbrt_free(far);
	nbrt_free(k);
	release(&b);
}
END_TEST

/* b's four results kept in r (first), or the same bits as r asked of
 * them (call q; what: the two runs' names). */
static void same_bits(const Bodies *b, double *r, int first, size_t q,
                      const char *what)
{
	for (int v = 0; v < 4; v++)
		for (size_t i = 0; i < b->ni; i++) {
			double *f = r + v * b->ni + i;
			if (first)
				*f = b->c[AX + v][i];
			else
				assert_each(!memcmp(f, &b->c[AX + v][i], sizeof *f),
				            "call %zu, column %d, body %zu: %a then %a (%s)",
				            q, v, i, *f, b->c[AX + v][i], what);
		}
}

/* A kernel keeps the tree's arrays from call to call (k->treework): calls
 * of one kernel on sizes up and down, i and j the same or not, give the
 * bits of a fresh kernel's one call. */
START_TEST(kept)
{
	static const struct {
		size_t ni, nj;
		int kind, same;
	} c[] = {{4001, 4001, PLUMMER, 1}, {0, 0, UNIFORM, 1},
	         {1, 1, COINCIDENT, 1}, {997, 2003, UNIFORM, 0},
	         {3001, 3001, CORE, 1}, {5003, 811, PLUMMER, 0}};
	no_ref = 1;
	nbrt_kernel *k = load(dev[0], ROOT "/dsl-examples/gravity.nbl",
	                      NB_DOUBLE);
	nbrt_kernel *far = load(dev[0], ROOT "/far/gravity_quad.nbl", NB_DOUBLE);
	for (size_t q = 0; q < sizeof c / sizeof *c; q++) {
		Bodies b;
		make(&b, c[q].ni, c[q].nj, c[q].kind, c[q].same);
		nbrt_tree t = params(0.5);
		double *fresh = malloc((4 * c[q].ni + 1) * sizeof *fresh);
		for (int kept = 0; kept < 2; kept++) {
			nbrt_kernel *kk = kept ? k :
			    load(dev[0], ROOT "/dsl-examples/gravity.nbl", NB_DOUBLE);
			nbrt_kernel *ff = kept ? far :
			    load(dev[0], ROOT "/far/gravity_quad.nbl", NB_DOUBLE);
			bind(kk, &b);
			ck_assert_msg(nbrt_run_tree(kk, ff, c[q].ni, c[q].nj, &t) == 0,
			              "%s", nbrt_error(dev[0]));
			same_bits(&b, fresh, !kept, q, "fresh, kept");
			if (!kept) {
				nbrt_free(ff);
				nbrt_free(kk);
			}
		}
		free(fresh);
		release(&b);
	}
	nbrt_free(far);
	nbrt_free(k);
	no_ref = 0;
}
END_TEST

/* The sort on the device (the back end's tree_sort and tree_scatter,
 * NBRT_DEVICE_SORT=1; on a GPU from 32768 bodies by default) gives the
 * host sort's bits on PoCL (which has doubles, so the device takes every
 * call of two bodies or more): i and j the same or not, clustered,
 * coincident and 1e-10 to 1e10, one kernel's calls alternating the two,
 * so that an order the device kept from an earlier call is never used.
 * A double kernel on double arrays keeps its far and near results on the
 * device (tree.c's chained, the back end's tree_results); a float one on
 * the same arrays does not (they cross as before): both are checked, the
 * float one on the first ncase cases.  The back end's sort three ways:
 * on the device (NBRT_TREE_HOSTSORT=0) 4 bits a pass and a byte a pass
 * (NBRT_TREE_SORT8=0, 1; morton.c's sorts8, a byte on a GPU) and by the
 * host's sample sort with only the order sent up (NBRT_TREE_HOSTSORT
 * over N; morton.c's host_sort, the default at small N on a host of many
 * threads). */
static void device_sorts(nb_prec prec, size_t ncase)
{
	static const struct {
		size_t ni, nj;
		int kind, same;
	} c[] = {{3001, 3001, PLUMMER, 1}, {997, 2003, UNIFORM, 0},
	         {2001, 2001, RANGE, 1}, {1, 1, COINCIDENT, 1},
	         {1500, 1500, COINCIDENT, 1}, {3001, 3001, CORE, 1},
	         {2003, 997, PLUMMER, 0}};
	nbrt_kernel *k = load(dev[1], ROOT "/dsl-examples/gravity.nbl", prec);
	nbrt_kernel *far = load(dev[1], ROOT "/far/gravity_quad.nbl", prec);
	for (size_t q = 0; q < sizeof c / sizeof *c && q < ncase; q++) {
		Bodies b;
		make(&b, c[q].ni, c[q].nj, c[q].kind, c[q].same);
		nbrt_tree t = params(0.5);
		double *host = malloc((4 * c[q].ni + 1) * sizeof *host);
		bind(k, &b);
		static const char *const how[] = {
			NULL, "host sort, device's of 4 bits a pass",
			"host sort, back end's on the host",
			"host sort, device's of a byte a pass"};
		for (int d = 0; d < 4; d++) {
			ck_assert_int_eq(setenv("NBRT_DEVICE_SORT", d ? "1" : "0", 1), 0);
			ck_assert_int_eq(setenv("NBRT_TREE_HOSTSORT",
			                        d == 2 ? "1000000000" : "0", 1), 0);
			ck_assert_int_eq(setenv("NBRT_TREE_SORT8", d == 3 ? "1" : "0",
			                        1), 0);
			ck_assert_msg(nbrt_run_tree(k, far, c[q].ni, c[q].nj, &t) == 0,
			              "%s", nbrt_error(dev[1]));
			same_bits(&b, host, !d, q, how[d]);
		}
		free(host);
		release(&b);
	}
	nbrt_free(far);
	nbrt_free(k);
}

START_TEST(device_sort)
{
	if (!have[1])
		return;
	char *was = env_keep("NBRT_DEVICE_SORT");
	char *hs = env_keep("NBRT_TREE_HOSTSORT");
	char *qs = env_keep("NBRT_TREE_QUEUES");
	ck_assert_int_eq(setenv("NBRT_TREE_QUEUES", "2", 1), 0);
	char *s8 = env_keep("NBRT_TREE_SORT8");
	no_ref = 1;
	device_sorts(NB_DOUBLE, (size_t)-1);
	device_sorts(NB_FLOAT, 3);
	/* the far run before the near run on one queue (session 13's chain):
	 * the same bits */
	ck_assert_int_eq(setenv("NBRT_TREE_QUEUES", "1", 1), 0);
	device_sorts(NB_DOUBLE, 3);
	no_ref = 0;
	/* a bound that is no count, or a switch that is not 0 or 1, is
	 * refused by name, the results untouched */
	Bodies b;
	make(&b, 101, 101, PLUMMER, 1);
	nbrt_kernel *k = load(dev[1], ROOT "/dsl-examples/gravity.nbl", NB_DOUBLE);
	nbrt_kernel *far = load(dev[1], ROOT "/far/gravity_quad.nbl", NB_DOUBLE);
	bind(k, &b);
	nbrt_tree t = params(0.5);
	ck_assert_int_eq(setenv("NBRT_DEVICE_SORT", "1", 1), 0);
	ck_assert_int_eq(setenv("NBRT_TREE_HOSTSORT", "x", 1), 0);
	refused(dev[1], k, far, &b, &t, "NBRT_TREE_HOSTSORT='x'");
	ck_assert_int_eq(setenv("NBRT_TREE_HOSTSORT", "0", 1), 0);
	static const char *const badq[] = {"3", "0", "two"};
	for (int q = 0; q < 3; q++) {
		char want[64];
		ck_assert_int_eq(setenv("NBRT_TREE_QUEUES", badq[q], 1), 0);
		snprintf(want, sizeof want, "NBRT_TREE_QUEUES='%s'", badq[q]);
		refused(dev[1], k, far, &b, &t, want);
	}
	env_back("NBRT_TREE_QUEUES", qs);
	ck_assert_int_eq(setenv("NBRT_TREE_SORT8", "2", 1), 0);
	refused(dev[1], k, far, &b, &t, "NBRT_TREE_SORT8='2'");
	nbrt_free(far);
	nbrt_free(k);
	release(&b);
	env_back("NBRT_DEVICE_SORT", was);
	env_back("NBRT_TREE_HOSTSORT", hs);
	env_back("NBRT_TREE_SORT8", s8);
}
END_TEST

/* nbrt_run_tree's result, its notes (NBRT_VERBOSE) read from stderr
 * into notes[cap]. */
static int run_noted(nbrt_kernel *k, nbrt_kernel *far, const Bodies *b,
                     const nbrt_tree *t, char *notes, size_t cap)
{
	Capture c;
	ck_assert(capture_start(&c) == 0);
	int r = nbrt_run_tree(k, far, b->ni, b->nj, t);
	capture_end(&c, notes, cap);
	return r;
}

/* The failures of the chained path (results kept on the device: a double
 * kernel on PoCL with the device's sort), forced by NBRT_TEST_FAIL
 * (runtime/cl/cl_impl.h's CL_TEST_FAILS; docs/hacking.md), on a device
 * opened under NBRT_VERBOSE: tree_results, the back end's scatter of the
 * kept results, fails the call with a message naming the device;
 * near_run, the near run failing after the far run was left running,
 * fails the call with the near run's message, and the far run's launches
 * are waited for by the back end's settle (tree.c; its note).  Either
 * leaves the caller's results as they were, and the next call gives the
 * bits of the call before; an unknown name is refused at the load. */
START_TEST(kept_failures)
{
	if (!have[1])
		return;
	char *was = env_keep("NBRT_DEVICE_SORT");
	setenv("NBRT_DEVICE_SORT", "1", 1);
	setenv("NBRT_VERBOSE", "1", 1);
	char *err = NULL;
	nbrt *rt = nbrt_open(devs[1], &err);
	unsetenv("NBRT_VERBOSE");
	ck_assert_msg(rt != NULL, "%s", err);
	no_ref = 1;
	nbrt_kernel *k = load(rt, ROOT "/dsl-examples/gravity.nbl", NB_DOUBLE);
	nbrt_kernel *far = load(rt, ROOT "/far/gravity_quad.nbl", NB_DOUBLE);
	Bodies b;
	make(&b, 2001, 2001, PLUMMER, 1);
	bind(k, &b);
	nbrt_tree t = params(0.5);
	double *good = malloc((4 * b.ni + 1) * sizeof *good);
	static char notes[1 << 16];
	char *qs = env_keep("NBRT_TREE_QUEUES");
	/* the far run on a second queue beside the near run (2), and before
	 * it on one (1): the same bits, the same failures */
	for (int q = 2; q >= 1; q--) {
		ck_assert_int_eq(setenv("NBRT_TREE_QUEUES", q == 2 ? "2" : "1", 1), 0);
		ck_assert_msg(run_noted(k, far, &b, &t, notes, sizeof notes) == 0, "%s",
		              nbrt_error(rt));
		ck_assert_msg(strstr(notes, q == 2 ? "(results kept on the device, "
		                     "far beside near)" : "(results kept on the "
		                     "device)") != NULL,
		              "the results were not kept on the device (queues %d): %s",
		              q, notes);
		same_bits(&b, good, q == 2, 0, "");
		static const char *const what[2] = {"tree_results", "near_run"};
		for (int w = 0; w < 2; w++) {
			for (int v = 0; v < 4; v++)
				for (size_t i = 0; i < b.ni; i++)
					b.c[AX + v][i] = 42;
			setenv("NBRT_TEST_FAIL", what[w], 1);
			int r = run_noted(k, far, &b, &t, notes, sizeof notes);
			unsetenv("NBRT_TEST_FAIL");
			const char *msg = nbrt_error(rt);
			char want[64];
			snprintf(want, sizeof want, "NBRT_TEST_FAIL=%s", what[w]);
			ck_assert_msg(r != 0, "%s: the call succeeded", what[w]);
			ck_assert_msg(strstr(msg, want) != NULL, "%s: message \"%s\"",
			              what[w], msg);
			if (w == 0)
				ck_assert_msg(strstr(msg, nbrt_device_name(rt)) != NULL &&
				              strstr(msg, "could not be put back") != NULL,
				              "tree_results: message \"%s\"", msg);
			else
				ck_assert_msg(strstr(notes, "launches of its kept run waited "
				                     "for, the run from its results having "
				                     "failed") != NULL,
				              "near_run: the far run not settled: %s", notes);
			for (int v = 0; v < 4; v++)
				for (size_t i = 0; i < b.ni; i++)
					assert_each(b.c[AX + v][i] == 42, "%s: result %d of body "
					            "%zu written", what[w], v, i);
			ck_assert_msg(run_noted(k, far, &b, &t, notes, sizeof notes) == 0,
			              "%s", nbrt_error(rt));
			same_bits(&b, good, 0, (size_t)w, "before, after a failure");
		}
	}
	env_back("NBRT_TREE_QUEUES", qs);
	setenv("NBRT_TEST_FAIL", "tree-results", 1);
	nb_options o;
	nb_options_init(&o);
	ck_assert(nbrt_load(rt, ROOT "/far/gravity_quad.nbl", &o) == NULL);
	unsetenv("NBRT_TEST_FAIL");
	ck_assert_msg(strstr(nbrt_error(rt), "NBRT_TEST_FAIL='tree-results'")
	              != NULL, "%s", nbrt_error(rt));
	free(good);
	release(&b);
	nbrt_free(far);
	nbrt_free(k);
	nbrt_close(rt);
	no_ref = 0;
	env_back("NBRT_DEVICE_SORT", was);
}
END_TEST

int main(void)
{
	seed_rng("test_tree", rng);
	for (int d = 0; d < NDEVS; d++) {
		char *err = NULL;
		dev[d] = nbrt_open(devs[d], &err);
		have[d] = dev[d] != NULL;
		if (!have[d]) {
			printf("test_tree: no device %s: %s\n", devs[d], err);
			free(err);
		}
	}
	if (!have[0])
		return 1;
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("tree");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, every_cell_opened);
	tcase_add_test(tc, level_sides);
	tcase_add_test(tc, theta_half);
	tcase_add_test(tc, octupole);
	tcase_add_test(tc, degenerate);
	tcase_add_test(tc, far_stream);
	tcase_add_test(tc, split_groups);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, device_arrays);
	tcase_add_test(tc, threads);
	tcase_add_test(tc, kept);
	tcase_add_test(tc, device_sort);
	tcase_add_test(tc, kept_failures);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int d = 0; d < NDEVS; d++)
		nbrt_close(dev[d]);
	return failed ? 1 : 0;
}
