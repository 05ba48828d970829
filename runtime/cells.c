/* cells.c: the cell lists of nbrt_run_cutoff (cutoff.c), with no kernel
 * and no device: i and j sorted along a Morton curve of cells no smaller
 * than the cutoff, images of the j-elements near periodic faces, and each
 * occupied i-cell's neighbour j-ranges as an nbrt_ranges.  No grid is
 * allocated: cells are runs of equal keys, found through a hash of the
 * occupied ones, so the memory is O(Ni + Nj) whatever the box
 * (docs/neighbours.md). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"
#include "order.h"

/* Cells are wider than the cutoff by this factor, so that no pair a
 * kernel may find within it is two cells apart: not through rounding in
 * x / width (2^-51 relative on indices below 2^31), nor through a float
 * kernel's (2^-24 of a distance, or of a periodic image's coordinate in a
 * box up to 2^13 cutoffs wide).  It costs 0.3% more pairs in 3-D, and a
 * cell of each periodic axis whose period is an exact multiple of the
 * cutoff. */
#define MARGIN (1 + 0x1p-10)

/* Bits of a cell coordinate in the key, by dim: 21 a coordinate in 3-D
 * (63 bits), 31 in 1-D and 2-D (indices below 2^31 keep the rounding
 * argument above).  A coordinate is the cell plus 1, from 0 (the image
 * layer below a periodic axis) to n + 1 (the one above). */
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
static int check_positions(const nbrt_cutoff *c, const double *const pos[3],
                           size_t n, const char *side, double lo[3],
                           double hi[3], char *err, size_t len)
{
	const char *const *name = side[0] == 'i' ? c->ipos : c->jpos;
	char a[32], b[32], nb[32];
	for (int d = 0; d < c->dim; d++) {
		double L = c->period[d], mn = lo[d], mx = hi[d];
		const double *x = pos[d];
		int bad = 0;
#pragma omp parallel for if (n >= 65536) schedule(static) \
	reduction(min : mn) reduction(max : mx) reduction(| : bad)
		for (size_t e = 0; e < n; e++) {
			bad |= !isfinite(x[e]) || (L > 0 && !(x[e] >= 0 && x[e] < L));
			mn = x[e] < mn ? x[e] : mn;
			mx = x[e] > mx ? x[e] : mx;
		}
		for (size_t e = 0; bad && e < n; e++) {
			if (!isfinite(x[e]))
				return fail(err, len, "%s[%zu] = %s: positions must be "
				            "finite", colname(name, d, side, nb), e,
				            num(a, x[e]));
			if (L > 0 && !(x[e] >= 0 && x[e] < L))
				return fail(err, len, "%s[%zu] = %s lies outside the "
				            "periodic box [0, %s) of axis %d",
				            colname(name, d, side, nb), e, num(a, x[e]),
				            num(b, L), d);
		}
		lo[d] = mn;
		hi[d] = mx;
	}
	return 0;
}

/* One axis of the cells: index floor((x * scale - org) / w), clamped to
 * [0, n). */
typedef struct Axis {
	double org, w, scale;
	long long n;
	int periodic;
} Axis;

static void axes_make(const nbrt_cutoff *c, const double lo[3],
                      const double hi[3], Axis ax[3])
{
	long long maxn = (1LL << nbrt_order_bits(c->dim)) - 2;
	for (int d = 0; d < c->dim; d++) {
		Axis *a = &ax[d];
		double L = c->period[d], rc = c->cutoff * MARGIN;
		a->periodic = L > 0;
		a->scale = 1;
		a->org = 0;
		if (a->periodic) {
			/* n cells of L / n, at least the cutoff wide; one cell when
			 * the cutoff is half the period (its images are its
			 * neighbours on both sides) */
			double n = floor(L / rc);
			a->n = n < 1 ? 1 : n > (double)maxn ? maxn : (long long)n;
			a->w = L / (double)a->n;
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
		a->w = fmax(rc, span / (double)(maxn - 1));
		double n = floor(span / a->w) + 1;
		a->n = n > (double)maxn ? maxn : n < 1 ? 1 : (long long)n;
	}
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
static uint64_t key_of(const Axis ax[3], int dim, const double *const pos[3],
                       size_t e, const int sh[3])
{
	uint64_t u[3] = {0, 0, 0};
	for (int d = 0; d < dim; d++)
		u[d] = (uint64_t)(cell_of(&ax[d], pos[d][e]) + 1 + sh[d] * ax[d].n);
	return nbrt_order_morton(u, dim);
}

/* The shifts of j-element e's images, per axis: +1 from the first layer
 * of a periodic axis, -1 from its last (both when it has one cell). */
static int shifts(const Axis ax[3], int dim, const double *const pos[3],
                  size_t e, int opt[3][3], int nopt[3])
{
	int images = 1;
	for (int d = 0; d < dim; d++) {
		nopt[d] = 1;
		opt[d][0] = 0;
		if (ax[d].periodic) {
			long long c = cell_of(&ax[d], pos[d][e]);
			if (c == 0)
				opt[d][nopt[d]++] = 1;
			if (c == ax[d].n - 1)
				opt[d][nopt[d]++] = -1;
		}
		images *= nopt[d];
	}
	return images - 1;
}

/* The occupied j-cells: their keys, sorted, where each one's run of
 * sorted j starts (start[n] = the end of the last), and a hash of the
 * keys (open addressing, slot: cell + 1, 0 empty) so that a neighbour is
 * found in about one probe rather than a binary search's twenty. */
typedef struct Cells {
	size_t n;
	uint64_t *key;
	size_t *start;
	size_t *slot;
	int bits; /* 2^bits slots, at least 2 n */
} Cells;

static size_t hash_of(uint64_t key, int bits)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

static void cells_hash(Cells *jc)
{
	size_t mask = ((size_t)1 << jc->bits) - 1;
	for (size_t c = 0; c < jc->n; c++) {
		size_t h = hash_of(jc->key[c], jc->bits);
		while (jc->slot[h])
			h = (h + 1) & mask;
		jc->slot[h] = c + 1;
	}
}

/* The index of the cell of key k, or jc->n for none. */
static size_t cells_find(const Cells *jc, uint64_t k)
{
	size_t mask = ((size_t)1 << jc->bits) - 1;
	for (size_t h = hash_of(k, jc->bits); jc->slot[h]; h = (h + 1) & mask)
		if (jc->key[jc->slot[h] - 1] == k)
			return jc->slot[h] - 1;
	return jc->n;
}

/* The j-ranges of the i-cell at coordinates u: its 3^dim neighbour
 * cells' runs, sorted, empty ones dropped, adjacent ones merged.
 * Returns their count, written to out (27 pairs at most). */
static int neighbours(const uint64_t u[3], int dim, const Cells *jc,
                      size_t out[54])
{
	int n = 0, total = dim == 1 ? 3 : dim == 2 ? 9 : 27;
	for (int o = 0; o < total; o++) {
		uint64_t v[3] = {0, 0, 0};
		int r = o;
		for (int d = 0; d < dim; d++, r /= 3)
			v[d] = u[d] + (uint64_t)(r % 3) - 1;
		uint64_t k = nbrt_order_morton(v, dim);
		size_t c = cells_find(jc, k);
		if (c == jc->n)
			continue;
		size_t s = jc->start[c], e = jc->start[c + 1];
		/* insertion by start */
		int p = n++;
		while (p > 0 && out[2 * (p - 1)] > s) {
			out[2 * p] = out[2 * (p - 1)];
			out[2 * p + 1] = out[2 * (p - 1) + 1];
			p--;
		}
		out[2 * p] = s;
		out[2 * p + 1] = e;
	}
	int m = 0;
	for (int q = 0; q < n; q++) {
		if (m > 0 && out[2 * m - 1] == out[2 * q]) {
			out[2 * m - 1] = out[2 * q + 1];
			continue;
		}
		out[2 * m] = out[2 * q];
		out[2 * m + 1] = out[2 * q + 1];
		m++;
	}
	return m;
}

void nbrt_cells_free(nbrt_cells *cl)
{
	free(cl->iperm);
	free(cl->jsrc);
	free(cl->jshift);
	free(cl->group);
	free(cl->offset);
	free(cl->range);
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

int nbrt_cells_build(nbrt_cells *cl, const nbrt_cutoff *c,
                     const double *const ipos[3], size_t ni,
                     const double *const jpos[3], size_t nj, double memory,
                     char *err, size_t len)
{
	memset(cl, 0, sizeof *cl);
	if (nbrt_cells_check(c, err, len))
		return -1;
	int dim = c->dim;
	double t0 = nbrt_now();
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	if (check_positions(c, ipos, ni, "i", lo, hi, err, len) ||
	    check_positions(c, jpos, nj, "j", lo, hi, err, len))
		return -1;
	Axis ax[3];
	axes_make(c, lo, hi, ax);

	/* images first counted, so that memory is known before any is
	 * allocated */
	size_t njimg = nj;
#pragma omp parallel for if (nj >= 65536) schedule(static) \
	reduction(+ : njimg)
	for (size_t e = 0; e < nj; e++) {
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
	Cells jc = {0, NULL, NULL, NULL, 1};
	nbrt_kv *item = malloc((nmax ? nmax : 1) * sizeof *item);
	nbrt_kv *tmp = malloc((nmax ? nmax : 1) * sizeof *tmp);
	uint64_t *ikey = malloc((ni ? ni : 1) * sizeof *ikey);
	uint64_t *jkey = malloc((njimg ? njimg : 1) * sizeof *jkey);
	cl->iperm = malloc((ni ? ni : 1) * sizeof *cl->iperm);
	cl->jsrc = malloc((njimg ? njimg : 1) * sizeof *cl->jsrc);
	cl->jshift = malloc(3 * (njimg ? njimg : 1));
	if (!item || !tmp || !ikey || !jkey || !cl->iperm || !cl->jsrc ||
	    !cl->jshift) {
		fail(err, len, "out of memory for the cell list of Ni = %zu, "
		     "Nj = %zu", ni, nj);
		goto out;
	}
	cl->ni = ni;
	cl->njimg = njimg;
	for (int d = 0; d < dim; d++) {
		cl->ncell[d] = ax[d].n;
		cl->width[d] = ax[d].w / ax[d].scale;
	}

	/* i sorted by cell (keys in parallel: each element its own) */
	static const int none[3] = {0, 0, 0};
#pragma omp parallel for if (ni >= 65536) schedule(static)
	for (size_t e = 0; e < ni; e++) {
		item[e].key = key_of(ax, dim, ipos, e, none);
		item[e].val = e;
	}
	double t1 = nbrt_now();
	cl->time[0] += t1 - t0;
	nbrt_kv *s = nbrt_order_sort(item, tmp, ni);
#pragma omp parallel for if (ni >= 65536) schedule(static)
	for (size_t e = 0; e < ni; e++) {
		ikey[e] = s[e].key;
		cl->iperm[e] = (size_t)s[e].val;
	}
	t0 = nbrt_now();
	cl->time[1] += t0 - t1;

	/* j sorted by cell, its images after it: they are never in a cell
	 * of the box, so each cell's order is still the caller's */
	unsigned real = dim == 1 ? 1 : dim == 2 ? 4 : 13; /* shifts 0 */
#pragma omp parallel for if (nj >= 65536) schedule(static)
	for (size_t e = 0; e < nj; e++) {
		item[e].key = key_of(ax, dim, jpos, e, none);
		item[e].val = (uint64_t)e << CODE_BITS | real;
	}
	for (size_t e = 0, m = nj; e < nj && m < njimg; e++) {
		int opt[3][3], nopt[3];
		int images = shifts(ax, dim, jpos, e, opt, nopt) + 1;
		for (int k = 1; k < images; k++) {
			int sh[3] = {0, 0, 0}, r = k;
			unsigned code = 0, pw = 1;
			for (int d = 0; d < dim; d++) {
				sh[d] = opt[d][r % nopt[d]];
				r /= nopt[d];
				code += (unsigned)(sh[d] + 1) * pw;
				pw *= 3;
			}
			item[m].key = key_of(ax, dim, jpos, e, sh);
			item[m].val = (uint64_t)e << CODE_BITS | code;
			m++;
		}
	}
	t1 = nbrt_now();
	cl->time[0] += t1 - t0;
	s = nbrt_order_sort(item, tmp, njimg);
	size_t ncells = 0;
#pragma omp parallel for if (njimg >= 65536) schedule(static) \
	reduction(+ : ncells)
	for (size_t e = 0; e < njimg; e++) {
		jkey[e] = s[e].key;
		ncells += e == 0 || s[e].key != s[e - 1].key;
		cl->jsrc[e] = (size_t)(s[e].val >> CODE_BITS);
		unsigned code = (unsigned)(s[e].val & ((1u << CODE_BITS) - 1));
		for (int d = 0; d < 3; d++, code /= 3)
			cl->jshift[3 * e + d] =
			    (signed char)(d < dim ? (int)(code % 3) - 1 : 0);
	}
	free(item);
	free(tmp);
	item = tmp = NULL;
	t0 = nbrt_now();
	cl->time[1] += t0 - t1;

	/* the occupied j-cells, then the groups (runs of one i-cell): what
	 * is held now, and then the groups' ranges, checked before each is
	 * allocated */
	size_t ngroups = 0;
	for (size_t e = 0; e < ni; e++)
		ngroups += e == 0 || ikey[e] != ikey[e - 1];
	while (jc.bits < 62 && ((size_t)1 << jc.bits) < 2 * ncells + 2)
		jc.bits++;
	need = (double)ni * 2 * sizeof(size_t) +
	       (double)njimg * (2 * sizeof(size_t) + 3) +
	       (double)(ncells + 1) * 2 * sizeof(size_t) +
	       (double)((size_t)1 << jc.bits) * sizeof(size_t) +
	       (double)(ngroups + 1) * 3 * sizeof(size_t);
	if (need > memory) {
		no_memory("lists", ni, nj, njimg, need, memory, err, len);
		goto out;
	}
	jc.key = malloc((ncells + 1) * sizeof *jc.key);
	jc.start = malloc((ncells + 1) * sizeof *jc.start);
	jc.slot = calloc((size_t)1 << jc.bits, sizeof *jc.slot);
	cl->group = malloc((2 * ngroups + 1) * sizeof *cl->group);
	cl->offset = malloc((ngroups + 1) * sizeof *cl->offset);
	if (!jc.key || !jc.start || !jc.slot || !cl->group || !cl->offset) {
		fail(err, len, "out of memory for the lists of %zu cells", ngroups);
		goto out;
	}
	for (size_t e = 0; e < njimg; e++)
		if (e == 0 || jkey[e] != jkey[e - 1]) {
			jc.key[jc.n] = jkey[e];
			jc.start[jc.n++] = e;
		}
	jc.start[jc.n] = njimg;
	cells_hash(&jc);
	free(jkey);
	jkey = NULL;
	for (size_t e = 0, g = 0; e < ni; e++)
		if (e == 0 || ikey[e] != ikey[e - 1]) {
			cl->group[2 * g] = e;
			if (g > 0)
				cl->group[2 * g - 1] = e;
			g++;
		}
	if (ngroups)
		cl->group[2 * ngroups - 1] = ni;

	t1 = nbrt_now();
	cl->time[2] = t1 - t0;
	/* each group's ranges counted (in parallel), then written */
	cl->offset[0] = 0;
#pragma omp parallel for if (ngroups >= 4096) schedule(dynamic, 256)
	for (size_t g = 0; g < ngroups; g++) {
		uint64_t u[3];
		size_t buf[54];
		nbrt_order_unmorton(ikey[cl->group[2 * g]], dim, u);
		cl->offset[g + 1] = (size_t)neighbours(u, dim, &jc, buf);
	}
	for (size_t g = 0; g < ngroups; g++)
		cl->offset[g + 1] += cl->offset[g];
	size_t nranges = cl->offset[ngroups];
	need += (double)nranges * 2 * sizeof(size_t);
	if (need > memory) {
		no_memory("lists", ni, nj, njimg, need, memory, err, len);
		goto out;
	}
	cl->range = malloc((2 * nranges + 1) * sizeof *cl->range);
	if (!cl->range) {
		fail(err, len, "out of memory for the lists of %zu cells", ngroups);
		goto out;
	}
	double pairs = 0;
#pragma omp parallel for if (ngroups >= 4096) schedule(dynamic, 256) \
	reduction(+ : pairs)
	for (size_t g = 0; g < ngroups; g++) {
		uint64_t u[3];
		size_t buf[54], js = 0, r = cl->offset[g];
		nbrt_order_unmorton(ikey[cl->group[2 * g]], dim, u);
		int n = neighbours(u, dim, &jc, buf);
		for (int q = 0; q < n; q++, r++) {
			cl->range[2 * r] = buf[2 * q];
			cl->range[2 * r + 1] = buf[2 * q + 1];
			js += buf[2 * q + 1] - buf[2 * q];
		}
		/* exact: pair counts are integers below 2^53 */
		pairs += (double)(cl->group[2 * g + 1] - cl->group[2 * g]) *
		         (double)js;
	}
	cl->r.ngroups = ngroups;
	cl->r.group = cl->group;
	cl->r.offset = cl->offset;
	cl->r.range = cl->range;
	cl->pairs = pairs;
	cl->time[3] = nbrt_now() - t1;
	rc = 0;
out:
	free(item);
	free(tmp);
	free(ikey);
	free(jkey);
	free(jc.key);
	free(jc.start);
	free(jc.slot);
	if (rc)
		nbrt_cells_free(cl);
	return rc;
}
