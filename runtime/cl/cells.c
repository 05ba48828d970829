/* cells.c: nbrt_run_cutoff's whole call on an OpenCL device (the back
 * end's run_cells) for the common case -- cells of one cutoff (or of a
 * half or a third: NBRT_DEVICE_CELL_SPLIT), each a group, open axes: the
 * inputs uploaded once, keyed row-major, sorted, each cell's start found,
 * its (2 reach + 1)^(dim-1) j-ranges (rows of cells along x) written in
 * place, the sorted copies gathered into the kernel's buffers, the ranges
 * entry run and the results scattered back, with at most O(cells)
 * crossing to the host for the tasks.  Any other case is the
 * host builder's (cutoff.c), as is every call under NBRT_DEVICE_CELLS=0.
 * On PoCL too the device's lists win: Lennard-Jones at 2^18 (nbneighbours
 * lj 262144, the 2-core development box, 2026-11-27) took 0.87 s against
 * 1.40 s with the host's (the kernel 0.8 s in both; the keys, sort,
 * lists and copies 0.07 s against 0.6). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl_impl.h"

/* Device buffers kept on the kernel from call to call (Prog's own), by
 * slot: the fixed ones, then one a variable (its caller's values
 * uploaded, or its results in the caller's order before they are read
 * back). */
enum { S_KEY, S_VAL, S_JKEY, S_JVAL, S_TKEY, S_TVAL, S_ISTART, S_JSTART,
       S_OFFSET, S_RANGE, S_GLEN, S_TASK, S_PART, S_EMPTY, S_VAR };

/* Host arrays kept in the kernel's k->cellwork, which the host builder
 * takes only in calls this file leaves to it: the cells' i-starts and
 * j-counts, the plan's group lengths and tasks for run.c, the tasks as
 * the kernel reads them (the first two and the last in the back end's
 * pinned buffers where it has them: hostmem). */
enum { H_START, H_LEN, H_GLEN, H_TASK, H_TASK4, H_CHUNK };

/* Room for nslot buffers; -1 out of memory. */
static int own_reserve(Prog *pg, int nslot)
{
	if (pg->nown >= nslot)
		return 0;
	cl_mem *m = realloc(pg->own, (size_t)nslot * sizeof *m);
	if (!m)
		return -1;
	pg->own = m;
	size_t *c = realloc(pg->owncap, (size_t)nslot * sizeof *c);
	if (!c)
		return -1;
	pg->owncap = c;
	for (int s = pg->nown; s < nslot; s++) {
		pg->own[s] = NULL;
		pg->owncap[s] = 0;
	}
	pg->nown = nslot;
	return 0;
}

/* Buffer s of at least bytes (it only grows); NULL after a failure. */
static cl_mem buf(nbrt_kernel *k, int s, size_t bytes)
{
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	cl_int e;
	if (bytes < 64)
		bytes = 64;
	if (pg->owncap[s] >= bytes)
		return pg->own[s];
	if (pg->own[s])
		clReleaseMemObject(pg->own[s]);
	pg->own[s] = NULL;
	pg->owncap[s] = 0;
	if (bytes > rt->maxalloc) {
		nbrt_fail(rt, "kernel %s: the device's cell lists need %zu bytes "
		          "in one buffer; %s allows at most %llu", k->f->kernel,
		          bytes, rt->name, (unsigned long long)rt->maxalloc);
		return NULL;
	}
	pg->own[s] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
	if (!pg->own[s]) {
		nbrt_cl_fail(rt, k->f->kernel, "clCreateBuffer", e);
		return NULL;
	}
	pg->owncap[s] = bytes;
	return pg->own[s];
}

/* Bytes of an element of a host array of type t (laid out as the
 * precision of the same name). */
static size_t host_size(nbrt_type t)
{
	return nbrt_prec_size((nb_prec)t);
}

/* Slots s and t exchanged, as nbrt_cl_sort may have done to buffers. */
static void swap_slots(Prog *pg, int s, int t)
{
	cl_mem m = pg->own[s];
	size_t c = pg->owncap[s];
	pg->own[s] = pg->own[t];
	pg->owncap[s] = pg->owncap[t];
	pg->own[t] = m;
	pg->owncap[t] = c;
}

/* A call's state. */
typedef struct Call {
	nbrt_kernel *k;
	cl_mem *src;       /* per variable: its caller's values on the device */
	nbrt_type *t;      /* and their type there */
	double t0, *time;
	size_t ni, nj;
	/* host arrays cross through pinned staging (else straight from and
	 * to the caller's memory): in[0..at) taken by the uploads so far */
	int stage;
	char *in;
	size_t at, up;
	cl_event *ev;      /* per variable: its result's read back */
} Call;

/* Whether the caller's arrays cross through pinned staging:
 * NBRT_CELL_STAGE=0/1, by default on a GPU (a copy on the host, where
 * the driver's own staging of pageable memory is slower); on an OpenCL
 * CPU the write is a copy already.  -1: a bad value. */
static int staged(nbrt *rt)
{
	long v = rt->gpu;
	return nbrt_env_int(rt, "NBRT_CELL_STAGE", 0, 1, &v) < 0 ? -1 : (int)v;
}

/* Waits for the queue, adds the time since the last lap to phase p. */
static int lap(Call *w, int p)
{
	const Cl *c = w->k->rt->priv;
	cl_int e = clFinish(c->q);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(w->k->rt, w->k->f->kernel, "clFinish", e);
	double t = nbrt_now();
	w->time[p] += t - w->t0;
	w->t0 = t;
	return 0;
}

/* Variable v's caller's values on the device: an nbrt_array's own
 * buffer, or the host array uploaded (once for the variables bound to
 * the same array of the same length). */
static int source(Call *w, int v, size_t n)
{
	nbrt_kernel *k = w->k;
	const nbrt_slot *b = &k->b[v];
	const Cl *c = k->rt->priv;
	if (w->src[v])
		return 0;
	if (!b->host) {
		w->src[v] = (cl_mem)b->arr->priv;
		w->t[v] = NBRT_DOUBLE;
		return 0;
	}
	const nb_iface *f = k->f;
	for (int u = 0; u < f->nvar; u++) {
		const nbrt_slot *a = &k->b[u];
		size_t m = f->var[u].role == NB_LMEM ? w->ni : w->nj;
		if (u != v && w->src[u] && a->host == b->host && a->t == b->t &&
		    m == n && f->var[u].role != NB_RMEM) {
			w->src[v] = w->src[u];
			w->t[v] = b->t;
			return 0;
		}
	}
	size_t bytes = n * host_size(b->t);
	cl_mem m = buf(k, S_VAR + v, bytes);
	if (!m)
		return -1;
	const void *from = b->host;
	if (w->in) {
		nbrt_cl_copy(w->in + w->at, b->host, bytes);
		from = w->in + w->at;
		w->at += bytes;
	}
	/* flushed: the copy crosses while the host stages the next column */
	cl_int e = bytes ? clEnqueueWriteBuffer(c->q, m, CL_FALSE, 0, bytes,
	                                        from, 0, NULL, NULL)
	                 : CL_SUCCESS;
	if (e == CL_SUCCESS && bytes)
		e = clFlush(c->q);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(k->rt, f->var[v].name, "clEnqueueWriteBuffer", e);
	w->up += bytes;
	w->src[v] = m;
	w->t[v] = b->t;
	return 0;
}

/* The buffer of a reduction's partial results over n elements, per
 * doubles a work group of at most 256 (the host adds them up). */
static cl_mem parts(nbrt_kernel *k, size_t n, int per, size_t *groups)
{
	const Cl *c = k->rt->priv;
	*groups = (n + c->akwg - 1) / c->akwg;
	if (*groups > 256)
		*groups = 256;
	return buf(k, S_PART, *groups * (size_t)per * sizeof(double));
}

/* The box of one side's positions into lo, hi; 1 where one is not
 * finite (the host builder names it). */
static int bbox(Call *w, const int pv[3], int dim, size_t n, double lo[3],
                double hi[3])
{
	nbrt_kernel *k = w->k;
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	size_t groups;
	cl_mem part = parts(k, n, 7, &groups);
	if (!part)
		return -1;
	cl_mem x[3];
	cl_int t[3];
	for (int d = 0; d < 3; d++) {
		int dd = d < dim ? d : 0;
		x[d] = w->src[pv[dd]];
		t[d] = (cl_int)w->t[pv[dd]];
	}
	cl_int cd = dim;
	cl_ulong cn = n;
	if (nbrt_cl_aux_run(rt, AK_CELLS_BBOX, groups * c->akwg, ARG(x[0]),
	                    ARG(x[1]), ARG(x[2]), ARG(t[0]), ARG(t[1]), ARG(t[2]),
	                    ARG(cd), ARG(cn), ARG(part), (size_t)0))
		return -1;
	double p[256 * 7];
	cl_int e = clEnqueueReadBuffer(c->q, part, CL_TRUE, 0,
	                               groups * 7 * sizeof *p, p, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "the cells' box", "clEnqueueReadBuffer", e);
	for (size_t g = 0; g < groups; g++) {
		if (p[7 * g + 6] > 0)
			return 1;
		for (int d = 0; d < dim; d++) {
			lo[d] = p[7 * g + 2 * d] < lo[d] ? p[7 * g + 2 * d] : lo[d];
			hi[d] = p[7 * g + 2 * d + 1] > hi[d] ? p[7 * g + 2 * d + 1]
			                                     : hi[d];
		}
	}
	return 0;
}

/* One side's cells: keys, the sort, each cell's start. */
static int side_cells(Call *w, const int pv[3], int dim, size_t n,
                      const double org[3], const double wd[3],
                      const long long nc[3], size_t ncell, int sk, int sv,
                      int sstart)
{
	nbrt_kernel *k = w->k;
	nbrt *rt = k->rt;
	Prog *pg = k->priv;
	cl_mem key = buf(k, sk, n * sizeof(cl_ulong));
	cl_mem val = buf(k, sv, n * sizeof(cl_uint));
	cl_mem tk = buf(k, S_TKEY, n * sizeof(cl_ulong));
	cl_mem tv = buf(k, S_TVAL, n * sizeof(cl_uint));
	cl_mem start = buf(k, sstart, (ncell + 1) * sizeof(cl_uint));
	if (!key || !val || !tk || !tv || !start)
		return -1;
	cl_mem x[3];
	cl_int t[3];
	cl_double o[3] = {0, 0, 0}, ww[3] = {1, 1, 1};
	cl_long nn[3] = {1, 1, 1};
	for (int d = 0; d < 3; d++) {
		int dd = d < dim ? d : 0;
		x[d] = w->src[pv[dd]];
		t[d] = (cl_int)w->t[pv[dd]];
		if (d < dim) {
			o[d] = org[d];
			ww[d] = wd[d];
			nn[d] = nc[d];
		}
	}
	cl_int cd = dim;
	cl_ulong cn = n, cm = ncell;
	if (nbrt_cl_aux_run(rt, AK_CELLS_KEYS, n, ARG(x[0]), ARG(x[1]), ARG(x[2]),
	                    ARG(t[0]), ARG(t[1]), ARG(t[2]), ARG(cd), ARG(o[0]),
	                    ARG(o[1]), ARG(o[2]), ARG(ww[0]), ARG(ww[1]),
	                    ARG(ww[2]), ARG(nn[0]), ARG(nn[1]), ARG(nn[2]),
	                    ARG(cn), ARG(key), ARG(val), (size_t)0) ||
	    lap(w, 0))
		return -1;
	/* the bits the keys differ in: those below the last cell's */
	uint64_t differ = 0;
	while (differ < ncell - 1)
		differ = differ << 1 | 1;
	cl_mem k0 = key, v0 = val;
	if (nbrt_cl_sort(rt, &key, &val, &tk, &tv, n, differ) || lap(w, 1))
		return -1;
	if (key != k0)
		swap_slots(pg, sk, S_TKEY);
	if (val != v0)
		swap_slots(pg, sv, S_TVAL);
	return nbrt_cl_aux_run(rt, AK_CELLS_STARTS, ncell + 1, ARG(key), ARG(cn),
	                       ARG(cm), ARG(start), (size_t)0) ||
	       lap(w, 2);
}

/* Host memory the device reads and writes at full speed: the back end's
 * pinned buffer `slot` of the kernel (after cutoff.c's sorted copies'),
 * else the kernel's work buffer h. */
static void *hostmem(nbrt_kernel *k, int slot, int h, size_t bytes)
{
	void *p = nbrt_cl_hostbuf(k, k->f->nvar + slot, bytes);
	return p ? p : nbrt_work_take(&k->cellwork, h, bytes);
}

/* Cells a chunk of the plan's parallel passes. */
enum { CHUNK = 4096 };

/* The busy cells (with i-elements and j-elements) and the i they hold,
 * for the kernel's shape, and the pairs, from the cells' i-starts and
 * j-counts: one parallel pass. */
static void cell_sums(const cl_uint *start, const cl_uint *len,
                      size_t ncell, size_t *cover, size_t *busy,
                      double *pairs)
{
	size_t cv = 0, bz = 0;
	double pr = 0;
	long long g;
#pragma omp parallel for schedule(static) reduction(+ : cv, bz, pr) \
	if (ncell >= 4 * CHUNK)
	for (g = 0; g < (long long)ncell; g++) {
		size_t n = start[g + 1] - start[g];
		pr += (double)n * (double)len[g]; /* exact below 2^53 */
		if (n && len[g]) {
			cv += n;
			bz++;
		}
	}
	*cover = cv;
	*busy = bz;
	*pairs = pr;
}

/* The tasks of at most width i-elements over each cell's i, as the
 * kernel reads them (int4: first, count, cell, 0), into t4 (room for
 * ni / width + ncell): counted a chunk of cells at a time, then written
 * after the chunks before, in parallel; returns how many (SIZE_MAX
 * after a failure).  Where the pairs exceed one launch's (maxint), also
 * as run.c cuts them: p's tasks and group lengths, on the host. */
static size_t make_tasks(nbrt_kernel *k, const cl_uint *start,
                         const cl_uint *len, size_t ncell, size_t width,
                         cl_int *t4, nbrt_rplan *p, double pairs,
                         size_t maxint)
{
	size_t nch = (ncell + CHUNK - 1) / CHUNK;
	size_t *at = nbrt_work_take(&k->cellwork, H_CHUNK, (nch + 1) * sizeof *at);
	if (!at) {
		nbrt_fail(k->rt, "out of memory for the tasks of %zu cells", ncell);
		return SIZE_MAX;
	}
	long long q;
#pragma omp parallel for schedule(static) if (nch >= 4)
	for (q = 0; q < (long long)nch; q++) {
		size_t g1 = ((size_t)q + 1) * CHUNK < ncell ? ((size_t)q + 1) * CHUNK
		                                            : ncell, m = 0;
		for (size_t g = (size_t)q * CHUNK; g < g1; g++)
			m += (start[g + 1] - start[g] + width - 1) / width;
		at[q + 1] = m;
	}
	at[0] = 0;
	for (size_t h = 0; h < nch; h++)
		at[h + 1] += at[h];
#pragma omp parallel for schedule(static) if (nch >= 4)
	for (q = 0; q < (long long)nch; q++) {
		size_t g1 = ((size_t)q + 1) * CHUNK < ncell ? ((size_t)q + 1) * CHUNK
		                                            : ncell, nt = at[q];
		for (size_t g = (size_t)q * CHUNK; g < g1; g++)
			for (size_t a = start[g], b = start[g + 1]; a < b;
			     a += width, nt++) {
				t4[4 * nt] = (cl_int)a;
				t4[4 * nt + 1] = (cl_int)(b - a < width ? b - a : width);
				t4[4 * nt + 2] = (cl_int)g;
				t4[4 * nt + 3] = 0;
			}
	}
	size_t nt = at[nch];
	memset(p, 0, sizeof *p);
	p->ngroups = ncell;
	p->ntask = nt;
	if (pairs <= (double)maxint)
		return nt;
	size_t *task = nbrt_work_take(&k->cellwork, H_TASK, 3 * nt * sizeof *task);
	size_t *glen = nbrt_work_take(&k->cellwork, H_GLEN,
	                              (ncell + 1) * sizeof *glen);
	if (!task || !glen) {
		nbrt_fail(k->rt, "out of memory for %zu tasks", nt);
		return SIZE_MAX;
	}
	for (size_t t = 0; t < nt; t++)
		for (int e = 0; e < 3; e++)
			task[3 * t + e] = (size_t)t4[4 * t + e];
	for (size_t g = 0; g < ncell; g++)
		glen[g] = len[g];
	glen[ncell] = 0;
	p->task = task;
	p->glen = glen;
	return nt;
}

/* The cells' i-starts and j-counts read back into host arrays. */
static int read_cells(Call *w, cl_mem glen, size_t ncell, cl_uint **start,
                      cl_uint **len)
{
	nbrt_kernel *k = w->k;
	const Cl *cl = k->rt->priv;
	Prog *pg = k->priv;
	*start = hostmem(k, 2, H_START, (ncell + 1) * sizeof **start);
	*len = hostmem(k, 3, H_LEN, (ncell + 1) * sizeof **len);
	if (!*start || !*len)
		return nbrt_fail(k->rt, "out of memory for %zu cells", ncell);
	cl_int e;
	if ((e = clEnqueueReadBuffer(cl->q, pg->own[S_ISTART], CL_FALSE, 0,
	                             (ncell + 1) * sizeof(cl_uint), *start, 0,
	                             NULL, NULL)) != CL_SUCCESS ||
	    (e = clEnqueueReadBuffer(cl->q, glen, CL_TRUE, 0,
	                             ncell * sizeof(cl_uint), *len, 0, NULL,
	                             NULL)) != CL_SUCCESS)
		return nbrt_cl_fail(k->rt, "the cells", "clEnqueueReadBuffer", e);
	return 0;
}

/* cell_sums on the device: its work groups' sums read back and added. */
static int device_sums(Call *w, cl_mem glen, size_t ncell, size_t *cover,
                       size_t *busy, double *pairs)
{
	nbrt_kernel *k = w->k;
	nbrt *rt = k->rt;
	const Cl *c = rt->priv;
	Prog *pg = k->priv;
	size_t groups;
	cl_mem part = parts(k, ncell, 3, &groups);
	if (!part)
		return -1;
	cl_ulong cm = ncell;
	if (nbrt_cl_aux_run(rt, AK_CELLS_SUMS, groups * c->akwg,
	                    ARG(pg->own[S_ISTART]), ARG(glen), ARG(cm), ARG(part),
	                    (size_t)0))
		return -1;
	double p[256 * 3], s[3] = {0, 0, 0};
	cl_int e = clEnqueueReadBuffer(c->q, part, CL_TRUE, 0,
	                               groups * 3 * sizeof *p, p, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return nbrt_cl_fail(rt, "the cells' sums", "clEnqueueReadBuffer", e);
	for (size_t g = 0; g < groups; g++)
		for (int q = 0; q < 3; q++)
			s[q] += p[3 * g + q];
	*pairs = s[0];
	*cover = (size_t)s[1];
	*busy = (size_t)s[2];
	return 0;
}

/* The lists of a call: the grid, and the buffers the ranges entry
 * reads as its offsets and ranges (NULL until made). */
typedef struct Lists {
	size_t ncell;
	int nr, dim, reach;
	long long nc[3];
	cl_mem jstart, glen, offset, range;
} Lists;

/* Each cell's ranges at a fixed place and its count of j-elements. */
static int write_ranges(Call *w, Lists *ls)
{
	nbrt_kernel *k = w->k;
	nbrt *rt = k->rt;
	const Cl *cl = rt->priv;
	Prog *pg = k->priv;
	size_t ncell = ls->ncell;
	ls->offset = buf(k, S_OFFSET, (ncell + 2) * sizeof(cl_int));
	ls->range = buf(k, S_RANGE, 2 * (size_t)ls->nr * ncell * sizeof(cl_int));
	if (!ls->offset || !ls->range)
		return -1;
	cl_int cd = ls->dim, creach = ls->reach;
	cl_long n0 = ls->nc[0], n1 = ls->nc[1], n2 = ls->nc[2];
	cl_ulong cm = ncell;
	/* a work group a block of NBRT_CELLS_BLOCK cells on a GPU, a work
	 * item a cell on a CPU: NBRT_CELL_RANGES=1/0; the block's local
	 * memory holds NBRT_CELLS_MAXR ranges a cell, more take the other */
	long block = rt->gpu;
	if (nbrt_env_int(rt, "NBRT_CELL_RANGES", 0, 1, &block) < 0)
		return -1;
	if (block && ls->nr > cl->maxr) {
		nbrt_note(rt, "kernel %s: cells of %d ranges: the per-cell "
		          "ranges kernel (the block kernel holds %d)", k->f->kernel,
		          ls->nr, cl->maxr);
		block = 0;
	}
	return nbrt_cl_aux_run(rt, block ? AK_CELLS_RANGES_BLOCK
	                                 : AK_CELLS_RANGES,
	                       block ? (ncell + NBRT_CELLS_BLOCK - 1) / NBRT_CELLS_BLOCK *
	                               cl->akwg : ncell + 2,
	                       ARG(pg->own[S_ISTART]), ARG(ls->jstart), ARG(cd),
	                       ARG(creach), ARG(n0), ARG(n1), ARG(n2), ARG(cm),
	                       ARG(ls->offset), ARG(ls->range), ARG(ls->glen),
	                       (size_t)0);
}

int nbrt_cl_run_cells(nbrt_kernel *k, size_t ni, size_t nj,
                      const nbrt_cutoff *c, int reach, const int pv[2][3],
                      double time[8], double *pairs)
{
	nbrt *rt = k->rt;
	const Cl *cl = rt->priv;
	const nb_iface *f = k->f;
	int dim = c->dim;
	if (!cl->fp64 || !ni || !nj || ni > INT_MAX / 2 || nj > INT_MAX / 2)
		return 1;
	/* Newton's third law pairs the host lists' cells (newton.c) */
	if (c->self && nbrt_newton_cells_wanted(k, ni))
		return 1;
	for (int d = 0; d < dim; d++)
		if (c->period[d] > 0)
			return 1;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role != NB_CONST && !k->b[v].host && !k->b[v].arr)
			return 1;
	if (nbrt_cl_aux_load(rt))
		return -1;
	Prog *pg = k->priv;
	Call w = {k, calloc((size_t)f->nvar + 1, sizeof(cl_mem)),
	          calloc((size_t)f->nvar + 1, sizeof(nbrt_type)), nbrt_now(),
	          time, ni, nj, 0, NULL, 0, 0,
	          calloc((size_t)f->nvar + 1, sizeof(cl_event))};
	int res = -1;
	cl_int e;
	if (own_reserve(pg, S_VAR + f->nvar) || !w.src || !w.t || !w.ev) {
		nbrt_fail(rt, "out of memory");
		goto out;
	}

	int stage = staged(rt);
	if (stage < 0)
		goto out;
	if (stage) {
		size_t in = 0;
		for (int v = 0; v < f->nvar; v++)
			if ((f->var[v].role == NB_LMEM || f->var[v].role == NB_BMEM) &&
			    k->b[v].host)
				in += (f->var[v].role == NB_LMEM ? ni : nj) *
				      host_size(k->b[v].t);
		/* the back end's pinned buffers of the kernel, after those of
		 * cutoff.c's sorted copies; none: straight from the caller's */
		w.in = nbrt_cl_hostbuf(k, f->nvar, in);
		w.stage = 1;
	}

	/* the positions uploaded, their box */
	for (int side = 0; side < 2; side++)
		for (int d = 0; d < dim; d++)
			if (source(&w, pv[side][d], side ? nj : ni))
				goto out;
	/* NBRT_VERBOSE: how much of the keys phase is the positions' upload
	 * (a wait the plain call does not take) */
	double tup = 0;
	if (rt->verbose) {
		if ((e = clFinish(cl->q)) != CL_SUCCESS) {
			nbrt_cl_fail(rt, f->kernel, "clFinish", e);
			goto out;
		}
		tup = nbrt_now() - w.t0;
	}
	int same = ni == nj;
	for (int d = 0; d < dim; d++)
		same &= w.src[pv[0][d]] == w.src[pv[1][d]];
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	int r = bbox(&w, pv[0], dim, ni, lo, hi);
	if (!r && !same)
		r = bbox(&w, pv[1], dim, nj, lo, hi);
	if (r) {
		res = r;
		goto out;
	}
	double org[3], wd[3];
	long long nc[3] = {1, 1, 1};
	/* cells of cutoff / reach, each listing the rows of at most 2 reach
	 * + 1 cells around it; reach 0 (auto): a third of the cutoff where
	 * that grid passes the checks below, else one cutoff.  A grid too
	 * sparse for a run of each cell is the host builder's (it keeps only
	 * the occupied cells), as is one whose buffers the device or the
	 * host's starts and tasks cannot hold or the ranges entry's int
	 * offsets and tasks cannot reach */
	int nr = 0, fits = 0;
	double cells = 0;
	for (int q = reach ? reach : 3; !fits && q >= 1; q = reach ? 0 : q - 2) {
		if (nbrt_cells_grid(c, q, lo, hi, org, wd, nc))
			break;
		cells = (double)nc[0] * (double)nc[1] * (double)nc[2];
		nr = dim == 1 ? 1 : dim == 2 ? 2 * q + 1 : (2 * q + 1) * (2 * q + 1);
		double need = (double)(ni + nj) * 2 * (sizeof(cl_ulong) +
		              sizeof(cl_uint)) + cells * (4 + 4 + 4 + 8.0 * nr);
		double host = cells * (4 + 4 + 8) + (cells + (double)ni) * (24 + 16);
		fits = cells <= 2 * (double)(ni + nj) + 64 &&
		       need <= (double)rt->globalmem / 2 &&
		       host <= nbrt_host_memory() && cells * nr <= INT_MAX / 2 &&
		       cells + (double)ni <= INT_MAX / 4;
		reach = fits ? q : reach;
	}
	if (!fits) {
		res = 1;
		goto out;
	}
	size_t ncell = (size_t)cells;

	/* each side's cells; a self run's j are its i */
	if (side_cells(&w, pv[0], dim, ni, org, wd, nc, ncell, S_KEY, S_VAL,
	               S_ISTART))
		goto out;
	if (!same && side_cells(&w, pv[1], dim, nj, org, wd, nc, ncell, S_JKEY,
	                        S_JVAL, S_JSTART))
		goto out;
	cl_mem ival = pg->own[S_VAL], jval = pg->own[same ? S_VAL : S_JVAL];
	cl_mem jstart = pg->own[same ? S_ISTART : S_JSTART];

	/* the lists: each cell's ranges at a fixed place */
	int fine = reach > 1;
	cl_mem glen = buf(k, S_GLEN, ncell * sizeof(cl_uint));
	Lists ls = {ncell, nr, dim, reach, {nc[0], nc[1], nc[2]}, jstart, glen,
	            NULL, NULL};
	if (!glen || write_ranges(&w, &ls))
		goto out;
	/* finer cells (27 a cell of one cutoff at reach 3) are summed on the
	 * device, and where each task is one i-element their tasks are made
	 * there too: the cells' starts and counts (19 MB at Lennard-Jones
	 * 2^20, reach 3) and the tasks (16 MB) never cross */
	size_t cover = 0, busy = 0;
	cl_uint *start = NULL, *len = NULL;
	if (fine ? device_sums(&w, glen, ncell, &cover, &busy, pairs)
	         : read_cells(&w, glen, ncell, &start, &len))
		goto out;
	if (!fine)
		cell_sums(start, len, ncell, &cover, &busy, pairs);
	if (lap(&w, 3))
		goto out;

	/* the plan: the kernel of the lists' shape, its tasks */
	long pack = fine;
	if (fine && nbrt_env_int(rt, "NBRT_CELL_PACK", 0, 1, &pack) < 0)
		goto out;
	nbrt_kernel *a = nbrt_ranges_variant(k, cover, busy, (int)pack);
	if (!a || nbrt_max_interactions(rt, &a->maxint))
		goto out;
	nbrt_rplan p;
	/* finer cells' tasks are of one i-element, tpg a work group of the
	 * small shape (NBRT_CELL_PACK=0: the shape's tasks, made on the host
	 * where they hold more than one) */
	size_t tpg = a->opts.rtasks > 1 ? (size_t)a->opts.rtasks : 1;
	size_t width = tpg > 1 ? 1 : nbrt_unit_items(a->f);
	cl_mem task, empty = buf(k, S_EMPTY, 64);
	if (fine && width == 1) {
		size_t nt = (ni + tpg - 1) / tpg * tpg;
		cl_ulong cn = ni, cm2 = nt;
		cl_int cc = (cl_int)ncell;
		task = buf(k, S_TASK, 4 * nt * sizeof(cl_int));
		if (!task || !empty ||
		    nbrt_cl_aux_run(rt, AK_CELLS_TASKS1, nt, ARG(pg->own[S_KEY]),
		                    ARG(cn), ARG(cm2), ARG(cc), ARG(task),
		                    (size_t)0))
			goto out;
		memset(&p, 0, sizeof p);
		p.ngroups = ncell;
		p.ntask = nt;
		/* launches of about k->maxint pairs, the pairs spread evenly,
		 * whole work groups each */
		double nl = ceil(*pairs / (double)a->maxint);
		p.per = nl > 1 ? ((size_t)ceil((double)nt / nl) + tpg - 1) / tpg *
		                 tpg : 0;
	} else {
		if (fine && read_cells(&w, glen, ncell, &start, &len))
			goto out;
		cl_int *task4 = hostmem(k, 4, H_TASK4, 4 * (ni / width + ncell + 1) *
		                        sizeof *task4);
		if (!task4) {
			nbrt_fail(rt, "out of memory for the tasks of %zu cells", ncell);
			goto out;
		}
		if (make_tasks(k, start, len, ncell, width, task4, &p, *pairs,
		               a->maxint) == SIZE_MAX)
			goto out;
		task = buf(k, S_TASK, 4 * p.ntask * sizeof(cl_int));
		if (!task || !empty)
			goto out;
		if (p.ntask && (e = clEnqueueWriteBuffer(cl->q, task, CL_FALSE, 0,
		                                         4 * p.ntask * sizeof(cl_int),
		                                         task4, 0, NULL, NULL)) !=
		                   CL_SUCCESS) {
			nbrt_cl_fail(rt, "the tasks", "clEnqueueWriteBuffer", e);
			goto out;
		}
	}
	p.accum = 0;
	if (lap(&w, 4))
		goto out;

	/* the sorted copies, straight into the kernel's buffers (in
	 * nbrt_cl_first_mem's order) */
	const nb_iface *af = a->f;
	int m = 0;
	for (int v = 0; v < af->nvar; v++) {
		const nb_var *x = &af->var[v];
		if (x->role != NB_LMEM)
			continue;
		cl_mem dst = nbrt_cl_kbuf(a, m++, ni * nbrt_prec_size(x->type),
		                          x->name);
		cl_int ft, kt = (cl_int)x->type;
		cl_ulong st = (cl_ulong)nb_prec_scalars(x->type), off = 0, cn = ni;
		if (!dst || source(&w, v, ni))
			goto out;
		ft = (cl_int)w.t[v];
		if (nbrt_cl_aux_run(rt, AK_CELLS_GATHER, ni, ARG(w.src[v]), ARG(ft),
		                    ARG(dst), ARG(kt), ARG(st), ARG(off), ARG(ival),
		                    ARG(cn), (size_t)0))
			goto out;
	}
	for (int q = 0; q < af->npack; q++) {
		const nb_pack *pk = &af->pack[q];
		size_t scal = nb_prec_scalar_bytes(pk->type);
		size_t bytes = nj * (size_t)pk->vwidth * scal;
		char what[64];
		snprintf(what, sizeof what, "BMEM pack %d", q);
		cl_mem dst = nbrt_cl_kbuf(a, m++, bytes, what);
		if (!dst)
			goto out;
		int lanes = 0;
		for (int v = 0; v < af->nvar; v++)
			if (af->var[v].role == NB_BMEM && af->var[v].pack == q)
				lanes += nb_prec_scalars(pk->type);
		if (lanes < pk->vwidth) {
			static const cl_uchar zero = 0;
			if ((e = clEnqueueFillBuffer(cl->q, dst, &zero, 1, 0, bytes, 0,
			                             NULL, NULL)) != CL_SUCCESS) {
				nbrt_cl_fail(rt, what, "clEnqueueFillBuffer", e);
				goto out;
			}
		}
		for (int v = 0; v < af->nvar; v++) {
			const nb_var *x = &af->var[v];
			if (x->role != NB_BMEM || x->pack != q)
				continue;
			if (source(&w, v, nj))
				goto out;
			cl_int ft = (cl_int)w.t[v], kt = (cl_int)pk->type;
			cl_ulong st = (cl_ulong)pk->vwidth, cn = nj;
			cl_ulong off = (cl_ulong)(nb_prec_scalars(pk->type) * x->comp);
			if (nbrt_cl_aux_run(rt, AK_CELLS_GATHER, nj, ARG(w.src[v]),
			                    ARG(ft), ARG(dst), ARG(kt), ARG(st), ARG(off),
			                    ARG(jval), ARG(cn), (size_t)0))
				goto out;
		}
	}
	if (lap(&w, 5))
		goto out;

	/* the run, its plan and inputs on the device */
	if (a != k) {
		memcpy(a->b, k->b, sizeof *k->b * (size_t)f->nvar);
		a->plabel = k->plabel;
		k->last = a;
	}
	a->tkern = 0;
	a->launches = 0;
	a->pstart = a->plast = nbrt_now();
	a->pshown = 0;
	cl_mem dplan[5] = {task, ls.offset, ls.range,
	                   af->indices & 1 ? ival : empty,
	                   af->indices & 2 ? jval : empty};
	if (nbrt_cl_run_resident(a, ni, nj, &p, dplan))
		goto out;
	k->tkern = a->tkern;
	k->launches = a->launches;
	if (lap(&w, 6))
		goto out;

	/* the results in the caller's order, read back into its arrays:
	 * through pinned staging, each result's copy to the caller while the
	 * next one's crosses (its read flushed, then waited for alone) */
	size_t at = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM && k->b[v].host)
			at += ni * host_size(k->b[v].t);
	char *staging = w.stage ? nbrt_cl_hostbuf(k, f->nvar + 1, at) : NULL;
	at = 0;
	m = nbrt_cl_first_mem(a, NB_RMEM);
	for (int v = 0; v < af->nvar; v++) {
		const nb_var *x = &af->var[v];
		const nbrt_slot *b = &k->b[v];
		if (x->role != NB_RMEM)
			continue;
		cl_mem res = nbrt_cl_kbuf(a, m++, ni * nbrt_prec_size(x->type),
		                          x->name);
		cl_mem dst = b->host ? buf(k, S_VAR + v, ni * host_size(b->t))
		                     : (cl_mem)b->arr->priv;
		if (!b->host)
			nbrt_array_touch(b->arr);
		if (!res || !dst)
			goto out;
		cl_int kt = (cl_int)x->type, ht = b->host ? (cl_int)b->t
		                                          : (cl_int)NBRT_DOUBLE;
		cl_ulong cn = ni;
		if (nbrt_cl_aux_run(rt, AK_CELLS_SCATTER, ni, ARG(res), ARG(kt),
		                    ARG(dst), ARG(ht), ARG(ival), ARG(cn), (size_t)0))
			goto out;
		size_t bytes = ni * host_size(b->t);
		if (b->host && (e = clEnqueueReadBuffer(cl->q, dst, CL_FALSE, 0,
		                                        bytes, staging ? staging + at :
		                                        b->host, 0, NULL,
		                                        staging ? &w.ev[v] : NULL)) !=
		                   CL_SUCCESS) {
			nbrt_cl_fail(rt, x->name, "clEnqueueReadBuffer", e);
			goto out;
		}
		if (staging && b->host && (e = clFlush(cl->q)) != CL_SUCCESS) {
			nbrt_cl_fail(rt, x->name, "clFlush", e);
			goto out;
		}
		at += b->host ? bytes : 0;
	}
	double tw = 0, tc = 0, t1 = nbrt_now();
	at = 0;
	for (int v = 0; staging && v < f->nvar; v++)
		if (w.ev[v]) {
			size_t bytes = ni * host_size(k->b[v].t);
			double t2 = nbrt_now();
			if ((e = clWaitForEvents(1, &w.ev[v])) != CL_SUCCESS) {
				nbrt_cl_fail(rt, f->var[v].name, "clWaitForEvents", e);
				goto out;
			}
			double t3 = nbrt_now();
			nbrt_cl_copy(k->b[v].host, staging + at, bytes);
			tw += t3 - t2;
			tc += nbrt_now() - t3;
			at += bytes;
		}
	if ((e = clFinish(cl->q)) != CL_SUCCESS) {
		nbrt_cl_fail(rt, f->kernel, "clFinish", e);
		goto out;
	}
	if (rt->verbose)
		nbrt_note(rt, "kernel %s: the device's cells: %.3g MB up in the "
		          "keys phase (%.3g ms with the staging); %.3g MB of "
		          "results down: %.3g ms waited for, %.3g ms of copies to "
		          "the caller (%.3g ms in all)", f->kernel,
		          (double)w.up / 1e6, 1e3 * tup, (double)at / 1e6, 1e3 * tw,
		          1e3 * tc, 1e3 * (nbrt_now() - t1));
	if (lap(&w, 7))
		goto out;
	k->pairs = *pairs;
	res = 0;
out:
	if (res < 0)
		clFinish(cl->q);
	for (int v = 0; w.ev && v < f->nvar; v++)
		if (w.ev[v])
			clReleaseEvent(w.ev[v]);
	free(w.ev);
	free(w.src);
	free(w.t);
	return res;
}
