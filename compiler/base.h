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
/* Internal compiler error: a bug in nbcc, not in the user's source. */
_Noreturn void ice(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define ICE(...) ice(__FILE__, __LINE__, __VA_ARGS__)

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
