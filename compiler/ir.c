/* ir.c: the opcode table, building and renumbering instruction lists, the
 * text form every pass can be dumped in (--emit=ir), and the verifier that
 * holds each pass to the rules stated in ir.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

const OpInfo opinfo[O_COUNT] = {
#define OP(n, a, p, k, fl, lat, sym, fn, call, dd, fold, ddfold, il, ilp, deriv) \
	[O_##n] = {#n, a, p, k, fl, lat, sym, fn, call, dd, il, ilp, deriv},
#include "ops.h"
};

const int node_op[] = {
	[E_NEG] = O_NEG, [E_NOT] = O_NOT, [E_ADD] = O_ADD, [E_SUB] = O_SUB,
	[E_MUL] = O_MUL, [E_DIV] = O_DIV, [E_POW] = O_POW, [E_LT] = O_LT,
	[E_LE] = O_LE,   [E_GT] = O_GT,   [E_GE] = O_GE,   [E_EQ] = O_EQ,
	[E_NE] = O_NE,   [E_AND] = O_AND, [E_OR] = O_OR,   [E_COND] = O_SEL,
};

/* Other names of built-in functions: min and max are fmin and fmax, whose
 * NaN operand loses to a number (C's and OpenCL's rule, and ddlib.h's). */
const Alias builtin_alias[] = {{"min", O_FMIN}, {"max", O_FMAX}, {0, 0}};

int builtin_find(const char *name)
{
	for (int op = 0; op < O_COUNT; op++)
		if (opinfo[op].call && strcmp(opinfo[op].call, name) == 0)
			return op;
	for (const Alias *a = builtin_alias; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a->op;
	return -1;
}

int op_eval(int op, Type t, const double *a, const double *b,
            const double *c, double *r)
{
	static const double zero[2] = {0, 0};
	return prec[t].eval(op, a ? a : zero, b ? b : zero, c ? c : zero, r);
}

const char *const kind_name[K_COUNT] = {
	[K_NONE] = "none",   [K_LOAD] = "load", [K_ADD] = "add",
	[K_MUL] = "mul",     [K_FMA] = "fma",   [K_DIV] = "div",
	[K_SQRT] = "sqrt",   [K_RSQRT] = "rsqrt",
	[K_TRANS] = "transcendental",           [K_CMP] = "compare",
	[K_OTHER] = "other",
};

const char *type_short(Type t)
{
	if (type_numeric(t))
		return prec[t].ir;
	return t == T_BOOL ? "bool" : t == T_INT ? "i32" : t == T_LIT ? "lit" :
	       "?";
}

Func *func_new(Ctx *c, const char *name)
{
	Func *f = cnew(c, sizeof *f);
	f->ctx = c;
	f->name = name;
	f->ni = f->nj = f->jsplit = 1;
	return f;
}

Ins ins_make(int op, Type t, int blk, int a, int b, int cc)
{
	Ins in;
	memset(&in, 0, sizeof in);
	in.op = op;
	in.type = t;
	in.blk = blk;
	in.arg[0] = a;
	in.arg[1] = b;
	in.arg[2] = cc;
	in.var = -1;
	in.tmpl = -1;
	return in;
}

int ins_nargs(const Ins *in) { return opinfo[in->op].nargs; }

int ins_add(Func *f, Ins in)
{
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 64;
		Ins *v = cnew(f->ctx, sizeof(Ins) * (size_t)cap);
		if (f->n)
			memcpy(v, f->ins, sizeof(Ins) * (size_t)f->n);
		f->ins = v;
		f->cap = cap;
	}
	f->ins[f->n] = in;
	return f->n++;
}

void func_rewrite(Func *f, const int *keep, const int *repl, const int *order)
{
	int n = f->n;
	int *newidx = malloc(sizeof(int) * (size_t)(n ? n : 1));
	int *seq = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!newidx || !seq)
		ICE("out of memory");
	int m = 0;
	if (order) {
		for (int i = 0; i < n && order[i] >= 0; i++)
			seq[m++] = order[i];
	} else {
		for (int i = 0; i < n; i++)
			if (!keep || keep[i])
				seq[m++] = i;
	}
	for (int i = 0; i < n; i++)
		newidx[i] = -1;
	for (int i = 0; i < m; i++)
		newidx[seq[i]] = i;
	/* Without a new order every kept instruction moves down or stays, so
	 * the list can be compacted in place: slot i is free once the element
	 * that was there has been read (seq[i] >= i).  Large sources run many
	 * passes; this keeps the arena from growing by a list per pass. */
	Ins *v = order ? cnew(f->ctx, sizeof(Ins) * (size_t)(m ? m : 1)) : f->ins;
	for (int i = 0; i < m; i++) {
		Ins in = f->ins[seq[i]];
		for (int a = 0; a < ins_nargs(&in); a++) {
			int x = in.arg[a];
			/* follow replacement chains: a -> b -> c */
			while (repl && repl[x] != x)
				x = repl[x];
			if (newidx[x] < 0)
				ICE("rewrite dropped %%%d still used by %%%d", x,
				    seq[i]);
			in.arg[a] = newidx[x];
		}
		v[i] = in;
	}
	f->ins = v;
	f->n = m;
	if (order)
		f->cap = m;
	free(newidx);
	free(seq);
}

int *ir_uses(const Func *f)
{
	int *u = calloc((size_t)(f->n ? f->n : 1), sizeof(int));
	if (!u)
		ICE("out of memory");
	for (int i = 0; i < f->n; i++)
		for (int a = 0; a < ins_nargs(&f->ins[i]); a++)
			u[f->ins[i].arg[a]]++;
	return u;
}

int ins_equal(const Ins *a, const Ins *b)
{
	if (a->op != b->op || a->type != b->type || a->blk != b->blk ||
	    a->var != b->var || a->lane != b->lane)
		return 0;
	for (int i = 0; i < ins_nargs(a); i++)
		if (a->arg[i] != b->arg[i])
			return 0;
	if (a->op == O_IMM)
		return memcmp(a->imm, b->imm, sizeof a->imm) == 0;
	return 1;
}

static const char *const blk_name[] = {"pre", "body", "tail"};

static void print_ins(const Func *f, int k, Buf *out)
{
	const Ins *in = &f->ins[k];
	const OpInfo *oi = &opinfo[in->op];
	buf_puts(out, "  ");
	if (!(oi->props & P_SINK))
		buf_printf(out, "%%%d = ", k);
	for (const char *p = oi->name; *p; p++)
		buf_putc(out, *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	buf_printf(out, ".%s", type_short(in->type));
	switch (in->op) {
	case O_IMM:
		if (in->type == T_DD && in->imm[1] != 0)
			buf_printf(out, " %.17g%+.17g", in->imm[0], in->imm[1]);
		else
			buf_printf(out, " %.17g", in->imm[0]);
		break;
	case O_CONST:
		buf_printf(out, " %s", f->var[in->var].name);
		break;
	case O_LDI:
	case O_LDJ:
		buf_printf(out, " %s@%d", f->var[in->var].name, in->lane);
		break;
	case O_IDXI:
	case O_IDXJ:
		buf_printf(out, " @%d", in->lane);
		break;
	default:
		if (oi->props & P_SINK)
			buf_printf(out, " %s@%d,", f->var[in->var].name, in->lane);
		for (int a = 0; a < oi->nargs; a++)
			buf_printf(out, "%s %%%d", a ? "," : "", in->arg[a]);
		if (in->op == O_CVT)
			buf_printf(out, " ; from %s",
			           type_short(f->ins[in->arg[0]].type));
	}
	if (in->name)
		buf_printf(out, " ; %s", in->name);
	buf_putc(out, '\n');
}

void ir_print(const Func *f, Buf *out)
{
	buf_printf(out, "kernel %s ni=%d nj=%d jsplit=%d%s\n",
	           f->name ? f->name : "?", f->ni, f->nj, f->jsplit,
	           f->sched ? " sched" : "");
	for (int v = 0; v < f->nvar; v++)
		buf_printf(out, "  %s %s %s%s%s\n", nb_role_name(f->var[v].role),
		           f->var[v].name, type_short(f->var[v].type),
		           f->var[v].red ? " " : "",
		           f->var[v].red ? nb_red_name(f->var[v].red) : "");
	for (int b = B_PRE; b <= B_TAIL; b++) {
		int any = 0;
		for (int k = 0; k < f->n; k++)
			if (f->ins[k].blk == b) {
				if (!any)
					buf_printf(out, "%s:\n", blk_name[b]);
				any = 1;
				print_ins(f, k, out);
			}
	}
}

static int vfail(int fatal, const Func *f, int k, const char *why)
{
	if (fatal) {
		Buf b = {0};
		ir_print(f, &b);
		fprintf(stderr, "%s", b.s ? b.s : "");
		buf_free(&b);
		ICE("IR verifier: %%%d: %s", k, why);
	}
	return -1;
}

nb_red sink_red(int op)
{
	switch (op) {
	case O_ACCMIN: return NB_MIN;
	case O_ACCMAX: return NB_MAX;
	case O_ACCARGMIN: return NB_ARGMIN;
	case O_ACCARGMAX: return NB_ARGMAX;
	case O_ACCLSE: return NB_LOGSUMEXP;
	default: return NB_SUM;
	}
}

int ir_verify(const Func *f, int fatal)
{
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		if (in->op < 0 || in->op >= O_COUNT)
			return vfail(fatal, f, k, "bad opcode");
		const OpInfo *oi = &opinfo[in->op];
		if (in->blk < B_PRE || in->blk > B_TAIL)
			return vfail(fatal, f, k, "bad block");
		if (!(oi->props & P_SINK) && !type_numeric(in->type) &&
		    in->type != T_BOOL && in->type != T_INT)
			return vfail(fatal, f, k, "bad type");
		/* indices are i32 and only indices are: nothing computes
		 * on them but comparisons and conversions */
		int idx = in->op == O_IDXI || in->op == O_IDXJ;
		if (in->type == T_INT && !idx && in->op != O_IMM)
			return vfail(fatal, f, k, "i32 value not an index or literal");
		if (idx && in->type != T_INT)
			return vfail(fatal, f, k, "index not i32");
		for (int a = 0; a < oi->nargs; a++) {
			int x = in->arg[a];
			if (x < 0 || x >= k)
				return vfail(fatal, f, k, "operand not defined before");
			const Ins *d = &f->ins[x];
			if (opinfo[d->op].props & P_SINK)
				return vfail(fatal, f, k, "operand is a sink");
			if (d->blk != B_PRE && d->blk != in->blk)
				return vfail(fatal, f, k, "operand from another block");
		}
		if (oi->props & (P_LEAF | P_SINK) && in->op != O_IMM &&
		    in->op != O_IDXI && in->op != O_IDXJ) {
			if (in->var < 0 || in->var >= f->nvar)
				return vfail(fatal, f, k, "bad variable");
			nb_role want = in->op == O_LDI ? NB_LMEM :
			               in->op == O_LDJ ? NB_BMEM :
			               in->op == O_CONST ? NB_CONST : NB_RMEM;
			if (f->var[in->var].role != want)
				return vfail(fatal, f, k, "variable of wrong role");
			if (in->type != f->var[in->var].type)
				return vfail(fatal, f, k, "type differs from variable");
		}
		const Type *at = NULL;
		Type t[3];
		for (int a = 0; a < oi->nargs; a++)
			t[a] = f->ins[in->arg[a]].type;
		at = t;
		switch (in->op) {
		case O_IMM:
			if (!type_numeric(in->type) && (in->type != T_INT ||
			    !(fabs(in->imm[0]) < 2147483647.0) ||
			    in->imm[0] != (double)(int)in->imm[0] || in->imm[1]))
				return vfail(fatal, f, k, "literal not numeric");
			break;
		case O_IDXI:
		case O_IDXJ:
			if (in->var != -1)
				return vfail(fatal, f, k, "index with a variable");
			if (in->op == O_IDXJ && in->blk == B_PRE)
				return vfail(fatal, f, k, "j index before the loop");
			if (in->lane < 0 || in->lane >= (in->op == O_IDXI ? f->ni :
			    in->blk == B_TAIL ? 1 : f->nj))
				return vfail(fatal, f, k, "index lane out of range");
			break;
		case O_LDI:
			if (in->lane < 0 || in->lane >= f->ni)
				return vfail(fatal, f, k, "i-lane out of range");
			if (in->blk == B_PRE)
				break;
			break;
		case O_LDJ:
			if (in->blk == B_PRE)
				return vfail(fatal, f, k, "j load before the loop");
			if (in->lane < 0 ||
			    in->lane >= (in->blk == B_TAIL ? 1 : f->nj))
				return vfail(fatal, f, k, "j-lane out of range");
			break;
		case O_CONST:
			break;
		case O_LT: case O_LE: case O_GT: case O_GE: case O_EQ: case O_NE:
			if (in->type != T_BOOL || at[0] != at[1] ||
			    (!type_numeric(at[0]) && at[0] != T_INT))
				return vfail(fatal, f, k, "bad comparison types");
			break;
		case O_AND: case O_OR: case O_NOT:
			for (int a = 0; a < oi->nargs; a++)
				if (at[a] != T_BOOL)
					return vfail(fatal, f, k, "logic on numbers");
			if (in->type != T_BOOL)
				return vfail(fatal, f, k, "logic result not bool");
			break;
		case O_SEL:
			if (at[0] != T_BOOL || at[1] != in->type ||
			    at[2] != in->type)
				return vfail(fatal, f, k, "bad select types");
			break;
		case O_CVT:
			if ((!type_numeric(at[0]) && at[0] != T_INT) ||
			    !type_numeric(in->type))
				return vfail(fatal, f, k, "bad conversion");
			break;
		default:
			if (oi->props & P_SINK) {
				if (in->blk == B_PRE)
					return vfail(fatal, f, k, "sink before the loop");
				if (in->lane < 0 || in->lane >= f->ni)
					return vfail(fatal, f, k, "i-lane out of range");
				if (sink_red(in->op) != f->var[in->var].red &&
				    !(sink_red(in->op) == NB_SUM &&
				      f->var[in->var].red == NB_COUNT))
					return vfail(fatal, f, k, "sink of another "
					             "reduction than its RMEM's");
				/* the j index of the arg forms */
				if (oi->nargs == 2 && oi->kind == K_CMP) {
					if (at[0] != in->type || at[1] != T_INT)
						return vfail(fatal, f, k, "arg reduction "
						             "not of (value, index)");
					break;
				}
			} else if (!type_numeric(in->type)) {
				return vfail(fatal, f, k, "arithmetic not numeric");
			}
			for (int a = 0; a < oi->nargs; a++)
				if (at[a] != in->type)
					return vfail(fatal, f, k, "operand type differs");
			if (oi->kind == K_FMA && !prec[in->type].fuses)
				return vfail(fatal, f, k, "fused operation in a "
				             "precision without one");
		}
	}
	return 0;
}

static int merge(int a, int b)
{
	if (a == -1)
		return b;
	if (b == -1 || a == b)
		return a;
	return -2;
}

void ir_lanes(const Func *f, int *il, int *jl)
{
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		int i = opinfo[in->op].props & (P_I | P_SINK) ? in->lane : -1;
		int j = opinfo[in->op].props & P_J ? in->lane : -1;
		for (int a = 0; a < ins_nargs(in); a++) {
			i = merge(i, il[in->arg[a]]);
			j = merge(j, jl[in->arg[a]]);
		}
		il[k] = i;
		jl[k] = j;
	}
}

Type ir_widest(const Func *f, int vars_only)
{
	Type t = T_F32;
	for (int v = 0; v < f->nvar; v++)
		t = type_join(t, f->var[v].type);
	for (int k = 0; k < f->n && !vars_only; k++)
		if (type_numeric(f->ins[k].type))
			t = type_join(t, f->ins[k].type);
	return t;
}

/* Selects and literals round nothing, and a count sums 0s and 1s exactly
 * in any mode: none of them asks for the care of a wider type. */
Type ir_widest_arith(const Func *f)
{
	Type t = T_F32;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].red != NB_COUNT)
			t = type_join(t, f->var[v].type);
	for (int k = 0; k < f->n; k++) {
		const Ins *in = &f->ins[k];
		if (!type_numeric(in->type) || in->op == O_IMM || in->op == O_SEL ||
		    (opinfo[in->op].props & P_SINK &&
		     f->var[in->var].red == NB_COUNT))
			continue;
		t = type_join(t, in->type);
	}
	return t;
}
