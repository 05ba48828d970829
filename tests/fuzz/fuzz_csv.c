/* fuzz_csv.c: the libFuzzer target for nbrun's CSV reader (apps/common/csv.c).
 * Byte 0 picks the columns wanted: how many (bits 0-1: 1 to 4, of a, b,
 * c, d) and the types of a, b, c (bits 2-3, 4-5, 6-7: float, double, dd,
 * double; d is dd); the rest is the file.  Beyond
 * not crashing, what is read must come back through the writer and the
 * reader again, bit for bit (a dd as a value, see same_dd) (the digits written are promised to read
 * back as the same values), and a refusal must carry a message.  Seeds:
 * tests/fuzz/corpus/csv. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"

static size_t width(nb_prec t)
{
	return t == NB_FLOAT ? sizeof(float) : t == NB_DD ? 2 * sizeof(double)
	                                                  : sizeof(double);
}

/* The same dd value: compared normalized (hi = RN(hi + lo)), since where
 * lo is subnormal the reader's hi = RN(x), lo = RN(x - hi) can land on a
 * tie (|lo| half an ulp of hi) that the writer normalizes; the high words
 * bit for bit, the low words as numbers (a zero's sign changes nothing). */
static int same_dd(const double *a, const double *b)
{
	double sa = a[0] + a[1], sb = b[0] + b[1];
	double ea = a[1] - (sa - a[0]), eb = b[1] - (sb - b[0]);
	return memcmp(&sa, &sb, sizeof sa) == 0 && ea == eb;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[] = {"a", "b", "c", "d"};
	static const nb_prec types[] = {NB_FLOAT, NB_DOUBLE, NB_DD, NB_DOUBLE};
	uint8_t how = size ? data[0] : 0;
	int ncol = 1 + (how & 3);
	csv_col col[4], back[4];
	for (int k = 0; k < ncol; k++) {
		nb_prec t = k < 3 ? types[how >> (2 + 2 * k) & 3] : NB_DD;
		col[k] = (csv_col){names[k], t, NULL, NULL};
		back[k] = (csv_col){names[k], col[k].type, NULL, NULL};
	}
	const char *text = size ? (const char *)data + 1 : "";
	size_t len = size ? size - 1 : 0;
	size_t nrow = 0, nrow2 = 0;
	char *err = NULL;
	if (csv_parse("fuzz.csv", text, len, col, ncol, "LMEM", 0, &nrow,
	              &err)) {
		if (!err || !*err)
			abort();
		free(err);
		return 0;
	}
	if (err)
		abort();
	csv_buf b = {0};
	csv_write(&b, col, ncol, nrow);
	if (csv_parse("again.csv", b.s, b.len, back, ncol, "LMEM", 0, &nrow2,
	              &err) || nrow2 != nrow)
		abort();
	for (int k = 0; k < ncol; k++) {
		if (col[k].type == NB_DD) {
			const double *x = col[k].data, *y = back[k].data;
			for (size_t i = 0; i < nrow; i++)
				if (!same_dd(&x[2 * i], &y[2 * i]))
					abort();
		} else if (nrow && memcmp(col[k].data, back[k].data,
		                          nrow * width(col[k].type)) != 0) {
			abort();
		}
		free(col[k].data);
		free(back[k].data);
	}
	csv_buf_free(&b);
	return 0;
}
