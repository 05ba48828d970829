"""fit_rbf.py: an RBF model fitted to 10^5 noisy samples by gradient
descent, the gradients from nbcc's derived kernel (Kernel.grad), timed
against numpy computing the same gradients in chunks, and the two
descents checked to end at the same parameters.

    python3 python/examples/fit_rbf.py [--n N] [--k K] [--steps S]
        [--device DEV] [--precision P] [--jsplit J] [--chunk C] [--seed S]

The model is f(p) = sum_k a_k exp(-g |p - c_k|^2) in the plane, with K
centres c_k and amplitudes a_k, fitted to samples z_j at points p_j by
the mean squared error L = (1/N) sum_j (f(p_j) - z_j)^2.  Its gradient is

    dL/dc_k = (2/N) sum_j e_j d[a_k exp(-g |p_j - c_k|^2)]/dc_k,
    e_j = f(p_j) - z_j,

a sum over the samples j for each centre k: the parameters are the
i-elements (LMEM) of a pairwise sum over the data (BMEM), which is what
nbcc's --grad differentiates today (gradients by LMEM inputs, reduced
over j; docs/autodiff.md).  One step is two kernel calls: PREDICT gives
f at the samples (i = samples, j = centres) and so the residuals e_j;
the gradient of RESIDUAL's sum s_k = sum_j e_j a_k exp(...) by cx, cy and
a, with e held fixed, is half of N times dL/d(c, a).  numpy does the same
in one pass over chunks of samples (each chunk's f is complete, as it
sums over the few centres), so its memory stays at chunk x K.

Prints the seconds per step of each, the ratio, the loss before and
after, and the largest parameter difference between the two descents;
exits 1 if they differ by more than the precision allows.
docs/python.md ("Derivatives") and bench/suites/fit.sh."""

import argparse
import sys
import time

import numpy as np

import nbcc

PREDICT = """// f at the samples: i = samples, j = centres
LMEM px, py;
BMEM cx, cy, a;
CONST g;
RMEM f;
f += a * exp(-g * ((px - cx)**2 + (py - cy)**2));
"""
RESIDUAL = """// the residual-weighted model: i = centres, j = samples
LMEM cx, cy, a;
BMEM px, py, e;
CONST g;
RMEM s;
s += e * a * exp(-g * ((cx - px)**2 + (cy - py)**2));
"""


def samples(rng, n):
    """Points in the unit square and a smooth surface, with noise."""
    px, py = rng.random((2, n))
    z = np.sin(6 * px) * np.cos(4 * py) + 0.05 * rng.standard_normal(n)
    return px, py, z


def start(rng, k):
    """Centres jittered about a grid, amplitudes 0."""
    m = int(np.ceil(np.sqrt(k)))
    gx, gy = np.meshgrid((np.arange(m) + 0.5) / m, (np.arange(m) + 0.5) / m)
    c = np.stack([gx.ravel(), gy.ravel()])[:, :k]
    c = c + rng.uniform(-0.1, 0.1, c.shape) / m
    return {"cx": c[0], "cy": c[1], "a": np.zeros(k)}


class NbccGrad:
    """The loss and its gradient by two nbcc kernels."""

    def __init__(self, device, precision, px, py, z, g, jsplit=None):
        self.pred = nbcc.Kernel(PREDICT, precision=precision, device=device,
                                name="rbf_predict")
        # K centres are few i-elements for Nj = N samples: a j-split
        # shares each centre's sum among work-items (a GPU's runtime
        # chooses one itself where jsplit is left open)
        more = {} if jsplit is None else {"jsplit": jsplit}
        self.res = nbcc.Kernel(RESIDUAL, precision=precision, device=device,
                               name="rbf_residual", **more)
        self.px, self.py, self.z, self.g = px, py, z, g

    def __call__(self, p):
        f = self.pred(px=self.px, py=self.py, cx=p["cx"], cy=p["cy"],
                      a=p["a"], g=self.g)["f"]
        e = f.astype(np.float64) - self.z
        d = self.res.grad("cx,cy,a", cx=p["cx"], cy=p["cy"], a=p["a"],
                          px=self.px, py=self.py, e=e, g=self.g)
        n = len(self.z)
        return float(e @ e) / n, {x: 2 / n * d[x].astype(np.float64)
                                  for x in d}


class NumpyGrad:
    """The same loss and gradient by numpy, chunk samples at a time."""

    def __init__(self, px, py, z, g, chunk, dtype):
        self.px, self.py = px.astype(dtype), py.astype(dtype)
        self.z, self.g, self.chunk, self.dtype = z, g, chunk, dtype

    def __call__(self, p):
        t = self.dtype
        cx, cy, a = (p[x].astype(t) for x in ("cx", "cy", "a"))
        g = t(self.g)
        gcx, gcy, ga = (np.zeros(len(a)) for _ in range(3))
        loss = 0.0
        for s in range(0, len(self.z), self.chunk):
            dx = cx - self.px[s:s + self.chunk, None]
            dy = cy - self.py[s:s + self.chunk, None]
            ex = np.exp(-g * (dx * dx + dy * dy))
            e = (ex @ a).astype(np.float64) - self.z[s:s + self.chunk]
            loss += float(e @ e)
            w = e.astype(t)[:, None] * ex  # e_j exp(...)_jk
            ga += w.sum(axis=0)
            wa = -2 * g * a * w
            gcx += (wa * dx).sum(axis=0)
            gcy += (wa * dy).sum(axis=0)
        n = len(self.z)
        return loss / n, {"cx": 2 / n * gcx, "cy": 2 / n * gcy,
                          "a": 2 / n * ga}


def descend(grad, p, steps, lr):
    """steps of gradient descent from p: (p, first loss, last loss,
    seconds per step)."""
    p = {x: v.copy() for x, v in p.items()}
    losses = []
    t0 = time.perf_counter()
    for _ in range(steps):
        loss, d = grad(p)
        losses.append(loss)
        for x in p:
            p[x] -= lr[x] * d[x]
    t = (time.perf_counter() - t0) / max(steps, 1)
    return p, losses[0], grad(p)[0], t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100000, help="samples")
    ap.add_argument("--k", type=int, default=256, help="centres")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--device", default=None,
                    help="nbcc's device (default: as nbrun's)")
    ap.add_argument("--precision", default="double",
                    choices=("float", "double"))
    ap.add_argument("--jsplit", type=int, default=None,
                    help="the gradient kernel's j-split (default: the "
                    "runtime's choice)")
    ap.add_argument("--chunk", type=int, default=4096,
                    help="numpy's samples a pass")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", action="store_true",
                    help="one CSV row of the figures (bench/suites/fit.sh)")
    o = ap.parse_args(argv)
    rng = np.random.default_rng(o.seed)
    px, py, z = samples(rng, o.n)
    p0 = start(rng, o.k)
    m = np.sqrt(o.k)
    g = 0.5 * m * m  # widths about the centres' spacing
    # steps that the largest curvature of the loss allows
    lr = {"a": 0.5, "cx": 0.02 / m, "cy": 0.02 / m}
    dtype = np.float32 if o.precision == "float" else np.float64
    nb = NbccGrad(o.device, o.precision, px, py, z, g, o.jsplit)
    npg = NumpyGrad(px, py, z, g, o.chunk, dtype)
    nb(p0)  # compiles and loads both kernels: not part of a step
    pn, l0, ln, tn = descend(nb, p0, o.steps, lr)
    pp, m0, mn, tp = descend(npg, p0, o.steps, lr)
    diff = max(float(np.max(np.abs(pn[x] - pp[x]), initial=0)) /
               max(float(np.max(np.abs(pp[x]), initial=0)), 1e-300)
               for x in pp)
    # the two sum in different orders; the descent carries the rounding
    tol = 1e-3 if o.precision == "float" else 1e-9
    out = sys.stderr if o.csv else sys.stdout
    print("fit_rbf: N = %d samples, K = %d centres, %d steps, %s on %s, "
          "jsplit %s" % (o.n, o.k, o.steps, o.precision, nb.pred.device,
                         o.jsplit or "open"), file=out)
    print("loss %.6g -> %.6g (nbcc), %.6g -> %.6g (numpy)" %
          (l0, ln, m0, mn), file=out)
    print("seconds a step: nbcc %.4f, numpy %.4f (chunks of %d); "
          "numpy/nbcc %.2f" % (tn, tp, o.chunk, tp / tn), file=out)
    print("largest relative parameter difference %.2e (allowed %.0e)" %
          (diff, tol), file=out)
    if o.csv:
        print("%s,%d,%d,%d,%s,%.6g,%.6g,%.4f,%.3g,%.6g,%.6g" % (
            o.precision, o.n, o.k, o.steps, o.jsplit or "open", tn, tp,
            tp / tn, diff, l0, ln))
    ok = diff <= tol and (o.steps == 0 or ln < l0)
    if not ok:
        print("fit_rbf: FAILED: the descents differ or the loss did not "
              "fall", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
