/* ilrun.c: bin/ilrun, one hand-written AMD IL program through nbcc's
 * interpreter (il/il.h).  The file carries its inputs and the
 * outputs to print in ";!" comment lines (docs/amdil.md), so
 * that a test is one file beside its expected output. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "il.h"
#include "nbcc.h"
#include "nbrt.h"
#include "opt.h"
#include "prog.h"

enum { FAILED = 1, USAGE = 2 };

typedef enum { T_INT, T_UINT, T_HEX, T_FLOAT, T_DOUBLE } Type;
static const char *const tname[] = {"int", "uint", "hex", "float", "double"};

typedef struct Print {
	int uav;
	Type t;
	size_t count, at;
	int line; /* for a message after the directives are read */
} Print;

typedef struct Bytes {
	unsigned char *b;
	size_t len, cap;
} Bytes;

typedef struct In {
	const char *file;
	int line;
	const IlProg *p;
	uint64_t threads, steps;
	int threads_set;
	uint32_t *cb[IL_NCB];
	Bytes uav[IL_NUAV];
	Print *print;
	int nprint;
} In;

static int fail(In *in, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(In *in, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: error: ", nb_esc(in->file), in->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return FAILED;
}

static int type(const char *s, Type *t)
{
	for (int i = 0; i < 5; i++)
		if (strcmp(s, tname[i]) == 0) {
			*t = (Type)i;
			return 0;
		}
	return -1;
}

/* A count or address: decimal digits. */
static int count(const char *s, uint64_t max, uint64_t *v)
{
	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 12)
		return -1;
	*v = strtoull(s, NULL, 10);
	return *v <= max ? 0 : -1;
}

/* One value of type t as its bytes (4, or 8 for a double). */
static int value(In *in, const char *s, Type t, unsigned char out[8])
{
	char *end;
	errno = 0;
	if (t == T_FLOAT || t == T_DOUBLE) {
		double d = strtod(s, &end);
		if (!*s || *end || (errno && t == T_DOUBLE))
			return fail(in, "bad %s '%s'", tname[t], nb_esc(s));
		if (t == T_FLOAT) {
			/* out of float's range as a double is of its own: 1e39
			 * was stored as inf */
			errno = 0;
			float f = strtof(s, NULL);
			if (errno)
				return fail(in, "bad %s '%s'", tname[t], nb_esc(s));
			memcpy(out, &f, 4);
		} else {
			memcpy(out, &d, 8);
		}
		return 0;
	}
	if (t == T_HEX) {
		if (strncmp(s, "0x", 2) != 0 || strlen(s) < 3 || strlen(s) > 10 ||
		    strspn(s + 2, "0123456789abcdefABCDEF") != strlen(s + 2))
			return fail(in, "bad hex '%s': 0x and 1 to 8 hex digits",
			            nb_esc(s));
		uint32_t u = (uint32_t)strtoul(s, NULL, 16);
		memcpy(out, &u, 4);
		return 0;
	}
	long long x = strtoll(s, &end, 10);
	if (!*s || *end || errno || (t == T_INT && (x < INT32_MIN ||
	                                            x > INT32_MAX)) ||
	    (t == T_UINT && (x < 0 || x > (long long)UINT32_MAX)))
		return fail(in, "bad %s '%s'", tname[t], nb_esc(s));
	uint32_t u = (uint32_t)x;
	memcpy(out, &u, 4);
	return 0;
}

static int append(In *in, Bytes *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap : 64;
		while (c < b->len + n)
			c *= 2;
		/* checked before growing: many lines of `zero`, a GiB each,
		 * would reach the OOM killer (realloc may hold both copies) */
		double may = nbrt_host_memory();
		if ((double)c > may) {
			char g[32], m[32];
			nbrt_format_bytes(g, sizeof g, (double)c);
			nbrt_format_bytes(m, sizeof m, may);
			return fail(in, "uav(%d) would grow to %s, more than the %s "
			            "this process may still use", (int)(b - in->uav), g,
			            m);
		}
		unsigned char *nb = realloc(b->b, c);
		if (!nb)
			return fail(in, "out of memory");
		b->b = nb;
		b->cap = c;
	}
	if (src)
		memcpy(b->b + b->len, src, n);
	else
		memset(b->b + b->len, 0, n);
	b->len += n;
	return 0;
}

/* "uav(N)": N, declared by the program; -1 reported */
static int uavref(In *in, const char *s)
{
	uint64_t n;
	size_t l = strlen(s);
	char num[16];
	if (strncmp(s, "uav(", 4) != 0 || l < 6 || l > 10 || s[l - 1] != ')')
		return fail(in, "expected uav(N), not '%s'", nb_esc(s)), -1;
	memcpy(num, s + 4, l - 5);
	num[l - 5] = 0;
	if (count(num, IL_NUAV - 1, &n))
		return fail(in, "expected uav(N) with N from 0 to %d", IL_NUAV - 1),
		       -1;
	if (!(in->p->uavs >> n & 1))
		return fail(in, "the program does not declare UAV %d", (int)n), -1;
	return (int)n;
}

static int directive(In *in, char **w, int n)
{
	uint64_t v;
	if (strcmp(w[0], "threads") == 0 && n == 2) {
		if (count(w[1], (uint64_t)UINT32_MAX + 1, &v))
			return fail(in, "bad thread count '%s'", nb_esc(w[1]));
		in->threads = v;
		in->threads_set = 1;
		return 0;
	}
	if (strcmp(w[0], "steps") == 0 && n == 2) {
		if (count(w[1], (uint64_t)1 << 40, &v) || !v)
			return fail(in, "bad step limit '%s'", nb_esc(w[1]));
		in->steps = v;
		return 0;
	}
	if (strncmp(w[0], "cb", 2) == 0) {
		/* digits alone: %u took "cb4294967296[0]" as cb0 and
		 * "cb0[-4294967295]" as entry 1 */
		char ks[4], es[16];
		uint64_t k, e;
		int used = 0;
		Type t;
		if (sscanf(w[0], "cb%3[0-9][%15[0-9]]%n", ks, es, &used) != 2 ||
		    w[0][used] || count(ks, IL_NCB - 1, &k) ||
		    count(es, UINT32_MAX, &e))
			return fail(in, "expected cbK[n], not '%s'", nb_esc(w[0]));
		if (!in->p->cbsize[k])
			return fail(in, "the program does not declare cb%d", (int)k);
		if (e >= (uint64_t)in->p->cbsize[k])
			return fail(in, "cb%d has %d entries: no entry %llu", (int)k,
			            in->p->cbsize[k], (unsigned long long)e);
		if (n < 3 || type(w[1], &t))
			return fail(in, "expected cbK[n] TYPE VALUES, TYPE int, uint, "
			            "hex, float or double");
		int size = t == T_DOUBLE ? 8 : 4;
		if (n - 2 > 16 / size)
			return fail(in, "at most %d %s values fill one entry",
			            16 / size, tname[t]);
		unsigned char ent[16] = {0};
		for (int i = 2; i < n; i++)
			if (value(in, w[i], t, ent + size * (i - 2)))
				return FAILED;
		memcpy(in->cb[k] + 4 * e, ent, 16);
		return 0;
	}
	if (strncmp(w[0], "uav(", 4) == 0) {
		int u = uavref(in, w[0]);
		Type t;
		if (u < 0)
			return FAILED;
		if (n == 3 && strcmp(w[1], "zero") == 0) {
			if (count(w[2], (uint64_t)1 << 30, &v))
				return fail(in, "bad byte count '%s'", nb_esc(w[2]));
			return append(in, &in->uav[u], NULL, (size_t)v);
		}
		if (n < 3 || type(w[1], &t))
			return fail(in, "expected uav(N) TYPE VALUES or uav(N) zero "
			            "BYTES, TYPE int, uint, hex, float or double");
		for (int i = 2; i < n; i++) {
			unsigned char b[8];
			if (value(in, w[i], t, b) ||
			    append(in, &in->uav[u], b, t == T_DOUBLE ? 8 : 4))
				return FAILED;
		}
		return 0;
	}
	if (strcmp(w[0], "print") == 0) {
		Print p = {0, T_INT, 0, 0, in->line};
		uint64_t c, at = 0;
		if ((n != 4 && n != 6) || type(w[2], &p.t) ||
		    count(w[3], 1 << 24, &c) ||
		    (n == 6 && (strcmp(w[4], "at") || count(w[5], UINT32_MAX, &at))))
			return fail(in, "expected print uav(N) TYPE COUNT [at BYTE]");
		if ((p.uav = uavref(in, w[1])) < 0)
			return FAILED;
		p.count = (size_t)c;
		p.at = (size_t)at;
		Print *np = realloc(in->print, sizeof *np * (size_t)(in->nprint + 1));
		if (!np)
			return fail(in, "out of memory");
		in->print = np;
		in->print[in->nprint++] = p;
		return 0;
	}
	return fail(in, "unknown directive '%s' (threads, steps, cbK[n], "
	            "uav(N), print)", nb_esc(w[0]));
}

/* Every ";!" line of the text, in order. */
static int directives(In *in, char *text, size_t len)
{
	char *s = text, *e = text + len;
	in->line = 0;
	while (s < e) {
		in->line++;
		char *nl = memchr(s, '\n', (size_t)(e - s));
		char *le = nl ? nl : e;
		char *b = s;
		s = nl ? nl + 1 : e;
		while (b < le && (*b == ' ' || *b == '\t'))
			b++;
		if (le - b < 2 || b[0] != ';' || b[1] != '!')
			continue;
		*le = 0;
		char *w[72];
		int n = 0;
		for (char *t = strtok(b + 2, " \t\r,"); t; t = strtok(NULL, " \t\r,"))
			if (n < 72)
				w[n++] = t;
			else
				return fail(in, "more than %d words", 72);
		if (n == 0)
			return fail(in, "empty directive");
		int rc = directive(in, w, n);
		if (rc)
			return rc;
	}
	return 0;
}

static void print(const In *in, const Print *p)
{
	size_t size = p->t == T_DOUBLE ? 8 : 4;
	const unsigned char *b = in->uav[p->uav].b;
	for (size_t i = 0; i < p->count; i++) {
		size_t a = p->at + i * size;
		if (i % 8 == 0)
			printf("%suav(%d) %s at %zu:", i ? "\n" : "", p->uav,
			       tname[p->t], a);
		uint32_t u;
		float f;
		double d;
		memcpy(&u, b + a, 4);
		switch (p->t) {
		case T_INT:
			printf(" %d", (int32_t)u);
			break;
		case T_UINT:
			printf(" %u", u);
			break;
		case T_HEX:
			printf(" 0x%08x", u);
			break;
		case T_FLOAT:
			memcpy(&f, &u, 4);
			printf(" %.9g", f);
			break;
		case T_DOUBLE:
			memcpy(&d, b + a, 8);
			printf(" %.17g", d);
			break;
		}
	}
	putchar('\n');
}

static const opt_prog prog = {
	"ilrun", "[--time] FILE.il",
	"Runs a program in nbcc's subset of AMD IL through its interpreter.\n"
	"The file's ';!' comment lines give the inputs and the outputs:\n"
	"  ;! threads N                 work items 0..N-1 (default: one group)\n"
	"  ;! steps N                   the step limit (default 2^40)\n"
	"  ;! cbK[n] TYPE V1 [.. V4]    entry n of cb K (x, y, z, w; double:\n"
	"                               xy, zw); the rest of the buffer is 0\n"
	"  ;! uav(N) TYPE V1 V2 ...     appends values to raw UAV N\n"
	"  ;! uav(N) zero BYTES         appends BYTES zero bytes\n"
	"  ;! print uav(N) TYPE COUNT [at BYTE]\n"
	"                               after the run, COUNT values from BYTE\n"
	"TYPE is int, uint, hex, float or double.  Errors go to stderr\n"
	"(exit 1); see docs/amdil.md.",
	0,
};

int main(int argc, char **argv)
{
	const char *file = NULL;
	int timed = 0;
	const opt t[] = {
		OPT(OPT_ARG, "file", "FILE.il", &file, NULL),
		OPT(OPT_SET, "--time", NULL, &timed,
		    "print on stderr the work items run and the\n"
		    "seconds they took"),
		{.kind = OPT_HELP},
		{0},
	};
	int rc = opt_parse(&prog, t, argc, argv);
	if (rc != OPT_GO)
		return rc == OPT_DONE ? 0 : USAGE;
	if (!file) {
		opt_help(&prog, t, stderr);
		return USAGE;
	}
	char err[512];
	size_t len;
	char *text = nb_read_file_max(file, NB_MAX_SOURCE, &len, err, sizeof err);
	if (!text) {
		fprintf(stderr, "ilrun: error: %s\n", err);
		return FAILED;
	}
	IlProg *p = nb_il_read(text, len, nb_esc(file), err, sizeof err);
	In in;
	memset(&in, 0, sizeof in);
	in.file = file;
	in.p = p;
	rc = 0;
	if (!p) {
		fprintf(stderr, "%s\n", err);
		rc = FAILED;
	}
	for (int k = 0; !rc && k < IL_NCB; k++)
		if (p->cbsize[k] &&
		    !(in.cb[k] = calloc((size_t)p->cbsize[k], 16)))
			rc = fail(&in, "out of memory");
	if (!rc)
		rc = directives(&in, text, len);
	if (!rc) {
		for (int i = 0; i < in.nprint && !rc; i++) {
			const Print *pr = &in.print[i];
			size_t end = pr->at + pr->count * (pr->t == T_DOUBLE ? 8 : 4);
			/* the print's line: the UAV's length is known only now */
			in.line = pr->line;
			if (end > in.uav[pr->uav].len)
				rc = fail(&in, "print uav(%d) %s %zu at %zu reads past its "
				          "%zu bytes", pr->uav, tname[pr->t], pr->count,
				          pr->at, in.uav[pr->uav].len);
		}
	}
	if (!rc) {
		IlMem m;
		memset(&m, 0, sizeof m);
		for (int u = 0; u < IL_NUAV; u++) {
			m.uav[u] = in.uav[u].b;
			m.uavlen[u] = in.uav[u].len;
		}
		for (int k = 0; k < IL_NCB; k++) {
			m.cb[k] = in.cb[k];
			m.cblen[k] = (size_t)p->cbsize[k];
		}
		uint64_t n = in.threads_set ? in.threads : (uint64_t)p->group;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (nb_il_run(p, &m, 0, n, in.steps, err, sizeof err)) {
			fprintf(stderr, "%s\n", err);
			rc = FAILED;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (timed)
			fprintf(stderr, "ilrun: %llu work items in %.3f s\n",
			        (unsigned long long)n,
			        (double)(t1.tv_sec - t0.tv_sec) +
			        1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
	}
	for (int i = 0; !rc && i < in.nprint; i++)
		print(&in, &in.print[i]);
	if (!rc && prog_flush_stdout())
		rc = FAILED;
	for (int k = 0; k < IL_NCB; k++)
		free(in.cb[k]);
	for (int u = 0; u < IL_NUAV; u++)
		free(in.uav[u].b);
	free(in.print);
	nb_il_free(p);
	free(text);
	return rc;
}
