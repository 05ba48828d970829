"""test_pairs.py: calls that run fewer pairs than all (i, j).  ranges=
gives every reduction the results of a double reference computed here in
numpy over the listed pairs alone (lists with holes, groups and ranges in
any order, empty ones), on fresh random inputs (seed NBCC_TEST_SEED,
else a new one, in the failure's message), at sizes 0, 1 and primes;
cutoff= gives the dense call's results for a kernel that is zero beyond
the cutoff.  Tolerance: the sum within 1e-12 of the sum of its terms'
magnitudes; min, argmin and counts exactly.  The options' shapes and
types are refused by the package, their values by the runtime, both
with messages that name them.  newton= (Newton's third law in a self
run, dense or in cell lists) gives a gravity-like force the results of
a numpy double reference, within 1e-12 of the sum of the terms'
magnitudes, counts exactly."""

import os

import numpy as np
import pytest

import nbcc

SEED = int(os.environ.get("NBCC_TEST_SEED") or
           np.random.SeedSequence().entropy % 2**32)

REDUCE = """
LMEM xi;
BMEM xj, wj;
RMEM s, lo, k, n;
d = xi - xj;
s += wj*exp(-d*d);
lo min= d*d;
k argmin= d*d;
n += d < 0;
"""


def random_lists(rng, ni, nj):
    """Groups over part of [0, ni), each with disjoint j-ranges (some
    empty), groups and ranges shuffled; and the mask of their pairs."""
    cuts = np.unique(rng.integers(0, ni + 1, size=ni // 3 + 2))
    cuts = np.concatenate(([0], cuts, [ni]))
    groups, lists = [], []
    mask = np.zeros((ni, nj), bool)
    for a, b in zip(cuts[:-1], cuts[1:]):
        if rng.random() < 0.25:
            continue  # these i are in no group
        js = np.sort(rng.integers(0, nj + 1, size=2 * rng.integers(0, 4)))
        rs = [(int(js[q]), int(js[q + 1])) for q in range(0, len(js), 2)]
        rng.shuffle(rs)
        groups.append((int(a), int(b)))
        lists.append(rs)
        for j0, j1 in rs:
            mask[a:b, j0:j1] = True
    order = rng.permutation(len(groups))
    g = np.array([groups[q] for q in order], np.int64).reshape(-1, 2)
    rl = [lists[q] for q in order]
    offsets = np.cumsum([0] + [len(r) for r in rl])
    r = np.array([x for q in rl for x in q], np.int64).reshape(-1, 2)
    return (g, offsets, r), mask


@pytest.mark.parametrize("ni,nj", [(0, 0), (1, 1), (0, 7), (13, 0),
                                   (13, 11), (97, 89), (211, 193)])
def test_ranges_every_reduction(device, ni, nj):
    rng = np.random.default_rng([SEED, ni, nj])
    k = nbcc.Kernel(REDUCE, precision="double", device=device)
    xi, xj, wj = rng.random(ni), rng.random(nj), rng.random(nj)
    ranges, mask = random_lists(rng, ni, nj)
    out = k(xi=xi, xj=xj, wj=wj, ranges=ranges)
    d2 = (xi[:, None] - xj[None, :]) ** 2
    terms = np.where(mask, wj[None, :] * np.exp(-d2), 0)
    m = np.where(mask, d2, np.inf)
    why = "seed %d, %s, Ni %d, Nj %d" % (SEED, device, ni, nj)
    tol = 1e-12 * np.abs(terms).sum(axis=1)
    assert np.all(np.abs(out["s"] - terms.sum(axis=1)) <= tol), why
    np.testing.assert_array_equal(out["lo"], m.min(axis=1, initial=np.inf),
                                  why)
    any_pair = mask.any(axis=1)
    want_k = np.where(any_pair, np.argmin(m, axis=1) if nj else -1, -1)
    np.testing.assert_array_equal(out["k"], want_k, why)
    np.testing.assert_array_equal(
        out["n"], (mask & (xi[:, None] < xj[None, :])).sum(axis=1), why)
    assert k.pairs == mask.sum(), why


def test_ranges_refused():
    k = nbcc.Kernel(REDUCE, precision="double", device="host")
    a = dict(xi=np.zeros(4), xj=np.zeros(5), wj=np.zeros(5))
    g = np.array([[0, 4]])
    o = np.array([0, 1])
    r = np.array([[0, 5]])
    with pytest.raises(TypeError, match="groups must be an array of "
                       "integers"):
        k(**a, ranges=(g.astype(float), o, r))
    with pytest.raises(ValueError, match=r"ranges must have shape \(n, 2\)"):
        k(**a, ranges=(g, o, r.ravel()))
    with pytest.raises(ValueError, match=r"groups\[0, 0\] is -1"):
        k(**a, ranges=(g - 1, o, r))
    with pytest.raises(ValueError, match="one more than groups"):
        k(**a, ranges=(g, np.array([0]), r))
    with pytest.raises(ValueError, match="offsets must run from 0 up to"):
        k(**a, ranges=(g, np.array([0, 2]), r))
    with pytest.raises(TypeError, match=r"takes \(groups, offsets, ranges\)"):
        k(**a, ranges=(g, o))
    # the values are the runtime's to judge
    with pytest.raises(nbcc.Error):
        k(**a, ranges=(np.array([[0, 5]]), o, r))  # beyond Ni
    with pytest.raises(nbcc.Error):
        k(**a, ranges=(np.array([[0, 2], [1, 3]]), np.array([0, 1, 2]),
                       np.array([[0, 1], [0, 1]])))  # overlapping groups


def test_options_refused():
    k = nbcc.Kernel(REDUCE, precision="double", device="host")
    a = dict(xi=np.zeros(4), xj=np.zeros(5), wj=np.zeros(5))
    rl = (np.zeros((0, 2), int), np.zeros(1, int), np.zeros((0, 2), int))
    with pytest.raises(ValueError, match="give one or the other"):
        k(**a, ranges=rl, cutoff=1.0, pos=(["xi"], ["xj"]))
    for opt in (dict(pos=(["xi"], ["xj"])), dict(periodic=1.0)):
        with pytest.raises(ValueError, match="is for cutoff="):
            k(**a, **opt)
    with pytest.raises(ValueError, match="Ni = 4 and Nj = 5"):
        k(**a, self=True)
    with pytest.raises(ValueError, match="newton='sometimes'"):
        k(**a, newton="sometimes")
    for pos in (("xi", "xj"), (["xi", "xi"], ["xj"]), (["xi"] * 4,) * 2,
                ([], []), (["xi"],)):
        with pytest.raises(ValueError, match="cutoff= needs pos="):
            k(**a, cutoff=1.0, pos=pos)
    with pytest.raises(TypeError, match="cutoff= takes a number"):
        k(**a, cutoff="1", pos=(["xi"], ["xj"]))
    with pytest.raises(ValueError, match="periodic= takes one length"):
        k(**a, cutoff=0.1, pos=(["xi"], ["xj"]), periodic=(1.0, 1.0))
    with pytest.raises(TypeError, match="self= takes True or False"):
        k(**a, cutoff=0.1, pos=(["xi"], ["xj"]), self=1)
    with pytest.raises(TypeError, match="run\\(\\) has no option 'cut'"):
        k.run(a, cut=1.0)
    # an empty list: every i gets the identities
    out = k(**a, ranges=rl)
    assert np.all(out["s"] == 0) and np.all(out["k"] == -1)
    assert k.pairs == 0


def test_option_names_of_variables():
    """A variable called like an option is an input of k(); k.run keeps the
    inputs apart from the options."""
    k = nbcc.Kernel("LMEM self; BMEM pos; RMEM r; CONST cutoff;\n"
                    "r += self*pos + cutoff;", precision="double",
                    device="host")
    one = np.ones(3)
    want = k(self=one, pos=one, cutoff=2.0)["r"]
    np.testing.assert_array_equal(want, 9.0)
    rl = (np.array([[0, 1]]), np.array([0, 1]), np.array([[0, 2]]))
    got = k.run(dict(self=one, pos=one, cutoff=2.0), ranges=rl)["r"]
    np.testing.assert_array_equal(got, [6.0, 0.0, 0.0])


SPH = """
LMEM xi, yi, zi, hi;
BMEM xj, yj, zj, mj;
RMEM rho, n;
dx = xi - xj;
dy = yi - yj;
dz = zi - zj;
q = sqrt(dx*dx + dy*dy + dz*dz)/hi;
rho += q < 2 ? mj*(2 - q)**3 : 0;
n += q < 2;
"""


def cells_or_skip(k, a):
    """The cell lists, else a skip where this runtime has none yet."""
    try:
        return k(**a, cutoff=0.2, pos=(["xi", "yi", "zi"],
                                       ["xj", "yj", "zj"]))
    except nbcc.Error as e:
        if "no cell lists yet" in str(e):
            pytest.skip("this runtime has no cell lists yet")
        raise


@pytest.mark.parametrize("n", [0, 1, 97, 509])
def test_cutoff_equals_dense(device, n):
    rng = np.random.default_rng([SEED, n, 1])
    k = nbcc.Kernel(SPH, precision="double", device=device)
    x, y, z, m = rng.random((4, n))
    h = 0.05 + 0.05 * rng.random(n)  # 2 h <= 0.2, the cutoff
    a = dict(xi=x, yi=y, zi=z, hi=h, xj=x, yj=y, zj=z, mj=m)
    dense = k(**a)
    why = "seed %d, %s, N %d" % (SEED, device, n)
    for got in (cells_or_skip(k, a),
                k(**a, cutoff=0.2, pos=(("xi", "yi", "zi"),
                                        ("xj", "yj", "zj")), self=True)):
        np.testing.assert_array_equal(got["n"], dense["n"], why)
        np.testing.assert_allclose(got["rho"], dense["rho"], rtol=1e-12,
                                   atol=0, err_msg=why)
    assert k.pairs >= dense["n"].sum(), why


NEWTON = """
LMEM xi, yi, zi;
BMEM xj, yj, zj;
RMEM fx, fy, fz, n;
ANTISYMMETRIC fx, fy, fz;
SYMMETRIC n;
CONST rc2;
dx = xj - xi; dy = yj - yi; dz = zj - zi;
d2 = dx*dx + dy*dy + dz*dz;
w = d2 < rc2;
f = w*(0.01 + d2)**-1.5;
fx += f*dx; fy += f*dy; fz += f*dz;
n += w;
"""


@pytest.mark.parametrize("n", [1, 97, 601])
def test_newton(n):
    rng = np.random.default_rng([SEED, n, 2])
    k = nbcc.Kernel(NEWTON, precision="double", device="host")
    p = rng.random((3, n))
    a = dict(xi=p[0], yi=p[1], zi=p[2], xj=p[0], yj=p[1], zj=p[2],
             rc2=0.04)
    d = p[:, None, :] - p[:, :, None]  # d[c, i, j] = x_j - x_i
    d2 = (d * d).sum(0)
    w = d2 < 0.04
    f = w * (0.01 + d2) ** -1.5
    ref = {"f" + c: (f * d[q]).sum(1) for q, c in enumerate("xyz")}
    mag = {"f" + c: np.abs(f * d[q]).sum(1) for q, c in enumerate("xyz")}
    why = "seed %d, N %d" % (SEED, n)
    cut = dict(cutoff=0.2, pos=(("xi", "yi", "zi"), ("xj", "yj", "zj")))
    for opts in (dict(), cut):
        for mode in ("on", "off"):
            got = k(**a, **opts, self=True, newton=mode)
            assert k.newton_used == (mode == "on"), why
            np.testing.assert_array_equal(got["n"], w.sum(1), why)
            for c in ref:
                assert np.all(np.abs(got[c] - ref[c]) <=
                              1e-12 * mag[c]), (why, opts, mode, c)
