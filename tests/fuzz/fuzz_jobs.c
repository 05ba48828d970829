/* fuzz_jobs.c: the libFuzzer target for nbrun's --jobs reader
 * (apps/nbrun/jobs.c).  Beyond not crashing: a refusal carries a
 * "FILE:LINE:COL: error" message and leaves nothing allocated; what is
 * accepted has argv[0] "nbrun" and a NULL after the last word, no job
 * without arguments, and reads back the same jobs (assignments, words,
 * redirections) from the text written from it with every word (and
 * every value) in single quotes.
 * Seeds: tests/fuzz/corpus/jobs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "jobs.h"

/* s in single quotes, as sh and jobs.c read it: ' as '\'' */
static void quoted(csv_buf *b, const char *s)
{
	csv_buf_put(b, "'", 1);
	for (; *s; s++)
		if (*s == '\'')
			csv_buf_put(b, "'\\''", 4);
		else
			csv_buf_put(b, s, 1);
	csv_buf_put(b, "'", 1);
}

static void write_jobs(csv_buf *b, const job *j, int n)
{
	for (int i = 0; i < n; i++) {
		for (int e = 0; e < j[i].nenv; e++) {
			const char *eq = strchr(j[i].env[e], '=');
			csv_buf_put(b, j[i].env[e], (size_t)(eq - j[i].env[e]) + 1);
			quoted(b, eq + 1);
			csv_buf_put(b, " ", 1);
		}
		for (int a = 1; a < j[i].argc; a++) {
			quoted(b, j[i].argv[a]);
			csv_buf_put(b, " ", 1);
		}
		if (j[i].out) {
			csv_buf_put(b, ">", 1);
			quoted(b, j[i].out);
			csv_buf_put(b, " ", 1);
		}
		if (j[i].err) {
			csv_buf_put(b, "2>", 2);
			quoted(b, j[i].err);
		}
		csv_buf_put(b, "\n", 1);
	}
}

static int differ(const char *x, const char *y)
{
	return !x != !y || (x && strcmp(x, y));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	job *j, *back;
	int n, nb;
	char *err = NULL;
	if (jobs_parse("fuzz.jobs", (const char *)data, size, &j, &n, &err)) {
		if (!err || strncmp(err, "fuzz.jobs:", 10) != 0 || j || n)
			abort();
		free(err);
		return 0;
	}
	if (err)
		abort();
	for (int i = 0; i < n; i++)
		if (j[i].argc < 1 || strcmp(j[i].argv[0], "nbrun") ||
		    j[i].argv[j[i].argc] || j[i].line < 1 ||
		    j[i].argc == 1)
			abort();
	csv_buf b = {0};
	write_jobs(&b, j, n);
	if (jobs_parse("again.jobs", b.s ? b.s : "", b.len, &back, &nb, &err) ||
	    nb != n)
		abort();
	for (int i = 0; i < n; i++) {
		if (back[i].argc != j[i].argc || differ(back[i].out, j[i].out) ||
		    differ(back[i].err, j[i].err) || back[i].nenv != j[i].nenv)
			abort();
		for (int e = 0; e < j[i].nenv; e++)
			if (strcmp(back[i].env[e], j[i].env[e]) ||
			    !strchr(j[i].env[e], '='))
				abort();
		for (int a = 0; a < j[i].argc; a++)
			if (strcmp(back[i].argv[a], j[i].argv[a]))
				abort();
	}
	jobs_free(back, nb);
	jobs_free(j, n);
	csv_buf_free(&b);
	return 0;
}
