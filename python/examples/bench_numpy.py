"""bench_numpy.py: the gravity kernel (dsl-examples/gravity.nbl) from
Python against the same sum written with numpy broadcasting, at N = 4096
bodies (every body against every body), on each device there is.  Prints
the seconds per call, best of REPEAT, and the ratio numpy / nbcc; the call
is timed whole, as a user sees it (conversions and transfers included).

    python3 python/examples/bench_numpy.py [N] [REPEAT]

docs/python.md shows one run."""

import os
import sys
import time

import numpy as np

import nbcc

N = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
REPEAT = int(sys.argv[2]) if len(sys.argv) > 2 else 5
GRAVITY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..", "dsl-examples", "gravity.nbl")


def numpy_gravity(x, y, z, m, eps2):
    """Accelerations and potentials by broadcasting: N x N temporaries."""
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    dz = z[None, :] - z[:, None]
    rinv = 1 / np.sqrt(eps2 + dx * dx + dy * dy + dz * dz)
    mrinv = m[None, :] * rinv
    mr3inv = mrinv * rinv * rinv
    return {"ax": (mr3inv * dx).sum(1), "ay": (mr3inv * dy).sum(1),
            "az": (mr3inv * dz).sum(1), "pot": -mrinv.sum(1)}


def best(f, k=None):
    """The fastest of REPEAT calls: its seconds, its result, and the
    seconds of the kernel's launches in it (k.kernel_time)."""
    runs = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        r = f()
        runs.append((time.perf_counter() - t0, k.kernel_time if k else 0))
    t, tk = min(runs)
    return t, r, tk


def main():
    rng = np.random.default_rng(1)
    print("N = %d, best of %d; numpy %s" % (N, REPEAT, np.__version__))
    for precision, dtype in (("float", np.float32), ("double", np.float64)):
        x, y, z = (rng.standard_normal(N).astype(dtype) for _ in range(3))
        m = np.full(N, 1 / N, dtype)
        eps2 = 1e-4
        tn, ref, _ = best(lambda: numpy_gravity(x, y, z, m, dtype(eps2)))
        print("%-6s numpy broadcasting          %8.4f s" % (precision, tn))
        for d in nbcc.devices():
            k = nbcc.Kernel(GRAVITY, precision=precision, device=d.spec)
            tk, out, tkern = best(lambda: k(xi=x, yi=y, zi=z, xj=x, yj=y,
                                            zj=z, mj=m, eps2=eps2), k)
            err = np.linalg.norm(out["ax"] - ref["ax"]) / \
                np.linalg.norm(ref["ax"])
            print("%-6s nbcc on %-20s %8.4f s  numpy/nbcc %6.1f  "
                  "(kernel %.4f s, |ax - numpy| %.1e)" %
                  (precision, d.type + " " + d.spec, tk, tn / tk,
                   tkern, err))


if __name__ == "__main__":
    main()
