/* oneloop_fit.c SEED: checks apps/oneloop/fit.c (tests/sh/oneloop_fit.sh)
 * on values of the asymptotic forms with random coefficients, against
 * this file's own arithmetic: for each basis (FIT_PAIRS with A fitted,
 * FIT_ODD and FIT_EVEN with A given) 20 random models, 14 lambdas 0.4 *
 * 0.7^k, each value given a random error estimate e_k:
 *  - the fit's propagated error of B, sum |beta_k| e_k, against beta
 *    from this file's own solution of the chosen window's system in long
 *    double by Gauss-Jordan (and of A, for FIT_PAIRS): within 1e-6
 *    relative (the weights are a double solution; they need few digits);
 *  - for FIT_ODD and FIT_EVEN (the physical region's), B within the
 *    fit's error estimate of the model's, where the values are exact
 *    (errors only in the estimate, not the values) and the model has the
 *    fit's own terms; for FIT_PAIRS how often A or B misses is printed;
 *  - for FIT_ODD and FIT_EVEN the values given errors of random sign
 *    (growing as lambda falls) and the shifted rule's differences (twice
 *    them, to 1e-3): B within the estimate that carries them signed
 *    through the fit (fit_in's sd), the largest ratio printed.
 * Prints "ok" lines, or "FAIL" lines and exits 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "oneloop.h"

static unsigned long long st;
static double urand(void) /* in [0, 1) */
{
	st = st * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(st >> 11) * 0x1p-53;
}

/* the basis's terms at x (scaled lambda), as fit.c's docs define them */
static int terms(int basis, int p, long double x, long double *row)
{
	int n = 0;
	long double lx = logl(x), xp = 1;
	for (int k = 1; k <= p; k++) {
		xp *= basis == FIT_EVEN ? x * x : x;
		row[n++] = xp;
		if (basis == FIT_PAIRS || (basis == FIT_ODD && k % 2 == 0))
			row[n++] = xp * lx;
	}
	return n;
}

/* M^-1 of the q-by-q m, in place (Gauss-Jordan, partial pivoting) */
static int invert(int q, long double *m, long double *inv)
{
	for (int i = 0; i < q; i++)
		for (int k = 0; k < q; k++)
			inv[i * q + k] = i == k;
	for (int c = 0; c < q; c++) {
		int piv = c;
		for (int i = c + 1; i < q; i++)
			if (fabsl(m[i * q + c]) > fabsl(m[piv * q + c]))
				piv = i;
		if (m[piv * q + c] == 0)
			return 1;
		for (int k = 0; k < q; k++) {
			long double t = m[c * q + k];
			m[c * q + k] = m[piv * q + k];
			m[piv * q + k] = t;
			t = inv[c * q + k];
			inv[c * q + k] = inv[piv * q + k];
			inv[piv * q + k] = t;
		}
		long double d = m[c * q + c];
		for (int k = 0; k < q; k++) {
			m[c * q + k] /= d;
			inv[c * q + k] /= d;
		}
		for (int i = 0; i < q; i++) {
			long double f = m[i * q + c];
			if (i == c || f == 0)
				continue;
			for (int k = 0; k < q; k++) {
				m[i * q + k] -= f * m[c * q + k];
				inv[i * q + k] -= f * inv[c * q + k];
			}
		}
	}
	return 0;
}

enum { M = 14, MAXQ = 2 + 2 * FIT_MAXP };

int main(int argc, char **argv)
{
	st = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
	int fails = 0, checks = 0, short_ = 0;
	double ratio = 0; /* the largest true error / estimate, with sd */
	const char *bname[3] = {"pairs", "odd", "even"};
	for (int basis = FIT_PAIRS; basis <= FIT_EVEN; basis++)
		for (int trial = 0; trial < 20; trial++) {
			int ka = basis == FIT_PAIRS, pm = 1 + (int)(urand() * 4);
			double a = 2 * urand() - 1, b = 2 * urand() - 1, c[MAXQ];
			long double row[MAXQ];
			int nt = terms(basis, pm, 1, row);
			for (int k = 0; k < nt; k++)
				c[k] = (2 * urand() - 1) / (k + 1);
			nb_dd lam[M], val[M];
			double err[M];
			double l = 0.4;
			for (int k = 0; k < M; k++, l *= 0.7) {
				lam[k] = nb_dd_from(l);
				long double v = (ka || basis == FIT_ODD ? a * logl(l) : 0) + b;
				terms(basis, pm, l, row);
				for (int t = 0; t < nt; t++)
					v += c[t] * row[t];
				val[k] = nb_dd_from((double)v);
				val[k].lo = (double)(v - (long double)val[k].hi);
				err[k] = 1e-14 * (1 + 9 * urand());
			}
			fit_in in = {M, 0, lam, val, err, basis, !ka,
			             nb_dd_from(basis == FIT_EVEN ? 0 : a), 1e-30, NULL,
			             NULL};
			fit_out fa, fb;
			checks++;
			if (fit_best(&in, &fa, &fb)) {
				printf("FAIL %s %d: no fit\n", bname[basis], trial);
				fails++;
				continue;
			}
			/* the chosen windows' weights, from this file's own
			 * inverse of the fit's system (scaled by the window's
			 * first lambda, as fit.c scales it) */
			for (int w = 0; w < 1 + ka; w++) {
				const fit_out *f = w ? &fa : &fb;
				int q = f->q, j = f->j;
				long double mm[MAXQ * MAXQ], inv[MAXQ * MAXQ];
				long double l0 = lam[j].hi;
				for (int i = 0; i < q; i++) {
					long double x = lam[j + i].hi / l0;
					if (ka)
						mm[i * q] = logl(x);
					mm[i * q + ka] = 1;
					terms(basis, f->p, x, mm + i * q + ka + 1);
				}
				checks++;
				if (invert(q, mm, inv)) {
					printf("FAIL %s %d: singular window\n", bname[basis], trial);
					fails++;
					continue;
				}
				long double pe = 0;
				for (int k = 0; k < q; k++) {
					long double alpha = ka ? inv[k] : 0,
					            beta = ka ? inv[q + k] - alpha * logl(l0)
					                      : inv[k];
					long double e = err[j + k], r = fabs(val[j + k].hi) * 0x1p-104;
					e = e > r ? e : r;
					pe += fabsl(w ? alpha : beta) * e;
				}
				double got = w ? f->pa : f->pb;
				double rel = fabs(got - (double)pe) / (double)pe;
				if (!(rel <= 1e-6)) {
					printf("FAIL %s %d: propagated error of %s %.6g, "
					       "its own weights give %.6g (P = %d, j = %d)\n",
					       bname[basis], trial, w ? "A" : "B", got,
					       (double)pe, f->p, j);
					fails++;
				}
			}
			/* exact values of a model the fits contain: B and A within
			 * the estimates (plus the values' rounding to dd), for
			 * the physical region's bases; the Euclidean fits' estimate
			 * (the change from the window one lambda larger alone) is
			 * short on some random models (10 of 4,000, by up to 600
			 * times over seeds 1-200): counted, not failed */
			double db = fabs(fb.b.hi - b), dA = fabs(fa.a.hi - a);
			int miss = !(db <= fb.eb + 1e-25) || (ka && !(dA <= fa.ea + 1e-25));
			if (ka) {
				short_ += miss;
				continue;
			}
			checks++;
			if (miss) {
				printf("FAIL %s %d: B off %.3g (estimate %.3g), A off %.3g "
				       "(estimate %.3g)\n", bname[basis], trial, db, fb.eb,
				       dA, fa.ea);
				fails++;
			}
			/* the values with errors delta_k of random sign, growing
			 * as lambda falls as the rule's do (1e-15 at 0.4, 1e-9 at
			 * 0.004), and the shifted rule's differences sd_k = 2
			 * delta_k (1 + eps_k), |eps_k| <= 1e-3 (measured 1e-3 on
			 * the contour against N = 768: docs/oneloop.md): B within
			 * its estimate, which carries sd through the fit signed */
			double sd[M], fl[M];
			nb_dd pv[M];
			for (int k = 0; k < M; k++) {
				double x = 0.4 / lam[k].hi,
				       d = 1e-15 * x * x * x * (0.5 + urand()) *
				           (urand() < 0.5 ? -1 : 1);
				pv[k] = val[k];
				pv[k].hi += d;
				sd[k] = 2 * d * (1 + 1e-3 * (2 * urand() - 1));
				fl[k] = 1e-16;
				err[k] = fmax(fabs(sd[k]), fl[k]);
			}
			in.val = pv;
			in.sd = sd;
			in.fl = fl;
			checks++;
			if (fit_best(&in, &fa, &fb)) {
				printf("FAIL %s %d: no fit with sd\n", bname[basis], trial);
				fails++;
				continue;
			}
			db = fabs(fb.b.hi - b);
			checks++;
			if (!(db <= fb.eb)) {
				printf("FAIL %s %d: values with errors: B off %.3g, its "
				       "estimate %.3g (propagated %.3g)\n", bname[basis],
				       trial, db, fb.eb, fb.pb);
				fails++;
			}
			ratio = fmax(ratio, db / fb.eb);
		}
	printf("%s: %d checks, %d failed; the Euclidean estimate short on %d "
	       "of 20 models; with the shifted rule's differences B's error at "
	       "most %.2g of its estimate\n", fails ? "FAIL" : "ok", checks,
	       fails, short_, ratio);
	return fails != 0;
}
