/* test_ranges.c: block-sparse runs (nbrt_run_ranges) against a direct
 * double evaluation written here, for every reduction kind (sum, count,
 * min, max, argmin, argmax, logsumexp, and a sum of the indices i and j),
 * on fresh random inputs and random lists (groups with gaps between them,
 * empty groups, empty, adjacent and unsorted ranges) at Ni, Nj in {0, 1,
 * 7, 97, 1000}, in float and double, on the host C path, on OpenCL (PoCL
 * here) and on the AMD IL interpreter; and every malformed list refused
 * with its message.  Without an OpenCL CPU device OpenCL is left out. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"
#include "nbrt_impl.h" /* nbrt_run_ranges_ex: accum */

#include "seed.h"

static unsigned short rng[3];

/* Every reduction over one list; `sj` reads both indices. */
static const char src[] =
    "LMEM xi, yi;\n"
    "BMEM xj, yj, wj;\n"
    "RMEM s, c, mn, am, mx, ax, l, sj;\n"
    "d2 = (xi - xj)*(xi - xj) + (yi - yj)*(yi - yj);\n"
    "s += wj*d2;\n"
    "c += d2 < 0.25;\n"
    "mn min= d2 + wj;\n"
    "am argmin= d2 + wj;\n"
    "mx max= d2 - wj;\n"
    "ax argmax= d2 - wj;\n"
    "l logsumexp= -d2*wj;\n"
    "sj += j + 0.5*i;\n";
/* The same without argmin and argmax, which the IL interpreter cannot
 * resume from one range to the next. */
static const char src_noarg[] =
    "LMEM xi, yi;\n"
    "BMEM xj, yj, wj;\n"
    "RMEM s, c, mn, mx, l, sj;\n"
    "d2 = (xi - xj)*(xi - xj) + (yi - yj)*(yi - yj);\n"
    "s += wj*d2;\n"
    "c += d2 < 0.25;\n"
    "mn min= d2 + wj;\n"
    "mx max= d2 - wj;\n"
    "l logsumexp= -d2*wj;\n"
    "sj += j + 0.5*i;\n";

enum { S, C, MN, AM, MX, AX, LSE, SJ, NOUT };
static const char *const outn[NOUT] = {"s", "c", "mn", "am", "mx", "ax",
                                       "l", "sj"};

static const char *const devs[] = {"host", "cpu", "amdil"};
enum { NDEVS = 3 };
static nbrt *dev[NDEVS];
static int have[NDEVS];

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

/* A random list over [0, ni) x [0, nj): groups with gaps, some empty;
 * each with up to 4 ranges, some empty, some adjacent, shuffled.  With
 * `packed` set, groups of 64 to 303 and 10 to 29 ranges each: a GPU or
 * PoCL then runs the tiled entry, whose tiles are filled from many short
 * ranges in a row (emit_opencl.c), not the small groups' untiled one. */
typedef struct List {
	size_t ng, *group, *offset, *range;
} List;

static int packed;

static void make_list(List *L, size_t ni, size_t nj)
{
	L->group = malloc(2 * (ni + 2) * sizeof(size_t));
	L->offset = malloc((ni + 3) * sizeof(size_t));
	L->range = malloc(2 * 32 * (ni + 2) * sizeof(size_t));
	L->ng = 0;
	L->offset[0] = 0;
	size_t i = 0, nr = 0;
	while (i < ni || (ni == 0 && L->ng == 0)) {
		size_t gap = erand48(rng) < 0.2 ? (size_t)(erand48(rng) * 3) : 0;
		size_t a = i + gap < ni ? i + gap : ni;
		size_t len = packed ? 64 + (size_t)(erand48(rng) * 240) :
		             1 + (size_t)(erand48(rng) * 40);
		size_t b = a + len < ni ? a + len : ni;
		if (erand48(rng) < 0.05)
			b = a; /* an empty group */
		L->group[2 * L->ng] = a;
		L->group[2 * L->ng + 1] = b;
		/* cut [0, nj) at random points; take some pieces */
		int k = packed ? 10 + (int)(erand48(rng) * 20) :
		        (int)(erand48(rng) * 5);
		size_t cut[64];
		int nc = 0;
		for (int q = 0; q < 2 * k; q++)
			cut[nc++] = (size_t)(erand48(rng) * (double)(nj + 1));
		for (int x = 1; x < nc; x++)
			for (int y = x; y > 0 && cut[y - 1] > cut[y]; y--) {
				size_t t = cut[y];
				cut[y] = cut[y - 1];
				cut[y - 1] = t;
			}
		size_t first = nr;
		for (int q = 0; q + 1 < nc; q += 2) {
			L->range[2 * nr] = cut[q];
			L->range[2 * nr + 1] = cut[q + 1];
			nr++;
		}
		/* shuffle the group's ranges */
		for (size_t x = nr; x > first + 1; x--) {
			size_t y = first + (size_t)(erand48(rng) * (double)(x - first));
			for (int c = 0; c < 2; c++) {
				size_t t = L->range[2 * (x - 1) + c];
				L->range[2 * (x - 1) + c] = L->range[2 * y + c];
				L->range[2 * y + c] = t;
			}
		}
		L->ng++;
		L->offset[L->ng] = nr;
		i = b > i ? b : i + 1;
		if (ni == 0)
			break;
	}
}

static void free_list(List *L)
{
	free(L->group);
	free(L->offset);
	free(L->range);
}

/* The reference, in double, of i over the list of its group (none: the
 * identities).  edge[i] counts the pairs whose d2 lies within 1e-6 of the
 * count's bound 0.25: a float kernel's d2 (a few roundings of 2^-24 on
 * values below 2) may fall on the other side, so its count may differ
 * from the double one by up to that many. */
static void reference(const List *L, size_t ni, const double *x,
                      const double *y, const double *jx, const double *jy,
                      const double *w, double *ref, double *edge)
{
	for (size_t i = 0; i < ni; i++) {
		double *r = ref + NOUT * i;
		r[S] = r[C] = r[SJ] = edge[i] = 0;
		r[MN] = INFINITY;
		r[MX] = -INFINITY;
		r[AM] = r[AX] = -1;
		double lmax = -INFINITY, lsum = 0;
		for (size_t g = 0; g < L->ng; g++) {
			if (i < L->group[2 * g] || i >= L->group[2 * g + 1])
				continue;
			for (size_t e = L->offset[g]; e < L->offset[g + 1]; e++)
				for (size_t j = L->range[2 * e]; j < L->range[2 * e + 1];
				     j++) {
					double dx = x[i] - jx[j], dy = y[i] - jy[j];
					double d2 = dx * dx + dy * dy;
					r[S] += w[j] * d2;
					r[C] += d2 < 0.25;
					edge[i] += fabs(d2 - 0.25) < 1e-6;
					if (d2 + w[j] < r[MN]) {
						r[MN] = d2 + w[j];
						r[AM] = (double)j;
					}
					if (d2 - w[j] > r[MX]) {
						r[MX] = d2 - w[j];
						r[AX] = (double)j;
					}
					double v = -d2 * w[j];
					if (v > lmax) {
						lsum = lsum * exp(lmax - v) + 1;
						lmax = v;
					} else {
						lsum += exp(v - lmax);
					}
					r[SJ] += (double)j + 0.5 * (double)i;
				}
		}
		r[LSE] = lsum > 0 ? lmax + log(lsum) : -INFINITY;
	}
}

static int close_to(double got, double want, double tol)
{
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= tol * (1 + fabs(want));
}

/* One run of kernel k (argmin/argmax included or not) against the
 * reference; float inputs are floats, so both see the same values. */
static void one(nbrt *rt, nbrt_kernel *k, int args, nb_prec p, size_t ni,
                size_t nj, const char *dname)
{
	size_t mi = ni ? ni : 1, mj = nj ? nj : 1;
	double *x = malloc(mi * sizeof *x), *y = malloc(mi * sizeof *y);
	double *jx = malloc(mj * sizeof *jx), *jy = malloc(mj * sizeof *jy);
	double *w = malloc(mj * sizeof *w);
	double *out = malloc(NOUT * mi * sizeof *out);
	double *ref = malloc(NOUT * mi * sizeof *ref);
	double *edge = malloc(mi * sizeof *edge);
	for (size_t i = 0; i < ni; i++) {
		x[i] = (float)urand(0, 1);
		y[i] = (float)urand(0, 1);
	}
	for (size_t j = 0; j < nj; j++) {
		jx[j] = (float)urand(0, 1);
		jy[j] = (float)urand(0, 1);
		w[j] = (float)urand(0.1, 1);
	}
	List L;
	make_list(&L, ni, nj);
	reference(&L, ni, x, y, jx, jy, w, ref, edge);
	double *res[NOUT];
	ck_assert(nbrt_bind(k, "xi", NBRT_DOUBLE, x) == 0);
	ck_assert(nbrt_bind(k, "yi", NBRT_DOUBLE, y) == 0);
	ck_assert(nbrt_bind(k, "xj", NBRT_DOUBLE, jx) == 0);
	ck_assert(nbrt_bind(k, "yj", NBRT_DOUBLE, jy) == 0);
	ck_assert(nbrt_bind(k, "wj", NBRT_DOUBLE, w) == 0);
	for (int o = 0; o < NOUT; o++) {
		res[o] = malloc(mi * sizeof(double));
		for (size_t i = 0; i < ni; i++)
			res[o][i] = NAN;
		if (args || (o != AM && o != AX))
			ck_assert(nbrt_bind(k, outn[o], NBRT_DOUBLE, res[o]) == 0);
	}
	nbrt_ranges r = {L.ng, L.group, L.offset, L.range};
	int rc = nbrt_run_ranges(k, ni, nj, &r);
	ck_assert_msg(rc == 0, "%s: %s", dname, nbrt_error(rt));
	double pairs = 0;
	for (size_t g = 0; g < L.ng; g++)
		for (size_t e = L.offset[g]; e < L.offset[g + 1]; e++)
			pairs += (double)(L.group[2 * g + 1] - L.group[2 * g]) *
			         (double)(L.range[2 * e + 1] - L.range[2 * e]);
	ck_assert_msg(nbrt_pairs(k) == pairs, "%s: pairs %g, listed %g", dname,
	              nbrt_pairs(k), pairs);
	/* float: a sum of up to 1000 terms of relative error 2^-24 each */
	double tol = p == NB_FLOAT ? 2e-5 : 1e-12;
	for (size_t i = 0; i < ni; i++) {
		const double *rf = ref + NOUT * i;
		for (int o = 0; o < NOUT; o++) {
			if (!args && (o == AM || o == AX))
				continue;
			double got = res[o][i], want = rf[o];
			if (o == AM || o == AX) {
				/* an index whose value is the extreme, to rounding */
				if (got == want)
					continue;
				size_t j = (size_t)got;
				/* on failure only, as below: a passing ck_assert
				 * is a record, and these pass 200 000 times a run */
				if (!(got >= 0 && got < (double)nj && want >= 0))
					ck_abort_msg("%s %s ni %zu nj %zu: i %zu: %s = %g, "
					             "want %g", dname, nb_prec_name(p), ni, nj,
					             i, outn[o], got, want);
				double dx = x[i] - jx[j], dy = y[i] - jy[j];
				double v = dx * dx + dy * dy + (o == AM ? w[j] : -w[j]);
				if (!close_to(v, rf[o == AM ? MN : MX], tol))
					ck_abort_msg("%s: i %zu: %s = %g is not an extreme",
					             dname, i, outn[o], got);
				continue;
			}
			if (o == C) {
				double e = p == NB_FLOAT ? edge[i] : 0;
				if (!(fabs(got - want) <= e))
					ck_abort_msg("%s %s ni %zu nj %zu: i %zu: c = %.17g, "
					             "want %.17g (%g pairs on the bound)", dname,
					             nb_prec_name(p), ni, nj, i, got, want, e);
				continue;
			}
			double t = o == S || o == SJ ? tol * 4 : tol;
			if (!close_to(got, want, t))
				ck_abort_msg("%s %s ni %zu nj %zu: i %zu: %s = %.17g, "
				             "want %.17g", dname, nb_prec_name(p), ni, nj, i,
				             outn[o], got, want);
		}
	}
	for (int o = 0; o < NOUT; o++)
		free(res[o]);
	free_list(&L);
	free(x), free(y), free(jx), free(jy), free(w), free(out), free(ref);
	free(edge);
}

static nbrt_kernel *load(int d, const char *s, nb_prec p)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	nbrt_kernel *k = nbrt_load_source(dev[d], "ranges-test", s, strlen(s),
	                                  &o);
	ck_assert_msg(k != NULL, "%s: %s", devs[d], nbrt_error(dev[d]));
	return k;
}

START_TEST(every_reduction)
{
	static const size_t sizes[] = {0, 1, 7, 97, 1000};
	for (int d = 0; d < NDEVS; d++) {
		if (!have[d])
			continue;
		/* the interpreter has no logsumexp in double */
		for (int pi = 0; pi < (d == 2 ? 1 : 2); pi++) {
			nb_prec p = pi ? NB_DOUBLE : NB_FLOAT;
			int args = d != 2; /* the interpreter: see src_noarg */
			nbrt_kernel *k = load(d, args ? src : src_noarg, p);
			for (size_t a = 0; a < 5; a++)
				for (size_t b = 0; b < 5; b++) {
					/* the interpreter is slow: its small sizes only */
					if (d == 2 && (sizes[a] > 97 || sizes[b] > 97))
						continue;
					one(dev[d], k, args, p, sizes[a], sizes[b], devs[d]);
				}
			nbrt_free(k);
		}
	}
}
END_TEST

/* Long groups of many short ranges, every reduction and the j index
 * included (the packed tiles keep each slot's j), on every device. */
START_TEST(packed_tiles)
{
	static const size_t sizes[] = {1, 97, 1000};
	packed = 1;
	for (int d = 0; d < NDEVS; d++) {
		if (!have[d])
			continue;
		for (int pi = 0; pi < (d == 2 ? 1 : 2); pi++) {
			nb_prec p = pi ? NB_DOUBLE : NB_FLOAT;
			int args = d != 2;
			nbrt_kernel *k = load(d, args ? src : src_noarg, p);
			for (size_t a = 0; a < 3; a++)
				for (size_t b = 0; b < 3; b++)
					if (d != 2 || (sizes[a] <= 97 && sizes[b] <= 97))
						one(dev[d], k, args, p, sizes[a], sizes[b], devs[d]);
			nbrt_free(k);
		}
	}
	packed = 0;
}
END_TEST

/* A run adding into the results of an earlier one over the same i (a
 * treecode's near field after its far field) equals one run of both
 * lists: each group's ranges cut in two at a random j. */
START_TEST(accumulate)
{
	for (int d = 0; d < NDEVS; d++) {
		if (!have[d])
			continue;
		nbrt_kernel *k = load(d, src_noarg, d == 2 ? NB_FLOAT : NB_DOUBLE);
		size_t ni = 97, nj = 89;
		double x[97], y[97], jx[89], jy[89], w[89], a[6][97], b[6][97];
		for (size_t i = 0; i < ni; i++)
			x[i] = (float)urand(0, 1), y[i] = (float)urand(0, 1);
		for (size_t j = 0; j < nj; j++)
			jx[j] = (float)urand(0, 1), jy[j] = (float)urand(0, 1),
			w[j] = (float)urand(0.1, 1);
		static const char *const on[] = {"s", "c", "mn", "mx", "l", "sj"};
		ck_assert(nbrt_bind(k, "xi", NBRT_DOUBLE, x) == 0);
		ck_assert(nbrt_bind(k, "yi", NBRT_DOUBLE, y) == 0);
		ck_assert(nbrt_bind(k, "xj", NBRT_DOUBLE, jx) == 0);
		ck_assert(nbrt_bind(k, "yj", NBRT_DOUBLE, jy) == 0);
		ck_assert(nbrt_bind(k, "wj", NBRT_DOUBLE, w) == 0);
		size_t g[4] = {0, 40, 50, 97}, o[3] = {0, 1, 2}, cut = 1 +
		    (size_t)(erand48(rng) * 80);
		size_t whole[4] = {0, nj, 3, 60}, lo[4] = {0, cut, 3, 30},
		       hi[4] = {cut, nj, 30, 60};
		nbrt_ranges rw = {2, g, o, whole}, rl = {2, g, o, lo},
		            rh = {2, g, o, hi};
		for (int q = 0; q < 6; q++)
			ck_assert(nbrt_bind(k, on[q], NBRT_DOUBLE, a[q]) == 0);
		ck_assert_msg(nbrt_run_ranges(k, ni, nj, &rw) == 0, "%s",
		              nbrt_error(dev[d]));
		for (int q = 0; q < 6; q++)
			ck_assert(nbrt_bind(k, on[q], NBRT_DOUBLE, b[q]) == 0);
		ck_assert(nbrt_run_ranges_ex(k, ni, nj, &rl, NULL, NULL, 0, 1) == 0);
		ck_assert_msg(nbrt_run_ranges_ex(k, ni, nj, &rh, NULL, NULL, 1, 1)
		              == 0, "%s", nbrt_error(dev[d]));
		for (int q = 0; q < 6; q++)
			for (size_t i = 0; i < ni; i++)
				if (!close_to(b[q][i], a[q][i], d == 2 ? 1e-5 : 1e-12))
					ck_abort_msg("%s: %s[%zu] = %.17g, in one run %.17g",
					             devs[d], on[q], i, b[q][i], a[q][i]);
		nbrt_free(k);
	}
}
END_TEST

/* A bad list names its fault; nothing runs. */
static void refused(nbrt_kernel *k, nbrt *rt, size_t ni, size_t nj,
                    const nbrt_ranges *r, const char *want)
{
	ck_assert_int_eq(nbrt_run_ranges(k, ni, nj, r), -1);
	ck_assert_msg(strstr(nbrt_error(rt), want) != NULL,
	              "message '%s' lacks '%s'", nbrt_error(rt), want);
}

START_TEST(bad_lists)
{
	nbrt_kernel *k = load(0, src, NB_DOUBLE);
	double v[8] = {0};
	static const char *const names[] = {"xi", "yi", "xj", "yj", "wj",
	                                    "s", "c", "mn", "am", "mx", "ax",
	                                    "l", "sj"};
	double res[13][8];
	for (int q = 0; q < 13; q++)
		ck_assert(nbrt_bind(k, names[q], NBRT_DOUBLE, q < 5 ? v : res[q])
		          == 0);
	size_t g1[] = {0, 4}, o1[] = {0, 1}, r1[] = {0, 9};
	nbrt_ranges r = {1, g1, o1, r1};
	refused(k, dev[0], 8, 8, &r, "not within [0, Nj = 8)");
	size_t g2[] = {0, 9};
	r.group = g2;
	r1[1] = 8;
	refused(k, dev[0], 8, 8, &r, "not within [0, Ni = 8)");
	size_t g3[] = {0, 4, 3, 6}, o3[] = {0, 1, 1};
	nbrt_ranges r3 = {2, g3, o3, r1};
	refused(k, dev[0], 8, 8, &r3, "overlap");
	size_t g4[] = {0, 4}, o4[] = {0, 2}, r4[] = {0, 5, 4, 8};
	nbrt_ranges r4s = {1, g4, o4, r4};
	refused(k, dev[0], 8, 8, &r4s, "overlapping j-ranges");
	size_t o5[] = {1, 2};
	nbrt_ranges r5 = {1, g4, o5, r4};
	refused(k, dev[0], 8, 8, &r5, "offset[0]");
	refused(k, dev[0], 8, 8, NULL, "no ranges");
	nbrt_free(k);
	/* a generated file without the entry */
	nbrt_kernel *g = nbrt_load(dev[0], ROOT "/generated/gravity.c", NULL);
	ck_assert_msg(g != NULL, "%s", nbrt_error(dev[0]));
	double a[4][8], z[8] = {0};
	static const char *const gn[] = {"xi", "yi", "zi", "xj", "yj", "zj",
	                                 "mj", "ax", "ay", "az", "pot"};
	for (int q = 0; q < 11; q++)
		ck_assert(nbrt_bind(g, gn[q], NBRT_DOUBLE, q < 7 ? z : a[q - 7])
		          == 0);
	ck_assert(nbrt_set_const(g, "eps2", 0.01, 0) == 0);
	size_t r6[] = {0, 4, 4, 8};
	nbrt_ranges r6s = {1, g4, o4, r6};
	refused(g, dev[0], 8, 8, &r6s, "nbcc --ranges");
	nbrt_free(g);
}
END_TEST

int main(void)
{
	seed_rng("test_ranges", rng);
	for (int d = 0; d < NDEVS; d++) {
		char *err = NULL;
		dev[d] = nbrt_open(devs[d], &err);
		have[d] = dev[d] != NULL;
		if (!have[d]) {
			printf("test_ranges: no device %s: %s\n", devs[d], err);
			free(err);
		}
	}
	if (!have[0])
		return 1;
	Suite *s = suite_create("ranges");
	TCase *tc = tcase_create("ranges");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, every_reduction);
	tcase_add_test(tc, packed_tiles);
	tcase_add_test(tc, bad_lists);
	tcase_add_test(tc, accumulate);
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
