/* cli.h: what the programs' command lines share (bin/nbody, bin/oneloop):
 * flag values as "--flag V" or "--flag=V", opening the device a --target
 * asks for and a quoted CSV field; their messages are prog.h's. */
#ifndef CLI_H
#define CLI_H

#include "nbrt.h"

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

#endif
