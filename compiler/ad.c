/* ad.c: automatic differentiation of the lowered IR (docs/autodiff.md).
 * Forward mode carries a tangent for each value, built from the deriv
 * column of ops.h (--jvp: named tangent inputs); reverse mode carries
 * adjoints back from each sum by the same column (--grad, or one forward
 * sweep per input where that sweeps less; BMEM inputs by the kernel turned
 * around).  Each sum result gets derived results with the same reduction,
 * and the passes then see one kernel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

enum { ZERO = -1 }; /* a tangent known to be zero: nothing is built */

typedef struct R {
	Func *f;
	int k;        /* the instruction being derived */
	Type t;       /* its type, the tangent's */
	int *tan;     /* tangent of each original instruction, or ZERO */
	const char *p; /* the rule text, read from here */
	int slot;     /* reverse: 1 + the operand whose adjoint is built (its
	                 tangent is adj, the others' zero); 0 forward */
	int adj;      /* reverse: the instruction's adjoint */
	int dry;      /* reading a term only to learn whether it is zero:
	                 nothing is built (mk's 0 stands for a value) */
} R;

static int mk(R *r, int op, Type t, int a, int b, int c)
{
	if (r->dry)
		return 0;
	Ins in = ins_make(op, t, B_BODY, a, b, c);
	in.loc = r->f->ins[r->k].loc;
	return ins_add(r->f, in);
}

static int imm(R *r, Type t, const char *text)
{
	int v = mk(r, O_IMM, t, -1, -1, -1);
	if (r->dry)
		return v;
	double d[2] = {0, 0};
	if (type_numeric(t))
		prec[t].read(text, d);
	r->f->ins[v].imm[0] = d[0];
	r->f->ins[v].imm[1] = d[1];
	return v;
}

static int real(R *r, int v) { return v == ZERO ? imm(r, r->t, "0") : v; }

/* v in the tangent's type, when it is a number of another precision */
static int as_t(R *r, int v)
{
	if (v == ZERO || r->dry)
		return v;
	Type have = r->f->ins[v].type;
	if (have == r->t || !type_numeric(have) || !type_numeric(r->t))
		return v;
	return mk(r, O_CVT, r->t, v, -1, -1);
}

/* The rules' factors that are powers of two (the 2 of d(x*x), pow's
 * -0.5, a negation's -1) are carried to the top of each product and
 * merged, and out of sums of terms they all scale: d r2 = 2 r.v and
 * d rsqrt(r2) = -0.5 rsqrt(r2)^3 d r2 make -(rsqrt(r2)^3 r.v), no 2 and
 * no -0.5.  Scaling by a power of two is exact, so each move keeps the
 * value (outside overflow and subnormal range) in every precision. */
enum { ONE = -2 }; /* scaled(): the value is its factor alone */

static int pow2(const Ins *in)
{
	int e;
	return in->op == O_IMM && in->imm[1] == 0 && in->imm[0] != 0 &&
	       fabs(frexp(in->imm[0], &e)) == 0.5;
}

/* v as c*a, c a power of two: *a = v and 1 where v has no such factor */
static double scaled(R *r, int v, int *a)
{
	const Ins *in = &r->f->ins[v];
	*a = v;
	if (r->dry || in->type != r->t)
		return 1;
	if (pow2(in)) {
		*a = ONE;
		return in->imm[0];
	}
	if (in->op == O_NEG)
		return -scaled(r, in->arg[0], a);
	for (int s = 0; in->op == O_MUL && s < 2; s++)
		if (pow2(&r->f->ins[in->arg[s]]))
			return r->f->ins[in->arg[s]].imm[0] *
			       scaled(r, in->arg[!s], a);
	return 1;
}

/* c*a built: a, -a or a literal's product */
static int scale(R *r, double c, int a)
{
	if (r->dry)
		return 0;
	if (a == ONE || c != -1) {
		int v = mk(r, O_IMM, r->t, -1, -1, -1);
		r->f->ins[v].imm[0] = c;
		r->f->ins[v].imm[1] = 0;
		return a == ONE ? v : c == 1 ? a : mk(r, O_MUL, r->t, v, a, -1);
	}
	return mk(r, O_NEG, r->t, a, -1, -1);
}

/* x and y are one product, its operands in either order */
static int twins(const Func *f, int x, int y)
{
	const Ins *a = &f->ins[x], *b = &f->ins[y];
	return x == y || (a->op == O_MUL && b->op == O_MUL &&
	       a->type == b->type && a->arg[0] == b->arg[1] &&
	       a->arg[1] == b->arg[0]);
}

/* x + y (sign 1) or x - y (-1), their common power-of-two factor out */
static int addsub(R *r, int x, int y, int sign)
{
	int a, b;
	double cx = scaled(r, x, &a), cy = sign * scaled(r, y, &b);
	if (a != ONE && b != ONE && !r->dry) {
		if (cx == cy && twins(r->f, a, b))
			return scale(r, 2 * cx, a);
		if (cx == cy && cx != 1)
			return scale(r, cx, mk(r, O_ADD, r->t, a, b, -1));
		if (cx == -cy && cy == 1)
			return mk(r, O_SUB, r->t, b, a, -1);
		if (cx == -cy && (cx != 1 || sign > 0))
			return scale(r, cx, mk(r, O_SUB, r->t, a, b, -1));
	}
	return mk(r, sign > 0 ? O_ADD : O_SUB, r->t, x, y, -1);
}

static int add(R *r, int x, int y)
{
	return x == ZERO ? y : y == ZERO ? x : addsub(r, x, y, 1);
}

static int neg(R *r, int x)
{
	int a;
	if (x == ZERO)
		return x;
	double c = scaled(r, x, &a);
	return c != 1 ? scale(r, -c, a) : mk(r, O_NEG, r->t, x, -1, -1);
}

static int sub(R *r, int x, int y)
{
	return y == ZERO ? x : x == ZERO ? neg(r, y) : addsub(r, x, y, -1);
}

static int mul(R *r, int x, int y)
{
	int a, b;
	if (x == ZERO || y == ZERO)
		return ZERO;
	double c = scaled(r, x, &a) * scaled(r, y, &b);
	if (c == 1 && a == x && b == y)
		return mk(r, O_MUL, r->t, x, y, -1);
	if (a == ONE || b == ONE)
		return scale(r, c, a == ONE ? b : a);
	return scale(r, c, mk(r, O_MUL, r->t, a, b, -1));
}

static int divide(R *r, int x, int y)
{
	if (y == ZERO)
		ICE("ops.h: a derivative rule divides by a zero tangent");
	return x == ZERO ? ZERO : mk(r, O_DIV, r->t, x, y, -1);
}

static void skip(R *r)
{
	while (*r->p == ' ')
		r->p++;
}

static int expr(R *r);

/* name(args): a built-in function, or an IR opcode by its name in ops.h */
static int call(R *r, const char *name, size_t n)
{
	char s[16];
	if (n >= sizeof s)
		ICE("ops.h: bad derivative rule");
	memcpy(s, name, n);
	s[n] = 0;
	int op = builtin_find(s);
	for (int o = 0; op < 0 && o < O_COUNT; o++) {
		const char *on = opinfo[o].name;
		size_t i = 0;
		while (i < n && on[i] && (on[i] | 32) == s[i])
			i++;
		if (i == n && !on[n])
			op = o;
	}
	if (op < 0)
		ICE("ops.h: unknown function '%s' in a derivative rule", s);
	int a[3] = {-1, -1, -1}, na = 0;
	r->p++; /* ( */
	for (;;) {
		if (na == 3)
			ICE("ops.h: too many operands in a derivative rule");
		a[na++] = expr(r);
		skip(r);
		if (*r->p++ != ',')
			break;
	}
	if (op == O_SEL) {
		if (a[1] == ZERO && a[2] == ZERO)
			return ZERO;
		return mk(r, O_SEL, r->t, a[0], real(r, a[1]), real(r, a[2]));
	}
	int k = opinfo[op].kind;
	Type t = k == K_CMP || op == O_AND || op == O_OR || op == O_NOT ?
	         T_BOOL : r->t;
	for (int i = 0; i < na; i++)
		a[i] = real(r, a[i]);
	return mk(r, op, t, a[0], a[1], a[2]);
}

static int primary(R *r)
{
	skip(r);
	const char *s = r->p;
	if (*s == '(') {
		r->p++;
		int v = expr(r);
		skip(r);
		r->p++; /* ) */
		return v;
	}
	if (*s >= '0' && *s <= '9') {
		while ((*r->p >= '0' && *r->p <= '9') || *r->p == '.')
			r->p++;
		char num[64];
		size_t n = (size_t)(r->p - s);
		if (n >= sizeof num)
			ICE("ops.h: bad number in a derivative rule");
		memcpy(num, s, n);
		num[n] = 0;
		return strcmp(num, "0") == 0 ? ZERO : imm(r, r->t, num);
	}
	while ((*r->p >= 'a' && *r->p <= 'z') || (*r->p >= '0' && *r->p <= '9'))
		r->p++;
	size_t n = (size_t)(r->p - s);
	if (*r->p == '(')
		return call(r, s, n);
	const Ins *in = &r->f->ins[r->k];
	if (n == 1 && *s == 'r')
		return r->k;
	if (n == 1 && *s >= 'a' && *s <= 'c')
		return as_t(r, in->arg[*s - 'a']);
	if (n == 2 && s[0] == 'd' && s[1] >= 'a' && s[1] <= 'c') {
		int a = in->arg[s[1] - 'a'];
		if (r->slot)
			return s[1] - 'a' == r->slot - 1 ? r->adj : ZERO;
		return a < 0 ? ZERO : as_t(r, r->tan[a]);
	}
	ICE("ops.h: unknown name '%.*s' in a derivative rule", (int)n, s);
}

static int unary(R *r)
{
	skip(r);
	if (*r->p == '-') {
		r->p++;
		return neg(r, unary(r));
	}
	return primary(r);
}

static int term(R *r)
{
	int v = unary(r);
	for (;;) {
		skip(r);
		char c = *r->p;
		if (c != '*' && c != '/')
			return v;
		r->p++;
		int w = unary(r);
		v = c == '*' ? mul(r, v, w) : divide(r, v, w);
	}
}

/* A term, read first without building to learn whether a factor is a
 * zero tangent: pow's r*log(a)*db with a constant exponent builds no
 * r*log(a) for the dce to throw away. */
static int term_lazy(R *r)
{
	if (r->dry)
		return term(r);
	const char *at = r->p;
	r->dry = 1;
	int v = term(r);
	r->dry = 0;
	if (v == ZERO)
		return ZERO;
	r->p = at;
	return term(r);
}

static int expr(R *r)
{
	int v = term_lazy(r);
	for (;;) {
		skip(r);
		char c = *r->p;
		if (c != '+' && c != '-')
			return v;
		r->p++;
		int w = term_lazy(r);
		v = c == '+' ? add(r, v, w) : sub(r, v, w);
	}
}

/* Builds r's rule from where r->p points; its value, or ZERO. */
static int rule(R *r)
{
	int v = expr(r);
	skip(r);
	if (*r->p)
		ICE("ops.h: %s's derivative rule does not parse at '%s'",
		    opinfo[r->f->ins[r->k].op].name, r->p);
	return v;
}

/* --- products of repeated factors -------------------------------------- */

/* Values a and b are the same expression (lowered twice). */
static int same(const Func *f, int a, int b)
{
	if (a == b)
		return 1;
	const Ins *x = &f->ins[a], *y = &f->ins[b];
	if (x->op != y->op || x->type != y->type || x->var != y->var ||
	    x->lane != y->lane || (x->op == O_IMM &&
	    memcmp(x->imm, y->imm, sizeof x->imm) != 0))
		return 0;
	for (int s = 0; s < ins_nargs(x); s++)
		if (!same(f, x->arg[s], y->arg[s]))
			return 0;
	return 1;
}

/* The product rule at each multiplication of a tree makes a term per
 * occurrence of a factor: mrinv*rinv*rinv's tangent would be three
 * products summed.  Grouping equal factors (same()), a product c*x^n has
 * the derivative n*(c*x^(n-1))*dx, one term, exact in real arithmetic;
 * and c*x^(n-1) is the tree with one occurrence of x taken out, the
 * shallowest, which is mostly a node the primal computes (mrinv*rinv). */
enum { MAXF = 16, DEEP = 1 << 20 };

typedef struct Prod {
	int n;           /* factors */
	int leaf[MAXF];  /* the factors: the tree's operands that are not
	                    products of its type, in tree order */
	int times[MAXF]; /* for the first of equal factors their count, 0 for
	                    the others */
} Prod;

/* Adds v's factors; -1 when there are more than MAXF. */
static int factors(const Func *f, int v, Type t, Prod *p)
{
	const Ins *in = &f->ins[v];
	if (in->op == O_MUL && in->type == t)
		return factors(f, in->arg[0], t, p) < 0 ? -1 :
		       factors(f, in->arg[1], t, p);
	if (p->n == MAXF)
		return -1;
	p->leaf[p->n] = v;
	p->times[p->n] = 1;
	for (int i = 0; i < p->n; i++)
		if (p->times[i] && same(f, p->leaf[i], v)) {
			p->times[i]++;
			p->times[p->n] = 0;
			break;
		}
	p->n++;
	return 0;
}

/* Product k's factors, when its two operands have a factor in common
 * that has a tangent (forward: tan[v] != ZERO; reverse: active[v]): then
 * 1, else 0, and the ordinary rule serves (mr3inv*dx: mr3inv's own
 * tangent is grouped, times dx). */
static int grouped(const Func *f, int k, const int *tan, const char *active,
                   Prod *p)
{
	const Ins *in = &f->ins[k];
	p->n = 0;
	if (in->op != O_MUL || !type_numeric(in->type) ||
	    factors(f, in->arg[0], in->type, p) < 0)
		return 0;
	int left = p->n;
	if (factors(f, in->arg[1], in->type, p) < 0)
		return 0;
	for (int i = 0; i < left; i++) {
		int x = p->leaf[i];
		if (!p->times[i] || !(tan ? tan[x] != ZERO : active[x]))
			continue;
		for (int j = left; j < p->n; j++)
			if (same(f, x, p->leaf[j]))
				return 1;
	}
	return 0;
}

/* The multiplications from v down to its shallowest factor equal to x. */
static int depth(const Func *f, int v, int x)
{
	const Ins *in = &f->ins[v];
	if (same(f, v, x))
		return 0;
	if (in->op != O_MUL || in->type != f->ins[x].type)
		return DEEP;
	int a = depth(f, in->arg[0], x), b = depth(f, in->arg[1], x);
	return 1 + (a < b ? a : b);
}

/* Product v with its shallowest factor equal to x taken out (v is not x):
 * the operands beside the path to it are kept, so each multiplication
 * on the path but the last is built anew; none where x is an operand of
 * v itself. */
static int without(R *r, int v, int x)
{
	int a = r->f->ins[v].arg[0], b = r->f->ins[v].arg[1];
	if (depth(r->f, a, x) < depth(r->f, b, x)) {
		int t = a;
		a = b;
		b = t;
	}
	/* b holds x's shallowest occurrence */
	return same(r->f, b, x) ? a : mul(r, without(r, b, x), a);
}

/* Group i's term: n*(c*x^(n-1))*d, d its factor's tangent or the
 * product's adjoint. */
static int group(R *r, const Prod *p, int i, int d)
{
	int c = without(r, r->k, p->leaf[i]);
	if (p->times[i] > 1) {
		char n[16];
		snprintf(n, sizeof n, "%d", p->times[i]);
		c = mul(r, imm(r, r->t, n), c);
	}
	return mul(r, c, d);
}

/* Forward: the tangent of product r->k grouped as p. */
static int product(R *r, const Prod *p)
{
	int v = ZERO;
	for (int i = 0; i < p->n; i++) {
		int d = p->times[i] ? r->tan[p->leaf[i]] : ZERO;
		if (d != ZERO)
			v = add(r, v, group(r, p, i, as_t(r, d)));
	}
	return v;
}

/* The tangent of instruction k by its rule, given its operands'. */
static int derive(Func *f, int k, int *tan)
{
	R r = {f, k, f->ins[k].type, tan, opinfo[f->ins[k].op].deriv, 0, ZERO, 0};
	Prod p;
	if (f->ins[k].type == T_BOOL || f->ins[k].type == T_INT)
		return ZERO;
	return grouped(f, k, tan, NULL, &p) ? product(&r, &p) : rule(&r);
}

/* --- the derived kernel's variables ------------------------------------ */

static int var_find(const Func *f, const char *name)
{
	for (int i = 0; i < f->nvar; i++)
		if (strcmp(f->var[i].name, name) == 0)
			return i;
	return -1;
}

/* Appends a variable; ad_order puts it among its role's later. */
static int var_add(Func *f, Var v)
{
	Var *nv = cnew(f->ctx, sizeof(Var) * (size_t)(f->nvar + 1));
	memcpy(nv, f->var, sizeof(Var) * (size_t)f->nvar);
	nv[f->nvar] = v;
	f->var = nv;
	return f->nvar++;
}

/* Func.var holds each role's variables together: the new ones go after
 * their role's, and the instructions follow them. */
static void var_order(Func *f)
{
	int *map = cnew(f->ctx, sizeof(int) * (size_t)f->nvar);
	Var *nv = cnew(f->ctx, sizeof(Var) * (size_t)f->nvar);
	char *done = cnew(f->ctx, (size_t)f->nvar);
	int n = 0;
	for (int i = 0; i < f->nvar; i++) {
		if (done[i])
			continue;
		for (int j = i; j < f->nvar; j++)
			if (!done[j] && f->var[j].role == f->var[i].role) {
				done[j] = 1;
				map[j] = n;
				nv[n++] = f->var[j];
			}
	}
	f->var = nv;
	for (int k = 0; k < f->n; k++)
		if (f->ins[k].var >= 0)
			f->ins[k].var = map[f->ins[k].var];
}

/* --- the derivation's state -------------------------------------------- */

typedef struct Ad {
	Func *f;
	int n0, nv0;  /* the primal's instructions and variables */
	int turned;   /* LMEM and BMEM, i and j exchanged (BMEM gradients) */
	int *pin;     /* RMEM r < nv0: the input holding the primal's value of
	                 r (a logsumexp=, or an argmin= through which a min=
	                 is differentiated), or -1 */
} Ad;

/* The one spelling of the gradient of result r by input x's name
 * (docs/autodiff.md; python/nbcc/_derive.py asks for it by this name). */
static const char *gname(Ctx *c, const char *r, const char *x)
{
	return cprintf(c, "d%s_d%s", r, x);
}

/* The reductions with a derived result (docs/autodiff.md's table). */
static int differentiable(nb_red red)
{
	return red == NB_SUM || red == NB_LOGSUMEXP || red == NB_MIN ||
	       red == NB_MAX;
}

/* A derived result of RMEM r called name: a sum of r's type. */
static int dresult(Func *f, int r, const char *name)
{
	Var x = f->var[r];
	x.name = name;
	x.red = NB_SUM;
	x.sym = 0;
	return var_add(f, x);
}

/* The primal's value of result r, per i (per j in a kernel turned
 * around), in r's type: an input of r's name, as r cannot be known
 * before the j loop ends, given by the caller from the primal's run.  The
 * derived kernel then drops r as a result.  Built at sink k. */
static int primal(Ad *ad, int k, int r)
{
	Func *f = ad->f;
	Ins in = f->ins[k];
	if (ad->pin[r] < 0) {
		Var x = f->var[r];
		x.role = ad->turned ? NB_BMEM : NB_LMEM;
		x.red = NB_SUM;
		x.sym = 0;
		ad->pin[r] = var_add(f, x);
	}
	Ins ld = ins_make(ad->turned ? O_LDJ : O_LDI, f->var[r].type, B_BODY,
	                  -1, -1, -1);
	ld.var = ad->pin[r];
	ld.lane = in.lane;
	ld.loc = in.loc;
	return ins_add(f, ld);
}

/* The argmin= (argmax=) result of the value min= (max=) sink k reduces,
 * declared beside it, or -1.  An argmin= compares its value widened to
 * its result's type (which holds indices exactly), in the same order. */
static int arg_of(Ad *ad, int k)
{
	const Func *f = ad->f;
	int op = f->ins[k].op == O_ACCMIN ? O_ACCARGMIN : O_ACCARGMAX;
	for (int q = 0; q < ad->n0; q++) {
		int a = f->ins[q].arg[0];
		if (f->ins[q].op != op)
			continue;
		if (f->ins[a].op == O_CVT &&
		    f->ins[a].type >= f->ins[f->ins[a].arg[0]].type)
			a = f->ins[a].arg[0];
		if (same(f, a, f->ins[k].arg[0]))
			return f->ins[q].var;
	}
	return -1;
}

/* Where result sink k's term a has the tangent d (or, reverse, the
 * adjoint), the derived result's term: d for a sum; d exp(a - r) for
 * logsumexp= (softmax weights, r the primal's); for min= and max=, d
 * where j is the primal's argmin (argmax) of a, 0 elsewhere.  ZERO when
 * d is. */
static int through(Ad *ad, int k, int d)
{
	Func *f = ad->f;
	Ins in = f->ins[k];
	R c = {f, k, f->ins[in.arg[0]].type, NULL, NULL, 0, ZERO, 0};
	if (d == ZERO || in.op == O_ACC || in.op == O_ACCSUB)
		return d;
	if (in.op == O_ACCLSE)
		return mul(&c, mk(&c, O_EXP, c.t, mk(&c, O_SUB, c.t, in.arg[0],
		           as_t(&c, primal(ad, k, in.var)), -1), -1, -1), d);
	/* j and the index compared in the argmin='s type: exact */
	int at = primal(ad, k, arg_of(ad, k));
	int j = mk(&c, O_CVT, f->ins[at].type, mk(&c, ad->turned ? O_IDXI :
	           O_IDXJ, T_INT, -1, -1, -1), -1, -1);
	return mk(&c, O_SEL, c.t, mk(&c, O_EQ, T_BOOL, j, at, -1), d,
	          imm(&c, c.t, "0"));
}

/* --- reverse mode ------------------------------------------------------ */

/* *sum += v in type t, converting v; built at instruction k's position. */
static void acc(Func *f, int k, Type t, int *sum, int v)
{
	R r = {f, k, t, NULL, NULL, 0, ZERO, 0};
	if (f->ins[v].type != t)
		v = mk(&r, O_CVT, t, v, -1, -1);
	*sum = add(&r, *sum, v);
}

/* active[k]: value k is a number depending on an input in wrt[] (so only
 * its adjoint is built: a rule's terms for the others would be dead). */
static char *activity(const Func *f, int n0, const char *wrt)
{
	char *active = calloc((size_t)(n0 ? n0 : 1), 1);
	if (!active)
		ICE("out of memory");
	for (int k = 0; k < n0; k++) {
		const Ins *in = &f->ins[k];
		if (in->type == T_BOOL || in->type == T_INT)
			continue;
		if (opinfo[in->op].props & P_LEAF) {
			active[k] = in->var >= 0 && in->op != O_IMM && wrt[in->var];
			continue;
		}
		for (int s = 0; s < ins_nargs(in); s++)
			if (in->arg[s] >= 0 && active[in->arg[s]])
				active[k] = 1;
	}
	return active;
}

/* One reverse sweep over the primal: seeds the adjoint of what the sinks
 * of result res accumulate (1, -1 for -=, the softmax weight for
 * logsumexp=), carries adjoints back through each operation by its deriv
 * rule, read with the operand's tangent set to the adjoint (the rules are
 * linear in the tangents), and accumulates the gradient with respect to
 * each input v with dvar[v] >= 0 into that new result: all of them in one
 * pass. */
static void rsweep(Ad *ad, int res, const char *active, const int *dvar)
{
	Func *f = ad->f;
	int n0 = ad->n0;
	int *adj = malloc(sizeof(int) * (size_t)(n0 ? n0 : 1));
	int *g = malloc(sizeof(int) * (size_t)(f->nvar ? f->nvar : 1));
	if (!adj || !g)
		ICE("out of memory");
	for (int v = 0; v < f->nvar; v++)
		g[v] = ZERO;
	int sink = -1;
	for (int k = 0; k < n0; k++) {
		adj[k] = ZERO;
		Ins in = f->ins[k];
		if (!(opinfo[in.op].props & P_SINK) || in.var != res)
			continue;
		if (in.op == O_ACCFMA || in.op == O_ACCFNMA)
			ICE("ad: a sink before fusion is not fused");
		int a = in.arg[0];
		sink = sink < 0 ? k : sink;
		if (!active[a])
			continue;
		R r = {f, k, f->ins[a].type, NULL, NULL, 0, ZERO, 0};
		int s = through(ad, k, imm(&r, r.t, "1"));
		acc(f, k, r.t, &adj[a], in.op == O_ACCSUB ? neg(&r, s) : s);
	}
	for (int k = n0 - 1; k >= 0; k--) {
		Ins in = f->ins[k]; /* a copy: building moves f->ins */
		if (adj[k] == ZERO)
			continue;
		if (opinfo[in.op].props & P_LEAF) {
			acc(f, k, in.type, &g[in.var], adj[k]);
			continue;
		}
		Prod p;
		if (grouped(f, k, NULL, active, &p)) {
			/* straight to the factors: the products between get
			 * adjoints only from their other uses */
			R r = {f, k, in.type, NULL, NULL, 0, ZERO, 0};
			for (int i = 0; i < p.n; i++) {
				int x = p.leaf[i];
				if (p.times[i] && active[x])
					acc(f, k, f->ins[x].type, &adj[x],
					    group(&r, &p, i, adj[k]));
			}
			continue;
		}
		for (int s = 0; s < ins_nargs(&in); s++) {
			int a = in.arg[s];
			if (a < 0 || !active[a])
				continue;
			R r = {f, k, in.type, NULL, opinfo[in.op].deriv, s + 1,
			       adj[k], 0};
			int v = rule(&r);
			if (v != ZERO)
				acc(f, k, f->ins[a].type, &adj[a], v);
		}
	}
	if (sink >= 0) {
		Ins p = f->ins[sink];
		Type t = f->ins[p.arg[0]].type;
		for (int v = 0; v < ad->nv0; v++) {
			if (dvar[v] < 0)
				continue;
			R r = {f, sink, t, NULL, NULL, 0, ZERO, 0};
			int d = real(&r, g[v]);
			if (f->ins[d].type != t)
				d = mk(&r, O_CVT, t, d, -1, -1);
			Ins s = ins_make(O_ACC, t, B_BODY, d, -1, -1);
			s.var = dvar[v];
			s.lane = p.lane;
			s.loc = p.loc;
			ins_add(f, s);
		}
	}
	free(adj);
	free(g);
}

/* The input `name` differentiated by, or -1 after an error. */
static int wrt_var(Func *f, const char *flag, const char *name)
{
	Ctx *c = f->ctx;
	int v = var_find(f, name);
	if (strcmp(name, "i") == 0 || strcmp(name, "j") == 0) {
		error_file(c, "%s: '%s' is the integer index of the %s-element; "
		           "a kernel is differentiable only with respect to its "
		           "floating-point inputs", flag, name, name);
		return -1;
	}
	if (v < 0) {
		const char *in = "";
		for (int w = 0; w < f->nvar; w++)
			if (f->var[w].role != NB_RMEM)
				in = cprintf(c, "%s%s%s", in, *in ? ", " : "",
				             f->var[w].name);
		error_file(c, "%s: '%s' is not an input of the kernel (an LMEM, "
		           "BMEM or CONST name; it has %s)", flag, nb_esc(name),
		           *in ? in : "none");
		return -1;
	}
	/* at its declaration: the flag has no place in the source */
	if (f->var[v].role == NB_RMEM) {
		nb_red red = f->var[v].red;
		if (red == NB_ARGMIN || red == NB_ARGMAX)
			error(c, f->var[v].loc, "%s: '%s' is the result of %s=, an "
			      "integer index and an output; derivatives are "
			      "taken with respect to inputs", flag, name,
			      nb_red_name(red));
		else
			error(c, f->var[v].loc, "%s: '%s' is an RMEM, an output; "
			      "derivatives are taken of the results with respect "
			      "to the inputs (LMEM, BMEM or CONST)", flag, name);
		return -1;
	}
	return v;
}

/* Sink k accumulates a value depending on what is differentiated: -1
 * after the error where its result has no derivative (docs/autodiff.md's
 * table: a min= or max= without its argmin= or argmax=), else 0. */
static int refused(Ad *ad, int k)
{
	Func *f = ad->f;
	const Ins *in = &f->ins[k];
	nb_red red = f->var[in->var].red;
	if ((red != NB_MIN && red != NB_MAX) || arg_of(ad, k) >= 0)
		return 0;
	error(f->ctx, in->loc, "this %s= reduction depends on what is "
	      "differentiated; its derivative is the tangent at its arg%s "
	      "(docs/autodiff.md): declare `k arg%s= ...` of the same value "
	      "beside it", nb_red_name(red), nb_red_name(red),
	      nb_red_name(red));
	return -1;
}

/* Builds every tangent of one forward sweep over the primal (seed[v]: the
 * tangent of the loads of variable v, or ZERO) and the derived sinks;
 * dname[r] names the derived result of RMEM r.  -1 after an error. */
static int sweep(Ad *ad, const int *seed, const char **dname)
{
	Func *f = ad->f;
	int n0 = ad->n0, nv = ad->nv0;
	int *tan = malloc(sizeof(int) * (size_t)(n0 ? n0 : 1));
	int *dvar = malloc(sizeof(int) * (size_t)(nv ? nv : 1));
	if (!tan || !dvar)
		ICE("out of memory");
	int rc = 0;
	for (int v = 0; v < nv; v++)
		dvar[v] = f->var[v].role == NB_RMEM && dname[v] ?
		          dresult(f, v, dname[v]) : -1;
	for (int k = 0; k < n0 && rc == 0; k++) {
		Ins in = f->ins[k];
		tan[k] = ZERO;
		if (opinfo[in.op].props & P_LEAF) {
			if (in.var >= 0 && in.op != O_IMM)
				tan[k] = seed[in.var];
			continue;
		}
		if (!(opinfo[in.op].props & P_SINK)) {
			tan[k] = derive(f, k, tan);
			continue;
		}
		nb_red red = f->var[in.var].red;
		int d = tan[in.arg[0]];
		if (dvar[in.var] < 0)
			continue;
		if (d != ZERO && (rc = refused(ad, k)) < 0)
			break;
		if (differentiable(red)) {
			Type t = f->ins[in.arg[0]].type;
			R r = {f, k, t, tan, NULL, 0, ZERO, 0};
			d = through(ad, k, d);
			Ins s = ins_make(red == NB_SUM ? in.op : O_ACC, t, B_BODY,
			                 real(&r, d), -1, -1);
			s.var = dvar[in.var];
			s.lane = in.lane;
			s.loc = in.loc;
			ins_add(f, s);
		}
	}
	free(tan);
	free(dvar);
	return rc;
}

static char *word(Ctx *c, const char *s, size_t n) { return cstrndup(c, s, n); }

/* Reverse mode: the results of[r] (those differentiable) get their
 * gradients with respect to the inputs wv[], dr_dX for X in order, from
 * one reverse sweep each.  -1 after an error (a reduction without a
 * derivative depending on them). */
static int reverse(Ad *ad, const int *wv, int nw, const char *of)
{
	Func *f = ad->f;
	int nv0 = ad->nv0;
	char *wrt = calloc((size_t)(nv0 ? nv0 : 1), 1);
	int *dv = malloc(sizeof(int) * (size_t)(nw * nv0 + 1));
	int *dvar = malloc(sizeof(int) * (size_t)(nv0 ? nv0 : 1));
	if (!wrt || !dv || !dvar)
		ICE("out of memory");
	for (int w = 0; w < nw; w++) {
		wrt[wv[w]] = 1;
		for (int v = 0; v < nv0; v++)
			dv[w * nv0 + v] = of[v] ? dresult(f, v, gname(f->ctx,
			                  f->var[v].name, f->var[wv[w]].name)) : -1;
	}
	char *active = activity(f, ad->n0, wrt);
	int rc = 0;
	for (int k = 0; k < ad->n0 && rc == 0; k++) {
		const Ins *in = &f->ins[k];
		if ((opinfo[in->op].props & P_SINK) && of[in->var] &&
		    active[in->arg[0]])
			rc = refused(ad, k);
	}
	for (int r = 0; r < nv0 && rc == 0; r++) {
		if (!of[r])
			continue;
		for (int v = 0; v < nv0; v++)
			dvar[v] = -1;
		for (int w = 0; w < nw; w++)
			dvar[wv[w]] = dv[w * nv0 + r];
		rsweep(ad, r, active, dvar);
	}
	free(active);
	free(wrt);
	free(dv);
	free(dvar);
	return rc;
}

/* Removes the results gone[v] (v < nv0) and their sinks. */
static void drop(Func *f, const char *gone, int nv0)
{
	int *keep = malloc(sizeof(int) * (size_t)(f->n ? f->n : 1));
	int *map = malloc(sizeof(int) * (size_t)(f->nvar ? f->nvar : 1));
	if (!keep || !map)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		keep[k] = !(opinfo[in->op].props & P_SINK) || in->var >= nv0 ||
		          !gone[in->var];
	}
	func_rewrite(f, keep, NULL, NULL);
	int m = 0;
	for (int v = 0; v < f->nvar; v++) {
		map[v] = -1;
		if (v >= nv0 || !gone[v]) {
			map[v] = m;
			f->var[m++] = f->var[v];
		}
	}
	f->nvar = m;
	for (int k = 0; k < f->n; k++)
		if (f->ins[k].var >= 0)
			f->ins[k].var = map[f->ins[k].var];
	free(keep);
	free(map);
}

/* The gradient with respect to BMEM inputs: a per-j result, a sum over
 * i for each j.  The kernel is turned around (LMEM and BMEM, i and j
 * exchange roles), so the inputs are per-i and reverse mode reduces over
 * the (new) j; the source's own results, per-i, go.  The caller runs it
 * with the BMEM arrays as the i-side and the LMEM arrays as the j-side. */
static int per_j(Ad *ad, const int *wv, int nw, const char *of)
{
	static const int swap[][2] = {{O_LDI, O_LDJ}, {O_IDXI, O_IDXJ}};
	Func *f = ad->f;
	ad->turned = 1;
	for (int v = 0; v < ad->nv0; v++)
		if (f->var[v].role == NB_LMEM || f->var[v].role == NB_BMEM)
			f->var[v].role = f->var[v].role == NB_LMEM ? NB_BMEM : NB_LMEM;
	for (int k = 0; k < f->n; k++)
		for (size_t s = 0; s < sizeof swap / sizeof swap[0]; s++)
			for (int e = 0; e < 2; e++)
				if (f->ins[k].op == swap[s][e]) {
					f->ins[k].op = swap[s][!e];
					break;
				}
	return reverse(ad, wv, nw, of);
}

/* The results --grad differentiates: of[r] for each differentiable r,
 * or those --grad-of names; -1 after an error. */
static int results(Ad *ad, const char *grad_of, char *of)
{
	Func *f = ad->f;
	int n = 0;
	for (int v = 0; v < ad->nv0; v++) {
		of[v] = !grad_of && f->var[v].role == NB_RMEM &&
		        differentiable(f->var[v].red);
		n += of[v];
	}
	for (const char *p = grad_of; p && *p;) {
		size_t len = strcspn(p, ",");
		char *x = word(f->ctx, p, len);
		int v = var_find(f, x);
		if (v < 0 || f->var[v].role != NB_RMEM ||
		    !differentiable(f->var[v].red)) {
			error_file(f->ctx, "--grad-of: '%s' is not a %s of the "
			           "kernel; the results differentiated are sums "
			           "(+=, -=), logsumexp=, min= and max=",
			           nb_esc(x),
			           v < 0 ? "result" : v < ad->nv0 &&
			           f->var[v].role == NB_RMEM ? "differentiable "
			           "result" : "result, but an input,");
			return -1;
		}
		n += !of[v];
		of[v] = 1;
		p += len + (p[len] == ',');
	}
	if (n == 0) {
		error_file(f->ctx, "--grad: the kernel has no sum result (+=, -=), "
		           "logsumexp=, min= or max= to differentiate");
		return -1;
	}
	return 0;
}

/* --grad: the inputs named get their gradients, in reverse mode when
 * that sweeps fewer times (fewer results than inputs), else one forward
 * sweep an input with the tangent 1. */
static int gradient(Ad *ad, const char *grad, const char *grad_of,
                    int with_jvp)
{
	Func *f = ad->f;
	Ctx *c = f->ctx;
	int nv0 = ad->nv0, nw = 0, nr = 0, rc = -1;
	int *wv = malloc(sizeof(int) * (strlen(grad) + 1));
	int *seed = malloc(sizeof(int) * (size_t)(nv0 ? nv0 : 1));
	const char **dname = calloc((size_t)(nv0 ? nv0 : 1), sizeof *dname);
	char *of = malloc((size_t)(nv0 ? nv0 : 1));
	if (!wv || !seed || !dname || !of)
		ICE("out of memory");
	for (const char *p = grad; *p;) {
		size_t n = strcspn(p, ",");
		char *x = word(c, p, n);
		int v = wrt_var(f, "--grad", x);
		if (v < 0)
			goto out;
		if (nw && (f->var[v].role == NB_BMEM) !=
		          (f->var[wv[0]].role == NB_BMEM)) {
			error_file(c, "--grad=%s: a BMEM's gradient is per "
			           "j-element, from a kernel of its own with i and "
			           "j exchanged: ask for the BMEM inputs apart from "
			           "the LMEM and CONST ones (docs/autodiff.md)",
			           nb_esc(grad));
			goto out;
		}
		wv[nw++] = v;
		p += n + (p[n] == ',');
	}
	int bmem = nw && f->var[wv[0]].role == NB_BMEM;
	if (bmem && with_jvp) {
		error_file(c, "--grad=%s: a BMEM's gradient is a kernel of its "
		           "own, with i and j exchanged: ask for --jvp apart",
		           nb_esc(grad));
		goto out;
	}
	if (results(ad, grad_of, of) < 0)
		goto out;
	if (bmem) {
		rc = per_j(ad, wv, nw, of);
		goto out;
	}
	for (int v = 0; v < nv0; v++)
		nr += of[v];
	/* tests force one mode; by default the one of fewer sweeps */
	const char *mode = getenv("NBCC_AD_MODE");
	if (mode && *mode && strcmp(mode, "reverse") && strcmp(mode, "forward")) {
		error_file(c, "NBCC_AD_MODE=%s: it must be reverse or forward "
		           "(or unset: the mode of fewer sweeps)",
		           nb_esc(mode));
		goto out;
	}
	if (mode && *mode ? *mode == 'r' : nr < nw) {
		rc = reverse(ad, wv, nw, of);
		goto out;
	}
	for (int w = 0; w < nw; w++) {
		for (int v = 0; v < nv0; v++) {
			seed[v] = ZERO;
			dname[v] = of[v] ? gname(c, f->var[v].name,
			                         f->var[wv[w]].name) : NULL;
		}
		Ins one = ins_make(O_IMM, f->var[wv[w]].type, B_BODY, -1, -1, -1);
		one.imm[0] = 1;
		seed[wv[w]] = ins_add(f, one);
		if (sweep(ad, seed, dname) < 0)
			goto out;
	}
	rc = 0;
out:
	free(wv);
	free(seed);
	free(dname);
	free(of);
	return rc;
}

/* --jvp: x:v gives input x the tangent input v; r:d names result r's
 * derivative d (default d_r), r:- drops it.  -1 after an error. */
static int tangents(Ad *ad, const char *jvp)
{
	Func *f = ad->f;
	Ctx *c = f->ctx;
	int nv0 = ad->nv0, rc = -1;
	int *seed = malloc(sizeof(int) * (size_t)(nv0 ? nv0 : 1));
	const char **dname = calloc((size_t)(nv0 ? nv0 : 1), sizeof *dname);
	if (!seed || !dname)
		ICE("out of memory");
	for (int v = 0; v < nv0; v++) {
		seed[v] = ZERO;
		if (f->var[v].role == NB_RMEM && differentiable(f->var[v].red))
			dname[v] = cprintf(c, "d_%s", f->var[v].name);
	}
	for (const char *p = jvp; *p;) {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);
		if (!colon || colon == p || colon + 1 == p + n) {
			error_file(c, "--jvp=%s: expected NAME:TANGENT pairs "
			           "separated by commas, as xi:vxi,yi:vyi",
			           nb_esc(jvp));
			goto out;
		}
		char *x = word(c, p, (size_t)(colon - p));
		char *t = word(c, colon + 1, (size_t)(p + n - colon - 1));
		int v = var_find(f, x);
		if (v >= 0 && v < nv0 && f->var[v].role == NB_RMEM &&
		    differentiable(f->var[v].red)) {
			dname[v] = strcmp(t, "-") == 0 ? NULL : t;
		} else {
			if ((v = wrt_var(f, "--jvp", x)) < 0)
				goto out;
			if (!nb_is_ident(t)) {
				error_file(c, "--jvp: the tangent name '%s' is not an "
				           "identifier", nb_esc(t));
				goto out;
			}
			int tv = var_find(f, t);
			if (tv < 0) {
				Var nvr = f->var[v];
				nvr.name = t;
				tv = var_add(f, nvr);
			} else if (f->var[tv].role != f->var[v].role ||
			           f->var[tv].type != f->var[v].type) {
				error_file(c, "--jvp: the tangent '%s' of '%s' must "
				           "be an input of its role and type", t, x);
				goto out;
			}
			Ins ld = ins_make(f->var[v].role == NB_LMEM ? O_LDI :
			                  f->var[v].role == NB_BMEM ? O_LDJ :
			                  O_CONST, f->var[v].type, B_BODY,
			                  -1, -1, -1);
			ld.var = tv;
			seed[v] = ins_add(f, ld);
		}
		p += n + (p[n] == ',');
	}
	rc = sweep(ad, seed, dname);
out:
	free(seed);
	free(dname);
	return rc;
}

/* A derived sum accumulates a sum or difference the derivation built,
 * used by nothing else, term by term: jx += mr3inv*dvx - dmr3*dx is then
 * two updates that the fma pass fuses, where it was a product, an fms
 * and an add.  The same sum (the accumulator adds one term at a time in
 * any case), one rounding fewer. */
static void split(Func *f, int n0)
{
	int *uses = calloc((size_t)(f->n ? f->n : 1), sizeof *uses);
	if (!uses)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++)
		for (int s = 0; s < ins_nargs(&f->ins[k]); s++)
			if (f->ins[k].arg[s] >= 0)
				uses[f->ins[k].arg[s]]++;
	for (int k = n0; k < f->n; k++) { /* the new sinks too */
		Ins in = f->ins[k];
		if (in.op != O_ACC && in.op != O_ACCSUB)
			continue;
		const Ins *v = &f->ins[in.arg[0]];
		if (in.arg[0] < n0 || uses[in.arg[0]] != 1 || v->type != in.type ||
		    (v->op != O_ADD && v->op != O_SUB))
			continue;
		int sub = v->op == O_SUB, x = v->arg[0], y = v->arg[1];
		uses[in.arg[0]] = 0;
		f->ins[k].arg[0] = x;
		in.arg[0] = y;
		if (sub)
			in.op = in.op == O_ACC ? O_ACCSUB : O_ACC;
		ins_add(f, in);
		k--; /* x may be a sum again */
	}
	free(uses);
}

int ad_derive(Func *f, const char *jvp, const char *grad, const char *grad_of)
{
	Ctx *c = f->ctx;
	Ad ad = {f, f->n, f->nvar, 0, NULL};
	int rc = -1, nv0 = f->nvar;
	ad.pin = malloc(sizeof(int) * (size_t)(nv0 ? nv0 : 1));
	char *gone = malloc((size_t)(nv0 ? nv0 : 1));
	if (!ad.pin || !gone)
		ICE("out of memory");
	for (int v = 0; v < nv0; v++)
		ad.pin[v] = -1;
	if (grad_of && !grad) {
		error_file(c, "--grad-of=%s: it chooses the results --grad "
		           "differentiates; give --grad too", nb_esc(grad_of));
		goto out;
	}
	if (jvp && tangents(&ad, jvp) < 0)
		goto out;
	if (grad && gradient(&ad, grad, grad_of, jvp != NULL) < 0)
		goto out;
	/* a turned kernel's per-i results have no place in it; a result
	 * the primal's run gives is an input now */
	for (int v = 0; v < nv0; v++)
		gone[v] = f->var[v].role == NB_RMEM && (ad.turned ||
		          ad.pin[v] >= 0);
	split(f, ad.n0);
	drop(f, gone, nv0);
	for (int v = 0; v < f->nvar; v++)
		for (int w = 0; w < v; w++)
			if (strcmp(f->var[v].name, f->var[w].name) == 0) {
				error_file(c, "the derived name '%s' is declared "
				           "already; name it another way (r:NAME in "
				           "--jvp)", f->var[v].name);
				goto out;
			}
	var_order(f);
	rc = 0;
out:
	free(ad.pin);
	free(gone);
	return rc;
}
