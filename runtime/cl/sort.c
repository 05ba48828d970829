/* sort.c: the device's stable radix sort (kernels.cl's nbrt_sort_*): of
 * (key, value) pairs in device buffers (nbrt_cl_sort, for pipelines that
 * keep their data on the device) and of the host's nbrt_kv arrays through
 * pinned staging (nbrt_cl_sort_kv, the back end's sort for nbrt_sort_kv). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cl_impl.h"
#include "order.h"

/* Below this many pairs a host loop is serial (as in order.c). */
#define PAR 65536
/* kernels.cl's SORT_ITEMS and SORT_WG: keys a work item ranks, the most
 * work items a group */
enum { ITEMS = 4, MAXWG = 256, MINWG = 32 };
/* Groups a compute unit: several resident on a GPU's unit hide its
 * memory's latency; each group's counts cost the scan 16 entries. */
enum { GROUPS_PER_UNIT = 8, MAXGROUPS = 4096 };

/* The sort kernels' work-group size: a power of two, at most what each
 * of them and the device allow and what their local arrays hold. */
static int setup(nbrt *rt)
{
	Cl *c = rt->priv;
	if (c->sortwg)
		return 0;
	if (nbrt_cl_aux_load(rt))
		return -1;
	size_t wg = c->maxwg < MAXWG ? c->maxwg : MAXWG;
	static const int ks[] = {AK_SORT_DIFFER, AK_SORT_COUNT, AK_SORT_SCAN,
	                         AK_SORT_SCATTER};
	for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
		size_t kwg = 0;
		cl_int e = clGetKernelWorkGroupInfo(c->ak[ks[i]], c->dev,
		                                    CL_KERNEL_WORK_GROUP_SIZE,
		                                    sizeof kwg, &kwg, NULL);
		if (e != CL_SUCCESS)
			return nbrt_cl_fail(rt, "the radix sort",
			                    "clGetKernelWorkGroupInfo", e);
		if (kwg < wg)
			wg = kwg;
	}
	size_t p = 1;
	while (p * 2 <= wg)
		p *= 2;
	if (p < MINWG)
		return nbrt_fail(rt, "the radix sort needs work groups of %d work "
		                 "items; %s allows %zu", MINWG, rt->name, wg);
	c->sortwg = p;
	return 0;
}

/* Sets own kernel i's arguments (ARG pairs ending in a size 0) and
 * queues it over G groups of the sort's size. */
static int launch(nbrt *rt, int i, size_t G, ...)
{
	Cl *c = rt->priv;
	cl_int e = CL_SUCCESS;
	va_list ap;
	va_start(ap, G);
	for (cl_uint a = 0; e == CL_SUCCESS; a++) {
		size_t sz = va_arg(ap, size_t);
		if (!sz)
			break;
		e = clSetKernelArg(c->ak[i], a, sz, va_arg(ap, const void *));
	}
	va_end(ap);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "the radix sort", "clSetKernelArg", e);
	size_t local = c->sortwg, global = G * local;
	e = clEnqueueNDRangeKernel(c->q, c->ak[i], 1, NULL, &global, &local, 0,
	                           NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "the radix sort", "clEnqueueNDRangeKernel", e);
	return 0;
}

/* A device buffer *m of at least bytes (*cap), its contents dropped. */
static int grow(nbrt *rt, cl_mem *m, size_t *cap, size_t bytes)
{
	Cl *c = rt->priv;
	cl_int e;
	if (*cap >= bytes)
		return 0;
	if (*m) {
		/* nothing queued may still use it */
		if ((e = clFinish(c->q)) != CL_SUCCESS)
			return nbrt_cl_fail(rt, "the radix sort", "clFinish", e);
		clReleaseMemObject(*m);
	}
	*m = NULL;
	*cap = 0;
	if (bytes > rt->maxalloc)
		return nbrt_fail(rt, "the radix sort: %zu bytes are more than %s "
		                 "allows in one buffer", bytes, rt->name);
	*m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
	if (!*m)
		return nbrt_cl_fail(rt, "the radix sort", "clCreateBuffer", e);
	*cap = bytes;
	return 0;
}

static void free_pairs(Cl *c)
{
	for (int b = 0; b < 4; b++)
		if (c->sortbuf[b])
			clReleaseMemObject(c->sortbuf[b]);
	memset(c->sortbuf, 0, sizeof c->sortbuf);
	c->sortcap = 0;
}

/* The host pairs' device copies for n of them: keys, values and their
 * twins (sortbuf, even ones keys), all remade when n is more than they
 * hold. */
static int pairs(nbrt *rt, size_t n)
{
	Cl *c = rt->priv;
	if (c->sortcap >= n)
		return 0;
	cl_int e;
	/* nothing queued may still use them */
	if (c->sortbuf[0] && (e = clFinish(c->q)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, "the radix sort", "clFinish", e);
	free_pairs(c);
	for (int b = 0; b < 4; b++) {
		size_t bytes = n * (b % 2 ? sizeof(cl_uint) : sizeof(cl_ulong));
		if (bytes > rt->maxalloc)
			return nbrt_fail(rt, "the radix sort: %zu bytes are more than "
			                 "%s allows in one buffer", bytes, rt->name);
		c->sortbuf[b] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes,
		                               NULL, &e);
		if (!c->sortbuf[b])
			return nbrt_cl_fail(rt, "the radix sort", "clCreateBuffer", e);
	}
	c->sortcap = n;
	return 0;
}

/* The bits the n keys differ in, by a reduction over G groups whose
 * partial ORs and ANDs the host joins. */
static int find_differ(nbrt *rt, cl_mem keys, size_t n, size_t G,
                       uint64_t *differ)
{
	Cl *c = rt->priv;
	cl_ulong nn = n;
	cl_ulong *part = malloc(2 * G * sizeof *part);
	if (!part)
		return nbrt_fail(rt, "the radix sort: out of memory");
	int r = -1;
	cl_int e;
	if (launch(rt, AK_SORT_DIFFER, G, ARG(keys), ARG(nn), ARG(c->sorthist),
	           (size_t)0))
		goto out;
	if ((e = clEnqueueReadBuffer(c->q, c->sorthist, CL_TRUE, 0,
	                             2 * G * sizeof *part, part, 0, NULL,
	                             NULL)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, "the radix sort", "clEnqueueReadBuffer", e);
		goto out;
	}
	uint64_t any = 0, all = ~(uint64_t)0;
	for (size_t g = 0; g < G; g++) {
		any |= part[2 * g];
		all &= part[2 * g + 1];
	}
	*differ = any ^ all;
	r = 0;
out:
	free(part);
	return r;
}

int nbrt_cl_sort(nbrt *rt, cl_mem *keys, cl_mem *vals, cl_mem *tmpk,
                 cl_mem *tmpv, size_t n, uint64_t differ)
{
	if ((uint64_t)n > UINT32_MAX)
		return nbrt_fail(rt, "the radix sort: %zu pairs; the device sorts "
		                 "fewer than 2^32", n);
	if (n < 2)
		return 0;
	if (setup(rt))
		return -1;
	Cl *c = rt->priv;
	size_t tile = c->sortwg * ITEMS, tiles = (n + tile - 1) / tile;
	size_t G = (size_t)(rt->units ? rt->units : 1) * GROUPS_PER_UNIT;
	G = G > MAXGROUPS ? MAXGROUPS : G;
	G = G > tiles ? tiles : G;
	/* the counts (16 a group) or the reduction's partials (2 a group) */
	if (grow(rt, &c->sorthist, &c->sorthistcap, 16 * G * sizeof(cl_ulong)))
		return -1;
	if (!differ && find_differ(rt, *keys, n, G, &differ))
		return -1;
	cl_ulong nn = n;
	cl_uint m = (cl_uint)(16 * G);
	/* a 4-bit digit from each lowest bit still to sort (at most 60, so
	 * that the digit is whole): gaps in differ cost no passes */
	uint64_t rem = differ;
	while (rem) {
		int s = __builtin_ctzll(rem);
		s = s > 60 ? 60 : s;
		cl_uint shift = (cl_uint)s;
		if (launch(rt, AK_SORT_COUNT, G, ARG(*keys), ARG(nn), ARG(shift),
		           ARG(c->sorthist), (size_t)0) ||
		    launch(rt, AK_SORT_SCAN, 1, ARG(c->sorthist), ARG(m), (size_t)0) ||
		    launch(rt, AK_SORT_SCATTER, G, ARG(*keys), ARG(*vals), ARG(*tmpk),
		           ARG(*tmpv), ARG(nn), ARG(shift), ARG(c->sorthist),
		           (size_t)0))
			return -1;
		cl_mem t = *keys;
		*keys = *tmpk;
		*tmpk = t;
		t = *vals;
		*vals = *tmpv;
		*tmpv = t;
		rem = s + 4 >= 64 ? 0 : rem & ~(((uint64_t)1 << (s + 4)) - 1);
	}
	return 0;
}

nbrt_kv *nbrt_cl_sort_kv(nbrt *rt, nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                         uint64_t differ)
{
	Cl *c = rt->priv;
	cl_int e;
	const char *what = "the radix sort";
	memset(c->sorttime, 0, sizeof c->sorttime);
	if ((uint64_t)n > UINT32_MAX) {
		nbrt_fail(rt, "the radix sort: %zu pairs; the device sorts fewer "
		          "than 2^32", n);
		return NULL;
	}
	if (n < 2)
		return kv;
	double t0 = nbrt_now();
	/* the pinned copy may still feed an earlier command */
	if ((e = clFinish(c->q)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, what, "clFinish", e);
		return NULL;
	}
	size_t kb = n * sizeof(cl_ulong), vb = n * sizeof(cl_uint);
	if (nbrt_cl_pinned(rt, "pinned memory", &c->pin, &c->pinp, &c->pincap,
	                   kb + vb))
		return NULL;
	if (pairs(rt, n))
		return NULL;
	cl_ulong *pk = c->pinp;
	cl_uint *pv = (cl_uint *)(pk + n);
	/* keys and the values' low 32 bits staged; values that do not fit
	 * travel as their indices, and the host gathers the pairs after */
	uint64_t any = 0, all = ~(uint64_t)0, high = 0;
#pragma omp parallel for if (n >= PAR) schedule(static) \
	reduction(| : any, high) reduction(& : all)
	for (size_t i = 0; i < n; i++) {
		pk[i] = kv[i].key;
		pv[i] = (cl_uint)kv[i].val;
		high |= kv[i].val >> 32;
		any |= kv[i].key;
		all &= kv[i].key;
	}
	if (!differ)
		differ = any ^ all;
	if (!differ)
		return kv;
	if (high) {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t i = 0; i < n; i++)
			pv[i] = (cl_uint)i;
	}
	cl_mem *m = c->sortbuf;
	if ((e = clEnqueueWriteBuffer(c->q, m[0], CL_FALSE, 0, kb, pk, 0, NULL,
	                              NULL)) != CL_SUCCESS ||
	    (e = clEnqueueWriteBuffer(c->q, m[1], CL_FALSE, 0, vb, pv, 0, NULL,
	                              NULL)) != CL_SUCCESS ||
	    (e = clFinish(c->q)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, what, "clEnqueueWriteBuffer", e);
		return NULL;
	}
	double t1 = nbrt_now();
	if (nbrt_cl_sort(rt, &m[0], &m[1], &m[2], &m[3], n, differ))
		return NULL;
	if ((e = clFinish(c->q)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, what, "clFinish", e);
		return NULL;
	}
	double t2 = nbrt_now();
	if ((!high && (e = clEnqueueReadBuffer(c->q, m[0], CL_FALSE, 0, kb, pk,
	                                       0, NULL, NULL)) != CL_SUCCESS) ||
	    (e = clEnqueueReadBuffer(c->q, m[1], CL_TRUE, 0, vb, pv, 0, NULL,
	                             NULL)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, what, "clEnqueueReadBuffer", e);
		return NULL;
	}
	if (high) {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t i = 0; i < n; i++)
			tmp[i] = kv[pv[i]];
	} else {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t i = 0; i < n; i++) {
			tmp[i].key = pk[i];
			tmp[i].val = pv[i];
		}
	}
	c->sorttime[0] = t1 - t0;
	c->sorttime[1] = t2 - t1;
	c->sorttime[2] = nbrt_now() - t2;
	return tmp;
}

void nbrt_cl_sort_times(const nbrt *rt, double t[3])
{
	const Cl *c = rt->priv;
	memcpy(t, c->sorttime, sizeof c->sorttime);
}

void nbrt_cl_sort_free(nbrt *rt)
{
	Cl *c = rt->priv;
	if (c->sorthist)
		clReleaseMemObject(c->sorthist);
	c->sorthist = NULL;
	c->sorthistcap = 0;
	free_pairs(c);
}
