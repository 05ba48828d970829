/* test_nbody_force.c: the force bin/nbody gets from gravity.nbl through
 * the runtime, bound as bin/nbody binds it, matches a direct sum in double
 * written here, on a fresh Plummer sphere (N = 1024, seed printed;
 * NBCC_TEST_SEED=S repeats it) and on an odd N with i-unrolling tails.
 * Tolerance, per body: |a - a_ref| <= tol * sum_j |m_j r_ij| / (r^2 +
 * eps^2)^(3/2), and the same for the potential with sum_j m_j / (r^2 +
 * eps^2)^(1/2): the sums of the terms' sizes bound float rounding without
 * being fooled by cancellation near the centre.  tol = 1e-5 for float
 * kernels (worst case N u = 1024 * 6e-8 = 6e-5; typical sqrt(N) u), 1e-13
 * for double.  Run on the host C back end, and on PoCL where there is
 * one (without, the exit status is 77, skipped, for tests/run.sh). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nbrt.h"
#include "cpudev.h"
#include "seed.h"
#include "sim.h"
#include "unit.h"

#ifndef ROOT
#define ROOT "."
#endif

static uint64_t seed;

static const char *kernel_path(void)
{
	static char path[4096];
	const char *root = getenv("ROOT");
	snprintf(path, sizeof path, "%s/dsl-examples/gravity.nbl",
	         root ? root : ROOT);
	return path;
}

/* the worst error over the bodies, in units of the size sums above */
static void compare(const sim *s, double *aerr, double *perr)
{
	double e2 = s->eps * s->eps;
	*aerr = *perr = 0;
	for (size_t i = 0; i < s->n; i++) {
		double a[3] = {0}, p = 0, asize = 0, psize = 0;
		for (size_t j = 0; j < s->n; j++) {
			double d[3] = {s->x[j] - s->x[i], s->y[j] - s->y[i],
			               s->z[j] - s->z[i]};
			double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + e2;
			double pj = s->m[j] / sqrt(r2), fj = pj / r2;
			for (int k = 0; k < 3; k++)
				a[k] += fj * d[k];
			p -= pj;
			asize += fj * sqrt(r2 - e2);
			psize += pj;
		}
		double da = sqrt(pow(s->ax[i] - a[0], 2) + pow(s->ay[i] - a[1], 2) +
		                 pow(s->az[i] - a[2], 2));
		*aerr = fmax(*aerr, da / asize);
		*perr = fmax(*perr, fabs(s->pot[i] - p) / psize);
	}
}

static void run_on(const char *device, size_t n, nb_prec prec, int unroll,
                   double tol)
{
	char *err = NULL;
	nbrt *rt = nbrt_open(device, &err);
	if (!rt) {
		/* only PoCL may be missing; the host back end must work */
		ck_assert_msg(strcmp(device, "host") != 0, "%s", err);
		printf("skip %s: %s\n", device, err);
		free(err);
		return;
	}
	nb_options o;
	nb_options_init(&o);
	o.precision = prec;
	o.unroll_i = unroll;
	nbrt_kernel *k = nbrt_load(rt, kernel_path(), &o);
	ck_assert_msg(k != NULL, "%s", nbrt_error(rt));
	sim s;
	ck_assert_int_eq(sim_alloc(&s, n, 1.0 / 64), 0);
	sim_ic_make(&s, SIM_PLUMMER, seed);
	struct {
		const char *name;
		double *p;
	} b[] = {{"xi", s.x}, {"yi", s.y}, {"zi", s.z}, {"xj", s.x},
	         {"yj", s.y}, {"zj", s.z}, {"mj", s.m}, {"ax", s.ax},
	         {"ay", s.ay}, {"az", s.az}, {"pot", s.pot}};
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		ck_assert_msg(nbrt_bind(k, b[i].name, NBRT_DOUBLE, b[i].p) == 0,
		              "%s", nbrt_error(rt));
	ck_assert(nbrt_set_const(k, "eps2", s.eps * s.eps, 0) == 0);
	ck_assert_msg(nbrt_run(k, n, n) == 0, "%s", nbrt_error(rt));
	double aerr, perr;
	compare(&s, &aerr, &perr);
	printf("%s N=%zu %s unroll-i=%d: force error %.2e, potential error "
	       "%.2e (tolerance %.0e)\n", nbrt_device_name(rt), n,
	       nb_prec_name(prec), unroll, aerr, perr, tol);
	ck_assert(aerr <= tol && perr <= tol);
	/* not a zero or constant answer: the potential is deep, the
	 * accelerations point inwards on the whole */
	double inward = 0;
	for (size_t i = 0; i < n; i++)
		inward -= s.x[i] * s.ax[i] + s.y[i] * s.ay[i] + s.z[i] * s.az[i];
	ck_assert(inward > 0 && s.pot[0] < -0.1);
	sim_free(&s);
	nbrt_free(k);
	nbrt_close(rt);
}

START_TEST(host_float)
{
	run_on("host", 1024, NB_FLOAT, 0, 1e-5);
	run_on("host", 1001, NB_FLOAT, 3, 1e-5);
}
END_TEST

START_TEST(host_double)
{
	run_on("host", 517, NB_DOUBLE, 0, 1e-13);
}
END_TEST

START_TEST(pocl_float)
{
	run_on("cpu", 1024, NB_FLOAT, 0, 1e-5);
	run_on("cpu", 1001, NB_FLOAT, 3, 1e-5);
	run_on("cpu", 517, NB_DOUBLE, 0, 1e-13);
}
END_TEST

int main(void)
{
	seed = test_seed("test_nbody_force");
	int missing = cpu_missing();
	Suite *s;
	TCase *tc = unit_case(&s, "nbody_force", 120);
	tcase_add_test(tc, host_float);
	tcase_add_test(tc, host_double);
	tcase_add_test(tc, pocl_float);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? 1 : missing ? 77 : 0;
}
