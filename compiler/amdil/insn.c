/* insn.c: the IL of each instruction of the IR, in float, double or dd:
 * loads of chunk groups, conversions, operations and sinks, the result
 * placed where an operand that dies there was (one block at a time). */
#include <stdio.h>
#include "amdil.h"

/* Whether the IL of instruction k is one instruction, which reads its
 * sources before it writes: its result may then take the place of an
 * operand that dies there. */
static int single(const Func *f, const Ins *in)
{
	Type at = ins_nargs(in) ? f->ins[in->arg[0]].type : in->type;
	if (in->op == O_CVT)
		return in->type != T_DD && !(at == T_DD && in->type == T_F32);
	if (at == T_DD)
		return in->op == O_NEG || in->op == O_SEL;
	if (in->type == T_DD)
		return in->op == O_SEL;
	if (at == T_F64 && (in->op == O_RSQRT || in->op == O_FABS))
		return 0;
	/* atan2's expansion writes temporaries before it reads b */
	return in->op != O_EXP && in->op != O_LOG && in->op != O_POW &&
	       in->op != O_ATAN2;
}

static void cvt(E *e, Opd d, Type t, Opd a, Type at)
{
	if (t == T_DD) {
		if (at == T_F32)
			emitf(e, "ftod %s, %s", dst(e, d, 2), src(e, a, S1));
		else
			emitf(e, "mov %s, %s", dst(e, d, 2), src(e, a, SP));
		emitf(e, "mov %s, %s", dst(e, lo(d), 2), src(e, lit_d(e, 0.0), SW));
	} else if (at == T_DD && t == T_F64) {
		d3(e, "dadd", d, hi(a), lo(a)); /* nb_dd_to */
	} else if (at == T_DD) {
		Opd x = take(e, 2);
		d3(e, "dadd", x, hi(a), lo(a));
		emitf(e, "dtof %s, %s", dst(e, d, 1), src(e, x, SD));
		give(e, x);
	} else if (t == T_F64) {
		emitf(e, "ftod %s, %s", dst(e, d, 2), src(e, a, S1));
	} else {
		emitf(e, "dtof %s, %s", dst(e, d, 1), src(e, a, SD));
	}
}

/* An i32 to a double, exactly: its high and low 16 bits are floats.  i
 * dies here where its register is h's or l's: the one that is i is
 * written second. */
static void itod(E *e, Opd d, Opd i)
{
	Opd h = take(e, 1), l = take(e, 1), dh = take(e, 2), dl = take(e, 2);
	int l_is_i = l.file == i.file && l.n == i.n && l.comp == i.comp;
	if (!l_is_i)
		iop(e, "iand", l, i, lit_i(e, 0xffff));
	iop(e, "ishr", h, i, lit_i(e, 16));
	if (l_is_i)
		iop(e, "iand", l, i, lit_i(e, 0xffff));
	emitf(e, "itof %s, %s", dst(e, h, 1), src(e, h, S1));
	emitf(e, "itof %s, %s", dst(e, l, 1), src(e, l, S1));
	emitf(e, "ftod %s, %s", dst(e, dh, 2), src(e, h, S1));
	emitf(e, "ftod %s, %s", dst(e, dl, 2), src(e, l, S1));
	d4(e, "dfma", d, dh, lit_d(e, 65536.0), dl);
	GIVE(e, h, l, dh, dl);
}

/* An i32 to type t: a float rounds as C's (float) does. */
void itot(E *e, Opd d, Opd i, Type t)
{
	if (t == T_F32) {
		emitf(e, "itof %s, %s", dst(e, d, 1), src(e, i, S1));
		return;
	}
	itod(e, d, i);
	if (t == T_DD)
		emitf(e, "mov %s, %s", dst(e, lo(d), 2), src(e, lit_d(e, 0.0), SW));
}

/* Float instructions: one component each, and bools (0 or ~0). */
static void op_f32(E *e, const Ins *in, Opd d, Opd a, Opd b, Opd c)
{
	const char *op = opinfo[in->op].il; /* its row in ops.h */
	const char *D = dst(e, d, 1);
	switch (in->op) {
	case O_NEG:
		emitf(e, "mov %s, %s", D, src(e, neg(a), S1));
		break;
	case O_FABS:
		emitf(e, "mov %s, %s", D, src(e, absv(a), S1));
		break;
	case O_LE:
	case O_GT:
		emitf(e, "%s %s, %s, %s", op, D, src(e, b, S1), src(e, a, S1));
		break;
	case O_FMA:
	case O_FMS:
	case O_FNMA:
		emitf(e, "fma %s, %s, %s, %s", D,
		      src(e, in->op == O_FNMA ? neg(a) : a, S1), src(e, b, S1),
		      src(e, in->op == O_FMS ? neg(c) : c, S1));
		break;
	case O_SEL:
		emitf(e, "cmov_logical %s, %s, %s, %s", D, src(e, a, S1),
		      src(e, b, S1), src(e, c, S1));
		break;
	/* exp_vec and log_vec work in base 2: e^x = 2^(x log2 e), ln x =
	 * log2(x) ln 2, the constants rounded to float (an approximation,
	 * as the transcendentals are; docs/amdil.md) */
	case O_EXP:
		emitf(e, "mul %s, %s, %s", D, src(e, a, S1),
		      src(e, lit_f(e, (float)1.4426950408889634), S1));
		emitf(e, "exp_vec %s, %s", D, src(e, d, S1));
		break;
	case O_LOG:
		emitf(e, "log_vec %s, %s", D, src(e, a, S1));
		emitf(e, "mul %s, %s, %s", D, src(e, d, S1),
		      src(e, lit_f(e, (float)0.6931471805599453), S1));
		break;
	case O_ROUND: /* no instruction (round_nearest ties to even): the
	                 double's, exact both ways */
	case O_EXPM1: /* no instruction: the double's, rounded to float */
	case O_LOG1P:
	case O_TANH:
	case O_CBRT:
	case O_ATAN2:
	case O_ERF:
	case O_ERFC: {
		Opd x = take(e, 2), y = take(e, 2);
		emitf(e, "ftod %s, %s", dst(e, x, 2), src(e, a, S1));
		if (in->op == O_ATAN2)
			emitf(e, "ftod %s, %s", dst(e, y, 2), src(e, b, S1));
		fn_double(e, in->op, x, x, y);
		emitf(e, "dtof %s, %s", dst(e, d, 1), src(e, x, SD));
		GIVE(e, x, y);
		break;
	}
	case O_POW: /* 2^(b log2 a): for a > 0 only (docs/amdil.md) */
		emitf(e, "log_vec %s, %s", D, src(e, a, S1));
		emitf(e, "mul %s, %s, %s", D, src(e, b, S1), src(e, d, S1));
		emitf(e, "exp_vec %s, %s", D, src(e, d, S1));
		break;
	default:
		if (!op)
			ICE("no float form of %s", opinfo[in->op].name);
		if (ins_nargs(in) == 1)
			emitf(e, "%s %s, %s", op, D, src(e, a, S1));
		else
			emitf(e, "%s %s, %s, %s", op, D, src(e, a, S1),
			      src(e, b, S1));
	}
}

static void op_f64(E *e, const Ins *in, Opd d, Opd a, Opd b, Opd c)
{
	switch (in->op) {
	case O_NEG:
		emitf(e, "mov %s, %s", dst(e, d, 2), src(e, neg(a), SP));
		break;
	case O_FABS: /* the low dword as it is, bit 63 cleared */
		emitf(e, "mov %s, %s", dst(e, d, 1), src(e, a, S1));
		d.comp++;
		a.comp++;
		iop(e, "iand", d, a, lit_i(e, 0x7fffffff));
		break;
	case O_ADD: d3(e, "dadd", d, a, b); break;
	case O_SUB: d3(e, "dadd", d, a, neg(b)); break;
	case O_MUL: d3(e, "dmul", d, a, b); break;
	case O_DIV: d3(e, "ddiv", d, a, b); break;
	case O_FMA: d4(e, "dfma", d, a, b, c); break;
	case O_FMS: d4(e, "dfma", d, a, b, neg(c)); break;
	case O_FNMA: d4(e, "dfma", d, neg(a), b, c); break;
	case O_SQRT: d2(e, "dsqrt", d, a); break;
	case O_RSQRT: /* 1 / sqrt(a), as C spells it */
		d2(e, "dsqrt", d, a);
		d3(e, "ddiv", d, lit_d(e, 1.0), d);
		break;
	case O_FMIN: d3(e, "dmin", d, a, b); break;
	case O_FMAX: d3(e, "dmax", d, a, b); break;
	case O_SEL:
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, d, 2), src(e, a, S1),
		      src(e, b, SP), src(e, c, SP));
		break;
	default: /* the functions IL has no double instruction for */
		if (!fn_has(in->op))
			ICE("no double form of %s", opinfo[in->op].name);
		fn_double(e, in->op, d, a, b);
	}
}

static void op_dd(E *e, const Ins *in, Opd d, Opd a, Opd b, Opd c)
{
	switch (in->op) {
	case O_NEG:
		emitf(e, "mov %s, %s", dst(e, d, 4), src(e, neg(a), SW));
		break;
	case O_ADD: dd_add(e, d, a, b); break;
	case O_SUB: dd_add(e, d, a, neg(b)); break; /* nb_dd_add(a, -b) */
	case O_MUL: dd_mul(e, d, a, b); break;
	case O_DIV: dd_div(e, d, a, b); break;
	case O_SQRT: dd_sqrt(e, d, a); break;
	case O_RSQRT: dd_rsqrt(e, d, a); break;
	case O_FMIN:
	case O_FMAX: dd_minmax(e, in->op, d, a, b); break;
	case O_FABS: { /* signbit(a.hi) ? -a : a */
		Opd s = take(e, 1), h = a;
		h.comp = 1;
		iop(e, "ilt", s, h, lit_i(e, 0));
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, d, 4),
		      src(e, s, S1), src(e, neg(a), SW), src(e, a, SW));
		give(e, s);
		break;
	}
	case O_SEL:
		emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, d, 4), src(e, a, S1),
		      src(e, b, SW), src(e, c, SW));
		break;
	default:
		if (!fn_has(in->op))
			ICE("no dd form of %s", opinfo[in->op].name);
		fn_dd(e, in->op, d, a, b);
	}
}

/* One sink: the accumulator A (r, or s under a j-split) updated in list
 * order, as emit_sink's statements. */
static void sink(E *e, const Ins *in, Opd A, Opd a, Opd b)
{
	int sub = in->op == O_ACCSUB || in->op == O_ACCFNMA;
	if (in->type == T_DD) {
		if (in->op != O_ACC && in->op != O_ACCSUB)
			ICE("no dd form of %s", opinfo[in->op].name);
		dd_add(e, A, A, sub ? neg(a) : a);
	} else if (in->type == T_F64) {
		if (in->op == O_ACC || in->op == O_ACCSUB)
			d3(e, "dadd", A, A, sub ? neg(a) : a);
		else
			d4(e, "dfma", A, sub ? neg(a) : a, b, A);
	} else if (in->op == O_ACC || in->op == O_ACCSUB) {
		emitf(e, "%s %s, %s, %s", sub ? "sub" : "add", dst(e, A, 1),
		      src(e, A, S1), src(e, a, S1));
	} else { /* r += a*b as fma(a, b, r), r -= a*b as fma(-a, b, r) */
		emitf(e, "fma %s, %s, %s, %s", dst(e, A, 1),
		      src(e, sub ? neg(a) : a, S1), src(e, b, S1), src(e, A, S1));
	}
}

/* Loads the chunk of load k's group (its variable's 16 bytes, for its
 * lane) into the components its group uses: one uav_raw_load_id. */
static void load(E *e, int k)
{
	const Func *f = e->f;
	const Ins *in = &f->ins[k];
	int mask = e->gmask[k];
	long chunk = e->off[in->var] / 16;
	int r = take_mask(e, mask);
	Opd t = take(e, 1);
	if (in->op == O_LDI) {
		/* lanes past ilast read element ilast */
		Opd i = e->gi;
		if (in->lane) {
			iop(e, "iadd", t, i, lit_i(e, in->lane));
			i = t;
		}
		iop(e, "imin", t, i, e->gl);
		i = t;
		if (chunk)
			emitf(e, "imad %s, %s, %s, %s", dst(e, t, 1), src(e, i, S1),
			      src(e, lit_i(e, (int32_t)e->rec[NB_LMEM]), S1),
			      src(e, lit_i(e, (int32_t)(16 * chunk)), S1));
		else
			iop(e, "imul", t, i, lit_i(e, (int32_t)e->rec[NB_LMEM]));
	} else {
		/* j-lane L of a step reads element j + L*T */
		long at = (long)in->lane * f->jsplit * (long)e->rec[NB_BMEM] +
		          16 * chunk;
		if (at)
			emitf(e, "imad %s, %s, %s, %s", dst(e, t, 1), src(e, e->gj, S1),
			      src(e, lit_i(e, (int32_t)e->rec[NB_BMEM]), S1),
			      src(e, lit_i(e, (int32_t)at), S1));
		else
			iop(e, "imul", t, e->gj, lit_i(e, (int32_t)e->rec[NB_BMEM]));
	}
	emitf(e, "uav_raw_load_id(%d) %s, %s", in->op == O_LDI ? 0 : 1,
	      rmask(e, r, mask), src(e, t, S1));
	give(e, t);
	e->val[k] = (Opd){'r', r, 0, 0, 0, 4};
}

/* A comparison of doubles (dlt, deq, dne, dge) or of indices (ilt, ...):
 * <= and > are >= and < with the operands swapped. */
static void cmp_id(E *e, int ints, int op, Opd d, Opd a, Opd b)
{
	int sw = op == O_LE || op == O_GT;
	const char *nm = op == O_LT || op == O_GT ? "lt" : op == O_EQ ? "eq" :
	                 op == O_NE ? "ne" : "ge";
	char ins[8];
	snprintf(ins, sizeof ins, "%c%s", ints ? 'i' : 'd', nm);
	if (ints)
		iop(e, ins, d, sw ? b : a, sw ? a : b);
	else
		dcmp(e, ins, d, sw ? b : a, sw ? a : b);
}

static void emit_ins(E *e, int k)
{
	const Func *f = e->f;
	const Ins *in = &f->ins[k];
	if (in->op == O_IMM || in->op == O_CONST || e->rep[k] != k)
		return; /* spelled where used */
	if (is_load(in->op)) {
		/* each value of the group where the record has it */
		if (e->lead[k] == k)
			load(e, k);
		e->val[k] = e->val[e->lead[k]];
		e->val[k].comp = (int)(e->off[in->var] % 16) / 4;
		e->val[k].w = width(in->type);
		goto done;
	}
	Opd a[3] = {{0}, {0}, {0}};
	int dying[3], nd = 0;
	for (int i = 0; i < ins_nargs(in); i++) {
		int r = e->rep[in->arg[i]];
		a[i] = operand_of(e, in->arg[i]);
		const Ins *o = &f->ins[r];
		int dies = o->op != O_IMM && o->op != O_CONST &&
		           o->blk == in->blk && e->last[r] == k && !e->loopuse[r];
		for (int j = 0; j < nd; j++)
			dies &= dying[j] != r;
		if (dies)
			dying[nd++] = r;
	}
	if (opinfo[in->op].props & P_SINK) {
		const Opd *set = f->jsplit > 1 ? e->part : e->acc;
		const Opd *aux = f->jsplit > 1 ? e->paux : e->aux;
		if (sink_red(in->op) != NB_SUM)
			red_update(e, in->var, acc_at(e, set, in->var, in->lane),
			           aux[in->lane * f->nvar + in->var], a[0],
			           in->op == O_ACCLSE ?
			           lit_t(e, f->var[in->var].type, 1) : a[1]);
		else
			sink(e, in, acc_at(e, set, in->var, in->lane), a[0], a[1]);
		for (int j = 0; j < nd; j++)
			give(e, e->val[dying[j]]);
		return;
	}
	int one = single(f, in);
	for (int j = 0; one && j < nd; j++)
		give(e, e->val[dying[j]]);
	Opd d = take(e, width(in->type));
	e->val[k] = d;
	Type at = ins_nargs(in) ? f->ins[in->arg[0]].type : in->type;
	size_t before = e->code.len;
	if (in->op == O_IDXI) { /* ibase + g*NI + lane, as the loads' i */
		emitf(e, "imad %s, vAbsTidFlat.x, %s, cb0[0].z", dst(e, d, 1),
		      src(e, lit_i(e, f->ni), S1));
		if (in->lane)
			iop(e, "iadd", d, d, lit_i(e, in->lane));
	} else if (in->op == O_IDXJ) { /* j-lane L of a step: j + L*T */
		if (in->lane)
			iop(e, "iadd", d, e->gj, lit_i(e, in->lane * f->jsplit));
		else
			emitf(e, "mov %s, %s", dst(e, d, 1), src(e, e->gj, S1));
	} else if (in->op == O_CVT && at == T_INT)
		itot(e, d, a[0], in->type);
	else if (in->op == O_CVT)
		cvt(e, d, in->type, a[0], at);
	else if (opinfo[in->op].kind == K_CMP && at == T_DD)
		dd_cmp(e, in->op, d, a[0], a[1]);
	else if (opinfo[in->op].kind == K_CMP && (at == T_F64 || at == T_INT))
		cmp_id(e, at == T_INT, in->op, d, a[0], a[1]);
	else if (in->type == T_DD)
		op_dd(e, in, d, a[0], a[1], a[2]);
	else if (in->type == T_F64)
		op_f64(e, in, d, a[0], a[1], a[2]);
	else
		op_f32(e, in, d, a[0], a[1], a[2]);
	/* the user's name for the value, on its last line */
	if (in->name && e->code.len > before) {
		e->code.len--;
		buf_printf(&e->code, " ; %s\n", in->name);
	}
	for (int j = 0; !one && j < nd; j++)
		give(e, e->val[dying[j]]);
done:
	if (e->last[k] < 0 && !e->loopuse[k])
		give(e, e->val[k]); /* never read */
}

void block_il(E *e, int blk)
{
	for (int k = 0; k < e->f->n; k++)
		if (e->f->ins[k].blk == blk)
			emit_ins(e, k);
}
