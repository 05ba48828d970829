/* cli.h: what the programs' command lines share (bin/nbody, bin/oneloop):
 * the "PROG: error: ..." message, flag values as "--flag V" or "--flag=V",
 * opening the device a --target asks for, a quoted CSV field and a clock. */
#ifndef CLI_H
#define CLI_H

#include <stdarg.h>
#include "nbrt.h"

/* The program's name in messages; main sets it first. */
extern const char *cli_prog;

/* Prints "PROG: error: MSG" on stderr (under MPI through par_error, which
 * names the rank); returns 1, so callers can return cli_fail(...). */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_vfail(const char *fmt, va_list ap);

/* The value of flag `flag` at argv[*i], given as "--flag V" (taking the
 * next argument) or "--flag=V"; NULL if argv[*i] is another flag, or
 * cli_missing (already reported) if the value is. */
extern const char cli_missing[];
const char *cli_value(const char *a, const char *flag, int argc, char **argv,
                      int *i);

/* A CSV field on stdout: quoted, with inner quotes doubled (RFC 4180). */
void cli_csv_str(const char *s);

/* Opens the device for a run on `target` ("c", "opencl", "amdil" or NULL:
 * the device's), `device` being nbrt_open's spec (NULL: the target's own
 * back end, the host for c, the interpreter for amdil); `flag` is how the
 * program spells its target flag in the message ("--target=" or
 * "--target ").  Under MPI, the node-local rank picks among the devices
 * `device` matches (nbrt_open_nth).  NULL, reported, on failure. */
nbrt *cli_open(const char *device, const char *target,
                      const char *flag);

/* Seconds on a clock that never steps back. */
double cli_now(void);

#endif
