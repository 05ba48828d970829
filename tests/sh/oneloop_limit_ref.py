# tests/sh/oneloop_limit_ref.py: an independent value of the lambda -> 0
# limit of bin/oneloop's integral above threshold, for t = 0 and me = mf
# = m (tests/sh/oneloop_limit.sh): mpmath's own evaluation of I(lambda)
# (oneloop_ieps_ref.py's: the y integral exact, x by mpmath's tanh-sinh
# quadrature, at degree 10, where the default's 6 leaves 1e-10 at lambda =
# 0.005) at lambda_k = L0 / 2^k, k < 7, and an exact solution of
#   I = A ln lambda + B + sum_(p = 1, 2) lambda^p (c_p + d_p ln lambda)
# through the first six, written here apart from bin/oneloop's fit.c.
# Its error estimate is the change from the same fit through the last six
# (at L0 = 1e-3 the left-out terms are O(lambda^3 ln lambda), 1e-8 of
# L0's, and they fall 8 times from one window to the next).
#   python3 oneloop_limit_ref.py S M [L0]   prints "A_RE A_IM B_RE B_IM ERR"
import os
import sys

import mpmath as mp

mp.mp.dps = 30
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oneloop_ieps_ref as ref  # noqa: E402


def fit(lams, vals, p):
    rows = []
    for lam in lams:
        ln = mp.log(lam)
        row = [ln, 1]
        for q in range(1, p + 1):
            row += [lam ** q, lam ** q * ln]
        rows.append(row)
    sol = mp.lu_solve(mp.matrix(rows), mp.matrix(vals))
    return sol[0], sol[1]


s, m = mp.mpf(sys.argv[1]), mp.mpf(sys.argv[2])
l0 = mp.mpf(sys.argv[3]) if len(sys.argv) > 3 else mp.mpf("1e-3")
lams = [l0 / 2 ** k for k in range(7)]
vals = [ref.value(s, lam, m, mp.mpf("1e-25"), 10) for lam in lams]
a, b = fit(lams[:6], vals[:6], 2)
a1, b1 = fit(lams[1:], vals[1:], 2)
err = max(abs(a - a1), abs(b - b1))
print(mp.nstr(a.real, 20), mp.nstr(a.imag, 20), mp.nstr(b.real, 20),
      mp.nstr(b.imag, 20), mp.nstr(err, 3))
