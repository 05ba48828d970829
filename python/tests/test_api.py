"""test_api.py: the rest of the package's promises.  Inputs of any dtype and
layout give the results of float64 ones; the source can be text, a path
or generated code; .source, .explain() and .stats() are what nbcc writes
for the kernel the device runs; dd values travel as (hi, lo) pairs or
decimal strings; NBRT_DEVICE and NBRT_CACHE_DIR act as in the C programs;
a run lets other Python threads go on."""

import os
import pathlib
import subprocess
import threading
import time
import warnings

import numpy as np
import pytest

import nbcc


@pytest.fixture
def grav(example):
    return example("gravity")


def bodies(n, seed=3):
    x, y, z, m = np.random.default_rng(seed).random((4, n))
    return dict(xi=x, yi=y, zi=z, xj=x, yj=y, zj=z, mj=m)


def test_api_shape(grav):
    k = nbcc.Kernel(grav, precision="double", device="host")
    assert k.name == "gravity" and k.target == "c" and k.precision == "double"
    assert k.inputs == ["xi", "yi", "zi", "xj", "yj", "zj", "mj"]
    assert k.consts == ["eps2"] and k.results == ["ax", "ay", "az", "pot"]
    assert k.variables[0] == ("xi", "LMEM", "double")
    out = k(**bodies(50), eps2=1e-4)
    assert list(out) == ["ax", "ay", "az", "pot"]
    assert all(a.dtype == np.float64 and a.shape == (50,)
               for a in out.values())
    assert k.kernel_time > 0 and k.total_time >= k.kernel_time
    assert k.launches >= 1
    f = nbcc.Kernel(grav, precision="float", device="host")
    assert f(**bodies(7), eps2=1e-4)["ax"].dtype == np.float32
    assert "host" in k.device and repr(k).startswith("<nbcc.Kernel gravity(")


def test_dtypes_and_layouts(grav, device):
    """float32 and float64 go as they are, the rest as float64, any layout:
    the results are those of contiguous float64 inputs."""
    k = nbcc.Kernel(grav, precision="double", device=device)
    b = bodies(40)
    want = k(**b, eps2=1e-4)
    wide = {n: np.repeat(a, 3)[::3] for n, a in b.items()}  # strided views
    assert not wide["xi"].flags.c_contiguous
    swapped = {n: a.astype(">f8") for n, a in b.items()}  # big-endian
    lists = {n: a.tolist() for n, a in b.items()}
    for alt in (wide, swapped, lists):
        got = k(**alt, eps2=1e-4)
        for n in want:
            np.testing.assert_array_equal(got[n], want[n])
    ints = {n: (a * 100).astype(np.int32) for n, a in b.items()}
    got = k(**ints, eps2=np.float32(1e-4))
    ref = k(**{n: a.astype(np.float64) for n, a in ints.items()},
            eps2=float(np.float32(1e-4)))
    np.testing.assert_array_equal(got["ax"], ref["ax"])
    f32 = {n: a.astype(np.float32) for n, a in b.items()}
    got = k(**f32, eps2=1e-4)
    ref = k(**{n: a.astype(np.float64) for n, a in f32.items()}, eps2=1e-4)
    np.testing.assert_array_equal(got["pot"], ref["pot"])


def test_split_warps(grav):
    """split_warps=True is nbcc's --split-warps: the j-split's work items a
    row of i-elements apart, the same bits as the split side by side at a
    split whose sums add in order (16: PoCL shuffles 8 and fewer)."""
    if not any(d.type == "cpu" for d in nbcc.devices()):
        pytest.skip("no OpenCL CPU device")
    b = bodies(300)
    runs = [nbcc.Kernel(grav, precision="float", device="cpu", jsplit=16,
                        **w)(**b, eps2=1e-4) for w in ({}, {"split_warps": True})]
    for n in runs[0]:
        np.testing.assert_array_equal(runs[1][n], runs[0][n])
    ref = nbcc.Kernel(grav, precision="double", device="host")(**b, eps2=1e-4)
    for n in ref:
        scale = np.abs(ref[n]).max()
        assert np.abs(runs[1][n] - ref[n]).max() <= 1e-5 * scale, n


def test_sizes(grav):
    k = nbcc.Kernel(grav, precision="double", device="host")
    b = bodies(5)
    out = k(**{n: a[:0] if n.endswith("i") else a for n, a in b.items()},
            eps2=1e-4)
    assert all(a.shape == (0,) for a in out.values())
    out = k(**{n: a if n.endswith("i") else a[:0] for n, a in b.items()},
            eps2=1e-4)
    assert all((a == 0).all() and a.shape == (5,) for a in out.values())


def test_sources(grav, tmp_path):
    """The path, a pathlib.Path, the text itself, and the C nbcc wrote
    from it all run the same kernel; .source is that C."""
    b = bodies(30)
    k = nbcc.Kernel(grav, precision="double", device="host")
    want = k(**b, eps2=1e-4)["ax"]
    with open(grav) as f:
        text = f.read()
    kt = nbcc.Kernel(text, precision="double", device="host")
    assert kt.name == "unnamed"
    assert nbcc.Kernel(text, device="host", name="grav").name == "grav"
    kp = nbcc.Kernel(pathlib.Path(grav), precision="double", device="host")
    c = tmp_path / "gravity.c"
    c.write_text(k.source)
    kc = nbcc.Kernel(str(c), device="host")
    assert kc.source == k.source
    for other in (kt, kp, kc):
        np.testing.assert_array_equal(other(**b, eps2=1e-4)["ax"], want)
    with pytest.raises(ValueError, match="loaded from generated code"):
        kc.explain()


def test_source_is_what_nbcc_writes(grav, nbcc_bin):
    """.source is the kernel of the device: nbcc with the flags and target
    of its interface writes the same text, header and all."""
    for dev in ["host"] + (["cpu"] if any(d.type == "cpu"
                                          for d in nbcc.devices()) else []):
        k = nbcc.Kernel(grav, precision="float", device=dev, unroll_j=1)
        src = k.source
        head = src[src.index("nbcc-interface 1"):src.index(" end\n") + 5]
        assert [ln.lstrip(" *") for ln in head.splitlines()] == \
            k.interface.splitlines()
        if nbcc_bin:
            cli = subprocess.run(
                [nbcc_bin, grav, "--target=" + k.target] + k.flags.split(),
                capture_output=True, text=True, check=True).stdout
            assert cli == src
            cli = subprocess.run([nbcc_bin, grav, "--explain",
                                  "--target=" + k.target] + k.flags.split(),
                                 capture_output=True, text=True).stdout
            assert cli == k.explain()
        assert k.explain().startswith("// gravity after --unroll-i=")
        assert k.stats().startswith("kernel gravity: --unroll-i=")


def test_dd_values():
    x = nbcc.dd(["0.1", "-2.5e-30", "1"])
    assert x.hi[0] == 0.1 and x.lo[0] != 0 and abs(x.lo[0]) < 1e-17
    assert list(x.to_strings()) == ["0.1", "-2.5e-30", "1"]
    assert nbcc.dd(np.longdouble(1) / 3).lo != 0
    y = nbcc.DD([1.0, 2.0], [2.0 ** -60, 0.0])
    assert np.asarray(y).dtype == np.float64 and y.shape == (2,)
    assert repr(nbcc.dd("0.1")) == "DD('0.1')"
    # infinities are values, and no warning (numpy's "invalid value
    # encountered in subtract", of the error term dropped)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(nbcc.DD([np.inf, -np.inf])) == "DD(['inf', '-inf'])"
        assert nbcc.dd(np.longdouble("inf")).lo == 0
    # an index is of the values, never of the (hi, lo) pairs: d[..., 0]
    # was the two hi parts taken as one pair (0.3), d[0, 1] the lo part
    d = nbcc.dd(["0.1", "0.2"])
    assert repr(d[..., 0]) == "DD('0.1')" and repr(d[..., 1]) == "DD('0.2')"
    assert repr(d[0]) == "DD('0.1')" and repr(d[1:]) == "DD(['0.2'])"
    assert [repr(v) for v in d] == ["DD('0.1')", "DD('0.2')"]
    with pytest.raises(IndexError):
        d[0, 1]
    # one value has no length (it said 2) and no elements
    one = nbcc.dd("0.1")
    assert repr(one[()]) == "DD('0.1')"
    with pytest.raises(TypeError, match="len.. of a DD of shape"):
        len(one)
    with pytest.raises(TypeError, match="iteration over a DD of shape"):
        list(one)


def test_dd_kernel(grav):
    """dd inputs as DD pairs or decimal strings; dd results as DD, whose
    low words carry what double cannot."""
    k = nbcc.Kernel(grav, precision="dd", device="host")
    b = bodies(20)
    pairs = {n: nbcc.dd(a) for n, a in b.items()}
    # decimals that read back as those dd exactly (not repr(): "0.1" is
    # another dd than the double 0.1)
    text = {n: list(d.to_strings()) for n, d in pairs.items()}
    out = k(**pairs, eps2="0.0001")
    assert isinstance(out["ax"], nbcc.DD) and out["ax"].shape == (20,)
    assert np.any(out["ax"].lo != 0)
    again = k(**text, eps2=nbcc.dd("0.0001"))
    np.testing.assert_array_equal(again["ax"].pairs, out["ax"].pairs)
    longd = {n: a.astype(np.longdouble) for n, a in b.items()}
    np.testing.assert_array_equal(k(**longd, eps2="0.0001")["ax"].pairs,
                                  out["ax"].pairs)
    # a DD into a double kernel is hi + lo
    kd = nbcc.Kernel(grav, precision="double", device="host")
    np.testing.assert_array_equal(kd(**pairs, eps2=1e-4)["ax"],
                                  kd(**b, eps2=1e-4)["ax"])


def test_environment(grav, tmp_path, monkeypatch):
    """NBRT_DEVICE picks the device of device=None; NBRT_CACHE_DIR is
    where kernels are cached, and a second load is a hit."""
    monkeypatch.setenv("NBRT_DEVICE", "host")
    monkeypatch.setenv("NBRT_CACHE_DIR", str(tmp_path / "cache"))
    k = nbcc.Kernel(grav, precision="double")
    assert k.target == "c" and not k.cache_hit
    assert os.listdir(tmp_path / "cache")
    assert nbcc.Kernel(grav, precision="double").cache_hit
    monkeypatch.setenv("NBRT_CACHE", "0")
    assert not nbcc.Kernel(grav, precision="double").cache_hit


def test_devices():
    ds = nbcc.devices()
    assert ds[-1].spec == "host" and ds[-1].type == "host"
    assert all(d.type in ("gpu", "cpu", "other", "host") for d in ds)
    info = nbcc.Device("host").describe()
    assert info["type"] == "host"


@pytest.mark.slow
def test_gil_released(grav):
    """While a kernel runs, another Python thread runs too."""
    k = nbcc.Kernel(grav, precision="double", device="host")
    b = bodies(8000)
    k(**b, eps2=1e-4)  # warm: loaded, threads started
    t0 = time.perf_counter()
    k(**b, eps2=1e-4)
    once = time.perf_counter() - t0
    n = max(1, int(0.5 / max(once, 1e-3)))  # about half a second of runs
    ticks = []
    done = threading.Event()

    def runs():
        for _ in range(n):
            k(**b, eps2=1e-4)
        done.set()

    t = threading.Thread(target=runs)
    t.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    # held by the runs, the GIL would let the loop tick between runs only
    assert len(ticks) > 3 * n + 10, (len(ticks), n)


def test_grad_is_minus_the_force(grav):
    """--grad through the keyword: the gradient of a Plummer potential
    with respect to the i-positions is minus gravity.nbl's acceleration"""
    plummer = ("LMEM xi, yi, zi;\nBMEM xj, yj, zj, mj;\nRMEM pot;\n"
               "CONST eps2;\ndx = xj - xi;\ndy = yj - yi;\ndz = zj - zi;\n"
               "pot -= mj*(eps2 + dx*dx + dy*dy + dz*dz)**-0.5;\n")
    g = nbcc.Kernel(plummer, precision="double", device="host",
                    grad="xi,yi,zi")
    assert g.results == ["pot", "dpot_dxi", "dpot_dyi", "dpot_dzi"]
    b = bodies(23)
    d = g(**b, eps2=1e-2)
    a = nbcc.Kernel(grav, precision="double", device="host")(**b, eps2=1e-2)
    for x, ax in (("xi", "ax"), ("yi", "ay"), ("zi", "az")):
        np.testing.assert_allclose(-d["dpot_d" + x], a[ax], rtol=1e-13,
                                   atol=1e-13 * np.abs(a[ax]).max())
