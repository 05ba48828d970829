/* treebench.c: the treecode against direct summation in one run
 * (bench/suites/tree.sh): float gravity (dsl-examples/gravity.nbl, far
 * field far/gravity_quad.nbl) on a Plummer sphere of N bodies, the tree's
 * phases timed, and its force error against the direct run's.
 * usage: treebench [--] N THETA DEVICE [BUCKET GROUP SEED DIRECT REPS]; prints
 * one CSV row
 * after a header (mbodies_s: N over the tree's whole time, in millions;
 * far_mode: NBRT_TREE_FAR, how the far field ran; near_kernel_s and
 * far_kernel_s: the device's time in the two kernels' last launches;
 * GROUP 0 or left out: the runtime's group for N (nbrt_tree_group);
 * DIRECT 0 leaves the direct run out, for the tree's phases alone at an N
 * where direct takes minutes: its time and the errors are then nan; REPS:
 * after one untimed run of each, direct and the tree timed alternately
 * REPS times, the medians printed, so that a slow moment of the machine
 * does not decide the crossover; the phases are the last tree run's;
 * FAR: the far kernel under the source tree, far/gravity_quad.nbl if left
 * out, far/opt/gravity_oct.nbl for the octupole). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "csv.h"
#include "nbcc.h"
#include "nbrt.h"
#include "srcpath.h"

enum { XI, YI, ZI, XJ, YJ, ZJ, MJ, AX, AY, AZ, POT, NCOL };
static const char *const coln[NCOL] = {"xi", "yi", "zi", "xj", "yj", "zj",
                                       "mj", "ax", "ay", "az", "pot"};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int fail(nbrt *rt, const char *what)
{
	fprintf(stderr, "treebench: %s: %s\n", what, nbrt_error(rt));
	return 1;
}

static const char usage[] = "usage: treebench [--] N THETA DEVICE [BUCKET "
                            "GROUP SEED DIRECT REPS FAR]\n";

/* Argument q as a whole number from lo to hi, else a message naming it:
 * N 10^14 was taken, its mallocs failed unchecked and the first write
 * crashed; SEED 65536 was seed 0, REPS 2^61 a malloc of 0 bytes. */
static int count(char **argv, int q, const char *what, size_t lo, size_t hi,
                 size_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(argv[q], &end, 10);
	if (end == argv[q] || *end || argv[q][0] == '-' || errno || x < lo ||
	    x > hi) {
		fprintf(stderr, "treebench: %s '%s': it must be a whole number "
		        "from %zu to %zu\n%s", what, nb_esc(argv[q]), lo, hi, usage);
		return -1;
	}
	*v = (size_t)x;
	return 0;
}

int main(int argc, char **argv)
{
	/* no flags: "--" only ends them, as in every program (opt.c), and
	 * anything else beginning with '-' is refused, not read as 0 */
	const char *prog = argv[0];
	if (argc > 1 && !strcmp(argv[1], "--")) {
		argv++;
		argc--;
	} else if (argc > 1 && argv[1][0] == '-') {
		fprintf(stderr, "treebench: unknown option '%s'\n%s", argv[1],
		        usage);
		return 2;
	}
	if (argc < 4 || argc > 10) {
		fprintf(stderr, "treebench: %s arguments\n%s",
		        argc < 4 ? "too few" : "too many", usage);
		return 2;
	}
	size_t n, bucket = NBRT_TREE_BUCKET, group = 0, seed = 3,
	       direct_on = 1, reps = 1;
	char *end;
	double theta = strtod(argv[2], &end);
	/* N as nbrun --random's (OpenCL kernels index with int) */
	if (count(argv, 1, "N", 1, INT_MAX, &n) ||
	    (argc > 4 && count(argv, 4, "BUCKET", 1, INT_MAX, &bucket)) ||
	    (argc > 5 && count(argv, 5, "GROUP", 0, INT_MAX, &group)) ||
	    (argc > 6 && count(argv, 6, "SEED", 0, USHRT_MAX, &seed)) ||
	    (argc > 7 && count(argv, 7, "DIRECT", 0, 1, &direct_on)) ||
	    (argc > 8 && count(argv, 8, "REPS", 1, 1000, &reps)))
		return 2;
	if (end == argv[2] || *end || !(theta > 0) || !isfinite(theta)) {
		fprintf(stderr, "treebench: THETA '%s': it must be a finite number "
		        "> 0\n%s", nb_esc(argv[2]), usage);
		return 2;
	}
	/* TREEBENCH_JSPLIT="NEAR FAR": the near and far kernels loaded with
	 * these j-splits (0, unset or empty: the runtime's), for the ranges
	 * runs' occupancy at small N (few groups, a work group each); the
	 * direct run takes the near kernel's */
	unsigned long js[2] = {0, 0};
	const char *jse = getenv("TREEBENCH_JSPLIT");
	if (jse && *jse && sscanf(jse, "%lu %lu", &js[0], &js[1]) != 2) {
		fprintf(stderr, "treebench: TREEBENCH_JSPLIT '%s': two j-splits, "
		        "NEAR FAR\n", jse);
		return 2;
	}
	if (!group) /* left out or 0: the runtime's for N */
		group = nbrt_tree_group(n);
	unsigned short rng[3] = {1, 2, (unsigned short)seed};
	char *err = NULL;
	nbrt *rt = nbrt_open(argv[3], &err);
	if (!rt) {
		fprintf(stderr, "treebench: %s\n", err);
		free(err);
		return 1;
	}
	float *c[NCOL], *direct[4];
	int mem = 1;
	for (int q = 0; q < NCOL; q++)
		mem &= (c[q] = malloc(n * sizeof(float))) != NULL;
	for (int q = 0; q < 4; q++)
		mem &= (direct[q] = malloc(n * sizeof(float))) != NULL;
	if (!mem) {
		fprintf(stderr, "treebench: out of memory for %zu bodies\n", n);
		return 1;
	}
	for (size_t e = 0; e < n; e++) {
		double r = 1 / sqrt(pow(1e-6 + (1 - 1e-6) * erand48(rng), -2.0 / 3) -
		                    1);
		double z = 2 * erand48(rng) - 1, ph = 2 * M_PI * erand48(rng);
		double s = sqrt(1 - z * z);
		c[XI][e] = c[XJ][e] = (float)(r * s * cos(ph));
		c[YI][e] = c[YJ][e] = (float)(r * s * sin(ph));
		c[ZI][e] = c[ZJ][e] = (float)(r * z);
		c[MJ][e] = (float)(1.0 / (double)n);
	}
	char *kp = src_path(prog, "dsl-examples/gravity.nbl");
	char *fp = src_path(prog, argc > 9 ? argv[9] : "far/gravity_quad.nbl");
	nb_options o[2];
	for (int q = 0; q < 2; q++) {
		nb_options_init(&o[q]);
		if (js[q]) {
			o[q].jsplit = (int)js[q];
			o[q].given |= NB_GIVEN_JSPLIT;
		}
	}
	nbrt_kernel *k = kp ? nbrt_load(rt, kp, js[0] ? &o[0] : NULL) : NULL;
	nbrt_kernel *far = fp ? nbrt_load(rt, fp, js[1] ? &o[1] : NULL) : NULL;
	free(kp);
	free(fp);
	if (!k || !far)
		return fail(rt, "load");
	for (int q = 0; q < NCOL; q++)
		if (nbrt_bind(k, coln[q], NBRT_FLOAT, q >= AX ? direct[q - AX] : c[q]))
			return fail(rt, "bind");
	if (nbrt_set_const(k, "eps2", 1e-4, 0))
		return fail(rt, "eps2");
	struct nbrt_tree_stats st;
	nbrt_tree t = {theta, bucket, group, {"xi", "yi", "zi"},
	               {"xj", "yj", "zj"}, "mj", &st, {NULL, NULL, NULL}};
	/* TREEBENCH_REF=FILE: direct's results (raw floats, ax, ay, az, pot,
	 * each over N) read from FILE where it holds N of them, else computed
	 * and written there: one direct run for several trees of one N (the
	 * octupole against the quadrupole at 2^22, 8.6 s a direct run on an
	 * H100); the errors are against them, direct_s is then nan */
	const char *ref = getenv("TREEBENCH_REF");
	FILE *rf = ref && *ref ? fopen(ref, "rb") : NULL;
	int have = 0;
	if (rf) {
		have = 1;
		for (int q = 0; q < 4; q++)
			have &= fread(direct[q], sizeof(float), n, rf) == n;
		have &= fgetc(rf) == EOF;
		fclose(rf);
	}
	int use_ref = direct_on && have;
	if (use_ref)
		direct_on = 0;
	/* one untimed run of each (builds and caches out), then both timed
	 * in turn: the tree's results in c, direct's in direct */
	double *td = malloc(reps * sizeof *td), *tt = malloc(reps * sizeof *tt);
	if (!td || !tt) {
		fprintf(stderr, "treebench: out of memory\n");
		return 1;
	}
	for (size_t rep = 0; rep <= reps; rep++) {
		double t0 = now();
		for (int q = AX; direct_on && q <= POT; q++)
			nbrt_bind(k, coln[q], NBRT_FLOAT, direct[q - AX]);
		if (direct_on && nbrt_run(k, n, n))
			return fail(rt, "direct");
		double t1 = now();
		for (int q = AX; q <= POT; q++)
			nbrt_bind(k, coln[q], NBRT_FLOAT, c[q]);
		if (nbrt_run_tree(k, far, n, n, &t))
			return fail(rt, "tree");
		if (rep) {
			td[rep - 1] = t1 - t0;
			tt[rep - 1] = now() - t1;
		}
	}
	if (direct_on && ref && *ref && !have) {
		FILE *wf = fopen(ref, "wb");
		int ok = wf != NULL;
		for (int q = 0; ok && q < 4; q++)
			ok = fwrite(direct[q], sizeof(float), n, wf) == n;
		if (wf && fclose(wf))
			ok = 0;
		if (!ok) {
			fprintf(stderr, "treebench: cannot write %s\n", ref);
			return 1;
		}
	}
	qsort(td, reps, sizeof *td, cmp);
	qsort(tt, reps, sizeof *tt, cmp);
	double tdirect = direct_on ? td[reps / 2] : NAN, ttree = tt[reps / 2];
	free(td);
	free(tt);
	/* TREEBENCH_DUMP=FILE: the tree's results, raw floats (ax, ay, az,
	 * pot, each over N), to compare two builds bit for bit */
	const char *dump = getenv("TREEBENCH_DUMP");
	FILE *df = dump && *dump ? fopen(dump, "wb") : NULL;
	for (int q = AX; df && q <= POT; q++)
		fwrite(c[q], sizeof(float), n, df);
	if (df)
		fclose(df);
	double *e = malloc(n * sizeof *e);
	if (!e) {
		fprintf(stderr, "treebench: out of memory for %zu bodies\n", n);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		double d2 = 0, a2 = 0;
		for (int d = 0; d < 3; d++) {
			double x = (double)c[AX + d][i] - direct[d][i];
			d2 += x * x;
			a2 += (double)direct[d][i] * direct[d][i];
		}
		e[i] = !direct_on && !use_ref ? NAN : a2 > 0 ? sqrt(d2 / a2) : 0;
	}
	qsort(e, n, sizeof *e, cmp);
	/* other_s: the tree's time outside its phases (reading the columns,
	 * the sorted copies, the results scattered back) */
	double other = ttree;
	for (int q = 0; q < 5; q++)
		other -= st.time[q];
	printf("n,theta,bucket,group,direct_s,tree_s,speedup,build_s,moments_s,"
	       "walk_s,far_s,near_s,other_s,mbodies_s,cells,groups,near_pairs,"
	       "far_pairs,err_median,err_99,far_mode,device,near_kernel_s,"
	       "far_kernel_s,read_s,sort_s,octree_s,groups_s,join_s,copies_s,"
	       "farrun_s,scatter_s\n");
	const char *mode = getenv("NBRT_TREE_FAR");
	printf("%zu,%g,%zu,%zu,%.4g,%.4g,%.3g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,"
	       "%.4g,%zu,%zu,%.4g,%.4g,%.3g,%.3g,%s,", n, theta, bucket,
	       group, tdirect, ttree, tdirect / ttree, st.time[0], st.time[1],
	       st.time[2], st.time[3], st.time[4], other, 1e-6 * (double)n / ttree,
	       st.cells, st.groups, st.near_pairs, st.far_pairs, e[n / 2],
	       e[(size_t)(0.99 * (double)(n - 1))], mode && *mode ? mode : "default");
	csv_print_text(stdout, nbrt_device_name(rt));
	printf(",%.4g,%.4g", nbrt_kernel_time(k), nbrt_kernel_time(far));
	for (int q = 0; q < 8; q++)
		printf(",%.4g", st.part[q]);
	printf("\n");
	free(e);
	for (int q = 0; q < NCOL; q++)
		free(c[q]);
	for (int q = 0; q < 4; q++)
		free(direct[q]);
	nbrt_free(far);
	nbrt_free(k);
	nbrt_close(rt);
	return 0;
}
