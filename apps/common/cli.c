/* cli.c: the command-line pieces bin/nbody and bin/oneloop share (cli.h),
 * so that their messages and flag syntax cannot drift apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "par.h"
#include "prog.h"

const char cli_missing[] = "";

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
		prog_fail("%s needs a value", flag);
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
		prog_fail("%s", err ? err : "cannot open the device");
		free(err);
		return NULL;
	}
	if (target && strcmp(target, nbrt_target(rt)) != 0) {
		prog_fail("%s%s cannot run on %s", flag, target,
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
