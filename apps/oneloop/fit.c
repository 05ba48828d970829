/* fit.c: the extrapolation lambda -> 0 of bin/oneloop by the asymptotic
 * form I = A ln lambda + B + power terms (fit_terms: lambda^p and
 * lambda^p ln lambda as the basis says), fitted exactly to consecutive
 * points in QD's quad-double (generalized Richardson elimination), A
 * fitted or given, each fit with the error its inputs' errors propagate
 * into A and B, and the best fit chosen (docs/oneloop.md). */
#include <qd/c_qd.h>
#include <stdlib.h>
#include <string.h>
#include "oneloop.h"

/* q <= FIT_MAXQ unknowns: 2 + 2 P at most (FIT_PAIRS) */
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

/* The same in double for the weights of the values in A and B, which
 * need few digits: rows of M's inverse, as the solutions of M^T y = e_k
 * (m holds M^T), nr of them at once. */
static int solve_d(int q, double *m, int nr, double *r)
{
	for (int c = 0; c < q; c++) {
		int piv = c;
		for (int i = c + 1; i < q; i++)
			if (fabs(m[i * q + c]) > fabs(m[piv * q + c]))
				piv = i;
		if (m[piv * q + c] == 0)
			return 1;
		for (int k = 0; k < q && piv != c; k++) {
			double t = m[c * q + k];
			m[c * q + k] = m[piv * q + k];
			m[piv * q + k] = t;
		}
		for (int k = 0; k < nr && piv != c; k++) {
			double t = r[c * nr + k];
			r[c * nr + k] = r[piv * nr + k];
			r[piv * nr + k] = t;
		}
		for (int i = c + 1; i < q; i++) {
			double f = m[i * q + c] / m[c * q + c];
			for (int k = c; k < q; k++)
				m[i * q + k] -= f * m[c * q + k];
			for (int k = 0; k < nr; k++)
				r[i * nr + k] -= f * r[c * nr + k];
		}
	}
	for (int c = q - 1; c >= 0; c--)
		for (int k = 0; k < nr; k++) {
			for (int i = c + 1; i < q; i++)
				r[c * nr + k] -= m[c * q + i] * r[i * nr + k];
			r[c * nr + k] /= m[c * q + c];
		}
	return 0;
}

/* The power terms of P in the basis: their number, and with x, lx their
 * values at lambda/l0 = x, ln x = lx into row (when not NULL).  The
 * powers p = 1 .. P: FIT_PAIRS lambda^p and lambda^p ln lambda each;
 * FIT_ODD lambda^p, and lambda^p ln lambda for even p only; FIT_EVEN
 * lambda^2p alone (docs/oneloop.md, "The physical region's model"). */
static int fit_terms(int basis, int p, const double *x, const double *lx,
                     qd *row)
{
	int n = 0;
	qd xp;
	if (row)
		c_qd_copy_d(1, xp);
	for (int k = 1; k <= p; k++) {
		int reps = basis == FIT_EVEN ? 2 : 1;
		for (int e = 0; row && e < reps; e++)
			c_qd_selfmul(x, xp);
		if (row)
			c_qd_copy(xp, row[n]);
		n++;
		if (basis == FIT_PAIRS || (basis == FIT_ODD && k % 2 == 0)) {
			if (row)
				c_qd_mul(xp, lx, row[n]);
			n++;
		}
	}
	return n;
}

/* The fit with P = p to the points j .. j+q-1, q its unknowns: A (unless
 * given), B and the power terms. */
static int fit_one(const fit_in *in, const qd *ll, int p, int j, fit_out *o)
{
	int ka = !in->known_a, q = 1 + ka + fit_terms(in->basis, p, 0, 0, 0),
	    nr = 1;
	qd m[FIT_MAXQ * FIT_MAXQ], r[FIT_MAXQ], l0, t, ga;
	double md[FIT_MAXQ * FIT_MAXQ], w[FIT_MAXQ * 2];
	if (j + q > in->m)
		return 1;
	/* scaled by the window's first lambda, so the powers are O(1):
	 * A ln(lambda) + B = A ln(lambda/l0) + (B + A ln l0); a given A's
	 * term is taken from the values as they are */
	qd_of(in->lam[j], l0);
	qd_of(in->a, ga);
	for (int i = 0; i < q; i++) {
		qd x, lx;
		qd_of(in->lam[j + i], x);
		qd_of(in->val[j + i], r[i * nr]);
		if (!ka) {
			c_qd_mul(ga, ll[j + i], t);
			c_qd_selfsub(t, r[i * nr]);
		}
		c_qd_selfdiv(l0, x);
		c_qd_sub(ll[j + i], ll[j], lx);
		if (ka)
			c_qd_copy(lx, m[i * q + 0]);
		c_qd_copy_d(1, m[i * q + ka]);
		fit_terms(in->basis, p, x, lx, m + i * q + ka + 1);
		/* M^T, and the unit vectors of A (where fitted) and B: the
		 * solutions are the weights of each value in A and B */
		for (int k = 0; k < q; k++) {
			md[k * q + i] = m[i * q + k][0];
			if (k <= ka)
				w[i * (ka + 1) + k] = i == k;
		}
	}
	if (solve_d(q, md, ka + 1, w) || solve(q, m, nr, r))
		return 1;
	/* B = B' - A ln l0, where A was fitted */
	const double *ll0 = ll[j];
	if (ka) {
		c_qd_mul(r[0], ll0, t);
		c_qd_sub(r[nr], t, t);
		o->a = nb_dd_make(r[0][0], r[0][1]);
	} else {
		c_qd_copy(r[0], t);
		o->a = in->a;
	}
	o->b = nb_dd_make(t[0], t[1]);
	double pa = 0, pb = 0, sb = 0, fb = 0;
	for (int k = 0; k < q; k++) {
		double e = in->err[j + k], alpha = ka ? w[k * 2] : 0,
		       beta = ka ? w[k * 2 + 1] - alpha * ll0[0] : w[k];
		/* a value's own rounding, where its estimate is below it */
		double v = fabs(in->val[j + k].hi) * (in->dbl ? 0x1p-52 : 0x1p-104);
		e = e > v ? e : v;
		pa += fabs(alpha) * e;
		pb += fabs(beta) * e;
		if (in->sd) {
			sb += beta * in->sd[j + k];
			fb += fabs(beta) * fmax(in->fl[j + k], v);
		}
	}
	o->pa = pa;
	/* the shifted rule's differences carried through the fit with their
	 * signs: each is twice its value's error (to 3 digits against N =
	 * 768), so B's error from the values is sb / 2, taken whole (the
	 * margin of 2 each value's estimate has), where sum |beta_k| err_k
	 * charged every value's error with the sign that adds, against
	 * weights that alternate: at s = 6.65, t = -0.25, N = 256 (session
	 * 10's row of least digits) that sum was 4.2e-9, 7 times B's true
	 * error (docs/oneloop.md, "The model's error estimate").  Never
	 * above that sum, which bounds it where err holds; with A given
	 * only (the physical region's fits, where it was measured). */
	o->pb = in->sd && !ka ? fmin(pb, fabs(sb) + fb) : pb;
	o->p = p;
	o->j = j;
	o->q = q;
	return 0;
}

/* B's change from fit x to fit y */
static double change(const fit_out *x, const fit_out *y)
{
	return fabs(num_sub(0, x->b, y->b).hi);
}

/* The model's error of the fit of P = p to the window j (f[p * m + j],
 * made where ok), from d, its B's change from the window one lambda
 * larger, j - 1: d itself where A is fitted (the old estimate, which the
 * Euclidean region's measurements hold).  With A given (the physical
 * region) a change can be small by chance where successive fits swing
 * about the limit (N = 128, s = 2: B 8.9e-3 off beside a change of
 * 1.2e-3, the one before 2.4e-2), so a second estimate of the terms left
 * out is taken beside d: o, the change to the fit of one more power on
 * the same window (the model's next term fitted, with the noise its
 * values add), and the larger of d and o stands for the fit's error,
 * times rho / (1 - rho) where that is more, rho the factor by which the
 * next term falls from window to window (lambda^k, k = p + 1, or 2 (p +
 * 1) in FIT_EVEN, with its logarithm's ratio; at most 0.9), the rest of
 * the geometric series its changes make.  Where the window is the last
 * that P + 1 reaches, none: the larger of d and the change dp before it,
 * times rho / (1 - rho) for rho = d / dp (at most 0.9), the estimate
 * before session 10 (docs/oneloop.md, "The model's error estimate"). */
static double model_error(const fit_in *in, const fit_out *f, const int *ok,
                          const qd *ll, int p, int j)
{
	int m = in->m;
	const fit_out *x = f + p * m + j;
	double d = change(x, x - 1);
	if (!in->known_a)
		return d;
	if (p < FIT_MAXP && ok[(p + 1) * m + j]) {
		double o = change(x, x + m), l1 = ll[j][0], l0 = ll[j - 1][0];
		int k = in->basis == FIT_EVEN ? 2 * (p + 1) : p + 1;
		double rho = exp(k * (l1 - l0));
		if (l0 < 0)
			rho *= fmax(1, l1 / l0);
		rho = fmin(rho, 0.9);
		return fmax(d, o) * fmax(1, rho / (1 - rho));
	}
	double dp = j >= 2 && ok[p * m + j - 2] ? change(x - 1, x - 2) : -1;
	double rho = dp > 0 ? fmin(d / dp, 0.9) : 0.9;
	return fmax(d, dp) * fmax(1, rho / (1 - rho));
}

/* Every fit, each P to each window; then for each fit with a window one
 * lambda larger (j - 1 for j) its error estimate, model_error's and the
 * fit's propagated error.  The fit of least error wins, for A and for B
 * separately. */
int fit_best(const fit_in *in, fit_out *a, fit_out *b)
{
	/* ln lambda_k once: the logarithms had been 9/10 of the fits' time
	 * (24 ms a scan's row at 14 lambdas, against 28 ms of kernels on
	 * the GPU at N = 256) */
	int m = in->m, np = FIT_MAXP + 1;
	qd *ll = malloc((size_t)m * sizeof *ll);
	fit_out *f = malloc((size_t)(np * m) * sizeof *f);
	int *ok = calloc((size_t)(np * m), sizeof *ok), found = 0, rc = -1;
	if (!ll || !f || !ok)
		goto out;
	for (int k = 0; k < m; k++) {
		qd x;
		qd_of(in->lam[k], x);
		c_qd_log(x, ll[k]);
	}
	for (int p = 0; p < np; p++)
		for (int j = 0; j < m; j++)
			ok[p * m + j] = !fit_one(in, (const qd *)ll, p, j,
			                         f + p * m + j);
	for (int p = 0; p < np; p++)
		for (int j = 1; j < m; j++) {
			fit_out *x = f + p * m + j;
			if (!ok[p * m + j] || !ok[p * m + j - 1])
				continue;
			x->ea = in->known_a ? in->a_err
			                    : fabs(num_sub(0, x->a, x[-1].a).hi) + x->pa;
			x->eb = model_error(in, f, ok, (const qd *)ll, p, j) + x->pb;
			if (!found || x->ea < a->ea)
				*a = *x;
			if (!found || x->eb < b->eb)
				*b = *x;
			found = 1;
		}
	rc = !found;
out:
	free(ll);
	free(f);
	free(ok);
	return rc;
}
