/* kv.h: what the two sort tests (test_order_sort, test_cl_sort) share:
 * where a sort's key-value pairs first leave the reference's.  Found
 * first and asserted once: each of Check's assertions costs a write. */
#include <stddef.h>
#include "order.h"

/* The first element where r and ref differ, or n. */
static inline size_t first_wrong(const nbrt_kv *r, const nbrt_kv *ref,
                                 size_t n)
{
	size_t e = 0;
	while (e < n && r[e].key == ref[e].key && r[e].val == ref[e].val)
		e++;
	return e;
}
