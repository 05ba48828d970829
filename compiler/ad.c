/* ad.c: automatic differentiation of the lowered IR (docs/autodiff.md).
 * Forward mode carries a tangent for each value, built from the deriv
 * column of ops.h; --jvp seeds named tangent inputs, --grad seeds one unit
 * tangent per input it differentiates by, and each sum result gets a
 * derived result with the same reduction.  The passes then see one kernel. */
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

/* The tangent of instruction k by its rule, given its operands'. */
static int derive(Func *f, int k, int *tan)
{
	R r = {f, k, f->ins[k].type, tan, opinfo[f->ins[k].op].deriv};
	if (f->ins[k].type == T_BOOL || f->ins[k].type == T_INT)
		return ZERO;
	int v = expr(&r);
	skip(&r);
	if (*r.p)
		ICE("ops.h: %s's derivative rule does not parse at '%s'",
		    opinfo[f->ins[k].op].name, r.p);
	return v;
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
			R r = {f, in.arg[0], f->ins[in.arg[0]].type, tan, NULL};
			s.arg[0] = real(&r, d);
			s.var = dvar[in.var];
			s.lane = in.lane;
			s.loc = in.loc;
			ins_add(f, s);
		} else if (red != NB_SUM && red != NB_COUNT && d != ZERO &&
		           (red != NB_ARGMIN && red != NB_ARGMAX)) {
			error(f->ctx, in.loc, "this %s= reduction depends on what "
			      "is differentiated, and only sums (+=, -=) are "
			      "differentiated (docs/autodiff.md)", nb_red_name(red));
			rc = -1;
		}
	}
	free(tan);
	free(dvar);
	return rc;
}

static char *word(Ctx *c, const char *s, size_t n) { return cstrndup(c, s, n); }

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
	if (grad) {
		for (const char *p = grad; *p;) {
			size_t n = strcspn(p, ",");
			char *x = word(c, p, n);
			int v = wrt_var(f, "--grad", x);
			if (v < 0)
				goto out;
			if (f->var[v].role == NB_BMEM) {
				error_file(c, "--grad=%s: a gradient with respect to "
				           "a BMEM input needs the runtime to exchange "
				           "i and j, which it does not yet; use --jvp "
				           "with a BMEM tangent (docs/autodiff.md)", x);
				goto out;
			}
			for (int w = 0; w < nv0; w++) {
				seed[w] = ZERO;
				dname[w] = NULL;
				if (f->var[w].role == NB_RMEM && f->var[w].red == NB_SUM)
					dname[w] = cprintf(c, "d%s_d%s", f->var[w].name, x);
			}
			Ins one = ins_make(O_IMM, f->var[v].type, B_BODY, -1, -1, -1);
			one.imm[0] = 1;
			seed[v] = ins_add(f, one);
			if (sweep(f, n0, nv0, seed, dname) < 0)
				goto out;
			p += n + (p[n] == ',');
		}
	}
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
