/* convert.c: host arrays to and from the kernel's element types, for the
 * back ends' uploads and results: float, double and double-double, with
 * BMEM values interleaved into packs by a stride. */
#include "nbrt_impl.h"

size_t nbrt_prec_size(nb_prec t)
{
	return (size_t)nb_prec_scalars(t) * nb_prec_scalar_bytes(t);
}

int nbrt_same_layout(nbrt_type t, nb_prec kt)
{
	return (t == NBRT_FLOAT && kt == NB_FLOAT) ||
	       (t == NBRT_DOUBLE && kt == NB_DOUBLE) ||
	       (t == NBRT_DD && kt == NB_DD);
}

static void host_get(nbrt_type t, const void *a, size_t i, double *hi,
                     double *lo)
{
	switch (t) {
	case NBRT_FLOAT:
		*hi = ((const float *)a)[i];
		*lo = 0;
		break;
	case NBRT_DOUBLE:
		*hi = ((const double *)a)[i];
		*lo = 0;
		break;
	default:
		*hi = ((const double *)a)[2 * i];
		*lo = ((const double *)a)[2 * i + 1];
		break;
	}
}

/* Narrowing a dd rounds hi + lo, which is hi itself for a normalized
 * pair; the sum keeps unnormalized input right as well. */
void nbrt_to_kernel(void *dst, nb_prec kt, size_t stride, size_t off,
                    const void *src, nbrt_type t, size_t n)
{
	float *f = dst;
	double *d = dst;
	/* element by element: threads change no bit; they matter where the
	 * kernel is fast (a GPU) and N large */
#pragma omp parallel for if (n >= 65536) schedule(static)
	for (size_t e = 0; e < n; e++) {
		double hi, lo;
		host_get(t, src, e, &hi, &lo);
		size_t s = e * stride + off;
		/* -0 + 0 would be +0: a zero low word is not added */
		if (kt == NB_FLOAT) {
			f[s] = (float)(lo == 0 ? hi : hi + lo);
		} else if (kt == NB_DOUBLE) {
			d[s] = lo == 0 ? hi : hi + lo;
		} else {
			d[s] = hi;
			d[s + 1] = lo;
		}
	}
}

void nbrt_from_kernel(void *dst, nbrt_type t, const void *src, nb_prec kt,
                      size_t stride, size_t off, size_t n)
{
	const float *f = src;
	const double *d = src;
#pragma omp parallel for if (n >= 65536) schedule(static)
	for (size_t e = 0; e < n; e++) {
		size_t s = e * stride + off;
		double hi = kt == NB_FLOAT ? f[s] : d[s];
		double lo = kt == NB_DD ? d[s + 1] : 0;
		switch (t) {
		case NBRT_FLOAT:
			((float *)dst)[e] = (float)(hi + lo);
			break;
		case NBRT_DOUBLE:
			((double *)dst)[e] = hi + lo;
			break;
		default:
			((double *)dst)[2 * e] = hi;
			((double *)dst)[2 * e + 1] = lo;
			break;
		}
	}
}
