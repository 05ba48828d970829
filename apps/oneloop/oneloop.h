/* oneloop.h: the numerical methods bin/oneloop's main (oneloop.c) calls:
 * the tanh-sinh rule and its error estimate (quad.c) and Wynn's epsilon
 * algorithm (wynn.c), in the host's arithmetic of num.h. */
#ifndef ONELOOP_H
#define ONELOOP_H

#include <stddef.h>
#include "num.h"

/* The rule of docs/oneloop.md on (0, 1): t_k = -T + (k + 1/2) h,
 * h = 2T/n (t_k = -T + (k + 1) h where shift: the nodes moved by half a
 * step, for the deformed contour's error estimate); node u_k, its
 * complement v_k = 1 - u_k and weight w_k, computed in quad-double and
 * rounded to dd (or to double when dbl). */
#define QUAD_T 4.5
/* The deformed contour's T: its nodes reach l = ln(u / (1 - u)) = +-pi
 * sinh T = +-31.5 rather than +-141, so that they are 1.5 times denser
 * where the corners' structure lies, at |l| up to 2 ln(1/lambda) + 3
 * (docs/oneloop.md, "The rule of the contour"). */
#define QUAD_T_DEFORM 3.0
void quad_rule(long n, double T, int shift, int dbl, nb_dd *u, nb_dd *v,
               nb_dd *w);
/* 1 / (1 + exp(pi sinh T)): the length of (0, 1) the rule leaves out at
 * each end (4.0e-62 for T = 4.5, 2.1e-14 for 3). */
double quad_tail(double T);
/* the same at the lower end of the rule of n points, shifted (shift) by
 * half a step: its first cell starts that far in */
double quad_tail_shift(long n, double T, int shift);
/* what the rule of step h in t leaves out below its first cell, whose
 * start is at l (< 0): the length of (0, 1) below it, times the end
 * correction of the midpoint rule (quad.c) */
double quad_tail_cell(double l, double alpha, double h);
/* A rule on (0, 1) in l = ln(u / (1 - u)) whose density of nodes is
 * dt/dl = 1 / sqrt(alpha^2 + l^2) (the tanh-sinh rule's, alpha = pi) plus
 * Gaussian bands amp exp(-((l - at) / width)^2), from l = -reach to reach:
 * nodes where t(l) = t_k, t_k equally spaced. */
#define QUAD_MAXB 4
typedef struct quad_bands {
	double alpha, reach;
	int nb;
	double at[QUAD_MAXB], amp[QUAD_MAXB], width[QUAD_MAXB];
} quad_bands;
double quad_rule_bands(long n, const quad_bands *b, int shift, int dbl,
                       nb_dd *u, nb_dd *v, nb_dd *w);
/* The error estimate of I_N from dn = |I_N - I_N/2|, dh = |I_N/2 -
 * I_N/4| and dq = |I_N/4 - I_N/8| (negative where those were not
 * evaluated); floor is the rounding's bound. */
double quad_error(double dn, double dh, double dq, double floor);
/* The same, N's factor q^power where the values fall at least that fast
 * (power 1: quad_error; 1.5 on the deformed contour). */
double quad_error_pow(double dn, double dh, double dq, double floor,
                      double power);

/* Wynn's epsilon algorithm on s[0..n): ext[k] is the extrapolant of
 * s[0..k], the entry of the highest even column the table reaches from
 * them (s[k] itself for k < 2, or where every higher entry divided by a
 * difference lost in rounding).  Arithmetic in dd, or double when dbl. */
void wynn(int dbl, const nb_dd *s, int n, nb_dd *ext);

/* The extrapolation lambda -> 0 by the asymptotic form (fit.c):
 *   I(lambda) = A ln lambda + B + the power terms of P,
 * its unknowns (B, the terms, and A unless given) solved from as many
 * consecutive points in quad-double, P = 0 .. FIT_MAXP.  The bases of
 * power terms, for p = 1 .. P: */
enum {
	FIT_PAIRS, /* lambda^p and lambda^p ln lambda (s <= 0) */
	FIT_ODD,   /* lambda^p, and lambda^p ln lambda for even p (Re, s > 0) */
	FIT_EVEN   /* lambda^2p (Im, s > 0) */
};
#define FIT_MAXP 8
typedef struct fit_in {
	int m, dbl;
	const nb_dd *lam, *val; /* lambda_k (decreasing), I_k */
	const double *err;      /* I_k's error estimates */
	int basis;              /* FIT_PAIRS, FIT_ODD or FIT_EVEN */
	int known_a;            /* A given (a, with its error a_err) */
	nb_dd a;
	double a_err;
	/* where not NULL, I_k's errors as the shifted rule sees them (the
	 * deformed contour): sd[k] = I_k - I_k(shifted), signed, whose
	 * leading part is -2 times I_k's error, and fl[k] what it leaves
	 * unseen (the rounding, the truncation, the exp(-c N) guard); the
	 * propagated error of B is then |sum beta_k sd_k| + sum |beta_k| fl_k
	 * rather than sum |beta_k| err_k (docs/oneloop.md) */
	const double *sd, *fl;
} fit_in;
typedef struct fit_out {
	nb_dd a, b;
	double pa, pb; /* the inputs' errors propagated into A and B */
	double ea, eb; /* the error estimates: pa, pb and the model's */
	int p, j, q;   /* P, the window's first point and its length */
} fit_out;
/* The fits of least error estimate for A (into *a) and for B (*b); 1
 * where no fit could be made (fewer than 3 points), -1 out of memory. */
int fit_best(const fit_in *in, fit_out *a, fit_out *b);

/* The text of x in the run's precision: every digit that reads back (dd:
 * nb_dd_write, 32 significant digits at least; double: %.17g). */
const char *num_full(char *buf, size_t len, int dbl, nb_dd x);
/* The text of x to the digits its error estimate err supports: rounded at
 * the decade of err's leading digit, "0" where |x| is below that; the full
 * text where err is 0 or not finite, or below the full text's last digit
 * (digits.c, docs/oneloop.md "Output"). */
const char *num_earned(char *buf, size_t len, int dbl, nb_dd x, double err);

#endif
