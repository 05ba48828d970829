/* ad.c: automatic differentiation of the lowered IR (docs/autodiff.md).
 * Forward mode carries a tangent for each value, built from the deriv
 * column of ops.h (--jvp: named tangent inputs); reverse mode carries
 * adjoints back from each sum by the same column (--grad, or one forward
 * sweep per input where that sweeps less; BMEM inputs by the kernel turned
 * around).  Each sum result gets derived results with the same reduction,
 * and the passes then see one kernel. */
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
} R;

static int mk(R *r, int op, Type t, int a, int b, int c)
{
	Ins in = ins_make(op, t, B_BODY, a, b, c);
	in.loc = r->f->ins[r->k].loc;
	return ins_add(r->f, in);
}

static int imm(R *r, Type t, const char *text)
{
	int v = mk(r, O_IMM, t, -1, -1, -1);
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
	if (v == ZERO)
		return v;
	Type have = r->f->ins[v].type;
	if (have == r->t || !type_numeric(have) || !type_numeric(r->t))
		return v;
	return mk(r, O_CVT, r->t, v, -1, -1);
}

static int add(R *r, int x, int y)
{
	return x == ZERO ? y : y == ZERO ? x : mk(r, O_ADD, r->t, x, y, -1);
}

static int neg(R *r, int x) { return x == ZERO ? x : mk(r, O_NEG, r->t, x, -1, -1); }

static int sub(R *r, int x, int y)
{
	return y == ZERO ? x : x == ZERO ? neg(r, y) : mk(r, O_SUB, r->t, x, y, -1);
}

static int mul(R *r, int x, int y)
{
	return x == ZERO || y == ZERO ? ZERO : mk(r, O_MUL, r->t, x, y, -1);
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

static int expr(R *r)
{
	int v = term(r);
	for (;;) {
		skip(r);
		char c = *r->p;
		if (c != '+' && c != '-')
			return v;
		r->p++;
		int w = term(r);
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

/* The tangent of instruction k by its rule, given its operands'. */
static int derive(Func *f, int k, int *tan)
{
	R r = {f, k, f->ins[k].type, tan, opinfo[f->ins[k].op].deriv, 0, ZERO};
	if (f->ins[k].type == T_BOOL || f->ins[k].type == T_INT)
		return ZERO;
	return rule(&r);
}

/* --- reverse mode ------------------------------------------------------ */

/* *sum += v in type t, converting v; built at instruction k's position. */
static void acc(Func *f, int k, Type t, int *sum, int v)
{
	R r = {f, k, t, NULL, NULL, 0, ZERO};
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

/* One reverse sweep over the first n0 instructions: seeds the adjoint of
 * what the sinks of sum result res accumulate (1, or -1 for -=), carries
 * adjoints back through each operation by its deriv rule, read with the
 * operand's tangent set to the adjoint (the rules are linear in the
 * tangents), and accumulates the gradient with respect to each input v
 * with dvar[v] >= 0 into that new result: all of them in one pass. */
static void rsweep(Func *f, int n0, int nv0, int res, const char *active,
                   const int *dvar)
{
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
		if (in.op != O_ACC && in.op != O_ACCSUB)
			ICE("ad: a sum's sink before fusion is += or -=");
		int a = in.arg[0];
		sink = sink < 0 ? k : sink;
		if (!active[a])
			continue;
		R r = {f, k, f->ins[a].type, NULL, NULL, 0, ZERO};
		int one = imm(&r, r.t, "1");
		acc(f, k, r.t, &adj[a], in.op == O_ACCSUB ? neg(&r, one) : one);
	}
	for (int k = n0 - 1; k >= 0; k--) {
		Ins in = f->ins[k]; /* a copy: building moves f->ins */
		if (adj[k] == ZERO)
			continue;
		if (opinfo[in.op].props & P_LEAF) {
			acc(f, k, in.type, &g[in.var], adj[k]);
			continue;
		}
		for (int s = 0; s < ins_nargs(&in); s++) {
			int a = in.arg[s];
			if (a < 0 || !active[a])
				continue;
			R r = {f, k, in.type, NULL, opinfo[in.op].deriv, s + 1,
			       adj[k]};
			int v = rule(&r);
			if (v != ZERO)
				acc(f, k, f->ins[a].type, &adj[a], v);
		}
	}
	if (sink >= 0) {
		Ins p = f->ins[sink];
		Type t = f->ins[p.arg[0]].type;
		for (int v = 0; v < nv0; v++) {
			if (dvar[v] < 0)
				continue;
			R r = {f, sink, t, NULL, NULL, 0, ZERO};
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
		error_file(c, "%s: '%s' is not an input of the kernel (an LMEM, "
		           "BMEM or CONST name)", flag, name);
		return -1;
	}
	if (f->var[v].role == NB_RMEM) {
		nb_red red = f->var[v].red;
		if (red == NB_ARGMIN || red == NB_ARGMAX)
			error_file(c, "%s: '%s' is the result of %s=, an integer "
			           "index and an output; derivatives are taken "
			           "with respect to inputs", flag, name,
			           nb_red_name(red));
		else
			error_file(c, "%s: '%s' is an RMEM, an output; derivatives "
			           "are taken of the results with respect to the "
			           "inputs (LMEM, BMEM or CONST)", flag, name);
		return -1;
	}
	return v;
}

/* Sink `in` accumulates a value depending on what is differentiated:
 * -1 after the error where its reduction has no derivative built (docs/
 * autodiff.md's table), else 0. */
static int refused(Func *f, const Ins *in)
{
	nb_red red = f->var[in->var].red;
	if (red == NB_SUM || red == NB_COUNT || red == NB_ARGMIN ||
	    red == NB_ARGMAX)
		return 0;
	error(f->ctx, in->loc, "this %s= reduction depends on what is "
	      "differentiated, and only sums (+=, -=) are differentiated "
	      "(docs/autodiff.md)", nb_red_name(red));
	return -1;
}

/* Builds every tangent of one forward sweep over the first n0
 * instructions (seed[v]: the tangent of the loads of variable v < nv, or
 * ZERO) and the derived sinks; dname(r) names the
 * derived result of RMEM r.  Returns -1 after an error. */
static int sweep(Func *f, int n0, int nv, const int *seed,
                 const char **dname)
{
	int *tan = malloc(sizeof(int) * (size_t)(n0 ? n0 : 1));
	int *dvar = malloc(sizeof(int) * (size_t)(nv ? nv : 1));
	if (!tan || !dvar)
		ICE("out of memory");
	int rc = 0;
	for (int v = 0; v < nv; v++) {
		dvar[v] = -1;
		Var x = f->var[v];
		if (x.role != NB_RMEM || !dname[v])
			continue;
		x.name = dname[v];
		x.sym = 0;
		dvar[v] = var_add(f, x);
	}
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
		if (red == NB_SUM && dvar[in.var] >= 0) {
			Ins s = ins_make(in.op, f->ins[in.arg[0]].type, B_BODY,
			                 -1, -1, -1);
			R r = {f, in.arg[0], f->ins[in.arg[0]].type, tan, NULL, 0,
			       ZERO};
			s.arg[0] = real(&r, d);
			s.var = dvar[in.var];
			s.lane = in.lane;
			s.loc = in.loc;
			ins_add(f, s);
		} else if (d != ZERO) {
			rc = refused(f, &in);
		}
	}
	free(tan);
	free(dvar);
	return rc;
}

static char *word(Ctx *c, const char *s, size_t n) { return cstrndup(c, s, n); }

/* Reverse mode: the sums depending on the inputs wrt[] get their
 * gradients, dr_dX for X in order, from one reverse sweep each.  -1 after
 * an error (a non-sum reduction depending on them). */
static int reverse(Func *f, int n0, int nv0, const int *wv, int nw)
{
	char *wrt = calloc((size_t)(nv0 ? nv0 : 1), 1);
	int *dv = malloc(sizeof(int) * (size_t)(nw * nv0 + 1));
	int *dvar = malloc(sizeof(int) * (size_t)(nv0 ? nv0 : 1));
	if (!wrt || !dv || !dvar)
		ICE("out of memory");
	for (int w = 0; w < nw; w++) {
		wrt[wv[w]] = 1;
		for (int v = 0; v < nv0; v++) {
			Var x = f->var[v];
			dv[w * nv0 + v] = -1;
			if (x.role != NB_RMEM || x.red != NB_SUM)
				continue;
			x.name = cprintf(f->ctx, "d%s_d%s", x.name,
			                 f->var[wv[w]].name);
			x.sym = 0;
			dv[w * nv0 + v] = var_add(f, x);
		}
	}
	char *active = activity(f, n0, wrt);
	int rc = 0;
	for (int k = 0; k < n0 && rc == 0; k++) {
		const Ins *in = &f->ins[k];
		if ((opinfo[in->op].props & P_SINK) && active[in->arg[0]])
			rc = refused(f, in);
	}
	for (int r = 0; r < nv0 && rc == 0; r++) {
		if (f->var[r].role != NB_RMEM || f->var[r].red != NB_SUM)
			continue;
		for (int v = 0; v < nv0; v++)
			dvar[v] = -1;
		for (int w = 0; w < nw; w++)
			dvar[wv[w]] = dv[w * nv0 + r];
		rsweep(f, n0, nv0, r, active, dvar);
	}
	free(active);
	free(wrt);
	free(dv);
	free(dvar);
	return rc;
}

/* The gradient with respect to BMEM inputs: a per-j result, a sum over
 * i for each j.  The kernel is turned around (LMEM and BMEM, i and j
 * exchange roles), so the inputs are per-i and reverse mode reduces over
 * the (new) j; the source's own results, per-i, go.  The caller runs it
 * with the BMEM arrays as the i-side and the LMEM arrays as the j-side. */
static int per_j(Func *f, int n0, int nv0, const int *wv, int nw)
{
	static const int swap[][2] = {{O_LDI, O_LDJ}, {O_IDXI, O_IDXJ}};
	if (f->n != n0 || f->nvar != nv0) {
		error_file(f->ctx, "--grad=%s: a BMEM's gradient is a kernel of "
		           "its own, with i and j exchanged: ask for --jvp "
		           "apart", f->var[wv[0]].name);
		return -1;
	}
	for (int v = 0; v < nv0; v++)
		if (f->var[v].role == NB_LMEM || f->var[v].role == NB_BMEM)
			f->var[v].role = f->var[v].role == NB_LMEM ? NB_BMEM : NB_LMEM;
	for (int k = 0; k < f->n; k++)
		for (size_t s = 0; s < sizeof swap / sizeof swap[0]; s++)
			for (int e = 0; e < 2; e++)
				if (f->ins[k].op == swap[s][e]) {
					f->ins[k].op = swap[s][!e];
					break;
				}
	if (reverse(f, n0, nv0, wv, nw) < 0)
		return -1;
	int *keep = malloc(sizeof(int) * (size_t)f->n);
	int *map = malloc(sizeof(int) * (size_t)f->nvar);
	if (!keep || !map)
		ICE("out of memory");
	for (int k = 0; k < f->n; k++)
		keep[k] = k >= n0 || !(opinfo[f->ins[k].op].props & P_SINK);
	func_rewrite(f, keep, NULL, NULL);
	int m = 0;
	for (int v = 0; v < f->nvar; v++) {
		map[v] = -1;
		if (v >= nv0 || f->var[v].role != NB_RMEM) {
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
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM)
			return 0;
	error_file(f->ctx, "--grad=%s: the kernel has no sum result (+=, -=) "
	           "to differentiate", f->var[wv[0]].name);
	return -1;
}

/* --grad: the inputs named get their gradients, in reverse mode when
 * that sweeps fewer times (fewer sum results than inputs), else one
 * forward sweep an input with the tangent 1. */
static int gradient(Func *f, int n0, int nv0, const char *grad)
{
	Ctx *c = f->ctx;
	int nw = 0, nr = 0, rc = -1;
	int *wv = malloc(sizeof(int) * (strlen(grad) + 1));
	int *seed = malloc(sizeof(int) * (size_t)(nv0 ? nv0 : 1));
	const char **dname = calloc((size_t)(nv0 ? nv0 : 1), sizeof *dname);
	if (!wv || !seed || !dname)
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
			           "the LMEM and CONST ones (docs/autodiff.md)", grad);
			goto out;
		}
		wv[nw++] = v;
		p += n + (p[n] == ',');
	}
	if (nw && f->var[wv[0]].role == NB_BMEM) {
		rc = per_j(f, n0, nv0, wv, nw);
		goto out;
	}
	for (int v = 0; v < nv0; v++)
		nr += f->var[v].role == NB_RMEM && f->var[v].red == NB_SUM;
	/* tests force one mode; by default the one of fewer sweeps */
	const char *mode = getenv("NBCC_AD_MODE");
	if (mode && *mode && strcmp(mode, "reverse") && strcmp(mode, "forward")) {
		error_file(c, "NBCC_AD_MODE=%s: it must be reverse or forward "
		           "(or unset: the mode of fewer sweeps)", mode);
		rc = -1;
		goto out;
	}
	int rev = mode && *mode ? *mode == 'r' : nr < nw;
	if (rev) {
		rc = reverse(f, n0, nv0, wv, nw);
		goto out;
	}
	for (int w = 0; w < nw; w++) {
		for (int v = 0; v < nv0; v++) {
			seed[v] = ZERO;
			dname[v] = NULL;
			if (f->var[v].role == NB_RMEM && f->var[v].red == NB_SUM)
				dname[v] = cprintf(c, "d%s_d%s", f->var[v].name,
				                   f->var[wv[w]].name);
		}
		Ins one = ins_make(O_IMM, f->var[wv[w]].type, B_BODY, -1, -1, -1);
		one.imm[0] = 1;
		seed[wv[w]] = ins_add(f, one);
		if (sweep(f, n0, nv0, seed, dname) < 0)
			goto out;
	}
	rc = 0;
out:
	free(wv);
	free(seed);
	free(dname);
	return rc;
}

int ad_derive(Func *f, const char *jvp, const char *grad)
{
	Ctx *c = f->ctx;
	int n0 = f->n, nv0 = f->nvar;
	int *seed = malloc(sizeof(int) * (size_t)(nv0 ? nv0 : 1));
	const char **dname = calloc((size_t)(nv0 ? nv0 : 1), sizeof *dname);
	int rc = -1;
	if (!seed || !dname)
		ICE("out of memory");
	if (jvp) {
		/* x:v gives input x the tangent input v; r:d names result r's
		 * derivative d (default d_r), r:- drops it */
		for (int v = 0; v < nv0; v++) {
			seed[v] = ZERO;
			if (f->var[v].role == NB_RMEM && f->var[v].red == NB_SUM)
				dname[v] = cprintf(c, "d_%s", f->var[v].name);
		}
		for (const char *p = jvp; *p;) {
			size_t n = strcspn(p, ",");
			const char *colon = memchr(p, ':', n);
			if (!colon || colon == p || colon + 1 == p + n) {
				error_file(c, "--jvp=%s: expected NAME:TANGENT pairs "
				           "separated by commas, as xi:vxi,yi:vyi", jvp);
				goto out;
			}
			char *x = word(c, p, (size_t)(colon - p));
			char *t = word(c, colon + 1, (size_t)(p + n - colon - 1));
			int v = var_find(f, x);
			if (v >= 0 && v < nv0 && f->var[v].role == NB_RMEM &&
			    f->var[v].red == NB_SUM) {
				dname[v] = strcmp(t, "-") == 0 ? NULL : t;
			} else {
				if ((v = wrt_var(f, "--jvp", x)) < 0)
					goto out;
				if (!nb_is_ident(t)) {
					error_file(c, "--jvp: the tangent name '%s' is "
					           "not an identifier", t);
					goto out;
				}
				int tv = var_find(f, t);
				if (tv < 0) {
					Var nvr = f->var[v];
					nvr.name = t;
					tv = var_add(f, nvr);
				} else if (f->var[tv].role != f->var[v].role ||
				           f->var[tv].type != f->var[v].type) {
					error_file(c, "--jvp: the tangent '%s' of '%s' "
					           "must be an input of its role and type",
					           t, x);
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
		if (sweep(f, n0, nv0, seed, dname) < 0)
			goto out;
	}
	if (grad && gradient(f, n0, nv0, grad) < 0)
		goto out;
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
	free(seed);
	free(dname);
	return rc;
}
