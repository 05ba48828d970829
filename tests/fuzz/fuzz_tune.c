/* fuzz_tune.c: the libFuzzer target for the tuner's cache entries
 * (nbrt_tunefile_read, runtime/tunefile.c), which the runtime reads from
 * a cache directory anyone with the user's rights could have damaged.
 * Beyond not reading past the input: what is accepted is in range, and
 * written again reads back as the same variant.  Seeds:
 * tests/fuzz/corpus/tune (entries the tuner wrote, and damaged ones). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a private copy of exactly size bytes, so ASan sees any read past */
	char *s = malloc(size ? size : 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	nbrt_variant v, w;
	double rate, rate2;
	if (nbrt_tunefile_read(s, size, &v, &rate) == 0) {
		if (v.ui < 1 || v.ui > 64 || v.uj < 1 || v.uj > 64 ||
		    v.split < 1 || v.split > 16 || (v.split & (v.split - 1)) ||
		    v.wg < 0 || v.tile < -1 || v.warps < 1 || v.warps > 2 ||
		    !(rate > 0))
			abort();
		char *again = nbrt_tunefile_write(&v, rate, 1);
		if (!again || nbrt_tunefile_read(again, strlen(again), &w,
		                                 &rate2) ||
		    memcmp(&v, &w, sizeof v))
			abort();
		free(again);
	}
	free(s);
	return 0;
}
