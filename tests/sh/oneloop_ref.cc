// tests/sh/oneloop_ref.cc: the independent reference of bin/oneloop, written
// apart from its host code: the N-point tanh-sinh sums I_N of the one-loop
// integral (paper 001, Eq. 5.1) entirely in QD's quad-double (qd_real).
//
//   oneloop_ref [--direct] [--params-double] [--dd-nodes] N S T ME MF LAMBDA
//               [TOL CAND...]
//       prints "I = " and I_N with 40 significant digits; with TOL and
//       candidate values, a line "reldiff X" per candidate and exit status
//       1 when one differs from I_N by more than TOL relatively.
//       Parameters are read as decimals into qd_real (so 1e-2 is 0.01 to
//       64 digits); --params-double rounds them to double first, to tell a
//       program that reads its parameters as doubles from a wrong one.
//       --dd-nodes rounds u, v and w to dd as bin/oneloop does, to tell
//       the nodes' rounding from the arithmetic's when a candidate differs.
//       --direct evaluates D verbatim from Eq. 5.1 instead of the factored
//       form of the fast loop, to check the factoring (slow: small N only).
//   oneloop_ref --closed
//       the case s = t = 0, me = mf = lambda = 1, where D = 1 - p + p^2
//       with p = x + y: its closed form 2/3 - 2 pi / (9 sqrt 3) and a 1-D
//       quadrature of p (1-p) / D^2 over (0, 1), both with 40 digits.
//   oneloop_ref --cmp A B TOL
//       "reldiff X" of two decimals read in qd_real; exit 1 beyond TOL.
//
// The quadrature is the contract's (one rule on (0, 1), N points):
//   T = 4.5, h = 2T/N, t_k = -T + (k + 1/2) h,
//   u_k = 1/(1 + exp(-pi sinh t_k)), v_k = 1/(1 + exp(pi sinh t_k)) = 1 - u_k,
//   w_k = h pi cosh(t_k) u_k v_k;
// the simplex map x = u_i, y = v_i u_j, z = c u_k with c = v_i v_j = 1-x-y:
//   I_N = sum_i sum_j w_i w_j v_i c sum_k w_k / D(x, y, c u_k)^2.
// Here the nodes stay in qd_real (bin/oneloop rounds them to dd, which
// moves I_N by a few parts in 1e32: every term of the sum is positive and
// so is every term of D for s, t <= 0).
// Since z = c u_k and 1-x-y-z = c v_k exactly,
//   D = (-s x y + (x+y) lambda^2) + c^2 (-t u_k v_k + me^2 v_k + mf^2 u_k),
// an i-side part and a k-side part: the fast loop costs one qd multiply,
// two adds, a square and a divide per point.
#include <qd/fpu.h>
#include <qd/qd_real.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Rule {
	std::vector<qd_real> u, v, w;
};

Rule make_rule(int n, bool dd_nodes)
{
	Rule r;
	r.u.resize(n);
	r.v.resize(n);
	r.w.resize(n);
	const qd_real T(4.5);
	const qd_real h = qd_real(9) / n;   // 2T / N
	for (int k = 0; k < n; k++) {
		qd_real t = -T + (qd_real(k) + 0.5) * h;
		qd_real e = qd_real::_pi * sinh(t);
		qd_real u = 1 / (1 + exp(-e));
		qd_real v = 1 / (1 + exp(e));
		r.u[k] = u;
		r.v[k] = v;
		r.w[k] = h * qd_real::_pi * cosh(t) * u * v;
		if (dd_nodes) {
			r.u[k] = qd_real(to_dd_real(r.u[k]));
			r.v[k] = qd_real(to_dd_real(r.v[k]));
			r.w[k] = qd_real(to_dd_real(r.w[k]));
		}
	}
	return r;
}

bool parse(const char *s, qd_real &x, bool round_double)
{
	if (qd_real::read(s, x) != 0)
		return false;
	if (round_double) {
		char *end;
		errno = 0;
		double d = strtod(s, &end);
		if (*end != '\0' || errno != 0)
			return false;
		x = qd_real(d);
	}
	return true;
}

std::string digits(const qd_real &x)
{
	return x.to_string(40, 0, std::ios_base::scientific);
}

// the sums with D factored into an (i, j) part and a k part
qd_real sum_fast(const Rule &r, qd_real s, qd_real t, qd_real me, qd_real mf,
	qd_real lam)
{
	int n = (int)r.u.size();
	qd_real me2 = sqr(me), mf2 = sqr(mf), lam2 = sqr(lam);
	std::vector<qd_real> g(n), part(n);
	for (int k = 0; k < n; k++)
		g[k] = -t * r.u[k] * r.v[k] + me2 * r.v[k] + mf2 * r.u[k];
#pragma omp parallel for schedule(dynamic, 1)
	for (int i = 0; i < n; i++) {
		qd_real si = 0.0;
		for (int j = 0; j < n; j++) {
			qd_real x = r.u[i], y = r.v[i] * r.u[j];
			qd_real c = r.v[i] * r.v[j];
			qd_real a = -s * x * y + (x + y) * lam2;
			qd_real c2 = sqr(c);
			qd_real sk = 0.0;
			for (int k = 0; k < n; k++) {
				qd_real d = a + c2 * g[k];
				sk += r.w[k] / sqr(d);
			}
			si += r.w[j] * r.v[i] * c * sk;
		}
		part[i] = r.w[i] * si;
	}
	qd_real sum = 0.0;
	for (int i = 0; i < n; i++)
		sum += part[i];
	return sum;
}

// the sums with D spelled as Eq. 5.1, 1-x-y-z formed by subtraction
qd_real sum_direct(const Rule &r, qd_real s, qd_real t, qd_real me,
	qd_real mf, qd_real lam)
{
	int n = (int)r.u.size();
	qd_real sum = 0.0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			qd_real x = r.u[i], y = r.v[i] * r.u[j];
			qd_real c = r.v[i] * r.v[j];
			for (int k = 0; k < n; k++) {
				qd_real z = c * r.u[k];
				qd_real d = -x * y * s - t * z * (1 - x - y - z) +
					(x + y) * sqr(lam) +
					(1 - x - y - z) * (1 - x - y) * sqr(me) +
					z * (1 - x - y) * sqr(mf);
				sum += r.w[i] * r.w[j] * r.v[i] * c * r.w[k] / sqr(d);
			}
		}
	return sum;
}

// 1 when some candidate is farther than tol from ref, relatively
int compare(const qd_real &ref, const qd_real &tol, int nc, char **cand)
{
	int bad = 0;
	for (int c = 0; c < nc; c++) {
		qd_real x;
		if (qd_real::read(cand[c], x) != 0) {
			fprintf(stderr, "oneloop_ref: not a number: '%s'\n", cand[c]);
			return 2;
		}
		qd_real rel = abs(x - ref) / abs(ref);
		printf("reldiff %s\n", rel.to_string(3, 0, std::ios_base::scientific).c_str());
		if (!(rel <= tol))
			bad = 1;
	}
	return bad;
}

int usage(void)
{
	fprintf(stderr, "usage: oneloop_ref [--direct] [--params-double] [--dd-nodes]\n"
		"           N S T ME MF LAMBDA [TOL CAND...]\n"
		"       oneloop_ref --closed\n"
		"       oneloop_ref --cmp A B TOL\n");
	return 2;
}

// int_0^1 p(1-p)/(1-p+p^2)^2 dp by the same tanh-sinh rule in 1-D
int closed(void)
{
	qd_real sq3 = sqrt(qd_real(3));
	qd_real exact = qd_real(2) / 3 - 2 * qd_real::_pi / (9 * sq3);
	Rule r = make_rule(256, false);
	qd_real q = 0.0;
	for (int k = 0; k < 256; k++) {
		qd_real p = r.u[k];
		q += r.w[k] * p * r.v[k] / sqr(1 - p + sqr(p));
	}
	printf("closed %s\nquad1d %s\n", digits(exact).c_str(), digits(q).c_str());
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	unsigned int cw;
	fpu_fix_start(&cw);   // a no-op on x86-64; QD needs it on x87
	bool direct = false, round_double = false, dd_nodes = false;
	int a = 1;
	if (argc == 2 && strcmp(argv[1], "--closed") == 0)
		return closed();
	if (argc == 5 && strcmp(argv[1], "--cmp") == 0) {
		qd_real ref, tol;
		if (qd_real::read(argv[2], ref) != 0 || qd_real::read(argv[4], tol) != 0)
			return usage();
		return compare(ref, tol, 1, argv + 3);
	}
	for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
		if (strcmp(argv[a], "--direct") == 0)
			direct = true;
		else if (strcmp(argv[a], "--params-double") == 0)
			round_double = true;
		else if (strcmp(argv[a], "--dd-nodes") == 0)
			dd_nodes = true;
		else
			return usage();
	}
	if (argc - a < 6 || argc - a == 7)
		return usage();
	char *end;
	long n = strtol(argv[a], &end, 10);
	if (*end != '\0' || n < 2 || n > 100000)
		return usage();
	qd_real p[5];
	for (int i = 0; i < 5; i++)
		if (!parse(argv[a + 1 + i], p[i], round_double)) {
			fprintf(stderr, "oneloop_ref: not a number: '%s'\n", argv[a + 1 + i]);
			return 2;
		}
	Rule r = make_rule((int)n, dd_nodes);
	qd_real in = direct ? sum_direct(r, p[0], p[1], p[2], p[3], p[4])
			    : sum_fast(r, p[0], p[1], p[2], p[3], p[4]);
	printf("I = %s\n", digits(in).c_str());
	if (argc - a == 6)
		return 0;
	qd_real tol;
	if (qd_real::read(argv[a + 6], tol) != 0)
		return usage();
	return compare(in, tol, argc - a - 7, argv + a + 7);
}
