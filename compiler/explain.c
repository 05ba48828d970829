/* explain.c: --explain, the loop nest after the transforms as pseudo-code in
 * the style of Fig. 2-4 of paper 001, one line per operation of the body in
 * the order the scheduler left it, so a student can see what each flag
 * did: which copies exist, what was hoisted, what is shared, how j moves. */
#include <stdlib.h>
#include <string.h>
#include "ir.h"

typedef struct X {
	const Func *f;
	Buf *out;
	int ncopy;
	/* the one i-lane and j-lane each value depends on: -1 none, -2 many;
	 * names get a suffix from them (dx_i1j0), so the copies stay apart */
	int *il, *jl;
} X;

static void lane_ix(Buf *out, const char *v, int lane, int step)
{
	if (lane == 0)
		buf_printf(out, "[%s]", v);
	else if (step == 1)
		buf_printf(out, "[%s+%d]", v, lane);
	else
		buf_printf(out, "[%s+%d]", v, lane * step);
}

static void operand(X *x, int k)
{
	const Ins *in = &x->f->ins[k];
	switch (in->op) {
	case O_IMM:
		buf_printf(x->out, "%.17g", in->imm[0] + in->imm[1]);
		return;
	case O_CONST:
		buf_puts(x->out, x->f->var[in->var].name);
		return;
	case O_LDI:
		buf_puts(x->out, x->f->var[in->var].name);
		lane_ix(x->out, "i", in->lane, 1);
		return;
	case O_LDJ:
		buf_puts(x->out, x->f->var[in->var].name);
		lane_ix(x->out, "j", in->lane, x->f->jsplit);
		return;
	case O_IDXI:
		if (in->lane)
			buf_printf(x->out, "(i+%d)", in->lane);
		else
			buf_puts(x->out, "i");
		return;
	case O_IDXJ:
		if (in->lane)
			buf_printf(x->out, "(j+%d)", in->lane * x->f->jsplit);
		else
			buf_puts(x->out, "j");
		return;
	}
	if (in->name)
		buf_puts(x->out, in->name);
	else
		buf_printf(x->out, "t%d", k);
	int il = x->f->ni > 1 && x->il[k] >= 0 ? x->il[k] : -1;
	int jl = x->f->nj > 1 && in->blk == B_BODY && x->jl[k] >= 0 ?
	         x->jl[k] : -1;
	if (il >= 0 || jl >= 0)
		buf_putc(x->out, '_');
	if (il >= 0)
		buf_printf(x->out, "i%d", il);
	if (jl >= 0)
		buf_printf(x->out, "j%d", jl);
}

static void rhs(X *x, const Ins *in)
{
	const char *sym = opinfo[in->op].sym;
	const int *a = in->arg;
	if (sym && ins_nargs(in) == 1) {
		buf_puts(x->out, sym);
		operand(x, a[0]);
		return;
	}
	if (sym) {
		operand(x, a[0]);
		buf_printf(x->out, " %s ", sym);
		operand(x, a[1]);
		return;
	}
	switch (in->op) {
	case O_SEL:
		operand(x, a[0]);
		buf_puts(x->out, " ? ");
		operand(x, a[1]);
		buf_puts(x->out, " : ");
		operand(x, a[2]);
		return;
	case O_CVT:
		buf_printf(x->out, "(%s)", type_name(in->type));
		operand(x, a[0]);
		return;
	default: {
		/* the opcode's own name, fms and fnma too: a reader of the
		 * pseudo-code wants to see which fused form it is */
		const char *n = opinfo[in->op].name;
		for (; *n; n++)
			buf_putc(x->out, *n >= 'A' && *n <= 'Z' ?
			         *n - 'A' + 'a' : *n);
		buf_putc(x->out, '(');
	}
	}
	for (int i = 0; i < ins_nargs(in); i++) {
		if (i)
			buf_puts(x->out, ", ");
		operand(x, a[i]);
	}
	buf_putc(x->out, ')');
}

static void line(X *x, int k, const char *indent)
{
	const Ins *in = &x->f->ins[k];
	if (opinfo[in->op].props & P_LEAF)
		return;
	buf_puts(x->out, indent);
	if (opinfo[in->op].props & P_SINK) {
		buf_puts(x->out, x->f->var[in->var].name);
		lane_ix(x->out, "i", in->lane, 1);
		buf_printf(x->out, " %s ", opinfo[in->op].sym);
		operand(x, in->arg[0]);
		if (sink_red(in->op) != NB_SUM) { /* argmin's j */
			if (ins_nargs(in) == 2) {
				buf_puts(x->out, " at ");
				operand(x, in->arg[1]);
			}
		} else if (ins_nargs(in) == 2) { /* fused: r += a * b */
			buf_puts(x->out, " * ");
			operand(x, in->arg[1]);
			buf_puts(x->out, "   (fused)");
		}
		buf_putc(x->out, '\n');
		return;
	}
	operand(x, k);
	buf_puts(x->out, " = ");
	rhs(x, in);
	buf_putc(x->out, '\n');
}

void explain_print(const Func *f, Buf *out)
{
	X x = {f, out, 0, NULL, NULL};
	for (int k = 0; k < f->n; k++)
		if (f->ins[k].copy + 1 > x.ncopy)
			x.ncopy = f->ins[k].copy + 1;
	x.il = malloc(sizeof(int) * (size_t)(f->n ? f->n : 1));
	x.jl = malloc(sizeof(int) * (size_t)(f->n ? f->n : 1));
	if (!x.il || !x.jl)
		ICE("out of memory");
	ir_lanes(f, x.il, x.jl);
	int ni = f->ni, nj = f->nj, t = f->jsplit;
	buf_printf(out, "// %s after --unroll-i=%d --unroll-j=%d --jsplit=%d%s\n",
	           f->name ? f->name : "kernel", ni, nj, t,
	           f->sched ? " --sched=interleave" : " --sched=none");
	if (ni > 1)
		buf_printf(out, "for i = 0 to Ni-1 each %d"
		           "            // i-unroll (Fig. 3): a work item "
		           "takes %d i-elements\n", ni, ni);
	else
		buf_puts(out, "for i = 0 to Ni-1"
		         "                   // a work item takes one "
		         "i-element\n");
	const char *ind = "  ";
	if (t > 1) {
		buf_printf(out, "  for p = 0 to %d in parallel"
		           "      // j-split (paper 003): %d work items share "
		           "these i, each its own sums\n", t - 1, t);
		ind = "    ";
	}
	/* the sums start at 0, the other reductions at their identity */
	static const char *const start[NB_NRED] = {
		[NB_MIN] = "+inf", [NB_MAX] = "-inf",
		[NB_ARGMIN] = "-1, at the value +inf",
		[NB_ARGMAX] = "-1, at the value -inf",
		[NB_LOGSUMEXP] = "-inf: log of a sum of 0",
	};
	for (int r = -1; r < NB_NRED; r++) {
		int first = 1;
		for (int v = 0; v < f->nvar; v++) {
			nb_red red = f->var[v].red;
			if (f->var[v].role != NB_RMEM ||
			    (r < 0 ? red > NB_COUNT : (int)red != r || red <= NB_COUNT))
				continue;
			buf_printf(out, "%s%s", first ? ind : " = ", f->var[v].name);
			if (ni > 1)
				buf_printf(out, "[i..i+%d]", ni - 1);
			else
				buf_puts(out, "[i]");
			first = 0;
		}
		if (!first)
			buf_printf(out, " = %s\n", r < 0 ? "0" : start[r]);
	}
	int npre = 0;
	for (int k = 0; k < f->n; k++)
		npre += f->ins[k].blk == B_PRE &&
		        !(opinfo[f->ins[k].op].props & P_LEAF);
	if (npre) {
		buf_printf(out, "%s// hoisted: once per work item, not per j\n",
		           ind);
		for (int k = 0; k < f->n; k++)
			if (f->ins[k].blk == B_PRE)
				line(&x, k, ind);
	}
	const char *ind2 = t > 1 ? "      " : "    ";
	const char *from = t > 1 ? "p" : "0";
	if (nj > 1)
		buf_printf(out, "%sfor j = %s to Nj-1 each %d"
		           "          // j-unroll (Fig. 4): %d j-elements a "
		           "step\n", ind, from, nj * t, nj);
	else if (t > 1)
		buf_printf(out, "%sfor j = p to Nj-1 each %d\n", ind, t);
	else
		buf_printf(out, "%sfor j = 0 to Nj-1\n", ind);
	for (int k = 0; k < f->n; k++)
		if (f->ins[k].blk == B_BODY)
			line(&x, k, ind2);
	if (nj > 1) {
		int ntail = 0;
		for (int k = 0; k < f->n; k++)
			ntail += f->ins[k].blk == B_TAIL &&
			         !(opinfo[f->ins[k].op].props & P_LEAF);
		buf_printf(out, "%sfor the last j-elements (fewer than %d)"
		           "    // remainder: the body for one j-element, "
		           "%d operations\n", ind, nj, ntail);
	}
	if (t > 1) {
		for (int v = 0; v < f->nvar; v++)
			if (f->var[v].role == NB_RMEM)
				buf_printf(out, "  %s%s = sum over p of the %d "
				           "partial sums\n", f->var[v].name,
				           ni > 1 ? "[i+k]" : "[i]", t);
	}
	/* Newton's third law, where the source declares symmetries */
	int nsym = 0;
	const char *plain = NULL;
	for (int v = 0; v < f->nvar; v++)
		if (f->var[v].role == NB_RMEM) {
			nsym += f->var[v].sym != 0;
			if (!f->var[v].sym && !plain)
				plain = f->var[v].name;
		}
	if (nsym && plain)
		buf_printf(out, "// Newton's third law: off, every pair computed: "
		           "'%s' is neither SYMMETRIC nor ANTISYMMETRIC\n", plain);
	else if (nsym)
		buf_printf(out, "// Newton's third law: a self run (i and j the "
		           "same elements, C back end) computes each pair i != j "
		           "once, its term to i and +- to j\n");
	free(x.il);
	free(x.jl);
}
