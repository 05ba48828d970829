/* sum.c: a result column's total over i in double-double (nbrt_sum), for
 * the gradient of a CONST: the derived kernel gives the per-i column
 * d r[i]/dc, and the gradient of sum_i r[i] is its total (docs/autodiff.md). */
#include <math.h>
#include "nbrt.h"

/* a + b exactly as s + e (Knuth's two-sum). */
static void two_sum(double a, double b, double *s, double *e)
{
	*s = a + b;
	double bb = *s - a;
	*e = (a - (*s - bb)) + (b - bb);
}

/* (hi, lo) += (bh, bl), both parts two-summed: the accurate dd sum, which
 * keeps its digits where the terms cancel, as a gradient's often do. */
static void dd_add(double x[2], double bh, double bl)
{
	double s, e, t, f;
	two_sum(x[0], bh, &s, &e);
	two_sum(x[1], bl, &t, &f);
	e += t;
	double h = s + e;
	e = e - (h - s) + f;
	x[0] = h + e;
	x[1] = e - (x[0] - h);
}

int nbrt_sum(nbrt_type t, const void *a, const double *w, size_t n,
             double sum[2])
{
	if (t != NBRT_FLOAT && t != NBRT_DOUBLE && t != NBRT_DD)
		return -1;
	double x[2] = {0, 0}, plain = 0;
	for (size_t i = 0; i < n; i++) {
		double hi = t == NBRT_FLOAT ? ((const float *)a)[i]
		          : t == NBRT_DOUBLE ? ((const double *)a)[i]
		                             : ((const double *)a)[2 * i];
		double lo = t == NBRT_DD ? ((const double *)a)[2 * i + 1] : 0;
		if (w) { /* (hi + lo) w: hi w exactly (fma), lo w rounded */
			double p = hi * w[i];
			lo = fma(hi, w[i], -p) + lo * w[i];
			hi = p;
		}
		plain += hi;
		dd_add(x, hi, lo);
	}
	/* an infinite or NaN term makes the parts NaN: the plain sum says
	 * which (inf, -inf or NaN), as a kernel's own sum would */
	sum[0] = isfinite(plain) ? x[0] : plain;
	sum[1] = isfinite(plain) ? x[1] : 0;
	return 0;
}
