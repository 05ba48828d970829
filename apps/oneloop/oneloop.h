/* oneloop.h: the numerical methods bin/oneloop's main (oneloop.c) calls:
 * the tanh-sinh rule (quad.c) and Wynn's epsilon algorithm (wynn.c), in
 * the host's arithmetic of num.h. */
#ifndef ONELOOP_H
#define ONELOOP_H

#include "num.h"

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
