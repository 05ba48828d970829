/* jobs.h: the files of nbrun --jobs, many nbrun command lines run in one
 * process: one job a line, its arguments split and quoted as sh does
 * (a subset), with >PATH and 2>PATH for the job's own output. */
#ifndef JOBS_H
#define JOBS_H

#include <stddef.h>

typedef struct job {
	int argc;
	char **argv;      /* argv[0] "nbrun", then the words; argv[argc] NULL */
	char *out, *err;  /* >PATH, 2>PATH: where the job's stdout and
	                   * stderr go, else NULL (the process's own) */
	int nenv;
	char **env;       /* NAME=VALUE before the words: the job's own */
	int line;         /* the line of the file, from 1 */
} job;

/* Reads text[0..len) (named path in messages): one job a line, blanks
 * between its words.  Within a word, '...' keeps everything to the next
 * quote, "..." too (no escapes inside), and a backslash keeps the next
 * character; a word starting with an unquoted # starts a comment to the
 * end of the line.  A word starting with an unquoted > or 2> redirects
 * the job's standard output or error to the rest of the word (quoted as
 * any word); words NAME=VALUE before the first argument (NAME unquoted,
 * letters, digits and _, not starting with a digit) set NAME for that
 * job alone.  Blank and comment lines, CRLF line ends and a UTF-8 byte
 * order mark are fine; NUL bytes, unterminated quotes, a backslash
 * ending a line, an empty or repeated redirection and a line of
 * redirections only are refused.  Returns 0 with *jobs (malloc'd, *n of
 * them), or -1 with *err a malloc'd "FILE:LINE:COL: error: MSG" and the
 * line with a caret, newline-ended, and nothing allocated. */
int jobs_parse(const char *path, const char *text, size_t len, job **jobs,
               int *n, char **err);
/* The same on a file ("-": standard input, named <stdin>). */
int jobs_read(const char *path, job **jobs, int *n, char **err);
void jobs_free(job *jobs, int n);

#endif
