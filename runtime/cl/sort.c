/* sort.c: the device's stable radix sort (kernels.cl's nbrt_sort_*): of
 * (key, value) pairs in device buffers (nbrt_cl_sort, for pipelines that
 * keep their data on the device; nbrt_cl_sort8, a byte a pass in one
 * launch a pass, the treecode's on a GPU) and of the host's nbrt_kv
 * arrays through pinned staging (nbrt_cl_sort_kv, the back end's sort for
 * nbrt_sort_kv). */
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
	                         AK_SORT_SCATTER, AK_SORT8_HIST,
	                         AK_SORT8_PASS, AK_MORTON_KEYS8};
	for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
		size_t kwg = 0;
		cl_ulong lm = 0;
		cl_int e = clGetKernelWorkGroupInfo(c->ak[ks[i]], c->dev,
		                                    CL_KERNEL_WORK_GROUP_SIZE,
		                                    sizeof kwg, &kwg, NULL);
		if (e == CL_SUCCESS)
			e = clGetKernelWorkGroupInfo(c->ak[ks[i]], c->dev,
			                             CL_KERNEL_LOCAL_MEM_SIZE, sizeof lm,
			                             &lm, NULL);
		if (e != CL_SUCCESS)
			return nbrt_cl_fail(rt, "the radix sort",
			                    "clGetKernelWorkGroupInfo", e);
		if (c->localmem && lm > c->localmem)
			return nbrt_fail(rt, "the radix sort needs %llu bytes of local "
			                 "memory a work group; %s has %llu",
			                 (unsigned long long)lm, rt->name,
			                 (unsigned long long)c->localmem);
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

int nbrt_cl_sort_queue(nbrt *rt, int i, size_t G)
{
	Cl *c = rt->priv;
	size_t local = c->sortwg, global = G * local;
	cl_int e = clEnqueueNDRangeKernel(c->q, c->ak[i], 1, NULL, &global,
	                                  &local, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "the radix sort", "clEnqueueNDRangeKernel", e);
	return 0;
}

int nbrt_cl_grow(nbrt *rt, cl_mem *m, size_t *cap, size_t bytes)
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

int nbrt_cl_sort_room(nbrt *rt, size_t n)
{
	Cl *c = rt->priv;
	for (int b = 0; b < 4; b++)
		if (nbrt_cl_grow(rt, &c->sortbuf[b], &c->sortcap[b],
		         n * (b % 2 ? sizeof(cl_uint) : sizeof(cl_ulong))))
			return -1;
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
	if (nbrt_cl_aux_run(rt, AK_SORT_DIFFER, 0, ARG(keys), ARG(nn),
	                    ARG(c->sorthist), (size_t)0) ||
	    nbrt_cl_sort_queue(rt, AK_SORT_DIFFER, G))
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

/* The tiles of a sort over n keys (setup done) and its groups, at most
 * one a tile. */
static size_t tiles(nbrt *rt, size_t n, size_t *groups)
{
	Cl *c = rt->priv;
	size_t tile = c->sortwg * ITEMS, T = (n + tile - 1) / tile;
	size_t G = (size_t)(rt->units ? rt->units : 1) * GROUPS_PER_UNIT;
	*groups = G > MAXGROUPS ? MAXGROUPS : G > T ? T : G;
	return T;
}

/* After a pass: its output, tmpk and tmpv, is the next pass's input. */
static void swap(cl_mem *keys, cl_mem *vals, cl_mem *tmpk, cl_mem *tmpv)
{
	cl_mem t = *keys;
	*keys = *tmpk;
	*tmpk = t;
	t = *vals;
	*vals = *tmpv;
	*tmpv = t;
}

/* nbrt_cl_sort, where iota says the values are their indices, made by
 * the first pass rather than read. */
static int sort(nbrt *rt, cl_mem *keys, cl_mem *vals, cl_mem *tmpk,
                cl_mem *tmpv, size_t n, uint64_t differ, int iota)
{
	if ((uint64_t)n > UINT32_MAX)
		return nbrt_fail(rt, "the radix sort: %zu pairs; the device sorts "
		                 "fewer than 2^32", n);
	if (n < 2)
		return 0;
	if (setup(rt))
		return -1;
	Cl *c = rt->priv;
	size_t G, T = tiles(rt, n, &G);
	/* $NBRT_SORT_GROUPS: the groups, for tests and for tuning on a GPU */
	long v = 0;
	int asked = nbrt_env_int(rt, "NBRT_SORT_GROUPS", 1, MAXGROUPS, &v);
	if (asked < 0)
		return -1;
	if (asked)
		G = (size_t)v > T ? T : (size_t)v;
	/* the counts (16 a group, and the digits' 16 totals) or the
	 * reduction's partials (2 a group) */
	if (nbrt_cl_grow(rt, &c->sorthist, &c->sorthistcap,
	         16 * (G + 1) * sizeof(cl_ulong)))
		return -1;
	if (!differ && find_differ(rt, *keys, n, G, &differ))
		return -1;
	cl_ulong nn = n;
	cl_uint ng = (cl_uint)G;
	/* a 4-bit digit from each lowest bit still to sort (at most 60, so
	 * that the digit is whole): gaps in differ cost no passes */
	uint64_t rem = differ;
	while (rem) {
		int s = __builtin_ctzll(rem);
		s = s > 60 ? 60 : s;
		cl_uint shift = (cl_uint)s, first = iota && rem == differ;
		if (nbrt_cl_aux_run(rt, AK_SORT_COUNT, 0, ARG(*keys), ARG(nn),
		                    ARG(shift), ARG(c->sorthist), (size_t)0) ||
		    nbrt_cl_sort_queue(rt, AK_SORT_COUNT, G) ||
		    nbrt_cl_aux_run(rt, AK_SORT_SCAN, 0, ARG(c->sorthist), ARG(ng),
		                    (size_t)0) ||
		    nbrt_cl_sort_queue(rt, AK_SORT_SCAN, 16) ||
		    nbrt_cl_aux_run(rt, AK_SORT_SCATTER, 0, ARG(*keys), ARG(*vals),
		                    ARG(*tmpk), ARG(*tmpv), ARG(nn), ARG(shift),
		                    ARG(c->sorthist), ARG(first), (size_t)0) ||
		    nbrt_cl_sort_queue(rt, AK_SORT_SCATTER, G))
			return -1;
		swap(keys, vals, tmpk, tmpv);
		rem = s + 4 >= 64 ? 0 : rem & ~(((uint64_t)1 << (s + 4)) - 1);
	}
	return 0;
}

int nbrt_cl_sort(nbrt *rt, cl_mem *keys, cl_mem *vals, cl_mem *tmpk,
                 cl_mem *tmpv, size_t n, uint64_t differ)
{
	return sort(rt, keys, vals, tmpk, tmpv, n, differ, 0);
}

/* kernels.cl's SORT8_HEAD: the work space's counts (8 passes' 256
 * digits) and tickets (one a pass) before the statuses */
enum { HEAD8 = 8 * 256 + 64, ZERO8 = 8 * 256 + 8 };
/* kernels.cl's SORT8_WIN */
enum { WIN8 = 16 };

int nbrt_cl_sort8_room(nbrt *rt, size_t n, cl_ulong *ns, size_t *groups)
{
	Cl *c = rt->priv;
	if (n >= NBRT_CL_SORT8_MAX)
		return nbrt_fail(rt, "the radix sort: %zu keys a byte a pass; "
		                 "fewer than %zu", n, NBRT_CL_SORT8_MAX);
	if (setup(rt))
		return -1;
	size_t T = tiles(rt, n, groups);
	if (nbrt_cl_grow(rt, &c->sorthist, &c->sorthistcap,
	                 (HEAD8 + 2 * 256 * T) * sizeof(cl_uint)))
		return -1;
	cl_uint zero = 0;
	cl_int e = clEnqueueFillBuffer(c->q, c->sorthist, &zero, sizeof zero, 0,
	                               ZERO8 * sizeof zero, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "the radix sort", "clEnqueueFillBuffer", e);
	*ns = 256 * T;
	return 0;
}

int nbrt_cl_sort8(nbrt *rt, cl_mem *keys, cl_mem *vals, cl_mem *tmpk,
                  cl_mem *tmpv, size_t n, int counted)
{
	Cl *c = rt->priv;
	/* $NBRT_SORT8_WINDOW: the tiles a look-back reads at once after the
	 * first (kernels.cl's SORT8_WIN at most), for tuning on a GPU */
	long v = WIN8;
	if (nbrt_env_int(rt, "NBRT_SORT8_WINDOW", 1, WIN8, &v) < 0)
		return -1;
	cl_uint win = (cl_uint)v;
	if (n < 2)
		return 0;
	size_t G;
	cl_ulong nn = n, ns;
	if (!counted &&
	    (nbrt_cl_sort8_room(rt, n, &ns, &G) ||
	     nbrt_cl_aux_run(rt, AK_SORT8_HIST, 0, ARG(*keys), ARG(nn),
	                     ARG(c->sorthist), ARG(ns), (size_t)0) ||
	     nbrt_cl_sort_queue(rt, AK_SORT8_HIST, G)))
		return -1;
	size_t T = tiles(rt, n, &G);
	for (cl_uint pass = 0; pass < 8; pass++) {
		if (nbrt_cl_aux_run(rt, AK_SORT8_PASS, 0, ARG(*keys), ARG(*vals),
		                    ARG(*tmpk), ARG(*tmpv), ARG(nn), ARG(pass),
		                    ARG(c->sorthist), ARG(win), (size_t)0) ||
		    nbrt_cl_sort_queue(rt, AK_SORT8_PASS, T))
			return -1;
		swap(keys, vals, tmpk, tmpv);
	}
	return 0;
}

/* The host pairs cross in chunks of this many, so that the host stages
 * one while the device's copy engine moves the one before. */
#define CHUNK ((size_t)1 << 18)

/* Pairs [a, b) of kv staged: keys to pk, values' low 32 bits to pv; the
 * values' high bits, the keys' OR and AND, and whether any value is not
 * its index, joined into h[0..4). */
static void stage(const nbrt_kv *kv, cl_ulong *pk, cl_uint *pv, size_t a,
                  size_t b, uint64_t h[4])
{
	uint64_t any = 0, all = ~(uint64_t)0, high = 0, other = 0;
#pragma omp parallel for if (b - a >= PAR) schedule(static) \
	reduction(| : any, high, other) reduction(& : all)
	for (size_t i = a; i < b; i++) {
		pk[i] = kv[i].key;
		pv[i] = (cl_uint)kv[i].val;
		high |= kv[i].val >> 32;
		other |= kv[i].val ^ i;
		any |= kv[i].key;
		all &= kv[i].key;
	}
	h[0] |= high;
	h[1] |= any;
	h[2] &= all;
	h[3] |= other;
}

/* Sorted pairs [a, b) from pinned memory into out: keys and values, or
 * where the values did not fit (wide) the pairs of kv at the indices. */
static void unstage(nbrt_kv *out, const nbrt_kv *kv, const cl_ulong *pk,
                    const cl_uint *pv, size_t a, size_t b, int wide)
{
	if (wide) {
#pragma omp parallel for if (b - a >= PAR) schedule(static)
		for (size_t i = a; i < b; i++)
			out[i] = kv[pv[i]];
	} else {
#pragma omp parallel for if (b - a >= PAR) schedule(static)
		for (size_t i = a; i < b; i++) {
			out[i].key = pk[i];
			out[i].val = pv[i];
		}
	}
}

/* Queues the copy of elements [a, b) of es bytes between pinned memory
 * at p and the device buffer m (to the device: up), with ev, if not
 * NULL, its event; started now, not when the queue next waits. */
static cl_int cross(Cl *c, cl_mem m, void *p, size_t es, size_t a, size_t b,
                    int up, cl_event *ev)
{
	char *at = (char *)p + a * es;
	cl_int e = up ? clEnqueueWriteBuffer(c->q, m, CL_FALSE, a * es,
	                                     (b - a) * es, at, 0, NULL, ev)
	              : clEnqueueReadBuffer(c->q, m, CL_FALSE, a * es,
	                                    (b - a) * es, at, 0, NULL, ev);
	return e == CL_SUCCESS ? clFlush(c->q) : e;
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
	                   kb + vb) ||
	    nbrt_cl_sort_room(rt, n))
		return NULL;
	cl_ulong *pk = c->pinp;
	cl_uint *pv = (cl_uint *)(pk + n);
	cl_mem *m = c->sortbuf;
	/* keys and the values' low 32 bits staged and sent a chunk at a
	 * time; values that are their indices stay on the host (the first
	 * pass makes them), and so do values that do not fit, which travel
	 * as their indices and the host gathers the pairs after */
	uint64_t h[4] = {0, 0, ~(uint64_t)0, 0};
	size_t sent = 0; /* values sent up to */
	for (size_t a = 0; a < n; a += CHUNK) {
		size_t b = n - a > CHUNK ? a + CHUNK : n;
		stage(kv, pk, pv, a, b, h);
		if ((e = cross(c, m[0], pk, sizeof *pk, a, b, 1, NULL)) !=
		    CL_SUCCESS)
			goto fail;
		if (h[3] && !h[0]) {
			if ((e = cross(c, m[1], pv, sizeof *pv, sent, b, 1, NULL)) !=
			    CL_SUCCESS)
				goto fail;
			sent = b;
		}
	}
	int wide = h[0] != 0, iota = wide || !h[3];
	if (!differ)
		differ = h[1] ^ h[2];
	if (!differ) {
		/* nothing to sort; the pinned copy free once the copies end */
		if ((e = clFinish(c->q)) != CL_SUCCESS)
			goto fail;
		return kv;
	}
	if ((e = clFinish(c->q)) != CL_SUCCESS)
		goto fail;
	double t1 = nbrt_now();
	if (sort(rt, &m[0], &m[1], &m[2], &m[3], n, differ, iota))
		return NULL;
	if ((e = clFinish(c->q)) != CL_SUCCESS)
		goto fail;
	double t2 = nbrt_now();
	/* every chunk's copy queued at once; each unstaged once it is in
	 * (the queue is in order) */
	cl_event ev = NULL, prev = NULL;
	size_t nc = (n + CHUNK - 1) / CHUNK;
	for (size_t q = 0; q <= nc; q++) {
		size_t a = q * CHUNK, b = n - a > CHUNK ? a + CHUNK : n;
		if (q < nc && ((!wide && (e = cross(c, m[0], pk, sizeof *pk, a, b, 0,
		                                    NULL)) != CL_SUCCESS) ||
		               (e = cross(c, m[1], pv, sizeof *pv, a, b, 0, &ev)) !=
		               CL_SUCCESS)) {
			if (prev)
				clReleaseEvent(prev);
			goto fail;
		}
		if (prev) {
			e = clWaitForEvents(1, &prev);
			clReleaseEvent(prev);
			if (e != CL_SUCCESS) {
				if (ev)
					clReleaseEvent(ev);
				goto fail;
			}
			unstage(tmp, kv, pk, pv, a - CHUNK, a < n ? a : n, wide);
		}
		prev = ev;
		ev = NULL;
	}
	c->sorttime[0] = t1 - t0;
	c->sorttime[1] = t2 - t1;
	c->sorttime[2] = nbrt_now() - t2;
	nbrt_note(rt, "the radix sort of %zu pairs: staging and upload %.3g ms, "
	          "sort %.3g ms, download and unstaging %.3g ms", n,
	          1e3 * c->sorttime[0], 1e3 * c->sorttime[1],
	          1e3 * c->sorttime[2]);
	return tmp;
fail:
	clFinish(c->q);
	nbrt_cl_fail(rt, what, "a copy to or from the device", e);
	return NULL;
}

void nbrt_cl_sort_times(const nbrt *rt, double t[3])
{
	const Cl *c = rt->priv;
	memcpy(t, c->sorttime, sizeof c->sorttime);
}
