/* cutoff.c: nbrt_run_cutoff (nbrt.h), a kernel over the pairs of a cell
 * list.  Reads the bound position columns, has cells.c build the lists,
 * binds sorted copies of every input in the caller's place (j-images
 * shifted along the position columns), runs them through ranges.c's
 * mapped form and scatters the results back in the caller's order. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "order.h"

static size_t type_size(nbrt_type t)
{
	return t == NBRT_FLOAT ? sizeof(float) : t == NBRT_DOUBLE ? sizeof(double)
	                                                          : 2 * sizeof(double);
}

/* "xi, yi, zi": the kernel's variables of a role, for messages. */
static void role_names(const nb_iface *f, nb_role role, char *buf,
                       size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int v = 0; v < f->nvar && n < len; v++)
		if (f->var[v].role == role)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
			                      f->var[v].name);
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* The variable of position column d of one side (ipos or jpos), which
 * must be of the role, named once among the side's dim columns. */
static int pos_var(nbrt_kernel *k, const nbrt_cutoff *c, int side, int d)
{
	const nb_iface *f = k->f;
	const char *const *names = side ? c->jpos : c->ipos;
	const char *key = side ? "jpos" : "ipos", *what = side ? "j" : "i";
	nb_role role = side ? NB_BMEM : NB_LMEM;
	const char *name = names[d];
	char all[512];
	role_names(f, role, all, sizeof all);
	if (!name)
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: %s[%d] is "
		                 "NULL: dim %d needs a %s position column there, "
		                 "one of its %s (%s)", f->kernel, key, d, c->dim,
		                 what, nb_role_name(role), all);
	int v = nb_iface_find(f, name);
	if (v < 0)
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: %s[%d] = "
		                 "'%s': the kernel has no variable of that name; its "
		                 "%s are %s", f->kernel, key, d, nb_esc(name),
		                 nb_role_name(role), all);
	if (f->var[v].role != role)
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: %s[%d] = "
		                 "'%s' is %s; the %s positions must be %s (%s)",
		                 f->kernel, key, d, name,
		                 nb_role_name(f->var[v].role), what,
		                 nb_role_name(role), all);
	for (int e = 0; e < d; e++)
		if (names[e] && nb_iface_find(f, names[e]) == v)
			return nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: %s[%d] "
			                 "and %s[%d] both name '%s': each axis needs "
			                 "its own column", f->kernel, key, e, key, d,
			                 name);
	return v;
}

/* Column v's first n values as doubles (a dd's high part) or floats,
 * into axis d of pos: the bound array itself where it holds doubles or
 * floats in host memory, else a copy in the kernel's buffer `slot` (kept
 * from call to call). */
static int read_column(nbrt_kernel *k, int v, size_t n, int slot,
                       nbrt_pos *pos, int d)
{
	const nbrt_slot *b = &k->b[v];
	pos->p[d] = NULL;
	pos->isfloat[d] = 0;
	if (n == 0)
		return 0;
	if (b->host && (b->t == NBRT_DOUBLE || b->t == NBRT_FLOAT)) {
		pos->p[d] = b->host;
		pos->isfloat[d] = b->t == NBRT_FLOAT;
		return 0;
	}
	size_t m = b->host ? n : b->arr->n;
	double *x = nbrt_work_take(&k->copywork, slot, m * sizeof *x);
	if (!x)
		return nbrt_fail(k->rt, "out of memory for %zu positions", m);
	if (!b->host) {
		if (nbrt_array_read(b->arr, x))
			return -1;
	} else {
		const double *h = b->host;
#pragma omp parallel for if (n >= 65536) schedule(static)
		for (size_t e = 0; e < n; e++)
			x[e] = h[2 * e];
	}
	pos->p[d] = x;
	return 0;
}

/* The kernel's buffers (k->copywork): the position columns read as
 * doubles (3 a side), then the sorted copies. */
enum { NCOLUMN = 6 };

/* Copy q's buffer: the back end's pinned memory where it has it (a GPU
 * reads the copies and writes the results there at full speed), else
 * one kept on the kernel. */
static void *copy_buffer(nbrt_kernel *k, int q, size_t bytes)
{
	void *p = k->rt->be->hostbuf ? k->rt->be->hostbuf(k, q, bytes) : NULL;
	return p ? p : nbrt_work_take(&k->copywork, NCOLUMN + q, bytes);
}

/* hi + lo + s as a dd, s a multiple of a period (Knuth's two-sum, then
 * the low parts). */
static void dd_add(double *hi, double *lo, double s)
{
	double h = *hi + s, bb = h - *hi;
	double e = (*hi - (h - bb)) + (s - bb) + *lo;
	*hi = h + e;
	*lo = e - (*hi - h);
}

/* One bound input or result and its sorted copy. */
typedef struct Copy {
	int v, axis;   /* axis: the position axis of a BMEM column, else -1 */
	nbrt_type t;   /* of the copy: floats for a float kernel's input of
	                * doubles, else the caller's (doubles for an
	                * nbrt_array) */
	nbrt_type from; /* of the caller's values */
	size_t n;      /* elements of the copy */
	void *data;
} Copy;

/* Fills the copy of input v: element s is the caller's src[s], shifted
 * by shift[3s + axis] periods on a position column; straight into the
 * copy's type (an image's coordinate is shifted in the caller's type,
 * then rounded once, as staging would round it). */
static int fill_copy(nbrt_kernel *k, Copy *cp, const size_t *src,
                     const signed char *shift, double period)
{
	const nbrt_slot *b = &k->b[cp->v];
	const void *from = b->host;
	double *dev = NULL;
	if (!from && cp->n) { /* an nbrt_array in device memory */
		dev = malloc(b->arr->n * sizeof *dev);
		if (!dev)
			return nbrt_fail(k->rt, "out of memory for %zu values",
			                 b->arr->n);
		if (nbrt_array_read(b->arr, dev)) {
			free(dev);
			return -1;
		}
		from = dev;
	}
	size_t n = cp->n;
	if (cp->t != cp->from)
		nbrt_order_gather_float(cp->data, from, src, n);
	else
		nbrt_order_gather(cp->data, from, src, n, type_size(cp->t));
	if (cp->axis >= 0) {
		int ax = cp->axis;
		const double *x = from;
#pragma omp parallel for if (n >= 65536) schedule(static)
		for (size_t s = 0; s < n; s++) {
			int sh = shift[3 * s + ax];
			if (!sh)
				continue;
			if (cp->t != cp->from)
				((float *)cp->data)[s] = (float)(x[src[s]] + sh * period);
			else if (cp->t == NBRT_FLOAT)
				((float *)cp->data)[s] =
				    (float)((double)((float *)cp->data)[s] + sh * period);
			else if (cp->t == NBRT_DOUBLE)
				((double *)cp->data)[s] += sh * period;
			else
				dd_add((double *)cp->data + 2 * s,
				       (double *)cp->data + 2 * s + 1, sh * period);
		}
	}
	free(dev);
	return 0;
}

/* The LMEM copy of the same caller's host array as BMEM copy cp, in
 * the same type, or NULL. */
static const Copy *same_column(const nbrt_kernel *k, const Copy *copy,
                               int nc, const Copy *cp)
{
	const nbrt_slot *b = &k->b[cp->v];
	for (int q = 0; q < nc; q++) {
		const nbrt_slot *a = &k->b[copy[q].v];
		if (k->f->var[copy[q].v].role == NB_LMEM && b->host &&
		    a->host == b->host && a->t == b->t && copy[q].t == cp->t &&
		    copy[q].n == cp->n)
			return &copy[q];
	}
	return NULL;
}

/* Result v's sorted values, back in the caller's order and array. */
static int scatter(nbrt_kernel *k, const Copy *cp, const size_t *iperm)
{
	const nbrt_slot *b = &k->b[cp->v];
	size_t es = type_size(cp->t);
	if (b->host) {
		nbrt_order_scatter(b->host, cp->data, iperm, cp->n, es);
		return 0;
	}
	/* an nbrt_array on the device: written whole, its values past Ni
	 * kept */
	nbrt_array *a = b->arr;
	double *x = malloc((a->n ? a->n : 1) * sizeof *x);
	if (!x)
		return nbrt_fail(k->rt, "out of memory for %zu results", a->n);
	int r = a->n > cp->n ? nbrt_array_read(a, x) : 0;
	if (!r) {
		nbrt_order_scatter(x, cp->data, iperm, cp->n, sizeof *x);
		r = nbrt_array_write(a, x);
	}
	free(x);
	return r;
}

/* The run step: the kernel on the sorted copies bound in the caller's
 * place, over the lists; the caller's bindings back whatever happens. */
static int run_lists(nbrt_kernel *k, size_t ni, const nbrt_cells *cl,
                     int self, const Copy *copy, int nc,
                     const nbrt_slot *saved)
{
	for (int q = 0; q < nc; q++) {
		nbrt_slot *b = &k->b[copy[q].v];
		b->t = copy[q].t;
		b->host = copy[q].data;
		b->arr = NULL;
	}
	/* Newton's third law where it may and pays (newton.c), else the lists */
	int r = self ? nbrt_run_newton_cells(k, ni, cl) : 1;
	if (r > 0)
		r = nbrt_run_ranges_ex(k, ni, cl->njimg, &cl->r, cl->iperm,
		                       cl->jsrc, 0, NBRT_RANGES_PLANNED);
	memcpy(k->b, saved, (size_t)k->f->nvar * sizeof *saved);
	return r;
}

static const char *const phase[] = {"keys", "sort", "cells", "lists",
                                    "plan", "copies", "run", "scatter"};

const char *nbrt_cutoff_phase(int p)
{
	return p >= 0 && p < (int)(sizeof phase / sizeof *phase) ? phase[p]
	                                                         : NULL;
}

static int too_big(nbrt_kernel *k, const char *what, size_t ni, size_t nj,
                   double need)
{
	double have = nbrt_host_memory();
	if (need <= have)
		return 0;
	char a[32], b[32];
	nbrt_format_bytes(a, sizeof a, need);
	nbrt_format_bytes(b, sizeof b, have);
	return nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: %s of Ni = %zu, "
	                 "Nj = %zu need %s; this process may use %s",
	                 k->f->kernel, what, ni, nj, a, b);
}

/* The cells' split and group, read once: the caller's (nbrt_cutoff),
 * else NBRT_CELL_SPLIT and NBRT_CELL_GROUP, else cells of one cutoff,
 * each a group.  Finer lists compute fewer pairs but lost everywhere
 * measured: on an H100 (Lennard-Jones at 2^20, 2026-11-27) cells of half
 * a cutoff in groups of 8 computed 2.31 pairs a needed pair against 6.33,
 * but the kernel took 1.77 ms against 0.68 (about 19 short ranges a
 * group) and the lists and plan 244 ms against 22, the call 404 ms
 * against 83; on a CPU the host C path's 16 i-lanes idle in groups of a
 * few elements and PoCL gained nothing, while the lists took 3 times as
 * long; Newton's third law pairs whole groups' runs, which finer lists
 * prune (docs/neighbours.md).  Then the device's part (cl/cells.c):
 * *device the split of its cells, each a group -- NBRT_DEVICE_CELL_SPLIT
 * (1 to 3, or 0: chosen by the points' density, cl/cells.c; 1 by default)
 * where neither caller nor environment chose the cells, 1 where they
 * chose cells of one cutoff, each a group -- or -1, the host builder's
 * (other cells, or NBRT_DEVICE_CELLS=0). */
static int knobs(nbrt *rt, const nbrt_cutoff *c, nbrt_cutoff *cc,
                 int *device)
{
	long split = c->split, group = c->group, dsplit = 1, on = 1;
	if (split <= 0 && nbrt_env_int(rt, "NBRT_CELL_SPLIT", 1, 8, &split) < 0)
		return -1;
	if (group <= 0 &&
	    nbrt_env_int(rt, "NBRT_CELL_GROUP", 1, INT_MAX, &group) < 0)
		return -1;
	if (nbrt_env_int(rt, "NBRT_DEVICE_CELLS", 0, 1, &on) < 0 ||
	    nbrt_env_int(rt, "NBRT_DEVICE_CELL_SPLIT", 0, 3, &dsplit) < 0)
		return -1;
	int chosen = split > 0 || group > 0;
	*cc = *c;
	cc->split = split > 0 ? (int)split : 1;
	cc->group = group > 0 ? (int)group : INT_MAX;
	*device = !on ? -1 : !chosen ? (int)dsplit :
	          cc->split == 1 && cc->group >= 1 << 30 ? 1 : -1;
	return 0;
}

int nbrt_run_cutoff(nbrt_kernel *k, size_t ni, size_t nj,
                    const nbrt_cutoff *c)
{
	if (!k)
		return -1;
	const nb_iface *f = k->f;
	double t0 = nbrt_now();
	char err[512];
	if (!c)
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: no cutoff "
		                 "(NULL)", f->kernel);
	if (nbrt_cells_check(c, err, sizeof err))
		return nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: %s",
		                 f->kernel, err);
	int pv[2][3] = {{-1, -1, -1}, {-1, -1, -1}};
	for (int side = 0; side < 2; side++)
		for (int d = 0; d < c->dim; d++)
			if ((pv[side][d] = pos_var(k, c, side, d)) < 0)
				return -1;
	nbrt_cutoff cc;
	int dsplit;
	if (nbrt_core_ready(k, ni, nj) || knobs(k->rt, c, &cc, &dsplit))
		return -1;
	k->newton_used = 0; /* until newton.c takes the run */

	/* the whole call on the device where its back end builds lists of
	 * this case there (cl/cells.c), else the host's lists below */
	if (k->rt->be->run_cells && dsplit >= 0) {
		double time[8] = {0}, pairs = 0;
		k->tplan = 0;
		int r = k->rt->be->run_cells(k, ni, nj, &cc, dsplit, pv, time,
		                             &pairs);
		if (r <= 0) {
			k->ttotal = nbrt_now() - t0;
			if (!r && c->stats) {
				memcpy(c->stats->time, time, sizeof time);
				c->stats->total = k->ttotal;
				c->stats->pairs = pairs;
				c->stats->device = 1;
			}
			return r;
		}
	}

	/* the positions as doubles */
	double need = 0;
	for (int side = 0; side < 2; side++)
		for (int d = 0; d < c->dim; d++) {
			const nbrt_slot *b = &k->b[pv[side][d]];
			size_t n = side ? nj : ni;
			if (n && !(b->host && b->t != NBRT_DD))
				need += (double)(b->host ? n : b->arr->n) * 8;
		}
	if (too_big(k, "the positions as doubles", ni, nj, need))
		return -1;
	int res = -1, nc = 0;
	nbrt_pos pos[2];
	memset(pos, 0, sizeof pos);
	nbrt_cells cl;
	memset(&cl, 0, sizeof cl);
	Copy *copy = calloc((size_t)f->nvar + 1, sizeof *copy);
	nbrt_slot *saved = malloc(((size_t)f->nvar + 1) * sizeof *saved);
	if (!copy || !saved) {
		nbrt_fail(k->rt, "out of memory");
		goto out;
	}
	memcpy(saved, k->b, (size_t)f->nvar * sizeof *saved);
	double time[8] = {0}, t1 = nbrt_now();
	for (int side = 0; side < 2; side++)
		for (int d = 0; d < c->dim; d++) {
			/* a self run's j column is its i column: read once */
			const nbrt_slot *bi = &k->b[pv[0][d]], *bj = &k->b[pv[1][d]];
			if (side && ni == nj && bj->host && bj->host == bi->host &&
			    bj->t == bi->t) {
				pos[1].p[d] = pos[0].p[d];
				pos[1].isfloat[d] = pos[0].isfloat[d];
				continue;
			}
			if (read_column(k, pv[side][d], side ? nj : ni, 3 * side + d,
			                &pos[side], d))
				goto out;
		}

	if (nbrt_cells_build_in(&cl, &k->cellwork, &cc, &pos[0], ni, &pos[1], nj,
	                        nbrt_host_memory(), err, sizeof err)) {
		nbrt_fail(k->rt, "kernel %s: nbrt_run_cutoff: %s", f->kernel, err);
		goto out;
	}
	for (int p = 0; p < 4; p++)
		time[p] = cl.time[p];
	/* reading the positions counts with their keys */
	time[0] += nbrt_now() - t1 - (cl.time[0] + cl.time[1] + cl.time[2] +
	                              cl.time[3]);
	t1 = nbrt_now();

	/* sorted copies of every array, and the largest nbrt_array read
	 * through the host at once */
	need = 0;
	double dev = 0;
	for (int v = 0; v < f->nvar; v++) {
		nb_role role = f->var[v].role;
		const nbrt_slot *b = &k->b[v];
		if (role == NB_CONST)
			continue;
		Copy *cp = &copy[nc++];
		cp->v = v;
		cp->axis = -1;
		for (int d = 0; d < c->dim; d++)
			if (v == pv[1][d] && c->period[d] > 0)
				cp->axis = d;
		cp->from = b->host ? b->t : NBRT_DOUBLE;
		cp->t = role != NB_RMEM && cp->from == NBRT_DOUBLE &&
		        f->var[v].type == NB_FLOAT ? NBRT_FLOAT : cp->from;
		cp->n = role == NB_BMEM ? cl.njimg : ni;
		need += (double)cp->n * (double)type_size(cp->t);
		if (!b->host && b->arr && (double)b->arr->n * 8 > dev)
			dev = (double)b->arr->n * 8;
	}
	if (too_big(k, "the sorted copies", ni, nj, need + dev))
		goto out;
	/* BMEM after the rest: where j is sorted as i (a self run), a j
	 * column that is an i column shares its copy */
	for (int pass = 0; pass < 2; pass++)
		for (int q = 0; q < nc; q++) {
			Copy *cp = &copy[q];
			nb_role role = f->var[cp->v].role;
			if ((role == NB_BMEM) != pass)
				continue;
			const Copy *twin = pass && cl.same ? same_column(k, copy, nc, cp)
			                                   : NULL;
			cp->data = twin ? twin->data :
			           copy_buffer(k, q, cp->n * type_size(cp->t));
			if (!cp->data) {
				nbrt_fail(k->rt, "out of memory for the sorted copies");
				goto out;
			}
			if (role != NB_RMEM && !twin &&
			    fill_copy(k, cp, role == NB_BMEM ? cl.jsrc : cl.iperm,
			              cl.jshift, cp->axis >= 0 ? c->period[cp->axis] : 0))
				goto out;
		}

	/* the run on the copies, then the results in the caller's order */
	double t2 = nbrt_now();
	time[5] = t2 - t1;
	k->tplan = 0;
	if (run_lists(k, ni, &cl, c->self, copy, nc, saved))
		goto out;
	t1 = nbrt_now();
	time[4] = k->tplan;
	time[6] = t1 - t2 - k->tplan;
	/* one result at a time: a pass over iperm for each costs less than
	 * one pass writing them all, whose random writes spread over every
	 * result array at once (5 float results of 2^20 in random order: 97
	 * against 225 ms, one thread of the development box) */
	for (int q = 0; q < nc; q++)
		if (f->var[copy[q].v].role == NB_RMEM &&
		    scatter(k, &copy[q], cl.iperm))
			goto out;
	k->ttotal = nbrt_now() - t0;
	time[7] = nbrt_now() - t1;
	if (c->stats) {
		memcpy(c->stats->time, time, sizeof time);
		c->stats->total = k->ttotal;
		c->stats->pairs = cl.pairs;
		c->stats->device = 0;
	}
	res = 0;
out:
	free(copy);
	free(saved);
	nbrt_cells_free(&cl);
	return res;
}
