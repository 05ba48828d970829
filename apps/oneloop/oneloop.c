/* oneloop.c: bin/oneloop, the one-loop integral of paper 001 (Eq. 5.1):
 * the command line, the three-dimensional tanh-sinh sum whose inner axis is
 * the Fig. 6 kernel (dsl-examples/oneloop.nbl) on a device of the runtime,
 * the host's outer sums, and the extrapolation lambda -> 0 (docs/oneloop.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "opt.h"
#include "nbrt.h"
#include "oneloop.h"
#include "par.h"
#include "prog.h"

/* The kernel built in: dsl-examples/oneloop.nbl, embedded at build time
 * (scripts/embed.sh), so that bin/oneloop runs from anywhere. */
extern const char nb_oneloop_nbl[];

/* The kernel numbers its i-elements, the N^2 (x, y) points, with int. */
#define MAX_N 46340
#define MAX_COUNT 64
/* the truncation error allowed, relative to I: below dd's 2^-104 */
#define TAIL_MAX 1e-32

typedef struct args {
	long n, count;
	const char *s, *t, *me, *mf, *lambda, *lambdas, *target, *device;
	const char *scan;         /* --scan FILE */
	const char *point;        /* a flag --scan excludes, as given */
	int extrapolate, dbl, csv;
	const char *dd;     /* --dd given: the kernel's dd arithmetic */
	int accurate;       /* --dd accurate */
} args;

/* The parameters, read in the run's precision. */
typedef struct params {
	nb_dd s, t, me, mf;
	nb_dd l0, ratio; /* the sequence; l0 alone for one lambda */
	const char *l0_text;
} params;

/* The (x, y) points of an N-point rule and what a kernel run needs: each
 * array holds sc scalars a value (2 for dd pairs, 1 for double). */
typedef struct grid {
	long n;
	size_t np;                  /* n * n points, i-element i*n + j */
	double *xx, *yy, *c4, *res; /* LMEM xx, yy, cnt4 and RMEM res */
	double *zu, *zw;            /* BMEM x30_1, gw30: the z rule */
	nb_dd *wt;                  /* outer weight w_i w_j v_i c_ij */
	nb_dd *row;                 /* the sum of one row */
} grid;

typedef struct run {
	args *a;
	params p;
	int sc;
	nbrt *rt;
	nbrt_kernel *k;
	grid g, h;           /* N and N/2 */
	double t_kern, t_half; /* kernel seconds, summed over the lambdas */
	int split;           /* the points divided among MPI ranks */
} run;

/* --- the command line -------------------------------------------------- */

/* A decimal read exactly into the run's precision (nb_num_read). */
static int get_num(const char *what, const char *v, int dbl, nb_dd *out)
{
	double r[2];
	if (nb_num_read(v, strlen(v), dbl ? NB_DOUBLE : NB_DD, r))
		return prog_fail("%s needs a finite decimal number, not '%s'", what,
		                 nb_esc(v));
	*out = nb_dd_make(r[0], r[1]);
	return 0;
}

enum { P_GO, P_DONE, P_BAD };

static const opt_prog prog = {
	"oneloop", "[options]",
	"The one-loop integral of paper 001 (Eq. 5.1),\n"
	"  I = int_0^1 dx int_0^(1-x) dy int_0^(1-x-y) dz 1/D^2,\n"
	"  D = -x y s - t z (1-x-y-z) + (x+y) lambda^2\n"
	"      + (1-x-y-z)(1-x-y) me^2 + z (1-x-y) mf^2,\n"
	"by a tanh-sinh rule of N points per axis whose inner sum is\n"
	"dsl-examples/oneloop.nbl compiled by nbcc; or its extrapolation\n"
	"I(lambda) = A ln(lambda) + B + o(1) as lambda -> 0.",
	0,
};

#define STR_(x) #x
#define STR(x) STR_(x)

static int parse_args(args *a, int argc, char **argv)
{
	memset(a, 0, sizeof *a);
	a->n = 256;
	a->s = a->t = "-1";
	a->me = a->mf = "1";
	const opt t[] = {
		OPT(OPT_INT, "--n", "N", &a->n,
		    "points per axis, 2 to " STR(MAX_N) " (default 256)"),
		OPT(OPT_STR, "--s", "S", &a->s, "s <= 0 (default -1)",
		    .seen = &a->point),
		OPT(OPT_STR, "--t", "T", &a->t, "t <= 0 (default -1)",
		    .seen = &a->point),
		OPT(OPT_STR, "--me", "ME", &a->me, "me > 0 (default 1)",
		    .seen = &a->point),
		OPT(OPT_STR, "--mf", "MF", &a->mf, "mf > 0 (default 1)",
		    .seen = &a->point),
		OPT(OPT_STR, "--lambda", "L", &a->lambda,
		    "lambda > 0 (default 0.01)", .seen = &a->point),
		OPT(OPT_SET, "--extrapolate", NULL, &a->extrapolate,
		    "evaluate lambda_k = L0 RATIO^k and extrapolate\n"
		    "A and B with Wynn's epsilon algorithm"),
		OPT(OPT_STR, "--lambdas", "L0,RATIO,COUNT", &a->lambdas,
		    "the sequence: L0 > 0, RATIO in (0, 1),\n"
		    "3 <= COUNT <= " STR(MAX_COUNT) " (default 0.1,0.5,16)"),
		OPT(OPT_CHOICE, "--precision", "P", &a->dbl,
		    "dd (default) or double: the kernel, the rule\n"
		    "and the host sums all in P", .words = "dd|double"),
		OPT(OPT_CHOICE, "--dd", "A", &a->accurate,
		    "qd (default) or accurate: the kernel's dd\n"
		    "arithmetic (nbcc --dd; docs/oneloop.md)",
		    .words = "qd|accurate", .seen = &a->dd),
		OPT(OPT_STR, "--target", "T", &a->target,
		    "c (the host back end) or opencl"),
		OPT(OPT_STR, "--device", "SPEC", &a->device,
		    "host, cpu, gpu, P:D or a name (default:\n"
		    "$NBRT_DEVICE, else a GPU, else a CPU, else\n"
		    "the host)"),
		OPT(OPT_SET, "--csv", NULL, &a->csv, "machine-readable output"),
		OPT(OPT_STR, "--scan", "FILE", &a->scan,
		    "one integral for each row of FILE, a CSV\n"
		    "file with the columns s,t,me,mf,lambda;\n"
		    "CSV output, a row for each (MPI ranks\n"
		    "share the rows; docs/oneloop.md)"),
		{.kind = OPT_HELP},
		OPT(OPT_TEXT, NULL, NULL, NULL,
		    "Numbers are decimals, read exactly into the precision.  See\n"
		    "docs/oneloop.md for the rule, the output and the checks."),
		{0},
	};
	int rc = opt_parse(&prog, t, argc, argv);
	return rc == OPT_GO ? P_GO : rc == OPT_DONE ? P_DONE : P_BAD;
}

/* The command line's consistency, before any number is read. */
static int check_args(args *a)
{
	if (a->dd && a->dbl)
		return prog_fail("--dd is for --precision dd");
	if (a->target && nbrt_target_interpreted(a->target) != 0)
		return prog_fail("--target must be c or opencl, not '%s'",
		                 nb_esc(a->target));
	if (a->n < 2)
		return prog_fail("--n must be at least 2 (points of the rule on each "
		                 "axis), not %ld", a->n);
	if (a->n > MAX_N)
		return prog_fail("--n %ld is too large: the kernel numbers the N^2 "
		                 "(x, y) points with int, so N is at most %ld", a->n,
		                 (long)MAX_N);
	if (a->lambda && a->extrapolate)
		return prog_fail("--lambda and --extrapolate exclude each other "
		                 "(--lambdas sets the extrapolation's sequence)");
	if (a->lambdas && !a->extrapolate)
		return prog_fail("--lambdas needs --extrapolate");
	if (a->scan && (a->extrapolate || a->point))
		return prog_fail("--scan %s gives s, t, me, mf and lambda for each "
		                 "row: it excludes %s", nb_esc(a->scan),
		                 a->extrapolate ? "--extrapolate" : "--s, --t, --me, "
		                 "--mf and --lambda");
	return 0;
}

/* "0.1,0.5,16" into its three texts and the count */
static int split_lambdas(args *a, char *buf, size_t len, const char **l0,
                         const char **ratio)
{
	const char *v = a->lambdas ? a->lambdas : "0.1,0.5,16";
	if (strlen(v) >= len)
		goto bad;
	strcpy(buf, v);
	char *c1 = strchr(buf, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	if (!c2 || strchr(c2 + 1, ','))
		goto bad;
	*c1 = *c2 = 0;
	*l0 = buf;
	*ratio = c1 + 1;
	char *end;
	errno = 0;
	a->count = strtol(c2 + 1, &end, 10);
	if (!c2[1] || *end || errno || c2[1] == ' ')
		goto bad;
	return 0;
bad:
	return prog_fail("--lambdas needs L0,RATIO,COUNT (such as 0.1,0.5,16), "
	                 "not '%s'", nb_esc(v));
}

/* D > 0 on the closed simplex: each term is >= 0 for s, t <= 0 and the
 * last two cannot vanish with (x+y) lambda^2 (docs/oneloop.md). */
static int positive(const char *where, const char *name, const char *text,
                    nb_dd v, int sign)
{
	static const char why[] =
		"D must stay positive on the whole simplex, which is proven "
		"only for s <= 0, t <= 0, me > 0, mf > 0 and lambda > 0 "
		"(docs/oneloop.md)";
	if (sign < 0 && v.hi > 0)
		return prog_fail("%s%s = %s is positive: %s", where, name,
		                 nb_esc(text), why);
	if (sign > 0 && !(v.hi > 0))
		return prog_fail("%s%s = %s is not positive: %s", where, name,
		                 nb_esc(text), why);
	return 0;
}

/* A bound on the rule's truncation error relative to I, at lambda:
 * 6 v(T) max(1/D^2) against I >= (1/6) / max(D)^2 (docs/oneloop.md). */
static double tail_bound(const params *p, double lambda)
{
	double a = lambda * lambda, m = fmin(p->me.hi, p->mf.hi), b = m * m;
	double dmin = a <= 2 * b ? a - a * a / (4 * b) : b;
	double dmax = fabs(p->s.hi) / 4 + fabs(p->t.hi) / 4 + a +
	              p->me.hi * p->me.hi + p->mf.hi * p->mf.hi;
	return 36 * quad_tail() * (dmax / dmin) * (dmax / dmin);
}

/* s, t <= 0 and me, mf > 0, as their texts say */
static int check_point(const char *where, const params *p,
                       const char *const text[4])
{
	return positive(where, "s", text[0], p->s, -1) ||
	       positive(where, "t", text[1], p->t, -1) ||
	       positive(where, "me", text[2], p->me, 1) ||
	       positive(where, "mf", text[3], p->mf, 1);
}

/* The rule's truncation at lambdas down to `last`, below dd's. */
static int check_tail(const char *where, const params *p, double last)
{
	double r = tail_bound(p, last);
	if (!(r <= TAIL_MAX) && !(r < HUGE_VAL))
		return prog_fail("%sthe parameters are outside the rule's range: at "
		                 "lambda = %.3g the bound on its truncation error "
		                 "overflows; the bound grows as min(lambda, me, mf) "
		                 "falls and as |s|, |t|, me, mf grow (docs/oneloop.md)",
		                 where, last);
	if (!(r <= TAIL_MAX))
		return prog_fail("%sthe parameters are outside the rule's range: at "
		                 "lambda = %.3g its truncation error may reach %.1e "
		                 "of I, above dd precision (%.0e); the bound grows as "
		                 "min(lambda, me, mf) falls and as |s|, |t|, me, mf "
		                 "grow (docs/oneloop.md)", where, last, r, TAIL_MAX);
	return 0;
}

static int read_params(args *a, params *p)
{
	if (check_args(a))
		return 1;
	int dbl = a->dbl;
	if (get_num("--s", a->s, dbl, &p->s) ||
	    get_num("--t", a->t, dbl, &p->t) ||
	    get_num("--me", a->me, dbl, &p->me) ||
	    get_num("--mf", a->mf, dbl, &p->mf))
		return 1;
	char buf[256];
	const char *l0 = a->lambda ? a->lambda : "0.01", *ratio = NULL;
	a->count = 1;
	if (a->extrapolate && split_lambdas(a, buf, sizeof buf, &l0, &ratio))
		return 1;
	if (get_num(a->extrapolate ? "--lambdas: L0" : "--lambda", l0, dbl,
	            &p->l0))
		return 1;
	p->ratio = nb_dd_from(1);
	if (ratio && get_num("--lambdas: RATIO", ratio, dbl, &p->ratio))
		return 1;
	const char *text[4] = {a->s, a->t, a->me, a->mf};
	if (check_point("", p, text))
		return 1;
	if (!(p->l0.hi > 0))
		return prog_fail("%s = %s is not positive: lambda must be > 0 (at "
		                 "lambda = 0, D vanishes at x = 1, y = z = 0 and the "
		                 "integral diverges)", a->extrapolate ? "--lambdas: L0"
		                 : "lambda", nb_esc(l0));
	if (ratio && !(p->ratio.hi > 0 && p->ratio.hi < 1))
		return prog_fail("--lambdas: RATIO = %s is not in (0, 1): the "
		                 "sequence L0 * RATIO^k must decrease toward 0",
		                 nb_esc(ratio));
	if (a->extrapolate && a->count < 3)
		return prog_fail("--lambdas: COUNT = %ld is less than 3: the "
		                 "extrapolation needs two estimates of A and B, each "
		                 "from two lambdas, and one more to extrapolate",
		                 a->count);
	if (a->count > MAX_COUNT)
		return prog_fail("--lambdas: COUNT = %ld is more than %d", a->count,
		                 MAX_COUNT);
	/* the smallest lambda is the hardest for the rule */
	double last = p->l0.hi * pow(p->ratio.hi, (double)(a->count - 1));
	if (check_tail("", p, last))
		return 1;
	p->l0_text = l0;
	return 0;
}

/* --- the sums ---------------------------------------------------------- */

static void put(double *a, size_t i, int sc, nb_dd x)
{
	a[i * (size_t)sc] = x.hi;
	if (sc == 2)
		a[i * 2 + 1] = x.lo;
}

static nb_dd get(const double *a, size_t i, int sc)
{
	return sc == 2 ? nb_dd_make(a[2 * i], a[2 * i + 1]) : nb_dd_from(a[i]);
}

static void grid_free(grid *g)
{
	free(g->xx);
	free(g->yy);
	free(g->c4);
	free(g->res);
	free(g->zu);
	free(g->zw);
	free(g->wt);
	free(g->row);
	memset(g, 0, sizeof *g);
}

/* Host bytes of an N-point grid (its arrays, rule included). */
static double grid_bytes(long n, int sc)
{
	double np = (double)n * (double)n, s = 8.0 * sc;
	return np * (4 * s + sizeof(nb_dd)) + (double)n * (2 * s + 4 * 16.0);
}

/* x = u_i, y = v_i u_j, cnt4 = v_i v_j (= 1 - x - y without the
 * cancellation), z = cnt4 u_k: the cube onto the simplex. */
static int grid_make(grid *g, long n, int dbl)
{
	int sc = dbl ? 1 : 2;
	size_t np = (size_t)n * (size_t)n;
	memset(g, 0, sizeof *g);
	g->n = n;
	g->np = np;
	nb_dd *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v);
	nb_dd *w = malloc((size_t)n * sizeof *w);
	g->xx = malloc(np * sc * sizeof(double));
	g->yy = malloc(np * sc * sizeof(double));
	g->c4 = malloc(np * sc * sizeof(double));
	g->res = malloc(np * sc * sizeof(double));
	g->zu = malloc((size_t)n * sc * sizeof(double));
	g->zw = malloc((size_t)n * sc * sizeof(double));
	g->wt = malloc(np * sizeof *g->wt);
	g->row = malloc((size_t)n * sizeof *g->row);
	if (!u || !v || !w || !g->xx || !g->yy || !g->c4 || !g->res || !g->zu ||
	    !g->zw || !g->wt || !g->row) {
		free(u);
		free(v);
		free(w);
		grid_free(g);
		return prog_fail("out of memory for N = %ld", n);
	}
	quad_rule(n, dbl, u, v, w);
	for (long k = 0; k < n; k++) {
		put(g->zu, (size_t)k, sc, u[k]);
		put(g->zw, (size_t)k, sc, w[k]);
	}
#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++) {
		nb_dd wv = num_mul(dbl, w[i], v[i]);
		for (long j = 0; j < n; j++) {
			size_t p = (size_t)i * (size_t)n + (size_t)j;
			nb_dd c = num_mul(dbl, v[i], v[j]);
			put(g->xx, p, sc, u[i]);
			put(g->yy, p, sc, num_mul(dbl, v[i], u[j]));
			put(g->c4, p, sc, c);
			g->wt[p] = num_mul(dbl, num_mul(dbl, wv, w[j]), c);
		}
	}
	free(u);
	free(v);
	free(w);
	return 0;
}

/* sum of a[k] * b[k] (or of a[k] where b is NULL), k in [lo, hi): pairwise,
 * so the rounding grows as log2 of the count; the terms are all positive */
static nb_dd psum(int dbl, const nb_dd *a, const double *b, int sc,
                  size_t lo, size_t hi)
{
	if (hi - lo <= 8) {
		nb_dd s = nb_dd_from(0);
		for (size_t k = lo; k < hi; k++)
			s = num_add(dbl, s, b ? num_mul(dbl, a[k], get(b, k, sc))
			                     : a[k]);
		return s;
	}
	size_t mid = lo + (hi - lo) / 2;
	return num_add(dbl, psum(dbl, a, b, sc, lo, mid),
	               psum(dbl, a, b, sc, mid, hi));
}

/* I on grid g at lambda: the kernel's inner sums, then the outer ones. */
static int evaluate(run *r, grid *g, nb_dd lambda, nb_dd *out, double *tk)
{
	int dbl = r->a->dbl, sc = r->sc;
	nbrt_type ty = dbl ? NBRT_DOUBLE : NBRT_DD;
	nbrt_kernel *k = r->k;
	const params *p = &r->p;
	/* under MPI, this rank's part of the points (all of them in a scan,
	 * whose ranks share the rows) */
	size_t lo = 0, hi = g->np, o;
	if (r->split)
		par_range(g->np, par_rank(), &lo, &hi);
	o = lo * (size_t)sc;
	if (nbrt_bind(k, "xx", ty, g->xx + o) || nbrt_bind(k, "yy", ty, g->yy + o) ||
	    nbrt_bind(k, "cnt4", ty, g->c4 + o) || nbrt_bind(k, "x30_1", ty, g->zu) ||
	    nbrt_bind(k, "gw30", ty, g->zw) || nbrt_bind(k, "res", ty, g->res + o) ||
	    nbrt_set_const(k, "tt", p->t.hi, p->t.lo) ||
	    nbrt_set_const(k, "ramda", lambda.hi, lambda.lo) ||
	    nbrt_set_const(k, "fme", p->me.hi, p->me.lo) ||
	    nbrt_set_const(k, "fmf", p->mf.hi, p->mf.lo) ||
	    nbrt_set_const(k, "s", p->s.hi, p->s.lo) ||
	    nbrt_set_const(k, "one", 1, 0) ||
	    nbrt_run(k, hi - lo, (size_t)g->n))
		return r->split ? par_agree(prog_fail("%s", nbrt_error(r->rt)))
		                : prog_fail("%s", nbrt_error(r->rt));
	*tk = nbrt_kernel_time(k);
	if (r->split && !par_agree(0)) {
		par_gather(g->res, g->np, (size_t)sc * sizeof(double), 1);
		par_max(tk, 1); /* the slowest rank's */
	}
	long n = g->n;
#pragma omp parallel for schedule(dynamic, 16)
	for (long i = 0; i < n; i++)
		g->row[i] = psum(dbl, g->wt, g->res, sc, (size_t)(i * n),
		                 (size_t)((i + 1) * n));
	*out = psum(dbl, g->row, NULL, sc, 0, (size_t)n);
	return 0;
}

/* --- setup --------------------------------------------------------------- */

static int check_memory(run *r)
{
	long n = r->a->n;
	double mine = grid_bytes(n, r->sc) + grid_bytes(n / 2, r->sc), rt = 0;
	if (r->k && nbrt_run_memory(r->k, (size_t)n * (size_t)n, (size_t)n, 1,
	                            &rt))
		return prog_fail("--n %ld: %s", n, nbrt_error(r->rt));
	double avail = nbrt_host_memory();
	if (mine + rt <= avail)
		return 0;
	char sn[32], sm[32], sr[32], sa[32];
	nbrt_format_bytes(sn, sizeof sn, mine + rt);
	nbrt_format_bytes(sm, sizeof sm, mine);
	nbrt_format_bytes(sr, sizeof sr, rt);
	nbrt_format_bytes(sa, sizeof sa, avail);
	return prog_fail("--n %ld needs %s of memory (the points %s, the runtime "
	                 "%s), and %s is available", n, sn, sm, sr, sa);
}

/* Opens the device and compiles the kernel in the run's precision, over
 * the source's own --precision=dd line for double. */
static int setup(run *r)
{
	r->rt = cli_open(r->a->device, r->a->target, "--target ");
	if (!r->rt)
		return 1;
	nb_options o;
	nb_options_init(&o);
	o.precision = r->a->dbl ? NB_DOUBLE : NB_DD;
	o.given |= NB_GIVEN_PRECISION;
	/* QD's own arithmetic unless asked otherwise: the integrand has no
	 * cancellation it would lose digits to (docs/oneloop.md), and it is
	 * 1.8 times faster on a GPU. */
	if (!r->a->dbl) {
		o.dd_qd = !r->a->accurate;
		o.given |= NB_GIVEN_DD;
	}
	r->k = nbrt_load_source(r->rt, "oneloop.nbl", nb_oneloop_nbl,
	                        strlen(nb_oneloop_nbl), &o);
	if (!r->k)
		return prog_fail("%s", nbrt_error(r->rt));
	nbrt_show_progress(r->k, "oneloop");
	return 0;
}

/* --- output ------------------------------------------------------------- */

/* All the digits: dd as the runtime's writer does (32 significant digits
 * at least, exactly read back), double with 17. */
static const char *full(char *buf, size_t len, int dbl, nb_dd x)
{
	if (dbl)
		snprintf(buf, len, "%.17g", x.hi);
	else
		nb_dd_write(buf, len, x.hi, x.lo);
	return buf;
}

/* a parameter: the shortest text that reads back as it */
static const char *param(char *buf, size_t len, int dbl, nb_dd x)
{
	if (!dbl)
		return full(buf, len, 0, x);
	for (int d = 1; d <= 17; d++) {
		snprintf(buf, len, "%.*g", d, x.hi);
		if (strtod(buf, NULL) == x.hi)
			break;
	}
	return buf;
}

static double now0;

static void header(const run *r, const char *what)
{
	const args *a = r->a;
	int dbl = a->dbl;
	char b1[64], b2[64], b3[64], b4[64];
	const char *arith = dbl ? "double"
	                  : a->accurate ? "dd (accurate arithmetic)"
	                        : "dd (QD's arithmetic)";
	printf("oneloop: %s, N = %ld, s = %s, t = %s, me = %s, mf = %s; %s, "
	       "target %s on %s\n", what, a->n,
	       param(b1, sizeof b1, dbl, r->p.s), param(b2, sizeof b2, dbl, r->p.t),
	       param(b3, sizeof b3, dbl, r->p.me),
	       param(b4, sizeof b4, dbl, r->p.mf), arith,
	       nbrt_target(r->rt), nbrt_device_name(r->rt));
}

static double rate(const run *r, double t)
{
	double n = (double)r->a->n;
	return t > 0 ? 28 * n * n * n * (double)r->a->count / t : 0;
}

static const char *opname(const run *r)
{
	return r->a->dbl ? "double operations/s" : "dd operations/s";
}

static void timing_lines(const run *r, double total)
{
	const args *a = r->a;
	if (a->count > 1)
		printf("kernel time: %.6g s (%ld evaluations at N = %ld; at N/2 = "
		       "%ld: %.6g s)\n", r->t_kern, a->count, a->n, a->n / 2,
		       r->t_half);
	else
		printf("kernel time: %.6g s (N = %ld; N/2 = %ld: %.6g s)\n",
		       r->t_kern, a->n, a->n / 2, r->t_half);
	printf("total time: %.6g s (the whole run: kernel build or cache, the "
	       "rules, both evaluations, the sums)\n", total);
	printf("rate: %.4g %s (28 N^3 per evaluation, paper 001's "
	       "convention)\n", rate(r, r->t_kern), opname(r));
}

static int one_lambda(run *r)
{
	const args *a = r->a;
	int dbl = a->dbl;
	nb_dd ih, in;
	double th, tn;
	/* N/2 first: it also takes the one-off costs of a first run */
	if (evaluate(r, &r->h, r->p.l0, &ih, &th) ||
	    evaluate(r, &r->g, r->p.l0, &in, &tn))
		return 1;
	r->t_kern = tn;
	r->t_half = th;
	double err = fabs(num_sub(dbl, in, ih).hi), total = prog_now() - now0;
	char b1[700], b2[700], b3[64];
	if (a->csv) {
		char b4[64], b5[64], b6[64], b7[64];
		puts("n,lambda,s,t,me,mf,precision,I,I_half,error,kernel_s,"
		     "kernel_half_s,total_s,rate,target,device");
		printf("%ld,%s,%s,%s,%s,%s,%s,%s,%s,%.3g,%.6g,%.6g,%.6g,%.6g,%s,",
		       a->n, param(b3, sizeof b3, dbl, r->p.l0),
		       param(b4, sizeof b4, dbl, r->p.s),
		       param(b5, sizeof b5, dbl, r->p.t),
		       param(b6, sizeof b6, dbl, r->p.me),
		       param(b7, sizeof b7, dbl, r->p.mf), dbl ? "double" : "dd",
		       full(b1, sizeof b1, dbl, in), full(b2, sizeof b2, dbl, ih),
		       err, tn, th, total, rate(r, tn), nbrt_target(r->rt));
		cli_csv_str(nbrt_device_name(r->rt));
		putchar('\n');
		return 0;
	}
	char what[96];
	snprintf(what, sizeof what, "lambda = %s",
	         param(b3, sizeof b3, dbl, r->p.l0));
	header(r, what);
	printf("I = %s\n", full(b1, sizeof b1, dbl, in));
	printf("error estimate: %.3g (|I_N - I_N/2|, N/2 = %ld)\n", err,
	       a->n / 2);
	timing_lines(r, total);
	return 0;
}

/* A table of the extrapolation, and the fit's residuals; all of it in the
 * run's precision. */
typedef struct series {
	int m;                     /* count: lambdas */
	nb_dd *lam, *ln, *i, *ih;  /* lambda_k, ln lambda_k, I_N, I_N/2 */
	nb_dd *A, *B, *Ae, *Be;    /* m - 1 estimates and extrapolants */
	nb_dd *res;                /* I_k - (A ln lambda_k + B) */
	nb_dd a, b;
	double ea, eb;
} series;

static void fit(int dbl, series *x)
{
	int m = x->m, q = m - 1;
	for (int k = 0; k < q; k++) {
		x->A[k] = num_div(dbl, num_sub(dbl, x->i[k + 1], x->i[k]),
		                  num_sub(dbl, x->ln[k + 1], x->ln[k]));
		x->B[k] = num_sub(dbl, x->i[k], num_mul(dbl, x->A[k], x->ln[k]));
	}
	wynn(dbl, x->A, q, x->Ae);
	wynn(dbl, x->B, q, x->Be);
	x->a = x->Ae[q - 1];
	x->b = x->Be[q - 1];
	x->ea = fabs(num_sub(dbl, x->Ae[q - 1], x->Ae[q - 2]).hi);
	x->eb = fabs(num_sub(dbl, x->Be[q - 1], x->Be[q - 2]).hi);
	for (int k = 0; k < m; k++)
		x->res[k] = num_sub(dbl, x->i[k],
		                    num_add(dbl, num_mul(dbl, x->a, x->ln[k]), x->b));
}

static void print_series(const run *r, const series *x, double total)
{
	const args *a = r->a;
	int dbl = a->dbl, m = x->m;
	char b1[700], b2[700], b3[64], b4[64];
	if (a->csv) {
		puts("k,lambda,I,I_half,error,A_k,B_k,A_eps,B_eps,residual");
		for (int k = 0; k < m; k++) {
			printf("%d,%s,", k, param(b3, sizeof b3, dbl, x->lam[k]));
			printf("%s,", full(b1, sizeof b1, dbl, x->i[k]));
			printf("%s,%.3g,", full(b1, sizeof b1, dbl, x->ih[k]),
			       fabs(num_sub(dbl, x->i[k], x->ih[k]).hi));
			if (k < m - 1) {
				printf("%s,", full(b1, sizeof b1, dbl, x->A[k]));
				printf("%s,", full(b1, sizeof b1, dbl, x->B[k]));
				printf("%s,", full(b1, sizeof b1, dbl, x->Ae[k]));
				printf("%s,", full(b1, sizeof b1, dbl, x->Be[k]));
			} else {
				fputs(",,,,", stdout);
			}
			printf("%.3g\n", x->res[k].hi);
		}
		puts("");
		puts("n,s,t,me,mf,L0,ratio,count,precision,A,A_error,B,B_error,"
		     "kernel_s,kernel_half_s,total_s,rate,target,device");
		printf("%ld,%s,", a->n, param(b3, sizeof b3, dbl, r->p.s));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.t));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.me));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.mf));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.l0));
		printf("%s,%ld,%s,", param(b3, sizeof b3, dbl, r->p.ratio),
		       a->count, dbl ? "double" : "dd");
		printf("%s,%.3g,%s,%.3g,%.6g,%.6g,%.6g,%.6g,%s,",
		       full(b1, sizeof b1, dbl, x->a), x->ea,
		       full(b2, sizeof b2, dbl, x->b), x->eb, r->t_kern,
		       r->t_half, total, rate(r, r->t_kern), nbrt_target(r->rt));
		cli_csv_str(nbrt_device_name(r->rt));
		putchar('\n');
		return;
	}
	header(r, "extrapolation lambda -> 0");
	printf("lambda_k = %s * %s^k, k = 0..%d; model I(lambda) = A ln(lambda) "
	       "+ B + o(1)\n\n", param(b3, sizeof b3, dbl, r->p.l0),
	       param(b4, sizeof b4, dbl, r->p.ratio), m - 1);
	int wide = dbl ? 24 : 40;
	printf(" k  %-13s %-*s %-10s %s\n", "lambda_k", wide, "I_k", "error",
	       "residual");
	for (int k = 0; k < m; k++)
		printf("%2d  %-13.6g %-*s %-10.2e %.2e\n", k, x->lam[k].hi, wide,
		       full(b1, sizeof b1, dbl, x->i[k]),
		       fabs(num_sub(dbl, x->i[k], x->ih[k]).hi), x->res[k].hi);
	printf("error: |I_N - I_N/2|; residual: I_k - (A ln lambda_k + B), "
	       "A and B the final values below\n\n");
	printf("A_k = (I_k+1 - I_k) / (ln lambda_k+1 - ln lambda_k), "
	       "B_k = I_k - A_k ln lambda_k;\n"
	       "eps: Wynn's epsilon extrapolant of the estimates 0..k\n\n");
	printf(" k  %-*s %s\n", wide, "A_k", "eps(A)_k");
	for (int k = 0; k < m - 1; k++)
		printf("%2d  %-*s %s\n", k, wide, full(b1, sizeof b1, dbl, x->A[k]),
		       full(b2, sizeof b2, dbl, x->Ae[k]));
	printf("\n k  %-*s %s\n", wide, "B_k", "eps(B)_k");
	for (int k = 0; k < m - 1; k++)
		printf("%2d  %-*s %s\n", k, wide, full(b1, sizeof b1, dbl, x->B[k]),
		       full(b2, sizeof b2, dbl, x->Be[k]));
	printf("\nA = %s\n", full(b1, sizeof b1, dbl, x->a));
	printf("error estimate of A: %.3g (the last two extrapolants)\n", x->ea);
	printf("B = %s\n", full(b1, sizeof b1, dbl, x->b));
	printf("error estimate of B: %.3g (the last two extrapolants)\n", x->eb);
	timing_lines(r, total);
}

static int extrapolate(run *r)
{
	int dbl = r->a->dbl, m = (int)r->a->count;
	series x = {.m = m};
	nb_dd *all = calloc((size_t)m * 9, sizeof *all);
	if (!all)
		return prog_fail("out of memory");
	nb_dd **col[] = {&x.lam, &x.ln, &x.i, &x.ih, &x.A, &x.B, &x.Ae, &x.Be,
	                 &x.res};
	for (int c = 0; c < 9; c++)
		*col[c] = all + (size_t)c * (size_t)m;
	int rc = 0;
	nb_dd lam = r->p.l0;
	for (int k = 0; k < m && !rc; k++) {
		double th, tn;
		x.lam[k] = lam;
		x.ln[k] = num_log(dbl, lam);
		rc = evaluate(r, &r->h, lam, &x.ih[k], &th) ||
		     evaluate(r, &r->g, lam, &x.i[k], &tn);
		r->t_kern += tn;
		r->t_half += th;
		lam = num_mul(dbl, lam, r->p.ratio);
	}
	if (!rc) {
		fit(dbl, &x);
		print_series(r, &x, prog_now() - now0);
	}
	free(all);
	return rc;
}

/* --- --scan FILE -------------------------------------------------------- */

/* One row of a scan: its parameters, their texts and the file's line. */
typedef struct scanrow {
	params p;
	const char *text[5]; /* s t me mf lambda, pointing into the file */
	long line;
} scanrow;

/* What a row's evaluation gives rank 0. */
typedef struct scanres {
	double i[2], ih[2], tn, th;
} scanres;

static const char *const scan_col[5] = {"s", "t", "me", "mf", "lambda"};

/* FILE's text: read by rank 0, sent to every rank. */
static char *scan_text(const char *path)
{
	char err[512], *t = NULL;
	size_t n = 0;
	int rc = 0;
	if (!par_rank() && !(t = nb_read_file(path, &n, err, sizeof err)))
		rc = prog_fail("--scan: %s", err);
	if (par_agree(rc))
		return NULL;
	unsigned long long len = n;
	par_bcast(&len, sizeof len);
	if (par_rank() && !(t = malloc((size_t)len + 1)))
		rc = prog_fail("out of memory for --scan %s", nb_esc(path));
	if (par_agree(rc)) {
		free(t);
		return NULL;
	}
	par_bcast(t, (size_t)len);
	t[len] = 0;
	return t;
}

/* The fields of one line, split at commas in place; their count. */
static int fields(char *line, char **f, int max)
{
	int n = 0;
	for (char *p = line;; p++) {
		if (n < max)
			f[n] = p;
		n++;
		p += strcspn(p, ",");
		if (!*p)
			return n;
		*p = 0;
	}
}

/* The rows of the scan, every one read and checked: the header names
 * each column once, then a row of decimals a line; blank lines and lines
 * that start with '#' are skipped.  Returns the count, or -1. */
static long scan_rows(const args *a, char *text, scanrow **out)
{
	const char *path = nb_esc(a->scan);
	int col[5], ncol = 0;
	long nrow = 0, cap = 0, line = 0;
	scanrow *row = NULL;
	char where[600];
	for (char *l = text, *next; l && *l; l = next) {
		line++;
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		l[strcspn(l, "\r")] = 0;
		if (!*l || *l == '#')
			continue;
		char *f[6];
		int n = fields(l, f, 6);
		snprintf(where, sizeof where, "--scan %s, line %ld: ", path, line);
		if (!ncol) { /* the header */
			for (int c = 0; c < 5; c++)
				col[c] = -1;
			for (int k = 0; k < n && k < 6; k++) {
				int c = 0;
				while (c < 5 && strcmp(f[k], scan_col[c]))
					c++;
				if (c == 5 || col[c] >= 0 || n > 5)
					goto bad_header;
				col[c] = k;
			}
			for (int c = 0; c < 5; c++)
				if (col[c] < 0)
					goto bad_header;
			ncol = n;
			continue;
		}
		if (n != ncol) {
			prog_fail("%s%d fields, and the header has %d", where, n, ncol);
			goto bad;
		}
		if (nrow == cap) {
			cap = cap ? 2 * cap : 64;
			scanrow *r = realloc(row, (size_t)cap * sizeof *r);
			if (!r) {
				prog_fail("out of memory for --scan %s", path);
				goto bad;
			}
			row = r;
		}
		scanrow *r = &row[nrow++];
		memset(r, 0, sizeof *r);
		r->line = line;
		nb_dd *v[5] = {&r->p.s, &r->p.t, &r->p.me, &r->p.mf, &r->p.l0};
		for (int c = 0; c < 5; c++) {
			char what[700];
			snprintf(what, sizeof what, "%s%s", where, scan_col[c]);
			r->text[c] = f[col[c]];
			if (get_num(what, r->text[c], a->dbl, v[c]))
				goto bad;
		}
		r->p.ratio = nb_dd_from(1);
		r->p.l0_text = r->text[4];
		if (check_point(where, &r->p, r->text))
			goto bad;
		if (!(r->p.l0.hi > 0)) {
			prog_fail("%slambda = %s is not positive: lambda must be > 0",
			          where, nb_esc(r->text[4]));
			goto bad;
		}
		if (check_tail(where, &r->p, r->p.l0.hi))
			goto bad;
	}
	if (!ncol) {
		prog_fail("--scan %s has no header line (s,t,me,mf,lambda)", path);
		goto bad;
	}
	*out = row;
	return nrow;
bad_header:
	prog_fail("%sthe header must name the columns s, t, me, mf and lambda, "
	          "each once, and no other", where);
bad:
	free(row);
	return -1;
}

/* Each rank evaluates its share of the n rows on its own device; rank 0
 * writes a CSV row for each, in the file's order. */
static int scan(run *r, const scanrow *row, long n)
{
	scanres *res = calloc((size_t)n + 1, sizeof *res);
	int rc = !res ? prog_fail("out of memory") : 0;
	size_t lo = 0, hi = 0;
	if (!rc)
		par_range((size_t)n, par_rank(), &lo, &hi);
	for (size_t k = lo; k < hi && !rc; k++) {
		nb_dd in, ih;
		r->p = row[k].p;
		rc = evaluate(r, &r->h, r->p.l0, &ih, &res[k].th) ||
		     evaluate(r, &r->g, r->p.l0, &in, &res[k].tn);
		res[k].i[0] = in.hi;
		res[k].i[1] = in.lo;
		res[k].ih[0] = ih.hi;
		res[k].ih[1] = ih.lo;
	}
	if (!par_agree(rc)) {
		par_gather(res, (size_t)n, sizeof *res, 0);
		int dbl = r->a->dbl;
		puts("line,n,lambda,s,t,me,mf,precision,I,I_half,error,kernel_s,"
		     "kernel_half_s");
		for (long k = 0; k < n; k++) {
			char b[5][64], bi[700], bh[700];
			const params *p = &row[k].p;
			nb_dd in = nb_dd_make(res[k].i[0], res[k].i[1]);
			nb_dd ih = nb_dd_make(res[k].ih[0], res[k].ih[1]);
			printf("%ld,%ld,%s,%s,%s,%s,%s,%s,%s,%s,%.3g,%.6g,%.6g\n",
			       row[k].line, r->a->n, param(b[0], 64, dbl, p->l0),
			       param(b[1], 64, dbl, p->s), param(b[2], 64, dbl, p->t),
			       param(b[3], 64, dbl, p->me), param(b[4], 64, dbl, p->mf),
			       dbl ? "double" : "dd", full(bi, sizeof bi, dbl, in),
			       full(bh, sizeof bh, dbl, ih),
			       fabs(num_sub(dbl, in, ih).hi), res[k].tn, res[k].th);
		}
	}
	free(res);
	return rc;
}

int main(int argc, char **argv)
{
	prog_name = "oneloop";
	now0 = prog_now();
	if (par_init(argc, argv))
		return par_end(1);
	/* rank 0 writes the output */
	if (par_rank() && !freopen("/dev/null", "w", stdout))
		return par_end(prog_fail("cannot open /dev/null"));
	args a;
	int rc = parse_args(&a, argc, argv);
	if (par_agree(rc != P_GO && rc != P_DONE) || rc != P_GO)
		return par_end(rc == P_DONE ? 0 : 1);
	run r = {.a = &a, .split = !a.scan};
	rc = par_agree(read_params(&a, &r.p));
	/* a scan's rows are read and checked before the device is opened */
	char *text = NULL;
	scanrow *row = NULL;
	long nrow = 0;
	if (!rc && a.scan) {
		text = scan_text(a.scan);
		nrow = text ? scan_rows(&a, text, &row) : -1;
		rc = par_agree(nrow < 0);
	}
	r.sc = a.dbl ? 1 : 2;
	rc = rc || par_agree(check_memory(&r) || setup(&r) ||
	                     check_memory(&r) || grid_make(&r.g, a.n, a.dbl) ||
	                     grid_make(&r.h, a.n / 2, a.dbl));
	if (!rc)
		rc = a.scan ? scan(&r, row, nrow) : a.extrapolate ? extrapolate(&r)
		                                                  : one_lambda(&r);
	free(row);
	free(text);
	grid_free(&r.g);
	grid_free(&r.h);
	if (r.k)
		nbrt_free(r.k);
	if (r.rt)
		nbrt_close(r.rt);
	if (!rc && (fflush(stdout) || ferror(stdout)))
		rc = prog_fail("cannot write the output");
	return par_end(rc ? 1 : 0);
}
