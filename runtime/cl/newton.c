/* newton.c: Newton's third law on an OpenCL device (the back end's
 * run_pairs, through run.c's uploads).  The plan's blocks (runtime/
 * newton.c: a cell's run, each pair of cells once) are cut into slices
 * of a work group's nb_s work items, its tasks into the slices' tasks;
 * the pairs entry (compiler/emit_opencl.c) writes each task's i-sides
 * and j-sides to places of their own, and the fold adds each element's
 * in the order of the tasks: the same bits for the same plan, whatever
 * the device's threads, with no atomics.  A dense self run (asked for,
 * or AUTO's where the defaults table's newton_min says) goes through
 * the _dense entry instead: dense_queue. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cl_impl.h"

/* The slices a work group may hold: nb_s a power of two from 8 to 64
 * (a work item meets nb_s j-elements between nb_s barriers) */
enum { SMIN = 8, SMAX = 64 };

static long slices(long len, long s)
{
	return (len + s - 1) / s;
}

/* The steps of a task of sides a and b (the pairs entry's nb_n). */
static long steps(long a, long b, int one)
{
	return one ? a / 2 + 1 : a > b ? a : b;
}

/* nb_s: NBRT_NEWTON_SLICE, else 16 (or the work group, if smaller).  A
 * block cut into slices costs a task each pair of them, with its loads,
 * partial sums and their fold; a wide slice idles work items.  For
 * Lennard-Jones in the periodic box, about 50 neighbours, float, the
 * kernels' median (bench/selfrun.c): on an H200 at N = 2^20, slices of
 * 8, 16, 32, 64 took 2.34, 1.86, 2.39, 3.25 ms; on PoCL at N = 262144
 * 16 took 0.97 s, 8 2.0 s and 32 0.88 to 1.4 s (a busy 2-core host). */
static int pick_slice(nbrt_kernel *k, long *s)
{
	long wg = k->f->wg, want = 0;
	if (nbrt_env_int(k->rt, "NBRT_NEWTON_SLICE", SMIN, SMAX, &want) < 0)
		return -1;
	if (want && ((want & (want - 1)) || wg % want))
		return nbrt_fail(k->rt, "NBRT_NEWTON_SLICE=%ld: a power of two "
		                 "from %d to %d that divides the work group "
		                 "(%ld)", want, SMIN, SMAX, wg);
	*s = want ? want : 16;
	while (!want && *s > SMIN && wg % *s)
		*s /= 2;
	if (wg % *s)
		return nbrt_fail(k->rt, "kernel %s: Newton's third law on %s needs "
		                 "a work group of a multiple of %d (it has %ld)",
		                 k->f->kernel, k->rt->name, SMIN, wg);
	return 0;
}

/* The plan as the entries take it: tasks (i0, ni, j0, nj) and their
 * partials' places (i-side, j-side), each element's block, the blocks'
 * (first element, first of their list) and the lists. */
typedef struct Dplan {
	cl_int *task, *part, *blk, *binfo, *blist;
	size_t ntask, nsub, nlist;
	size_t npart; /* partials a RMEM */
} Dplan;

static void dplan_free(Dplan *d)
{
	free(d->task);
	free(d->part);
	free(d->blk);
	free(d->binfo);
	free(d->blist);
}

/* The tasks launched longest first, so that a work group's steps (its
 * longest task's) waste little: the order of the launch is not the
 * order of the sums, which the fold's lists fix. */
static int by_steps(nbrt_kernel *k, Dplan *d, long s)
{
	size_t at[SMAX + 2] = {0}, n = d->ntask;
	cl_int *t = malloc((4 * n + 4) * sizeof *t);
	cl_int *p = malloc((2 * n + 2) * sizeof *p);
	if (!t || !p) {
		free(t);
		free(p);
		dplan_free(d);
		return nbrt_fail(k->rt, "kernel %s: out of memory for the tasks "
		                 "of Newton's third law", k->f->kernel);
	}
	for (size_t x = 0; x < n; x++) {
		const cl_int *q = d->task + 4 * x;
		at[s + 1 - steps(q[1], q[3], q[0] == q[2])]++;
	}
	for (long c = 1; c <= s + 1; c++)
		at[c] += at[c - 1];
	for (size_t x = 0; x < n; x++) {
		const cl_int *q = d->task + 4 * x;
		size_t y = at[s - steps(q[1], q[3], q[0] == q[2])]++;
		memcpy(t + 4 * y, q, 4 * sizeof *t);
		memcpy(p + 2 * y, d->part + 2 * x, 2 * sizeof *p);
	}
	free(d->task);
	free(d->part);
	d->task = t;
	d->part = p;
	return 0;
}

/* Makes d from the plan, in slices of s; -1 with the message set.  The
 * blocks are found through their first elements (two blocks are equal
 * or disjoint), an array over the elements rather than a sort. */
static int dplan_make(nbrt_kernel *k, size_t n, const nbrt_nplan *np,
                      long *slice, Dplan *d)
{
	long nt = np->ntask;
	const long *task = np->task;
	long *end = malloc((n + 1) * sizeof *end), *cnt = NULL;
	memset(d, 0, sizeof *d);
	d->blk = malloc((n + 1) * sizeof *d->blk);
	d->binfo = malloc((2 * n + 4) * sizeof *d->binfo);
	if (!end || !d->blk || !d->binfo)
		goto oom;
	for (size_t e = 0; e < n; e++) {
		end[e] = -1;
		d->blk[e] = -1;
	}
	for (long m = 0; m < nt; m++) {
		end[task[8 * m]] = task[8 * m + 1];
		end[task[8 * m + 2]] = task[8 * m + 3];
	}
	if (pick_slice(k, slice)) {
		free(end);
		dplan_free(d);
		return -1;
	}
	long s = *slice;
	/* the slices, in the elements' order: each block's from its first */
	size_t nsub = 0;
	for (size_t e0 = 0; e0 < n; e0++) {
		if (end[e0] < 0)
			continue;
		for (long e = (long)e0; e < end[e0]; e++)
			d->blk[e] = (cl_int)(nsub + (size_t)(e - (long)e0) / (size_t)s);
		for (long x = (long)e0; x < end[e0]; x += s)
			d->binfo[2 * nsub++] = (cl_int)x;
	}
	d->nsub = nsub;
	/* the slices' tasks, counted before they are made; each stores at
	 * most 2 s partials */
	double ntask = 0;
	for (long m = 0; m < nt; m++) {
		const long *q = task + 8 * m;
		double a = (double)slices(q[1] - q[0], s);
		double c = (double)slices(q[3] - q[2], s);
		ntask += q[0] == q[2] ? a * (a + 1) / 2 : a * c;
	}
	if (ntask * 2 * (double)s > INT_MAX / 2 || (double)n > INT_MAX / 2) {
		free(end);
		dplan_free(d);
		return nbrt_fail(k->rt, "kernel %s: Newton's third law on %s: %.0f "
		                 "tasks of %ld elements, more partial sums than an "
		                 "int indexes", k->f->kernel, k->rt->name, ntask, s);
	}
	d->ntask = (size_t)ntask;
	d->task = malloc((4 * d->ntask + 4) * sizeof *d->task);
	d->part = malloc((2 * d->ntask + 2) * sizeof *d->part);
	cnt = calloc(d->nsub + 1, sizeof *cnt);
	if (!d->task || !d->part || !cnt)
		goto oom;
	/* the tasks in the plan's order, each cut into its slices' pairs; a
	 * task on one block into each slice with itself and each pair of
	 * slices once */
	size_t at = 0, pos = 0;
	for (long m = 0; m < nt; m++) {
		const long *q = task + 8 * m;
		long a = slices(q[1] - q[0], s), c = slices(q[3] - q[2], s);
		int one = q[0] == q[2];
		for (long p = 0; p < a; p++)
			for (long r = one ? p : 0; r < c; r++, at++) {
				long i0 = q[0] + p * s, j0 = q[2] + r * s;
				long ni = q[1] - i0 < s ? q[1] - i0 : s;
				long nj = q[3] - j0 < s ? q[3] - j0 : s;
				cl_int *t = d->task + 4 * at, *pp = d->part + 2 * at;
				t[0] = (cl_int)i0;
				t[1] = (cl_int)ni;
				t[2] = (cl_int)j0;
				t[3] = (cl_int)nj;
				pp[0] = (cl_int)pos;
				pos += (size_t)ni;
				cnt[d->blk[i0]]++;
				pp[1] = (cl_int)pos;
				if (i0 != j0) {
					pos += (size_t)nj;
					cnt[d->blk[j0]]++;
				}
			}
	}
	d->npart = pos;
	/* each slice's list of partials, in the tasks' order */
	size_t nl = 0;
	for (size_t x = 0; x < d->nsub; x++) {
		d->binfo[2 * x + 1] = (cl_int)nl;
		nl += (size_t)cnt[x];
		cnt[x] = d->binfo[2 * x + 1];
	}
	d->binfo[2 * d->nsub] = 0;
	d->binfo[2 * d->nsub + 1] = (cl_int)nl;
	d->nlist = nl;
	if (!(d->blist = malloc((nl + 1) * sizeof *d->blist)))
		goto oom;
	for (size_t x = 0; x < d->ntask; x++) {
		const cl_int *t = d->task + 4 * x, *pp = d->part + 2 * x;
		d->blist[cnt[d->blk[t[0]]]++] = pp[0];
		if (t[0] != t[2])
			d->blist[cnt[d->blk[t[2]]]++] = pp[1];
	}
	free(end);
	free(cnt);
	return by_steps(k, d, s);
oom:
	free(end);
	free(cnt);
	dplan_free(d);
	return nbrt_fail(k->rt, "kernel %s: out of memory for the tasks of "
	                 "Newton's third law over %zu elements", k->f->kernel, n);
}

/* Buffer x of the plan (Prog.rmem) holding the n ints at v. */
static int put_ints(nbrt_kernel *k, int x, const cl_int *v, size_t n)
{
	const Cl *c = k->rt->priv;
	Prog *pg = k->priv;
	size_t bytes = (n ? n : 1) * sizeof *v;
	if (nbrt_cl_grow(k->rt, &pg->rmem[x], &pg->rcap[x], bytes))
		return -1;
	cl_int e = clEnqueueWriteBuffer(c->q, pg->rmem[x], CL_TRUE, 0,
	                                n * sizeof *v, v, 0, NULL, NULL);
	return e == CL_SUCCESS ? 0 :
	       nbrt_cl_fail(k->rt, k->f->kernel, "clEnqueueWriteBuffer", e);
}

/* Waits for ev and adds its device time to k. */
static int timed(nbrt_kernel *k, cl_event ev)
{
	cl_ulong a = 0, b = 0;
	cl_int e = clWaitForEvents(1, &ev);
	if (e == CL_SUCCESS &&
	    (e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
	                                 sizeof a, &a, NULL)) == CL_SUCCESS &&
	    (e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
	                                 sizeof b, &b, NULL)) == CL_SUCCESS)
		k->tkern += 1e-9 * (double)(b - a);
	clReleaseEvent(ev);
	k->launches++;
	return e == CL_SUCCESS ? 0 :
	       nbrt_cl_fail(k->rt, k->f->kernel, "waiting for the kernel", e);
}

static int set(nbrt_kernel *k, cl_kernel kern, cl_uint i, size_t n,
               const void *v)
{
	cl_int e = clSetKernelArg(kern, i, n, v);
	return e == CL_SUCCESS ? 0 :
	       nbrt_cl_fail(k->rt, k->f->kernel, "clSetKernelArg", e);
}

/* The pairs entry's launches from argument `rarg` (its first RMEM) on,
 * then the fold's into the results (Prog.mem).  Queued; their device
 * time added to k->tkern. */
static int pairs_queue(nbrt_kernel *k, size_t n, const nbrt_nplan *np,
                       cl_uint rarg)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	long s = 0;
	Dplan d;
	double t0 = nbrt_now();
	if (dplan_make(k, n, np, &s, &d))
		return -1;
	int r = -1, m0 = nbrt_cl_first_mem(k, NB_RMEM);
	double bytes = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			bytes += (double)d.npart * (double)nbrt_prec_size(f->var[v].type);
	if (bytes > (double)rt->globalmem / 2) {
		char b[32];
		nbrt_format_bytes(b, sizeof b, bytes);
		nbrt_fail(rt, "kernel %s: Newton's third law over %zu elements "
		          "needs %s of partial sums on %s, more than half its "
		          "memory", f->kernel, n, b, rt->name);
		goto out;
	}
	if (put_ints(k, 0, d.task, 4 * d.ntask) ||
	    put_ints(k, 1, d.part, 2 * d.ntask) || put_ints(k, 2, d.blk, n) ||
	    put_ints(k, 3, d.binfo, 2 * d.nsub + 2) ||
	    put_ints(k, 4, d.blist, d.nlist))
		goto out;
	cl_uint arg = rarg;
	for (int v = 0, m = m0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			size_t pb = (d.npart ? d.npart : 1) *
			            nbrt_prec_size(f->var[v].type);
			if (nbrt_cl_grow(rt, &pg->part[m], &pg->partcap[m], pb) ||
			    set(k, pg->pkern, arg++, sizeof(cl_mem), &pg->part[m]))
				goto out;
			m++;
		}
	cl_int nt = (cl_int)d.ntask, cs = (cl_int)s;
	if (set(k, pg->pkern, 1, sizeof nt, &nt) ||
	    set(k, pg->pkern, 2, sizeof cs, &cs) ||
	    set(k, pg->pkern, 3, sizeof(cl_mem), &pg->rmem[0]) ||
	    set(k, pg->pkern, 4, sizeof(cl_mem), &pg->rmem[1]))
		goto out;
	double t1 = nbrt_now();
	/* launches of at most 2^20 work groups */
	size_t wg = (size_t)f->wg, per = wg / (size_t)s, most = (size_t)1 << 20;
	size_t groups = (d.ntask + per - 1) / per;
	for (size_t g = 0; g < groups; g += most) {
		cl_int tb = (cl_int)(g * per);
		size_t global = (groups - g < most ? groups - g : most) * wg;
		cl_event ev;
		cl_int e;
		if (set(k, pg->pkern, 0, sizeof tb, &tb))
			goto out;
		if ((e = clEnqueueNDRangeKernel(c->q, pg->pkern, 1, NULL, &global,
		                                &wg, 0, NULL, &ev)) != CL_SUCCESS) {
			nbrt_cl_fail(rt, f->kernel, "clEnqueueNDRangeKernel", e);
			goto out;
		}
		if (timed(k, ev))
			goto out;
	}
	cl_int cn = (cl_int)n;
	arg = 4;
	if (set(k, pg->fkern, 0, sizeof cn, &cn) ||
	    set(k, pg->fkern, 1, sizeof(cl_mem), &pg->rmem[2]) ||
	    set(k, pg->fkern, 2, sizeof(cl_mem), &pg->rmem[3]) ||
	    set(k, pg->fkern, 3, sizeof(cl_mem), &pg->rmem[4]))
		goto out;
	for (int v = 0, m = m0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			if (set(k, pg->fkern, arg++, sizeof(cl_mem), &pg->part[m]) ||
			    set(k, pg->fkern, arg++, sizeof(cl_mem), &pg->mem[m]))
				goto out;
			m++;
		}
	size_t fl = 64, fg = (n + fl - 1) / fl * fl;
	cl_event ev;
	cl_int e = clEnqueueNDRangeKernel(c->q, pg->fkern, 1, NULL, &fg, &fl, 0,
	                                  NULL, &ev);
	if (e != CL_SUCCESS) {
		nbrt_cl_fail(rt, f->kernel, "clEnqueueNDRangeKernel", e);
		goto out;
	}
	if (timed(k, ev))
		goto out;
	nbrt_note(rt, "%s: Newton's third law: %zu tasks of slices of %ld, "
	          "%zu partial sums a result; plan %.3g ms, kernels %.3g ms",
	          k->name, d.ntask, s, d.npart, 1e3 * (t1 - t0),
	          1e3 * (nbrt_now() - t1));
	r = 0;
out:
	dplan_free(&d);
	return r;
}

/* One launch of kern over gs (dims 1 or 2) in groups of ls, timed. */
static int go(nbrt_kernel *k, cl_kernel kern, cl_uint dims, const size_t *gs,
              const size_t *ls)
{
	const Cl *c = k->rt->priv;
	cl_event ev;
	cl_int e = clEnqueueNDRangeKernel(c->q, kern, dims, NULL, gs, ls, 0,
	                                  NULL, &ev);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(k->rt, k->f->kernel, "clEnqueueNDRangeKernel",
		                    e);
	return timed(k, ev);
}

/* The dense self run (np->ntask < 0; the emitter's _dense entry, whose
 * comment has the scheme): blocks of a work group's NB_DENSE_U rows, plan_make's rounds
 * in launches of as many as a budget of partial sums holds (an eighth
 * of the device's memory; NBRT_NEWTON_ROUNDS, fewer), each launch's
 * folded into the results in round order: a run's bits depend on the
 * work group alone. */
static int dense_queue(nbrt_kernel *k, size_t n, const nbrt_nplan *np,
                       cl_uint rarg)
{
	nbrt *rt = k->rt;
	Prog *pg = k->priv;
	const nb_iface *f = k->f;
	size_t wg = (size_t)f->wg, bs = wg * NB_DENSE_U, nb = (n + bs - 1) / bs;
	size_t npad = nb * bs;
	size_t nr = 1 + nb / 2, round = 0;
	(void)np;
	if (wg % 32)
		return nbrt_fail(rt, "kernel %s: Newton's third law in a dense "
		                 "run on %s needs a work group of a multiple of 32 "
		                 "(it has %zu)", f->kernel, rt->name, wg);
	if (npad > INT_MAX / 2)
		return nbrt_fail(rt, "kernel %s: Newton's third law over %zu "
		                 "elements: more than an int indexes", f->kernel, n);
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			round += 2 * npad * nbrt_prec_size(f->var[v].type);
	/* NBRT_NEWTON_ROUNDS: fewer a launch (the tests' seams) */
	long want = 0;
	if (nbrt_env_int(rt, "NBRT_NEWTON_ROUNDS", 1, INT_MAX, &want) < 0)
		return -1;
	size_t budget = (size_t)(rt->globalmem / 8), rl = budget / round;
	rl = want && (size_t)want < rl ? (size_t)want : rl;
	rl = rl < 1 ? 1 : rl > nr ? nr : rl;
	if ((double)rl * (double)round > (double)rt->globalmem / 2)
		return nbrt_fail(rt, "kernel %s: Newton's third law over %zu "
		                 "elements needs %zu bytes of partial sums a round "
		                 "on %s, more than half its memory", f->kernel, n,
		                 round, rt->name);
	cl_uint arg = rarg, fa = 4;
	for (int v = 0, m = nbrt_cl_first_mem(k, NB_RMEM); v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			size_t pb = rl * 2 * npad * nbrt_prec_size(f->var[v].type);
			if (nbrt_cl_grow(rt, &pg->part[m], &pg->partcap[m], pb) ||
			    set(k, pg->dkern, arg++, sizeof(cl_mem), &pg->part[m]) ||
			    set(k, pg->dfkern, fa++, sizeof(cl_mem), &pg->part[m]) ||
			    set(k, pg->dfkern, fa++, sizeof(cl_mem), &pg->mem[m]))
				return -1;
			m++;
		}
	cl_int cn = (cl_int)n, cnb = (cl_int)nb, cnp = (cl_int)npad;
	if (set(k, pg->dkern, 0, sizeof cn, &cn) ||
	    set(k, pg->dkern, 1, sizeof cnb, &cnb) ||
	    set(k, pg->dkern, 4, sizeof cnp, &cnp) ||
	    set(k, pg->dfkern, 0, sizeof cn, &cn) ||
	    set(k, pg->dfkern, 1, sizeof cnp, &cnp))
		return -1;
	double t0 = nbrt_now();
	for (size_t s0 = 0; s0 < nr; s0 += rl) {
		cl_int cs0 = (cl_int)s0, cr = (cl_int)(nr - s0 < rl ? nr - s0 : rl),
		       first = s0 == 0;
		size_t gs[2] = {nb * wg, (size_t)cr}, ls[2] = {wg, 1};
		size_t fl = 64, fg = (n + fl - 1) / fl * fl;
		if (set(k, pg->dkern, 2, sizeof cs0, &cs0) ||
		    set(k, pg->dkern, 3, sizeof cr, &cr) ||
		    set(k, pg->dfkern, 2, sizeof cr, &cr) ||
		    set(k, pg->dfkern, 3, sizeof first, &first) ||
		    go(k, pg->dkern, 2, gs, ls) || go(k, pg->dfkern, 1, &fg, &fl))
			return -1;
	}
	nbrt_note(rt, "%s: Newton's third law, dense: %zu blocks of %zu, %zu "
	          "rounds, %zu a launch; kernels %.3g ms", k->name, nb, bs, nr,
	          rl, 1e3 * (nbrt_now() - t0));
	return 0;
}

int nbrt_cl_run_pairs(nbrt_kernel *k, size_t n, const nbrt_nplan *np)
{
	if (np->ntask < 0)
		return nbrt_cl_dense_entries(k) ? -1 :
		       nbrt_cl_run_queued(k, n, np, dense_queue);
	return nbrt_cl_run_queued(k, n, np, pairs_queue);
}
