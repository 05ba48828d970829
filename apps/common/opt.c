/* opt.c: the one command-line parser of the programs (opt.h): a flag's
 * row in its program's table says what its value is and where it goes;
 * the compiler's flags are passed on to nb_options_parse, whose table is
 * the compiler's own (compiler/options.c); --help is printed from both. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "opt.h"
#include "prog.h"

/* --- values --------------------------------------------------------------- */

int opt_long(const char *v, size_t n, long *out)
{
	size_t d = n && (v[0] == '-' || v[0] == '+');
	if (d == n || strspn(v + d, "0123456789") < n - d)
		return -1;
	char buf[32];
	if (n >= sizeof buf)
		return -1;
	memcpy(buf, v, n);
	buf[n] = 0;
	errno = 0;
	long x = strtol(buf, NULL, 10);
	if (errno)
		return -1;
	*out = x;
	return 0;
}

int opt_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (!n)
		return -1;
	*v = x;
	return 0;
}

static int read_u64(const char *v, unsigned long long *out)
{
	uint64_t x;
	if (opt_u64(v, strlen(v), &x))
		return -1;
	*out = x;
	return 0;
}

/* One number: what strtod reads whole, but no blanks, inf or nan. */
static int read_number(const char *v, const char *end, double *out)
{
	if (v == end || strchr(" \t\n\v\f\r", *v) || *v == 0)
		return -1;
	char *e;
	errno = 0;
	double x = strtod(v, &e);
	if (e != end)
		return -1;
	if (errno == ERANGE) /* beyond a double, or below its normal range */
		return -2;
	if (!isfinite(x)) /* inf, nan */
		return -1;
	*out = x;
	return 0;
}

int opt_real(const char *v, size_t n, double *out)
{
	const char *slash = memchr(v, '/', n);
	char *t = strndup(v, n);
	if (!t)
		return -1;
	double x, y = 1;
	size_t k = slash ? (size_t)(slash - v) : n;
	int rc = read_number(t, t + k, &x);
	if (!rc && slash)
		rc = read_number(t + k + 1, t + n, &y);
	free(t);
	if (rc)
		return rc;
	if (y == 0 || !isfinite(x / y))
		return -1;
	if (x != 0 && fabs(x / y) < DBL_MIN)
		return -2;
	*out = x / y;
	return 0;
}

int opt_bad(const char *flag, const char *v, const char *what, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, what);
	vsnprintf(buf, sizeof buf, what, ap);
	va_end(ap);
	return prog_fail("bad value '%s' for %s: expected %s", nb_esc(v), flag,
	                 buf);
}

/* "a|b|c" as "a, b or c" */
static void words_text(char *buf, size_t len, const char *words)
{
	size_t n = 0;
	buf[0] = 0;
	for (const char *w = words; *w && n < len;) {
		size_t k = strcspn(w, "|");
		const char *sep = w == words ? "" : w[k] ? ", " : " or ";
		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", sep, (int)k, w);
		w += k + (w[k] == '|');
	}
}

static int choose(const opt *r, const char *flag, const char *v)
{
	int i = 0;
	for (const char *w = r->words; *w; i++) {
		size_t k = strcspn(w, "|");
		if (strlen(v) == k && !strncmp(w, v, k)) {
			*(int *)r->to = i;
			return 0;
		}
		w += k + (w[k] == '|');
	}
	char all[256];
	words_text(all, sizeof all, r->words);
	return opt_bad(flag, v, "%s", all);
}

/* The range of an OPT_INT or OPT_REAL in words. */
static void range_text(char *buf, size_t len, const opt *r)
{
	const char *what = r->kind == OPT_INT ? "an integer" : "a number";
	if (r->lo == 0 && r->hi == 0)
		snprintf(buf, len, "%s", what);
	else if (r->kind == OPT_INT)
		snprintf(buf, len, "%s from %.0f to %.0f", what, r->lo, r->hi);
	else if (r->hi == HUGE_VAL)
		snprintf(buf, len, "%s %s %g", what,
		         r->open & OPT_ABOVE ? "above" : "of at least", r->lo);
	else
		snprintf(buf, len, "%s in %c%g, %g]", what,
		         r->open & OPT_ABOVE ? '(' : '[', r->lo, r->hi);
}

static int in_range(const opt *r, double x)
{
	if (r->lo == 0 && r->hi == 0)
		return 1;
	return (r->open & OPT_ABOVE ? x > r->lo : x >= r->lo) && x <= r->hi;
}

/* The value v of row r, given as `flag`. */
static int take(const opt *r, const char *flag, const char *v)
{
	char what[128];
	long l;
	double x;
	switch (r->kind) {
	case OPT_STR:
	case OPT_ARG:
		if (r->call)
			return r->call(r->to, flag, v);
		*(const char **)r->to = v;
		return 0;
	case OPT_CALL:
		return r->call(r->to, flag, v);
	case OPT_INT:
		if (opt_long(v, strlen(v), &l) || !in_range(r, (double)l)) {
			range_text(what, sizeof what, r);
			return opt_bad(flag, v, "%s", what);
		}
		*(long *)r->to = l;
		return 0;
	case OPT_U64:
		if (read_u64(v, r->to))
			return opt_bad(flag, v, "an integer from 0 to %llu", ~0ULL);
		return 0;
	case OPT_REAL: {
		int rc = opt_real(v, strlen(v), &x);
		if (rc || !in_range(r, x)) {
			range_text(what, sizeof what, r);
			/* 1e-308 was told "a number above 0" */
			return rc == -2 ? opt_bad(flag, v, "%s, and within a double's "
			                          "normal range (%g to %g)", what,
			                          DBL_MIN, DBL_MAX)
			                : opt_bad(flag, v, "%s", what);
		}
		*(double *)r->to = x;
		return 0;
	}
	case OPT_CHOICE:
		return choose(r, flag, v);
	default:
		return 0;
	}
}

/* --- flags ---------------------------------------------------------------- */

/* Whether arg is the flag `name`, alone or as "name=value". */
static int is_flag(const char *arg, const char *name, int valued)
{
	size_t n = strlen(name);
	return !strncmp(arg, name, n) && (!arg[n] || (valued && arg[n] == '='));
}

static int valued(const opt *r)
{
	return r->kind != OPT_SET && r->kind != OPT_ALIAS &&
	       r->kind != OPT_HELP;
}

static const opt *find(const opt *t, const char *arg)
{
	for (const opt *r = t; r->kind != OPT_END; r++)
		if (r->name && r->kind != OPT_ARG && r->kind != OPT_TEXT &&
		    r->kind != OPT_HELP && is_flag(arg, r->name, valued(r)))
			return r;
	return NULL;
}

static const opt *compiler(const opt *t)
{
	for (const opt *r = t; r->kind != OPT_END; r++)
		if (r->kind == OPT_COMPILER && !r->name)
			return r;
	return NULL;
}

/* A compiler flag (row r) at argv[*i]: nb_options_parse takes it. */
static int pass_on(const opt *r, const char *flag, int argc, char **argv,
                   int *i)
{
	const char *a = argv[*i], *next = *i + 1 < argc ? argv[*i + 1] : NULL;
	const char *eq = strchr(a, '=');
	if (nb_options_flag(a) == 2 && (eq ? !eq[1] : !next || !*next))
		return prog_fail("%s needs a value", flag);
	char err[512];
	int took = nb_options_parse(r->to, a, next, err, sizeof err);
	if (took < 0)
		return prog_fail("%s", err);
	if (r->seen)
		*r->seen = r->name ? r->name : a;
	*i += took - 1;
	return 0;
}

/* The flag at argv[*i]; moves *i past its value. */
static int flag(const opt_prog *p, const opt *t, int argc, char **argv,
                int *i)
{
	const char *a = argv[*i];
	const opt *r = find(t, a);
	char name[128];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
	if (!r && (r = compiler(t)) && !nb_options_flag(a))
		r = NULL;
	if (!r)
		return prog_fail("unknown option '%s' (see %s --help)", nb_esc(a),
		                 p->name);
	if (r->kind == OPT_COMPILER)
		return pass_on(r, name, argc, argv, i);
	if (r->seen)
		*r->seen = r->name;
	if (r->kind == OPT_SET) {
		*(int *)r->to = 1;
		return 0;
	}
	if (r->kind == OPT_ALIAS) {
		*(const char **)r->to = r->words;
		return 0;
	}
	const char *v = a[strlen(r->name)] == '=' ? a + strlen(r->name) + 1
	              : *i + 1 < argc ? argv[++*i] : "";
	if (!*v)
		return prog_fail("%s needs a value", r->name);
	return take(r, r->name, v);
}

/* An argument that is not a flag: the next OPT_ARG row takes it. */
static int operand(const opt *t, const char *a, const char **filled)
{
	const opt *last = NULL;
	for (const opt *r = t; r->kind != OPT_END; r++)
		if (r->kind == OPT_ARG) {
			if (!filled[r - t]) {
				filled[r - t] = a;
				return take(r, r->name, a);
			}
			last = r;
		}
	if (!last)
		return prog_fail("unexpected argument '%s'", nb_esc(a));
	return prog_fail("more than one %s ('%s' and '%s')", last->name,
	                 nb_esc(filled[last - t]), nb_esc(a));
}

static int has(const opt *t, opt_kind k)
{
	for (const opt *r = t; r->kind != OPT_END; r++)
		if (r->kind == k)
			return 1;
	return 0;
}

int opt_parse(const opt_prog *p, const opt *t, int argc, char **argv)
{
	prog_name = p->name;
	/* a program's run: no file it reads is ever one of its outputs */
	nb_in_guard();
	size_t n = 0;
	while (t[n].kind != OPT_END)
		n++;
	const char **filled = calloc(n + 1, sizeof *filled);
	if (!filled)
		return prog_fail("out of memory"), OPT_BAD;
	int rc = OPT_GO, flags = 1;
	for (int i = 1; i < argc && rc == OPT_GO; i++) {
		const char *a = argv[i];
		if (!flags) {
			rc = operand(t, a, filled) ? OPT_BAD : OPT_GO;
		} else if (!strcmp(a, "--")) {
			/* the end of the flags, as getopt has it: a kernel or a
			 * file named "-x" follows */
			flags = 0;
		} else if (has(t, OPT_HELP) &&
		           (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			opt_help(p, t, stdout);
			rc = prog_flush_stdout() ? OPT_BAD : OPT_DONE;
		} else if (p->version && !strcmp(a, "--version")) {
			if (strcmp(p->name, "nbcc") == 0)
				printf("nbcc %s\n", NBCC_VERSION);
			else
				printf("%s (nbcc) %s\n", p->name, NBCC_VERSION);
			rc = prog_flush_stdout() ? OPT_BAD : OPT_DONE;
		} else if (a[0] == '-' && a[1]) {
			rc = flag(p, t, argc, argv, &i) ? OPT_BAD : OPT_GO;
		} else {
			rc = operand(t, a, filled) ? OPT_BAD : OPT_GO;
		}
	}
	free(filled);
	return rc;
}

/* --- --help --------------------------------------------------------------- */

/* "  TERM   first line", further lines under the first; a term too long
 * to leave two blanks before column 21 has its text on the next line. */
static void row(FILE *f, const char *term, const char *help)
{
	int w = fprintf(f, "  %s", term);
	for (const char *l = help; l && *l;) {
		size_t k = strcspn(l, "\n");
		if (l == help && w <= 19)
			fprintf(f, "%*s", 21 - w, "");
		else
			fprintf(f, "%s%21s", l == help ? "\n" : "", "");
		fprintf(f, "%.*s\n", (int)k, l);
		l += k + (l[k] == '\n');
	}
	if (!help || !*help)
		fputc('\n', f);
}

void opt_usage(const opt_prog *p, FILE *f)
{
	const char *u = p->usage;
	for (int first = 1; *u; first = 0) {
		size_t k = strcspn(u, "\n");
		fprintf(f, "%s%s %.*s\n", first ? "usage: " : "       ", p->name,
		        (int)k, u);
		u += k + (u[k] == '\n');
	}
}

void opt_help(const opt_prog *p, const opt *t, FILE *f)
{
	opt_usage(p, f);
	fprintf(f, "%s\n\n", p->about);
	for (const opt *r = t; r->kind != OPT_END; r++) {
		char term[128];
		const char *m = r->meta;
		if (r->kind == OPT_TEXT) {
			fprintf(f, "\n%s\n", r->help);
		} else if (r->kind == OPT_COMPILER && !r->name) {
			fprintf(f, "\n%s\n%s", r->help, nb_options_help_text());
		} else if (r->kind == OPT_HELP) {
			row(f, p->version ? "--help, --version" : "--help", NULL);
		} else if (r->help) {
			if (r->kind == OPT_ARG)
				snprintf(term, sizeof term, "%s", m);
			else
				snprintf(term, sizeof term, "%s%s%s", r->name,
				         m && *m != '=' ? " " : "", m ? m : "");
			row(f, term, r->help);
		}
	}
}
