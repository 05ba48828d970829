/* oneloop.h: what bin/oneloop's files share: the host's arithmetic in dd
 * or in double (one code path serves --precision dd and double), the
 * tanh-sinh rule (quad.c) and Wynn's epsilon algorithm (wynn.c). */
#ifndef ONELOOP_H
#define ONELOOP_H

#include <math.h>
#include "ddlib.h"

/* The host's numbers are dd pairs in both modes: with dbl set they hold
 * (double, 0) and every operation rounds to double, so --precision double
 * shows what double loses and nothing else changes. */
static inline nb_dd num_add(int dbl, nb_dd a, nb_dd b)
{
	return dbl ? nb_dd_from(a.hi + b.hi) : nb_dd_add(a, b);
}

static inline nb_dd num_sub(int dbl, nb_dd a, nb_dd b)
{
	return dbl ? nb_dd_from(a.hi - b.hi) : nb_dd_sub(a, b);
}

static inline nb_dd num_mul(int dbl, nb_dd a, nb_dd b)
{
	return dbl ? nb_dd_from(a.hi * b.hi) : nb_dd_mul(a, b);
}

static inline nb_dd num_div(int dbl, nb_dd a, nb_dd b)
{
	return dbl ? nb_dd_from(a.hi / b.hi) : nb_dd_div(a, b);
}

static inline nb_dd num_log(int dbl, nb_dd a)
{
	return dbl ? nb_dd_from(log(a.hi)) : nb_dd_log(a);
}

/* The rule of docs/oneloop.md on (0, 1): t_k = -T + (k + 1/2) h,
 * h = 2T/n; node u_k, its complement v_k = 1 - u_k and weight w_k,
 * computed in quad-double and rounded to dd (or to double when dbl). */
#define QUAD_T 4.5
void quad_rule(long n, int dbl, nb_dd *u, nb_dd *v, nb_dd *w);
/* 1 / (1 + exp(pi sinh T)): the length of (0, 1) the rule leaves out at
 * each end (4.0e-62). */
double quad_tail(void);

/* Wynn's epsilon algorithm on s[0..n): ext[k] is the extrapolant of
 * s[0..k], the entry of the highest even column the table reaches from
 * them (s[k] itself for k < 2, or where every higher entry divided by a
 * difference lost in rounding).  Arithmetic in dd, or double when dbl. */
void wynn(int dbl, const nb_dd *s, int n, nb_dd *ext);

#endif
