/* launch.c: the launch plan, shared by the back ends: how many
 * interactions one launch may do, the j-split that fills a GPU, and the
 * cutting of a run into launches within those limits. */
#include <limits.h>
#include <stdlib.h>
#include "nbrt_impl.h"

int nbrt_max_interactions(nbrt *rt, size_t *max)
{
	/* a GPU does 2^36 in a fraction of a second; a CPU takes some
	 * seconds for 2^33, which is as often as progress can be shown */
	long v = 0;
	*max = (size_t)1 << (rt->gpu ? 36 : 33);
	int r = nbrt_env_int(rt, "NBRT_MAX_INTERACTIONS", 1, LONG_MAX, &v);
	if (r > 0)
		*max = (size_t)v;
	return r < 0 ? -1 : 0;
}

int nbrt_each_launch(nbrt_kernel *k, size_t ni, size_t nj, size_t imax,
                     size_t fill, nbrt_launch_fn fn, void *ctx)
{
	size_t max = k->maxint, u = (size_t)k->f->unroll_i, ic, jc;
	/* a j index (argmin=) cannot be resumed from its stored value: such
	 * a kernel's launches take the whole j range, fewer i if need be */
	int whole_j = 0;
	for (int v = 0; v < k->f->nvar; v++)
		whole_j |= k->f->var[v].role == NB_RMEM &&
		           !nb_red_resumes(k->f->var[v].red);
	if (nj == 0) {
		ic = ni;
		jc = 0;
	} else {
		/* i-chunks that take the whole j range... */
		ic = max / nj;
		ic -= ic % u;
		jc = nj;
		size_t wide = ni < fill ? ni : fill;
		if (ic < wide && !whole_j) {
			/* ...unless that leaves the device half idle (a GPU ran
			 * 2^20 x 2^20 gravity 3 times slower in 16 launches of
			 * 2^16 i than in one): then wide i-chunks, the j range
			 * split, still no launch over max */
			ic = wide < max ? wide : max;
			if (ic > imax)
				ic = imax; /* before jc, which depends on it */
			if (ic < ni) {
				ic -= ic % u;
				if (ic < u)
					ic = u;
			}
			jc = max / ic ? max / ic : 1;
			if (jc > nj)
				jc = nj;
		}
	}
	if (ic > imax)
		ic = imax - imax % u;
	if (ic > ni)
		ic = ni;
	if (ic == 0) /* never stall, whatever the limits */
		ic = u < ni ? u : ni;
	double total = (double)ni * (double)nj, done = 0;
	for (size_t ib = 0; ib < ni; ib += ic) {
		size_t n = ni - ib < ic ? ni - ib : ic;
		if (nj == 0) {
			if (fn(k, ib, n, 0, 0, 0, ctx))
				return -1;
			continue;
		}
		for (size_t jb = 0; jb < nj; jb += jc) {
			size_t m = nj - jb < jc ? nj - jb : jc;
			if (fn(k, ib, n, jb, m, jb > 0, ctx))
				return -1;
			done += (double)n * (double)m;
			nbrt_progress(k, done, total);
		}
	}
	return 0;
}

/* The j-split for a run of ni i-elements: the smallest power of two (at
 * most 16, at least the row's split_min) that gives each compute unit the
 * i-elements times split its row of the defaults table asks for, twice
 * that and at most 32 for a run at half the i-unroll (nbrt_narrow)
 * (compiler/defaults.c: 960 on the H200, 480 work items of 2 i-elements,
 * where fewer leave latency unhidden and more only add the cost of
 * combining).  i-elements, not work items: a work item of 4 i-elements
 * hides as much latency as two of 2 (4 x 4 float gravity at N = 32768
 * ran 1.89e12 with a split of 4, 1.84 with the 8 that 480 work items
 * would give).  A class with no rule of its own, forced by
 * NBRT_AUTO_SPLIT=1, takes the GPU rows'.  Returns log2 of the split,
 * the index into alt[][]. */
static const nb_defaults *split_row(const nbrt_kernel *k)
{
	const struct nbrt_backend *be = k->rt->be;
	const nb_defaults *row = nbrt_row(k->rt, k->f->precision);
	if ((!row || !row->split_items) && be->split_target)
		row = nb_defaults_find(be->split_target, be->split_class,
		                       k->f->precision);
	return row;
}

int nbrt_choose_split(const nbrt_kernel *k, size_t ni)
{
	const nb_defaults *row = split_row(k);
	double groups = (double)ni;
	double want = (double)(row ? row->split_items : 1) *
	              (k->rt->units ? k->rt->units : 1);
	int least = row ? row->split_min : 0, top = 4;
	/* a narrowed run is short of work items: twice the items, up to 32 */
	if (nbrt_narrow(k, ni)) {
		want *= 2;
		top = NBRT_SPLIT_LEVELS - 1;
	}
	int l = 0;
	while (l < top && (groups * (1 << l) < want || (1 << l) < least))
		l++;
	return l;
}

/* Whether a run of ni i-elements takes half the kernel's i-unroll: where
 * even a split of 16 falls short of twice the row's i-elements times
 * split, the device is short of work items, and more of them, of fewer
 * i-elements each, do better (H200, N = 4096: 4 x 4 float gravity
 * 0.83e12, 2 x 4 0.89; the Gaussian gradient 0.51 and 0.74; H100, N =
 * 8192: 4 x 4 split 16 1.11e12, 2 x 4 split 32 1.39e12, best of 3).  Only under a row with a
 * register budget, whose i-unroll is its widest, for a kernel at that
 * i-unroll or more (one the budget halved is narrow already), and where
 * the user left the i-unroll open (the split's row: the GPU's where
 * NBRT_AUTO_SPLIT=1 forces its rule on a class without one). */
int nbrt_narrow(const nbrt_kernel *k, size_t ni)
{
	const nb_defaults *row = split_row(k);
	if (!row || !row->regs || !row->split_items || k->f->unroll_i < 2 ||
	    k->f->unroll_i < row->unroll_i ||
	    (k->opts.given & NB_GIVEN_UNROLL_I))
		return 0;
	return (double)ni * 16 <
	       2 * (double)row->split_items * (k->rt->units ? k->rt->units : 1);
}

/* Whether a run takes the row's shape across warps (nb_defaults.
 * wave_split): where the run's i-elements, 32 a group of 32 x wave_split
 * work items, make one wave of groups, at most one a compute unit and
 * more than two thirds of the units busy, each group sums its split in
 * local memory and none waits for a second wave; the narrowed shape
 * writes its split's partial sums to memory for a second pass, which
 * costs a kernel of several results or of a reduction beyond the sum
 * more than one of a single sum.  H200, float, queued: the 11 of 14
 * kernels not of a single sum 0.98 to 1.20 times as fast from Ni = 3072
 * to 4224, every kernel 0.74 to 0.90 times at 4352 (two waves), the
 * single sums 0.92 to 0.98 (and Plummer's potential, the fastest, up to
 * 1.22); at Ni = 4096, faster up to Nj = 16384, mixed at 65536
 * (docs/performance.md, "One wave across warps").  Only where the user
 * left the shape open. */
const nb_defaults *nbrt_wave(const nbrt_kernel *k, size_t ni, size_t nj)
{
	const nb_defaults *row = split_row(k);
	const unsigned shape = NB_GIVEN_UNROLL_I | NB_GIVEN_UNROLL_J |
	                       NB_GIVEN_WG | NB_GIVEN_TILE | NB_GIVEN_SPLIT_WARPS;
	if (!row || row->wave_split < 2 || !k->rt->units ||
	    (k->opts.given & shape) || ni == 0 || nj == 0 ||
	    nj > 4 * (double)ni)
		return NULL;
	int nres = 0, sums = 1;
	for (int v = 0; v < k->f->nvar; v++)
		if (k->f->var[v].role == NB_RMEM) {
			nres++;
			sums &= k->f->var[v].red == NB_SUM ||
			        k->f->var[v].red == NB_COUNT;
		}
	if (nres == 1 && sums)
		return NULL;
	double groups = (double)((ni + NBRT_WARP - 1) / NBRT_WARP);
	double units = k->rt->units;
	return groups <= units && 3 * groups > 2 * units ? row : NULL;
}

/* Slices cut a launch's j range among more, shorter work groups: the
 * device idles at the end of a launch for about one work group's time,
 * 2 to 4% of a launch of float gravity on an H200 (docs/performance.md).
 * Adding the slices up costs a launch of the runtime's own kernel per
 * result, which a launch of fewer than 2^22 interactions per compute
 * unit does not win back when its groups fill the device (N = 16384 lost
 * 6%; 32768 gained 3.5%).  A launch of few i-elements against many j
 * (Hermite's active blocks) has too few groups to fill the device at
 * all: from 2^18 interactions a unit with fewer than 2 groups a unit
 * (from 2^16 with fewer than half a group), slices bring it to about 8
 * groups a unit (H200, double hermite.nbl, Ni = 1024 against Nj = 65536:
 * 0.92e11 interactions/s unsliced, 2.68e11 in 32 slices, 3.9e11 at
 * large N; Ni = 256: 0.23e11 and 1.78e11).  Each slice keeps a tile at
 * least, and the sums one buffer. */
/* Work groups a compute unit below which a launch is short of groups:
 * the slices rule adds slices there, and the own rule has the kernel add
 * them up. */
#define FEW_GROUPS 2.0

size_t nbrt_slices_rule(int slices, unsigned units, size_t n, size_t m,
                        size_t groups, size_t tile)
{
	double u = units, work = (double)n * (double)m;
	size_t ns = 1;
	if (work >= 4194304.0 * u)
		ns = (size_t)slices;
	if ((work >= 262144.0 * u && (double)groups < FEW_GROUPS * u) ||
	    (work >= 65536.0 * u && (double)groups < u / 2))
		while (ns < NBRT_MAX_SLICES && (double)groups * (double)ns < 8 * u)
			ns *= 2;
	while (ns > 1 && m / ns < tile)
		ns /= 2;
	return ns;
}

/* Who adds a sliced launch's sums up: the kernel itself, built a second
 * time with NB_OWN beside the plain one (runtime/cl/program.c: its last
 * work item of an index adds them in the order of the slices, the same
 * bits as the runtime's kernels), or the runtime's kernels, a launch of
 * them per result after the launch.  The own sums won on every launch
 * sliced for want of work groups (fewer than 2 a unit, nbrt_slices_rule)
 * and lost where the groups fill the device and the row's slices only
 * shorten its tail (H100, 2026-11-27 20:42 UTC, double hermite.nbl
 * against NBRT_OWN_SLICES=0, 1e11 interactions/s: Ni = 256, 512, 1024,
 * 2048, 4096 x 65536 1.64 -> 1.90, 2.17 -> 2.38, 2.68 -> 2.84, 2.99 ->
 * 3.09, 3.15 -> 3.22; 256, 1024, 4096 x 1048576 3.02 -> 3.07, 3.27 ->
 * 3.29, 3.36 -> 3.37; float gravity at N = 131072, 2048 groups, 2.039e12
 * -> 2.021e12 with its loop's one instruction more).  So: the own sums
 * for a sliced launch of fewer than 2 work groups a unit. */
int nbrt_own_rule(unsigned units, size_t groups, int ns)
{
	return ns > 1 && (double)groups < FEW_GROUPS * units;
}

int nbrt_choose_slices(nbrt_kernel *k, size_t n, size_t m, size_t groups)
{
	const nb_iface *f = k->f;
	nbrt *rt = k->rt;
	if (!f->slices || m == 0)
		return 1;
	long asked = 0;
	int forced = nbrt_env_int(rt, "NBRT_SLICES", 1, NBRT_MAX_SLICES, &asked);
	size_t ns = (size_t)asked;
	if (forced < 0)
		return -1;
	if (!forced) {
		const nb_defaults *row = nbrt_row(k->rt, k->f->precision);
		if (!row || row->slices < 2)
			return 1;
		ns = nbrt_slices_rule(row->slices, rt->units ? rt->units : 1, n,
		                      m, groups, (size_t)(f->tile > 0 ? f->tile : 1));
	}
	size_t most = 1; /* bytes of one i-element's result */
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			size_t b = nbrt_prec_size(f->var[v].type);
			most = b > most ? b : most;
		}
	while (ns > 1 && (ns > m || ns * n * most > rt->maxalloc))
		ns--;
	return (int)ns;
}
