/* morton.c: the treecode's sort on an OpenCL device (the back end's
 * tree_sort, tree.c's side_sort): the bodies' positions and masses
 * uploaded once, their Morton keys made, radix-sorted (sort.c) and the
 * sorted copies gathered there (kernels.cl's nbrt_morton_keys and
 * nbrt_cells_gather), and only the results read back: on the host these
 * were a pass of keys, the pairs' trip through staging and four gathers
 * at random through 32 MB arrays at N = 2^22. */
#include <string.h>
#include "cl_impl.h"
#include "order.h"

/* Below this many bodies a host loop is serial (as in order.c). */
#define PAR 65536

int nbrt_cl_tree_sort(nbrt *rt, const double *const x[3], const double *m,
                      size_t n, const double lo[3], double side,
                      unsigned long long *key, size_t *order,
                      double *const sx[3], double *sm)
{
	Cl *c = rt->priv;
	const char *what = "the treecode's sort";
	if (n < 2 || (uint64_t)n > UINT32_MAX || !c->fp64)
		return 1;
	if (nbrt_cl_aux_load(rt))
		return -1;
	double t0 = nbrt_now();
	int nb = m ? 4 : 3;
	size_t db = n * sizeof(double), vb = n * sizeof(cl_uint);
	cl_int e;
	/* the pinned staging of the order may still feed an earlier command */
	if ((e = clFinish(c->q)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "clFinish", e);
	for (int b = 0; b < 2 * nb; b++)
		if (nbrt_cl_grow(rt, &c->mortbuf[b % nb + (b >= nb) * 4],
		                 &c->mortcap[b % nb + (b >= nb) * 4], db))
			return -1;
	if (nbrt_cl_sort_room(rt, n) ||
	    nbrt_cl_pinned(rt, "pinned memory", &c->pin, &c->pinp, &c->pincap,
	                   vb))
		return -1;
	cl_mem *in = c->mortbuf, *out = c->mortbuf + 4;
	for (int b = 0; b < nb; b++)
		if ((e = clEnqueueWriteBuffer(c->q, in[b], CL_FALSE, 0, db,
		                              b < 3 ? x[b] : m, 0, NULL, NULL)) !=
		    CL_SUCCESS)
			goto fail;
	/* order.c's scale and clamp (nbrt_order_keys, 21 bits an axis) */
	cl_double cells = (double)((uint64_t)1 << nbrt_order_bits(3));
	cl_double top = cells - 1, scale = cells / side;
	cl_double l0 = lo[0], l1 = lo[1], l2 = lo[2];
	cl_ulong cn = n;
	cl_mem kk = c->sortbuf[0], vv = c->sortbuf[1], tk = c->sortbuf[2],
	       tv = c->sortbuf[3];
	if (nbrt_cl_aux_run(rt, AK_MORTON_KEYS, n, ARG(in[0]), ARG(in[1]),
	                    ARG(in[2]), ARG(l0), ARG(l1), ARG(l2), ARG(scale),
	                    ARG(top), ARG(cn), ARG(kk), ARG(vv), (size_t)0) ||
	    nbrt_cl_sort(rt, &kk, &vv, &tk, &tv, n, 0))
		goto out;
	cl_int dbl = NBRT_DOUBLE;
	cl_ulong one = 1, zero = 0;
	for (int b = 0; b < nb; b++)
		if (nbrt_cl_aux_run(rt, AK_CELLS_GATHER, n, ARG(in[b]), ARG(dbl),
		                    ARG(out[b]), ARG(dbl), ARG(one), ARG(zero),
		                    ARG(vv), ARG(cn), (size_t)0))
			goto out;
	cl_uint *pv = c->pinp;
	if ((e = clEnqueueReadBuffer(c->q, vv, CL_FALSE, 0, vb, pv, 0, NULL,
	                             NULL)) != CL_SUCCESS ||
	    (e = clEnqueueReadBuffer(c->q, kk, CL_FALSE, 0, n * sizeof *key, key,
	                             0, NULL, NULL)) != CL_SUCCESS)
		goto fail;
	for (int b = 0; b < nb; b++)
		if ((e = clEnqueueReadBuffer(c->q, out[b], CL_FALSE, 0, db,
		                             b < 3 ? sx[b] : sm, 0, NULL, NULL)) !=
		    CL_SUCCESS)
			goto fail;
	if ((e = clFinish(c->q)) != CL_SUCCESS)
		goto fail;
	long long s;
#pragma omp parallel for schedule(static) if (n >= PAR)
	for (s = 0; s < (long long)n; s++)
		order[s] = pv[s];
	nbrt_note(rt, "%s of %zu bodies on the device: %.3g ms", what, n,
	          1e3 * (nbrt_now() - t0));
	return 0;
fail:
	nbrt_cl_fail(rt, what, "a copy to or from the device", e);
out:
	/* nothing queued may outlive the caller's arrays */
	clFinish(c->q);
	return -1;
}
