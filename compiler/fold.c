/* fold.c: constant folding.  An operation on literals becomes a literal,
 * computed in the operation's own type by the kernels' own arithmetic
 * (eval.c), so folding never changes a result the kernel would compute.
 * Also removes identities that are exact in IEEE arithmetic: x*1, x/1,
 * x-0, -(-x), r += -x.  The literals folded away are left for dce. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"

static int isimm(const Func *f, int v) { return f->ins[v].op == O_IMM; }

static int is_value(const Func *f, int v, double x)
{
	const Ins *in = &f->ins[v];
	return in->op == O_IMM && in->imm[0] == x && in->imm[1] == 0;
}

/* Source offsets already warned about: a literal temporary is lowered
 * again at each use. */
typedef struct Said {
	int *off;
	int n, cap;
} Said;

static int said(Said *s, int off)
{
	for (int i = 0; i < s->n; i++)
		if (s->off[i] == off)
			return 1;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->off = realloc(s->off, sizeof(int) * (size_t)s->cap);
		if (!s->off)
			ICE("out of memory");
	}
	s->off[s->n++] = off;
	return 0;
}

static int try_fold(Func *f, Ins *in, Said *sd)
{
	const OpInfo *oi = &opinfo[in->op];
	if (oi->props & (P_LEAF | P_SINK) || in->type == T_BOOL)
		return 0;
	for (int a = 0; a < oi->nargs; a++)
		if (!isimm(f, in->arg[a]))
			return 0;
	const double *x[3] = {NULL, NULL, NULL};
	for (int a = 0; a < oi->nargs; a++)
		x[a] = f->ins[in->arg[a]].imm;
	double r[2] = {0, 0};
	if (!op_eval(in->op, in->type, x[0], x[1], x[2], r))
		return 0;
	/* 1e38 * 10 in float, 1 / 0: a warning, as a literal beyond the
	 * type's range is an error (lower.c), but an infinity may also be
	 * meant */
	int finite = 1;
	for (int a = 0; a < oi->nargs; a++)
		finite &= isfinite(x[a][0]) && isfinite(x[a][1]);
	if (finite && !isfinite(r[0]) && !said(sd, in->loc.off))
		warn(f->ctx, in->loc, "this constant expression is %s in %s",
		     isnan(r[0]) ? "not a number (NaN)" : "infinite",
		     prec[in->type].name);
	in->op = O_IMM;
	in->imm[0] = r[0];
	in->imm[1] = r[1];
	in->arg[0] = in->arg[1] = in->arg[2] = -1;
	return 1;
}

void pass_fold(Func *f)
{
	int n = f->n;
	int *repl = malloc(sizeof(int) * (size_t)(n ? n : 1));
	int *keep = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!repl || !keep)
		ICE("out of memory");
	int changed = 0;
	Said sd = {0};
	for (int k = 0; k < n; k++) {
		repl[k] = k;
		keep[k] = 1;
		Ins *in = &f->ins[k];
		/* operands may have been replaced already */
		for (int a = 0; a < ins_nargs(in); a++)
			while (repl[in->arg[a]] != in->arg[a])
				in->arg[a] = repl[in->arg[a]];
		if (try_fold(f, in, &sd)) {
			changed = 1;
			continue;
		}
		int a0 = in->arg[0], a1 = in->arg[1];
		int r = -1;
		switch (in->op) {
		case O_MUL:
			if (is_value(f, a1, 1))
				r = a0;
			else if (is_value(f, a0, 1))
				r = a1;
			break;
		case O_DIV:
			if (is_value(f, a1, 1))
				r = a0;
			break;
		case O_SUB:
			if (is_value(f, a1, 0) && !signbit(f->ins[a1].imm[0]))
				r = a0;
			break;
		case O_NEG:
			if (f->ins[a0].op == O_NEG)
				r = f->ins[a0].arg[0];
			break;
		case O_ACC:
		case O_ACCSUB:
			if (f->ins[a0].op == O_NEG) {
				in->op = in->op == O_ACC ? O_ACCSUB : O_ACC;
				in->arg[0] = f->ins[a0].arg[0];
				changed = 1;
			}
			break;
		}
		if (r >= 0) {
			repl[k] = r;
			keep[k] = 0;
			changed = 1;
		}
	}
	if (changed)
		func_rewrite(f, keep, repl, NULL);
	free(sd.off);
	free(repl);
	free(keep);
}
