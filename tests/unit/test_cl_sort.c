/* test_cl_sort.c: the device's radix sort (cl/sort.c) on PoCL against
 * order.c's nbrt_order_sort, which test_order_sort checks against qsort:
 * the same array bit for bit, values included (stability), through
 * nbrt_sort_kv with NBRT_DEVICE_SORT=1 (values their indices, made on the
 * device; other values of 32 bits; wider ones, gathered on the host) and
 * through nbrt_cl_sort on device buffers (its own reduction finding the
 * bits that differ) and nbrt_cl_sort8 (a byte a pass); fresh random keys of several kinds, sizes from 0
 * past a tile's edges to ~2^20. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "cl/cl_impl.h"
#include "order.h"

#include "cpudev.h"
#include "kv.h"
#include "seed.h"
#include "unit.h"

static unsigned short rng[3];
static nbrt *rt;

enum { ALL64, MORTON, BITS20, FEW, EQUAL, TOPBIT, SORTED, REVERSED, NKIND };
static const char *const kind_name[NKIND] = {
	"all 64 bits", "63-bit", "20-bit", "few bits (gaps)", "all equal",
	"top bit only", "already sorted", "reversed"};

/* key e of n of a kind */
static uint64_t draw(int kind, size_t e, size_t n)
{
	uint64_t r = rand64(rng);
	switch (kind) {
	case MORTON:
		return r >> 1;
	case BITS20:
		return r & 0xfffff;
	case FEW: /* bits 3, 9-10 and 40: three digits' passes, gaps skipped */
		return (r & 0x10000000608ULL) | 0x5500000000000000ULL;
	case EQUAL:
		return 0x123456789abcdefULL;
	case TOPBIT:
		return r & (uint64_t)1 << 63;
	case SORTED: /* with runs of equal keys */
		return (uint64_t)(e / 3) * 0x9e3779b9ULL;
	case REVERSED:
		return (uint64_t)(n - e) << 20 | 0xabc;
	default:
		return r;
	}
}

/* kv[0..n) sorted both ways and compared; wide: values over 32 bits
 * (the host gathers them back by index) */
static void check_kv(const nbrt_kv *in, size_t n, int kind, int wide,
                     uint64_t differ)
{
	nbrt_kv *ref = malloc(2 * (n + 1) * sizeof *ref);
	nbrt_kv *kv = malloc(2 * (n + 1) * sizeof *kv);
	ck_assert(ref && kv);
	memcpy(ref, in, n * sizeof *in);
	memcpy(kv, in, n * sizeof *in);
	nbrt_kv *want = nbrt_order_sort(ref, ref + n, n);
	nbrt_kv *r = nbrt_sort_kv(rt, kv, kv + n, n, differ);
	ck_assert_msg(r, "nbrt_sort_kv: %s", nbrt_error(rt));
	ck_assert(r == kv || r == kv + n);
	size_t e = first_wrong(r, want, n);
	if (e < n)
		ck_assert_msg(0, "n %zu, %s keys%s, differ %llx: element %zu is "
		              "(%llx, %llx), not (%llx, %llx)", n, kind_name[kind],
		              wide ? ", wide values" : "", (unsigned long long)differ,
		              e, (unsigned long long)r[e].key,
		              (unsigned long long)r[e].val,
		              (unsigned long long)want[e].key,
		              (unsigned long long)want[e].val);
	free(ref);
	free(kv);
}

START_TEST(host_pairs)
{
	static const size_t sizes[] = {0,    1,    2,    3,     17,   1021,
	                               4093, 4095, 4096, 4097,  7919, 100003,
	                               1048573};
	ck_assert_int_eq(setenv("NBRT_DEVICE_SORT", "1", 1), 0);
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int kind = 0; kind < NKIND; kind++) {
			size_t n = sizes[s];
			/* one large case: PoCL on two shared cores */
			if (n > 100003 && kind != MORTON)
				continue;
			nbrt_kv *in = malloc((n + 1) * sizeof *in);
			ck_assert(in);
			uint64_t any = 0, all = ~(uint64_t)0;
			for (size_t e = 0; e < n; e++) {
				in[e] = (nbrt_kv){draw(kind, e, n), e};
				any |= in[e].key;
				all &= in[e].key;
			}
			check_kv(in, n, kind, 0, 0);
			if (n > 100000)
				goto next;
			/* one group for all the tiles */
			if (n == 100003 && kind == MORTON) {
				ck_assert_int_eq(setenv("NBRT_SORT_GROUPS", "1", 1), 0);
				check_kv(in, n, kind, 0, 0);
				ck_assert_int_eq(unsetenv("NBRT_SORT_GROUPS"), 0);
			}
			/* the caller's differ, and values past 32 bits */
			check_kv(in, n, kind, 0, any ^ all);
			for (size_t e = 0; e < n; e++)
				in[e].val = rand64(rng);
			check_kv(in, n, kind, 1, 0);
			/* values of 32 bits, not their indices: sent up */
			for (size_t e = 0; e < n; e++)
				in[e].val >>= 32;
			check_kv(in, n, kind, 0, 0);
		next:
			free(in);
		}
	/* more groups (293) than a group's work items (256), as on a GPU:
	 * the scan's chunks; two chunks of the copies (sort.c's CHUNK) */
	size_t n = 300007;
	nbrt_kv *in = malloc(n * sizeof *in);
	ck_assert(in);
	for (size_t e = 0; e < n; e++)
		in[e] = (nbrt_kv){draw(MORTON, e, n), e};
	ck_assert_int_eq(setenv("NBRT_SORT_GROUPS", "4096", 1), 0);
	check_kv(in, n, MORTON, 0, 0);
	/* values their indices but in the second chunk, whose values send
	 * the first's too */
	in[n - 1].val = 7;
	check_kv(in, n, MORTON, 0, 0);
	/* and values past 32 bits in more than one chunk of the copies */
	for (size_t e = 0; e < n; e++)
		in[e].val = rand64(rng);
	check_kv(in, n, MORTON, 1, 0);
	ck_assert_int_eq(setenv("NBRT_SORT_GROUPS", "0", 1), 0);
	nbrt_kv *r = nbrt_sort_kv(rt, in, in, n, 0);
	ck_assert(!r && strstr(nbrt_error(rt), "NBRT_SORT_GROUPS='0'"));
	ck_assert_int_eq(unsetenv("NBRT_SORT_GROUPS"), 0);
	free(in);
	ck_assert_int_eq(unsetenv("NBRT_DEVICE_SORT"), 0);
}
END_TEST

/* k, v (n) sorted on device buffers, 4 bits a pass (nbrt_cl_sort, the
 * bits that differ found by the device) or a byte a pass (byte:
 * nbrt_cl_sort8, its own counts); the result in *keys and *vals,
 * wherever they end, read back into k, v */
static void sort_buffers(uint64_t *k, uint32_t *v, size_t n, int byte)
{
	Cl *c = rt->priv;
	cl_mem m[4];
	cl_int err;
	for (int b = 0; b < 4; b++) {
		m[b] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, n * (b % 2 ? 4 : 8),
		                      NULL, &err);
		ck_assert(m[b]);
	}
	ck_assert_int_eq(clEnqueueWriteBuffer(c->q, m[0], CL_TRUE, 0, n * 8, k,
	                                      0, NULL, NULL), CL_SUCCESS);
	ck_assert_int_eq(clEnqueueWriteBuffer(c->q, m[1], CL_TRUE, 0, n * 4, v,
	                                      0, NULL, NULL), CL_SUCCESS);
	if (byte)
		ck_assert_msg(!nbrt_cl_sort8(rt, &m[0], &m[1], &m[2], &m[3], n, 0),
		              "nbrt_cl_sort8: %s", nbrt_error(rt));
	else
		ck_assert_msg(!nbrt_cl_sort(rt, &m[0], &m[1], &m[2], &m[3], n, 0),
		              "nbrt_cl_sort: %s", nbrt_error(rt));
	ck_assert_int_eq(clEnqueueReadBuffer(c->q, m[0], CL_TRUE, 0, n * 8, k, 0,
	                                     NULL, NULL), CL_SUCCESS);
	ck_assert_int_eq(clEnqueueReadBuffer(c->q, m[1], CL_TRUE, 0, n * 4, v, 0,
	                                     NULL, NULL), CL_SUCCESS);
	for (int b = 0; b < 4; b++)
		clReleaseMemObject(m[b]);
}

/* nbrt_cl_sort and nbrt_cl_sort8 on buffers the caller holds: 32-bit
 * values; sizes past a tile's edges and to ~100 tiles, whose counts the
 * byte sort chains tile to tile */
START_TEST(device_buffers)
{
	static const size_t sizes[] = {2, 1021, 4097, 100003};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
		for (int kind = 0; kind < 2 * NKIND; kind++) {
			size_t n = sizes[s];
			int byte = kind >= NKIND;
			nbrt_kv *ref = malloc(2 * n * sizeof *ref);
			uint64_t *k = malloc(n * sizeof *k);
			uint32_t *v = malloc(n * sizeof *v);
			ck_assert(ref && k && v);
			for (size_t e = 0; e < n; e++) {
				k[e] = draw(kind % NKIND, e, n);
				v[e] = (uint32_t)rand64(rng);
				ref[e] = (nbrt_kv){k[e], v[e]};
			}
			nbrt_kv *want = nbrt_order_sort(ref, ref + n, n);
			/* look-backs of one tile at a time and of the most */
			ck_assert_int_eq(setenv("NBRT_SORT8_WINDOW", kind % 2 ? "1" : "16",
			                        1), 0);
			sort_buffers(k, v, n, byte);
			size_t e = 0;
			while (e < n && k[e] == want[e].key && v[e] == want[e].val)
				e++;
			if (e < n)
				ck_assert_msg(0, "device buffers, %s, n %zu, %s keys: "
				              "element %zu is (%llx, %x), not (%llx, %llx)",
				              byte ? "a byte a pass" : "4 bits a pass", n,
				              kind_name[kind % NKIND], e,
				              (unsigned long long)k[e], v[e],
				              (unsigned long long)want[e].key,
				              (unsigned long long)want[e].val);
			free(ref);
			free(k);
			free(v);
		}
	ck_assert_int_eq(unsetenv("NBRT_SORT8_WINDOW"), 0);
}
END_TEST

/* NBRT_DEVICE_SORT takes 0 or 1 and names itself otherwise, as
 * NBRT_SORT8_WINDOW does outside 1 to 16 */
START_TEST(bad_setting)
{
	Cl *c = rt->priv;
	cl_int err;
	cl_mem m[4];
	for (int b = 0; b < 4; b++)
		ck_assert(m[b] = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 64, NULL,
		                                &err));
	ck_assert_int_eq(setenv("NBRT_SORT8_WINDOW", "17", 1), 0);
	ck_assert(nbrt_cl_sort8(rt, &m[0], &m[1], &m[2], &m[3], 4, 0) < 0);
	ck_assert_msg(strstr(nbrt_error(rt), "NBRT_SORT8_WINDOW='17'"), "%s",
	              nbrt_error(rt));
	ck_assert_int_eq(unsetenv("NBRT_SORT8_WINDOW"), 0);
	clFinish(c->q);
	for (int b = 0; b < 4; b++)
		clReleaseMemObject(m[b]);
	nbrt_kv kv[2] = {{2, 0}, {1, 1}}, tmp[2];
	ck_assert_int_eq(setenv("NBRT_DEVICE_SORT", "yes", 1), 0);
	ck_assert(!nbrt_sort_kv(rt, kv, tmp, 2, 0));
	ck_assert_msg(strstr(nbrt_error(rt), "NBRT_DEVICE_SORT='yes'"), "%s",
	              nbrt_error(rt));
	ck_assert_int_eq(setenv("NBRT_DEVICE_SORT", "0", 1), 0);
	nbrt_kv *r = nbrt_sort_kv(rt, kv, tmp, 2, 0);
	ck_assert(r && r[0].key == 1 && r[0].val == 1 && r[1].key == 2);
	ck_assert_int_eq(unsetenv("NBRT_DEVICE_SORT"), 0);
}
END_TEST

int main(void)
{
	if (cpu_missing()) {
		printf("test_cl_sort: no OpenCL CPU device; skipped\n");
		return 77;
	}
	seed_rng("test_cl_sort", rng);
	char *err = NULL;
	rt = nbrt_open("cpu", &err);
	if (!rt) {
		fprintf(stderr, "test_cl_sort: %s\n", err);
		free(err);
		return 1;
	}
	Suite *s;
	TCase *tc = unit_case(&s, "cl_sort", 120);
	tcase_add_test(tc, host_pairs);
	tcase_add_test(tc, device_buffers);
	tcase_add_test(tc, bad_setting);
	int failed = unit_run(s, CK_NOFORK);
	nbrt_close(rt);
	return failed ? 1 : 0;
}
