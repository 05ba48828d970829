/* run.c: a run on the OpenCL device: the kernel's buffers grown to the
 * run, inputs uploaded (converted and packed into BMEM vectors on the host
 * through pinned staging copies, or from nbrt_arrays on the device),
 * launches queued as launch.c cuts the run, each in the j-slices that fill
 * the device and their sums, results read back, timed by profiling
 * events. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl_impl.h"

/* Run.direct: whether a dense run's results are stored by the one-launch
 * entry (Prog.xkern, NB_DIRECT) straight into their device arrays. */
typedef enum Direct {
	DIRECT_NO,    /* the plain entry; results converted into the arrays */
	DIRECT_MAYBE, /* results all device arrays, no launch yet: the first
	               * decides (launch), building the entry if it takes it */
	DIRECT_TAKEN, /* the run's one launch, the one-launch entry's */
	DIRECT_DIN    /* that entry's NB_DIN build: its inputs the arrays too */
} Direct;

/* One run's transient state: the staging copies it used (pinned, alive
 * until the queue is finished, since writes do not block) and unfinished
 * launch events. */
typedef struct Run {
	void **stage;     /* per mem, into pg->pinp; NULL: none */
	cl_event ev[256];
	int nev;
	size_t wg, u, t;
	cl_uint rarg;     /* the first RMEM argument */
	int sliced;       /* RMEM arguments bound to pg->part */
	int noted;        /* the slices were noted (NBRT_VERBOSE) */
	int oargs;        /* the own sums' entry has this run's arguments */
	cl_kernel kern;   /* the entry launched: dense, or ranges */
	int accum;        /* the results are uploaded first, to add into */
	cl_uint arg0;     /* its first argument after the launch's own */
	/* the inputs already in the kernel's buffers, the plan on the device,
	 * the results left there (nbrt_cl_run_resident) */
	const cl_mem *dplan;
	/* the results start as this kernel's, on the device (rplan.from) */
	const nbrt_kernel *from;
	/* where it queues its uploads, plan and launches: the device's
	 * queue, or (NBRT_KEEP_BESIDE) the second one */
	cl_command_queue q;
	int queued;       /* returns with its launches queued (queues): 1,
	                     or 2 with no events (untimed) */
	/* the one-launch entry (Prog.xkern), the results its arrays, or
	 * not: the first launch binds it where it is the run's only launch,
	 * unsliced, else the plain entry (bound then too; prepare binds it
	 * where the run cannot take the other) */
	Direct direct;
	/* every input a device array, their conversions left to the first
	 * launch (inputs), which takes the NB_DIN entry where it can */
	int din;
	size_t ni, nj;
	int nconv;        /* conversion launches queued */
	/* device arrays' conversions not yet queued, up to 8 a launch
	 * (conv_add): a launch each cost more than the kernel itself at
	 * small N on a GPU, run after run on device arrays */
	struct Conv {
		int to, na;
		nb_prec kt;
		cl_mem src[8], dst[8];
		size_t stride[8], off[8], n[8];
	} cv;
} Run;

/* The gathered conversions queued, in one launch. */
static int conv_flush(nbrt *rt, Run *r)
{
	struct Conv *c = &r->cv;
	int na = c->na, any = 0;
	c->na = 0;
	for (int i = 0; i < na; i++)
		any |= c->n[i] > 0;
	r->nconv += any; /* none launched for no elements */
	return na ? nbrt_cl_aux_conv(rt, c->to, c->kt, na, c->src, c->dst,
	                             c->stride, c->off, c->n)
	          : 0;
}

/* One column's conversion (nbrt_cl_aux_conv's), with the others of its
 * way and type gathered so far; queued by conv_flush, before the
 * launches or at the run's end.  Their buffers or lanes differ, so their
 * order does not matter. */
static int conv_add(nbrt *rt, Run *r, int to, nb_prec kt, cl_mem src,
                    cl_mem dst, size_t stride, size_t off, size_t n)
{
	struct Conv *c = &r->cv;
	if (c->na && (c->na == 8 || c->to != to || c->kt != kt) &&
	    conv_flush(rt, r))
		return -1;
	c->to = to;
	c->kt = kt;
	c->src[c->na] = src;
	c->dst[c->na] = dst;
	c->stride[c->na] = stride;
	c->off[c->na] = off;
	c->n[c->na++] = n;
	return 0;
}

/* Waits for the pending launches and adds up their device time. */
static int drain(nbrt_kernel *k, Run *r)
{
	nbrt *rt = k->rt;
	cl_int e = r->nev ? clWaitForEvents((cl_uint)r->nev, r->ev) : CL_SUCCESS;
	for (int i = 0; i < r->nev; i++) {
		cl_ulong a = 0, b = 0;
		if (e == CL_SUCCESS &&
		    (e = clGetEventProfilingInfo(r->ev[i], CL_PROFILING_COMMAND_START,
		                                 sizeof a, &a, NULL)) == CL_SUCCESS &&
		    (e = clGetEventProfilingInfo(r->ev[i], CL_PROFILING_COMMAND_END,
		                                 sizeof b, &b, NULL)) == CL_SUCCESS)
			k->tkern += 1e-9 * (double)(b - a);
		clReleaseEvent(r->ev[i]);
	}
	r->nev = 0;
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, k->f->kernel, "waiting for the kernel", e);
	return 0;
}

/* A kept run's launches (rplan.keep, a treecode's far run) are left
 * pending, so that its kernel runs while the host prepares the next run
 * (the near run's plan, pack and uploads: about 0.4 ms at N = 65536 on an
 * H100, beside a far kernel of 0.5 ms); they are waited for, and their
 * device time added to k, by k's next run or by the run that starts from
 * its results (rplan.from), whichever comes first, or by the caller
 * (the back end's settle) where that run failed before it came.  The
 * queue is in order, so nothing after them reads its buffers before they
 * end. */
int nbrt_cl_settle(nbrt_kernel *k)
{
	Prog *pg = k->priv;
	if (!pg || !pg->npend)
		return 0;
	Run r;
	memset(&r, 0, sizeof r);
	memcpy(r.ev, pg->pend, (size_t)pg->npend * sizeof *r.ev);
	r.nev = pg->npend;
	pg->npend = 0;
	return drain(k, &r);
}

/* The device's queue waits for k's kept launches (NBRT_KEEP_BESIDE: on
 * the second queue) before what it is given next, the host not waiting;
 * they are still k's to settle. */
int nbrt_cl_after(nbrt_kernel *k)
{
	const Prog *pg = k->priv;
	const Cl *c = k->rt->priv;
	if (!pg || !pg->npend)
		return 0;
	cl_int e = clEnqueueBarrierWithWaitList(c->q, (cl_uint)pg->npend,
	                                        pg->pend, NULL);
	return e == CL_SUCCESS ? 0 :
	       nbrt_cl_fail(k->rt, k->f->kernel, "clEnqueueBarrierWithWaitList",
	                    e);
}

/* The back end's settle: called where the run that would have waited
 * never came (tree.c, after the near run failed), so NBRT_VERBOSE says
 * what it waited for. */
int nbrt_cl_settle_late(nbrt_kernel *k)
{
	const Prog *pg = k->priv;
	if (pg && pg->npend)
		nbrt_note(k->rt, "kernel %s: %d launches of its kept run waited "
		          "for, the run from its results having failed",
		          k->f->kernel, pg->npend);
	return nbrt_cl_settle(k);
}

static int set_arg(nbrt_kernel *k, Run *r, cl_uint i, size_t n,
                   const void *v);
static int bind_inputs(nbrt_kernel *k, cl_kernel kern, cl_uint arg,
                       int din);
static int bind_direct(nbrt_kernel *k, Run *r);
static int inputs(nbrt_kernel *k, Run *r);
static int grow(nbrt_kernel *k, cl_mem *mem, size_t *cap, size_t bytes,
                cl_mem_flags fl, const char *what);

/* The next event slot of a run, waiting for the pending launches first
 * when every slot is taken; NULL after a failure. */
static cl_event *next_event(nbrt_kernel *k, Run *r)
{
	if (r->nev == (int)(sizeof r->ev / sizeof r->ev[0]) && drain(k, r))
		return NULL;
	return &r->ev[r->nev];
}

/* A launch's event slot in *ev, or NULL in an untimed queued run
 * (NBRT_QUEUE=2: NVIDIA's OpenCL spends some 8 us of host time making a
 * profiling event); -1 after a failure.  counted: r->nev follows. */
static int launch_event(nbrt_kernel *k, Run *r, cl_event **ev)
{
	*ev = r->queued == 2 ? NULL : next_event(k, r);
	return r->queued != 2 && !*ev ? -1 : 0;
}

static void counted(Run *r, const cl_event *ev)
{
	r->nev += ev != NULL;
}

/* Binds the RMEM arguments to the results (ns 1) or to the slices' sums
 * of a launch of n i-elements in ns slices, growing those as needed. */
static int bind_results(nbrt_kernel *k, Run *r, int ns, size_t n)
{
	const nb_iface *f = k->f;
	Prog *pg = k->priv;
	if (ns == 1 && !r->sliced)
		return 0;
	int m = nbrt_cl_first_mem(k, NB_RMEM);
	cl_uint arg = r->rarg;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_RMEM)
			continue;
		size_t bytes = (size_t)ns * n * nbrt_prec_size(x->type);
		if (ns > 1 && grow(k, &pg->part[m], &pg->partcap[m], bytes,
		                   CL_MEM_READ_WRITE, x->name))
			return -1;
		if (set_arg(k, r, arg++, sizeof(cl_mem),
		            ns > 1 ? &pg->part[m] : &pg->mem[m]))
			return -1;
		m++;
	}
	r->sliced = ns > 1;
	return 0;
}

/* Adds up the ns slices' sums of a launch into the results, each after
 * the launch in the queue, timed with it. */
static int add_slices(nbrt_kernel *k, Run *r, int ns, size_t ib, size_t n,
                      int accum)
{
	nbrt *rt = k->rt;
	const nb_iface *f = k->f;
	Prog *pg = k->priv;
	cl_int nsl = ns, acc = accum;
	cl_ulong cn = n, off = ib;
	int m = nbrt_cl_first_mem(k, NB_RMEM);
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_RMEM)
			continue;
		int i = nbrt_cl_own(AK_SUM_F, x->type);
		cl_event *ev;
		if (nbrt_cl_aux_run(rt, i, 0, ARG(pg->part[m]), ARG(pg->mem[m]),
		                    ARG(nsl), ARG(cn), ARG(off), ARG(acc),
		                    (size_t)0) ||
		    launch_event(k, r, &ev) || nbrt_cl_aux_queue(rt, i, n, ev))
			return -1;
		counted(r, ev);
		m++;
	}
	return 0;
}

/* The own sums' entry (Prog.okern, program.c) of a launch in ns > 1
 * slices: nb_part, ns rows of each result 16-byte aligned, and nb_cnt, a
 * count for each of the `items` (work items over the j-split), zero when
 * allocated and left zero by each launch. */
static int own_slices(nbrt_kernel *k, const Run *r, int ns, size_t n,
                      size_t items)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	const nb_iface *f = k->f;
	Prog *pg = k->priv;
	cl_uint arg = r->rarg + (cl_uint)nb_iface_count(f, NB_RMEM);
	size_t bytes = 0, had = pg->scntcap;
	cl_int e;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			bytes += ((size_t)ns * n * nbrt_prec_size(f->var[v].type) +
			          15) / 16 * 16;
	if (grow(k, &pg->spart, &pg->spartcap, bytes, CL_MEM_READ_WRITE,
	         "the slices' sums") ||
	    grow(k, &pg->scnt, &pg->scntcap, items * sizeof(cl_int),
	         CL_MEM_READ_WRITE, "the slices' counts"))
		return -1;
	if (pg->scntcap != had) {
		cl_int zero = 0;
		e = clEnqueueFillBuffer(c->q, pg->scnt, &zero, sizeof zero, 0,
		                        pg->scntcap, 0, NULL, NULL);
		if (e != CL_SUCCESS)
			return nbrt_cl_fail(rt, f->kernel, "clEnqueueFillBuffer", e);
	}
	if ((e = clSetKernelArg(pg->okern, arg, sizeof pg->spart, &pg->spart)) !=
	    CL_SUCCESS ||
	    (e = clSetKernelArg(pg->okern, arg + 1, sizeof pg->scnt,
	                        &pg->scnt)) != CL_SUCCESS)
		return nbrt_cl_fail(rt, f->kernel, "clSetKernelArg", e);
	return 0;
}

static int launch(nbrt_kernel *k, size_t ib, size_t n, size_t jb, size_t m,
                  int accum, void *ctx)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	Run *r = ctx;
	cl_int a[CL_DENSE_LEAD] = {(cl_int)n, (cl_int)m, (cl_int)ib, (cl_int)jb,
	                           accum};
	cl_int e;
	size_t groups = (n + r->u - 1) / r->u * r->t;
	size_t global[2] = {(groups + r->wg - 1) / r->wg * r->wg, 1};
	size_t local[2] = {r->wg, 1};
	/* the runtime's own kernels add the slices up: they need doubles */
	int ns = c->fp64 ? nbrt_choose_slices(k, n, m, global[0] / r->wg) : 1;
	int own = ns > 1 &&
	          (pg->ownmode == 1 ||
	           (pg->ownmode < 0 &&
	            nbrt_own_rule(rt->units ? rt->units : 1,
	                          global[0] / r->wg, ns))) &&
	          nbrt_cl_own_entry(k);
	if (r->direct == DIRECT_MAYBE) {
		/* the first launch: the run's only one, unsliced, takes the
		 * one-launch entry, built only now (a second build, which a run
		 * that cannot take it does not pay for), or the plain entry
		 * for all (its slices and later launches fold in the kernel's
		 * own types) */
		int one = ib == 0 && n == r->ni && jb == 0 && m == r->nj &&
		          ns == 1;
		r->direct = one && r->din && nbrt_cl_din_entry(k) ? DIRECT_DIN :
		            one && nbrt_cl_direct_entry(k) ? DIRECT_TAKEN :
		            DIRECT_NO;
		/* prepare left the inputs (din) and the binding to this
		 * choice: converted now, before the launch, unless the entry
		 * reads the arrays; one entry bound */
		if ((r->din && r->direct != DIRECT_DIN && inputs(k, r)) ||
		    (r->direct == DIRECT_NO ?
		     bind_inputs(k, r->kern, r->arg0, 0) : bind_direct(k, r)))
			return -1;
	}
	if (own && !r->oargs) {
		if (bind_inputs(k, pg->okern, CL_DENSE_LEAD, 0))
			return -1;
		r->oargs = 1;
	}
	cl_kernel kern = own ? pg->okern :
	                 r->direct == DIRECT_DIN ? pg->ikern :
	                 r->direct == DIRECT_TAKEN ? pg->xkern : pg->kern;
	for (cl_uint i = 0; i < CL_DENSE_LEAD; i++)
		if ((e = clSetKernelArg(kern, i, sizeof a[i], &a[i])) != CL_SUCCESS)
			return nbrt_cl_fail(rt, k->f->kernel, "clSetKernelArg", e);
	if (ns < 0 || (ns > 1 && !own && nbrt_cl_aux_load(rt)) ||
	    bind_results(k, r, own ? 1 : ns, n) ||
	    (own && own_slices(k, r, ns, n, global[0] / r->t)))
		return -1;
	global[1] = (size_t)ns;
	if (ns > 1 && !r->noted) {
		nbrt_note(rt, "%s: %d j-slices for a launch of Ni = %zu, Nj = %zu "
		          "(%zu work groups), %s", k->name, ns, n, m,
		          global[0] / r->wg, own ? "the kernel's own sums" :
		          "the runtime's sums");
		r->noted = 1;
	}
	cl_event *ev;
	if (launch_event(k, r, &ev))
		return -1;
	e = clEnqueueNDRangeKernel(c->q, kern, 2, NULL, global, local, 0, NULL,
	                           ev);
	if (e != CL_SUCCESS) {
		char what[256];
		snprintf(what, sizeof what, "kernel %s (global size %zu x %d, "
		         "local %zu)", k->f->kernel, global[0], ns, local[0]);
		return nbrt_cl_fail(rt, what, "clEnqueueNDRangeKernel", e);
	}
	counted(r, ev);
	if (ns > 1 && !own && add_slices(k, r, ns, ib, n, accum))
		return -1;
	k->launches++;
	/* progress counts launches done, not queued; a queued run shows
	 * none (it returns before they are done) */
	if (k->plabel && !r->queued && drain(k, r))
		return -1;
	return 0;
}

/* Makes *mem hold at least `bytes`; buffers only grow, so repeated runs
 * of one size allocate once.  ensure: kernel buffer m. */
static int grow(nbrt_kernel *k, cl_mem *mem, size_t *cap, size_t bytes,
                cl_mem_flags fl, const char *what)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	cl_int e;
	if (bytes < 64)
		bytes = 64;
	if (*cap >= bytes)
		return 0;
	if (*mem)
		clReleaseMemObject(*mem);
	*mem = NULL;
	*cap = 0;
	if (bytes > rt->maxalloc)
		return nbrt_fail(rt, "kernel %s: %s needs %zu bytes; %s allows at "
		                 "most %llu in one buffer", k->f->kernel, what, bytes,
		                 rt->name, (unsigned long long)rt->maxalloc);
	*mem = clCreateBuffer(c->ctx, fl, bytes, NULL, &e);
	if (!*mem)
		return nbrt_cl_fail(rt, k->f->kernel, "clCreateBuffer", e);
	*cap = bytes;
	return 0;
}

static int ensure(nbrt_kernel *k, int m, size_t bytes, cl_mem_flags fl,
                  const char *what)
{
	Prog *pg = k->priv;
	size_t cap = pg->cap[m];
	int r = grow(k, &pg->mem[m], &pg->cap[m], bytes, fl, what);
	if (pg->cap[m] != cap)
		pg->held[m].na = 0; /* a new buffer */
	return r;
}

/* Whether input mem m holds already, from an earlier run, the conversion
 * of the device arrays of stamps ver[0..na) (in the order the run
 * converts them), n elements each: none of them written since (a write
 * gives an array a new stamp), nothing else written into m since (every
 * other writer forgets what m holds), no failure since (a queued
 * conversion may not have run).  Else it notes them as what m holds once
 * this run has queued their conversion.  A float gravity run on device
 * arrays whose positions did not change then is its kernel and its
 * results' conversion: two launches, not three. */
static int held(nbrt_kernel *k, int m, const unsigned long long *ver,
                int na, size_t n)
{
	Prog *pg = k->priv;
	struct Held *h = &pg->held[m];
	int max = (int)(sizeof h->ver / sizeof *h->ver);
	if (na >= 1 && h->na == na && h->n == n && h->fails == k->rt->fails &&
	    !memcmp(h->ver, ver, (size_t)na * sizeof *ver))
		return 1;
	h->na = na <= max ? na : 0;
	h->n = n;
	h->fails = k->rt->fails;
	memcpy(h->ver, ver, (size_t)h->na * sizeof *ver);
	return 0;
}

static int put(nbrt_kernel *k, const Run *r, int m, const void *src,
               size_t bytes)
{
	Prog *pg = k->priv;
	cl_int e;
	if (!bytes)
		return 0;
	e = clEnqueueWriteBuffer(r->q, pg->mem[m], CL_FALSE, 0, bytes, src, 0,
	                         NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(k->rt, k->f->kernel, "clEnqueueWriteBuffer", e);
	return 0;
}

/* The array bound to a slot when it lives on the device (else the
 * slot's host pointer is its memory, read as any host array's). */
static nbrt_array *dev_arr(const nbrt_slot *b)
{
	return b->host ? NULL : b->arr;
}

/* Mem m's staging copy of at least `bytes`, pinned, for this run (the
 * queue was finished after the last run that used it).  A staging copy
 * that only grows and stays mapped costs no page faults or page locking
 * from one run to the next. */
static int stage(nbrt_kernel *k, Run *r, int m, size_t bytes)
{
	Prog *pg = k->priv;
	if (nbrt_cl_pinned(k->rt, k->f->kernel, &pg->pin[m], &pg->pinp[m],
	                   &pg->pincap[m], bytes))
		return -1;
	r->stage[m] = pg->pinp[m];
	return 0;
}

/* An LMEM or RMEM array: Ni values of the variable's type.  Inputs are
 * sent as they are when the host layout is the kernel's, converted on the
 * device from an nbrt_array bound there. */
static int upload_var(nbrt_kernel *k, Run *r, int m, int v, size_t ni)
{
	const nb_var *x = &k->f->var[v];
	const nbrt_slot *b = &k->b[v];
	size_t bytes = ni * nbrt_prec_size(x->type);
	cl_mem_flags fl = x->role == NB_RMEM ? CL_MEM_READ_WRITE :
	                  CL_MEM_READ_ONLY;
	if (ensure(k, m, bytes, fl, x->name))
		return -1;
	/* only an input's conversion is kept: a result's buffer is the
	 * kernel's to write */
	if (dev_arr(b) && x->role == NB_LMEM && !r->dplan && !r->from)
		return held(k, m, &dev_arr(b)->ver, 1, ni) ? 0 :
		       conv_add(k->rt, r, 1, x->type, dev_arr(b)->priv,
		                ((Prog *)k->priv)->mem[m],
		                (size_t)nb_prec_scalars(x->type), 0, ni);
	((Prog *)k->priv)->held[m].na = 0;
	if (r->dplan || (x->role == NB_RMEM && !r->accum))
		return 0; /* launches with accum = 0 write every result first */
	if (r->from) {
		/* a treecode's near run: its results start as the far run's,
		 * its i-positions are the far run's (the same sorted copies),
		 * both on the device already */
		int fv = nb_iface_find(r->from->f, x->name);
		cl_mem src = fv >= 0 && r->from->f->var[fv].type == x->type &&
		             r->from->f->var[fv].role == x->role ?
		             nbrt_cl_var_mem(r->from, fv, bytes) : NULL;
		if (!src && x->role == NB_RMEM)
			return nbrt_fail(k->rt, "kernel %s: the results of %s's "
			                 "last run on %s hold no %s of its type for "
			                 "%zu elements", k->f->kernel,
			                 r->from->f->kernel, nbrt_device_name(k->rt),
			                 x->name, ni);
		if (src) {
			cl_int e = clEnqueueCopyBuffer(r->q, src,
			                               ((Prog *)k->priv)->mem[m], 0, 0,
			                               bytes, 0, NULL, NULL);
			return e == CL_SUCCESS ? 0 :
			       nbrt_cl_fail(k->rt, k->f->kernel, "clEnqueueCopyBuffer",
			                    e);
		}
	}
	if (dev_arr(b))
		return conv_add(k->rt, r, 1, x->type, dev_arr(b)->priv,
		                ((Prog *)k->priv)->mem[m],
		                (size_t)nb_prec_scalars(x->type), 0, ni);
	if (nbrt_same_layout(b->t, x->type))
		return put(k, r, m, b->host, bytes);
	if (stage(k, r, m, bytes))
		return -1;
	nbrt_to_kernel(r->stage[m], x->type, (size_t)nb_prec_scalars(x->type), 0, b->host,
	               b->t, ni);
	return put(k, r, m, r->stage[m], bytes);
}

/* Bytes of one element of a host array of type t. */
static size_t host_size(nbrt_type t)
{
	return t == NBRT_FLOAT ? sizeof(float) : t == NBRT_DOUBLE ? sizeof(double)
	                                                          : 2 * sizeof(double);
}

enum { CHUNK = 2048 }; /* elements of a pack's chunk (pack_host) */

/* Elements [e0, e0 + CHUNK) of pack p's host arrays (those below nj)
 * into its staging copy dst (unused lanes 0): a chunk's pack stays in a
 * core's cache while every lane is written, one pass through the staging
 * memory where zeroing it and writing each lane over it took one a lane
 * (at 2^20 float4s, 64 MB of memory traffic on one thread). */
static void pack_chunk(nbrt_kernel *k, int p, void *dst, size_t e0,
                       size_t nj)
{
	const nb_iface *f = k->f;
	const nb_pack *pk = &f->pack[p];
	size_t es = (size_t)pk->vwidth * nb_prec_scalar_bytes(pk->type);
	size_t n = nj - e0 < CHUNK ? nj - e0 : CHUNK;
	char *d = (char *)dst + e0 * es;
	memset(d, 0, n * es);
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		const nbrt_slot *b = &k->b[v];
		if (x->role != NB_BMEM || x->pack != p || dev_arr(b))
			continue;
		size_t off = (size_t)(nb_prec_scalars(pk->type) * x->comp);
		nbrt_to_kernel(d, pk->type, (size_t)pk->vwidth, off,
		               (const char *)b->host + e0 * host_size(b->t), b->t,
		               n);
	}
}

/* The packs given staging copies (upload_pack's first pass, from mem
 * m0), all their chunks in one parallel loop: a treecode's far run packs
 * ten expansion columns of 16k cells into three packs at N = 65536,
 * which took 0.18 ms with a loop of four chunks a pack on an H200's host
 * (session 13's final run).  From 8 chunks, by one thread with 16 as the
 * bar. */
static void pack_host(nbrt_kernel *k, const Run *r, int m0, size_t nj)
{
	const nb_iface *f = k->f;
	long long nch = (long long)((nj + CHUNK - 1) / CHUNK), q;
	long long all = nch * f->npack;
#pragma omp parallel for schedule(static) if (all >= 8)
	for (q = 0; q < all; q++) {
		int p = (int)(q / nch);
		if (r->stage[m0 + p])
			pack_chunk(k, p, r->stage[m0 + p], (size_t)(q % nch) * CHUNK,
			           nj);
	}
}

/* A BMEM pack: Nj elements of vwidth scalars, value comp of element j in
 * scalar comp (2 comp, 2 comp + 1 for dd), unused lanes 0.  In two
 * passes: the first (!packed) gives a pack of host arrays its staging
 * copy, which pack_host fills; the second uploads. */
static int upload_pack(nbrt_kernel *k, Run *r, int m, int p, size_t nj,
                       int packed)
{
	const nb_iface *f = k->f;
	const nb_pack *pk = &f->pack[p];
	size_t scal = nb_prec_scalar_bytes(pk->type);
	size_t bytes = nj * (size_t)pk->vwidth * scal;
	char what[64];
	snprintf(what, sizeof what, "BMEM pack %d", p);
	if (ensure(k, m, bytes, CL_MEM_READ_ONLY, what))
		return -1;
	Prog *pg = k->priv;
	if (!bytes || r->dplan) {
		pg->held[m].na = 0;
		return 0;
	}
	int only = -1, onhost = 0, lanes = 0, na = 0;
	unsigned long long ver[sizeof pg->held->ver / sizeof *pg->held->ver];
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_BMEM && f->var[v].pack == p) {
			only = only == -1 ? v : -2;
			onhost += !dev_arr(&k->b[v]);
			lanes += nb_prec_scalars(pk->type);
			if (dev_arr(&k->b[v]) && na < (int)(sizeof ver / sizeof *ver))
				ver[na] = dev_arr(&k->b[v])->ver;
			na++;
		}
	/* a pack of device arrays only: its conversion kept as an LMEM's
	 * (held; the second pass, after the staging copies' pass) */
	if (onhost || na > (int)(sizeof ver / sizeof *ver))
		pg->held[m].na = 0;
	else if (packed && held(k, m, ver, na, nj))
		return 0;
	if (only >= 0 && !dev_arr(&k->b[only]) &&
	    (size_t)pk->vwidth * scal == nbrt_prec_size(pk->type) &&
	    nbrt_same_layout(k->b[only].t, pk->type))
		return packed ? put(k, r, m, k->b[only].host, bytes) : 0;
	/* host arrays through the staging copy (its unused lanes 0), then
	 * device arrays into their lanes, after it in the queue */
	if (!packed)
		return onhost ? stage(k, r, m, bytes) : 0;
	if (!onhost && lanes < pk->vwidth) {
		static const cl_uchar zero = 0;
		cl_int e = clEnqueueFillBuffer(r->q, pg->mem[m], &zero, 1, 0, bytes,
		                               0, NULL, NULL);
		if (e != CL_SUCCESS)
			return nbrt_cl_fail(k->rt, f->kernel, "clEnqueueFillBuffer", e);
	}
	if (onhost && put(k, r, m, r->stage[m], bytes))
		return -1;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_BMEM || x->pack != p || !dev_arr(&k->b[v]))
			continue;
		size_t off = (size_t)(nb_prec_scalars(pk->type) * x->comp);
		if (conv_add(k->rt, r, 1, pk->type, dev_arr(&k->b[v])->priv,
		             pg->mem[m], (size_t)pk->vwidth, off, nj))
			return -1;
	}
	return 0;
}

static int set_arg(nbrt_kernel *k, Run *r, cl_uint i, size_t n,
                   const void *v)
{
	cl_int e = clSetKernelArg(r->kern, i, n, v);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(k->rt, k->f->kernel, "clSetKernelArg", e);
	return 0;
}

/* Whether the NB_DIN entry reads variable v from its array's float
 * copy: a float input of a kernel built so. */
static int din_shadow(const nbrt_kernel *k, int v)
{
	const nb_var *x = &k->f->var[v];
	return ((const Prog *)k->priv)->dinf && x->type == NB_FLOAT &&
	       (x->role == NB_LMEM || x->role == NB_BMEM);
}

/* Input v's argument of the NB_DIN entry: its array, or (NB_DIN_SH) its
 * float copy's place in the shadow room. */
static cl_int din_arg(const nbrt_kernel *k, cl_kernel kern, cl_uint arg,
                      int v)
{
	nbrt_array *a = dev_arr(&k->b[v]);
	cl_ulong at = a->shadow_at;
	return din_shadow(k, v) ? clSetKernelArg(kern, arg, sizeof at, &at)
	                        : clSetKernelArg(kern, arg, sizeof(cl_mem),
	                                         &a->priv);
}

/* The float copies the NB_DIN entry reads (Prog.dinf, NB_DIN_SH=1):
 * made at an array's first such run, brought up to date in the run's
 * conversion launch where the array changed since it was made (by its
 * stamp), which nbrt_array_axpy's launch spares a leap-frog by writing
 * the copies of what it updates itself (array.c).  A copy is what the
 * entry built without it casts each double to, so the bits are one. */
static int shadows(nbrt_kernel *k, Run *r)
{
	const nb_iface *f = k->f;
	const Cl *c = k->rt->priv;
	/* every copy placed first: making room moves those placed before */
	for (int v = 0; v < f->nvar; v++)
		if (din_shadow(k, v) && !dev_arr(&k->b[v])->shadowed &&
		    nbrt_cl_shadow_new(dev_arr(&k->b[v])))
			goto fail;
	for (int v = 0; v < f->nvar; v++) {
		nbrt_array *a = dev_arr(&k->b[v]);
		if (!din_shadow(k, v) || a->shadow_ver == a->ver)
			continue;
		if (conv_add(k->rt, r, 1, NB_FLOAT, a->priv, c->sh, 1, a->shadow_at,
		             a->n))
			goto fail;
		a->shadow_ver = a->ver; /* one array bound to two names: once */
	}
	if (!conv_flush(k->rt, r))
		return 0;
fail:
	/* whatever was queued may not have run: made again at the next */
	for (int v = 0; v < f->nvar; v++)
		if (din_shadow(k, v))
			dev_arr(&k->b[v])->shadow_ver = 0;
	return -1;
}

/* Sets an entry's arguments from `arg` on: LMEM buffers, BMEM packs,
 * CONSTs by value, RMEM buffers (the results themselves: bind_results
 * moves them to the slices' sums).  din: the NB_DIN entry's, whose
 * LMEMs are their arrays and whose packs are their BMEMs' arrays, pack
 * by pack. */
static int bind_inputs(nbrt_kernel *k, cl_kernel kern, cl_uint arg, int din)
{
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	int m = 0;
	cl_int e = CL_SUCCESS;
	for (int v = 0; v < f->nvar && e == CL_SUCCESS; v++)
		if (f->var[v].role == NB_LMEM) {
			e = din ? din_arg(k, kern, arg, v)
			        : clSetKernelArg(kern, arg, sizeof(cl_mem), &pg->mem[m]);
			arg++;
			m++;
		}
	for (int p = 0; p < f->npack && e == CL_SUCCESS; p++) {
		for (int v = 0; din && v < f->nvar && e == CL_SUCCESS; v++)
			if (f->var[v].role == NB_BMEM && f->var[v].pack == p)
				e = din_arg(k, kern, arg++, v);
		if (!din)
			e = clSetKernelArg(kern, arg++, sizeof(cl_mem), &pg->mem[m]);
		m++;
	}
	for (int v = 0; v < f->nvar && e == CL_SUCCESS; v++) {
		const nb_var *x = &f->var[v];
		const nbrt_slot *b = &k->b[v];
		if (x->role != NB_CONST)
			continue;
		cl_float fv = (cl_float)b->hi;
		cl_double dv = b->hi;
		cl_double2 d2;
		d2.s[0] = b->hi;
		d2.s[1] = b->lo;
		e = x->type == NB_FLOAT ? clSetKernelArg(kern, arg, sizeof fv, &fv) :
		    x->type == NB_DOUBLE ? clSetKernelArg(kern, arg, sizeof dv, &dv) :
		    clSetKernelArg(kern, arg, sizeof d2, &d2);
		arg++;
	}
	for (int v = 0; v < f->nvar && e == CL_SUCCESS; v++)
		if (f->var[v].role == NB_RMEM)
			e = clSetKernelArg(kern, arg++, sizeof(cl_mem), &pg->mem[m++]);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(k->rt, f->kernel, "clSetKernelArg", e);
	return 0;
}

/* The LMEM and BMEM inputs uploaded (t[0..2]: the times before, between
 * and after them). */
static int upload_inputs(nbrt_kernel *k, Run *r, double t[3])
{
	const nb_iface *f = k->f;
	int m = 0;
	t[0] = nbrt_now();
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_LMEM && upload_var(k, r, m++, v, r->ni))
			return -1;
	t[1] = nbrt_now();
	for (int p = 0; p < f->npack; p++)
		if (upload_pack(k, r, m + p, p, r->nj, 0))
			return -1;
	pack_host(k, r, m, r->nj);
	for (int p = 0; p < f->npack; p++)
		if (upload_pack(k, r, m++, p, r->nj, 1))
			return -1;
	t[2] = nbrt_now();
	return 0;
}

/* A din run's inputs where its first launch did not take the NB_DIN
 * entry: converted into the kernel's buffers, queued before it. */
static int inputs(nbrt_kernel *k, Run *r)
{
	double t[3];
	r->din = 0;
	return upload_inputs(k, r, t) || conv_flush(k->rt, r);
}

/* Uploads every input (a din run's: at its first launch), then sets the
 * entry's arguments after the launch's own. */
static int prepare(nbrt_kernel *k, Run *r, size_t ni)
{
	const nb_iface *f = k->f;
	int m = nb_iface_count(f, NB_LMEM) + f->npack;
	double t[4] = {nbrt_now(), 0, 0, 0};
	/* a din run's buffers keep what they held, by its stamps (held) */
	if (r->din)
		t[1] = t[2] = t[0];
	else if (upload_inputs(k, r, t))
		return -1;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM && upload_var(k, r, m++, v, ni))
			return -1;
	if (conv_flush(k->rt, r))
		return -1;
	t[3] = nbrt_now();
	/* cl_go's note on a ranges run's inputs, in parts */
	if (r->kern == ((Prog *)k->priv)->rkern)
		nbrt_note(k->rt, "%s: inputs: i %.3g ms, j packs %.3g, results "
		          "%.3g", k->name, 1e3 * (t[1] - t[0]), 1e3 * (t[2] - t[1]),
		          1e3 * (t[3] - t[2]));
	/* a run that may take the one-launch entry binds at its first
	 * launch, which chooses (some 10 clSetKernelArg a small run less) */
	return r->direct == DIRECT_MAYBE ? 0 :
	       bind_inputs(k, r->kern, r->arg0, 0);
}

/* Binds the one-launch entry for a dense run: prepare's arguments, the
 * results the arrays themselves. */
static int bind_direct(nbrt_kernel *k, Run *r)
{
	const nb_iface *f = k->f;
	Prog *pg = k->priv;
	int din = r->direct == DIRECT_DIN;
	r->kern = din ? pg->ikern : pg->xkern;
	if (din && shadows(k, r))
		return -1;
	/* the NB_DIN entry's arguments: one a BMEM, not one a pack */
	r->rarg = (cl_uint)(r->arg0 + (din ? nb_iface_count(f, NB_LMEM) +
	                                     nb_iface_count(f, NB_BMEM)
	                                   : nb_iface_count(f, NB_LMEM) +
	                                     f->npack) +
	                    nb_iface_count(f, NB_CONST));
	if (bind_inputs(k, r->kern, r->arg0, din))
		return -1;
	cl_uint arg = r->rarg;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM &&
		    set_arg(k, r, arg++, sizeof(cl_mem), &dev_arr(&k->b[v])->priv))
			return -1;
	/* the shadow room, last (emit_opencl.c's nb_sh) */
	const Cl *c = k->rt->priv;
	if (din && pg->dinf && set_arg(k, r, arg, sizeof(cl_mem), &c->sh))
		return -1;
	return 0;
}

/* Reads every result back, into the host array or its staging copy, or
 * converts it into the nbrt_array bound to it on the device. */
static int fetch(nbrt_kernel *k, Run *r, size_t ni)
{
	const Cl *c = k->rt->priv;
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	int m = nbrt_cl_first_mem(k, NB_RMEM);
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role != NB_RMEM)
			continue;
		size_t bytes = ni * nbrt_prec_size(x->type);
		void *dst = k->b[v].host;
		if (dev_arr(&k->b[v])) {
			nbrt_array_touch(dev_arr(&k->b[v]));
			if (r->direct != DIRECT_TAKEN && r->direct != DIRECT_DIN &&
			    conv_add(k->rt, r, 0, x->type, pg->mem[m],
			             dev_arr(&k->b[v])->priv, 1, 0, ni))
				return -1;
			m++;
			continue;
		}
		if (!nbrt_same_layout(k->b[v].t, x->type)) {
			if (stage(k, r, m, bytes))
				return -1;
			dst = r->stage[m];
		}
		cl_int e = clEnqueueReadBuffer(c->q, pg->mem[m], CL_FALSE, 0,
		                               bytes, dst, 0, NULL, NULL);
		if (e != CL_SUCCESS)
			return nbrt_cl_fail(k->rt, f->kernel, "clEnqueueReadBuffer", e);
		m++;
	}
	return conv_flush(k->rt, r);
}

/* The largest Ni or Nj whose indices, with the padding of the last work
 * group, stay within an int. */
static size_t int_limit(const nb_iface *f)
{
	size_t pad = (size_t)f->unroll_i * ((size_t)f->wg + 2) *
	             (size_t)f->jsplit + (size_t)f->tile + 64 +
	             (size_t)NBRT_MAX_SLICES * ((size_t)f->tile + 1);
	return pad < (size_t)INT_MAX / 2 ? (size_t)INT_MAX - pad : 0;
}

static int cl_go(nbrt_kernel *k, size_t ni, size_t nj, const nbrt_rplan *p,
                 const cl_mem *dplan, const nbrt_nplan *np,
                 nbrt_cl_pairs_fn *queue);

/* One plan array as the kernel takes it, cl_ints, into buffer m of the
 * plan through its pinned staging copy, converted in parallel in the pass
 * that finds its largest value; written without blocking (the run's
 * clFinish comes before the next run may reuse the copy), so the host
 * converts the next array while this one crosses. */
static int put_ints(nbrt_kernel *k, const Run *r, int m, const size_t *v,
                    size_t n, int pad, const char *what)
{
	Prog *pg = k->priv;
	size_t w = n / (size_t)(pad ? pad : 1) * 4;
	size_t cnt = pad ? w : n, most = 0;
	long long i;
	if (!cnt)
		return grow(k, &pg->rmem[m], &pg->rcap[m], 0, CL_MEM_READ_ONLY,
		            what);
	if (grow(k, &pg->rmem[m], &pg->rcap[m], cnt * sizeof(cl_int),
	         CL_MEM_READ_ONLY, what) ||
	    nbrt_cl_pinned(k->rt, what, &pg->rpin[m], &pg->rpinp[m],
	                   &pg->rpincap[m], cnt * sizeof(cl_int)))
		return -1;
	cl_int *b = pg->rpinp[m];
	if (pad == 3) {
		/* a task (first, count, group) fills an int4 */
#pragma omp parallel for schedule(static) reduction(max : most) \
	if (n >= 65536)
		for (i = 0; i < (long long)(n / 3); i++) {
			const size_t *t = v + 3 * i;
			size_t a = t[0] > t[1] ? t[0] : t[1];
			a = a > t[2] ? a : t[2];
			most = a > most ? a : most;
			b[4 * i] = (cl_int)t[0];
			b[4 * i + 1] = (cl_int)t[1];
			b[4 * i + 2] = (cl_int)t[2];
			b[4 * i + 3] = 0;
		}
	} else {
#pragma omp parallel for schedule(static) reduction(max : most) \
	if (n >= 65536)
		for (i = 0; i < (long long)n; i++) {
			most = v[i] > most ? v[i] : most;
			b[i] = (cl_int)v[i];
		}
	}
	if (most > INT_MAX)
		return nbrt_fail(k->rt, "kernel %s: the %s of the plan hold %zu, "
		                 "beyond OpenCL's int indices", k->f->kernel, what,
		                 most);
	cl_int e = clEnqueueWriteBuffer(r->q, pg->rmem[m], CL_FALSE, 0,
	                                cnt * sizeof *b, b, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(k->rt, k->f->kernel, "clEnqueueWriteBuffer", e);
	return 0;
}

/* The plan into its buffers and the ranges entry's arguments 1 to 7. */
static int put_plan(nbrt_kernel *k, Run *r, const nbrt_rplan *p, size_t ni,
                    size_t nj)
{
	Prog *pg = k->priv;
	cl_int mapped = p->imap || p->jmap, accum = p->accum;
	if (r->dplan) { /* the sorted order's maps, where the source reads i or j */
		mapped = k->f->indices != 0;
		for (cl_uint a = 0; a < 5; a++)
			if (set_arg(k, r, a + 1, sizeof(cl_mem), &r->dplan[a]))
				return -1;
		return set_arg(k, r, 6, sizeof mapped, &mapped) ||
		       set_arg(k, r, 7, sizeof accum, &accum);
	}
	size_t nr = p->offset[p->ngroups + 1];
	if (p->ntask > INT_MAX / 4 || nr > INT_MAX / 2)
		return nbrt_fail(k->rt, "kernel %s: %zu tasks and %zu ranges: more "
		                 "than OpenCL's int indices reach", k->f->kernel,
		                 p->ntask, nr);
	if (put_ints(k, r, 0, p->task, 3 * p->ntask, 3, "tasks") ||
	    put_ints(k, r, 1, p->offset, p->ngroups + 2, 0, "offsets") ||
	    put_ints(k, r, 2, p->range, 2 * nr, 0, "ranges") ||
	    put_ints(k, r, 3, p->imap, p->imap ? ni : 0, 0, "i-map"))
		return -1;
	/* a self run's j sorted as its i: one map for both */
	int twin = p->jmap && p->jmap == p->imap && nj == ni;
	if (!twin && put_ints(k, r, 4, p->jmap, p->jmap ? nj : 0, 0, "j-map"))
		return -1;
	for (cl_uint a = 0; a < 5; a++)
		if (set_arg(k, r, a + 1, sizeof(cl_mem),
		            &pg->rmem[a == 4 && twin ? 3 : a]))
			return -1;
	return set_arg(k, r, 6, sizeof mapped, &mapped) ||
	       set_arg(k, r, 7, sizeof accum, &accum);
}

/* The tasks, a work group each, in launches of at most k->maxint pairs
 * (one task at least). */
static int launch_tasks(nbrt_kernel *k, Run *r, const nbrt_rplan *p)
{
	/* tasks a work group (nb_options.rtasks): the caller's device plan
	 * holds a multiple of them, p->per too */
	size_t tpg = k->opts.rtasks > 1 ? (size_t)k->opts.rtasks : 1;
	/* the most tasks a launch: its global size within an int, and
	 * p->per where the caller cut the plan */
	size_t most = (size_t)INT_MAX / r->wg;
	most = p->per && p->per < most ? p->per : most;
	for (size_t t0 = 0; t0 < p->ntask;) {
		size_t t1 = t0;
		double pairs = 0;
		/* no host tasks (a device-resident plan): the most a launch
		 * taken at once (where the caller found its pairs within
		 * k->maxint, as many as an int reaches): stepping through a
		 * million one-element tasks (cells of a third of the cutoff,
		 * Lennard-Jones 2^20) cost 2-3 ms of host time a call */
		if (!p->task)
			t1 = t0 + (p->ntask - t0 < most ? p->ntask - t0 : most);
		for (; p->task && t1 < p->ntask && t1 - t0 < most; t1++) {
			double w = (double)p->task[3 * t1 + 1] *
			           (double)p->glen[p->task[3 * t1 + 2]];
			if (t1 > t0 && pairs + w > (double)k->maxint)
				break; /* one task at least */
			pairs += w;
		}
		cl_int base = (cl_int)t0;
		size_t global = (t1 - t0 + tpg - 1) / tpg * r->wg, local = r->wg;
		cl_event *ev;
		cl_int e;
		if (set_arg(k, r, 0, sizeof base, &base) || !(ev = next_event(k, r)))
			return -1;
		e = clEnqueueNDRangeKernel(r->q, r->kern, 1, NULL, &global, &local,
		                           0, NULL, ev);
		if (e != CL_SUCCESS) {
			char what[256];
			snprintf(what, sizeof what, "kernel %s_ranges (global size %zu, "
			         "local %zu)", k->f->kernel, global, local);
			return nbrt_cl_fail(k->rt, what, "clEnqueueNDRangeKernel", e);
		}
		r->nev++;
		k->launches++;
		if (k->plabel && drain(k, r))
			return -1;
		t0 = t1;
	}
	return 0;
}

/* A cell list's sorted copies in pinned memory: uploaded and downloaded
 * straight from and to it, where memory of malloc's goes through the
 * driver's own staging (and on a GPU is read at a fraction of the
 * speed).  NULL where it cannot have it: the caller uses its own. */
void *nbrt_cl_hostbuf(nbrt_kernel *k, int slot, size_t bytes)
{
	Prog *pg = k->priv;
	if (!pg || !bytes || slot < 0)
		return NULL;
	if (slot >= pg->nhost) {
		int n = slot + 1;
		cl_mem *h = realloc(pg->host, (size_t)n * sizeof *h);
		if (!h)
			return NULL;
		pg->host = h;
		void **p = realloc(pg->hostp, (size_t)n * sizeof *p);
		if (!p)
			return NULL;
		pg->hostp = p;
		size_t *cap = realloc(pg->hostcap, (size_t)n * sizeof *cap);
		if (!cap)
			return NULL;
		pg->hostcap = cap;
		for (int m = pg->nhost; m < n; m++) {
			pg->host[m] = NULL;
			pg->hostp[m] = NULL;
			pg->hostcap[m] = 0;
		}
		pg->nhost = n;
	}
	if (nbrt_cl_pinned(k->rt, "a sorted copy", &pg->host[slot],
	                   &pg->hostp[slot], &pg->hostcap[slot], bytes))
		return NULL;
	return pg->hostp[slot];
}

cl_mem nbrt_cl_var_mem(const nbrt_kernel *k, int v, size_t bytes)
{
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	if (!pg || v < 0 || v >= f->nvar ||
	    (f->var[v].role != NB_RMEM && f->var[v].role != NB_LMEM) ||
	    (f->var[v].role == NB_RMEM && pg->direct) ||
	    (f->var[v].role == NB_LMEM && pg->din))
		return NULL; /* a one-launch run's results are in its arrays,
		              * and a din run's inputs */
	nb_role role = f->var[v].role;
	int m = nbrt_cl_first_mem(k, role);
	for (int w = 0; w < v; w++)
		m += f->var[w].role == role;
	pg->held[m].na = 0; /* the caller may write it (morton.c) */
	return pg->cap[m] >= bytes ? pg->mem[m] : NULL;
}

int nbrt_cl_first_mem(const nbrt_kernel *k, nb_role role)
{
	const nb_iface *f = k->f;
	int lmem = nb_iface_count(f, NB_LMEM);
	return role == NB_LMEM ? 0 : role == NB_BMEM ? lmem : lmem + f->npack;
}

/* A buffer a run made read-only (its input) is made again: the device's
 * kernels write it. */
cl_mem nbrt_cl_kbuf(nbrt_kernel *k, int m, size_t bytes, const char *what)
{
	Prog *pg = k->priv;
	cl_mem_flags fl = 0;
	if (pg->mem[m]) {
		cl_int e = clGetMemObjectInfo(pg->mem[m], CL_MEM_FLAGS, sizeof fl,
		                              &fl, NULL);
		if (e != CL_SUCCESS) {
			nbrt_cl_fail(k->rt, what, "clGetMemObjectInfo", e);
			return NULL;
		}
		if (!(fl & CL_MEM_READ_WRITE)) {
			clReleaseMemObject(pg->mem[m]);
			pg->mem[m] = NULL;
			pg->cap[m] = 0;
		}
	}
	pg->held[m].na = 0; /* the caller writes it */
	return ensure(k, m, bytes, CL_MEM_READ_WRITE, what) ? NULL : pg->mem[m];
}

int nbrt_cl_run(nbrt_kernel *k, size_t ni, size_t nj)
{
	return cl_go(k, ni, nj, NULL, NULL, NULL, NULL);
}

int nbrt_cl_run_ranges(nbrt_kernel *k, size_t ni, size_t nj,
                       const nbrt_rplan *p)
{
	return cl_go(k, ni, nj, p, NULL, NULL, NULL);
}

int nbrt_cl_run_resident(nbrt_kernel *k, size_t ni, size_t nj,
                         const nbrt_rplan *p, const cl_mem dplan[5])
{
	return cl_go(k, ni, nj, p, dplan, NULL, NULL);
}

int nbrt_cl_run_queued(nbrt_kernel *k, size_t n, const nbrt_nplan *np,
                       nbrt_cl_pairs_fn *queue)
{
	return cl_go(k, n, n, NULL, NULL, np, queue);
}

/* A run: the dense launches, or (p) a block-sparse plan through the
 * ranges entry, or (np) Newton's third law (its launches queued by
 * newton.c's `queue`, passed in so that calls run one way); the inputs,
 * arguments and results alike, or (dplan) all three on the device
 * already. */
/* The device's second in-order queue (Cl.q2), made at the first run kept
 * beside the first one's (NBRT_KEEP_BESIDE): NVIDIA's OpenCL runs two
 * in-order queues' kernels side by side, an out-of-order queue's one
 * after the other (bench/queues.c); NULL after a failure. */
static cl_command_queue beside(nbrt *rt)
{
	Cl *c = rt->priv;
	cl_int e;
	if (!c->q2 && !(c->q2 = clCreateCommandQueue(c->ctx, c->dev,
	                                             CL_QUEUE_PROFILING_ENABLE,
	                                             &e)))
		nbrt_cl_fail(rt, "a second queue", "clCreateCommandQueue", e);
	return c->q2;
}

/* A plain dense run: every i against every j, neither a ranges run (p)
 * nor one of Newton's third law (np). */
static int dense_run(const nbrt_rplan *p, const nbrt_nplan *np)
{
	return !p && !np;
}

/* A run that returns with its launches queued (nbrt_set_queue): a dense
 * one whose every array is on the device, so the host has nothing to
 * wait for (no staging copy, no result to read).  It shows no progress
 * (nbrt_show_progress counts launches done): bin/nbody asks progress of
 * every run, and its steps are what queued runs are for. */
static int queues(const nbrt_kernel *k, const nbrt_rplan *p,
                  const nbrt_nplan *np)
{
	const nb_iface *f = k->f;
	if (!k->rt->queue || !dense_run(p, np))
		return 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role != NB_CONST && !dev_arr(&k->b[v]))
			return 0;
	return k->rt->queue;
}

/* Whether every result of k is an nbrt_array on the device. */
static int results_on_device(const nbrt_kernel *k)
{
	const nb_iface *f = k->f;
	int n = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM && !dev_arr(&k->b[v]))
			return 0;
		else
			n += f->var[v].role == NB_RMEM;
	return n > 0;
}

/* Whether every LMEM and BMEM input is bound to a device array (and
 * there is one). */
static int inputs_on_device(const nbrt_kernel *k)
{
	const nb_iface *f = k->f;
	int n = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_LMEM || f->var[v].role == NB_BMEM) {
			if (!dev_arr(&k->b[v]))
				return 0;
			n++;
		}
	return n > 0;
}

/* Whether the NB_DIN entry was measured faster for a run of ni x nj:
 * a float kernel's runs of at most its row's din_max pairs (or
 * NBRT_DIN_MAX's; 0: no limit). */
static int din_pays(const nbrt_kernel *k, size_t ni, size_t nj)
{
	const nb_defaults *row = nbrt_row(k->rt, k->f->precision);
	long long max = ((Prog *)k->priv)->din_max;
	if (max < 0)
		max = row ? row->din_max : 0;
	return k->f->precision != NB_FLOAT || max == 0 ||
	       (double)ni * (double)nj <= (double)max;
}

/* NBRT_VERBOSE names a kernel's way with its results on device arrays
 * at its first such run and where it changes. */
static void path_note(nbrt_kernel *k, const Run *r)
{
	Prog *pg = k->priv;
	enum Xnote path = r->direct == DIRECT_DIN ? XNOTE_READ :
	                  r->direct == DIRECT_TAKEN ? XNOTE_STORED :
	                  XNOTE_CONVERTED;
	if (r->direct == DIRECT_MAYBE || !results_on_device(k) ||
	    pg->xnote == path)
		return; /* no launch (Ni = 0) */
	pg->xnote = path;
	nbrt_note(k->rt, "%s: its results stored %s", k->name,
	          path == XNOTE_READ && pg->dinf ?
	          "into the arrays and its inputs read from them by the kernel: "
	          "one launch a run, its float inputs from the arrays' float "
	          "copies (converted where an array changed other than by "
	          "nbrt_array_axpy)" :
	          path == XNOTE_READ ?
	          "into the arrays and its inputs read from them by the kernel: "
	          "one launch a run, no conversions" :
	          path == XNOTE_STORED ?
	          "into the arrays by the kernel: one launch a run" :
	          "by the kernel, then converted into the arrays (NBRT_DIRECT=0, "
	          "no doubles, the build failed, several launches or slices)");
}

static int cl_go(nbrt_kernel *k, size_t ni, size_t nj, const nbrt_rplan *p,
                 const cl_mem *dplan, const nbrt_nplan *np,
                 nbrt_cl_pairs_fn *queue)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	size_t lim = int_limit(f);
	if (ni > lim || nj > lim)
		return nbrt_fail(rt, "kernel %s: Ni = %zu, Nj = %zu: OpenCL "
		                 "kernels index with int, so both must be at most "
		                 "%zu", f->kernel, ni, nj, lim);
	Run r;
	memset(&r, 0, sizeof r);
	r.wg = (size_t)f->wg;
	r.u = (size_t)f->unroll_i;
	r.t = (size_t)f->jsplit;
	/* np->ntask < 0: the dense self run (newton.c) */
	r.kern = np ? (np->ntask < 0 ? pg->dkern : pg->pkern) :
	         p ? pg->rkern : pg->kern;
	r.accum = p && p->accum;
	r.dplan = dplan;
	r.from = p && p->accum ? p->from : NULL;
	r.q = c->q;
	r.arg0 = p ? CL_RANGES_LEAD : CL_DENSE_LEAD;
	r.rarg = (cl_uint)(r.arg0 + nb_iface_count(f, NB_LMEM) + f->npack +
	                   nb_iface_count(f, NB_CONST));
	if (p && !r.kern)
		return nbrt_fail(rt, "%s has no entry of block-sparse runs",
		                 k->name);
	if (np && !r.kern)
		return nbrt_fail(rt, "%s has no entry of Newton's third law",
		                 k->name);
	r.ni = ni;
	r.nj = nj;
	r.stage = calloc((size_t)pg->nmem + 1, sizeof *r.stage);
	int res = -1;
	long launches = k->launches;
	int queued = r.queued = queues(k, p, np);
	if (dense_run(p, np) && results_on_device(k)) {
		r.direct = DIRECT_MAYBE;
		r.din = (pg->icode || pg->ikern) && inputs_on_device(k) &&
		        din_pays(k, ni, nj);
	}
	/* its last kept run done: this one reuses its buffers and copies;
	 * a run that waits reports the queued runs' failures first */
	if (nbrt_cl_settle(k) || (!queued && nbrt_cl_queue_settle(rt)))
		goto out;
	if (!r.stage) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}
	/* a ranges run only: the dense launches' sums go on the device's */
	if (p && !dplan && p->keep == NBRT_KEEP_BESIDE && !(r.q = beside(rt)))
		goto out;
	if (p && (p->keep == NBRT_KEEP_DONE || p->keep == NBRT_KEEP_LAST) &&
	    nbrt_cl_test_fail(rt, TF_NEAR_RUN)) {
		nbrt_fail(rt, "kernel %s: NBRT_TEST_FAIL=near_run", f->kernel);
		goto out;
	}
	/* per launch, also the global size stays within an int; 16 work
	 * groups per compute unit fill an H100's SM with 128-item groups */
	size_t imax = lim / r.t;
	size_t fill = (size_t)(rt->units ? rt->units : 1) * 16 *
	              nbrt_unit_items(f);
	/* where a ranges run's host time goes (NBRT_VERBOSE): a treecode's
	 * far run at N = 65536 spent 0.34 ms here beside a 0.45 ms kernel */
	double tq[4] = {nbrt_now(), 0, 0, 0};
	if (prepare(k, &r, ni))
		goto out;
	tq[1] = nbrt_now();
	if (np ? queue(k, ni, np, r.rarg) :
	    p ? put_plan(k, &r, p, ni, nj) :
	    nbrt_each_launch(k, ni, nj, imax, fill, launch, &r))
		goto out;
	tq[2] = nbrt_now();
	if (p && launch_tasks(k, &r, p))
		goto out;
	tq[3] = nbrt_now();
	if (p)
		nbrt_note(rt, "%s: ranges run of %zu tasks: inputs %.3g ms, plan "
		          "%.3g, launches %.3g (%d)", k->name, p->ntask,
		          1e3 * (tq[1] - tq[0]), 1e3 * (tq[2] - tq[1]),
		          1e3 * (tq[3] - tq[2]), r.nev);
	cl_int e;
	if (queued) {
		/* its results converted after it in the queue; nothing of the
		 * host's to wait for, its launches the queue's */
		int n = r.nev;
		if (fetch(k, &r, ni))
			goto out;
		r.nev = 0;
		double t4 = nbrt_now();
		res = nbrt_cl_queue_add(rt, f->kernel, r.ev, n, queued == 2);
		pg->nqrun++;
		pg->nqplain += queued == 2;
		pg->qhost[0] += tq[1] - tq[0];
		pg->qhost[1] += tq[2] - tq[1];
		pg->qhost[2] += t4 - tq[3];
		pg->qhost[3] += nbrt_now() - t4;
		goto out;
	}
	/* the first run of a chain, or the last beside it (the near run
	 * from the far run's results waits: they are read next) */
	if (p && p->keep > NBRT_KEEP_DONE && !r.from && !dplan &&
	    r.nev <= (int)(sizeof pg->pend / sizeof *pg->pend)) {
		/* left running (settle); flushed, so that it starts now */
		if ((e = clFlush(r.q)) != CL_SUCCESS) {
			nbrt_cl_fail(rt, f->kernel, "clFlush", e);
			goto out;
		}
		memcpy(pg->pend, r.ev, (size_t)r.nev * sizeof *r.ev);
		pg->npend = r.nev;
		r.nev = 0;
		res = 0;
		goto out;
	}
	/* from: its pending launches end before this run's (in order) */
	if (drain(k, &r) || (r.from && nbrt_cl_settle((nbrt_kernel *)r.from)) ||
	    (!dplan && !(p && p->keep) && fetch(k, &r, ni)))
		goto out;
	if ((e = clFinish(r.q)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, f->kernel, "clFinish", e);
		goto out;
	}
	int m = nbrt_cl_first_mem(k, NB_RMEM);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			if (r.stage[m])
				nbrt_from_kernel(k->b[v].host, k->b[v].t, r.stage[m],
				                 f->var[v].type,
				                 (size_t)nb_prec_scalars(f->var[v].type), 0,
				                 ni);
			m++;
		}
	res = 0;
out:
	pg->direct = r.direct == DIRECT_TAKEN || r.direct == DIRECT_DIN;
	pg->din = r.direct == DIRECT_DIN;
	pg->nrun++;
	pg->nkern += k->launches - launches;
	pg->nconv += r.nconv;
	if (!res && dense_run(p, np))
		path_note(k, &r);
	/* nothing may still read or write a staging copy when it is freed */
	if (res) {
		clFinish(c->q);
		if (r.q && r.q != c->q)
			clFinish(r.q);
		for (int i = 0; i < r.nev; i++)
			clReleaseEvent(r.ev[i]);
	}
	free(r.stage);
	return res;
}
