# tests/sh/oneloop_ieps_ref.py: an independent value of bin/oneloop's
# integral above threshold, in mpmath (tests/sh/oneloop_ieps.sh), by its
# own rule: with t = 0 and me = mf = m, D does not depend on z,
#   D = -s x y + (x + y) lambda^2 + (1 - x - y)^2 m^2,
# the z integral is the factor 1 - x - y, and the y integral of
# (1 - x - y) / (D - i eps)^2 over (0, 1 - x) is taken exactly (D is
# quadratic in y: partial fractions over its two complex roots, whose
# logarithms never cross their cut since the roots are off the real axis).
# The x integral is mpmath's tanh-sinh quadrature, split where D = 0 on
# the edge x + y = 1 (x (1 - x) = lambda^2 / s).  eps -> 0 is taken as
# eps = 1e-25: the y integral is exact at any eps, and the limit is
# reached to O(eps).
#   python3 oneloop_ieps_ref.py S LAMBDA M EPS   prints "RE IM"
# (value() is the same for tests/sh/oneloop_limit_ref.py)
import sys

import mpmath as mp

mp.mp.dps = 30


def inner(x, s, lam, m, eps):
    u = 1 - x
    a = m * m
    b = lam * lam - s * x - 2 * m * m * u
    c = x * lam * lam + m * m * u * u - 1j * eps
    d = mp.sqrt(b * b - 4 * a * c)
    r1, r2 = (-b + d) / (2 * a), (-b - d) / (2 * a)
    tot = 0
    for r, q in ((r1, r2), (r2, r1)):
        g = (u - r) / a
        beta = g / (r - q) ** 2
        alpha = (-1 / a) / (r - q) ** 2 - 2 * g / (r - q) ** 3
        tot += alpha * (mp.log(u - r) - mp.log(-r)) + beta * (-1 / (u - r) - 1 / r)
    # D = a (y - r1) (y - r2): 1/D^2 has a^2 below, of which alpha and
    # beta hold one
    return tot / a


def value(s, lam, m, eps, degree=6):
    """I at (s, lambda, m, eps); degree: mpmath's maxdegree (6, its
    default, leaves about 1e-10 at lambda = 0.005; 10 leaves 1e-16)"""
    pts = [0, 1]
    disc = 1 - 4 * lam * lam / s
    if s > 0 and disc > 0:
        pts = [0, (1 - mp.sqrt(disc)) / 2, (1 + mp.sqrt(disc)) / 2, 1]
    return mp.quad(lambda x: inner(x, s, lam, m, eps), pts, maxdegree=degree)


if __name__ == "__main__":
    v = value(*(mp.mpf(a) for a in sys.argv[1:5]))
    print(mp.nstr(v.real, 25), mp.nstr(v.imag, 25))
