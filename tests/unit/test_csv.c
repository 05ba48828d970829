/* test_csv.c: nbrun's CSV module.  Values read from decimal text are
 * checked against independent references on fresh random inputs (seed
 * printed; NBCC_TEST_SEED=S repeats a run): float and double against strtof and
 * strtod, dd against __float128 arithmetic (113 bits, more than dd's 107)
 * and against QD's own reader.  Every value written must read back to the
 * same bits; files with every accepted quirk parse, and each malformed one
 * fails with the message and position it should. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <qd/c_dd.h>
#include "csv.h"

#include "seed.h"
#include "unit.h"

static unsigned short rng[3]; /* erand48's state, from seed_rng */

static long rnd(long n) { return (long)(erand48(rng) * (double)n); }

/* A random decimal with 1 to 19 digits K, a point somewhere among them
 * and an exponent, whose value is (-1)^neg K 10^p10 with |p10| <= maxp
 * (<= 29, so 10^p10 is exact in __float128).  Returns K. */
static unsigned long long random_decimal(char *buf, size_t len, int maxp,
                                         int *neg, int *p10)
{
	int nd = 1 + (int)rnd(19);
	char dig[24];
	unsigned long long k = 0;
	for (int i = 0; i < nd; i++) {
		dig[i] = (char)('0' + (i == 0 ? 1 + rnd(9) : rnd(10)));
		k = k * 10 + (unsigned long long)(dig[i] - '0');
	}
	dig[nd] = 0;
	*neg = (int)rnd(2);
	*p10 = (int)rnd(2 * maxp + 1) - maxp;
	int point = (int)rnd(nd + 1); /* digits before the point */
	snprintf(buf, len, "%s%.*s.%se%d", *neg ? "-" : "", point, dig,
	         dig + point, *p10 + (nd - point));
	return k;
}

static __float128 pow10q(int p)
{
	__float128 r = 1;
	for (int i = 0; i < p; i++)
		r *= 10; /* exact up to 10^48: 5^48 < 2^113 */
	return r;
}

static double ulp(double x)
{
	x = fabs(x);
	return nextafter(x, INFINITY) - x;
}

START_TEST(syntax)
{
	static const struct {
		const char *s;
		csv_status st;
	} t[] = {
		{"1", CSV_OK},        {"-0", CSV_OK},      {"+1.5", CSV_OK},
		{".5", CSV_OK},       {"5.", CSV_OK},      {"1e5", CSV_OK},
		{"1E-5", CSV_OK},     {"-1.25e+003", CSV_OK},
		{"", CSV_EMPTY},      {"1.5x", CSV_SYNTAX}, {"x", CSV_SYNTAX},
		{".", CSV_SYNTAX},    {"-", CSV_SYNTAX},   {"1e", CSV_SYNTAX},
		{"1e+", CSV_SYNTAX},  {"e5", CSV_SYNTAX},  {"0x10", CSV_SYNTAX},
		{"1,5", CSV_SYNTAX},  {"1 5", CSV_SYNTAX}, {"--1", CSV_SYNTAX},
		{"1.2.3", CSV_SYNTAX}, {"nan", CSV_NONFINITE},
		{"-inf", CSV_NONFINITE}, {"Infinity", CSV_NONFINITE},
		{"NaN", CSV_NONFINITE}, {"nanx", CSV_SYNTAX},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		for (nb_prec p = NB_FLOAT; p <= NB_DD; p++) {
			double v[2];
			csv_status st = csv_number(t[i].s, strlen(t[i].s), p, v);
			ck_assert_msg(st == t[i].st, "'%s' as %s: status %d, "
			              "expected %d", t[i].s, nb_prec_name(p), st,
			              t[i].st);
		}
}
END_TEST

START_TEST(range)
{
	double v[2];
	ck_assert_int_eq(csv_number("1e39", 4, NB_FLOAT, v), CSV_RANGE);
	ck_assert_int_eq(csv_number("1e38", 4, NB_FLOAT, v), CSV_OK);
	ck_assert_int_eq(csv_number("-1e309", 6, NB_DOUBLE, v), CSV_RANGE);
	ck_assert_int_eq(csv_number("1e309", 5, NB_DD, v), CSV_RANGE);
	/* underflow is not an error: it rounds to zero or a subnormal */
	ck_assert_int_eq(csv_number("1e-400", 6, NB_DD, v), CSV_OK);
	ck_assert(v[0] == 0 && v[1] == 0);
	ck_assert_int_eq(csv_number("1e-310", 6, NB_DOUBLE, v), CSV_OK);
	ck_assert(v[0] == strtod("1e-310", NULL));
	char m[100];
	csv_value_msg(m, sizeof m, CSV_RANGE, "1e39", 4, NB_FLOAT);
	ck_assert_str_eq(m, "'1e39' is out of range for float");
}
END_TEST

/* float and double: the correctly rounded value, as strtof/strtod give. */
START_TEST(float_double_values)
{
	for (int t = 0; t < 20000; t++) {
		char s[64];
		int neg, p10;
		random_decimal(s, sizeof s, 29, &neg, &p10);
		double v[2];
		float f = strtof(s, NULL);
		csv_status st = csv_number(s, strlen(s), NB_FLOAT, v);
		ck_assert_int_eq(st, isinf(f) ? CSV_RANGE : CSV_OK);
		ck_assert_msg((float)v[0] == (isinf(f) ? 0 : f) && v[1] == 0,
		              "float %s", s);
		ck_assert_int_eq(csv_number(s, strlen(s), NB_DOUBLE, v), CSV_OK);
		ck_assert_msg(v[0] == strtod(s, NULL) && v[1] == 0, "double %s",
		              s);
	}
}
END_TEST

/* dd: hi + lo must be within half an ulp of lo of the exact value (the
 * definition of lo = RN(x - hi)).  The reference q is x correctly rounded
 * to 113 bits, one __float128 operation on exact operands, so
 * |hi + lo - q| <= ulp(lo)/2 + |x| 2^-112 is the test; an lo one ulp off
 * fails it.  QD's c_dd_read must agree within 8 ulps of 2^-106 |x|. */
START_TEST(dd_values)
{
	int qd_off = 0;
	for (int t = 0; t < 20000; t++) {
		char s[64];
		int neg, p10;
		unsigned long long k = random_decimal(s, sizeof s, 29, &neg, &p10);
		__float128 q = p10 >= 0 ? (__float128)k * pow10q(p10)
		                        : (__float128)k / pow10q(-p10);
		if (neg)
			q = -q;
		double v[2];
		ck_assert_int_eq(csv_number(s, strlen(s), NB_DD, v), CSV_OK);
		ck_assert_msg(v[0] == strtod(s, NULL), "hi of %s", s);
		__float128 d = (__float128)v[0] + v[1] - q;
		__float128 bound = (__float128)ulp(v[1]) / 2 +
		                   (__float128)fabs(v[0]) * 0x1p-112;
		ck_assert_msg(d <= bound && -d <= bound,
		              "%s: hi %.17g lo %.17g off by %g ulp(lo)", s, v[0],
		              v[1], (double)(d / (__float128)ulp(v[1])));
		double r[2];
		c_dd_read(s, r);
		double e = fabs((double)((__float128)r[0] + r[1] - q));
		ck_assert_msg(e <= 8 * 0x1p-106 * fabs(v[0]), "QD reads %s as "
		              "%.17g + %.17g", s, r[0], r[1]);
		qd_off += r[0] != v[0] || r[1] != v[1];
	}
	printf("test_csv: QD's c_dd_read differs from the nearest dd in "
	       "%d of 20000 random decimals\n", qd_off);
}
END_TEST

START_TEST(dd_known)
{
	double v[2];
	csv_number("0.1", 3, NB_DD, v);
	/* lo is 0.1 - RN(0.1), RN(0.1) being exactly
	 * 0.1000000000000000055511151231257827021181583404541015625 */
	ck_assert(v[0] == 0.1);
	ck_assert(v[1] == -5.5511151231257827021181583404541015625e-18);
	csv_buf b = {0};
	csv_put_value(&b, NB_DD, v[0], v[1]);
	ck_assert_str_eq(b.s, "0.1");
	csv_buf_free(&b);
	/* -0 keeps its sign; exact short values are written short, in %g's
	 * style for 32 digits */
	csv_number("-0", 2, NB_DD, v);
	ck_assert(v[0] == 0 && signbit(v[0]));
	csv_put_value(&b, NB_DD, v[0], v[1]);
	csv_buf_put(&b, ",", 1);
	csv_put_value(&b, NB_DD, -0.125, 0);
	csv_buf_put(&b, ",", 1);
	csv_put_value(&b, NB_DD, 1e20, 0);
	csv_buf_put(&b, ",", 1);
	csv_put_value(&b, NB_DD, 0x1p-20, 0);
	ck_assert_str_eq(b.s, "-0,-0.125,100000000000000000000,"
	                      "9.5367431640625e-07");
	csv_buf_free(&b);
	/* a dd whose lo is 0 reads back only from the exact decimal of hi */
	csv_put_value(&b, NB_DD, 0.1, 0);
	ck_assert_str_eq(b.s,
	                 "0.1000000000000000055511151231257827021181583404541015625");
	csv_buf_free(&b);
	char exact[64];
	snprintf(exact, sizeof exact, "%.0f", 1e40); /* glibc prints exactly */
	size_t n = strlen(exact);
	while (exact[n - 1] == '0')
		n--;
	char want[80];
	snprintf(want, sizeof want, "%c.%.*se+%02zu", exact[0], (int)n - 1,
	         exact + 1, strlen(exact) - 1);
	csv_put_value(&b, NB_DD, 1e40, 0);
	ck_assert_str_eq(b.s, want);
	csv_number(b.s, b.len, NB_DD, v);
	ck_assert(v[0] == 1e40 && v[1] == 0);
	csv_buf_free(&b);
}
END_TEST

/* 1/3 in dd: 32 significant digits at least, the fewest that read back. */
START_TEST(dd_digits)
{
	double one[2] = {1, 0}, three[2] = {3, 0}, r[2];
	c_dd_div(one, three, r);
	csv_buf b = {0};
	csv_put_value(&b, NB_DD, r[0], r[1]);
	ck_assert_msg(strncmp(b.s, "0.33333333333333333333333333333333", 34)
	              == 0, "%s", b.s);
	size_t nd = strlen(b.s) - 2;
	ck_assert_msg(nd >= 32 && nd <= 34, "%s", b.s);
	double w[2];
	ck_assert_int_eq(csv_number(b.s, b.len, NB_DD, w), CSV_OK);
	ck_assert(w[0] == r[0] && w[1] == r[1]);
	csv_buf_free(&b);
}
END_TEST

/* Random dd (quotients and products computed by QD, both signs, a wide
 * exponent range): written, they read back to the same bits; QD reads our
 * text within 8 ulps of 2^-106 |x| (its reader is not exact). */
START_TEST(dd_round_trip)
{
	int qd_off = 0;
	for (int t = 0; t < 20000; t++) {
		double a[2] = {(erand48(rng) + 1e-3) * pow(10, rnd(80) - 40), 0};
		double c[2] = {erand48(rng) + 0.5, 0}, d[2];
		if (t & 1)
			c_dd_div(a, c, d);
		else {
			double e[2] = {1 + erand48(rng), erand48(rng) * 1e-17};
			c_dd_mul(a, e, d);
		}
		if (t & 2)
			c_dd_neg(d, d);
		csv_buf b = {0};
		csv_put_value(&b, NB_DD, d[0], d[1]);
		double w[2];
		ck_assert_int_eq(csv_number(b.s, b.len, NB_DD, w), CSV_OK);
		ck_assert_msg(w[0] == d[0] && w[1] == d[1], "%.17g + %.17g "
		              "written %s read %.17g + %.17g", d[0], d[1], b.s,
		              w[0], w[1]);
		double q[2], diff[2];
		c_dd_read(b.s, q);
		c_dd_sub(q, d, diff);
		ck_assert_msg(fabs(diff[0]) <= 8 * 0x1p-106 * fabs(d[0]),
		              "QD reads %s %g away", b.s, diff[0]);
		qd_off += q[0] != d[0] || q[1] != d[1];
		csv_buf_free(&b);
	}
	printf("test_csv: QD's c_dd_read misses our text's dd in %d of "
	       "20000\n", qd_off);
}
END_TEST

/* float and double: random bit patterns (finite) survive text. */
START_TEST(float_double_round_trip)
{
	for (int t = 0; t < 20000; t++) {
		unsigned long long u = (unsigned long long)rnd(1L << 32) << 32 |
		                       (unsigned long long)rnd(1L << 32);
		double x;
		float f;
		unsigned int u32 = (unsigned int)u;
		memcpy(&x, &u, sizeof x);
		memcpy(&f, &u32, sizeof f);
		csv_buf b = {0};
		double v[2];
		if (isfinite(x)) {
			csv_put_value(&b, NB_DOUBLE, x, 0);
			ck_assert_int_eq(csv_number(b.s, b.len, NB_DOUBLE, v),
			                 CSV_OK);
			ck_assert_msg(memcmp(&v[0], &x, sizeof x) == 0, "%s", b.s);
		}
		if (isfinite(f)) {
			b.len = 0;
			csv_put_value(&b, NB_FLOAT, f, 0);
			ck_assert_int_eq(csv_number(b.s, b.len, NB_FLOAT, v),
			                 CSV_OK);
			float g = (float)v[0];
			ck_assert_msg(memcmp(&g, &f, sizeof f) == 0, "%s", b.s);
		}
		csv_buf_free(&b);
	}
}
END_TEST

static void free_cols(csv_col *c, int n)
{
	for (int k = 0; k < n; k++) {
		free(c[k].data);
		c[k].data = NULL;
	}
}

/* A file with every accepted quirk, columns in another order than asked;
 * each value is compared with the same text read on its own. */
START_TEST(parse_quirks)
{
	char vals[3][3][64];
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++) {
			int neg, p10;
			random_decimal(vals[r][k], sizeof vals[r][k], 15, &neg,
			               &p10);
		}
	char text[1024];
	snprintf(text, sizeof text,
	         "\xEF\xBB\xBF# made by test_csv\r\n"
	         "\r\n"
	         " z , \"y\",x\r\n"
	         "%s,%s,%s\r\n"
	         "  # a comment between rows\n"
	         "\"%s\" ,\t%s,%s\n"
	         "%s,%s,%s\n\n\n",
	         vals[0][0], vals[0][1], vals[0][2], vals[1][0], vals[1][1],
	         vals[1][2], vals[2][0], vals[2][1], vals[2][2]);
	csv_col c[3] = {{"x", NB_FLOAT, NULL, NULL, 0},
	                {"y", NB_DOUBLE, NULL, NULL, 0},
	                {"z", NB_DD, NULL, NULL, 0}};
	size_t n;
	char *err;
	int rc = csv_parse("q.csv", text, strlen(text), c, 3, "LMEM", 0, &n,
	                   &err);
	ck_assert_msg(rc == 0, "%s", err ? err : "");
	ck_assert_int_eq(n, 3);
	for (int r = 0; r < 3; r++) {
		double v[2];
		csv_number(vals[r][2], strlen(vals[r][2]), NB_FLOAT, v);
		ck_assert(((float *)c[0].data)[r] == (float)v[0]);
		csv_number(vals[r][1], strlen(vals[r][1]), NB_DOUBLE, v);
		ck_assert(((double *)c[1].data)[r] == v[0]);
		csv_number(vals[r][0], strlen(vals[r][0]), NB_DD, v);
		ck_assert(((double *)c[2].data)[2 * r] == v[0]);
		ck_assert(((double *)c[2].data)[2 * r + 1] == v[1]);
	}
	free_cols(c, 3);
}
END_TEST

/* Random columns of each type, 0, 1 and 57 rows: written and read back,
 * bit for bit. */
START_TEST(write_read)
{
	static const size_t rows[] = {0, 1, 57};
	for (size_t t = 0; t < 3; t++) {
		size_t n = rows[t];
		float *x = malloc(sizeof(float) * (n + 1));
		double *y = malloc(sizeof(double) * (n + 1));
		double *z = malloc(2 * sizeof(double) * (n + 1));
		for (size_t i = 0; i < n; i++) {
			x[i] = (float)(erand48(rng) - 0.5);
			y[i] = (erand48(rng) - 0.5) * 1e-7;
			double a[2] = {erand48(rng) * 1e5, 0}, b[2] = {7, 0};
			c_dd_div(a, b, z + 2 * i);
		}
		csv_col w[3] = {{"ax", NB_FLOAT, x, NULL, 0},
		                {"pot", NB_DOUBLE, y, NULL, 0},
		                {"dd", NB_DD, z, NULL, 0}};
		csv_buf b = {0};
		csv_write(&b, w, 3, n);
		ck_assert(strncmp(b.s, "ax,pot,dd\n", 10) == 0);
		csv_col r[3] = {{"dd", NB_DD, NULL, NULL, 0},
		                {"ax", NB_FLOAT, NULL, NULL, 0},
		                {"pot", NB_DOUBLE, NULL, NULL, 0}};
		size_t got;
		char *err;
		ck_assert(csv_parse("w.csv", b.s, b.len, r, 3, "RMEM", 0, &got,
		                    &err) == 0);
		ck_assert_int_eq(got, n);
		ck_assert(!n || memcmp(r[0].data, z, 2 * sizeof(double) * n) == 0);
		ck_assert(!n || memcmp(r[1].data, x, sizeof(float) * n) == 0);
		ck_assert(!n || memcmp(r[2].data, y, sizeof(double) * n) == 0);
		free_cols(r, 3);
		csv_buf_free(&b);
		free(x);
		free(y);
		free(z);
	}
}
END_TEST

/* Each malformed file: -1, nothing left allocated, and this first line. */
START_TEST(errors)
{
	static const struct {
		const char *text, *msg;
	} t[] = {
		{"", "e.csv: error: no header row: expected one naming the LMEM "
		     "x, y"},
		{"# only a comment\n\n", "e.csv: error: no header row: expected "
		                         "one naming the LMEM x, y"},
		{"x\n1\n", "e.csv:1:2: error: missing column 'y': the kernel's "
		           "LMEM are x, y"},
		{"x,y,w\n", "e.csv:1:5: error: unknown column 'w': the kernel's "
		            "LMEM are x, y"},
		{"x, y, x\n", "e.csv:1:7: error: duplicate column 'x' (first at "
		              "1:1)"},
		{"x,,y\n", "e.csv:1:3: error: empty column name"},
		{"x,\"y\n", "e.csv:1:3: error: unterminated quote"},
		{"x,\"y\"z\n", "e.csv:1:6: error: text after a quoted value"},
		{"x,y\n1,2\n3\n", "e.csv:3:2: error: too few values: 1 where the "
		                  "header has 2"},
		{"x,y\r\n1,2,3\r\n", "e.csv:2:5: error: too many values: the "
		                     "header has 2 columns"},
		{"x,y\n1,2,\n", "e.csv:2:5: error: too many values: the header "
		                "has 2 columns"},
		{"x,y\n1, 2x\n", "e.csv:2:4: error: '2x' is not a number (column "
		                 "'y')"},
		{"x,y\n,2\n", "e.csv:2:1: error: empty value (column 'x')"},
		{"x,y\n1,nan\n", "e.csv:2:3: error: 'nan' is not a finite number "
		                 "(column 'y')"},
		{"y,x\n1e999,0\n", "e.csv:2:1: error: '1e999' is out of range for "
		                   "double (column 'y')"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		csv_col c[2] = {{"x", NB_FLOAT, NULL, NULL, 0},
		                {"y", NB_DOUBLE, NULL, NULL, 0}};
		size_t n = 99;
		char *err = NULL;
		int rc = csv_parse("e.csv", t[i].text, strlen(t[i].text), c, 2,
		                   "LMEM", 0, &n, &err);
		ck_assert_int_eq(rc, -1);
		ck_assert(err && c[0].data == NULL && c[1].data == NULL);
		size_t l = strcspn(err, "\n");
		ck_assert_msg(strlen(t[i].msg) == l && !memcmp(err, t[i].msg, l),
		              "case %zu: got '%.*s'", i, (int)l, err);
		free(err);
	}
}
END_TEST

START_TEST(caret)
{
	csv_col c[1] = {{"x", NB_DOUBLE, NULL, NULL, 0}};
	size_t n;
	char *err;
	const char *text = "x\n\t\x01 1.5x\n";
	ck_assert(csv_parse("c.csv", text, strlen(text), c, 1, "BMEM", 0,
	                    &n, &err) == -1);
	ck_assert_str_eq(err, "c.csv:2:2: error: '? 1.5x' is not a number (column "
	                      "'x')\n  \t? 1.5x\n  \t^\n");
	free(err);
}
END_TEST

/* Columns read under another name (nbrun --map): two columns of
 * different types from one field, a field no column reads skipped with
 * CSV_OTHER_COLUMNS and refused without, and what a missing mapped
 * column or a bad value in a shared one says. */
START_TEST(mapped)
{
	const char *text = "x,m,w\n0.1,2,junk\n0.5,3,\n";
	csv_col c[3] = {{"xi", NB_FLOAT, NULL, "x", 0}, {"xj", NB_DD, NULL, "x", 0},
	                {"m", NB_DOUBLE, NULL, NULL, 0}};
	size_t n;
	char *err = NULL;
	ck_assert(csv_parse("m.csv", text, strlen(text), c, 3, "LMEM",
	                    CSV_OTHER_COLUMNS, &n, &err) == 0);
	ck_assert_int_eq(n, 2);
	double v[2];
	csv_number("0.1", 3, NB_DD, v);
	ck_assert(((float *)c[0].data)[0] == 0.1f);
	ck_assert(((double *)c[1].data)[0] == v[0] &&
	          ((double *)c[1].data)[1] == v[1]);
	ck_assert(((double *)c[2].data)[1] == 3);
	free_cols(c, 3);
	ck_assert(csv_parse("m.csv", text, strlen(text), c, 3, "LMEM", 0, &n,
	                    &err) == -1);
	ck_assert_str_eq(err, "m.csv:1:5: error: unknown column 'w': the "
	                      "kernel's LMEM are xi=x, xj=x, m\n  x,m,w\n"
	                      "      ^\n");
	free(err);
	c[1].src = "y";
	ck_assert(csv_parse("m.csv", text, strlen(text), c, 3, "LMEM",
	                    CSV_OTHER_COLUMNS, &n, &err) == -1);
	ck_assert_str_eq(err, "m.csv:1:6: error: no column 'y' for xj (--map "
	                      "xj=y); the header has 'x', 'm', 'w'\n"
	                      "  x,m,w\n       ^\n");
	free(err);
	c[1].src = "x";
	const char *big = "x,m\n1e39,1\n";
	ck_assert(csv_parse("m.csv", big, strlen(big), c, 3, "LMEM", 0, &n,
	                    &err) == -1);
	ck_assert_str_eq(err, "m.csv:2:1: error: '1e39' is out of range for "
	                      "float (column 'x', for xi)\n  1e39,1\n  ^\n");
	free(err);
}
END_TEST

START_TEST(missing_file)
{
	csv_col c[1] = {{"x", NB_DOUBLE, NULL, NULL, 0}};
	size_t n;
	char *err;
	ck_assert(csv_read("/nonexistent/f.csv", c, 1, "LMEM", 0, &n,
	                   &err) == -1);
	ck_assert_str_eq(err, "/nonexistent/f.csv: error: cannot open "
	                      "'/nonexistent/f.csv': No such file or "
	                      "directory\n");
	free(err);
}
END_TEST

int main(void)
{
	seed_rng("test_csv", rng);
	Suite *s;
	TCase *tc = unit_case(&s, "csv", 60);
	tcase_add_test(tc, syntax);
	tcase_add_test(tc, range);
	tcase_add_test(tc, float_double_values);
	tcase_add_test(tc, dd_values);
	tcase_add_test(tc, dd_known);
	tcase_add_test(tc, dd_digits);
	tcase_add_test(tc, dd_round_trip);
	tcase_add_test(tc, float_double_round_trip);
	tcase_add_test(tc, parse_quirks);
	tcase_add_test(tc, write_read);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, caret);
	tcase_add_test(tc, mapped);
	tcase_add_test(tc, missing_file);
	int failed = unit_run(s, CK_FORK_GETENV);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
