/* cli.c: the command-line pieces bin/nbody and bin/oneloop share (cli.h),
 * so that their messages and flag syntax cannot drift apart. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "par.h"

const char *cli_prog = "nbcc";
const char cli_missing[] = "";

int cli_vfail(const char *fmt, va_list ap)
{
	char *m = NULL;
	if (vasprintf(&m, fmt, ap) < 0) {
		fprintf(stderr, "%s: error: %s\n", cli_prog, fmt);
		return 1;
	}
	par_error(m);
	free(m);
	return 1;
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vfail(fmt, ap);
	va_end(ap);
	return 1;
}

const char *cli_value(const char *a, const char *flag, int argc, char **argv,
                      int *i)
{
	size_t n = strlen(flag);
	if (strncmp(a, flag, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != 0)
		return NULL;
	if (*i + 1 >= argc) {
		cli_fail("%s needs a value", flag);
		return cli_missing;
	}
	return argv[++*i];
}

nbrt *cli_open(const char *device, const char *target, const char *flag)
{
	/* the target's own back end, unless it is OpenCL's (spec NULL) */
	if (!device && target)
		nbrt_target_device(target, &device, NULL);
	char *err = NULL;
	/* under MPI each rank of a node takes the next device that matches */
	nbrt *rt = nbrt_open_nth(device, par_local_rank(), &err);
	if (!rt) {
		cli_fail("%s", err ? err : "cannot open the device");
		free(err);
		return NULL;
	}
	if (target && strcmp(target, nbrt_target(rt)) != 0) {
		cli_fail("%s%s cannot run on %s", flag, target,
		         nb_esc(nbrt_device_name(rt)));
		nbrt_close(rt);
		return NULL;
	}
	return rt;
}

void cli_csv_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

double cli_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
