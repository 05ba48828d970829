/* fnref.c MODE IN.csv OUT.csv: the reference of tests/sh/functions.sh.
 * Reads the kernel's inputs (columns x and y, exact binary fractions) and
 * its results, recomputes each result column it knows by its name, and
 * prints "  column: worst error, in units of the tolerance" and "fail N".
 * MODE float or double: long double libm (64 bits), independent of the
 * float and double functions the kernels call; dd: QD's quad-double
 * (212 bits), independent of ddlib.h, with results read from their text by
 * QD (erf and erfc, which QD lacks: long double's); mixed: the
 * conversions kernel.  Built by the script:
 * cc fnref.c -lqd -lstdc++ -lm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qd/c_qd.h>

#define MAXCOL 32

static int split(char *s, char **field)
{
	int n = 0;
	s[strcspn(s, "\r\n")] = 0;
	while (n < MAXCOL) {
		field[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

static int col(char **h, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(h[i], name) == 0)
			return i;
	return -1;
}

/* the exact value of f(x, y) in quad-double; 0 if f is not known */
static int ref_qd(const char *f, double x, double y, double r[4])
{
	double q[4], t[4];
	c_qd_copy_d(x, q);
	if (strcmp(f, "r_floor") == 0)
		c_qd_floor(q, r);
	else if (strcmp(f, "r_trunc") == 0) {
		c_qd_aint(q, r);
	} else if (strcmp(f, "r_round") == 0) {	/* halves away from zero */
		c_qd_copy_d(fabs(x) + 0.5, t);	/* exact: x has few bits */
		c_qd_floor(t, r);
		if (x < 0)
			c_qd_neg(r, r);
	} else if (strcmp(f, "r_cbrt") == 0) {
		c_qd_abs(q, t);
		if (x == 0)
			c_qd_copy_d(0, r);
		else
			c_qd_nroot(t, 3, r);
		if (x < 0)
			c_qd_neg(r, r);
	} else if (strcmp(f, "r_expm1") == 0) {	/* |x| >= 2^-20 or 0 */
		c_qd_exp(q, t);
		c_qd_sub_qd_d(t, 1.0, r);
	} else if (strcmp(f, "r_log1p") == 0) {	/* 1 + x is exact in qd */
		c_qd_add_qd_d(q, 1.0, t);
		c_qd_log(t, r);
	} else if (strcmp(f, "r_tanh") == 0)
		c_qd_tanh(q, r);
	else if (strcmp(f, "r_atan2") == 0) {
		c_qd_copy_d(y, t);
		c_qd_atan2(q, t, r);
		if (x == 0 && y < 0) {	/* QD has no signed zero: C's -pi */
			c_qd_pi(r);
			if (signbit(x))
				c_qd_neg(r, r);
		}
	} else if (strcmp(f, "r_min") == 0)
		c_qd_copy_d(fmin(x, y), r);
	else if (strcmp(f, "r_max") == 0)
		c_qd_copy_d(fmax(x, y), r);
	else if (strcmp(f, "r_pi") == 0)
		c_qd_pi(r);
	else if (strcmp(f, "r_exp") == 0)
		c_qd_exp(q, r);
	else if (strcmp(f, "r_log") == 0)	/* x > 0: the others by ref_ld */
		c_qd_log(q, r);
	else if (strcmp(f, "r_pow") == 0) {	/* x > 0: exp(y log x) */
		c_qd_log(q, t);
		c_qd_mul_qd_d(t, y, r);
		c_qd_exp(r, r);
	} else if (strcmp(f, "r_sin") == 0)
		c_qd_sin(q, r);
	else if (strcmp(f, "r_cos") == 0)
		c_qd_cos(q, r);
	else if (strcmp(f, "r_sqrt") == 0)	/* x >= 0 */
		c_qd_sqrt(q, r);
	else
		return 0;
	return 1;
}

static int ref_ld(const char *f, long double x, long double y, long double *r)
{
	static const struct {
		const char *name;
		long double (*fn)(long double);
	} one[] = {
		{"r_floor", floorl}, {"r_round", roundl}, {"r_trunc", truncl},
		{"r_cbrt", cbrtl}, {"r_expm1", expm1l}, {"r_log1p", log1pl},
		{"r_tanh", tanhl}, {"r_erf", erfl}, {"r_erfc", erfcl},
		{"r_exp", expl}, {"r_log", logl}, {"r_sin", sinl}, {"r_cos", cosl},
		{"r_sqrt", sqrtl},
	};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
		if (strcmp(f, one[i].name) == 0) {
			*r = one[i].fn(x);
			return 1;
		}
	if (strcmp(f, "r_atan2") == 0)
		*r = atan2l(x, y);
	else if (strcmp(f, "r_pow") == 0)
		*r = powl(x, y);
	else if (strcmp(f, "r_min") == 0)
		*r = fminl(x, y);
	else if (strcmp(f, "r_max") == 0)
		*r = fmaxl(x, y);
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: fnref float|double|dd|mixed IN.csv "
		        "OUT.csv\n");
		return 2;
	}
	const char *mode = argv[1];
	int isf = strcmp(mode, "float") == 0, isdd = strcmp(mode, "dd") == 0;
	int mixed = strcmp(mode, "mixed") == 0;
	/* float and double: 16 units in the last place (OpenCL allows erf
	 * and erfc 16 ulp, the others less); dd: 8 * 2^-104 (ddlib.h's
	 * table); exact functions and pi exactly (pi in dd to 2^-105, the
	 * dd's own rounding); a conversion exactly */
	double tol = isf ? 0x1p-20 : isdd ? 0x1p-101 : 0x1p-49;
	FILE *fi = fopen(argv[2], "r"), *fo = fopen(argv[3], "r");
	if (!fi || !fo) {
		fprintf(stderr, "fnref: cannot open %s\n",
		        fi ? argv[3] : argv[2]);
		return 2;
	}
	char li[4096], lo[4096], *hi[MAXCOL], *ho[MAXCOL], *vi[MAXCOL],
	     *vo[MAXCOL];
	if (!fgets(li, sizeof li, fi) || !fgets(lo, sizeof lo, fo)) {
		fprintf(stderr, "fnref: a file has no header\n");
		return 2;
	}
	char hbi[4096], hbo[4096];
	strcpy(hbi, li);
	strcpy(hbo, lo);
	int ni = split(hbi, hi), no = split(hbo, ho);
	int cx = col(hi, ni, "x"), cy = col(hi, ni, "y");
	if (cx < 0 || cy < 0) {
		fprintf(stderr, "fnref: no x or y column\n");
		return 2;
	}
	double worst[MAXCOL] = {0};
	int checked[MAXCOL] = {0};
	int fails = 0, rows = 0;
	while (fgets(li, sizeof li, fi)) {
		if (!fgets(lo, sizeof lo, fo) || split(li, vi) != ni ||
		    split(lo, vo) != no) {
			fprintf(stderr, "fnref: the files do not match\n");
			return 2;
		}
		rows++;
		double x = strtod(vi[cx], NULL), y = strtod(vi[cy], NULL);
		for (int c = 0; c < no; c++) {
			double e = INFINITY;
			long double rl;
			const char *f = ho[c];
			if (mixed) {	/* a: float(x - y), b: dd(x) dd(y), c: double(dd(x)/dd(y)) */
				double r[4], g[4], d[4], q[4];
				c_qd_read(vo[c], g);
				c_qd_copy_d(x, q);
				c_qd_copy_d(y, d);
				if (strcmp(f, "a") == 0) {
					e = strtof(vo[c], NULL) == (float)(x - y) ? 0 :
					    INFINITY;
					goto seen;
				}
				if (strcmp(f, "b") == 0)
					c_qd_mul(q, d, r);
				else {	/* the dd quotient to 2^-101, then rounded */
					c_qd_div(q, d, r);
					e = fabs(g[0] - r[0]) <= 0x1.0000001p-53 * fabs(r[0]) ?
					    0 : INFINITY;
					goto seen;
				}
				c_qd_sub(g, r, d);	/* the text keeps 2^-109 */
				e = fabs(d[0]) <= 0x1p-106 * fabs(r[0]) ? 0 : INFINITY;
			} else if (isdd && (strcmp(f, "r_erf") == 0 ||
			                    strcmp(f, "r_erfc") == 0)) {
				/* QD has none: long double's, to its 64 bits */
				double q[4];
				long double r;
				ref_ld(f, x, y, &r);
				c_qd_read(vo[c], q);
				long double g = (long double)q[0] + q[1];
				e = (double)(fabsl(g - r) /
				             (0x1p-58L * fabsl(r) + 0x1p-1000L));
			} else if (isdd && ref_ld(f, x, y, &rl) &&
			           (!isfinite(rl) || rl == 0)) {
				/* log, pow, sqrt at 0 or outside their domain: C's
				 * special values, and a zero, exactly */
				double g = strtod(vo[c], NULL);
				e = (isnan(rl) ? isnan(g) : g == rl) ? 0 : INFINITY;
			} else if (isdd) {
				double r[4], g[4], d[4];
				if (!ref_qd(f, x, y, r))
					continue;
				c_qd_read(vo[c], g);
				c_qd_sub(g, r, d);
				double t = strcmp(f, "r_pi") == 0 ? 0x1p-105 :
				           strcmp(f, "r_floor") == 0 ||
				           strcmp(f, "r_round") == 0 ||
				           strcmp(f, "r_trunc") == 0 ||
				           strcmp(f, "r_min") == 0 ||
				           strcmp(f, "r_max") == 0 ? 0 : tol;
				e = fabs(d[0]) / (t * fabs(r[0]) + 0x1p-1000);
				if (t == 0)	/* exact: far below a dd's 2^-106, where
						 * only QD's reading of the text errs */
					e = fabs(d[0]) <= 0x1p-150 * fabs(r[0]) ? 0 :
					    INFINITY;
			} else {
				long double r, g = isf ? strtof(vo[c], NULL) :
				                   strtod(vo[c], NULL);
				if (strcmp(f, "r_pi") == 0)
					e = isf ? g != (float)M_PI : g != M_PI;
				else if (!ref_ld(f, x, y, &r))
					continue;
				else if (strstr("r_floor r_round r_trunc r_min r_max", f))
					e = g == r ? 0 : INFINITY;
				else if (!isfinite(r))	/* C's special values */
					e = (isnan(r) ? isnan(g) : g == r) ? 0 : INFINITY;
				else
					e = (double)(fabsl(g - r) / (tol * fabsl(r) + 0x1p-1000L));
			}
		seen:
			checked[c] = 1;
			if (!(e <= 1)) {
				if (fails++ < 10)
					fprintf(stderr, "fnref: %s row %d (x = %a, y = %a): "
					        "%s, error %g tolerances\n", f, rows, x, y,
					        vo[c], e);
			}
			if (!(e <= worst[c]))
				worst[c] = e;
		}
	}
	for (int c = 0; c < no; c++)
		if (checked[c])
			printf("  %s: %.3g\n", ho[c], worst[c]);
		else
			printf("  %s: no reference here\n", ho[c]);
	printf("rows %d fail %d\n", rows, fails);
	return fails != 0;
}
