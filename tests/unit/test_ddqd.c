/* test_ddqd.c: ddlib.h's --dd=qd arithmetic (NB_DD_QD) against QD.  On
 * fresh random operands (seed printed; NBCC_TEST_SEED=n repeats)
 * over exponents -300..300, with cancellation cases for add and sub, each
 * of add, sub, mul and div is compared with QD's quad-double (c_qd_*) and
 * held to the bounds docs/oneloop.md states, eps = 2^-104: add and sub
 * within 2 eps of |a| + |b| (QD's own sloppy add's kind of bound: under
 * cancellation only the operands' absolute accuracy is kept), mul within
 * 2 eps and div within 4 eps of the exact result.  QD's own dd_real
 * (c_dd_*, Debian's build: QD_IEEE_ADD off, sloppy mul and div) runs on
 * the same operands, and ours must stay within its largest error plus
 * 1 eps; the measured maxima of both are printed.  Special values are not
 * kept, as in QD: an infinite operand or an overflow gives NaN, which the
 * last test pins down (so a change to that is a decision, not an accident). */
#include <check.h>
#include <math.h>
#include <qd/c_dd.h>
#include <qd/c_qd.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define NB_DD_QD 1
#include "ddlib.h"
#include "seed.h"
#include "unit.h"

#define N 200000
#define EPS 0x1p-104

static unsigned long long rng;

static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double uniform(void) { return ((next() >> 11) + 0.5) * 0x1p-53; }

static int irand(int lo, int hi)
{
	return lo + (int)(next() % (unsigned long long)(hi - lo + 1));
}

static nb_dd norm(double hi, double lo)
{
	double s = hi + lo;
	return nb_dd_make(s, lo - (s - hi));
}

/* hi in [2^e, 2^(e+1)), random sign; one in eight has lo = 0 */
static nb_dd rnd(int e)
{
	double hi = ldexp(1.0 + uniform(), e);
	if (next() & 1)
		hi = -hi;
	if (next() % 8 == 0)
		return nb_dd_make(hi, 0.0);
	return norm(hi, hi * (2 * uniform() - 1) * 0x1p-53);
}

enum { ADD, SUB, MUL, DIV, NOPS };
static const char *names[NOPS] = {"add", "sub", "mul", "div"};
static const double bound[NOPS] = {2, 2, 2, 4};

/* operands: for add and sub every fourth pair nearly cancels */
static void gen(int op, int i, nb_dd *a, nb_dd *b)
{
	int e = irand(-300, 300);
	*a = rnd(e);
	if (op <= SUB && i % 4 == 0) {
		/* b = -a (or a for sub) perturbed in its last bits */
		nb_dd d = rnd(e - irand(40, 110));
		*b = nb_dd_add(op == ADD ? nb_dd_neg(*a) : *a, d);
	} else {
		*b = rnd(op <= SUB ? e - irand(-60, 60) : irand(-300, 300));
	}
}

/* |x - exact| / scale, in eps, with x given as the dd (h, l) */
static double err(double h, double l, const double ex[4], double scale)
{
	double x[4] = {h, l, 0, 0}, d[4];
	c_qd_sub(x, ex, d);
	return fabs(d[0]) / scale / EPS;
}

START_TEST(qd_arith)
{
	rng = test_seed("test_ddqd") * 0x9e3779b97f4a7c15ull | 1;
	for (int op = 0; op < NOPS; op++) {
		double worst = 0, worst_qd = 0;
		for (int i = 0; i < N; i++) {
			nb_dd a, b, z;
			gen(op, i, &a, &b);
			double qa[4] = {a.hi, a.lo, 0, 0}, qb[4] = {b.hi, b.lo, 0, 0};
			double ex[4], da[2] = {a.hi, a.lo}, db[2] = {b.hi, b.lo}, q[2];
			switch (op) {
			case ADD:
				z = nb_dd_add(a, b);
				c_qd_add(qa, qb, ex);
				c_dd_add(da, db, q);
				break;
			case SUB:
				z = nb_dd_sub(a, b);
				c_qd_sub(qa, qb, ex);
				c_dd_sub(da, db, q);
				break;
			case MUL:
				z = nb_dd_mul(a, b);
				c_qd_mul(qa, qb, ex);
				c_dd_mul(da, db, q);
				break;
			default:
				z = nb_dd_div(a, b);
				c_qd_div(qa, qb, ex);
				c_dd_div(da, db, q);
				break;
			}
			double scale = op <= SUB ? fabs(a.hi) + fabs(b.hi)
			                         : fabs(ex[0]);
			double e = err(z.hi, z.lo, ex, scale);
			double eq = err(q[0], q[1], ex, scale);
			ck_assert_msg(e <= bound[op], "%s(%a + %a, %a + %a) is off "
			              "by %.3g eps (bound %g)", names[op], a.hi, a.lo,
			              b.hi, b.lo, e, bound[op]);
			ck_assert_msg(fabs(z.lo) <= 0x1p-53 * fabs(z.hi),
			              "%s: result not normalized", names[op]);
			worst = e > worst ? e : worst;
			worst_qd = eq > worst_qd ? eq : worst_qd;
		}
		printf("  %s: largest error %.3f eps, QD's dd_real %.3f eps "
		       "(%s)\n", names[op], worst, worst_qd,
		       op <= SUB ? "of |a| + |b|" : "of the result");
		ck_assert_msg(worst <= worst_qd + 1, "%s: %.3f eps against QD's "
		              "%.3f", names[op], worst, worst_qd);
	}
}
END_TEST

START_TEST(qd_special)
{
	nb_dd inf = nb_dd_make(INFINITY, 0.0), one = nb_dd_make(1.0, 0.0);
	nb_dd big = nb_dd_make(0x1p1000, 0.0);
	ck_assert(isnan(nb_dd_add(inf, one).hi));
	ck_assert(isnan(nb_dd_mul(inf, one).hi));
	ck_assert(isnan(nb_dd_mul(big, big).hi));
	ck_assert(isnan(nb_dd_div(one, nb_dd_make(0.0, 0.0)).hi));
	/* zeros stay exact */
	ck_assert(nb_dd_add(one, nb_dd_neg(one)).hi == 0.0);
	ck_assert(nb_dd_mul(one, nb_dd_make(0.0, 0.0)).hi == 0.0);
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc = unit_case(&s, "ddqd", 120);
	tcase_add_test(tc, qd_arith);
	tcase_add_test(tc, qd_special);
	int nf = unit_run(s, CK_FORK_GETENV);
	return nf ? 1 : 0;
}
