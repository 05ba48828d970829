# tests/sh/autodiff_ref.py: the checks of autodiff.sh.  Writes random
# inputs, runs nbrun, and compares derived results with central finite
# differences of the primal in dd, differenced exactly (decimal), and with
# hand-written kernels; a CONST's total over i (nbrun's "total:" line)
# with the differences' sum over i.  Usage: autodiff_ref.py BIN DIR SEED
# DEVICE...
# (the rules' check runs on the first device only)
import os
import random
import subprocess
import sys
from decimal import Decimal, getcontext

getcontext().prec = 60
BIN, T, SEED = sys.argv[1], sys.argv[2], int(sys.argv[3])
DEVICES = sys.argv[4:]
rng = random.Random(SEED)
fails = checks = 0
# nbrun runs in T, and the kernels written here are named by paths
# relative to it ("fn.nbl"), the examples through a link (dsl-examples/):
# the path is part of the generated code, so a kernel's is the same in
# every run and in both passes of make check, whose shared cache
# (tests/lib.sh) then compiles it once, not once a run in a fresh T
os.symlink(os.path.abspath("dsl-examples"), os.path.join(T, "dsl-examples"))


def check(ok, what):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
        print("FAIL: " + what)


def write(path, cols, rows):
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")


def nbrun(kernel, icsv, jcsv, consts, *flags, env=None):
    """env: NBCC_AD_MODE, forward or reverse, for --grad"""
    cmd = [BIN + "/nbrun", kernel, "--i", icsv, "--j", jcsv]
    for k, v in consts.items():
        cmd += ["--const", "%s=%s" % (k, v)]
    environ = dict(os.environ)
    if env:
        environ["NBCC_AD_MODE"] = env
    out = subprocess.run(cmd + list(flags), capture_output=True, text=True,
                         env=environ, cwd=T)
    if out.returncode:
        raise SystemExit("nbrun failed: %s\n%s" % (" ".join(cmd + list(flags)),
                                                     out.stderr))
    lines = out.stdout.split("\n")
    head = lines[0].split(",")
    cols = {h: [] for h in head}
    for ln in lines[1:]:
        if ln:
            for h, v in zip(head, ln.split(",")):
                cols[h].append(Decimal(v))
    # a CONST's gradient's total over i, printed as "total: NAME = V (...)",
    # as the key "total NAME"
    for ln in out.stderr.split("\n"):
        if ln.startswith("total: "):
            name, v = ln[7:].split(" (")[0].split(" = ")
            cols["total " + name] = Decimal(v)
    return cols


def close_total(g, key, want, tol, what, floor=1e-300):
    """nbrun's total of the column key against the sum of want (its per-i
    differences), within tol of the sum of their sizes (terms may cancel),
    or of floor"""
    check("total " + key in g, "%s: no total of %s printed" % (what, key))
    if "total " + key in g:
        close([g["total " + key]], [sum(want, Decimal(0))], tol,
              what + " (the total over i)",
              max(sum((abs(x) for x in want), Decimal(0)), Decimal(floor)))


def close(a, b, tol, what, floor=1e-300):
    """a, b: columns; within tol of the larger column's largest value, or
    of floor where the results may cancel far below their terms"""
    scale = max([abs(x) for x in a + b] + [Decimal(floor)])
    worst = max([abs(x - y) for x, y in zip(a, b)] + [Decimal(0)])
    check(len(a) == len(b) and worst <= Decimal(tol) * scale,
          "%s: off by %.3g of %.3g (tolerance %g)" % (what, worst, scale, tol))


def rnd(n, cols, lo=-1.0, hi=1.0):
    return [[rng.uniform(lo, hi) for _ in cols] for _ in range(n)]


# 1. the jerk derived from gravity.nbl is hermite.nbl's (eps2 > 0: where
# r2 > 0 hermite's select picks what the derivative computes), to
# rounding: the derivation groups mrinv*rinv*rinv's equal factors and
# accumulates each term apart, hermite.nbl factors mr3inv out (seen: float
# 3e-7, double 5e-16, dd 6e-32 of the column's largest value); double on
# every device, float and dd on the first (PoCL's dd builds are slow)
TAN = "xi:vxi,yi:vyi,zi:vzi,xj:vxj,yj:vyj,zj:vzj,ax:jx,ay:jy,az:jz"
for dev in DEVICES:
    for prec, tol in (("float", 1e-5), ("double", 1e-13), ("dd", 1e-28)):
        if prec != "double" and dev != DEVICES[0]:
            continue
        for n in (0, 1, 7, 13):
            icol = ["xi", "yi", "zi", "vxi", "vyi", "vzi"]
            jcol = ["xj", "yj", "zj", "vxj", "vyj", "vzj", "mj"]
            write(T + "/i.csv", icol, rnd(n, icol))
            write(T + "/j.csv", jcol, rnd(n + 2, jcol, 0.1, 1.0))
            c = {"eps2": 0.01}
            flags = ["--device", dev, "--precision=" + prec]
            d = nbrun("dsl-examples/gravity.nbl", T + "/i.csv", T + "/j.csv",
                      c, "--jvp=" + TAN, *flags)
            h = nbrun("dsl-examples/hermite.nbl", T + "/i.csv", T + "/j.csv",
                      c, *flags)
            # terms O(1) and more (masses 0.1-1, eps2 0.01) that may cancel
            # in a column of one i-element: 1.4e-5 from three j at seed
            # 1305487361 (6.9e-18 off, 5e-13 of it), so relative to 1 there
            for r in ("ax", "ay", "az", "jx", "jy", "jz", "pot"):
                close(d[r], h[r], tol, "%s %s n=%d: derived %s against "
                      "hermite.nbl" % (dev, prec, n, r), 1.0)

# 2. minus the gradient of the Plummer potential is gravity's acceleration
# (also unrolled and j-split)
PLUM = "plummer.nbl"
with open(os.path.join(T, PLUM), "w") as f:
    f.write("LMEM xi, yi, zi;\nBMEM xj, yj, zj, mj;\nRMEM pot;\n"
            "CONST eps2;\ndx = xj - xi;\ndy = yj - yi;\ndz = zj - zi;\n"
            "pot -= mj*(eps2 + dx*dx + dy*dy + dz*dz)**-0.5;\n")
def where(dev):
    """nbrun's flags running on dev: a device, or amdil, nbcc's AMD IL
    interpreter"""
    return ["--target", "amdil"] if dev == "amdil" else ["--device", dev]


for dev in DEVICES + ["amdil"]:
    for prec, tol in (("float", 1e-5), ("double", 1e-14), ("dd", 1e-28)):
        n = 11
        icol, jcol = ["xi", "yi", "zi"], ["xj", "yj", "zj", "mj"]
        write(T + "/i.csv", icol, rnd(n, icol))
        write(T + "/j.csv", jcol, rnd(n, jcol, 0.1, 1.0))
        c = {"eps2": 0.01}
        fl = where(dev) + ["--precision=" + prec]
        g = nbrun(PLUM, T + "/i.csv", T + "/j.csv", c, "--grad=xi,yi,zi", *fl)
        a = nbrun("dsl-examples/gravity.nbl", T + "/i.csv", T + "/j.csv", c,
                  *fl)
        for x, ax in (("xi", "ax"), ("yi", "ay"), ("zi", "az")):
            close([-v for v in g["dpot_d" + x]], a[ax], tol,
                  "%s %s: -dpot_d%s against gravity's %s" % (dev, prec, x, ax))
        if prec == "double" and dev != "cpu":
            # the loop transforms apply to the derived kernel as to any:
            # unrolled 3 x 2 with a j-split of 3 (host and interpreter;
            # PoCL's builds are slow), the same within rounding
            u = nbrun(PLUM, T + "/i.csv", T + "/j.csv", c, "--grad=xi,yi,zi",
                      "--unroll-i=3", "--unroll-j=2", "--jsplit=3", *fl)
            for x, ax in (("xi", "ax"), ("yi", "ay"), ("zi", "az")):
                close([-v for v in u["dpot_d" + x]], a[ax], tol,
                      "%s %s unrolled 3 x 2, j-split 3: -dpot_d%s against "
                      "gravity's %s" % (dev, prec, x, ax))

# 3. every rule against central differences of the primal in dd, h = 1e-12
# (and a product of repeated factors, which ad.c groups)
FN = "fn.nbl"
with open(os.path.join(T, FN), "w") as f:
    f.write("LMEM xi, yi;\nBMEM xj, yj;\nCONST c;\nRMEM s, u, k;\n"
            "d = xi - xj;\ne = yi*yj + c;\n"
            "s += exp(-d*d)*sin(e) + log(1 + d*d)*cos(xi) + "
            "sqrt(e*e + 1)/(2 + tanh(d)) + expm1(d)*log1p(e*e) + "
            "rsqrt(2 + e) + xi*e*xi*xi*d*yj*d;\n"
            "u -= atan2(d, e + 3) + erf(d)*fabs(e) + erfc(e) + "
            "max(d, e)*floor(yj*4) + min(d, 0.5*e) + "
            "(d > 0 ? d**3 : cbrt(e*e + 1)) + pow(e*e + 1, xi) + "
            "round(xi*3) + trunc(e)*e;\n"
            "k += d < e;\n")
H = Decimal("1e-12")
# The rules' kernels (here and in 6.) are built unrolled 2 x 2, not at the
# device class's rows (host dd 8 x 4, PoCL float 16 x 2): 32 copies of a
# derived body took 20 to 60 CPU seconds a build, most of make check's
# cold run, and checked no rule more; a copy is a copy, and the derived
# kernels at the rows' unrolling are checked in 1., 2. and 5.
SMALL = ["--unroll-i=2", "--unroll-j=2"]
for dev in DEVICES[:1]:  # host only: PoCL takes minutes to build these
    n = 5
    icol, jcol = ["xi", "yi"], ["xj", "yj"]
    irows, jrows = rnd(n, icol), rnd(n + 2, jcol)
    c = {"c": 0.375}
    write(T + "/i.csv", icol, irows)
    write(T + "/j.csv", jcol, jrows)
    fl = ["--device", dev, "--precision=dd"] + SMALL
    want = {}
    for prec in ("float", "double", "dd"):
        g = nbrun(FN, T + "/i.csv", T + "/j.csv", c, "--grad=xi,yi,c",
                  "--device", dev, "--precision=" + prec, *SMALL)
        for w in ("xi", "yi", "c"):
            if "ds_d" + w not in want:
                # central difference: perturb w, run the primal in dd
                # (once for both results)
                col = {}
                for sgn in (1, -1):
                    ir = [[Decimal(repr(v)) for v in row] for row in irows]
                    cc = {"c": Decimal(repr(c["c"]))}
                    if w == "c":
                        cc["c"] += sgn * H
                    else:
                        for row in ir:
                            row[icol.index(w)] += sgn * H
                    write(T + "/ih.csv", icol, ir)
                    col[sgn] = nbrun(FN, T + "/ih.csv", T + "/j.csv", cc,
                                     *fl)
                for r in ("s", "u"):
                    want["d%s_d%s" % (r, w)] = [
                        (p - m) / (2 * H) for p, m in zip(col[1][r],
                                                          col[-1][r])]
            for r in ("s", "u"):
                key = "d%s_d%s" % (r, w)
                tol = {"float": 1e-5, "double": 1e-12, "dd": 1e-18}[prec]
                close(g[key], want[key], tol, "%s %s: %s against central "
                      "differences in dd" % (dev, prec, key))
                if w == "c":
                    close_total(g, key, want[key], tol, "%s %s: %s" %
                                (dev, prec, key))
        check("dk_dxi" not in g, "%s: a count has no derived result" % dev)
    # forward mode with a BMEM tangent, in dd
    vrows = [[rng.uniform(-1, 1)] for _ in jrows]
    write(T + "/jv.csv", ["xj", "yj", "vxj"],
          [r + v for r, v in zip(jrows, vrows)])
    d = nbrun(FN, T + "/i.csv", T + "/jv.csv", c, "--jvp=xj:vxj", *fl)
    col = {}
    for sgn in (1, -1):
        jr = [[Decimal(repr(a)) + sgn * H * Decimal(repr(v[0])),
               Decimal(repr(b))] for (a, b), v in zip(jrows, vrows)]
        write(T + "/jh.csv", jcol, jr)
        col[sgn] = nbrun(FN, T + "/i.csv", T + "/jh.csv", c, *fl)
    for r in ("s", "u"):
        close(d["d_" + r], [(p - m) / (2 * H) for p, m in
                            zip(col[1][r], col[-1][r])], 1e-18,
              "%s dd: d_%s along vxj against central differences" % (dev, r))

    # forward mode's --grad (reverse is the default with more inputs than
    # sums): the same rules, against the same differences
    g = nbrun(FN, T + "/i.csv", T + "/j.csv", c, "--grad=xi,yi,c", *fl,
              env="forward")
    for key in sorted(want):
        close(g[key], want[key], 1e-18, "%s dd forward: %s against central "
              "differences" % (dev, key))
        if key.endswith("_dc"):
            close_total(g, key, want[key], 1e-18, "%s dd forward: %s" %
                        (dev, key))

    # 4. BMEM gradients: per j-element, from the kernel turned around (its
    # i-side the BMEM file); d(sum_i r[i])/d xj[j] by central differences
    # perturbing one j-element at a time
    jn = 3
    write(T + "/j3.csv", jcol, jrows[:jn])
    g = nbrun(FN, T + "/j3.csv", T + "/i.csv", c, "--grad=xj,yj", *fl)
    check(sorted(g) == ["ds_dxj", "ds_dyj", "du_dxj", "du_dyj"],
          "%s: the BMEM gradient's results are %s" % (dev, sorted(g)))
    for w in ("xj", "yj"):
        want = {"s": [], "u": []}
        for e in range(jn):
            tot = {}
            for sgn in (1, -1):
                jr = [[Decimal(repr(v)) for v in row] for row in jrows[:jn]]
                jr[e][jcol.index(w)] += sgn * H
                write(T + "/jh.csv", jcol, jr)
                tot[sgn] = nbrun(FN, T + "/i.csv", T + "/jh.csv", c, *fl)
            for r in want:
                want[r].append((sum(tot[1][r]) - sum(tot[-1][r])) / (2 * H))
        for r in want:
            close(g["d%s_d%s" % (r, w)], want[r], 1e-18, "%s dd: d%s_d%s per "
                  "j against central differences" % (dev, r, w))

# 5. the Plummer potential's BMEM gradient is m_j times minus the
# acceleration gravity.nbl gives the j-elements from the i-elements as
# sources of unit mass (float, double, dd; sizes 0, 1 and primes)
for dev in DEVICES + ["amdil"]:
    for prec, tol in (("float", 1e-5), ("double", 1e-14), ("dd", 1e-28)):
        for n in (0, 1, 7):
            icol, jcol = ["xi", "yi", "zi"], ["xj", "yj", "zj", "mj"]
            irows, jrows = rnd(n, icol), rnd(n + 4, jcol, 0.1, 1.0)
            write(T + "/i.csv", icol, irows)
            write(T + "/j.csv", jcol, jrows)
            write(T + "/ji.csv", icol, [r[:3] for r in jrows])
            write(T + "/ij.csv", jcol, [r + [1] for r in irows])
            c = {"eps2": 0.01}
            fl = where(dev) + ["--precision=" + prec]
            g = nbrun(PLUM, T + "/j.csv", T + "/i.csv", c,
                      "--grad=xj,yj,zj", *fl)
            a = nbrun("dsl-examples/gravity.nbl", T + "/ji.csv",
                      T + "/ij.csv", c, *fl)
            m = [Decimal(repr(r[3])) for r in jrows]
            for x, ax in (("xj", "ax"), ("yj", "ay"), ("zj", "az")):
                close(g["dpot_d" + x], [-mj * v for mj, v in zip(m, a[ax])],
                      tol, "%s %s n=%d: dpot_d%s against -mj*gravity's %s"
                      % (dev, prec, n, x, ax))

# 6. logsumexp=, min= and max=.  logsumexp='s derivative weighs each
# term's by its softmax weight exp(e - r), r the primal's result, which
# the derived kernel takes as an input of r's name; min='s and max='s is
# the term's at the argmin's (argmax's) j, declared beside them, whose
# result the derived kernel takes likewise (per i; per j, on the j-side,
# when turned around).  Per i (reverse and forward), per j and along a
# tangent, against central differences of the primal in dd (float 1e-5,
# double 1e-12, dd 1e-18 of the column's largest value), on the host and
# the AMD IL interpreter, and in double on the other devices (as in 1.:
# PoCL's float and dd builds of these four kernels took 59 of autodiff.sh's
# 132 CPU s cold; the derived IR is the host's, and cl_vs_c.sh takes
# every example, logsumexp and argmin among them, through both back ends
# in all three precisions); the sum beside them keeps its own gradient.
# Sizes 0, 1 and 7 (9 j-elements); forward mode on the host and the
# interpreter.
LSE = "lse.nbl"
with open(os.path.join(T, LSE), "w") as f:
    f.write("LMEM xi, yi;\nBMEM xj, yj, wj;\nCONST c;\n"
            "RMEM r, s, m, km, q, kq, n;\n"
            "d = xi - xj;\nr logsumexp= -c*d*d + wj*sin(yi*yj);\n"
            "s += exp(-d*d)*yi;\n"
            "m min= d*d + c*yi*yj;\nkm argmin= d*d + c*yi*yj;\n"
            "q max= wj*cos(d + yi);\nkq argmax= wj*cos(d + yi);\n"
            "n += d < c;\n")
DIFF = ("r", "s", "m", "q")       # the results differentiated
GIVEN = ("r", "km", "kq")         # the primal's, the derived kernel's inputs
LTOL = {"float": 1e-5, "double": 1e-12, "dd": 1e-18}
# A derivative's terms here are O(1) (inputs in [-1, 1], c = 1.5), but a
# softmax- or argmin-weighted sum of them over 3 j-elements can cancel to
# 1e-4 and below (seed 2048446752, n = 1): the tolerance is relative to
# the terms, never less than 1, as rounding errs relative to them.
LFLOOR = 1.0


def diffs(irows, jrows, c, w, per_j=False):
    """central differences in dd of the results by w: per i, or (per_j)
    of the totals by each j-element's w"""
    icol, jcol = ["xi", "yi"], ["xj", "yj", "wj"]
    out = {r: [] for r in DIFF}
    for e in range(len(jrows)) if per_j else [None]:
        col = {}
        for sgn in (1, -1):
            ir = [[Decimal(repr(v)) for v in row] for row in irows]
            jr = [[Decimal(repr(v)) for v in row] for row in jrows]
            cc = {"c": Decimal(repr(c))}
            if w == "c":
                cc["c"] += sgn * H
            elif per_j:
                jr[e][jcol.index(w)] += sgn * H
            else:
                for row in ir:
                    row[icol.index(w)] += sgn * H
            write(T + "/lih.csv", icol, ir)
            write(T + "/ljh.csv", jcol, jr)
            col[sgn] = nbrun(LSE, T + "/lih.csv", T + "/ljh.csv", cc,
                             "--device", DEVICES[0], "--precision=dd",
                             *SMALL)
        for r in out:
            if per_j:
                out[r].append((sum(col[1][r]) - sum(col[-1][r])) / (2 * H))
            else:
                out[r] = [(p - m) / (2 * H) for p, m in
                          zip(col[1][r], col[-1][r])]
    return out


for n in (0, 1, 7):
    icol, jcol = ["xi", "yi"], ["xj", "yj", "wj"]
    irows, jrows = rnd(n, icol), rnd(n + 2, jcol)
    c = 1.5
    want = {w: diffs(irows, jrows, c, w) for w in ("xi", "yi", "c")}
    wantj = diffs(irows, jrows, c, "xj", per_j=True) if n else None
    write(T + "/lj.csv", jcol, jrows)
    for dev in DEVICES + ["amdil"]:
        for prec in ("float", "double", "dd"):
            if prec != "double" and dev not in (DEVICES[0], "amdil"):
                continue
            fl = where(dev) + ["--precision=" + prec]
            if dev != "amdil":  # the interpreter builds nothing
                fl += SMALL
            tol = LTOL[prec]
            write(T + "/li.csv", icol, irows)
            p = nbrun(LSE, T + "/li.csv", T + "/lj.csv", {"c": c}, *fl)
            write(T + "/lir.csv", icol + list(GIVEN),
                  [row + [p[r][e] for r in GIVEN]
                   for e, row in enumerate(irows)])
            # forward mode's rules are reverse mode's: PoCL, slow to
            # build, runs one of them
            for mode in ("reverse", "forward")[:1 if dev == "cpu" else 2]:
                g = nbrun(LSE, T + "/lir.csv", T + "/lj.csv", {"c": c},
                          "--grad=xi,yi,c", *fl, env=mode)
                check(not any(r in g for r in GIVEN) and "dn_dxi" not in g,
                      "%s %s: the derived kernel's results are %s"
                      % (dev, prec, sorted(g)))
                for w in ("xi", "yi", "c"):
                    for r in DIFF:
                        close(g["d%s_d%s" % (r, w)], want[w][r], tol,
                              "%s %s %s n=%d: d%s_d%s against central "
                              "differences" % (dev, prec, mode, n, r, w),
                              LFLOOR)
                for r in DIFF:
                    close_total(g, "d%s_dc" % r, want["c"][r], tol,
                                "%s %s %s n=%d: d%s_dc" % (dev, prec, mode,
                                                            n, r), LFLOOR)
            v = [[rng.uniform(-1, 1)] for _ in irows]
            write(T + "/liv.csv", icol + list(GIVEN) + ["vx"],
                  [row + [p[r][e] for r in GIVEN] + v[e]
                   for e, row in enumerate(irows)])
            d = nbrun(LSE, T + "/liv.csv", T + "/lj.csv", {"c": c},
                      "--jvp=xi:vx", *fl)
            for r in DIFF:
                close(d["d_" + r], [Decimal(repr(t[0])) * x for t, x in
                                    zip(v, want["xi"][r])], tol,
                      "%s %s n=%d: d_%s along vx" % (dev, prec, n, r),
                      LFLOOR)
            if n:
                # per j: the kernel turned around, the primal's results
                # with the i-elements, now its j-side
                g = nbrun(LSE, T + "/lj.csv", T + "/lir.csv", {"c": c},
                          "--grad=xj", *fl)
                for r in DIFF:
                    close(g["d%s_dxj" % r], wantj[r], tol,
                          "%s %s n=%d: d%s_dxj per j against central "
                          "differences" % (dev, prec, n, r), LFLOOR)

print("autodiff_ref: %d checks, %d failed" % (checks, fails))
sys.exit(1 if fails else 0)
