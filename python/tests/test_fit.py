"""test_fit.py: python/examples/fit_rbf.py at a small size: the descent
with nbcc's gradients (Kernel.grad) and the one with numpy's end at the
same parameters (the example's own check, 1e-9 relative in double, 1e-3
in float) and the loss falls; its first gradient is numpy's to 1e-12."""

import importlib.util
import os

import numpy as np
import pytest

SEED = int(os.environ.get("NBCC_TEST_SEED") or
           np.random.SeedSequence().entropy % 2**32)


@pytest.fixture(scope="module")
def fit(source_dir):
    path = os.path.join(source_dir, "python", "examples", "fit_rbf.py")
    spec = importlib.util.spec_from_file_location("fit_rbf", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.mark.parametrize("prec", ["float", "double"])
def test_fit_example(fit, device, prec, capsys):
    assert fit.main(["--n", "3001", "--k", "17", "--steps", "4",
                     "--device", device, "--precision", prec,
                     "--chunk", "1000", "--seed", str(SEED)]) == 0, \
        "seed %d: %s" % (SEED, capsys.readouterr())
    out = capsys.readouterr().out
    assert "numpy/nbcc" in out and "jsplit open" in out


def test_fit_gradient(fit, device):
    rng = np.random.default_rng([SEED, 11])
    px, py, z = fit.samples(rng, 2003)
    p = fit.start(rng, 9)
    p["a"] = rng.uniform(-1, 1, 9)
    nb = fit.NbccGrad(device, "double", px, py, z, 40.0)
    ref = fit.NumpyGrad(px, py, z, 40.0, 500, np.float64)
    (ln, dn), (lr, dr) = nb(p), ref(p)
    why = "seed %d, %s" % (SEED, device)
    assert abs(ln - lr) <= 1e-13 * lr, why
    for x in dr:
        scale = np.max(np.abs(dr[x]))
        assert np.max(np.abs(dn[x] - dr[x])) <= 1e-12 * scale, why + x
