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
#include "csv.h"
#include "opt.h"
#include "nbrt.h"
#include "oneloop.h"
#include "par.h"
#include "prog.h"

/* The kernel built in: dsl-examples/oneloop.nbl, embedded at build time
 * (scripts/embed.sh), so that bin/oneloop runs from anywhere. */
extern const char nb_oneloop_nbl[];
/* and dsl-examples/oneloop_ieps.nbl, 1/(D - i eps)^2, for --eps */
extern const char nb_oneloop_ieps_nbl[];
/* and dsl-examples/oneloop_deform.nbl, the deformed contour, for s > 0 */
extern const char nb_oneloop_deform_nbl[];

/* The deformed contour in double: the rounding's floor of a value,
 * relative to |I| (measured: docs/oneloop.md, "The scale target") */
#define DBL_CONTOUR 1e-13
/* The kernel numbers its i-elements, the N^2 (x, y) points, with int. */
#define MAX_N 46340
#define MAX_COUNT 64
/* the truncation error allowed, relative to I: below dd's 2^-104 */
#define TAIL_MAX 1e-32
/* the eps sequence for s > 0 (docs/oneloop.md, "The physical region") */
#define EPS_DEFAULT "0.1,0.7,12"

/* two parts, real and imaginary */
#define CPLX(a) ((a)->ieps || (a)->deform)

typedef struct args {
	long n, count;
	const char *s, *t, *me, *mf, *lambda, *lambdas, *target, *device;
	const char *eps;          /* --eps E0,RATIO,COUNT */
	long ecount;
	int all_digits;
	int ieps;                 /* 1/(D - i eps)^2: --eps given */
	const char *kappa;        /* --kappa K */
	int deform;               /* the deformed contour: s > 0, or --kappa */
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
	nb_dd e0, eratio; /* the eps sequence, where ieps */
	double kappa;     /* the contour's scale, where deform (0: 1 and 1/2) */
} params;

/* The (x, y) points of an N-point rule and what a kernel run needs: each
 * array holds sc scalars a value (2 for dd pairs, 1 for double). */
typedef struct grid {
	long n;
	size_t np;                  /* n * n points, i-element i*n + j */
	double *xx, *yy, *c4, *res; /* LMEM xx, yy, cnt4 and RMEM res */
	double *im;                 /* RMEM im of the ieps kernel (res: re) */
	double *q, *zv, *dmax;      /* deform: v_j a point, v_k, RMEM dimax */
	double *zu, *zw;            /* BMEM x30_1, gw30: the z rule */
	nb_dd *wt;                  /* outer weight w_i w_j v_i c_ij */
	nb_dd *w2;                  /* deform: the u2 rule's weights */
	double lam1;                /* deform: the lambda of the u1 rule */
	int shift;                  /* the nodes moved by half a step */
	double tail1, tail2;        /* deform: what the u1 and u2 rules leave
	                             * out of (0, 1) at u = 0 */
	nb_dd *row;                 /* the sum of one row */
	/* the deformed contour's points and results kept on the device
	 * (grid_device; NULL where the host's arrays are bound): LMEMs a1,
	 * b1, a2, b2, RMEMs re, im, dimax, all in double there */
	nbrt_array *dev[7];
} grid;

typedef struct run {
	args *a;
	params p;
	int sc;
	nbrt *rt;
	nbrt_kernel *k;
	grid g, h;           /* N and N/2 */
	grid q[2];           /* N/4 and N/8, for the error estimate (quarter) */
	grid s;              /* N shifted by half a step (shifted) */
	double t_kern, t_half; /* kernel seconds, summed over the lambdas;
	                        * t_half N/2's, N/4's and N/8's */
	int split;           /* the points divided among MPI ranks */
	const char *where;   /* a message's prefix: "" or a scan's row */
} run;

/* Whether the rule at N/4 and N/8 sharpens the error estimate
 * (quad_error): in dd, on the real or the deformed contour, N >= 16.  Not
 * in double on the real contour, whose rounding near x + y = 1 reaches
 * 1e-12 of I at small lambda (docs/oneloop.md), far above any floor
 * quad_error could be given, nor with eps, whose extrapolation has
 * estimates of its own.  The deformed contour takes its complements p
 * and q as given and keeps D off 0: in double its values were within
 * DBL_CONTOUR |I| of dd's (docs/oneloop.md, "The scale target"), the
 * floor its estimate gets there. */
static int quarter(const args *a)
{
	return !a->dbl && !a->deform && !a->ieps && a->n / 8 >= 2;
}

/* The deformed contour's estimate: from I_N and the N rule shifted by
 * half a step on every axis (docs/oneloop.md, "The error estimate"). */
static int shifted(const args *a)
{
	return a->deform && !a->ieps;
}

/* --- the command line -------------------------------------------------- */

/* A decimal read exactly into the run's precision (nb_num_read). */
static int get_num(const char *what, const char *v, int dbl, nb_dd *out)
{
	double r[2];
	if (nb_num_read(v, strlen(v), dbl ? NB_DOUBLE : NB_DD, r))
		return prog_fail("%s needs a finite decimal number, not '%s'", what,
		                 nb_esc(v));
	/* a nonzero decimal that reads as 0 (--me 1e-400) would be refused
	 * as "not positive", or taken as s = 0 */
	size_t m = strcspn(v, "eE");
	if (r[0] == 0 && strcspn(v, "123456789") < m)
		return prog_fail("%s = %s is out of range: nonzero, it is nearer 0 "
		                 "than the least positive double (4.9e-324) and "
		                 "would read as 0",
		                 what, nb_esc(v));
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
	"I(lambda) = A ln(lambda) + B + o(1) as lambda -> 0.  For s > 0,\n"
	"the integral over a contour moved into the complex plane\n"
	"(dsl-examples/oneloop_deform.nbl), or with --eps 1/(D - i eps)^2\n"
	"(dsl-examples/oneloop_ieps.nbl) extrapolated to eps -> 0.\n"
	"Values are printed to the digits their error estimates support.",
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
		    "points per axis, 2 to " STR(MAX_N) " (default 256)",
		    .lo = 2, .hi = MAX_N),
		OPT(OPT_STR, "--s", "S", &a->s, "s (default -1); s > 0 is the\n"
		    "physical region, by a deformed contour",
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
		    "A and B by fits of I's asymptotic form"),
		OPT(OPT_STR, "--lambdas", "L0,RATIO,COUNT", &a->lambdas,
		    "the sequence: L0 > 0, RATIO in (0, 1),\n"
		    "3 <= COUNT <= " STR(MAX_COUNT) " (default 0.1,0.5,16)"),
		OPT(OPT_STR, "--eps", "E0,RATIO,COUNT", &a->eps,
		    "1/(D - i eps)^2 for eps_k = E0 RATIO^k,\n"
		    "extrapolated to eps -> 0 (Wynn): E0 > 0,\n"
		    "RATIO in (0, 1), 3 <= COUNT <= " STR(MAX_COUNT) "; for\n"
		    "s > 0 in place of the contour (default\n"
		    EPS_DEFAULT "), or to check it where s <= 0"),
		OPT(OPT_STR, "--kappa", "K", &a->kappa,
		    "K > 0: the deformed contour's largest move of\n"
		    "ln(u/(1-u)) (default 1 and 1/2, the better),\n"
		    "halved where it crosses D = 0;\n"
		    "the contour is taken for s > 0 without --eps"),
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
		OPT(OPT_SET, "--all-digits", NULL, &a->all_digits,
		    "print every digit of a value, not only\n"
		    "those its error estimate supports"),
		OPT(OPT_STR, "--scan", "FILE", &a->scan,
		    "one integral for each row of FILE, a CSV\n"
		    "file with the columns s,t,me,mf,lambda\n"
		    "(no lambda with --extrapolate); CSV output,\n"
		    "a row for each (MPI ranks share the rows;\n"
		    "docs/oneloop.md)"),
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
	if (a->lambda && a->extrapolate)
		return prog_fail("--lambda and --extrapolate exclude each other "
		                 "(--lambdas sets the extrapolation's sequence)");
	if (a->lambdas && !a->extrapolate)
		return prog_fail("--lambdas needs --extrapolate");
	if (a->scan && a->point)
		return prog_fail("--scan %s gives s, t, me, mf and lambda for each "
		                 "row: it excludes --s, --t, --me, --mf and --lambda",
		                 nb_esc(a->scan));
	return 0;
}

/* "0.1,0.5,16" (v, or def where v is NULL) into its three texts and the
 * count; what names the option */
static int split_seq(const char *what, const char *v, const char *def,
                     char *buf, size_t len, const char **l0,
                     const char **ratio, long *count)
{
	if (!v)
		v = def;
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
	*count = strtol(c2 + 1, &end, 10);
	if (!c2[1] || *end || errno || c2[1] == ' ')
		goto bad;
	return 0;
bad:
	return prog_fail("%s needs %s,RATIO,COUNT (such as %s), not '%s'", what,
	                 what[2] == 'l' ? "L0" : "E0", def, nb_esc(v));
}

/* t <= 0, me, mf > 0: with s <= 0 and lambda > 0, D > 0 on the closed
 * simplex (each term is >= 0 and the last two cannot vanish with (x+y)
 * lambda^2); with s > 0 the eps sequence takes D's zeros
 * (docs/oneloop.md). */
static int positive(const char *where, const char *name, const char *text,
                    nb_dd v, int sign)
{
	static const char why[] =
		"the integral is supported for t <= 0, me > 0, mf > 0 and "
		"lambda > 0, with any s (s > 0, where D vanishes inside, by a "
		"deformed contour; docs/oneloop.md)";
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
	return 36 * quad_tail(QUAD_T) * (dmax / dmin) * (dmax / dmin);
}

/* t <= 0 and me, mf > 0, as their texts say */
static int check_point(const char *where, const params *p,
                       const char *const text[4])
{
	return positive(where, "t", text[1], p->t, -1) ||
	       positive(where, "me", text[2], p->me, 1) ||
	       positive(where, "mf", text[3], p->mf, 1);
}

static const char *param(char *buf, size_t len, int dbl, nb_dd x);

/* s > 0 exactly at the threshold 4 lambda^2 of one of the n lambdas
 * (lambda_k = l0 ratio^k, formed as the run forms them; equal within
 * the rounding of the decimals read, as s = 0.04 and lambda = 0.1 are
 * in dd): there D's zero
 * set reaches the edge x + y = 1 at x = y = 1/2, where the extrapolation
 * in eps has no expansion to use. */
static int check_threshold(const char *where, int dbl, const params *p,
                           const char *s_text, long n)
{
	nb_dd l = p->l0;
	for (long k = 0; k < n; k++) {
		nb_dd four = num_mul(dbl, nb_dd_from(4), num_mul(dbl, l, l));
		/* "exactly": as the decimals are, within their rounding */
		double d = fabs(num_sub(dbl, four, p->s).hi);
		if (d <= p->s.hi * (dbl ? 0x1p-50 : 0x1p-100)) {
			char b[64];
			return prog_fail("%ss = %s is exactly at the threshold s = 4 "
			                 "lambda^2 of lambda = %s, where D vanishes at x "
			                 "= y = 1/2, z = 0, on the edge of the simplex: "
			                 "move s or lambda off it (docs/oneloop.md)", where,
			                 nb_esc(s_text), param(b, sizeof b, dbl, l));
		}
		l = num_mul(dbl, l, p->ratio);
	}
	return 0;
}

/* The physical region's model expands in lambda below the threshold
 * (docs/oneloop.md, "The physical region's model"): above it (s < 4
 * lambda^2) D has no zero and I is another function, so the lambda
 * sequence of an extrapolation on the contour starts below it. */
static int check_below(const char *where, int dbl, const params *p,
                       const char *s_text)
{
	nb_dd four = num_mul(dbl, nb_dd_from(4), num_mul(dbl, p->l0, p->l0));
	if (!(four.hi < p->s.hi)) {
		char b[64];
		return prog_fail("%sthe first lambda %s is not below the threshold "
		                 "of s = %s (4 lambda^2 < s): the physical region's "
		                 "expansion in lambda holds below it; a smaller L0 "
		                 "in --lambdas (docs/oneloop.md)", where,
		                 param(b, sizeof b, dbl, p->l0), nb_esc(s_text));
	}
	return 0;
}

/* The rule's truncation at lambdas down to `last`, below dd's; with eps,
 * whose integrand is at most 1/eps^2 wherever D vanishes, at eps down to
 * elast as well (an absolute bound: I may be near 0 there). */
static int check_tail(const char *where, const params *p, double last,
                      double elast)
{
	if (elast > 0 && !(6 * quad_tail(QUAD_T) / (elast * elast) <= TAIL_MAX))
		return prog_fail("%sthe eps sequence goes down to %.3g, where the "
		                 "rule's truncation error may reach %.1e, above dd "
		                 "precision (%.0e): end it above 5e-15 "
		                 "(docs/oneloop.md)", where, elast,
		                 6 * quad_tail(QUAD_T) / (elast * elast), TAIL_MAX);
	if (p->s.hi > 0) /* D vanishes: the relative bound has no Dmin */
		return 0;
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

/* A sequence's ratio in (0, 1) and count in [3, MAX_COUNT]. */
static int check_seq(const char *what, const char *ratio_text, nb_dd ratio,
                     long count)
{
	if (!(ratio.hi > 0 && ratio.hi < 1))
		return prog_fail("%s: RATIO = %s is not in (0, 1): the sequence %s * "
		                 "RATIO^k must decrease toward 0", what,
		                 nb_esc(ratio_text), what[2] == 'l' ? "L0" : "E0");
	if (count < 3)
		return prog_fail("%s: COUNT = %ld is less than 3: the extrapolation "
		                 "needs two estimates, each from two values, and one "
		                 "more to extrapolate", what, count);
	if (count > MAX_COUNT)
		return prog_fail("%s: COUNT = %ld is more than %d", what, count,
		                 MAX_COUNT);
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
	char buf[256], ebuf[256];
	const char *l0 = a->lambda ? a->lambda : "0.01", *ratio = NULL;
	a->count = 1;
	if (a->extrapolate &&
	    split_seq("--lambdas", a->lambdas, "0.1,0.5,16", buf, sizeof buf, &l0,
	              &ratio, &a->count))
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
		                 "lambda = 0, D vanishes at x = 1, y = z = 0 and at "
		                 "x = 0, y = 1, z = 0, and the integral diverges)",
		                 a->extrapolate ? "--lambdas: L0" : "lambda",
		                 nb_esc(l0));
	if (ratio && check_seq("--lambdas", ratio, p->ratio, a->count))
		return 1;
	/* the eps sequence: for s > 0, or where asked for (a scan's rows
	 * may ask for it too: read in any case) */
	const char *e0, *eratio;
	if (split_seq("--eps", a->eps, EPS_DEFAULT, ebuf, sizeof ebuf, &e0,
	              &eratio, &a->ecount) ||
	    get_num("--eps: E0", e0, dbl, &p->e0) ||
	    get_num("--eps: RATIO", eratio, dbl, &p->eratio))
		return 1;
	if (!(p->e0.hi > 0))
		return prog_fail("--eps: E0 = %s is not positive: the sequence E0 * "
		                 "RATIO^k must decrease toward 0 from above",
		                 nb_esc(e0));
	if (check_seq("--eps", eratio, p->eratio, a->ecount))
		return 1;
	a->ieps = !!a->eps;
	a->deform = !a->eps && (a->kappa || (p->s.hi > 0 && !a->scan));
	if (a->eps && a->kappa)
		return prog_fail("--eps and --kappa exclude each other: the eps "
		                 "sequence evaluates 1/(D - i eps)^2 on the real "
		                 "contour, --kappa deforms the contour");
	if (a->kappa) {
		nb_dd k;
		if (get_num("--kappa", a->kappa, dbl, &k))
			return 1;
		if (!(k.hi > 0))
			return prog_fail("--kappa = %s is not positive: the contour "
			                 "moves each ln(u / (1 - u)) by up to kappa, to "
			                 "Im D < 0",
			                 nb_esc(a->kappa));
		p->kappa = k.hi;
	}
	if (CPLX(a) && p->s.hi > 0 &&
	    (check_threshold("", dbl, p, a->s, a->count) ||
	     (a->deform && a->extrapolate && check_below("", dbl, p, a->s))))
		return 1;
	double elast = a->ieps ? p->e0.hi * pow(p->eratio.hi,
	                                        (double)(a->ecount - 1)) : 0;
	/* the smallest lambda is the hardest for the rule */
	double last = p->l0.hi * pow(p->ratio.hi, (double)(a->count - 1));
	if (check_tail("", p, last, elast))
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
	for (int k = 0; k < 7; k++)
		nbrt_array_free(g->dev[k]);
	free(g->xx);
	free(g->yy);
	free(g->c4);
	free(g->res);
	free(g->im);
	free(g->q);
	free(g->zv);
	free(g->dmax);
	free(g->zu);
	free(g->zw);
	free(g->wt);
	free(g->row);
	free(g->w2);
	memset(g, 0, sizeof *g);
}

/* Host bytes of an N-point grid (its arrays, rule included). */
static double grid_bytes(long n, int sc, int deform)
{
	double np = (double)n * (double)n, s = 8.0 * sc;
	return np * ((5 + 2 * deform) * s + sizeof(nb_dd)) +
	       (double)n * ((2 + deform) * s + 4 * 16.0);
}

/* The deformed contour's u1 rule, made for lambda (b: its bands, NULL
 * for none: the u2 and z rule's), into the points' u1, p and outer
 * weights (docs/oneloop.md, "The u1 rule's bands"). */
static int grid_axis1(grid *g, int dbl, const quad_bands *b, double lambda)
{
	long n = g->n;
	int sc = dbl ? 1 : 2;
	nb_dd *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v);
	nb_dd *w = malloc((size_t)n * sizeof *w);
	if (!u || !v || !w) {
		free(u);
		free(v);
		free(w);
		return prog_fail("out of memory for N = %ld", n);
	}
	if (b)
		g->tail1 = quad_rule_bands(n, b, g->shift, dbl, u, v, w);
	else {
		quad_rule(n, QUAD_T_DEFORM, g->shift, dbl, u, v, w);
		g->tail1 = g->tail2;
	}
#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			size_t p = (size_t)i * (size_t)n + (size_t)j;
			put(g->xx, p, sc, u[i]);
			put(g->c4, p, sc, v[i]);
			g->wt[p] = num_mul(dbl, w[i], g->w2[j]);
		}
	g->lam1 = lambda;
	free(u);
	free(v);
	free(w);
	return 0;
}

/* x = u_i, y = v_i u_j, cnt4 = v_i v_j (= 1 - x - y without the
 * cancellation), z = cnt4 u_k: the cube onto the simplex.  For the
 * deformed contour (deform), whose kernel maps the cube itself, the
 * arrays hold the cube's coordinates instead: xx = u_i, c4 = v_i, yy =
 * u_j, q = v_j, zv = v_k, and the outer weight is w_i w_j alone. */
static int grid_make(grid *g, long n, int dbl, int deform, int shift)
{
	int sc = dbl ? 1 : 2;
	size_t np = (size_t)n * (size_t)n;
	memset(g, 0, sizeof *g);
	g->n = n;
	g->shift = shift;
	g->np = np;
	nb_dd *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v);
	nb_dd *w = malloc((size_t)n * sizeof *w);
	g->xx = malloc(np * sc * sizeof(double));
	g->yy = malloc(np * sc * sizeof(double));
	g->c4 = malloc(np * sc * sizeof(double));
	g->res = malloc(np * sc * sizeof(double));
	g->im = malloc(np * sc * sizeof(double));
	g->zu = malloc((size_t)n * sc * sizeof(double));
	g->zw = malloc((size_t)n * sc * sizeof(double));
	g->wt = malloc(np * sizeof *g->wt);
	g->row = malloc((size_t)n * sizeof *g->row);
	if (deform) {
		g->q = malloc(np * sc * sizeof(double));
		g->zv = malloc((size_t)n * sc * sizeof(double));
		g->dmax = malloc(np * sc * sizeof(double));
		g->w2 = malloc((size_t)n * sizeof *g->w2);
	}
	if (!u || !v || !w || !g->xx || !g->yy || !g->c4 || !g->res || !g->im || !g->zu ||
	    !g->zw || !g->wt || !g->row ||
	    (deform && (!g->q || !g->zv || !g->dmax || !g->w2))) {
		free(u);
		free(v);
		free(w);
		grid_free(g);
		return prog_fail("out of memory for N = %ld", n);
	}
	if (deform) {
		/* the z rule (u3), then u2's; u1's depends on lambda
		 * (grid_axis1, at each evaluation's lambda) */
		quad_rule(n, QUAD_T_DEFORM, shift, dbl, u, v, w);
		g->tail2 = quad_tail_shift(n, QUAD_T_DEFORM, shift);
		for (long k = 0; k < n; k++) {
			put(g->zu, (size_t)k, sc, u[k]);
			put(g->zw, (size_t)k, sc, w[k]);
			put(g->zv, (size_t)k, sc, v[k]);
			g->w2[k] = w[k];
		}
		for (long i = 0; i < n; i++)
			for (long j = 0; j < n; j++) {
				size_t p = (size_t)i * (size_t)n + (size_t)j;
				put(g->yy, p, sc, u[j]);
				put(g->q, p, sc, v[j]);
			}
		free(u);
		free(v);
		free(w);
		return grid_axis1(g, dbl, NULL, -1);
	}
	quad_rule(n, QUAD_T, shift, dbl, u, v, w);
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

/* The deformed contour's points, written once to the device for every
 * lambda, kappa and scan row that follows, and its results left there
 * to be read back in double: the host's arrays would cross at each
 * evaluation, 4 dd inputs and 3 dd results a point (28 MB at N = 512),
 * where the kernel took 18 ms (docs/oneloop.md, "A scan").  Rounding
 * the points to double moves each by 1e-16 of itself, and each point's
 * inner sum is rounded to double before the host's dd sum: both far
 * below the contour's floor of 7.6e-13 |I| (its truncation at T = 3),
 * so the values keep every digit their estimates claim.  Only where the
 * device keeps arrays in its own memory, and the points are not divided
 * among MPI ranks. */
static int grid_device(run *r, grid *g)
{
	if (!r->a->deform || (r->split && par_size() > 1) ||
	    !nbrt_device_arrays(r->rt))
		return 0;
	const double *in[4] = {g->xx, g->c4, g->yy, g->q};
	double *tmp = malloc(g->np * sizeof *tmp);
	int rc = !tmp, oom = rc;
	for (int k = 0; k < 7 && !rc; k++) {
		rc = !(g->dev[k] = nbrt_array_new(r->rt, g->np));
		if (rc || k >= 4)
			continue;
		for (size_t i = 0; i < g->np; i++)
			tmp[i] = in[k][i * (size_t)r->sc];
		rc = nbrt_array_write(g->dev[k], tmp);
	}
	free(tmp);
	return rc ? prog_fail("%s", oom ? "out of memory" : nbrt_error(r->rt))
	          : 0;
}

/* The u1 rule's bands for lambda (docs/oneloop.md, "The u1 rule's
 * bands"): the rule's error at small lambda comes from two places on
 * the u1 axis, in l = ln(u1 / (1 - u1)): near l = ln(1/lambda) (the
 * corner x = 1, where 1 - x ~ lambda) and near l = -(2 ln(1/lambda) +
 * ln s) (the corner y = 1, where x ~ lambda^2 / s), where the tanh-sinh
 * rule's nodes are 1.8 and 3.5 times sparser than at its centre, where
 * the integrand needs few. */
static int axis1_for(run *r, grid *g, double lambda)
{
	/* |s| for the contour at s <= 0 too (--kappa), kept off 0; the
	 * offsets and widths from where the errors lay at lambda = 0.01 and
	 * 0.004, s = 2 and 5 (docs/oneloop.md) */
	double L = log(1 / lambda), s = fmax(fabs(r->p.s.hi), 0.01);
	quad_bands b = {M_PI, M_PI * sinh(QUAD_T_DEFORM), 2,
	                {L + 0.3, -(2 * L + log(s)) - 0.6}, {0.3, 0.3}, {1.5, 2}};
	if (grid_axis1(g, r->a->dbl, &b, lambda))
		return 1;
	if (!g->dev[0])
		return 0;
	/* the device's points are doubles: dd's high parts, copied out */
	double *tmp = r->sc == 1 ? NULL : malloc(g->np * sizeof *tmp);
	int rc = r->sc != 1 && !tmp, oom = rc;
	for (int k = 0; k < 2 && !rc; k++) {
		const double *in = k ? g->c4 : g->xx;
		if (tmp)
			for (size_t i = 0; i < g->np; i++)
				tmp[i] = in[i * (size_t)r->sc];
		rc = nbrt_array_write(g->dev[k], tmp ? tmp : in);
	}
	free(tmp);
	return rc ? prog_fail("%s", oom ? "out of memory" : nbrt_error(r->rt)) : 0;
}

/* sum of a[k] (k in [lo, hi)): pairwise, so the rounding grows as log2
 * of the count */
static nb_dd psum(int dbl, const nb_dd *a, size_t lo, size_t hi)
{
	if (hi - lo <= 8) {
		nb_dd s = nb_dd_from(0);
		for (size_t k = lo; k < hi; k++)
			s = num_add(dbl, s, a[k]);
		return s;
	}
	size_t mid = lo + (hi - lo) / 2;
	return num_add(dbl, psum(dbl, a, lo, mid), psum(dbl, a, mid, hi));
}

/* The outer sum's hot loop, N^2 dd products and sums an evaluation: where
 * GCC can, a second copy for CPUs with FMA (x86-64-v3), chosen when the
 * program starts, since the portable build's fma() is a call into libm. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HOT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT_CLONES
#endif
#define LANES 8

/* sum of a[k] * b[k], k in [lo, hi), b holding sc doubles a value: LANES
 * running sums of every LANES-th term, then summed pairwise.  The lanes
 * are independent chains, which the CPU overlaps, where one running sum
 * waits for each addition's whole latency (2.5 times faster with FMA at
 * N = 256).  The sum's rounding grows as (hi - lo)/LANES + log2 LANES
 * units of 2^-104 of the sum of |terms|, 35 for the rows of N = 256. */
HOT_CLONES
static nb_dd dot(int dbl, const nb_dd *a, const double *b, int sc, size_t lo,
                 size_t hi)
{
	nb_dd acc[LANES];
	for (int l = 0; l < LANES; l++)
		acc[l] = nb_dd_from(0);
	size_t k = lo;
	for (; k + LANES <= hi; k += LANES)
		for (int l = 0; l < LANES; l++)
			acc[l] = num_add(dbl, acc[l],
			                 num_mul(dbl, a[k + l], get(b, k + l, sc)));
	for (; k < hi; k++)
		acc[0] = num_add(dbl, acc[0], num_mul(dbl, a[k], get(b, k, sc)));
	for (int w = LANES / 2; w; w /= 2)
		for (int l = 0; l < w; l++)
			acc[l] = num_add(dbl, acc[l], acc[l + w]);
	return acc[0];
}

/* int_0^1 (x + x^2) / (G x^2 - L x + L)^2 dx (L = lambda^2), in closed
 * form: with a = G, b = -L, c = L, Q = a x^2 + b x + c, Delta = 4ac - b^2,
 *   I0 = int 1/Q = (2/sqrt Delta) [atan((2a x + b)/sqrt Delta)]_0^1,
 *   I1 = int x/Q^2 = [-(b x + 2c)/(Delta Q)]_0^1 - (b/Delta) I0,
 *   J0 = int 1/Q^2 = [(2a x + b)/(Delta Q)]_0^1 + (2a/Delta) I0,
 *   I2 = int x^2/Q^2 = (I0 - b I1 - c J0) / a.
 * 0 where L >= 3G (lambda^2 near the masses), where it is O(1) and the
 * floor of 36 v(T) |I| covers its part. */
static double face_h(double G, double L, double t1, double t2)
{
	if (!(L < 3 * G))
		return 0;
	double a = G, b = -L, c = L, d = 4 * a * c - b * b, sd = sqrt(d),
	       q1 = a + b + c, q0 = c;
	double i0 = (2 / sd) * (atan((2 * a + b) / sd) - atan(b / sd));
	double i1 = -(b + 2 * c) / (d * q1) + 2 * c / (d * q0) - (b / d) * i0;
	double j0 = (2 * a + b) / (d * q1) - b / (d * q0) + (2 * a / d) * i0;
	return t1 * i1 + t2 * (i0 - b * i1 - c * j0) / a;
}

/* What the deformed contour's rule leaves out at the faces u1 = 0 and
 * u2 = 0 of the cube, the slabs of width v(T) = 2.1e-14 it stops short
 * of (T = 3): there D = lambda^2 (1 - x) + x^2 G(u3) > 0, with x = q on
 * the first and p on the second, whose integrands q / D^2 and p^2 / D^2
 * reach 1 / (2 G lambda^2) and pi / (4 G^1.5 lambda) near the corner y =
 * 1: at lambda = 0.01 (s = 2, t = 0, me = mf = 1) the slabs hold 1.1e-10,
 * where the values at N = 384 and 512 agreed to 7e-13 and both missed the
 * independent mpmath value by 1.09e-10 (every N misses them alike, so
 * no difference of N sees them).  The slabs are thinner than any scale
 * of their integrands, so each is v(T) times its face's integral, which
 * is face_h in u2 (or u1) and the contour's own z rule in u3 (real: D
 * has no zero on these faces, and the contour there is the real one's
 * value).  Added to every deformed evaluation's real part; the other
 * faces' slabs (x = 1, z) hold O(v(T) ln lambda), under the floor. */
static double face_tail(const run *r, const grid *g, double lambda)
{
	const params *p = &r->p;
	double me2 = p->me.hi * p->me.hi, mf2 = p->mf.hi * p->mf.hi, t = p->t.hi,
	       L = lambda * lambda, f = 0;
	for (long k = 0; k < g->n; k++) {
		double u = g->zu[k * r->sc], v = g->zv[k * r->sc];
		f += g->zw[k * r->sc] *
		     face_h(v * me2 + u * mf2 - t * u * v, L, g->tail1, g->tail2);
	}
	return f;
}

/* I on grid g at lambda (and eps, for the ieps kernel, or kappa for the
 * deformed contour: the imaginary part goes to out[1], and the deformed
 * contour's largest Im D to out[2]): the kernel's inner sums, then the
 * outer ones. */
static int evaluate(run *r, grid *g, nb_dd lambda, nb_dd eps, nb_dd *out,
                    double *tk)
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
	if (r->a->deform && g->lam1 != lambda.hi && axis1_for(r, g, lambda.hi))
		return 1;
	int bad, rsc = sc; /* doubles a result */
	if (g->dev[0]) {
		static const char *const name[7] = {"a1", "b1", "a2", "b2", "re",
		                                    "im", "dimax"};
		bad = 0;
		for (int v = 0; v < 7 && !bad; v++)
			bad = nbrt_bind_array(k, name[v], g->dev[v]);
		bad = bad || nbrt_bind(k, "a3", ty, g->zu) ||
		      nbrt_bind(k, "b3", ty, g->zv) ||
		      nbrt_bind(k, "gw", ty, g->zw) ||
		      nbrt_set_const(k, "kappa", eps.hi, eps.lo);
		rsc = 1;
	} else if (r->a->deform)
		bad = nbrt_bind(k, "a1", ty, g->xx + o) ||
		      nbrt_bind(k, "b1", ty, g->c4 + o) ||
		      nbrt_bind(k, "a2", ty, g->yy + o) ||
		      nbrt_bind(k, "b2", ty, g->q + o) ||
		      nbrt_bind(k, "a3", ty, g->zu) || nbrt_bind(k, "b3", ty, g->zv) ||
		      nbrt_bind(k, "gw", ty, g->zw) ||
		      nbrt_bind(k, "re", ty, g->res + o) ||
		      nbrt_bind(k, "im", ty, g->im + o) ||
		      nbrt_bind(k, "dimax", ty, g->dmax + o) ||
		      nbrt_set_const(k, "kappa", eps.hi, eps.lo);
	else
		bad = nbrt_bind(k, "xx", ty, g->xx + o) ||
		      nbrt_bind(k, "yy", ty, g->yy + o) ||
		      nbrt_bind(k, "cnt4", ty, g->c4 + o) ||
		      nbrt_bind(k, "x30_1", ty, g->zu) ||
		      nbrt_bind(k, "gw30", ty, g->zw) ||
		      nbrt_bind(k, r->a->ieps ? "re" : "res", ty, g->res + o) ||
		      (r->a->ieps && (nbrt_bind(k, "im", ty, g->im + o) ||
		                      nbrt_set_const(k, "eps", eps.hi, eps.lo))) ||
		      nbrt_set_const(k, "one", 1, 0);
	if (bad || nbrt_set_const(k, "tt", p->t.hi, p->t.lo) ||
	    nbrt_set_const(k, "ramda", lambda.hi, lambda.lo) ||
	    nbrt_set_const(k, "fme", p->me.hi, p->me.lo) ||
	    nbrt_set_const(k, "fmf", p->mf.hi, p->mf.lo) ||
	    nbrt_set_const(k, "s", p->s.hi, p->s.lo) ||
	    nbrt_run(k, hi - lo, (size_t)g->n))
		return r->split ? par_agree(prog_fail("%s", nbrt_error(r->rt)))
		                : prog_fail("%s", nbrt_error(r->rt));
	if (g->dev[0] && (nbrt_array_read(g->dev[4], g->res) ||
	                  nbrt_array_read(g->dev[5], g->im) ||
	                  nbrt_array_read(g->dev[6], g->dmax)))
		return prog_fail("%s", nbrt_error(r->rt));
	*tk = nbrt_kernel_time(k);
	/* the largest Im D on the nodes, into out[2]: this rank's points',
	 * then the largest over the ranks (the points' own are not needed) */
	double dm = -HUGE_VAL;
	if (r->a->deform)
		for (size_t i = lo; i < hi; i++)
			dm = fmax(dm, g->dmax[i * (size_t)rsc]);
	if (r->split && !par_agree(0)) {
		par_gather(g->res, g->np, (size_t)sc * sizeof(double), 1);
		if (CPLX(r->a))
			par_gather(g->im, g->np, (size_t)sc * sizeof(double), 1);
		double mx[2] = {*tk, dm}; /* the slowest rank's time */
		par_max(mx, 1 + r->a->deform);
		*tk = mx[0];
		dm = mx[1];
	}
	long n = g->n;
	if (r->a->deform)
		out[2] = nb_dd_from(dm);
	for (int part = 0; part < 1 + CPLX(r->a); part++) {
		const double *v = part ? g->im : g->res;
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++)
			g->row[i] = dot(dbl, g->wt, v, rsc, (size_t)(i * n),
			                (size_t)((i + 1) * n));
		out[part] = psum(dbl, g->row, 0, (size_t)n);
	}
	if (r->a->deform)
		out[0] = num_add(dbl, out[0], nb_dd_from(face_tail(r, g, lambda.hi)));
	/* Where the parameters' scale is far from 1 (s = t = -1e-160, me =
	 * mf = lambda = 1e-80 passes every check above), D^2 or 1/D^2 leaves
	 * the arithmetic's range and the sums are NaN or infinite: printed,
	 * that was "I = nan" and exit 0.  Every rank holds the same sums, so
	 * every rank fails alike. */
	for (int part = 0; part < 1 + CPLX(r->a); part++)
		if (!isfinite(out[part].hi)) {
			char l[64], v[700];
			return prog_fail("%sat lambda = %s the rule of N = %ld gives %s "
			                 "= %s: the parameters are outside the range of "
			                 "%s arithmetic, where D^2 or 1/D^2 overflows; "
			                 "D is linear in s, t, lambda^2, me^2 and mf^2, "
			                 "so I scales by 1/c^2 as they all scale by c",
			                 r->where, param(l, sizeof l, dbl, lambda), n,
			                 CPLX(r->a) ? part ? "Im I" : "Re I" : "I",
			                 num_full(v, sizeof v, dbl, out[part]),
			                 dbl ? "double" : "dd");
		}
	return 0;
}

/* --- setup --------------------------------------------------------------- */

static int check_memory(run *r)
{
	long n = r->a->n;
	int d = r->a->deform;
	double mine = grid_bytes(n, r->sc, d) * (1 + d) +
	              grid_bytes(n / 2, r->sc, d) + grid_bytes(n / 4, r->sc, d) +
	              grid_bytes(n / 8, r->sc, d),
	       rt = 0;
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
	const char *src = r->a->deform ? nb_oneloop_deform_nbl
	                  : r->a->ieps ? nb_oneloop_ieps_nbl : nb_oneloop_nbl;
	r->k = nbrt_load_source(r->rt, r->a->deform ? "oneloop_deform.nbl"
	                        : r->a->ieps ? "oneloop_ieps.nbl"
	                                          : "oneloop.nbl", src,
	                        strlen(src), &o);
	if (!r->k)
		return prog_fail("%s", nbrt_error(r->rt));
	nbrt_show_progress(r->k, "oneloop");
	return 0;
}

/* --- output ------------------------------------------------------------- */

static const char *full(char *buf, size_t len, int dbl, nb_dd x)
{
	return num_full(buf, len, dbl, x);
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
	double evals = (double)r->a->count * (r->a->ieps ? (double)r->a->ecount
	                                                : 1);
	return t > 0 ? 28 * n * n * n * evals / t : 0;
}

static const char *opname(const run *r)
{
	return r->a->dbl ? "double operations/s" : "dd operations/s";
}

static void timing_lines(const run *r, double total)
{
	const args *a = r->a;
	long evals = a->count * (a->ieps ? a->ecount : 1);
	const char *more = quarter(a) ? ", N/4 and N/8"
	                   : shifted(a) ? " and N shifted" : "";
	if (evals > 1)
		printf("kernel time: %.6g s (%ld evaluations at N = %ld; at N/2 = "
		       "%ld%s: %.6g s)\n", r->t_kern, evals, a->n, a->n / 2, more,
		       r->t_half);
	else
		printf("kernel time: %.6g s (N = %ld; N/2 = %ld%s: %.6g s)\n",
		       r->t_kern, a->n, a->n / 2, more, r->t_half);
	printf("total time: %.6g s (the whole run: kernel build or cache, the "
	       "rules, both evaluations, the sums)\n", total);
	printf("rate: %.4g %s (28 N^3 per evaluation, paper 001's "
	       "convention)\n", rate(r, r->t_kern), opname(r));
}

/* A value beside its error estimate: the digits the estimate supports,
 * or all of them under --all-digits. */
static const char *shown(char *buf, size_t len, const run *r, nb_dd x,
                         double err)
{
	return r->a->all_digits ? full(buf, len, r->a->dbl, x)
	                        : num_earned(buf, len, r->a->dbl, x, err);
}

/* A value is taken as converged where its error estimate is at most this
 * much of its size: below it, what the extrapolation gives is reported as
 * not converging, with its last extrapolants, never as a value. */
#define CONVERGED 1e-3

/* The integral at one lambda: at N and N/2, its real part (and, with eps,
 * its imaginary part) and their error estimates.  Without eps, v is I_N,
 * h I_N/2 and e rule_error's estimate.  With eps, each of the four sequences over
 * eps_k is extrapolated to eps -> 0 (Wynn), v and h are the extrapolants
 * at N and N/2, and e is |v - h| (the rule's error, carried through the
 * extrapolation) plus the differences of the last three extrapolants at
 * N (the extrapolation's: the last one alone was measured to
 * underestimate it, docs/oneloop.md). */
typedef struct value {
	nb_dd v[2], h[2];
	double e[2];
	/* on the deformed contour with the shifted rule (hs): I_N -
	 * I_shifted of each part, signed, and what it does not see (fl), for
	 * the fit's propagated error (fit_in's sd and fl) */
	double sd[2], fl[2];
	int hs;
	nb_dd last[2][2]; /* with eps: the last two extrapolants at N */
	int ok;           /* e within CONVERGED of |v| */
	double kappa;     /* the deformed contour's scale, as used */
	double dimax;     /* and its largest Im D on the nodes */
} value;

/* The deformed contour is valid where Im D <= 0 on it; where the nodes
 * show Im D > 0, kappa is halved, at most this many times. */
#define KAPPA_HALVINGS 7

/* The rounding of I_N in dd, for quad_error's floor: the kernel's sum over
 * N z nodes and the host's outer sum (N/8 + log2(8N) units, "The rule"),
 * each about its length in units of 2^-104 of the magnitude, doubled;
 * 2.5e-29 of |I| at N = 256, where the independent qd_real sums agree to
 * 8e-31 (tests/sh/oneloop_ref.sh). */
static double rounding(const run *r, double mag)
{
	if (r->a->dbl && r->a->deform)
		return DBL_CONTOUR * mag;
	return 2 * (double)r->a->n * 0x1p-104 * mag;
}

/* |a - b| of values of np parts (real, or real and imaginary): the
 * modulus of the complex difference */
static double dist(int dbl, const nb_dd *a, const nb_dd *b, int np)
{
	double d = 0;
	for (int w = 0; w < np; w++)
		d = hypot(d, num_sub(dbl, a[w], b[w]).hi);
	return d;
}

/* I_N's error estimate from its values of np parts at N, N/2 and, where
 * the rule ran there (vq), N/4 and N/8 (quad_error; one estimate for
 * both parts, of the complex value: a part's difference may be small by
 * chance where the other's is not), else |I_N - I_N/2| of each part. */
static void rule_error(const run *r, const nb_dd *vn, const nb_dd *vh,
                       nb_dd (*vq)[3], const nb_dd *vs, int np, double *e,
                       double *sd, double *fl)
{
	int dbl = r->a->dbl;
	double mag = 0;
	for (int w = 0; w < np; w++)
		mag = hypot(mag, vn[w].hi);
	/* the deformed contour's rule stops at T = 3, where the left-out
	 * ends (2.1e-14 of each axis) cost up to 6 times that of |I| as
	 * measured (s = 8, lambda = 0.5): a floor at every N, unseen by the
	 * differences; 36 times it is taken (docs/oneloop.md) */
	double trunc = r->a->deform ? 36 * quad_tail(QUAD_T_DEFORM) * mag : 0;
	for (int w = 0; w < np; w++)
		e[w] = fmax(fabs(num_sub(dbl, vn[w], vh[w]).hi), trunc);
	if (vs) {
		/* the shifted rule's leading error is the N rule's with the
		 * opposite sign, so their difference is twice it: taken
		 * whole, a margin of 2.  Two coarse rules can agree by chance
		 * (N = 32, s = 3, lambda = 0.1: 0.046 apart, N/2 0.38 off), so
		 * never below what exp(-c N) leaves after N/2's error dn,
		 * dn^2 / |I| (the rule's amplitude taken as |I|) */
		double dn = dist(dbl, vn, vh, np), g = dn * dn / mag,
		       f = fmax(rounding(r, mag), trunc), ds = dist(dbl, vn, vs, np),
		       d = fmax(ds, fmax(g, f));
		/* for the fit (fit_in's sd): the signed difference of each part,
		 * and beside it what that cannot see: the floors, and the guard's
		 * excess where the rules agree closer than it (by chance) */
		for (int w = 0; w < np; w++) {
			e[w] = d;
			sd[w] = num_sub(dbl, vn[w], vs[w]).hi;
			fl[w] = f + fmax(0, g - ds);
		}
		return;
	}
	if (!vq)
		return;
	double c = quad_error_pow(dist(dbl, vn, vh, np),
	                          dist(dbl, vh, vq[0], np),
	                          dist(dbl, vq[0], vq[1], np),
	                          fmax(rounding(r, mag), trunc),
	                          r->a->deform ? 1.5 : 1);
	for (int w = 0; w < np; w++)
		e[w] = c;
}

/* The values at N/4 and N/8 into vq: nonzero where the evaluation
 * failed; *valid where the deformed contour, if any, stays off D's zeros
 * on their nodes too. */
static int coarse(run *r, nb_dd lambda, nb_dd k, nb_dd (*vq)[3], int *valid)
{
	*valid = 1;
	for (int c = 0; c < 2; c++) {
		double t;
		if (evaluate(r, &r->q[c], lambda, k, vq[c], &t))
			return 1;
		r->t_half += t;
		*valid &= !r->a->deform || vq[c][2].hi <= 0;
	}
	return 0;
}

/* The eps table of one lambda: for each eps_k the values at N and N/2,
 * real and imaginary, and the extrapolants at N: 7 columns of ecount. */
enum { T_EPS, T_RE, T_REH, T_IM, T_IMH, T_XRE, T_XIM, T_XREH, T_XIMH,
       T_COLS };

static int integral(run *r, nb_dd lambda, value *o, nb_dd *tab)
{
	const args *a = r->a;
	int dbl = a->dbl;
	double th, tn;
	memset(o, 0, sizeof *o);
	o->ok = 1;
	if (a->deform) {
		/* --kappa's, or 1 and half that, whichever has the smaller
		 * error estimate: kappa is the largest move of a logarithmic
		 * variable, so it needs no scale of s or lambda (docs) */
		double kap = r->p.kappa > 0 ? r->p.kappa : 1;
		int rungs = r->p.kappa > 0 ? 1 : 2, valid = 0;
		for (int tries = 0; tries <= KAPPA_HALVINGS && rungs; tries++,
		     kap /= 2) {
			nb_dd vh[3], vn[3], k = nb_dd_from(kap);
			if (evaluate(r, &r->h, lambda, k, vh, &th))
				return 1;
			r->t_half += th;
			/* a contour that crosses at N/2 is invalid whatever N
			 * gives: N (8 times the work) only for the last kappa's
			 * values where none has been valid, which a scan reports */
			if (vh[2].hi > 0 && (valid || tries < KAPPA_HALVINGS))
				continue;
			if (evaluate(r, &r->g, lambda, k, vn, &tn))
				return 1;
			r->t_kern += tn;
			double dimax = fmax(vh[2].hi, vn[2].hi), e[2], sd[2] = {0, 0},
			       fl[2] = {0, 0};
			int ok = dimax <= 0;
			/* the shifted N only for a valid contour's estimate, and
			 * used only where it is valid on its nodes as well */
			nb_dd vs[3];
			int haves = ok && shifted(a);
			if (haves) {
				double ts;
				if (evaluate(r, &r->s, lambda, k, vs, &ts))
					return 1;
				r->t_half += ts;
				haves = vs[2].hi <= 0;
			}
			rule_error(r, vn, vh, NULL, haves ? vs : NULL, 2, e, sd, fl);
			if (ok)
				rungs--;
			/* a valid contour's values, the better of two, or the last
			 * crossing one's where none is valid */
			if ((ok && (!valid || fmax(e[0], e[1]) < fmax(o->e[0], o->e[1]))) ||
			    (!ok && !valid)) {
				o->kappa = kap;
				o->dimax = dimax;
				o->hs = haves;
				for (int w = 0; w < 2; w++) {
					o->v[w] = o->last[w][1] = vn[w];
					o->h[w] = o->last[w][0] = vh[w];
					o->e[w] = e[w];
					o->sd[w] = sd[w];
					o->fl[w] = fl[w];
				}
			}
			valid |= ok;
		}
		double mag = hypot(o->v[0].hi, o->v[1].hi);
		o->ok = o->dimax <= 0 && fmax(o->e[0], o->e[1]) <= CONVERGED * mag;
		return 0;
	}
	if (!a->ieps) {
		nb_dd zero = nb_dd_from(0), vq[2][3];
		if (evaluate(r, &r->h, lambda, zero, o->h, &th) ||
		    evaluate(r, &r->g, lambda, zero, o->v, &tn))
			return 1;
		r->t_kern += tn;
		r->t_half += th;
		int haveq = quarter(a);
		if (haveq && coarse(r, lambda, zero, vq, &haveq))
			return 1;
		rule_error(r, o->v, o->h, haveq ? vq : NULL, NULL, 1, o->e, NULL,
		           NULL);
		return 0;
	}
	int m = (int)a->ecount;
	nb_dd *t = tab ? tab : calloc((size_t)m * T_COLS, sizeof *t);
	if (!t)
		return prog_fail("out of memory");
#define COL(c) (t + (size_t)(c) * (size_t)m)
	nb_dd e = r->p.e0;
	int rc = 0;
	for (int k = 0; k < m && !rc; k++) {
		nb_dd vh[2], vn[2];
		rc = evaluate(r, &r->h, lambda, e, vh, &th) ||
		     evaluate(r, &r->g, lambda, e, vn, &tn);
		r->t_kern += tn;
		r->t_half += th;
		COL(T_EPS)[k] = e;
		COL(T_RE)[k] = vn[0];
		COL(T_REH)[k] = vh[0];
		COL(T_IM)[k] = vn[1];
		COL(T_IMH)[k] = vh[1];
		e = num_mul(dbl, e, r->p.eratio);
	}
	if (!rc) {
		wynn(dbl, COL(T_RE), m, COL(T_XRE));
		wynn(dbl, COL(T_IM), m, COL(T_XIM));
		wynn(dbl, COL(T_REH), m, COL(T_XREH));
		wynn(dbl, COL(T_IMH), m, COL(T_XIMH));
		for (int part = 0; part < 2; part++) {
			const nb_dd *x = COL(part ? T_XIM : T_XRE),
			            *xh = COL(part ? T_XIMH : T_XREH);
			o->v[part] = x[m - 1];
			o->h[part] = xh[m - 1];
			o->last[part][0] = x[m - 2];
			o->last[part][1] = x[m - 1];
			o->e[part] = fabs(num_sub(dbl, x[m - 1], xh[m - 1]).hi) +
			             fabs(num_sub(dbl, x[m - 1], x[m - 2]).hi) +
			             fabs(num_sub(dbl, x[m - 2], x[m - 3]).hi);
		}
		double mag = hypot(o->v[0].hi, o->v[1].hi);
		o->ok = fmax(o->e[0], o->e[1]) <= CONVERGED * mag;
	}
#undef COL
	if (!tab)
		free(t);
	return rc;
}

/* The failure of a value that did not converge: its last extrapolants. */
static int no_convergence(const run *r, const char *what, nb_dd lambda,
                          const value *o)
{
	int dbl = r->a->dbl;
	char l[64], a[4][700];
	for (int k = 0; k < 4; k++)
		full(a[k], sizeof a[k], dbl, o->last[k / 2][k % 2]);
	if (r->a->deform && o->dimax > 0)
		return prog_fail("%sthe deformed contour at lambda = %s crosses a "
		                 "zero of D even at kappa = %.3g (Im D reaches %.2g "
		                 "on the nodes): a smaller --kappa may help "
		                 "(docs/oneloop.md)", what,
		                 param(l, sizeof l, dbl, lambda), o->kappa, o->dimax);
	if (r->a->deform)
		return prog_fail("%sthe deformed contour at lambda = %s does not "
		                 "converge in N: I_N/2 = %s + %s i, I_N = %s + %s i, "
		                 "differences %.2g and %.2g, error estimate %.2g, "
		                 "above %g of |I|; a larger N, or another --kappa, "
		                 "may help (docs/oneloop.md)", what,
		                 param(l, sizeof l, dbl, lambda), a[0], a[2], a[1],
		                 a[3], fabs(num_sub(dbl, o->last[0][1],
		                                    o->last[0][0]).hi),
		                 fabs(num_sub(dbl, o->last[1][1], o->last[1][0]).hi),
		                 fmax(o->e[0], o->e[1]), CONVERGED);
	return prog_fail("%sthe extrapolation eps -> 0 at lambda = %s does not "
	                 "converge: its last two extrapolants are %s and %s "
	                 "(real part), %s and %s (imaginary part), error "
	                 "estimates %.2g and %.2g, above %g of |I|; eps well "
	                 "below the distance of D's critical values from 0, and "
	                 "an N that resolves the smallest eps, may help "
	                 "(docs/oneloop.md)", what, param(l, sizeof l, dbl, lambda),
	                 a[0], a[1], a[2], a[3], o->e[0], o->e[1], CONVERGED);
}

static void print_eps_table(const run *r, const nb_dd *t)
{
	int dbl = r->a->dbl, m = (int)r->a->ecount;
	char b1[700], b2[700];
#define COL(c) (t + (size_t)(c) * (size_t)m)
	printf("eps_k = %s * %s^k, k = 0..%d, each at N and N/2; the "
	       "extrapolants eps -> 0 (Wynn) of the values at N 0..k\n\n",
	       param(b1, sizeof b1, dbl, r->p.e0),
	       param(b2, sizeof b2, dbl, r->p.eratio), m - 1);
	printf(" k  %-10s %-22s %-9s %-22s %-9s %-22s %s\n", "eps_k", "Re I_k",
	       "error", "Im I_k", "error", "extrapolant Re", "extrapolant Im");
	for (int k = 0; k < m; k++) {
		double er = fabs(num_sub(dbl, COL(T_RE)[k], COL(T_REH)[k]).hi),
		       ei = fabs(num_sub(dbl, COL(T_IM)[k], COL(T_IMH)[k]).hi);
		/* an extrapolant's error: its change from the one before */
		double xr = k ? fabs(num_sub(dbl, COL(T_XRE)[k],
		                             COL(T_XRE)[k - 1]).hi) : er,
		       xi = k ? fabs(num_sub(dbl, COL(T_XIM)[k],
		                             COL(T_XIM)[k - 1]).hi) : ei;
		char c[4][700];
		printf("%2d  %-10.4g %-22s %-9.2e %-22s %-9.2e %-22s %s\n", k,
		       COL(T_EPS)[k].hi, shown(c[0], 700, r, COL(T_RE)[k], er), er,
		       shown(c[1], 700, r, COL(T_IM)[k], ei), ei,
		       shown(c[2], 700, r, COL(T_XRE)[k], xr),
		       shown(c[3], 700, r, COL(T_XIM)[k], xi));
	}
	puts("error: |I_N - I_N/2|; an extrapolant is shown to the digits its "
	     "change from the one before supports\n");
#undef COL
}

/* How a value's error was estimated, with |I_N - I_N/2| beside it. */
static const char *how_estimated(char *buf, size_t len, const run *r,
                                 const value *o)
{
	long n = r->a->n;
	int np = 1 + CPLX(r->a);
	double d = dist(r->a->dbl, o->v, o->h, np);
	if (quarter(r->a))
		snprintf(buf, len, "from I at N, N/2 = %ld, N/4 and N/8; "
		         "|I_N - I_N/2| = %.3g", n / 2, d);
	else if (shifted(r->a))
		snprintf(buf, len, "from I on the N rule and on it shifted by "
		         "half a step; |I_N - I_N/2| = %.3g", d);
	else
		snprintf(buf, len, "|I_N - I_N/2|, N/2 = %ld", n / 2);
	return buf;
}

static int one_lambda(run *r)
{
	const args *a = r->a;
	int dbl = a->dbl;
	value o;
	nb_dd *tab = NULL;
	if (a->ieps && !(tab = calloc((size_t)a->ecount * T_COLS, sizeof *tab)))
		return prog_fail("out of memory");
	if (integral(r, r->p.l0, &o, tab)) {
		free(tab);
		return 1;
	}
	double total = prog_now() - now0;
	char b1[700], b2[700], b3[64];
	if (!o.ok) {
		free(tab);
		return no_convergence(r, "", r->p.l0, &o);
	}
	if (a->csv) {
		char b4[64], b5[64], b6[64], b7[64];
		printf("n,lambda,s,t,me,mf,precision,I,I_half,error,kernel_s,"
		       "kernel_half_s,total_s,rate,target,device%s\n", a->ieps ?
		       ",I_im,I_im_half,I_im_error,E0,eps_ratio,eps_count" :
		       a->deform ? ",I_im,I_im_half,I_im_error,kappa,dimax" : "");
		printf("%ld,%s,%s,%s,%s,%s,%s,%s,%s,%.3g,%.6g,%.6g,%.6g,%.6g,%s,",
		       a->n, param(b3, sizeof b3, dbl, r->p.l0),
		       param(b4, sizeof b4, dbl, r->p.s),
		       param(b5, sizeof b5, dbl, r->p.t),
		       param(b6, sizeof b6, dbl, r->p.me),
		       param(b7, sizeof b7, dbl, r->p.mf), dbl ? "double" : "dd",
		       full(b1, sizeof b1, dbl, o.v[0]), full(b2, sizeof b2, dbl,
		       o.h[0]), o.e[0], r->t_kern, r->t_half, total,
		       rate(r, r->t_kern), nbrt_target(r->rt));
		csv_print_text(stdout, nbrt_device_name(r->rt));
		if (a->ieps) {
			printf(",%s,", full(b1, sizeof b1, dbl, o.v[1]));
			printf("%s,%.3g,", full(b1, sizeof b1, dbl, o.h[1]), o.e[1]);
			printf("%s,", param(b3, sizeof b3, dbl, r->p.e0));
			printf("%s,%ld", param(b3, sizeof b3, dbl, r->p.eratio),
			       a->ecount);
		} else if (a->deform) {
			printf(",%s,", full(b1, sizeof b1, dbl, o.v[1]));
			printf("%s,%.3g,", full(b1, sizeof b1, dbl, o.h[1]), o.e[1]);
			printf("%.6g,%.3g", o.kappa, o.dimax);
		}
		putchar('\n');
		free(tab);
		return 0;
	}
	char what[96];
	snprintf(what, sizeof what, "lambda = %s",
	         param(b3, sizeof b3, dbl, r->p.l0));
	header(r, what);
	if (a->ieps) {
		putchar('\n');
		print_eps_table(r, tab);
		printf("Re I = %s\n", shown(b1, sizeof b1, r, o.v[0], o.e[0]));
		printf("error estimate of Re I: %.3g (|extrapolant at N - at N/2| "
		       "+ the differences of the last three extrapolants)\n",
		       o.e[0]);
		printf("Im I = %s\n", shown(b1, sizeof b1, r, o.v[1], o.e[1]));
		printf("error estimate of Im I: %.3g\n", o.e[1]);
	} else if (a->deform) {
		printf("Re I = %s\n", shown(b1, sizeof b1, r, o.v[0], o.e[0]));
		printf("error estimate of Re I: %.3g (%s)\n", o.e[0],
		       how_estimated(b2, sizeof b2, r, &o));
		printf("Im I = %s\n", shown(b1, sizeof b1, r, o.v[1], o.e[1]));
		printf("error estimate of Im I: %.3g\n", o.e[1]);
		printf("contour: deformed with kappa = %.6g (largest Im D on the "
		       "nodes %.2g, below 0)\n", o.kappa, o.dimax);
	} else {
		printf("I = %s\n", shown(b1, sizeof b1, r, o.v[0], o.e[0]));
		printf("error estimate: %.3g (%s)\n", o.e[0],
		       how_estimated(b2, sizeof b2, r, &o));
	}
	timing_lines(r, total);
	free(tab);
	return 0;
}

/* The extrapolation lambda -> 0 of one part (real or imaginary) of the
 * values: the fit of fit.c, and its model's residuals. */
typedef struct part {
	fit_out a, b;
	int ok;
} part;

/* A table of the lambdas, each value, and the fits of both parts. */
typedef struct series {
	int m;
	nb_dd *lam, *ln;
	value *v;
	part p[2];
	int bad;      /* the first lambda whose eps extrapolation failed, or -1 */
	double a_cf;  /* on the deformed contour: A's closed form, where the
	               * fit's A is farther from it than its estimate; else 0 */
} series;

/* The leading logarithm's coefficient in closed form (docs/oneloop.md,
 * "The leading logarithm"): A = (2/s) J, J = ln((c + r)/(c - r)) / r,
 * c = me^2 + mf^2 - t, r = sqrt(c^2 - 4 me^2 mf^2); J = 2/c where r = 0.
 * In the run's precision: (c + r)/(c - r) = (c + r)^2 / (4 me^2 mf^2)
 * keeps c - r's digits, and for r/c < 1/4 the series of the logarithm,
 * 2 atanh(x) = 2 sum x^(2k+1)/(2k+1), goes smoothly to r = 0. */
static nb_dd closed_a(int dbl, const params *p)
{
	nb_dd e2 = num_mul(dbl, p->me, p->me), f2 = num_mul(dbl, p->mf, p->mf);
	nb_dd c = num_sub(dbl, num_add(dbl, e2, f2), p->t),
	      ef4 = num_mul(dbl, nb_dd_from(4), num_mul(dbl, e2, f2));
	nb_dd r2 = num_sub(dbl, num_mul(dbl, c, c), ef4), j;
	nb_dd r = r2.hi > 0 ? (dbl ? nb_dd_from(sqrt(r2.hi)) : nb_dd_sqrt(r2))
	                    : nb_dd_from(0);
	if (r.hi < c.hi / 4) {
		/* J = (2/c) sum x^2k / (2k+1), x = r/c: 40 terms leave 4^-80 */
		nb_dd x = num_div(dbl, r, c), x2 = num_mul(dbl, x, x),
		      xp = nb_dd_from(1), sum = nb_dd_from(0);
		for (int k = 0; k < 40; k++) {
			sum = num_add(dbl, sum, num_div(dbl, xp, nb_dd_from(2 * k + 1)));
			xp = num_mul(dbl, xp, x2);
		}
		j = num_div(dbl, num_mul(dbl, nb_dd_from(2), sum), c);
	} else {
		nb_dd cr = num_add(dbl, c, r);
		j = num_div(dbl, num_log(dbl, num_div(dbl, num_mul(dbl, cr, cr),
		                                      ef4)), r);
	}
	return num_div(dbl, num_mul(dbl, nb_dd_from(2), j), p->s);
}

/* In the physical region (s > 0, the deformed contour) the model is that
 * of docs/oneloop.md, "The physical region's model": A given by its closed
 * form (real: the imaginary part's A is 0), the real part's powers
 * lambda^p with logarithms at even p only, the imaginary part's even
 * powers alone.  Elsewhere A is fitted with pairs at every power. */
static int physical_model(const run *r)
{
	return r->a->deform && r->p.s.hi > 0;
}

static int fit_part(const run *r, series *x, int which)
{
	int dbl = r->a->dbl;
	nb_dd *val = calloc((size_t)x->m, sizeof *val);
	double *err = calloc((size_t)x->m * 3, sizeof *err), *sd, *fl;
	int rc = !val || !err, hs = 1;
	if (!rc) {
		sd = err + x->m;
		fl = sd + x->m;
		for (int k = 0; k < x->m; k++) {
			val[k] = x->v[k].v[which];
			err[k] = x->v[k].e[which];
			sd[k] = x->v[k].sd[which];
			fl[k] = x->v[k].fl[which];
			hs &= x->v[k].hs;
		}
		fit_in in = {x->m, dbl, x->lam, val, err, FIT_PAIRS, 0,
		             nb_dd_from(0), 0, hs ? sd : NULL, fl};
		if (physical_model(r)) {
			in.basis = which ? FIT_EVEN : FIT_ODD;
			in.known_a = 1;
			in.a = which ? nb_dd_from(0) : closed_a(dbl, &r->p);
			/* the closed form's rounding, a few units of the last place */
			in.a_err = 8 * fabs(in.a.hi) * (dbl ? 0x1p-52 : 0x1p-104);
		}
		part *p = &x->p[which];
		int got = fit_best(&in, &p->a, &p->b);
		p->ok = got == 0;
		rc |= got < 0;
	}
	free(val);
	free(err);
	return rc ? prog_fail("out of memory") : 0;
}

/* I_k - (A ln lambda_k + B) */
static nb_dd residual(int dbl, const series *x, int which, int k)
{
	const part *p = &x->p[which];
	return num_sub(dbl, x->v[k].v[which],
	               num_add(dbl, num_mul(dbl, p->a.a, x->ln[k]), p->b.b));
}

/* The residual is known no better than I_k and the fit's A and B: its
 * digits are those that their errors together support. */
static double residual_err(const series *x, int which, int k)
{
	const part *p = &x->p[which];
	return x->v[k].e[which] + fabs(x->ln[k].hi) * p->a.ea + p->b.eb;
}

static void print_series(const run *r, const series *x, double total)
{
	const args *a = r->a;
	int dbl = a->dbl, m = x->m, parts = 1 + CPLX(a);
	char b1[700], b2[700], b3[64], b4[64];
	const char *pname[2] = {"", " (imaginary part)"};
	if (a->csv) {
		puts("k,lambda,I,I_half,error,I_im,I_im_half,I_im_error,residual,"
		     "residual_im");
		for (int k = 0; k < m; k++) {
			const value *v = &x->v[k];
			printf("%d,%s,", k, param(b3, sizeof b3, dbl, x->lam[k]));
			for (int w = 0; w < 2; w++) {
				printf("%s,", full(b1, sizeof b1, dbl, v->v[w]));
				printf("%s,%.3g,", full(b1, sizeof b1, dbl, v->h[w]),
				       v->e[w]);
			}
			printf("%.3g,%.3g\n", residual(dbl, x, 0, k).hi,
			       CPLX(a) ? residual(dbl, x, 1, k).hi : 0.0);
		}
		puts("");
		puts("n,s,t,me,mf,L0,ratio,count,precision,A,A_error,B,B_error,"
		     "A_im,A_im_error,B_im,B_im_error,E0,eps_ratio,eps_count,"
		     "kernel_s,kernel_half_s,total_s,rate,target,device");
		printf("%ld,%s,", a->n, param(b3, sizeof b3, dbl, r->p.s));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.t));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.me));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.mf));
		printf("%s,", param(b3, sizeof b3, dbl, r->p.l0));
		printf("%s,%ld,%s,", param(b3, sizeof b3, dbl, r->p.ratio),
		       a->count, dbl ? "double" : "dd");
		for (int w = 0; w < 2; w++) {
			if (w < parts) {
				const part *p = &x->p[w];
				printf("%s,%.3g,", full(b1, sizeof b1, dbl, p->a.a), p->a.ea);
				printf("%s,%.3g,", full(b2, sizeof b2, dbl, p->b.b), p->b.eb);
			} else {
				fputs("0,0,0,0,", stdout);
			}
		}
		if (a->ieps) {
			printf("%s,", param(b3, sizeof b3, dbl, r->p.e0));
			printf("%s,%ld,", param(b3, sizeof b3, dbl, r->p.eratio),
			       a->ecount);
		} else {
			fputs(",,,", stdout);
		}
		printf("%.6g,%.6g,%.6g,%.6g,%s,", r->t_kern, r->t_half, total,
		       rate(r, r->t_kern), nbrt_target(r->rt));
		csv_print_text(stdout, nbrt_device_name(r->rt));
		putchar('\n');
		return;
	}
	header(r, "extrapolation lambda -> 0");
	printf("lambda_k = %s * %s^k, k = 0..%d; model I(lambda) = A ln(lambda) "
	       "+ B + %s\n", param(b3, sizeof b3, dbl, r->p.l0),
	       param(b4, sizeof b4, dbl, r->p.ratio), m - 1,
	       physical_model(r) ? "sum_p c_p lambda^p + sum_(p even) d_p "
	       "lambda^p ln lambda (Re),\nsum_p c_p lambda^2p (Im), A the "
	       "leading logarithm's closed form"
	       : "sum_p lambda^p (c_p + d_p ln lambda)");
	if (a->ieps)
		printf("each I_k extrapolated eps -> 0 over eps_j = %s * %s^j, "
		       "j = 0..%ld (Wynn)\n", param(b3, sizeof b3, dbl, r->p.e0),
		       param(b4, sizeof b4, dbl, r->p.eratio), a->ecount - 1);
	if (a->deform)
		printf("each I_k on the deformed contour, kappa = %.6g at "
		       "lambda_0, %.6g at lambda_%d\n", x->v[0].kappa,
		       x->v[m - 1].kappa, m - 1);
	putchar('\n');
	for (int w = 0; w < parts; w++) {
		int wide = dbl ? 24 : 36;
		printf(" k  %-13s %-*s %-10s %s\n", "lambda_k", wide,
		       w ? "Im I_k" : CPLX(a) ? "Re I_k" : "I_k", "error",
		       "residual");
		for (int k = 0; k < m; k++)
			printf("%2d  %-13.6g %-*s %-10.2e %s\n", k, x->lam[k].hi,
			       wide, shown(b1, sizeof b1, r, x->v[k].v[w],
			                   x->v[k].e[w]),
			       x->v[k].e[w], shown(b2, sizeof b2, r,
			                           residual(dbl, x, w, k),
			                           residual_err(x, w, k)));
		putchar('\n');
	}
	printf("error: %s; residual: I_k - (A ln lambda_k + B), A and B the "
	       "values below\n", a->ieps ? "the eps extrapolation's estimate"
	       : quarter(a) ? "the estimate from I_k at N, N/2, N/4 and N/8"
	       : shifted(a) ? "the estimate from I_k on the N rule and on it shifted"
	                    : "|I_N - I_N/2|");
	printf("A and B: the exact fit of the model with powers up to P to as "
	       "many consecutive lambdas\nas it has unknowns, the fit of least "
	       "error estimate (the change from the window\none lambda larger, "
	       "plus the values' errors carried through the fit)\n\n");
	for (int w = 0; w < parts; w++) {
		const part *p = &x->p[w];
		printf("A%s = %s\n", pname[w], shown(b1, sizeof b1, r, p->a.a,
		                                     p->a.ea));
		if (physical_model(r))
			printf("error estimate of A%s: %.3g (the closed form's "
			       "rounding: A is given)\n", pname[w], p->a.ea);
		else
			printf("error estimate of A%s: %.3g (P = %d, lambda_%d .. "
			       "lambda_%d; the values' errors give %.2g)\n",
			       pname[w], p->a.ea, p->a.p, p->a.j,
			       p->a.j + p->a.q - 1, p->a.pa);
		printf("B%s = %s\n", pname[w], shown(b2, sizeof b2, r, p->b.b,
		                                     p->b.eb));
		printf("error estimate of B%s: %.3g (P = %d, lambda_%d .. "
		       "lambda_%d; the values' errors give %.2g)\n", pname[w],
		       p->b.eb, p->b.p, p->b.j, p->b.j + p->b.q - 1, p->b.pb);
	}
	timing_lines(r, total);
}

/* The extrapolation of the values at lambda_0 .. lambda_(m-1) into x,
 * which the caller frees (series_free); x->bad tells of a value that did
 * not converge (the rest then not evaluated), the parts' ok of a fit. */
static int series_run(run *r, series *x)
{
	int dbl = r->a->dbl, m = (int)r->a->count;
	memset(x, 0, sizeof *x);
	x->m = m;
	x->lam = calloc((size_t)m * 2, sizeof *x->lam);
	x->v = calloc((size_t)m, sizeof *x->v);
	if (!x->lam || !x->v)
		return prog_fail("out of memory");
	x->ln = x->lam + m;
	x->bad = -1;
	nb_dd lam = r->p.l0;
	for (int k = 0; k < m; k++) {
		x->lam[k] = lam;
		x->ln[k] = num_log(dbl, lam);
		if (integral(r, lam, &x->v[k], NULL))
			return 1;
		if (!x->v[k].ok) {
			x->bad = k;
			return 0;
		}
		lam = num_mul(dbl, lam, r->p.ratio);
	}
	int np = 1 + CPLX(r->a);
	for (int w = 0; w < np; w++)
		if (fit_part(r, x, w))
			return 1;
	/* relative to |A|, the complex modulus where there are two parts:
	 * the leading logarithm's A is real (docs/oneloop.md), so the
	 * imaginary part's A is 0 and cannot be its own scale */
	double scale = hypot(x->p[0].a.a.hi, np > 1 ? x->p[1].a.a.hi : 0);
	for (int w = 0; w < np; w++) {
		part *p = &x->p[w];
		p->ok = p->ok && p->a.ea <= CONVERGED * scale &&
		        p->b.eb <= CONVERGED * scale;
	}
	/* On the deformed contour with A fitted (s <= 0 there) the fit's
	 * estimate has been seen to fall short in the physical region (N =
	 * 256, s = 2, t = 0, before its model: A 1.4e-3 off the closed form
	 * beside an estimate of 1.1e-4), so the real part's A is held to the
	 * closed form: farther than its estimate, neither part is a value.
	 * For s > 0 A is the closed form itself (physical_model). */
	if (r->a->deform && !physical_model(r) && x->p[0].ok) {
		double cf = closed_a(dbl, &r->p).hi;
		if (!(fabs(x->p[0].a.a.hi - cf) <= x->p[0].a.ea)) {
			x->a_cf = cf;
			x->p[0].ok = x->p[1].ok = 0;
		}
	}
	return 0;
}

static void series_free(series *x)
{
	free(x->lam);
	free(x->v);
}

/* The failure of a fit whose error estimate is too large. */
static int fit_failed(const run *r, const char *where, const series *x)
{
	int dbl = r->a->dbl;
	if (x->a_cf != 0) {
		char a[700];
		return prog_fail("%sthe extrapolation lambda -> 0 gives A = %s "
		                 "(error estimate %.2g), %.2g from the leading "
		                 "logarithm's closed form %.17g: the fit's estimates "
		                 "do not hold, for A or B; a larger N, or smaller "
		                 "lambdas, may help (docs/oneloop.md)", where,
		                 full(a, sizeof a, dbl, x->p[0].a.a), x->p[0].a.ea,
		                 fabs(x->p[0].a.a.hi - x->a_cf), x->a_cf);
	}
	for (int w = 0; w < 1 + CPLX(r->a); w++) {
		const part *p = &x->p[w];
		if (p->ok)
			continue;
		char a[700], b[700];
		return prog_fail("%sthe extrapolation lambda -> 0%s does not "
		                 "converge: its best fits give A = %s (error "
		                 "estimate %.2g) and B = %s (%.2g), above %g of |A|%s; "
		                 "more lambdas, smaller ones (with a larger N) or a "
		                 "smaller RATIO may help (docs/oneloop.md)", where,
		                 w ? " of the imaginary part" : "",
		                 full(a, sizeof a, dbl, p->a.a), p->a.ea,
		                 full(b, sizeof b, dbl, p->b.b), p->b.eb, CONVERGED,
		                 CPLX(r->a) ? " (A complex)" : "");
	}
	return 0;
}

static int extrapolate(run *r)
{
	series x;
	int rc = series_run(r, &x);
	if (!rc && x.bad >= 0)
		rc = no_convergence(r, "", x.lam[x.bad], &x.v[x.bad]);
	rc = rc || fit_failed(r, "", &x);
	if (!rc)
		print_series(r, &x, prog_now() - now0);
	series_free(&x);
	return rc;
}

/* --- --scan FILE -------------------------------------------------------- */

/* One row of a scan: its parameters, their texts and the file's line. */
typedef struct scanrow {
	params p;
	const char *text[5]; /* s t me mf lambda, pointing into the file */
	long line;
} scanrow;

static const char *const scan_col[5] = {"s", "t", "me", "mf", "lambda"};

/* FILE's text: read by rank 0, sent to every rank. */
static char *scan_text(const char *path)
{
	char err[512], *t = NULL;
	size_t n = 0;
	int rc = 0;
	if (!par_rank() && !(t = nb_read_file(path, &n, err, sizeof err)))
		rc = prog_fail("--scan: %s", err);
	/* the rows are read as C strings: a NUL ended the text there, and
	 * every row after it was left out with no word */
	const char *z = t ? memchr(t, 0, n) : NULL;
	if (z) {
		long line = 1;
		for (const char *p = t; p < z; p++)
			line += *p == '\n';
		rc = prog_fail("--scan %s, line %ld: a NUL byte; the file must be "
		               "text", nb_esc(path), line);
		free(t);
		t = NULL;
	}
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
 * each column once (lambda only without --extrapolate), then a row of
 * decimals a line; blank lines and lines that start with '#' are skipped.
 * A row with s > 0 makes the whole scan use eps.  Returns the count, or
 * -1. */
static long scan_rows(args *a, const params *base, char *text, scanrow **out)
{
	const char *path = nb_esc(a->scan);
	/* with --extrapolate the lambdas are --lambdas', for every row */
	int ncols = a->extrapolate ? 4 : 5;
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
				while (c < ncols && strcmp(f[k], scan_col[c]))
					c++;
				if (c == ncols || col[c] >= 0 || n > ncols)
					goto bad_header;
				col[c] = k;
			}
			for (int c = 0; c < ncols; c++)
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
		r->p = *base;
		nb_dd *v[5] = {&r->p.s, &r->p.t, &r->p.me, &r->p.mf, &r->p.l0};
		for (int c = 0; c < ncols; c++) {
			char what[700];
			snprintf(what, sizeof what, "%s%s", where, scan_col[c]);
			r->text[c] = f[col[c]];
			if (get_num(what, r->text[c], a->dbl, v[c]))
				goto bad;
		}
		if (!a->extrapolate)
			r->p.l0_text = r->text[4];
		if (check_point(where, &r->p, r->text))
			goto bad;
		if (!(r->p.l0.hi > 0)) {
			prog_fail("%slambda = %s is not positive: lambda must be > 0",
			          where, nb_esc(r->text[4]));
			goto bad;
		}
	}
	if (!ncol) {
		prog_fail("--scan %s has no header line (%s)", path, a->extrapolate
		          ? "s,t,me,mf" : "s,t,me,mf,lambda");
		goto bad;
	}
	/* one kernel for the whole scan: with eps where given (a->ieps
	 * already), else the deformed contour if any row needs it */
	for (long k = 0; k < nrow && !a->eps; k++)
		a->deform |= row[k].p.s.hi > 0;
	for (long k = 0; k < nrow; k++) {
		scanrow *r = &row[k];
		snprintf(where, sizeof where, "--scan %s, line %ld: ", path, r->line);
		double last = r->p.l0.hi * pow(r->p.ratio.hi, (double)(a->count - 1));
		double elast = a->ieps ? r->p.e0.hi * pow(r->p.eratio.hi,
		                                          (double)(a->ecount - 1))
		                       : 0;
		if ((r->p.s.hi > 0 && check_threshold(where, a->dbl, &r->p,
		                                      r->text[0], a->count)) ||
		    (r->p.s.hi > 0 && a->deform && a->extrapolate &&
		     check_below(where, a->dbl, &r->p, r->text[0])) ||
		    check_tail(where, &r->p, last, elast))
			goto bad;
	}
	*out = row;
	return nrow;
bad_header:
	prog_fail("%sthe header must name the columns s, t, me, mf%s, each "
	          "once, and no other", where, a->extrapolate ? " (the lambdas "
	          "are --lambdas')" : " and lambda");
bad:
	free(row);
	return -1;
}

/* What a row's evaluation gives rank 0: the values (I, I_half, I_im,
 * I_im_half; or A, B, A_im, B_im), their errors, and how it ended: 0
 * converged, 1 the eps extrapolation not (v then the real and imaginary
 * parts' last two extrapolants), 2 the fit not (v A, B, A_im, B_im). */
typedef struct scanres {
	double v[4][2], e[4], tn, th;
	int status;
} scanres;

static void keep(scanres *s, int k, nb_dd x)
{
	s->v[k][0] = x.hi;
	s->v[k][1] = x.lo;
}

static int scan_one(run *r, scanres *o)
{
	const args *a = r->a;
	double k0 = r->t_kern, h0 = r->t_half;
	int rc = 0;
	if (!a->extrapolate) {
		value v;
		rc = integral(r, r->p.l0, &v, NULL);
		for (int w = 0; w < 2; w++) {
			keep(o, 2 * w, v.ok ? v.v[w] : v.last[w][0]);
			keep(o, 2 * w + 1, v.ok ? v.h[w] : v.last[w][1]);
			o->e[2 * w] = o->e[2 * w + 1] = v.e[w];
		}
		o->status = v.ok ? 0 : a->deform ? 3 : 1;
	} else {
		series x;
		rc = series_run(r, &x);
		if (!rc && x.bad >= 0) {
			const value *v = &x.v[x.bad];
			for (int k = 0; k < 4; k++) {
				keep(o, k, v->last[k / 2][k % 2]);
				o->e[k] = v->e[k / 2];
			}
			o->status = a->deform ? 3 : 1;
		} else if (!rc) {
			for (int w = 0; w < 2; w++) {
				const part *p = &x.p[w];
				keep(o, 2 * w, p->a.a);
				keep(o, 2 * w + 1, p->b.b);
				o->e[2 * w] = p->a.ea;
				o->e[2 * w + 1] = p->b.eb;
			}
			o->status = !x.p[0].ok || (CPLX(a) && !x.p[1].ok) ? 2 : 0;
		}
		series_free(&x);
	}
	o->tn = r->t_kern - k0;
	o->th = r->t_half - h0;
	return rc;
}

/* Each rank evaluates its share of the n rows on its own device; rank 0
 * writes a CSV row for each, in the file's order. */
static int scan(run *r, const scanrow *row, long n)
{
	const args *a = r->a;
	scanres *res = calloc((size_t)n + 1, sizeof *res);
	int rc = !res ? prog_fail("out of memory") : 0;
	size_t lo = 0, hi = 0;
	if (!rc)
		par_range((size_t)n, par_rank(), &lo, &hi);
	char where[600];
	for (size_t k = lo; k < hi && !rc; k++) {
		r->p = row[k].p;
		snprintf(where, sizeof where, "--scan %s, line %ld: ",
		         nb_esc(a->scan), row[k].line);
		r->where = where;
		rc = scan_one(r, &res[k]);
	}
	r->where = "";
	if (par_agree(rc)) {
		free(res);
		return 1;
	}
	par_gather(res, (size_t)n, sizeof *res, 0);
	int dbl = a->dbl;
	static const char *const status[4] = {
		"ok", "no convergence in eps: last extrapolants in the value columns",
		"no convergence in lambda: best fits in the value columns",
		"no convergence on the deformed contour: the values at N/2 and N in "
		"the value columns"};
	if (a->extrapolate)
		printf("line,n,s,t,me,mf,precision,A,A_error,B,B_error,A_im,"
		       "A_im_error,B_im,B_im_error,kernel_s,kernel_half_s,status\n");
	else
		printf("line,n,lambda,s,t,me,mf,precision,I,I_half,error,kernel_s,"
		       "kernel_half_s%s\n", CPLX(a) ? ",I_im,I_im_half,I_im_error,"
		       "status" : "");
	for (long k = 0; k < n; k++) {
		char b[5][64], v[4][700];
		const params *p = &row[k].p;
		const scanres *s = &res[k];
		for (int c = 0; c < 4; c++)
			full(v[c], sizeof v[c], dbl, nb_dd_make(s->v[c][0], s->v[c][1]));
		printf("%ld,%ld,", row[k].line, a->n);
		if (!a->extrapolate)
			printf("%s,", param(b[0], 64, dbl, p->l0));
		printf("%s,%s,%s,%s,%s,", param(b[1], 64, dbl, p->s),
		       param(b[2], 64, dbl, p->t), param(b[3], 64, dbl, p->me),
		       param(b[4], 64, dbl, p->mf), dbl ? "double" : "dd");
		if (a->extrapolate)
			printf("%s,%.3g,%s,%.3g,%s,%.3g,%s,%.3g,%.6g,%.6g,%s\n", v[0],
			       s->e[0], v[1], s->e[1], v[2], s->e[2], v[3], s->e[3],
			       s->tn, s->th, status[s->status]);
		else if (CPLX(a))
			printf("%s,%s,%.3g,%.6g,%.6g,%s,%s,%.3g,%s\n", v[0], v[1],
			       s->e[0], s->tn, s->th, v[2], v[3], s->e[2],
			       status[s->status]);
		else
			printf("%s,%s,%.3g,%.6g,%.6g\n", v[0], v[1], s->e[0], s->tn,
			       s->th);
	}
	free(res);
	return 0;
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
	run r = {.a = &a, .split = !a.scan, .where = ""};
	rc = par_agree(read_params(&a, &r.p));
	/* a scan's rows are read and checked before the device is opened */
	char *text = NULL;
	scanrow *row = NULL;
	long nrow = 0;
	if (!rc && a.scan) {
		text = scan_text(a.scan);
		nrow = text ? scan_rows(&a, &r.p, text, &row) : -1;
		rc = par_agree(nrow < 0);
	}
	r.sc = a.dbl ? 1 : 2;
	rc = rc || par_agree(check_memory(&r) || setup(&r) ||
	                     check_memory(&r) || grid_make(&r.g, a.n, a.dbl, a.deform, 0) ||
	                     grid_make(&r.h, a.n / 2, a.dbl, a.deform, 0) ||
	                     (quarter(&a) &&
	                      (grid_make(&r.q[0], a.n / 4, a.dbl, a.deform, 0) ||
	                       grid_make(&r.q[1], a.n / 8, a.dbl, a.deform, 0))) ||
	                     (shifted(&a) && (grid_make(&r.s, a.n, a.dbl, 1, 1) ||
	                                      grid_device(&r, &r.s))) ||
	                     grid_device(&r, &r.g) || grid_device(&r, &r.h) ||
	                     (quarter(&a) && (grid_device(&r, &r.q[0]) ||
	                                      grid_device(&r, &r.q[1]))));
	if (!rc)
		rc = a.scan ? scan(&r, row, nrow) : a.extrapolate ? extrapolate(&r)
		                                                  : one_lambda(&r);
	free(row);
	free(text);
	grid_free(&r.g);
	grid_free(&r.h);
	grid_free(&r.q[0]);
	grid_free(&r.q[1]);
	grid_free(&r.s);
	if (r.k)
		nbrt_free(r.k);
	if (r.rt)
		nbrt_close(r.rt);
	if (!rc && (fflush(stdout) || ferror(stdout)))
		rc = prog_fail("cannot write the output");
	return par_end(rc ? 1 : 0);
}
