/* ddcmp.c A.csv B.csv: compare.awk (bench/) for double-double results: the
 * norm-wise relative difference of each column, sqrt(sum (a-b)^2 /
 * sum a^2), with every value read from its decimal text and every sum
 * taken in dd by QD (c_dd_*), not by nbcc's own reader or ddlib.h: a
 * double comparison cannot see a lost low word.  Prints "  column: rel"
 * lines and "max REL"; a different header or row count, an empty field or
 * a NaN counts as 1e300.  Built by the tests that use it (cl_vs_c.sh):
 * cc ddcmp.c -lqd -lstdc++ -lm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qd/c_dd.h>

#define MAXCOL 64

static char *line(FILE *f, char **buf, size_t *cap)
{
	if (getline(buf, cap, f) < 0)
		return NULL;
	(*buf)[strcspn(*buf, "\r\n")] = 0;
	return *buf;
}

/* Splits s at commas in place; returns the number of fields. */
static int split(char *s, char **field)
{
	int n = 0;
	for (;;) {
		if (n == MAXCOL)
			return -1;
		field[n++] = s;
		s = strchr(s, ',');
		if (!s)
			return n;
		*s++ = 0;
	}
}

static int read_dd(const char *s, double v[2])
{
	if (!*s)
		return -1;
	c_dd_read(s, v);
	return isfinite(v[0]) && isfinite(v[1]) ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ddcmp A.csv B.csv\n");
		return 2;
	}
	FILE *fa = fopen(argv[1], "r"), *fb = fopen(argv[2], "r");
	if (!fa || !fb) {
		fprintf(stderr, "ddcmp: cannot open %s\n", fa ? argv[2] : argv[1]);
		return 2;
	}
	char *ba = NULL, *bb = NULL, *fla[MAXCOL], *flb[MAXCOL];
	size_t ca = 0, cb = 0;
	static char name[MAXCOL][64];
	double num[MAXCOL][2] = {{0}}, den[MAXCOL][2] = {{0}};
	int bad = 0, n = 0;
	char *la = line(fa, &ba, &ca), *lb = line(fb, &bb, &cb);
	if (!la || !lb || strcmp(la, lb) != 0 || (n = split(la, fla)) < 1) {
		printf("  headers differ\n");
		bad = 1;
		n = 0;
	}
	for (int c = 0; c < n; c++)
		snprintf(name[c], sizeof name[c], "%s", fla[c]);
	while (!bad) {
		la = line(fa, &ba, &ca);
		lb = line(fb, &bb, &cb);
		if (!la && !lb)
			break;
		if (!la || !lb || split(la, fla) != n || split(lb, flb) != n) {
			printf("  rows differ\n");
			bad = 1;
			break;
		}
		for (int c = 0; c < n; c++) {
			double a[2], b[2], d[2], t[2];
			if (read_dd(fla[c], a) || read_dd(flb[c], b)) {
				printf("  %s: not a finite number: '%s' or '%s'\n",
				       name[c], fla[c], flb[c]);
				bad = 1;
				break;
			}
			c_dd_sub(a, b, d);
			c_dd_mul(d, d, t);
			c_dd_add(num[c], t, num[c]);
			c_dd_mul(a, a, t);
			c_dd_add(den[c], t, den[c]);
		}
	}
	double m = bad ? 1e300 : 0;
	for (int c = 0; c < n && !bad; c++) {
		double r[2];
		if (den[c][0] > 0)
			c_dd_div(num[c], den[c], r);
		else
			memcpy(r, num[c], sizeof r);
		c_dd_sqrt(r, r);
		double x = isnan(r[0]) ? 1e300 : r[0];
		printf("  %s: %.3g\n", name[c], x);
		if (x > m)
			m = x;
	}
	printf("max %.3g\n", m);
	free(ba);
	free(bb);
	fclose(fa);
	fclose(fb);
	return 0;
}
