"""test_tree.py: theta=, the treecode (nbrt_run_tree) from Python, on
fresh random bodies (seed NBCC_TEST_SEED, else a new one, in the
failure's message): gravity.nbl and biot_savart.nbl with their far kernels
found beside them in far/ (or given by far=) equal the dense call to
1e-12 of the largest result when every cell is opened (theta 1e-9); at
theta 0.5 the median relative error of the vectors stays under the bounds
of tests/unit/test_tree.c and test_tree_far.c; bad options are refused
with messages that name them; bucket= and group= left out are the
library's defaults."""

import os

import numpy as np
import pytest

import nbcc

SEED = int(os.environ.get("NBCC_TEST_SEED") or
           np.random.SeedSequence().entropy % 2**32)


def bodies(rng, n, kind):
    x, y, z = rng.uniform(-1, 1, (3, n))
    a = dict(xi=x, yi=y, zi=z, xj=x, yj=y, zj=z)
    if kind == "gravity":
        a.update(mj=rng.uniform(0.5, 1, n) / max(n, 1), eps2=1e-4)
        return a, ("ax", "ay", "az"), 5e-4
    g = rng.uniform(-1, 1, (3, n)) / max(n, 1)
    a.update(gx=g[0], gy=g[1], gz=g[2], isig3=8000.0)
    return a, ("u", "v", "w"), 1.2e-2


@pytest.mark.parametrize("kind", ["gravity", "biot_savart"])
@pytest.mark.parametrize("n", [0, 1, 97, 1201])
def test_tree_against_dense(device, example, kind, n):
    rng = np.random.default_rng([SEED, n, 7])
    k = nbcc.Kernel(example(kind), precision="double", device=device)
    a, vec, bound = bodies(rng, n, kind)
    why = "seed %d, %s, %s, N %d" % (SEED, device, kind, n)
    dense = k(**a)
    opened = k(**a, theta=1e-9)
    for c in vec:
        scale = np.max(np.abs(dense[c]), initial=0)
        assert np.max(np.abs(opened[c] - dense[c]), initial=0) <= \
            1e-12 * scale, why
    if n < 1000:
        return
    half = k(**a, theta=0.5, bucket=8, group=32)
    d = np.sqrt(sum((half[c] - dense[c])**2 for c in vec))
    r = np.sqrt(sum(dense[c]**2 for c in vec))
    med = float(np.median(d / r))
    assert 0 < med < bound, "%s: median relative error %g" % (why, med)


def test_tree_largest_sizes(device, example):
    """The largest bucket= and group= the package takes (SIZE_MAX): the
    whole tree one leaf, one walk, so the dense sums.  A bucket of 2^64 -
    1 wrapped the octree's bound of its top cells to a division by 0:
    the process died of SIGFPE."""
    k = nbcc.Kernel(example("gravity"), precision="double", device=device)
    a, vec, _ = bodies(np.random.default_rng([SEED, 5]), 50, "gravity")
    dense = k(**a)
    for kw in ({"bucket": 2 ** 64 - 1},
               {"bucket": 2 ** 64 - 1, "group": 2 ** 64 - 1}):
        one = k(**a, theta=0.5, **kw)
        for c in vec:
            np.testing.assert_allclose(one[c], dense[c], rtol=1e-10,
                                       err_msg="%s %s" % (kw, c))
    # one walk for every i, with the leaves of the default bucket
    walk = k(**a, theta=0.5, group=2 ** 64 - 1)
    assert all(np.isfinite(walk[c]).all() for c in vec)


def test_tree_refused(device, example):
    k = nbcc.Kernel(example("gravity"), precision="double", device=device)
    a, _, _ = bodies(np.random.default_rng([SEED, 3]), 30, "gravity")
    with pytest.raises(nbcc.Error, match="theta = 0; it must be"):
        k(**a, theta=0.0)
    with pytest.raises(nbcc.Error, match="theta = nan"):
        k(**a, theta=float("nan"))
    with pytest.raises(nbcc.Error, match="a bucket size of 0"):
        k(**a, theta=0.5, bucket=0)
    with pytest.raises(ValueError, match="group= is for theta="):
        k(**a, group=8)
    with pytest.raises(ValueError, match="theta= and cutoff= both"):
        k(**a, theta=0.5, cutoff=0.2, pos=(("xi", "yi", "zi"),
                                           ("xj", "yj", "zj")))
    # the treecode chooses the pairs itself: the options of a dense or
    # cell-list run are refused beside it, whatever their value
    for opt, val in (("self", True), ("self", False), ("newton", "on"),
                     ("newton", "off"), ("periodic", 2.0),
                     ("periodic", (2.0, 2.0, 2.0))):
        with pytest.raises(ValueError, match="%s= is not for theta=, the "
                           "treecode" % opt):
            k(**a, theta=0.5, **{opt: val})
    with pytest.raises(TypeError, match="theta= takes a number"):
        k(**a, theta="0.5")
    with pytest.raises(nbcc.Error, match="which it must come from"):
        k(**a, theta=0.5, far="far/biot_savart_dipole.nbl")
    b = dict(a)
    b["xj"] = b["xj"].copy()
    b["xj"][4] = np.nan
    with pytest.raises(nbcc.Error, match="position 'xj' at 4 is nan"):
        k(**b, theta=0.5)
    lo = nbcc.Kernel(example("lamb_oseen"), device=device)
    with pytest.raises(ValueError, match="no far-field kernel"):
        lo(xi=a["xi"], yi=a["yi"], xj=a["xi"], yj=a["yi"], gam=a["mj"],
           isig2=1.0, theta=0.5)


def test_tree_defaults(device, example, source_dir):
    """bucket= and group= left out are nbrt.h's NBRT_TREE_BUCKET and
    NBRT_TREE_GROUP, read from the library (nbrt_tree_default), not
    copied: the same call with the header's values gives the same bits."""
    import re
    with open(os.path.join(source_dir, "runtime", "nbrt.h")) as f:
        h = dict(re.findall(r"#define NBRT_TREE_(BUCKET|GROUP) (\d+)",
                            f.read()))
    assert sorted(h) == ["BUCKET", "GROUP"]
    from nbcc import _facts
    assert (_facts.TREE_BUCKET, _facts.TREE_GROUP) == \
        (int(h["BUCKET"]), int(h["GROUP"]))
    k = nbcc.Kernel(example("gravity"), precision="double", device=device)
    a, vec, _ = bodies(np.random.default_rng([SEED, 11]), 1500, "gravity")
    left = k(**a, theta=0.5)
    given = k(**a, theta=0.5, bucket=int(h["BUCKET"]),
              group=int(h["GROUP"]))
    for c in vec:
        assert np.array_equal(left[c], given[c]), "seed %d" % SEED
