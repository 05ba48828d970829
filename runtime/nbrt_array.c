/* nbrt_array.c: arrays that stay on the device between runs (nbrt.h).
 * A device with memory of its own for them (rt->devarrays) keeps them
 * there, through its back end's array_* operations; elsewhere they are
 * plain host memory, and the operations are the loops below, whose bits
 * the device versions reproduce. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "nbrt_impl.h"

void nbrt_array_touch(nbrt_array *a)
{
	/* process-wide, so that no two arrays (nor an array freed and one
	 * made at its address) ever share a stamp */
	static atomic_ullong stamp;
	a->ver = atomic_fetch_add(&stamp, 1) + 1;
}

nbrt_array *nbrt_array_new(nbrt *rt, size_t n)
{
	if (!rt)
		return NULL;
	nbrt_array *a = calloc(1, sizeof *a);
	if (!a) {
		nbrt_fail(rt, "out of memory");
		return NULL;
	}
	a->rt = rt;
	a->n = n;
	nbrt_array_touch(a);
	int r;
	if (rt->devarrays) {
		r = rt->be->array_new(a);
	} else if ((double)n * sizeof(double) > nbrt_host_memory()) {
		/* checked first: a sanitizer's calloc aborts where glibc's
		 * returns NULL (nbrt_array_new(rt, SIZE_MAX)) */
		char b[32];
		nbrt_format_bytes(b, sizeof b, (double)n * sizeof(double));
		r = nbrt_fail(rt, "an array of %zu doubles needs %s, more than this "
		              "process may use", n, b);
	} else {
		a->host = calloc(n ? n : 1, sizeof(double));
		r = a->host ? 0 : nbrt_fail(rt, "out of memory for an array of "
		                            "%zu doubles", n);
	}
	if (r) {
		nbrt_array_free(a);
		return NULL;
	}
	return a;
}

void nbrt_array_free(nbrt_array *a)
{
	if (!a)
		return;
	if (a->priv)
		a->rt->be->array_free(a);
	free(a->host);
	free(a);
}

int nbrt_array_on_device(const nbrt_array *a)
{
	return a && !a->host;
}

int nbrt_device_arrays(const nbrt *rt)
{
	return rt && rt->devarrays;
}

int nbrt_array_write(nbrt_array *a, const double *src)
{
	if (!a)
		return -1;
	if (!src && a->n)
		return nbrt_fail(a->rt, "nbrt_array_write: no values (NULL) for "
		                 "an array of %zu", a->n);
	nbrt_array_touch(a);
	if (!a->host)
		return a->rt->be->array_write(a, src);
	for (size_t i = 0; i < a->n; i++)
		a->host[i] = src[i];
	return 0;
}

int nbrt_array_read(const nbrt_array *a, double *dst)
{
	if (!a)
		return -1;
	if (!dst && a->n)
		return nbrt_fail(a->rt, "nbrt_array_read: nowhere (NULL) to read "
		                 "an array of %zu into", a->n);
	if (!a->host)
		return a->rt->be->array_read(a, dst);
	for (size_t i = 0; i < a->n; i++)
		dst[i] = a->host[i];
	return 0;
}

/* The operands of one operation: na of them (1 to max), all of one
 * device, one length and one kind of memory. */
static int same(nbrt_array *const *a, int na, int max, const char *what)
{
	if (!a || !a[0])
		return -1; /* no device to report on */
	if (na < 1)
		return nbrt_fail(a[0]->rt, "%s: %d arrays (at least 1)", what, na);
	if (na > max)
		return nbrt_fail(a[0]->rt, "%s: %d arrays (at most %d)", what, na,
		                 max);
	for (int c = 1; c < na; c++)
		if (!a[c] || a[c]->rt != a[0]->rt || a[c]->n != a[0]->n ||
		    !a[c]->host != !a[0]->host)
			return nbrt_fail(a[0]->rt, "%s: the arrays differ in device "
			                 "or length", what);
	return 0;
}

/* Whether b's arrays go with a's: one device, one length, one memory. */
static int alike(const nbrt_array *a, const nbrt_array *b)
{
	return a->rt == b->rt && a->n == b->n && !a->host == !b->host;
}

/* The operands of either form (wantz 0: nbrt_array_axpy's, z NULL). */
static int axpy_args(const char *what, nbrt_array *const *y,
                     nbrt_array *const *x, nbrt_array *const *z, int wantz,
                     int na)
{
	if (same(y, na, 3, what))
		return -1;
	/* y names the device: a missing x or z is reported there, not left
	 * to an earlier call's message (axpy2's z was skipped, silently) */
	if (!x || !x[0] || (wantz && (!z || !z[0])))
		return nbrt_fail(y[0]->rt, "%s: no %s arrays (NULL)", what,
		                 !x || !x[0] ? "x" : "z");
	if (same(x, na, 3, what) || (z && same(z, na, 3, what)))
		return -1;
	if (!alike(x[0], y[0]) || (z && !alike(z[0], y[0])))
		return nbrt_fail(y[0]->rt, "%s: the arrays differ in device or "
		                 "length", what);
	return 0;
}

/* Both forms, their operands checked. */
static int axpy(nbrt_array *const *y, double h, nbrt_array *const *x,
                nbrt_array *const *z, double g, int na)
{
	for (int c = 0; c < na; c++) {
		nbrt_array_touch(y[c]);
		if (z)
			nbrt_array_touch(z[c]);
	}
	if (!y[0]->host)
		return y[0]->rt->be->array_axpy(y, h, x, z, g, na);
	size_t n = y[0]->n;
	for (int c = 0; c < na; c++) {
		double *yc = y[c]->host, *zc = z ? z[c]->host : NULL;
		const double *xc = x[c]->host;
		/* element by element: threads and vectors change no bit; a
		 * loop each form, as a test in the loop keeps it scalar, and
		 * `simd` since -O2's cost model vectorizes neither without it
		 * (no iteration touches another's element: the arrays are
		 * apart, or one and the same) */
		if (zc) {
#pragma omp parallel for simd if (n >= 65536) schedule(static)
			for (size_t i = 0; i < n; i++) {
				yc[i] += h * xc[i];
				zc[i] += g * yc[i];
			}
		} else {
#pragma omp parallel for simd if (n >= 65536) schedule(static)
			for (size_t i = 0; i < n; i++)
				yc[i] += h * xc[i];
		}
	}
	return 0;
}

int nbrt_array_axpy(nbrt_array *const *y, double h, nbrt_array *const *x,
                    int na)
{
	if (axpy_args("nbrt_array_axpy", y, x, NULL, 0, na))
		return -1;
	return axpy(y, h, x, NULL, 0, na);
}

int nbrt_array_axpy2(nbrt_array *const *y, double h, nbrt_array *const *x,
                     nbrt_array *const *z, double g, int na)
{
	if (axpy_args("nbrt_array_axpy2", y, x, z, 1, na))
		return -1;
	return axpy(y, h, x, z, g, na);
}

int nbrt_array_finite(nbrt_array *const *a, int na, int *finite)
{
	if (same(a, na, 64, "nbrt_array_finite"))
		return -1;
	if (!finite)
		return nbrt_fail(a[0]->rt, "nbrt_array_finite: nowhere (NULL) for "
		                 "the answer");
	if (!a[0]->host)
		return a[0]->rt->be->array_finite(a, na, finite);
	/* a sum is NaN if any term is NaN or infinities of both signs meet,
	 * else infinite if a term is: one pass, no branch per value */
	double sum = 0;
	size_t n = a[0]->n;
	for (int c = 0; c < na; c++) {
		const double *v = a[c]->host;
#pragma omp parallel for if (n >= 65536) reduction(+ : sum)
		for (size_t i = 0; i < n; i++)
			sum += 0 * v[i];
	}
	*finite = sum == 0;
	return 0;
}

/* The check of a[0..na) queued, after y += h x where ny > 0 (its
 * operands checked): in the check's first launch on the device. */
static int finite_queue(const char *what, nbrt_array *const *a, int na,
                        nbrt_array *const *y, double h,
                        nbrt_array *const *x, int ny)
{
	if (same(a, na, 64, what))
		return -1;
	nbrt *rt = a[0]->rt;
	if (ny > 0 && !alike(a[0], y[0]))
		return nbrt_fail(rt, "%s: the arrays differ in device or length",
		                 what);
	if (rt->nfin == 2)
		return nbrt_fail(rt, "%s: two checks are queued already; "
		                 "nbrt_array_finite_take the older first", what);
	int slot = (rt->fin0 + rt->nfin) % 2;
	/* host arrays: the answer now, the device having nothing queued */
	int dev = !a[0]->host;
	int fused = ny > 0 && dev && na <= 9;
	if (ny > 0 && !fused && axpy(y, h, x, NULL, 0, ny))
		return -1;
	/* a run's inputs converted from y before are stale now */
	for (int c = 0; fused && c < ny; c++)
		nbrt_array_touch(y[c]);
	if (dev ? rt->be->finite_queue(a, na, slot, y, h, x, fused ? ny : 0)
	        : nbrt_array_finite(a, na, &rt->finval[slot]))
		return -1;
	rt->findev[slot] = dev;
	rt->nfin++;
	return 0;
}

int nbrt_array_finite_queue(nbrt_array *const *a, int na)
{
	return finite_queue("nbrt_array_finite_queue", a, na, NULL, 0, NULL, 0);
}

int nbrt_array_axpy_finite_queue(nbrt_array *const *y, double h,
                                 nbrt_array *const *x, int ny,
                                 nbrt_array *const *a, int na)
{
	const char *what = "nbrt_array_axpy_finite_queue";
	if (axpy_args(what, y, x, NULL, 0, ny))
		return -1;
	if (!a || !a[0])
		return nbrt_fail(y[0]->rt, "%s: no arrays to check (NULL)", what);
	return finite_queue(what, a, na, y, h, x, ny);
}

int nbrt_array_finite_take(nbrt *rt, int *finite, double t[2])
{
	if (t)
		t[0] = t[1] = 0;
	if (!rt)
		return -1;
	if (!rt->nfin)
		return nbrt_fail(rt, "nbrt_array_finite_take: no check is queued "
		                 "(nbrt_array_finite_queue)");
	if (!finite) /* the check stays queued for a call that takes it */
		return nbrt_fail(rt, "nbrt_array_finite_take: nowhere (NULL) for "
		                 "the answer");
	int slot = rt->fin0;
	rt->fin0 ^= 1;
	rt->nfin--;
	if (rt->findev[slot])
		return rt->be->finite_take(rt, slot, finite, t);
	*finite = rt->finval[slot];
	return 0;
}
