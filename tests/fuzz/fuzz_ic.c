/* fuzz_ic.c: the libFuzzer target for bin/nbody's reader of initial
 * conditions and snapshots in CSV (apps/nbody/snap.c, the outside input of
 * --ic and --restart).  Beyond not crashing: a refusal carries a message;
 * what is read has the seven columns of the bodies, finite values only,
 * and reads back bit for bit from the same columns written with %.17g,
 * as nbody's snapshots are, the bodies' IDs too; snap_check then accepts
 * it or says why.  (The HDF5 reader is fuzz_hdf5.c's.)  Seeds:
 * tests/fuzz/corpus/ic. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "snap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024] = "";
	snap_data d, back;
	if (snap_parse_csv("fuzz.csv", (const char *)data, size, 1000, &d, err,
	                   sizeof err)) {
		if (!err[0])
			abort();
		return 0;
	}
	if (d.n == 0 || d.n > 1000 || !d.line)
		abort();
	for (int k = 0; k <= SC_M; k++)
		if (!d.col[k])
			abort();
	/* the columns read, written again as nbody writes them */
	size_t cap = 64 + d.n * (SC_N * 26 + 22), len = 0;
	char *text = malloc(cap);
	if (!text)
		return 0;
	int ncol = 0, cols[SC_N];
	if (d.id)
		len += (size_t)snprintf(text, cap, "id,");
	for (int k = 0; k < SC_N; k++)
		if (d.col[k]) {
			len += (size_t)snprintf(text + len, cap - len, "%s%s",
			                        ncol ? "," : "", snap_col_name[k]);
			cols[ncol++] = k;
		}
	text[len++] = '\n';
	for (size_t i = 0; i < d.n; i++) {
		if (d.id)
			len += (size_t)snprintf(text + len, cap - len, "%" PRIu64 ",",
			                        d.id[i]);
		for (int c = 0; c < ncol; c++) {
			double v = d.col[cols[c]][i];
			if (!isfinite(v))
				abort();
			len += (size_t)snprintf(text + len, cap - len, "%s%.17g",
			                        c ? "," : "", v);
		}
		text[len++] = '\n';
	}
	if (snap_parse_csv("again.csv", text, len, 1000, &back, err, sizeof err) ||
	    back.n != d.n || !d.id != !back.id ||
	    (d.id && memcmp(d.id, back.id, d.n * sizeof *d.id) != 0))
		abort();
	for (int c = 0; c < ncol; c++)
		if (memcmp(d.col[cols[c]], back.col[cols[c]],
		           d.n * sizeof(double)) != 0)
			abort();
	err[0] = 0;
	if (snap_check(&d, "fuzz.csv", 0, err, sizeof err) && !err[0])
		abort();
	free(text);
	snap_data_free(&d);
	snap_data_free(&back);
	return 0;
}
