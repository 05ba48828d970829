"""test_integers.py: the package's names and its integer results.  Only
the API is public: no module nbcc imports (numpy, os, re, ctypes...) is
a public name of nbcc or its modules.  Counts and argmin/argmax indices
come back as int64 in every precision, equal to numpy's, -1 for an empty
j range; a count declared float that Nj could carry past 2^24 is warned
of (an untyped one in a float kernel is a double)."""

import os
import types
import warnings

import numpy as np
import pytest

import nbcc

SEED = int(os.environ.get("NBCC_TEST_SEED") or
           np.random.SeedSequence().entropy % 2**32)

COUNTS = """LMEM xi, yi;
BMEM xj, yj;
RMEM n, near, far;
r2 = (xi - xj)**2 + (yi - yj)**2;
n += r2 < 0.1;
near argmin= r2;
far argmax= r2;
"""


def test_public_names():
    mods = {"nbcc": nbcc}
    # the public modules; _lib, _facts... are the package's own
    mods.update((n, m) for n, m in vars(nbcc).items()
                if isinstance(m, types.ModuleType) and
                m.__name__.startswith("nbcc.") and not n.startswith("_"))
    assert {"nbcc.kernel", "nbcc.device", "nbcc.errors",
            "nbcc.doubledouble"} <= {m.__name__ for m in mods.values()}
    for name, m in mods.items():
        public = [n for n in dir(m) if not n.startswith("_")]
        for n in ("np", "os", "re", "ctypes", "weakref", "threading"):
            assert n not in public, "%s.%s" % (m.__name__, n)
        # a module imported is a public name only where it is nbcc's own
        for n in public:
            x = getattr(m, n)
            assert not isinstance(x, types.ModuleType) or \
                x.__name__.startswith("nbcc."), "%s.%s" % (m.__name__, n)
        assert all(hasattr(m, n) for n in m.__all__), m.__name__
    ns = {}
    exec("from nbcc import *", ns)
    assert sorted(n for n in ns if n != "__builtins__") == \
        sorted(nbcc.__all__)


@pytest.mark.parametrize("prec", ["float", "double", "dd"])
def test_integer_results(device, prec):
    rng = np.random.default_rng([SEED, 41])
    ni, nj = 37, 101
    x = rng.random((2, ni))
    y = rng.random((2, nj))
    k = nbcc.Kernel(COUNTS, precision=prec, device=device)
    assert k.reductions == {"n": "count", "near": "argmin", "far": "argmax"}
    if prec == "float":
        # the kernel's own rounding of the positions, so that the
        # reference compares what the kernel compared
        x, y = x.astype(np.float32), y.astype(np.float32)
    out = k(xi=x[0], yi=x[1], xj=y[0], yj=y[1])
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    r2 = (xd[0][:, None] - yd[0])**2 + (xd[1][:, None] - yd[1])**2
    why = "seed %d, %s, %s" % (SEED, prec, device)
    for name in ("n", "near", "far"):
        assert out[name].dtype == np.int64 and out[name].shape == (ni,), why
    # a pair at the edge of the tests is left out: float's r2 may round
    # across 0.1 or tie another j
    edge = np.abs(r2 - 0.1) < 1e-5
    sure = ~edge.any(axis=1)
    assert np.array_equal(out["n"][sure], (r2 < 0.1).sum(axis=1)[sure]), why
    s = np.sort(r2, axis=1)
    clear = (s[:, 1] - s[:, 0] > 1e-5) & (s[:, -1] - s[:, -2] > 1e-5)
    assert np.array_equal(out["near"][clear], r2.argmin(axis=1)[clear]), why
    assert np.array_equal(out["far"][clear], r2.argmax(axis=1)[clear]), why
    assert clear.sum() > ni // 2 and sure.sum() > ni // 2, why
    empty = k(xi=x[0], yi=x[1], xj=y[0][:0], yj=y[1][:0])
    assert np.array_equal(empty["n"], np.zeros(ni, np.int64))
    assert np.array_equal(empty["near"], np.full(ni, -1, np.int64))
    assert empty["far"].dtype == np.int64


@pytest.mark.slow
def test_float_count_past_2_24():
    """A float kernel's untyped count is a double (exact to 2^53): 2^24 + 1
    j all counted come back exactly, as an int64, with no warning.  A
    count declared RMEM float stops at 2^24 inside the kernel and is
    warned of (a float32 array could not hold 2^24 + 1)."""
    k = "LMEM xi; BMEM xj; RMEM n; n += xj >= xi;"
    nj = 2**24 + 1
    xj = np.ones(nj, np.float32)
    f = nbcc.Kernel(k, device="host")
    assert [v.type for v in f.variables if v.name == "n"] == ["double"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = f(xi=np.zeros(1, np.float32), xj=xj)
    assert out["n"].dtype == np.int64 and out["n"][0] == nj
    t = nbcc.Kernel(k.replace("RMEM n", "RMEM float n"), device="host")
    with pytest.warns(RuntimeWarning, match=r"count 'n' is a float, exact "
                      r"up to 16777216, and Nj = 16777217"):
        out = t(xi=np.zeros(1, np.float32), xj=xj)
    assert out["n"].dtype == np.int64 and out["n"][0] <= 2**24
