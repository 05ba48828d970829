/* install_prog.c KERNEL.nbl: a user's program against an installed nbcc,
 * built by tests/sh/install.sh with nothing but
 *   cc install_prog.c $(pkg-config --cflags --libs nbrt)
 * Loads the Gauss transform example (dsl-examples/gauss_transform.nbl) in
 * double on the device NBRT_DEVICE names, runs it on a small grid and
 * checks every result against the sum computed here.  Prints "ok N" or
 * what differs; exits 0 or 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <nbrt.h>

enum { NI = 37, NJ = 53 };

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: install_prog KERNEL.nbl\n");
		return 1;
	}
	nb_options o;
	char err[256];
	nb_options_init(&o);
	if (nb_options_parse(&o, "--precision=double", NULL, err, sizeof err) != 1) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	char *e = NULL;
	nbrt *rt = nbrt_open(NULL, &e);
	if (!rt) {
		fprintf(stderr, "nbrt_open: %s\n", e ? e : "?");
		return 1;
	}
	nbrt_kernel *k = nbrt_load(rt, argv[1], &o);
	static double t[3][NI], s[3][NJ], w[NJ], g[NI];
	for (int i = 0; i < NI; i++)
		for (int d = 0; d < 3; d++)
			t[d][i] = 0.1 * i + 0.3 * d;
	for (int j = 0; j < NJ; j++) {
		for (int d = 0; d < 3; d++)
			s[d][j] = 0.07 * j - 0.2 * d;
		w[j] = 1.0 + 0.01 * j;
	}
	const double h2 = 2.5;
	int bad = !k || nbrt_bind(k, "tx", NBRT_DOUBLE, t[0]) ||
	          nbrt_bind(k, "ty", NBRT_DOUBLE, t[1]) ||
	          nbrt_bind(k, "tz", NBRT_DOUBLE, t[2]) ||
	          nbrt_bind(k, "sx", NBRT_DOUBLE, s[0]) ||
	          nbrt_bind(k, "sy", NBRT_DOUBLE, s[1]) ||
	          nbrt_bind(k, "sz", NBRT_DOUBLE, s[2]) ||
	          nbrt_bind(k, "w", NBRT_DOUBLE, w) ||
	          nbrt_bind(k, "g", NBRT_DOUBLE, g) ||
	          nbrt_set_const(k, "h2", h2, 0) || nbrt_run(k, NI, NJ);
	if (bad) {
		fprintf(stderr, "%s\n", nbrt_error(rt));
		return 1;
	}
	double worst = 0;
	for (int i = 0; i < NI; i++) {
		double ref = 0;
		for (int j = 0; j < NJ; j++) {
			double r2 = 0;
			for (int d = 0; d < 3; d++)
				r2 += (t[d][i] - s[d][j]) * (t[d][i] - s[d][j]);
			ref += w[j] * exp(-r2 / h2);
		}
		double rel = fabs(g[i] - ref) / fabs(ref);
		if (rel > worst)
			worst = rel;
	}
	nbrt_free(k);
	nbrt_close(rt);
	if (worst > 1e-12) {
		printf("differs: %g relative\n", worst);
		return 1;
	}
	printf("ok %d\n", NI);
	return 0;
}
