/* ranges.c: block-sparse runs (nbrt_run_ranges): the caller's i-groups
 * and j-ranges checked, put in order and cut into the back end's tasks,
 * then run through the kernel's ranges entry -- for a .nbl, a variant
 * compiled with it, on a GPU with the j-split that fills a work group
 * from the groups' sizes.  The cell lists (cutoff.c) call the mapped
 * form with lists of their own. */
#include <stdlib.h>
#include <string.h>
#include "core.h"

/* The plan and the storage behind it. */
typedef struct Plan {
	nbrt_rplan p;
	size_t *task, *offset, *range, *glen;
	double pairs;
	size_t cover, busy; /* i-elements in groups; groups with ranges */
} Plan;

static void plan_free(Plan *pl)
{
	free(pl->task);
	free(pl->offset);
	free(pl->range);
	free(pl->glen);
}

/* For qsort: pairs (first, last) by first, then last. */
static int by_start(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 :
	       x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Group indices in the order of their first i (qsort's context is
 * global-free through an array of (first, index) pairs). */
static size_t *group_order(nbrt *rt, const nbrt_ranges *r)
{
	size_t n = r->ngroups;
	size_t *o = malloc(2 * (n ? n : 1) * sizeof *o);
	if (!o) {
		nbrt_fail(rt, "out of memory for %zu i-groups", n);
		return NULL;
	}
	for (size_t g = 0; g < n; g++) {
		o[2 * g] = r->group[2 * g];
		o[2 * g + 1] = g;
	}
	qsort(o, n, 2 * sizeof *o, by_start);
	return o;
}

/* Everything the caller gave, checked before anything runs: groups
 * within [0, ni) and disjoint, ranges within [0, nj) and disjoint within
 * their group.  The first fault is named. */
static int check(nbrt_kernel *k, size_t ni, size_t nj, const nbrt_ranges *r)
{
	nbrt *rt = k->rt;
	const char *kn = k->f->kernel;
	if (!r)
		return nbrt_fail(rt, "kernel %s: nbrt_run_ranges: no ranges (NULL)",
		                 kn);
	if (!r->ngroups)
		return 0;
	if (!r->group || !r->offset)
		return nbrt_fail(rt, "kernel %s: nbrt_run_ranges: %zu groups but "
		                 "no %s array", kn, r->ngroups,
		                 r->group ? "offset" : "group");
	if (r->offset[0] != 0)
		return nbrt_fail(rt, "kernel %s: ranges: offset[0] is %zu; it must "
		                 "be 0", kn, r->offset[0]);
	for (size_t g = 0; g < r->ngroups; g++) {
		size_t a = r->group[2 * g], b = r->group[2 * g + 1];
		if (a > b || b > ni)
			return nbrt_fail(rt, "kernel %s: ranges: group %zu covers i "
			                 "in [%zu, %zu), not within [0, Ni = %zu)%s", kn,
			                 g, a, b, ni, a > b ? " (first > last)" : "");
		if (r->offset[g + 1] < r->offset[g])
			return nbrt_fail(rt, "kernel %s: ranges: offset[%zu] = %zu is "
			                 "less than offset[%zu] = %zu; offsets never "
			                 "decrease", kn, g + 1, r->offset[g + 1], g,
			                 r->offset[g]);
	}
	size_t nr = r->offset[r->ngroups];
	if (nr && !r->range)
		return nbrt_fail(rt, "kernel %s: ranges: %zu j-ranges but no range "
		                 "array", kn, nr);
	for (size_t e = 0; e < nr; e++) {
		size_t a = r->range[2 * e], b = r->range[2 * e + 1];
		if (a > b || b > nj)
			return nbrt_fail(rt, "kernel %s: ranges: j-range %zu is [%zu, "
			                 "%zu), not within [0, Nj = %zu)%s", kn, e, a, b,
			                 nj, a > b ? " (first > last)" : "");
	}
	size_t *o = group_order(rt, r);
	if (!o)
		return -1;
	int bad = 0;
	size_t end = 0, last = 0;
	for (size_t q = 0; q < r->ngroups && !bad; q++) {
		size_t g = o[2 * q + 1];
		size_t a = r->group[2 * g], b = r->group[2 * g + 1];
		if (a == b)
			continue;
		if (a < end) {
			nbrt_fail(rt, "kernel %s: ranges: groups %zu [%zu, %zu) and "
			          "%zu [%zu, %zu) overlap; an i may be in one group "
			          "only", kn, last, r->group[2 * last],
			          r->group[2 * last + 1], g, a, b);
			bad = 1;
		}
		end = b;
		last = g;
	}
	free(o);
	if (bad)
		return -1;
	/* ranges within a group: sorted copies, neighbours compared */
	size_t most = 0;
	for (size_t g = 0; g < r->ngroups; g++)
		if (r->offset[g + 1] - r->offset[g] > most)
			most = r->offset[g + 1] - r->offset[g];
	size_t *s = malloc(2 * (most ? most : 1) * sizeof *s);
	if (!s)
		return nbrt_fail(rt, "out of memory for a group of %zu ranges",
		                 most);
	for (size_t g = 0; g < r->ngroups && !bad; g++) {
		size_t n = r->offset[g + 1] - r->offset[g];
		memcpy(s, r->range + 2 * r->offset[g], 2 * n * sizeof *s);
		qsort(s, n, 2 * sizeof *s, by_start);
		for (size_t e = 1; e < n && !bad; e++)
			if (s[2 * e] < s[2 * e - 1] && s[2 * e] < s[2 * e + 1]) {
				nbrt_fail(rt, "kernel %s: ranges: group %zu has the "
				          "overlapping j-ranges [%zu, %zu) and [%zu, "
				          "%zu); a pair may be listed once only", kn, g,
				          s[2 * e - 2], s[2 * e - 1], s[2 * e],
				          s[2 * e + 1]);
				bad = 1;
			}
	}
	free(s);
	return bad ? -1 : 0;
}

/* Tasks of at most `width` i-elements over [a, b), of group g. */
static void add_tasks(Plan *pl, size_t a, size_t b, size_t g, size_t width)
{
	for (; a < b; a += width) {
		size_t *t = pl->task + 3 * pl->p.ntask++;
		t[0] = a;
		t[1] = b - a < width ? b - a : width;
		t[2] = g;
	}
}

/* The back end's plan: groups in order of their first i, each group's
 * ranges sorted, empty ones dropped and neighbours joined, tasks over
 * all of [0, ni).  The memory is checked before it is taken. */
static int plan_make(nbrt_kernel *k, size_t ni, const nbrt_ranges *r,
                     size_t width, Plan *pl)
{
	nbrt *rt = k->rt;
	memset(pl, 0, sizeof *pl);
	size_t ng = r->ngroups, nr = ng ? r->offset[ng] : 0;
	/* tasks: at most one per width of each group and of each gap */
	size_t ntask = ni / width + 2 * ng + 2;
	double need = (double)(3 * ntask + 2 * nr + 2 * ng + 4) * sizeof(size_t);
	if (need > nbrt_host_memory()) {
		char b[32];
		nbrt_format_bytes(b, sizeof b, need);
		return nbrt_fail(rt, "kernel %s: the plan of %zu groups and %zu "
		                 "ranges needs %s, more than this process may use",
		                 k->f->kernel, ng, nr, b);
	}
	pl->task = malloc(3 * ntask * sizeof(size_t));
	pl->offset = malloc((ng + 2) * sizeof(size_t));
	pl->range = malloc(2 * (nr ? nr : 1) * sizeof(size_t));
	pl->glen = calloc(ng + 1, sizeof(size_t));
	size_t *o = group_order(rt, r);
	if (!pl->task || !pl->offset || !pl->range || !pl->glen || !o) {
		free(o);
		plan_free(pl);
		return nbrt_fail(rt, "out of memory for the plan of %zu groups",
		                 ng);
	}
	/* group q of the plan is the caller's group o[2q + 1] */
	size_t at = 0;
	for (size_t q = 0; q < ng; q++) {
		size_t g = o[2 * q + 1], n = r->offset[g + 1] - r->offset[g];
		size_t *s = pl->range + 2 * at;
		memcpy(s, r->range + 2 * r->offset[g], 2 * n * sizeof *s);
		qsort(s, n, 2 * sizeof *s, by_start);
		size_t m = 0;
		for (size_t e = 0; e < n; e++) {
			if (s[2 * e] == s[2 * e + 1])
				continue;
			if (m && s[2 * m - 1] == s[2 * e])
				s[2 * m - 1] = s[2 * e + 1];
			else {
				s[2 * m] = s[2 * e];
				s[2 * m + 1] = s[2 * e + 1];
				m++;
			}
			pl->glen[q] += s[2 * e + 1] - s[2 * e];
		}
		pl->offset[q] = at;
		at += m;
	}
	pl->offset[ng] = pl->offset[ng + 1] = at;
	size_t cur = 0;
	for (size_t q = 0; q < ng; q++) {
		size_t g = o[2 * q + 1];
		size_t a = r->group[2 * g], b = r->group[2 * g + 1];
		if (a == b)
			continue;
		add_tasks(pl, cur, a, ng, width);
		add_tasks(pl, a, b, q, width);
		cur = b;
		pl->pairs += (double)(b - a) * (double)pl->glen[q];
		pl->cover += b - a;
		pl->busy += pl->glen[q] > 0;
	}
	add_tasks(pl, cur, ni, ng, width);
	free(o);
	pl->p.ngroups = ng;
	pl->p.task = pl->task;
	pl->p.offset = pl->offset;
	pl->p.range = pl->range;
	pl->p.glen = pl->glen;
	return 0;
}

/* The j-split that fills a work group with the average group: T work
 * items share an i-group of NI elements, so a group of n i-elements
 * keeps T * n / NI of the work group's items busy. */
static int ranges_split(const nbrt_kernel *k, const Plan *pl)
{
	if (!k->autosplit || !pl->busy)
		return 0;
	const nb_iface *f = k->f;
	size_t items = (pl->cover / pl->busy + (size_t)f->unroll_i - 1) /
	               (size_t)f->unroll_i;
	int l = 0;
	while (l < 4 && (size_t)(2 << l) * items <= (size_t)(f->wg ? f->wg : 128))
		l++;
	return l;
}

/* The kernel that runs the plan: k itself when it carries the ranges
 * entry or its back end needs none, else k's .nbl compiled with it. */
static nbrt_kernel *ranges_kernel(nbrt_kernel *k, int l)
{
	nbrt *rt = k->rt;
	if (!rt->be->rentry || (k->f->ranges && !k->src))
		return k;
	if (!k->src) {
		nbrt_fail(rt, "%s was generated without the entry of block-sparse "
		          "runs: compile it with nbcc --ranges, or load its .nbl",
		          k->name);
		return NULL;
	}
	if (k->ranges[l])
		return k->ranges[l];
	nb_options o = k->opts;
	o.ranges = 1;
	o.given |= NB_GIVEN_RANGES;
	if (k->autosplit) {
		o.jsplit = 1 << l;
		o.given |= NB_GIVEN_JSPLIT;
	}
	nbrt_kernel *a = nbrt_core_load(rt, k->path, k->src, k->srclen, &o);
	if (a && !a->f->ranges) {
		nbrt_core_free(a);
		nbrt_fail(rt, "%s: the %s back end writes no entry of block-sparse "
		          "runs", k->name, rt->be->target);
		return NULL;
	}
	if (a && l)
		nbrt_note(rt, "%s: j-split %d for block-sparse runs", k->name,
		          1 << l);
	return k->ranges[l] = a;
}

/* Back ends without a ranges entry launch the dense one once a range,
 * which resumes every reduction but an index's (nb_red_resumes) and
 * reads the run's own indices, not those of sorted copies. */
static int dense_limits(nbrt_kernel *k, const Plan *pl, int mapped)
{
	const nb_iface *f = k->f;
	if (mapped && f->indices)
		return nbrt_fail(k->rt, "kernel %s reads the index %s, which %s "
		                 "cannot map back from the sorted copies of cell "
		                 "lists; run it on another device", f->kernel,
		                 f->indices == 1 ? "i" : f->indices == 2 ? "j" :
		                 "i or j", k->rt->name);
	for (int v = 0; v < f->nvar; v++) {
		nb_red red = f->var[v].red;
		if (f->var[v].role != NB_RMEM ||
		    (red != NB_ARGMIN && red != NB_ARGMAX))
			continue;
		for (size_t g = 0; g < pl->p.ngroups; g++)
			if (pl->offset[g + 1] - pl->offset[g] > 1)
				return nbrt_fail(k->rt, "kernel %s: %s '%s' over several "
				                 "j-ranges of one group: %s launches one "
				                 "range at a time, and an index cannot be "
				                 "resumed; join the group's ranges, or run "
				                 "on another device", f->kernel,
				                 nb_red_name(red), f->var[v].name,
				                 k->rt->name);
	}
	return 0;
}

static int run_plan(nbrt_kernel *k, size_t ni, size_t nj,
                    const nbrt_ranges *r, const size_t *imap,
                    const size_t *jmap)
{
	nbrt *rt = k->rt;
	k->last = NULL;
	k->origin = "defaults";
	k->pairs = 0;
	Plan pl;
	/* the width of a task: a work group's i-elements, or on the host a
	 * few groups of NI; one task a group where each range is a launch */
	const nb_iface *f = k->f;
	size_t width = !rt->be->rentry ? (ni ? ni : 1) :
	               f->wg ? (size_t)(f->wg / f->jsplit * f->unroll_i) :
	               4 * (size_t)f->unroll_i;
	nbrt_ranges none = {0, NULL, NULL, NULL};
	if (plan_make(k, ni, r ? r : &none, width, &pl))
		return -1;
	int res = -1;
	nbrt_kernel *a = ranges_kernel(k, ranges_split(k, &pl));
	if (!a)
		goto out;
	if (a->f->wg && (size_t)(a->f->wg / a->f->jsplit * a->f->unroll_i) !=
	                width) {
		/* the variant's work group holds another count: cut again */
		plan_free(&pl);
		width = (size_t)(a->f->wg / a->f->jsplit * a->f->unroll_i);
		if (plan_make(k, ni, r ? r : &none, width, &pl))
			return -1;
	}
	if (!rt->be->rentry && dense_limits(k, &pl, imap || jmap))
		goto out;
	pl.p.imap = imap;
	pl.p.jmap = jmap;
	if (nbrt_core_run_ranges(k, a, ni, nj, &pl.p))
		goto out;
	k->pairs = pl.pairs;
	res = 0;
out:
	plan_free(&pl);
	return res;
}

int nbrt_run_ranges(nbrt_kernel *k, size_t ni, size_t nj,
                    const nbrt_ranges *r)
{
	if (!k)
		return -1;
	if (check(k, ni, nj, r))
		return -1;
	return run_plan(k, ni, nj, r, NULL, NULL);
}

int nbrt_run_ranges_mapped(nbrt_kernel *k, size_t ni, size_t nj,
                           const nbrt_ranges *r, const size_t *imap,
                           const size_t *jmap)
{
	if (!k)
		return -1;
#ifndef NDEBUG
	if (check(k, ni, nj, r))
		return -1;
#endif
	return run_plan(k, ni, nj, r, imap, jmap);
}

double nbrt_pairs(const nbrt_kernel *k)
{
	return k ? k->pairs : 0;
}
