/* order.h: Morton order for the runtime's spatial paths (order.c): keys
 * from cell coordinates or from doubles, a stable parallel radix sort of
 * (key, value) pairs, and gathers and scatters through a permutation, for
 * the cell lists (cells.c, cutoff.c) and the treecode (tree.c). */
#ifndef NBRT_ORDER_H
#define NBRT_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* An element to sort: its key, and a value carried along (an index, or
 * an index with a few bits of the caller's packed in). */
typedef struct nbrt_kv {
	uint64_t key;
	uint64_t val;
} nbrt_kv;

/* Bits of a coordinate in a key of dim axes: 31 in 1-D and 2-D, 21 in
 * 3-D (63 bits). */
int nbrt_order_bits(int dim);
/* The Morton key of cell coordinates u[0..dim): bits interleaved, axis 0
 * lowest; each coordinate below 2^nbrt_order_bits(dim). */
uint64_t nbrt_order_morton(const uint64_t u[3], int dim);
/* The coordinates of a Morton key (the inverse of the above). */
void nbrt_order_unmorton(uint64_t key, int dim, uint64_t u[3]);
/* Keys of n points pos[d][e] in the cube [lo, lo + side)^dim, 2^bits
 * cells an axis, points outside it clamped to its faces; kv[e] gets the
 * key and the value e.  In parallel for large n. */
void nbrt_order_keys(nbrt_kv *kv, const double *const pos[3], size_t n,
                     int dim, const double lo[3], double side);
/* Sorts kv[0..n) by key, stably (equal keys keep their order), with tmp
 * of n elements as room; the result is in kv or tmp, which is returned.
 * Passes over digits that no two keys differ in are skipped.  For large
 * n, one parallel pass on the top bits into cache-sized buckets, then the
 * buckets' passes in parallel; the order is the same whatever the
 * threads (tests/unit/test_order_sort.c). */
nbrt_kv *nbrt_order_sort(nbrt_kv *kv, nbrt_kv *tmp, size_t n);
/* The same where the caller, making the keys, found `differ`: the bits
 * some of the keys have and some not (their OR XOR their AND), which
 * nbrt_order_sort finds in a pass of its own. */
nbrt_kv *nbrt_order_sort_bits(nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                              uint64_t differ);
/* The same order in one parallel region of nt threads (1: serially),
 * with the keys: those of pos as nbrt_order_keys makes them (pos NULL:
 * kv's own), cut into 256 buckets at splitters from a sample (even on a
 * clustered set), each bucket sorted by one thread (the MSD sort) into kv
 * and handed to done(ctx, kv + at, at, len) unless done is NULL.  The
 * treecode's host sort at small N, where each region of the other sorts
 * cost tens of microseconds on a 16-core host.  0, or -1 out of memory. */
int nbrt_order_sort_sample(nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                           const double *const pos[3], int dim,
                           const double lo[3], double side, int nt,
                           void (*done)(void *, const nbrt_kv *, size_t,
                                        size_t),
                           void *ctx);
/* The runs of equal key >> shift in the sorted key[0..n): their count,
 * and where each starts in start (unless NULL), in parallel for large n
 * with the same result whatever the threads. */
size_t nbrt_order_runs(const uint64_t *key, size_t n, int shift,
                       size_t *start);
/* dst[e] = src[perm[e]] for e < n, elements of es bytes. */
void nbrt_order_gather(void *dst, const void *src, const size_t *perm,
                       size_t n, size_t es);
/* The same from doubles into floats (a float kernel's sorted copy). */
void nbrt_order_gather_float(float *dst, const double *src,
                             const size_t *perm, size_t n);
/* dst[perm[e]] = src[e] for e < n: sorted results back to the caller's
 * order. */
void nbrt_order_scatter(void *dst, const void *src, const size_t *perm,
                        size_t n, size_t es);
/* fn(ctx, at, len) over the bytes [0, n) cut into pieces, from 1 MB on
 * in parallel, a piece a thread (n / threads, 128 KB at least: 1 MB
 * pieces gave a 4 MB copy 4 of an H100 host's 16 threads, and such
 * copies were the device cells' scatter phase); the OR of fn's results.
 * The copies through pinned staging (cl/array.c's nbrt_cl_copy) and
 * tree.c's comparison of position columns. */
int nbrt_order_pieces(size_t n, int (*fn)(void *ctx, size_t at, size_t len),
                      void *ctx);

#endif
