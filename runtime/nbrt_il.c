/* nbrt_il.c: the AMD IL back end (nbrt_il_backend), device "amdil": kernels
 * of the amdil target run in nbcc's IL interpreter (il/il.h) on this
 * CPU, fed as docs/amdil.md's kernel ABI says: each role's arrays packed
 * into records of one raw UAV (nb_il_record), the launch and CONSTs in
 * cb0 and cb1, work items spread over the cores a group at a time. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "il.h"
#include "nbrt_impl.h"

/* A loaded kernel (k->priv). */
typedef struct Prog {
	IlProg *il;
	long *off;          /* each variable's offset in its role's record */
	size_t rec[3];      /* record bytes of LMEM, BMEM, RMEM */
} Prog;

static int il_open(nbrt *rt, const char *spec)
{
	(void)spec; /* one interpreter */
	rt->name = strdup("AMD IL interpreter (nbcc)");
	if (!rt->name)
		return nbrt_fail(rt, "out of memory");
	/* UAV byte addresses are 32 bits */
	rt->maxalloc = (unsigned long long)UINT32_MAX + 1;
	return 0;
}

static void il_close(nbrt *rt)
{
	(void)rt;
}

static int il_describe(const nbrt *rt, FILE *out)
{
	(void)rt;
	fputs("type interpreter\n", out);
	return 0;
}

/* What the kernel ABI needs the program to declare. */
static int abi_ok(nbrt_kernel *k, const IlProg *p)
{
	int nc = nb_iface_count(k->f, NB_CONST);
	for (int u = 0; u < 3; u++)
		if (!(p->uavs >> u & 1))
			return nbrt_fail(k->rt, "%s: no dcl_raw_uav_id(%d): the AMD IL "
			                 "kernel ABI has UAVs 0, 1 and 2", k->name, u);
	if (p->cbsize[0] != 2)
		return nbrt_fail(k->rt, "%s: the AMD IL kernel ABI has dcl_cb "
		                 "cb0[2], not %d entries", k->name, p->cbsize[0]);
	if (p->cbsize[1] != nc)
		return nbrt_fail(k->rt, "%s: the kernel has %d CONST%s, so the AMD "
		                 "IL kernel ABI has %s%d%s, not %d entries", k->name,
		                 nc, nc == 1 ? "" : "s", nc ? "dcl_cb cb1[" : "no cb1 (",
		                 nc, nc ? "]" : ")", p->cbsize[1]);
	return 0;
}

static int il_load(nbrt_kernel *k, const char *code, size_t len)
{
	nbrt *rt = k->rt;
	Prog *g = calloc(1, sizeof *g);
	k->priv = g;
	if (!g || !(g->off = calloc((size_t)k->f->nvar + 1, sizeof *g->off)))
		return nbrt_fail(rt, "out of memory");
	/* a .nbl's IL is nbcc's text, which has no file of its own */
	int file = nb_target_of_ext(k->path) != NULL;
	char *name = file ? strdup(k->name) :
	             nbrt_aprintf("%s (as AMD IL)", k->name);
	char err[512];
	if (!name)
		return nbrt_fail(rt, "out of memory");
	g->il = nb_il_read(code, len, name, err, sizeof err);
	free(name);
	if (!g->il)
		return nbrt_fail(rt, "%s", err);
	long *o = calloc((size_t)k->f->nvar + 1, sizeof *o);
	if (!o)
		return nbrt_fail(rt, "out of memory");
	for (int r = 0; r < 3; r++) {
		g->rec[r] = nb_il_record(k->f, (nb_role)r, o);
		for (int v = 0; v < k->f->nvar; v++)
			if (k->f->var[v].role == (nb_role)r)
				g->off[v] = o[v];
	}
	free(o);
	return abi_ok(k, g->il);
}

typedef struct Run {
	IlMem mem;
	uint32_t cb0[8];
	uint32_t *cb1;
} Run;

/* One launch: cb0 holds its range, and ceil(groups / G) * G work items
 * run, a chunk of groups to each core. */
static int launch(nbrt_kernel *k, size_t ib, size_t n, size_t jb, size_t m,
                  int accum, void *ctx)
{
	const Prog *g = k->priv;
	Run *r = ctx;
	uint32_t c0[8] = {(uint32_t)n, (uint32_t)m, (uint32_t)ib, (uint32_t)jb,
	                  (uint32_t)accum, 0, 0, 0};
	memcpy(r->cb0, c0, sizeof c0);
	uint64_t grp = (uint64_t)g->il->group;
	uint64_t items = (n + (size_t)k->f->unroll_i - 1) / (size_t)k->f->unroll_i;
	uint64_t total = (items + grp - 1) / grp * grp;
	/* chunks of whole groups, several per core so that uneven work
	 * evens out */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t per = total / grp / (uint64_t)(cpus > 0 ? 8 * cpus : 8);
	uint64_t chunk = (per ? per : 1) * grp;
	long nchunk = (long)((total + chunk - 1) / chunk);
	long failed = LONG_MAX;
	char err[512] = "";
	double t = nbrt_now();
	#pragma omp parallel for schedule(dynamic)
	for (long c = 0; c < nchunk; c++) {
		long f;
		#pragma omp atomic read
		f = failed;
		if (f != LONG_MAX)
			continue;
		uint64_t first = (uint64_t)c * chunk;
		uint64_t cnt = total - first < chunk ? total - first : chunk;
		char e[512];
		if (nb_il_run(g->il, &r->mem, first, cnt, 0, e, sizeof e)) {
			/* the first chunk's failure, whichever core saw it */
			#pragma omp critical
			if (c < failed) {
				memcpy(err, e, sizeof e);
				#pragma omp atomic write
				failed = c;
			}
		}
	}
	k->tkern += nbrt_now() - t;
	k->launches++;
	if (failed != LONG_MAX)
		return nbrt_fail(k->rt, "%s", err);
	return 0;
}

/* The bytes of n records of size rec, or 0 when they are more than a
 * UAV can address. */
static int uav(nbrt_kernel *k, Run *r, int u, size_t n, size_t rec,
               const char *role)
{
	if (rec && n > ((size_t)UINT32_MAX + 1) / rec)
		return nbrt_fail(k->rt, "kernel %s: %zu %s records of %zu bytes "
		                 "are more than the 4 GiB an AMD IL UAV addresses",
		                 k->f->kernel, n, role, rec);
	r->mem.uavlen[u] = n * rec;
	if (n && rec && !(r->mem.uav[u] = calloc(n, rec)))
		return nbrt_fail(k->rt, "kernel %s: out of memory for the %s "
		                 "records", k->f->kernel, role);
	return 0;
}

/* A block-sparse run without an entry of its own: each task's group
 * launched once a range, later ranges resuming the results (ranges.c has
 * refused what cannot resume); a group without ranges once with Nj = 0,
 * which writes the identity. */
static int launch_plan(nbrt_kernel *k, const nbrt_rplan *p, Run *r)
{
	for (size_t t = 0; t < p->ntask; t++) {
		size_t ib = p->task[3 * t], n = p->task[3 * t + 1];
		size_t g = p->task[3 * t + 2];
		size_t e0 = p->offset[g], e1 = p->offset[g + 1];
		if (e0 == e1 && !p->accum && launch(k, ib, n, 0, 0, 0, r))
			return -1;
		for (size_t e = e0; e < e1; e++)
			if (launch(k, ib, n, p->range[2 * e],
			           p->range[2 * e + 1] - p->range[2 * e],
			           e > e0 || p->accum, r))
				return -1;
	}
	return 0;
}

static int il_go(nbrt_kernel *k, size_t ni, size_t nj, const nbrt_rplan *p)
{
	const nb_iface *f = k->f;
	const Prog *g = k->priv;
	/* cb0 holds Ni, Nj and the bases as int32 */
	if (ni > INT_MAX || nj > INT_MAX)
		return nbrt_fail(k->rt, "kernel %s: Ni = %zu, Nj = %zu: the AMD IL "
		                 "kernel ABI passes them as 32-bit integers, so both "
		                 "must be at most %d", f->kernel, ni, nj, INT_MAX);
	Run r;
	memset(&r, 0, sizeof r);
	int nc = nb_iface_count(f, NB_CONST), rc = -1;
	r.cb1 = calloc(4 * (size_t)nc + 4, sizeof *r.cb1);
	if (!r.cb1) {
		nbrt_fail(k->rt, "out of memory");
		goto out;
	}
	r.mem.cb[0] = r.cb0;
	r.mem.cblen[0] = 2;
	r.mem.cb[1] = r.cb1;
	r.mem.cblen[1] = (size_t)nc;
	if (uav(k, &r, 0, ni, g->rec[NB_LMEM], "LMEM") ||
	    uav(k, &r, 1, nj, g->rec[NB_BMEM], "BMEM") ||
	    uav(k, &r, 2, ni, g->rec[NB_RMEM], "RMEM"))
		goto out;
	int c = 0;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		const nbrt_slot *b = &k->b[v];
		if (x->role == NB_CONST) {
			/* float in .x, double in .xy, dd hi in .xy and lo in .zw */
			float fv = (float)b->hi;
			if (x->type == NB_FLOAT)
				memcpy(&r.cb1[4 * c], &fv, 4);
			else
				memcpy(&r.cb1[4 * c], &b->hi, 8);
			if (x->type == NB_DD)
				memcpy(&r.cb1[4 * c + 2], &b->lo, 8);
			c++;
			continue;
		}
		if (x->role == NB_RMEM && !(p && p->accum))
			continue; /* launches with accum = 0 write every result */
		size_t n = x->role == NB_BMEM ? nj : ni;
		size_t sb = nb_prec_scalar_bytes(x->type);
		if (n)
			nbrt_to_kernel(r.mem.uav[x->role], x->type, g->rec[x->role] / sb,
			               (size_t)g->off[v] / sb, b->host, b->t, n);
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t fill = (size_t)(cpus > 0 ? cpus : 1) * 64 * (size_t)f->unroll_i;
	if (p ? launch_plan(k, p, &r) :
	    nbrt_each_launch(k, ni, nj, INT_MAX, fill, launch, &r))
		goto out;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		size_t sb = nb_prec_scalar_bytes(x->type);
		if (x->role == NB_RMEM)
			nbrt_from_kernel(k->b[v].host, k->b[v].t, r.mem.uav[2], x->type,
			                 g->rec[NB_RMEM] / sb, (size_t)g->off[v] / sb,
			                 ni);
	}
	rc = 0;
out:
	for (int u = 0; u < 3; u++)
		free(r.mem.uav[u]);
	free(r.cb1);
	return rc;
}

static int il_run_kernel(nbrt_kernel *k, size_t ni, size_t nj)
{
	return il_go(k, ni, nj, NULL);
}

static int il_run_ranges(nbrt_kernel *k, size_t ni, size_t nj,
                         const nbrt_rplan *p)
{
	return il_go(k, ni, nj, p);
}

static void il_free_kernel(nbrt_kernel *k)
{
	Prog *g = k->priv;
	if (g) {
		nb_il_free(g->il);
		free(g->off);
		free(g);
	}
	k->priv = NULL;
}

const struct nbrt_backend nbrt_il_backend = {
	.target = "amdil",
	.spec = "amdil",
	.host = 0,
	.where = "the AMD IL interpreter",
	.interp = 1,
	/* NBRT_AUTO_SPLIT=1: its .nbl's j-split as on a GPU (docs/amdil.md) */
	.split_target = "opencl",
	.split_class = "gpu",
	.open = il_open,
	.close = il_close,
	.list = NULL,
	.describe = il_describe,
	.load = il_load,
	.run = il_run_kernel,
	.run_ranges = il_run_ranges,
	.rentry = 0,
	.free = il_free_kernel,
	.sort = NULL,
};
