/* neighbours.c: the driver of the neighbours suite (bench/suites/
 * neighbours.sh, issue 25): one kernel on one set of inputs through the
 * runtime's cell lists (nbrt_run_cutoff) and through the dense sweep
 * (nbrt_run), both timed by the wall clock, their results compared, and
 * one CSV row of what each costs.
 *   nbneighbours lj N [--device D] [--reps R] [--dense 0|1]
 *     dsl-examples/lennard_jones_self.nbl in float, N points uniform in a
 *     cube at the density that puts 50 neighbours within the cutoff
 *     (rc = 1, open boundaries); the needed pairs are its count RMEM n.
 *   nbneighbours ljc N [...]
 *     the same, clustered: three quarters of the points in 32 Gaussian
 *     blobs (standard deviation side / 16), the rest uniform, in the cube
 *     of the same side (50 neighbours on average, hundreds in the blobs).
 *   nbneighbours nearfield P [...]
 *     paper 004: dsl-examples/nearfield2d.nbl in float, P points uniform
 *     in each of the 128 x 128 boxes of [0,1)^2, cutoff = the box side;
 *     the needed pairs are those of distinct points of the 3x3 neighbour
 *     boxes, P (145924 P - 16384) (paper 004's count).
 * The row: case,p,n,cell_s,cell_kernel_s,pairs,needed,pairs_per_needed,
 * needed_per_s,dense_s,dense_per_s,rate_ratio,speedup,maxdiff,
 * kernel_needed_per_s,dense_kernel_per_s,kernel_rate_ratio (the same
 * rates from the kernels' own times, nbrt_kernel_time, without the host's
 * lists and copies), then the cell path's phases in ms
 * (nbrt_cutoff_stats: keys_ms, sort_ms, ..., of the run of the median
 * time), path (device: the lists built on the device, cl/cells.c; host:
 * by the host, runtime/cells.c; NBRT_DEVICE_CELLS=0/1 picks), device
 * (maxdiff: norm-wise, cell against dense, of the first RMEM's finite
 * values, inf where a non-finite one differs; with
 * --dense 0 the dense columns are empty).  The cells' split and groups
 * are the runtime's: NBRT_CELL_SPLIT and NBRT_CELL_GROUP set them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "csv.h"
#include "nbrt.h"
#include "opt.h"

enum { MAXV = 8 };

typedef struct run {
	const char *kernel;
	int dim, nres;
	const char *pos[2][3]; /* LMEM and BMEM position columns */
	const char *res[5];    /* the RMEMs, the count last where there is one */
	int counted;           /* res[nres - 1] counts the needed pairs */
	double cutoff;
} run;

static const run lj = {
	"dsl-examples/lennard_jones_self.nbl", 3, 5,
	{{"xi", "yi", "zi"}, {"xj", "yj", "zj"}},
	{"fx", "fy", "fz", "u", "n"}, 1, 1.0,
};
static const run nearfield = {
	"dsl-examples/nearfield2d.nbl", 2, 3,
	{{"xi", "yi"}, {"xj", "yj"}},
	{"ax", "ay", "pot"}, 0, 1.0 / 128,
};

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

/* xorshift64*: the same inputs on every machine */
static double uniform(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

static int fail(nbrt *rt, const char *what)
{
	fprintf(stderr, "nbneighbours: %s: %s\n", what, rt ? nbrt_error(rt) : "");
	return 1;
}

/* The median wall time of reps runs (after one warm-up run that builds
 * the program); cutoff: the cell lists, else the dense sweep. */
static int timed(nbrt_kernel *k, size_t n, const nbrt_cutoff *c, int reps,
                 double *wall, double *kern, struct nbrt_cutoff_stats *st)
{
	double t[64], u[64];
	double kt[64];
	struct nbrt_cutoff_stats all[64];
	if (reps > 64)
		reps = 64;
	for (int r = -1; r < reps; r++) {
		double t0 = now();
		nbrt_cutoff cs;
		if (c) {
			cs = *c;
			cs.stats = &all[r < 0 ? 0 : r];
		}
		if (c ? nbrt_run_cutoff(k, n, n, &cs) : nbrt_run(k, n, n))
			return -1;
		if (r >= 0) {
			t[r] = u[r] = now() - t0;
			kt[r] = nbrt_kernel_time(k);
		}
	}
	qsort(t, (size_t)reps, sizeof t[0], cmp);
	for (int r = 0; st && r < reps; r++)
		if (u[r] == t[reps / 2])
			*st = all[r];
	qsort(kt, (size_t)reps, sizeof kt[0], cmp);
	*wall = t[reps / 2];
	*kern = kt[reps / 2];
	return 0;
}

/* the case: "lj", "ljc" or "nearfield" */
static int get_case(void *to, const char *flag, const char *v)
{
	if (strcmp(v, "lj") && strcmp(v, "ljc") && strcmp(v, "nearfield"))
		return opt_bad(flag, v, "lj, ljc or nearfield");
	*(const char **)to = v;
	return 0;
}

/* N points (lj, ljc) or P per box (nearfield: 16384 P points) */
static int get_size(void *to, const char *flag, const char *v)
{
	long *n = to;
	if (opt_long(v, strlen(v), n) || *n < 1 || *n > (1L << 26))
		return opt_bad(flag, v, "a count from 1 to %ld", 1L << 26);
	return 0;
}

static const opt_prog prog = {
	"nbneighbours",
	"lj N | ljc N | nearfield P [--device D] [--reps R] [--dense 0|1]",
	"Times one kernel through the runtime's cell lists and through the\n"
	"dense sweep, compares their results, and prints one CSV row\n"
	"(bench/suites/neighbours.sh).",
	0,
};

int main(int argc, char **argv)
{
	const char *device = NULL, *name = NULL;
	long size = -1, reps = 3;
	int dense = 1;
	const opt tab[] = {
		OPT(OPT_ARG, "case", "CASE", &name, "lj, ljc or nearfield",
		    .call = get_case),
		OPT(OPT_ARG, "size", "N", &size,
		    "points (lj, ljc), or points per box (nearfield)",
		    .call = get_size),
		OPT(OPT_STR, "--device", "D", &device,
		    "the device, as nbrun --device"),
		OPT(OPT_INT, "--reps", "R", &reps,
		    "timed runs of each path, the median kept (default 3)",
		    .lo = 1, .hi = 64),
		/* a choice, not an integer: atoi took --dense 7 as on */
		OPT(OPT_CHOICE, "--dense", "0|1", &dense,
		    "1: time the dense sweep too and compare (default);\n"
		    "0: the cell lists alone", .words = "0|1"),
		{.kind = OPT_HELP},
		{0},
	};
	int prc = opt_parse(&prog, tab, argc, argv);
	if (prc != OPT_GO)
		return prc == OPT_DONE ? 0 : 2;
	if (!name || size < 0) {
		opt_usage(&prog, stderr);
		return 2;
	}
	int clustered = !strcmp(name, "ljc");
	const run *w = !strcmp(name, "nearfield") ? &nearfield : &lj;
	size_t n = w == &lj ? (size_t)size : (size_t)size * 16384;
	int rc = 1;
	float *col[2 * 3] = {0}, *res[2][5] = {{0}};
	nbrt *rt = NULL;
	nbrt_kernel *k = NULL;
	char *err = NULL;
	if (!(rt = nbrt_open(device, &err))) {
		fprintf(stderr, "nbneighbours: %s\n", err ? err : "no device");
		free(err);
		return 1;
	}
	nb_options o;
	nb_options_init(&o);
	o.precision = NB_FLOAT;
	o.given |= NB_GIVEN_PRECISION;
	if (!(k = nbrt_load(rt, w->kernel, &o))) {
		rc = fail(rt, w->kernel);
		goto out;
	}
	for (int c = 0; c < w->dim; c++)
		if (!(col[c] = malloc(n * sizeof(float))))
			goto oom;
	for (int s = 0; s < 2; s++)
		for (int r = 0; r < w->nres; r++)
			if (!(res[s][r] = malloc(n * sizeof(float))))
				goto oom;
	/* the inputs: i and j are the same points */
	unsigned long long seed = 0x9e3779b97f4a7c15ULL;
	double side = 1;
	if (w == &lj) { /* 50 neighbours within rc = 1 */
		double rho = 50 / (4.0 / 3.0 * M_PI);
		side = cbrt((double)n / rho);
		double blob[32][3];
		for (int b = 0; b < 32; b++)
			for (int c = 0; c < 3; c++)
				blob[b][c] = side * uniform(&seed);
		for (size_t i = 0; i < n; i++)
			for (int c = 0; c < 3; c++) {
				double x = side * uniform(&seed);
				if (clustered && i % 4) { /* Box-Muller, kept in the cube */
					double u = uniform(&seed), v = uniform(&seed);
					x = blob[i % 32][c] + side / 16 *
					    sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
					x = x < 0 ? 0 : x > side ? side : x;
				}
				col[c][i] = (float)x;
			}
	} else { /* P a box of the level-7 quadtree, box after box */
		for (size_t i = 0; i < n; i++) {
			size_t b = i / (size_t)size;
			col[0][i] = (float)(((double)(b % 128) + uniform(&seed)) / 128);
			col[1][i] = (float)(((double)(b / 128) + uniform(&seed)) / 128);
			for (int c = 0; c < 2; c++) /* float rounding may reach 1 */
				if (col[c][i] >= 1.0f)
					col[c][i] = nextafterf(1.0f, 0.0f);
		}
	}
	for (int s = 0; s < 2; s++)
		for (int c = 0; c < w->dim; c++)
			if (nbrt_bind(k, w->pos[s][c], NBRT_FLOAT, col[c])) {
				rc = fail(rt, "bind");
				goto out;
			}
	if (w == &lj ? nbrt_set_const(k, "sig2", 0.01, 0) ||
	               nbrt_set_const(k, "eps", 1, 0) ||
	               nbrt_set_const(k, "rc2", w->cutoff * w->cutoff, 0)
	             : nbrt_set_const(k, "eps2", 1e-8, 0)) {
		rc = fail(rt, "const");
		goto out;
	}
	if (w == &nearfield) { /* unit total mass */
		if (!(col[2] = malloc(n * sizeof(float))))
			goto oom;
		for (size_t i = 0; i < n; i++)
			col[2][i] = (float)(1.0 / (double)n);
	}
	if (w == &nearfield && nbrt_bind(k, "mj", NBRT_FLOAT, col[2])) {
		rc = fail(rt, "bind mj");
		goto out;
	}
	nbrt_cutoff c = {.cutoff = w->cutoff, .dim = w->dim, .self = 1};
	/* paper 004's near field is its 3x3 boxes, no radius mask: cells of
	 * one cutoff, unpruned (runtime/cells.c) */
	if (w == &nearfield)
		c.split = 1;
	for (int d = 0; d < w->dim; d++) {
		c.ipos[d] = w->pos[0][d];
		c.jpos[d] = w->pos[1][d];
	}
	double cell_s, cell_k, dense_s = 0, dense_k = 0, pairs, needed;
	struct nbrt_cutoff_stats st = {{0}, 0, 0, 0};
	for (int r = 0; r < w->nres; r++)
		if (nbrt_bind(k, w->res[r], NBRT_FLOAT, res[0][r])) {
			rc = fail(rt, "bind");
			goto out;
		}
	if (timed(k, n, &c, (int)reps, &cell_s, &cell_k, &st)) {
		rc = fail(rt, "nbrt_run_cutoff");
		goto out;
	}
	pairs = nbrt_pairs(k);
	if (w->counted) {
		needed = 0;
		for (size_t i = 0; i < n; i++)
			needed += res[0][w->nres - 1][i];
	} else {
		needed = (double)size * (145924.0 * (double)size - 16384);
	}
	double maxdiff = -1;
	if (dense) {
		for (int r = 0; r < w->nres; r++)
			if (nbrt_bind(k, w->res[r], NBRT_FLOAT, res[1][r])) {
				rc = fail(rt, "bind");
				goto out;
			}
		if (timed(k, n, NULL, 1, &dense_s, &dense_k, NULL)) {
			rc = fail(rt, "nbrt_run");
			goto out;
		}
		/* over the finite values; a non-finite one (two clustered
		 * points almost at one place) must be the same in both */
		double d2 = 0, r2 = 0;
		int odd = 0;
		for (size_t i = 0; i < n; i++) {
			double a = res[0][0][i], b = res[1][0][i];
			if (!isfinite(a) || !isfinite(b)) {
				odd |= !(a == b || (isnan(a) && isnan(b)));
				continue;
			}
			d2 += (a - b) * (a - b);
			r2 += b * b;
		}
		maxdiff = odd ? INFINITY : r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
	}
	double nn = (double)n * (double)n;
	printf("case,p,n,cell_s,cell_kernel_s,pairs,needed,pairs_per_needed,"
	       "needed_per_s,dense_s,dense_per_s,rate_ratio,speedup,maxdiff,"
	       "kernel_needed_per_s,dense_kernel_per_s,kernel_rate_ratio,");
	for (int p = 0; nbrt_cutoff_phase(p); p++)
		printf("%s_ms,", nbrt_cutoff_phase(p));
	printf("path,device\n");
	printf("%s,%ld,%zu,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,", name,
	       w == &lj ? 0L : size, n, cell_s, cell_k, pairs, needed,
	       pairs / needed, needed / cell_s);
	if (dense)
		printf("%.6g,%.4g,%.4g,%.4g,%.3g,", dense_s, nn / dense_s,
		       needed / cell_s / (nn / dense_s), dense_s / cell_s, maxdiff);
	else
		printf(",,,,,");
	printf("%.4g,", cell_k > 0 ? needed / cell_k : 0);
	if (dense && dense_k > 0 && cell_k > 0)
		printf("%.4g,%.4g,", nn / dense_k, needed / cell_k / (nn / dense_k));
	else
		printf(",,");
	for (int p = 0; nbrt_cutoff_phase(p); p++)
		printf("%.4g,", st.time[p] * 1e3);
	printf("%s,", st.device ? "device" : "host");
	csv_print_text(stdout, nbrt_device_name(rt));
	putchar('\n');
	rc = 0;
	goto out;
oom:
	fprintf(stderr, "nbneighbours: out of memory for %zu points\n", n);
out:
	for (int i = 0; i < 6; i++)
		free(col[i]);
	for (int s = 0; s < 2; s++)
		for (int r = 0; r < 5; r++)
			free(res[s][r]);
	if (k)
		nbrt_free(k);
	nbrt_close(rt);
	return rc;
}
