/* order.c: Morton keys, the stable radix sort of (key, value) pairs and
 * the gathers and scatters of sorted copies (order.h), shared by the cell
 * lists and the treecode.  Every loop runs in parallel above PAR
 * elements, serially below, so small calls pay no thread start. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "order.h"

/* Below this many elements a loop is serial. */
#define PAR 65536

static const int key_bits[4] = {0, 31, 31, 21};

int nbrt_order_bits(int dim)
{
	return key_bits[dim];
}

static uint64_t spread3(uint64_t v)
{
	v &= 0x1fffff;
	v = (v | v << 32) & 0x1f00000000ffffULL;
	v = (v | v << 16) & 0x1f0000ff0000ffULL;
	v = (v | v << 8) & 0x100f00f00f00f00fULL;
	v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
	v = (v | v << 2) & 0x1249249249249249ULL;
	return v;
}

static uint64_t spread2(uint64_t v)
{
	v &= 0xffffffffULL;
	v = (v | v << 16) & 0x0000ffff0000ffffULL;
	v = (v | v << 8) & 0x00ff00ff00ff00ffULL;
	v = (v | v << 4) & 0x0f0f0f0f0f0f0f0fULL;
	v = (v | v << 2) & 0x3333333333333333ULL;
	v = (v | v << 1) & 0x5555555555555555ULL;
	return v;
}

/* The inverses of the spreads. */
static uint64_t compact3(uint64_t v)
{
	v &= 0x1249249249249249ULL;
	v = (v | v >> 2) & 0x10c30c30c30c30c3ULL;
	v = (v | v >> 4) & 0x100f00f00f00f00fULL;
	v = (v | v >> 8) & 0x1f0000ff0000ffULL;
	v = (v | v >> 16) & 0x1f00000000ffffULL;
	v = (v | v >> 32) & 0x1fffff;
	return v;
}

static uint64_t compact2(uint64_t v)
{
	v &= 0x5555555555555555ULL;
	v = (v | v >> 1) & 0x3333333333333333ULL;
	v = (v | v >> 2) & 0x0f0f0f0f0f0f0f0fULL;
	v = (v | v >> 4) & 0x00ff00ff00ff00ffULL;
	v = (v | v >> 8) & 0x0000ffff0000ffffULL;
	v = (v | v >> 16) & 0xffffffffULL;
	return v;
}

uint64_t nbrt_order_morton(const uint64_t u[3], int dim)
{
	if (dim == 1)
		return u[0];
	if (dim == 2)
		return spread2(u[0]) | spread2(u[1]) << 1;
	return spread3(u[0]) | spread3(u[1]) << 1 | spread3(u[2]) << 2;
}

void nbrt_order_unmorton(uint64_t key, int dim, uint64_t u[3])
{
	u[0] = u[1] = u[2] = 0;
	if (dim == 1)
		u[0] = key;
	else if (dim == 2) {
		u[0] = compact2(key);
		u[1] = compact2(key >> 1);
	} else {
		u[0] = compact3(key);
		u[1] = compact3(key >> 1);
		u[2] = compact3(key >> 2);
	}
}

/* The key of point e of pos in the cube (lo, cells / scale), clamped to
 * its faces (top: the last cell an axis). */
static inline uint64_t key_of(const double *const pos[3], size_t e, int dim,
                              const double lo[3], double scale, double top)
{
	uint64_t u[3] = {0, 0, 0};
	for (int d = 0; d < dim; d++) {
		double t = (pos[d][e] - lo[d]) * scale;
		/* NaN and below to 0 */
		u[d] = !(t >= 0) ? 0 : t > top ? (uint64_t)top : (uint64_t)t;
	}
	return nbrt_order_morton(u, dim);
}

void nbrt_order_keys(nbrt_kv *kv, const double *const pos[3], size_t n,
                     int dim, const double lo[3], double side)
{
	double cells = (double)((uint64_t)1 << key_bits[dim]);
	double top = cells - 1, scale = cells / side;
#pragma omp parallel for if (n >= PAR) schedule(static)
	for (size_t e = 0; e < n; e++)
		kv[e] = (nbrt_kv){key_of(pos, e, dim, lo, scale, top), e};
}

/* One counting pass of 8 bits at shift, a to b, stable. */
static void pass_serial(const nbrt_kv *a, nbrt_kv *b, size_t n, int shift)
{
	size_t count[257] = {0};
	for (size_t e = 0; e < n; e++)
		count[(a[e].key >> shift & 0xff) + 1]++;
	for (int d = 0; d < 256; d++)
		count[d + 1] += count[d];
	for (size_t e = 0; e < n; e++)
		b[count[a[e].key >> shift & 0xff]++] = a[e];
}

/* In a parallel region: the calling thread t of T, and its slice [lo, hi)
 * of n elements. */
static void slice(size_t n, int *t, int *T, size_t *lo, size_t *hi)
{
	*t = 0;
	*T = 1;
#ifdef _OPENMP
	*t = omp_get_thread_num();
	*T = omp_get_num_threads();
#endif
	*lo = n * (size_t)*t / (size_t)*T;
	*hi = n * (size_t)(*t + 1) / (size_t)*T;
}

/* One counting pass of the digit key >> shift & mask, a to b, stable,
 * on nt threads: each counts its own slice, and its slice's elements of
 * each digit go after those of the threads before it.  hist holds nt *
 * (mask + 1) counts; start (unless NULL) gets where each digit's run
 * begins in b. */
static void pass_parallel(const nbrt_kv *a, nbrt_kv *b, size_t n, int shift,
                          uint64_t mask, size_t *hist, size_t *start, int nt)
{
	size_t bins = (size_t)mask + 1;
#pragma omp parallel num_threads(nt)
	{
		int t, T;
		size_t lo, hi;
		slice(n, &t, &T, &lo, &hi);
		size_t *h = hist + (size_t)t * bins;
		memset(h, 0, bins * sizeof *h);
		for (size_t e = lo; e < hi; e++)
			h[a[e].key >> shift & mask]++;
#pragma omp barrier
#pragma omp single
		{
			size_t sum = 0;
			for (size_t d = 0; d < bins; d++) {
				if (start)
					start[d] = sum;
				for (int s = 0; s < T; s++) {
					size_t c = hist[(size_t)s * bins + d];
					hist[(size_t)s * bins + d] = sum;
					sum += c;
				}
			}
		}
		for (size_t e = lo; e < hi; e++)
			b[h[a[e].key >> shift & mask]++] = a[e];
	}
}

/* The 8-bit passes over the bits of low, src to dst and back: the
 * number of passes (so whether the result is in src or in dst). */
static int lsd(nbrt_kv *src, nbrt_kv *dst, size_t n, uint64_t low,
               size_t *hist, int nt)
{
	int passes = 0;
	for (int shift = 0; shift < 64 && low >> shift; shift += 8) {
		if (!(low >> shift & 0xff))
			continue;
		if (nt > 1)
			pass_parallel(src, dst, n, shift, 0xff, hist, NULL, nt);
		else
			pass_serial(src, dst, n, shift);
		nbrt_kv *t = src;
		src = dst;
		dst = t;
		passes++;
	}
	return passes;
}

/* Large sorts: one parallel pass on the top differing bits (at most TOP,
 * so that buckets average about 2^SMALL keys) cuts the keys into buckets
 * that mostly fit a core's cache, then each bucket is
 * sorted on the bits below by the 8-bit passes, buckets in parallel (a
 * bucket larger than a thread's share by all threads).  Against 8-bit
 * passes over all 63 bits of a Morton key, 7 of the 8 sweeps through
 * memory stay in cache.  Every pass is stable, so the order is the one
 * stable order: the same as nbrt_order_sort's serial one, whatever the
 * threads. */
enum { TOP = 11, SMALL = 11 };

static nbrt_kv *sort_buckets(nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                             uint64_t differ, int nt);

/* A big bucket's keys kv[0..n) (their bits outside low all equal) sorted
 * by sort_buckets on the bits of low that differ among them; where they
 * are then (kv or tmp), or NULL (no memory: the caller's passes). */
/* From 2^20 keys: on the H200's 16-core host the recut bucket of 2^16 to
 * 2^20 keys sorted 2-3x slower than its passes (the tree's sort at 65536
 * 1.8 -> 4.3 ms, at 2^20 23 -> 41 ms), at 2^22 faster (158 -> 132 ms). */
enum { RECUT = 1 << 20 };
static nbrt_kv *recut(nbrt_kv *kv, nbrt_kv *tmp, size_t n, uint64_t low,
                      int nt)
{
	uint64_t any = 0, all = ~(uint64_t)0;
	long long e;
#pragma omp parallel for schedule(static) num_threads(nt) \
	reduction(| : any) reduction(& : all)
	for (e = 0; e < (long long)n; e++) {
		any |= kv[e].key;
		all &= kv[e].key;
	}
	uint64_t differ = (any ^ all) & low;
	return differ ? sort_buckets(kv, tmp, n, differ, nt) : kv;
}

static nbrt_kv *sort_buckets(nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                             uint64_t differ, int nt)
{
	int hb = 63;
	while (!(differ >> hb & 1))
		hb--;
	/* smaller buckets would pay a pass's 256 counts for a few keys */
	int top = 1;
	while (top < TOP && n >> (top + SMALL))
		top++;
	int ts = hb + 1 > top ? hb + 1 - top : 0;
	/* counts for the first pass and for a big bucket's 8-bit passes */
	size_t nb = (size_t)1 << top, nh = nb > 256 ? nb : 256;
	size_t *hist = malloc((size_t)nt * nh * sizeof *hist);
	size_t *start = malloc((nb + 1) * sizeof *start);
	if (!hist || !start) {
		free(hist);
		free(start);
		return NULL;
	}
	pass_parallel(kv, tmp, n, ts, nb - 1, hist, start, nt);
	start[nb] = n;
	uint64_t low = differ & (((uint64_t)1 << ts) - 1);
	size_t big = n / (size_t)(4 * nt) + 1;
	/* every bucket passes once for each non-zero byte of low (an empty
	 * one too: nothing to move) */
	int passes = 0;
	for (int shift = 0; shift < 64 && low >> shift; shift += 8)
		passes += (low >> shift & 0xff) != 0;
	/* big buckets one after another, each by all threads; one of many
	 * keys (clustered bodies: a Plummer sphere's core took 9 in 10 keys
	 * at 2^22, and 7 passes over them out of cache 0.16 s on 16 cores)
	 * is cut again on its own top differing bits, into the array where
	 * the others' passes leave them */
	for (size_t d = 0; d < nb; d++) {
		size_t m = start[d + 1] - start[d];
		if (m < big)
			continue;
		nbrt_kv *in = tmp + start[d], *want = (passes % 2 ? kv : tmp) +
		                                      start[d];
		nbrt_kv *r = m >= RECUT ? recut(in, kv + start[d], m, low, nt) :
		             NULL;
		if (!r)
			r = lsd(in, kv + start[d], m, low, hist, nt) % 2 ?
			    kv + start[d] : in;
		if (r != want)
			memcpy(want, r, m * sizeof *r);
	}
	long long d;
#pragma omp parallel for schedule(dynamic, 8) num_threads(nt)
	for (d = 0; d < (long long)nb; d++) {
		size_t m = start[d + 1] - start[d];
		if (m < big)
			lsd(tmp + start[d], kv + start[d], m, low, NULL, 1);
	}
	free(hist);
	free(start);
	return passes % 2 ? kv : tmp;
}

nbrt_kv *nbrt_order_sort(nbrt_kv *kv, nbrt_kv *tmp, size_t n)
{
	if (n < 2)
		return kv;
	uint64_t any = 0, all = ~(uint64_t)0;
#pragma omp parallel for if (n >= PAR) schedule(static) \
	reduction(| : any) reduction(& : all)
	for (size_t e = 0; e < n; e++) {
		any |= kv[e].key;
		all &= kv[e].key;
	}
	return nbrt_order_sort_bits(kv, tmp, n, any ^ all);
}

nbrt_kv *nbrt_order_sort_bits(nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                              uint64_t differ)
{
	if (n < 2 || !differ)
		return kv;
	if (n >= PAR) {
		int nt = 1;
#ifdef _OPENMP
		nt = omp_get_max_threads();
#endif
		nbrt_kv *r = sort_buckets(kv, tmp, n, differ, nt);
		if (r)
			return r;
	}
	/* small, or no memory for the buckets' counts: serial passes */
	return lsd(kv, tmp, n, differ, NULL, 1) % 2 ? tmp : kv;
}

/* The MSD sort of a bucket (nbrt_order_sort_sample's).  Buckets of at
 * most INSERT keys
 * are sorted by insertion; a digit is 8 bits, 4 for a bucket of at most
 * NARROW keys (256 counts would cost more than its keys). */
enum { INSERT = 24, NARROW = 512 };

/* a[0..m) sorted stably by insertion */
static void insertion(nbrt_kv *a, size_t m)
{
	for (size_t e = 1; e < m; e++) {
		nbrt_kv x = a[e];
		size_t f = e;
		for (; f > 0 && a[f - 1].key > x.key; f--)
			a[f] = a[f - 1];
		a[f] = x;
	}
}

/* The top `width` bits at or below the highest set bit of differ: the
 * shift of the digit. */
static int top_digit(uint64_t differ, int width)
{
	int hb = 63 - __builtin_clzll(differ);
	return hb + 1 > width ? hb + 1 - width : 0;
}

/* a[0..m) sorted stably, the result in b where to_b, else in a; the
 * other is room; differ: the bits some of its keys have and some not.
 * Each level splits on the top differing digit of its own keys (a
 * bucket's bits above it are all equal), each bucket's differing bits
 * found as it is written, so a level costs a count and a move over the
 * keys that still differ: two or three levels for bodies' Morton keys at
 * N = 65536 against the LSD's eight passes. */
static void msd(nbrt_kv *a, nbrt_kv *b, size_t m, int to_b, uint64_t differ)
{
	if (m <= INSERT || !differ) { /* equal keys: in their stable order */
		if (differ)
			insertion(a, m);
		if (to_b)
			memcpy(b, a, m * sizeof *a);
		return;
	}
	int width = m <= NARROW ? 4 : 8;
	unsigned bins = 1u << width, mask = bins - 1;
	int shift = top_digit(differ, width);
	size_t count[257] = {0}, at[257];
	uint64_t any[256], all[256];
	for (size_t e = 0; e < m; e++)
		count[(a[e].key >> shift & mask) + 1]++;
	at[0] = 0;
	for (unsigned d = 0; d < bins; d++) {
		at[d + 1] = (count[d + 1] += count[d]);
		any[d] = 0;
		all[d] = ~(uint64_t)0;
	}
	for (size_t e = 0; e < m; e++) {
		uint64_t k = a[e].key;
		unsigned d = k >> shift & mask;
		any[d] |= k;
		all[d] &= k;
		b[count[d]++] = a[e];
	}
	for (unsigned d = 0; d < bins; d++)
		if (at[d + 1] > at[d])
			msd(b + at[d], a + at[d], at[d + 1] - at[d], !to_b,
			    any[d] ^ all[d]);
}

/* msd of keys whose differing bits are not known: found first */
static void msd_root(nbrt_kv *a, nbrt_kv *b, size_t m, int to_b)
{
	uint64_t any = 0, all = ~(uint64_t)0;
	for (size_t e = 0; e < m; e++) {
		any |= a[e].key;
		all &= a[e].key;
	}
	msd(a, b, m, to_b, any ^ all);
}

/* nbrt_order_sort_sample's buckets: NB, cut at splitters from a
 * sample of SAMPLE keys a bucket, every n / (NB * SAMPLE)-th. */
enum { NB = 256, SAMPLE = 8 };

/* One step of the search for key among the splitters: q the splitters
 * below it so far. */
#define STEP(q, k) ((q) += sp[(q) + step - 1] <= (k) ? step : 0)

/* The buckets id[e] of kv[a..b) among the NB - 1 sorted splitters sp:
 * how many are at most the key (equal keys share a bucket).  Four
 * searches side by side, in registers: one alone is a chain of eight
 * dependent loads. */
static void buckets_of(const uint64_t *sp, const nbrt_kv *kv, size_t a,
                       size_t b, unsigned char *id)
{
	size_t e = a;
	for (; e + 4 <= b; e += 4) {
		uint64_t k0 = kv[e].key, k1 = kv[e + 1].key, k2 = kv[e + 2].key,
		         k3 = kv[e + 3].key;
		unsigned q0 = 0, q1 = 0, q2 = 0, q3 = 0;
		for (unsigned step = NB / 2; step; step /= 2) {
			STEP(q0, k0);
			STEP(q1, k1);
			STEP(q2, k2);
			STEP(q3, k3);
		}
		id[e] = (unsigned char)q0;
		id[e + 1] = (unsigned char)q1;
		id[e + 2] = (unsigned char)q2;
		id[e + 3] = (unsigned char)q3;
	}
	for (; e < b; e++) {
		unsigned q = 0;
		for (unsigned step = NB / 2; step; step /= 2)
			STEP(q, kv[e].key);
		id[e] = (unsigned char)q;
	}
}
#undef STEP

int nbrt_order_sort_sample(nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                           const double *const pos[3], int dim,
                           const double lo[3], double side, int nt,
                           void (*done)(void *, const nbrt_kv *, size_t,
                                        size_t),
                           void *ctx)
{
	if (!n)
		return 0;
	_Static_assert(NB == 256, "a bucket's number is a byte");
	size_t *hist = malloc((size_t)nt * NB * sizeof *hist);
	nbrt_kv *sample = malloc(2 * NB * SAMPLE * sizeof *sample);
	unsigned char *id = malloc(n);
	size_t start[NB + 1];
	uint64_t sp[NB];
	if (!hist || !sample || !id) {
		free(hist);
		free(sample);
		free(id);
		return -1;
	}
	double cells = (double)((uint64_t)1 << key_bits[dim]);
	double top = cells - 1, scale = cells / side;
	size_t ns = n < NB * SAMPLE ? n : NB * SAMPLE;
#pragma omp parallel num_threads(nt) if (nt > 1)
	{
		int t, T;
		size_t a, b;
		slice(n, &t, &T, &a, &b);
		for (size_t e = a; pos && e < b; e++)
			kv[e] = (nbrt_kv){key_of(pos, e, dim, lo, scale, top), e};
#pragma omp barrier
#pragma omp single
		{
			/* the splitters from a sample sorted by key, the same
			 * whatever the threads */
			for (size_t q = 0; q < ns; q++)
				sample[q] = kv[q * (n / ns)];
			msd_root(sample, sample + ns, ns, 0);
			for (size_t q = 0; q + 1 < NB; q++)
				sp[q] = sample[(q + 1) * ns / NB].key;
			sp[NB - 1] = ~(uint64_t)0;
		}
		size_t *h = hist + (size_t)t * NB;
		memset(h, 0, NB * sizeof *h);
		buckets_of(sp, kv, a, b, id);
		for (size_t e = a; e < b; e++)
			h[id[e]]++;
#pragma omp barrier
#pragma omp single
		{
			size_t sum = 0;
			for (size_t d = 0; d < NB; d++) {
				start[d] = sum;
				for (int q = 0; q < T; q++) {
					size_t c = hist[(size_t)q * NB + d];
					hist[(size_t)q * NB + d] = sum;
					sum += c;
				}
			}
			start[NB] = n;
		}
		for (size_t e = a; e < b; e++)
			tmp[h[id[e]]++] = kv[e];
#pragma omp barrier
#pragma omp for schedule(dynamic, 4)
		for (long long d = 0; d < NB; d++) {
			size_t at = start[d], len = start[d + 1] - at;
			if (!len)
				continue;
			msd_root(tmp + at, kv + at, len, 1);
			if (done)
				done(ctx, kv + at, at, len);
		}
	}
	free(hist);
	free(sample);
	free(id);
	return 0;
}

size_t nbrt_order_runs(const uint64_t *key, size_t n, int shift,
                       size_t *start)
{
	/* each thread's slice counted, then written after the slices
	 * before it: the same starts whatever the threads */
	enum { MAXT = 256 };
	size_t cnt[MAXT + 1] = {0};
	int nt = 1;
#ifdef _OPENMP
	if (n >= PAR)
		nt = omp_get_max_threads();
#endif
	nt = nt > MAXT ? MAXT : nt;
#pragma omp parallel num_threads(nt) if (nt > 1)
	{
		int t, T;
		size_t lo, hi, c = 0;
		slice(n, &t, &T, &lo, &hi);
		for (size_t e = lo; e < hi; e++)
			c += e == 0 || key[e] >> shift != key[e - 1] >> shift;
		cnt[t + 1] = c;
#pragma omp barrier
		if (start) {
			size_t at = 0;
			for (int s = 0; s <= t; s++)
				at += cnt[s];
			for (size_t e = lo; e < hi; e++)
				if (e == 0 || key[e] >> shift != key[e - 1] >> shift)
					start[at++] = e;
		}
	}
	size_t total = 0;
	for (int t = 0; t <= nt; t++)
		total += cnt[t];
	return total;
}

void nbrt_order_gather(void *dst, const void *src, const size_t *perm,
                       size_t n, size_t es)
{
	char *d = dst;
	const char *s = src;
	/* the common sizes by assignment, so the copy is one move */
	if (es == 8) {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t e = 0; e < n; e++)
			memcpy(d + 8 * e, s + 8 * perm[e], 8);
	} else if (es == 4) {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t e = 0; e < n; e++)
			memcpy(d + 4 * e, s + 4 * perm[e], 4);
	} else {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t e = 0; e < n; e++)
			memcpy(d + es * e, s + es * perm[e], es);
	}
}

void nbrt_order_gather_float(float *dst, const double *src,
                             const size_t *perm, size_t n)
{
#pragma omp parallel for if (n >= PAR) schedule(static)
	for (size_t e = 0; e < n; e++)
		dst[e] = (float)src[perm[e]];
}

void nbrt_order_scatter(void *dst, const void *src, const size_t *perm,
                        size_t n, size_t es)
{
	char *d = dst;
	const char *s = src;
	if (es == 8) {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t e = 0; e < n; e++)
			memcpy(d + 8 * perm[e], s + 8 * e, 8);
	} else if (es == 4) {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t e = 0; e < n; e++)
			memcpy(d + 4 * perm[e], s + 4 * e, 4);
	} else {
#pragma omp parallel for if (n >= PAR) schedule(static)
		for (size_t e = 0; e < n; e++)
			memcpy(d + es * perm[e], s + es * e, es);
	}
}

int nbrt_order_pieces(size_t n, int (*fn)(void *ctx, size_t at, size_t len),
                      void *ctx)
{
	enum { LEAST = 1 << 17 };
	size_t nt = 1;
#ifdef _OPENMP
	nt = (size_t)omp_get_max_threads();
#endif
	size_t piece = (n + nt - 1) / nt;
	piece = piece > LEAST ? piece : LEAST;
	long long pieces = (long long)((n + piece - 1) / piece), q;
	int r = 0;
#pragma omp parallel for schedule(static) reduction(| : r) \
	if (n >= 8 * (size_t)LEAST)
	for (q = 0; q < pieces; q++) {
		size_t at = (size_t)q * piece;
		r |= fn(ctx, at, n - at < piece ? n - at : piece);
	}
	return r;
}
