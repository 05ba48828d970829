/* ranges.c: the reader of nbrun --ranges files (ranges.h).  Two passes
 * over the text: the first checks every line and counts the groups and
 * j-ranges, so that the memory is checked before the second fills the
 * arrays; overlaps are found by sorting copies, bounds once Ni and Nj
 * are known. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "nbcc.h"
#include "ranges.h"

typedef struct Parser {
	ranges_file *rf;
	char **err;
	size_t ngroups, nentries;
	int fill; /* the second pass: store what the first counted */
} Parser;

/* The line around byte off: its number (from 1) and its bytes. */
static void locate(const ranges_file *rf, size_t off, int *line, size_t *lb,
                   size_t *le)
{
	const char *s = rf->text;
	int n = 1;
	size_t b = 0;
	for (size_t i = 0; i < off && i < rf->len; i++)
		if (s[i] == '\n') {
			n++;
			b = i + 1;
		}
	const char *nl = memchr(s + b, '\n', rf->len - b);
	size_t e = nl ? (size_t)(nl - s) : rf->len;
	if (e > b && s[e - 1] == '\r')
		e--;
	*line = n;
	*lb = b;
	*le = e;
}

/* *err = "FILE:LINE:COL: error: MSG" at byte off; returns -1. */
static int fail_at(const ranges_file *rf, char **err, size_t off,
                   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail_at(const ranges_file *rf, char **err, size_t off,
                   const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	int line;
	size_t lb, le;
	locate(rf, off, &line, &lb, &le);
	*err = csv_error_at(rf->path, line, rf->text + lb, le - lb,
	                    (off < le ? off : le) - lb, msg);
	return -1;
}

static int blank(int c) { return c == ' ' || c == '\t'; }

/* The end of a line's content: its '\n', '\r\n' or '#' comment. */
static size_t content_end(const char *s, size_t from, size_t len)
{
	size_t i = from;
	while (i < len && s[i] != '\n' && s[i] != '#')
		i++;
	if (i > from && s[i - 1] == '\r' && (i == len || s[i] == '\n'))
		i--;
	return i;
}

/* A word: what a number would be, up to a blank, ',', ':' or the end. */
static size_t word_end(const char *s, size_t i, size_t e)
{
	while (i < e && !blank(s[i]) && s[i] != ',' && s[i] != ':')
		i++;
	return i;
}

/* The index at *p (blanks before it skipped), `what` naming it ("I0")
 * in messages; leaves *p after it. */
static int number(Parser *P, size_t *p, size_t e, const char *what,
                  size_t *out)
{
	const ranges_file *rf = P->rf;
	const char *s = rf->text;
	size_t i = *p;
	while (i < e && blank(s[i]))
		i++;
	size_t w = word_end(s, i, e);
	*p = w;
	if (w == i)
		return fail_at(rf, P->err, i, "expected %s, an index (digits)",
		               what);
	char q[48];
	snprintf(q, sizeof q, "%.*s%s", (int)(w - i > 40 ? 40 : w - i), s + i,
	         w - i > 40 ? "..." : "");
	for (char *c = q; *c; c++)
		if ((unsigned char)*c < 32 || (unsigned char)*c > 126)
			*c = '?';
	size_t neg = s[i] == '-', digits = i + neg;
	while (digits < w && s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (neg < w - i && digits == w) { /* the text is not NUL-ended */
		if (neg)
			return fail_at(rf, P->err, i, "'%s' is negative: indices "
			               "count from 0", q);
		size_t x = 0;
		for (size_t k = i; k < w; k++) {
			unsigned d = (unsigned)(s[k] - '0');
			if (x > (SIZE_MAX - d) / 10)
				return fail_at(rf, P->err, i, "'%s' is too large "
				               "for an index", q);
			x = x * 10 + d;
		}
		*out = x;
		return 0;
	}
	return fail_at(rf, P->err, i, "'%s' is not an index: %s is digits, "
	               "counting from 0", q, what);
}

/* "A B" at *p, a half-open range [a, b) named `what` ("i-group",
 * "j-range") with its ends n0, n1 ("I0", "I1"). */
static int pair(Parser *P, size_t *p, size_t e, const char *what,
                const char *n0, const char *n1, size_t v[2])
{
	size_t at = *p;
	while (at < e && blank(P->rf->text[at]))
		at++;
	if (number(P, p, e, n0, &v[0]) || number(P, p, e, n1, &v[1]))
		return -1;
	if (v[1] < v[0])
		return fail_at(P->rf, P->err, at, "%s %zu %zu ends before it "
		               "starts: %s must not exceed %s (the range is "
		               "[%s, %s), half-open)", what, v[0], v[1], n0, n1,
		               n0, n1);
	return 0;
}

static size_t skip_blanks(const char *s, size_t i, size_t e)
{
	while (i < e && blank(s[i]))
		i++;
	return i;
}

/* One line's group, s[b..e) its content: "I0 I1:" and its j-ranges. */
static int group_line(Parser *P, size_t b, size_t e)
{
	const char *s = P->rf->text;
	size_t p = b, g[2];
	size_t gat = skip_blanks(s, p, e);
	if (pair(P, &p, e, "i-group", "I0", "I1", g))
		return -1;
	p = skip_blanks(s, p, e);
	if (p >= e || s[p] != ':')
		return fail_at(P->rf, P->err, p, "expected ':' after the i-group "
		               "(a line is 'I0 I1: J0 J1, J0 J1, ...')");
	p++;
	if (P->fill) {
		size_t k = P->ngroups;
		P->rf->group[2 * k] = g[0];
		P->rf->group[2 * k + 1] = g[1];
		P->rf->gat[k] = gat;
	}
	P->ngroups++;
	if (skip_blanks(s, p, e) >= e)
		goto done; /* no j-ranges */
	for (;;) {
		size_t r[2];
		size_t at = skip_blanks(s, p, e);
		if (at >= e || s[at] == ',')
			return fail_at(P->rf, P->err, at, "expected a j-range "
			               "'J0 J1'%s", at > b && s[at - 1] == ',' ?
			               " after ','" : "");
		if (pair(P, &p, e, "j-range", "J0", "J1", r))
			return -1;
		if (P->fill) {
			size_t k = P->nentries;
			P->rf->range[2 * k] = r[0];
			P->rf->range[2 * k + 1] = r[1];
			P->rf->eat[k] = at;
		}
		P->nentries++;
		p = skip_blanks(s, p, e);
		if (p >= e)
			break;
		if (s[p] != ',')
			return fail_at(P->rf, P->err, p, "expected ',' or the end "
			               "of the line after a j-range");
		p++;
	}
done:
	if (P->fill)
		P->rf->offset[P->ngroups] = P->nentries;
	return 0;
}

static int pass(Parser *P)
{
	const ranges_file *rf = P->rf;
	P->ngroups = P->nentries = 0;
	for (size_t pos = 0; pos < rf->len;) {
		size_t e = content_end(rf->text, pos, rf->len);
		if (skip_blanks(rf->text, pos, e) < e &&
		    group_line(P, pos, e))
			return -1;
		const char *nl = memchr(rf->text + e, '\n', rf->len - e);
		pos = nl ? (size_t)(nl - rf->text) + 1 : rf->len;
	}
	return 0;
}

/* --- overlaps -------------------------------------------------------------- */

/* A range to sort: [lo, hi) and its index in the file. */
typedef struct Span {
	size_t lo, hi, k;
} Span;

static int by_start(const void *x, const void *y)
{
	const Span *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

/* A pair of the n spans that overlap (empty ones never do): sorted by
 * start, each non-empty span against the one reaching furthest before
 * it; of the pairs that finds, the one whose later span comes first in
 * the file.  Returns 0, or 1 with *a the later of the two, *b the other. */
static int overlap(Span *sp, size_t n, size_t *a, size_t *b)
{
	qsort(sp, n, sizeof *sp, by_start);
	size_t reach = 0, who = 0;
	int any = 0, found = 0;
	for (size_t k = 0; k < n; k++) {
		if (sp[k].lo == sp[k].hi)
			continue;
		if (any && sp[k].lo < reach) {
			size_t x = sp[k].k > who ? sp[k].k : who;
			size_t y = sp[k].k > who ? who : sp[k].k;
			if (!found || x < *a || (x == *a && y < *b)) {
				*a = x;
				*b = y;
			}
			found = 1;
		}
		if (!any || sp[k].hi > reach) {
			reach = sp[k].hi;
			who = sp[k].k;
		}
		any = 1;
	}
	return found;
}

static int line_of(const ranges_file *rf, size_t off)
{
	int line;
	size_t lb, le;
	locate(rf, off, &line, &lb, &le);
	return line;
}

static int check_overlaps(ranges_file *rf, Span *sp, char **err)
{
	const nbrt_ranges *r = &rf->r;
	size_t a, b;
	for (size_t g = 0; g < r->ngroups; g++)
		sp[g] = (Span){r->group[2 * g], r->group[2 * g + 1], g};
	if (overlap(sp, r->ngroups, &a, &b))
		return fail_at(rf, err, rf->gat[a], "i-group %zu %zu overlaps the "
		               "i-group %zu %zu of line %d: an i belongs to one "
		               "group at most", r->group[2 * a],
		               r->group[2 * a + 1], r->group[2 * b],
		               r->group[2 * b + 1], line_of(rf, rf->gat[b]));
	for (size_t g = 0; g < r->ngroups; g++) {
		size_t o = r->offset[g], n = r->offset[g + 1] - o;
		for (size_t k = 0; k < n; k++)
			sp[k] = (Span){r->range[2 * (o + k)],
			               r->range[2 * (o + k) + 1], o + k};
		if (overlap(sp, n, &a, &b))
			return fail_at(rf, err, rf->eat[a], "j-range %zu %zu "
			               "overlaps the j-range %zu %zu of the same "
			               "i-group: each pair would count twice",
			               r->range[2 * a], r->range[2 * a + 1],
			               r->range[2 * b], r->range[2 * b + 1]);
	}
	return 0;
}

/* --- the reader ------------------------------------------------------------ */

void ranges_free(ranges_file *rf)
{
	free(rf->group);
	free(rf->offset);
	free(rf->range);
	free(rf->gat);
	free(rf->eat);
	free(rf->own);
	memset(rf, 0, sizeof *rf);
}

static int no_memory(const char *path, char **err, double need, double avail)
{
	char a[32], b[32];
	nbrt_format_bytes(a, sizeof a, need);
	nbrt_format_bytes(b, sizeof b, avail);
	csv_buf e = {0};
	char m[256];
	int n = snprintf(m, sizeof m, "%s: error: its lists need %s of memory, "
	                 "and %s is available\n", nb_esc(path), a, b);
	csv_buf_put(&e, m, (size_t)n < sizeof m ? (size_t)n : sizeof m - 1);
	*err = e.s;
	return -1;
}

int ranges_parse(const char *path, const char *text, size_t len,
                 ranges_file *rf, char **err)
{
	memset(rf, 0, sizeof *rf);
	*err = NULL;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	rf->path = path;
	rf->text = text;
	rf->len = len;
	Parser P = {rf, err, 0, 0, 0};
	if (pass(&P))
		return -1;
	size_t G = P.ngroups, E = P.nentries;
	/* group, offset, gat; range, eat; the spans of the overlap check:
	 * counted in doubles, so no product overflows */
	double need = (double)sizeof(size_t) * (3.0 * (double)G + 1 +
	                                        3.0 * (double)E) +
	              (double)sizeof(Span) * (double)(G > E ? G : E);
	double avail = nbrt_host_memory();
	if (need > avail)
		return no_memory(path, err, need, avail);
	size_t z = sizeof(size_t);
	rf->group = malloc(2 * G * z + 1);
	rf->gat = malloc(G * z + 1);
	rf->offset = calloc(G + 1, z);
	rf->range = malloc(2 * E * z + 1);
	rf->eat = malloc(E * z + 1);
	Span *sp = malloc((G > E ? G : E) * sizeof *sp + 1);
	int rc = -1;
	if (!rf->group || !rf->gat || !rf->offset || !rf->range || !rf->eat ||
	    !sp) {
		no_memory(path, err, need, avail);
		goto out;
	}
	P.fill = 1;
	if (pass(&P))
		goto out;
	rf->r = (nbrt_ranges){G, rf->group, rf->offset, rf->range};
	rc = check_overlaps(rf, sp, err);
out:
	free(sp);
	if (rc)
		ranges_free(rf);
	return rc;
}

int ranges_read(const char *path, ranges_file *rf, char **err)
{
	size_t len;
	char *text = csv_read_text(path, &len, err);
	if (!text) {
		memset(rf, 0, sizeof *rf);
		return -1;
	}
	if (ranges_parse(strcmp(path, "-") == 0 ? "<stdin>" : path, text, len,
	                 rf, err)) {
		free(text);
		return -1;
	}
	rf->own = text;
	return 0;
}

int ranges_check(const ranges_file *rf, size_t ni, size_t nj, char **err)
{
	const nbrt_ranges *r = &rf->r;
	for (size_t g = 0; g < r->ngroups; g++) {
		if (r->group[2 * g + 1] > ni)
			return fail_at(rf, err, rf->gat[g], "i-group %zu %zu is out "
			               "of bounds: there are %zu i-elements (Ni), "
			               "so I1 is at most %zu", r->group[2 * g],
			               r->group[2 * g + 1], ni, ni);
		for (size_t e = r->offset[g]; e < r->offset[g + 1]; e++)
			if (r->range[2 * e + 1] > nj)
				return fail_at(rf, err, rf->eat[e], "j-range %zu %zu "
				               "is out of bounds: there are %zu "
				               "j-elements (Nj), so J1 is at most %zu",
				               r->range[2 * e], r->range[2 * e + 1],
				               nj, nj);
	}
	return 0;
}

int ranges_part(const ranges_file *rf, size_t lo, size_t hi,
                nbrt_ranges *part, size_t **group)
{
	const nbrt_ranges *r = &rf->r;
	*part = *r;
	*group = malloc(2 * r->ngroups * sizeof **group + 1);
	if (!*group)
		return -1;
	for (size_t k = 0; k < 2 * r->ngroups; k++) {
		size_t x = r->group[k];
		(*group)[k] = (x < lo ? lo : x > hi ? hi : x) - lo;
	}
	part->group = *group;
	return 0;
}
