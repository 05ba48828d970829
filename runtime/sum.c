/* sum.c: a result column's total over i in double-double (nbrt_sum), for
 * the gradient of a CONST: the derived kernel gives the per-i column
 * d r[i]/dc, and the gradient of sum_i r[i] is its total (docs/autodiff.md). */
#include <math.h>
#include "ddlib.h"
#include "nbrt.h"

int nbrt_sum(nbrt_type t, const void *a, const double *w, size_t n,
             double sum[2])
{
	if ((t != NBRT_FLOAT && t != NBRT_DOUBLE && t != NBRT_DD) || !sum ||
	    (!a && n))
		return -1;
	/* ddlib's accurate addition keeps its digits where the terms cancel,
	 * as a gradient's often do */
	nb_dd x = nb_dd_make(0, 0);
	double plain = 0;
	for (size_t i = 0; i < n; i++) {
		double hi = t == NBRT_FLOAT ? ((const float *)a)[i]
		          : t == NBRT_DOUBLE ? ((const double *)a)[i]
		                             : ((const double *)a)[2 * i];
		double lo = t == NBRT_DD ? ((const double *)a)[2 * i + 1] : 0;
		nb_dd term = nb_dd_make(hi, lo);
		if (w) { /* (hi + lo) w: hi w exactly, lo w rounded */
			term = nb__two_prod(hi, w[i]);
			term.lo += lo * w[i];
		}
		plain += term.hi;
		x = nb_dd_add(x, term);
	}
	/* an infinite or NaN term: the plain sum says which (inf, -inf or
	 * NaN), as a kernel's own sum would */
	sum[0] = isfinite(plain) ? x.hi : plain;
	sum[1] = isfinite(plain) ? x.lo : 0;
	return 0;
}
