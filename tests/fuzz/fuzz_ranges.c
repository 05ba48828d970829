/* fuzz_ranges.c: the libFuzzer target for nbrun's --ranges reader
 * (apps/nbrun/ranges.c).  Bytes 0 and 1 are Ni and Nj for ranges_check,
 * byte 2 picks a rank's part [lo, hi) for ranges_part; the rest is the
 * file.  Beyond not crashing: a refusal carries a "FILE:LINE:COL: error"
 * message and leaves nothing allocated; what is accepted keeps the
 * promises of nbrt.h (offsets from 0 that never decrease, no range that
 * ends before it starts, no two groups and no two ranges of a group that
 * overlap, checked pair by pair here), reads back the same from the text
 * written from it, passes ranges_check exactly when every range is within
 * bounds, and ranges_part clips each group into the part.  Seeds:
 * tests/fuzz/corpus/ranges and the .ranges files of tests/cases/nbrun. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "ranges.h"

static int overlap(size_t a0, size_t a1, size_t b0, size_t b1)
{
	return a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1;
}

/* The lists as a --ranges file. */
static void write_lists(csv_buf *b, const nbrt_ranges *r)
{
	char t[64];
	for (size_t g = 0; g < r->ngroups; g++) {
		int n = snprintf(t, sizeof t, "%zu %zu:", r->group[2 * g],
		                 r->group[2 * g + 1]);
		csv_buf_put(b, t, (size_t)n);
		for (size_t e = r->offset[g]; e < r->offset[g + 1]; e++) {
			n = snprintf(t, sizeof t, "%s %zu %zu", e > r->offset[g] ?
			             "," : "", r->range[2 * e], r->range[2 * e + 1]);
			csv_buf_put(b, t, (size_t)n);
		}
		csv_buf_put(b, "\n", 1);
	}
}

static void check_lists(const nbrt_ranges *r)
{
	if (r->offset[0] != 0)
		abort();
	for (size_t g = 0; g < r->ngroups; g++) {
		if (r->group[2 * g] > r->group[2 * g + 1] ||
		    r->offset[g] > r->offset[g + 1])
			abort();
		for (size_t h = 0; h < g; h++)
			if (overlap(r->group[2 * g], r->group[2 * g + 1],
			            r->group[2 * h], r->group[2 * h + 1]))
				abort();
		for (size_t e = r->offset[g]; e < r->offset[g + 1]; e++) {
			if (r->range[2 * e] > r->range[2 * e + 1])
				abort();
			for (size_t f = r->offset[g]; f < e; f++)
				if (overlap(r->range[2 * e], r->range[2 * e + 1],
				            r->range[2 * f], r->range[2 * f + 1]))
					abort();
		}
	}
}

static int within(const nbrt_ranges *r, size_t ni, size_t nj)
{
	for (size_t g = 0; g < r->ngroups; g++)
		if (r->group[2 * g + 1] > ni)
			return 0;
	for (size_t e = 0; e < r->offset[r->ngroups]; e++)
		if (r->range[2 * e + 1] > nj)
			return 0;
	return 1;
}

static void same_lists(const nbrt_ranges *a, const nbrt_ranges *b)
{
	size_t ne = a->offset[a->ngroups];
	if (a->ngroups != b->ngroups || ne != b->offset[b->ngroups] ||
	    memcmp(a->group, b->group, 2 * a->ngroups * sizeof(size_t)) ||
	    memcmp(a->offset, b->offset, (a->ngroups + 1) * sizeof(size_t)) ||
	    memcmp(a->range, b->range, 2 * ne * sizeof(size_t)))
		abort();
}

static void check_part(const ranges_file *rf, size_t lo, size_t hi)
{
	nbrt_ranges p;
	size_t *group;
	if (ranges_part(rf, lo, hi, &p, &group))
		abort();
	for (size_t g = 0; g < p.ngroups; g++) {
		size_t a = rf->r.group[2 * g], b = rf->r.group[2 * g + 1];
		size_t c = a < lo ? lo : a > hi ? hi : a;
		size_t d = b < lo ? lo : b > hi ? hi : b;
		if (p.group[2 * g] != c - lo || p.group[2 * g + 1] != d - lo)
			abort();
	}
	free(group);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t ni = size > 0 ? data[0] : 0, nj = size > 1 ? data[1] : 0;
	size_t lo = size > 2 ? (data[2] & 15) : 0;
	size_t hi = lo + (size > 2 ? data[2] >> 4 : 0);
	const char *text = size > 3 ? (const char *)data + 3 : "";
	size_t len = size > 3 ? size - 3 : 0;
	ranges_file rf, back;
	char *err = NULL;
	if (ranges_parse("fuzz.ranges", text, len, &rf, &err)) {
		if (!err || strncmp(err, "fuzz.ranges", 11) != 0 || rf.group ||
		    rf.offset || rf.range || rf.gat || rf.eat)
			abort();
		free(err);
		return 0;
	}
	if (err)
		abort();
	check_lists(&rf.r);
	int ok = !ranges_check(&rf, ni, nj, &err);
	if (ok != within(&rf.r, ni, nj) || (!ok && (!err || !*err)))
		abort();
	free(err);
	check_part(&rf, lo, hi);
	csv_buf b = {0};
	write_lists(&b, &rf.r);
	if (ranges_parse("again.ranges", b.s ? b.s : "", b.len, &back, &err))
		abort();
	same_lists(&rf.r, &back.r);
	ranges_free(&back);
	csv_buf_free(&b);
	ranges_free(&rf);
	return 0;
}
