/* quad.c: the tanh-sinh (double-exponential) rule of bin/oneloop, its
 * nodes and weights computed with QD's quad-double (about 62 digits) and
 * rounded once to dd or double, so the rule itself adds no rounding. */
#include <qd/c_qd.h>
#include "oneloop.h"

/* a quad-double rounded to dd: (q0, q1) is within ulp(q1)/2 of it */
static nb_dd round_qd(const double *q, int dbl)
{
	return dbl ? nb_dd_from(q[0]) : nb_dd_make(q[0], q[1]);
}

void quad_rule(long n, int dbl, nb_dd *u, nb_dd *v, nb_dd *w)
{
	double pi[4], h[4], t[4], sh[4], ch[4], e[4], one_e[4], q[4], r[4];
	c_qd_pi(pi);
	c_qd_copy_d(2 * QUAD_T, h);
	c_qd_selfdiv_d((double)n, h);
	for (long k = 0; k < n; k++) {
		/* t = T (2k + 1 - n) / n: the numerator is exact in double */
		c_qd_copy_d(QUAD_T * (double)(2 * k + 1 - n), t);
		c_qd_selfdiv_d((double)n, t);
		c_qd_sincosh(t, sh, ch);
		c_qd_mul(pi, sh, q);
		c_qd_exp(q, e);               /* E = exp(pi sinh t) */
		c_qd_add_d_qd(1.0, e, one_e); /* 1 + E */
		c_qd_div(e, one_e, q);        /* u = E / (1 + E) */
		u[k] = round_qd(q, dbl);
		c_qd_div_d_qd(1.0, one_e, r); /* v = 1 / (1 + E) */
		v[k] = round_qd(r, dbl);
		c_qd_selfmul(r, q);           /* u v */
		c_qd_selfmul(ch, q);
		c_qd_selfmul(pi, q);
		c_qd_selfmul(h, q);           /* w = h pi cosh(t) u v */
		w[k] = round_qd(q, dbl);
	}
}

double quad_tail(void)
{
	return 1 / (1 + exp(M_PI * sinh(QUAD_T)));
}
