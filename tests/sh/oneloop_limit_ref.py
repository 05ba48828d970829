# tests/sh/oneloop_limit_ref.py: an independent value of the lambda -> 0
# limit of bin/oneloop's integral above threshold, for t = 0 and me = mf
# = m (tests/sh/oneloop_limit.sh): mpmath's own evaluation of I(lambda)
# (oneloop_ieps_ref.py's: the y integral exact, x by mpmath's tanh-sinh
# quadrature, at degree 10, where the default's 6 leaves 1e-10 at lambda =
# 0.005, and 40 digits, where 30 lost 2e-10 of Im to the partial
# fractions' cancellation at lambda = 1.6e-5) at lambda_k = L0 * 0.75^k,
# k < 14 (L0 = 0.02: down to 4.8e-4), and exact solutions, written here
# apart from bin/oneloop's fit.c, of the physical region's model
# (docs/oneloop.md, "The physical region's model"):
#   Re I = A ln lambda + B + sum_(p <= 8) c_p lambda^p
#          + sum_(p = 2, 4, 6, 8) d_p lambda^p ln lambda,
#   Im I = B' + sum_(p <= 6) c'_p lambda^2p,
# A = 2 / (s m^2) the leading logarithm's closed form (t = 0, me = mf = m:
# c = 2 m^2, r = 0, J = 1 / m^2), given, through the first 13 points (Re)
# and the first 7 (Im).  The error estimate is the larger change from the
# same fits one point later.  A is also fitted, with the old model (A and
# three pairs) through the last eight points, as the check of its closed
# form, its estimate the change from the fit one point earlier.
#   python3 oneloop_limit_ref.py S M [L0]
# prints "A_RE A_IM B_RE B_IM ERR A_FIT A_FIT_ERR"
import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oneloop_ieps_ref as ref  # noqa: E402

mp.mp.dps = 40  # after the import, which sets its own 30


def solve(rows, vals):
    return mp.lu_solve(mp.matrix(rows), mp.matrix(vals))


def b_re(lams, vals, a):
    rows = []
    for lam in lams:
        row = [1]
        for p in range(1, 9):
            row += [lam ** p] if p % 2 else [lam ** p, lam ** p * mp.log(lam)]
        rows.append(row)
    return solve(rows, [v.real - a * mp.log(lam) for lam, v in zip(lams, vals)])[0]


def b_im(lams, vals):
    rows = [[lam ** (2 * p) for p in range(7)] for lam in lams]
    return solve(rows, [v.imag for v in vals])[0]


def a_fit(lams, vals):
    rows = []
    for lam in lams:
        ln = mp.log(lam)
        rows.append([ln, 1] + [f for p in range(1, 4) for f in (lam ** p, lam ** p * ln)])
    return solve(rows, [v.real for v in vals])[0]


s, m = mp.mpf(sys.argv[1]), mp.mpf(sys.argv[2])
l0 = mp.mpf(sys.argv[3]) if len(sys.argv) > 3 else mp.mpf("0.02")
a = 2 / (s * m * m)
lams = [l0 * mp.mpf("0.75") ** k for k in range(14)]
vals = [ref.value(s, lam, m, mp.mpf("1e-37"), 10) for lam in lams]
br, bi = b_re(lams[:13], vals[:13], a), b_im(lams[:7], vals[:7])
err = max(abs(br - b_re(lams[1:], vals[1:], a)),
          abs(bi - b_im(lams[1:8], vals[1:8])))
af, af1 = a_fit(lams[6:], vals[6:]), a_fit(lams[5:13], vals[5:13])
print(mp.nstr(a, 20), 0, mp.nstr(br, 20), mp.nstr(bi, 20), mp.nstr(err, 3),
      mp.nstr(af, 20), mp.nstr(abs(af - af1), 3))
