/* test_order_sort.c: order.c's radix sort (nbrt_order_sort) against qsort
 * by (key, index), which is the one stable order: fresh random keys,
 * uniform over 63 bits, nine in ten sharing their top bits (one big
 * bucket, sorted by all threads), few distinct keys (stability), keys
 * differing in low bits only; sizes from 0 past the parallel threshold
 * (65536), on 1, 2 and 3 threads; and one top-heavy set whose big bucket
 * (over 2^20 keys) the sort cuts again on its own bits (order.c's recut). */
#include <check.h>
#include <omp.h>
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
				size_t e = first_wrong(r, ref, n);
				if (e < n)
					ck_assert_msg(0,
					              "n %zu, keys %d, %d threads: element %zu "
					              "is (%llx, %llu), not (%llx, %llu)", n,
					              kind, th, e,
					              (unsigned long long)r[e].key,
					              (unsigned long long)r[e].val,
					              (unsigned long long)ref[e].key,
					              (unsigned long long)ref[e].val);
			}
			free(in);
			free(ref);
			free(kv);
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
	int failed = unit_run(s, CK_NOFORK);
	return failed ? 1 : 0;
}
