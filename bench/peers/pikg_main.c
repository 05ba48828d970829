/* pikg_main.c: times the kernel PIKG generates from pikg_gravity.pikg
 * (bench/peers/pikg.sh builds it; PIKG's code is never committed) on one
 * core, as bench/cpu_anchor.c times the plain loop: interactions/s of the
 * median of R runs after a warm-up, by the wall clock and per CPU-second,
 * then the largest relative error of 64 i-elements against double.
 *   pikg_gravity N [R] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../timing.h"
#include "pikg_classes.h"
#include "kernel.h"

/* in (0, 1), never zero: bench/cpu_anchor.c's inputs */
static float unit(void)
{
	return ((float)rand() + 0.5f) / ((float)RAND_MAX + 1.0f);
}

/* The largest relative error of the acceleration (by its norm) and of
 * the potential of 64 i-elements spread over n, against double sums. */
static double check(int n, const EPI *pi, const EPJ *pj, const FORCE *f,
                    float eps2)
{
	double worst = 0;
	for (int s = 0; s < 64; s++) {
		int i = (int)((long)s * n / 64);
		double a[3] = {0, 0, 0}, p = 0;
		for (int j = 0; j < n; j++) {
			double d[3] = {(double)pj[j].pos.x - pi[i].pos.x,
			               (double)pj[j].pos.y - pi[i].pos.y,
			               (double)pj[j].pos.z - pi[i].pos.z};
			double r2 = eps2 + d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
			double mr = pj[j].mass / sqrt(r2);
			for (int c = 0; c < 3; c++)
				a[c] += mr / r2 * d[c];
			p -= mr;
		}
		double e[3] = {f[i].acc.x - a[0], f[i].acc.y - a[1],
		               f[i].acc.z - a[2]};
		double ea = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) /
		            sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
		double ep = fabs(f[i].pot - p) / fabs(p);
		worst = fmax(worst, fmax(ea, ep));
	}
	return worst;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8192;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	if (n < 64 || n > 1 << 24 || reps < 1 || reps > 1000) {
		fprintf(stderr, "usage: pikg_gravity N [R] (64 <= N <= 2^24, "
		        "1 <= R <= 1000)\n");
		return 2;
	}
	const float eps2 = 0.01f; /* nbbench's CONST default */
	EPI *pi = malloc(sizeof *pi * (size_t)n);
	EPJ *pj = malloc(sizeof *pj * (size_t)n);
	FORCE *f = malloc(sizeof *f * (size_t)n);
	double *w = malloc(sizeof *w * (size_t)reps);
	double *c = malloc(sizeof *c * (size_t)reps);
	if (!pi || !pj || !f || !w || !c) {
		fprintf(stderr, "pikg_gravity: out of memory\n");
		return 1;
	}
	srand(1);
	for (int i = 0; i < n; i++) {
		pj[i].pos.x = pi[i].pos.x = unit();
		pj[i].pos.y = pi[i].pos.y = unit();
		pj[i].pos.z = pi[i].pos.z = unit();
		pj[i].mass = unit();
	}
	pikg_gravity_initialize(eps2);
	for (int r = -1; r < reps; r++) {
		/* the kernel adds to the forces it is given */
		for (int i = 0; i < n; i++)
			f[i] = (FORCE){{0, 0, 0}, 0};
		double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
		pikg_gravity(pi, n, pj, n, f);
		if (r >= 0) { /* r = -1: the warm-up */
			w[r] = clk(CLOCK_MONOTONIC) - w0;
			c[r] = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
		}
	}
	qsort(w, (size_t)reps, sizeof *w, cmp);
	qsort(c, (size_t)reps, sizeof *c, cmp);
	double inter = (double)n * (double)n, err = check(n, pi, pj, f, eps2);
	printf("%.4e %.4e %.2e\n", inter / w[reps / 2], inter / c[reps / 2], err);
	free(pi);
	free(pj);
	free(f);
	free(w);
	free(c);
	/* float sums of n terms: 1e-4 is far above their rounding and far
	 * below a wrong kernel's error */
	if (!(err < 1e-4)) {
		fprintf(stderr, "pikg_gravity: relative error %.3g against double\n",
		        err);
		return 1;
	}
	return 0;
}
