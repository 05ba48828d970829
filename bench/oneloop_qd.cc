// bench/oneloop_qd.cc: the baseline of issue 10's rate target (the oneloop
// suite, bench/suites/oneloop.sh, builds and runs it): bin/oneloop's
// N-point sums of the one-loop integral written plainly with QD's dd_real
// on one core, as the paper's Core i7 row ran them.
//
//   oneloop_qd [N...]     default 128 256 512; prints per N the variant,
//                         I, seconds and dd operations/s (28 N^3 per sum,
//                         the paper's convention, whatever the code does)
//
// Nodes and weights are the contract's (T = 4.5, h = 2T/N, midpoint-shifted
// tanh-sinh on (0, 1)), computed in qd_real and rounded to dd_real, with
// s = t = -1, me = mf = 1, lambda = 1e-2 (bin/oneloop's defaults).  Loops
// run i, j, k like the kernel's; two variants:
//   hoisted  what nbcc does: the (i, j) side of D (-x y s + (x+y) lambda^2)
//            once per (i, j), 14 dd operations per k, as in the kernel;
//   plain    Eq. 5.1 spelled out in the k loop, as one would first write it.
// The faster of the two is the baseline the generated code is held to.
#include <qd/dd_real.h>
#include <qd/fpu.h>
#include <qd/qd_real.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Rule {
	std::vector<dd_real> u, v, w;
};

Rule make_rule(int n)
{
	Rule r;
	const qd_real T(4.5);
	const qd_real h = qd_real(9) / n;
	for (int k = 0; k < n; k++) {
		qd_real t = -T + (qd_real(k) + 0.5) * h;
		qd_real e = qd_real::_pi * sinh(t);
		qd_real u = 1 / (1 + exp(-e)), v = 1 / (1 + exp(e));
		r.u.push_back(to_dd_real(u));
		r.v.push_back(to_dd_real(v));
		r.w.push_back(to_dd_real(h * qd_real::_pi * cosh(t) * u * v));
	}
	return r;
}

const dd_real s(-1.0), t(-1.0), me(1.0), mf(1.0), lam("1e-2");

dd_real sum_hoisted(const Rule &r)
{
	int n = (int)r.u.size();
	dd_real me2 = sqr(me), mf2 = sqr(mf), lam2 = sqr(lam), sum = 0.0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			dd_real xx = r.u[i], yy = r.v[i] * r.u[j];
			dd_real cnt4 = r.v[i] * r.v[j];
			dd_real a = -xx * yy * s + (xx + yy) * lam2, res = 0.0;
			for (int k = 0; k < n; k++) {
				dd_real zz = r.u[k] * cnt4, rest = cnt4 - zz;
				dd_real d = a - t * zz * rest + rest * cnt4 * me2 +
					zz * cnt4 * mf2;
				res += r.w[k] / (d * d);
			}
			sum += r.w[i] * r.w[j] * r.v[i] * cnt4 * res;
		}
	return sum;
}

dd_real sum_plain(const Rule &r)
{
	int n = (int)r.u.size();
	dd_real sum = 0.0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			dd_real x = r.u[i], y = r.v[i] * r.u[j];
			dd_real cnt4 = r.v[i] * r.v[j], res = 0.0;
			for (int k = 0; k < n; k++) {
				dd_real z = r.u[k] * cnt4;
				dd_real d = -x * y * s - t * z * (1.0 - x - y - z) +
					(x + y) * sqr(lam) +
					(1.0 - x - y - z) * (1.0 - x - y) * sqr(me) +
					z * (1.0 - x - y) * sqr(mf);
				res += r.w[k] / sqr(d);
			}
			sum += r.w[i] * r.w[j] * r.v[i] * cnt4 * res;
		}
	return sum;
}

void run(const char *name, dd_real (*f)(const Rule &), int n)
{
	Rule r = make_rule(n);
	auto t0 = std::chrono::steady_clock::now();
	dd_real in = f(r);
	auto t1 = std::chrono::steady_clock::now();
	double sec = std::chrono::duration<double>(t1 - t0).count();
	double ops = 28.0 * n * n * (double)n;
	printf("%-8s %5d  I = %s  %9.3f s  %.3e dd-op/s\n", name, n,
		in.to_string(32, 0, std::ios_base::scientific).c_str(), sec,
		ops / sec);
	fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
	unsigned int cw;
	fpu_fix_start(&cw);
	std::vector<int> ns;
	for (int a = 1; a < argc; a++)
		ns.push_back(atoi(argv[a]));
	if (ns.empty())
		ns = {128, 256, 512};
	for (int n : ns) {
		if (n < 2) {
			fprintf(stderr, "oneloop_qd: N must be 2 or more\n");
			return 2;
		}
		run("hoisted", sum_hoisted, n);
		run("plain", sum_plain, n);
	}
	return 0;
}
