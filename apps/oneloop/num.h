/* num.h: bin/oneloop's host arithmetic, in dd or in double (one code
 * path serves --precision dd and double), below oneloop.c, quad.c and
 * wynn.c alike. */
#ifndef NUM_H
#define NUM_H

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

#endif
