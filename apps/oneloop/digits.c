/* digits.c: the digits bin/oneloop prints of a value beside its error
 * estimate: only those the estimate supports (issue 31), the full dd or
 * double text being the --csv and --all-digits outputs' business. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbcc.h"
#include "oneloop.h"

/* The full text of x: every digit that reads back (nb_dd_write), or %.17g
 * in double. */
const char *num_full(char *buf, size_t len, int dbl, nb_dd x)
{
	if (dbl)
		snprintf(buf, len, "%.17g", x.hi);
	else
		nb_dd_write(buf, len, x.hi, x.lo);
	return buf;
}

/* The decimal digits of x's full text and its exponent: x = 0.DIGITS *
 * 10^(exp + 1), the leading digit not 0.  Returns the count of digits, 0
 * where the text is not a plain finite number. */
static int decimal(const char *t, char *dig, int max, int *exp, int *neg)
{
	/* all: the digit characters so far; intd: those before the point;
	 * first: the index among them of the first nonzero one */
	int n = 0, all = 0, intd = -1, first = -1;
	*neg = *t == '-';
	t += *neg;
	for (; *t && *t != 'e' && *t != 'E'; t++) {
		if (*t == '.') {
			intd = all;
			continue;
		}
		if (*t < '0' || *t > '9')
			return 0;
		if (first < 0 && *t == '0') {
			all++;
			continue;
		}
		if (first < 0)
			first = all;
		if (n < max)
			dig[n++] = *t;
		all++;
	}
	if (!n)
		return 0;
	if (intd < 0)
		intd = all;
	*exp = intd - 1 - first + (*t ? (int)strtol(t + 1, NULL, 10) : 0);
	return n;
}

const char *num_earned(char *buf, size_t len, int dbl, nb_dd x, double err)
{
	char full[700], dig[64];
	num_full(full, sizeof full, dbl, x);
	int exp, neg, n = decimal(full, dig, (int)sizeof dig - 1, &exp, &neg);
	if (!n || !(err > 0) || !isfinite(err)) /* nothing to round by */
		return num_full(buf, len, dbl, x);
	/* keep the digits down to the decade of the error's leading digit */
	int d = exp - (int)floor(log10(err)) + 1;
	if (d < 1) {
		snprintf(buf, len, "0");
		return buf;
	}
	if (d >= n) /* the error is below the full text's last digit */
		return num_full(buf, len, dbl, x);
	/* round half up at digit d, carrying */
	int up = dig[d] >= '5';
	for (int k = d - 1; k >= 0 && up; k--) {
		up = dig[k] == '9';
		dig[k] = up ? '0' : (char)(dig[k] + 1);
	}
	if (up) { /* 99.. became 100..: one more decade, and one more digit
		   * to keep the error's decade (0.000996 +- 2e-4 is 0.0010) */
		memmove(dig + 1, dig, (size_t)d);
		dig[0] = '1';
		exp++;
		d++;
	}
	dig[d] = 0;
	/* as printf's %.{d}g: exponent form below 1e-4 and from 10^d */
	if (exp < -4 || exp >= d) {
		snprintf(buf, len, "%s%c%s%se%c%02d", neg ? "-" : "",
		             dig[0], d > 1 ? "." : "", dig + 1, exp < 0 ? '-' : '+',
		             exp < 0 ? -exp : exp);
	} else if (exp < 0) {
		snprintf(buf, len, "%s0.%.*s%s", neg ? "-" : "",
		             -exp - 1, "0000", dig);
	} else {
		snprintf(buf, len, "%s%.*s%s%s", neg ? "-" : "",
		             exp + 1, dig, d > exp + 1 ? "." : "",
		             d > exp + 1 ? dig + exp + 1 : "");
	}
	return buf;
}
