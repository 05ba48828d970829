/* ranges.h: the files of nbrun --ranges, the block-sparse lists of
 * nbrt_run_ranges as text: one i-group a line, "I0 I1: J0 J1, J0 J1",
 * every range half-open (the format: docs/man/nbrun.1, docs/tutorial.md). */
#ifndef RANGES_H
#define RANGES_H

#include <stddef.h>
#include "nbrt.h"

/* A file read: r is what nbrt_run_ranges takes; the rest keeps where
 * each group and j-range was written, for the messages of ranges_check. */
typedef struct ranges_file {
	nbrt_ranges r;
	size_t *group, *offset, *range; /* r's storage (malloc'd) */
	size_t *gat, *eat; /* byte of the text where group g, entry e start */
	const char *path;  /* as given: named in messages */
	const char *text;
	size_t len;
	char *own;         /* ranges_read's copy of the text, else NULL */
} ranges_file;

/* Reads text[0..len) (named path in messages; both must outlive rf),
 * refusing bad syntax, numbers that are not indices (signs, fractions,
 * beyond SIZE_MAX), ranges that end before they start, overlapping
 * i-groups and overlapping j-ranges of one group, and lists larger than
 * the memory there is (checked before they are allocated).  Accepted
 * besides: blank lines, '#' comments to the end of a line, CRLF line
 * ends, a UTF-8 byte order mark, empty groups, ranges and lists.
 * Returns 0, or -1 with *err a malloc'd "FILE:LINE:COL: error: MSG" and
 * the line with a caret, newline-ended, and rf empty. */
int ranges_parse(const char *path, const char *text, size_t len,
                 ranges_file *rf, char **err);
/* The same on a file ("-": standard input, named <stdin>), no larger
 * than half the memory there is. */
int ranges_read(const char *path, ranges_file *rf, char **err);
/* The bounds, once the inputs give them: every i-group within [0, ni),
 * every j-range within [0, nj).  Returns 0, or -1 with *err set as
 * ranges_parse sets it, at the first range out of bounds. */
int ranges_check(const ranges_file *rf, size_t ni, size_t nj, char **err);
/* The lists for a part [lo, hi) of the i-range (a rank's, under MPI):
 * groups clipped to it and shifted by -lo, into *part, whose arrays are
 * malloc'd (*group; *offset and range are rf's own).  Returns 0 or -1
 * (out of memory). */
int ranges_part(const ranges_file *rf, size_t lo, size_t hi,
                nbrt_ranges *part, size_t **group);
void ranges_free(ranges_file *rf);

#endif
