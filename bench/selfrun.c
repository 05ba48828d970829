/* selfrun.c: the timer of the newton suite (bench/suites/newton.sh): a
 * self run (nbrt_run_self) of a kernel on N random elements, each LMEM
 * NAMEi holding what its BMEM NAMEj holds, with Newton's third law on and
 * off in turn on one device, R rounds.  Prints a CSV row a mode: the
 * median and least seconds of the kernel, pairs computed (asked-on: the
 * device computed every pair, having no pairs entry), pairs of the
 * full sweep (N^2) per second of the median, and the largest difference
 * of the on-results from the off-results relative to the largest
 * magnitude of that result (the check that the declarations hold).
 * With @cutoff=RC the run is nbrt_run_cutoff's with self, over the
 * positions xi, yi, zi (@periodic=1: in the periodic unit box), and the
 * rate is of the off-run's pairs (the cell lists'), the times whole
 * (the lists built, sorted and scattered back); the last column is the
 * kernel's median alone.
 *   selfrun KERNEL.nbl N [R [precision [device [NAME=VALUE ...]]]] */
#define _XOPEN_SOURCE 700 /* erand48 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "selfrun: %s: %s\n", what, msg);
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		die("usage", "selfrun KERNEL.nbl N [R [precision [device "
		    "[NAME=VALUE ...]]]]");
	const char *path = argv[1];
	size_t n = strtoul(argv[2], NULL, 10);
	int reps = argc > 3 ? atoi(argv[3]) : 3;
	nb_options o;
	nb_options_init(&o);
	if (argc > 4 && nb_options_parse(&o, "--precision", argv[4], NULL, 0)
	    != 2)
		die(argv[4], "not a precision");
	char *err = NULL;
	nbrt *rt = nbrt_open(argc > 5 ? argv[5] : "host", &err);
	if (!rt)
		die("device", err);
	nbrt_kernel *k = nbrt_load(rt, path, &o);
	if (!k)
		die(path, nbrt_error(rt));
	const nb_iface *f = nbrt_iface(k);
	nbrt_cutoff cut = {.dim = 3, .ipos = {"xi", "yi", "zi"},
	                   .jpos = {"xj", "yj", "zj"}, .self = 1};
	for (int a = 6; a < argc; a++) {
		char *eq = strchr(argv[a], '=');
		if (!eq)
			die(argv[a], "expected NAME=VALUE");
		*eq = 0;
		if (!strcmp(argv[a], "@cutoff")) {
			cut.cutoff = strtod(eq + 1, NULL);
			continue;
		}
		if (!strcmp(argv[a], "@periodic")) {
			for (int d = 0; d < 3; d++)
				cut.period[d] = atoi(eq + 1) ? 1 : 0;
			continue;
		}
		if (nbrt_set_const(k, argv[a], strtod(eq + 1, NULL), 0))
			die(argv[a], nbrt_error(rt));
	}
	/* each LMEM and its BMEM: one array, in [0, 1) (a mass in [0.5, 1)) */
	unsigned short rng[3] = {1, 2, 3};
	double **arr = calloc((size_t)f->nvar, sizeof *arr);
	double **res[2];
	res[0] = calloc((size_t)f->nvar, sizeof *res[0]);
	res[1] = calloc((size_t)f->nvar, sizeof *res[1]);
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role == NB_RMEM) {
			res[0][v] = calloc(2 * n, sizeof(double));
			res[1][v] = calloc(2 * n, sizeof(double));
			continue;
		}
		if (x->role != NB_LMEM)
			continue;
		char jn[300];
		size_t l = strlen(x->name);
		snprintf(jn, sizeof jn, "%s", x->name);
		if (l == 0 || jn[l - 1] != 'i')
			die(x->name, "an LMEM name not ending in i");
		jn[l - 1] = 'j';
		arr[v] = malloc(n * sizeof(double));
		for (size_t i = 0; i < n; i++)
			arr[v][i] = x->name[0] == 'm' ? 0.5 + 0.5 * erand48(rng) :
			            erand48(rng);
		if (nbrt_bind(k, x->name, NBRT_DOUBLE, arr[v]) ||
		    nbrt_bind(k, jn, NBRT_DOUBLE, arr[v]))
			die(x->name, nbrt_error(rt));
	}
	printf("kernel,precision,n,newton,median_s,min_s,pairs,"
	       "full_pairs_per_s,max_rel_diff,kernel_median_s\n");
	double *t[2] = {malloc((size_t)reps * sizeof(double)),
	                malloc((size_t)reps * sizeof(double))};
	double *tk[2] = {malloc((size_t)reps * sizeof(double)),
	                 malloc((size_t)reps * sizeof(double))};
	double pairs[2] = {0, 0};
	int used[2] = {0, 0};
	for (int r = -1; r < reps; r++) /* -1: the warm-up (compiles) */
		for (int m = 0; m < 2; m++) {
			nbrt_set_newton(k, m ? NBRT_NEWTON_ON : NBRT_NEWTON_OFF);
			for (int v = 0; v < f->nvar; v++)
				if (f->var[v].role == NB_RMEM &&
				    nbrt_bind(k, f->var[v].name, NBRT_DOUBLE, res[m][v]))
					die(f->var[v].name, nbrt_error(rt));
			if (cut.cutoff > 0 ? nbrt_run_cutoff(k, n, n, &cut)
			                   : nbrt_run_self(k, n))
				die("run", nbrt_error(rt));
			if (r >= 0) {
				tk[m][r] = nbrt_kernel_time(k);
				t[m][r] = cut.cutoff > 0 ? nbrt_total_time(k) : tk[m][r];
			}
			pairs[m] = nbrt_pairs(k);
			used[m] = nbrt_newton_used(k);
		}
	double diff = 0;
	for (int v = 0; v < f->nvar; v++) {
		if (f->var[v].role != NB_RMEM)
			continue;
		double big = 0, d = 0;
		for (size_t i = 0; i < n; i++) {
			big = fmax(big, fabs(res[0][v][i]));
			d = fmax(d, fabs(res[1][v][i] - res[0][v][i]));
		}
		if (big > 0)
			diff = fmax(diff, d / big);
	}
	const char *kn = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (int m = 0; m < 2; m++) {
		qsort(t[m], (size_t)reps, sizeof(double), cmp);
		qsort(tk[m], (size_t)reps, sizeof(double), cmp);
		double med = t[m][reps / 2];
		printf("%s,%s,%zu,%s,%.6f,%.6f,%.0f,%.4g,%.3g,%.6f\n", kn,
		       nb_prec_name(f->precision), n,
		       m ? used[m] ? "on" : "asked-on" : "off", med,
		       t[m][0], pairs[m],
		       (cut.cutoff > 0 ? pairs[0] : (double)n * (double)n) / med,
		       m ? diff : 0.0, tk[m][reps / 2]);
	}
	for (int v = 0; v < f->nvar; v++) {
		free(arr[v]);
		free(res[0][v]);
		free(res[1][v]);
	}
	free(arr);
	free(res[0]);
	free(res[1]);
	for (int m = 0; m < 2; m++) {
		free(t[m]);
		free(tk[m]);
	}
	nbrt_free(k);
	nbrt_close(rt);
	return 0;
}
