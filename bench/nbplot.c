/* nbplot.c: the figures of docs/nbody.md from the rows of the
 * hermite-vs-leapfrog suite (bench/suites/hermite-vs-leapfrog.sh): |dE/E| against wall time, one series a method, log-log, drawn by
 * apps/common/plot.c (no plotting library needed).
 * usage: nbplot IN.csv OUT.png TITLE [XLABEL]
 * IN.csv: header, then rows "series,x,y" (x: by default seconds, y:
 * |dE/E|). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plot.h"

enum { MAXS = 8, MAXP = 256 };

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: nbplot IN.csv OUT.png TITLE [XLABEL]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	static char names[MAXS][64];
	static double x[MAXS][MAXP], y[MAXS][MAXP];
	plot_series s[MAXS];
	int ns = 0;
	char line[512];
	if (!fgets(line, sizeof line, f)) /* the header */
		return 1;
	while (fgets(line, sizeof line, f)) {
		char name[64];
		double a, b;
		if (sscanf(line, "%63[^,],%lf,%lf", name, &a, &b) != 3)
			continue;
		int k = 0;
		while (k < ns && strcmp(names[k], name) != 0)
			k++;
		if (k == ns) {
			if (ns == MAXS)
				continue;
			snprintf(names[ns], sizeof names[ns], "%s", name);
			s[ns] = (plot_series){names[ns], x[ns], y[ns], 0, 1};
			ns++;
		}
		if (s[k].n < MAXP) {
			x[k][s[k].n] = a;
			y[k][s[k].n++] = b;
		}
	}
	fclose(f);
	plot_spec p = {argv[3], argc > 4 ? argv[4] : "wall time to t = 1 (s)",
	               "max |E - E0| / |E0| to t = 1",
	               1, 1, 800, 560};
	char err[512];
	if (plot_png(&p, s, ns, argv[2], err, sizeof err)) {
		fprintf(stderr, "nbplot: %s\n", err);
		return 1;
	}
	return 0;
}
