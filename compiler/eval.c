/* eval.c: the value of an operation on constants, in each precision, from
 * the fold columns of ops.h.  fold.c folds the IR with it and sema.c
 * computes the exponents of ** with it, so the compiler has one
 * arithmetic for constants, and it is the kernels' own: IEEE float and
 * double in the operation's type, dd through ddlib.h. */
#include <math.h>
#include "ir.h"
#include "ddlib.h"
#include <tgmath.h>

/* float and double share the fold text; <tgmath.h> makes sqrt(a) sqrtf
 * for a float a, and float arithmetic stays float.  An operand is
 * hi + lo, which is only not hi for a dd being narrowed (CVT): rounded
 * once. */
#define F(e) *r = (e); return 1;
#define NOFOLD return 0;
#define OP(n, na, p, k, fl, lat, sym, fn, call, dd, fold, ddfold, il, ilp, deriv) \
	case O_##n: fold

int eval_f32(int op, const double *x, const double *y, const double *z,
             double *r)
{
	float a = (float)(x[0] + x[1]), b = (float)y[0], c = (float)z[0];
	(void)a, (void)b, (void)c;
	r[1] = 0;
	switch (op) {
#include "ops.h"
	}
	return 0;
}

int eval_f64(int op, const double *x, const double *y, const double *z,
             double *r)
{
	double a = x[0] + x[1], b = y[0], c = z[0];
	(void)a, (void)b, (void)c;
	r[1] = 0;
	switch (op) {
#define OP(n, na, p, k, fl, lat, sym, fn, call, dd, fold, ddfold, il, ilp, deriv) \
	case O_##n: fold
#include "ops.h"
	}
	return 0;
}
#undef F

int eval_dd(int op, const double *a, const double *b, const double *c,
            double *r)
{
	nb_dd x = nb_dd_make(a[0], a[1]), y = nb_dd_make(b[0], b[1]);
	nb_dd z = nb_dd_make(c[0], c[1]), v;
	(void)x, (void)y, (void)z;
#define F(e) v = (e); break;
	switch (op) {
#define OP(n, na, p, k, fl, lat, sym, fn, call, dd, fold, ddfold, il, ilp, deriv) \
	case O_##n: ddfold
#include "ops.h"
	default:
		return 0;
	}
	r[0] = v.hi;
	r[1] = v.lo;
	return 1;
}
