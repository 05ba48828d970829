/* test_quad.c: bin/oneloop's error estimate from the rule at N, N/2, N/4
 * and N/8 (apps/oneloop/quad.c, quad_error): the geometric tail where the
 * differences show the rule's exp(-c N) convergence, and |I_N - I_N/2|
 * itself wherever they do not -- a difference small by chance, a
 * convergence that slows, no N/8 -- the rounding's floor, and NaN kept. */
#include <check.h>
#include <math.h>
#include "../../apps/oneloop/oneloop.h"
#include "unit.h"

/* relative closeness, for the values computed the same way here */
static int near(double a, double b)
{
	return fabs(a - b) <= 1e-15 * fabs(b);
}

START_TEST(geometric)
{
	/* factors 1e-2 then 1e-4 = (1e-2)^2: exp(-c N) exactly */
	double dn = 1e-8, q = 1e-4;
	ck_assert(near(quad_error(dn, 1e-4, 1e-2, 0), dn * q / (1 - q)));
	/* factors 0.25 then 0.1: improving, within q1^4 */
	ck_assert(near(quad_error(0.01, 0.1, 0.4, 0), 0.01 * 0.1 / 0.9));
	/* the floor, where the tail is below it */
	ck_assert(quad_error(1e-20, 1e-10, 1e-5, 1e-29) == 1e-29);
	ck_assert(quad_error(1e-20, 1e-10, 1e-5, 0) < 1e-29);
}
END_TEST

START_TEST(untrusted)
{
	/* the last factor worse than the one before: convergence slowing */
	ck_assert(quad_error(1e-3, 1e-2, 1, 0) == 1e-3);
	/* better than exp(-c N) explains (q < q1^4): N and N/2 agree by
	 * chance, as at s = 2, N = 64, where both were 9e-4 off and
	 * |I_N - I_N/2| was 1.7e-4 */
	ck_assert(quad_error(1.7e-4, 0.28, 0.7, 0) == 1.7e-4);
	/* the factor before not below 1/2: nothing to extrapolate from */
	ck_assert(quad_error(1e-3, 0.3, 0.5, 0) == 1e-3);
	/* no N/8, or N/4 and N/8 equal */
	ck_assert(quad_error(1e-8, 1e-4, -1, 0) == 1e-8);
	ck_assert(quad_error(1e-8, 0, 1e-2, 0) == 1e-8);
	/* dn = 0: the floor, not 0 */
	ck_assert(quad_error(0, 1e-4, 1e-2, 1e-30) == 1e-30);
}
END_TEST

/* power 1.5 (the deformed contour): q^1.5 where the factor improves at
 * least as fast as q1^1.5, as at lambda = 0.01, s = 2, N = 256 (the
 * differences 2.06e-4, 2.72e-2, 0.262 measured there; true error 1.4e-8);
 * q itself where it improves more slowly */
START_TEST(power)
{
	double dn = 2.06e-4, dh = 2.72e-2, dq = 0.262, q = dn / dh;
	double e = quad_error_pow(dn, dh, dq, 0, 1.5);
	ck_assert(near(e, dn * pow(q, 1.5) / (1 - q)));
	ck_assert(e > 1.4e-8 && e < quad_error(dn, dh, dq, 0) / 10);
	ck_assert(quad_error_pow(dn, dh, dq, 0, 1) == quad_error(dn, dh, dq, 0));
	/* q = 0.09 > q1^1.5 = 0.027 (q1 = 0.09 too): not fast enough */
	ck_assert(near(quad_error_pow(9e-4, 1e-2, 0.111, 0, 1.5),
	               9e-4 * 0.09 / 0.91));
	ck_assert(quad_error_pow(1e-20, 1e-10, 1e-5, 1e-29, 1.5) == 1e-29);
}
END_TEST

START_TEST(nan_kept)
{
	ck_assert(isnan(quad_error(NAN, 1e-4, 1e-2, 1e-30)));
	ck_assert(isnan(quad_error(NAN, -1, -1, 1e-30)));
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc = unit_case(&s, "quad", 0);
	tcase_add_test(tc, geometric);
	tcase_add_test(tc, untrusted);
	tcase_add_test(tc, power);
	tcase_add_test(tc, nan_kept);
	int nf = unit_run(s, CK_FORK_GETENV);
	return nf ? 1 : 0;
}
