/* fit.c: the extrapolation lambda -> 0 of bin/oneloop by the asymptotic
 * form I = A ln lambda + B + sum_p lambda^p (c_p + d_p ln lambda), fitted
 * exactly to consecutive points in QD's quad-double (generalized
 * Richardson elimination), each fit with the error its inputs' errors
 * propagate into A and B, and the best fit chosen (docs/oneloop.md). */
#include <qd/c_qd.h>
#include <string.h>
#include "oneloop.h"

/* q <= FIT_MAXQ unknowns: 2 + 2 P */
#define FIT_MAXQ (2 + 2 * FIT_MAXP)

typedef double qd[4];

static void qd_of(const nb_dd x, double *q)
{
	q[0] = x.hi;
	q[1] = x.lo;
	q[2] = q[3] = 0;
}

/* Solves M x = r for q unknowns by Gaussian elimination with partial
 * pivoting, for nr right-hand sides at once (columns of r, stride nr). */
static int solve(int q, qd *m, int nr, qd *r)
{
	for (int c = 0; c < q; c++) {
		int piv = c;
		for (int i = c + 1; i < q; i++)
			if (fabs(m[i * q + c][0]) > fabs(m[piv * q + c][0]))
				piv = i;
		if (m[piv * q + c][0] == 0)
			return 1;
		if (piv != c) {
			for (int k = 0; k < q; k++) {
				qd t;
				memcpy(t, m[c * q + k], sizeof t);
				memcpy(m[c * q + k], m[piv * q + k], sizeof t);
				memcpy(m[piv * q + k], t, sizeof t);
			}
			for (int k = 0; k < nr; k++) {
				qd t;
				memcpy(t, r[c * nr + k], sizeof t);
				memcpy(r[c * nr + k], r[piv * nr + k], sizeof t);
				memcpy(r[piv * nr + k], t, sizeof t);
			}
		}
		for (int i = c + 1; i < q; i++) {
			qd f, t;
			c_qd_div(m[i * q + c], m[c * q + c], f);
			for (int k = c; k < q; k++) {
				c_qd_mul(f, m[c * q + k], t);
				c_qd_selfsub(t, m[i * q + k]);
			}
			for (int k = 0; k < nr; k++) {
				c_qd_mul(f, r[c * nr + k], t);
				c_qd_selfsub(t, r[i * nr + k]);
			}
		}
	}
	for (int c = q - 1; c >= 0; c--)
		for (int k = 0; k < nr; k++) {
			qd t;
			for (int i = c + 1; i < q; i++) {
				c_qd_mul(m[c * q + i], r[i * nr + k], t);
				c_qd_selfsub(t, r[c * nr + k]);
			}
			c_qd_selfdiv(m[c * q + c], r[c * nr + k]);
		}
	return 0;
}

/* The fit with p pairs of power terms to the points j .. j+2+2p-1. */
static int fit_one(const fit_in *in, int p, int j, fit_out *o)
{
	int q = 2 + 2 * p, nr = q + 1;
	qd m[FIT_MAXQ * FIT_MAXQ], r[FIT_MAXQ * (FIT_MAXQ + 1)], l0, t;
	/* scaled by the window's first lambda, so the powers are O(1):
	 * A ln(lambda) + B = A ln(lambda/l0) + (B + A ln l0) */
	qd_of(in->lam[j], l0);
	for (int i = 0; i < q; i++) {
		qd x, lx, xp;
		qd_of(in->lam[j + i], x);
		c_qd_selfdiv(l0, x);
		c_qd_log(x, lx);
		c_qd_copy(lx, m[i * q + 0]);
		c_qd_copy_d(1, m[i * q + 1]);
		c_qd_copy_d(1, xp);
		for (int k = 1; k <= p; k++) {
			c_qd_selfmul(x, xp);
			c_qd_copy(xp, m[i * q + 2 * k]);
			c_qd_mul(xp, lx, m[i * q + 2 * k + 1]);
		}
		/* the right-hand sides: the values, then the unit vectors, whose
		 * solutions are the weights of each value in A and B */
		qd_of(in->val[j + i], r[i * nr]);
		for (int k = 0; k < q; k++)
			c_qd_copy_d(k == i, r[i * nr + 1 + k]);
	}
	if (solve(q, m, nr, r))
		return 1;
	/* B = B' - A ln l0 */
	qd ll0;
	c_qd_log(l0, ll0);
	c_qd_mul(r[0], ll0, t);
	c_qd_sub(r[nr], t, t);
	o->a = nb_dd_make(r[0][0], r[0][1]);
	o->b = nb_dd_make(t[0], t[1]);
	double pa = 0, pb = 0;
	for (int k = 0; k < q; k++) {
		double e = in->err[j + k], alpha = r[1 + k][0],
		       beta = r[nr + 1 + k][0] - alpha * ll0[0];
		/* a value's own rounding, where its estimate is below it */
		double v = fabs(in->val[j + k].hi) * (in->dbl ? 0x1p-52 : 0x1p-104);
		e = e > v ? e : v;
		pa += fabs(alpha) * e;
		pb += fabs(beta) * e;
	}
	o->pa = pa;
	o->pb = pb;
	o->p = p;
	o->j = j;
	return 0;
}

/* For each p, the fits to consecutive windows, j and j+1: their
 * difference estimates the terms the model leaves out (an overestimate of
 * those of the second, whose lambdas are smaller by RATIO), to which the
 * second's propagated error is added.  The fit of least error wins, for A
 * and for B separately. */
int fit_best(const fit_in *in, fit_out *a, fit_out *b)
{
	int found = 0;
	for (int p = 0; p <= FIT_MAXP; p++) {
		int q = 2 + 2 * p;
		/* each window's fit serves twice: as the second of a pair, then
		 * as the first of the next */
		fit_out f0, f1;
		int have = 0;
		for (int j = 0; j + q <= in->m; j++, f0 = f1) {
			int had = have;
			have = !fit_one(in, p, j, &f1);
			if (!had || !have)
				continue;
			f1.ea = fabs(num_sub(0, f1.a, f0.a).hi) + f1.pa;
			f1.eb = fabs(num_sub(0, f1.b, f0.b).hi) + f1.pb;
			if (!found || f1.ea < a->ea)
				*a = f1;
			if (!found || f1.eb < b->eb)
				*b = f1;
			found = 1;
		}
	}
	return !found;
}
