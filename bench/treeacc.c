/* treeacc.c: the treecode's accuracy (bench/suites/treeacc.sh): the
 * relative force (gravity) or velocity (vortex) error of nbrt_run_tree in
 * float against a direct sum in double over a sample of the i-bodies,
 * for several theta, on a Plummer sphere, a uniform cube or two Plummer
 * spheres (two galaxies) of N bodies.
 * usage: treeacc gravity|vortex N plummer|cube|galaxies THETA,... DEVICE
 *        [SAMPLE SEED]; prints a CSV header and one row a theta. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nbrt.h"
#include "srcpath.h"
#include "timing.h"

/* the columns of either kernel: positions, sources, results */
enum { XI, YI, ZI, XJ, YJ, ZJ, S0, S1, S2, R0, R1, R2, NCOL };
static const char *const names[2][NCOL] = {
	{"xi", "yi", "zi", "xj", "yj", "zj", "mj", NULL, NULL, "ax", "ay",
	 "az"},
	{"xi", "yi", "zi", "xj", "yj", "zj", "gx", "gy", "gz", "u", "v", "w"}};
static const char *const path[2][2] = {
	{"dsl-examples/gravity.nbl", "far/gravity_quad.nbl"},
	{"dsl-examples/biot_savart.nbl", "far/biot_savart_dipole.nbl"}};
static const char *const cname[2] = {"eps2", "isig3"};
static const double cval[2] = {1e-4, 8000}; /* sigma 0.05 */

static unsigned short rng[3];

static void plummer(double p[3])
{
	double r = 1 / sqrt(pow(1e-6 + (1 - 1e-6) * erand48(rng), -2.0 / 3) - 1);
	double z = 2 * erand48(rng) - 1, ph = 2 * M_PI * erand48(rng);
	double s = sqrt(1 - z * z);
	p[0] = r * s * cos(ph);
	p[1] = r * s * sin(ph);
	p[2] = r * z;
}

/* The source tree's file rel (under prog's tree, else ROOT's). */
static nbrt_kernel *load(nbrt *rt, const char *prog, const char *rel,
                         nb_prec prec)
{
	nb_options o;
	nb_options_init(&o);
	o.precision = prec;
	o.given |= NB_GIVEN_PRECISION;
	char *p = src_path(prog, rel);
	nbrt_kernel *k = p ? nbrt_load(rt, p, &o) : NULL;
	if (!k)
		fprintf(stderr, "treeacc: %s: %s\n", p ? p : rel,
		        p ? nbrt_error(rt) : "out of memory");
	free(p);
	return k;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: treeacc gravity|vortex N plummer|cube|"
		        "galaxies THETA,... DEVICE [SAMPLE SEED]\n");
		return 2;
	}
	int vk = !strcmp(argv[1], "vortex");
	size_t n = strtoull(argv[2], NULL, 10);
	const char *dist = argv[3];
	size_t ns = argc > 6 ? strtoull(argv[6], NULL, 10) : 1000;
	rng[2] = (unsigned short)(argc > 7 ? atoi(argv[7]) : 3);
	if (!n || (!vk && strcmp(argv[1], "gravity")) ||
	    (strcmp(dist, "plummer") && strcmp(dist, "cube") &&
	     strcmp(dist, "galaxies")))
		return fprintf(stderr, "treeacc: bad arguments\n"), 2;
	ns = ns < n ? ns : n;
	char *err = NULL;
	nbrt *rt = nbrt_open(argv[5], &err);
	if (!rt)
		return fprintf(stderr, "treeacc: %s\n", err), free(err), 1;
	double *c[NCOL], *ref[3], *sx[3];
	for (int q = 0; q < NCOL; q++)
		c[q] = calloc(n, sizeof(double));
	for (int d = 0; d < 3; d++) {
		ref[d] = calloc(ns, sizeof(double));
		sx[d] = calloc(ns, sizeof(double));
	}
	for (size_t e = 0; e < n; e++) {
		double p[3];
		if (!strcmp(dist, "cube"))
			for (int d = 0; d < 3; d++)
				p[d] = 2 * erand48(rng) - 1;
		else
			plummer(p);
		if (!strcmp(dist, "galaxies")) /* two spheres 6 apart */
			p[0] += e % 2 ? 3 : -3;
		for (int d = 0; d < 3; d++)
			c[XI + d][e] = c[XJ + d][e] = p[d];
		for (int d = 0; d < (vk ? 3 : 1); d++)
			c[S0 + d][e] = (vk ? 2 * erand48(rng) - 1 : 1) / (double)n;
	}
	/* the reference: the sample (every n/ns-th body) against all, double */
	nbrt_kernel *kd = load(rt, argv[0], path[vk][0], NB_DOUBLE);
	nbrt_kernel *k = load(rt, argv[0], path[vk][0], NB_FLOAT);
	nbrt_kernel *far = load(rt, argv[0], path[vk][1], NB_FLOAT);
	if (!kd || !k || !far)
		return 1;
	for (int d = 0; d < 3; d++)
		for (size_t s = 0; s < ns; s++)
			sx[d][s] = c[XI + d][s * (n / ns)];
	int rc = 0;
	for (int q = 0; q < NCOL; q++)
		if (names[vk][q]) {
			double *a = q <= ZI ? sx[q] : q >= R0 ? ref[q - R0] : c[q];
			rc |= nbrt_bind(kd, names[vk][q], NBRT_DOUBLE, a);
			rc |= nbrt_bind(k, names[vk][q], NBRT_DOUBLE, c[q]);
		}
	/* gravity's potential, bound but not measured */
	double *pot = calloc(n, sizeof(double)), *potd = calloc(ns,
	                                                         sizeof(double));
	if (!vk)
		rc |= nbrt_bind(kd, "pot", NBRT_DOUBLE, potd) ||
		      nbrt_bind(k, "pot", NBRT_DOUBLE, pot);
	rc |= nbrt_set_const(kd, cname[vk], cval[vk], 0) ||
	      nbrt_set_const(k, cname[vk], cval[vk], 0);
	if (rc || nbrt_run(kd, ns, n))
		return fprintf(stderr, "treeacc: direct: %s\n", nbrt_error(rt)), 1;
	printf("kernel,dist,n,theta,err_median,err_99,tree_s,near_pairs,"
	       "far_pairs,device\n");
	double *e = malloc(ns * sizeof *e);
	for (char *th = argv[4], *end; *th; th = *end ? end + 1 : end) {
		double theta = strtod(th, &end);
		struct nbrt_tree_stats st;
		nbrt_tree t = {theta, 16, 64, {"xi", "yi", "zi"}, {"xj", "yj", "zj"},
		               vk ? NULL : "mj", &st,
		               {vk ? "gx" : NULL, vk ? "gy" : NULL, vk ? "gz" : NULL}};
		double t0 = clk(CLOCK_MONOTONIC);
		if (nbrt_run_tree(k, far, n, n, &t))
			return fprintf(stderr, "treeacc: tree: %s\n", nbrt_error(rt)),
			       1;
		double tt = clk(CLOCK_MONOTONIC) - t0;
		for (size_t s = 0; s < ns; s++) {
			double d2 = 0, a2 = 0;
			for (int d = 0; d < 3; d++) {
				double x = c[R0 + d][s * (n / ns)] - ref[d][s];
				d2 += x * x;
				a2 += ref[d][s] * ref[d][s];
			}
			e[s] = a2 > 0 ? sqrt(d2 / a2) : 0;
		}
		qsort(e, ns, sizeof *e, cmp);
		printf("%s,%s,%zu,%g,%.3g,%.3g,%.4g,%.4g,%.4g,%s\n", argv[1], dist,
		       n, theta, e[ns / 2], e[(size_t)(0.99 * (double)(ns - 1))], tt,
		       st.near_pairs, st.far_pairs, nbrt_device_name(rt));
		fflush(stdout);
	}
	free(e);
	free(pot);
	free(potd);
	for (int q = 0; q < NCOL; q++)
		free(c[q]);
	for (int d = 0; d < 3; d++) {
		free(ref[d]);
		free(sx[d]);
	}
	nbrt_free(far);
	nbrt_free(k);
	nbrt_free(kd);
	nbrt_close(rt);
	return 0;
}
