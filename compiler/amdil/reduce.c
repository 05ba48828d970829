/* reduce.c: the reductions beyond the sum in IL, as emit.c's C-family
 * ones: min, max, argmin, argmax and logsumexp, their identities and the
 * second states (aux) that argmin and logsumexp carry. */
#include <math.h>
#include <stdlib.h>
#include "amdil.h"

/* mov of a value of type t */
static void movv(E *e, Opd d, Opd a, Type t)
{
	emitf(e, "mov %s, %s", dst(e, d, width(t)),
	      src(e, a, t == T_DD ? SW : t == T_F64 ? SP : S1));
}

static void cmovv(E *e, Opd d, Opd c, Opd a, Opd b, Type t)
{
	int f = t == T_DD ? SW : t == T_F64 ? SP : S1;
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, d, width(t)),
	      src(e, c, S1), src(e, a, f), src(e, b, f));
}

/* d = (a op b) for op O_LT, O_GT or O_EQ in type t */
static void cmpv(E *e, int op, Opd d, Opd a, Opd b, Type t)
{
	if (t == T_DD)
		dd_cmp(e, op, d, a, b);
	else if (t == T_F64)
		dcmp(e, op == O_EQ ? "deq" : "dlt", d, op == O_GT ? b : a,
		     op == O_GT ? a : b);
	else
		emitf(e, "%s %s, %s, %s", op == O_EQ ? "eq" : "lt",
		      dst(e, d, 1), src(e, op == O_GT ? b : a, S1),
		      src(e, op == O_GT ? a : b, S1));
}

/* d = a + b, a - b or a * b in double or dd */
static void arith(E *e, int op, Opd d, Opd a, Opd b, Type t)
{
	if (op == O_SUB)
		b = neg(b);
	if (t == T_DD)
		(op == O_MUL ? dd_mul : dd_add)(e, d, a, b);
	else
		d3(e, op == O_MUL ? "dmul" : "dadd", d, a, b);
}

/* nb_lse_d and nb_lse_dd (emit.c) in double or dd: one exp and selects */
static void lse_update(E *e, Opd m, Opd s, Opd a, Opd b, Type t)
{
	int w = width(t);
	Opd up = take(e, 1), add = take(e, 1), c = take(e, 1);
	Opd x = take(e, w), y = take(e, w), su = take(e, w);
	cmpv(e, O_GT, up, a, m, t);
	dcmp(e, "dne", add, hi(a), lit_d(e, -INFINITY));
	dcmp(e, "dne", c, hi(m), lit_d(e, INFINITY));
	iop(e, "iand", add, add, c);
	arith(e, O_SUB, x, m, a, t);
	arith(e, O_SUB, y, a, m, t);
	cmovv(e, x, up, x, y, t);
	(t == T_DD ? fn_dd : fn_double)(e, O_EXP, y, x, x); /* e */
	arith(e, O_MUL, su, s, y, t);
	arith(e, O_ADD, su, su, b, t);
	dcmp(e, "deq", c, hi(m), lit_d(e, -INFINITY));
	cmovv(e, su, c, b, su, t);
	arith(e, O_MUL, x, b, y, t);
	arith(e, O_ADD, x, s, x, t);
	cmovv(e, x, add, x, s, t); /* sa */
	cmovv(e, s, up, su, x, t);
	cmovv(e, m, up, a, m, t);
	GIVE(e, up, add, c, x, y, su);
}

/* nb_lse_end: r = s == 0 ? -inf : m + log(s), the state (r, s) */
void lse_end(E *e, Opd r, Opd X, Type t)
{
	if (t == T_F32) {
		Opd w = take(e, 1), z = take(e, 1);
		emitf(e, "log_vec %s, %s", dst(e, w, 1), src(e, X, S1));
		emitf(e, "mad %s, %s, %s, %s", dst(e, w, 1), src(e, w, S1),
		      src(e, lit_f(e, (float)0.6931471805599453), S1),
		      src(e, r, S1));
		emitf(e, "eq %s, %s, %s", dst(e, z, 1), src(e, X, S1),
		      src(e, lit_f(e, 0), S1));
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, r, 1), src(e, z, S1),
		      src(e, lit_f(e, -INFINITY), S1), src(e, w, S1));
		GIVE(e, w, z);
		return;
	}
	Opd w = take(e, width(t)), z = take(e, 1);
	(t == T_DD ? fn_dd : fn_double)(e, O_LOG, w, X, X);
	arith(e, O_ADD, w, r, w, t);
	dcmp(e, "deq", z, hi(X), lit_d(e, 0.0));
	cmovv(e, r, z, lit_t(e, t, -INFINITY), w, t);
	GIVE(e, w, z);
}

/* The state (A, X) of RMEM v takes in (a, b): a value, or a partial
 * state, as emit.c's red_combine (X: the j index, or the sum of exp). */
void red_update(E *e, int v, Opd A, Opd X, Opd a, Opd b)
{
	Type t = e->f->var[v].type;
	nb_red red = e->f->var[v].red;
	switch (red) {
	case NB_MIN:
	case NB_MAX:
		if (t == T_DD)
			dd_minmax(e, red == NB_MIN ? O_FMIN : O_FMAX, A, A, a);
		else if (t == T_F64)
			d3(e, red == NB_MIN ? "dmin" : "dmax", A, A, a);
		else
			emitf(e, "%s %s, %s, %s", red == NB_MIN ? "min" : "max",
			      dst(e, A, 1), src(e, A, S1), src(e, a, S1));
		break;
	case NB_ARGMIN:
	case NB_ARGMAX: { /* a before A, or equal with the smaller j */
		Opd c = take(e, 1), q = take(e, 1), u = take(e, 1);
		cmpv(e, red == NB_ARGMIN ? O_LT : O_GT, c, a, A, t);
		cmpv(e, O_EQ, q, a, A, t);
		iop(e, "ult", u, b, X);
		iop(e, "iand", q, q, u);
		iop(e, "ior", c, c, q);
		cmovv(e, A, c, a, A, t);
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, X, 1), src(e, c, S1),
		      src(e, b, S1), src(e, X, S1));
		GIVE(e, c, q, u);
		break;
	}
	case NB_LOGSUMEXP: { /* float: exp as O_EXP spells it */
		if (t != T_F32) {
			lse_update(e, A, X, a, b, t);
			break;
		}
		Opd c = take(e, 1), s1 = take(e, 1), s2 = take(e, 1),
		    ok = take(e, 1), w = take(e, 1);
		Opd l2e = lit_f(e, (float)1.4426950408889634);
		emitf(e, "lt %s, %s, %s", dst(e, c, 1), src(e, A, S1), src(e, a, S1));
		emitf(e, "sub %s, %s, %s", dst(e, w, 1), src(e, A, S1), src(e, a, S1));
		emitf(e, "mul %s, %s, %s", dst(e, w, 1), src(e, w, S1), src(e, l2e, S1));
		emitf(e, "exp_vec %s, %s", dst(e, w, 1), src(e, w, S1));
		emitf(e, "mad %s, %s, %s, %s", dst(e, s1, 1), src(e, X, S1),
		      src(e, w, S1), src(e, b, S1));
		emitf(e, "sub %s, %s, %s", dst(e, w, 1), src(e, a, S1), src(e, A, S1));
		emitf(e, "mul %s, %s, %s", dst(e, w, 1), src(e, w, S1), src(e, l2e, S1));
		emitf(e, "exp_vec %s, %s", dst(e, w, 1), src(e, w, S1));
		emitf(e, "mad %s, %s, %s, %s", dst(e, s2, 1), src(e, b, S1),
		      src(e, w, S1), src(e, X, S1));
		emitf(e, "ne %s, %s, %s", dst(e, ok, 1), src(e, a, S1),
		      src(e, lit_f(e, -INFINITY), S1));
		emitf(e, "ne %s, %s, %s", dst(e, w, 1), src(e, A, S1),
		      src(e, lit_f(e, INFINITY), S1));
		iop(e, "iand", ok, ok, w);
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, s2, 1), src(e, ok, S1),
		      src(e, s2, S1), src(e, X, S1));
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, X, 1), src(e, c, S1),
		      src(e, s1, S1), src(e, s2, S1));
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, A, 1), src(e, c, S1),
		      src(e, a, S1), src(e, A, S1));
		GIVE(e, c, s1, s2, ok, w);
		break;
	}
	default:
		ICE("red_update of a sum");
	}
}

/* The second states beside set (aux or paux): one per (lane, RMEM). */
Opd *take_aux(E *e)
{
	const Func *f = e->f;
	Opd *x = calloc((size_t)(f->ni * f->nvar) + 1, sizeof *x);
	if (!x)
		ICE("out of memory");
	for (int l = 0; l < f->ni; l++)
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_RMEM && red_aux(f->var[v].red))
				x[l * f->nvar + v] = take(e, red_aux(f->var[v].red) == 1 ?
				                          1 : width(f->var[v].type));
	return x;
}

void give_aux(E *e, Opd *x)
{
	for (int i = 0; x && i < e->f->ni * e->f->nvar; i++)
		if (x[i].w)
			give(e, x[i]);
	free(x);
}

/* The identities of the reductions beyond the sum, after set_acc's 0. */
void red_init(E *e, const Opd *set, const Opd *aux)
{
	const Func *f = e->f;
	for (int l = 0; l < f->ni; l++)
		for (int v = 0; v < f->nvar; v++) {
			nb_red red = f->var[v].red;
			Type t = f->var[v].type;
			if (f->var[v].role != NB_RMEM || red <= NB_COUNT)
				continue;
			int up = red == NB_MIN || red == NB_ARGMIN;
			movv(e, acc_at(e, set, v, l), lit_t(e, t, up ? INFINITY :
			                                   -INFINITY), t);
			if (red_aux(red) == 1)
				emitf(e, "mov %s, %s", dst(e, aux[l * f->nvar + v], 1),
				      src(e, lit_i(e, -1), S1));
			else if (red_aux(red))
				movv(e, aux[l * f->nvar + v], lit_t(e, t, 0), t);
		}
}
