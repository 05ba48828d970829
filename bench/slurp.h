/* slurp.h: a whole file read into memory, NUL-terminated, for the
 * device-side helper programs of bench/ (ptxrun, ptxcubin, clptx), each
 * built alone on the device: a header of one static function rather
 * than a library. */
#ifndef BENCH_SLURP_H
#define BENCH_SLURP_H
#include <stdio.h>
#include <stdlib.h>

/* The file at path (its length in *len where len is not NULL); exits
 * with a message naming prog where it cannot be read. */
static char *slurp(const char *prog, const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: ", prog);
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read %s\n", prog, path);
		exit(1);
	}
	fclose(f);
	s[n] = 0;
	if (len)
		*len = (size_t)n;
	return s;
}
#endif
