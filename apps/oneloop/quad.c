/* quad.c: the tanh-sinh (double-exponential) rule of bin/oneloop, its
 * nodes and weights computed with QD's quad-double (about 62 digits) and
 * rounded once to dd or double, so the rule itself adds no rounding; and
 * the estimate of its error from its values at N, N/2, N/4 and N/8. */
#include <float.h>
#include <math.h>
#include <qd/c_qd.h>
#include "oneloop.h"

/* a quad-double rounded to dd: (q0, q1) is within ulp(q1)/2 of it */
static nb_dd round_qd(const double *q, int dbl)
{
	return dbl ? nb_dd_from(q[0]) : nb_dd_make(q[0], q[1]);
}

void quad_rule(long n, double T, int shift, int dbl, nb_dd *u, nb_dd *v,
               nb_dd *w)
{
	double pi[4], h[4], t[4], sh[4], ch[4], e[4], one_e[4], q[4], r[4];
	c_qd_pi(pi);
	c_qd_copy_d(2 * T, h);
	c_qd_selfdiv_d((double)n, h);
	for (long k = 0; k < n; k++) {
		/* t = T (2k + 1 - n) / n, or (2k + 2 - n) / n shifted: the
		 * numerator is exact in double (T is 4.5 or 3) */
		c_qd_copy_d(T * (double)(2 * k + 1 + !!shift - n), t);
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

double quad_tail(double T)
{
	return 1 / (1 + exp(M_PI * sinh(T)));
}

double quad_tail_shift(long n, double T, int shift)
{
	return quad_tail_cell(-M_PI * sinh(T - (shift ? T / n : 0)), M_PI,
	                      2 * T / n);
}

/* Near u = 0, where the integrand is its face's value F, the rule's
 * terms are F u(t) l'(t) h ~ F exp(c t) h, c = l' + l'' / l' (with l =
 * alpha sinh t, l' = sqrt(alpha^2 + l^2)).  The terms the rule leaves
 * out, those of the infinite rule beyond its first cell's start l, sum
 * to v(l) x / sinh x, x = c h / 2, not to v(l) = the length of (0, 1)
 * there: 2.3% less at N = 256 (T = 3), which at lambda = 0.01 is 2.5e-12
 * of the faces' slabs (the midpoint rule's end correction). */
double quad_tail_cell(double l, double alpha, double h)
{
	double r = sqrt(alpha * alpha + l * l), x = (r + l / r) * h / 2;
	return x / sinh(x) / (1 + exp(-l));
}

/* The error of I_N from the same rule at N, N/2, N/4 and N/8
 * (docs/oneloop.md, "The error estimate").  dn = |I_N - I_N/2| is about
 * the error of N/2, not of N: on an analytic integrand the rule's error
 * falls like exp(-c N), so the factor by which it falls grows with each
 * doubling.  With q = dn / dh and q1 = dh / dq the last two factors
 * (dh = |I_N/2 - I_N/4|, dq = |I_N/4 - I_N/8|), N's factor is taken to be
 * no better than q, and the errors from N/2 on a geometric series: N's is
 * dn q / (1 - q).  That is trusted only where the sequence shows the
 * rule's convergence, the factor improving (q <= q1 < 1/2) but not by
 * more than exp(-c N) explains (q >= q1^4; exactly, q = q1^2): a
 * difference small by chance, as two coarse rules that err alike give,
 * breaks one of these.  Otherwise dn, as where N/8 is not available
 * (dq < 0); and never below floor, the rounding's bound. */
double quad_error(double dn, double dh, double dq, double floor)
{
	return quad_error_pow(dn, dh, dq, floor, 1);
}

/* The same with N's factor taken as q^power: power 1 is the bound above;
 * on the deformed contour, whose values fall like exp(-c N) once N
 * resolves the corners (q = q1^2 within 10% at lambda = 0.01, s = 2),
 * 1.5, which keeps a margin of q^-1/2 over that law's q^2 (at lambda =
 * 0.01, N = 256: 1.4e-7 against a true error of 1.4e-8, where power 1
 * gave 1.6e-6).  Only where the factor improves at least as fast as
 * that law needs, q <= q1^power. */
double quad_error_pow(double dn, double dh, double dq, double floor,
                      double power)
{
	double e = dn;
	if (dq > 0 && dh > 0 && dh < dq / 2) {
		double q = dn / dh, q1 = dh / dq;
		if (q <= q1 && q >= q1 * q1 * q1 * q1)
			e = dn * (q <= pow(q1, power) ? pow(q, power) : q) / (1 - q);
	}
	return e < floor ? floor : e; /* NaN stays NaN */
}

/* t(l) and its derivative rho(l) = dt/dl of the banded map */
static long double band_t(const quad_bands *b, long double l, long double *rho)
{
	long double a = b->alpha, t = asinhl(l / a), d = 1 / sqrtl(a * a + l * l);
	for (int j = 0; j < b->nb; j++) {
		long double s = b->width[j], x = (l - b->at[j]) / s;
		t += b->amp[j] * s * 0.886226925452758013649L * erfl(x);
		d += b->amp[j] * expl(-x * x);
	}
	*rho = d;
	return t;
}

/* l with t(l) = t, by Newton from l (t(l) is increasing and smooth, so a
 * start a step away converges in a few steps); *rho its derivative.  The
 * nodes come from long double (LDBL_MANT_DIG 64 on x86: 1e-19, far below
 * the bands' 1e-12 rule errors that the 8-digit target meets; dd's lo
 * parts carry only those bits). */
static long double band_solve(const quad_bands *b, long double t,
                              long double l, long double *rho)
{
	for (int it = 0; it < 100; it++) {
		long double dl = (band_t(b, l, rho) - t) / *rho;
		l -= dl;
		if (fabsl(dl) <= 8 * LDBL_EPSILON * (1 + fabsl(l)))
			break;
	}
	band_t(b, l, rho);
	return l;
}

double quad_rule_bands(long n, const quad_bands *b, int shift, int dbl,
                       nb_dd *u, nb_dd *v, nb_dd *w)
{
	long double rho, ta = band_t(b, -b->reach, &rho),
	                 tb = band_t(b, b->reach, &rho), h = (tb - ta) / n,
	                 l = -b->reach;
	band_t(b, l, &rho);
	for (long k = 0; k < n; k++) {
		long double t = ta + (k + (shift ? 1 : 0.5L)) * h;
		/* from a step h / rho past the last node */
		l = band_solve(b, t, l + (k ? 1 : shift ? 1 : 0.5L) * h / rho, &rho);
		long double uu = 1 / (1 + expl(-l)), vv = 1 / (1 + expl(l));
		long double ww = h * uu * vv / rho;
		u[k] = dbl ? nb_dd_from((double)uu)
		           : nb_dd_make((double)uu, (double)(uu - (double)uu));
		v[k] = dbl ? nb_dd_from((double)vv)
		           : nb_dd_make((double)vv, (double)(vv - (double)vv));
		w[k] = dbl ? nb_dd_from((double)ww)
		           : nb_dd_make((double)ww, (double)(ww - (double)ww));
	}
	if (!shift)
		return quad_tail_cell(-b->reach, b->alpha, (double)h);
	/* the shifted rule's first cell starts half a step in: l there */
	l = band_solve(b, ta + h / 2, -b->reach, &rho);
	return quad_tail_cell((double)l, b->alpha, (double)h);
}
