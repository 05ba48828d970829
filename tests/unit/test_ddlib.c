/* test_ddlib.c: the dd library (compiler/ddlib.h) against QD, as C and as
 * OpenCL C.  Every function runs on fresh random operands (seed printed;
 * NBCC_TEST_SEED=n repeats a run) over wide exponent ranges, with
 * cancellation cases for add/sub and sweeps over every table entry, and is
 * compared with two references:
 *   - QD's quad-double (c_qd_*, 212 bits), so the difference is our own
 *     error.  Tolerances, eps = 2^-104 ~ 4.9e-32 relative to the exact
 *     result: add/sub 1 eps (proven 0.75), mul 2 (proven 1.25), div 4
 *     (proven 3.75), sqrt and rsqrt 4; exp and log 1e-30 (~20 eps); sin
 *     and cos 1e-30 plus 2^-150 |x| absolute (the reduction's pi/2 has ~160
 *     bits); pow 1e-31 of (1 + |b log a|) |a**b|, the conditioning of
 *     exp(b log a); cbrt, log1p and atan2 4 eps, expm1, tanh, erf and
 *     erfc 8 (QD has no expm1, log1p, cbrt, erf or erfc of its own: exp - 1
 *     and log(1 + x) in quad-double, where 212 bits survive the
 *     cancellation, nroot, and qd_erf's series and continued fraction).
 *     Measured maxima are printed, a few times smaller.
 *   - QD's double-double (c_dd_*), which users compare with: add/sub within
 *     4 eps of max(|a|,|b|), mul, div, sqrt, rsqrt within our tolerance
 *     plus 4 eps, the functions within 1e-29 plus QD's own error where
 *     larger (see tolerance()); erf and erfc have no QD dd to compare.
 * Comparisons, fabs, fmin, fmax, neg, floor, trunc, round (against
 * quad-double floor, with halves in hi and in lo) and conversions must be
 * exact.  Then
 * special values (zeros, infinities, NaN).  The OpenCL pass builds the
 * library text the back ends paste (nb_ddlib_src) with a kernel applying
 * each function to arrays, on the first device with fp64, GPUs first (PoCL
 * here, NVIDIA's OpenCL on the GPU machine, whose contraction of products
 * across statements this caught once), and holds the results to the same
 * references; it is skipped, not failed, only when there is no OpenCL
 * platform or no device with fp64 (the exit status is then 77, skipped,
 * for tests/run.sh). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <check.h>
#include <math.h>
#include <qd/c_dd.h>
#include <qd/c_qd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ddlib.h"
#include "seed.h"
#include "emit.h"

#define N 3000
#define EPS 0x1p-104

/* Each operation once: its name, and its expression over nb_dd a, b,
 * spelled the same in C and in the OpenCL kernel. */
#define OPS(X) \
	X(ADD, nb_dd_add(a, b)) \
	X(SUB, nb_dd_sub(a, b)) \
	X(MUL, nb_dd_mul(a, b)) \
	X(DIV, nb_dd_div(a, b)) \
	X(SQRT, nb_dd_sqrt(a)) \
	X(RSQRT, nb_dd_rsqrt(a)) \
	X(EXP, nb_dd_exp(a)) \
	X(LOG, nb_dd_log(a)) \
	X(SIN, nb_dd_sin(a)) \
	X(COS, nb_dd_cos(a)) \
	X(POW, nb_dd_pow(a, b)) \
	X(CBRT, nb_dd_cbrt(a)) \
	X(EXPM1, nb_dd_expm1(a)) \
	X(LOG1P, nb_dd_log1p(a)) \
	X(TANH, nb_dd_tanh(a)) \
	X(ATAN2, nb_dd_atan2(a, b)) \
	X(ERF, nb_dd_erf(a)) \
	X(ERFC, nb_dd_erfc(a)) \
	X(NEG, nb_dd_neg(a)) \
	X(FLOOR, nb_dd_floor(a)) \
	X(TRUNC, nb_dd_trunc(a)) \
	X(ROUND, nb_dd_round(a)) \
	X(FABS, nb_dd_fabs(a)) \
	X(FMIN, nb_dd_fmin(a, b)) \
	X(FMAX, nb_dd_fmax(a, b)) \
	X(LT, nb_dd_from(nb_dd_lt(a, b))) \
	X(LE, nb_dd_from(nb_dd_le(a, b))) \
	X(GT, nb_dd_from(nb_dd_gt(a, b))) \
	X(GE, nb_dd_from(nb_dd_ge(a, b))) \
	X(EQ, nb_dd_from(nb_dd_eq(a, b))) \
	X(NE, nb_dd_from(nb_dd_ne(a, b))) \
	X(TO, nb_dd_from(nb_dd_to(a))) \
	X(MAKE, nb_dd_make(a.hi, a.lo))

#define ENUM(n, e) OP_##n,
enum { OPS(ENUM) NOPS };
#define NAME(n, e) #n,
static const char *const op_name[] = {OPS(NAME)};
#define EXPR(n, e) #e,
static const char *const op_expr[] = {OPS(EXPR)};

static nb_dd c_apply(int op, nb_dd a, nb_dd b)
{
	switch (op) {
#define CASE(n, e) case OP_##n: return e;
	OPS(CASE)
	}
	abort();
}

/* ---- random operands --------------------------------------------------- */

static unsigned long long seed;
static unsigned long long rng;

static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* uniform in (0, 1) */
static double uniform(void)
{
	return ((next() >> 11) + 0.5) * 0x1p-53;
}

static int irand(int lo, int hi)
{
	return lo + (int)(next() % (unsigned long long)(hi - lo + 1));
}

static nb_dd norm(double hi, double lo)
{
	double s = hi + lo;
	return nb_dd_make(s, lo - (s - hi));
}

/* a random dd with hi in [2^e, 2^(e+1)), e in [emin, emax], random sign;
 * one in eight has lo = 0 */
static nb_dd rnd(int emin, int emax)
{
	double hi = ldexp(1.0 + uniform(), irand(emin, emax));
	if (next() & 1)
		hi = -hi;
	if (next() % 8 == 0)
		return nb_dd_make(hi, 0.0);
	return norm(hi, hi * (2 * uniform() - 1) * 0x1p-53);
}

static nb_dd pos(nb_dd a) { return a.hi < 0 ? nb_dd_neg(a) : a; }

/* dd to quad-double and back; qd_sum is a + b rounded once to dd */
static void qd_of(nb_dd a, double q[4])
{
	q[0] = a.hi;
	q[1] = a.lo;
	q[2] = q[3] = 0;
}

static nb_dd dd_of(const double q[4])
{
	return norm(q[0], q[1]);
}

static nb_dd qd_sum(nb_dd a, nb_dd b)
{
	double qa[4], qb[4], r[4];
	qd_of(a, qa);
	qd_of(b, qb);
	c_qd_add(qa, qb, r);
	return dd_of(r);
}

/* operands of sample i of op: four kinds in turn, the sweeps over table
 * entries stepping with i / 4 */
static void gen(int op, int i, nb_dd *a, nb_dd *b)
{
	double pio2[4], t[4], q[4];
	int mode = i % 4, step = i / 4;
	*b = nb_dd_make(0.0, 0.0);
	switch (op) {
	case OP_ADD:
	case OP_SUB:
		*a = rnd(-300, 300);
		if (mode == 0) {	/* independent, overlapping exponents */
			*b = rnd(ilogb(a->hi) - 120, ilogb(a->hi) + 120);
			break;
		}
		if (mode == 1) {	/* b = -a + small: heavy cancellation */
			nb_dd d = rnd(ilogb(a->hi) - 115, ilogb(a->hi) - 1);
			*b = qd_sum(nb_dd_neg(*a), d);
		} else if (mode == 2) {	/* exact cancellation */
			*b = nb_dd_neg(*a);
		} else {	/* equal hi words, other lo */
			*b = norm(-a->hi, a->hi * (2 * uniform() - 1) * 0x1p-53);
		}
		if (op == OP_SUB)
			*b = nb_dd_neg(*b);
		break;
	case OP_MUL:
	case OP_DIV:
		*a = rnd(-480, 480);	/* results stay above 2^-969 */
		*b = rnd(-480, 480);
		break;
	case OP_SQRT:
	case OP_RSQRT:
		/* beyond 2^+-900, QD's own sqrt loses bits */
		*a = pos(rnd(-900, 900));
		break;
	case OP_EXP:
		if (mode == 0) {	/* every table entry */
			double x = ((step % 384) - 192 + uniform() - 0.5) / 64;
			*a = norm(x * 0x1.62e42fefa39efp-1, x * 1e-17);
		} else if (mode == 1) {
			*a = rnd(-60, 2);
		} else {
			/* results above 2^-969: below, lo is subnormal */
			double x = 1370 * uniform() - 665;
			*a = norm(x, x * (2 * uniform() - 1) * 0x1p-53);
		}
		break;
	case OP_LOG:
		if (mode == 0) {	/* every table entry, seen in a small log */
			double m = 1 + ((step % 47) - 19 + uniform() - 0.5) / 64;
			m = fmin(fmax(m, 0x1.6a09e667f3bcdp-1), 0x1.6a09e667f3bccp+0);
			*a = norm(ldexp(m, irand(-1, 1)), 0.0);
			a->lo = a->hi * (2 * uniform() - 1) * 0x1p-53;
			*a = norm(a->hi, a->lo);
		} else if (mode == 1) {	/* near 1 */
			*a = qd_sum(nb_dd_from(1.0), rnd(-100, -2));
		} else {
			*a = pos(rnd(-900, 900));
		}
		break;
	case OP_SIN:
	case OP_COS:
		if (mode == 0) {	/* near n pi/2: the reduction cancels */
			c_qd_pi(pio2);
			c_qd_mul_qd_d(pio2, 0.5 * irand(-1000000, 1000000), t);
			qd_of(rnd(-80, -2), q);
			c_qd_add(t, q, pio2);
			*a = dd_of(pio2);
		} else if (mode == 1) {
			*a = rnd(-40, 44);
		} else {
			double x = 20 * uniform() - 10;
			*a = norm(x, x * (2 * uniform() - 1) * 0x1p-53);
		}
		break;
	case OP_POW:
		*a = pos(rnd(-30, 30));
		*b = mode == 0 ? rnd(-30, 3) : norm(40 * uniform() - 20, 0.0);
		b->lo = b->hi * (2 * uniform() - 1) * 0x1p-53;
		*b = norm(b->hi, b->lo);
		if (mode == 3)	/* exercise pow(a, small integer) */
			*b = nb_dd_from(irand(-4, 6));
		break;
	case OP_CBRT:	/* QD's nroot goes through log: its range */
		*a = rnd(-600, 600);
		break;
	case OP_EXPM1:
		if (mode == 0)	/* the doubling range, |x| < 1/2 */
			*a = rnd(-60, -2);
		else if (mode == 1)
			*a = rnd(-1, 3);
		else if (mode == 2)	/* tiny: the result is x and a bit */
			*a = rnd(-300, -60);
		else {	/* up to the overflow, down to -1 */
			double x = 1400 * uniform() - 700;
			*a = norm(x, x * (2 * uniform() - 1) * 0x1p-53);
		}
		break;
	case OP_LOG1P:
		if (mode == 0)
			*a = rnd(-100, -1);
		else if (mode == 1)	/* near -1: 1 + x cancels */
			*a = qd_sum(nb_dd_from(-1.0), pos(rnd(-60, -1)));
		else if (mode == 2)
			*a = pos(rnd(-1, 600));
		else	/* (-1/2, 1): where u.hi - 1 is exact */
			*a = norm(1.5 * uniform() - 0.5, uniform() * 0x1p-54);
		break;
	case OP_TANH:
		*a = mode == 0 ? rnd(-60, -1) : mode == 1 ? rnd(-300, -60) :
		     rnd(-1, 6);
		break;
	case OP_ATAN2:	/* every quadrant, ratios near 1 and far from it */
		*a = rnd(-40, 40);
		if (mode == 0)
			*b = rnd(ilogb(a->hi) - 2, ilogb(a->hi) + 2);
		else if (mode == 1)
			*b = rnd(ilogb(a->hi) - 120, ilogb(a->hi) + 120);
		else if (mode == 2)	/* near the diagonals */
			*b = qd_sum(next() & 1 ? *a : nb_dd_neg(*a),
			            rnd(ilogb(a->hi) - 80, ilogb(a->hi) - 10));
		else
			*b = rnd(-40, 40);
		break;
	case OP_ERF:	/* the series, the nodes (each), the fraction, tiny */
	case OP_ERFC:
		if (mode == 0)
			*a = norm(0.5 * uniform(), 0.0);
		else if (mode == 1)
			*a = norm(0.375 + 0.25 * (step % 15 + uniform()), 0.0);
		else if (mode == 2)
			*a = norm(op == OP_ERF ? 4 + 3 * uniform() :
			          4 + 22 * uniform(), 0.0);
		else
			*a = op == OP_ERF ? rnd(-300, -2) :
			     norm(-4 * uniform(), 0.0);
		a->lo = a->hi * (2 * uniform() - 1) * 0x1p-53;
		*a = norm(a->hi, a->lo);
		if (next() & 1 && op == OP_ERF)
			*a = nb_dd_neg(*a);
		break;
	case OP_FLOOR:
	case OP_TRUNC:
	case OP_ROUND:	/* fractions in hi, in lo, and halves in either */
		*a = rnd(-5, 110);
		if (mode == 1)
			*a = norm(ldexp(rint(ldexp(a->hi, -ilogb(a->hi) + 52)),
			                ilogb(a->hi) - 52), 0.0);
		if (mode == 1 || mode == 2)
			a->lo = ldexp(irand(-2, 2), irand(-3, 1)) *
			        (ilogb(a->hi) > 60 ? 1 : 0x1p-70);
		if (mode == 3)
			*a = norm(0.5 * irand(-40, 40), 0.0);
		*a = norm(a->hi, a->lo);
		break;
	default:	/* comparisons and exact operations */
		*a = rnd(-50, 50);
		if (mode == 0)
			*b = *a;
		else if (mode == 1)
			*b = norm(a->hi, a->hi * (2 * uniform() - 1) * 0x1p-53);
		else if (mode == 2)
			*b = nb_dd_neg(*a);
		else
			*b = rnd(-50, 50);
		break;
	}
}

/* ---- references and checks --------------------------------------------- */

/* log in quad-double as log(a 2^-e) + e log 2: QD's own log goes through
 * exp(-log a), which loses bits to underflow when |log a| is large */
static void qd_log(const double qa[4], double r[4])
{
	double m[4], l[4], l2[4], t[4];
	int e = ilogb(qa[0]);
	c_qd_mul_qd_d(qa, ldexp(1.0, -e), m);
	c_qd_log(m, l);
	qd_of(nb_dd_from(2.0), t);
	c_qd_log(t, l2);
	c_qd_mul_qd_d(l2, e, t);
	c_qd_add(l, t, r);
}

/* erf (c = 0) or erfc (c = 1) in quad-double, by other means than
 * ddlib.h's: the alternating Taylor series for |x| < 3 (212 bits lose at
 * most 13 to its cancellation, and erfc = 1 - erf at most 16 more), and
 * for x >= 3 Laplace's continued fraction from its 200th term (150 reach
 * 1e-40 at x = 3); erfc(-x) = 2 - erfc(x) */
static void qd_erf(const double qa[4], int c, double r[4])
{
	double x[4], z[4], t[4], s[4], u[4];
	c_qd_abs(qa, x);
	if (x[0] < 3) {
		c_qd_mul(x, x, z);
		c_qd_copy(x, t);
		c_qd_copy(x, s);
		for (int n = 1; n < 200; n++) {
			c_qd_mul(t, z, t);
			c_qd_div_qd_d(t, -n, t);
			c_qd_div_qd_d(t, 2 * n + 1, u);
			c_qd_add(s, u, s);
		}
		c_qd_pi(t);
		c_qd_sqrt(t, t);
		c_qd_div(s, t, s);
		c_qd_mul_qd_d(s, 2.0, s);	/* erf |x| */
		if (c) {
			if (qa[0] < 0)
				c_qd_neg(s, s);
			c_qd_copy_d(1.0, t);
			c_qd_sub(t, s, r);
		} else {
			c_qd_copy(s, r);
			if (qa[0] < 0)
				c_qd_neg(r, r);
		}
		return;
	}
	c_qd_copy(x, t);
	for (int k = 200; k >= 1; k--) {
		c_qd_copy_d(0.5 * k, u);
		c_qd_div(u, t, u);
		c_qd_add(x, u, t);
	}
	c_qd_mul(x, x, z);
	c_qd_neg(z, z);
	c_qd_exp(z, z);
	c_qd_pi(u);
	c_qd_sqrt(u, u);
	c_qd_mul(u, t, t);
	c_qd_div(z, t, s);	/* erfc |x| */
	if (c && qa[0] > 0) {
		c_qd_copy(s, r);
		return;
	}
	c_qd_copy_d(c ? 2.0 : 1.0, t);
	c_qd_sub(t, s, r);
	if (!c && qa[0] < 0)
		c_qd_neg(r, r);
}

/* the exact-enough value of op(a, b) in quad-double */
static void ref_qd(int op, nb_dd a, nb_dd b, double r[4])
{
	double qa[4], qb[4], t[4];
	qd_of(a, qa);
	qd_of(b, qb);
	switch (op) {
	case OP_ADD: c_qd_add(qa, qb, r); break;
	case OP_SUB: c_qd_sub(qa, qb, r); break;
	case OP_MUL: c_qd_mul(qa, qb, r); break;
	case OP_DIV: c_qd_div(qa, qb, r); break;
	case OP_SQRT: c_qd_sqrt(qa, r); break;
	case OP_RSQRT: c_qd_sqrt(qa, t); c_qd_div_d_qd(1.0, t, r); break;
	case OP_EXP: c_qd_exp(qa, r); break;
	case OP_LOG: qd_log(qa, r); break;
	case OP_SIN: c_qd_sin(qa, r); break;
	case OP_COS: c_qd_cos(qa, r); break;
	case OP_POW: qd_log(qa, t); c_qd_mul(qb, t, qa); c_qd_exp(qa, r); break;
	case OP_CBRT:
		c_qd_abs(qa, t);
		c_qd_nroot(t, 3, r);
		if (a.hi < 0)
			c_qd_neg(r, r);
		break;
	case OP_EXPM1:	/* qd's 212 bits survive the cancellation */
		if (fabs(a.hi) < 0x1p-40) {	/* x + x^2/2 + x^3/6 */
			c_qd_mul(qa, qa, t);
			c_qd_mul_qd_d(t, 0.5, r);
			c_qd_mul(t, qa, t);
			c_qd_div_qd_d(t, 6.0, t);
			c_qd_add(r, t, r);
			c_qd_add(r, qa, r);
		} else {
			c_qd_exp(qa, t);
			c_qd_sub_qd_d(t, 1.0, r);
		}
		break;
	case OP_LOG1P: c_qd_add_qd_d(qa, 1.0, t); qd_log(t, r); break;
	case OP_TANH: c_qd_tanh(qa, r); break;
	case OP_ATAN2: c_qd_atan2(qa, qb, r); break;
	case OP_ERF: qd_erf(qa, 0, r); break;
	case OP_ERFC: qd_erf(qa, 1, r); break;
	default: abort();
	}
}

/* QD's double-double answer */
static nb_dd ref_dd(int op, nb_dd a, nb_dd b)
{
	double x[2] = {a.hi, a.lo}, y[2] = {b.hi, b.lo}, r[2], t[2];
	switch (op) {
	case OP_ADD: c_dd_add(x, y, r); break;
	case OP_SUB: c_dd_sub(x, y, r); break;
	case OP_MUL: c_dd_mul(x, y, r); break;
	case OP_DIV: c_dd_div(x, y, r); break;
	case OP_SQRT: c_dd_sqrt(x, r); break;
	case OP_RSQRT: c_dd_sqrt(x, t); c_dd_div_d_dd(1.0, t, r); break;
	case OP_EXP: c_dd_exp(x, r); break;
	case OP_LOG: c_dd_log(x, r); break;
	case OP_SIN: c_dd_sin(x, r); break;
	case OP_COS: c_dd_cos(x, r); break;
	case OP_POW: c_dd_log(x, t); c_dd_mul(y, t, r); c_dd_exp(r, r); break;
	case OP_CBRT: c_dd_abs(x, t); c_dd_nroot(t, 3, r);
		if (a.hi < 0)
			c_dd_neg(r, r);
		break;
	case OP_EXPM1: c_dd_exp(x, t); c_dd_sub_dd_d(t, 1.0, r); break;
	case OP_LOG1P: c_dd_add_dd_d(x, 1.0, t); c_dd_log(t, r); break;
	case OP_TANH: c_dd_tanh(x, r); break;
	case OP_ATAN2: c_dd_atan2(x, y, r); break;
	case OP_ERF:	/* QD has none: only the quad-double reference */
	case OP_ERFC:
		return nb_dd_make(NAN, 0.0);
	default: abort();
	}
	return nb_dd_make(r[0], r[1]);
}

/* |got - r| with r in quad-double */
static double dist(nb_dd got, const double r[4])
{
	double g[4], d[4];
	qd_of(got, g);
	c_qd_sub(g, r, d);
	return fabs(d[0]);
}

/* How far op(a, b) may be from the exact r (*tol) and from QD's dd answer
 * (*tol_dd), and the scale that makes an error relative (*scale).  The
 * second allows for QD's own error where it exceeds the project's target:
 * its add is the sloppy one, its exp, sin and cos reduce the argument with
 * a dd ln2 or 2pi (error ~|x| 2^-104), its log near 1 is absolute, and
 * beyond 2^+-600 its log computes exp(-log a), which underflows. */
static void tolerance(int op, nb_dd a, nb_dd b, const double r[4],
                      double *tol, double *tol_dd, double *scale)
{
	double m = fabs(r[0]), x = fabs(a.hi), y;
	*scale = m;
	switch (op) {
	case OP_ADD:
	case OP_SUB:
		*tol = 1 * EPS * m;
		*tol_dd = 4 * EPS * fmax(x, fabs(b.hi));
		return;
	case OP_MUL:
		*tol = 2 * EPS * m;
		*tol_dd = (2 + 4) * EPS * m;
		return;
	case OP_DIV:
	case OP_SQRT:
	case OP_RSQRT:
		*tol = 4 * EPS * m;
		*tol_dd = (4 + 4) * EPS * m;
		return;
	case OP_EXP:
		*tol = 1e-30 * m;
		*tol_dd = (1e-29 + 2 * EPS * x) * m;
		return;
	case OP_LOG:
		*tol = 1e-30 * m;
		*tol_dd = 1e-29 * fmax(m, 1);
		if (abs(ilogb(a.hi)) > 600)	/* QD's log underflows inside */
			*tol_dd = INFINITY;
		return;
	case OP_SIN:
	case OP_COS:
		/* near zeros the reduction's 2^-160 pi/2 shows, times n */
		*scale = fmax(m, 0x1p-150 * fmax(x, 1) / 1e-30);
		*tol = 1e-30 * *scale;
		*tol_dd = 1e-29 + 4 * EPS * x;
		return;
	case OP_POW:	/* exp(b log a) passes on log's error times |b log a| */
		y = fabs(b.hi * log(a.hi));
		*scale = (1 + y) * m;
		*tol = 1e-31 * *scale;
		*tol_dd = (1e-29 + 4 * EPS * (1 + y)) * m;
		return;
	case OP_CBRT:	/* QD's dd nroot is good to ~1e-28 */
		*tol = 4 * EPS * m;
		*tol_dd = 1e-27 * m;
		return;
	case OP_EXPM1:	/* QD has none: its exp - 1 cancels, absolutely */
		*tol = 8 * EPS * m;
		*tol_dd = 1e-29 * fmax(m, 1) + 4 * EPS * x * fmax(m, 1);
		return;
	case OP_LOG1P:	/* QD's log(1 + x) rounds 1 + x first */
		*tol = 4 * EPS * m;
		*tol_dd = 1e-29 * fmax(m, 1) + 4 * EPS / fmax(1 + a.hi, 0x1p-60);
		if (abs(ilogb(a.hi)) > 600)
			*tol_dd = INFINITY;
		return;
	case OP_TANH:
		*tol = 8 * EPS * m;
		*tol_dd = 1e-29 * fmax(m, 1e-3) + 4 * EPS * x;
		return;
	case OP_ATAN2:
		*tol = 4 * EPS * m;
		*tol_dd = 1e-29 * fmax(m, 1);
		return;
	case OP_ERF:
	case OP_ERFC:
		*tol = 8 * EPS * m;
		*tol_dd = INFINITY;
		return;
	default:
		abort();
	}
}

static int is_valid(nb_dd a)
{
	return fabs(a.hi + a.lo) == fabs(a.hi) || a.hi != a.hi;
}

/* floor (how 0), trunc toward zero of a negative (1), and round: floor
 * of a + 1/2 (2), minus floor of 1/2 - a (3); qd holds a + 1/2 exactly */
static nb_dd qd_int(const double qa[4], int how)
{
	double t[4], r[4];
	if (how & 1)
		c_qd_neg(qa, t);
	else
		c_qd_copy(qa, t);
	if (how & 2)
		c_qd_add_qd_d(t, 0.5, t);
	c_qd_floor(t, r);
	if (how & 1)
		c_qd_neg(r, r);
	return dd_of(r);
}

/* the exact answer of the operations that must be exact */
static nb_dd exact(int op, nb_dd a, nb_dd b)
{
	double qa[4], qb[4];
	int c;
	qd_of(a, qa);
	qd_of(b, qb);
	c_qd_comp(qa, qb, &c);
	switch (op) {
	case OP_NEG: return nb_dd_make(-a.hi, -a.lo);
	case OP_FABS: return a.hi < 0 ? nb_dd_make(-a.hi, -a.lo) : a;
	case OP_FMIN: return c <= 0 ? a : b;
	case OP_FMAX: return c >= 0 ? a : b;
	case OP_LT: return nb_dd_from(c < 0);
	case OP_LE: return nb_dd_from(c <= 0);
	case OP_GT: return nb_dd_from(c > 0);
	case OP_GE: return nb_dd_from(c >= 0);
	case OP_EQ: return nb_dd_from(c == 0);
	case OP_NE: return nb_dd_from(c != 0);
	case OP_TO: return nb_dd_from(a.hi + a.lo);
	case OP_FLOOR: return qd_int(qa, 0);
	case OP_TRUNC: return qd_int(qa, a.hi < 0);
	case OP_ROUND: return qd_int(qa, a.hi < 0 ? 3 : 2);
	case OP_MAKE: return a;
	default: abort();
	}
}

static void check_exact(int op, nb_dd a, nb_dd b, nb_dd got, const char *who)
{
	nb_dd w = exact(op, a, b);
	/* fmin/fmax of equal values may pick either */
	int ok = (got.hi == w.hi && got.lo == w.lo) ||
	         ((op == OP_FMIN || op == OP_FMAX) && nb_dd_eq(a, b) &&
	          nb_dd_eq(got, b));
	ck_assert_msg(ok, "%s %s(%a%+a, %a%+a) = %a%+a, want %a%+a (seed %llu)",
	              who, op_name[op], a.hi, a.lo, b.hi, b.lo, got.hi, got.lo,
	              w.hi, w.lo, seed);
}

/* Checks got[i] = op(a[i], b[i]) for all i; `who` names the build.
 * Prints the largest error seen, in eps = 2^-104 of the scale. */
static void check_all(int op, const nb_dd *a, const nb_dd *b, const nb_dd *got,
                      int n, const char *who)
{
	double worst = 0, worst_dd = 0;
	for (int i = 0; i < n; i++) {
		if (op >= OP_NEG) {
			check_exact(op, a[i], b[i], got[i], who);
			continue;
		}
		double r[4], tol, tol_dd, scale;
		ref_qd(op, a[i], b[i], r);
		tolerance(op, a[i], b[i], r, &tol, &tol_dd, &scale);
		tol += 0x1p-1073;	/* the subnormal grid, should one show */
		tol_dd += 0x1p-1073;
		double e = dist(got[i], r);
		nb_dd q = ref_dd(op, a[i], b[i]);
		double e_dd = fabs((got[i].hi - q.hi) + (got[i].lo - q.lo));
		ck_assert_msg(is_valid(got[i]) && e <= tol &&
		              (e_dd <= tol_dd || tol_dd == INFINITY),
		              "%s %s(%a%+a, %a%+a) = %a%+a: exact %a%+a%+a, "
		              "error %.3g (allowed %.3g), QD dd %a%+a differs by "
		              "%.3g (allowed %.3g), seed %llu", who, op_name[op],
		              a[i].hi, a[i].lo, b[i].hi, b[i].lo, got[i].hi,
		              got[i].lo, r[0], r[1], r[2], e, tol, q.hi, q.lo, e_dd,
		              tol_dd, seed);
		if (scale > 0)
			worst = fmax(worst, e / scale);
		if (tol_dd < INFINITY)
			worst_dd = fmax(worst_dd, e_dd / tol_dd);
	}
	if (op < OP_NEG)
		printf("ddlib %s %-5s max error %6.2f eps; distance from QD dd at "
		       "most %3.0f%% of allowed (%d samples)\n", who, op_name[op],
		       worst / EPS, 100 * worst_dd, n);
	else
		printf("ddlib %s %-5s exact (%d samples)\n", who, op_name[op], n);
}

static void gen_all(int op, nb_dd *a, nb_dd *b)
{
	rng = seed ^ (0x9e3779b97f4a7c15ULL * (unsigned long long)(op + 1));
	for (int i = 0; i < N; i++)
		gen(op, i, &a[i], &b[i]);
}

static nb_dd A[N], B[N], R[N];

START_TEST(c_accuracy)
{
	int op = _i;
	gen_all(op, A, B);
	for (int i = 0; i < N; i++)
		R[i] = c_apply(op, A[i], B[i]);
	check_all(op, A, B, R, N, "C");
}
END_TEST

/* ---- special values ------------------------------------------------------ */

#define INF INFINITY

static const struct special {
	int op;
	double a, b, want;	/* want NAN: any NaN */
} specials[] = {
	{OP_SQRT, 0, 0, 0}, {OP_SQRT, -1, 0, NAN}, {OP_SQRT, INF, 0, INF},
	{OP_SQRT, NAN, 0, NAN}, {OP_SQRT, 4, 0, 2},
	{OP_RSQRT, 0, 0, INF}, {OP_RSQRT, INF, 0, 0}, {OP_RSQRT, -1, 0, NAN},
	{OP_RSQRT, 0.25, 0, 2},
	{OP_DIV, 1, 0, INF}, {OP_DIV, -1, 0, -INF}, {OP_DIV, 0, 0, NAN},
	{OP_DIV, 1, INF, 0}, {OP_DIV, INF, 2, INF}, {OP_DIV, INF, INF, NAN},
	{OP_DIV, NAN, 1, NAN}, {OP_DIV, 1, NAN, NAN}, {OP_DIV, 0, 3, 0},
	{OP_MUL, INF, 2, INF}, {OP_MUL, INF, -2, -INF}, {OP_MUL, INF, 0, NAN},
	{OP_MUL, NAN, 1, NAN}, {OP_MUL, 1e300, 1e300, INF},
	{OP_ADD, INF, 1, INF}, {OP_ADD, INF, -INF, NAN}, {OP_ADD, NAN, 1, NAN},
	{OP_ADD, 1e308, 1e308, INF}, {OP_SUB, INF, INF, NAN},
	{OP_SUB, 1, 1, 0}, {OP_ADD, 1, 1, 2},
	{OP_EXP, 0, 0, 1}, {OP_EXP, -INF, 0, 0}, {OP_EXP, INF, 0, INF},
	{OP_EXP, 710, 0, INF}, {OP_EXP, -750, 0, 0}, {OP_EXP, NAN, 0, NAN},
	{OP_LOG, 1, 0, 0}, {OP_LOG, 0, 0, -INF}, {OP_LOG, -1, 0, NAN},
	{OP_LOG, INF, 0, INF}, {OP_LOG, NAN, 0, NAN},
	{OP_SIN, 0, 0, 0}, {OP_COS, 0, 0, 1}, {OP_SIN, INF, 0, NAN},
	{OP_COS, NAN, 0, NAN}, {OP_SIN, 1e300, 0, NAN}, {OP_COS, 0x1p45, 0, NAN},
	{OP_POW, 0, 2, 0}, {OP_POW, 0, -2, INF}, {OP_POW, 5, 0, 1},
	{OP_POW, 1, 7.5, 1}, {OP_POW, -2, 0.5, NAN}, {OP_POW, NAN, 2, NAN},
	{OP_FMIN, NAN, 1, 1}, {OP_FMIN, 1, NAN, 1}, {OP_FMAX, NAN, -1, -1},
	{OP_FABS, -INF, 0, INF}, {OP_LT, NAN, 1, 0}, {OP_EQ, NAN, NAN, 0},
	{OP_NE, NAN, NAN, 1}, {OP_GE, NAN, 1, 0},
	{OP_CBRT, 0, 0, 0}, {OP_CBRT, -27, 0, -3}, {OP_CBRT, INF, 0, INF},
	{OP_CBRT, -INF, 0, -INF}, {OP_CBRT, NAN, 0, NAN},
	{OP_EXPM1, 0, 0, 0}, {OP_EXPM1, INF, 0, INF}, {OP_EXPM1, -INF, 0, -1},
	{OP_EXPM1, 710, 0, INF}, {OP_EXPM1, -800, 0, -1},
	{OP_EXPM1, NAN, 0, NAN},
	{OP_LOG1P, 0, 0, 0}, {OP_LOG1P, -1, 0, -INF}, {OP_LOG1P, -2, 0, NAN},
	{OP_LOG1P, INF, 0, INF}, {OP_LOG1P, NAN, 0, NAN},
	{OP_TANH, 0, 0, 0}, {OP_TANH, INF, 0, 1}, {OP_TANH, -INF, 0, -1},
	{OP_TANH, 50, 0, 1}, {OP_TANH, NAN, 0, NAN},
	{OP_ATAN2, 0, 1, 0}, {OP_ATAN2, 1, INF, 0}, {OP_ATAN2, NAN, 1, NAN},
	{OP_ATAN2, 1, NAN, NAN},
	{OP_ERF, 0, 0, 0}, {OP_ERF, INF, 0, 1}, {OP_ERF, -INF, 0, -1},
	{OP_ERF, NAN, 0, NAN}, {OP_ERFC, INF, 0, 0}, {OP_ERFC, -INF, 0, 2},
	{OP_ERFC, 0, 0, 1}, {OP_ERFC, 30, 0, 0}, {OP_ERFC, NAN, 0, NAN},
	{OP_FLOOR, -0.5, 0, -1}, {OP_FLOOR, INF, 0, INF},
	{OP_FLOOR, NAN, 0, NAN},
	{OP_TRUNC, -2.5, 0, -2}, {OP_TRUNC, -INF, 0, -INF},
	{OP_ROUND, 2.5, 0, 3}, {OP_ROUND, -2.5, 0, -3},
	{OP_ROUND, 0.49999999999999994, 0, 0},
	{OP_ROUND, INF, 0, INF}, {OP_ROUND, NAN, 0, NAN},
};
#define NSPECIAL ((int)(sizeof specials / sizeof specials[0]))

static void check_special(int k, nb_dd got, const char *who)
{
	const struct special *s = &specials[k];
	int ok;
	if (s->want != s->want)
		ok = got.hi != got.hi;
	else
		ok = got.hi == s->want && (got.lo == 0 || isfinite(s->want));
	if (ok && isfinite(s->want))	/* finite answers must be exact */
		ok = got.lo == 0;
	ck_assert_msg(ok, "%s %s(%g, %g) = (%g, %g), want %g", who,
	              op_name[s->op], s->a, s->b, got.hi, got.lo, s->want);
}

START_TEST(c_special)
{
	for (int k = 0; k < NSPECIAL; k++) {
		const struct special *s = &specials[k];
		check_special(k, c_apply(s->op, nb_dd_from(s->a), nb_dd_from(s->b)),
		              "C");
	}
}
END_TEST

/* ---- OpenCL -------------------------------------------------------------- */

static const char kernel_head[] =
	"__kernel void nb_t(__global const double *pa, __global const double *pb,\n"
	"                   __global double *po, int op)\n"
	"{\n"
	"\tsize_t i = get_global_id(0);\n"
	"\tnb_dd a = nb_dd_make(pa[2 * i], pa[2 * i + 1]);\n"
	"\tnb_dd b = nb_dd_make(pb[2 * i], pb[2 * i + 1]);\n"
	"\tnb_dd z = a;\n"
	"\tswitch (op) {\n";

static struct {
	int tried;
	const char *skip;	/* why there is no device, or NULL */
	cl_context ctx;
	cl_command_queue q;
	cl_kernel k;
	cl_program prog;
	char dev[256];
} cl;

/* the first device with double precision, GPUs before others */
static cl_device_id pick_device(void)
{
	cl_platform_id ps[16];
	cl_uint np = 0;
	cl_int e = clGetPlatformIDs(16, ps, &np);
	if (e == CL_PLATFORM_NOT_FOUND_KHR || (e == CL_SUCCESS && np == 0)) {
		cl.skip = "no OpenCL platform";
		return NULL;
	}
	ck_assert_msg(e == CL_SUCCESS, "clGetPlatformIDs: %d", e);
	static const cl_device_type types[] = {CL_DEVICE_TYPE_GPU,
	                                       CL_DEVICE_TYPE_ALL};
	for (int t = 0; t < 2; t++)
		for (cl_uint p = 0; p < np && p < 16; p++) {
			cl_device_id ds[16];
			cl_uint nd = 0;
			if (clGetDeviceIDs(ps[p], types[t], 16, ds, &nd) != CL_SUCCESS)
				continue;
			for (cl_uint d = 0; d < nd && d < 16; d++) {
				cl_device_fp_config fc = 0;
				clGetDeviceInfo(ds[d], CL_DEVICE_DOUBLE_FP_CONFIG,
				                sizeof fc, &fc, NULL);
				if (fc)
					return ds[d];
			}
		}
	cl.skip = "no OpenCL device has fp64";
	return NULL;
}

/* 1 when the OpenCL pass will be skipped; asked in a child, so that this
 * process has not started OpenCL when Check forks the tests. */
static int cl_missing(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0)
		_exit(pick_device() ? 0 : 77);
	int st;
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 77;
}

static char *kernel_source(void)
{
	size_t cap = strlen(nb_ddlib_src) + 8192, len = 0;
	char *s = malloc(cap);
	ck_assert_ptr_nonnull(s);
	len += snprintf(s + len, cap - len, "#pragma OPENCL EXTENSION "
	                "cl_khr_fp64 : enable\n%s\n%s", nb_ddlib_src, kernel_head);
	for (int op = 0; op < NOPS; op++)
		len += snprintf(s + len, cap - len, "\tcase %d: z = %s; break;\n",
		                op, op_expr[op]);
	snprintf(s + len, cap - len, "\t}\n\tpo[2 * i] = z.hi;\n"
	         "\tpo[2 * i + 1] = z.lo;\n}\n");
	return s;
}

static void cl_open(void)
{
	if (cl.tried)
		return;
	cl.tried = 1;
	cl_device_id dev = pick_device();
	if (!dev)
		return;
	clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof cl.dev - 1, cl.dev, NULL);
	cl_int e;
	cl.ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	ck_assert_msg(e == CL_SUCCESS, "clCreateContext: %d", e);
	cl.q = clCreateCommandQueue(cl.ctx, dev, 0, &e);
	ck_assert_msg(e == CL_SUCCESS, "clCreateCommandQueue: %d", e);
	char *src = kernel_source();
	const char *srcs[] = {src};
	cl.prog = clCreateProgramWithSource(cl.ctx, 1, srcs, NULL, &e);
	ck_assert_msg(e == CL_SUCCESS, "clCreateProgramWithSource: %d", e);
	e = clBuildProgram(cl.prog, 1, &dev, "", NULL, NULL);
	if (e != CL_SUCCESS) {
		static char log[65536];
		clGetProgramBuildInfo(cl.prog, dev, CL_PROGRAM_BUILD_LOG,
		                      sizeof log - 1, log, NULL);
		ck_abort_msg("building the dd library as OpenCL on %s failed "
		             "(%d):\n%s", cl.dev, e, log);
	}
	free(src);
	cl.k = clCreateKernel(cl.prog, "nb_t", &e);
	ck_assert_msg(e == CL_SUCCESS, "clCreateKernel: %d", e);
}

static void cl_close(void)
{
	if (cl.k)
		clReleaseKernel(cl.k);
	if (cl.prog)
		clReleaseProgram(cl.prog);
	if (cl.q)
		clReleaseCommandQueue(cl.q);
	if (cl.ctx)
		clReleaseContext(cl.ctx);
	memset(&cl, 0, sizeof cl);
}

/* out[i] = op(a[i], b[i]) on the device */
static void cl_apply(int op, const nb_dd *a, const nb_dd *b, nb_dd *out, int n)
{
	size_t bytes = sizeof(nb_dd) * (size_t)n;
	cl_int e, e1, e2;
	cl_mem ma = clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
	                           bytes, (void *)a, &e);
	cl_mem mb = clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
	                           bytes, (void *)b, &e1);
	cl_mem mo = clCreateBuffer(cl.ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &e2);
	ck_assert_msg(e == CL_SUCCESS && e1 == CL_SUCCESS && e2 == CL_SUCCESS,
	              "clCreateBuffer: %d %d %d", e, e1, e2);
	cl_int cop = op;
	e = clSetKernelArg(cl.k, 0, sizeof ma, &ma);
	e |= clSetKernelArg(cl.k, 1, sizeof mb, &mb);
	e |= clSetKernelArg(cl.k, 2, sizeof mo, &mo);
	e |= clSetKernelArg(cl.k, 3, sizeof cop, &cop);
	ck_assert_msg(e == CL_SUCCESS, "clSetKernelArg failed");
	size_t global = (size_t)n;
	e = clEnqueueNDRangeKernel(cl.q, cl.k, 1, NULL, &global, NULL, 0, NULL,
	                           NULL);
	ck_assert_msg(e == CL_SUCCESS, "clEnqueueNDRangeKernel: %d", e);
	e = clEnqueueReadBuffer(cl.q, mo, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
	ck_assert_msg(e == CL_SUCCESS, "clEnqueueReadBuffer: %d", e);
	clReleaseMemObject(ma);
	clReleaseMemObject(mb);
	clReleaseMemObject(mo);
}

/* one test for every op, so one kernel build serves them all */
START_TEST(opencl)
{
	cl_open();
	if (cl.skip) {
		printf("ddlib OpenCL tests skipped: %s\n", cl.skip);
		return;
	}
	printf("ddlib OpenCL device: %s\n", cl.dev);
	for (int op = 0; op < NOPS; op++) {
		gen_all(op, A, B);
		cl_apply(op, A, B, R, N);
		check_all(op, A, B, R, N, "OpenCL");
	}
	nb_dd sa[NSPECIAL], sb[NSPECIAL], sr[NSPECIAL];
	for (int k = 0; k < NSPECIAL; k++) {
		sa[k] = nb_dd_from(specials[k].a);
		sb[k] = nb_dd_from(specials[k].b);
	}
	for (int k = 0; k < NSPECIAL; k++) {	/* one launch per special */
		cl_apply(specials[k].op, &sa[k], &sb[k], &sr[k], 1);
		check_special(k, sr[k], "OpenCL");
	}
	cl_close();
}
END_TEST

int main(void)
{
	seed = test_seed("test_ddlib");
	if (!seed)
		seed = 1;

	int missing = cl_missing();
	Suite *su = suite_create("ddlib");
	TCase *tc = tcase_create("c");
	tcase_set_timeout(tc, 60);	/* a loaded CI machine, sanitizers */
	tcase_add_loop_test(tc, c_accuracy, 0, NOPS);
	tcase_add_test(tc, c_special);
	suite_add_tcase(su, tc);
	tc = tcase_create("opencl");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, opencl);
	suite_add_tcase(su, tc);

	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : missing ? 77 : EXIT_SUCCESS;
}
