"""nbcc: pairwise kernel sums from numpy.

    import numpy as np, nbcc
    k = nbcc.Kernel("gravity.nbl", precision="double")
    out = k(xi=x, yi=y, zi=z, xj=x, yj=y, zj=z, mj=m, eps2=1e-4)
    out["ax"]                      # a numpy array per RMEM

A kernel is an nbcc source (a path, or the text itself), compiled for the
device by the nbcc runtime (libnbrt.so) and called with every LMEM, BMEM
and CONST by its declared name.  docs/python.md is the guide."""

import collections
import ctypes
import os
import re
import threading
import weakref

import numpy as np

from . import _lib
from ._lib import cc as _cc, rt as _rt

__all__ = ["Kernel", "DD", "dd", "devices", "Device", "DeviceInfo",
           "Diagnostic", "Error", "DeviceError", "CompileError"]


def _version():
    try:
        from ._version import version
        return version
    except ImportError:  # the source tree: read nbcc.h beside it
        h = os.path.join(os.path.dirname(__file__), "..", "..", "compiler",
                         "nbcc.h")
        try:
            with open(h) as f:
                m = re.search(r'#define NBCC_VERSION "([^"]*)"', f.read())
            return m.group(1) if m else "unknown"
        except OSError:
            return "unknown"


__version__ = _version()


# --- errors ------------------------------------------------------------

class Error(Exception):
    """A failure of the runtime: the device, its compiler, a run."""


class DeviceError(Error):
    """No device could be opened as asked."""


Diagnostic = collections.namedtuple("Diagnostic",
                                    "file line col kind message")
Diagnostic.__doc__ = "One compiler message: file:line:col: kind: message."
_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning): (.*)$")


class CompileError(Error, ValueError):
    """The source has errors.  str() is the compiler's whole report (with
    the source lines and carets); .diagnostics has one Diagnostic each."""

    def __init__(self, message):
        super().__init__(message)
        self.diagnostics = []
        for line in message.splitlines():
            m = _DIAG.match(line)
            if m:
                self.diagnostics.append(Diagnostic(
                    m.group(1), int(m.group(2)), int(m.group(3)),
                    m.group(4), m.group(5)))


# --- double-double ------------------------------------------------------

def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


class DD:
    """Double-double values, hi + lo with |lo| <= ulp(hi)/2: nbcc's dd, about
    32 significant digits.  Stored as pairs, an array of shape (..., 2)
    float64 as the runtime takes them, so a DD passes to a kernel without
    a copy; .hi and .lo are views of it.  DD(hi, lo) normalizes the pair;
    nbcc.dd() makes one from decimal strings, long doubles or floats."""

    __slots__ = ("pairs",)

    def __init__(self, hi, lo=None):
        hi = np.asarray(hi, dtype=np.float64)
        lo = np.zeros_like(hi) if lo is None else np.asarray(lo, np.float64)
        if hi.shape != lo.shape:
            raise ValueError("DD: hi has shape %s, lo %s" % (hi.shape,
                                                              lo.shape))
        s, e = _two_sum(hi, lo)
        # an infinite or NaN hi keeps lo = 0, as the kernels' dd does
        e = np.where(np.isfinite(s), e, 0.0)
        self.pairs = np.stack([s, e], axis=-1)

    @classmethod
    def from_pairs(cls, pairs):
        """A DD on an array of shape (..., 2) float64 (hi, lo), no copy."""
        pairs = np.asarray(pairs)
        if pairs.dtype != np.float64 or pairs.ndim < 1 or \
                pairs.shape[-1] != 2:
            raise ValueError("DD.from_pairs: an array of shape (..., 2) "
                             "float64 is needed, not %s %s" %
                             (pairs.shape, pairs.dtype))
        d = cls.__new__(cls)
        d.pairs = pairs
        return d

    hi = property(lambda self: self.pairs[..., 0], doc="the high parts")
    lo = property(lambda self: self.pairs[..., 1], doc="the low parts")
    shape = property(lambda self: self.pairs.shape[:-1])

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        return DD.from_pairs(self.pairs[i])

    def __array__(self, dtype=None, copy=None):
        """hi + lo, rounded to float64."""
        a = self.hi + self.lo
        return a if dtype is None else a.astype(dtype)

    def to_longdouble(self):
        """hi + lo as numpy's long double (64 bits of mantissa on x86)."""
        return self.hi.astype(np.longdouble) + self.lo.astype(np.longdouble)

    def to_strings(self):
        """Each value as the shortest decimal (32 digits at least) that
        reads back as the same dd: an array of str."""
        buf = ctypes.create_string_buffer(1024)
        flat = [(_cc.nb_dd_write(buf, len(buf), h, l), buf.value.decode())[1]
                for h, l in zip(self.hi.ravel().tolist(),
                                self.lo.ravel().tolist())]
        return np.array(flat, dtype=str).reshape(self.shape)

    def __repr__(self):
        s = self.to_strings()
        return "DD(%s)" % (np.array2string(s, separator=", ")
                           if s.ndim else repr(str(s)))


def _read_decimal(s, prec, what):
    """Decimal text to (hi, lo) at precision prec, exactly, as nbrun reads
    CSV values."""
    if isinstance(s, bytes):
        s = s.decode("utf-8", "replace")
    b = s.encode("utf-8")
    v = (ctypes.c_double * 2)()
    r = _cc.nb_num_read(b, len(b), prec, v)
    if r:
        name = ("float", "double", "dd")[prec]
        why = {_lib.NB_NUM_NONFINITE: "is not a finite number",
               _lib.NB_NUM_RANGE: "is out of range for " + name}
        raise ValueError("%s: '%s' %s" % (what, s,
                                           why.get(r, "is not a number")))
    return v[0], v[1]


def dd(x, lo=None):
    """A DD from: decimal strings ("0.1", read exactly to the nearest dd),
    numpy long doubles (split exactly), other real numbers or arrays
    (lo = 0), a DD (itself), or two arrays dd(hi, lo)."""
    if lo is not None:
        return DD(x, lo)
    if isinstance(x, DD):
        return x
    a = np.asarray(x)
    if a.dtype.kind in "US":
        flat = [_read_decimal(s, _lib.NB_DD, "nbcc.dd")
                for s in a.ravel().tolist()]
        p = np.array(flat, dtype=np.float64).reshape(a.shape + (2,))
        return DD.from_pairs(p)
    if a.dtype == np.longdouble and np.dtype(np.longdouble) != np.float64:
        hi = a.astype(np.float64)
        return DD(hi, (a - hi).astype(np.float64))
    if a.dtype.kind not in "fiub":
        raise TypeError("nbcc.dd: cannot make double-doubles of dtype %s"
                        % a.dtype)
    return DD(a.astype(np.float64))


# --- devices ------------------------------------------------------------

DeviceInfo = collections.namedtuple("DeviceInfo", "spec type name")
DeviceInfo.__doc__ = ("A device: spec (what device= takes), type (gpu, "
                      "cpu, other or host), name.")


class Device:
    """An open device (nbrt_open), shared by every kernel loaded on it.
    Kernel() opens them; nbcc.Device(spec) is there for .describe()."""

    def __init__(self, spec=None):
        err = ctypes.c_void_p()
        h = _rt.nbrt_open(spec.encode() if spec else None, ctypes.byref(err))
        if not h:
            raise DeviceError(_lib.take_string(err.value) or
                              "cannot open a device")
        self._h = h
        self.name = _lib.text(_rt.nbrt_device_name(h))
        self.is_host = bool(_rt.nbrt_is_host(h))
        self.target = _lib.text(_rt.nbrt_target(h))
        self.cache_dir = _lib.text(_rt.nbrt_cache_dir(h)) or None
        # the runtime's calls on one device are made one at a time;
        # reentrant, as a kernel collected while the lock is held (by the
        # garbage collector, in this thread) frees itself under it
        self.lock = threading.RLock()
        self._fin = weakref.finalize(self, _rt.nbrt_close, h)

    def describe(self):
        """The device's limits (nbrun --device-info) as a dict of str."""
        with self.lock:
            t, _ = _lib.printed(_rt.nbrt_describe, self._h)
        return dict(line.split(" ", 1) for line in t.splitlines()
                    if " " in line)

    def error(self):
        return _lib.text(_rt.nbrt_error(self._h))

    def __repr__(self):
        return "<nbcc.Device %s>" % self.name


_devices = {}
_ENV = ("NBRT_DEVICE", "NBRT_CACHE_DIR", "NBRT_CACHE", "XDG_CACHE_HOME",
        "HOME", "NBRT_VERBOSE", "NBRT_CC", "CC")
_devices_lock = threading.Lock()


def _device(spec):
    """The open device for spec, opened once per process: None is what the
    C programs do (NBRT_DEVICE, else a GPU, else a CPU, else the host),
    read when first asked."""
    if spec is not None and not isinstance(spec, str):
        raise TypeError("device must be a str such as 'cpu', 'gpu', "
                        "'host', '0:1', not %s" % type(spec).__name__)
    # what nbrt_open reads of the environment is part of the key, so a
    # kernel sees the NBRT_DEVICE and NBRT_CACHE_DIR of its creation
    key = (spec or "",) + tuple(os.environ.get(e) for e in _ENV)
    with _devices_lock:
        d = _devices.get(key)
        if d is None:
            d = _devices[key] = Device(spec)
        return d


def devices():
    """The devices there are: each OpenCL device (platform:device), then the
    host, as DeviceInfo(spec, type, name)."""
    text, n = _lib.printed(_rt.nbrt_list)
    if n < 0:
        raise DeviceError(text.strip() or "cannot list the OpenCL devices")
    out = []
    for line in text.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3:
            out.append(DeviceInfo(*parts))
    out.append(DeviceInfo("host", "host", _device("host").name))
    return out


# --- kernels ------------------------------------------------------------

Var = collections.namedtuple("Var", "name role type")
Var.__doc__ = "A variable of a kernel: name, role (LMEM...), type (float...)."
_PREC = {"float": _lib.NB_FLOAT, "double": _lib.NB_DOUBLE, "dd": _lib.NB_DD}
_RESULT_DTYPE = {"float": np.float32, "double": np.float64}

# keyword options and the nbcc flags they stand for (docs/python.md)
_VALUED = {"unroll_i": "--unroll-i", "unroll_j": "--unroll-j",
           "jsplit": "--jsplit", "sched": "--sched", "wg": "--wg",
           "tile": "--tile", "name": "--name"}
_SWITCH = {"fast_math": ("--fast-math", None), "fma": ("--fma", "--no-fma"),
           "ftz": (None, "--no-ftz")}


class _Options:
    """An nb_options, opaque: 4 KiB is far more than the struct, and the
    flags' text stays alive as long as the options (it points into it)."""

    def __init__(self, flags):
        self.buf = (ctypes.c_double * 512)()
        self.flags = [f.encode() for f in flags]
        _cc.nb_options_init(self.buf)
        err = ctypes.create_string_buffer(512)
        for f in self.flags:
            r = _cc.nb_options_parse(self.buf, f, None, err, len(err))
            if r != 1:
                raise ValueError(err.value.decode() if r < 0 else
                                 "not an nbcc flag: " + f.decode())


def _flags(precision, options):
    flags = []
    if precision is not None:
        if precision not in _PREC:
            raise ValueError("precision must be 'float', 'double' or 'dd', "
                             "not %r" % (precision,))
        flags.append("--precision=" + precision)
    for k, v in options.items():
        if k in _VALUED:
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise TypeError("%s=%r: an int or str is needed" % (k, v))
            flags.append("%s=%s" % (_VALUED[k], v))
        elif k in _SWITCH:
            if not isinstance(v, bool):
                raise TypeError("%s=%r: True or False is needed" % (k, v))
            f = _SWITCH[k][0 if v else 1]
            if f:
                flags.append(f)
        else:
            raise TypeError("Kernel() got an unknown option %r (options: "
                            "precision, device, %s)" %
                            (k, ", ".join(sorted(list(_VALUED) +
                                                 list(_SWITCH)))))
    return flags


_EXTS = (".nbl", ".cl", ".c", ".il")


def _ext(name):
    return os.path.splitext(name)[1]


def _generated(name, text):
    """Whether the runtime takes the text as code nbcc wrote (nbrt.c's
    is_generated): by the extension, else by the interface header."""
    e = _ext(name)
    if e in _EXTS:
        return e != ".nbl"
    return b"nbcc-interface 1" in text[:4096]


def _source(source):
    """(name for messages, the text as bytes, path or None)."""
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
    elif isinstance(source, bytes):
        return "<string>", source, None
    elif isinstance(source, str):
        # a kernel's text has a ';' and most often a newline; a path of
        # no file is still a path where it ends in an extension nbcc knows
        # or has no blank (so that a typo says "no such file")
        if "\n" in source or ";" in source or not (
                os.path.exists(source) or _ext(source) in _EXTS or
                not any(c.isspace() for c in source)):
            return "<string>", source.encode(), None
        path = source
    else:
        raise TypeError("Kernel(): a path or the source text is needed, "
                        "not %s" % type(source).__name__)
    with open(path, "rb") as f:
        return path, f.read(), path


def _parse_iface(text):
    f = {"vars": []}
    for line in text.splitlines():
        key, _, rest = line.partition(" ")
        if key == "var":
            w = rest.split()
            f["vars"].append(Var(w[0], w[1], w[2]))
        elif key in ("unroll", "launch", "flops"):
            f[key] = tuple(float(x) if key == "flops" else int(x)
                           for x in rest.split())
        elif key not in ("pack", "end", "nbcc-interface"):
            f[key] = rest
    return f


class Kernel:
    """An nbcc kernel loaded on a device.

    Kernel(source, precision=None, device=None, **options): source is a
    path (.nbl, or a .cl/.c nbcc wrote) or the source text itself;
    precision the type of untyped declarations ("float", "double", "dd";
    None: the source's own nbcc-options line, else float); device "cpu",
    "gpu", "host", "P:D" or part of a name (None: as the C programs,
    $NBRT_DEVICE, else a GPU, else a CPU, else the host).  options are
    nbcc's flags: unroll_i, unroll_j, jsplit, sched ("none",
    "interleave"), fast_math, fma, ftz, wg, tile, name.

    k(**inputs) runs it over every pair (i, j): each LMEM and BMEM a 1-D
    array, each CONST a number, by name; returns {RMEM name: array}."""

    def __init__(self, source, precision=None, device=None, **options):
        self._dev = _device(device)
        flags = _flags(precision, options)
        name, text, self.path = _source(source)
        if self.path is None and "name" not in options and \
                b"--name" not in text:
            flags.append("--name=kernel")  # not "_string_"
        self._opts = _Options(flags)
        self._text = text
        self._name = name
        d = self._dev
        with d.lock:
            h = _rt.nbrt_load_source(d._h, os.fsencode(name), text,
                                     len(text), self._opts.buf)
            msg = None if h else d.error()
        if not h:
            if msg.startswith("cannot compile %s:\n" % name):
                raise CompileError(msg)
            raise Error(msg)
        self._h = h
        self._fin = weakref.finalize(self, _free, d, h)
        self.kernel_time = self.total_time = 0.0
        self.launches = 0
        self._read_iface()

    def _read_iface(self):
        f = self._iface_ptr = _rt.nbrt_iface(self._h)
        self.interface, _ = _lib.printed(
            lambda fp: _cc.nb_iface_print(f, fp, b""))
        i = _parse_iface(self.interface)
        self._iface = i
        self.name = i["kernel"]
        self.target = i["target"]
        self.precision = i["precision"]
        self.flags = i.get("flags", "")
        self.variables = tuple(i["vars"])
        self._var = {v.name: v for v in self.variables}

    def _role(self, role):
        return [v.name for v in self.variables if v.role == role]

    inputs = property(lambda self: self._role("LMEM") + self._role("BMEM"),
                      doc="the LMEM then the BMEM names")
    consts = property(lambda self: self._role("CONST"), doc="CONST names")
    results = property(lambda self: self._role("RMEM"), doc="RMEM names")
    device = property(lambda self: self._dev.name, doc="the device's name")
    cache_hit = property(lambda self: bool(_rt.nbrt_cache_hit(self._h)),
                         doc="whether the program came from the cache")

    def __repr__(self):
        sig = ", ".join("%s %s %s" % (v.role, v.type, v.name)
                        for v in self.variables)
        return "<nbcc.Kernel %s(%s) on %s>" % (self.name, sig, self.device)

    # what nbcc writes for this kernel, from the flags and target its
    # interface records (they reproduce it: docs/language.md)
    def _compile(self, emit):
        if _generated(self._name, self._text):
            if emit == "code":
                return self._text.decode("utf-8", "replace")
            raise ValueError("kernel %s was loaded from generated code: "
                             "%s needs its .nbl" % (self.name, emit))
        o = _Options(self.flags.split() + ["--target=" + self.target])
        out = _lib.Output()
        r = _cc.nb_compile(os.fsencode(self._name), self._text,
                           len(self._text), o.buf, emit.encode(), None,
                           ctypes.byref(out))
        try:
            if r or not out.code:
                raise Error("kernel %s: nb_compile --emit=%s failed" %
                            (self.name, emit))
            return ctypes.string_at(out.code, out.len).decode(
                "utf-8", "replace")
        finally:
            _cc.nb_output_free(ctypes.byref(out))

    @property
    def source(self):
        """The generated code (OpenCL C or C) the device runs."""
        return self._compile("code")

    def explain(self):
        """The loop nest after the transforms (nbcc --explain)."""
        return self._compile("explain")

    def stats(self):
        """Operation counts and a register estimate (nbcc --stats)."""
        return self._compile("stats")

    # --- a run ---------------------------------------------------------

    def _fail(self, what):
        return "kernel %s: %s" % (self.name, what)

    def _check_names(self, given):
        for name in given:
            v = self._var.get(name)
            if v is None:
                # the runtime's own message, which lists the names
                with self._dev.lock:
                    _rt.nbrt_set_const(self._h,
                                       name.replace("\0", "\\0").encode(),
                                       0.0, 0.0)
                    raise ValueError(self._dev.error())
            if v.role == "RMEM":
                raise ValueError(self._fail(
                    "'%s' is an RMEM, a result: it is returned, not given"
                    % name))
        missing = ["%s '%s'" % (v.role, v.name) for v in self.variables
                   if v.role != "RMEM" and v.name not in given]
        if missing:
            raise ValueError(self._fail("%s %s not given" % (
                ", ".join(missing), "is" if len(missing) == 1 else "are")))

    def _array(self, v, x):
        """x as an array the runtime can take for v without another copy:
        (array, nbrt type)."""
        what = "%s '%s'" % (v.role, v.name)
        if isinstance(x, DD):
            p = x.pairs
            if p.ndim != 2:
                raise ValueError(self._fail("%s: a 1-D DD is needed, not "
                                            "shape %s" % (what, x.shape)))
            return np.require(p, np.float64, ["C", "A"]), _lib.NBRT_DD
        a = x if isinstance(x, np.ndarray) else np.asarray(x)
        if a.dtype.kind in "US":
            prec = _PREC[v.type]
            flat = [_read_decimal(s, prec, self._fail("%s[%d]" % (what, i)))
                    for i, s in enumerate(a.ravel().tolist())]
            if prec == _lib.NB_DD:
                return np.array(flat, np.float64).reshape(-1, 2), \
                    _lib.NBRT_DD
            a = np.array([h for h, _ in flat], _RESULT_DTYPE[v.type])
        if a.dtype.kind not in "fiub":
            raise TypeError(self._fail(
                "%s: cannot use an array of dtype %s: real numbers are "
                "needed (float32 and float64 as they are, integers and "
                "bools as float64, decimal strings read exactly)" %
                (what, a.dtype)))
        if a.ndim != 1:
            raise ValueError(self._fail("%s: a 1-D array is needed, not "
                                        "shape %s" % (what, a.shape)))
        if a.dtype == np.longdouble and v.type == "dd" and \
                np.dtype(np.longdouble) != np.float64:
            return dd(a).pairs, _lib.NBRT_DD
        if a.dtype == np.float32:
            return np.require(a, np.float32, ["C", "A"]), _lib.NBRT_FLOAT
        # float64 as it is; the rest (ints, bools, halves, long doubles)
        # become float64, which holds them exactly or nearest
        return np.require(a, np.float64, ["C", "A"]), _lib.NBRT_DOUBLE

    def _const(self, v, x):
        what = "CONST '%s'" % v.name
        if isinstance(x, DD):
            if x.shape != ():
                raise ValueError(self._fail("%s: one value is needed, not "
                                            "shape %s" % (what, x.shape)))
            return float(x.hi), float(x.lo)
        if isinstance(x, (str, bytes)):
            return _read_decimal(x, _PREC[v.type], self._fail(what))
        a = np.asarray(x)
        if a.dtype.kind not in "fiub":
            raise TypeError(self._fail("%s: a real number is needed, not "
                                       "%s" % (what, type(x).__name__)))
        if a.ndim != 0:
            raise ValueError(self._fail("%s: one value is needed, not shape "
                                        "%s" % (what, a.shape)))
        if a.dtype == np.longdouble and np.dtype(np.longdouble) != np.float64:
            d = dd(a)
            return float(d.hi), float(d.lo)
        return float(a), 0.0

    def __call__(self, **inputs):
        self._check_names(inputs)
        arrays, consts, n = {}, {}, {}
        for v in self.variables:
            if v.role == "CONST":
                consts[v.name] = self._const(v, inputs[v.name])
            elif v.role != "RMEM":
                a, t = self._array(v, inputs[v.name])
                arrays[v.name] = (a, t)
                first = n.setdefault(v.role, (v.name, len(a)))
                if len(a) != first[1]:
                    raise ValueError(self._fail(
                        "%s '%s' has %d elements, but %s '%s' has %d (every "
                        "%s holds %s elements)" %
                        (v.role, v.name, len(a), v.role, first[0], first[1],
                         v.role, "Ni" if v.role == "LMEM" else "Nj")))
        if "LMEM" not in n:
            raise ValueError(self._fail("no LMEM, so no array gives Ni"))
        ni = n["LMEM"][1]
        nj = n["BMEM"][1] if "BMEM" in n else 0
        d = self._dev
        with d.lock:
            self._check_memory(ni, nj)
            out = {}
            for v in self.variables:
                if v.role == "RMEM":
                    if v.type == "dd":
                        r = np.empty((ni, 2), np.float64)
                        a, t = r, _lib.NBRT_DD
                        out[v.name] = DD.from_pairs(r)
                    else:
                        a = out[v.name] = np.empty(ni, _RESULT_DTYPE[v.type])
                        t = _lib.NBRT_FLOAT if v.type == "float" else \
                            _lib.NBRT_DOUBLE
                elif v.role == "CONST":
                    hi, lo = consts[v.name]
                    if _rt.nbrt_set_const(self._h, v.name.encode(), hi, lo):
                        raise ValueError(d.error())
                    continue
                else:
                    a, t = arrays[v.name]
                if _rt.nbrt_bind(self._h, v.name.encode(), t,
                                 a.ctypes.data):
                    raise ValueError(d.error())
            # the GIL is released for the run (ctypes): other threads go on
            r = _rt.nbrt_run(self._h, ni, nj)
            self.kernel_time = _rt.nbrt_kernel_time(self._h)
            self.total_time = _rt.nbrt_total_time(self._h)
            self.launches = _rt.nbrt_launches(self._h)
            if r:
                raise Error(d.error())
            if _rt.nbrt_iface(self._h) != self._iface_ptr:
                self._read_iface()  # a GPU ran another j-split
        return out

    def _check_memory(self, ni, nj):
        """What the run needs beyond the caller's arrays (the results and
        the runtime's copies), checked before anything is allocated."""
        extra = ctypes.c_double()
        if _rt.nbrt_run_memory(self._h, ni, nj, 1, ctypes.byref(extra)):
            raise MemoryError(self._dev.error())
        res = sum(ni * (4 if v.type == "float" else 8 if v.type == "double"
                        else 16) for v in self.variables if v.role == "RMEM")
        need, avail = res + extra.value, _rt.nbrt_host_memory()
        if need > avail:
            def b(x):
                s = ctypes.create_string_buffer(32)
                _rt.nbrt_format_bytes(s, 32, x)
                return s.value.decode()
            raise MemoryError(self._fail(
                "Ni = %d, Nj = %d needs %s of memory (results %s, the "
                "runtime %s), and %s is available" %
                (ni, nj, b(need), b(res), b(extra.value), b(avail))))


def _free(dev, h):
    with dev.lock:
        _rt.nbrt_free(h)
