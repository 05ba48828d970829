/* csv.c: nbrun's CSV reader and writer.  Values go through the compiler
 * library's exact conversions (compiler/ddtext.c): float and double
 * correctly rounded, dd the nearest double-double both ways. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "nbrt.h"

/* Sizes are checked against the memory there is before anything large is
 * made (nbrun.c, csv_parse), so this is the rare failure of a small
 * request: a message and a clean exit, not a core dump. */
static _Noreturn void oom(void)
{
	fputs("nbrun: error: out of memory\n", stderr);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

/* --- text buffers ------------------------------------------------------ */

void csv_buf_put(csv_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *t = realloc(b->s, cap);
		if (!t)
			oom();
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void buf_puts(csv_buf *b, const char *s)
{
	csv_buf_put(b, s, strlen(s));
}

static void buf_printf(csv_buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		csv_buf_put(b, small, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	csv_buf_put(b, big, (size_t)n);
	free(big);
}

void csv_buf_free(csv_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* --- reading numbers ---------------------------------------------------- */

static int blank(int c) { return c == ' ' || c == '\t'; }

csv_status csv_number(const char *s, size_t n, nb_prec t, double v[2])
{
	if (n == 0) {
		v[0] = v[1] = 0;
		return CSV_EMPTY;
	}
	switch (nb_num_read(s, n, t, v)) {
	case 0:
		return CSV_OK;
	case NB_NUM_NONFINITE:
		return CSV_NONFINITE;
	case NB_NUM_RANGE:
		return CSV_RANGE;
	default:
		return CSV_SYNTAX;
	}
}

/* Quotes text for a message: at most 40 bytes, unprintables as '?'. */
static void quote(char *buf, size_t len, const char *s, size_t n)
{
	size_t k = 0, max = n > 40 ? 40 : n;
	for (size_t i = 0; i < max && k + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[k++] = c >= 32 && c < 127 ? (char)c : '?';
	}
	if (n > max && k + 4 < len) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k < len ? k : len - 1] = 0;
}

void csv_value_msg(char *buf, size_t len, csv_status st, const char *s,
                   size_t n, nb_prec t)
{
	char q[64];
	quote(q, sizeof q, s, n);
	switch (st) {
	case CSV_OK:
		snprintf(buf, len, "'%s' is fine", q);
		break;
	case CSV_EMPTY:
		snprintf(buf, len, "empty value");
		break;
	case CSV_SYNTAX:
		snprintf(buf, len, "'%s' is not a number", q);
		break;
	case CSV_NONFINITE:
		snprintf(buf, len, "'%s' is not a finite number", q);
		break;
	case CSV_RANGE:
		snprintf(buf, len, "'%s' is out of range for %s", q,
		         nb_prec_name(t));
		break;
	}
}

const char *csv_sep_hint(const char *name, size_t n)
{
	if (memchr(name, ';', n))
		return "columns are separated by commas, and this header has ';' "
		       "between its names: write the file with commas";
	if (memchr(name, '\t', n))
		return "columns are separated by commas, and this header has '\\t' "
		       "between its names: write the file with commas";
	return "";
}

/* --- writing numbers ---------------------------------------------------- */

/* dd: nb_dd_write's text, which is longer than a line's worth only for
 * a dd whose lo is far below hi. */
static void put_dd(csv_buf *b, double hi, double lo)
{
	char small[128];
	int n = nb_dd_write(small, sizeof small, hi, lo);
	if ((size_t)n < sizeof small) {
		csv_buf_put(b, small, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	nb_dd_write(big, (size_t)n + 1, hi, lo);
	csv_buf_put(b, big, (size_t)n);
	free(big);
}

void csv_put_value(csv_buf *b, nb_prec t, double hi, double lo)
{
	if (isnan(hi) || isnan(lo)) { /* printf's "-nan" means nothing more */
		buf_puts(b, "nan");
		return;
	}
	switch (t) {
	case NB_FLOAT:
		buf_printf(b, "%.9g", (double)(float)hi);
		break;
	case NB_DOUBLE:
		buf_printf(b, "%.17g", hi);
		break;
	case NB_DD:
		put_dd(b, hi, lo);
		break;
	}
}

void csv_write(csv_buf *b, const csv_col *cols, int ncol, size_t nrow)
{
	for (int k = 0; k < ncol; k++) {
		buf_puts(b, k ? "," : "");
		buf_puts(b, cols[k].name);
	}
	buf_puts(b, "\n");
	for (size_t i = 0; i < nrow; i++) {
		for (int k = 0; k < ncol; k++) {
			double hi = 0, lo = 0;
			if (cols[k].type == NB_FLOAT)
				hi = ((const float *)cols[k].data)[i];
			else if (cols[k].type == NB_DOUBLE)
				hi = ((const double *)cols[k].data)[i];
			else {
				hi = ((const double *)cols[k].data)[2 * i];
				lo = ((const double *)cols[k].data)[2 * i + 1];
			}
			buf_puts(b, k ? "," : "");
			if (cols[k].integer && hi == floor(hi) && fabs(hi) < 1e300)
				buf_printf(b, "%.0f", hi + lo);
			else
				csv_put_value(b, cols[k].type, hi, lo);
		}
		buf_puts(b, "\n");
	}
}

/* --- reading files ------------------------------------------------------ */

typedef struct Reader {
	const char *path, *s;
	size_t len;
	size_t pos;      /* where the next line starts */
	size_t lb, le;   /* the current line, without its end */
	int line;        /* its number, from 1 */
	const csv_col *cols;
	int ncol;
	const char *what;
	int flags;
	int nfield;      /* fields of the header row */
	int *map;        /* header field -> first column read from it, or -1 */
	int *next;       /* column -> next column read from the same field */
	char **err;
} Reader;

/* One field of a line: its value s[b..e) and where it starts, for
 * messages. */
typedef struct Field {
	size_t at, b, e;
} Field;

static int next_line(Reader *R)
{
	if (R->pos >= R->len)
		return 0;
	const char *nl = memchr(R->s + R->pos, '\n', R->len - R->pos);
	R->lb = R->pos;
	R->le = nl ? (size_t)(nl - R->s) : R->len;
	R->pos = nl ? R->le + 1 : R->len;
	if (R->le > R->lb && R->s[R->le - 1] == '\r')
		R->le--;
	R->line++;
	return 1;
}

static int skippable(const Reader *R)
{
	size_t i = R->lb;
	while (i < R->le && blank(R->s[i]))
		i++;
	return i == R->le || R->s[i] == '#';
}

char *csv_error_at(const char *path, int line, const char *s, size_t n,
                   size_t at, const char *msg)
{
	csv_buf b = {0};
	buf_printf(&b, "%s:%d:%zu: error: %s\n  ", nb_esc(path), line, at + 1,
	           msg);
	size_t from = 0, to = n;
	if (to - from > 200) { /* a window around the column */
		from = at > 80 ? at - 80 : 0;
		to = from + 160 < to ? from + 160 : to;
	}
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)s[i];
		char ch = c == '\t' || (c >= 32 && c < 127) ? (char)c : '?';
		csv_buf_put(&b, &ch, 1);
	}
	buf_puts(&b, "\n  ");
	for (size_t i = from; i < at && i < to; i++)
		buf_puts(&b, s[i] == '\t' ? "\t" : " ");
	buf_puts(&b, "^\n");
	return b.s;
}

/* Sets *err to csv_error_at's message at byte off of the current line. */
static int fail_at(Reader *R, size_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	*R->err = csv_error_at(R->path, R->line, R->s + R->lb, R->le - R->lb,
	                       off - R->lb, msg);
	return -1;
}

/* The header's name for a column. */
static const char *source(const csv_col *c)
{
	return c->src ? c->src : c->name;
}

static int mapped(const csv_col *c)
{
	return c->src && strcmp(c->src, c->name) != 0;
}

/* The columns for a message: "xi, yi", a mapped one as "xi=x". */
static void names(csv_buf *b, const csv_col *cols, int ncol)
{
	for (int k = 0; k < ncol; k++) {
		buf_printf(b, "%s%s", k ? ", " : "", cols[k].name);
		if (mapped(&cols[k]))
			buf_printf(b, "=%s", nb_esc(cols[k].src));
	}
}

/* Splits the field at *p: blanks around it and one pair of double quotes
 * go.  Leaves *p on the comma after it or the line's end.  Returns 0, or
 * -1 after setting the error. */
static int next_field(Reader *R, size_t *p, Field *f)
{
	const char *s = R->s;
	size_t i = *p, e = R->le;
	while (i < e && blank(s[i]))
		i++;
	f->at = i;
	if (i < e && s[i] == '"') {
		const char *q = memchr(s + i + 1, '"', e - i - 1);
		if (!q)
			return fail_at(R, i, "unterminated quote");
		f->b = i + 1;
		f->e = (size_t)(q - s);
		i = f->e + 1;
		while (i < e && blank(s[i]))
			i++;
		if (i < e && s[i] != ',')
			return fail_at(R, i, "text after a quoted value");
		while (f->b < f->e && blank(s[f->b]))
			f->b++;
	} else {
		const char *c = memchr(s + i, ',', e - i);
		f->b = i;
		f->e = c ? (size_t)(c - s) : e;
		i = f->e;
	}
	while (f->e > f->b && blank(s[f->e - 1]))
		f->e--;
	*p = i;
	return 0;
}

/* Whether a name of the header's fields from p on (plain or quoted) is
 * one of the columns. */
static int any_known(const Reader *R, size_t p)
{
	while (p < R->le) {
		const char *c = memchr(R->s + p, ',', R->le - p);
		size_t b = p, e = c ? (size_t)(c - R->s) : R->le;
		p = e + 1;
		while (b < e && (blank(R->s[b]) || R->s[b] == '"'))
			b++;
		while (e > b && (blank(R->s[e - 1]) || R->s[e - 1] == '"'))
			e--;
		for (int k = 0; k < R->ncol; k++) {
			const char *src = source(&R->cols[k]);
			if (strlen(src) == e - b && !memcmp(src, R->s + b, e - b))
				return 1;
		}
	}
	return 0;
}

/* The header's names: R->map[field] is the first column read from it
 * (-1: none, with CSV_OTHER_COLUMNS), R->next chains the others, first[k]
 * is where column k was named; *seen gets the header's names. */
static int header_fields(Reader *R, size_t *first, csv_buf *seen)
{
	for (int k = 0; k < R->ncol; k++) {
		first[k] = (size_t)-1;
		R->next[k] = -1;
	}
	size_t p = R->lb;
	int nf = 0;
	for (;;) {
		Field f;
		if (next_field(R, &p, &f))
			return -1;
		const char *nm = R->s + f.b;
		size_t n = f.e - f.b;
		char q[64];
		quote(q, sizeof q, nm, n);
		if (n == 0)
			return fail_at(R, f.at, "empty column name");
		if (seen->len < 200) /* enough for a message */
			buf_printf(seen, "%s'%s'", nf ? ", " : "", q);
		else if (seen->s[seen->len - 1] != '.')
			buf_puts(seen, ", ...");
		/* every column read from this field, chained */
		int k = -1, last = -1;
		for (int c = 0; c < R->ncol; c++) {
			const char *src = source(&R->cols[c]);
			if (strlen(src) != n || memcmp(src, nm, n))
				continue;
			if (last < 0)
				k = c;
			else
				R->next[last] = c;
			last = c;
		}
		if (k < 0 && (R->flags & CSV_OTHER_COLUMNS)) {
			R->map[nf++] = -1;
		} else if (k < 0) {
			csv_buf b = {0};
			names(&b, R->cols, R->ncol);
			/* what is likely wrong with the file as a whole */
			int role = !strcmp(R->what, "LMEM") ||
			           !strcmp(R->what, "BMEM");
			char hint[160] = "";
			if (*csv_sep_hint(nm, n))
				snprintf(hint, sizeof hint, " (%s)", csv_sep_hint(nm, n));
			else if (role && nf == 0 && !any_known(R, f.e))
				snprintf(hint, sizeof hint, " (no column of this file "
				         "is one of them: are the --i and --j files "
				         "swapped?)");
			int rc = fail_at(R, f.at, "unknown column '%s': the "
			                 "kernel's %s are %s%s", q, R->what,
			                 b.s ? b.s : "none", hint);
			csv_buf_free(&b);
			return rc;
		} else if (first[k] != (size_t)-1) {
			return fail_at(R, f.at, "duplicate column '%s' (first "
			               "at %d:%zu)", q, R->line,
			               first[k] - R->lb + 1);
		} else {
			for (int c = k; c >= 0; c = R->next[c])
				first[c] = f.at;
			R->map[nf++] = k;
		}
		if (p >= R->le)
			break;
		p++; /* the comma */
	}
	R->nfield = nf;
	return 0;
}

/* Columns the header lacks: those read under their own names listed
 * with the kernel's, else the first read under another name (nbrun
 * --map) with the header's names. */
static int header_missing(Reader *R, const size_t *first,
                          const csv_buf *seen)
{
	csv_buf miss = {0};
	int nmiss = 0, other = -1;
	for (int k = 0; k < R->ncol; k++)
		if (first[k] == (size_t)-1 && mapped(&R->cols[k]))
			other = other < 0 ? k : other;
		else if (first[k] == (size_t)-1)
			buf_printf(&miss, "%s'%s'", nmiss++ ? ", " : "",
			           R->cols[k].name);
	if (!nmiss && other >= 0) {
		const csv_col *c = &R->cols[other];
		return fail_at(R, R->le, "no column '%s' for %s (--map %s=%s); "
		               "the header has %s", nb_esc(c->src), c->name,
		               c->name, nb_esc(c->src), seen->s);
	}
	if (nmiss) {
		csv_buf all = {0};
		names(&all, R->cols, R->ncol);
		fail_at(R, R->le, "missing column%s %s: the kernel's %s are %s",
		        nmiss > 1 ? "s" : "", miss.s, R->what, all.s);
		csv_buf_free(&all);
		csv_buf_free(&miss);
		return -1;
	}
	return 0;
}

/* Reads the header into R->map and R->next. */
static int header(Reader *R)
{
	size_t *first = xmalloc(sizeof *first * (size_t)(R->ncol + 1));
	csv_buf seen = {0};
	int rc = header_fields(R, first, &seen);
	if (rc == 0)
		rc = header_missing(R, first, &seen);
	csv_buf_free(&seen);
	free(first);
	return rc;
}

static size_t elem_size(nb_prec t)
{
	return (size_t)nb_prec_scalars(t) * nb_prec_scalar_bytes(t);
}

static void store(csv_col *c, size_t row, const double v[2])
{
	if (c->type == NB_FLOAT)
		((float *)c->data)[row] = (float)v[0];
	else if (c->type == NB_DOUBLE)
		((double *)c->data)[row] = v[0];
	else {
		((double *)c->data)[2 * row] = v[0];
		((double *)c->data)[2 * row + 1] = v[1];
	}
}

/* One data row into element `row`: each field into every column read
 * from it, at that column's type. */
static int row(Reader *R, csv_col *cols, size_t rowi)
{
	size_t p = R->lb;
	int nf = 0;
	for (;;) {
		Field f;
		if (next_field(R, &p, &f))
			return -1;
		if (nf == R->nfield)
			return fail_at(R, f.at, "too many values: the header "
			               "has %d column%s", R->nfield,
			               R->nfield == 1 ? "" : "s");
		for (int k = R->map[nf]; k >= 0; k = R->next[k]) {
			csv_col *c = &cols[k];
			double v[2];
			csv_status st = csv_number(R->s + f.b, f.e - f.b,
			                           c->type, v);
			if (st != CSV_OK) {
				char m[160];
				csv_value_msg(m, sizeof m, st, R->s + f.b,
				              f.e - f.b, c->type);
				if (mapped(c))
					return fail_at(R, f.at, "%s (column '%s', "
					               "for %s)", m, nb_esc(c->src),
					               c->name);
				return fail_at(R, f.at, "%s (column '%s')", m,
				               c->name);
			}
			store(c, rowi, v);
		}
		nf++;
		if (p >= R->le)
			break;
		p++;
	}
	if (nf < R->nfield)
		return fail_at(R, R->le, "too few values: %d where the header "
		               "has %d", nf, R->nfield);
	return 0;
}

int csv_parse(const char *path, const char *text, size_t len, csv_col *cols,
              int ncol, const char *what, int flags, size_t *nrow,
              char **err)
{
	*err = NULL;
	*nrow = 0;
	for (int k = 0; k < ncol; k++)
		cols[k].data = NULL;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		text += 3;
		len -= 3;
	}
	Reader R = {.path = path, .s = text, .len = len, .cols = cols,
	            .ncol = ncol, .what = what, .flags = flags, .err = err};
	int found = 0;
	while (!found && next_line(&R))
		found = !skippable(&R);
	if (!found) {
		csv_buf b = {0};
		buf_printf(&b, "%s: error: no header row: expected one naming "
		           "the %s ", path, what);
		names(&b, cols, ncol);
		buf_puts(&b, "\n");
		*err = b.s;
		return -1;
	}
	/* every line but the header may be a row */
	size_t cap = 1;
	for (const char *q = text + R.pos;
	     (q = memchr(q, '\n', len - (size_t)(q - text))); q++)
		cap++;
	/* a field per comma of the header, at most */
	size_t nmap = 1;
	for (size_t i = R.lb; i < R.le; i++)
		nmap += text[i] == ',';
	R.map = xmalloc(sizeof(int) * nmap);
	R.next = xmalloc(sizeof(int) * (size_t)(ncol + 1));
	int rc = header(&R);
	/* the columns, checked against the memory there is: calloc would
	 * promise them and the OOM killer end the process while they fill */
	double need = 0;
	for (int k = 0; k < ncol; k++)
		need += (double)cap * (double)elem_size(cols[k].type);
	double avail = nbrt_host_memory();
	if (rc == 0 && need > avail) {
		char a[32], b[32];
		nbrt_format_bytes(a, sizeof a, need);
		nbrt_format_bytes(b, sizeof b, avail);
		csv_buf e = {0};
		buf_printf(&e, "%s: error: %zu rows of %d %s column%s need %s "
		           "of memory, and %s is available\n", path, cap - 1,
		           ncol, what, ncol == 1 ? "" : "s", a, b);
		*err = e.s;
		rc = -1;
	}
	for (int k = 0; rc == 0 && k < ncol; k++)
		if (!(cols[k].data = malloc(cap * elem_size(cols[k].type)))) {
			csv_buf e = {0};
			buf_printf(&e, "%s: error: out of memory for %zu rows\n",
			           path, cap - 1);
			*err = e.s;
			rc = -1;
		}
	size_t n = 0;
	while (rc == 0 && next_line(&R)) {
		if (skippable(&R))
			continue;
		rc = row(&R, cols, n);
		n++;
	}
	free(R.map);
	free(R.next);
	if (rc) {
		for (int k = 0; k < ncol; k++) {
			free(cols[k].data);
			cols[k].data = NULL;
		}
		return -1;
	}
	*nrow = n;
	return 0;
}

char *csv_read_text(const char *path, size_t *len, char **err)
{
	char msg[512];
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	/* the text, then what is read from it: half of what there is for
	 * the text */
	double avail = nbrt_host_memory() / 2;
	size_t max = avail < (double)(SIZE_MAX / 4) ? (size_t)avail : SIZE_MAX / 4;
	char *text = nb_read_file_max(path, max, len, msg, sizeof msg);
	*err = NULL;
	if (!text) {
		csv_buf b = {0};
		buf_printf(&b, "%s: error: %s\n", nb_esc(name), msg);
		*err = b.s;
	}
	return text;
}

int csv_read(const char *path, csv_col *cols, int ncol, const char *what,
             int flags, size_t *nrow, char **err)
{
	size_t len;
	char *text = csv_read_text(path, &len, err);
	if (!text) {
		for (int k = 0; k < ncol; k++)
			cols[k].data = NULL;
		*nrow = 0;
		return -1;
	}
	int rc = csv_parse(strcmp(path, "-") == 0 ? "<stdin>" : path, text, len,
	                   cols, ncol, what, flags, nrow, err);
	free(text);
	return rc;
}

void csv_print_text(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s == ',' ? ';' : *s, out);
	}
	putc('"', out);
}
