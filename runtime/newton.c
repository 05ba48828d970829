/* newton.c: Newton's third law (nbrt_run_self, nbrt_set_newton).  A self
 * run of a kernel whose results are all SYMMETRIC or ANTISYMMETRIC is cut
 * into blocks of elements; the tasks (block A, block B) cover each
 * unordered pair of blocks once, in round-robin rounds in which no block
 * is written twice on either side.  The back end's pairs entry runs a
 * task once the tasks before it on its blocks are done (integer
 * counters, no floating-point atomics), so every block takes its terms
 * in the list's order and the results' bits do not depend on the
 * threads.  Here: the blocks, the tasks, their counters, the j-side
 * arrays. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

/* Elements a block: about this many, a multiple of the i-unroll.  A task
 * on one block computes its pairs in both orders (the kernel itself), a
 * share block / n of the run's work; the j-side of a task is summed once
 * a j over the block's i-groups, so wider blocks pay that less often.
 * Measured (bench/suites/newton.sh): 256 to 512 are alike. */
#define NEWTON_BLOCK 256
/* NBRT_NEWTON_BLOCK, which overrides it, from 1 to this: a block of 2^24
 * elements is already one task for any run a host finishes, so a larger
 * value is a mistake, not a setting */
#define NEWTON_BLOCK_MAX (1L << 24)
/* The j-unroll of a .nbl's variant for it (unless its options fix one):
 * a task updates its i-side in memory once a step of that many j, which
 * on the 2-core AVX-512 host made float gravity and Lennard-Jones 1.2 to
 * 1.4 times faster than one j a step (selfrun, N = 8192 to 16384). */
#define NEWTON_UJ 4

int nbrt_set_newton(nbrt_kernel *k, nbrt_newton mode)
{
	if (!k)
		return -1;
	if (mode != NBRT_NEWTON_AUTO && mode != NBRT_NEWTON_ON &&
	    mode != NBRT_NEWTON_OFF)
		return nbrt_fail(k->rt, "nbrt_set_newton: mode %d: expected "
		                 "NBRT_NEWTON_AUTO, _ON or _OFF", (int)mode);
	k->newton = mode;
	return 0;
}

int nbrt_newton_used(const nbrt_kernel *k)
{
	return k ? k->newton_used : 0;
}

/* Whether every result is SYMMETRIC or ANTISYMMETRIC. */
static int all_sym(const nb_iface *f)
{
	int n = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			if (!f->var[v].sym)
				return 0;
			n++;
		}
	return n > 0;
}

/* Why a self run of n (in cell lists: cells) computes every pair; NULL:
 * it computes each once. */
static const char *why_not(const nbrt_kernel *k, size_t n, int cells)
{
	const nbrt *rt = k->rt;
	if (k->newton == NBRT_NEWTON_OFF)
		return "off (nbrt_set_newton)";
	if (!k->f->pairs && !(k->src && !rt->be->host && all_sym(k->f)))
		return "the kernel has no pairs entry: every RMEM must be "
		       "SYMMETRIC or ANTISYMMETRIC, and on OpenCL the kernel "
		       "a .nbl (its variant of one i- and one j-element a work "
		       "item has it)";
	if (!rt->be->run_pairs)
		return "this device's back end has no pairs entry (the host C "
		       "path and OpenCL have)";
	if (n > (size_t)LONG_MAX / 4)
		return "too many elements";
	if (k->newton == NBRT_NEWTON_AUTO) {
		const nb_defaults *row = nbrt_row(rt, k->f->precision);
		int min = !row ? 0 : cells ? row->newton_cells_min : row->newton_min;
		/* OpenCL's dense run too: only where its row measured it
		 * faster (gpu-nvidia; docs/performance.md, session 16) */
		if (min <= 0)
			return cells ? "not measured faster in cell lists on this "
			               "device class (the defaults table's row)"
			             : "not measured faster on this device class "
			               "(the defaults table's row)";
		if (n < (size_t)min)
			return "below the size from which the defaults table's row "
			       "measured it faster";
	}
	return NULL;
}

/* The tasks, in rounds: round 0 each block with itself, round s (1 <= s
 * <= nb/2) each block A with block A + s (mod nb) -- for an even nb the
 * last round only the first half of them, so that no pair of blocks
 * comes twice.  Within a round every block is an i-side once and a
 * j-side once, so the threads rarely wait for each other. */
static long *plan_make(nbrt_kernel *k, size_t n, long *ntask)
{
	size_t ui = (size_t)k->f->unroll_i;
	long want = NEWTON_BLOCK;
	if (nbrt_env_int(k->rt, "NBRT_NEWTON_BLOCK", 1, NEWTON_BLOCK_MAX,
	                 &want) < 0)
		return NULL;
	size_t bs = ((size_t)want + ui - 1) / ui * ui;
	size_t nb = (n + bs - 1) / bs;
	size_t nr = 1 + nb / 2, m = 0;
	/* nb * nr grows as (n / bs)^2: checked before it can wrap */
	long *t = nb > 0 && nr > (SIZE_MAX / sizeof *t - 4) / 4 / nb ? NULL :
	          malloc((4 * nb * nr + 4) * sizeof *t); /* n = 0: none */
	if (!t) {
		nbrt_fail(k->rt, "kernel %s: out of memory for the tasks of %zu "
		          "blocks of %zu i-elements", k->f->kernel, nb, bs);
		return NULL;
	}
	for (size_t s = 0; s < nr; s++) {
		size_t na = s > 0 && 2 * s == nb ? nb / 2 : nb;
		for (size_t a = 0; a < na; a++, m++) {
			size_t b = (a + s) % nb;
			t[4 * m] = (long)(a * bs);
			t[4 * m + 1] = (long)(a * bs + bs < n ? a * bs + bs : n);
			t[4 * m + 2] = (long)(b * bs);
			t[4 * m + 3] = (long)(b * bs + bs < n ? b * bs + bs : n);
		}
	}
	*ntask = (long)m;
	return t;
}

/* The kernel a self run uses: k, or for a .nbl the variant of NEWTON_UJ
 * (on OpenCL: of one i- and one j-element a work item, unsplit, whose
 * pairs entry emit_opencl.c writes); NULL with the message set. */
static nbrt_kernel *newton_kernel(nbrt_kernel *k)
{
	int host = k->rt->be->host;
	if (!k->src || (host && (k->opts.given & NB_GIVEN_UNROLL_J)) ||
	    (!host && k->f->pairs))
		return k;
	if (k->newton_alt)
		return k->newton_alt;
	nb_options o = k->opts;
	o.unroll_j = host ? NEWTON_UJ : 1;
	o.given |= NB_GIVEN_UNROLL_J;
	if (!host) {
		o.unroll_i = o.jsplit = 1;
		o.given |= NB_GIVEN_UNROLL_I | NB_GIVEN_JSPLIT;
		if (!(o.given & NB_GIVEN_WG))
			o.wg = NB_DENSE_WG;
	}
	nbrt_kernel *a = nbrt_core_load(k->rt, k->path, k->src, k->srclen, &o);
	if (a && !a->f->pairs) {
		nbrt_core_free(a);
		nbrt_fail(k->rt, "%s: its variant for Newton's third law has no "
		          "pairs entry", k->name);
		return NULL;
	}
	return k->newton_alt = a;
}

/* The pairs a plan computes: a task on one block all of its pairs. */
static double plan_pairs(const long *t, long ntask)
{
	double p = 0;
	for (long m = 0; m < ntask; m++, t += 4)
		p += (double)(t[1] - t[0]) * (double)(t[3] - t[2]);
	return p;
}

/* The back end's records (nbrt_nplan): blocks numbered by their first
 * element, i-sides' counters first, then j-sides'; how many tasks before
 * each write its blocks.  The blocks are found through an array over the
 * n elements, not a sort of the tasks' block starts (two a task: about
 * 2.4 million in cell lists at N = 2^20).  NULL when out of memory. */
static long *records(const long *task, long ntask, size_t n, long *ncount)
{
	long *num = malloc((n + 1) * sizeof *num);
	long *rec = malloc(8 * ((size_t)ntask + 1) * sizeof *rec);
	long *seen = NULL, nb = 0;
	if (!num || !rec)
		goto fail;
	/* blocks of either side: a cell list's j-images are never i-sides */
	for (size_t e = 0; e < n; e++)
		num[e] = -1;
	for (long m = 0; m < ntask; m++)
		num[task[4 * m]] = num[task[4 * m + 2]] = 0;
	for (size_t e = 0; e < n; e++)
		if (num[e] == 0)
			num[e] = ++nb;
	if (!(seen = calloc(2 * (size_t)nb + 1, sizeof *seen)))
		goto fail;
	for (long m = 0; m < ntask; m++) {
		const long *q = task + 4 * m;
		long *r = rec + 8 * m;
		int one = q[0] == q[2] && q[1] == q[3];
		memcpy(r, q, 4 * sizeof *r);
		r[4] = num[q[0]] - 1;
		r[5] = one ? -1 : nb + num[q[2]] - 1;
		r[6] = seen[r[4]]++;
		r[7] = one ? 0 : seen[r[5]]++;
	}
	*ncount = 2 * nb;
	free(num);
	free(seen);
	return rec;
fail:
	free(num);
	free(rec);
	free(seen);
	return NULL;
}

int nbrt_run_newton_tasks(nbrt_kernel *k, size_t n, const long *task,
                          long ntask)
{
	const nb_iface *f = k->f;
	int nres = nb_iface_count(f, NB_RMEM), r = -1;
	void **js = calloc((size_t)nres + 1, sizeof *js);
	long ncount = 0, *rec = records(task, ntask, n, &ncount);
	long *done = rec ? calloc((size_t)ncount + 1, sizeof *done) : NULL;
	double bytes = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			bytes += (double)n * (double)nbrt_prec_size(f->var[v].type);
	if (bytes > nbrt_host_memory()) {
		char b[32];
		nbrt_format_bytes(b, sizeof b, bytes);
		nbrt_fail(k->rt, "kernel %s: Newton's third law over %zu elements "
		          "needs %s for its j-side sums, more than this process "
		          "may use", f->kernel, n, b);
		goto out;
	}
	if (!js || !done)
		goto oom;
	for (int v = 0, e = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM &&
		    !(js[e++] = calloc(n ? n : 1, nbrt_prec_size(f->var[v].type))))
			goto oom;
	nbrt_kernel *a = newton_kernel(k);
	nbrt_nplan p = {ntask, rec, done, js};
	if (a)
		r = nbrt_core_run_pairs(k, a, n, &p);
	goto out;
oom:
	nbrt_fail(k->rt, "kernel %s: out of memory for the j-side sums of %zu "
	          "elements, or the tasks",
	          f->kernel, n);
out:
	for (int e = 0; js && e < nres; e++)
		free(js[e]);
	free(js);
	free(rec);
	free(done);
	return r;
}

int nbrt_run_self(nbrt_kernel *k, size_t n)
{
	if (!k)
		return -1;
	k->newton_used = 0;
	const char *why = why_not(k, n, 0);
	if (why) {
		nbrt_note(k->rt, "%s: a self run of %zu computes every pair: "
		          "Newton's third law %s", k->name, n, why);
		return nbrt_run(k, n, n);
	}
	long ntask = 0;
	int r = -1;
	k->last = NULL;
	k->origin = "defaults";
	k->pairs = 0;
	if (!k->rt->be->host) { /* OpenCL: rounds of blocks on the device */
		nbrt_kernel *a = newton_kernel(k);
		nbrt_nplan p = {-1, NULL, NULL, NULL};
		if (!a || nbrt_core_run_pairs(k, a, n, &p))
			return -1;
		/* the pairs computed: a block of bs with itself all of its
		 * pairs, with another block each of theirs once */
		size_t bs = (size_t)a->f->wg * NB_DENSE_U, full = n / bs;
		double diag = (double)full * (double)bs * (double)bs +
		              (double)(n - full * bs) * (double)(n - full * bs);
		k->pairs = diag + ((double)n * (double)n - diag) / 2;
		k->newton_used = 1;
		return 0;
	}
	long *task = plan_make(k, n, &ntask);
	if (task && nbrt_run_newton_tasks(k, n, task, ntask) == 0) {
		k->pairs = plan_pairs(task, ntask);
		k->newton_used = 1;
		r = 0;
	}
	free(task);
	return r;
}

/* --- The cell lists (nbrt_run_cutoff with self) ------------------------
 * The run is in the lists' j-order (the sorted j with their periodic
 * images between them), where a real element's place follows sorted
 * i's: each i-cell meets the cells of its stencil that come after it
 * in that order, and the images whose shift is positive in its first
 * non-zero axis (the pair (A, B + s) is the pair (B, A - s), and one of
 * s, -s is positive).  The images' j-side sums then go to their
 * elements, in the images' order. */

/* The sign of j-element e's shift: of its first non-zero axis. */
static int shift_sign(const nbrt_cells *cl, size_t e)
{
	for (int d = 0; d < 3; d++)
		if (cl->jshift[3 * e + d])
			return cl->jshift[3 * e + d];
	return 0;
}

/* What the cell lists' Newton needs beside the tasks: where sorted i's
 * elements stand in j-order, sorted i of the caller's index, and each
 * j-element's run's first and end (a run: one group's real elements, or
 * its images of one shift, side by side in j-order). */
typedef struct Cellmap {
	size_t *pos, *inv, *cstart, *cend;
} Cellmap;

/* 0, or 1 when the i- and j-orders disagree (the columns are not the
 * same elements, or a group's elements are not one run), or -1 out of
 * memory. */
static int cellmap_make(const nbrt_cells *cl, size_t n, Cellmap *m)
{
	size_t nj = cl->njimg, *gi = malloc((n ? n : 1) * sizeof *gi);
	m->pos = malloc((n ? n : 1) * sizeof *m->pos);
	m->inv = malloc((n ? n : 1) * sizeof *m->inv);
	m->cstart = malloc((nj ? nj : 1) * sizeof *m->cstart);
	m->cend = malloc((nj ? nj : 1) * sizeof *m->cend);
	int r = -1;
	if (!gi || !m->pos || !m->inv || !m->cstart || !m->cend)
		goto out;
	r = 1;
	size_t q = 0;
	for (size_t e = 0; e < nj; e++)
		if (!shift_sign(cl, e)) {
			if (q == n || cl->jsrc[e] != cl->iperm[q])
				goto out;
			m->pos[q++] = e;
		}
	if (q != n)
		goto out;
	for (size_t s = 0; s < n; s++)
		m->inv[cl->iperm[s]] = s;
	for (size_t g = 0; g < cl->r.ngroups; g++) {
		size_t a = cl->group[2 * g], b = cl->group[2 * g + 1];
		if (a < b && m->pos[b - 1] - m->pos[a] != b - 1 - a)
			goto out;
		for (size_t s = a; s < b; s++)
			gi[s] = g;
	}
	for (size_t e = nj; e-- > 0;) {
		size_t g = gi[m->inv[cl->jsrc[e]]];
		int same = e + 1 < nj && gi[m->inv[cl->jsrc[e + 1]]] == g &&
		           !memcmp(cl->jshift + 3 * e, cl->jshift + 3 * e + 3, 3);
		m->cend[e] = same ? m->cend[e + 1] : e + 1;
	}
	for (size_t e = 0; e < nj; e++)
		m->cstart[e] = e > 0 && m->cend[e - 1] == m->cend[e] ? m->cstart[e - 1]
		                                                     : e;
	r = 0;
out:
	free(gi);
	return r;
}

/* The tasks of group g, each a whole run of its list's j-elements that
 * comes after the group in j-order (or is the group itself, or an image
 * of positive shift): written to t (5 longs each, the last a rank for
 * the rounds) unless NULL; returns their count.  A run met by several
 * ranges, or a range that starts or ends inside a run, still gives one
 * task of the whole run (runs are the blocks whose counters order the
 * j-side writes, so two tasks never write parts of one). */
static size_t group_tasks(const nbrt_cells *cl, const Cellmap *m, size_t g,
                          long *t)
{
	size_t a0 = m->pos[cl->group[2 * g]];
	size_t a1 = a0 + cl->group[2 * g + 1] - cl->group[2 * g];
	size_t nt = 0, rank = 0, last = SIZE_MAX;
	for (size_t x = cl->offset[g]; x < cl->offset[g + 1]; x++)
		for (size_t b = cl->range[2 * x]; b < cl->range[2 * x + 1];
		     b = m->cend[b]) {
			size_t b0 = m->cstart[b], b1 = m->cend[b];
			int sg = shift_sign(cl, b0);
			if (b0 == last || !(b0 == a0 || (sg ? sg > 0 : b0 > a0)))
				continue;
			last = b0;
			if (t) {
				long *r = t + 5 * nt;
				r[0] = (long)a0;
				r[1] = (long)a1;
				r[2] = (long)b0;
				r[3] = (long)b1;
				r[4] = b0 == a0 ? 0 : (long)(rank < 26 ? ++rank : 26);
			}
			nt++;
		}
	return nt;
}

/* The tasks in j-order, in rounds: every group's k-th task in round k
 * (its own run first; the 26th and later in the last round), so that a
 * round's tasks rarely share a block.  NULL when out of memory. */
static long *cell_tasks(const nbrt_cells *cl, const Cellmap *m, long *ntask)
{
	size_t ng = cl->r.ngroups, nt = 0, most = 0;
	for (size_t g = 0; g < ng; g++)
		nt += group_tasks(cl, m, g, NULL);
	*ntask = (long)nt;
	if ((double)nt * 9 * sizeof(long) > nbrt_host_memory())
		return NULL;
	long *raw = malloc(5 * (nt + 1) * sizeof *raw), *t = NULL;
	size_t count[27] = {0};
	if (!raw)
		return NULL;
	for (size_t g = 0, at = 0; g < ng; g++)
		at += group_tasks(cl, m, g, raw + 5 * at);
	for (size_t x = 0; x < nt; x++)
		count[raw[5 * x + 4]]++;
	for (int s = 0; s < 27; s++) {
		size_t c = count[s];
		count[s] = most;
		most += c;
	}
	if ((t = malloc((4 * nt + 4) * sizeof *t)))
		for (size_t x = 0; x < nt; x++)
			memcpy(t + 4 * count[raw[5 * x + 4]]++, raw + 5 * x,
			       4 * sizeof *t);
	free(raw);
	return t;
}

/* to += from, one value of t. */
static void add_values(void *to, const void *from, nbrt_type t)
{
	if (t == NBRT_FLOAT) {
		*(float *)to += *(const float *)from;
	} else if (t == NBRT_DOUBLE) {
		*(double *)to += *(const double *)from;
	} else { /* a dd: two-sum of the high parts, then the low parts */
		double *a = to;
		const double *b = from;
		double h = a[0] + b[0], bb = h - a[0];
		double e = (a[0] - (h - bb)) + (b[0] - bb) + a[1] + b[1];
		a[0] = h + e;
		a[1] = e - (a[0] - h);
	}
}

int nbrt_newton_cells_wanted(const nbrt_kernel *k, size_t n)
{
	return !why_not(k, n, 1);
}

int nbrt_run_newton_cells(nbrt_kernel *k, size_t n, const nbrt_cells *cl)
{
	const nb_iface *f = k->f;
	k->newton_used = 0;
	const char *why = why_not(k, n, 1);
	if (why) {
		nbrt_note(k->rt, "%s: a self run of %zu in cell lists computes "
		          "every pair: Newton's third law %s", k->name, n, why);
		return 1;
	}
	size_t nj = cl->njimg, width = 0;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_LMEM || f->var[v].role == NB_RMEM)
			width += nbrt_prec_size((nb_prec)k->b[v].t);
	/* the j-order's i-inputs and results, the maps, the tasks */
	/* the tasks' memory is checked once they are counted (cell_tasks) */
	double need = (double)nj * (double)width +
	              (double)(2 * n + 2 * nj) * sizeof(size_t);
	if (need > nbrt_host_memory()) {
		char b[32];
		nbrt_format_bytes(b, sizeof b, need);
		return nbrt_fail(k->rt, "kernel %s: Newton's third law in the cell "
		                 "lists of %zu elements needs %s, more than this "
		                 "process may use", f->kernel, n, b);
	}
	int r = -1;
	long ntask = 0, *task = NULL;
	Cellmap m = {NULL, NULL, NULL, NULL};
	void **arr = calloc((size_t)f->nvar + 1, sizeof *arr);
	nbrt_slot *saved = malloc(((size_t)f->nvar + 1) * sizeof *saved);
	int mk = arr && saved ? cellmap_make(cl, n, &m) : -1;
	if (mk > 0) {
		nbrt_note(k->rt, "%s: a self run of %zu in cell lists computes "
		          "every pair: its i- and j-positions sort apart (not the "
		          "same elements?)", k->name, n);
		r = 1;
		goto out;
	}
	if (mk < 0 || !(task = cell_tasks(cl, &m, &ntask)))
		goto oom;
	for (int v = 0; v < f->nvar; v++) {
		nb_role role = f->var[v].role;
		if (role != NB_LMEM && role != NB_RMEM)
			continue;
		size_t es = nbrt_prec_size((nb_prec)k->b[v].t);
		/* zeros where the kernel never reads: images are no i-side */
		if (!(arr[v] = calloc(nj ? nj : 1, es)))
			goto oom;
		if (role == NB_LMEM)
			for (size_t s = 0; s < n; s++)
				memcpy((char *)arr[v] + m.pos[s] * es,
				       (const char *)k->b[v].host + s * es, es);
	}
	memcpy(saved, k->b, (size_t)f->nvar * sizeof *saved);
	for (int v = 0; v < f->nvar; v++)
		if (arr[v])
			k->b[v].host = arr[v];
	k->last = NULL;
	k->origin = "defaults";
	r = nbrt_run_newton_tasks(k, nj, task, ntask);
	memcpy(k->b, saved, (size_t)f->nvar * sizeof *saved);
	if (r)
		goto out;
	/* the results in sorted i: each element's, then its images' j-sides
	 * in their order */
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		nbrt_type t = k->b[v].t;
		size_t es = nbrt_prec_size((nb_prec)t);
		char *res = k->b[v].host;
		for (size_t s = 0; s < n; s++)
			memcpy(res + s * es, (char *)arr[v] + m.pos[s] * es, es);
		for (size_t e = 0; e < nj; e++)
			if (shift_sign(cl, e))
				add_values(res + m.inv[cl->jsrc[e]] * es,
				           (char *)arr[v] + e * es, t);
	}
	k->pairs = plan_pairs(task, ntask);
	k->newton_used = 1;
	goto out;
oom:
	nbrt_fail(k->rt, "kernel %s: out of memory for Newton's third law in "
	          "the cell lists of %zu elements", f->kernel, n);
out:
	for (int v = 0; arr && v < f->nvar; v++)
		free(arr[v]);
	free(arr);
	free(saved);
	free(m.pos);
	free(m.inv);
	free(m.cstart);
	free(m.cend);
	free(task);
	return r;
}
