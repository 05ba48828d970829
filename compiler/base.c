/* base.c: arena, buffers and diagnostics for every stage.
 * Messages follow the GNU form FILE:LINE:COL: error: MSG, then the source
 * line and a caret under the column, as cproc and chibicc print them. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base.h"

struct Arena {
	struct Block *head;
};

struct Block {
	struct Block *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char data[];
};

static _Noreturn void oom(void)
{
	fputs("nbcc: out of memory\n", stderr);
	abort();
}

Arena *arena_new(void)
{
	Arena *a = calloc(1, sizeof *a);
	if (!a)
		oom();
	return a;
}

void *arena_alloc(Arena *a, size_t n)
{
	size_t al = _Alignof(max_align_t);
	n = (n + al - 1) / al * al;
	struct Block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof *b + cap);
		if (!b)
			oom();
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

void arena_free(Arena *a)
{
	if (!a)
		return;
	for (struct Block *b = a->head, *nx; b; b = nx) {
		nx = b->next;
		free(b);
	}
	free(a);
}

void ctx_init(Ctx *c, const char *path, const char *src, size_t len,
              const nb_options *o, FILE *diag)
{
	memset(c, 0, sizeof *c);
	c->path = path;
	c->src = src;
	c->len = len;
	c->opt = o;
	c->diag = diag;
	c->arena = arena_new();
	c->max_errors = 20;
}

void ctx_free(Ctx *c)
{
	arena_free(c->arena);
	c->arena = NULL;
}

void *cnew(Ctx *c, size_t n) { return arena_alloc(c->arena, n); }

char *cstrndup(Ctx *c, const char *s, size_t n)
{
	char *p = cnew(c, n + 1);
	memcpy(p, s, n);
	return p;
}

char *cstrdup(Ctx *c, const char *s) { return cstrndup(c, s, strlen(s)); }

char *cprintf(Ctx *c, const char *fmt, ...)
{
	Buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	char *s = cstrndup(c, b.s ? b.s : "", b.len);
	buf_free(&b);
	return s;
}

static void buf_grow(Buf *b, size_t need)
{
	if (b->len + need + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + need + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s)
		oom();
	b->s = s;
	b->cap = cap;
}

void buf_putc(Buf *b, int ch)
{
	buf_grow(b, 1);
	b->s[b->len++] = (char)ch;
	b->s[b->len] = 0;
}

void buf_puts(Buf *b, const char *s)
{
	size_t n = strlen(s);
	buf_grow(b, n);
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *buf_take(Buf *b)
{
	char *s = b->s;
	if (!s) {
		s = malloc(1);
		if (!s)
			oom();
		*s = 0;
	}
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void buf_free(Buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* Prints the line holding byte offset `off` and a caret under it.  Bytes that
 * are not printable ASCII are shown as '?', so a caret stays aligned and a
 * terminal never receives control bytes from a hostile file. */
static void show_line(Ctx *c, Loc l)
{
	if (!c->src || l.off < 0 || (size_t)l.off > c->len)
		return;
	size_t b = (size_t)l.off, e = (size_t)l.off;
	while (b > 0 && c->src[b - 1] != '\n')
		b--;
	while (e < c->len && c->src[e] != '\n')
		e++;
	if (e - b > 200) { /* keep enormous lines readable: a window around */
		size_t from = (size_t)l.off > b + 80 ? (size_t)l.off - 80 : b;
		size_t to = from + 160 < e ? from + 160 : e;
		b = from;
		e = to;
	}
	fputs("  ", c->diag);
	for (size_t i = b; i < e; i++) {
		unsigned char ch = (unsigned char)c->src[i];
		fputc(ch == '\t' || (ch >= 32 && ch < 127) ? ch : '?', c->diag);
	}
	fputs("\n  ", c->diag);
	for (size_t i = b; i < (size_t)l.off && i < e; i++)
		fputc(c->src[i] == '\t' ? '\t' : ' ', c->diag);
	fputs("^\n", c->diag);
}

static void vdiag(Ctx *c, Loc *l, const char *kind, const char *fmt,
                  va_list ap)
{
	if (!c->diag)
		return;
	if (l)
		fprintf(c->diag, "%s:%d:%d: %s: ", nb_esc(c->path), l->line,
		        l->col, kind);
	else
		fprintf(c->diag, "%s: %s: ", nb_esc(c->path), kind);
	vfprintf(c->diag, fmt, ap);
	fputc('\n', c->diag);
	if (l)
		show_line(c, *l);
}

void error(Ctx *c, Loc l, const char *fmt, ...)
{
	c->errors++;
	if (c->errors > c->max_errors)
		return;
	va_list ap;
	va_start(ap, fmt);
	vdiag(c, &l, "error", fmt, ap);
	va_end(ap);
	if (c->errors == c->max_errors && c->diag)
		fprintf(c->diag, "%s: note: too many errors, stopping\n",
		        nb_esc(c->path));
}

void error_again(Ctx *c)
{
	c->errors++;
	c->max_errors++;
}

void warn(Ctx *c, Loc l, const char *fmt, ...)
{
	c->warnings++;
	va_list ap;
	va_start(ap, fmt);
	vdiag(c, &l, "warning", fmt, ap);
	va_end(ap);
}

void error_file(Ctx *c, const char *fmt, ...)
{
	c->errors++;
	va_list ap;
	va_start(ap, fmt);
	vdiag(c, NULL, "error", fmt, ap);
	va_end(ap);
}

void ice(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "nbcc: internal compiler error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nnbcc: this is a bug in nbcc, not in your source\n", stderr);
	abort();
}
