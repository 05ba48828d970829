#!/usr/bin/env python3
"""backend_matrix.py: the back ends over a random sample of their flags.

    python3 bench/backend_matrix.py [COMBOS [SEED]]      (from the root)

Not part of `make check` (a sample of 40 takes minutes on 2 cores; the
fixed cases of tests/sh/backend_mix.sh are).  Each combination draws
--unroll-i 1..8, --unroll-j 1..4, --jsplit 1..64 (non powers of two too),
then either the OpenCL device (PoCL: --tile 0, 1, 3, 7, 64..300 and --wg
32, 48, 64, 96, 128, 256) or the C back end, maybe --fast-math, --no-fma,
--sched=none, --no-ftz, and an environment of small NBRT_MAX_INTERACTIONS
(split launches, accum = 1) or NBRT_AUTO_SPLIT=1; a kernel and precision;
and six (Ni, Nj) from {0, 1, 2, 7, 31, 257, 1023}^2.  Each run is compared
with the untransformed C kernel (--unroll-i=1 --unroll-j=1 --jsplit=1
--sched=none, same --no-fma / --fast-math) on the same random inputs:
row counts, NaN and infinity positions, and the norm-wise relative
difference per column (float 2e-4, 3e-3 with --fast-math; double and dd
1e-11).  Prints one line per failure with everything needed to repeat it,
then "jobs N bad M"; exits 1 if any failed."""
import itertools
import math
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NBRUN = os.path.join(ROOT, "bin", "nbrun")
SIZES = [0, 1, 2, 7, 31, 257, 1023]

# Result columns: f_ float, d_ double, q_ dd, p_ the precision flag's type.
KERNELS = {
    # all three types in one kernel: five BMEM packs of mixed widths
    "mix": """LMEM float xf;
LMEM double xd;
LMEM dd xq;
BMEM float a1, a2;
BMEM double b1;
BMEM float a3, a4, a5;
BMEM dd d1;
BMEM double b2, b3;
BMEM dd d2, d3;
RMEM float f_s, f_c;
RMEM double f_t;
RMEM dd q_u;
CONST float cf;
CONST double cd;
CONST dd cq;
s = a1*xf + a2*a3 - a4/(a5+1);
t = b1*xd - b2*b3 + cd;
u = d1*xq + d2 - d3*cq;
near = a1 < a2;
f_s += s*cf;
f_c += near ? s : -s;
f_t += t*s + xd;
f_t -= near && b1 > 0.5 ? t*t : 0;
q_u += u*t + xq*xq;
q_u += b2 < xd ? u : d1;
""",
    # work that does not depend on j at all (hoisted whole)
    "hoist": """LMEM x, y;
BMEM m;
RMEM p_a, p_b, p_c, p_d;
CONST k;
p_a += x*k;
p_b += x*y + m;
p_c -= k;
p_d += y < 0.5 ? x : k;
""",
    "nobmem": """LMEM x;
RMEM p_a, p_b;
CONST k;
p_a += x*k;
p_b -= x < k ? x : 2*x;
""",
    "grav": """LMEM xi, yi;
BMEM xj, yj, mj;
RMEM p_ax, p_pot;
CONST eps2;
dx = xj - xi;
dy = yj - yi;
r2 = eps2 + dx*dx + dy*dy;
rinv = r2**-0.5;
p_ax += mj*rinv*rinv*rinv*dx;
p_pot -= xj < xi ? mj*rinv : 0.5*mj*rinv;
""",
    # every built-in function, in the precision flag's type and in dd
    "fn": """LMEM x;
LMEM dd xq;
BMEM y;
BMEM dd yq;
BMEM float yf;
RMEM p_a, p_b;
RMEM dd q_c;
CONST k;
s = x + y;
a = sqrt(s) + exp(-s) + log(s + 1) + sin(s)*cos(y) + pow(s, 1.3) + fabs(x - y);
p_a += fmin(a, 3) - fmax(yf, 0.5)*k;
p_b -= s < 1 ? rsqrt(s) : s**-1.5;
u = xq*yq + yq/(xq + 1);
q_c += sqrt(u) + exp(-u) + log(u + 1) + sin(u)*cos(yq) + pow(u, 0.3) + fabs(xq - yq) + fmin(u, 0.7) + fmax(u, xq);
""",
}
CASES = [("mix", "double"), ("hoist", "float"), ("hoist", "dd"),
         ("nobmem", "double"), ("grav", "float"), ("grav", "double"),
         ("grav", "dd"), ("fn", "float"), ("fn", "double"), ("fn", "dd")]


def nbrun(args, env):
    p = subprocess.run([NBRUN] + args, capture_output=True, text=True,
                       env=env, timeout=600)
    return p.returncode, p.stderr


def read(path):
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip()]
    return lines[0].split(","), [[float(x) for x in l.split(",")]
                                 for l in lines[1:]]


def tolerance(col, prec, fast):
    if col.startswith("f_") or (col.startswith("p_") and prec == "float"):
        return 3e-3 if fast else 2e-4
    return 1e-11


def compare(ref, got, prec, fast):
    h1, r1 = read(ref)
    h2, r2 = read(got)
    if h1 != h2:
        return "header %s vs %s" % (h1, h2)
    if len(r1) != len(r2):
        return "%d rows vs %d" % (len(r1), len(r2))
    bad = []
    for c, name in enumerate(h1):
        num = den = 0.0
        for a, b in zip(r1, r2):
            x, y = a[c], b[c]
            if not (math.isfinite(x) and math.isfinite(y)):
                if not (x == y or (math.isnan(x) and math.isnan(y))):
                    return "%s: %r vs %r" % (name, x, y)
                continue
            num += (x - y) ** 2
            den += x * x
        rel = math.sqrt(num / den) if den > 0 else math.sqrt(num)
        if rel > tolerance(name, prec, fast):
            bad.append("%s %.3g" % (name, rel))
    return "; ".join(bad)


def job(tmp, kern, prec, flags, env_extra, ni, nj, seed, n):
    env = dict(os.environ, NBRT_CACHE_DIR=os.path.join(tmp, "cache"))
    k = os.path.join(tmp, kern + ".nbl")
    ref = os.path.join(tmp, "ref%d.csv" % n)
    got = os.path.join(tmp, "got%d.csv" % n)
    base = [k, "--random", "%d,%d" % (ni, nj), "--seed", str(seed),
            "--precision=" + prec]
    same = [f for f in flags if f in ("--no-fma", "--fast-math")]
    rc, err = nbrun(base + ["--target", "c", "--unroll-i=1", "--unroll-j=1",
                            "--jsplit=1", "--sched=none", "-o", ref] + same,
                    env)
    if rc:
        return "reference failed: " + err.strip()[-300:]
    env.update(env_extra)
    rc, err = nbrun(base + flags + ["-o", got], env)
    if rc:
        return "exit %d: %s" % (rc, err.strip()[-300:])
    return compare(ref, got, prec, "--fast-math" in flags)


def combos(n, rnd):
    for _ in range(n):
        f = ["--unroll-i=%d" % rnd.randint(1, 8),
             "--unroll-j=%d" % rnd.randint(1, 4),
             "--jsplit=%d" % rnd.choice([1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64])]
        if rnd.random() < 0.75:
            f += ["--device", "cpu",
                  "--tile=%d" % rnd.choice([0, 1, 3, 7, 64, 128, 200, 300]),
                  "--wg=%d" % rnd.choice([32, 48, 64, 96, 128, 256])]
        else:
            f += ["--target", "c"]
        for flag, p in (("--fast-math", 0.2), ("--no-fma", 0.2),
                        ("--sched=none", 0.3), ("--no-ftz", 0.2)):
            if rnd.random() < p:
                f.append(flag)
        env = {}
        r = rnd.random()
        if r < 0.2:
            env["NBRT_MAX_INTERACTIONS"] = str(rnd.choice([1, 5, 37, 1000]))
        elif r < 0.35:
            env["NBRT_AUTO_SPLIT"] = "1"
        yield f, env


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(10**6)
    print("backend_matrix: %d combinations, seed %d" % (n, seed), flush=True)
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "cache"), 0o700)
        for name, src in KERNELS.items():
            with open(os.path.join(tmp, name + ".nbl"), "w") as f:
                f.write(src)
        jobs = []
        for flags, env in combos(n, rnd):
            kern, prec = rnd.choice(CASES)
            for ni, nj in rnd.sample(list(itertools.product(SIZES, SIZES)), 6):
                jobs.append((tmp, kern, prec, flags, env, ni, nj,
                             rnd.randint(1, 10**6), len(jobs)))
        bad = 0
        with ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            for j, r in zip(jobs, ex.map(lambda a: job(*a), jobs)):
                if r:
                    bad += 1
                    env = " ".join("%s=%s" % kv for kv in j[4].items())
                    print("BAD %s --precision=%s %s --random %d,%d --seed %d"
                          " %s: %s" % (j[1], j[2], " ".join(j[3]), j[5], j[6],
                                       j[7], env, r), flush=True)
    print("jobs %d bad %d" % (len(jobs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
