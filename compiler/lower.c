/* lower.c: the checked AST to IR.  Each expression is computed in its own
 * type (the widest of its operands) and converted where its context needs
 * another; literals are born in their context's type, dd literals read
 * from their spelling so that 0.1 is the dd nearest 0.1, not a double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

typedef struct L {
	Ctx *c;
	Func *f;
	int varbase[4];  /* first Func.var index of each role */
	int *tempval;    /* value of each typed temporary, by Sym.index */
	int *said;       /* offsets of literals diagnosed: a literal temporary */
	int nsaid, cap;  /* is lowered again at each use */
} L;

static Type default_type(L *l) { return (Type)l->c->opt->precision; }

static int emit(L *l, Ins in, Loc loc)
{
	in.loc = loc;
	return ins_add(l->f, in);
}

/* Whether a literal's digits are not all zeros. */
static int nonzero(const char *text)
{
	for (const char *p = text; *p && *p != 'e' && *p != 'E'; p++)
		if (*p >= '1' && *p <= '9')
			return 1;
	return 0;
}

static int said(L *l, Loc loc)
{
	for (int i = 0; i < l->nsaid; i++)
		if (l->said[i] == loc.off)
			return 1;
	if (l->nsaid == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->said = realloc(l->said, sizeof(int) * (size_t)l->cap);
		if (!l->said)
			ICE("out of memory");
	}
	l->said[l->nsaid++] = loc.off;
	return 0;
}

/* A literal takes its type from its context here, so here is where one
 * that type cannot hold is caught (sema has refused what overflows a
 * double).  Too large is an error: 1e39 as a float would be infinity.
 * Too small only a warning: rounding a nonzero literal to 0 (1e-50 in
 * float), or to a float subnormal, which devices that flush subnormals
 * read as 0, is off by less than the type's smallest step, and in most
 * uses (x + 1e-50) changes nothing; but where it divides or is
 * divided by, the user should know. */
static void check_range(L *l, Type t, const char *text, double v, Loc loc)
{
	const Prec *p = &prec[t];
	int n = (int)strlen(text);
	const char *more = n > 40 ? "..." : "";
	if (isinf(v)) {
		if (!said(l, loc))
			error(l->c, loc, "number '%.40s%s' is too large for a "
			      "%s, the type of its context (at most %.8g)", text,
			      more, p->name, p->max);
	} else if (v == 0 && nonzero(text)) {
		if (!said(l, loc))
			warn(l->c, loc, "number '%.40s%s' is too small for a %s, "
			     "the type of its context: it becomes 0 (the smallest "
			     "%s is %.2g)", text, more, p->name, p->name,
			     p->true_min);
	} else if (p->ftz && v != 0 && fabs(v) < p->min_normal) {
		if (!said(l, loc))
			warn(l->c, loc, "number '%.40s%s' is below the smallest "
			     "normal %s (%.8g), the type of its context: it "
			     "keeps fewer digits, and is 0 where subnormals are "
			     "flushed (float OpenCL kernels ask for that unless "
			     "--no-ftz)", text, more, p->name, p->min_normal);
	}
}

static int imm(L *l, Type t, const char *text, double v, Loc loc)
{
	Ins in = ins_make(O_IMM, t, B_BODY, -1, -1, -1);
	double d[2] = {v, 0};
	/* read from the text in the context's type: a float rounded from
	 * the double could round twice, and a dd keeps the digits a double
	 * drops.  The lexer's spellings are plain decimals; one the type
	 * cannot hold reads as infinity, for check_range to report. */
	if (type_numeric(t)) {
		if (prec[t].read(text, d))
			d[0] = INFINITY, d[1] = 0;
		check_range(l, t, text, d[0], loc);
	}
	in.imm[0] = d[0];
	in.imm[1] = d[1];
	return emit(l, in, loc);
}

static int lit(L *l, Type t, double v, Loc loc)
{
	Ins in = ins_make(O_IMM, t, B_BODY, -1, -1, -1);
	in.imm[0] = v;
	return emit(l, in, loc);
}

/* A condition where a number is wanted is 0 or 1 (counting). */
static int convert(L *l, int v, Type want, Loc loc)
{
	Type have = l->f->ins[v].type;
	if (have == want || want == T_BOOL)
		return v;
	if (have == T_BOOL)
		return emit(l, ins_make(O_SEL, want, B_BODY, v,
		                        lit(l, want, 1, loc), lit(l, want, 0, loc)),
		            loc);
	return emit(l, ins_make(O_CVT, want, B_BODY, v, -1, -1), loc);
}

/* Whether a comparison's operand is exact as an index: an index, or a
 * literal integer an i32 holds. */
static int intlike(const Node *n)
{
	return n->type == T_INT ||
	       (n->type == T_LIT && n->isconst && fabs(n->num) < 2147483647.0 &&
	        n->num == (double)(int)n->num);
}

static int lx(L *l, const Node *n, Type want);

/* The type an operation of these operands is computed in. */
static Type natural(const Node *n, Type want)
{
	return n->type == T_LIT ? want : n->type;
}

static int binop(L *l, int op, const Node *n, Type t)
{
	int a = lx(l, n->a, t), b = lx(l, n->b, t);
	return emit(l, ins_make(op, t, B_BODY, a, b, -1), n->loc);
}

static int lx(L *l, const Node *n, Type want)
{
	Type t = want == T_BOOL ? T_BOOL : natural(n, want);
	int v = -1;
	/* a condition or an index as a number takes the type wanted */
	if (t == T_BOOL || t == T_INT)
		t = want;
	if (want == T_INT && n->isconst)
		return lit(l, T_INT, n->num, n->loc);
	switch (n->kind) {
	case E_NUM:
		if (want == T_INT)
			return lit(l, T_INT, n->num, n->loc);
		return imm(l, want, n->text, n->num, n->loc);
	case E_IDX: {
		Ins in = ins_make(n->fn ? O_IDXJ : O_IDXI, T_INT, B_BODY, -1, -1,
		                  -1);
		v = emit(l, in, n->loc);
		break;
	}
	case E_NAME: {
		const Sym *s = n->sym;
		if (s->kind == SYM_TEMP) {
			if (s->type == T_LIT)
				return lx(l, s->def, want);
			v = l->tempval[s->index];
			break;
		}
		int op = s->kind == SYM_LMEM ? O_LDI :
		         s->kind == SYM_BMEM ? O_LDJ : O_CONST;
		Ins in = ins_make(op, s->type, B_BODY, -1, -1, -1);
		in.var = l->varbase[s->kind] + s->index;
		v = emit(l, in, n->loc);
		break;
	}
	case E_NEG:
		v = emit(l, ins_make(O_NEG, t, B_BODY, lx(l, n->a, t), -1, -1),
		         n->loc);
		break;
	/* the exponent of ** is a literal expression in the type of x
	 * (sema's value is only a double): x**0.1 of a dd x takes the dd
	 * nearest 0.1; fold makes it one literal before powred */
	case E_ADD: case E_SUB: case E_MUL: case E_DIV: case E_POW:
		v = binop(l, node_op[n->kind], n, t);
		break;
	case E_LT: case E_LE: case E_GT: case E_GE: case E_EQ: case E_NE: {
		/* indices compare exactly, as i32 */
		Type ot = type_join(n->a->type, n->b->type);
		if ((n->a->type == T_INT || n->b->type == T_INT) &&
		    intlike(n->a) && intlike(n->b))
			ot = T_INT;
		else if (ot == T_LIT)
			ot = default_type(l);
		int a = lx(l, n->a, ot), b = lx(l, n->b, ot);
		v = emit(l, ins_make(node_op[n->kind], T_BOOL, B_BODY, a, b, -1),
		         n->loc);
		break;
	}
	case E_AND:
	case E_OR: {
		int a = lx(l, n->a, T_BOOL), b = lx(l, n->b, T_BOOL);
		v = emit(l, ins_make(node_op[n->kind], T_BOOL, B_BODY, a, b, -1),
		         n->loc);
		break;
	}
	case E_NOT:
		v = emit(l, ins_make(O_NOT, T_BOOL, B_BODY, lx(l, n->a, T_BOOL),
		                     -1, -1), n->loc);
		break;
	case E_COND: {
		int cnd = lx(l, n->a, T_BOOL);
		int a = lx(l, n->b, t), b = lx(l, n->c, t);
		v = emit(l, ins_make(O_SEL, t, B_BODY, cnd, a, b), n->loc);
		break;
	}
	case E_CALL: {
		if (n->fn == O_CVT) { /* float(e), double(e), dd(e) */
			v = lx(l, n->args[0], t);
			break;
		}
		int a[3] = {-1, -1, -1};
		for (int i = 0; i < n->nargs; i++)
			a[i] = lx(l, n->args[i], t);
		v = emit(l, ins_make(n->fn, t, B_BODY, a[0], a[1], a[2]),
		         n->loc);
		break;
	}
	}
	if (want == T_BOOL)
		return v;
	return convert(l, v, want, n->loc);
}

Func *lower(Ctx *c, Prog *p)
{
	L l = {0};
	l.c = c;
	l.f = func_new(c, NULL);
	static const SymKind order[] = {SYM_LMEM, SYM_BMEM, SYM_CONST, SYM_RMEM};
	int nv = 0;
	for (int r = 0; r < 4; r++)
		nv += p->nsym[order[r]];
	l.f->var = cnew(c, sizeof(Var) * (size_t)(nv ? nv : 1));
	for (int r = 0; r < 4; r++) {
		SymKind k = order[r];
		l.varbase[k] = l.f->nvar;
		for (int i = 0; i < p->nsym[k]; i++) {
			Var *v = &l.f->var[l.f->nvar++];
			v->name = p->sym[k][i]->name;
			v->role = (nb_role)k;
			v->type = p->sym[k][i]->type;
			const Sym *y = p->sym[k][i];
			v->red = !y->red ? NB_SUM : y->red->red == NB_SUM &&
			         !y->nocount ? NB_COUNT : y->red->red;
			v->sym = y->sym;
			v->loc = y->loc;
		}
	}
	l.tempval = cnew(c, sizeof(int) * (size_t)(p->nsym[SYM_TEMP] + 1));

	for (int i = 0; i < p->nstmt; i++) {
		Stmt *s = p->stmt[i];
		if (l.f->n > MAX_INS) {
			error(c, s->loc, "the kernel is too large: more than %d "
			      "operations before this statement; split it",
			      MAX_INS);
			break;
		}
		switch (s->kind) {
		case S_DECL:
			break;
		case S_LET:
			if (s->sym->type != T_LIT) {
				int v = lx(&l, s->e, s->sym->type);
				Ins *in = &l.f->ins[v];
				/* a name for dumps, unless the value already has
				 * one (t = u;) or is an input */
				if (!in->name && !(opinfo[in->op].props & P_LEAF))
					in->name = s->name;
				l.tempval[s->sym->index] = v;
			}
			break;
		default: {
			Type t = s->sym->type;
			int v = lx(&l, s->e, t);
			int op = accum_of(s->kind)->sink;
			Ins in = ins_make(op, t, B_BODY, v, -1, -1);
			if (opinfo[op].nargs == 2) /* the arg forms: j too */
				in.arg[1] = emit(&l, ins_make(O_IDXJ, T_INT, B_BODY,
				                              -1, -1, -1), s->loc);
			in.var = l.varbase[SYM_RMEM] + s->sym->index;
			emit(&l, in, s->loc);
			break;
		}
		}
	}
	free(l.said);
	return l.f;
}
