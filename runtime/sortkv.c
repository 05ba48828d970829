/* sortkv.c: nbrt_sort_kv, the runtime's one way to sort (key, value)
 * pairs: the device's radix sort (nbrt_backend.sort) where it pays, else
 * order.c's on the host; the same stable order either way. */
#include <string.h>
#include "nbrt_impl.h"
#include "order.h"

/* From this many pairs a GPU sorts them (uploads and downloads counted)
 * faster than the host: on an H200 beside 16 Xeon cores (sh bench/run.sh
 * sort device=gpu, 2026-11-27) the device took 0.25 ms (20-bit keys) to
 * 0.47 ms (63-bit) from 16384 to 65536 pairs, the host's serial sort
 * 0.23 and 0.65 ms at 16384, twice that at 32768. */
#define DEVICE_MIN 32768

int nbrt_sort_device(nbrt *rt, size_t n, int *forced)
{
	long force = -1; /* -1: the rule below; 0: the host's; 1: the device's */
	if (nbrt_env_int(rt, "NBRT_DEVICE_SORT", 0, 1, &force) < 0)
		return -1;
	*forced = force == 1;
	return (uint64_t)n <= UINT32_MAX &&
	       (force == 1 || (force == -1 && n >= DEVICE_MIN && rt->devclass &&
	                       !strncmp(rt->devclass, "gpu", 3)));
}

nbrt_kv *nbrt_sort_kv(nbrt *rt, nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                      uint64_t differ)
{
	int force, dev = nbrt_sort_device(rt, n, &force);
	if (dev < 0)
		return NULL;
	if (dev && rt->be->sort) {
		nbrt_kv *r = rt->be->sort(rt, kv, tmp, n, differ);
		/* the device's own choice falls back on the host, where the
		 * order is the same; a forced one says why it failed */
		if (r || force)
			return r;
		nbrt_note(rt, "the device's sort of %zu pairs failed (%s); sorted "
		          "on the host", n, nbrt_error(rt));
	}
	return differ ? nbrt_order_sort_bits(kv, tmp, n, differ)
	              : nbrt_order_sort(kv, tmp, n);
}
