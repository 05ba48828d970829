"""test_autodiff.py: Kernel.grad() and Kernel.jvp(), nbcc's derived kernels
as methods (docs/autodiff.md).  The gradient of a Gaussian sum with
respect to LMEM positions and weights and to a CONST width (its total
over i, its per-i column and its VJP with a cotangent) is compared with
numpy's evaluation of the hand-derived formulas (in long double);
the jvp of gravity.nbl along the velocities is hermite.nbl's jerk.  Bad
names give clear errors; the Kernel(grad=...) route still works."""

import os

import numpy as np
import pytest

import nbcc

SEED = int(os.environ.get("NBCC_TEST_SEED") or
           np.random.SeedSequence().entropy % 2**32)

GAUSS = """LMEM xi, yi, ai;
BMEM xj, yj, ej;
CONST g;
RMEM s, n;
s += ej * ai * exp(-g * ((xi - xj)**2 + (yi - yj)**2));
n += xj > xi;
"""
# relative to the largest value, by the kernel's precision
TOL = {"float": 2e-5, "double": 1e-13, "dd": 1e-13}


def gauss_inputs(rng, ni, nj):
    return dict(xi=rng.random(ni), yi=rng.random(ni),
                ai=rng.uniform(-1, 1, ni), xj=rng.random(nj),
                yj=rng.random(nj), ej=rng.uniform(-1, 1, nj), g=3.0)


def gauss_grad(a):
    """d s[i] by xi, ai and g, from the formulas, in long double."""
    q = {k: np.asarray(v, np.longdouble) for k, v in a.items()}
    dx = q["xi"][:, None] - q["xj"]
    dy = q["yi"][:, None] - q["yj"]
    r2 = dx * dx + dy * dy
    w = q["ej"] * q["ai"][:, None] * np.exp(-q["g"] * r2)
    return {"xi": (-2 * q["g"] * dx * w).sum(axis=1),
            "ai": (q["ej"] * np.exp(-q["g"] * r2)).sum(axis=1),
            "g": (-r2 * w).sum(axis=1)}


def values(x):
    return x.to_longdouble() if isinstance(x, nbcc.DD) else \
        np.asarray(x, np.longdouble)


def close(got, want, tol, why):
    got, want = values(got), np.asarray(want, np.longdouble)
    scale = max(float(np.max(np.abs(want), initial=0)), 1e-300)
    err = float(np.max(np.abs(got - want), initial=0)) / scale
    assert got.shape == want.shape and err <= tol, \
        "%s: relative error %g > %g" % (why, err, tol)


@pytest.mark.parametrize("prec", ["float", "double", "dd"])
def test_grad_gauss(device, prec):
    k = nbcc.Kernel(GAUSS, precision=prec, device=device)
    for ni, nj in ((1, 1), (13, 0), (0, 5), (37, 101)):
        rng = np.random.default_rng([SEED, ni, nj])
        a = gauss_inputs(rng, ni, nj)
        if prec == "float":
            a = {x: np.float32(v) if x == "g" else v.astype(np.float32)
                 for x, v in a.items()}
        g = k.grad("xi,ai,g", **a)
        assert list(g) == ["xi", "ai", "g"]
        want = gauss_grad(a)
        why = "seed %d, %s, %s, %dx%d" % (SEED, device, prec, ni, nj)
        for x in ("xi", "ai"):
            close(g[x], want[x], TOL[prec], why + ", d s/d " + x)
        # a CONST's gradient is the total over i (summed in dd), a float
        # or a 0-d DD; per_i=True gives the column, and cotangent= the
        # total weighted by it, the VJP
        assert isinstance(g["g"], nbcc.DD if prec == "dd" else float), why
        close(g["g"], want["g"].sum(), TOL[prec], why + ", d sum(s)/d g")
        col = k.grad("g", per_i=True, **a)["g"]
        close(col, want["g"], TOL[prec], why + ", d s[i]/d g")
        w = rng.uniform(-1, 1, ni)
        vjp = k.grad("g", cotangent=w, **a)["g"]
        close(vjp, (w * want["g"]).sum(), TOL[prec], why + ", the VJP by g")
        # the total is exactly the column's in dd: summed here from the
        # same column in long double, it agrees to the column's own
        # rounding, not the terms'
        tot = values(col).sum() if ni else np.longdouble(0)
        assert abs(values(k.grad("g", **a)["g"]) - tot) <= \
            1e-15 * max(float(np.abs(values(col)).sum()), 1e-300), why
    # of= names the sum; a list and wrt= ask the same as "xi,ai" (one
    # input is derived by a forward sweep, three by a reverse one: equal
    # within rounding, not bit for bit)
    again = k.grad(wrt=["xi"], of="s", **a)
    close(again["xi"], want["xi"], TOL[prec], why + ", wrt=['xi']")
    # the primal is not changed by the derived kernel's existence
    assert k.results == ["s", "n"]


@pytest.mark.parametrize("prec", ["double", "dd"])
def test_jvp_is_hermite(device, example, prec):
    """gravity.nbl's derivative along the velocities is hermite.nbl's
    jerk (docs/autodiff.md's example, here through jvp())."""
    rng = np.random.default_rng([SEED, 5])
    n = 41
    x, v = rng.uniform(-1, 1, (3, n)), rng.uniform(-1, 1, (3, n))
    m = rng.uniform(0.5, 1, n) / n
    a = dict(xi=x[0], yi=x[1], zi=x[2], xj=x[0], yj=x[1], zj=x[2], mj=m,
             eps2=1e-2)
    grav = nbcc.Kernel(example("gravity"), precision=prec, device=device)
    d = grav.jvp({"xi": v[0], "yi": v[1], "zi": v[2],
                  "xj": v[0], "yj": v[1], "zj": v[2]}, **a)
    assert list(d) == ["ax", "ay", "az", "pot"]
    herm = nbcc.Kernel(example("hermite"), precision=prec, device=device)
    h = herm(**a, vxi=v[0], vyi=v[1], vzi=v[2], vxj=v[0], vyj=v[1],
             vzj=v[2])
    why = "seed %d, %s, %s" % (SEED, device, prec)
    for r, want in (("ax", "jx"), ("ay", "jy"), ("az", "jz")):
        close(d[r], values(h[want]), 1e-13, why + ", " + r)
    # a CONST's tangent: d pot/d eps2, against a central difference of
    # the dd kernel (a step of 1e-10: its error is far below double's)
    dp = grav.jvp(tangents={"eps2": 1.0}, **dict(a, eps2="0.01"))["pot"]
    dd = nbcc.Kernel(example("gravity"), precision="dd", device=device)
    up = dd(**dict(a, eps2="0.0100000001"))["pot"]
    down = dd(**dict(a, eps2="0.0099999999"))["pot"]
    # hi - hi is exact (Sterbenz), so the difference keeps dd's digits
    fd = (np.longdouble(up.hi - down.hi) + np.longdouble(up.lo - down.lo)) \
        / np.longdouble(2e-10)
    close(dp, fd, 1e-11, why + ", d pot/d eps2")


SOFT = """LMEM xi;
BMEM xj, wj;
CONST g;
RMEM r, m, km, s;
r logsumexp= wj - g*(xi - xj)**2;
m min= wj*(xi - xj)**2;
km argmin= wj*(xi - xj)**2;
s += wj*xi;
"""


@pytest.mark.parametrize("prec", ["float", "double", "dd"])
def test_grad_softmax_and_min(device, prec):
    """logsumexp='s gradient is the softmax-weighted sum of its terms',
    min='s the term's at the argmin (docs/autodiff.md): grad() runs the
    primal first for the r and km the derived kernels take.  Against the
    formulas in long double; of= derives only the result asked for."""
    rng = np.random.default_rng([SEED, 7])
    ni, nj = 11, 17
    a = dict(xi=rng.uniform(-1, 1, ni), xj=rng.uniform(-1, 1, nj),
             wj=rng.uniform(0.5, 2, nj), g=2.5)
    if prec == "float":
        a = {x: np.float32(v) if x == "g" else v.astype(np.float32)
             for x, v in a.items()}
    q = {x: np.asarray(v, np.longdouble) for x, v in a.items()}
    dx = q["xi"][:, None] - q["xj"]
    e = q["wj"] - q["g"] * dx * dx
    w = np.exp(e - e.max(axis=1)[:, None])
    w /= w.sum(axis=1)[:, None]
    at = np.argmin(q["wj"] * dx * dx, axis=1)
    k = nbcc.Kernel(SOFT, precision=prec, device=device)
    why = "seed %d, %s, %s" % (SEED, device, prec)
    tol = TOL[prec] * 10
    g = k.grad("xi,g", of="r", **a)
    close(g["xi"], (-2 * q["g"] * dx * w).sum(axis=1), tol, why + ", dr/dxi")
    # a CONST's: over i and j, d(sum_i r[i])/dg
    close(g["g"], (-dx * dx * w).sum(), tol, why + ", d sum(r)/dg")
    # of= derives r's alone; the primal's r is an input, the others stay
    d = k._derived("grad", "xi,g", "r")
    assert d.results == ["m", "km", "s", "dr_dxi", "dr_dg"], d.results
    gm = k.grad("xi", of="m", **a)["xi"]
    close(gm, 2 * q["wj"][at] * dx[np.arange(ni), at], tol, why + ", dm/dxi")
    # per j: d(sum_i r[i])/d xj[j], the kernel turned around
    gj = k.grad("xj", of="r", **a)["xj"]
    close(gj, (2 * q["g"] * dx * w).sum(axis=0), tol, why + ", dr/dxj")
    t = rng.uniform(-1, 1, ni).astype(a["xi"].dtype)
    dr = k.jvp({"xi": t}, **a)
    close(dr["r"], t * (-2 * q["g"] * dx * w).sum(axis=1), tol,
          why + ", jvp r")
    close(dr["m"], t * 2 * q["wj"][at] * dx[np.arange(ni), at], tol,
          why + ", jvp m")


def test_derived_errors():
    k = nbcc.Kernel(GAUSS, precision="double", device="host")
    a = gauss_inputs(np.random.default_rng([SEED, 2]), 3, 4)
    with pytest.raises(nbcc.CompileError, match="'foo' is not an input"):
        k.grad("foo", **a)
    with pytest.raises(nbcc.CompileError, match="'s' is an RMEM"):
        k.grad("s", **a)
    with pytest.raises(ValueError, match=r"grad\(of='n'\): its reduction "
                       r"is count; the results differentiated \(sums, "
                       r"logsumexp=, min=, max=\) are s"):
        k.grad("xi", of="n", **a)
    with pytest.raises(TypeError, match="wrt= is needed"):
        k.grad(**a)
    with pytest.raises(ValueError, match="one or more input names"):
        k.grad([], **a)
    with pytest.raises(ValueError, match="give one of them"):
        k.grad("g", per_i=True, cotangent=np.ones(3), **a)
    with pytest.raises(ValueError, match=r"cotangent= must hold one number "
                       r"per i-element \(shape \(3,\)\), not shape \(4,\)"):
        k.grad("g", cotangent=np.ones(4), **a)
    with pytest.raises(ValueError, match="'zz', which is not an input"):
        k.jvp({"zz": 1.0}, **a)
    # a result is no input: it said "no variable 't_s'"
    with pytest.raises(ValueError, match="'s', which is not an input"):
        k.jvp({"s": np.ones(3)}, **a)
    with pytest.raises(TypeError, match="tangents= must be a dict"):
        k.jvp(tangents=["xi"], **a)
    with pytest.raises(ValueError, match="LMEM 'xi' is not given"):
        k.grad("ai", **{x: v for x, v in a.items() if x != "xi"})
    gen = nbcc.Kernel(k.source, precision="double", device="host")
    with pytest.raises(ValueError, match="generated code; derivatives "
                       "need its .nbl"):
        gen.grad("xi", **a)
    with pytest.raises(ValueError, match="generated code"):
        gen.jvp({"xi": np.ones(3)}, **a)
    two = nbcc.Kernel("LMEM x; BMEM y; RMEM s, t; s += x*y; t += x+y;",
                      device="host")
    with pytest.raises(ValueError, match="of= must name the result to "
                       "differentiate \\(s, t\\)"):
        two.grad("x", x=np.ones(2), y=np.ones(2))
    # the keyword route gives the derived kernel itself, all its results
    d = nbcc.Kernel(GAUSS, precision="double", device="host", grad="xi")
    assert d.results == ["s", "n", "ds_dxi"]
    assert np.array_equal(d(**a)["ds_dxi"], k.grad("xi", **a)["xi"])
    with pytest.raises(ValueError, match="derived already"):
        d.grad("ai", **a)
