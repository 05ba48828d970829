/* prog.h: what every program says of itself, below everything else in
 * apps/common: its name, its "PROG: error: ..." messages and a clock.
 * Under MPI, par.c routes the messages through its own keeping (par.h). */
#ifndef PROG_H
#define PROG_H

#include <stdarg.h>

/* The program's name in messages; main (or opt_parse) sets it first. */
extern const char *prog_name;

/* Prints "PROG: error: MSG" on stderr, or hands MSG to prog_sink where
 * one is set; returns 1, so that callers can return prog_fail(...). */
int prog_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int prog_vfail(const char *fmt, va_list ap);

/* Where a message (without "PROG: error: ") goes instead of stderr:
 * par_init sets it to par_error when MPI runs several ranks, so that the
 * layers above report through prog_fail and never call par.c back. */
extern void (*prog_sink)(const char *msg);

/* Prints "PROG: warning: MSG" on stderr: something given is ignored, and
 * the run goes on. */
void prog_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "PROG: error: WHOMSG" on stderr at once (WHO: "" or "rank R: "). */
void prog_error_line(const char *who, const char *msg);

/* Standard output flushed and checked: 0, or 1 with "cannot write to
 * standard output: ERR" reported, for what a program prints there and
 * then exits 0 on (--help, a device list): a full disk or a closed pipe
 * is no success. */
int prog_flush_stdout(void);

/* Seconds on a clock that never steps back. */
double prog_now(void);

#endif
