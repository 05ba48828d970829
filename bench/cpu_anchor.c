/* cpu_anchor.c: the CPU anchor of the cpu suite (bench/suites/cpu.sh):
 * float gravity with potential (dsl-examples/gravity.nbl's formula) as one
 * writes it in plain C, built by the suite with gcc -O3 -march=native
 * -ffast-math (and -fopenmp for the run on every core).  Prints
 * interactions/s of the median of R timed runs after a warm-up, by the
 * wall clock and per CPU-second.
 *   cpu_anchor N [R] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "timing.h"

static void gravity(int n, const float *x, const float *y, const float *z,
                    const float *m, float eps2, float *ax, float *ay,
                    float *az, float *pot)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
	for (int i = 0; i < n; i++) {
		float sx = 0, sy = 0, sz = 0, sp = 0;
		for (int j = 0; j < n; j++) {
			float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
			float r2 = eps2 + dx * dx + dy * dy + dz * dz;
			float rinv = 1.0f / sqrtf(r2);
			float mr = m[j] * rinv, mr3 = mr * rinv * rinv;
			sx += mr3 * dx;
			sy += mr3 * dy;
			sz += mr3 * dz;
			sp -= mr;
		}
		ax[i] = sx;
		ay[i] = sy;
		az[i] = sz;
		pot[i] = sp;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8192, reps = argc > 2 ? atoi(argv[2]) : 5;
	if (n < 1 || reps < 1 || reps > 1000) {
		fprintf(stderr, "usage: cpu_anchor N [R]\n");
		return 2;
	}
	float *a[8];
	srand(1);
	for (int k = 0; k < 8; k++) {
		if (!(a[k] = malloc(sizeof(float) * (size_t)n)))
			return 1;
		for (int i = 0; i < n; i++) /* in (0, 1), never zero */
			a[k][i] = ((float)rand() + 0.5f) / ((float)RAND_MAX + 1.0f);
	}
	double *w = malloc(sizeof(double) * (size_t)reps), *c = malloc(sizeof(double) * (size_t)reps);
	if (!w || !c)
		return 1;
	gravity(n, a[0], a[1], a[2], a[3], 0.01f, a[4], a[5], a[6], a[7]);
	for (int r = 0; r < reps; r++) {
		double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
		gravity(n, a[0], a[1], a[2], a[3], 0.01f, a[4], a[5], a[6], a[7]);
		w[r] = clk(CLOCK_MONOTONIC) - w0;
		c[r] = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	qsort(w, (size_t)reps, sizeof *w, cmp);
	qsort(c, (size_t)reps, sizeof *c, cmp);
	double inter = (double)n * (double)n;
	/* the results, so that nothing is optimized away */
	double s = 0;
	for (int i = 0; i < n; i++)
		s += a[7][i];
	printf("%.4e %.4e %g\n", inter / w[reps / 2], inter / c[reps / 2], s);
	return 0;
}
