/* ddtext.c: decimal text to float, double and double-double, and dd back to
 * text, exactly.  QD's c_dd_read and c_dd_swrite work in dd arithmetic and
 * are off by an ulp of lo or so, so most dd values written by one do not
 * read back to themselves; here both ways go through exact arithmetic on
 * decimal digit strings, with glibc's correctly rounded strtod and its exact
 * printf.  Shared by the compiler (dd literals) and nbrun (CSV files). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base.h"

#define DD_DIGITS 32 /* significant digits written for dd, at least */

static _Noreturn void oom(void)
{
	fputs("out of memory (decimal conversion)\n", stderr);
	abort();
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
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

/* RN(x), by strtod on x's digits. */
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

/* x in the style of printf's %g with precision p: exponent form when
 * x < 1e-4 or x >= 10^p.  Every digit of x is written (the callers rounded
 * it), without trailing zeros.  Returns a malloc'd string. */
static char *dec_text_g(const Dec *x, long long p)
{
	long long ae = x->e < 0 ? -x->e : x->e;
	char *s = xmalloc(x->n + (size_t)ae + 32), *q = s;
	if (x->n == 0) {
		strcpy(s, x->neg ? "-0" : "0");
		return s;
	}
	if (x->neg)
		*q++ = '-';
	if (x->e < -4 || x->e >= p) {
		*q++ = (char)('0' + x->d[0]);
		if (x->n > 1)
			*q++ = '.';
		for (size_t i = 1; i < x->n; i++)
			*q++ = (char)('0' + x->d[i]);
		sprintf(q, "e%c%02lld", x->e < 0 ? '-' : '+', ae);
		return s;
	}
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
	*q = 0;
	return s;
}

/* --- reading ------------------------------------------------------------ */

/* [+-] digits [. digits] [(e|E) [+-] digits], with a digit before the
 * exponent: plain decimal only, so strtod's hex, nan and inf stay out.
 * nbcc's literals (lex.l) are a subset. */
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
int read_dd(const char *z, double v[2])
{
	double hi = strtod(z, NULL);
	if (isinf(hi))
		return NB_NUM_RANGE;
	v[0] = hi;
	v[1] = 0;
	if (hi == 0)
		return 0;
	Dec x, h, r;
	dec_parse(z, &x);
	dec_of_double(hi, &h);
	h.neg = !h.neg;
	dec_add(&x, &h, &r);
	v[1] = dec_to_double(&r);
	dec_free(&x);
	dec_free(&h);
	dec_free(&r);
	return 0;
}

/* The readers of the precision table (base.h): z is a plain decimal. */
int read_f32(const char *z, double v[2])
{
	float f = strtof(z, NULL);
	v[0] = f;
	return isinf(f) ? NB_NUM_RANGE : 0;
}

int read_f64(const char *z, double v[2])
{
	v[0] = strtod(z, NULL);
	return isinf(v[0]) ? NB_NUM_RANGE : 0;
}

int nb_num_read(const char *s, size_t n, nb_prec t, double v[2])
{
	v[0] = v[1] = 0;
	if (!decimal_syntax(s, n))
		return nonfinite_word(s, n) ? NB_NUM_NONFINITE : NB_NUM_SYNTAX;
	char small[128];
	char *z = n < sizeof small ? small : xmalloc(n + 1);
	memcpy(z, s, n);
	z[n] = 0;
	int st = prec[t].read(z, v);
	if (z != small)
		free(z);
	if (st)
		v[0] = v[1] = 0;
	return st;
}

int nb_dd_read(const char *s, size_t n, double v[2])
{
	return nb_num_read(s, n, NB_DD, v);
}

/* --- writing ------------------------------------------------------------ */

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

/* The fewest digits from DD_DIGITS up that read back to the same
 * (normalized) dd.  The exact decimal of hi + lo always does, so the
 * search ends; values from dd arithmetic need 32 to 34 digits mostly, a
 * few more where lo is much below half an ulp of hi, and a dd whose lo is
 * 0 needs every digit of hi (down to 10^-324 or so: below that, half the
 * least subnormal, nothing decides). */
static char *dd_text(double hi, double lo)
{
	if (isnan(hi) || isnan(lo)) /* printf's "-nan" means nothing more */
		return strcpy(xmalloc(4), "nan");
	if (hi == 0 && lo == 0)
		return strcpy(xmalloc(3), signbit(hi) ? "-0" : "0");
	double s = hi + lo, bb = s - hi;
	double e = (hi - (s - bb)) + (lo - bb); /* two-sum: s + e == hi + lo */
	if (!isfinite(s) || !isfinite(e))
		return strcpy(xmalloc(5), isnan(s) ? "nan" : s < 0 ? "-inf" : "inf");
	Dec h, l, v;
	dec_of_double(s, &h);
	dec_of_double(e, &l);
	dec_add(&h, &l, &v);
	dec_free(&l);
	char *t = NULL;
	for (size_t nd = DD_DIGITS;; nd++) {
		Dec r;
		dec_round(&v, nd, &r);
		free(t);
		t = dec_text_g(&r, DD_DIGITS);
		int done = r.n == v.n || reads_back(t, &r, &h, s, e);
		dec_free(&r);
		if (done)
			break;
	}
	dec_free(&h);
	dec_free(&v);
	return t;
}

int nb_dd_write(char *buf, size_t len, double hi, double lo)
{
	char *t = dd_text(hi, lo);
	size_t n = strlen(t);
	if (len) {
		size_t k = n < len - 1 ? n : len - 1;
		memcpy(buf, t, k);
		buf[k] = 0;
	}
	free(t);
	return (int)n;
}
