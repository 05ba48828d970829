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
#include <stdlib.h>
#include <string.h>
#include "core.h"

/* Elements a block: about this many, a multiple of the i-unroll.  A task
 * on one block computes its pairs in both orders (the kernel itself), a
 * share block / n of the run's work; the j-side of a task is summed once
 * a j over the block's i-groups, so wider blocks pay that less often.
 * Measured (bench/suites/newton.sh): 256 to 512 are alike. */
#define NEWTON_BLOCK 256
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

/* Why a self run of n computes every pair; NULL: it computes each once. */
static const char *why_not(const nbrt_kernel *k, size_t n)
{
	const nbrt *rt = k->rt;
	if (k->newton == NBRT_NEWTON_OFF)
		return "off (nbrt_set_newton)";
	if (!k->f->pairs)
		return "the kernel has no pairs entry: every RMEM must be "
		       "SYMMETRIC or ANTISYMMETRIC, and only the C back end "
		       "writes it";
	if (!rt->be->run_pairs)
		return "this device's back end has no pairs entry (the host C "
		       "path has)";
	if (n > (size_t)LONG_MAX / 4)
		return "too many elements";
	if (k->newton == NBRT_NEWTON_AUTO) {
		const nb_defaults *row = nbrt_row(rt, k->f->precision);
		if (!row || row->newton_min <= 0 ||
		    n < (size_t)row->newton_min)
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
	const char *e = getenv("NBRT_NEWTON_BLOCK");
	size_t want = e && atol(e) > 0 ? (size_t)atol(e) : NEWTON_BLOCK;
	size_t bs = (want + ui - 1) / ui * ui;
	size_t nb = (n + bs - 1) / bs;
	size_t nr = 1 + nb / 2, m = 0;
	long *t = malloc((4 * nb * nr + 4) * sizeof *t); /* n = 0: none */
	if (!t) {
		nbrt_fail(k->rt, "kernel %s: out of memory for %zu tasks",
		          k->f->kernel, nb * nr);
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

/* The kernel a self run uses: k, or for a .nbl the variant of NEWTON_UJ;
 * NULL with the message set. */
static nbrt_kernel *newton_kernel(nbrt_kernel *k)
{
	if (!k->src || (k->opts.given & NB_GIVEN_UNROLL_J))
		return k;
	if (k->newton_alt)
		return k->newton_alt;
	nb_options o = k->opts;
	o.unroll_j = NEWTON_UJ;
	o.given |= NB_GIVEN_UNROLL_J;
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

static int by_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* The index of v in the sorted s[0..n). */
static long find(const long *s, long n, long v)
{
	const long *p = bsearch(&v, s, (size_t)n, sizeof *s, by_long);
	return p ? (long)(p - s) : -1;
}

/* The back end's records (nbrt_nplan): blocks numbered by their first
 * element, i-sides' counters first, then j-sides'; how many tasks before
 * each write its blocks.  NULL when out of memory. */
static long *records(const long *task, long ntask, long *ncount)
{
	long *start = malloc(((size_t)ntask + 1) * sizeof *start);
	long *rec = malloc(8 * ((size_t)ntask + 1) * sizeof *rec);
	long *seen = NULL, nb = 0;
	if (!start || !rec)
		goto fail;
	for (long m = 0; m < ntask; m++)
		start[m] = task[4 * m];
	qsort(start, (size_t)ntask, sizeof *start, by_long);
	for (long m = 0; m < ntask; m++)
		if (m == 0 || start[m] != start[nb - 1])
			start[nb++] = start[m];
	if (!(seen = calloc(2 * (size_t)nb + 1, sizeof *seen)))
		goto fail;
	for (long m = 0; m < ntask; m++) {
		const long *q = task + 4 * m;
		long *r = rec + 8 * m;
		int one = q[0] == q[2] && q[1] == q[3];
		memcpy(r, q, 4 * sizeof *r);
		r[4] = find(start, nb, q[0]);
		/* a j-range that is no i-range: a counter of its own */
		long jb = one ? -1 : find(start, nb, q[2]);
		r[5] = one ? -1 : jb >= 0 ? nb + jb : -1;
		if (!one && jb < 0)
			goto fail; /* the hook's rule: every j-block an i-block */
		r[6] = seen[r[4]]++;
		r[7] = one ? 0 : seen[r[5]]++;
	}
	*ncount = 2 * nb;
	free(start);
	free(seen);
	return rec;
fail:
	free(start);
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
	long ncount = 0, *rec = records(task, ntask, &ncount);
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
	          "elements, or the tasks (a j-range that is no i-range?)",
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
	const char *why = why_not(k, n);
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
	long *task = plan_make(k, n, &ntask);
	if (task && nbrt_run_newton_tasks(k, n, task, ntask) == 0) {
		k->pairs = plan_pairs(task, ntask);
		k->newton_used = 1;
		r = 0;
	}
	free(task);
	return r;
}
