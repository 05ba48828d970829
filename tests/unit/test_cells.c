/* test_cells.c: the runtime's cell lists (runtime/cells.c) against brute
 * force, on fresh random inputs (seed printed; NBCC_TEST_SEED=S repeats a
 * run): in 1, 2 and 3-D, open, periodic and mixed axes, sizes 0, 1,
 * primes and thousands, clustered and degenerate positions.  Every pair
 * (i, j, image) within the cutoff must be listed by exactly one (group,
 * range), with the image's shift; groups must be disjoint and cover i;
 * iperm, jsrc and the pair count must be right, and the same bits on
 * any number of threads.  Every bad input is
 * refused with its message, and "pairs computed per needed pair" of
 * uniform points with about 50 neighbours is printed for each dim.
 * order.c's sort against qsort, its keys against per-bit interleaving,
 * its gathers and scatters against loops. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"
#include "order.h"

#include "seed.h"

/* A check in a loop over elements: Check's ck_assert writes its place to
 * a file each time it passes (a system call), which made most of this
 * test's time; these call it only where the check fails. */
#define MUST(c)                                                               \
	do {                                                                      \
		if (!(c))                                                             \
			ck_assert(c);                                                     \
	} while (0)
#define MUST_MSG(c, ...)                                                      \
	do {                                                                      \
		if (!(c))                                                             \
			ck_assert_msg(c, __VA_ARGS__);                                    \
	} while (0)

static unsigned short rng[3]; /* erand48's state, from seed_rng */

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

/* Positions of one side, dim columns. */
typedef struct Side {
	size_t n;
	double *x[3];
} Side;

static void side_new(Side *s, size_t n)
{
	s->n = n;
	for (int d = 0; d < 3; d++) {
		s->x[d] = malloc((n ? n : 1) * sizeof(double));
		ck_assert(s->x[d] != NULL);
	}
}

static void side_free(Side *s)
{
	for (int d = 0; d < 3; d++)
		free(s->x[d]);
}

static const char *const iname[3] = {"xi", "yi", "zi"};
static const char *const jname[3] = {"xj", "yj", "zj"};

static nbrt_cutoff params(int dim, double rc, const double period[3])
{
	nbrt_cutoff c;
	memset(&c, 0, sizeof c);
	c.cutoff = rc;
	c.dim = dim;
	for (int d = 0; d < 3; d++) {
		c.ipos[d] = iname[d];
		c.jpos[d] = jname[d];
		c.period[d] = period ? period[d] : 0;
	}
	return c;
}

/* j's coordinate along d through an image shifted by s periods: the
 * same expression as the sorted copies of runtime/cutoff.c. */
static double image(double x, int s, double L)
{
	return s ? x + s * L : x;
}

static double dist2(const nbrt_cutoff *c, const Side *I, size_t i,
                    const Side *J, size_t j, const int sh[3])
{
	double r2 = 0;
	for (int d = 0; d < c->dim; d++) {
		double dx = I->x[d][i] - image(J->x[d][j], sh[d], c->period[d]);
		r2 += dx * dx;
	}
	return r2;
}

/* A pair of the lists: the caller's j and the image's shift as one code
 * (base-3 digits, shift + 1, axis 0 lowest). */
typedef struct Hit {
	size_t j;
	int code;
} Hit;

static int hit_cmp(const void *a, const void *b)
{
	const Hit *x = a, *y = b;
	if (x->j != y->j)
		return x->j < y->j ? -1 : 1;
	return (x->code > y->code) - (x->code < y->code);
}

static int code_of(const int sh[3])
{
	return (sh[0] + 1) + 3 * (sh[1] + 1) + 9 * (sh[2] + 1);
}

/* The pairs within the cutoff of caller's i, by brute force: every j
 * and every image of it a periodic axis allows (shifts -1, 0, 1). */
static size_t brute(const nbrt_cutoff *c, const Side *I, size_t i,
                    const Side *J, Hit *out)
{
	double rc2 = c->cutoff * c->cutoff;
	size_t n = 0;
	for (size_t j = 0; j < J->n; j++) {
		int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
		for (int d = 0; d < c->dim; d++)
			if (c->period[d] > 0)
				lo[d] = -1, hi[d] = 1;
		int sh[3];
		for (sh[2] = lo[2]; sh[2] <= hi[2]; sh[2]++)
			for (sh[1] = lo[1]; sh[1] <= hi[1]; sh[1]++)
				for (sh[0] = lo[0]; sh[0] <= hi[0]; sh[0]++) {
					/* one axis at a time first: most pairs end here */
					int far = 0;
					for (int d = 0; d < c->dim && !far; d++) {
						double dx = I->x[d][i] -
						            image(J->x[d][j], sh[d], c->period[d]);
						far = dx * dx >= rc2;
					}
					if (!far && dist2(c, I, i, J, j, sh) < rc2) {
						out[n].j = j;
						out[n].code = code_of(sh);
						n++;
					}
				}
	}
	return n;
}

/* Builds the lists and checks them against brute force; returns the
 * pairs within the cutoff (the needed ones). */
static double check_lists(const nbrt_cutoff *c, const Side *I, const Side *J)
{
	nbrt_cells cl;
	char err[512] = "";
	const double *const *ip = (const double *const *)I->x;
	const double *const *jp = (const double *const *)J->x;
	int rc = nbrt_cells_build(&cl, c, ip, I->n, jp, J->n, 1e18, err,
	                          sizeof err);
	MUST_MSG(rc == 0, "build: %s", err);
	size_t ni = I->n, nj = J->n, njimg = cl.njimg;
	MUST((cl.ni) == (ni));
	MUST(njimg >= nj);
	for (int d = 0; d < c->dim; d++)
		MUST_MSG(cl.width[d] * cl.split >= c->cutoff, "axis %d: cells "
		              "%g, %d a cutoff %g", d, cl.width[d], cl.split,
		              c->cutoff);

	/* iperm a permutation; every real j once in jsrc, images only on
	 * periodic axes */
	char *seen = calloc(ni + nj + 1, 1);
	for (size_t s = 0; s < ni; s++) {
		MUST(cl.iperm[s] < ni);
		MUST_MSG(!seen[cl.iperm[s]], "i %zu sorted twice", cl.iperm[s]);
		seen[cl.iperm[s]] = 1;
	}
	memset(seen, 0, ni + nj + 1);
	for (size_t e = 0; e < njimg; e++) {
		MUST(cl.jsrc[e] < nj);
		int real = 1;
		for (int d = 0; d < 3; d++) {
			int s = cl.jshift[3 * e + d];
			MUST(s >= -1 && s <= 1);
			MUST_MSG(s == 0 || (d < c->dim && c->period[d] > 0),
			              "image shifted along open axis %d", d);
			real &= s == 0;
		}
		if (real) {
			MUST_MSG(!seen[cl.jsrc[e]], "j %zu sorted twice",
			              cl.jsrc[e]);
			seen[cl.jsrc[e]] = 1;
		}
	}
	for (size_t j = 0; j < nj; j++)
		MUST_MSG(seen[j], "j %zu missing", j);
	free(seen);

	/* groups disjoint and covering, in order; ranges inside, sorted,
	 * disjoint; each sorted i's group */
	const nbrt_ranges *r = &cl.r;
	size_t *gof = malloc((ni ? ni : 1) * sizeof *gof);
	MUST((r->offset[0]) == (0));
	size_t next = 0;
	double pairs = 0;
	for (size_t g = 0; g < r->ngroups; g++) {
		MUST((r->group[2 * g]) == (next));
		MUST(r->group[2 * g + 1] > next);
		next = r->group[2 * g + 1];
		for (size_t s = r->group[2 * g]; s < next; s++)
			gof[s] = g;
		MUST(r->offset[g + 1] >= r->offset[g]);
		size_t js = 0, last = 0;
		for (size_t e = r->offset[g]; e < r->offset[g + 1]; e++) {
			size_t a = r->range[2 * e], b = r->range[2 * e + 1];
			MUST_MSG(a < b && b <= njimg, "group %zu range [%zu, %zu) "
			              "of %zu", g, a, b, njimg);
			MUST_MSG(e == r->offset[g] || a > last, "group %zu: "
			              "ranges overlap or touch at %zu", g, a);
			last = b;
			js += b - a;
		}
		pairs += (double)(next - r->group[2 * g]) * (double)js;
	}
	MUST((next) == (ni));
	MUST_MSG(pairs == cl.pairs, "pairs %g, lists say %g", cl.pairs,
	              pairs);

	/* every caller's i: the listed pairs within the cutoff are the brute
	 * force ones, each once */
	double rc2 = c->cutoff * c->cutoff, needed = 0;
	Hit *got = malloc((njimg ? njimg : 1) * sizeof *got);
	Hit *want = malloc((27 * nj + 1) * sizeof *want);
	for (size_t s = 0; s < ni; s++) {
		size_t i = cl.iperm[s], g = gof[s], n = 0;
		for (size_t e = r->offset[g]; e < r->offset[g + 1]; e++)
			for (size_t t = r->range[2 * e]; t < r->range[2 * e + 1]; t++) {
				int sh[3] = {cl.jshift[3 * t], cl.jshift[3 * t + 1],
				             cl.jshift[3 * t + 2]};
				if (dist2(c, I, i, J, cl.jsrc[t], sh) < rc2) {
					got[n].j = cl.jsrc[t];
					got[n].code = code_of(sh);
					n++;
				}
			}
		qsort(got, n, sizeof *got, hit_cmp);
		size_t m = brute(c, I, i, J, want);
		for (size_t q = 0; q < n && q < m; q++)
			MUST_MSG(got[q].j == want[q].j &&
			              got[q].code == want[q].code,
			              "i %zu: listed j %zu (image %d), brute force j %zu "
			              "(image %d)", i, got[q].j, got[q].code, want[q].j,
			              want[q].code);
		MUST_MSG(n == m, "i %zu: %zu pairs listed within the cutoff, "
		              "%zu by brute force", i, n, m);
		needed += (double)n;
	}
	MUST(needed <= cl.pairs);
	free(got);
	free(want);
	free(gof);
	nbrt_cells_free(&cl);
	return needed;
}

/* --- inputs ------------------------------------------------------------ */

enum { UNIFORM, CLUSTER, POINT, FACES, LINE, EXTREME, NKIND };

/* n positions of a kind in the box: [0, L) on periodic axes, [lo, lo +
 * span) on open ones. */
static void fill(Side *s, int kind, const nbrt_cutoff *c, double lo,
                 double span)
{
	double p0[3];
	for (int d = 0; d < 3; d++)
		p0[d] = c->period[d] > 0 ? urand(0, c->period[d])
		                         : urand(lo, lo + span);
	for (size_t e = 0; e < s->n; e++) {
		double t = erand48(rng);
		for (int d = 0; d < 3; d++) {
			double L = c->period[d], a = L > 0 ? 0 : lo, w = L > 0 ? L : span;
			double x;
			switch (kind) {
			case CLUSTER: /* all within a third of the cutoff */
				x = p0[d] + urand(0, c->cutoff / 3);
				if (L > 0 && x >= L)
					x -= L;
				break;
			case POINT:
				x = p0[d];
				break;
			case FACES: /* multiples of the cutoff and of L / n */
				x = erand48(rng) < 0.5
				        ? a + c->cutoff * floor(urand(0, w / c->cutoff))
				        : a + w / fmax(1, floor(w / c->cutoff)) *
				                  floor(urand(0, floor(w / c->cutoff)));
				if (L > 0 && x >= L)
					x = 0;
				break;
			case LINE: /* one parameter for every axis */
				x = a + t * w;
				break;
			case EXTREME: /* log-uniform magnitudes, both signs */
				x = (erand48(rng) < 0.5 ? -1 : 1) * pow(10, urand(-10, 10));
				break;
			default:
				x = a + urand(0, w);
				break;
			}
			if (L > 0 && !(x >= 0 && x < L))
				x = 0; /* rounding at the top of the box */
			s->x[d][e] = x;
		}
	}
}

/* One case: dim, which axes are periodic (bit d), a kind, sizes. */
static double run_case(int dim, int per, int kind, size_t ni, size_t nj,
                       int self)
{
	double L[3] = {0, 0, 0}, rc;
	double lo = urand(-5, 5), span = urand(1, 10);
	if (kind == EXTREME) {
		rc = pow(10, urand(-10, 1));
	} else {
		/* on average some tens of neighbours, from fractions of a cell */
		double n = (double)(nj ? nj : 1);
		rc = span * pow(urand(1, 40) / n, 1.0 / dim) / 2;
	}
	for (int d = 0; d < dim; d++)
		if (per >> d & 1) {
			/* at least two cutoffs; sometimes exactly two or three */
			double u = erand48(rng);
			L[d] = u < 0.1 ? 2 * rc : u < 0.2 ? 3 * rc
			                                   : fmax(span, 2 * rc) * urand(1, 2);
		}
	nbrt_cutoff c = params(dim, rc, L);
	Side I, J;
	side_new(&I, ni);
	fill(&I, kind, &c, lo, span);
	if (self) {
		J = I;
	} else {
		side_new(&J, nj);
		fill(&J, kind, &c, lo, span);
	}
	double needed = check_lists(&c, &I, &J);
	side_free(&I);
	if (!self)
		side_free(&J);
	return needed;
}

static const size_t sizes[][2] = {
	{0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 13}, {7, 1}, {13, 11}, {97, 101},
	{1009, 997}};

/* Every dim, every mix of open and periodic axes, every kind, at the
 * sizes above (a thousand and more take the uniform and clustered
 * kinds only, to keep brute force short). */
START_TEST(against_brute_force)
{
	int dim = _i + 1;
	for (int per = 0; per < 1 << dim; per++)
		for (int kind = 0; kind < NKIND; kind++) {
			if (kind == EXTREME && per)
				continue; /* extreme ranges are of open boxes */
			for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
				if (sizes[z][0] > 500 && kind > CLUSTER)
					continue;
				run_case(dim, per, kind, sizes[z][0], sizes[z][1], 0);
			}
			run_case(dim, per, kind, 61, 61, 1);
		}
}
END_TEST

/* A few thousand, uniform and in one cell, the largest brute force. */
START_TEST(thousands)
{
	int dim = _i + 1;
	run_case(dim, 0, UNIFORM, 3001, 2999, 0);
	run_case(dim, (1 << dim) - 1, UNIFORM, 2003, 2003, 1);
	run_case(dim, 1, CLUSTER, 2003, 1999, 0);
}
END_TEST

/* The same lists for the same input: sorting is stable. */
START_TEST(deterministic)
{
	double L[3] = {3, 0, 5};
	nbrt_cutoff c = params(3, 0.7, L);
	Side I;
	side_new(&I, 500);
	fill(&I, UNIFORM, &c, 0, 4);
	const double *const *p = (const double *const *)I.x;
	nbrt_cells a, b;
	char err[256];
	ck_assert(nbrt_cells_build(&a, &c, p, 500, p, 500, 1e18, err,
	                           sizeof err) == 0);
	ck_assert(nbrt_cells_build(&b, &c, p, 500, p, 500, 1e18, err,
	                           sizeof err) == 0);
	ck_assert_uint_eq(a.njimg, b.njimg);
	ck_assert_uint_eq(a.r.ngroups, b.r.ngroups);
	ck_assert(!memcmp(a.iperm, b.iperm, 500 * sizeof *a.iperm));
	ck_assert(!memcmp(a.jsrc, b.jsrc, a.njimg * sizeof *a.jsrc));
	ck_assert(!memcmp(a.range, b.range,
	                  2 * a.offset[a.r.ngroups] * sizeof *a.range));
	nbrt_cells_free(&a);
	nbrt_cells_free(&b);
	side_free(&I);
}
END_TEST

/* The same lists on 1, 2 and 3 threads, at sizes where every loop of
 * the build goes parallel (65536 elements: keys, images, sort, runs;
 * 4096 blocks: groups, boxes, lists), i and j the same points (a self
 * run, j sorted as i) or not, open and periodic (images), cells of one
 * cutoff and finer ones; each build into the same kept buffers
 * (nbrt_cells_build_in), which must match a fresh build too.  The
 * positions are floats' values, read as doubles or (on 2 threads) from
 * floats (a float kernel's columns, read where they are): the same
 * lists. */
START_TEST(threads)
{
	int keep = omp_get_max_threads();
	static const struct {
		double L[3];
		int split, group, same;
	} cs[] = {{{0, 0, 0}, 1, 1 << 30, 1}, {{0, 0, 0}, 1, 1 << 30, 0},
	          {{6, 6, 6}, 1, 1 << 30, 1}, {{6, 0, 6}, 2, 8, 0}};
	nbrt_work w;
	memset(&w, 0, sizeof w);
	for (size_t q = 0; q < sizeof cs / sizeof *cs; q++) {
		nbrt_cutoff c = params(3, 0.3, cs[q].L);
		c.split = cs[q].split;
		c.group = cs[q].group;
		Side I, J;
		side_new(&I, 70001);
		fill(&I, UNIFORM, &c, 0, 6);
		if (!cs[q].same) {
			side_new(&J, 66001);
			fill(&J, UNIFORM, &c, 0, 6);
		}
		const Side *Jp = cs[q].same ? &I : &J;
		const double *const *ip = (const double *const *)I.x;
		const double *const *jp = (const double *const *)Jp->x;
		nbrt_pos dp[2], fp[2];
		float *fl[2][3];
		for (int s = 0; s < 2; s++)
			for (int d = 0; d < 3; d++) {
				const Side *S = s ? Jp : &I;
				double L = c.period[d];
				fl[s][d] = malloc(S->n * sizeof(float));
				ck_assert(fl[s][d] != NULL);
				for (size_t e = 0; e < S->n; e++) {
					float x = (float)S->x[d][e];
					if (L > 0 && x >= L) /* rounded up onto the face */
						x = nextafterf((float)L, 0);
					S->x[d][e] = fl[s][d][e] = x;
				}
				dp[s].p[d] = S->x[d];
				dp[s].isfloat[d] = 0;
				fp[s].p[d] = fl[s][d];
				fp[s].isfloat[d] = 1;
			}
		if (cs[q].same) /* one set of columns, as a self run binds */
			for (int d = 0; d < 3; d++)
				fp[1].p[d] = fp[0].p[d];
		char err[256];
		nbrt_cells first;
		ck_assert_msg(nbrt_cells_build(&first, &c, ip, I.n, jp, Jp->n, 1e18,
		                               err, sizeof err) == 0, "%s", err);
		ck_assert_msg(first.r.ngroups >= 4096, "%zu groups",
		              first.r.ngroups);
		ck_assert(first.njimg > Jp->n || !c.period[0]);
		size_t ng = first.r.ngroups, nr = first.offset[ng];
		for (int th = 1; th <= 3; th++) {
			omp_set_num_threads(th);
			nbrt_cells b;
			const nbrt_pos *pp = th == 2 ? fp : dp;
			ck_assert_msg(nbrt_cells_build_in(&b, &w, &c, &pp[0], I.n, &pp[1],
			                                  Jp->n, 1e18, err, sizeof err) == 0,
			              "%s", err);
			ck_assert_int_eq(b.same, first.same);
			ck_assert_uint_eq(b.njimg, first.njimg);
			ck_assert_uint_eq(b.r.ngroups, ng);
			ck_assert(b.pairs == first.pairs);
			ck_assert(!memcmp(b.iperm, first.iperm, I.n * sizeof *b.iperm));
			ck_assert(!memcmp(b.jsrc, first.jsrc, b.njimg * sizeof *b.jsrc));
			ck_assert(!memcmp(b.jshift, first.jshift, 3 * b.njimg));
			ck_assert(!memcmp(b.group, first.group, 2 * ng * sizeof *b.group));
			ck_assert(!memcmp(b.offset, first.offset,
			                  (ng + 2) * sizeof *b.offset));
			ck_assert_msg(!memcmp(b.range, first.range,
			                      2 * nr * sizeof *b.range),
			              "case %zu, %d threads: other ranges", q, th);
			nbrt_cells_free(&b);
		}
		omp_set_num_threads(keep);
		for (int s = 0; s < 2; s++)
			for (int d = 0; d < 3; d++)
				free(fl[s][d]);
		nbrt_cells_free(&first);
		side_free(&I);
		if (!cs[q].same)
			side_free(&J);
	}
	nbrt_work_free(&w);
}
END_TEST

/* --- bad input ---------------------------------------------------------- */

static void refused(const nbrt_cutoff *c, const Side *I, const Side *J,
                    double memory, const char *want)
{
	nbrt_cells cl;
	char err[512] = "";
	int rc = nbrt_cells_build(&cl, c, (const double *const *)I->x, I->n,
	                          (const double *const *)J->x, J->n, memory,
	                          err, sizeof err);
	ck_assert_msg(rc == -1, "accepted, expected: %s", want);
	ck_assert_msg(strstr(err, want) != NULL, "message \"%s\", expected "
	              "\"%s\"", err, want);
	ck_assert(cl.iperm == NULL && cl.range == NULL);
}

START_TEST(bad_input)
{
	Side I, J;
	side_new(&I, 4);
	side_new(&J, 3);
	for (int d = 0; d < 3; d++) {
		for (size_t e = 0; e < 4; e++)
			I.x[d][e] = 0.5 * (double)e;
		for (size_t e = 0; e < 3; e++)
			J.x[d][e] = 0.25 + 0.5 * (double)e;
	}
	double L[3] = {4, 4, 4};
	nbrt_cutoff c = params(3, 1, L);
	c.split = 2; /* the count of images below */

	c.cutoff = 0;
	refused(&c, &I, &J, 1e18, "cutoff 0: must be finite and > 0");
	c.cutoff = -1;
	refused(&c, &I, &J, 1e18, "cutoff -1: must be finite and > 0");
	c.cutoff = NAN;
	refused(&c, &I, &J, 1e18, "cutoff nan: must be finite and > 0");
	c.cutoff = INFINITY;
	refused(&c, &I, &J, 1e18, "cutoff inf: must be finite and > 0");
	c.cutoff = 1e-320;
	refused(&c, &I, &J, 1e18, "cutoff 9.99989e-321: must be at least "
	        "2.2250738585072014e-308 (the least normal double)");
	c.cutoff = 2.0000000000000004;
	refused(&c, &I, &J, 1e18, "cutoff 2.0000000000000004 is larger than "
	        "half the period 4 of axis 0: at most 2 is allowed");
	c.cutoff = 1;
	c.dim = 0;
	refused(&c, &I, &J, 1e18, "dim 0: must be 1, 2 or 3");
	c.dim = 4;
	refused(&c, &I, &J, 1e18, "dim 4: must be 1, 2 or 3");
	c.dim = 3;
	c.period[1] = -1;
	refused(&c, &I, &J, 1e18, "period[1] = -1: must be finite and >= 0 "
	        "(0: an open axis)");
	c.period[1] = NAN;
	refused(&c, &I, &J, 1e18, "period[1] = nan: must be finite");
	c.period[1] = INFINITY;
	refused(&c, &I, &J, 1e18, "period[1] = inf: must be finite");
	c.period[1] = 4;

	I.x[2][3] = NAN;
	refused(&c, &I, &J, 1e18, "zi[3] = nan: positions must be finite");
	I.x[2][3] = 1;
	J.x[1][2] = -INFINITY;
	refused(&c, &I, &J, 1e18, "yj[2] = -inf: positions must be finite");
	c.period[1] = 0; /* open axes too */
	refused(&c, &I, &J, 1e18, "yj[2] = -inf: positions must be finite");
	c.period[1] = 4;
	J.x[1][2] = 4;
	refused(&c, &I, &J, 1e18, "yj[2] = 4 lies outside the periodic box "
	        "[0, 4) of axis 1");
	J.x[1][2] = -1e-300;
	refused(&c, &I, &J, 1e18, "yj[2] = -1e-300 lies outside the periodic "
	        "box [0, 4) of axis 1");
	J.x[1][2] = 1;
	I.x[0][0] = 7;
	refused(&c, &I, &J, 1e18, "xi[0] = 7 lies outside the periodic box "
	        "[0, 4) of axis 0");
	I.x[0][0] = 0;
	/* unnamed columns */
	c.ipos[0] = NULL;
	I.x[0][1] = NAN;
	refused(&c, &I, &J, 1e18, "ipos[0][1] = nan: positions must be finite");
	I.x[0][1] = 0.5;

	/* memory: too little for the keys, then for the lists */
	/* cells of 4/7 (split 2): j 0 and 1 within the cutoff of three
	 * faces, 7 images each; j 2 of one (y = 1), 1 */
	refused(&c, &I, &J, 100, "the cell list of Ni = 4, Nj = 3 (18 with "
	        "periodic images) needs ");
	refused(&c, &I, &J, 100, "with its sorted keys; this process may use "
	        "100 bytes");
	/* the least memory the keys take, by bisection, leaves too little
	 * for the lists of a lattice, one point a cell, 27 neighbours each */
	nbrt_cells cl;
	char err[256];
	Side G;
	side_new(&G, 1000);
	for (size_t e = 0; e < 1000; e++)
		for (int d = 0; d < 3; d++)
			G.x[d][e] = 0.05 + (double)(e / (d == 0 ? 1 : d == 1 ? 10 : 100) % 10);
	double gl[3] = {10, 10, 10};
	nbrt_cutoff gc = params(3, 0.99, gl);
	const double *const *gp = (const double *const *)G.x;
	double lo = 100, hi = 1e9;
	while (hi - lo > 1) {
		double m = floor((lo + hi) / 2);
		int r = nbrt_cells_build(&cl, &gc, gp, 1000, gp, 1000, m, err,
		                         sizeof err);
		if (r == 0)
			nbrt_cells_free(&cl);
		if (r && strstr(err, "sorted keys"))
			lo = m;
		else
			hi = m;
	}
	refused(&gc, &G, &G, hi, "the cell list of Ni = 1000, Nj = 1000 "
	        "(1728 with periodic images) needs ");
	refused(&gc, &G, &G, hi, " with its lists; this process may use ");
	side_free(&G);
	/* and enough */
	ck_assert(nbrt_cells_build(&cl, &c, (const double *const *)I.x, 4,
	                           (const double *const *)J.x, 3, 1e18, err,
	                           sizeof err) == 0);
	nbrt_cells_free(&cl);
	side_free(&I);
	side_free(&J);
}
END_TEST

/* --- cost ------------------------------------------------------------- */

/* Pairs computed per needed pair for uniform points in a periodic box,
 * about 50 neighbours within the cutoff (a cutoff a little below L / k,
 * k cells of one cutoff an axis, and N for 50 neighbours): for cells of
 * one cutoff, each a group, the volume of 3^dim cells over the ball's,
 * 27/(4pi/3) = 6.4 in 3-D, 9/pi = 2.9 in 2-D, 3/2 in 1-D; finer cells
 * and smaller groups fewer, under the 3 of issue 25 in 3-D for cells of
 * half a cutoff and groups of 8 (docs/neighbours.md). */
START_TEST(cost)
{
	static const double ideal[4] = {0, 1.5, 9 / M_PI, 27 / (4 * M_PI / 3)};
	static const struct {
		int split, group;
	} conf[] = {{1, 1 << 30}, {2, 32}, {2, 8}, {4, 8}};
	int dim = _i + 1;
	double vol[4] = {0, 2, M_PI, 4 * M_PI / 3}; /* of a unit ball */
	static const int k[4] = {0, 100, 16, 8};
	double L = 1, rc = L / k[dim] * (1 - 0x1p-9);
	size_t n = (size_t)(50 / (vol[dim] * pow(rc, dim)));
	double per[3] = {L, L, L};
	nbrt_cutoff c = params(dim, rc, per);
	Side P;
	side_new(&P, n);
	fill(&P, UNIFORM, &c, 0, L);
	c.split = 2;
	c.group = 8;
	double needed = check_lists(&c, &P, &P), first = 0;
	const double *const *p = (const double *const *)P.x;
	for (size_t q = 0; q < sizeof conf / sizeof *conf; q++) {
		nbrt_cells cl;
		char err[256];
		c.split = conf[q].split;
		c.group = conf[q].group;
		ck_assert(nbrt_cells_build(&cl, &c, p, n, p, n, 1e18, err,
		                           sizeof err) == 0);
		double ratio = cl.pairs / needed, width = cl.width[0];
		long long cells = cl.ncell[0];
		size_t groups = cl.r.ngroups, ranges = cl.offset[groups];
		nbrt_cells_free(&cl);
		printf("test_cells: %d-D, N = %zu, cutoff %.4g, %lld cells of %.4g "
		       "an axis (split %d), groups of at most %d (%zu, %.3g "
		       "ranges each), %.1f neighbours: %.3g pairs computed per "
		       "needed pair\n", dim, n, rc, cells, width, conf[q].split,
		       conf[q].group, groups, (double)ranges / (double)groups,
		       needed / (double)n, ratio);
		fflush(stdout);
		if (q == 0) {
			/* the cells' volume against the ball's, within sampling
			 * noise */
			ck_assert(ratio < 1.2 * ideal[dim] * pow(width / rc, dim));
			ck_assert(ratio > 0.8 * ideal[dim]);
			first = ratio;
		} else {
			ck_assert_msg(ratio < first, "split %d group %d: %g, not below "
			              "cells of one cutoff's %g", conf[q].split,
			              conf[q].group, ratio, first);
		}
		if (dim == 3 && conf[q].group == 8)
			ck_assert_msg(ratio < 3, "split %d group %d: %g pairs a needed "
			              "pair", conf[q].split, conf[q].group, ratio);
	}
	side_free(&P);
}
END_TEST

/* For qsort: (key, val) pairs by key, then val (the stable order of
 * pairs made with val = their index). */
static int by_key_val(const void *a, const void *b)
{
	const nbrt_kv *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->val > y->val) - (x->val < y->val);
}

/* Sizes on both sides of the parallel threshold, keys of few and many
 * distinct values (the skipped digits, the stability). */
START_TEST(order_sort)
{
	static const size_t sizes[] = {0, 1, 2, 7, 257, 65537, 200003};
	static const int bits[] = {1, 8, 20, 63};
	for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
		for (size_t b = 0; b < sizeof bits / sizeof *bits; b++) {
			size_t n = sizes[z];
			nbrt_kv *a = malloc((n + 1) * sizeof *a);
			nbrt_kv *t = malloc((n + 1) * sizeof *t);
			nbrt_kv *ref = malloc((n + 1) * sizeof *ref);
			ck_assert(a && t && ref);
			for (size_t e = 0; e < n; e++) {
				uint64_t k = (uint64_t)(erand48(rng) * 0x1p32) << 32 |
				             (uint64_t)(erand48(rng) * 0x1p32);
				/* a high bit too, where all keys but their top share */
				a[e].key = (k >> (64 - bits[b])) << (63 - bits[b]);
				a[e].val = e;
			}
			memcpy(ref, a, n * sizeof *a);
			qsort(ref, n, sizeof *ref, by_key_val);
			nbrt_kv *s = nbrt_order_sort(a, t, n);
			for (size_t e = 0; e < n; e++) {
				MUST(s[e].key == ref[e].key);
				MUST(s[e].val == ref[e].val);
			}
			free(a);
			free(t);
			free(ref);
		}
}
END_TEST

/* Keys against bit-by-bit interleaving, through unmorton and back; keys
 * from doubles against floor((x - lo) / side * 2^bits), clamped. */
START_TEST(order_keys)
{
	for (int dim = 1; dim <= 3; dim++) {
		int bits = nbrt_order_bits(dim);
		for (int r = 0; r < 1000; r++) {
			uint64_t u[3] = {0, 0, 0}, v[3], key = 0;
			for (int d = 0; d < dim; d++) {
				u[d] = (uint64_t)(erand48(rng) * ldexp(1, bits));
				for (int q = 0; q < bits; q++)
					key |= (u[d] >> q & 1) << (q * dim + d);
			}
			MUST(nbrt_order_morton(u, dim) == key);
			nbrt_order_unmorton(key, dim, v);
			for (int d = 0; d < 3; d++)
				MUST(v[d] == u[d]);
		}
		size_t n = 1000;
		Side P;
		side_new(&P, n);
		double lo[3] = {-1, 0.5, 2}, side = 3;
		for (size_t e = 0; e < n; e++)
			for (int d = 0; d < 3; d++)
				P.x[d][e] = urand(lo[d] - 0.5, lo[d] + side + 0.5);
		nbrt_kv *kv = malloc(n * sizeof *kv);
		ck_assert(kv != NULL);
		nbrt_order_keys(kv, (const double *const *)P.x, n, dim, lo, side);
		for (size_t e = 0; e < n; e++) {
			uint64_t u[3] = {0, 0, 0};
			for (int d = 0; d < dim; d++) {
				double c = floor((P.x[d][e] - lo[d]) / side * ldexp(1, bits));
				c = fmin(fmax(c, 0), ldexp(1, bits) - 1);
				u[d] = (uint64_t)c;
			}
			MUST(kv[e].val == e);
			MUST(kv[e].key == nbrt_order_morton(u, dim));
		}
		free(kv);
		side_free(&P);
	}
}
END_TEST

/* Gathers and scatters of 4, 8 and 12-byte elements, and the float
 * gather, through a random permutation, serial and parallel sizes. */
START_TEST(order_gather)
{
	static const size_t sizes[] = {0, 1, 1000, 70001};
	static const size_t es[] = {4, 8, 12};
	for (size_t z = 0; z < 4; z++) {
		size_t n = sizes[z];
		size_t *perm = malloc((n + 1) * sizeof *perm);
		ck_assert(perm != NULL);
		for (size_t e = 0; e < n; e++)
			perm[e] = e;
		for (size_t e = n; e > 1; e--) {
			size_t k = (size_t)(erand48(rng) * (double)e), t = perm[e - 1];
			perm[e - 1] = perm[k];
			perm[k] = t;
		}
		for (size_t q = 0; q < 3; q++) {
			unsigned char *src = malloc(n * es[q] + 1);
			unsigned char *dst = malloc(n * es[q] + 1);
			unsigned char *back = malloc(n * es[q] + 1);
			ck_assert(src && dst && back);
			for (size_t e = 0; e < n * es[q]; e++)
				src[e] = (unsigned char)(erand48(rng) * 256);
			nbrt_order_gather(dst, src, perm, n, es[q]);
			for (size_t e = 0; e < n; e++)
				MUST(!memcmp(dst + e * es[q], src + perm[e] * es[q],
				                  es[q]));
			nbrt_order_scatter(back, dst, perm, n, es[q]);
			ck_assert(n == 0 || !memcmp(back, src, n * es[q]));
			free(src);
			free(dst);
			free(back);
		}
		double *x = malloc((n + 1) * sizeof *x);
		float *f = malloc((n + 1) * sizeof *f);
		ck_assert(x && f);
		for (size_t e = 0; e < n; e++)
			x[e] = urand(-1e3, 1e3);
		nbrt_order_gather_float(f, x, perm, n);
		for (size_t e = 0; e < n; e++)
			MUST(f[e] == (float)x[perm[e]]);
		free(x);
		free(f);
		free(perm);
	}
}
END_TEST

int main(void)
{
	seed_rng("test_cells", rng);
	Suite *s = suite_create("cells");
	TCase *t = tcase_create("cells");
	tcase_set_timeout(t, 600);
	tcase_add_loop_test(t, against_brute_force, 0, 3);
	tcase_add_loop_test(t, thousands, 0, 3);
	tcase_add_test(t, deterministic);
	tcase_add_test(t, threads);
	tcase_add_test(t, bad_input);
	tcase_add_loop_test(t, cost, 0, 3);
	tcase_add_test(t, order_sort);
	tcase_add_test(t, order_keys);
	tcase_add_test(t, order_gather);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
