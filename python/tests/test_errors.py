"""test_errors.py: what a wrong call gets.  Names the kernel lacks, results
given as inputs, inputs left out, lengths that disagree and values of the
wrong kind raise ValueError or TypeError before anything runs, with the
runtime's message where the runtime says it; a source with errors raises
CompileError carrying each file:line:col diagnostic."""

import warnings

import numpy as np
import pytest

import nbcc


@pytest.fixture(scope="module")
def gauss(example):
    return example("gauss_transform")


@pytest.fixture(scope="module")
def k(gauss):
    return nbcc.Kernel(gauss, precision="double", device="host")


def args(n=5, m=4, **over):
    a = {"tx": np.zeros(n), "ty": np.zeros(n), "tz": np.zeros(n),
         "sx": np.ones(m), "sy": np.ones(m), "sz": np.ones(m),
         "w": np.ones(m), "h2": 0.5}
    a.update(over)
    return {n: x for n, x in a.items() if x is not None}


def test_unknown_name(k):
    with pytest.raises(ValueError) as e:
        k(**args(), foo=np.zeros(5))
    # the runtime's message, which lists what there is
    assert str(e.value) == (
        "kernel gauss_transform has no variable 'foo' (it has LMEM tx, "
        "LMEM ty, LMEM tz, BMEM sx, BMEM sy, BMEM sz, BMEM w, CONST h2, "
        "RMEM g)")


def test_result_given(k):
    with pytest.raises(ValueError, match="'g' is an RMEM, a result"):
        k(**args(), g=np.zeros(5))


def test_missing(k):
    with pytest.raises(ValueError) as e:
        k(**args(ty=None, h2=None))
    assert str(e.value) == ("kernel gauss_transform: LMEM 'ty', CONST 'h2' "
                            "are not given")
    with pytest.raises(ValueError, match="BMEM 'w' is not given"):
        k(**args(w=None))


def test_lengths(k):
    with pytest.raises(ValueError) as e:
        k(**args(ty=np.zeros(6)))
    assert str(e.value) == ("kernel gauss_transform: LMEM 'ty' has 6 "
                            "elements, but LMEM 'tx' has 5 (every LMEM "
                            "holds Ni elements)")
    with pytest.raises(ValueError, match="BMEM 'w' has 3 elements, but "
                                         "BMEM 'sx' has 4"):
        k(**args(w=np.ones(3)))


def test_dtypes(k):
    with pytest.raises(TypeError, match="LMEM 'tx': cannot use an array of "
                                        "dtype complex128"):
        k(**args(tx=np.zeros(5, complex)))
    with pytest.raises(TypeError, match="dtype object"):
        k(**args(sx=np.array([None] * 4)))
    with pytest.raises(TypeError, match="dtype datetime64"):
        k(**args(sx=np.zeros(4, "datetime64[s]")))
    with pytest.raises(TypeError, match="CONST 'h2': a real number"):
        k(**args(h2=1j))
    with pytest.raises(TypeError, match="CONST 'h2'"):
        k(**args(h2=object()))


def test_masked(k):
    """A masked array's mask is not dropped: its masked elements' values
    ran as if given, silently.  Without a masked element it is an array."""
    tx = np.ma.masked_array(np.zeros(5), mask=[0, 1, 0, 1, 0])
    with pytest.raises(ValueError) as e:
        k(**args(tx=tx))
    assert str(e.value) == (
        "kernel gauss_transform: LMEM 'tx': a masked array with 2 masked "
        "elements: the kernel has no mask; give x.filled(value) or "
        "x.compressed()")
    with pytest.raises(ValueError, match="BMEM 'w': a masked array"):
        k(**args(w=np.ma.masked_invalid([1.0, np.nan, 1.0, 1.0])))
    plain = k(**args())["g"]
    for m in (np.ma.masked_array(np.zeros(5)),
              np.ma.masked_array(np.zeros(5), mask=[0] * 5)):
        assert np.array_equal(k(**args(tx=m))["g"], plain)


def test_shapes_and_values(k):
    with pytest.raises(ValueError, match="LMEM 'tx': a 1-D array is needed"):
        k(**args(tx=np.zeros((5, 1))))
    with pytest.raises(ValueError, match="CONST 'h2': one value is needed"):
        k(**args(h2=np.array([0.5, 1])))
    # decimal strings too: their shape was read flat, a (5, 1) array as
    # the 5 elements of an LMEM, and one string as an array of 1
    with pytest.raises(ValueError, match=r"LMEM 'tx': a 1-D array is "
                                         r"needed, not shape \(5, 1\)"):
        k(**args(tx=np.full((5, 1), "0.5")))
    with pytest.raises(ValueError, match=r"LMEM 'tx': a 1-D array is "
                                         r"needed, not shape \(\)"):
        k(**args(n=1, tx="0.5"))
    with pytest.raises(ValueError) as e:
        k(**args(h2="1.5x"))
    assert str(e.value) == "kernel gauss_transform: CONST 'h2': '1.5x' is " \
                           "not a number"
    with pytest.raises(ValueError, match="'1e999' is out of range for "
                                         "double"):
        k(**args(h2="1e999"))
    # the text as given, a control byte escaped: a raw ESC reached the
    # terminal
    with pytest.raises(ValueError) as e:
        k(**args(tx=["0", "1\x1b[2J", "0", "0", "0"]))
    assert str(e.value) == "kernel gauss_transform: LMEM 'tx'[1]: " \
                           "'1\\x1b[2J' is not a number"
    with pytest.raises(ValueError, match=r"^nbcc.dd: '\\x07' is not a "):
        nbcc.dd("\x07")
    with pytest.raises(ValueError, match=r"BMEM 'w'\[2\]: 'nan' is not a "
                                         "finite number"):
        k(**args(w=["1", "2", "nan", "3"]))
    # a float CONST as the decimal's text is read: within float's range
    # (1e300 was passed on, inf in the kernel, its results NaN)
    kf = nbcc.Kernel(k.path, precision="float", device="host")
    for big in (1e300, -np.float64(1e39), nbcc.dd("1e300"), "1e300"):
        with pytest.raises(ValueError, match="CONST 'h2': .*1e.?300.? is "
                           "out of range for float|CONST 'h2': -1e.39 is "
                           "out of range for float"):
            kf(**args(h2=big))
    assert np.isfinite(kf(**args(h2=3.4028235e38))["g"]).all()
    # numbers as nbrun --const takes them: finite only
    for bad in (float("nan"), np.inf, -np.float32("inf"),
                nbcc.DD(np.inf, 0.0)):
        with pytest.raises(ValueError, match="CONST 'h2': .* is not a "
                                             "finite number"):
            k(**args(h2=bad))


def test_limits(gauss, tmp_path):
    # a source larger than nbcc's 16 MiB is refused before it is read:
    # /dev/zero would never end
    with pytest.raises(ValueError, match="'/dev/zero' is larger than 16 "
                                         "MiB"):
        nbcc.Kernel("/dev/zero", device="host")
    big = tmp_path / "big.nbl"
    big.write_bytes(b"// " + b"x" * (16 << 20) + b"\n")
    with pytest.raises(ValueError, match="is larger than 16 MiB"):
        nbcc.Kernel(big, device="host")
    # its path as given, a control byte escaped (it reached the terminal)
    esc = tmp_path / "zero\x1b[2J"
    esc.symlink_to("/dev/zero")
    with pytest.raises(ValueError, match=r"zero\\x1b\[2J' is larger than"):
        nbcc.Kernel(esc, device="host")
    with pytest.raises(ValueError, match="a NUL character is not allowed"):
        nbcc.Kernel(gauss, device="host", name="ab\0cd")
    # an inline kernel's messages do not say "kernel kernel"
    k = nbcc.Kernel("LMEM x; BMEM y; RMEM r; r += x*y;", device="host")
    with pytest.raises(ValueError) as e:
        k(x=[1.0])
    assert str(e.value) == "kernel unnamed: BMEM 'y' is not given"


def test_compile_error_text():
    src = "LMEM x;\nBMEM y;\nRMEM r;\nr += x*z;\n"
    with pytest.raises(nbcc.CompileError) as e:
        nbcc.Kernel(src, device="host")
    assert isinstance(e.value, ValueError)
    d = e.value.diagnostics
    assert d and d[0].file == "<string>" and (d[0].line, d[0].col) == (4, 8)
    assert d[0].kind == "error" and "'z'" in d[0].message
    assert "<string>:4:8: error:" in str(e.value)
    assert "^" in str(e.value)  # the source line and its caret come along


def test_compile_error_file(tmp_path):
    p = tmp_path / "bad.nbl"
    p.write_text("LMEM x;\nBMEM y;\nRMEM r;\nq = ;\nr += x;\n")
    with pytest.raises(nbcc.CompileError) as e:
        nbcc.Kernel(p, device="host")
    assert [(x.file, x.line, x.col) for x in e.value.diagnostics] == \
        [(str(p), 4, 5)]
    # a path the messages escape (a control byte) is still the source's
    # errors: it raised nbcc.Error, as if the C compiler had failed
    q = tmp_path / "bad\x1b[31m.nbl"
    q.write_text(p.read_text())
    with pytest.raises(nbcc.CompileError) as e:
        nbcc.Kernel(q, device="host")
    assert "\x1b" not in str(e.value)
    assert [(x.file, x.line, x.col) for x in e.value.diagnostics] == \
        [(str(q).replace("\x1b", "\\x1b"), 4, 5)]


def test_options(gauss):
    with pytest.raises(TypeError, match="unknown option 'unrol_i'"):
        nbcc.Kernel(gauss, unrol_i=2)
    with pytest.raises(ValueError, match="bad value '0' for --unroll-i"):
        nbcc.Kernel(gauss, device="host", unroll_i=0)
    with pytest.raises(ValueError, match="bad value 'fast' for --sched"):
        nbcc.Kernel(gauss, device="host", sched="fast")
    with pytest.raises(TypeError, match="fast_math=1"):
        nbcc.Kernel(gauss, device="host", fast_math=1)
    with pytest.raises(ValueError, match="precision must be"):
        nbcc.Kernel(gauss, precision="half")
    # it said "unhashable type: 'list'"
    with pytest.raises(TypeError, match="precision must be 'float', "
                                        "'double' or 'dd', not list"):
        nbcc.Kernel(gauss, precision=["dd"])


def test_files_and_devices(gauss, tmp_path):
    with pytest.raises(FileNotFoundError):
        nbcc.Kernel(str(tmp_path / "none.nbl"))
    with pytest.raises(FileNotFoundError):
        nbcc.Kernel("gravity")  # a typo of a path, not a source
    # one line of source is source, and so is text without a ';'
    k = nbcc.Kernel("LMEM x; BMEM y; RMEM r; r += x*y;", device="host")
    assert k(x=[1, 2], y=[3, 4])["r"].tolist() == [7, 14]
    with pytest.raises(nbcc.CompileError, match="<string>:1:"):
        nbcc.Kernel("RMEM r", device="host")
    with pytest.raises(nbcc.DeviceError, match="no-such-device"):
        nbcc.Kernel(gauss, device="no-such-device")
    cl = tmp_path / "g.cl"
    k = nbcc.Kernel(gauss, precision="double", device="host")
    src = k.source
    k2 = nbcc.Kernel(gauss, precision="double", device="cpu") \
        if any(d.type == "cpu" for d in nbcc.devices()) else None
    if k2 is not None:
        cl.write_text(k2.source)
        with pytest.raises(nbcc.Error, match="is an OpenCL kernel, but the "
                                             "host device runs C kernels"):
            nbcc.Kernel(cl, device="host")
    assert src.startswith("/* Generated by nbcc")
    # code nbcc wrote is taken as it is, its options aside, as nbrun says
    # with a warning: precision="float" gave a double kernel and grad=
    # the primal, without a word
    c = tmp_path / "g.c"
    c.write_text(src)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nbcc.Kernel(c, device="host").precision == "double"
        nbcc.Kernel(c, precision="double", device="host")
    with pytest.warns(RuntimeWarning, match=r"precision='float' is ignored: "
                      r"'.*g\.c' is compiled already"):
        assert nbcc.Kernel(c, precision="float",
                           device="host").precision == "double"
    with pytest.warns(RuntimeWarning, match="grad='tx' is ignored"):
        assert "dg_dtx" not in nbcc.Kernel(c, device="host",
                                           grad="tx").results


def test_memory_of_copies(k, monkeypatch):
    """The copies of the inputs the runtime cannot take as they are (a
    broadcast column, integers) count in the memory check, before any is
    made: each was made, then only the results were checked, so copies
    that fit one at a time could together exhaust the memory."""
    nj = 2 * 10 ** 6
    col = np.broadcast_to(np.float64(1), (nj,))  # 8 bytes, 16 MB copied
    big = args(m=nj, sx=col, sy=col, sz=np.zeros(nj, np.int32), w=col)
    monkeypatch.setattr(nbcc._lib.rt, "nbrt_host_memory", lambda: 40e6)
    with pytest.raises(MemoryError, match=r"Ni = 5, Nj = 2000000 needs .* "
                       r"\(results 40 bytes, the inputs' copies 61 MiB, "
                       r"the runtime .*\), and 38 MiB is available"):
        k(**big)
    # contiguous float64 inputs are the runtime's as they are: no copy
    assert k(**args(m=nj, sx=np.ones(nj), sy=np.ones(nj), sz=np.ones(nj),
                    w=np.ones(nj)))["g"].shape == (5,)


def test_names_escaped(k, gauss, example):
    """A name the kernel lacks comes back in the runtime's or the
    compiler's message with its control bytes escaped (nb_esc), as every
    path is: a raw ESC reached the terminal that printed the exception."""
    pos = (("tx", "ty", "tz"), ("sx", "sy", "sz"))
    bad = (("tx", "t\x1b[2J", "tz"), pos[1])
    # the treecode's: a kernel with a far field (far/gravity_*.nbl)
    grav = nbcc.Kernel(example("gravity"), precision="double", device="host")
    g_args = {v: np.arange(4.0) for v in grav.inputs}
    g_args["eps2"] = 0.01
    calls = [lambda: k(**args(), **{"q\x1b[2J": 1.0}),
             lambda: k(**args(), cutoff=1.0, pos=bad),
             lambda: grav(**g_args, theta=0.5,
                          pos=(("xi", "y\x1b[2J", "zi"), ("xj", "yj", "zj"))),
             lambda: k.grad("h2,q\x1b[2J", **args()),
             lambda: nbcc.Kernel(gauss, device="host", grad="sx,tx,\x1b[2J"),
             lambda: nbcc.Kernel(gauss, device="host", jvp="tx:t\x1b[2J")]
    for call in calls:
        # a run's failure is nbcc.Error; the rest are ValueErrors
        with pytest.raises((ValueError, nbcc.Error)) as e:
            call()
        assert "\x1b" not in str(e.value) and "\\x1b[2J" in str(e.value)


def test_probed_arguments(k):
    """Values that C would read otherwise than Python wrote them (a size
    past size_t wrapped, a name or device ended at a NUL), or that Python
    itself refused with no word of the argument, are refused by name."""
    pos = (("tx", "ty", "tz"), ("sx", "sy", "sz"))
    huge = 10 ** 400
    for kw in ({"cutoff": huge, "pos": pos},
               {"cutoff": 1.0, "pos": pos, "periodic": huge},
               {"theta": huge}):
        with pytest.raises(ValueError, match="kernel gauss_transform: "
                           r"\w+=: an integer of 401 digits is beyond"):
            k(**args(), **kw)
    with pytest.raises(ValueError, match="CONST 'h2': an integer of 401 "
                                         "digits"):
        k(**args(h2=huge))
    # an integer past 2^64, which numpy holds as an object, is a number
    assert k(**args(h2=2 ** 70))["g"].shape == (5,)
    # 2^64 + 16 would reach the runtime as a bucket of 16
    for opt in ("bucket", "group"):
        with pytest.raises(ValueError, match="%s= is 18446744073709551632: "
                                             "a count of bodies" % opt):
            k(**args(), theta=0.5, **{opt: 2 ** 64 + 16})
    with pytest.raises(TypeError, match="far= takes a Kernel or a path, "
                                        "not int"):
        k(**args(), theta=0.5, far=3)
    # "tz\0x" would be read as tz
    for kw in ({"cutoff": 1.0}, {"theta": 0.5, "far": k}):
        with pytest.raises(ValueError, match=r"pos=: 'tz\\x00x': a NUL"):
            k(**args(), pos=(("tx", "ty", "tz\0x"), pos[1]), **kw)
    with pytest.raises(ValueError, match=r"device 'host\\x00x': a NUL"):
        nbcc.Device("host\0x")
    with pytest.raises(TypeError, match="device must be a str"):
        nbcc.Device(1)
    with pytest.raises(TypeError, match="run.. takes the inputs as a "
                                        "mapping"):
        k.run([1, 2])
    # keys that are not names: AttributeError ('int' object has no
    # attribute 'replace') or bytes' TypeError, naming no argument
    for key in (1, b"tx", None):
        with pytest.raises(TypeError, match=r"run\(\): an input's name is "
                                            "a str, not"):
            k.run({**args(), key: 1.0})
    # grad()'s own keywords: per_i="no" was taken as True, of=["g"] raised
    # "unhashable type: 'list'"
    with pytest.raises(TypeError, match=r"per_i= takes True or False, "
                                        "not str"):
        k.grad("h2", per_i="no", **args())
    with pytest.raises(TypeError, match=r"of= takes a result's name, not "
                                        "list"):
        k.grad("h2", of=["g"], **args())
    with pytest.raises(TypeError, match="wrt=1: a name"):
        k.grad(1, **args())
    # a complex cotangent's imaginary part would be dropped
    with pytest.raises(TypeError, match="cotangent= must hold real numbers"):
        k.grad("h2", cotangent=np.ones(5) * 1j, **args())
    # a view is read as its elements, not as the memory under it
    a = args()
    strided = dict(a, sx=np.repeat(a["sx"] + np.arange(4), 2)[::2])
    assert np.array_equal(k(**strided)["g"],
                          k(**dict(a, sx=a["sx"] + np.arange(4)))["g"])


def test_surrogate_names(k):
    """A name with a lone surrogate (os.fsdecode makes them) is refused
    by name: its bare UnicodeEncodeError named no argument.  The runtime
    escapes the backslash of its \\udcff, as it does a NUL's \\0."""
    with pytest.raises(ValueError) as e:
        k(**args(), **{"t\udcff": 1.0})
    assert not isinstance(e.value, UnicodeError)
    assert str(e.value).startswith(
        "kernel gauss_transform has no variable 't\\\\udcff' (it has LMEM "
        "tx")
    pos = (("tx", "ty", "t\udcff"), ("sx", "sy", "sz"))
    for kw in ({"cutoff": 1.0}, {"theta": 0.5, "far": k}):
        with pytest.raises(ValueError) as e:
            k(**args(), pos=pos, **kw)
        assert not isinstance(e.value, UnicodeError)
        assert "kernel gauss_transform: pos=: 't\\udcff' is not a name" \
            in str(e.value)


def test_surrogate_elsewhere(gauss):
    """The same surrogate in a flag's value, a device's spec or a source
    string goes to C as its byte (surrogateescape, os.fsdecode's inverse),
    which C refuses by name: each was a bare UnicodeEncodeError."""
    with pytest.raises(ValueError, match=r"bad value 'a\\xff' for --name"):
        nbcc.Kernel(gauss, name="a\udcff", device="host")
    with pytest.raises(nbcc.DeviceError, match=r"'a\\xff'"):
        nbcc.Kernel(gauss, device="a\udcff")
    with pytest.raises(nbcc.CompileError,
                       match=r"<string>:2:9: error: unexpected byte 0xFF"):
        nbcc.Kernel("LMEM x; BMEM y; RMEM r;\nr += x*y\udcff;\n",
                    device="host")
