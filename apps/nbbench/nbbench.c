/* nbbench.c: times a kernel the way a benchmark should: random inputs
 * (never zeros), one warm-up run that also compiles and uploads, then R
 * timed runs; prints the median as one CSV row.  Used by the scripts
 * under bench/; its flags are main's table (nbbench --help).  --tune lets the runtime's tuner choose the variant first (the warm-up
 * run tunes); --sweep prints the table of every variant the tuner knows,
 * with its speed and its ratio to the default (docs/tutorial.md).
 * Kernel time comes from OpenCL events (nbrt_kernel_time), so transfers and
 * host work are excluded; the row also has the whole-run time.  --queue Q
 * times instead Q runs on device arrays queued back to back (nbrt_set_queue)
 * a repetition, the span of their launches by events and the wall clock
 * each divided by Q: a device-resident integrator's rate, where one call's
 * events cannot go below the device's launch floor; its flags field says
 * "--queue Q", so the two figures are never mixed up.  Under NBRT_QUEUE=2
 * the runs queue no events (their host cost a launch is the point): the
 * row's time is the wall clock / Q and its flags say "--queue Q untimed".
 * Its report on standard error says "the host's pace" where queueing the
 * runs took the host nine tenths of their wall time or more. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "csv.h"
#include "nbrt.h"
#include "opt.h"
#include "prog.h"

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

/* --const NAME=V: the CONSTs set (the others get 0.01) */
typedef struct consts {
	const char *name[32], *arg[32];
	double val[32];
	int n;
} consts;

static int get_const(void *to, const char *flag, const char *v)
{
	consts *c = to;
	const char *eq = strchr(v, '=');
	double x;
	if (!eq || eq == v || opt_real(eq + 1, strlen(eq + 1), &x))
		return opt_bad(flag, v, "NAME=VALUE");
	if (c->n == 32)
		return prog_fail("more than 32 %s", flag);
	for (int k = 0; k < c->n; k++)
		if (strlen(c->name[k]) == (size_t)(eq - v) &&
		    !strncmp(c->name[k], v, (size_t)(eq - v)))
			return prog_fail("%s %s: CONST '%s' is given twice (also "
			                 "%s %s)", flag, nb_esc(v), nb_esc(c->name[k]),
			                 flag, nb_esc(c->arg[k]));
	c->name[c->n] = strndup(v, (size_t)(eq - v));
	if (!c->name[c->n])
		return prog_fail("out of memory");
	c->arg[c->n] = v;
	c->val[c->n++] = x;
	return 0;
}

/* N or NI,NJ, at most what OpenCL kernels index with int (nbrun's
 * --random too); a larger count wrapped the inputs' malloc size */
static int get_size(void *to, const char *flag, const char *v)
{
	long *n = to;
	const char *comma = strchr(v, ',');
	size_t k = comma ? (size_t)(comma - v) : strlen(v);
	if (opt_long(v, k, &n[0]) || n[0] < 0 || n[0] > INT_MAX ||
	    (comma && (opt_long(comma + 1, strlen(comma + 1), &n[1]) ||
	               n[1] < 0 || n[1] > INT_MAX)))
		return opt_bad(flag, v, "N or NI,NJ, counts from 0 to %d",
		               INT_MAX);
	if (!comma)
		n[1] = n[0];
	return 0;
}

static void free_consts(consts *c)
{
	for (int k = 0; k < c->n; k++)
		free((char *)c->name[k]);
}

static const opt_prog prog = {
	"nbbench",
	"KERNEL N[,NJ] [-r R] [--queue Q] [--device S] [--const NAME=V] "
	"[--header] [--tune] [--tune-budget S] [nbcc flags]\n"
	"--sweep KERNEL N[,NJ] [--device S] [--const NAME=V] [nbcc flags]",
	"Times a kernel as a benchmark should: random inputs (never zeros),\n"
	"one warm-up run that also compiles and uploads, then R timed runs;\n"
	"prints the median as one CSV row (--header: the header row first).",
	0,
};

int main(int argc, char **argv)
{
	nb_options o;
	nb_options_init(&o);
	const char *kfile = NULL, *dev = NULL;
	long size[2] = {-1, -1}, reps = 5, queue = 0;
	int header = 0, sweep = 0, tune_on = 0;
	const char *row_flag = NULL; /* the last of -r, --queue given */
	double budget = 0;
	consts cs = {0};
	const opt tab[] = {
		OPT(OPT_ARG, "kernel", "KERNEL", &kfile,
		    "a .nbl, or a .cl, .c or .il that nbcc wrote"),
		OPT(OPT_ARG, "size", "N[,NJ]", size,
		    "N i-elements and NJ j-elements (default N)",
		    .call = get_size),
		OPT(OPT_INT, "-r", "R", &reps, "timed runs (default 5)", .lo = 0,
		    .hi = 1000000, .seen = &row_flag),
		OPT(OPT_INT, "--queue", "Q", &queue,
		    "time Q runs on device arrays queued back to back\n"
		    "a repetition, no host wait between them (the span of\n"
		    "their launches by events / Q; the row's flags say so)",
		    .lo = 1, .hi = 100000, .seen = &row_flag),
		OPT(OPT_STR, "--device", "SPEC", &dev,
		    "the device, as nbrun --device (default:\n"
		    "$NBRT_DEVICE, else a GPU, else a CPU)"),
		OPT(OPT_CALL, "--const", "NAME=V", &cs,
		    "the value of a CONST (default 0.01)", .call = get_const),
		OPT(OPT_SET, "--header", NULL, &header,
		    "print the CSV header row first (alone: only it)"),
		CLI_TUNE_ROWS(&tune_on, &budget,
		    "let the runtime's tuner choose the variant first\n"
		    "(the warm-up run tunes)"),
		OPT(OPT_SET, "--sweep", NULL, &sweep,
		    "print the table of every variant the tuner knows,\n"
		    "its speed and its ratio to the default's\n"
		    "(docs/tutorial.md; not with -r, --queue, --header)"),
		{.kind = OPT_HELP},
		OPT(OPT_COMPILER, NULL, NULL, &o, "Compiler options:"),
		{0},
	};
	int rc = opt_parse(&prog, tab, argc, argv);
	if (rc != OPT_GO) {
		free_consts(&cs);
		return rc == OPT_DONE ? 0 : 2;
	}
	/* --sweep times each variant as the tuner does and prints a table,
	 * no row: these were taken and silently ignored */
	if (sweep && (row_flag || header)) {
		free_consts(&cs);
		prog_fail("%s is for the timed CSV row, not --sweep (its table "
		          "times each variant as the tuner does)",
		          row_flag ? row_flag : "--header");
		return 2;
	}
	long ni = size[0], nj = size[1];
	double tune = cli_tune(tune_on, budget);
	if (header)
		printf("device,kernel,flags,ni,nj,reps,kernel_s,total_s,"
		       "interactions_per_s,gflops_counted,gflops_38\n");
	if (!kfile || ni < 0) {
		free_consts(&cs);
		if (header)
			return prog_flush_stdout();
		opt_usage(&prog, stderr);
		return 2;
	}
	char *msg = NULL;
	nbrt *rt = nbrt_open(dev, &msg);
	if (!rt) {
		prog_fail("%s", msg ? msg : "cannot open device");
		free(msg);
		free_consts(&cs);
		return 1;
	}
	nbrt_kernel *k = nbrt_load(rt, kfile, &o);
	if (k && tune > 0 && nbrt_set_tune(k, tune)) {
		nbrt_free(k);
		k = NULL;
	}
	if (!k) {
		prog_fail("%s", nbrt_error(rt));
		nbrt_close(rt);
		free_consts(&cs);
		return 1;
	}
	const nb_iface *f = nbrt_iface(k);
	double **arr = calloc((size_t)f->nvar, sizeof *arr);
	nbrt_array **darr = calloc((size_t)f->nvar, sizeof *darr);
	double *t = malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
	int status = 1, said = 0;
	if (!arr || !darr || !t) {
		said = prog_fail("out of memory");
		goto fail;
	}
	/* a name that is no CONST of the kernel would be left at 0.01 */
	for (int c = 0; c < cs.n; c++) {
		int v = nb_iface_find(f, cs.name[c]);
		if (v < 0 || f->var[v].role != NB_CONST) {
			char all[512] = "none";
			for (int w = 0, n = 0; w < f->nvar; w++)
				if (f->var[w].role == NB_CONST && n < (int)sizeof all)
					n += snprintf(all + n, sizeof all - (size_t)n, "%s%s",
					              n ? ", " : "", f->var[w].name);
			said = prog_fail("--const %s: kernel %s has no CONST '%s' "
			                 "(its CONST: %s)", nb_esc(cs.arg[c]),
			                 f->kernel, nb_esc(cs.name[c]), all);
			goto fail;
		}
	}
	/* refused before anything runs where runs cannot be queued */
	if (queue && (nbrt_set_queue(rt, 1) || nbrt_set_queue(rt, 0)))
		goto fail;
	for (int v = 0; v < f->nvar; v++) {
		const nb_var *x = &f->var[v];
		if (x->role == NB_CONST) {
			double val = 0.01; /* a softening-like value */
			for (int c = 0; c < cs.n; c++)
				if (strcmp(cs.name[c], x->name) == 0)
					val = cs.val[c];
			if (nbrt_set_const(k, x->name, val, 0))
				goto fail;
			continue;
		}
		size_t n = (size_t)(x->role == NB_BMEM ? nj : ni);
		if (!(arr[v] = malloc(sizeof(double) * (n ? n : 1)))) {
			said = prog_fail("out of memory");
			goto fail;
		}
		for (size_t e = 0; e < n; e++)
			arr[v][e] = uniform();
		/* queued: every array on the device, as an integrator keeps
		 * its state */
		if (queue ? !(darr[v] = nbrt_array_new(rt, n)) ||
		            nbrt_array_write(darr[v], arr[v]) ||
		            nbrt_bind_array(k, x->name, darr[v]) :
		            nbrt_bind(k, x->name, NBRT_DOUBLE, arr[v]))
			goto fail;
	}
	if (sweep) {
		if (nbrt_sweep(k, (size_t)ni, (size_t)nj, stdout))
			goto fail;
		status = prog_flush_stdout();
		said |= status;
		goto fail;
	}
	/* the warm-up waits: it compiles, tunes and uploads */
	const char *qenv = getenv("NBRT_QUEUE");
	int untimed = qenv && strcmp(qenv, "2") == 0;
	if (nbrt_run(k, (size_t)ni, (size_t)nj) ||
	    (queue && nbrt_set_queue(rt, untimed ? 2 : 1)))
		goto fail;
	double tot = 0, busy = 0, host = 0;
	for (int r = 0; r < reps; r++) {
		if (!queue) {
			if (nbrt_run(k, (size_t)ni, (size_t)nj))
				goto fail;
			t[r] = nbrt_kernel_time(k);
			tot += nbrt_total_time(k);
			continue;
		}
		double q[2], t0 = prog_now();
		for (long s = 0; s < queue; s++)
			if (nbrt_run(k, (size_t)ni, (size_t)nj))
				goto fail;
		host += (prog_now() - t0) / (double)queue; /* queueing them */
		if (nbrt_wait(rt, q))
			goto fail;
		double wall = (prog_now() - t0) / (double)queue;
		t[r] = untimed ? wall : q[0] / (double)queue;
		busy += q[1] / (double)queue;
		tot += wall;
	}
	qsort(t, (size_t)reps, sizeof *t, cmp);
	f = nbrt_iface(k); /* the variant that ran (the j-split may be chosen) */
	double med = reps ? t[reps / 2] : 0;
	double inter = (double)ni * (double)nj;
	char flags[512], shown[1024];
	nb_options_str(&o, flags, sizeof flags);
	snprintf(shown, sizeof shown, "%s", f->flags ? f->flags : flags);
	if (queue) /* the mode named where the row says how it ran */
		snprintf(shown + strlen(shown), sizeof shown - strlen(shown),
		         "%s--queue %ld%s", *shown ? " " : "", queue,
		         untimed ? " untimed" : "");
	csv_print_text(stdout, nbrt_device_name(rt));
	printf(",%s,", f->kernel);
	csv_print_text(stdout, shown);
	printf(",%ld,%ld,%ld,%.6e,%.6e,%.4e,%.1f,%.1f\n", ni,
	       nj, reps, med, reps ? tot / reps : 0, med > 0 ? inter / med : 0,
	       med > 0 ? inter * f->flops / med / 1e9 : 0,
	       med > 0 ? inter * f->flops_conv / med / 1e9 : 0);
	/* where queueing a run took the host nine tenths of the wall a run
	 * or more, the device waited for the host: the row is the host's
	 * pace (float gravity at N = 4096 on NVIDIA, docs/performance.md) */
	if (queue && reps)
		fprintf(stderr, "nbbench: %ld queued runs a repetition: a run's "
		        "%s %.3g us (median), its launches busy %.3g us, the "
		        "host's nbrt_run %.3g us, wall %.3g us (means)%s\n", queue,
		        untimed ? "wall" : "span", 1e6 * med, 1e6 * busy / reps, 1e6 * host / reps,
		        1e6 * tot / reps, host >= 0.9 * tot ? "; the host's pace" : "");
	/* the row is the result: it must have reached its file */
	status = prog_flush_stdout();
	said |= status;
fail:
	if (status && !said)
		prog_fail("%s", nbrt_error(rt));
	/* queued runs ended before their arrays go (a failure said above) */
	if (queue)
		nbrt_wait(rt, NULL);
	for (int v = 0; arr && v < f->nvar; v++)
		free(arr[v]);
	for (int v = 0; darr && v < f->nvar; v++)
		nbrt_array_free(darr[v]);
	free(arr);
	free(darr);
	free(t);
	nbrt_free(k);
	nbrt_close(rt);
	free_consts(&cs);
	return status;
}
