/* nbbench.c: times a kernel the way a benchmark should: random inputs
 * (never zeros), one warm-up run that also compiles and uploads, then R
 * timed runs; prints the median as one CSV row.  Used by the scripts under bench/.
 *   nbbench KERNEL.nbl N[,NJ] [-r R] [--device SPEC] [--const NAME=V]
 *           [--header] [--tune] [--tune-budget S] [nbcc flags]
 *   nbbench --sweep KERNEL.nbl N[,NJ] [--device SPEC] [nbcc flags]
 * --tune lets the runtime's tuner choose the variant first (the warm-up
 * run tunes); --sweep prints the table of every variant the tuner knows,
 * with its speed and its ratio to the default (docs/tutorial.md).
 * Kernel time comes from OpenCL events (nbrt_kernel_time), so transfers and
 * host work are excluded; the row also has the whole-run time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbrt.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
	nb_options o;
	nb_options_init(&o);
	const char *kfile = NULL, *dev = NULL;
	long ni = -1, nj = -1;
	int reps = 5, header = 0, sweep = 0;
	double tune = 0;
	const char *cname[32];
	double cval[32];
	int nc = 0;
	char err[256];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
		int took = nb_options_parse(&o, a, next, err, sizeof err);
		if (took < 0) {
			fprintf(stderr, "nbbench: %s\n", err);
			return 2;
		}
		if (took) {
			i += took - 1;
		} else if (strcmp(a, "-r") == 0 && next) {
			reps = atoi(argv[++i]);
		} else if (strcmp(a, "--device") == 0 && next) {
			dev = argv[++i];
		} else if (strcmp(a, "--header") == 0) {
			header = 1;
		} else if (strcmp(a, "--sweep") == 0) {
			sweep = 1;
		} else if (strcmp(a, "--tune") == 0) {
			tune = tune > 0 ? tune : NBRT_TUNE_BUDGET;
		} else if (strcmp(a, "--tune-budget") == 0 && next) {
			tune = atof(argv[++i]);
		} else if (strcmp(a, "--const") == 0 && next && nc < 32) {
			char *eq = strchr(argv[++i], '=');
			if (!eq) {
				fprintf(stderr, "nbbench: --const NAME=VALUE\n");
				return 2;
			}
			*eq = 0;
			cname[nc] = argv[i];
			cval[nc++] = atof(eq + 1);
		} else if (!kfile) {
			kfile = a;
		} else if (ni < 0) {
			char *c;
			ni = strtol(a, &c, 10);
			nj = *c == ',' ? strtol(c + 1, NULL, 10) : ni;
		} else {
			fprintf(stderr, "nbbench: unexpected '%s'\n", a);
			return 2;
		}
	}
	if (header)
		printf("device,kernel,flags,ni,nj,reps,kernel_s,total_s,"
		       "interactions_per_s,gflops_counted,gflops_38\n");
	if (!kfile || ni < 0) {
		if (header)
			return 0;
		fprintf(stderr, "usage: nbbench KERNEL N[,NJ] [-r R] [--device S]"
		        " [--const NAME=V] [--header] [--tune] [--tune-budget S] "
		        "[nbcc flags]\n       nbbench --sweep KERNEL N[,NJ] "
		        "[--device S] [--const NAME=V] [nbcc flags]\n");
		return 2;
	}
	char *msg = NULL;
	nbrt *rt = nbrt_open(dev, &msg);
	if (!rt) {
		fprintf(stderr, "nbbench: %s\n", msg ? msg : "cannot open device");
		free(msg);
		return 1;
	}
	nbrt_kernel *k = nbrt_load(rt, kfile, &o);
	if (k && tune > 0 && nbrt_set_tune(k, tune)) {
		nbrt_free(k);
		k = NULL;
	}
	if (!k) {
		fprintf(stderr, "nbbench: %s\n", nbrt_error(rt));
		nbrt_close(rt);
		return 1;
	}
	const nb_iface *f = nbrt_iface(k);
	double **arr = calloc((size_t)f->nvar, sizeof *arr);
	int status = 1;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role == NB_CONST) {
			double val = 0.01; /* a softening-like value */
			for (int c = 0; c < nc; c++)
				if (strcmp(cname[c], x->name) == 0)
					val = cval[c];
			if (nbrt_set_const(k, x->name, val, 0))
				goto fail;
			continue;
		}
		size_t n = (size_t)(x->role == NB_BMEM ? nj : ni);
		arr[v] = malloc(sizeof(double) * (n ? n : 1));
		for (size_t e = 0; e < n; e++)
			arr[v][e] = uniform();
		if (nbrt_bind(k, x->name, NBRT_DOUBLE, arr[v]))
			goto fail;
	}
	if (sweep) {
		if (nbrt_sweep(k, (size_t)ni, (size_t)nj, stdout))
			goto fail;
		status = 0;
		goto fail;
	}
	if (nbrt_run(k, (size_t)ni, (size_t)nj))
		goto fail;
	double *t = malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
	double tot = 0;
	for (int r = 0; r < reps; r++) {
		if (nbrt_run(k, (size_t)ni, (size_t)nj)) {
			free(t);
			goto fail;
		}
		t[r] = nbrt_kernel_time(k);
		tot += nbrt_total_time(k);
	}
	qsort(t, (size_t)reps, sizeof *t, cmp);
	f = nbrt_iface(k); /* the variant that ran (the j-split may be chosen) */
	double med = reps ? t[reps / 2] : 0;
	double inter = (double)ni * (double)nj;
	char flags[512];
	nb_options_str(&o, flags, sizeof flags);
	/* a comma in a device name would split its CSV field for awk */
	char dev_name[256];
	snprintf(dev_name, sizeof dev_name, "%s", nbrt_device_name(rt));
	for (char *c = dev_name; *c; c++)
		if (*c == ',')
			*c = ';';
	printf("\"%s\",%s,\"%s\",%ld,%ld,%d,%.6e,%.6e,%.4e,%.1f,%.1f\n",
	       dev_name, f->kernel, f->flags ? f->flags : flags, ni,
	       nj, reps, med, reps ? tot / reps : 0, med > 0 ? inter / med : 0,
	       med > 0 ? inter * f->flops / med / 1e9 : 0,
	       med > 0 ? inter * f->flops_conv / med / 1e9 : 0);
	free(t);
	status = 0;
fail:
	if (status)
		fprintf(stderr, "nbbench: %s\n", nbrt_error(rt));
	for (int v = 0; v < f->nvar; v++)
		free(arr[v]);
	free(arr);
	nbrt_free(k);
	nbrt_close(rt);
	return status;
}
