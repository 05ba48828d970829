/* test_powexp.c: the exponent of ** is a literal in the type of its base.
 * A dd kernel computing w * x**0.1 + x**(1/3) + x**2.5 on the host runs
 * on fresh random inputs (seed printed; NBCC_TEST_SEED=S repeats a run) and is
 * held to QD: x**e = exp(e log x) with e = 1/10 and 1/3 divided in dd, and
 * x**2.5 = x*x*sqrt(x).  The tolerance is 1e-29 relative to each result
 * (the library's pow is good to about (1 + |e log x|) 2^-104); an exponent
 * taken as the double 0.1 or 1/3 is 1e-17 off. */
#include <check.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <qd/c_dd.h>
#include "nbrt.h"
#include "seed.h"
#include "unit.h"

static const char src[] =
	"LMEM dd x;\nBMEM dd w;\nRMEM dd r;\n"
	"r += w*x**0.1 + x**(1/3) + x**2.5;\n";

static unsigned short rng[3]; /* erand48's state, from seed_rng */

static double urand(double a, double b) { return a + (b - a) * erand48(rng); }

/* a normalized dd in [a, b) with a random low part */
static void rand_dd(double *v, double a, double b)
{
	double hi = urand(a, b), lo = hi * 0x1p-53 * urand(-1, 1);
	v[0] = hi + lo;
	v[1] = lo - (v[0] - hi);
}

static int rm_entry(const char *p, const struct stat *st, int flag,
                    struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

/* x**e in QD as exp(e log x) */
static void qd_pow(const double *x, const double *e, double *r)
{
	double l[2], p[2];
	c_dd_log(x, l);
	c_dd_mul(e, l, p);
	c_dd_exp(p, r);
}

START_TEST(pow_exponent_dd)
{
	char cache[] = "/tmp/test_powexp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(cache));
	setenv("NBRT_CACHE_DIR", cache, 1);
	char *err = NULL;
	nbrt *rt = nbrt_open("host", &err);
	ck_assert_msg(rt != NULL, "nbrt_open: %s", err);
	nbrt_kernel *k = nbrt_load_source(rt, "powexp.nbl", src, strlen(src),
	                                  NULL);
	ck_assert_msg(k != NULL, "load: %s", nbrt_error(rt));
	enum { NI = 37, NJ = 5 };
	double x[2 * NI], w[2 * NJ], r[2 * NI];
	for (int i = 0; i < NI; i++)
		rand_dd(&x[2 * i], 1, 100);
	for (int j = 0; j < NJ; j++)
		rand_dd(&w[2 * j], 0.5, 1);
	ck_assert_int_eq(nbrt_bind(k, "x", NBRT_DD, x), 0);
	ck_assert_int_eq(nbrt_bind(k, "w", NBRT_DD, w), 0);
	ck_assert_int_eq(nbrt_bind(k, "r", NBRT_DD, r), 0);
	ck_assert_msg(nbrt_run(k, NI, NJ) == 0, "run: %s", nbrt_error(rt));
	double one[2] = {1, 0}, tenth[2], third[2], worst = 0;
	c_dd_div_dd_d(one, 10, tenth);
	c_dd_div_dd_d(one, 3, third);
	for (int i = 0; i < NI; i++) {
		const double *xi = &x[2 * i];
		double a[2], b[2], c[2], s[2], t[2], sum[2] = {0, 0}, e[2];
		qd_pow(xi, tenth, a);
		qd_pow(xi, third, b);
		c_dd_sqrt(xi, s);
		c_dd_mul(xi, xi, t);
		c_dd_mul(t, s, c);
		c_dd_add(b, c, b);
		for (int j = 0; j < NJ; j++) {
			c_dd_mul(&w[2 * j], a, t);
			c_dd_add(t, b, t);
			c_dd_add(sum, t, sum);
		}
		c_dd_sub(&r[2 * i], sum, e);
		double rel = fabs(e[0]) / fabs(sum[0]);
		if (rel > worst)
			worst = rel;
	}
	printf("test_powexp: largest relative error %.3g\n", worst);
	ck_assert_msg(worst <= 1e-29, "x**0.1, x**(1/3) in dd: relative error "
	              "%.3g > 1e-29", worst);
	nbrt_free(k);
	nbrt_close(rt);
	nftw(cache, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}
END_TEST

int main(void)
{
	seed_rng("test_powexp", rng);
	Suite *su;
	TCase *tc = unit_case(&su, "powexp", 60);
	tcase_add_test(tc, pow_exponent_dd);
	int failed = unit_run(su, CK_NOFORK);
	return failed ? 1 : 0;
}
