/* cli.c: what bin/nbody and bin/oneloop share beyond their flags
 * (cli.h): the device a run asks for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "par.h"
#include "prog.h"

nbrt *cli_open(const char *device, const char *target, const char *flag)
{
	/* the target's own back end, unless it is OpenCL's (spec NULL) */
	if (!device && target)
		nbrt_target_device(target, &device, NULL);
	/* under MPI each rank of a node takes the next device that matches */
	int nth = par_local_rank();
	if (nth < 0)
		return NULL;
	char *err = NULL;
	nbrt *rt = nbrt_open_nth(device, nth, &err);
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
