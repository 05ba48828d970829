/* fn.c: ddlib.h's exp, log, pow, sin, cos, floor, trunc, round, expm1,
 * log1p, tanh, cbrt, atan2, erf and erfc expanded into double and integer
 * instructions, the same operations in the same order (IL has no double
 * transcendental; cbrt's and atan2's libm seeds excepted); double takes
 * the dd ones on (x, 0), rounded once (floor, trunc, round: its own rint).
 * ddlib.h's tables become literals picked by the index (no IL indexing),
 * erf's loops and branches IL's whileloop and if. */
#include <math.h>
#include "amdil.h"
#include "ddlib.h"

/* 1.5 * 2^52: x + RND rounds x (|x| < 2^51) to an integer, nearest even
 * (rint), with that integer as the low dword of the sum */
#define RND 0x1.8p52

static Opd low_word(Opd d) { return d; }

static Opd high_word(Opd d)
{
	d.comp++;
	return d;
}

/* ---- the dd helpers ddlib.h keeps to itself ---------------------------- */

/* nb__add_fast: R may be a or b */
static void add_fast(E *e, Opd R, Opd a, Opd b)
{
	Opd sh = take(e, 2), sl = take(e, 2), t = take(e, 2);
	two_sum(e, sh, sl, hi(a), hi(b));
	d3(e, "dadd", t, lo(a), lo(b));
	d3(e, "dadd", sl, sl, t);
	fast_sum(e, R, lo(R), sh, sl);
	GIVE(e, sh, sl, t);
}

/* nb__add_d: dd a plus double b */
static void add_d(E *e, Opd R, Opd a, Opd b)
{
	Opd sh = take(e, 2), sl = take(e, 2);
	two_sum(e, sh, sl, hi(a), b);
	d3(e, "dadd", sl, lo(a), sl);
	fast_sum(e, R, lo(R), sh, sl);
	GIVE(e, sh, sl);
}

/* nb__sqr */
static void sqr(E *e, Opd R, Opd a)
{
	Opd ph = take(e, 2), pl = take(e, 2), t = take(e, 2);
	two_prod(e, ph, pl, hi(a), hi(a));
	d3(e, "dadd", t, hi(a), hi(a));
	d4(e, "dfma", t, t, lo(a), pl);
	fast_sum(e, R, lo(R), ph, t);
	GIVE(e, ph, pl, t);
}

/* R = c ? a : b, dd */
static void sel_dd(E *e, Opd R, Opd c, Opd a, Opd b)
{
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, R, 4), src(e, c, S1),
	      src(e, a, SW), src(e, b, SW));
}

/* R = c ? a : b, double */
static void sel_d(E *e, Opd R, Opd c, Opd a, Opd b)
{
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, R, 2), src(e, c, S1),
	      src(e, a, SP), src(e, b, SP));
}

/* rint(x) into the double n and its int32 into the component ni (|x| <
 * 2^31): the sum with RND holds it in its low dword */
static void rint_d(E *e, Opd n, Opd ni, Opd x)
{
	Opd t = take(e, 2);
	d3(e, "dadd", t, x, lit_d(e, RND));
	emitf(e, "mov %s, %s", dst(e, ni, 1), src(e, low_word(t), S1));
	d3(e, "dadd", n, t, lit_d(e, -RND));
	give(e, t);
}

/* R = A * 2^k (k an int32 component, |k| < 2^11), as ldexp on each word:
 * two exact powers of two, 2^(k >> 1) then 2^(k - (k >> 1)), built from
 * their exponent bits, so only the second product rounds (a subnormal
 * result once, as ldexp) */
static void ldexp_dd(E *e, Opd R, Opd A, Opd k)
{
	Opd h = take(e, 1), p = take(e, 2);
	emitf(e, "mov %s, %s", dst(e, low_word(p), 1), src(e, lit_i(e, 0), S1));
	for (int step = 0; step < 2; step++) {
		if (step == 0)
			iop(e, "ishr", h, k, lit_i(e, 1));
		else {
			iop(e, "iadd", h, k, lit_i(e, 1));
			iop(e, "ishr", h, h, lit_i(e, 1));
		}
		iop(e, "iadd", h, h, lit_i(e, 1023));
		iop(e, "ishl", high_word(p), h, lit_i(e, 20));
		d3(e, "dmul", hi(R), hi(step ? R : A), p);
		d3(e, "dmul", lo(R), lo(step ? R : A), p);
	}
	GIVE(e, h, p);
}

/* tab[2i], tab[2i + 1] for i = k - base, k in [a, b): a tree of selects
 * on k (IL cannot index its literals).  A literal, or a temporary the
 * caller gives back. */
static Opd pick(E *e, Opd k, const double *tab, int base, int a, int b)
{
	if (b - a == 1)
		return lit_dd(e, tab[2 * (a - base)], tab[2 * (a - base) + 1]);
	int mid = (a + b) / 2;
	Opd x = pick(e, k, tab, base, a, mid);
	Opd y = pick(e, k, tab, base, mid, b);
	Opd c = take(e, 1), R = x.file == 'r' ? x : take(e, 4);
	iop(e, "ige", c, k, lit_i(e, mid));
	sel_dd(e, R, c, y, x);
	give(e, c);
	give(e, y);
	return R;
}

/* ---- exp --------------------------------------------------------------- */

/* nb__expm1_poly */
static void expm1_poly(E *e, Opd R, Opd r)
{
	static const double c[] = {0x1.27e4fb7789f5cp-22, 0x1.71de3a556c734p-19,
	                           0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-13,
	                           0x1.6c16c16c16c17p-10};
	Opd p6 = take(e, 2), p = take(e, 4), s = take(e, 4);
	d4(e, "dfma", p6, lit_d(e, c[0]), hi(r), lit_d(e, c[1]));
	for (int i = 2; i < 5; i++)
		d4(e, "dfma", p6, p6, hi(r), lit_d(e, c[i]));
	mul_d(e, p, lo(p), r, p6);
	add_fast(e, p, lit_dd(e, 0x1.1111111111111p-7, 0x1.1111111111111p-63), p);
	dd_mul(e, p, r, p);
	add_fast(e, p, lit_dd(e, 0x1.5555555555555p-5, 0x1.5555555555555p-59), p);
	dd_mul(e, p, r, p);
	add_fast(e, p, lit_dd(e, 0x1.5555555555555p-3, 0x1.5555555555555p-57), p);
	dd_mul(e, p, r, p);
	add_d(e, p, p, lit_d(e, 0.5));
	sqr(e, s, r);
	dd_mul(e, s, s, p);
	add_fast(e, R, r, s);
	GIVE(e, p6, p, s);
}

/* nb_dd_exp */
static void exp_dd(E *e, Opd R, Opd x)
{
	Opd xc = take(e, 2), m = take(e, 2), u = take(e, 2);
	Opd mi = take(e, 1), q = take(e, 1), j = take(e, 1), c = take(e, 1);
	Opd r = take(e, 4), P = take(e, 4), p = take(e, 4), y = take(e, 4);
	d3(e, "dmax", xc, hi(x), lit_d(e, -746.0));
	d3(e, "dmin", xc, xc, lit_d(e, 710.0));
	d3(e, "dmul", u, xc, lit_d(e, 0x1.71547652b82fep+6)); /* 64/ln2 */
	rint_d(e, m, mi, u);
	iop(e, "ishr", q, mi, lit_i(e, 6)); /* floor(m / 64) */
	iop(e, "iand", j, mi, lit_i(e, 63)); /* m - 64 q */
	d4(e, "dfma", u, neg(m), lit_d(e, 0x1.62e42fefa0000p-7), xc); /* exact */
	two_sum(e, r, lo(r), u, lo(x));
	two_prod(e, P, lo(P), m, lit_d(e, 0x1.cf79abc9e3b3ap-46));
	dd_add(e, r, r, neg(P));
	d3(e, "dmul", u, m, lit_d(e, 0x1.ff0342542fc33p-100));
	add_d(e, r, r, u);
	expm1_poly(e, p, r);
	Opd t = pick(e, j, nb__exp2_tab, 0, 0, 64);
	dd_mul(e, y, t, p);
	add_fast(e, y, t, y);
	give(e, t);
	ldexp_dd(e, y, y, q);
	is_finite(e, c, hi(y));
	keep_or(e, y, c, hi(y));
	dcmp(e, "dlt", c, hi(x), lit_d(e, -745.2));
	sel_dd(e, y, c, lit_dd(e, 0.0, 0.0), y);
	dcmp(e, "dlt", c, lit_d(e, 709.8), hi(x));
	sel_dd(e, y, c, lit_dd(e, INFINITY, 0.0), y);
	dcmp(e, "dne", c, hi(x), hi(x));
	sel_dd(e, R, c, x, y);
	GIVE(e, xc, m, u, mi, q, j, c, r, P, p, y);
}

/* ---- log --------------------------------------------------------------- */

/* frexp's exponent of x into ex (log's and cbrt's), from b, x scaled
 * exactly by 2^54 where sub says x is subnormal; for 0, infinities and
 * NaN the exponent is garbage the callers' selects discard */
static void frexp_exp(E *e, Opd ex, Opd b, Opd sub, Opd x)
{
	Opd u = take(e, 2), t = take(e, 1);
	dcmp(e, "dlt", sub, absv(x), lit_d(e, 0x1p-1022));
	sel_d(e, u, sub, lit_d(e, 0x1p54), lit_d(e, 1.0));
	d3(e, "dmul", b, x, u); /* exact */
	iop(e, "ushr", ex, high_word(b), lit_i(e, 20));
	iop(e, "iand", ex, ex, lit_i(e, 0x7ff));
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, t, 1), src(e, sub, S1),
	      src(e, lit_i(e, -1022 - 54), S1), src(e, lit_i(e, -1022), S1));
	iop(e, "iadd", ex, ex, t);
	GIVE(e, u, t);
}

/* nb_dd_log.  frexp by frexp_exp; for hi 0, negative, infinite or NaN
 * the clamp of k keeps the pick in bounds. */
static void log_dd(E *e, Opd R, Opd a)
{
	Opd b = take(e, 2), f = take(e, 2), u = take(e, 2), kd = take(e, 2);
	Opd ex = take(e, 1), t1 = take(e, 1), sub = take(e, 1), ki = take(e, 1);
	Opd m = take(e, 4), num = take(e, 4), den = take(e, 4), t = take(e, 4);
	Opd z = take(e, 4), s = take(e, 4), lm = take(e, 4), el = take(e, 4);
	frexp_exp(e, ex, b, sub, hi(a));
	/* f = b's mantissa in [0.5, 1): exponent bits 1022 */
	emitf(e, "mov %s, %s", dst(e, low_word(f), 1), src(e, low_word(b), S1));
	iop(e, "iand", t1, high_word(b), lit_i(e, (int32_t)0x800fffffu));
	iop(e, "ior", high_word(f), t1, lit_i(e, 0x3fe00000));
	dcmp(e, "dlt", t1, f, lit_d(e, 0x1.6a09e667f3bcdp-1)); /* sqrt(1/2) */
	iop(e, "iadd", ex, ex, t1);  /* e -= f < sqrt(1/2): true is -1 */
	emitf(e, "inegate %s, %s", dst(e, t1, 1), src(e, ex, S1));
	ldexp_dd(e, m, a, t1);
	d3(e, "dadd", u, hi(m), lit_d(e, -1.0));
	d3(e, "dmul", u, u, lit_d(e, 64.0));
	rint_d(e, kd, ki, u);
	d3(e, "dmax", kd, kd, lit_d(e, -19.0));
	d3(e, "dmin", kd, kd, lit_d(e, 27.0));
	rint_d(e, kd, ki, kd); /* the clamped k's int32 */
	d4(e, "dfma", f, kd, lit_d(e, 1.0 / 64), lit_d(e, 1.0)); /* c, exact */
	d3(e, "dadd", u, hi(m), neg(f));
	two_sum(e, num, lo(num), u, lo(m));
	add_d(e, den, m, f);
	dd_div(e, t, num, den);
	sqr(e, z, t);
	d4(e, "dfma", u, lit_d(e, 0x1.3b13b13b13b14p-3), hi(z),
	   lit_d(e, 0x1.745d1745d1746p-3));
	d4(e, "dfma", u, u, hi(z), lit_d(e, 0x1.c71c71c71c71cp-3));
	mul_d(e, s, lo(s), z, u);
	add_fast(e, s, lit_dd(e, 0x1.2492492492492p-2, 0x1.2492492492492p-56), s);
	dd_mul(e, s, z, s);
	add_fast(e, s, lit_dd(e, 0x1.999999999999ap-2, -0x1.999999999999ap-56), s);
	dd_mul(e, s, z, s);
	add_fast(e, s, lit_dd(e, 0x1.5555555555555p-1, 0x1.5555555555555p-55), s);
	dd_mul(e, lm, t, z);
	dd_mul(e, lm, lm, s);
	d3(e, "dmul", hi(t), hi(t), lit_d(e, 2.0));
	d3(e, "dmul", lo(t), lo(t), lit_d(e, 2.0));
	add_fast(e, lm, t, lm);
	Opd lc = pick(e, ki, nb__log_tab, -19, -19, 28);
	/* e ln2 */
	emitf(e, "itof %s, %s", dst(e, t1, 1), src(e, ex, S1)); /* exact */
	emitf(e, "ftod %s, %s", dst(e, kd, 2), src(e, t1, S1));
	two_prod(e, el, lo(el), kd, lit_d(e, 0x1.62e42fefa39efp-1));
	d4(e, "dfma", u, kd, lit_d(e, 0x1.abc9e3b39803fp-56), lo(el));
	fast_sum(e, z, lo(z), hi(el), u);
	dd_add(e, z, z, lc);
	give(e, lc);
	dd_add(e, R, z, lm);
	/* a.hi > 0 ? a.hi : a.hi == 0 ? -inf : NaN, where a.hi is not a
	 * positive finite number */
	dcmp(e, "deq", sub, hi(a), lit_d(e, 0.0));
	sel_d(e, u, sub, lit_d(e, -INFINITY), lit_d(e, NAN));
	dcmp(e, "dlt", sub, lit_d(e, 0.0), hi(a));
	sel_d(e, u, sub, hi(a), u);
	positive(e, sub, t1, hi(a));
	keep_or(e, R, sub, u);
	GIVE(e, b, f, u, kd, ex, t1, sub, ki, m, num, den, t, z, s, lm, el);
}

/* ---- sin, cos ------------------------------------------------------------ */

/* nb__sin_poly: r + r z S(z), z = r^2 */
static void sin_poly(E *e, Opd R, Opd r)
{
	static const double c8[] = {-0x1.d1ab1c2dccea3p-94, 0x1.3f3ccdd165fa9p-84,
	                            -0x1.761b41316381ap-75, 0x1.71b8ef6dcf572p-66,
	                            -0x1.2f49b46814157p-57, 0x1.952c77030ad4ap-49};
	static const double cdd[][2] = { /* -1/15!, 1/13!, ..., -1/3! */
		{-0x1.ae7f3e733b81fp-41, -0x1.1d8656b0ee8cbp-97},
		{0x1.6124613a86d09p-33, 0x1.f28e0cc748ebep-87},
		{-0x1.ae64567f544e4p-26, 0x1.c062e06d1f209p-80},
		{0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73},
		{-0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73},
		{0x1.1111111111111p-7, 0x1.1111111111111p-63},
		{-0x1.5555555555555p-3, -0x1.5555555555555p-57},
	};
	Opd z = take(e, 4), s = take(e, 4), u = take(e, 2);
	sqr(e, z, r);
	d4(e, "dfma", u, lit_d(e, c8[0]), hi(z), lit_d(e, c8[1]));
	for (int i = 2; i < (int)NELEM(c8); i++)
		d4(e, "dfma", u, u, hi(z), lit_d(e, c8[i]));
	mul_d(e, s, lo(s), z, u);
	add_fast(e, s, lit_dd(e, cdd[0][0], cdd[0][1]), s);
	for (int i = 1; i < (int)NELEM(cdd); i++) {
		dd_mul(e, s, z, s);
		add_fast(e, s, lit_dd(e, cdd[i][0], cdd[i][1]), s);
	}
	dd_mul(e, z, r, z);
	dd_mul(e, z, z, s);
	add_fast(e, R, r, z);
	GIVE(e, z, s, u);
}

/* nb__sin_quarter: sin(x + quarter pi/2); the quadrant from the low
 * bits of rint's int32, which are n's for every |n| < 2^51 */
static void sin_dd(E *e, Opd R, Opd x, int quarter)
{
	Opd n = take(e, 2), u = take(e, 2), ni = take(e, 1), c = take(e, 1);
	Opd r = take(e, 4), P = take(e, 4), S = take(e, 4), C = take(e, 4);
	d3(e, "dmul", u, hi(x), lit_d(e, 0x1.45f306dc9c883p-1)); /* 2/pi */
	rint_d(e, n, ni, u);
	two_prod(e, P, lo(P), n, lit_d(e, 0x1.921fb54442d18p+0));
	d3(e, "dadd", u, hi(x), neg(hi(P)));
	two_sum(e, r, lo(r), u, lo(x));
	add_d(e, r, r, neg(lo(P)));
	two_prod(e, P, lo(P), n, lit_d(e, 0x1.1a62633145c07p-54));
	dd_add(e, r, r, neg(P));
	d3(e, "dmul", u, n, lit_d(e, 0x1.f1976b7ed8fbcp-110));
	add_d(e, r, r, u);
	sin_poly(e, S, r);
	sqr(e, P, S);
	add_d(e, P, neg(P), lit_d(e, 1.0));
	dd_sqrt(e, C, P);
	iop(e, "iadd", ni, ni, lit_i(e, quarter));
	iop(e, "iand", c, ni, lit_i(e, 1));
	sel_dd(e, S, c, C, S);
	iop(e, "iand", c, ni, lit_i(e, 2));
	sel_dd(e, S, c, neg(S), S);
	dcmp(e, "dlt", c, absv(hi(x)), lit_d(e, 0x1p45));
	sel_dd(e, R, c, S, lit_dd(e, NAN, 0.0));
	GIVE(e, n, u, ni, c, r, P, S, C);
}

/* ---- floor, trunc, round -------------------------------------------------- */

/* copysign(v, x) for a power of two v, from its exponent bits (hexp: its
 * high dword) and x's sign bit, which sgn holds */
static void signed_pow2(E *e, Opd d, Opd sgn, int32_t hexp)
{
	emitf(e, "mov %s, %s", dst(e, low_word(d), 1), src(e, lit_i(e, 0), S1));
	iop(e, "ior", high_word(d), sgn, lit_i(e, hexp));
}

/* C's floor, trunc or round of the double x into d: rint by
 * (x + copysign(2^52, x)) - copysign(2^52, x), exact for |x| < 2^52,
 * then the step by one that the function wants; x itself where |x| >=
 * 2^52 (an integer), is infinite or NaN; the result takes x's sign bit,
 * as all three keep it (floor(-0.5) is -1, trunc(-0.5) -0). */
static void round_d(E *e, int op, Opd d, Opd x)
{
	Opd m = take(e, 2), one = take(e, 2), r = take(e, 2), u = take(e, 2);
	Opd sgn = take(e, 1), c = take(e, 1), y = {0};
	if (x.neg) { /* _abs would act before _neg: -|x| */
		y = take(e, 2);
		emitf(e, "mov %s, %s", dst(e, y, 2), src(e, x, SP));
		x = y;
	}
	iop(e, "iand", sgn, high_word(x), lit_i(e, (int32_t)0x80000000u));
	signed_pow2(e, m, sgn, 0x43300000);   /* 2^52 */
	signed_pow2(e, one, sgn, 0x3ff00000); /* 1 */
	d3(e, "dadd", r, x, m);
	d3(e, "dadd", r, r, neg(m));
	if (op == O_FLOOR) {
		dcmp(e, "dlt", c, x, r);
		d3(e, "dadd", u, r, lit_d(e, -1.0));
	} else { /* trunc: back toward zero where rint went away from it */
		dcmp(e, "dlt", c, absv(x), absv(r));
		d3(e, "dadd", u, r, neg(one));
	}
	sel_d(e, r, c, u, r);
	if (op == O_ROUND) { /* the tie and above away from zero */
		d3(e, "dadd", u, x, neg(r)); /* exact */
		dcmp(e, "dge", c, absv(u), lit_d(e, 0.5));
		d3(e, "dadd", u, r, one);
		sel_d(e, r, c, u, r);
	}
	dcmp(e, "dlt", c, absv(x), lit_d(e, 0x1p52));
	sel_d(e, r, c, r, x);
	iop(e, "iand", high_word(r), high_word(r), lit_i(e, 0x7fffffff));
	iop(e, "ior", high_word(r), high_word(r), sgn);
	emitf(e, "mov %s, %s", dst(e, d, 2), src(e, r, SP));
	GIVE(e, m, one, r, u, sgn, c, y);
}

/* nb_dd_floor, nb_dd_trunc, nb_dd_round: hi's function where hi is no
 * integer (or 0), else nb__int_plus(hi, l) with lo's part l */
static void round_dd(E *e, int op, Opd R, Opd a)
{
	Opd t = take(e, 2), l = take(e, 2), u = take(e, 2), v = take(e, 2);
	Opd c = take(e, 1), c2 = take(e, 1);
	round_d(e, op == O_ROUND ? O_TRUNC : op, t, hi(a));
	if (op == O_FLOOR)
		round_d(e, O_FLOOR, l, lo(a));
	else if (op == O_TRUNC) { /* hi > 0 ? floor(lo) : ceil(lo) */
		round_d(e, O_FLOOR, l, lo(a));
		round_d(e, O_FLOOR, u, neg(lo(a)));
		dcmp(e, "dlt", c, lit_d(e, 0.0), hi(a));
		sel_d(e, l, c, l, neg(u));
	} else {
		/* r = round(lo), a tie going the way of hi's sign */
		round_d(e, O_ROUND, l, lo(a));
		d3(e, "dadd", u, l, neg(lo(a)));
		dcmp(e, "deq", c, absv(u), lit_d(e, 0.5));
		iop(e, "iand", c2, high_word(hi(a)), lit_i(e, (int32_t)0x80000000u));
		signed_pow2(e, v, c2, 0x3fe00000); /* copysign(0.5, hi) */
		d3(e, "dadd", u, lo(a), v);
		sel_d(e, l, c, u, l);
		/* up: hi > 0 ? (f - 0.5 >= -lo) : -(f + 0.5 <= -lo), f = hi - t */
		d3(e, "dadd", u, hi(a), neg(t));
		d3(e, "dadd", v, u, lit_d(e, -0.5));
		dcmp(e, "dge", c, v, neg(lo(a)));
		d3(e, "dadd", v, u, lit_d(e, 0.5));
		dcmp(e, "dge", c2, neg(lo(a)), v);
		sel_d(e, u, c, lit_d(e, 1.0), lit_d(e, 0.0));
		sel_d(e, v, c2, lit_d(e, -1.0), lit_d(e, 0.0));
		dcmp(e, "dlt", c, lit_d(e, 0.0), hi(a));
		sel_d(e, u, c, u, v);
	}
	/* t == hi && t != 0 && finite: fast_sum(t, l); else (t (+ up), 0) */
	dcmp(e, "deq", c, t, hi(a));
	dcmp(e, "dne", c2, t, lit_d(e, 0.0));
	iop(e, "iand", c, c, c2);
	is_finite(e, c2, t);
	iop(e, "iand", c, c, c2);
	fast_sum(e, R, lo(R), t, l);
	if (op == O_ROUND)
		d3(e, "dadd", t, t, u);
	keep_or(e, R, c, t);
	GIVE(e, t, l, u, v, c, c2);
}

/* ---- pow --------------------------------------------------------------- */

/* nb_dd_pow: exp(b log a); 1 where b is 0 or a is 1 */
static void pow_dd(E *e, Opd R, Opd a, Opd b)
{
	Opd L = take(e, 4), c = take(e, 1), t = take(e, 1), u = take(e, 1);
	log_dd(e, L, a);
	dd_mul(e, L, b, L);
	exp_dd(e, R, L);
	dcmp(e, "deq", c, hi(b), lit_d(e, 0.0));
	dcmp(e, "deq", t, hi(a), lit_d(e, 1.0));
	dcmp(e, "deq", u, lo(a), lit_d(e, 0.0));
	iop(e, "iand", t, t, u);
	iop(e, "ior", c, c, t);
	sel_dd(e, R, c, lit_dd(e, 1.0, 0.0), R);
	GIVE(e, L, c, t, u);
}

/* ---- expm1, log1p, tanh -------------------------------------------------- */

/* R = a * k for a power of two k, exact (nb__mul_pow2) */
static void mul_pow2(E *e, Opd R, Opd a, double k)
{
	d3(e, "dmul", hi(R), hi(a), lit_d(e, k));
	d3(e, "dmul", lo(R), lo(a), lit_d(e, k));
}

/* nb_dd_expm1: below 1/2 the polynomial at x/128 doubled seven times by
 * u (u + 2), elsewhere exp(x) - 1 */
static void expm1_dd(E *e, Opd R, Opd x)
{
	Opd c = take(e, 1), f = take(e, 1);
	Opd xs = take(e, 4), u = take(e, 4), t = take(e, 4), y = take(e, 4);
	dcmp(e, "dlt", c, absv(hi(x)), lit_d(e, 0.5));
	sel_dd(e, xs, c, x, lit_dd(e, 0.0, 0.0));
	mul_pow2(e, xs, xs, 0x1p-7);
	expm1_poly(e, u, xs);
	for (int i = 0; i < 7; i++) {
		add_d(e, t, u, lit_d(e, 2.0));
		dd_mul(e, u, u, t);
	}
	exp_dd(e, y, x);
	is_finite(e, f, hi(y));
	add_d(e, t, y, lit_d(e, -1.0));
	sel_dd(e, y, f, t, y);
	sel_dd(e, R, c, u, y);
	GIVE(e, c, f, xs, u, t, y);
}

/* nb_dd_log1p: log u - e/u, u = 1 + x and e what that sum lost */
static void log1p_dd(E *e, Opd R, Opd x)
{
	Opd c = take(e, 1), f = take(e, 1), q = take(e, 2), h = take(e, 2);
	Opd u = take(e, 4), er = take(e, 4), l = take(e, 4);
	is_finite(e, f, hi(x));
	add_d(e, u, x, lit_d(e, 1.0));
	sel_dd(e, u, f, u, x);
	d3(e, "dadd", h, hi(u), lit_d(e, -1.0));
	two_sum(e, er, lo(er), h, lo(u));
	dd_add(e, er, er, neg(x));
	dcmp(e, "dge", c, hi(u), lit_d(e, 0.5));
	dcmp(e, "dge", f, lit_d(e, 2.0), hi(u));
	iop(e, "iand", c, c, f);
	d3(e, "ddiv", q, hi(er), hi(u));
	sel_d(e, q, c, q, lit_d(e, 0.0));
	log_dd(e, l, u);
	dcmp(e, "dlt", c, lit_d(e, 0.0), hi(u));
	dcmp(e, "dlt", f, hi(u), lit_d(e, INFINITY));
	iop(e, "iand", c, c, f);
	add_d(e, u, l, neg(q));
	sel_dd(e, R, c, u, l);
	GIVE(e, c, f, q, h, u, er, l);
}

/* nb_dd_tanh: e / (e + 2) for e = expm1(2|x|), 1 beyond 40, x's sign */
static void tanh_dd(E *e, Opd R, Opd x)
{
	Opd s = take(e, 1), big = take(e, 1);
	Opd a = take(e, 4), m = take(e, 4), t = take(e, 4);
	iop(e, "ilt", s, high_word(hi(x)), lit_i(e, 0));
	sel_dd(e, a, s, neg(x), x);
	dcmp(e, "dlt", big, lit_d(e, 40.0), absv(hi(x)));
	sel_dd(e, a, big, lit_dd(e, 0.0, 0.0), a);
	mul_pow2(e, a, a, 2.0);
	expm1_dd(e, m, a);
	add_d(e, a, m, lit_d(e, 2.0));
	dd_div(e, t, m, a);
	sel_dd(e, t, big, lit_dd(e, 1.0, 0.0), t);
	sel_dd(e, R, s, neg(t), t);
	GIVE(e, s, big, a, m, t);
}

/* ---- cbrt --------------------------------------------------------------- */

/* nb_dd_cbrt.  frexp's exponent as log's; k = trunc(e/3) through double
 * (exact); libm's double cbrt of m, which IL lacks, becomes float's
 * 2^(log2 |m| / 3) (exp_vec, log_vec) and three double Newton steps,
 * each squaring its error, so the seed is within about an ulp of it and
 * ddlib.h's two dd steps leave the same accuracy (not always its bits). */
static void cbrt_dd(E *e, Opd R, Opd a)
{
	Opd b = take(e, 2), kd = take(e, 2), r = take(e, 2), t = take(e, 2);
	Opd v = take(e, 2);
	Opd ex = take(e, 1), t1 = take(e, 1), c = take(e, 1), ki = take(e, 1);
	Opd m = take(e, 4), P = take(e, 4), D = take(e, 4);
	frexp_exp(e, ex, b, c, hi(a));
	emitf(e, "itof %s, %s", dst(e, t1, 1), src(e, ex, S1)); /* exact */
	emitf(e, "ftod %s, %s", dst(e, kd, 2), src(e, t1, S1));
	d3(e, "ddiv", kd, kd, lit_d(e, 3.0));
	round_d(e, O_TRUNC, kd, kd);
	is_finite(e, c, hi(a));
	sel_d(e, kd, c, kd, lit_d(e, 0.0));
	rint_d(e, kd, ki, kd);
	iop(e, "iadd", t1, ki, ki);
	iop(e, "iadd", t1, t1, ki);
	emitf(e, "inegate %s, %s", dst(e, t1, 1), src(e, t1, S1));
	ldexp_dd(e, m, a, t1);
	/* the double cbrt of |m.hi| in [1/8, 8) */
	emitf(e, "dtof %s, %s", dst(e, t1, 1), src(e, absv(hi(m)), SD));
	emitf(e, "log_vec %s, %s", dst(e, t1, 1), src(e, t1, S1));
	emitf(e, "mul %s, %s, %s", dst(e, t1, 1), src(e, t1, S1),
	      src(e, lit_f(e, (float)(1.0 / 3)), S1));
	emitf(e, "exp_vec %s, %s", dst(e, t1, 1), src(e, t1, S1));
	emitf(e, "ftod %s, %s", dst(e, r, 2), src(e, t1, S1));
	for (int i = 0; i < 3; i++) { /* r - (r^3 - |m|) / (3 r^2) */
		d3(e, "dmul", t, r, r);
		d4(e, "dfma", t, t, r, neg(absv(hi(m))));
		d3(e, "dmul", v, r, r);
		d3(e, "dmul", v, v, lit_d(e, 3.0));
		d3(e, "ddiv", t, t, v);
		d3(e, "dadd", r, r, neg(t));
	}
	dcmp(e, "dlt", c, hi(m), lit_d(e, 0.0));
	sel_d(e, r, c, neg(r), r);
	for (int i = 0; i < 2; i++) { /* ddlib.h's steps */
		two_prod(e, P, lo(P), r, r);
		mul_d(e, P, lo(P), P, r);
		dd_add(e, D, m, neg(P));
		d3(e, "dmul", t, lit_d(e, 3.0), r);
		d3(e, "dmul", t, t, r);
		d3(e, "ddiv", t, hi(D), t);
		fast_sum(e, D, lo(D), r, t);
		if (i == 0)
			emitf(e, "mov %s, %s", dst(e, r, 2), src(e, hi(D), SP));
	}
	ldexp_dd(e, D, D, ki);
	dcmp(e, "dne", c, hi(a), lit_d(e, 0.0));
	is_finite(e, t1, hi(a));
	iop(e, "iand", c, c, t1);
	sel_dd(e, D, c, D, lit_dd(e, 0.0, 0.0));
	sel_d(e, hi(D), c, hi(D), hi(a));
	emitf(e, "mov %s, %s", dst(e, R, 4), src(e, D, SW));
	GIVE(e, b, kd, r, t, v, ex, t1, c, ki, m, P, D);
}

/* ---- atan2 -------------------------------------------------------------- */

/* The double atan2(y, x) that ddlib.h's atan2 takes from libm: t =
 * min(|x|, |y|) / max(|x|, |y|) in [0, 1]; above tan(pi/8) atan t = pi/4
 * + atan u with u = (t - 1) / (t + 1), else u = t, so |u| <= tan(pi/8);
 * atan u by its Taylor series u - u^3/3 + u^5/5 - ..., 21 terms (the next
 * is below 2^-60 |u|); then pi/2 minus that where |y| > |x|, pi minus
 * that where x's sign bit is set, and y's sign.  A few ulp, which the
 * Newton step after it takes to dd accuracy (its error cubes: f'' is 0 at
 * the root).  0/0 counts as t = 0 and inf/inf as t = 1, so zeros and
 * infinities give C's multiples of pi/4 (the dd step rounds them); NaN
 * goes through. */
static void atan2_seed(E *e, Opd z, Opd y, Opd x)
{
	Opd n = take(e, 2), d = take(e, 2), t = take(e, 2), u = take(e, 2);
	Opd s = take(e, 2), p = take(e, 2), c = take(e, 1), c2 = take(e, 1);
	d3(e, "dmin", n, absv(x), absv(y));
	d3(e, "dmax", d, absv(x), absv(y));
	d3(e, "ddiv", t, n, d);
	dcmp(e, "deq", c, d, lit_d(e, 0.0));
	sel_d(e, t, c, lit_d(e, 0.0), t);
	dcmp(e, "deq", c, n, lit_d(e, INFINITY));
	sel_d(e, t, c, lit_d(e, 1.0), t);
	d3(e, "dadd", u, t, lit_d(e, -1.0));
	d3(e, "dadd", s, t, lit_d(e, 1.0));
	d3(e, "ddiv", u, u, s);
	dcmp(e, "dlt", c, lit_d(e, 0x1.a827999fcef32p-2), t); /* tan(pi/8) */
	sel_d(e, u, c, u, t);
	sel_d(e, n, c, lit_d(e, 0x1.921fb54442d18p-1), lit_d(e, 0.0));
	/* u + u s Q(s), s = u^2, Q(s) = -1/3 + s/5 - ... */
	d3(e, "dmul", s, u, u);
	enum { K = 20 };
	emitf(e, "mov %s, %s", dst(e, p, 2),
	      src(e, lit_d(e, (K & 1 ? -1.0 : 1.0) / (2 * K + 1)), SP));
	for (int k = K - 1; k >= 1; k--)
		d4(e, "dfma", p, p, s, lit_d(e, (k & 1 ? -1.0 : 1.0) / (2 * k + 1)));
	d3(e, "dmul", s, s, u);
	d4(e, "dfma", p, s, p, u);
	d3(e, "dadd", p, n, p);
	dcmp(e, "dlt", c, absv(x), absv(y));
	d3(e, "dadd", u, lit_d(e, 0x1.921fb54442d18p+0), neg(p));
	sel_d(e, p, c, u, p);
	iop(e, "ilt", c, high_word(x), lit_i(e, 0)); /* the sign bit */
	d3(e, "dadd", u, lit_d(e, 0x1.921fb54442d18p+1), neg(p));
	sel_d(e, p, c, u, p);
	iop(e, "iand", c, high_word(y), lit_i(e, (int32_t)0x80000000u));
	iop(e, "ior", high_word(p), high_word(p), c);
	dcmp(e, "dne", c, x, x);
	dcmp(e, "dne", c2, y, y);
	iop(e, "ior", c, c, c2);
	d3(e, "dadd", u, x, y);
	sel_d(e, z, c, u, p);
	GIVE(e, n, d, t, u, s, p, c, c2);
}

/* nb_dd_atan2, from atan2_seed's z0 */
static void atan2_dd(E *e, Opd R, Opd y, Opd x)
{
	Opd z0 = take(e, 2), m = take(e, 2), b = take(e, 2), k = take(e, 2);
	Opd ord = take(e, 1), c = take(e, 1), ex = take(e, 1), sub = take(e, 1);
	Opd xs = take(e, 4), ys = take(e, 4), z = take(e, 4), S = take(e, 4);
	Opd C = take(e, 4), F = take(e, 4), v = take(e, 4);
	atan2_seed(e, z0, hi(y), hi(x));
	/* ord: both finite and nonzero (ddlib.h's !special) */
	is_finite(e, ord, hi(x));
	is_finite(e, c, hi(y));
	iop(e, "iand", ord, ord, c);
	dcmp(e, "dne", c, hi(x), lit_d(e, 0.0));
	iop(e, "iand", ord, ord, c);
	dcmp(e, "dne", c, hi(y), lit_d(e, 0.0));
	iop(e, "iand", ord, ord, c);
	/* both scaled by 2^-e, e = frexp's of the larger high word */
	d3(e, "dmax", m, absv(hi(x)), absv(hi(y)));
	frexp_exp(e, ex, b, sub, m);
	emitf(e, "cmov_logical %s, %s, %s, %s", dst(e, ex, 1), src(e, ord, S1),
	      src(e, ex, S1), src(e, lit_i(e, 0), S1));
	emitf(e, "inegate %s, %s", dst(e, ex, 1), src(e, ex, S1));
	ldexp_dd(e, xs, x, ex);
	ldexp_dd(e, ys, y, ex);
	sel_d(e, z, ord, z0, lit_d(e, 0.0));
	emitf(e, "mov %s, %s", dst(e, lo(z), 2), src(e, lit_d(e, 0.0), SW));
	sin_dd(e, S, z, 0);
	sin_dd(e, C, z, 1);
	/* z0 - f / f', f = xs sin z - ys cos z in dd, f' in double */
	dd_mul(e, F, xs, S);
	dd_mul(e, v, ys, C);
	dd_add(e, F, F, neg(v));
	d3(e, "dmul", m, hi(ys), hi(S));
	d4(e, "dfma", m, hi(xs), hi(C), m);
	d3(e, "ddiv", m, hi(F), m);
	fast_sum(e, v, lo(v), z0, neg(m));
	/* the special values: k pi/4 in dd, k = rint(z0 4/pi), or (z0, 0) */
	d3(e, "dmul", m, z0, lit_d(e, 0x1.45f306dc9c883p+0));
	rint_d(e, k, ex, m);
	mul_d(e, S, lo(S), lit_dd(e, 0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55),
	      k);
	emitf(e, "mov %s, %s", dst(e, z, 2), src(e, z0, SP));
	dcmp(e, "deq", c, k, lit_d(e, 0.0));
	dcmp(e, "dne", sub, k, k);
	iop(e, "ior", c, c, sub);
	sel_dd(e, S, c, z, S);
	sel_dd(e, R, ord, v, S);
	GIVE(e, z0, m, b, k, ord, c, ex, sub, xs, ys, z, S, C, F, v);
}

/* ---- erf, erfc ------------------------------------------------------------ */

/* IL's structured flow, for ddlib.h's branches and loops, whose
 * unrolled bodies would make each call thousands of lines: a whileloop
 * that runs while a (cmp) b holds (loop_end closes it), and an if on c. */
static void loop_while(E *e, const char *cmp, Opd a, Opd b)
{
	emitf(e, "whileloop");
	e->depth++;
	Opd c = take(e, 1);
	dcmp(e, cmp, c, a, b);
	emitf(e, "break_logicalz %s", src(e, c, S1));
	give(e, c);
}

static void loop_end(E *e)
{
	e->depth--;
	emitf(e, "endloop");
}

static void if_nz(E *e, Opd c)
{
	emitf(e, "if_logicalnz %s", src(e, c, S1));
	e->depth++;
}

static void if_else(E *e)
{
	e->depth--;
	emitf(e, "else");
	e->depth++;
}

static void if_end(E *e)
{
	e->depth--;
	emitf(e, "endif");
}

static void mov_dd(E *e, Opd R, Opd a)
{
	emitf(e, "mov %s, %s", dst(e, R, 4), src(e, a, SW));
}

/* 2/sqrt(pi) */
#define TWO_RSQRTPI 0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56

/* nb__exp_negsq: e^-(a^2) from a^2's exact products */
static void exp_negsq(E *e, Opd R, Opd a)
{
	Opd u = take(e, 2), P = take(e, 4), Q = take(e, 4), X = take(e, 4);
	two_prod(e, P, lo(P), hi(a), hi(a));
	d3(e, "dmul", u, hi(a), lit_d(e, 2.0));
	two_prod(e, Q, lo(Q), u, lo(a));
	d3(e, "dmul", u, lo(a), lo(a));
	add_d(e, Q, Q, u);
	mov_dd(e, P, neg(P));
	exp_dd(e, X, P);
	mov_dd(e, Q, neg(Q));
	exp_dd(e, P, Q);
	dd_mul(e, R, X, P);
	GIVE(e, u, P, Q, X);
}

/* nb__erf_small: erf a for 0 <= a < 1/2, the series' 20 terms in a loop
 * over n's 2n + 1 (a dd with a zero low word, as ddlib.h divides by) */
static void erf_small(E *e, Opd R, Opd a)
{
	Opd z2 = take(e, 4), t = take(e, 4), s = take(e, 4), n = take(e, 4);
	sqr(e, z2, a);
	mul_pow2(e, z2, z2, 2.0);
	mov_dd(e, t, lit_dd(e, 1.0, 0.0));
	mov_dd(e, s, t);
	mov_dd(e, n, lit_dd(e, 3.0, 0.0));
	loop_while(e, "dge", lit_d(e, 41.0), hi(n));
	dd_mul(e, t, t, z2);
	dd_div(e, t, t, n);
	add_fast(e, s, s, t);
	d3(e, "dadd", hi(n), hi(n), lit_d(e, 2.0));
	loop_end(e);
	sqr(e, z2, a);
	mov_dd(e, z2, neg(z2));
	exp_dd(e, t, z2);
	dd_mul(e, z2, lit_dd(e, TWO_RSQRTPI), a);
	dd_mul(e, t, t, s);
	dd_mul(e, R, z2, t);
	GIVE(e, z2, t, s, n);
}

/* nb__erfc_mid: erfc a for 1/2 <= a < 4.125, k = 0..27 in a loop with
 * k + 1 and k + 2 as dd counters; the table's erfc(a0) picked by 4 a0 */
static void erfc_mid(E *e, Opd R, Opd a)
{
	Opd a0 = take(e, 2), u = take(e, 2), m2 = take(e, 2), ki = take(e, 1);
	Opd h = take(e, 4), qp = take(e, 4), q = take(e, 4), hp = take(e, 4);
	Opd in = take(e, 4), k1 = take(e, 4), k2 = take(e, 4), qn = take(e, 4);
	Opd w = take(e, 4);
	d3(e, "dmul", u, hi(a), lit_d(e, 4.0));
	rint_d(e, a0, ki, u);
	d3(e, "dmul", a0, a0, lit_d(e, 0.25));
	d3(e, "dadd", u, hi(a), neg(a0));
	two_sum(e, h, lo(h), u, lo(a));
	mov_dd(e, qp, lit_dd(e, 0.0, 0.0));
	mov_dd(e, q, lit_dd(e, 1.0, 0.0));
	mov_dd(e, hp, h);
	mov_dd(e, in, h);
	mov_dd(e, k1, lit_dd(e, 1.0, 0.0));
	mov_dd(e, k2, lit_dd(e, 2.0, 0.0));
	d3(e, "dmul", m2, a0, lit_d(e, -2.0));
	loop_while(e, "dge", lit_d(e, 28.0), hi(k1));
	mul_d(e, qn, lo(qn), q, m2);
	mul_pow2(e, w, qp, 2.0);
	dd_add(e, qn, qn, neg(w));
	dd_div(e, qn, qn, k1);
	mov_dd(e, qp, q);
	mov_dd(e, q, qn);
	dd_mul(e, hp, hp, h);
	dd_mul(e, w, q, hp);
	dd_div(e, w, w, k2);
	dd_add(e, in, in, w);
	d3(e, "dadd", hi(k1), hi(k1), lit_d(e, 1.0));
	d3(e, "dadd", hi(k2), hi(k2), lit_d(e, 1.0));
	loop_end(e);
	d3(e, "dmul", hi(w), a0, neg(a0));
	emitf(e, "mov %s, %s", dst(e, lo(w), 2), src(e, lit_d(e, 0.0), SW));
	exp_dd(e, qn, w);
	dd_mul(e, w, lit_dd(e, TWO_RSQRTPI), qn);
	dd_mul(e, w, w, in);
	Opd T = pick(e, ki, nb__erfc_tab, 2, 2, 17);
	dd_add(e, R, T, neg(w));
	give(e, T);
	GIVE(e, a0, u, m2, ki, h, qp, q, hp, in, k1, k2, qn, w);
}

/* nb__erfc_large: erfc a for a >= 4, the continued fraction from its
 * 80th term back, k/2 a dd counter from 40 down to 1/2; 0 from 27.25 */
static void erfc_large(E *e, Opd R, Opd a)
{
	Opd c = take(e, 1), t = take(e, 4), kh = take(e, 4), w = take(e, 4);
	Opd P = take(e, 4);
	mov_dd(e, t, a);
	mov_dd(e, kh, lit_dd(e, 40.0, 0.0));
	loop_while(e, "dlt", lit_d(e, 0.25), hi(kh));
	dd_div(e, w, kh, t);
	dd_add(e, t, a, w);
	d3(e, "dadd", hi(kh), hi(kh), lit_d(e, -0.5));
	loop_end(e);
	exp_negsq(e, w, a);
	dd_mul(e, P, lit_dd(e, 0x1.c5bf891b4ef6bp+0, -0x1.618f13eb7ca89p-54), t);
	dd_div(e, w, w, P);
	dcmp(e, "dlt", c, hi(a), lit_d(e, 27.25));
	sel_dd(e, R, c, w, lit_dd(e, 0.0, 0.0));
	GIVE(e, c, t, kh, w, P);
}

/* nb__erfc_pos: ddlib.h's branch is IL's if */
static void erfc_pos(E *e, Opd R, Opd a)
{
	Opd c = take(e, 1);
	dcmp(e, "dlt", c, hi(a), lit_d(e, 4.0));
	if_nz(e, c);
	erfc_mid(e, R, a);
	if_else(e);
	erfc_large(e, R, a);
	if_end(e);
	give(e, c);
}

/* nb_dd_erf, or nb_dd_erfc where op says so */
static void erf_dd(E *e, int op, Opd R, Opd x)
{
	Opd s = take(e, 1), c = take(e, 1);
	Opd a = take(e, 4), y = take(e, 4), w = take(e, 4);
	iop(e, "ilt", s, high_word(hi(x)), lit_i(e, 0));
	sel_dd(e, a, s, neg(x), x);
	dcmp(e, "dlt", c, hi(a), lit_d(e, 0.5));
	if_nz(e, c);
	erf_small(e, y, a);
	if (op == O_ERFC) {
		sel_dd(e, y, s, y, neg(y));
		add_d(e, y, y, lit_d(e, 1.0));
	}
	if_else(e);
	erfc_pos(e, y, a);
	if (op == O_ERF) {
		add_d(e, y, neg(y), lit_d(e, 1.0));
	} else {
		add_d(e, w, neg(y), lit_d(e, 2.0));
		sel_dd(e, y, s, w, y);
	}
	if_end(e);
	if (op == O_ERF)
		sel_dd(e, y, s, neg(y), y);
	dcmp(e, "deq", c, hi(x), hi(x));
	sel_dd(e, R, c, y, x);
	GIVE(e, s, c, a, y, w);
}

/* the operations this file writes, in dd and double */
int fn_has(int op)
{
	switch (op) {
	case O_EXP: case O_LOG: case O_POW: case O_SIN: case O_COS:
	case O_FLOOR: case O_TRUNC: case O_ROUND:
	case O_EXPM1: case O_LOG1P: case O_TANH: case O_CBRT:
	case O_ATAN2: case O_ERF: case O_ERFC:
		return 1;
	}
	return 0;
}

void fn_dd(E *e, int op, Opd R, Opd a, Opd b)
{
	switch (op) {
	case O_EXP: exp_dd(e, R, a); break;
	case O_LOG: log_dd(e, R, a); break;
	case O_POW: pow_dd(e, R, a, b); break;
	case O_SIN: sin_dd(e, R, a, 0); break;
	case O_COS: sin_dd(e, R, a, 1); break;
	case O_FLOOR:
	case O_TRUNC:
	case O_ROUND: round_dd(e, op, R, a); break;
	case O_EXPM1: expm1_dd(e, R, a); break;
	case O_LOG1P: log1p_dd(e, R, a); break;
	case O_TANH: tanh_dd(e, R, a); break;
	case O_CBRT: cbrt_dd(e, R, a); break;
	case O_ATAN2: atan2_dd(e, R, a, b); break;
	case O_ERF:
	case O_ERFC: erf_dd(e, op, R, a); break;
	default: ICE("no dd sequence for %s", opinfo[op].name);
	}
}

/* C's pow for a negative (or -0, -inf) base, which ddlib.h's exp(b log a)
 * leaves NaN: pow(|a|, b) in y, negated for an odd integer b, NaN for a
 * finite a < 0 and a b that is no integer.  b is an integer where |b|
 * rounded by 2^52 is itself (every |b| >= 2^52 is), odd where that
 * integer's low bit is (the low dword of |b| + 2^52, or of |b|). */
static void pow_sign(E *e, Opd y, Opd a, Opd b)
{
	Opd ab = take(e, 2), t = take(e, 2), r = take(e, 2);
	Opd c = take(e, 1), isint = take(e, 1), odd = take(e, 1), u = take(e, 1);
	emitf(e, "mov %s, %s", dst(e, low_word(ab), 1), src(e, low_word(b), S1));
	iop(e, "iand", high_word(ab), high_word(b), lit_i(e, 0x7fffffff));
	dcmp(e, "dlt", c, ab, lit_d(e, 0x1p52));
	d3(e, "dadd", t, ab, lit_d(e, 0x1p52));
	sel_d(e, t, c, t, ab);
	d3(e, "dadd", r, t, lit_d(e, -0x1p52));
	sel_d(e, r, c, r, ab);
	dcmp(e, "deq", isint, r, ab);
	iop(e, "iand", odd, low_word(t), lit_i(e, 1));
	iop(e, "ine", odd, odd, lit_i(e, 0));
	iop(e, "iand", odd, odd, isint);
	iop(e, "ilt", c, high_word(a), lit_i(e, 0)); /* the sign bit */
	iop(e, "iand", odd, odd, c);
	sel_dd(e, y, odd, neg(y), y);
	dcmp(e, "dlt", c, a, lit_d(e, 0.0));
	is_finite(e, u, a);
	iop(e, "iand", c, c, u);
	emitf(e, "inot %s, %s", dst(e, isint, 1), src(e, isint, S1));
	iop(e, "iand", c, c, isint);
	sel_dd(e, y, c, lit_dd(e, NAN, 0.0), y);
	GIVE(e, ab, t, r, c, isint, odd, u);
}

/* double as dd: (a, 0) in (pow: (|a|, 0)), hi + lo out (expm1, log1p,
 * tanh: a itself where it is a zero); floor, trunc and round directly */
void fn_double(E *e, int op, Opd d, Opd a, Opd b)
{
	if (op == O_FLOOR || op == O_TRUNC || op == O_ROUND) {
		round_d(e, op, d, a);
		return;
	}
	Opd x[2] = {take(e, 4), take(e, 4)}, y = take(e, 4);
	const Opd in[2] = {a, b};
	for (int i = 0; i < 1 + (op == O_POW || op == O_ATAN2); i++) {
		emitf(e, "mov %s, %s", dst(e, x[i], 2), src(e, in[i], SP));
		emitf(e, "mov %s, %s", dst(e, lo(x[i]), 2),
		      src(e, lit_d(e, 0.0), SW));
	}
	if (op == O_POW)
		iop(e, "iand", high_word(x[0]), high_word(x[0]),
		    lit_i(e, 0x7fffffff));
	fn_dd(e, op, y, x[0], x[1]);
	if (op == O_POW)
		pow_sign(e, y, a, b);
	if (op == O_ATAN2 || op == O_ERF) {
		/* a zero's sign, which hi + lo would drop: hi where it is 0 */
		Opd c = take(e, 1), t = take(e, 2);
		dcmp(e, "deq", c, hi(y), lit_d(e, 0.0));
		d3(e, "dadd", t, hi(y), lo(y));
		sel_d(e, hi(y), c, hi(y), t);
		GIVE(e, c, t);
	} else {
		d3(e, "dadd", hi(y), hi(y), lo(y));
	}
	if (op == O_EXPM1 || op == O_LOG1P || op == O_TANH || op == O_CBRT) {
		/* f(+-0) = +-0, a sign the dd sequences (as ddlib.h's) drop;
		 * a is read before d is written, which may be its register (a
		 * float operand, or one that dies here) */
		Opd c = take(e, 1);
		dcmp(e, "deq", c, a, lit_d(e, 0.0));
		sel_d(e, hi(y), c, a, hi(y));
		give(e, c);
	}
	emitf(e, "mov %s, %s", dst(e, d, 2), src(e, hi(y), SP));
	GIVE(e, x[0], x[1], y);
}
