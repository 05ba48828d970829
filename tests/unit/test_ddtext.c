/* test_ddtext.c: exact decimal <-> double-double (compiler/ddtext.c), on
 * fresh random inputs each run (seed printed; NBCC_TEST_SEED=S repeats one).
 * Reading: decimals of 1 to 40 digits, values over the whole double range
 * and below it, against quad-double (QD's c_qd_*, ~209 bits) on exact
 * operands: x = K 10^p = (K 5^p) 2^p, the first factor in qd, compared
 * scaled by 2^-p so nothing underflows.  hi must lie within half a gap of
 * x and lo within half a gap of x - hi, up to |x| 2^-195 for QD's own
 * rounding, which an lo one ulp off exceeds unless lo < |x| 2^-140 or so;
 * those small lo get an exact test of their own: the exact decimal of a
 * random double d (glibc's printf) followed by 10^-j reads as hi = d,
 * lo = RN(10^-j) (strtod).  Writing: random dd over the whole range, lo from
 * half an ulp of hi down to subnormals, read back to the same bits, with 32
 * significant digits or more and not in fewer (both nearest shorter
 * decimals fail); a dd whose lo is 0 writes as the exact decimal of hi.
 * Last, dd literals compiled by nbcc carry the same values. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <qd/c_dd.h>
#include <qd/c_qd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nbcc.h"

#include "seed.h"
#include "unit.h"

static unsigned short rng[3]; /* erand48's state, from seed_rng */

static long rnd(long n) { return (long)(erand48(rng) * (double)n); }

static unsigned long long rnd64(void)
{
	return (unsigned long long)rnd(1L << 32) << 32 |
	       (unsigned long long)rnd(1L << 32);
}

/* Random significant digits dig[0..nd), the first nonzero. */
static void random_digits(char *dig, int nd)
{
	for (int i = 0; i < nd; i++)
		dig[i] = (char)('0' + (i == 0 ? 1 + rnd(9) : rnd(10)));
	dig[nd] = 0;
}

/* Writes (-1)^neg dig 10^p in one of the spellings a reader must take:
 * the point anywhere or absent (".5", "5.", "5"), leading zeros, zeros
 * after the point, 'e' or 'E', signs on the number and the exponent. */
static void spell(char *buf, const char *dig, int nd, int p, int neg)
{
	int pt = (int)rnd(nd + 1); /* digits before the point */
	int ex = p + (nd - pt);
	char *q = buf;
	if (neg)
		*q++ = '-';
	else if (rnd(4) == 0)
		*q++ = '+';
	for (long z = rnd(4) == 0 ? 1 + rnd(2) : 0; z > 0; z--)
		*q++ = '0';
	memcpy(q, dig, (size_t)pt);
	q += pt;
	if (pt < nd || rnd(2)) {
		*q++ = '.';
		memcpy(q, dig + pt, (size_t)(nd - pt));
		q += nd - pt;
		for (long z = rnd(4) == 0 ? 1 + rnd(3) : 0; z > 0; z--)
			*q++ = '0';
	}
	if (ex != 0 || rnd(2))
		q += sprintf(q, "%c%s%d", rnd(2) ? 'e' : 'E',
		             ex >= 0 && rnd(2) ? "+" : "", ex);
	*q = 0;
}

/* m = dig 5^p in quad-double: the digits 15 at a time (exact doubles), so
 * only the power and the product or quotient round, each by ~2^-209. */
static void qd_scaled(const char *dig, int nd, int p, double m[4])
{
	c_qd_copy_d(0, m);
	for (int i = 0; i < nd; i += 15) {
		int k = nd - i < 15 ? nd - i : 15;
		double chunk = 0;
		for (int j = 0; j < k; j++)
			chunk = chunk * 10 + (dig[i + j] - '0');
		c_qd_mul_qd_d(m, pow(10, k), m);
		c_qd_add_qd_d(m, chunk, m);
	}
	double five[4], f[4];
	c_qd_copy_d(5, five);
	c_qd_npwr(five, p < 0 ? -p : p, f);
	if (p >= 0)
		c_qd_mul(m, f, m);
	else
		c_qd_div(m, f, m);
}

/* The gaps from v to the next doubles below and above it (at 0, the least
 * subnormal both ways): RN(y) == v iff y - v lies within half of each. */
static void gaps(double v, double *below, double *above)
{
	double a = fabs(v);
	double up = a < DBL_MAX ? nextafter(a, INFINITY) - a
	                        : a - nextafter(a, 0);
	double dn = a > 0 ? a - nextafter(a, 0) : up;
	*below = signbit(v) ? up : dn;
	*above = signbit(v) ? dn : up;
}

/* Whether d (qd, scaled by 2^-p) is within half a gap of v, scaled the
 * same, plus slack.  Scaling a gap down may underflow to 0; that only makes
 * the test stricter. */
static int within(const double d[4], double v, int p, double slack)
{
	double below, above;
	gaps(v, &below, &above);
	double fuzz = 1 + 0x1p-50; /* d[0] is d rounded to a double */
	return d[0] >= -(ldexp(below, -p) / 2 + slack) * fuzz &&
	       d[0] <= (ldexp(above, -p) / 2 + slack) * fuzz;
}

/* Significant digits (no leading or trailing zeros) of a decimal text
 * into sig and the exponent of the first one; returns their number
 * (0 for zero). */
static int sig_digits(const char *s, char *sig, long *e10)
{
	long intd = 0, ex = 0;
	int point = 0, n = 0;
	char raw[2048];
	const char *p = s + (*s == '-' || *s == '+');
	for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
		if (*p == '.')
			point = 1;
		else if (n < (int)sizeof raw) {
			raw[n++] = *p;
			intd += !point;
		}
	}
	if (*p == 'e' || *p == 'E')
		ex = strtol(p + 1, NULL, 10);
	int f = 0, l = n;
	while (f < n && raw[f] == '0')
		f++;
	while (l > f && raw[l - 1] == '0')
		l--;
	memcpy(sig, raw + f, (size_t)(l - f));
	sig[l - f] = 0;
	*e10 = intd - 1 - f + ex;
	return l - f;
}

static int same_dd(const double a[2], double hi, double lo)
{
	return a[0] == hi && a[1] == lo && signbit(a[0]) == signbit(hi);
}

START_TEST(syntax)
{
	static const struct {
		const char *s;
		int st;
	} t[] = {
		{"1", 0}, {"-0", 0}, {"+1.5", 0}, {".5", 0}, {"5.", 0},
		{"1e5", 0}, {"1E-5", 0}, {"-1.25e+003", 0}, {"1.e5", 0},
		{"007", 0}, {"0e99999999999999999999", 0},
		{"", NB_NUM_SYNTAX}, {"1.5x", NB_NUM_SYNTAX},
		{"x", NB_NUM_SYNTAX}, {".", NB_NUM_SYNTAX}, {"-", NB_NUM_SYNTAX},
		{"+.e1", NB_NUM_SYNTAX}, {"1e", NB_NUM_SYNTAX},
		{"1e+", NB_NUM_SYNTAX}, {"e5", NB_NUM_SYNTAX},
		{"0x10", NB_NUM_SYNTAX}, {"0x1p3", NB_NUM_SYNTAX},
		{"1,5", NB_NUM_SYNTAX}, {"1 5", NB_NUM_SYNTAX},
		{" 1", NB_NUM_SYNTAX}, {"1 ", NB_NUM_SYNTAX},
		{"--1", NB_NUM_SYNTAX}, {"1.2.3", NB_NUM_SYNTAX},
		{"1e+-5", NB_NUM_SYNTAX}, {"1e5.0", NB_NUM_SYNTAX},
		{"nanx", NB_NUM_SYNTAX}, {"in", NB_NUM_SYNTAX},
		{"nan", NB_NUM_NONFINITE}, {"-inf", NB_NUM_NONFINITE},
		{"Infinity", NB_NUM_NONFINITE}, {"+NaN", NB_NUM_NONFINITE},
		{"1e309", NB_NUM_RANGE}, {"-1e99999999999999999999", NB_NUM_RANGE},
		{"1.7976931348623159e308", NB_NUM_RANGE},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		for (nb_prec p = NB_FLOAT; p <= NB_DD; p++) {
			double v[2] = {7, 7};
			int st = nb_num_read(t[i].s, strlen(t[i].s), p, v);
			ck_assert_msg(st == t[i].st, "'%s' as %s: %d, expected %d",
			              t[i].s, nb_prec_name(p), st, t[i].st);
			if (st)
				ck_assert(v[0] == 0 && v[1] == 0);
		}
	/* n bounds the text: what follows is not looked at */
	double v[2];
	ck_assert_int_eq(nb_dd_read("2.5xyz", 3, v), 0);
	ck_assert(v[0] == 2.5 && v[1] == 0);
	ck_assert_int_eq(nb_num_read("1e39", 4, NB_FLOAT, v), NB_NUM_RANGE);
	ck_assert_int_eq(nb_num_read("1e38", 4, NB_FLOAT, v), 0);
	ck_assert_int_eq(nb_dd_read("1.7976931348623157e308", 22, v), 0);
	ck_assert(v[0] == DBL_MAX);
}
END_TEST

/* Spellings of nbcc's literals and long texts (past the reader's stack
 * buffer): the value does not depend on the spelling. */
START_TEST(spellings)
{
	static const struct {
		const char *s;
		double hi;
	} t[] = {
		{"1.", 1}, {".5", 0.5}, {"1.e5", 1e5}, {"12.5E+3", 12500},
		{"007", 7}, {"0.000", 0}, {"1e-99999999999999999999", 0},
		{"0.0625e1", 0.625}, {"4e-324", 0x1p-1074}, {"2e-324", 0},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double v[2];
		ck_assert_int_eq(nb_dd_read(t[i].s, strlen(t[i].s), v), 0);
		ck_assert_msg(same_dd(v, t[i].hi, 0), "%s: %g %g", t[i].s, v[0],
		              v[1]);
	}
	char big[1024], dig[48];
	for (int k = 0; k < 200; k++) {
		int nd = 1 + (int)rnd(40), p = (int)rnd(600) - 320;
		random_digits(dig, nd);
		char s[128];
		snprintf(s, sizeof s, "%se%d", dig, p);
		/* the same value with 300 to 600 zeros around its digits */
		int z = 300 + (int)rnd(300);
		size_t n = (size_t)(z / 2);
		memset(big, '0', n);
		memcpy(big + n, dig, (size_t)nd);
		n += (size_t)nd;
		big[n++] = '.';
		memset(big + n, '0', (size_t)(z - z / 2));
		n += (size_t)(z - z / 2);
		n += (size_t)sprintf(big + n, "e%d", p);
		double a[2], b[2];
		int sa = nb_dd_read(s, strlen(s), a), sb = nb_dd_read(big, n, b);
		ck_assert_int_eq(sa, sb);
		ck_assert_msg(sa || same_dd(b, a[0], a[1]), "%s", s);
	}
}
END_TEST

/* Random decimals against quad-double, as the file's comment says. */
START_TEST(read_exact)
{
	int zero = 0, sub = 0, over = 0, qd_off = 0, n = 0;
	double worst = 0; /* |x - hi - lo| in gaps of lo */
	for (int t = 0; t < 20000; t++) {
		char dig[48], s[96];
		int nd = 1 + (int)rnd(40);
		int m = (int)rnd(308 + 345 + 1) - 345; /* 10^m <= |x| < 10^(m+1) */
		int p = m - (nd - 1), neg = (int)rnd(2);
		random_digits(dig, nd);
		spell(s, dig, nd, p, neg);
		double v[2];
		int st = nb_dd_read(s, strlen(s), v);
		double M[4], D[4], D2[4];
		qd_scaled(dig, nd, p, M);
		double slack = fabs(M[0]) * 0x1p-195;
		if (m >= 308) { /* RN(x) is inf from 2^1024 - 2^970 up */
			double T[4];
			c_qd_copy_d(ldexp(1, 1024 - p), T);
			c_qd_sub_qd_d(T, ldexp(1, 970 - p), T);
			c_qd_sub(M, T, D);
			if (fabs(D[0]) <= slack)
				continue;
			if (D[0] > 0) {
				ck_assert_msg(st == NB_NUM_RANGE, "%s: %d", s, st);
				ck_assert(v[0] == 0 && v[1] == 0);
				over++;
				continue;
			}
		}
		ck_assert_msg(st == 0, "%s: %d", s, st);
		if (neg)
			c_qd_neg(M, M);
		double hs = ldexp(v[0], -p), ls = ldexp(v[1], -p);
		ck_assert_msg(ldexp(hs, p) == v[0] && ldexp(ls, p) == v[1],
		              "%s: %a %a do not scale by 2^%d", s, v[0], v[1], -p);
		c_qd_sub_qd_d(M, hs, D);
		ck_assert_msg(within(D, v[0], p, slack), "%s: hi %.17g is not "
		              "RN(x)", s, v[0]);
		c_qd_sub_qd_d(D, ls, D2);
		ck_assert_msg(within(D2, v[1], p, slack), "%s: hi %.17g lo %.17g:"
		              " lo is not RN(x - hi)", s, v[0], v[1]);
		double below, above;
		gaps(v[1], &below, &above);
		double g = ldexp(D2[0] >= 0 ? above : below, -p);
		if (g > 0 && fabs(v[0]) > 0x1p-900 && fabs(v[0]) < 0x1p900) {
			worst = fmax(worst, fabs(D2[0]) / g);
			n++;
		}
		zero += v[0] == 0;
		sub += v[0] != 0 && fabs(v[0]) < DBL_MIN;
		if (fabs(v[0]) > 0x1p-900 && fabs(v[0]) < 0x1p900) {
			double r[2];
			c_dd_read(s, r);
			qd_off += r[0] != v[0] || r[1] != v[1];
		}
	}
	printf("test_ddtext: read 20000 random decimals: %d zero, %d "
	       "subnormal, %d overflow; largest |x - hi - lo| %.3f gaps of lo "
	       "(<= 0.5); QD's c_dd_read differs in %d of %d\n", zero, sub,
	       over, worst, qd_off, n);
	ck_assert(worst <= 0.5 + 1e-9);
}
END_TEST

/* lo far below hi, exactly: the exact decimal of a random double d (all of
 * its digits, glibc's printf) followed by a 1 in place j, below half an
 * ulp of d: hi = d and lo = RN(10^-j), which strtod gives. */
START_TEST(read_small_lo)
{
	static char s[1600];
	for (int t = 0; t < 3000; t++) {
		int E = (int)rnd(1000 + 292 + 1) - 292;
		unsigned long long mant = 1ULL << 52 | (rnd64() >> 12);
		double d = ldexp((double)mant, E - 52); /* 2^E <= d < 2^(E+1) */
		int F = E < 52 ? 52 - E : 0; /* its fraction digits */
		int j = F + 1 + (int)rnd(345 - F);
		int neg = (int)rnd(2);
		int k = snprintf(s, sizeof s, "%s%.*f%s", neg ? "-" : "", F, d,
		                 F ? "" : ".");
		memset(s + k, '0', (size_t)(j - F - 1));
		k += j - F - 1;
		s[k++] = '1';
		s[k] = 0;
		char e[16];
		snprintf(e, sizeof e, "1e-%d", j);
		double lo = strtod(e, NULL), v[2];
		ck_assert_int_eq(nb_dd_read(s, (size_t)k, v), 0);
		ck_assert_msg(v[0] == (neg ? -d : d) && v[1] == (neg ? -lo : lo),
		              "%s: %a %a, expected %a %a", s, v[0], v[1], d, lo);
	}
}
END_TEST

/* A random finite dd: hi over every exponent, lo 0, a fraction of half an
 * ulp of hi scaled down by up to 2^-70, or a random subnormal; normalized
 * (two-sum) as the writer does. */
static int random_dd(double *hi, double *lo)
{
	unsigned long long b = (rnd64() & 0x800FFFFFFFFFFFFFULL) |
	                       (unsigned long long)rnd(2047) << 52;
	double h, l = 0;
	memcpy(&h, &b, sizeof h);
	switch (rnd(5)) {
	case 0:
		break;
	case 4:
		l = ldexp((double)(rnd64() >> 12), -1074) * (rnd(2) ? -1 : 1);
		break;
	default:
		l = h * 0x1p-53 * (2 * erand48(rng) - 1) * ldexp(1, -(int)rnd(71));
	}
	double s = h + l, bb = s - h, e = (h - (s - bb)) + (l - bb);
	*hi = s;
	*lo = e;
	return isfinite(s) && isfinite(e);
}

static int is_pow2(double x)
{
	int e;
	return x != 0 && fabs(frexp(x, &e)) == 0.5;
}

/* The decimal (-1)^neg 0.sig[0..n) 10^(e+1), written. */
static void dec_text(char *buf, int neg, const char *sig, int n, long e)
{
	sprintf(buf, "%s0.%.*se%ld", neg ? "-" : "", n, sig, e + 1);
}

/* Whether a decimal shorter than sig reads back too: the two nearest ones
 * with one digit less bracket it, and those that read back to a dd form an
 * interval around its exact value. */
static int shorter_reads_back(const char *sig, int n, long e10, int neg,
                              double hi, double lo)
{
	char t[1200], up[1200];
	double v[2];
	dec_text(t, neg, sig, n - 1, e10);
	if (nb_dd_read(t, strlen(t), v) == 0 && same_dd(v, hi, lo))
		return 1;
	memcpy(up, sig, (size_t)n - 1);
	int i = n - 2;
	while (i >= 0 && up[i] == '9')
		up[i--] = '0';
	if (i < 0) { /* 99..9 -> 100..0 */
		dec_text(t, neg, "1", 1, e10 + 1);
	} else {
		up[i]++;
		dec_text(t, neg, up, n - 1, e10);
	}
	return nb_dd_read(t, strlen(t), v) == 0 && same_dd(v, hi, lo);
}

/* Random dd: the text reads back to the same bits, has 32 significant
 * digits or more where the value needs them, and no shorter decimal reads
 * back where the interval that does is symmetric about the value (lo not
 * a power of two, hi + lo not next to halfway between doubles). */
START_TEST(write_round_trip)
{
	static char buf[1200], sig[1200];
	int maxlen = 0, longer = 0, checked = 0;
	for (int t = 0; t < 6000; t++) {
		double hi, lo, v[2];
		if (!random_dd(&hi, &lo))
			continue;
		int n = nb_dd_write(buf, sizeof buf, hi, lo);
		ck_assert(n > 0 && (size_t)n == strlen(buf));
		maxlen = n > maxlen ? n : maxlen;
		ck_assert_int_eq(nb_dd_read(buf, (size_t)n, v), 0);
		ck_assert_msg(same_dd(v, hi, lo), "%a + %a written %s read "
		              "%a + %a", hi, lo, buf, v[0], v[1]);
		long e10;
		int nsig = sig_digits(buf, sig, &e10);
		ck_assert_msg((strchr(buf, 'e') != NULL) ==
		              (hi != 0 && (e10 < -4 || e10 >= 32)),
		              "%s: not in %%g's style", buf);
		double below, above;
		gaps(hi, &below, &above);
		int edge = fabs(fabs(lo) - fmin(below, above) / 2) <= 4 * fabs(lo) *
		           0x1p-52;
		if (nsig > 32 && !is_pow2(lo) && !edge) {
			checked++;
			ck_assert_msg(!shorter_reads_back(sig, nsig, e10, hi < 0 ||
			                                  signbit(hi), hi, lo),
			              "%a + %a: %s is not the shortest", hi, lo, buf);
		}
		longer += nsig > 34;
	}
	printf("test_ddtext: wrote 6000 random dd: %d needed over 34 digits, "
	       "%d checked shortest, longest text %d\n", longer, checked,
	       maxlen);
}
END_TEST

/* lo = 0: every digit of hi, as glibc's exact printf gives them, for hi
 * whose last bit is above 10^-324 (below that the least subnormal
 * decides). */
START_TEST(write_exact_hi)
{
	static char ours[1200], ref[1200], a[1200], b[1200];
	for (int t = 0; t < 1000; t++) {
		int E = (int)rnd(1223) - 200;
		unsigned long long mant = 1ULL << 52 | (rnd64() >> 12);
		double d = ldexp((double)mant, E - 52) * (rnd(2) ? -1 : 1);
		nb_dd_write(ours, sizeof ours, d, 0);
		snprintf(ref, sizeof ref, "%.800e", d);
		long ea, eb;
		sig_digits(ours, a, &ea);
		sig_digits(ref, b, &eb);
		ck_assert_msg(ea == eb && strcmp(a, b) == 0, "%a: %s", d, ours);
		ck_assert((ours[0] == '-') == (d < 0));
	}
}
END_TEST

START_TEST(write_special)
{
	char b[64];
	static const struct {
		double hi, lo;
		const char *s;
	} t[] = {
		{0, 0, "0"}, {-0.0, 0, "-0"}, {-0.125, 0, "-0.125"},
		{1e20, 0, "100000000000000000000"},
		{0x1p-20, 0, "9.5367431640625e-07"},
		{NAN, 0, "nan"}, {0, -NAN, "nan"}, {INFINITY, 0, "inf"},
		{-INFINITY, 1, "-inf"}, {INFINITY, -INFINITY, "nan"},
		{DBL_MAX, DBL_MAX, "inf"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int n = nb_dd_write(b, sizeof b, t[i].hi, t[i].lo);
		ck_assert_str_eq(b, t[i].s);
		ck_assert_int_eq(n, (int)strlen(t[i].s));
	}
	/* 0.1 read is written back as "0.1"; 1/3 (QD) in 32 to 34 digits */
	double v[2], one[2] = {1, 0}, three[2] = {3, 0}, r[2];
	nb_dd_read("0.1", 3, v);
	nb_dd_write(b, sizeof b, v[0], v[1]);
	ck_assert_str_eq(b, "0.1");
	c_dd_div(one, three, r);
	int n = nb_dd_write(b, sizeof b, r[0], r[1]);
	ck_assert_msg(n >= 34 && n <= 36 &&
	              !strncmp(b, "0.33333333333333333333333333333333", 34), "%s",
	              b);
	/* as snprintf: the whole length whatever fits */
	char small[8] = "xxxxxxx";
	ck_assert_int_eq(nb_dd_write(small, sizeof small, r[0], r[1]), n);
	ck_assert_str_eq(small, "0.33333");
	ck_assert_int_eq(nb_dd_write(NULL, 0, r[0], r[1]), n);
	/* the longest texts: a large hi and the least subnormal lo */
	static const double ext[][2] = {
		{DBL_MAX, 0x1p-1074}, {-DBL_MAX, -0x1p-1074},
		{0x1p1023, 0x1p-1074}, {9e307, -0x1.8p-1073},
		{1e31, 0x1p-1074}, {0x1p-1022, 0}, {0x1p-1074, 0},
	};
	static char big[1200];
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		n = nb_dd_write(big, sizeof big, ext[i][0], ext[i][1]);
		ck_assert_msg(n <= 650, "%a + %a: %d characters", ext[i][0],
		              ext[i][1], n);
		ck_assert_int_eq(nb_dd_read(big, (size_t)n, v), 0);
		ck_assert(same_dd(v, ext[i][0], ext[i][1]));
	}
}
END_TEST

/* nbcc reads dd literals with nb_dd_read: the IR after lowering holds, in
 * order, the dd of each literal of a random source. */
START_TEST(literals)
{
	enum { NLIT = 300 };
	static char lit[NLIT][64], src[NLIT * 80];
	size_t k = (size_t)sprintf(src, "LMEM dd a;\nRMEM dd r;\n");
	for (int i = 0; i < NLIT; i++) {
		char dig[48];
		int nd = 1 + (int)rnd(40), m = (int)rnd(600) - 300;
		random_digits(dig, nd);
		spell(lit[i], dig, nd, m - (nd - 1), 0);
		if (lit[i][0] == '+') /* a sign is not part of a literal */
			memmove(lit[i], lit[i] + 1, strlen(lit[i]));
		k += (size_t)sprintf(src + k, "r += a*%s;\n", lit[i]);
	}
	nb_options o;
	nb_options_init(&o);
	nb_output out;
	int rc = nb_compile("lit.nbl", src, k, &o, "ir:lower", stderr, &out);
	ck_assert_msg(rc == 0 && out.code, "compile failed");
	const char *p = out.code;
	int qd_off = 0;
	for (int i = 0; i < NLIT; i++) {
		p = strstr(p, "imm.dd ");
		ck_assert_msg(p != NULL, "literal %d (%s) missing", i, lit[i]);
		char *end;
		double hi = strtod(p + 7, &end), lo = 0;
		if (*end == '+' || *end == '-')
			lo = strtod(end, &end);
		p = end;
		double v[2], q[2];
		ck_assert_int_eq(nb_dd_read(lit[i], strlen(lit[i]), v), 0);
		ck_assert_msg(v[0] == hi && v[1] == lo, "%s: IR %.17g%+.17g, "
		              "expected %.17g%+.17g", lit[i], hi, lo, v[0], v[1]);
		c_dd_read(lit[i], q);
		qd_off += q[0] != v[0] || q[1] != v[1];
	}
	printf("test_ddtext: %d literals compiled; QD's c_dd_read would have "
	       "differed in %d\n", NLIT, qd_off);
	nb_output_free(&out);
}
END_TEST

int main(void)
{
	seed_rng("test_ddtext", rng);
	Suite *s;
	TCase *tc = unit_case(&s, "ddtext", 120);
	tcase_add_test(tc, syntax);
	tcase_add_test(tc, spellings);
	tcase_add_test(tc, read_exact);
	tcase_add_test(tc, read_small_lo);
	tcase_add_test(tc, write_round_trip);
	tcase_add_test(tc, write_exact_hi);
	tcase_add_test(tc, write_special);
	tcase_add_test(tc, literals);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
