/* test_order_sort.c: order.c's radix sort (nbrt_order_sort) against qsort
 * by (key, index), which is the one stable order: fresh random keys,
 * uniform over 63 bits, nine in ten sharing their top bits (one big
 * bucket, sorted by all threads), few distinct keys (stability), keys
 * differing in low bits only; sizes from 0 past the parallel threshold
 * (65536), on 1, 2 and 3 threads; and one top-heavy set whose big bucket
 * (over 2^20 keys) the sort cuts again on its own bits (order.c's recut).
 * nbrt_order_sort_sample the same way: sizes 0, 1, primes about its
 * buckets' insertion and narrow-digit bounds and its sample's size and
 * past them, on 1 to 16 threads, each bucket handed over once.
 * Also nbrt_order_pieces: every byte in one piece, a piece a thread (128
 * KB at least) from 1 MB on, over several threads, fn's results ORed. */
#include <check.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "order.h"

#include "kv.h"
#include "seed.h"
#include "unit.h"

static unsigned short rng[3];

static int by_key_index(const void *a, const void *b)
{
	const nbrt_kv *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->val > y->val) - (x->val < y->val);
}

/* r, sorted, is ref; else where it first differs, in one assertion */
static void expect(const nbrt_kv *r, const nbrt_kv *ref, size_t n,
                   const char *what)
{
	size_t e = first_wrong(r, ref, n);
	if (e < n)
		ck_assert_msg(0, "n %zu, %s: element %zu is (%llx, %llu), not "
		              "(%llx, %llu)", n, what, e,
		              (unsigned long long)r[e].key,
		              (unsigned long long)r[e].val,
		              (unsigned long long)ref[e].key,
		              (unsigned long long)ref[e].val);
}

enum { UNIFORM, TOPHEAVY, FEW, LOWBITS, NKIND };

static uint64_t draw(int kind)
{
	uint64_t r = rand64(rng) >> 1;
	switch (kind) {
	case TOPHEAVY:
		return nrand48(rng) % 10 ? (r & 0xffffffffffULL) | 0x5ULL << 58 : r;
	case FEW:
		return r % 5 << 40;
	case LOWBITS:
		return r & 0x3ff;
	default:
		return r;
	}
}

START_TEST(against_qsort)
{
	static const size_t sizes[] = {0, 1, 2, 1000, 65536, 70001, 1200007};
	int keep = omp_get_max_threads();
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int kind = 0; kind < NKIND; kind++) {
			size_t n = sizes[s];
			if (n > 70001 && kind != TOPHEAVY)
				continue;
			nbrt_kv *in = malloc((n + 1) * sizeof *in);
			nbrt_kv *ref = malloc((n + 1) * sizeof *ref);
			nbrt_kv *kv = malloc(2 * (n + 1) * sizeof *kv);
			for (size_t e = 0; e < n; e++)
				in[e] = (nbrt_kv){draw(kind), e};
			memcpy(ref, in, n * sizeof *in);
			qsort(ref, n, sizeof *ref, by_key_index);
			for (int th = 1; th <= 3; th++) {
				omp_set_num_threads(th);
				memcpy(kv, in, n * sizeof *in);
				nbrt_kv *r = nbrt_order_sort(kv, kv + n, n);
				ck_assert(r == kv || r == kv + n);
				char what[64];
				snprintf(what, sizeof what, "keys %d, %d threads", kind, th);
				expect(r, ref, n, what);
			}
			free(in);
			free(ref);
			free(kv);
		}
	omp_set_num_threads(keep);
}
END_TEST

/* nbrt_order_sort_sample's done: the keys handed over, counted */
static void handed(void *ctx, const nbrt_kv *r, size_t at, size_t len)
{
	(void)r;
	(void)at;
#pragma omp atomic
	*(size_t *)ctx += len;
}

START_TEST(sample_against_qsort)
{
	static const size_t sizes[] = {0, 1, 2, 3, 23, 29, 509, 521, 4099, 9001,
	                               65537, 131071};
	static const int threads[] = {1, 2, 3, 5, 8, 16};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int kind = 0; kind < NKIND; kind++) {
			size_t n = sizes[s];
			nbrt_kv *in = malloc((n + 1) * sizeof *in);
			nbrt_kv *ref = malloc((n + 1) * sizeof *ref);
			nbrt_kv *kv = malloc(2 * (n + 1) * sizeof *kv);
			ck_assert(in && ref && kv);
			for (size_t e = 0; e < n; e++)
				in[e] = (nbrt_kv){draw(kind), e};
			memcpy(ref, in, n * sizeof *in);
			qsort(ref, n, sizeof *ref, by_key_index);
			for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
				int th = threads[t];
				memcpy(kv, in, n * sizeof *in);
				size_t seen = 0;
				ck_assert(nbrt_order_sort_sample(kv, kv + n, n, NULL, 3, NULL,
				                                 1, th, handed, &seen) == 0);
				ck_assert_msg(seen == n, "sample: %zu of %zu handed over",
				              seen, n);
				char what[64];
				snprintf(what, sizeof what, "sample: keys %d, %d threads",
				         kind, th);
				expect(kv, ref, n, what);
			}
			free(in);
			free(ref);
			free(kv);
		}
}
END_TEST

/* What nbrt_order_pieces' calls did: each byte's count of pieces, the
 * pieces, the shortest but the last, the threads that ran one, and the
 * byte whose piece answers 1. */
typedef struct Seen {
	unsigned char *hits;
	size_t n, pieces, shortest, mark;
	unsigned threads; /* a bit a thread */
} Seen;

static int piece(void *ctx, size_t at, size_t len)
{
	Seen *w = ctx;
	for (size_t e = at; e < at + len; e++)
		w->hits[e]++;
	unsigned me = 1u << (omp_get_thread_num() & 31);
#pragma omp critical
	{
		w->pieces++;
		if (at + len < w->n && len < w->shortest)
			w->shortest = len;
		w->threads |= me;
	}
	return w->mark >= at && w->mark < at + len;
}

START_TEST(pieces)
{
	static const size_t sizes[] = {0, 1, 131071, 1048575, 1048576,
	                               3145733, 17825792};
	int keep = omp_get_max_threads();
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int th = 1; th <= 16; th *= 2) {
			size_t n = sizes[s];
			omp_set_num_threads(th);
			for (int marked = 0; marked < 2; marked++) {
				Seen w = {calloc(n + 1, 1), n, 0, (size_t)-1,
				          marked ? n / 2 : n + 1, 0};
				ck_assert(w.hits != NULL);
				int r = nbrt_order_pieces(n, piece, &w);
				ck_assert_msg(r == (marked && n > 0), "n %zu, %d threads: "
				              "result %d", n, th, r);
				size_t e = 0;
				while (e < n && w.hits[e] == 1)
					e++;
				ck_assert_msg(e == n, "n %zu, %d threads: byte %zu in %d "
				              "pieces", n, th, e, w.hits[e]);
				ck_assert(w.shortest == (size_t)-1 || w.shortest >= 1 << 17);
				if (n >= (size_t)th << 17)
					ck_assert_msg(w.pieces == (size_t)th, "n %zu, %d "
					              "threads: %zu pieces", n, th, w.pieces);
				if (n >= 1 << 20 && th > 1)
					ck_assert_msg(w.threads & (w.threads - 1), "n %zu, %d "
					              "threads: one thread", n, th);
				free(w.hits);
			}
		}
	omp_set_num_threads(keep);
}
END_TEST

int main(void)
{
	seed_rng("test_order_sort", rng);
	Suite *s;
	TCase *tc = unit_case(&s, "order_sort", 120);
	tcase_add_test(tc, against_qsort);
	tcase_add_test(tc, sample_against_qsort);
	tcase_add_test(tc, pieces);
	int failed = unit_run(s, CK_NOFORK);
	return failed ? 1 : 0;
}
