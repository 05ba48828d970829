/* cells.c: the cell lists of nbrt_run_cutoff (cutoff.c), with no kernel
 * and no device: i and j sorted along a Morton curve of cells a fraction
 * 1/split of the cutoff wide, images of the j-elements near periodic
 * faces, i-groups of at most `group` sorted elements within one block of
 * split^dim cells, and each group's j-ranges: the occupied j-cells whose
 * elements' bounding box comes within the cutoff of the group's, adjacent
 * ones merged, as an nbrt_ranges.  No grid is allocated: cells are runs
 * of equal keys, found through a hash of the occupied ones, so the memory
 * is O(Ni + Nj) whatever the box (docs/neighbours.md). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"
#include "order.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* The lists hold every pair within the cutoff times this factor, so that
 * none a kernel may find within the cutoff is left out: not through
 * rounding in x / width (2^-51 relative on indices below 2^31), nor
 * through a float kernel's (2^-24 of a distance, or of a periodic image's
 * coordinate in a box up to 2^13 cutoffs wide).  It costs 0.3% more
 * pairs in 3-D, and a cell of each periodic axis whose period is an exact
 * multiple of the cutoff. */
#define MARGIN (1 + 0x1p-10)

/* The defaults of nbrt_cutoff.split and .group here (cutoff.c asks for
 * cells of one cutoff on a CPU; docs/neighbours.md: pairs computed a
 * needed pair by split and group) */
#define SPLIT 2
#define GROUP 8

/* Bits of a cell coordinate in the key, by dim: 21 a coordinate in 3-D
 * (63 bits), 31 in 1-D and 2-D (indices below 2^31 keep the rounding
 * argument above).  A coordinate is the cell plus the axis's offset
 * (2 split on a periodic axis, 0 on an open one): the image layers below
 * a periodic axis come first, those above after its n cells. */
static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The shortest decimal that reads back as x, for messages comparing
 * values that differ in their last digits. */
static const char *num(char buf[32], double x)
{
	if (isnan(x))
		return "nan"; /* whatever its sign bit */
	for (int p = 6; p <= 17; p++) {
		snprintf(buf, 32, "%.*g", p, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return buf;
}

static const char *colname(const char *const name[3], int d, const char *side,
                           char buf[32])
{
	if (name[d])
		return name[d];
	snprintf(buf, 32, "%spos[%d]", side, d);
	return buf;
}

/* Element e of position column d, as a double. */
static double at(const nbrt_pos *x, int d, size_t e)
{
	return x->isfloat[d] ? ((const float *)x->p[d])[e]
	                     : ((const double *)x->p[d])[e];
}

int nbrt_cells_check(const nbrt_cutoff *c, char *err, size_t len)
{
	char a[32], b[32], h[32];
	if (!(isfinite(c->cutoff) && c->cutoff > 0))
		return fail(err, len, "cutoff %s: must be finite and > 0",
		            num(a, c->cutoff));
	if (c->cutoff < DBL_MIN)
		return fail(err, len, "cutoff %s: must be at least %s (the least "
		            "normal double)", num(a, c->cutoff), num(b, DBL_MIN));
	if (c->dim < 1 || c->dim > 3)
		return fail(err, len, "dim %d: must be 1, 2 or 3", c->dim);
	/* a negative one was taken as 0, the defaults, without a word */
	if (c->split < 0 || c->group < 0)
		return fail(err, len, "split %d, group %d: each must be 0 (the "
		            "defaults) or positive", c->split, c->group);
	for (int d = 0; d < c->dim; d++) {
		double L = c->period[d];
		if (!(isfinite(L) && L >= 0))
			return fail(err, len, "period[%d] = %s: must be finite and "
			            ">= 0 (0: an open axis)", d, num(a, L));
		if (L > 0 && c->cutoff > L / 2)
			return fail(err, len, "cutoff %s is larger than half the "
			            "period %s of axis %d: at most %s is allowed",
			            num(a, c->cutoff), num(b, L), d, num(h, L / 2));
	}
	return 0;
}

/* Positions finite, and inside [0, L) on periodic axes; the bounding box
 * of both sides on open ones.  One parallel pass a column finds whether
 * any is bad; only then a serial one names the first. */
static int check_positions(const nbrt_cutoff *c, const nbrt_pos *pos,
                           size_t n, const char *side, double lo[3],
                           double hi[3], char *err, size_t len)
{
	const char *const *name = side[0] == 'i' ? c->ipos : c->jpos;
	char a[32], b[32], nb[32];
	for (int d = 0; d < c->dim; d++) {
		double L = c->period[d], mn = lo[d], mx = hi[d];
		int bad = 0;
#pragma omp parallel for if (n >= 65536) schedule(static) \
	reduction(min : mn) reduction(max : mx) reduction(| : bad)
		for (size_t e = 0; e < n; e++) {
			double x = at(pos, d, e);
			bad |= !isfinite(x) || (L > 0 && !(x >= 0 && x < L));
			mn = x < mn ? x : mn;
			mx = x > mx ? x : mx;
		}
		for (size_t e = 0; bad && e < n; e++) {
			double x = at(pos, d, e);
			if (!isfinite(x))
				return fail(err, len, "%s[%zu] = %s: positions must be "
				            "finite", colname(name, d, side, nb), e,
				            num(a, x));
			if (L > 0 && !(x >= 0 && x < L))
				return fail(err, len, "%s[%zu] = %s lies outside the "
				            "periodic box [0, %s) of axis %d",
				            colname(name, d, side, nb), e, num(a, x),
				            num(b, L), d);
		}
		lo[d] = mn;
		hi[d] = mx;
	}
	return 0;
}

/* One axis of the cells: index floor((x * scale - org) / w), clamped to
 * [0, n); coordinates in keys are off higher; on a periodic axis the
 * elements of the first `reach` cells and of the last have images. */
typedef struct Axis {
	double org, w, scale;
	long long n, off, reach;
	int periodic;
} Axis;

static void axes_make(const nbrt_cutoff *c, int split, const double lo[3],
                      const double hi[3], Axis ax[3])
{
	long long maxn = (1LL << nbrt_order_bits(c->dim)) - 4 * split;
	for (int d = 0; d < c->dim; d++) {
		Axis *a = &ax[d];
		double L = c->period[d], rc = c->cutoff * MARGIN;
		a->periodic = L > 0;
		a->scale = 1;
		a->org = 0;
		a->off = 0;
		a->reach = 0;
		if (a->periodic) {
			/* n cells of L / n, at least rc / split wide; the images of
			 * the elements within rc of a face (reach cells, at most
			 * split + 1 with rounding) fit in 2 split layers */
			double n = floor(L * split / rc);
			a->n = n < 1 ? 1 : n > (double)maxn ? maxn : (long long)n;
			a->w = L / (double)a->n;
			a->off = 2 * split;
			double r = ceil(rc / a->w * (1 + 0x1p-40));
			a->reach = r < 1 ? 1 : r > (double)a->n ? a->n : (long long)r;
			continue;
		}
		/* a span beyond DBL_MAX is measured at half scale (exact for
		 * all but subnormals, whose cells it cannot change) */
		double span = hi[d] - lo[d];
		if (!isfinite(span)) {
			a->scale = 0.5;
			span = hi[d] * 0.5 - lo[d] * 0.5;
			rc *= 0.5;
		}
		a->org = lo[d] * a->scale;
		/* larger cells where the key has too few bits for these */
		a->w = fmax(rc / split, span / (double)(maxn - 1));
		double n = floor(span / a->w) + 1;
		a->n = n > (double)maxn ? maxn : n < 1 ? 1 : (long long)n;
	}
}

int nbrt_cells_grid(const nbrt_cutoff *c, int split, const double lo[3],
                    const double hi[3], double org[3], double w[3],
                    long long n[3])
{
	Axis ax[3];
	axes_make(c, split, lo, hi, ax);
	for (int d = 0; d < c->dim; d++) {
		if (ax[d].scale != 1 || ax[d].periodic)
			return -1;
		org[d] = ax[d].org;
		w[d] = ax[d].w;
		n[d] = ax[d].n;
	}
	return 0;
}

static long long cell_of(const Axis *a, double x)
{
	double t = floor((x * a->scale - a->org) / a->w);
	return t < 0 ? 0 : t >= (double)a->n ? a->n - 1 : (long long)t;
}

/* An element to sort (order.h): its cell's key, and the caller's index
 * shifted left CODE_BITS with, for a j-image, its shift in periods, one
 * base-3 digit an axis (13: none in 3-D). */
#define CODE_BITS 5

/* The key of element e's cell, shifted by sh[d] periods (the image
 * layers). */
static uint64_t key_of(const Axis ax[3], int dim, const nbrt_pos *pos,
                       size_t e, const int sh[3])
{
	uint64_t u[3] = {0, 0, 0};
	for (int d = 0; d < dim; d++)
		u[d] = (uint64_t)(cell_of(&ax[d], at(pos, d, e)) + ax[d].off +
		                  sh[d] * ax[d].n);
	return nbrt_order_morton(u, dim);
}

/* The shifts of j-element e's images, per axis: +1 from the first reach
 * layers of a periodic axis, -1 from its last (both when it has few
 * cells). */
static int shifts(const Axis ax[3], int dim, const nbrt_pos *pos,
                  size_t e, int opt[3][3], int nopt[3])
{
	int images = 1;
	for (int d = 0; d < dim; d++) {
		nopt[d] = 1;
		opt[d][0] = 0;
		if (ax[d].periodic) {
			long long c = cell_of(&ax[d], at(pos, d, e));
			if (c < ax[d].reach)
				opt[d][nopt[d]++] = 1;
			if (c >= ax[d].n - ax[d].reach)
				opt[d][nopt[d]++] = -1;
		}
		images *= nopt[d];
	}
	return images - 1;
}

/* The occupied j-cells: their keys, sorted, where each one's run of
 * sorted j starts (start[n] = the end of the last), and the box of each
 * one's elements. */
typedef struct Cells {
	size_t n;
	uint64_t *key;
	size_t *start;
	double *box; /* lo, hi an axis */
	/* the occupied blocks of split^dim cells (level K): their keys
	 * (a cell's >> dim K), first cells (bstart[nb] = n), and a hash of
	 * them (open addressing, slot: block + 1, 0 empty), so that a
	 * neighbour is found in about one probe rather than a binary
	 * search's twenty */
	size_t nb;
	uint64_t *bkey;
	size_t *bstart, *slot;
	int bits; /* 2^bits slots, at least 2 nb */
} Cells;

static size_t hash_of(uint64_t key, int bits)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

static void cells_hash(Cells *jc)
{
	size_t mask = ((size_t)1 << jc->bits) - 1;
	for (size_t c = 0; c < jc->nb; c++) {
		size_t h = hash_of(jc->bkey[c], jc->bits);
		while (jc->slot[h])
			h = (h + 1) & mask;
		jc->slot[h] = c + 1;
	}
}

/* The index of the block of key k, or jc->nb for none. */
static size_t cells_find(const Cells *jc, uint64_t k)
{
	size_t mask = ((size_t)1 << jc->bits) - 1;
	for (size_t h = hash_of(k, jc->bits); jc->slot[h]; h = (h + 1) & mask)
		if (jc->bkey[jc->slot[h] - 1] == k)
			return jc->slot[h] - 1;
	return jc->nb;
}

/* The bounding box of sorted elements [a, b) (lo, hi an axis; their
 * caller's indices src, j-images shifted as cutoff.c's copies are). */
static void bbox(const nbrt_pos *pos, int dim, const size_t *src,
                 const signed char *shift, const double period[3], size_t a,
                 size_t b, double *box)
{
	for (int d = 0; d < dim; d++) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t e = a; e < b; e++) {
			double x = at(pos, d, src[e]);
			if (shift && shift[3 * e + d])
				x = x + shift[3 * e + d] * period[d];
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
		box[2 * d] = lo;
		box[2 * d + 1] = hi;
	}
}

/* A block's candidates laid out for its groups' tests: each axis's lo
 * and hi of every candidate's box in a row, its run of sorted j, and
 * room for a test's flags and ranges. */
typedef struct Cand {
	size_t *cell, *s, *e, *w, cap;
	double *box;       /* 2 dim rows of cap */
	unsigned char *in;
} Cand;

static void cand_free(Cand *cd)
{
	free(cd->cell);
	free(cd->s);
	free(cd->e);
	free(cd->w);
	free(cd->box);
	free(cd->in);
}

/* Room for n candidates; 0, or -1 out of memory. */
static int cand_room(Cand *cd, size_t n)
{
	if (n <= cd->cap)
		return 0;
	cand_free(cd);
	memset(cd, 0, sizeof *cd);
	cd->cell = malloc(n * sizeof *cd->cell);
	cd->s = malloc(n * sizeof *cd->s);
	cd->e = malloc(n * sizeof *cd->e);
	cd->w = malloc(2 * (n + 1) * sizeof *cd->w);
	cd->box = malloc(6 * n * sizeof *cd->box);
	cd->in = malloc(n);
	if (!cd->cell || !cd->s || !cd->e || !cd->w || !cd->box || !cd->in)
		return -1;
	cd->cap = n;
	return 0;
}

/* The first of the sorted keys k[a..b) that is at least v. */
static size_t lower(const uint64_t *k, size_t a, size_t b, uint64_t v)
{
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (k[m] < v)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Whether the block of level l at corner u may hold an element within
 * sqrt(r2) of the box ib: the extent of its cells, a millionth of a cell
 * wider for the rounding of positions against cells; of one cell (l 0,
 * cell c) the box of its elements. */
static int near(const Cells *jc, const Axis ax[3], int dim,
                const uint64_t u[3], int l, size_t c, const double *ib,
                double r2)
{
	double g2 = 0;
	for (int d = 0; d < dim; d++) {
		const Axis *x = &ax[d];
		double lo, hi;
		if (c != SIZE_MAX) {
			lo = jc->box[2 * dim * c + 2 * d];
			hi = jc->box[2 * dim * c + 2 * d + 1];
		} else {
			double c0 = (double)u[d] - (double)x->off - 1e-6;
			double c1 = c0 + (double)((uint64_t)1 << l) + 2e-6;
			lo = (x->org + c0 * x->w) / x->scale;
			hi = (x->org + c1 * x->w) / x->scale;
		}
		double p = lo - ib[2 * d + 1], q = ib[2 * d] - hi;
		double g = p > q ? p : q;
		g2 += g > 0 ? g * g : 0;
	}
	return g2 < r2;
}

/* The occupied j-cells that may hold an element within rcm of the box ib
 * of an i-block (level K, coordinates bu of its key >> dim K): in the
 * 3^dim blocks of level K around it (at least the cutoff wide), found
 * through the hash, sorted by key; within each, the blocks of the Morton
 * order that come near the box, each with its run of sorted cells (an
 * empty run ends the descent).  They go to cd, in key order; returns
 * their count, or SIZE_MAX out of memory.  prune 0 (cells of one cutoff,
 * split 1): every occupied cell of the 3^dim, the classic lists, which a
 * kernel with no radius mask (paper 004's boxes) may count on. */
static size_t candidates(const Cells *jc, const Axis ax[3], int dim, int K,
                         const uint64_t bu[3], const double *ib, double rcm,
                         int prune, Cand *cd)
{
	size_t nb[27][2], n = 0, want = 0, blk[27];
	uint64_t bk[27];
	uint64_t top = (uint64_t)1 << (nbrt_order_bits(dim) - K);
	/* the neighbours' keys by dilated arithmetic: axis d's bits of the
	 * key (mask), less and plus one there, ORed; no interleaving each */
	uint64_t dil[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
	uint64_t key = nbrt_order_morton(bu, dim);
	for (int d = 0; d < dim; d++) {
		uint64_t mask = dim == 1 ? ~(uint64_t)0 :
		                dim == 2 ? 0x5555555555555555ULL << d :
		                0x1249249249249249ULL << d;
		uint64_t x = key & mask;
		dil[d][0] = (x - ((uint64_t)1 << d)) & mask;
		dil[d][1] = x;
		dil[d][2] = ((x | ~mask) + 1) & mask;
	}
	/* the offsets of each axis that stay within its keys (no key of
	 * another place); one (0) on an axis beyond dim */
	int lo[3] = {1, 1, 1}, hi[3] = {1, 1, 1};
	for (int d = 0; d < dim; d++) {
		lo[d] = bu[d] == 0;
		hi[d] = bu[d] + 1 >= top ? 1 : 2;
	}
	for (int o2 = lo[2]; o2 <= hi[2]; o2++)
	for (int o1 = lo[1]; o1 <= hi[1]; o1++)
	for (int o0 = lo[0]; o0 <= hi[0]; o0++) {
		uint64_t k = dil[0][o0] | dil[1][o1] | dil[2][o2];
		size_t c = cells_find(jc, k);
		if (c == jc->nb)
			continue;
		/* insertion by key, which is by index: blocks are in key order */
		size_t p = n++;
		for (; p > 0 && blk[p - 1] > c; p--)
			blk[p] = blk[p - 1];
		blk[p] = c;
		want += jc->bstart[c + 1] - jc->bstart[c];
	}
	for (size_t q = 0; q < n; q++) {
		bk[q] = jc->bkey[blk[q]];
		nb[q][0] = jc->bstart[blk[q]];
		nb[q][1] = jc->bstart[blk[q] + 1];
	}
	if (cand_room(cd, want ? want : 1))
		return SIZE_MAX;
	/* a stack of blocks: corner, level, run of cells; at most 2^dim - 1
	 * wait a level */
	struct {
		uint64_t u[3];
		size_t a, b;
		int l;
	} st[8 * 9];
	int kids = 1 << dim;
	size_t m = 0;
	double r2 = rcm * rcm;
	for (size_t q = 0; q < n; q++) {
		if (nb[q][1] - nb[q][0] <= (size_t)kids) {
			/* a few cells: each tested by its box, no descent */
			for (size_t c = nb[q][0]; c < nb[q][1]; c++)
				if (!prune || near(jc, ax, dim, st[0].u, 0, c, ib, r2))
					cd->cell[m++] = c;
			continue;
		}
		nbrt_order_unmorton(bk[q] << (dim * K), dim, st[0].u);
		st[0].a = nb[q][0];
		st[0].b = nb[q][1];
		st[0].l = K;
		int sp = near(jc, ax, dim, st[0].u, K, SIZE_MAX, ib, r2);
		while (sp > 0) {
			sp--;
			uint64_t u[3] = {st[sp].u[0], st[sp].u[1], st[sp].u[2]};
			size_t a = st[sp].a, b = st[sp].b;
			int l = st[sp].l;
			if (l == 0) {
				cd->cell[m++] = a; /* one cell: keys are distinct */
				continue;
			}
			/* the children near the box, the last of the key order
			 * first, each with its run, if not empty */
			uint64_t base = nbrt_order_morton(u, dim), step =
			    (uint64_t)1 << (dim * (l - 1));
			for (int ch = kids - 1; ch >= 0; ch--) {
				uint64_t v[3] = {0, 0, 0};
				for (int d = 0; d < dim; d++)
					v[d] = u[d] + ((uint64_t)(ch >> d & 1) << (l - 1));
				if (l > 1 && !near(jc, ax, dim, v, l - 1, SIZE_MAX, ib, r2))
					continue;
				size_t from = lower(jc->key, a, b, base + (uint64_t)ch * step);
				size_t to = ch == kids - 1 ? b :
				            lower(jc->key, from, b,
				                  base + (uint64_t)(ch + 1) * step);
				if (from == to ||
				    (l == 1 && !near(jc, ax, dim, v, 0, from, ib, r2)))
					continue;
				for (int d = 0; d < 3; d++)
					st[sp].u[d] = v[d];
				st[sp].l = l - 1;
				st[sp].a = from;
				st[sp].b = to;
				sp++;
			}
		}
	}
	for (size_t q = 0; q < m; q++) {
		size_t c = cd->cell[q];
		cd->s[q] = jc->start[c];
		cd->e[q] = jc->start[c + 1];
		for (int x = 0; prune && x < 2 * dim; x++)
			cd->box[x * cd->cap + q] = jc->box[2 * dim * c + x];
	}
	return m;
}

/* An i-group's j-ranges: the block's candidates whose box comes within
 * rcm of the group's box gb (all unless prune), adjacent ones merged,
 * without a branch a candidate (the test goes either way about as
 * often: a branch cost more than the test).  Writes them to out unless NULL; returns their
 * count and adds their elements to *js. */
static size_t group_ranges(Cand *cd, size_t nc, int dim, const double *gb,
                           double rcm, int prune, size_t *out, size_t *js)
{
	double r2 = rcm * rcm;
	if (!prune) /* every candidate, whose boxes were not laid out */
		memset(cd->in, 1, nc);
#pragma omp simd
	for (size_t q = 0; q < (prune ? nc : 0); q++) {
		double g2 = 0;
		for (int d = 0; d < dim; d++) {
			double a = cd->box[2 * d * cd->cap + q] - gb[2 * d + 1];
			double b = gb[2 * d] - cd->box[(2 * d + 1) * cd->cap + q];
			double g = a > b ? a : b;
			g2 += g > 0 ? g * g : 0;
		}
		cd->in[q] = g2 < r2;
	}
	/* ranges from w[2]: w[0] and w[1] take the writes of a candidate
	 * left out before the first range */
	size_t m = 0, prev = SIZE_MAX, n = 0, *w = cd->w;
	w[0] = w[1] = 0;
	for (size_t q = 0; q < nc; q++) {
		size_t s = cd->s[q], e = cd->e[q], in = cd->in[q];
		size_t fresh = in & (prev != s);
		m += fresh;
		w[2 * m] = fresh ? s : w[2 * m];
		w[2 * m + 1] = in ? e : w[2 * m + 1];
		prev = in ? e : prev;
		n += in ? e - s : 0;
	}
	if (out && m)
		memcpy(out, w + 2, 2 * m * sizeof *out);
	*js += n;
	return m;
}

/* Whether the block of level l holding coordinates u reaches an image
 * layer of a periodic axis. */
static int block_has_images(const Axis ax[3], int dim, const uint64_t u[3],
                            int l)
{
	for (int d = 0; d < dim; d++) {
		long long base = (long long)(u[d] >> l << l);
		if (ax[d].periodic && (base < ax[d].off ||
		                       base + (1LL << l) > ax[d].off + ax[d].n))
			return 1;
	}
	return 0;
}

/* The i-groups of sorted elements [a, b), whose keys share the block of
 * level l: the block itself where it holds at most gmax and no image
 * layer (newton.c takes a group for one run of the j-order, which
 * images' keys would cut), else its children's groups; a cell of more
 * than gmax elements is cut into near-equal parts.  Writes [first, last)
 * of each to out + 2 ng unless out is NULL; returns ng plus their count. */
static size_t split_block(const uint64_t *key, size_t a, size_t b, int l,
                          const Axis ax[3], int dim, size_t gmax, size_t *out,
                          size_t ng)
{
	uint64_t u[3];
	nbrt_order_unmorton(key[a], dim, u);
	if (l > 0 && (b - a > gmax || block_has_images(ax, dim, u, l))) {
		int sh = dim * (l - 1);
		for (size_t e = a, f; e < b; e = f) {
			for (f = e + 1; f < b && key[f] >> sh == key[e] >> sh; f++)
				;
			ng = split_block(key, e, f, l - 1, ax, dim, gmax, out, ng);
		}
		return ng;
	}
	size_t parts = l > 0 ? 1 : (b - a + gmax - 1) / gmax;
	for (size_t p = 0; p < parts; p++, ng++)
		if (out) {
			out[2 * ng] = a + (b - a) * p / parts;
			out[2 * ng + 1] = a + (b - a) * (p + 1) / parts;
		}
	return ng;
}

/* split and group: the caller's (nbrt_run_cutoff's resolved, cutoff.c),
 * else the defaults; split a power of 2 up to 8. */
static int knob(int given, int dflt, int lo, int hi)
{
	int v = given > 0 ? given : dflt;
	return v < lo ? lo : v > hi ? hi : v;
}

/* The arrays' slots in an nbrt_work; a thread's buffer of ranges from
 * W_THREAD on. */
enum { W_ITEM, W_TMP, W_IKEY, W_JKEY, W_IPERM, W_JSRC, W_JSHIFT, W_CKEY,
       W_CSTART, W_CBOX, W_BKEY, W_BSTART, W_SLOT, W_IBLK, W_BLOCK,
       W_GROUP, W_OFFSET, W_GBOX, W_GAT, W_RANGE, W_TB, W_IMG, W_THREAD };

void nbrt_cells_free(nbrt_cells *cl)
{
	nbrt_work *w = cl->work;
	if (cl->jsrc != cl->iperm)
		nbrt_work_give(w, cl->jsrc);
	nbrt_work_give(w, cl->iperm);
	nbrt_work_give(w, cl->jshift);
	nbrt_work_give(w, cl->group);
	nbrt_work_give(w, cl->offset);
	nbrt_work_give(w, cl->range);
	memset(cl, 0, sizeof *cl);
}

static int no_memory(const char *what, size_t ni, size_t nj, size_t njimg,
                     double need, double memory, char *err, size_t len)
{
	char a[32], b[32];
	nbrt_format_bytes(a, sizeof a, need);
	nbrt_format_bytes(b, sizeof b, memory);
	return fail(err, len, "the cell list of Ni = %zu, Nj = %zu (%zu with "
	            "periodic images) needs %s with its %s; this process may "
	            "use %s", ni, nj, njimg, a, what, b);
}

/* Items of j-element e's images (not itself) from item + m on: their
 * keys and values; returns m past them. */
static size_t images_of(const Axis ax[3], int dim, const nbrt_pos *pos,
                        size_t e, nbrt_kv *item, size_t m)
{
	int opt[3][3], nopt[3];
	int images = shifts(ax, dim, pos, e, opt, nopt) + 1;
	for (int k = 1; k < images; k++) {
		int sh[3] = {0, 0, 0}, r = k;
		unsigned code = 0, pw = 1;
		for (int d = 0; d < dim; d++) {
			sh[d] = opt[d][r % nopt[d]];
			r /= nopt[d];
			code += (unsigned)(sh[d] + 1) * pw;
			pw *= 3;
		}
		item[m].key = key_of(ax, dim, pos, e, sh);
		item[m].val = (uint64_t)e << CODE_BITS | code;
		m++;
	}
	return m;
}

/* Elements a chunk of the images' pass: each chunk's images counted,
 * then written after those of the chunks before it (the order of a
 * serial pass, whatever the threads). */
enum { IMG_CHUNK = 4096 };

int nbrt_cells_build(nbrt_cells *cl, const nbrt_cutoff *c,
                     const double *const ipos[3], size_t ni,
                     const double *const jpos[3], size_t nj, double memory,
                     char *err, size_t len)
{
	nbrt_pos ip = {{ipos[0], NULL, NULL}, {0, 0, 0}};
	nbrt_pos jp = {{jpos[0], NULL, NULL}, {0, 0, 0}};
	for (int d = 1; d < c->dim && d < 3; d++) {
		ip.p[d] = ipos[d];
		jp.p[d] = jpos[d];
	}
	return nbrt_cells_build_in(cl, NULL, c, &ip, ni, &jp, nj, memory, err,
	                           len);
}

int nbrt_cells_build_in(nbrt_cells *cl, nbrt_work *w, const nbrt_cutoff *c,
                        const nbrt_pos *ipos, size_t ni,
                        const nbrt_pos *jpos, size_t nj, double memory,
                        char *err, size_t len)
{
	memset(cl, 0, sizeof *cl);
	cl->work = w;
	if (nbrt_cells_check(c, err, len))
		return -1;
	int dim = c->dim;
	double t0 = nbrt_now();
	/* i and j the same points (a self run): j checked once, and, with no
	 * images, sorted as i is */
	int same = ni == nj;
	for (int d = 0; d < dim; d++)
		same &= ipos->p[d] == jpos->p[d] &&
		        ipos->isfloat[d] == jpos->isfloat[d];
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	if (check_positions(c, ipos, ni, "i", lo, hi, err, len) ||
	    (!same && check_positions(c, jpos, nj, "j", lo, hi, err, len)))
		return -1;
	int split = knob(c->split, SPLIT, 1, 8), K = 0;
	while (2 << K <= split)
		K++;
	split = 1 << K; /* a block of level K: split cells an axis */
	int sh = dim * K;
	size_t gmax = (size_t)knob(c->group, GROUP, 1, 1 << 30);
	double rcm = c->cutoff * MARGIN;
	Axis ax[3];
	axes_make(c, split, lo, hi, ax);

	/* images first counted, so that memory is known before any is
	 * allocated */
	size_t njimg = nj;
	int periodic = 0;
	for (int d = 0; d < dim; d++)
		periodic |= ax[d].periodic;
#pragma omp parallel for if (nj >= 65536) schedule(static) \
	reduction(+ : njimg)
	for (size_t e = 0; e < (periodic ? nj : 0); e++) {
		int opt[3][3], nopt[3];
		njimg += (size_t)shifts(ax, dim, jpos, e, opt, nopt);
	}
	size_t nmax = ni > njimg ? ni : njimg;
	/* the sort's two pair arrays and the keys (the larger side), iperm,
	 * jsrc and jshift */
	double need = (double)nmax * (2 * sizeof(nbrt_kv) + sizeof(uint64_t)) +
	              (double)njimg * sizeof(uint64_t) +
	              (double)ni * sizeof(size_t) +
	              (double)njimg * (sizeof(size_t) + 3);
	if (need > memory)
		return no_memory("sorted keys", ni, nj, njimg, need, memory, err,
		                 len);

	int rc = -1;
	Cells jc = {0, NULL, NULL, NULL, 0, NULL, NULL, NULL, 1};
	double *gbox = NULL;
	size_t *block = NULL, *iblk = NULL, *chunk = NULL;
	/* the ranges of the groups a thread listed, and where each group's
	 * are */
	typedef struct Buf {
		size_t *r, n, cap;
	} Buf;
	Buf *tb = NULL;
	int nt = 1;
	struct {
		int thread;
		size_t at;
	} *gat = NULL;
	nbrt_kv *item = nbrt_work_take(w, W_ITEM, nmax * sizeof *item);
	nbrt_kv *tmp = nbrt_work_take(w, W_TMP, nmax * sizeof *tmp);
	uint64_t *ikey = nbrt_work_take(w, W_IKEY, ni * sizeof *ikey);
	/* with no images the same points sort as i does (a stable sort of
	 * the same keys): j's keys and order are i's, not copied */
	int twin = same && njimg == nj;
	cl->iperm = nbrt_work_take(w, W_IPERM, ni * sizeof *cl->iperm);
	uint64_t *jkey = twin ? ikey :
	                 nbrt_work_take(w, W_JKEY, njimg * sizeof *jkey);
	cl->jsrc = twin ? cl->iperm :
	           nbrt_work_take(w, W_JSRC, njimg * sizeof *cl->jsrc);
	cl->jshift = nbrt_work_take(w, W_JSHIFT, 3 * njimg);
	if (!item || !tmp || !ikey || !jkey || !cl->iperm || !cl->jsrc ||
	    !cl->jshift) {
		fail(err, len, "out of memory for the cell list of Ni = %zu, "
		     "Nj = %zu", ni, nj);
		goto out;
	}
	cl->ni = ni;
	cl->njimg = njimg;
	cl->split = split;
	cl->gmax = gmax;
	for (int d = 0; d < dim; d++) {
		cl->ncell[d] = ax[d].n;
		cl->width[d] = ax[d].w / ax[d].scale;
	}

	/* i sorted by cell (keys in parallel: each element its own) */
	static const int none[3] = {0, 0, 0};
	/* the bits the keys differ in, found here: not a pass of the sort's */
	uint64_t any = 0, all = ~(uint64_t)0;
#pragma omp parallel for if (ni >= 65536) schedule(static) \
	reduction(| : any) reduction(& : all)
	for (size_t e = 0; e < ni; e++) {
		uint64_t key = key_of(ax, dim, ipos, e, none);
		item[e].key = key;
		item[e].val = e;
		any |= key;
		all &= key;
	}
	double t1 = nbrt_now();
	cl->time[0] += t1 - t0;
	nbrt_kv *s = nbrt_order_sort_bits(item, tmp, ni, any ^ all);
#pragma omp parallel for if (ni >= 65536) schedule(static)
	for (size_t e = 0; e < ni; e++) {
		ikey[e] = s[e].key;
		cl->iperm[e] = (size_t)s[e].val;
	}
	t0 = nbrt_now();
	cl->time[1] += t0 - t1;

	/* j sorted by cell, its images after it: they are never in a cell
	 * of the box, so each cell's order is still the caller's (with no
	 * images, the same points sort as i did: a stable sort of the same
	 * keys) */
	if (twin) {
		memset(cl->jshift, 0, 3 * nj);
		cl->same = 1;
		t1 = t0;
		goto sorted;
	}
	unsigned real = dim == 1 ? 1 : dim == 2 ? 4 : 13; /* shifts 0 */
#pragma omp parallel for if (nj >= 65536) schedule(static)
	for (size_t e = 0; e < nj; e++) {
		item[e].key = key_of(ax, dim, jpos, e, none);
		item[e].val = (uint64_t)e << CODE_BITS | real;
	}
	if (njimg > nj) {
		size_t nch = (nj + IMG_CHUNK - 1) / IMG_CHUNK;
		chunk = nbrt_work_take(w, W_IMG, (nch + 1) * sizeof *chunk);
		if (!chunk) {
			fail(err, len, "out of memory for the images of Nj = %zu", nj);
			goto out;
		}
		long long q;
#pragma omp parallel for if (nch >= 16) schedule(static)
		for (q = 0; q < (long long)nch; q++) {
			size_t m = 0, b = (size_t)q * IMG_CHUNK;
			size_t e1 = b + IMG_CHUNK < nj ? b + IMG_CHUNK : nj;
			for (size_t e = b; e < e1; e++) {
				int opt[3][3], nopt[3];
				m += (size_t)shifts(ax, dim, jpos, e, opt, nopt);
			}
			chunk[q + 1] = m;
		}
		chunk[0] = nj;
		for (size_t h = 0; h < nch; h++)
			chunk[h + 1] += chunk[h];
#pragma omp parallel for if (nch >= 16) schedule(static)
		for (q = 0; q < (long long)nch; q++) {
			size_t m = chunk[q], b = (size_t)q * IMG_CHUNK;
			size_t e1 = b + IMG_CHUNK < nj ? b + IMG_CHUNK : nj;
			for (size_t e = b; e < e1; e++)
				m = images_of(ax, dim, jpos, e, item, m);
		}
	}
	t1 = nbrt_now();
	cl->time[0] += t1 - t0;
	s = nbrt_order_sort(item, tmp, njimg);
#pragma omp parallel for if (njimg >= 65536) schedule(static)
	for (size_t e = 0; e < njimg; e++) {
		jkey[e] = s[e].key;
		cl->jsrc[e] = (size_t)(s[e].val >> CODE_BITS);
		unsigned code = (unsigned)(s[e].val & ((1u << CODE_BITS) - 1));
		for (int d = 0; d < 3; d++, code /= 3)
			cl->jshift[3 * e + d] =
			    (signed char)(d < dim ? (int)(code % 3) - 1 : 0);
	}
sorted:
	t0 = nbrt_now();
	cl->time[1] += t0 - t1;

	/* the occupied j-cells and blocks, the blocks of i and their groups
	 * (runs of keys, found in parallel): what is held now, and then the
	 * groups' ranges, checked before each is allocated */
	size_t ncells = nbrt_order_runs(jkey, njimg, 0, NULL);
	size_t nbl = nbrt_order_runs(jkey, njimg, sh, NULL); /* j-blocks */
	size_t nblocks = nbrt_order_runs(ikey, ni, sh, NULL); /* i-blocks */
	size_t bs = 2 * (size_t)dim * sizeof(double); /* a box */
	while (jc.bits < 62 && ((size_t)1 << jc.bits) < 2 * nbl + 2)
		jc.bits++;
	need = (double)ni * 2 * sizeof(size_t) +
	       (double)njimg * (2 * sizeof(size_t) + 3) +
	       (double)(ncells + 1) * (2 * sizeof(size_t) + bs) +
	       (double)(nbl + 1) * 2 * sizeof(size_t) +
	       (double)((size_t)1 << jc.bits) * sizeof(size_t) +
	       (double)(nblocks + 1) * 2 * sizeof(size_t);
	if (need > memory) {
		no_memory("lists", ni, nj, njimg, need, memory, err, len);
		goto out;
	}
	iblk = nbrt_work_take(w, W_IBLK, (nblocks + 1) * sizeof *iblk);
	block = nbrt_work_take(w, W_BLOCK, (nblocks + 1) * sizeof *block);
	if (!iblk || !block) {
		fail(err, len, "out of memory for the blocks of Ni = %zu", ni);
		goto out;
	}
	/* block q's groups from block[q] on */
	nbrt_order_runs(ikey, ni, sh, iblk);
	iblk[nblocks] = ni;
	long long q;
#pragma omp parallel for if (nblocks >= 4096) schedule(static)
	for (q = 0; q < (long long)nblocks; q++)
		block[q + 1] = split_block(ikey, iblk[q], iblk[q + 1], K, ax, dim,
		                           gmax, NULL, 0);
	block[0] = 0;
	for (size_t b = 0; b < nblocks; b++)
		block[b + 1] += block[b];
	size_t ngroups = block[nblocks];
	need += (double)(ngroups + 2) * (4 * sizeof(size_t) + bs);
	if (need > memory) {
		no_memory("lists", ni, nj, njimg, need, memory, err, len);
		goto out;
	}
	jc.key = nbrt_work_take(w, W_CKEY, (ncells + 1) * sizeof *jc.key);
	jc.start = nbrt_work_take(w, W_CSTART, (ncells + 1) * sizeof *jc.start);
	jc.box = nbrt_work_take(w, W_CBOX, (ncells + 1) * bs);
	jc.bkey = nbrt_work_take(w, W_BKEY, (nbl + 1) * sizeof *jc.bkey);
	jc.bstart = nbrt_work_take(w, W_BSTART, (nbl + 1) * sizeof *jc.bstart);
	jc.slot = nbrt_work_take(w, W_SLOT,
	                         ((size_t)1 << jc.bits) * sizeof *jc.slot);
	cl->group = nbrt_work_take(w, W_GROUP,
	                           (2 * ngroups + 1) * sizeof *cl->group);
	cl->offset = nbrt_work_take(w, W_OFFSET,
	                            (ngroups + 2) * sizeof *cl->offset);
	gbox = nbrt_work_take(w, W_GBOX, (ngroups + 1) * bs);
	if (!jc.key || !jc.start || !jc.box || !jc.bkey || !jc.bstart ||
	    !jc.slot || !cl->group || !cl->offset || !gbox) {
		fail(err, len, "out of memory for the lists of %zu groups", ngroups);
		goto out;
	}
	memset(jc.slot, 0, ((size_t)1 << jc.bits) * sizeof *jc.slot);
	jc.n = nbrt_order_runs(jkey, njimg, 0, jc.start);
	jc.start[jc.n] = njimg;
#pragma omp parallel for if (ncells >= 65536) schedule(static)
	for (q = 0; q < (long long)ncells; q++)
		jc.key[q] = jkey[jc.start[q]];
	jc.nb = nbrt_order_runs(jc.key, jc.n, sh, jc.bstart);
	jc.bstart[jc.nb] = jc.n;
#pragma omp parallel for if (nbl >= 65536) schedule(static)
	for (q = 0; q < (long long)nbl; q++)
		jc.bkey[q] = jc.key[jc.bstart[q]] >> sh;
	cells_hash(&jc);
#pragma omp parallel for if (nblocks >= 4096) schedule(static)
	for (q = 0; q < (long long)nblocks; q++)
		split_block(ikey, iblk[q], iblk[q + 1], K, ax, dim, gmax, cl->group,
		            block[q]);
	/* the boxes of the j-cells and of the groups, which prune the lists
	 * of finer cells (cells of one cutoff list all their neighbours) */
	int prune = split > 1;
#pragma omp parallel for if (ncells >= 4096) schedule(static)
	for (size_t q = 0; q < (prune ? jc.n : 0); q++)
		bbox(jpos, dim, cl->jsrc, cl->jshift, c->period, jc.start[q],
		     jc.start[q + 1], jc.box + 2 * dim * q);
#pragma omp parallel for if (ngroups >= 4096) schedule(static)
	for (size_t g = 0; g < (prune ? ngroups : 0); g++)
		bbox(ipos, dim, cl->iperm, NULL, c->period, cl->group[2 * g],
		     cl->group[2 * g + 1], gbox + 2 * dim * g);

	t1 = nbrt_now();
	cl->time[2] = t1 - t0;
	/* each group's ranges, in parallel (a block's candidates shared by
	 * its groups), into its thread's buffer, then in order into the
	 * lists */
#ifdef _OPENMP
	nt = omp_get_max_threads();
#endif
	tb = nbrt_work_take(w, W_TB, (size_t)nt * sizeof *tb);
	gat = nbrt_work_take(w, W_GAT, (ngroups + 1) * sizeof *gat);
	if (!tb || !gat || nbrt_work_reserve(w, W_THREAD + nt)) {
		fail(err, len, "out of memory for the lists of %zu groups", ngroups);
		goto out;
	}
	memset(tb, 0, (size_t)nt * sizeof *tb);
	double pairs = 0, room = (memory - need) / 2 / nt;
	int bad = 0;
#pragma omp parallel if (nblocks >= 1024) reduction(+ : pairs) \
	reduction(| : bad)
	{
		int me = 0;
#ifdef _OPENMP
		me = omp_get_thread_num();
#endif
		Buf *own = &tb[me];
		Cand cd;
		memset(&cd, 0, sizeof cd);
#pragma omp for schedule(dynamic, 64)
		for (size_t q = 0; q < nblocks; q++) {
			if (bad)
				continue;
			double ub[6];
			for (int d = 0; d < dim; d++) {
				ub[2 * d] = INFINITY;
				ub[2 * d + 1] = -INFINITY;
			}
			for (size_t g = block[q]; prune && g < block[q + 1]; g++)
				for (int d = 0; d < dim; d++) {
					const double *b = gbox + 2 * dim * g + 2 * d;
					ub[2 * d] = b[0] < ub[2 * d] ? b[0] : ub[2 * d];
					ub[2 * d + 1] = b[1] > ub[2 * d + 1] ? b[1] : ub[2 * d + 1];
				}
			uint64_t bu[3];
			nbrt_order_unmorton(ikey[iblk[q]] >> sh, dim, bu);
			size_t nc = candidates(&jc, ax, dim, K, bu, ub, rcm, prune, &cd);
			if (nc == SIZE_MAX) {
				bad = 1;
				continue;
			}
			for (size_t g = block[q]; g < block[q + 1]; g++) {
				/* room for every candidate a range */
				if (own->n + nc > own->cap) {
					size_t cap = 2 * (own->n + nc);
					size_t *p = (double)cap * 2 * sizeof *p > room ? NULL :
					            nbrt_work_keep(w, W_THREAD + me, own->r,
					                           2 * cap * sizeof *p);
					if (!p) {
						bad = 2;
						break;
					}
					own->r = p;
					own->cap = cap;
				}
				size_t js = 0;
				/* no buffer yet: no candidates, no ranges */
				size_t nr = group_ranges(&cd, nc, dim, gbox + 2 * dim * g, rcm,
				                         prune, own->r ? own->r + 2 * own->n
				                                       : NULL, &js);
				gat[g].thread = me;
				gat[g].at = own->n;
				cl->offset[g + 1] = nr;
				own->n += nr;
				/* exact: integers below 2^53 */
				pairs += (double)(cl->group[2 * g + 1] - cl->group[2 * g]) *
				         (double)js;
			}
		}
		cand_free(&cd);
	}
	if (bad) {
		if (bad & 2)
			no_memory("lists", ni, nj, njimg, memory, memory, err, len);
		else
			fail(err, len, "out of memory for the lists of %zu groups",
			     ngroups);
		goto out;
	}
	cl->offset[0] = 0;
	for (size_t g = 0; g < ngroups; g++)
		cl->offset[g + 1] += cl->offset[g];
	/* the plan's form (ranges.c, NBRT_RANGES_PLANNED): one more offset */
	cl->offset[ngroups + 1] = cl->offset[ngroups];
	size_t nranges = cl->offset[ngroups];
	need += (double)nranges * 2 * sizeof(size_t);
	if (need > memory) {
		no_memory("lists", ni, nj, njimg, need, memory, err, len);
		goto out;
	}
	cl->range = nbrt_work_take(w, W_RANGE,
	                           (2 * nranges + 1) * sizeof *cl->range);
	if (!cl->range) {
		fail(err, len, "out of memory for the lists of %zu groups", ngroups);
		goto out;
	}
#pragma omp parallel for if (ngroups >= 4096) schedule(static)
	for (size_t g = 0; g < ngroups; g++)
		if (cl->offset[g + 1] > cl->offset[g]) /* else no buffer, maybe */
			memcpy(cl->range + 2 * cl->offset[g],
			       tb[gat[g].thread].r + 2 * gat[g].at,
			       2 * (cl->offset[g + 1] - cl->offset[g]) *
			           sizeof *cl->range);
	cl->r.ngroups = ngroups;
	cl->r.group = cl->group;
	cl->r.offset = cl->offset;
	cl->r.range = cl->range;
	cl->pairs = pairs;
	cl->time[3] = nbrt_now() - t1;
	rc = 0;
out:
	nbrt_work_give(w, item);
	nbrt_work_give(w, tmp);
	nbrt_work_give(w, ikey);
	if (jkey != ikey)
		nbrt_work_give(w, jkey);
	nbrt_work_give(w, chunk);
	nbrt_work_give(w, jc.key);
	nbrt_work_give(w, jc.start);
	nbrt_work_give(w, jc.box);
	nbrt_work_give(w, jc.bkey);
	nbrt_work_give(w, jc.bstart);
	nbrt_work_give(w, jc.slot);
	nbrt_work_give(w, gbox);
	nbrt_work_give(w, block);
	nbrt_work_give(w, iblk);
	for (int t = 0; tb && t < nt; t++)
		nbrt_work_give(w, tb[t].r);
	nbrt_work_give(w, tb);
	nbrt_work_give(w, gat);
	if (rc)
		nbrt_cells_free(cl);
	return rc;
}
