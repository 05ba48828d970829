/* ddlib.h: double-double (dd) arithmetic for nbcc's generated kernels.  The
 * build embeds this text (scripts/embed.sh) and the back ends paste it into
 * every .c / .cl that uses dd, so it compiles as C11 and as OpenCL C 1.2.
 *
 * A dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2: 106 bits of
 * significand, the exponent range of double.  u = 2^-53 below; "error" is
 * relative to the exact result of the operation on the dd operands.
 *
 *   op     DP operations (fma = 1)             error bound, in 2^-104:
 *                                              proven       largest seen
 *   add    20 (+1 compare, 1 select)           0.75 [1]     0.41
 *   mul     9 (+1 compare, 1 select)           1.25 [1,2]   0.76
 *   div    14 incl. 2 divisions (+2 compares)  3.75 [1]     1.37
 *   sqrt    8 incl. sqrt and division          ~1 (below)   0.71
 *   rsqrt  21 incl. sqrt and division          ~3 (below)   1.91
 *   exp ~200, log ~190, sin and cos ~250 DP operations, 1 table look-up
 *   for exp and log: largest error seen 2.6 * 2^-104 (1.3e-31).  sin and
 *   cos: within 1e-30 relative plus an ABSOLUTE error of about
 *   |n| 2^-163 for x = n pi/2 + r (below), so near their zeros they have
 *   far fewer correct digits than a dd holds; for |x| < 2^45 only, beyond
 *   that they return NaN rather than a result without dd accuracy.
 *   pow = exp(b log a): ~(1 + |b log a|) 2^-104, as the error of b log a
 *   is amplified by exp.  cbrt ~70 DP operations (two Newton steps from
 *   the double cbrt), largest error seen 0.7 * 2^-104; log1p = log and ~30,
 *   1.4; expm1 = exp and ~200, 2.7; tanh = expm1 and a division, 2.4;
 *   atan2 = sin and cos of one argument (~500) and ~40, 1.4; erf and
 *   erfc ~1000 to ~3500 (a series, or a table of 15 values and a Taylor
 *   series, or a continued fraction, and exp), 1.7.  floor, trunc, round
 *   are exact.
 *   ("Seen": 180,000 random operands (the functions from cbrt on:
 *   about 50,000) against QD's
 *   quad-double, tests/unit/test_ddlib.c.)  Results below 2^-969 in
 *   magnitude lose bits as the low word becomes subnormal.
 * nbcc --dd=qd (NB_DD_QD) swaps in QD's own default add, mul and div
 * (qd_config.h: QD_IEEE_ADD off, QD_SLOPPY_MUL, QD_SLOPPY_DIV), about
 * 1.8 times faster on a GPU (docs/oneloop.md): add and sub within 2^-104
 * (|a| + |b|) (largest seen 0.51), so a cancellation keeps only the
 * operands' absolute accuracy; mul 2 (seen 0.85), div 4 (seen 1.72, QD's
 * own 1.69); no special values: an infinity or NaN operand, or an
 * overflow, gives NaN (tests/unit/test_ddqd.c).  Everything else here is built on these.
 * [1] Joldes, Muller, Popescu, "Tight and rigorous error bounds for basic
 *     building blocks of double-word arithmetic", ACM TOMS 44(2), 2017:
 *     add is their AccurateDWPlusDW, mul DWTimesDW3, div DWDivDW2.
 * [2] Muller, Rideau, "Formalization of double-word arithmetic", 2022
 *     (corrects the DWTimesDW3 bound from 4u^2 to 5u^2).
 *
 * Exact product errors come from explicit fma() calls, and the one product
 * whose rounding matters (in nb__two_prod) is shielded from contraction, so
 * the code is right whether or not the compiler contracts a * b + c, even
 * across statements as NVIDIA's OpenCL does.  It must not be built
 * with -ffast-math / -cl-fast-relaxed-math / -cl-unsafe-math-optimizations:
 * reassociation turns every error term below into zero; nor with
 * finite-math-only (overflows come out NaN) or no-signed-zeros (clang
 * then makes fma(a, b, 0.0) below a * b).  Special values:
 * every operation that meets an infinity or NaN returns (that, 0) with the
 * IEEE result of the high words, chosen by selects so the usual path stays
 * branch-free.  Internal names start with nb__. */
#ifndef NB_DDLIB_H
#define NB_DDLIB_H

/* The options above announce themselves: OpenCL defines
 * __FAST_RELAXED_MATH__ under -cl-fast-relaxed-math (clang also
 * __FAST_MATH__, and __FINITE_MATH_ONLY__ 1 under -cl-finite-math-only);
 * gcc defines __FAST_MATH__ under -ffast-math, __ASSOCIATIVE_MATH__,
 * __RECIPROCAL_MATH__ and __NO_SIGNED_ZEROS__ under
 * -funsafe-math-optimizations.  clang's -funsafe-math-optimizations and
 * -cl-unsafe-math-optimizations define nothing: the runtime refuses those
 * (runtime/cl/program.c, nbrt_host.c). */
#if defined(__FAST_MATH__) || defined(__FAST_RELAXED_MATH__) || \
    defined(__ASSOCIATIVE_MATH__) || defined(__RECIPROCAL_MATH__) || \
    defined(__NO_SIGNED_ZEROS__) || \
    (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "double-double arithmetic cannot be built with fast-math options (-ffast-math, -cl-fast-relaxed-math, -funsafe-math-optimizations, finite-math-only, no-signed-zeros): they turn its error terms into zero"
#endif

/* clang, unlike gcc, warns of unused static inline functions outside
 * headers, and here the library is pasted into the kernel's own file */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

/* __OPENCL_VERSION__ is the spec's test; clang -x cl for a host target
 * only defines __OPENCL_C_VERSION__ */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define NB__OPENCL 1
#define NB__CONST __constant
#elif defined(__GNUC__)
/* tables of functions a kernel does not call must not warn */
#define NB__CONST static const __attribute__((unused))
#else
#define NB__CONST static const
#endif

typedef struct {
	double hi, lo;
} nb_dd;

static inline nb_dd nb_dd_make(double hi, double lo)
{
	nb_dd r;
	r.hi = hi;
	r.lo = lo;
	return r;
}

static inline nb_dd nb_dd_from(double x) { return nb_dd_make(x, 0.0); }
static inline double nb_dd_to(nb_dd a) { return a.hi + a.lo; }
static inline nb_dd nb_dd_neg(nb_dd a) { return nb_dd_make(-a.hi, -a.lo); }

/* ---- error-free transformations -------------------------------------- */

/* a + b = s + e exactly, for any a, b (Knuth's TwoSum, 6 ops) */
static inline nb_dd nb__two_sum(double a, double b)
{
	double s = a + b;
	double bb = s - a;
	return nb_dd_make(s, (a - (s - bb)) + (b - bb));
}

/* the same when |a| >= |b| or a == 0 (Dekker's Fast2Sum, 3 ops) */
static inline nb_dd nb__fast_sum(double a, double b)
{
	double s = a + b;
	return nb_dd_make(s, b - (s - a));
}

/* a * b rounded, as a value no compiler fuses into a later + or -.
 * NVIDIA's OpenCL contracts a product and an add into one fma even across
 * statements; done to p below, that counts the error e twice.  An fma with
 * a zero addend is the same rounded product (up to the sign of a zero),
 * and is not fused again.  Without a hardware fma nothing is contracted
 * (and fma() would be a slow library call). */
#if defined(NB__OPENCL) || defined(FP_FAST_FMA) || defined(__FMA__) || \
    defined(__ARM_FEATURE_FMA)
#define NB__MUL_RN(a, b) fma(a, b, 0.0)
#else
#define NB__MUL_RN(a, b) ((a) * (b))
#endif

/* a * b = p + e exactly, barring underflow (2 ops) */
static inline nb_dd nb__two_prod(double a, double b)
{
	double p = NB__MUL_RN(a, b);
	return nb_dd_make(p, fma(a, b, -p));
}

/* (hi, 0) for an infinite or NaN hi: the answer of the special-value
 * selects, so lo never carries a NaN next to an infinity */
static inline int nb__finite(double x) { return fabs(x) < INFINITY; }

/* ---- the four operations ---------------------------------------------- */

#if !defined(NB_DD_QD) || !NB_DD_QD
/* accurate ("IEEE") addition: the error is bounded relative to the sum, so
 * cancellation (the one-loop integral has plenty) loses nothing beyond it */
static inline nb_dd nb_dd_add(nb_dd a, nb_dd b)
{
	nb_dd s = nb__two_sum(a.hi, b.hi);
	nb_dd t = nb__two_sum(a.lo, b.lo);
	nb_dd v = nb__fast_sum(s.hi, s.lo + t.hi);
	nb_dd z = nb__fast_sum(v.hi, t.lo + v.lo);
	return nb__finite(s.hi) ? z : nb_dd_make(s.hi, 0.0);
}

#else
/* --dd=qd: QD's own default addition (dd_real::sloppy_add; qd_config.h
 * leaves QD_IEEE_ADD undefined): 11 ops, its error bounded relative to
 * |a| + |b| rather than to the sum, so a cancellation keeps only the
 * absolute accuracy of the operands.  No special values (as in QD): an
 * infinity comes out as NaN. */
static inline nb_dd nb_dd_add(nb_dd a, nb_dd b)
{
	nb_dd s = nb__two_sum(a.hi, b.hi);
	return nb__fast_sum(s.hi, s.lo + (a.lo + b.lo));
}
#endif

static inline nb_dd nb_dd_sub(nb_dd a, nb_dd b)
{
	return nb_dd_add(a, nb_dd_neg(b));
}

/* dd + double, accurate (10 ops, 2u^2) */
static inline nb_dd nb__add_d(nb_dd a, double b)
{
	nb_dd s = nb__two_sum(a.hi, b);
	return nb__fast_sum(s.hi, a.lo + s.lo);
}

/* "sloppy" addition (11 ops): its error is only small relative to the sum
 * when there is no cancellation.  For series terms whose signs and
 * sizes are known, never for user data. */
static inline nb_dd nb__add_fast(nb_dd a, nb_dd b)
{
	nb_dd s = nb__two_sum(a.hi, b.hi);
	return nb__fast_sum(s.hi, s.lo + (a.lo + b.lo));
}

#if !defined(NB_DD_QD) || !NB_DD_QD
static inline nb_dd nb_dd_mul(nb_dd a, nb_dd b)
{
	nb_dd p = nb__two_prod(a.hi, b.hi);
	double t = fma(a.lo, b.hi, fma(a.hi, b.lo, a.lo * b.lo));
	nb_dd z = nb__fast_sum(p.hi, p.lo + t);
	return nb__finite(p.hi) ? z : nb_dd_make(p.hi, 0.0);
}
#else
/* --dd=qd: QD's sloppy product (no a.lo * b.lo term, as QD_SLOPPY_MUL),
 * with the exact error of a.hi * b.hi as the innermost addend of the
 * cross terms' fma chain: 7 ops, no special values. */
static inline nb_dd nb_dd_mul(nb_dd a, nb_dd b)
{
	double p = NB__MUL_RN(a.hi, b.hi);
	return nb__fast_sum(p, fma(a.lo, b.hi, fma(a.hi, b.lo,
	                                           fma(a.hi, b.hi, -p))));
}
#endif

/* dd * double (6 ops, 2u^2); finite operands only */
static inline nb_dd nb__mul_d(nb_dd a, double b)
{
	nb_dd p = nb__two_prod(a.hi, b);
	return nb__fast_sum(p.hi, fma(a.lo, b, p.lo));
}

/* a * a; finite operands only */
static inline nb_dd nb__sqr(nb_dd a)
{
	nb_dd p = nb__two_prod(a.hi, a.hi);
	return nb__fast_sum(p.hi, fma(a.hi + a.hi, a.lo, p.lo));
}

/* a * 2^k, exact: k is a small constant power of two here */
static inline nb_dd nb__mul_pow2(nb_dd a, double k)
{
	return nb_dd_make(a.hi * k, a.lo * k);
}

/* q1 = a.hi / b.hi, then one correction from the remainder a - q1 b,
 * whose high part a.hi - (q1 b).hi is exact (Sterbenz). */
#if !defined(NB_DD_QD) || !NB_DD_QD
static inline nb_dd nb_dd_div(nb_dd a, nb_dd b)
{
	double q = a.hi / b.hi;
	nb_dd r = nb__mul_d(b, q);
	double d = (a.hi - r.hi) + (a.lo - r.lo);
	nb_dd z = nb__fast_sum(q, d / b.hi);
	return nb__finite(q) && nb__finite(b.hi) ? z : nb_dd_make(q, 0.0);
}
#else
/* --dd=qd: QD's sloppy division with one reciprocal in place of its two
 * divisions (a double division is a dozen instructions on a GPU): q is
 * a.hi r with one Newton correction, the second term d r, r = 1/b.hi.
 * Without the correction the largest error seen was 2.1 eps, with it
 * 1.7, as QD's own.  No special values. */
static inline nb_dd nb_dd_div(nb_dd a, nb_dd b)
{
	double r = 1.0 / b.hi;
	double q0 = a.hi * r;
	double q = fma(fma(-b.hi, q0, a.hi), r, q0);
	nb_dd p = nb__mul_d(b, q);
	return nb__fast_sum(q, ((a.hi - p.hi) + (a.lo - p.lo)) * r);
}
#endif

/* s = sqrt(hi) rounded; a = s^2 + rem with rem = fma(-s, s, hi) + lo, so
 * sqrt(a) = s + rem / (2s) - O(rem^2 / s^3).  rem/s^2 <= 2.5u, hence the
 * dropped term is u^2 / 2; rounding rem and the division adds ~3u^2. */
static inline nb_dd nb_dd_sqrt(nb_dd a)
{
	double s = sqrt(a.hi);
	double rem = fma(-s, s, a.hi) + a.lo;
	nb_dd z = nb__fast_sum(s, rem * 0.5 / s);
	return a.hi > 0 && a.hi < INFINITY ? z : nb_dd_make(s, 0.0);
}

/* One Newton step from y = 1/sqrt(hi), whose error d <= 2.5u (two
 * roundings, and lo): y' = y + y e / 2 with e = 1 - a y^2 computed as
 * 1 - (a y) y in dd, so a is never squared and the whole double range
 * works.  The dropped term 1.5 d^2 is <= 9.4u^2, roundings add ~2u^2. */
static inline nb_dd nb_dd_rsqrt(nb_dd a)
{
	double y = 1.0 / sqrt(a.hi);
	nb_dd t = nb__mul_d(nb__mul_d(a, y), y);
	double e = (1.0 - t.hi) - t.lo;
	nb_dd z = nb__fast_sum(y, y * (0.5 * e));
	return a.hi > 0 && a.hi < INFINITY ? z : nb_dd_make(y, 0.0);
}

/* ---- comparisons and friends ------------------------------------------- */

static inline int nb_dd_lt(nb_dd a, nb_dd b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static inline int nb_dd_le(nb_dd a, nb_dd b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}

static inline int nb_dd_gt(nb_dd a, nb_dd b) { return nb_dd_lt(b, a); }
static inline int nb_dd_ge(nb_dd a, nb_dd b) { return nb_dd_le(b, a); }

static inline int nb_dd_eq(nb_dd a, nb_dd b)
{
	return a.hi == b.hi && a.lo == b.lo;
}

static inline int nb_dd_ne(nb_dd a, nb_dd b) { return !nb_dd_eq(a, b); }

static inline nb_dd nb_dd_fabs(nb_dd a)
{
	return signbit(a.hi) ? nb_dd_neg(a) : a;
}

/* as C's fmin/fmax: a NaN operand loses to a number */
static inline nb_dd nb_dd_fmin(nb_dd a, nb_dd b)
{
	return b.hi != b.hi || nb_dd_lt(a, b) ? a : b;
}

static inline nb_dd nb_dd_fmax(nb_dd a, nb_dd b)
{
	return b.hi != b.hi || nb_dd_gt(a, b) ? a : b;
}

/* ---- exp ------------------------------------------------------------------
 * x = m ln2/64 + r with m = 64q + j, |r| <= ln2/128, so
 * e^x = 2^q * 2^(j/64) * e^r.  r is exact to ~2^-130: ln2/64 is split in
 * three, m * C1 is exact (C1 has 36 bits, |m| < 2^17) and x.hi - m C1 is
 * exact (Sterbenz).  e^r - 1 is its Taylor series to r^10 (next term
 * < 3e-33): terms from r^6 on need only double, the rest dd. */
NB__CONST double nb__exp2_tab[128] = {
	0x1.0000000000000p+0, 0x0.0p+0,
	0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56,
	0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55,
	0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57,
	0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54,
	0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59,
	0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54,
	0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54,
	0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55,
	0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55,
	0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54,
	0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55,
	0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54,
	0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55,
	0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55,
	0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54,
	0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55,
	0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54,
	0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54,
	0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56,
	0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55,
	0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58,
	0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59,
	0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56,
	0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56,
	0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54,
	0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55,
	0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54,
	0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54,
	0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54,
	0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54,
	0x1.6623882552225p+0, -0x1.bb60987591c34p-54,
	0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54,
	0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57,
	0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55,
	0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54,
	0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55,
	0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56,
	0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54,
	0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54,
	0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54,
	0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55,
	0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57,
	0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54,
	0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56,
	0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54,
	0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54,
	0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54,
	0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54,
	0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57,
	0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56,
	0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55,
	0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55,
	0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54,
	0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56,
	0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54,
	0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55,
	0x1.da9e603db3285p+0, 0x1.c2300696db532p-54,
	0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54,
	0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55,
	0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54,
	0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54,
	0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54,
	0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55,
};

/* e^r - 1 for |r| <= ln2/128, relative to it: its Taylor series to r^10
 * (next term < 3e-33), terms from r^6 on in double, the rest dd */
static inline nb_dd nb__expm1_poly(nb_dd r)
{
	double rh = r.hi;	/* 1/6! + r/7! + ... + r^4/10! */
	double p6 = fma(fma(fma(fma(0x1.27e4fb7789f5cp-22, rh,
	                            0x1.71de3a556c734p-19), rh,
	                        0x1.a01a01a01a01ap-16), rh,
	                    0x1.a01a01a01a01ap-13), rh, 0x1.6c16c16c16c17p-10);
	nb_dd p = nb__add_fast(nb_dd_make(0x1.1111111111111p-7,
	                                  0x1.1111111111111p-63),
	                       nb__mul_d(r, p6));	/* 1/120 + ... */
	p = nb__add_fast(nb_dd_make(0x1.5555555555555p-5, 0x1.5555555555555p-59),
	                 nb_dd_mul(r, p));	/* 1/24 + ... */
	p = nb__add_fast(nb_dd_make(0x1.5555555555555p-3, 0x1.5555555555555p-57),
	                 nb_dd_mul(r, p));	/* 1/6 + ... */
	p = nb__add_d(nb_dd_mul(r, p), 0.5);
	return nb__add_fast(r, nb_dd_mul(nb__sqr(r), p));	/* e^r - 1 */
}

static inline nb_dd nb_dd_exp(nb_dd x)
{
	/* clamping keeps m, q, j small integers (and turns NaN into one);
	 * the selects at the end give the out-of-range answers */
	double xc = fmin(fmax(x.hi, -746.0), 710.0);
	double m = rint(xc * 0x1.71547652b82fep+6);	/* 64/ln2 */
	double q = floor(m * (1.0 / 64));
	int j = (int)(m - 64.0 * q);
	nb_dd r = nb__two_sum(xc - m * 0x1.62e42fefa0000p-7, x.lo);
	r = nb_dd_sub(r, nb__two_prod(m, 0x1.cf79abc9e3b3ap-46));
	r = nb__add_d(r, m * 0x1.ff0342542fc33p-100);

	nb_dd p = nb__expm1_poly(r);

	nb_dd t = nb_dd_make(nb__exp2_tab[2 * j], nb__exp2_tab[2 * j + 1]);
	nb_dd y = nb__add_fast(t, nb_dd_mul(t, p));
	int k = (int)q;
	y = nb_dd_make(ldexp(y.hi, k), ldexp(y.lo, k));
	y = nb__finite(y.hi) ? y : nb_dd_make(y.hi, 0.0);
	y = x.hi < -745.2 ? nb_dd_make(0.0, 0.0) : y;
	y = x.hi > 709.8 ? nb_dd_make(INFINITY, 0.0) : y;
	return x.hi != x.hi ? x : y;
}

/* ---- log ------------------------------------------------------------------
 * a = 2^e m with m in [sqrt(1/2), sqrt(2)); c = 1 + k/64 is the grid point
 * nearest m, and log(m/c) = 2 atanh(t), t = (m - c)/(m + c), |t| < 0.0056:
 * 2t + 2t^3/3 + ... + 2t^13/13 (next term < 2e-33 relative).  m - c is
 * exact, so near a = 1 (e = k = 0) the error stays relative. */
NB__CONST double nb__log_tab[94] = {	/* log(1 + k/64), k = -19..27 */
	-0x1.68ac83e9c6a14p-2, -0x1.a64eadd740178p-58,
	-0x1.522ae0738a3d8p-2, 0x1.8f7e9b38a6979p-57,
	-0x1.3c25277333184p-2, 0x1.2ad27e50a8ec6p-56,
	-0x1.269621134db92p-2, -0x1.e0efadd9db02bp-56,
	-0x1.1178e8227e47cp-2, 0x1.0e63a5f01c691p-57,
	-0x1.f991c6cb3b379p-3, -0x1.f665066f980a2p-57,
	-0x1.d1037f2655e7bp-3, -0x1.60629242471a2p-57,
	-0x1.a93ed3c8ad9e3p-3, -0x1.bcafa9de97203p-57,
	-0x1.823c16551a3c2p-3, 0x1.1232ce70be781p-57,
	-0x1.5bf406b543db2p-3, 0x1.1f5b44c0df7e7p-61,
	-0x1.365fcb0159016p-3, -0x1.7d411a5b944adp-58,
	-0x1.1178e8227e47cp-3, 0x1.0e63a5f01c691p-58,
	-0x1.da727638446a2p-4, -0x1.401fa71733019p-58,
	-0x1.9335e5d594989p-4, 0x1.478a85704ccb7p-58,
	-0x1.4d3115d207eacp-4, -0x1.769f42c7842ccp-58,
	-0x1.08598b59e3a07p-4, 0x1.dd7009902bf32p-58,
	-0x1.894aa149fb343p-5, -0x1.a8be97660a23dp-60,
	-0x1.0415d89e74444p-5, -0x1.c05cf1d753622p-59,
	-0x1.0205658935847p-6, -0x1.27c8e8416e71fp-60,
	0x0.0p+0, 0x0.0p+0,
	0x1.fc0a8b0fc03e4p-7, -0x1.83092c59642a1p-62,
	0x1.f829b0e783300p-6, 0x1.33e3f04f1ef23p-60,
	0x1.77458f632dcfcp-5, 0x1.18d3ca87b9296p-59,
	0x1.f0a30c01162a6p-5, 0x1.85f325c5bbacdp-59,
	0x1.341d7961bd1d1p-4, -0x1.b599f227becbbp-58,
	0x1.6f0d28ae56b4cp-4, -0x1.906d99184b992p-58,
	0x1.a926d3a4ad563p-4, 0x1.942f48aa70ea9p-58,
	0x1.e27076e2af2e6p-4, -0x1.61578001e0162p-60,
	0x1.0d77e7cd08e59p-3, 0x1.9a5dc5e9030acp-57,
	0x1.29552f81ff523p-3, 0x1.301771c407dbfp-57,
	0x1.44d2b6ccb7d1ep-3, 0x1.9f4f6543e1f88p-57,
	0x1.5ff3070a793d4p-3, -0x1.bc60efafc6f6ep-58,
	0x1.7ab890210d909p-3, 0x1.be36b2d6a0608p-59,
	0x1.9525a9cf456b4p-3, 0x1.d904c1d4e2e26p-57,
	0x1.af3c94e80bff3p-3, -0x1.398cff3641985p-58,
	0x1.c8ff7c79a9a22p-3, -0x1.4f689f8434012p-57,
	0x1.e27076e2af2e6p-3, -0x1.61578001e0162p-59,
	0x1.fb9186d5e3e2bp-3, -0x1.caaae64f21acbp-57,
	0x1.0a324e27390e3p-2, 0x1.7dcfde8061c03p-56,
	0x1.1675cababa60ep-2, 0x1.ce63eab883717p-61,
	0x1.22941fbcf7966p-2, -0x1.76f5eb09628afp-56,
	0x1.2e8e2bae11d31p-2, -0x1.8f4cdb95ebdf9p-56,
	0x1.3a64c556945eap-2, -0x1.c68651945f97cp-57,
	0x1.4618bc21c5ec2p-2, 0x1.f42decdeccf1dp-56,
	0x1.51aad872df82dp-2, 0x1.3927ac19f55e3p-59,
	0x1.5d1bdbf5809cap-2, 0x1.4236383dc7fe1p-56,
	0x1.686c81e9b14afp-2, -0x1.ddea0f7f58e3dp-57,
};

static inline nb_dd nb_dd_log(nb_dd a)
{
	int e;
	double f = frexp(a.hi, &e);	/* a.hi = f 2^e, f in [0.5, 1) */
	e -= f < 0x1.6a09e667f3bcdp-1;	/* sqrt(1/2) */
	nb_dd m = nb_dd_make(ldexp(a.hi, -e), ldexp(a.lo, -e));
	/* the clamp only acts when a is 0, negative, infinite or NaN, and
	 * keeps the table index in bounds for the select below */
	double k = fmin(fmax(rint((m.hi - 1.0) * 64.0), -19.0), 27.0);
	double c = 1.0 + k * (1.0 / 64);
	nb_dd t = nb_dd_div(nb__two_sum(m.hi - c, m.lo), nb__add_d(m, c));
	nb_dd z = nb__sqr(t);
	double zh = z.hi;	/* 2/9 + 2z/11 + 2z^2/13 */
	double s9 = fma(fma(0x1.3b13b13b13b14p-3, zh, 0x1.745d1745d1746p-3), zh,
	                0x1.c71c71c71c71cp-3);
	nb_dd s = nb__add_fast(nb_dd_make(0x1.2492492492492p-2,
	                                  0x1.2492492492492p-56),
	                       nb__mul_d(z, s9));	/* 2/7 + ... */
	s = nb__add_fast(nb_dd_make(0x1.999999999999ap-2, -0x1.999999999999ap-56),
	                 nb_dd_mul(z, s));	/* 2/5 + ... */
	s = nb__add_fast(nb_dd_make(0x1.5555555555555p-1, 0x1.5555555555555p-55),
	                 nb_dd_mul(z, s));	/* 2/3 + ... */
	nb_dd lm = nb__add_fast(nb__mul_pow2(t, 2.0),
	                        nb_dd_mul(nb_dd_mul(t, z), s));

	int i = 2 * ((int)k + 19);
	nb_dd lc = nb_dd_make(nb__log_tab[i], nb__log_tab[i + 1]);
	double de = (double)e;	/* e ln2, exact to 2^-106 relative */
	nb_dd el = nb__two_prod(de, 0x1.62e42fefa39efp-1);
	el = nb__fast_sum(el.hi, fma(de, 0x1.abc9e3b39803fp-56, el.lo));
	nb_dd y = nb_dd_add(nb_dd_add(el, lc), lm);
	double sp = a.hi > 0 ? a.hi : a.hi == 0 ? -INFINITY : NAN;
	return a.hi > 0 && a.hi < INFINITY ? y : nb_dd_make(sp, 0.0);
}

/* a**b = exp(b log a) for a > 0; as in C, x**0 = 1**y = 1.  The error of
 * b log a is relative to it, and exp turns that into a relative error of
 * about (1 + |b log a|) 2^-104 in the result. */
static inline nb_dd nb_dd_pow(nb_dd a, nb_dd b)
{
	nb_dd y = nb_dd_exp(nb_dd_mul(b, nb_dd_log(a)));
	int one = b.hi == 0 || (a.hi == 1 && a.lo == 0);
	return one ? nb_dd_make(1.0, 0.0) : y;
}

/* ---- sin, cos ---------------------------------------------------------------
 * x = n pi/2 + r, |r| <= pi/4, with pi/2 in three doubles P1 + P2 + P3
 * (~160 bits): the high part x.hi - n P1 is exact (Sterbenz), n P1 and
 * n P2 are exact products, and every later sum is accurate relative to its
 * result.  But n P3 is rounded and pi/2 is cut after P3, so r carries an
 * absolute error of about |n| 2^-163 (largest seen 2.6 |n| 2^-163) on top
 * of ~2^-106 |r|: not relative to r.  Where sin x or cos x is near zero
 * (x near a multiple of pi/2, r tiny) that absolute error is the result's;
 * e.g. sin of the dd nearest pi, -3.0e-33, comes out 2^-162.6 off: good
 * to only 2^-54.6 relative (and 2^40 pi gives 2^40 times both).
 * |n| >= 2^45 makes n itself uncertain.
 * sin r = r + r z S(z), z = r^2, Taylor to r^27 (next term < 2e-34
 * relative); cos r = sqrt(1 - sin^2 r) (>= 0.7, no cancellation).  Both
 * are always computed and the quadrant selects one, so sin and cos of a
 * vector of arguments never diverge. */
static inline nb_dd nb__sin_poly(nb_dd r)
{
	nb_dd z = nb__sqr(r);
	double zh = z.hi;	/* terms r^17 .. r^27 in double */
	double s8 = fma(fma(fma(fma(fma(-0x1.d1ab1c2dccea3p-94, zh,
	                                0x1.3f3ccdd165fa9p-84), zh,
	                            -0x1.761b41316381ap-75), zh,
	                        0x1.71b8ef6dcf572p-66), zh,
	                    -0x1.2f49b46814157p-57), zh, 0x1.952c77030ad4ap-49);
	nb_dd s = nb__add_fast(nb_dd_make(-0x1.ae7f3e733b81fp-41,
	                                  -0x1.1d8656b0ee8cbp-97),
	                       nb__mul_d(z, s8));	/* -1/15! + ... */
	s = nb__add_fast(nb_dd_make(0x1.6124613a86d09p-33, 0x1.f28e0cc748ebep-87),
	                 nb_dd_mul(z, s));	/* 1/13! + ... */
	s = nb__add_fast(nb_dd_make(-0x1.ae64567f544e4p-26, 0x1.c062e06d1f209p-80),
	                 nb_dd_mul(z, s));	/* -1/11! + ... */
	s = nb__add_fast(nb_dd_make(0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73),
	                 nb_dd_mul(z, s));	/* 1/9! + ... */
	s = nb__add_fast(nb_dd_make(-0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73),
	                 nb_dd_mul(z, s));	/* -1/7! + ... */
	s = nb__add_fast(nb_dd_make(0x1.1111111111111p-7, 0x1.1111111111111p-63),
	                 nb_dd_mul(z, s));	/* 1/5! + ... */
	s = nb__add_fast(nb_dd_make(-0x1.5555555555555p-3, -0x1.5555555555555p-57),
	                 nb_dd_mul(z, s));	/* -1/3! + ... */
	return nb__add_fast(r, nb_dd_mul(nb_dd_mul(r, z), s));
}

/* sin(x + quarter * pi/2) */
static inline nb_dd nb__sin_quarter(nb_dd x, double quarter)
{
	double n = rint(x.hi * 0x1.45f306dc9c883p-1);	/* 2/pi */
	nb_dd p = nb__two_prod(n, 0x1.921fb54442d18p+0);
	nb_dd r = nb__two_sum(x.hi - p.hi, x.lo);
	r = nb__add_d(r, -p.lo);
	r = nb_dd_sub(r, nb__two_prod(n, 0x1.1a62633145c07p-54));
	r = nb__add_d(r, n * 0x1.f1976b7ed8fbcp-110);

	nb_dd s = nb__sin_poly(r);
	nb_dd c = nb_dd_sqrt(nb__add_d(nb_dd_neg(nb__sqr(s)), 1.0));
	double qn = n + quarter;
	double q = qn - 4.0 * floor(qn * 0.25);	/* 0, 1, 2 or 3 */
	nb_dd v = q == 1.0 || q == 3.0 ? c : s;
	v = q >= 2.0 ? nb_dd_neg(v) : v;
	return fabs(x.hi) < 0x1p45 ? v : nb_dd_make(NAN, 0.0);
}

static inline nb_dd nb_dd_sin(nb_dd x) { return nb__sin_quarter(x, 0.0); }
static inline nb_dd nb_dd_cos(nb_dd x) { return nb__sin_quarter(x, 1.0); }

/* ---- floor, trunc, round ---------------------------------------------------
 * hi not an integer: the result is hi's alone, as |lo| <= ulp(hi)/2 is
 * less than hi's distance to an integer.  hi an integer (every |hi| >=
 * 2^52 is): hi plus lo's, a sum of two integers that fast_sum makes a dd
 * exactly.  All three are exact; infinities and NaN give (hi, 0). */
static inline nb_dd nb__int_plus(double hi, double l)
{
	return nb__finite(hi) ? nb__fast_sum(hi, l) : nb_dd_make(hi, 0.0);
}

static inline nb_dd nb_dd_floor(nb_dd a)
{
	double f = floor(a.hi);
	return f == a.hi && f != 0 ? nb__int_plus(f, floor(a.lo)) :
	       nb_dd_make(f, 0.0);
}

static inline nb_dd nb_dd_trunc(nb_dd a)
{
	double t = trunc(a.hi);
	double l = a.hi > 0 ? floor(a.lo) : ceil(a.lo);
	return t == a.hi && t != 0 ? nb__int_plus(t, l) : nb_dd_make(t, 0.0);
}

/* half-way cases away from zero, as C's round.  hi not an integer:
 * x - trunc(hi) = f + lo with f = hi - trunc(hi) exact, and f -+ 1/2 is
 * exact where it matters (|f| >= 1/4, Sterbenz), so the comparison with
 * -lo is exact.  hi an integer: lo rounded, a tie (lo an integer and a
 * half) going the way of hi's sign. */
static inline nb_dd nb_dd_round(nb_dd a)
{
	double t = trunc(a.hi), f = a.hi - t;
	double up = a.hi > 0 ? (f - 0.5 >= -a.lo ? 1.0 : 0.0) :
	            (f + 0.5 <= -a.lo ? -1.0 : 0.0);
	double r = round(a.lo);
	r = fabs(r - a.lo) == 0.5 ? a.lo + copysign(0.5, a.hi) : r;
	return t == a.hi && t != 0 ? nb__int_plus(t, r) :
	       nb_dd_make(t + up, 0.0);
}

/* ---- cbrt -------------------------------------------------------------------
 * a = 8^k m scaled exactly, r = cbrt(m.hi) in double, then one Newton step
 * r + (m - r^3) / (3 r^2): r^2 is exact, r^3 good to 2u^2, m - r^3 ~ u m
 * accurate, so the step leaves ~(cbrt's error)^2 + u^2 / 3.  A second
 * step from the double nearest the first's result changes nothing but an
 * exact cube root, which then comes out with lo = 0. */
static inline nb_dd nb_dd_cbrt(nb_dd a)
{
	int e;
	frexp(a.hi, &e);
	int k = nb__finite(a.hi) ? e / 3 : 0;
	nb_dd m = nb_dd_make(ldexp(a.hi, -3 * k), ldexp(a.lo, -3 * k));
	nb_dd y = nb_dd_make(cbrt(m.hi), 0.0);
	/* the second step makes an exact cube root exact */
	for (int i = 0; i < 2; i++) {
		double r = y.hi;
		nb_dd d = nb_dd_sub(m, nb__mul_d(nb__two_prod(r, r), r));
		y = nb__fast_sum(r, d.hi / (3.0 * r * r));
	}
	y = nb_dd_make(ldexp(y.hi, k), ldexp(y.lo, k));
	return a.hi != 0 && nb__finite(a.hi) ? y : nb_dd_make(cbrt(a.hi), 0.0);
}

/* ---- expm1, log1p, tanh ---------------------------------------------------
 * expm1, |x| < 1/2: e^y - 1 for y = x/128, within the exp polynomial's
 * range, then seven times e^2y - 1 = u (u + 2), which never cancels; each
 * doubling adds ~2u^2.  Elsewhere e^x - 1 cancels by at most 2.5 (x = 1/2). */
static inline nb_dd nb_dd_expm1(nb_dd x)
{
	nb_dd xs = fabs(x.hi) < 0.5 ? x : nb_dd_make(0.0, 0.0);
	nb_dd u = nb__expm1_poly(nb__mul_pow2(xs, 0x1p-7));
	for (int i = 0; i < 7; i++)
		u = nb_dd_mul(u, nb__add_d(u, 2.0));
	nb_dd y = nb_dd_exp(x);
	y = nb__finite(y.hi) ? nb__add_d(y, -1.0) : y;
	return fabs(x.hi) < 0.5 ? u : y;
}

/* log1p x = log u - e/u, u = 1 + x rounded to dd and e = (u - 1) - x what
 * that rounding lost (u.hi - 1 is exact for u.hi in [1/2, 2]; outside,
 * log u >= log 2 hides it).  log is relative near 1, so this is too. */
static inline nb_dd nb_dd_log1p(nb_dd x)
{
	nb_dd u = nb__finite(x.hi) ? nb__add_d(x, 1.0) : x;
	nb_dd e = nb_dd_sub(nb__two_sum(u.hi - 1.0, u.lo), x);
	double c = u.hi >= 0.5 && u.hi <= 2.0 ? e.hi / u.hi : 0.0;
	nb_dd l = nb_dd_log(u);
	return u.hi > 0 && u.hi < INFINITY ? nb__add_d(l, -c) : l;
}

/* tanh |x| = e / (e + 2), e = expm1(2|x|): e + 2 never cancels, and e's
 * error shrinks by 2 / (e + 2).  Beyond 40, 1 - tanh < 2e^-80 < 2^-106. */
static inline nb_dd nb_dd_tanh(nb_dd x)
{
	nb_dd ax = nb_dd_fabs(x);
	nb_dd e = nb_dd_expm1(nb__mul_pow2(fabs(x.hi) > 40.0 ?
	                                   nb_dd_make(0.0, 0.0) : ax, 2.0));
	nb_dd t = nb_dd_div(e, nb__add_d(e, 2.0));
	t = fabs(x.hi) > 40.0 ? nb_dd_make(1.0, 0.0) : t;
	return signbit(x.hi) ? nb_dd_neg(t) : t;
}

/* ---- atan2 ------------------------------------------------------------------
 * z0 = atan2(y.hi, x.hi) in double, then one Newton step on
 * f(z) = x sin z - y cos z, whose derivative at the root is
 * x cos z + y sin z = |(x, y)|: z0 - f(z0) / f'(z0), f in dd (it cancels
 * to ~u |(x, y)|), f' in double.  x and y are scaled by one power of two
 * first, so neither the products nor their low words leave the range.
 * A zero or infinite operand gives a multiple of pi/4, in dd. */
static inline nb_dd nb_dd_atan2(nb_dd y, nb_dd x)
{
	double z0 = atan2(y.hi, x.hi);
	int special = !(nb__finite(x.hi) && nb__finite(y.hi) && x.hi != 0 &&
	                y.hi != 0);
	int e;
	frexp(fmax(fabs(x.hi), fabs(y.hi)), &e);
	e = special ? 0 : e;
	nb_dd xs = nb_dd_make(ldexp(x.hi, -e), ldexp(x.lo, -e));
	nb_dd ys = nb_dd_make(ldexp(y.hi, -e), ldexp(y.lo, -e));
	nb_dd z = nb_dd_make(special ? 0.0 : z0, 0.0);
	nb_dd s = nb__sin_quarter(z, 0.0), c = nb__sin_quarter(z, 1.0);
	nb_dd f = nb_dd_sub(nb_dd_mul(xs, s), nb_dd_mul(ys, c));
	double d = xs.hi * c.hi + ys.hi * s.hi;
	nb_dd v = nb__fast_sum(z0, -f.hi / d);
	double k = rint(z0 * 0x1.45f306dc9c883p+0);	/* 4/pi */
	nb_dd w = k == 0 || k != k ? nb_dd_make(z0, 0.0) :
	          nb__mul_d(nb_dd_make(0x1.921fb54442d18p-1,
	                               0x1.1a62633145c07p-55), k);
	return special ? w : v;
}

/* ---- erf, erfc -------------------------------------------------------------
 * a = |x|.  a < 1/2: erf a = (2/sqrt(pi)) a e^-a^2 sum (2a^2)^n / (2n+1)!!,
 * all terms positive (20 terms, the next < 1e-35 relative).  1/2 <= a < 4:
 * erfc around the nearest multiple a0 of 1/4 (h = a - a0 exact, |h| <=
 * 1/8): erfc(a0) from the table minus (2/sqrt(pi)) e^-a0^2 times the
 * integral of e^(-2 a0 t - t^2) from 0 to h, a Taylor series whose
 * coefficients follow (k+1) q(k+1) = -2 a0 q(k) - 2 q(k-1) (28 terms; 26
 * reach 1e-33 at a0 = 4).  a >= 4: Laplace's continued fraction
 * erfc a = e^-a^2 / (sqrt(pi) (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))))
 * evaluated from its 80th term back (70 reach 1e-33 at a = 4), every
 * step a sum of positive terms; e^-a^2 as e^-hi^2 e^-(2 hi lo + lo^2)
 * from the exact products, so a^2's rounding (676 * 2^-106 at a = 26) is
 * not in it.  Then erf = 1 - erfc for a >= 1/2 (erfc <= 0.48) and
 * erfc = 1 - erf below (erf < 0.53), 2 - erfc or 1 + erf for x < 0: no
 * step cancels by more than a factor 2.  The regions are branches, not
 * selects: each is ~1000 to 3000 DP operations. */
NB__CONST double nb__erfc_tab[30] = {	/* erfc(k/4), k = 2..16 */
	0x1.eb02147ce245cp-2, -0x1.5e809f1a31a28p-56,	/* 0.5 */
	0x1.27c6d14c5e341p-2, 0x1.3af3434d0eeabp-57,	/* 0.75 */
	0x1.4226162fbddd5p-3, -0x1.b40443f6ec34ap-59,	/* 1 */
	0x1.3bcd133aa0ffcp-4, -0x1.89da82345938bp-62,	/* 1.25 */
	0x1.15aaa8ec85205p-5, -0x1.e86ee834da4cep-61,	/* 1.5 */
	0x1.b4be201caa4b4p-7, -0x1.6abde927f9cddp-61,	/* 1.75 */
	0x1.328f5ec350e67p-8, -0x1.ca006412e68d0p-62,	/* 2 */
	0x1.7f713f9cc9784p-10, -0x1.4207143202515p-64,	/* 2.25 */
	0x1.aab859b20ac9ep-12, 0x1.88f4ff748376bp-66,	/* 2.5 */
	0x1.a609f7584d32bp-14, 0x1.d92f3f7ab9ef5p-68,	/* 2.75 */
	0x1.729df6503422ap-16, 0x1.784ca4c429a15p-73,	/* 3 */
	0x1.20c1303550f0ep-18, -0x1.20ee80d2c8d09p-73,	/* 3.25 */
	0x1.8ef2a9a18d857p-21, -0x1.2d76dc03e80a5p-75,	/* 3.5 */
	0x1.e87470e4f4246p-24, -0x1.cafa3aa5b4314p-82,	/* 3.75 */
	0x1.08ddd13bd35e7p-26, -0x1.615db40319381p-80,	/* 4 */
};

/* e^-(a^2) for a >= 0, good to ~2^-104 relative for any a */
static inline nb_dd nb__exp_negsq(nb_dd a)
{
	nb_dd p = nb__two_prod(a.hi, a.hi);
	nb_dd c = nb__add_d(nb__two_prod(2.0 * a.hi, a.lo), a.lo * a.lo);
	return nb_dd_mul(nb_dd_exp(nb_dd_neg(p)), nb_dd_exp(nb_dd_neg(c)));
}

/* erf a for 0 <= a < 1/2 */
static inline nb_dd nb__erf_small(nb_dd a)
{
	nb_dd z2 = nb__mul_pow2(nb__sqr(a), 2.0), t = nb_dd_make(1.0, 0.0);
	nb_dd s = t;
	for (int n = 1; n <= 20; n++) {
		t = nb_dd_div(nb_dd_mul(t, z2), nb_dd_make(2.0 * n + 1.0, 0.0));
		s = nb__add_fast(s, t);
	}
	nb_dd e = nb_dd_exp(nb_dd_neg(nb__sqr(a)));
	nb_dd k = nb_dd_make(0x1.20dd750429b6dp+0,	/* 2/sqrt(pi) */
	                     0x1.1ae3a914fed80p-56);
	return nb_dd_mul(nb_dd_mul(k, a), nb_dd_mul(e, s));
}

/* erfc a for 1/2 <= a < 4.125 */
static inline nb_dd nb__erfc_mid(nb_dd a)
{
	double a0 = rint(a.hi * 4.0) * 0.25;
	nb_dd h = nb__two_sum(a.hi - a0, a.lo);
	nb_dd qp = nb_dd_make(0.0, 0.0), q = nb_dd_make(1.0, 0.0), hp = h;
	nb_dd in = h;
	for (int k = 0; k < 28; k++) {
		nb_dd qn = nb_dd_div(nb_dd_sub(nb__mul_d(q, -2.0 * a0),
		                               nb__mul_pow2(qp, 2.0)),
		                     nb_dd_make(k + 1.0, 0.0));
		qp = q;
		q = qn;
		hp = nb_dd_mul(hp, h);
		in = nb_dd_add(in, nb_dd_div(nb_dd_mul(q, hp),
		                             nb_dd_make(k + 2.0, 0.0)));
	}
	int i = 2 * ((int)(a0 * 4.0) - 2);
	nb_dd e = nb_dd_exp(nb_dd_make(-a0 * a0, 0.0));
	nb_dd k = nb_dd_make(0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56);
	return nb_dd_sub(nb_dd_make(nb__erfc_tab[i], nb__erfc_tab[i + 1]),
	                 nb_dd_mul(nb_dd_mul(k, e), in));
}

/* erfc a for a >= 4: 0 from 27.25 on, where even its double rounds to
 * 0 (erfc 27.25 < 2^-1075); below, the subnormals libm gives */
static inline nb_dd nb__erfc_large(nb_dd a)
{
	nb_dd t = a;
	for (int k = 80; k >= 1; k--)
		t = nb_dd_add(a, nb_dd_div(nb_dd_make(0.5 * k, 0.0), t));
	nb_dd sp = nb_dd_make(0x1.c5bf891b4ef6bp+0,	/* sqrt(pi) */
	                      -0x1.618f13eb7ca89p-54);
	nb_dd y = nb_dd_div(nb__exp_negsq(a), nb_dd_mul(sp, t));
	return a.hi < 27.25 ? y : nb_dd_make(0.0, 0.0);
}

static inline nb_dd nb__erfc_pos(nb_dd a)
{
	if (a.hi < 4.0)
		return nb__erfc_mid(a);
	return nb__erfc_large(a);
}

static inline nb_dd nb_dd_erf(nb_dd x)
{
	nb_dd a = nb_dd_fabs(x), y;
	if (a.hi < 0.5)
		y = nb__erf_small(a);
	else
		y = nb__add_d(nb_dd_neg(nb__erfc_pos(a)), 1.0);
	y = signbit(x.hi) ? nb_dd_neg(y) : y;
	return x.hi == x.hi ? y : x;
}

static inline nb_dd nb_dd_erfc(nb_dd x)
{
	nb_dd a = nb_dd_fabs(x), y;
	if (a.hi < 0.5) {
		nb_dd e = nb__erf_small(a);
		y = nb__add_d(signbit(x.hi) ? e : nb_dd_neg(e), 1.0);
	} else {
		nb_dd c = nb__erfc_pos(a);
		y = signbit(x.hi) ? nb__add_d(nb_dd_neg(c), 2.0) : c;
	}
	return x.hi == x.hi ? y : x;
}

#ifdef __clang__
#pragma clang diagnostic pop
#endif
#endif /* NB_DDLIB_H */
