/* csv.c: nbrun's CSV reader and writer, and exact decimal conversions for
 * double-double.  QD's own c_dd_read/c_dd_swrite are off by an ulp or so
 * (they work in dd arithmetic), so most dd values written by one do not read
 * back to themselves; here both ways go through exact decimal arithmetic on
 * digit strings, with glibc's correctly rounded strtod and exact printf. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "csv.h"

#define DD_DIGITS 32 /* significant digits written for dd, at least */

static _Noreturn void oom(void)
{
	fputs("nbrun: out of memory\n", stderr);
	abort();
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

/* --- exact decimals ------------------------------------------------------
 * A Dec is sign * 0.d[0]d[1]...d[n-1] * 10^(e+1): d[0] is the digit of
 * 10^e.  Normal form: no leading or trailing zero digits; zero has n = 0. */

typedef struct Dec {
	int neg;
	long long e;
	size_t n;
	unsigned char *d;
} Dec;

static void dec_free(Dec *x)
{
	free(x->d);
	x->d = NULL;
	x->n = 0;
}

static void dec_trim(Dec *x)
{
	size_t lead = 0;
	while (lead < x->n && x->d[lead] == 0)
		lead++;
	if (lead) {
		memmove(x->d, x->d + lead, x->n - lead);
		x->n -= lead;
		x->e -= (long long)lead;
	}
	while (x->n && x->d[x->n - 1] == 0)
		x->n--;
	if (x->n == 0)
		x->neg = 0;
}

/* z is a NUL-terminated number that passed decimal_syntax (or printf's
 * %e output, which also does). */
static void dec_parse(const char *z, Dec *x)
{
	const char *p = z;
	x->neg = 0;
	if (*p == '+' || *p == '-')
		x->neg = *p++ == '-';
	x->d = xmalloc(strlen(p));
	x->n = 0;
	long long intd = 0;
	int point = 0;
	for (; isdigit((unsigned char)*p) || *p == '.'; p++) {
		if (*p == '.') {
			point = 1;
			continue;
		}
		x->d[x->n++] = (unsigned char)(*p - '0');
		intd += !point;
	}
	long long ex = 0;
	if (*p == 'e' || *p == 'E') {
		p++;
		int eneg = *p == '-';
		if (*p == '+' || *p == '-')
			p++;
		/* saturate: callers only get here for values in double's range,
		 * so a huge exponent is balanced by as many zero digits */
		for (; isdigit((unsigned char)*p); p++)
			if (ex < 1000000000000000LL)
				ex = ex * 10 + (*p - '0');
		if (eneg)
			ex = -ex;
	}
	x->e = intd - 1 + ex;
	dec_trim(x);
}

/* The exact decimal value of a finite double. */
static void dec_of_double(double v, Dec *x)
{
	if (v == 0) {
		*x = (Dec){0};
		x->d = xmalloc(1);
		return;
	}
	int E;
	double f = frexp(fabs(v), &E); /* |v| = f * 2^E, f in [0.5, 1) */
	unsigned long long m = (unsigned long long)ldexp(f, 53);
	int k = E - 53; /* |v| = m * 2^k */
	while (!(m & 1)) {
		m >>= 1;
		k++;
	}
	/* m * 2^k has -k digits after the point when k < 0, and its leading
	 * digit is at 10^floor(log10|v|) <= 10^floor(E log10 2) */
	int lead = (int)floor(E * 0.30102999566398120) + 1;
	int prec = lead + (k < 0 ? -k : 0) + 1;
	if (prec < 1)
		prec = 1;
	size_t sz = (size_t)prec + 40;
	char *s = xmalloc(sz);
	snprintf(s, sz, "%.*e", prec, v);
	dec_parse(s, x);
	free(s);
}

/* x = a + b, exactly. */
static void dec_add(const Dec *a, const Dec *b, Dec *x)
{
	if (a->n == 0 || b->n == 0) {
		const Dec *c = a->n ? a : b;
		*x = *c;
		x->d = xmalloc(c->n);
		memcpy(x->d, c->d, c->n);
		return;
	}
	long long top = (a->e > b->e ? a->e : b->e) + 1;
	long long alo = a->e - (long long)a->n + 1, blo = b->e - (long long)b->n + 1;
	long long bot = alo < blo ? alo : blo;
	size_t w = (size_t)(top - bot + 1);
	unsigned char *A = calloc(w, 1), *B = calloc(w, 1);
	if (!A || !B)
		oom();
	memcpy(A + (top - a->e), a->d, a->n);
	memcpy(B + (top - b->e), b->d, b->n);
	x->neg = a->neg;
	if (a->neg == b->neg) {
		int carry = 0;
		for (size_t i = w; i-- > 0;) {
			int s = A[i] + B[i] + carry;
			A[i] = (unsigned char)(s % 10);
			carry = s / 10;
		}
	} else {
		if (memcmp(A, B, w) < 0) { /* |a| < |b|: compute b - a */
			unsigned char *t = A;
			A = B;
			B = t;
			x->neg = b->neg;
		}
		int borrow = 0;
		for (size_t i = w; i-- > 0;) {
			int s = A[i] - B[i] - borrow;
			borrow = s < 0;
			A[i] = (unsigned char)(s + 10 * borrow);
		}
	}
	free(B);
	x->d = A;
	x->n = w;
	x->e = top;
	dec_trim(x);
}

/* x = a rounded to nd significant digits (half away from zero: the
 * callers check what they get, so ties need no care). */
static void dec_round(const Dec *a, size_t nd, Dec *x)
{
	*x = *a;
	x->d = xmalloc(a->n + 1);
	if (a->n <= nd) {
		memcpy(x->d, a->d, a->n);
		return;
	}
	memcpy(x->d + 1, a->d, nd);
	x->d[0] = 0;
	x->n = nd + 1;
	x->e = a->e + 1;
	if (a->d[nd] >= 5) {
		size_t i = nd;
		while (x->d[i] == 9)
			x->d[i--] = 0;
		x->d[i]++;
	}
	dec_trim(x);
}

static double dec_to_double(const Dec *x)
{
	if (x->n == 0)
		return 0;
	size_t sz = x->n + 40;
	char *s = xmalloc(sz);
	size_t k = 0;
	if (x->neg)
		s[k++] = '-';
	for (size_t i = 0; i < x->n; i++)
		s[k++] = (char)('0' + x->d[i]);
	snprintf(s + k, sz - k, "e%lld", x->e - (long long)x->n + 1);
	double v = strtod(s, NULL);
	free(s);
	return v;
}

/* Appends x in the style of printf's %g with precision p: exponent form
 * when x < 1e-4 or x >= 10^p.  Every digit of x is written (the callers
 * rounded it), without trailing zeros. */
static void dec_put_g(csv_buf *b, const Dec *x, long long p)
{
	if (x->n == 0) {
		buf_puts(b, x->neg ? "-0" : "0");
		return;
	}
	long long ae = x->e < 0 ? -x->e : x->e;
	char *s = xmalloc(x->n + (size_t)ae + 32), *q = s;
	if (x->neg)
		*q++ = '-';
	if (x->e < -4 || x->e >= p) {
		*q++ = (char)('0' + x->d[0]);
		if (x->n > 1)
			*q++ = '.';
		for (size_t i = 1; i < x->n; i++)
			*q++ = (char)('0' + x->d[i]);
		q += sprintf(q, "e%c%02lld", x->e < 0 ? '-' : '+', ae);
	} else {
		if (x->e < 0) {
			*q++ = '0';
			*q++ = '.';
			for (long long i = -1; i > x->e; i--)
				*q++ = '0';
		}
		for (long long i = 0; i < (long long)x->n || i <= x->e; i++) {
			if (i == x->e + 1 && x->e >= 0)
				*q++ = '.';
			*q++ = (char)('0' + (i < (long long)x->n ? x->d[i] : 0));
		}
	}
	csv_buf_put(b, s, (size_t)(q - s));
	free(s);
}

/* --- reading numbers ---------------------------------------------------- */

static int blank(int c) { return c == ' ' || c == '\t'; }

/* [+-] digits [. digits] [(e|E) [+-] digits], with a digit before the
 * exponent: plain decimal only, so strtod's hex, nan and inf stay out. */
static int decimal_syntax(const char *s, size_t n)
{
	size_t i = 0, nd = 0;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < n && isdigit((unsigned char)s[i]); i++)
		nd++;
	if (i < n && s[i] == '.')
		for (i++; i < n && isdigit((unsigned char)s[i]); i++)
			nd++;
	if (nd == 0)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t ed = 0;
		for (; i < n && isdigit((unsigned char)s[i]); i++)
			ed++;
		if (ed == 0)
			return 0;
	}
	return i == n;
}

static int nonfinite_word(const char *s, size_t n)
{
	if (n && (*s == '+' || *s == '-')) {
		s++;
		n--;
	}
	return (n == 3 && !strncasecmp(s, "nan", 3)) ||
	       (n == 3 && !strncasecmp(s, "inf", 3)) ||
	       (n == 8 && !strncasecmp(s, "infinity", 8));
}

/* hi = RN(x), lo = RN(x - hi): x - hi is taken exactly on the digits. */
static csv_status dd_read(const char *z, double v[2])
{
	double hi = strtod(z, NULL);
	if (isinf(hi))
		return CSV_RANGE;
	v[0] = hi;
	v[1] = 0;
	if (hi == 0)
		return CSV_OK;
	Dec x, h, r;
	dec_parse(z, &x);
	dec_of_double(hi, &h);
	h.neg = !h.neg;
	dec_add(&x, &h, &r);
	v[1] = dec_to_double(&r);
	dec_free(&x);
	dec_free(&h);
	dec_free(&r);
	return CSV_OK;
}

csv_status csv_number(const char *s, size_t n, nb_prec t, double v[2])
{
	v[0] = v[1] = 0;
	if (n == 0)
		return CSV_EMPTY;
	if (!decimal_syntax(s, n))
		return nonfinite_word(s, n) ? CSV_NONFINITE : CSV_SYNTAX;
	char small[128];
	char *z = n < sizeof small ? small : xmalloc(n + 1);
	memcpy(z, s, n);
	z[n] = 0;
	csv_status st = CSV_OK;
	switch (t) {
	case NB_FLOAT: {
		float f = strtof(z, NULL);
		v[0] = f;
		st = isinf(f) ? CSV_RANGE : CSV_OK;
		break;
	}
	case NB_DOUBLE:
		v[0] = strtod(z, NULL);
		st = isinf(v[0]) ? CSV_RANGE : CSV_OK;
		break;
	case NB_DD:
		st = dd_read(z, v);
		break;
	}
	if (z != small)
		free(z);
	if (st != CSV_OK)
		v[0] = v[1] = 0;
	return st;
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

/* --- writing numbers ---------------------------------------------------- */

/* Whether text (r, as digits) reads back as the dd (hi, lo), whose hi has
 * the exact decimal h: the reader's steps, with h known already. */
static int reads_back(const char *text, const Dec *r, const Dec *h,
                      double hi, double lo)
{
	if (strtod(text, NULL) != hi)
		return 0;
	Dec mh = *h, d;
	mh.neg = !h->neg;
	dec_add(r, &mh, &d);
	int same = dec_to_double(&d) == lo;
	dec_free(&d);
	return same;
}

/* dd: the fewest digits from DD_DIGITS up that read back to the same
 * (normalized) dd.  The exact decimal of hi + lo always does, so the
 * search ends; values from dd arithmetic need 32 to 34 digits mostly, a
 * few more where lo is much below half an ulp of hi, and a dd whose lo is
 * 0 needs every digit of hi. */
static void put_dd(csv_buf *b, double hi, double lo)
{
	if (hi == 0 && lo == 0) {
		buf_puts(b, signbit(hi) ? "-0" : "0");
		return;
	}
	double s = hi + lo, bb = s - hi;
	double e = (hi - (s - bb)) + (lo - bb); /* two-sum: s + e == hi + lo */
	if (!isfinite(s) || !isfinite(e)) {
		buf_printf(b, "%.17g", hi + lo);
		return;
	}
	Dec h, l, v;
	dec_of_double(s, &h);
	dec_of_double(e, &l);
	dec_add(&h, &l, &v);
	dec_free(&l);
	csv_buf t = {0};
	for (size_t nd = DD_DIGITS;; nd++) {
		Dec r;
		dec_round(&v, nd, &r);
		t.len = 0;
		dec_put_g(&t, &r, DD_DIGITS);
		int done = r.n == v.n || reads_back(t.s, &r, &h, s, e);
		dec_free(&r);
		if (done)
			break;
	}
	csv_buf_put(b, t.s, t.len);
	csv_buf_free(&t);
	dec_free(&h);
	dec_free(&v);
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

/* Sets *err to "FILE:LINE:COL: error: MSG", then the line and a caret
 * (as the compiler prints them; unprintables shown as '?'). */
static int fail_at(Reader *R, size_t off, const char *fmt, ...)
{
	csv_buf b = {0};
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	buf_printf(&b, "%s:%d:%zu: error: %s\n  ", R->path, R->line,
	           off - R->lb + 1, msg);
	size_t from = R->lb, to = R->le;
	if (to - from > 200) { /* a window around the column */
		from = off > from + 80 ? off - 80 : from;
		to = from + 160 < to ? from + 160 : to;
	}
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)R->s[i];
		char ch = c == '\t' || (c >= 32 && c < 127) ? (char)c : '?';
		csv_buf_put(&b, &ch, 1);
	}
	buf_puts(&b, "\n  ");
	for (size_t i = from; i < off && i < to; i++)
		buf_puts(&b, R->s[i] == '\t' ? "\t" : " ");
	buf_puts(&b, "^\n");
	*R->err = b.s;
	return -1;
}

static void names(csv_buf *b, const csv_col *cols, int ncol)
{
	for (int k = 0; k < ncol; k++)
		buf_printf(b, "%s%s", k ? ", " : "", cols[k].name);
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

/* The header's names: map[field] is the column index, first[k] where
 * column k was named. */
static int header_fields(Reader *R, int *map, size_t *first)
{
	for (int k = 0; k < R->ncol; k++)
		first[k] = (size_t)-1;
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
		int k = 0;
		while (k < R->ncol && (strlen(R->cols[k].name) != n ||
		                       memcmp(R->cols[k].name, nm, n)))
			k++;
		if (k == R->ncol) {
			csv_buf b = {0};
			names(&b, R->cols, R->ncol);
			int rc = fail_at(R, f.at, "unknown column '%s': the "
			                 "kernel's %s are %s", q, R->what,
			                 b.s ? b.s : "none");
			csv_buf_free(&b);
			return rc;
		}
		if (first[k] != (size_t)-1)
			return fail_at(R, f.at, "duplicate column '%s' (first "
			               "at %d:%zu)", q, R->line,
			               first[k] - R->lb + 1);
		first[k] = f.at;
		map[nf++] = k;
		if (p >= R->le)
			break;
		p++; /* the comma */
	}
	return 0;
}

static int header_missing(Reader *R, const size_t *first)
{
	csv_buf miss = {0};
	int nmiss = 0;
	for (int k = 0; k < R->ncol; k++)
		if (first[k] == (size_t)-1)
			buf_printf(&miss, "%s'%s'", nmiss++ ? ", " : "",
			           R->cols[k].name);
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

/* Reads the header into map: map[field] is the column index. */
static int header(Reader *R, int *map)
{
	size_t *first = xmalloc(sizeof *first * (size_t)(R->ncol + 1));
	int rc = header_fields(R, map, first);
	if (rc == 0)
		rc = header_missing(R, first);
	free(first);
	return rc;
}

static size_t elem_size(nb_prec t)
{
	return t == NB_FLOAT ? sizeof(float) : t == NB_DD ? 2 * sizeof(double)
	                                                  : sizeof(double);
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

/* One data row into element `row`. */
static int row(Reader *R, const int *map, csv_col *cols, size_t rowi)
{
	size_t p = R->lb;
	int nf = 0;
	for (;;) {
		Field f;
		if (next_field(R, &p, &f))
			return -1;
		if (nf == R->ncol)
			return fail_at(R, f.at, "too many values: the header "
			               "has %d column%s", R->ncol,
			               R->ncol == 1 ? "" : "s");
		csv_col *c = &cols[map[nf]];
		double v[2];
		csv_status st = csv_number(R->s + f.b, f.e - f.b, c->type, v);
		if (st != CSV_OK) {
			char m[160];
			csv_value_msg(m, sizeof m, st, R->s + f.b, f.e - f.b,
			              c->type);
			return fail_at(R, f.at, "%s (column '%s')", m, c->name);
		}
		store(c, rowi, v);
		nf++;
		if (p >= R->le)
			break;
		p++;
	}
	if (nf < R->ncol)
		return fail_at(R, R->le, "too few values: %d where the header "
		               "has %d", nf, R->ncol);
	return 0;
}

int csv_parse(const char *path, const char *text, size_t len, csv_col *cols,
              int ncol, const char *what, size_t *nrow, char **err)
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
	            .ncol = ncol, .what = what, .err = err};
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
	int *map = xmalloc(sizeof(int) * (size_t)(ncol + 1));
	int rc = header(&R, map);
	for (int k = 0; rc == 0 && k < ncol; k++)
		cols[k].data = xmalloc(cap * elem_size(cols[k].type));
	size_t n = 0;
	while (rc == 0 && next_line(&R)) {
		if (skippable(&R))
			continue;
		rc = row(&R, map, cols, n);
		n++;
	}
	free(map);
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

int csv_read(const char *path, csv_col *cols, int ncol, const char *what,
             size_t *nrow, char **err)
{
	char msg[512];
	size_t len;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	char *text = nb_read_file(path, &len, msg, sizeof msg);
	if (!text) {
		for (int k = 0; k < ncol; k++)
			cols[k].data = NULL;
		*nrow = 0;
		csv_buf b = {0};
		buf_printf(&b, "%s: error: %s\n", name, msg);
		*err = b.s;
		return -1;
	}
	int rc = csv_parse(name, text, len, cols, ncol, what, nrow, err);
	free(text);
	return rc;
}
