/* prog.c: the program's name, its error messages and its clock (prog.h),
 * the bottom of apps/common: par.c, opt.c and cli.c report through it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "prog.h"

const char *prog_name = "nbcc";
void (*prog_sink)(const char *msg);

void prog_error_line(const char *who, const char *msg)
{
	fprintf(stderr, "%s: error: %s%s\n", prog_name, who, msg);
}

int prog_vfail(const char *fmt, va_list ap)
{
	char *m = NULL;
	if (vasprintf(&m, fmt, ap) < 0) {
		prog_error_line("", fmt);
		return 1;
	}
	if (prog_sink)
		prog_sink(m);
	else
		prog_error_line("", m);
	free(m);
	return 1;
}

int prog_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	prog_vfail(fmt, ap);
	va_end(ap);
	return 1;
}

void prog_warn(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: warning: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int prog_flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	/* an earlier write may have failed, the reason gone with it */
	int e = errno;
	clearerr(stdout); /* reported once */
	return prog_fail("cannot write to standard output%s%s", e ? ": " : "",
	                 e ? strerror(e) : "");
}

double prog_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
