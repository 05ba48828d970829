/* ranges.c: block-sparse runs (nbrt_run_ranges): the caller's i-groups
 * and j-ranges checked, put in order and cut into the back end's tasks,
 * then run through the kernel's ranges entry -- for a .nbl, a variant
 * compiled with it, on a GPU with the j-split that fills a work group
 * from the groups' sizes.  The cell lists (cutoff.c) call the mapped
 * form with lists of their own. */
#include <stdlib.h>
#include <string.h>
#include "core.h"

/* Loops over fewer groups run on one thread. */
enum { PAR = 4096 };

/* The plan and the storage behind it (range and offset NULL where the
 * plan reads the caller's). */
typedef struct Plan {
	nbrt_rplan p;
	size_t *task, *offset, *range, *glen;
	double pairs;
	nbrt_work *w; /* where task and glen are kept, or NULL */
} Plan;

static void plan_free(Plan *pl)
{
	nbrt_work_give(pl->w, pl->task);
	free(pl->offset);
	free(pl->range);
	nbrt_work_give(pl->w, pl->glen);
}

/* For qsort: pairs (first, last) by first, then last. */
static int by_start(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 :
	       x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Group indices in the order of their first i: as given where they
 * already are (the usual case: no sort), else sorted. */
static size_t *group_order(nbrt *rt, const nbrt_ranges *r)
{
	size_t n = r->ngroups;
	size_t *o = malloc(2 * (n ? n : 1) * sizeof *o);
	if (!o) {
		nbrt_fail(rt, "out of memory for %zu i-groups", n);
		return NULL;
	}
	int sorted = 1;
	for (size_t g = 0; g < n; g++) {
		o[2 * g] = r->group[2 * g];
		o[2 * g + 1] = g;
		sorted &= g == 0 || o[2 * g] >= o[2 * g - 2];
	}
	if (!sorted)
		qsort(o, n, 2 * sizeof *o, by_start);
	return o;
}

/* Sorts n (first, last) pairs: insertion for the few of one group's
 * list; most lists come sorted, and cost one pass then. */
static void sort_pairs(size_t *s, size_t n)
{
	size_t e = 1;
	while (e < n && by_start(s + 2 * e - 2, s + 2 * e) <= 0)
		e++;
	if (e >= n) /* sorted: a tree's lists (thousands a group) come so */
		return;
	if (n > 32) {
		qsort(s, n, 2 * sizeof *s, by_start);
		return;
	}
	for (size_t e = 1; e < n; e++)
		for (size_t f = e; f > 0 && by_start(s + 2 * f - 2, s + 2 * f) > 0;
		     f--) {
			size_t a = s[2 * f], b = s[2 * f + 1];
			s[2 * f] = s[2 * f - 2];
			s[2 * f + 1] = s[2 * f - 1];
			s[2 * f - 2] = a;
			s[2 * f - 1] = b;
		}
}

/* What the caller gave, checked before anything runs: groups within
 * [0, ni), ranges within [0, nj), offsets in order.  Overlaps are found
 * by plan_make, which sorts. */
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
	return 0;
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

/* The plan's tasks over all of [0, ni): the i-elements of no group
 * (group ng) and each group's, in the plan's order; and its pairs.  Plan
 * group q is the caller's group o[2q + 1], or q where o is NULL. */
static void plan_tasks(Plan *pl, const nbrt_ranges *r, const size_t *o,
                       size_t ni, size_t width)
{
	size_t ng = r->ngroups, cur = 0;
	for (size_t q = 0; q < ng; q++) {
		size_t g = o ? o[2 * q + 1] : q;
		size_t a = r->group[2 * g], b = r->group[2 * g + 1];
		if (a == b)
			continue;
		add_tasks(pl, cur, a, ng, width);
		add_tasks(pl, a, b, q, width);
		cur = b;
		pl->pairs += (double)(b - a) * (double)pl->glen[q];
	}
	add_tasks(pl, cur, ni, ng, width);
}

/* A plan over lists already in its form (NBRT_RANGES_PLANNED): the
 * caller's offsets and ranges as they are, only the groups' lengths (in
 * parallel) and the tasks made, in buffers the kernel keeps (a cell
 * list's or a treecode's plan comes every step, at its size). */
static int plan_planned(nbrt_kernel *k, size_t ni, const nbrt_ranges *r,
                        size_t width, Plan *pl)
{
	size_t ng = r->ngroups, ntask = ni / width + 2 * ng + 2;
	memset(pl, 0, sizeof *pl);
	pl->w = &k->planwork;
	pl->task = nbrt_work_take(pl->w, 0, 3 * ntask * sizeof(size_t));
	pl->glen = nbrt_work_take(pl->w, 1, (ng + 1) * sizeof(size_t));
	if (!pl->task || !pl->glen) {
		plan_free(pl);
		return nbrt_fail(k->rt, "out of memory for the plan of %zu groups",
		                 ng);
	}
	/* by the ranges too: a treecode's far plan at N = 65536 is 207
	 * groups of 53k ranges, summed on one thread in the far run's host
	 * time (0.09 ms of plan on an H100's host, its kernel waiting) */
	long long g;
#pragma omp parallel for schedule(static) \
	if (ng >= PAR || (ng >= 16 && r->offset[ng] >= 16384))
	for (g = 0; g < (long long)ng; g++) {
		size_t c = 0;
		for (size_t e = r->offset[g]; e < r->offset[g + 1]; e++)
			c += r->range[2 * e + 1] - r->range[2 * e];
		pl->glen[g] = c;
	}
	pl->glen[ng] = 0; /* the i of no group */
	plan_tasks(pl, r, NULL, ni, width);
	pl->p.ngroups = ng;
	pl->p.task = pl->task;
	pl->p.offset = r->offset;
	pl->p.range = r->range;
	pl->p.glen = pl->glen;
	return 0;
}

/* The back end's plan: groups in order of their first i, each group's
 * ranges sorted, empty ones dropped and neighbours joined, tasks over
 * all of [0, ni).  The memory is checked before it is taken.  Where
 * `checked`, overlapping groups and ranges are refused, naming the
 * first pair. */
static int plan_make(nbrt_kernel *k, size_t ni, const nbrt_ranges *r,
                     size_t width, int checked, Plan *pl)
{
	nbrt *rt = k->rt;
	const char *kn = k->f->kernel;
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
		                 kn, ng, nr, b);
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
	size_t at = 0, end = 0, last = 0;
	for (size_t q = 0; q < ng; q++) {
		size_t g = o[2 * q + 1], n = r->offset[g + 1] - r->offset[g];
		size_t a = r->group[2 * g], b = r->group[2 * g + 1];
		if (checked && a < b && a < end) {
			nbrt_fail(rt, "kernel %s: ranges: groups %zu [%zu, %zu) and "
			          "%zu [%zu, %zu) overlap; an i may be in one group "
			          "only", kn, last, r->group[2 * last],
			          r->group[2 * last + 1], g, a, b);
			goto bad;
		}
		if (a < b) {
			end = b;
			last = g;
		}
		size_t *s = pl->range + 2 * at;
		memcpy(s, r->range + 2 * r->offset[g], 2 * n * sizeof *s);
		sort_pairs(s, n);
		size_t m = 0;
		for (size_t e = 0; e < n; e++) {
			if (s[2 * e] == s[2 * e + 1])
				continue;
			if (checked && m && s[2 * e] < s[2 * m - 1]) {
				nbrt_fail(rt, "kernel %s: ranges: group %zu has the "
				          "overlapping j-ranges [%zu, %zu) and [%zu, %zu); "
				          "a pair may be listed once only", kn, g,
				          s[2 * m - 2], s[2 * m - 1], s[2 * e],
				          s[2 * e + 1]);
				goto bad;
			}
			pl->glen[q] += s[2 * e + 1] - s[2 * e];
			if (m && s[2 * m - 1] == s[2 * e])
				s[2 * m - 1] = s[2 * e + 1];
			else {
				s[2 * m] = s[2 * e];
				s[2 * m + 1] = s[2 * e + 1];
				m++;
			}
		}
		pl->offset[q] = at;
		at += m;
	}
	pl->offset[ng] = pl->offset[ng + 1] = at;
	plan_tasks(pl, r, o, ni, width);
	free(o);
	pl->p.ngroups = ng;
	pl->p.task = pl->task;
	pl->p.offset = pl->offset;
	pl->p.range = pl->range;
	pl->p.glen = pl->glen;
	return 0;
bad:
	free(o);
	plan_free(pl);
	return -1;
}

/* The launch shape of an OpenCL device's ranges variant.  Small groups (a cell of
 * a cutoff holds tens of elements) and short ranges leave a work group
 * of 128 with its NI = 4 and its tiles mostly idle, behind two barriers
 * a range: on an H100, Lennard-Jones over cells of 12 (N = 2^20, float)
 * ran in 1.87 ms so, and in 0.58 ms with one i-element a work item,
 * j read through the cache (no tiles), work groups of 32 and a j-split
 * of 2 (docs/neighbours.md).  Larger groups keep the dense defaults. */
typedef struct Shape {
	int small;  /* the small-group shape; 2: its tasks of one i-element
	             * packed several a work group (nbrt_ranges_variant) */
	int l;      /* log2 of the j-split */
	int bad;    /* a bad NBRT_RANGES_SPLIT_MAX (the message set) */
	int tmax;   /* the small shape's largest split */
} Shape;

/* The i-elements of the groups with a non-empty range, and those
 * groups, straight from the caller's lists: the shape is chosen before
 * the plan is made, which is then cut once for its work group. */
static void busy_groups(const nbrt_ranges *r, size_t *cover, size_t *busy)
{
	size_t c = 0, n = 0;
	for (size_t g = 0; g < r->ngroups; g++) {
		size_t a = r->group[2 * g], b = r->group[2 * g + 1];
		if (a >= b)
			continue;
		for (size_t e = r->offset[g]; e < r->offset[g + 1]; e++)
			if (r->range[2 * e] < r->range[2 * e + 1]) {
				c += b - a;
				n++;
				break;
			}
	}
	*cover = c;
	*busy = n;
}

/* The shape where the j-split is the runtime's to choose (the dense
 * runs' rule, k->splitfree: NBRT_AUTO_SPLIT=0 keeps the kernel as
 * loaded).  Small groups take the small shape on an OpenCL CPU (PoCL)
 * too, whose dense runs keep their split: there a work group of 128
 * items of 16 i-elements each ran a cell of 12 elements, 99% of it idle
 * (Lennard-Jones at N = 8192: 12.5 s, 8 ms in the small shape); larger
 * groups take a split only where the dense runs would (autosplit). */
static Shape ranges_shape(const nbrt_kernel *k, size_t cover, size_t busy,
                          int pack)
{
	Shape sh = {0, 0, 0, 16};
	unsigned given = k->opts.given;
	/* the small shape's largest split: 16 (two i-elements a work group
	 * of 32); 8 for tasks of one i-element packed on a GPU (four a work
	 * group: the device's cells of a third of the cutoff, Lennard-Jones
	 * 2^20 on an H100, kernel 0.77 ms against 0.91, clustered 1.98
	 * against 2.31, bench/results/2026-11-27-neighbours-nvidia-h100-
	 * 80gb-hbm3-cmid-s9-split3{,t8}.txt); NBRT_RANGES_SPLIT_MAX (1 to 32,
	 * for measurements) sets another */
	long tmax = pack && k->rt->gpu ? 8 : 16;
	if (nbrt_env_int(k->rt, "NBRT_RANGES_SPLIT_MAX", 1, 32, &tmax) < 0) {
		sh.bad = 1;
		return sh;
	}
	sh.tmax = (int)tmax;
	if (!k->splitfree)
		return sh;
	if (!busy)
		return sh;
	size_t avg = cover / busy;
	sh.small = avg < 64 &&
	           !(given & (NB_GIVEN_UNROLL_I | NB_GIVEN_TILE | NB_GIVEN_WG));
	if (!k->autosplit && !sh.small)
		return sh;
	size_t ni = sh.small ? 1 : (size_t)k->f->unroll_i;
	size_t wg = sh.small ? 32 : (size_t)k->f->wg;
	/* T work items share an i-group of NI elements: a group of avg
	 * i-elements keeps T * avg / NI of them busy */
	size_t items = (avg + ni - 1) / ni;
	while ((sh.small ? (2L << sh.l) <= tmax : sh.l < 4) &&
	       (size_t)(2 << sh.l) * items <= wg)
		sh.l++;
	/* and, where the groups are too few to give every compute unit
	 * four work groups, at least the dense runs' split for as many
	 * i-elements: a treecode's 207 groups at N = 65536 on an H100 (132
	 * units; split 1, a work group of 64 items a group) ran its near
	 * kernel in 0.736 ms, 0.274 with a split of 4 (the dense rule's
	 * least there), the far kernel 0.499 and 0.425
	 * (bench/results/2026-11-27-tree-nvidia-h100-s11mid-jsplit.txt);
	 * with 1503 and 5842 groups (2^20, 2^22) that split cost the far
	 * kernel 14-18% and saved the near kernel less
	 * (bench/results/2026-11-28-tree-nvidia-h100-s11final-large.txt) */
	size_t units = k->rt->units ? (size_t)k->rt->units : 1;
	int dense = sh.small || busy >= 4 * units ? 0 :
	            nbrt_choose_split(k, cover);
	sh.l = dense > sh.l ? dense : sh.l;
	return sh;
}

/* The kernel that runs the plan: k itself when it carries the ranges
 * entry or its back end needs none, else k's .nbl compiled with it. */
static nbrt_kernel *ranges_kernel(nbrt_kernel *k, Shape sh)
{
	nbrt *rt = k->rt;
	if (sh.bad)
		return NULL;
	if (!rt->be->rentry || (k->f->ranges && !k->src))
		return k;
	if (!k->src) {
		nbrt_fail(rt, "%s was generated without the entry of block-sparse "
		          "runs: compile it with nbcc --ranges, or load its .nbl",
		          k->name);
		return NULL;
	}
	if (k->ranges[sh.small][sh.l])
		return k->ranges[sh.small][sh.l];
	nb_options o = k->opts;
	o.ranges = 1;
	o.given |= NB_GIVEN_RANGES;
	if (k->autosplit || sh.small) {
		o.jsplit = 1 << sh.l;
		o.given |= NB_GIVEN_JSPLIT;
	}
	if (sh.small) {
		o.unroll_i = 1;
		o.tile = -1;
		o.wg = 32;
		o.given |= NB_GIVEN_UNROLL_I | NB_GIVEN_TILE | NB_GIVEN_WG;
	}
	o.rtasks = sh.small == 2 ? 32 >> sh.l : 0;
	nbrt_kernel *a = nbrt_core_load(rt, k->path, k->src, k->srclen, &o);
	if (a && !a->f->ranges) {
		nbrt_core_free(a);
		nbrt_fail(rt, "%s: the %s back end writes no entry of block-sparse "
		          "runs", k->name, rt->be->target);
		return NULL;
	}
	if (a)
		nbrt_note(rt, "%s: block-sparse runs with j-split %d, tasks of "
		          "%zu i-elements%s%s", k->name, a->f->jsplit,
		          sh.small == 2 ? 1 : nbrt_unit_items(a->f), sh.small ?
		          ", one i-element a work item, no tiles, work groups of "
		          "32 (small groups)" : "", sh.small == 2 ? ", several "
		          "tasks a work group" : "");
	return k->ranges[sh.small][sh.l] = a;
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
			if (pl->p.offset[g + 1] - pl->p.offset[g] > 1)
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

int nbrt_run_ranges_ex(nbrt_kernel *k, size_t ni, size_t nj,
                       const nbrt_ranges *r, const size_t *imap,
                       const size_t *jmap, int accum, int checked)
{
	if (!k)
		return -1;
	/* tree.c's chain, for this run only */
	int keep = k->rkeep;
	const nbrt_kernel *from = k->rfrom;
	k->rkeep = 0;
	k->rfrom = NULL;
	if (checked == NBRT_RANGES_CHECKED && check(k, ni, nj, r))
		return -1;
	nbrt *rt = k->rt;
	for (int v = 0; accum && v < k->f->nvar; v++) {
		nb_red red = k->f->var[v].red;
		if (k->f->var[v].role == NB_RMEM &&
		    (red == NB_ARGMIN || red == NB_ARGMAX))
			return nbrt_fail(rt, "kernel %s: %s '%s' cannot add into the "
			                 "results of an earlier run (an index does "
			                 "not resume)", k->f->kernel, nb_red_name(red),
			                 k->f->var[v].name);
	}
	k->last = NULL;
	k->origin = "defaults";
	k->pairs = 0;
	Plan pl;
	nbrt_ranges none = {0, NULL, NULL, NULL};
	if (!r)
		r = &none;
	size_t cover, busy;
	busy_groups(r, &cover, &busy);
	nbrt_kernel *a = ranges_kernel(k, ranges_shape(k, cover, busy, 0));
	if (!a)
		return -1;
	double t0 = nbrt_now();
	/* the width of a task: one unit of the running kernel's work, as a
	 * dense launch's; one task a group where each range is a launch */
	size_t width = !rt->be->rentry ? (ni ? ni : 1) : nbrt_unit_items(a->f);
	if (checked == NBRT_RANGES_PLANNED ? plan_planned(k, ni, r, width, &pl) :
	    plan_make(k, ni, r, width, checked, &pl))
		return -1;
	k->tplan = nbrt_now() - t0;
	int res = -1;
	if (!rt->be->rentry && dense_limits(k, &pl, imap || jmap))
		goto out;
	/* the maps only where the source reads the index: a GPU would read
	 * them in, as ints, for nothing */
	pl.p.imap = a->f->indices & 1 ? imap : NULL;
	pl.p.jmap = a->f->indices & 2 ? jmap : NULL;
	pl.p.accum = accum;
	pl.p.keep = keep;
	pl.p.from = accum ? from : NULL;
	if (nbrt_core_run_ranges(k, a, ni, nj, &pl.p))
		goto out;
	k->pairs = pl.pairs;
	res = 0;
out:
	plan_free(&pl);
	return res;
}

nbrt_kernel *nbrt_ranges_variant(nbrt_kernel *k, size_t cover, size_t busy,
                                 int pack)
{
	k->last = NULL;
	k->origin = "defaults";
	k->pairs = 0;
	Shape sh = ranges_shape(k, cover, busy, pack);
	/* packed: the shape's T work items an i-element, 32 / T tasks of one
	 * i-element a work group of 32 */
	if (pack && sh.small && !sh.bad)
		sh.small = 2;
	return ranges_kernel(k, sh);
}

int nbrt_run_ranges(nbrt_kernel *k, size_t ni, size_t nj,
                    const nbrt_ranges *r)
{
	return nbrt_run_ranges_ex(k, ni, nj, r, NULL, NULL, 0, 1);
}

int nbrt_run_ranges_mapped(nbrt_kernel *k, size_t ni, size_t nj,
                           const nbrt_ranges *r, const size_t *imap,
                           const size_t *jmap)
{
	return nbrt_run_ranges_ex(k, ni, nj, r, imap, jmap, 0, 0);
}

double nbrt_pairs(const nbrt_kernel *k)
{
	return k ? k->pairs : 0;
}
