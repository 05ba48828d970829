/* base.h: what every compiler stage shares: the compilation context, the
 * arena all stages allocate from (freed at once when compilation ends),
 * growable text buffers, and diagnostics with source locations.  User errors
 * go through error()/warn(); a broken compiler invariant through ice(). */
#ifndef NB_BASE_H
#define NB_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "nbcc.h"

typedef struct Loc {
	int line, col; /* 1-based; col counts bytes */
	int off;       /* byte offset of the position in the source */
} Loc;

typedef struct Arena Arena;

/* Growable byte buffer. Memory comes from the heap; buf_free releases it. */
typedef struct Buf {
	char *s;
	size_t len, cap;
} Buf;

typedef struct Ctx {
	const char *path;   /* name printed in messages */
	const char *src;    /* whole source, NUL-terminated */
	size_t len;
	const nb_options *opt;
	FILE *diag;         /* where messages go, may be NULL */
	Arena *arena;
	int errors, warnings;
	int max_errors;     /* stop reporting after this many */
	/* the defaults table's row the driver took (NULL: none), which a
	 * back end may read for choices of its own */
	const struct nb_defaults *row;
} Ctx;

void ctx_init(Ctx *c, const char *path, const char *src, size_t len,
              const nb_options *o, FILE *diag);
void ctx_free(Ctx *c);

void *arena_alloc(Arena *a, size_t n); /* zeroed, aligned for any type */
Arena *arena_new(void);
void arena_free(Arena *a);
void *cnew(Ctx *c, size_t n);          /* arena_alloc(c->arena, n) */
char *cstrdup(Ctx *c, const char *s);
char *cstrndup(Ctx *c, const char *s, size_t n);
char *cprintf(Ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void buf_putc(Buf *b, int ch);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
char *buf_take(Buf *b); /* returns the heap string, leaves b empty */
void buf_free(Buf *b);

/* FILE:LINE:COL: error: MSG, then the source line and a caret. */
void error(Ctx *c, Loc l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void warn(Ctx *c, Loc l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error without a position (FILE: error: MSG). */
void error_file(Ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* An error already reported under another name (a second use of a name
 * that is not declared): counted, so that nothing built on it reports a
 * follow-on, but neither shown nor counted against max_errors. */
void error_again(Ctx *c);
/* Internal compiler error: a bug in nbcc, not in the user's source. */
_Noreturn void ice(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define ICE(...) ice(__FILE__, __LINE__, __VA_ARGS__)

/* The precisions, one row each (prec.c), indexed by nb_prec and by the
 * numeric Types (ast.h), which share its values.  Everything that differs
 * between float, double and dd and is not dd's own arithmetic is here;
 * adding a precision is adding a row (docs/hacking.md). */
enum { NPREC = NB_DD + 1 };
typedef struct Prec {
	const char *name;   /* "float": in sources, messages, interfaces */
	const char *ir;     /* "f32": in IR dumps */
	const char *ctype;  /* a value in C and OpenCL C: "nb_dd" for dd */
	const char *scalar; /* its machine scalar: "double" for dd */
	const char *clelem; /* an element of an OpenCL array: "double2" for dd */
	const char *tag;    /* suffix of generated names: "f", "d", "dd" */
	const char *zero;   /* 0 in C and OpenCL C */
	const char *litfmt; /* printf format of a literal that reads back */
	const char *litsfx; /* suffix of a literal: "f" for float */
	const char *litcast;/* before NAN and INFINITY, which are float */
	const char *mathsfx;/* of C's <math.h> functions for it: sqrtf */
	int rank;           /* widening order: an operation of two precisions
	                       is computed in the one of higher rank */
	int scalars;        /* machine scalars per value (a dd is two) */
	int words;          /* 32-bit registers per value */
	int fuses;          /* has a fused multiply-add (fma.c; ops.h's
	                       fused rows have no other form) */
	int reorder;        /* sums may be reordered without --fast-math
	                       (reassoc.c): float kernels trade the last bit
	                       for fmas, wider ones keep the order written */
	int ftz;            /* a kernel computing in nothing wider flushes
	                       subnormals unless --no-ftz (OpenCL) */
	int approx;         /* the C back end may compute division, sqrt and
	                       rsqrt from hardware estimates and a Newton
	                       step, exp, log, sin, cos and pow with glibc's
	                       vector functions (a few ulp, as OpenCL allows;
	                       docs/performance.md), and an OpenCL kernel for
	                       a CPU rsqrt from an estimate and a Newton step
	                       (emit_opencl.c), unless --no-approx */
	int eft;            /* built of error-free transformations, which
	                       fast math or flushing turns into zeros: never
	                       built with either */
	double max;         /* largest finite value */
	double min_normal;  /* smallest normal value of the scalar */
	double true_min;    /* smallest nonzero value of the scalar */
	double unit;        /* unit roundoff: half the gap above 1 */
	/* reads a plain decimal exactly rounded: 0, or NB_NUM_RANGE */
	int (*read)(const char *s, double v[2]);
	/* the folding arithmetic: the value of opcode op (ops.h) on
	 * constants given as (hi, lo) pairs; 0 when op does not fold */
	int (*eval)(int op, const double *a, const double *b, const double *c,
	            double *r);
} Prec;
extern const Prec prec[NPREC];
/* Of two precisions, the one an operation on both is computed in. */
nb_prec prec_join(nb_prec a, nb_prec b);
/* The precision named s ("float", "double", "dd"), or -1. */
int prec_find(const char *s);
/* Their names for messages, "float, double or dd", written into s. */
const char *prec_names(char *s, size_t n);

/* The readers and evaluators of the table (ddtext.c, eval.c). */
int read_f32(const char *s, double v[2]);
int read_f64(const char *s, double v[2]);
int read_dd(const char *s, double v[2]);
int eval_f32(int op, const double *a, const double *b, const double *c,
             double *r);
int eval_f64(int op, const double *a, const double *b, const double *c,
             double *r);
int eval_dd(int op, const double *a, const double *b, const double *c,
            double *r);

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
