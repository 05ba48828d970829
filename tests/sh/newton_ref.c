/* newton_ref.c KERNEL P.CSV: the reference of tests/sh/nbrun_newton_dense.sh,
 * every pair in double as bench/newton/lennard_jones_self.nbl (KERNEL lj)
 * or gravity_force.nbl (g) has them, with the constants the script's runs
 * give; written here, sharing no code with nbcc.  P.CSV: a header, then
 * rows x,y,z,m.  Prints the kernel's result columns (lj: fx,fy,fz,u,n;
 * g: fx,fy,fz,pot), a row a particle, values with 17 digits.  It was the
 * same sums in awk, 10 of the script's 21 CPU s.
 * Built by the script: cc newton_ref.c -lm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "lj") && strcmp(argv[1], "g"))) {
		fprintf(stderr, "usage: newton_ref lj|g P.CSV\n");
		return 2;
	}
	int lj = !strcmp(argv[1], "lj");
	FILE *f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	char line[256];
	size_t n = 0, cap = 0;
	double (*p)[4] = NULL;
	if (!fgets(line, sizeof line, f)) { /* the header */
		fprintf(stderr, "%s: empty\n", argv[2]);
		return 2;
	}
	while (fgets(line, sizeof line, f)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			p = realloc(p, cap * sizeof *p);
			if (!p)
				return 2;
		}
		if (sscanf(line, "%lf,%lf,%lf,%lf", &p[n][0], &p[n][1], &p[n][2],
		           &p[n][3]) != 4) {
			fprintf(stderr, "%s: bad row %zu\n", argv[2], n + 1);
			return 2;
		}
		n++;
	}
	fclose(f);
	puts(lj ? "fx,fy,fz,u,n" : "fx,fy,fz,pot");
	for (size_t i = 0; i < n; i++) {
		double fx = 0, fy = 0, fz = 0, u = 0;
		long c = 0;
		for (size_t j = 0; j < n; j++) {
			double dx = p[i][0] - p[j][0], dy = p[i][1] - p[j][1],
			       dz = p[i][2] - p[j][2];
			double r2 = dx * dx + dy * dy + dz * dz;
			if (lj) {
				if (j == i || r2 >= 0.01)
					continue;
				double s6 = pow(0.0004 / r2, 3);
				double fr = 24 * (2 * s6 * s6 - s6) / r2;
				fx += fr * dx;
				fy += fr * dy;
				fz += fr * dz;
				u += 4 * (s6 * s6 - s6);
				c++;
			} else {
				double r = sqrt(r2 + 0.0001), mm = p[i][3] * p[j][3] / r;
				double fr = mm / (r * r);
				fx -= fr * dx;
				fy -= fr * dy;
				fz -= fr * dz;
				u -= mm;
			}
		}
		if (lj)
			printf("%.17g,%.17g,%.17g,%.17g,%ld\n", fx, fy, fz, u, c);
		else
			printf("%.17g,%.17g,%.17g,%.17g\n", fx, fy, fz, u);
	}
	free(p);
	return 0;
}
