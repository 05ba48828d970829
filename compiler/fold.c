/* fold.c: constant folding.  An operation on literals becomes a literal,
 * computed in the operation's own type (dd through ddlib.h), so folding never
 * changes a result the kernel would compute.  Also removes identities that
 * are exact in IEEE arithmetic: x*1, x/1, x-0, -(-x), r += -x. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ir.h"
#include "ddlib.h"

static int isimm(const Func *f, int v) { return f->ins[v].op == O_IMM; }

static int is_value(const Func *f, int v, double x)
{
	const Ins *in = &f->ins[v];
	return in->op == O_IMM && in->imm[0] == x && in->imm[1] == 0;
}

static int fold_f64(int op, double a, double b, double c, double *r)
{
	switch (op) {
	case O_NEG: *r = -a; return 1;
	case O_ADD: *r = a + b; return 1;
	case O_SUB: *r = a - b; return 1;
	case O_MUL: *r = a * b; return 1;
	case O_DIV: *r = a / b; return 1;
	case O_FMA: *r = fma(a, b, c); return 1;
	case O_FMS: *r = fma(a, b, -c); return 1;
	case O_FNMA: *r = fma(-a, b, c); return 1;
	case O_SQRT: *r = sqrt(a); return 1;
	case O_RSQRT: *r = 1 / sqrt(a); return 1;
	case O_EXP: *r = exp(a); return 1;
	case O_LOG: *r = log(a); return 1;
	case O_SIN: *r = sin(a); return 1;
	case O_COS: *r = cos(a); return 1;
	case O_POW: *r = pow(a, b); return 1;
	case O_FABS: *r = fabs(a); return 1;
	case O_FMIN: *r = fmin(a, b); return 1;
	case O_FMAX: *r = fmax(a, b); return 1;
	}
	return 0;
}

static int fold_f32(int op, float a, float b, float c, double *r)
{
	float x;
	switch (op) {
	case O_NEG: x = -a; break;
	case O_ADD: x = a + b; break;
	case O_SUB: x = a - b; break;
	case O_MUL: x = a * b; break;
	case O_DIV: x = a / b; break;
	case O_FMA: x = fmaf(a, b, c); break;
	case O_FMS: x = fmaf(a, b, -c); break;
	case O_FNMA: x = fmaf(-a, b, c); break;
	case O_SQRT: x = sqrtf(a); break;
	case O_RSQRT: x = 1 / sqrtf(a); break;
	case O_EXP: x = expf(a); break;
	case O_LOG: x = logf(a); break;
	case O_SIN: x = sinf(a); break;
	case O_COS: x = cosf(a); break;
	case O_POW: x = powf(a, b); break;
	case O_FABS: x = fabsf(a); break;
	case O_FMIN: x = fminf(a, b); break;
	case O_FMAX: x = fmaxf(a, b); break;
	default: return 0;
	}
	*r = x;
	return 1;
}

/* dd folds through the very library the generated kernels carry
 * (ddlib.h is C as well as OpenCL C), so a folded constant has the bits
 * the kernel would have computed. */
static int fold_dd(int op, const double *a, const double *b, const double *c,
                   double *r)
{
	nb_dd x = nb_dd_make(a[0], a[1]), y = nb_dd_make(b[0], b[1]);
	nb_dd z = nb_dd_make(c[0], c[1]), v;
	switch (op) {
	case O_NEG: v = nb_dd_neg(x); break;
	case O_ADD: v = nb_dd_add(x, y); break;
	case O_SUB: v = nb_dd_sub(x, y); break;
	case O_MUL: v = nb_dd_mul(x, y); break;
	case O_DIV: v = nb_dd_div(x, y); break;
	case O_FMA: v = nb_dd_add(nb_dd_mul(x, y), z); break;
	case O_FMS: v = nb_dd_sub(nb_dd_mul(x, y), z); break;
	case O_FNMA: v = nb_dd_sub(z, nb_dd_mul(x, y)); break;
	case O_SQRT: v = nb_dd_sqrt(x); break;
	case O_RSQRT: v = nb_dd_rsqrt(x); break;
	case O_EXP: v = nb_dd_exp(x); break;
	case O_LOG: v = nb_dd_log(x); break;
	case O_SIN: v = nb_dd_sin(x); break;
	case O_COS: v = nb_dd_cos(x); break;
	case O_POW: v = nb_dd_pow(x, y); break;
	case O_FABS: v = nb_dd_fabs(x); break;
	case O_FMIN: v = nb_dd_fmin(x, y); break;
	case O_FMAX: v = nb_dd_fmax(x, y); break;
	default: return 0;
	}
	r[0] = v.hi;
	r[1] = v.lo;
	return 1;
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
	static const double zero[2] = {0, 0};
	for (int a = 0; a < 3; a++)
		x[a] = a < oi->nargs ? f->ins[in->arg[a]].imm : zero;
	double r[2] = {0, 0};
	if (in->op == O_CVT) {
		/* a dd keeps its low part only as dd; narrowing rounds once */
		r[0] = x[0][0] + x[0][1];
		if (in->type == T_F32)
			r[0] = (float)r[0];
		else if (in->type == T_DD) {
			r[0] = x[0][0];
			r[1] = x[0][1];
		}
	} else if (in->type == T_F32) {
		if (!fold_f32(in->op, (float)x[0][0], (float)x[1][0],
		              (float)x[2][0], r))
			return 0;
	} else if (in->type == T_F64) {
		if (!fold_f64(in->op, x[0][0], x[1][0], x[2][0], r))
			return 0;
	} else {
		if (!fold_dd(in->op, x[0], x[1], x[2], r))
			return 0;
	}
	/* 1e38 * 10 in float, 1 / 0: a warning, as a literal beyond the
	 * type's range is an error (lower.c), but an infinity may also be
	 * meant */
	int finite = 1;
	for (int a = 0; a < oi->nargs; a++)
		finite &= isfinite(x[a][0]) && isfinite(x[a][1]);
	if (finite && !isfinite(r[0]) && !said(sd, in->loc.off))
		warn(f->ctx, in->loc, "this constant expression is %s in %s",
		     isnan(r[0]) ? "not a number (NaN)" : "infinite",
		     in->type == T_F32 ? "float" : in->type == T_F64 ?
		     "double" : "dd");
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
	if (changed)
		pass_dce(f); /* the literals folded into others */
}
