"""vortex_ring.py: a vortex ring advected by its own regularised
Biot-Savart velocity (dsl-examples/biot_savart.nbl), once through the
treecode (theta=, far/biot_savart_dipole.nbl) and once by direct
summation, side by side (docs/treecode.md, "A vortex ring"):

    build/pyvenv/bin/python python/examples/vortex_ring.py \\
        [--n N] [--steps K] [--dt DT] [--theta T] [--device D]

Particles fill a ring of radius 1 and core radius 0.1 (circulation 1,
strengths along the ring), core smoothing sigma = 0.05.  It prints the
tree's velocity error against direct at the start (median, 99th
percentile, relative to each particle's speed), each method's seconds an
evaluation, the ring's speed against Kelvin's thin-ring estimate
U = Gamma/(4 pi R) (ln(8 R/a) - C), C between 1/4 (uniform core) and
0.558 (Gaussian), and after K midpoint steps how far apart the two rings'
particles are.  Run it from the nbcc sources (it reads dsl-examples/)."""

import argparse
import time

import numpy as np

import nbcc


def ring(n, rng):
    """Positions (3, n) and strengths (3, n) of the particles."""
    R, a = 1.0, 0.1
    ph = rng.uniform(0, 2 * np.pi, n)
    r = a * np.sqrt(rng.uniform(0, 1, n))
    al = rng.uniform(0, 2 * np.pi, n)
    rho = R + r * np.cos(al)
    x = np.stack([rho * np.cos(ph), rho * np.sin(ph), r * np.sin(al)])
    # each azimuthal slice carries circulation 1: strength per particle
    # 2 pi rho / n along the ring
    g = (2 * np.pi * rho / n) * np.stack([-np.sin(ph), np.cos(ph),
                                          np.zeros(n)])
    return x, g


def velocity(k, x, g, **tree):
    out = k(xi=x[0], yi=x[1], zi=x[2], xj=x[0], yj=x[1], zj=x[2],
            gx=g[0], gy=g[1], gz=g[2], isig3=1 / 0.05**3, **tree)
    return np.stack([out["u"], out["v"], out["w"]]), k.total_time


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--dt", type=float, default=0.05)
    p.add_argument("--theta", type=float, default=0.5)
    p.add_argument("--device", default="host")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    k = nbcc.Kernel("dsl-examples/biot_savart.nbl", precision="double",
                    device=a.device)
    x, g = ring(a.n, np.random.default_rng(a.seed))
    tree = dict(theta=a.theta)
    secs = {"direct": [], "tree": []}

    def vel(x, how):
        t0 = time.perf_counter()
        u, _ = velocity(k, x, g, **(tree if how == "tree" else {}))
        secs[how].append(time.perf_counter() - t0)
        return u

    ud, ut = vel(x, "direct"), vel(x, "tree")
    e = np.linalg.norm(ut - ud, axis=0) / np.linalg.norm(ud, axis=0)
    kelvin = [np.log(8 / 0.1) - c for c in (0.25, 0.558)]
    print("vortex ring: N %d, theta %g, %s" % (a.n, a.theta, k.device))
    print("velocity error of the tree: median %.2e, 99th percentile %.2e"
          % (np.median(e), np.percentile(e, 99)))
    print("ring speed: direct %.4f, tree %.4f; Kelvin %.4f .. %.4f"
          % (ud[2].mean(), ut[2].mean(), kelvin[1] / (4 * np.pi),
             kelvin[0] / (4 * np.pi)))
    xd, xt = x.copy(), x.copy()
    for _ in range(a.steps):  # the midpoint rule, each way
        xd = xd + a.dt * vel(xd + 0.5 * a.dt * vel(xd, "direct"), "direct")
        xt = xt + a.dt * vel(xt + 0.5 * a.dt * vel(xt, "tree"), "tree")
    d = np.linalg.norm(xt - xd, axis=0)
    print("after %d steps of %g: the ring moved %.4f; tree and direct "
          "particles apart by median %.2e, largest %.2e"
          % (a.steps, a.dt, xd[2].mean() - x[2].mean(), np.median(d),
             d.max()))
    print("seconds an evaluation (median): direct %.3f, tree %.3f, "
          "speed-up %.2f" % (np.median(secs["direct"]),
                             np.median(secs["tree"]),
                             np.median(secs["direct"]) /
                             np.median(secs["tree"])))


if __name__ == "__main__":
    main()
