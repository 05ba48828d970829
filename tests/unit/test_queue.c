/* test_queue.c: queued runs (nbrt_set_queue, nbrt_wait; runtime/cl/
 * queue.c) on PoCL's CPU device: gravity on device arrays, in float at
 * N = 1, 77 and 300 (and 300 i against 1000 j), in double and dd at one
 * size each (each precision's conversion kernels), run R times queued
 * back to back gives the results of one run that waited, bit for bit,
 * within 2e-5 (relative to the sum of the terms' sizes) of the same sums
 * in long double; the queued launches are timed by nbrt_wait (span no
 * shorter than their busy time), read back without nbrt_wait too; a run
 * with a host array bound still waits; nbrt_array_finite, queued
 * behind them, sees their results and leaves their times to nbrt_wait.
 * The check in two halves (nbrt_array_finite_queue, _take) answers, in
 * order, for the arrays as they were when it was queued, times the
 * launches before it and not those after, takes two at most, and says
 * so; on host arrays too.
 * A queued launch that fails (NBRT_TEST_FAIL=queued_run) is reported by
 * nbrt_wait, by a read, by nbrt_array_finite and by the take,
 * naming the kernel and the device; untimed queued runs (on = 2) give
 * the same bits, no time, and a failure (NBRT_TEST_FAIL=untimed_run) by
 * the finish, behind a timed run whose check's take passes it by as
 * bin/nbody queues them, and none under queued_run; NBRT_QUEUE=1
 * queues from the open on (a bad value fails it); the host back end
 * refuses the queue.  Inputs changed between runs (waited, queued,
 * untimed) are seen, though a run keeps its inputs' conversion while
 * their arrays are unchanged: array writes, an axpy, another array bound
 * in one's place, another kernel's results as the positions.
 * Without an OpenCL CPU device the exit status is 77 (skipped) after the
 * host's checks.  Seed printed; NBCC_TEST_SEED=S repeats it. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"
#include "cpudev.h"
#include "seed.h"
#include "unit.h"

#ifndef ROOT
#define ROOT "."
#endif
#define GRAVITY ROOT "/dsl-examples/gravity.nbl"
#define EPS2 1e-3

static unsigned short rng[3];
static int reps; /* queued runs a batch, from the seed */

static double urand(double a, double b)
{
	return a + (b - a) * erand48(rng);
}

/* gravity.nbl's variables in its order: LMEM xi yi zi, BMEM xj yj zj mj,
 * RMEM ax ay az pot */
static const char *const name[11] = {"xi", "yi", "zi", "xj", "yj", "zj",
                                     "mj", "ax", "ay", "az", "pot"};

typedef struct setup {
	nbrt *rt;
	nbrt_kernel *k;
	nb_prec p;
	size_t ni, nj;
	double *h[11];
	nbrt_array *a[11];
} setup;

static void make(setup *s, nb_prec p, size_t ni, size_t nj)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = p;
	s->rt = nbrt_open("cpu", NULL);
	ck_assert_ptr_nonnull(s->rt);
	s->k = nbrt_load(s->rt, GRAVITY, &o);
	ck_assert_msg(s->k != NULL, "%s", nbrt_error(s->rt));
	ck_assert_int_eq(nbrt_set_const(s->k, "eps2", EPS2, 0), 0);
	s->p = p;
	s->ni = ni;
	s->nj = nj;
	for (int v = 0; v < 11; v++) {
		size_t n = v >= 3 && v < 7 ? nj : ni;
		s->h[v] = malloc(n * sizeof(double));
		for (size_t e = 0; e < n; e++)
			s->h[v][e] = v == 6 ? urand(0.5, 1.5) : urand(-1, 1);
		s->a[v] = nbrt_array_new(s->rt, n);
		ck_assert_msg(s->a[v] != NULL, "%s", nbrt_error(s->rt));
		ck_assert_int_eq(nbrt_array_on_device(s->a[v]), 1);
		if (v < 7)
			ck_assert_int_eq(nbrt_array_write(s->a[v], s->h[v]), 0);
		ck_assert_int_eq(nbrt_bind_array(s->k, name[v], s->a[v]), 0);
	}
}

static void unmake(setup *s)
{
	ck_assert_msg(nbrt_wait(s->rt, NULL) == 0, "%s", nbrt_error(s->rt));
	for (int v = 0; v < 11; v++) {
		nbrt_array_free(s->a[v]);
		free(s->h[v]);
	}
	nbrt_free(s->k);
	nbrt_close(s->rt);
}

/* The four results read back into r[0..4) (n = ni each). */
static void results(setup *s, double *r[4])
{
	for (int c = 0; c < 4; c++)
		ck_assert_msg(nbrt_array_read(s->a[7 + c], r[c]) == 0, "%s",
		              nbrt_error(s->rt));
}

/* An input as the kernel sees it: rounded to float in float (what
 * rounding the inputs does to a difference of near positions is not the
 * kernel's error: one pair of N = 1 x 1 was 5e-5 off the unrounded sum). */
static long double in(const setup *s, int v, size_t e)
{
	double x = s->h[v][e];
	return s->p == NB_FLOAT ? (long double)(float)x : (long double)x;
}

/* r against the sums in long double of the inputs as the kernel sees
 * them, relative to the sum of the terms' sizes (float's rounding over
 * nj terms, far below 2e-5 for nj <= 1000) */
static void check_ref(const setup *s, double *const r[4])
{
	double worst = 0;
	for (size_t i = 0; i < s->ni; i++) {
		long double sum[4] = {0}, mag[4] = {0};
		for (size_t j = 0; j < s->nj; j++) {
			long double d[3], r2 = EPS2;
			for (int c = 0; c < 3; c++) {
				d[c] = in(s, 3 + c, j) - in(s, c, i);
				r2 += d[c] * d[c];
			}
			long double ri = 1 / sqrtl(r2), m = in(s, 6, j);
			for (int c = 0; c < 3; c++) {
				sum[c] += m * ri * ri * ri * d[c];
				mag[c] += fabsl(m * ri * ri * ri * d[c]);
			}
			sum[3] -= m * ri;
			mag[3] += m * ri;
		}
		for (int c = 0; c < 4; c++) {
			double e = (double)(fabsl(r[c][i] - sum[c]) /
			                    (mag[c] > 0 ? mag[c] : 1));
			worst = e > worst || e != e ? e : worst;
		}
	}
	ck_assert_msg(worst < 2e-5, "N = %zu x %zu: error %g against long "
	              "double", s->ni, s->nj, worst);
}

static void same_bits(const setup *s, double *const a[4],
                      double *const b[4], const char *what)
{
	for (int c = 0; c < 4; c++)
		ck_assert_msg(memcmp(a[c], b[c], s->ni * sizeof(double)) == 0,
		              "N = %zu x %zu: %s: %s differs from one run's",
		              s->ni, s->nj, what, name[7 + c]);
}

static void queued(nb_prec p, size_t ni, size_t nj)
{
	setup s;
	make(&s, p, ni, nj);
	double *one[4], *got[4];
	for (int c = 0; c < 4; c++) {
		one[c] = malloc(ni * sizeof(double));
		got[c] = malloc(ni * sizeof(double));
	}
	/* one run that waits: the reference bits */
	ck_assert_msg(nbrt_run(s.k, ni, nj) == 0, "%s", nbrt_error(s.rt));
	ck_assert(nbrt_kernel_time(s.k) > 0);
	results(&s, one);
	check_ref(&s, one);
	/* R runs queued, the results poisoned first so a run that did not
	 * write them shows */
	double nan = NAN;
	for (int c = 0; c < 4; c++) {
		for (size_t i = 0; i < ni; i++)
			got[c][i] = nan;
		ck_assert_int_eq(nbrt_array_write(s.a[7 + c], got[c]), 0);
	}
	ck_assert_int_eq(nbrt_set_queue(s.rt, 1), 0);
	for (int q = 0; q < reps; q++) {
		ck_assert_msg(nbrt_run(s.k, ni, nj) == 0, "%s", nbrt_error(s.rt));
		ck_assert(nbrt_kernel_time(s.k) == 0); /* timed by nbrt_wait */
	}
	/* the finite check, queued behind them, sees their results (the
	 * poison gone) and settles them: nbrt_wait still has their times
	 * (bin/nbody's step) */
	int fin = -1;
	ck_assert_msg(nbrt_array_finite(s.a + 7, 4, &fin) == 0, "%s",
	              nbrt_error(s.rt));
	ck_assert_msg(fin == 1, "the finite check ran before the queued runs");
	double t[2] = {-1, -1};
	ck_assert_msg(nbrt_wait(s.rt, t) == 0, "%s", nbrt_error(s.rt));
	ck_assert_msg(t[0] > 0 && t[1] > 0 && t[1] <= t[0] * (1 + 1e-6) + 1e-9,
	              "span %g, busy %g", t[0], t[1]);
	double span = t[0];
	results(&s, got);
	same_bits(&s, one, got, "queued runs");
	/* nothing queued since: a second wait times nothing */
	ck_assert_int_eq(nbrt_wait(s.rt, t), 0);
	ck_assert(t[0] == 0 && t[1] == 0);
	/* read back with no nbrt_wait: the read waits */
	for (int c = 0; c < 4; c++)
		ck_assert_int_eq(nbrt_array_write(s.a[7 + c], got[c]), 0);
	ck_assert_int_eq(nbrt_run(s.k, ni, nj), 0);
	results(&s, got);
	same_bits(&s, one, got, "a queued run read back");
	/* a host array bound: the run waits, as before */
	ck_assert_int_eq(nbrt_run(s.k, ni, nj), 0); /* left queued */
	ck_assert_int_eq(nbrt_bind(s.k, "pot", NBRT_DOUBLE, got[3]), 0);
	ck_assert_int_eq(nbrt_run(s.k, ni, nj), 0);
	ck_assert(nbrt_kernel_time(s.k) > 0);
	ck_assert(memcmp(got[3], one[3], ni * sizeof(double)) == 0);
	ck_assert_int_eq(nbrt_bind_array(s.k, "pot", s.a[10]), 0);
	printf("%s, %s, N = %zu x %zu: %d queued runs, the bits of one run; "
	       "span %.3g ms\n", nbrt_device_name(s.rt), nb_prec_name(p), ni, nj,
	       reps, 1e3 * span);
	for (int c = 0; c < 4; c++) {
		free(one[c]);
		free(got[c]);
	}
	unmake(&s);
}

START_TEST(same_results)
{
	queued(NB_FLOAT, 1, 1);
	queued(NB_FLOAT, 77, 77);
	queued(NB_FLOAT, 300, 300);
	queued(NB_FLOAT, 300, 1000);
	queued(NB_DOUBLE, 120, 130); /* each conversion kernel's kind */
	queued(NB_DD, 100, 90);
}
END_TEST

/* A queued launch that fails is reported by the wait, the read or the
 * finite check after it, by its kernel and the device; the queue goes on
 * afterwards. */
START_TEST(failures)
{
	setup s;
	make(&s, NB_FLOAT, 64, 64);
	ck_assert_int_eq(nbrt_set_queue(s.rt, 1), 0);
	double *r = malloc(64 * sizeof(double));
	static const char *const by[4] = {"nbrt_wait", "nbrt_array_read",
	                                  "nbrt_array_finite",
	                                  "nbrt_array_finite_take"};
	for (int how = 0; how < 4; how++) {
		setenv("NBRT_TEST_FAIL", "queued_run", 1);
		ck_assert_int_eq(nbrt_run(s.k, 64, 64), 0); /* only queued */
		int fin = -1;
		if (how == 3)
			ck_assert_int_eq(nbrt_array_finite_queue(s.a + 7, 3), 0);
		int rc = how == 3 ? nbrt_array_finite_take(s.rt, &fin, NULL)
		       : how == 2 ? nbrt_array_finite(s.a + 7, 3, &fin)
		       : how ? nbrt_array_read(s.a[7], r) : nbrt_wait(s.rt, NULL);
		unsetenv("NBRT_TEST_FAIL");
		const char *e = nbrt_error(s.rt);
		ck_assert_msg(rc == -1, "%s: a failed queued launch not reported",
		              by[how]);
		ck_assert_msg(strstr(e, "queued launch of kernel gravity") &&
		              strstr(e, "CL_OUT_OF_RESOURCES") &&
		              strstr(e, nbrt_device_name(s.rt)), "%s", e);
		/* reported once: the queue is empty again, and runs on */
		ck_assert_int_eq(nbrt_wait(s.rt, NULL), 0);
		ck_assert_int_eq(nbrt_run(s.k, 64, 64), 0);
		ck_assert_msg(nbrt_wait(s.rt, NULL) == 0, "%s", nbrt_error(s.rt));
	}
	free(r);
	unmake(&s);
}
END_TEST

/* The check in two halves: bin/nbody's step queues the next step before
 * it takes this one's answer.  Each answer is of the arrays as they were
 * when its check was queued (a NaN added by an axpy behind the first
 * check and overwritten by the run after the second is seen by the
 * second alone); a take times the queued launches before its check and
 * leaves the later ones running (the third check's take has the second
 * run's); a third check queued or a take of none is refused. */
START_TEST(halves)
{
	setup s;
	make(&s, NB_FLOAT, 100, 100);
	nbrt_array *nan = nbrt_array_new(s.rt, 100);
	double *v = malloc(100 * sizeof(double));
	for (int e = 0; e < 100; e++)
		v[e] = e == 37 ? NAN : 0;
	ck_assert_int_eq(nbrt_array_write(nan, v), 0);
	ck_assert_int_eq(nbrt_set_queue(s.rt, 1), 0);
	int fin = -1;
	double t[2];
	ck_assert_int_eq(nbrt_run(s.k, 100, 100), 0);
	ck_assert_msg(nbrt_array_finite_queue(s.a + 7, 4) == 0, "%s",
	              nbrt_error(s.rt));
	ck_assert_int_eq(nbrt_array_axpy(s.a + 10, 1.0, &nan, 1), 0);
	ck_assert_int_eq(nbrt_array_finite_queue(s.a + 7, 4), 0);
	ck_assert_int_eq(nbrt_array_finite_queue(s.a + 7, 4), -1);
	ck_assert_msg(strstr(nbrt_error(s.rt), "two checks are queued"), "%s",
	              nbrt_error(s.rt));
	ck_assert_int_eq(nbrt_run(s.k, 100, 100), 0);
	ck_assert_msg(nbrt_array_finite_take(s.rt, &fin, t) == 0, "%s",
	              nbrt_error(s.rt));
	ck_assert_msg(fin == 1, "the first check saw the NaN added after it");
	ck_assert_msg(t[0] > 0 && t[1] > 0, "the first run untimed: %g, %g",
	              t[0], t[1]);
	ck_assert_int_eq(nbrt_array_finite_queue(s.a + 7, 4), 0);
	ck_assert_int_eq(nbrt_array_finite_take(s.rt, &fin, t), 0);
	ck_assert_msg(fin == 0, "the second check missed the NaN");
	ck_assert_msg(t[1] == 0, "the second run timed by the second check");
	ck_assert_int_eq(nbrt_array_finite_take(s.rt, &fin, t), 0);
	ck_assert_msg(fin == 1, "the third check saw the NaN the run replaced");
	ck_assert_msg(t[1] > 0, "the second run not timed by the third check");
	ck_assert_int_eq(nbrt_array_finite_take(s.rt, &fin, t), -1);
	ck_assert_msg(strstr(nbrt_error(s.rt), "no check is queued"), "%s",
	              nbrt_error(s.rt));
	/* a check left queued is released with its device (LeakSanitizer) */
	ck_assert_int_eq(nbrt_array_finite_queue(s.a + 7, 4), 0);
	nbrt_array_free(nan);
	free(v);
	unmake(&s);
}
END_TEST

/* NBRT_QUEUE=1 queues from nbrt_open on; a bad value fails the open by
 * name. */
START_TEST(env)
{
	setenv("NBRT_QUEUE", "3", 1);
	char *msg = NULL;
	ck_assert_ptr_null(nbrt_open("cpu", &msg));
	ck_assert_msg(msg && strstr(msg, "NBRT_QUEUE='3': it must be an integer "
	                            "from 0 to 2"),
	              "%s", msg ? msg : "no message");
	free(msg);
	setenv("NBRT_QUEUE", "1", 1);
	setup s;
	make(&s, NB_FLOAT, 50, 60);
	unsetenv("NBRT_QUEUE");
	ck_assert_msg(nbrt_run(s.k, 50, 60) == 0, "%s", nbrt_error(s.rt));
	ck_assert(nbrt_kernel_time(s.k) == 0); /* queued */
	double t[2];
	ck_assert_int_eq(nbrt_wait(s.rt, t), 0);
	ck_assert(t[0] > 0);
	unmake(&s);
}
END_TEST

/* Untimed queued runs (on = 2): the bits of one run that waited, no
 * time for nbrt_wait, a failure (untimed_run) reported by the finish
 * with the kernel and the device, also behind a timed run whose check
 * is taken first (bin/nbody's steps); queued_run fails none; 3
 * refused. */
START_TEST(untimed)
{
	setup s;
	size_t n = 200;
	make(&s, NB_FLOAT, n, n);
	double *one[4], *got[4];
	for (int c = 0; c < 4; c++) {
		one[c] = malloc(n * sizeof(double));
		got[c] = malloc(n * sizeof(double));
	}
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	results(&s, one);
	check_ref(&s, one);
	ck_assert_int_eq(nbrt_set_queue(s.rt, 3), -1);
	ck_assert_msg(strstr(nbrt_error(s.rt), "nbrt_set_queue: 3: 0 (off), 1 "
	                     "(queued, timed) or 2 (queued, untimed)"), "%s",
	              nbrt_error(s.rt));
	ck_assert_int_eq(nbrt_set_queue(s.rt, 2), 0);
	for (int q = 0; q < reps; q++) {
		ck_assert_msg(nbrt_run(s.k, n, n) == 0, "%s", nbrt_error(s.rt));
		ck_assert(nbrt_kernel_time(s.k) == 0);
	}
	double t[2] = {-1, -1};
	ck_assert_msg(nbrt_wait(s.rt, t) == 0, "%s", nbrt_error(s.rt));
	ck_assert(t[0] == 0 && t[1] == 0);
	results(&s, got);
	same_bits(&s, one, got, "untimed queued runs");
	setenv("NBRT_TEST_FAIL", "untimed_run", 1);
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	int rc = nbrt_wait(s.rt, NULL);
	unsetenv("NBRT_TEST_FAIL");
	const char *e = nbrt_error(s.rt);
	ck_assert_msg(rc == -1 && strstr(e, "1 untimed queued runs, the last of "
	                                 "kernel gravity: clFinish failed with "
	                                 "CL_OUT_OF_RESOURCES") &&
	              strstr(e, nbrt_device_name(s.rt)), "%d: %s", rc, e);
	ck_assert_int_eq(nbrt_wait(s.rt, NULL), 0);
	/* as bin/nbody queues its steps: a timed run and its finite check,
	 * then an untimed run that fails; the check's take waits for the
	 * timed run alone and passes, the next full wait reports the
	 * untimed one, once */
	int fin = -1;
	setenv("NBRT_TEST_FAIL", "untimed_run", 1);
	ck_assert_int_eq(nbrt_set_queue(s.rt, 1), 0);
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	ck_assert_int_eq(nbrt_array_finite_queue(s.a + 7, 4), 0);
	ck_assert_int_eq(nbrt_set_queue(s.rt, 2), 0);
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	rc = nbrt_array_finite_take(s.rt, &fin, t);
	ck_assert_msg(rc == 0 && fin == 1 && t[1] > 0, "the timed run's "
	              "take: %d, finite %d, busy %g: %s", rc, fin, t[1],
	              nbrt_error(s.rt));
	rc = nbrt_wait(s.rt, NULL);
	unsetenv("NBRT_TEST_FAIL");
	e = nbrt_error(s.rt);
	ck_assert_msg(rc == -1 && strstr(e, "1 untimed queued runs, the last of "
	                                 "kernel gravity: clFinish failed with "
	                                 "CL_OUT_OF_RESOURCES") &&
	              strstr(e, nbrt_device_name(s.rt)), "%d: %s", rc, e);
	ck_assert_int_eq(nbrt_wait(s.rt, NULL), 0);
	/* queued_run fails timed runs alone */
	setenv("NBRT_TEST_FAIL", "queued_run", 1);
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	rc = nbrt_wait(s.rt, NULL);
	unsetenv("NBRT_TEST_FAIL");
	ck_assert_msg(rc == 0, "queued_run failed an untimed run: %s",
	              nbrt_error(s.rt));
	for (int c = 0; c < 4; c++) {
		free(one[c]);
		free(got[c]);
	}
	unmake(&s);
}
END_TEST

/* new random values for host copy v and its array */
static void rewrite(setup *s, int v)
{
	size_t n = v >= 3 && v < 7 ? s->nj : s->ni;
	for (size_t e = 0; e < n; e++)
		s->h[v][e] = urand(-1, 1);
	ck_assert_int_eq(nbrt_array_write(s->a[v], s->h[v]), 0);
}

/* one run (queue mode `mode`) whose results must be the sums of the
 * host copies' values now (check_ref: a conversion kept from before a
 * change would miss it by far more than the tolerance) */
static void run_check(setup *s, double *got[4], const char *what)
{
	ck_assert_msg(nbrt_run(s->k, s->ni, s->nj) == 0, "%s: %s", what,
	              nbrt_error(s->rt));
	results(s, got);
	check_ref(s, got);
}

/* Every writer of an input array between runs is seen (cl/run.c keeps
 * a run's conversion of its unchanged device arrays, by their stamps). */
START_TEST(changed)
{
	int mode = _i; /* 0 waited, 1 queued, 2 untimed */
	size_t n = 100 + rng[1] % 100;
	setup s;
	make(&s, NB_FLOAT, n, n);
	ck_assert_int_eq(nbrt_set_queue(s.rt, mode), 0);
	double *got[4];
	for (int c = 0; c < 4; c++)
		got[c] = malloc(n * sizeof(double));
	run_check(&s, got, "first");
	run_check(&s, got, "unchanged");
	rewrite(&s, 0); /* an i-position */
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	rewrite(&s, 4); /* a j-position, its pack */
	run_check(&s, got, "array writes");
	/* zj += zi / 2 on the device; its values read back for the check */
	ck_assert_int_eq(nbrt_array_axpy(&s.a[5], 0.5, &s.a[2], 1), 0);
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	ck_assert_int_eq(nbrt_array_read(s.a[5], s.h[5]), 0);
	run_check(&s, got, "an axpy");
	/* another array in mj's place */
	nbrt_array *m2 = nbrt_array_new(s.rt, n);
	for (size_t e = 0; e < n; e++)
		s.h[6][e] = urand(0.5, 1.5);
	ck_assert_int_eq(nbrt_array_write(m2, s.h[6]), 0);
	ck_assert_int_eq(nbrt_bind_array(s.k, "mj", m2), 0);
	run_check(&s, got, "another array bound");
	/* a second kernel's results (its ax) as this one's yi: a run of it
	 * that changes them (xi changed) between two of this one's */
	nbrt_kernel *k2 = nbrt_load(s.rt, GRAVITY, NULL);
	ck_assert_msg(k2 != NULL, "%s", nbrt_error(s.rt));
	ck_assert_int_eq(nbrt_set_const(k2, "eps2", EPS2, 0), 0);
	nbrt_array *out[4];
	for (int c = 0; c < 4; c++) {
		out[c] = nbrt_array_new(s.rt, n);
		ck_assert_ptr_nonnull(out[c]);
		ck_assert_int_eq(nbrt_bind_array(k2, name[7 + c], out[c]), 0);
	}
	for (int v = 0; v < 7; v++)
		ck_assert_int_eq(nbrt_bind_array(k2, name[v], v == 6 ? m2 : s.a[v]),
		                 0);
	ck_assert_int_eq(nbrt_bind_array(s.k, "yi", out[0]), 0);
	ck_assert_int_eq(nbrt_run(k2, n, n), 0);
	ck_assert_int_eq(nbrt_run(s.k, n, n), 0);
	rewrite(&s, 0);
	ck_assert_int_eq(nbrt_run(k2, n, n), 0);
	ck_assert_int_eq(nbrt_array_read(out[0], s.h[1]), 0);
	run_check(&s, got, "another kernel's results");
	ck_assert_int_eq(nbrt_bind_array(s.k, "yi", s.a[1]), 0);
	ck_assert_int_eq(nbrt_bind_array(s.k, "mj", s.a[6]), 0);
	ck_assert_msg(nbrt_wait(s.rt, NULL) == 0, "%s", nbrt_error(s.rt));
	for (int c = 0; c < 4; c++) {
		nbrt_array_free(out[c]);
		free(got[c]);
	}
	nbrt_array_free(m2);
	nbrt_free(k2);
	unmake(&s);
}
END_TEST

/* The host back end keeps arrays in the host's memory: refused, with
 * the reason; waiting there has nothing to wait for. */
START_TEST(host)
{
	nbrt *rt = nbrt_open("host", NULL);
	ck_assert_ptr_nonnull(rt);
	ck_assert_int_eq(nbrt_set_queue(rt, 1), -1);
	ck_assert_msg(strstr(nbrt_error(rt), "queued runs need arrays kept in "
	                     "the device's memory") != NULL, "%s",
	              nbrt_error(rt));
	ck_assert_int_eq(nbrt_set_queue(rt, 0), 0);
	double t[2] = {1, 1};
	ck_assert_int_eq(nbrt_wait(rt, t), 0);
	ck_assert(t[0] == 0 && t[1] == 0);
	ck_assert_int_eq(nbrt_wait(NULL, NULL), -1);
	/* the check's halves on host arrays: the answer at the queue */
	nbrt_array *a = nbrt_array_new(rt, 5);
	ck_assert_ptr_nonnull(a);
	double v[5] = {1, 2, 3, 4, 5};
	int fin = -1;
	ck_assert_int_eq(nbrt_array_write(a, v), 0);
	ck_assert_int_eq(nbrt_array_finite_queue(&a, 1), 0);
	v[3] = INFINITY;
	ck_assert_int_eq(nbrt_array_write(a, v), 0);
	ck_assert_int_eq(nbrt_array_finite_queue(&a, 1), 0);
	ck_assert_int_eq(nbrt_array_finite_take(rt, &fin, t), 0);
	ck_assert(fin == 1 && t[0] == 0 && t[1] == 0);
	ck_assert_int_eq(nbrt_array_finite_take(rt, &fin, NULL), 0);
	ck_assert(fin == 0);
	ck_assert_int_eq(nbrt_array_finite_take(rt, &fin, NULL), -1);
	ck_assert_int_eq(nbrt_array_finite_take(NULL, &fin, NULL), -1);
	nbrt_array_free(a);
	nbrt_close(rt);
}
END_TEST

int main(void)
{
	seed_rng("test_queue", rng);
	reps = 2 + rng[0] % 5;
	Suite *s;
	TCase *tc = unit_case(&s, "queue", 120);
	tcase_add_test(tc, host);
	int missing = cpu_missing();
	if (!missing) {
		tcase_add_test(tc, same_results);
		tcase_add_test(tc, failures);
		tcase_add_test(tc, halves);
		tcase_add_test(tc, env);
		tcase_add_test(tc, untimed);
		tcase_add_loop_test(tc, changed, 0, 3);
	}
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? 1 : missing ? 77 : 0;
}
