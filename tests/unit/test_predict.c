/* test_predict.c: nbrt_predictor (runtime/predict.c), the Hermite
 * scheme's j-bodies kept where the kernel runs: on the host back end and
 * on PoCL's CPU device, N = 0, 1, 2 and 1009 bodies of random Taylor
 * series and times are put, predicted and gathered, then some of them put
 * again and all predicted to a later time, then to an earlier one
 * (backwards from most bodies' times).  Every predicted value must be
 * the bits of the C loop nbrt.h states (the same arithmetic here, compiled
 * without contraction), and within 1e-15 (absolute, or relative above 1) of the polynomial evaluated in
 * long double; bodies not put again keep their series.  Bad calls are
 * refused with their message.  Without an OpenCL CPU device the exit
 * status is 77 (skipped) after the host's checks.  Seed printed;
 * NBCC_TEST_SEED=S repeats it. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"
#include "cpudev.h"
#include "seed.h"
#include "unit.h"

static uint64_t seed, rng;

static double urand(double a, double b)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return a + (b - a) * (double)(rng >> 11) * 0x1p-53;
}

/* Ticks of 2^-40 of an interval 1/16 long, as bin/nbody counts them. */
#define TICKS ((uint64_t)1 << 40)
#define UNIT (0x1p-40 / 16)

typedef struct bodies {
	size_t n;
	double *s[12];
	uint64_t *t;
} bodies;

static void fill(bodies *b, size_t i, uint64_t tmax)
{
	static const double scale[4] = {1, 0.7, 3, 40};
	for (int c = 0; c < 12; c++)
		b->s[c][i] = urand(-scale[c / 3], scale[c / 3]);
	b->t[i] = (uint64_t)urand(0, (double)tmax);
}

/* The C loop of nbrt.h's statement, and the same polynomial in long
 * double. */
static void want(const bodies *b, size_t i, uint64_t now, double *p,
                 long double *lp)
{
	/* both below 2^53: the difference exact, negative before t */
	double dt = ((double)now - (double)b->t[i]) * UNIT;
	double dt2 = dt * dt * 0.5, dt3 = dt2 * dt * (1.0 / 3);
	long double ld = ((long double)now - (long double)b->t[i]) * UNIT;
	for (int k = 0; k < 3; k++) {
		const double x = b->s[k][i], v = b->s[3 + k][i];
		const double a = b->s[6 + k][i], j = b->s[9 + k][i];
		p[k] = x + v * dt + a * dt2 + j * dt3;
		p[3 + k] = v + a * dt + j * dt2;
		lp[k] = x + ld * (v + ld * (a / 2 + ld * j / 6));
		lp[3 + k] = v + ld * (a + ld * j / 2);
	}
}

/* Every body predicted to now, and act[0..m) gathered, as they should. */
static void check(nbrt *rt, nbrt_predictor *p, const bodies *b, uint64_t now,
                  const size_t *act, size_t m)
{
	size_t n = b->n;
	double *got[12];
	for (int c = 0; c < 12; c++) {
		got[c] = malloc((n ? n : 1) * sizeof(double));
		ck_assert_int_eq(nbrt_array_read(nbrt_predictor_array(p, c), got[c]),
		                 0);
	}
	const char *dev = nbrt_device_name(rt);
	for (size_t i = 0; i < n; i++) {
		double w[6];
		long double lw[6];
		want(b, i, now, w, lw);
		for (int c = 0; c < 6; c++) {
			ck_assert_msg(memcmp(&got[c][i], &w[c], sizeof(double)) == 0,
			              "%s, N = %zu: body %zu, value %d: %.17g, the C "
			              "loop's %.17g", dev, n, i, c, got[c][i], w[c]);
			double tol = 1e-15 * fmax(1, fabs((double)lw[c]));
			ck_assert_msg(fabsl(got[c][i] - lw[c]) <= tol, "%s: body %zu, "
			              "value %d: %.17g, long double %.17Lg", dev, i, c,
			              got[c][i], lw[c]);
		}
	}
	for (size_t r = 0; r < m; r++)
		for (int c = 0; c < 6; c++)
			ck_assert_msg(memcmp(&got[6 + c][r], &got[c][act[r]],
			                     sizeof(double)) == 0, "%s: gathered %zu "
			              "(body %zu), value %d", dev, r, act[r], c);
	for (int c = 0; c < 12; c++)
		free(got[c]);
}

/* A random subset of 0..n-1 in random order, m of them. */
static size_t subset(size_t *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t k = (size_t)urand(0, (double)i), x = idx[i - 1];
		idx[i - 1] = idx[k < i ? k : i - 1];
		idx[k < i ? k : i - 1] = x;
	}
	return n ? (size_t)urand(1, (double)n + 1) : 0;
}

static void run(const char *spec, size_t n)
{
	nbrt *rt = nbrt_open(spec, NULL);
	ck_assert_ptr_nonnull(rt);
	rng = seed ^ (0x9E3779B97F4A7C15u * (n + 1)) ^ (spec[0] == 'c');
	rng = rng ? rng : 1;
	bodies b = {n, {0}, NULL};
	size_t sz = n ? n : 1;
	for (int c = 0; c < 12; c++)
		b.s[c] = malloc(sz * sizeof(double));
	b.t = malloc(sz * sizeof *b.t);
	size_t *idx = malloc(sz * sizeof *idx), *act = malloc(sz * sizeof *act);
	for (size_t i = 0; i < n; i++)
		fill(&b, i, TICKS / 2);
	nbrt_predictor *p = nbrt_predictor_new(rt, n, UNIT);
	ck_assert_msg(p != NULL, "%s", nbrt_error(rt));
	const double *const *src = (const double *const *)b.s;
	ck_assert_msg(nbrt_predictor_put(p, n, NULL, src, b.t) == 0, "%s",
	              nbrt_error(rt));
	size_t m = subset(act, n);
	ck_assert_msg(nbrt_predict(p, TICKS / 2, m, act) == 0, "%s",
	              nbrt_error(rt));
	check(rt, p, &b, TICKS / 2, act, m);
	/* some bodies corrected to later times: only they are put */
	size_t k = subset(idx, n);
	for (size_t r = 0; r < k; r++)
		fill(&b, idx[r], TICKS - 1);
	ck_assert_msg(nbrt_predictor_put(p, k, idx, src, b.t) == 0, "%s",
	              nbrt_error(rt));
	m = subset(act, n);
	ck_assert_msg(nbrt_predict(p, TICKS, m, act) == 0, "%s", nbrt_error(rt));
	check(rt, p, &b, TICKS, act, m);
	/* a time before most bodies' own: the same polynomial at a negative
	 * dt (nbrt.h), as for output at an earlier time */
	m = subset(act, n);
	ck_assert_msg(nbrt_predict(p, TICKS / 8, m, act) == 0, "%s",
	              nbrt_error(rt));
	check(rt, p, &b, TICKS / 8, act, m);
	printf("%s, N = %zu: predicted bit for bit, %zu put again, and back "
	       "to an earlier time\n", nbrt_device_name(rt), n, k);
	/* refusals, with the predictor left usable */
	if (n >= 2) {
		size_t twice[2] = {1, 1}, far = n;
		ck_assert_int_eq(nbrt_predictor_put(p, 2, twice, src, b.t), -1);
		ck_assert_msg(strstr(nbrt_error(rt), "body 1 put twice") != NULL,
		              "%s", nbrt_error(rt));
		ck_assert_int_eq(nbrt_predictor_put(p, 1, &far, src, b.t), -1);
		ck_assert_ptr_nonnull(strstr(nbrt_error(rt), "nbrt_predictor_put"));
		ck_assert_int_eq(nbrt_predict(p, TICKS, 1, &far), -1);
		ck_assert_ptr_nonnull(strstr(nbrt_error(rt), "nbrt_predict: body"));
		uint64_t t1 = b.t[1];
		b.t[1] = (uint64_t)1 << 53;
		ck_assert_int_eq(nbrt_predictor_put(p, 1, twice, src, b.t), -1);
		ck_assert_ptr_nonnull(strstr(nbrt_error(rt), "beyond a double"));
		b.t[1] = t1;
		ck_assert_int_eq(nbrt_predictor_put(p, 1, twice, src, b.t), 0);
		ck_assert_int_eq(nbrt_predict(p, TICKS, 0, act), 0);
		check(rt, p, &b, TICKS, act, 0);
	}
	nbrt_predictor_free(p);
	for (int c = 0; c < 12; c++)
		free(b.s[c]);
	free(b.t);
	free(idx);
	free(act);
	nbrt_close(rt);
}

START_TEST(host)
{
	static const size_t ns[] = {0, 1, 2, 1009};
	for (size_t k = 0; k < 4; k++)
		run("host", ns[k]);
}
END_TEST

START_TEST(pocl)
{
	static const size_t ns[] = {0, 1, 2, 1009};
	nbrt *rt = nbrt_open("cpu", NULL);
	if (!rt) {
		printf("skip: no OpenCL CPU device\n");
		return;
	}
	nbrt_close(rt);
	for (size_t k = 0; k < 4; k++)
		run("cpu", ns[k]);
}
END_TEST

int main(void)
{
	seed = test_seed("test_predict");
	int missing = cpu_missing();
	Suite *s;
	TCase *tc = unit_case(&s, "predict", 120);
	tcase_add_test(tc, host);
	tcase_add_test(tc, pocl);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? 1 : missing ? 77 : 0;
}
