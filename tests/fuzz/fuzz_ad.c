/* fuzz_ad.c: the libFuzzer target for derived kernels (compiler/ad.c,
 * docs/autodiff.md).  The input's bytes build a random double kernel of
 * two sums (and a count) over xi, yi (LMEM), xj, yj (BMEM) and c (CONST);
 * it is derived by --grad with respect to some of them, in reverse or
 * forward mode (NBCC_AD_MODE).  Then:
 *   - the derived kernel printed as .nbl (nbl_print) and lowered again
 *     gives the same results as the derived IR itself;
 *   - each derivative agrees with central differences of the primal,
 *     wherever the differences at steps h, h/2 and h/4 agree and the
 *     primal's value at the point lies on the curve through x +- h
 *     (so kinks, jumps and overflow are left out, not reported, those
 *     at the point itself too: a comparison may round the other way
 *     there only; logsumexp= gradients of a u so large that its
 *     rounding moves the weights exp(e_j - u); and floor, round or
 *     trunc of 2^52 or more, the identity on doubles).
 * The first sum's expression is also reduced by logsumexp= (u), the
 * second's by min= beside its argmin= (m, q): their derived kernels take
 * the primal's u and q as inputs, given from the primal's run.
 * Both run on a small interpreter of the IR in double through op_eval
 * (eval.c, the compiler's own arithmetic).  Byte 0: which inputs (bits
 * 0-2: xi, yi, c; bit 3: xj and yj instead, the BMEM gradient), bit 4:
 * forward mode; byte 1: the input values' seed; the rest: the
 * expressions (gen(); a product may repeat its first factor's text, as
 * A*B*A).  Any crash, sanitizer report, ICE or disagreement
 * aborts.  Seeds: tests/fuzz/corpus/ad. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

/* NIN inputs, then the primal's results a derived kernel takes */
enum { NI = 2, NJ = 3, NIN = 5, NV = 7 };
static const char *const names[NV] = {"xi", "yi", "xj", "yj", "c", "u", "q"};

typedef struct Gen {
	const uint8_t *d;
	size_t n, at;
	char *out;
	size_t len, cap;
} Gen;

static void put(Gen *g, const char *s)
{
	size_t n = strlen(s);
	if (g->len + n + 1 > g->cap) {
		g->cap = (g->len + n + 1) * 2;
		g->out = realloc(g->out, g->cap);
		if (!g->out)
			abort();
	}
	memcpy(g->out + g->len, s, n + 1);
	g->len += n;
}

static int next(Gen *g) { return g->at < g->n ? g->d[g->at++] : -1; }

/* An expression: each byte picks a leaf, an operator or a function; the
 * arguments of sqrt, log and the like are kept in their domains. */
static void gen(Gen *g, int depth)
{
	static const char *const un[] = {
		"exp(", "sin(", "cos(", "tanh(", "erf(", "erfc(", "cbrt(",
		"expm1(", "fabs(", "floor(", "round(", "trunc(", "-("};
	static const char *const dom[] = {
		"sqrt(1 + ", "log(2 + ", "rsqrt(1.5 + ", "log1p(1 + "};
	static const char *const bin[] = {" + ", " - ", " * ", " / (2 + "};
	static const char *const fn2[] = {"atan2(", "min(", "max(", "pow(1.5 + ("};
	int b = next(g);
	if (b < 0 || depth > 6) {
		char s[32];
		if (b < 0 || b % 7 < 5) {
			put(g, names[(b < 0 ? g->at : (size_t)b) % NIN]);
		} else {
			snprintf(s, sizeof s, "%d.%d", b % 3, b % 10);
			put(g, s);
		}
		return;
	}
	int k = b % 8;
	put(g, "(");
	if (k == 0 || k == 1) {
		put(g, names[b / 8 % NIN]);
	} else if (k == 2) {
		put(g, un[b / 8 % NELEM(un)]);
		gen(g, depth + 1);
		put(g, ")");
	} else if (k == 3) {
		put(g, dom[b / 8 % NELEM(dom)]);
		put(g, "(");
		gen(g, depth + 1);
		put(g, ") ** 2)");
	} else if (k == 4 || k == 5) {
		const char *op = bin[b / 8 % NELEM(bin)];
		size_t a = g->len;
		gen(g, depth + 1);
		size_t z = g->len;
		put(g, op);
		if (strchr(op, '(')) {
			put(g, "(");
			gen(g, depth + 1);
			put(g, ") ** 2)");
		} else {
			gen(g, depth + 1);
		}
		/* a product of repeated factors, A*B*A or A*B*A*A: A's text
		 * again, lowered apart (ad.c groups equal factors); a short A
		 * only, as copies nested in copies grow exponentially */
		for (int r = 0; op[1] == '*' && z - a <= 64 && r < (b >> 5 & 3);
		     r++) {
			char *t = malloc(z - a + 1);
			if (!t)
				abort();
			memcpy(t, g->out + a, z - a);
			t[z - a] = 0;
			put(g, " * ");
			put(g, t);
			free(t);
		}
	} else if (k == 6) {
		const char *f = fn2[b / 8 % NELEM(fn2)];
		put(g, f);
		gen(g, depth + 1);
		if (strchr(f, '+'))
			put(g, ") ** 2");
		put(g, ", ");
		gen(g, depth + 1);
		put(g, ")");
	} else {
		gen(g, depth + 1);
		put(g, b & 64 ? " < " : " >= ");
		gen(g, depth + 1);
		put(g, " ? ");
		gen(g, depth + 1);
		put(g, " : ");
		gen(g, depth + 1);
	}
	put(g, ")");
}

/* The inputs: each name's values (a BMEM's NJ, the others' NI; c one). */
typedef struct In {
	double v[NV][NJ];
} In;

/* Runs f over its i- and j-elements: the LMEMs' values are the arrays
 * of their names in `in` (so a kernel turned around runs on xj and yj as
 * its i-side), res[r][i] each RMEM's.  Returns 0 when the IR has an
 * operation this interpreter does not evaluate. */
/* Set by interp where floor, round or trunc took a value of 2^52 or
 * more: every double there is an integer, so the function is the
 * identity to its differences, where its derivative is 0 (ad.c, as every
 * AD tool takes it: the function is flat between its jumps) */
static int rounded_big;

static int interp(const Func *f, const In *in, double res[][NJ], int nres)
{
	int ni = 0, nj = 0, name[64];
	if (f->nvar > 64 || nres < f->nvar)
		abort();
	double aux[64][NJ]; /* an argmin='s value */
	for (int v = 0; v < f->nvar; v++) {
		name[v] = -1;
		for (int k = 0; k < NV; k++)
			if (strcmp(f->var[v].name, names[k]) == 0)
				name[v] = k;
		int len = name[v] >= 2 && name[v] < 4 ? NJ : NI;
		if (f->var[v].role == NB_LMEM)
			ni = len;
		if (f->var[v].role == NB_BMEM)
			nj = len;
		nb_red red = f->var[v].red;
		int up = red == NB_MIN || red == NB_ARGMIN;
		for (int i = 0; i < NJ; i++) {
			res[v][i] = f->var[v].role != NB_RMEM || red == NB_SUM ||
			            red == NB_COUNT ? 0 : red == NB_ARGMIN ||
			            red == NB_ARGMAX ? -1 : up ? INFINITY : -INFINITY;
			aux[v][i] = up ? INFINITY : -INFINITY;
		}
	}
	double (*val)[2] = malloc(sizeof *val * (size_t)(f->n ? f->n : 1));
	if (!val)
		abort();
	int ok = 1;
	for (int i = 0; i < ni && ok; i++)
		for (int j = 0; j < nj && ok; j++)
			for (int k = 0; k < f->n && ok; k++) {
				const Ins *x = &f->ins[k];
				const double *a = x->arg[0] >= 0 ? val[x->arg[0]] : NULL,
				             *b = x->arg[1] >= 0 ? val[x->arg[1]] : NULL,
				             *c = x->arg[2] >= 0 ? val[x->arg[2]] : NULL;
				double *r = val[k];
				r[1] = 0;
				int nm = x->var >= 0 ? name[x->var] : -1;
				switch (x->op) {
				case O_IMM: r[0] = x->imm[0]; break;
				case O_LDI: r[0] = in->v[nm][i]; break;
				case O_LDJ: r[0] = in->v[nm][j]; break;
				case O_CONST: r[0] = in->v[nm][0]; break;
				case O_IDXI: r[0] = i; break;
				case O_IDXJ: r[0] = j; break;
				case O_LT: r[0] = a[0] < b[0]; break;
				case O_LE: r[0] = a[0] <= b[0]; break;
				case O_GT: r[0] = a[0] > b[0]; break;
				case O_GE: r[0] = a[0] >= b[0]; break;
				case O_EQ: r[0] = a[0] == b[0]; break;
				case O_NE: r[0] = a[0] != b[0]; break;
				case O_AND: r[0] = a[0] && b[0]; break;
				case O_OR: r[0] = a[0] || b[0]; break;
				case O_NOT: r[0] = !a[0]; break;
				case O_SEL: r[0] = a[0] ? b[0] : c[0]; break;
				case O_ACC: res[x->var][i] += a[0]; break;
				case O_ACCSUB: res[x->var][i] -= a[0]; break;
				case O_ACCMIN: res[x->var][i] = fmin(res[x->var][i], a[0]); break;
				case O_ACCMAX: res[x->var][i] = fmax(res[x->var][i], a[0]); break;
				case O_ACCLSE: {
					double m = fmax(res[x->var][i], a[0]);
					if (m != -INFINITY)
						res[x->var][i] = m + log(exp(res[x->var][i] - m) +
						                         exp(a[0] - m));
					break;
				}
				case O_ACCARGMIN:
				case O_ACCARGMAX:
					/* the first j of the least (greatest) value */
					if (x->op == O_ACCARGMIN ? a[0] < aux[x->var][i] :
					    a[0] > aux[x->var][i]) {
						aux[x->var][i] = a[0];
						res[x->var][i] = b[0];
					}
					break;
				default:
					if ((x->op == O_FLOOR || x->op == O_ROUND ||
					     x->op == O_TRUNC) && !(fabs(a[0]) < 0x1p52))
						rounded_big = 1;
					if (x->type != T_F64 && x->type != T_INT &&
					    x->type != T_BOOL)
						ok = 0;
					else if (!op_eval(x->op, T_F64, a, b, c, r))
						ok = 0;
				}
				if (x->type == T_BOOL && x->op == O_CVT)
					r[0] = a[0] != 0;
			}
	free(val);
	return ok;
}

/* The lowered (and derived, with grad) kernel of src; NULL on an error. */
static Func *build(Ctx *c, const char *src, const char *grad)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	static nb_options o;
	nb_options_init(&o);
	o.precision = NB_DOUBLE;
	ctx_init(c, "fuzz.nbl", src, strlen(src), &o, null);
	Prog *p = parse(c);
	if (c->errors || sema(c, p) || c->errors)
		return NULL;
	Func *f = lower(c, p);
	if (c->errors)
		return NULL;
	if (grad && ad_derive(f, NULL, grad, NULL) < 0)
		return NULL;
	ir_verify(f, 1);
	return f;
}

static int var_of(const Func *f, const char *name)
{
	for (int v = 0; v < f->nvar; v++)
		if (strcmp(f->var[v].name, name) == 0)
			return v;
	return -1;
}

static int agree(double a, double b, double tol)
{
	double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
	return fabs(a - b) <= tol * (s > 1 ? s : 1);
}

/* The sum of result r over the i-elements of the primal on `in`, or the
 * per-i values (i < NI) into col. */
static int primal(const Func *f, const In *in, const char *r, double *col)
{
	double res[64][NJ];
	if (!interp(f, in, res, 64))
		return 0;
	int v = var_of(f, r);
	for (int i = 0; i < NI; i++)
		col[i] = res[v][i];
	return 1;
}

/* Central differences of result r by input w at step h: per i for an
 * LMEM or CONST, per j of the sum over i for a BMEM; sd the second
 * differences through the primal's values `at` on `in` itself (per i);
 * *mag: the largest value differenced, whose rounding limits what
 * differences can see. */
static int diff(const Func *f, const In *in, const char *r, int w, double h,
                const double *at, double *d, double *sd, double *mag)
{
	*mag = 0;
	int per_j = w == 2 || w == 3;
	for (int e = 0; e < (per_j ? NJ : 1); e++) {
		double col[2][NI];
		for (int s = 0; s < 2; s++) {
			In p = *in;
			for (int i = 0; i < (per_j ? 1 : NJ); i++)
				p.v[w][per_j ? e : i] += s ? -h : h;
			if (!primal(f, &p, r, col[s]))
				return 0;
			for (int i = 0; i < NI; i++)
				*mag = fmax(*mag, fabs(col[s][i]));
		}
		if (per_j) {
			d[e] = sd[e] = 0;
			for (int i = 0; i < NI; i++) {
				d[e] += (col[0][i] - col[1][i]) / (2 * h);
				sd[e] += col[0][i] + col[1][i] - 2 * at[i];
			}
		} else {
			for (int i = 0; i < NI; i++) {
				d[i] = (col[0][i] - col[1][i]) / (2 * h);
				sd[i] = col[0][i] + col[1][i] - 2 * at[i];
			}
		}
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 600)
		return 0;
	uint8_t sel = data[0];
	Gen g = {data, size, 2, NULL, 0, 0};
	put(&g, "LMEM xi, yi;\nBMEM xj, yj;\nCONST c;\nRMEM s, t, k, u, m, q;\n"
	    "s += ");
	size_t s0 = g.len;
	gen(&g, 0);
	char *se = strndup(g.out + s0, g.len - s0);
	put(&g, ";\nt -= ");
	size_t t0 = g.len;
	gen(&g, 0);
	char *te = strndup(g.out + t0, g.len - t0);
	put(&g, ";\nk += ");
	gen(&g, 0);
	put(&g, " < yj;\nu logsumexp= ");
	put(&g, se);
	put(&g, ";\nm min= ");
	put(&g, te);
	put(&g, ";\nq argmin= ");
	put(&g, te);
	put(&g, ";\n");
	free(se);
	free(te);
	char grad[32] = "";
	for (int w = 0; w < NIN; w++) {
		int want = sel & 8 ? (w == 2 || w == 3) :
		           (w < 2 ? sel >> w & 1 : w == 4 ? sel >> 2 & 1 : 0);
		if (want) {
			strcat(grad, *grad ? "," : "");
			strcat(grad, names[w]);
		}
	}
	if (!*grad)
		strcpy(grad, "xi");
	setenv("NBCC_AD_MODE", sel & 16 ? "forward" : "reverse", 1);

	In in;
	srand(data[1]);
	for (int w = 0; w < NIN; w++)
		for (int e = 0; e < NJ; e++)
			in.v[w][e] = (double)rand() / RAND_MAX * 2 - 1;
	Ctx c0, c1, c2;
	Func *f = build(&c0, g.out, NULL);
	Func *d = build(&c1, g.out, grad);
	if (!f || !d)
		goto done;
	/* the primal's u and q, which the derived kernel takes */
	if (!primal(f, &in, "u", in.v[5]) || !primal(f, &in, "q", in.v[6]))
		goto done;
	double dres[64][NJ], rres[64][NJ];
	if (!interp(d, &in, dres, 64))
		goto done;

	/* the printed derived source lowers to the same results */
	Buf text = {0};
	nbl_print(d, &text);
	Func *r = build(&c2, text.s, NULL);
	if (!r) {
		fprintf(stderr, "the derived source does not compile:\n%s\n",
		        text.s);
		abort();
	}
	if (r->nvar != d->nvar || !interp(r, &in, rres, 64))
		abort();
	for (int v = 0; v < d->nvar; v++) {
		int w = var_of(r, d->var[v].name);
		if (w < 0 || r->var[w].role != d->var[v].role)
			abort();
		for (int i = 0; i < NJ; i++)
			if (!agree(dres[v][i], rres[w][i], 1e-13) &&
			    isfinite(dres[v][i])) {
				fprintf(stderr, "%s: derived %.17g, its source %.17g\n",
				        d->var[v].name, dres[v][i], rres[w][i]);
				abort();
			}
	}
	ctx_free(&c2);
	buf_free(&text);

	/* each derivative against central differences */
	for (int w = 0; w < NIN; w++) {
		char rn[16];
		for (const char *rs = "stum"; *rs; rs++) {
			snprintf(rn, sizeof rn, "d%c_d%s", *rs, names[w]);
			int v = var_of(d, rn);
			if (v < 0)
				continue;
			char pn[2] = {*rs, 0};
			/* logsumexp='s weights exp(e_j - u) take the primal's u
			 * rounded: an error of |u| ulps in the exponent, which
			 * the differences of u do not have (u of 5.5e15, whose
			 * ulp is 1, weighs by e**-1 for 1/3): not decided */
			double umax = 0;
			for (int i = 0; i < NI; i++)
				umax = fmax(umax, fabs(in.v[5][i]));
			if (*rs == 'u' && !(umax * DBL_EPSILON <= 1e-7))
				continue;
			/* three steps: a jump seen at two of them can look smooth
			 * (trunc crossing 2 integers over 2h and 1 over h) */
			double a[NJ], b[NJ], q[NJ], s2[NJ], sq[NJ], ma, mb, mq,
			       at[NI];
			rounded_big = 0;
			if (!primal(f, &in, pn, at) ||
			    !diff(f, &in, pn, w, 1e-5, at, a, s2, &ma) ||
			    !diff(f, &in, pn, w, 0.5e-5, at, b, s2, &mb) ||
			    !diff(f, &in, pn, w, 0.25e-5, at, q, sq, &mq) ||
			    rounded_big)
				continue;
			int n = w == 2 || w == 3 ? NJ : NI;
			for (int e = 0; e < n; e++) {
				double x = dres[v][e];
				/* below what the differences resolve (values of 1e19
				 * differenced at h = 1e-5 show no derivative under
				 * 1e-5): not decided; 1e4 ulps of the values' error */
				double noise = 1e4 * DBL_EPSILON * fmax(ma, fmax(mb, mq)),
				       blind = noise / 0.5e-5;
				/* the point itself off the curve through its
				 * neighbours: a jump or kink at the point that the
				 * steps straddle, as a comparison whose sides round
				 * apart there only (log(2 + x*x) >= log1p(1 + x*x)
				 * false at x, true at every x +- h); a smooth primal's
				 * second difference is h*h times its curvature */
				int kink = !(fabs(sq[e]) <= 1e-2 * 0.25e-5 *
				             fmax(fabs(b[e]), 1) + noise);
				if (!isfinite(a[e]) || !isfinite(b[e]) || !isfinite(x) ||
				    !isfinite(q[e]) || !agree(a[e], b[e], 1e-7) ||
				    !agree(b[e], q[e], 1e-7) || kink ||
				    agree(x, b[e], 1e-5) || fabs(x - b[e]) <= blind)
					continue;
				fprintf(stderr, "%s[%d] = %.17g, central differences "
				        "%.17g (h), %.17g (h/2), %.17g (h/4)\n%s--grad=%s "
				        "%s\n", rn, e, x, a[e], b[e], q[e], g.out, grad,
				        getenv("NBCC_AD_MODE"));
				abort();
			}
		}
	}
done:
	ctx_free(&c0);
	ctx_free(&c1);
	free(g.out);
	return 0;
}
