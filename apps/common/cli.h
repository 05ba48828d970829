/* cli.h: what the programs that run kernels share beyond the parser
 * (opt.h): the rows of the runtime's tuner, opening the device a --target
 * and a --device ask for, and a quoted CSV field. */
#ifndef CLI_H
#define CLI_H

#include "nbrt.h"
#include "opt.h"

/* --tune and --tune-budget S as rows of a program's table: *on and
 * *budget, which cli_tune turns into the budget to tune within (S; --tune
 * alone: NBRT_TUNE_BUDGET; 0: no tuning). */
#define CLI_TUNE_ROWS(on, budget, help)                                   \
	OPT(OPT_SET, "--tune", NULL, on, help),                           \
	OPT(OPT_REAL, "--tune-budget", "S", budget,                       \
	    "--tune within about S seconds (default 3)", .lo = 0,         \
	    .hi = 1e6, .open = OPT_ABOVE)

static inline double cli_tune(int on, double budget)
{
	return budget > 0 ? budget : on ? NBRT_TUNE_BUDGET : 0;
}

/* Opens the device for a run on `target` ("c", "opencl", "amdil" or NULL:
 * the device's), `device` being nbrt_open's spec (NULL: the target's own
 * back end, the host for c, the interpreter for amdil); `flag` is how the
 * program spells its target flag in the message ("--target=" or
 * "--target ").  Under MPI, the node-local rank picks among the devices
 * `device` matches (nbrt_open_nth).  NULL, reported, on failure. */
nbrt *cli_open(const char *device, const char *target,
                      const char *flag);

#endif
