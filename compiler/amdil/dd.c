/* dd.c: the double and integer instruction lines, and ddlib.h's dd
 * algorithms expanded into double instructions, rounding for rounding
 * (nb_dd_add, mul, div, sqrt, rsqrt, the comparisons, fmin and fmax). */
#include <math.h>
#include "amdil.h"

void d2(E *e, const char *op, Opd d, Opd a)
{
	emitf(e, "%s %s, %s", op, dst(e, d, 2), src(e, a, SD));
}

void d3(E *e, const char *op, Opd d, Opd a, Opd b)
{
	emitf(e, "%s %s, %s, %s", op, dst(e, d, 2), src(e, a, SD), src(e, b, SD));
}

void d4(E *e, const char *op, Opd d, Opd a, Opd b, Opd c)
{
	emitf(e, "%s %s, %s, %s, %s", op, dst(e, d, 2), src(e, a, SD),
	      src(e, b, SD), src(e, c, SD));
}

/* a double comparison into the one component of d */
void dcmp(E *e, const char *op, Opd d, Opd a, Opd b)
{
	emitf(e, "%s %s, %s, %s", op, dst(e, d, 1), src(e, a, SD), src(e, b, SD));
}

void iop(E *e, const char *op, Opd d, Opd a, Opd b)
{
	emitf(e, "%s %s, %s, %s", op, dst(e, d, 1), src(e, a, S1), src(e, b, S1));
}

/* nb__finite(x): |x| < infinity, into d */
void is_finite(E *e, Opd d, Opd x)
{
	dcmp(e, "dlt", d, absv(x), lit_d(e, INFINITY));
}

/* nb__two_sum: s + err = a + b exactly (6 operations).  s is written
 * first, so it must not be a or b. */
void two_sum(E *e, Opd s, Opd err, Opd a, Opd b)
{
	Opd bb = take(e, 2), x = take(e, 2);
	d3(e, "dadd", s, a, b);
	d3(e, "dadd", bb, s, neg(a));
	d3(e, "dadd", x, s, neg(bb));
	d3(e, "dadd", x, a, neg(x));
	d3(e, "dadd", bb, b, neg(bb));
	d3(e, "dadd", err, x, bb);
	GIVE(e, bb, x);
}

/* nb__fast_sum: the same for |a| >= |b| (3 operations); s must not be a
 * or b, err may be either */
void fast_sum(E *e, Opd s, Opd err, Opd a, Opd b)
{
	Opd t = take(e, 2);
	d3(e, "dadd", s, a, b);
	d3(e, "dadd", t, s, neg(a));
	d3(e, "dadd", err, b, neg(t));
	give(e, t);
}

/* nb__two_prod: p + err = a * b; p is NB__MUL_RN, fma(a, b, 0.0), the
 * form ddlib.h takes wherever the hardware fuses (OpenCL, and C built
 * with -march=native on an FMA machine) */
void two_prod(E *e, Opd p, Opd err, Opd a, Opd b)
{
	d4(e, "dfma", p, a, b, lit_d(e, 0.0));
	d4(e, "dfma", err, a, b, neg(p));
}

/* nb__mul_d: dd a times double b into (s, err), 6 operations; a and b
 * are read before s and err are written */
void mul_d(E *e, Opd s, Opd err, Opd a, Opd b)
{
	Opd p = take(e, 2), f = take(e, 2);
	two_prod(e, p, f, hi(a), b);
	d4(e, "dfma", f, lo(a), b, f);
	fast_sum(e, s, err, p, f);
	GIVE(e, p, f);
}

/* The special-value select that ends most dd operations:
 * R = ok ? R : (h, 0). */
void keep_or(E *e, Opd R, Opd ok, Opd h)
{
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, R, 2), src(e, ok, S1),
	      src(e, R, SP), src(e, h, SP));
	Opd z = lit_d(e, 0.0);
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, lo(R), 2),
	      src(e, ok, S1), src(e, R, SW), src(e, z, SW));
}

/* The end of most dd operations: R = fast_sum(h, x), or (keep, 0) where
 * ok is false. */
static void finish(E *e, Opd R, Opd ok, Opd keep, Opd h, Opd x)
{
	fast_sum(e, R, lo(R), h, x);
	keep_or(e, R, ok, keep);
}

/* Each dd operation writes its result R (a whole temporary) only after
 * reading its operands, so R may be one of them (r = r + a). */

/* nb_dd_add, 20 operations */
void dd_add(E *e, Opd R, Opd a, Opd b)
{
	Opd sh = take(e, 2), sl = take(e, 2), th = take(e, 2), tl = take(e, 2);
	Opd ok = take(e, 1);
	two_sum(e, sh, sl, hi(a), hi(b));
	two_sum(e, th, tl, lo(a), lo(b));
	is_finite(e, ok, sh);
	d3(e, "dadd", sl, sl, th);       /* s.lo + t.hi */
	fast_sum(e, th, sl, sh, sl);     /* v = (th, sl) */
	d3(e, "dadd", tl, tl, sl);       /* t.lo + v.lo */
	finish(e, R, ok, sh, th, tl);
	GIVE(e, sh, sl, th, tl, ok);
}

/* nb_dd_mul, 9 operations */
void dd_mul(E *e, Opd R, Opd a, Opd b)
{
	Opd ph = take(e, 2), pl = take(e, 2), t = take(e, 2), ok = take(e, 1);
	two_prod(e, ph, pl, hi(a), hi(b));
	d3(e, "dmul", t, lo(a), lo(b));
	d4(e, "dfma", t, hi(a), lo(b), t);
	d4(e, "dfma", t, lo(a), hi(b), t);
	is_finite(e, ok, ph);
	d3(e, "dadd", t, pl, t);
	finish(e, R, ok, ph, ph, t);
	GIVE(e, ph, pl, t, ok);
}

/* nb_dd_div, 14 operations */
void dd_div(E *e, Opd R, Opd a, Opd b)
{
	Opd q = take(e, 2), rh = take(e, 2), rl = take(e, 2);
	Opd ok = take(e, 1), ok2 = take(e, 1);
	d3(e, "ddiv", q, hi(a), hi(b));
	mul_d(e, rh, rl, b, q);
	d3(e, "dadd", rh, hi(a), neg(rh)); /* a.hi - r.hi */
	d3(e, "dadd", rl, lo(a), neg(rl)); /* a.lo - r.lo */
	d3(e, "dadd", rh, rh, rl);         /* d */
	d3(e, "ddiv", rh, rh, hi(b));      /* d / b.hi */
	is_finite(e, ok, q);
	is_finite(e, ok2, hi(b));
	iop(e, "iand", ok, ok, ok2);
	finish(e, R, ok, q, q, rh);
	GIVE(e, q, rh, rl, ok, ok2);
}

/* a.hi > 0 && a.hi < INFINITY, into ok (ok2 a scratch component) */
void positive(E *e, Opd ok, Opd ok2, Opd h)
{
	dcmp(e, "dlt", ok, lit_d(e, 0.0), h);
	dcmp(e, "dlt", ok2, h, lit_d(e, INFINITY));
	iop(e, "iand", ok, ok, ok2);
}

/* nb_dd_sqrt, 8 operations */
void dd_sqrt(E *e, Opd R, Opd a)
{
	Opd s = take(e, 2), rem = take(e, 2), ok = take(e, 1), ok2 = take(e, 1);
	d2(e, "dsqrt", s, hi(a));
	d4(e, "dfma", rem, neg(s), s, hi(a)); /* fma(-s, s, a.hi) */
	d3(e, "dadd", rem, rem, lo(a));
	d3(e, "dmul", rem, rem, lit_d(e, 0.5));
	d3(e, "ddiv", rem, rem, s);
	positive(e, ok, ok2, hi(a));
	finish(e, R, ok, s, s, rem);
	GIVE(e, s, rem, ok, ok2);
}

/* nb_dd_rsqrt, 21 operations */
void dd_rsqrt(E *e, Opd R, Opd a)
{
	Opd y = take(e, 2), t = take(e, 4), x = take(e, 2);
	Opd ok = take(e, 1), ok2 = take(e, 1);
	d2(e, "dsqrt", y, hi(a));
	d3(e, "ddiv", y, lit_d(e, 1.0), y);
	mul_d(e, t, lo(t), a, y);
	mul_d(e, t, lo(t), t, y);
	d3(e, "dadd", x, lit_d(e, 1.0), neg(t));  /* 1.0 - t.hi */
	d3(e, "dadd", x, x, neg(lo(t)));          /* - t.lo */
	d3(e, "dmul", x, lit_d(e, 0.5), x);
	d3(e, "dmul", x, y, x);
	positive(e, ok, ok2, hi(a));
	finish(e, R, ok, y, y, x);
	GIVE(e, y, t, x, ok, ok2);
}

/* nb_dd_lt and friends into the one component d: hi decides, lo breaks
 * a tie.  d is written first, so it must not be a or b. */
void dd_cmp(E *e, int op, Opd d, Opd a, Opd b)
{
	if (op == O_GT || op == O_GE) {
		Opd t = a;
		a = b;
		b = t;
		op = op == O_GT ? O_LT : O_LE;
	}
	Opd t = take(e, 1), u = take(e, 1);
	switch (op) {
	case O_LT:
	case O_LE:
		dcmp(e, "dlt", d, hi(a), hi(b));
		dcmp(e, "deq", t, hi(a), hi(b));
		if (op == O_LT)
			dcmp(e, "dlt", u, lo(a), lo(b));
		else
			dcmp(e, "dge", u, lo(b), lo(a));
		iop(e, "iand", t, t, u);
		iop(e, "ior", d, d, t);
		break;
	case O_EQ:
		dcmp(e, "deq", d, hi(a), hi(b));
		dcmp(e, "deq", t, lo(a), lo(b));
		iop(e, "iand", d, d, t);
		break;
	case O_NE: /* !nb_dd_eq: either word differs (or is NaN) */
		dcmp(e, "dne", d, hi(a), hi(b));
		dcmp(e, "dne", t, lo(a), lo(b));
		iop(e, "ior", d, d, t);
		break;
	default:
		ICE("no dd comparison %s", opinfo[op].name);
	}
	GIVE(e, t, u);
}

/* nb_dd_fmin (fmax: gt): b.hi != b.hi || a < b ? a : b */
void dd_minmax(E *e, int op, Opd R, Opd a, Opd b)
{
	Opd c = take(e, 1), t = take(e, 1);
	dcmp(e, "dne", c, hi(b), hi(b));
	dd_cmp(e, op == O_FMIN ? O_LT : O_GT, t, a, b);
	iop(e, "ior", c, c, t);
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, R, 4), src(e, c, S1),
	      src(e, a, SW), src(e, b, SW));
	GIVE(e, c, t);
}
