/* sortkv.c: nbrt_sort_kv, the runtime's one way to sort (key, value)
 * pairs: the device's radix sort (nbrt_backend.sort) where it pays, else
 * order.c's on the host; the same stable order either way. */
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"
#include "order.h"

/* From this many pairs a GPU sorts them (uploads and downloads counted)
 * faster than the host's parallel sort. */
#define DEVICE_MIN 131072

nbrt_kv *nbrt_sort_kv(nbrt *rt, nbrt_kv *kv, nbrt_kv *tmp, size_t n,
                      uint64_t differ)
{
	const char *e = getenv("NBRT_DEVICE_SORT");
	int force = -1;
	if (e && *e) {
		if (strcmp(e, "0") && strcmp(e, "1")) {
			nbrt_fail(rt, "NBRT_DEVICE_SORT '%s': it must be 0 (the host's "
			          "sort) or 1 (the device's)", e);
			return NULL;
		}
		force = *e == '1';
	}
	int dev = rt->be->sort && (uint64_t)n <= UINT32_MAX &&
	          (force == 1 || (force == -1 && n >= DEVICE_MIN && rt->devclass &&
	                          !strncmp(rt->devclass, "gpu", 3)));
	if (dev)
		return rt->be->sort(rt, kv, tmp, n, differ);
	return differ ? nbrt_order_sort_bits(kv, tmp, n, differ)
	              : nbrt_order_sort(kv, tmp, n);
}
