/* morton.c: the treecode's sort on an OpenCL device (the back end's
 * tree_sort, tree.c's side_sort): the bodies' positions and masses
 * uploaded once, their Morton keys made, radix-sorted (sort.c) and the
 * sorted copies gathered there (kernels.cl's nbrt_morton_keys and
 * nbrt_cells_gather), and only the results read back: on the host these
 * were a pass of keys, the pairs' trip through staging and four gathers
 * at random through 32 MB arrays at N = 2^22.  The order stays there for
 * the results' way back into the caller's order (tree_scatter, with
 * nbrt_cells_scatter), which the host wrote at random. */
#include <limits.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "cl_impl.h"
#include "order.h"

/* Below this many bodies the host sorts (host_sort), with at least
 * HOST_THREADS threads, where the host's sort needs no upload but the
 * order's; an MSD sort of fifteen parallel regions was slow (a region
 * costs tens of microseconds on the GPU machines' hosts), hence one
 * region (order.c's sample sort).  It took 0.46 ms at 32768 (H200,
 * 2026-11-28 06:37) against the 4-bit device sort's 0.51-0.65 (54
 * commands), but 0.49-0.72 against the byte sort's 0.37-0.45 (11
 * commands; H200, 09:04): the host below 32768 bodies only, unmeasured
 * there.  Four threads made every host phase two to three times slower.
 * $NBRT_TREE_HOSTSORT sets another bound (0: the device always). */
enum { HOST_BELOW = 1 << 15, HOST_THREADS = 8 };

/* Whether the host sorts n bodies (the rule above); -1 refused. */
static int host_sorts(nbrt *rt, size_t n)
{
	long below = HOST_BELOW;
	int nt = 1;
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	int set = nbrt_env_int(rt, "NBRT_TREE_HOSTSORT", 0, LONG_MAX, &below);
	if (set < 0)
		return -1;
	return n < (size_t)below && (set || nt >= HOST_THREADS);
}

/* Whether the device sorts n keys a byte a pass (nbrt_cl_sort8: 8
 * launches, where 4 bits a pass were 48 and a launch's floor is 6-7 us
 * on NVIDIA): on a GPU, whose groups all run side by side, so that a
 * tile's wait on the tiles before it (the look-back) is short; on a
 * CPU's OpenCL (PoCL) a waiting group spins on a thread that the group
 * it waits for may need (0.25-0.6 s at 65536 bodies on 2 busy cores,
 * against 0.03-0.15 s for 4 bits a pass).  $NBRT_TREE_SORT8 (0 or 1)
 * decides instead, for tests and comparisons; -1 refused. */
static int sorts8(nbrt *rt, size_t n)
{
	long byte = rt->gpu;
	if (nbrt_env_int(rt, "NBRT_TREE_SORT8", 0, 1, &byte) < 0)
		return -1;
	return byte && n < NBRT_CL_SORT8_MAX;
}

/* Under NBRT_VERBOSE, the queue finished and the milliseconds since *t
 * into *ms, for the note of each step's time (nothing waits otherwise). */
static void lap(nbrt *rt, double *t, double *ms)
{
	const Cl *c = rt->priv;
	if (!rt->verbose)
		return;
	clFinish(c->q);
	double now = nbrt_now();
	*ms = 1e3 * (now - *t);
	*t = now;
}

/* Where host_sort's buckets go as each is sorted (order.c's done). */
typedef struct Gather {
	const double *const *x;
	const double *m;
	unsigned long long *key;
	size_t *order;
	cl_uint *pv;
	double *const *sx;
	double *sm;
} Gather;

static void gather(void *ctx, const nbrt_kv *r, size_t at, size_t len)
{
	const Gather *g = ctx;
	for (size_t s = at; s < at + len; s++) {
		size_t o = (size_t)r[s - at].val;
		g->order[s] = o;
		g->pv[s] = (cl_uint)o;
		g->key[s] = r[s - at].key;
		for (int d = 0; d < 3; d++)
			g->sx[d][s] = g->x[d][o];
		if (g->m)
			g->sm[s] = g->m[o];
	}
}

/* The tree's sort on the host (host_sorts): keys, order.c's sample sort
 * and the gathers (each bucket's by the thread that sorted it) in one
 * parallel region; only the order goes up, kept in slot for the results'
 * scatter, as the device's sort leaves it.  The pairs' room is the
 * pinned staging after the order's. */
static int host_sort(nbrt *rt, const double *const x[3], const double *m,
                     size_t n, const double lo[3], double side, int slot,
                     unsigned long long *key, size_t *order,
                     double *const sx[3], double *sm)
{
	Cl *c = rt->priv;
	const char *what = "the treecode's sort";
	int nt = 1;
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	double t0 = nbrt_now(), t = t0, ms[2] = {0, 0};
	size_t vb = n * sizeof(cl_uint), kb = 2 * n * sizeof(nbrt_kv);
	size_t pad = (vb + 63) / 64 * 64;
	cl_int e;
	/* the pinned staging may still feed an earlier command */
	if ((e = clFinish(c->q)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "clFinish", e);
	if (nbrt_cl_grow(rt, &c->mortperm[slot], &c->mortpermcap[slot], vb) ||
	    nbrt_cl_pinned(rt, "pinned memory", &c->pin, &c->pinp, &c->pincap,
	                   pad + kb))
		return -1;
	cl_uint *pv = c->pinp;
	nbrt_kv *kv = (nbrt_kv *)((char *)c->pinp + pad);
	Gather g = {x, m, key, order, pv, sx, sm};
	if (nbrt_order_sort_sample(kv, kv + n, n, x, 3, lo, side, nt, gather,
	                           &g))
		return nbrt_fail(rt, "%s: out of memory", what);
	lap(rt, &t, &ms[0]);
	/* blocking: the staging is the back end's for other copies */
	if ((e = clEnqueueWriteBuffer(c->q, c->mortperm[slot], CL_TRUE, 0, vb, pv,
	                              0, NULL, NULL)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "a copy to the device", e);
	c->mortkept[slot] = n;
	lap(rt, &t, &ms[1]);
	nbrt_note(rt, "%s of %zu bodies on the host (%d threads): %.3g ms (keys, "
	          "sort and gathers %.3g, the order up %.3g)", what, n, nt,
	          1e3 * (nbrt_now() - t0), ms[0], ms[1]);
	return 0;
}

int nbrt_cl_tree_sort(nbrt *rt, const double *const x[3], const double *m,
                      size_t n, const double lo[3], double side, int slot,
                      unsigned long long *key, size_t *order,
                      double *const sx[3], double *sm)
{
	Cl *c = rt->priv;
	const char *what = "the treecode's sort";
	if (slot < 0 || slot > 1 || n < 2 || (uint64_t)n > UINT32_MAX ||
	    !c->fp64)
		return 1;
	c->mortkept[slot] = 0;
	/* the results' scatter's kernels too */
	if (nbrt_cl_aux_load(rt))
		return -1;
	int host = host_sorts(rt, n);
	if (host)
		return host < 0 ? -1 : host_sort(rt, x, m, n, lo, side, slot, key,
		                                 order, sx, sm);
	double t0 = nbrt_now(), t = t0, ms[4] = {0, 0, 0, 0};
	int nb = m ? 4 : 3;
	size_t db = n * sizeof(double), vb = n * sizeof(cl_uint);
	cl_int e;
	/* an earlier command may still read the buffers written below */
	if ((e = clFinish(c->q)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "clFinish", e);
	for (int b = 0; b < 2 * nb; b++)
		if (nbrt_cl_grow(rt, &c->mortbuf[b % nb + (b >= nb) * 4],
		                 &c->mortcap[b % nb + (b >= nb) * 4], db))
			return -1;
	/* the order read back as uint into pinned memory and widened by a
	 * host loop: read as size_t straight into the tree's (pageable)
	 * array, its download took 0.15-0.23 ms at 65536 on the H200
	 * (session 14's merged run, 09:38) against 0.10-0.11 and the
	 * widening's 0.015-0.025 (docs/treecode.md) */
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
	lap(rt, &t, &ms[0]);
	/* order.c's scale and clamp (nbrt_order_keys, 21 bits an axis) */
	cl_double cells = (double)((uint64_t)1 << nbrt_order_bits(3));
	cl_double top = cells - 1, scale = cells / side;
	cl_double l0 = lo[0], l1 = lo[1], l2 = lo[2];
	cl_ulong cn = n;
	cl_mem kk = c->sortbuf[0], vv = c->sortbuf[1], tk = c->sortbuf[2],
	       tv = c->sortbuf[3];
	int byte = sorts8(rt, n);
	if (byte < 0)
		goto out;
	if (byte) {
		/* keys and their byte counts (one launch), 8 passes of one
		 * launch, the gathers and the order's copy as one launch */
		cl_ulong ns;
		size_t G;
		if (nbrt_cl_sort8_room(rt, n, &ns, &G) ||
		    nbrt_cl_aux_run(rt, AK_MORTON_KEYS8, 0, ARG(in[0]), ARG(in[1]),
		                    ARG(in[2]), ARG(l0), ARG(l1), ARG(l2),
		                    ARG(scale), ARG(top), ARG(cn), ARG(kk), ARG(vv),
		                    ARG(c->sorthist), ARG(ns), (size_t)0) ||
		    nbrt_cl_sort_queue(rt, AK_MORTON_KEYS8, G) ||
		    nbrt_cl_sort8(rt, &kk, &vv, &tk, &tv, n, 1))
			goto out;
	} else {
		/* every bit of the keys, not the bits they differ in (the
		 * sort's reduction and its blocking read, a wait in mid-sort):
		 * a pass over a digit that does not differ keeps the order,
		 * and in a cube around the bodies cut into 2^21 steps an axis
		 * all 63 bits differ but for a handful of bodies */
		uint64_t every = ((uint64_t)1 << 3 * nbrt_order_bits(3)) - 1;
		if (nbrt_cl_aux_run(rt, AK_MORTON_KEYS, n, ARG(in[0]), ARG(in[1]),
		                    ARG(in[2]), ARG(l0), ARG(l1), ARG(l2),
		                    ARG(scale), ARG(top), ARG(cn), ARG(kk), ARG(vv),
		                    (size_t)0) ||
		    nbrt_cl_sort(rt, &kk, &vv, &tk, &tv, n, every))
			goto out;
	}
	/* the order kept for tree_scatter */
	if (nbrt_cl_grow(rt, &c->mortperm[slot], &c->mortpermcap[slot], vb))
		goto out;
	cl_int nbi = nb;
	if (nbrt_cl_aux_run(rt, AK_MORTON_GATHER, n, ARG(vv), ARG(cn), ARG(nbi),
	                    ARG(in[0]), ARG(in[1]), ARG(in[2]), ARG(in[nb - 1]),
	                    ARG(out[0]), ARG(out[1]), ARG(out[2]),
	                    ARG(out[nb - 1]), ARG(c->mortperm[slot]), (size_t)0))
		goto out;
	lap(rt, &t, &ms[1]);
	if ((e = clEnqueueReadBuffer(c->q, vv, CL_FALSE, 0, vb, c->pinp, 0,
	                             NULL, NULL)) != CL_SUCCESS ||
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
	lap(rt, &t, &ms[2]);
	c->mortkept[slot] = n;
	const cl_uint *pv = c->pinp;
	long long s;
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (s = 0; s < (long long)n; s++)
		order[s] = pv[s];
	lap(rt, &t, &ms[3]);
	nbrt_note(rt, "%s of %zu bodies on the device: %.3g ms (upload %.3g, "
	          "keys, sort and gathers %.3g, download %.3g, order %.3g)",
	          what, n, 1e3 * (nbrt_now() - t0), ms[0], ms[1], ms[2], ms[3]);
	return 0;
fail:
	nbrt_cl_fail(rt, what, "a copy to or from the device", e);
out:
	/* nothing queued may outlive the caller's arrays */
	clFinish(c->q);
	return -1;
}

/* the results cross through mortbuf's two sets of 4 (the bodies' x, y,
 * z, m and their sorted copies) */
_Static_assert(NBRT_TREE_MAXRES <= 4, "mortbuf holds 4 columns a set");

/* The nv results, n values of es[v] bytes each one after the other at
 * src (pinned), into the caller's arrays dst: every column's pieces over
 * the threads at once, where each column alone stays on one thread below
 * a megabyte (nbrt_cl_copy): 1 MB took 0.12-0.13 ms at N = 65536 on an
 * H200's host (session 13's final run). */
static void copies_out(void *const dst[], const char *src, int nv, size_t n,
                       const size_t es[])
{
	enum { PIECE = 1 << 16 };
	size_t at[NBRT_TREE_MAXRES + 1] = {0}, first[NBRT_TREE_MAXRES + 1] = {0};
	for (int v = 0; v < nv; v++) {
		at[v + 1] = at[v] + n * es[v];
		first[v + 1] = first[v] + (n * es[v] + PIECE - 1) / PIECE;
	}
	long long q;
#pragma omp parallel for schedule(static) if (first[nv] >= 8)
	for (q = 0; q < (long long)first[nv]; q++) {
		int v = 0;
		while ((size_t)q >= first[v + 1])
			v++;
		size_t off = ((size_t)q - first[v]) * PIECE, len = n * es[v] - off;
		memcpy((char *)dst[v] + off, src + at[v] + off,
		       len < PIECE ? len : PIECE);
	}
}

/* dst[v][order[s]] = the sorted results' s-th value, for the nv
 * results: host arrays src uploaded, or (dev) the device's buffers as a
 * run left them, with (add) another run's added, add[v][s] + dev[v][s];
 * es[v] bytes a value. */
static int scatter(nbrt *rt, int slot, size_t n, int nv, void *const dst[],
                   const void *const src[], const cl_mem dev[],
                   const cl_mem add[], const size_t es[])
{
	Cl *c = rt->priv;
	const char *what = "the treecode's results";
	if (slot < 0 || slot > 1 || c->mortkept[slot] != n || !n ||
	    nv > NBRT_TREE_MAXRES)
		return 1;
	size_t bytes = 0;
	for (int v = 0; v < nv; v++) {
		if (es[v] != 4 && es[v] != 8)
			return 1;
		bytes += n * es[v];
	}
	double t0 = nbrt_now(), t = t0, ms[2] = {0, 0};
	cl_int e;
	/* with dev, the run's own queue order is enough: its results come
	 * before the scatter that reads them */
	if (!dev && (e = clFinish(c->q)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, what, "clFinish", e);
	for (int v = 0; v < nv; v++)
		if ((!dev && nbrt_cl_grow(rt, &c->mortbuf[v], &c->mortcap[v],
		                          n * es[v])) ||
		    nbrt_cl_grow(rt, &c->mortbuf[4 + v], &c->mortcap[4 + v],
		                 n * es[v]))
			return -1;
	if (nbrt_cl_pinned(rt, "pinned memory", &c->pin, &c->pinp, &c->pincap,
	                   bytes))
		return -1;
	/* the sorted results up (or where the run left them), each
	 * scattered (nbrt_cells_scatter, the same type both sides: copied),
	 * all read back into pinned memory */
	cl_ulong cn = n;
	size_t at = 0;
	for (int v = 0; v < nv; v++) {
		size_t b = n * es[v];
		cl_int t = es[v] == 4 ? NBRT_FLOAT : NBRT_DOUBLE;
		cl_mem in = dev ? dev[v] : c->mortbuf[v];
		if (!dev && (e = clEnqueueWriteBuffer(c->q, in, CL_FALSE, 0, b,
		                                      src[v], 0, NULL, NULL)) !=
		    CL_SUCCESS)
			goto fail;
		if (add ? nbrt_cl_aux_run(rt, AK_TREE_ADD, n, ARG(add[v]), ARG(in),
		                          ARG(t), ARG(c->mortbuf[4 + v]),
		                          ARG(c->mortperm[slot]), ARG(cn), (size_t)0) :
		    nbrt_cl_aux_run(rt, AK_CELLS_SCATTER, n, ARG(in), ARG(t),
		                    ARG(c->mortbuf[4 + v]), ARG(t),
		                    ARG(c->mortperm[slot]), ARG(cn), (size_t)0))
			goto out;
		if ((e = clEnqueueReadBuffer(c->q, c->mortbuf[4 + v], CL_FALSE, 0, b,
		                             (char *)c->pinp + at, 0, NULL, NULL)) !=
		    CL_SUCCESS)
			goto fail;
		at += b;
	}
	if ((e = clFinish(c->q)) != CL_SUCCESS)
		goto fail;
	lap(rt, &t, &ms[0]);
	copies_out(dst, c->pinp, nv, n, es);
	lap(rt, &t, &ms[1]);
	nbrt_note(rt, "%s of %zu bodies scattered on the device%s: %.3g ms "
	          "(%sscatter and down %.3g, copies %.3g)", what, n,
	          add ? " from two runs' buffers, added" :
	          dev ? " from the run's buffers" : "", 1e3 * (nbrt_now() - t0),
	          dev ? "" : "up, ", ms[0], ms[1]);
	return 0;
fail:
	nbrt_cl_fail(rt, what, "a copy to or from the device", e);
out:
	clFinish(c->q);
	return -1;
}

int nbrt_cl_tree_scatter(nbrt *rt, int slot, size_t n, int nv,
                         void *const dst[], const void *const src[],
                         const size_t es[])
{
	return scatter(rt, slot, n, nv, dst, src, NULL, NULL, es);
}

/* The results of k's last run, left on the device (rplan.keep: a
 * treecode's near run, which added into its far run's there, or ran
 * beside it, far's added here), scattered from its buffers: they crossed
 * the bus once, not five times (far results down, up for the near run to
 * add into, down, up to be scattered, down). */
int nbrt_cl_tree_results(nbrt_kernel *k, nbrt_kernel *far, int slot,
                         size_t n, int nv, const int var[],
                         void *const dst[])
{
	cl_mem dev[NBRT_TREE_MAXRES], add[NBRT_TREE_MAXRES];
	size_t es[NBRT_TREE_MAXRES];
	if (nbrt_cl_test_fail(k->rt, TF_TREE_RESULTS))
		return nbrt_fail(k->rt, "kernel %s: NBRT_TEST_FAIL=tree_results",
		                 k->f->kernel);
	if (nv > NBRT_TREE_MAXRES)
		return nbrt_fail(k->rt, "kernel %s: %d results to scatter on %s; "
		                 "at most %d", k->f->kernel, nv,
		                 nbrt_device_name(k->rt), NBRT_TREE_MAXRES);
	for (int v = 0; v < nv; v++) {
		es[v] = nbrt_prec_size(k->f->var[var[v]].type);
		if (!(dev[v] = nbrt_cl_var_mem(k, var[v], n * es[v])))
			return nbrt_fail(k->rt, "kernel %s: no result '%s' of %zu "
			                 "elements on %s", k->f->kernel,
			                 k->f->var[var[v]].name, n,
			                 nbrt_device_name(k->rt));
		int fv = far ? nb_iface_find(far->f, k->f->var[var[v]].name) : -1;
		if (far && !(add[v] = nbrt_cl_var_mem(far, fv, n * es[v])))
			return nbrt_fail(k->rt, "kernel %s: no far result '%s' of %zu "
			                 "elements on %s", k->f->kernel,
			                 k->f->var[var[v]].name, n,
			                 nbrt_device_name(k->rt));
	}
	/* far's launches, on the second queue, end before the sums */
	if (far && nbrt_cl_after(far))
		return -1;
	int r = scatter(k->rt, slot, n, nv, dst, NULL, dev, far ? add : NULL, es);
	/* far's and k's launches (k's left running: NBRT_KEEP_LAST) ended
	 * before the sums: their time counted (a failure leaves them to the
	 * caller's settle) */
	if (!r && ((far && nbrt_cl_settle(far)) || nbrt_cl_settle(k)))
		return -1;
	return r > 0 ? nbrt_fail(k->rt, "kernel %s: %s kept no order of %zu "
	                         "bodies for its results", k->f->kernel,
	                         nbrt_device_name(k->rt), n) : r;
}
