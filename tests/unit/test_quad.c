/* test_quad.c: bin/oneloop's error estimate from the rule at N, N/2, N/4
 * and N/8 (apps/oneloop/quad.c, quad_error): the geometric tail where the
 * differences show the rule's exp(-c N) convergence, and |I_N - I_N/2|
 * itself wherever they do not -- a difference small by chance, a
 * convergence that slows, no N/8 -- the rounding's floor, and NaN kept.
 * The deformed contour's u1 rule with bands (quad_rule_bands): on a peak
 * of the integrand in l = ln(u / (1 - u)) where a band is, far better
 * than the tanh-sinh rule of as many nodes; the same rule shifted by half
 * a step errs by about as much with the sign changed (the contour's
 * estimate); and the end correction of what the rule leaves out below
 * its first cell (quad_tail_cell) against the left-out terms summed. */
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

/* sum of the rule's w f(l) / (u v): the integral over l of f */
static double rule_sum(long n, const nb_dd *u, const nb_dd *v, const nb_dd *w,
                       double c, double wd)
{
	double s = 0;
	for (long k = 0; k < n; k++) {
		double l = log(u[k].hi / v[k].hi), x = (l - c) / wd, ch = cosh(x);
		s += w[k].hi / (u[k].hi * v[k].hi) / (ch * ch) / (2 * wd);
	}
	return s;
}

/* f = sech^2((l - c) / wd) / (2 wd), whose integral is 1, with poles
 * pi wd / 2 off the real axis: at c = 4.9, wd = 0.2 (the corner x = 1 at
 * lambda = 0.01), 256 nodes of the T = 3 rule err by 2.6e-5, the banded
 * rule (bands as bin/oneloop puts them there) by 2.9e-12 */
START_TEST(bands)
{
	enum { N = 256 };
	static nb_dd u[N], v[N], w[N], us[N], vs[N], ws[N];
	double c = 4.9, wd = 0.2;
	quad_bands b = {M_PI, M_PI * sinh(3.0), 2, {c, -10.5}, {0.3, 0.3},
	                {1.5, 2}};
	quad_rule(N, 3.0, 0, 1, u, v, w);
	double plain = rule_sum(N, u, v, w, c, wd) - 1;
	quad_rule_bands(N, &b, 0, 1, u, v, w);
	quad_rule_bands(N, &b, 1, 1, us, vs, ws);
	double band = rule_sum(N, u, v, w, c, wd) - 1,
	       shift = rule_sum(N, us, vs, ws, c, wd) - 1;
	for (long k = 0; k + 1 < N; k++)
		ck_assert(u[k].hi < u[k + 1].hi && v[k].hi > v[k + 1].hi &&
		          fabs(u[k].hi + v[k].hi - 1) <= 2e-16);
	ck_assert_msg(fabs(plain) > 1e-6 && fabs(band) < 1e-10 &&
	              fabs(band) < fabs(plain) / 1e5,
	              "plain %g, bands %g", plain, band);
	/* the shifted rule: the error's sign changed, so |I - I'| is about
	 * twice it (at least it, at most 3 times) */
	ck_assert_msg(band * shift < 0 && fabs(band - shift) >= fabs(band) &&
	              fabs(band - shift) <= 3 * fabs(band),
	              "bands %g, shifted %g", band, shift);
}
END_TEST

/* the terms of the infinite T = 3 rule below its first cell, for an
 * integrand 1 on (0, 1): sum over k < 0 of h pi cosh t_k u_k v_k, against
 * quad_tail_cell, for the rule and the rule shifted by half a step */
START_TEST(tail_cell)
{
	for (int shift = 0; shift < 2; shift++) {
		long n = 256;
		double T = 3, h = 2 * T / n, sum = 0;
		for (long k = -1; k > -400; k--) {
			double t = -T + (k + 0.5 + 0.5 * shift) * h, l = M_PI * sinh(t);
			sum += h * M_PI * cosh(t) / (1 + exp(-l)) / (1 + exp(l));
		}
		double e = quad_tail_shift(n, T, shift);
		ck_assert_msg(fabs(e - sum) <= 2e-3 * sum, "shift %d: %g, summed %g",
		              shift, e, sum);
		/* the end correction matters: the plain length is 2% off */
		double len = 1 / (1 + exp(M_PI * sinh(T - shift * h / 2)));
		ck_assert(fabs(len - sum) > 0.01 * sum);
	}
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
	tcase_add_test(tc, bands);
	tcase_add_test(tc, tail_cell);
	int nf = unit_run(s, CK_FORK_GETENV);
	return nf ? 1 : 0;
}
