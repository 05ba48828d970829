"""test_torch.py: nbcc.torch.pairwise, a kernel's sum inside PyTorch's
autograd (skipped where PyTorch is not installed).  The gradient of a
loss through the Gaussian sum with respect to LMEM and CONST tensors is
compared with numpy's evaluation of the formulas and with
torch.autograd.gradcheck's finite differences."""

import os

import numpy as np
import pytest

import nbcc

torch = pytest.importorskip("torch")
ntorch = pytest.importorskip("nbcc.torch")

SEED = int(os.environ.get("NBCC_TEST_SEED") or
           np.random.SeedSequence().entropy % 2**32)

GAUSS = """LMEM xi, yi, ai;
BMEM xj, yj, ej;
CONST g;
RMEM s;
s += ej * ai * exp(-g * ((xi - xj)**2 + (yi - yj)**2));
"""


def test_torch_gradient():
    rng = np.random.default_rng([SEED, 8])
    ni, nj = 23, 57
    a = dict(xi=rng.random(ni), yi=rng.random(ni), ai=rng.uniform(-1, 1, ni),
             xj=rng.random(nj), yj=rng.random(nj), ej=rng.uniform(-1, 1, nj))
    k = nbcc.Kernel(GAUSS, precision="double", device="host")
    t = {n: torch.tensor(v, requires_grad=n in ("xi", "ai")) for n, v in
         a.items()}
    g = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    s = ntorch.pairwise(k, "s", g=g, **t)
    loss = (s * s).sum()
    loss.backward()
    dx = a["xi"][:, None] - a["xj"]
    dy = a["yi"][:, None] - a["yj"]
    e = np.exp(-3.0 * (dx * dx + dy * dy))
    w = a["ej"] * a["ai"][:, None] * e
    sv = w.sum(axis=1)
    why = "seed %d" % SEED
    assert np.allclose(s.detach().numpy(), sv, rtol=1e-13, atol=0), why
    assert np.allclose(t["xi"].grad.numpy(),
                       2 * sv * (-6.0 * dx * w).sum(axis=1), rtol=1e-12), why
    assert np.allclose(t["ai"].grad.numpy(),
                       2 * sv * (a["ej"] * e).sum(axis=1), rtol=1e-12), why
    assert np.isclose(g.grad.item(), (2 * sv * (-(dx * dx + dy * dy) *
                                                w).sum(axis=1)).sum(),
                      rtol=1e-12), why
    assert t["xj"].grad is None


def test_torch_gradcheck_and_refusal():
    rng = np.random.default_rng([SEED, 9])
    k = nbcc.Kernel(GAUSS, precision="double", device="host")
    xi = torch.tensor(rng.random(5), requires_grad=True)
    rest = {n: torch.tensor(rng.random(n0)) for n, n0 in
            (("yi", 5), ("ai", 5), ("xj", 7), ("yj", 7), ("ej", 7))}
    assert torch.autograd.gradcheck(
        lambda x: ntorch.pairwise(k, "s", xi=x, g=2.0, **rest), (xi,))
    rest["xj"].requires_grad_(True)
    with pytest.raises(ValueError, match="BMEM 'xj' requires a gradient"):
        ntorch.pairwise(k, "s", xi=xi, g=2.0, **rest)


SOFT = """LMEM xi, yi;
BMEM xj, yj;
CONST g;
RMEM r;
r logsumexp= -g * ((xi - xj)**2 + (yi - yj)**2);
"""


@pytest.mark.parametrize("prec", ["double", "dd"])
def test_torch_gradcheck_inputs_together(prec):
    """gradcheck's finite differences of the forward (the kernel's run)
    against backward (its derived kernel) for an LMEM's and a CONST's
    gradients at once, in double and in dd (whose results come back in
    double); and sizes 0"""
    rng = np.random.default_rng([SEED, 10])
    k = nbcc.Kernel(GAUSS, precision=prec, device="host")
    for ni, nj in ((5, 7), (0, 3), (4, 0), (1, 1)):
        xi = torch.tensor(rng.random(ni), requires_grad=True)
        ai = torch.tensor(rng.uniform(-1, 1, ni), requires_grad=True)
        g = torch.tensor(2.5, dtype=torch.float64, requires_grad=True)
        rest = dict(yi=torch.tensor(rng.random(ni)),
                    **{n: torch.tensor(rng.random(nj)) for n in
                       ("xj", "yj", "ej")})
        assert torch.autograd.gradcheck(
            lambda x, a, c: ntorch.pairwise(k, "s", xi=x, ai=a, g=c, **rest),
            (xi, ai, g)), "seed %d %s ni=%d nj=%d" % (SEED, prec, ni, nj)


def test_torch_against_kernel_grad():
    """the tensors' gradients are the numpy path's, Kernel.grad, weighted
    by the incoming gradient (per i for an LMEM, summed for a CONST),
    also for a logsumexp= result, whose derived kernel takes the primal's
    r (the adapter's forward and backward runs both go through Kernel)"""
    rng = np.random.default_rng([SEED, 11])
    ni, nj = 9, 13
    a = dict(xi=rng.random(ni), yi=rng.random(ni), xj=rng.random(nj),
             yj=rng.random(nj))
    k = nbcc.Kernel(SOFT, precision="double", device="host")
    w = rng.uniform(-1, 1, ni)
    t = {n: torch.tensor(v, requires_grad=n == "xi") for n, v in a.items()}
    g = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    r = ntorch.pairwise(k, "r", g=g, **t)
    (r * torch.tensor(w)).sum().backward()
    want = k.grad("xi,g", g=1.5, per_i=True, **a)
    why = "seed %d" % SEED
    assert np.allclose(r.detach().numpy(), k(g=1.5, **a)["r"], rtol=0,
                       atol=0), why
    assert np.allclose(t["xi"].grad.numpy(), w * want["xi"], rtol=1e-15,
                       atol=0), why
    assert np.isclose(g.grad.item(), (w * want["g"]).sum(), rtol=1e-14), why
    # the CONST's gradient is Kernel.grad's VJP, sum_i w[i] dr[i]/dg in dd
    assert g.grad.shape == g.shape and g.grad.item() == k.grad(
        "g", g=1.5, cotangent=w, **a)["g"], why
    # and against the softmax formula in numpy
    e = -1.5 * ((a["xi"][:, None] - a["xj"])**2 +
                (a["yi"][:, None] - a["yj"])**2)
    p = np.exp(e - e.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    dx = a["xi"][:, None] - a["xj"]
    assert np.allclose(t["xi"].grad.numpy(),
                       w * (p * -3.0 * dx).sum(axis=1), rtol=1e-12), why
