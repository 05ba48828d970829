"""kernel.py: Kernel, an nbcc kernel loaded on a device (nbrt_load_source)
and called on numpy arrays: its interface read through the library's
accessors, the inputs checked and bound by name without a copy where the
runtime can take them as they are, the results allocated in the
runtime's layout of each precision."""

from __future__ import annotations

import ctypes as _ctypes
import os as _os
import re as _re
import warnings as _warnings
import weakref as _weakref
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, NamedTuple, \
    Optional, Sequence, Tuple, Union

import numpy as _np

from . import _derive, _facts, _lib, _options, _pairs
from ._lib import cc, rt
from .device import Device, open_device
from .doubledouble import DD, dd, read_decimal
from .errors import CompileError, Error

# the public names; the rest, imported modules included, are the package's
__all__ = ["Kernel", "Var"]

if TYPE_CHECKING:
    from numpy.typing import NDArray

    # what Kernel() takes as its source, and what a call returns per RMEM
    Source = Union[str, bytes, _os.PathLike[str]]
    Result = Union[NDArray[Any], DD]


class Var(NamedTuple):
    """A variable of a kernel: name, role (LMEM...), type (float...)."""
    name: str
    role: str
    type: str


def _source(source: Source) -> Tuple[str, bytes, Optional[str]]:
    """(name for messages, the text as bytes, path or None)."""
    if isinstance(source, _os.PathLike):
        path = _os.fspath(source)
    elif isinstance(source, bytes):
        return "<string>", source, None
    elif isinstance(source, str):
        # a kernel's text has a ';' and most often a newline; a path of
        # no file is still a path where it ends in an extension nbcc knows
        # or has no blank (so that a typo says "no such file")
        if "\n" in source or ";" in source or not (
                _os.path.exists(source) or _facts.known_ext(source) or
                not any(c.isspace() for c in source)):
            return "<string>", source.encode("utf-8", "surrogateescape"), None
        path = source
    else:
        raise TypeError("Kernel(): a path or the source text is needed, "
                        "not %s" % type(source).__name__)
    with open(path, "rb") as f:
        # as nbcc reads a file: no more than one byte past the limit, so
        # that /dev/zero or a huge file is refused, not loaded
        text = f.read(_facts.MAX_SOURCE + 1)
    if len(text) > _facts.MAX_SOURCE:
        raise ValueError("Kernel(): %r is larger than %d MiB, the largest "
                         "source nbcc compiles" %
                         (path, _facts.MAX_SOURCE >> 20))
    return path, text, path


def _integers(r: Result) -> NDArray[_np.int64]:
    """A count or a j index, held in a precision's layout, as int64: a
    float holds the integers to 2^24 and a double to 2^53, which int64
    keeps exactly; a dd's lo part adds the units beyond its hi part."""
    if isinstance(r, DD):
        return r.hi.astype(_np.int64) + r.lo.astype(_np.int64)
    return r.astype(_np.int64)


def _free(dev: Device, h: int) -> None:
    with dev.lock:
        rt.nbrt_free(h)


class Kernel:
    """An nbcc kernel loaded on a device.

    Kernel(source, precision=None, device=None, **options): source is a
    path (.nbl, or a .cl/.c nbcc wrote) or the source text itself;
    precision the type of untyped declarations ("float", "double", "dd";
    None: the source's own nbcc-options line, else float); device "cpu",
    "gpu", "host", "P:D" or part of a name (None: as the C programs,
    $NBRT_DEVICE, else a GPU, else a CPU, else the host).  options are
    nbcc's flags: unroll_i, unroll_j, jsplit, sched ("none",
    "interleave"), fast_math, fma, ftz, split_warps, wg, tile, name, and
    jvp and
    grad, which load the derived kernel itself (docs/autodiff.md);
    k.grad(wrt, **inputs) and k.jvp(tangents, **inputs) are the way to
    the derivatives as arrays.

    k(**inputs) runs it over every pair (i, j): each LMEM and BMEM a 1-D
    array, each CONST a number, by name; returns {RMEM name: array}.
    Keywords choose fewer pairs (docs/python.md): ranges=(groups,
    offsets, ranges), the block-sparse lists of nbrt_run_ranges; or
    cutoff=RC with pos=(("xi", ...), ("xj", ...)), periodic=L or
    (Lx, ...) and self=True, cell lists (nbrt_run_cutoff).  self=True
    alone: i and j are the same elements, a dense self run
    (nbrt_run_self); newton="auto" (default), "on" or "off": whether a
    self run of a kernel declared SYMMETRIC/ANTISYMMETRIC computes each
    pair once (k.newton_used says whether the last run did).  Or
    theta=T with bucket=B, group=G, far= (a Kernel or a path; default:
    found beside the kernel in far/) and pos=, the treecode
    (nbrt_run_tree, docs/treecode.md).  A kernel variable of one of those names is an input: k.run(inputs, **options)
    keeps the two apart."""

    path: Optional[str]
    name: str
    target: str
    precision: str
    flags: str
    interface: str
    variables: Tuple[Var, ...]
    kernel_time: float
    total_time: float
    launches: int
    pairs: float
    newton_used: bool
    reductions: Dict[str, str]

    def __init__(self, source: Source, precision: Optional[str] = None,
                 device: Union[str, Device, None] = None,
                 **options: Any) -> None:
        # a Device: the far kernel of theta= on its kernel's own
        self._dev = device if isinstance(device, Device) else \
            open_device(device)
        flags = _options.flags(precision, options)
        # what a derived kernel (grad(), jvp()) is loaded with, and those
        # loaded, by flag
        self._how = (source, precision, options)
        self._derivs: Dict[Tuple[str, str, Optional[str]], Kernel] = {}
        name, text, self.path = _source(source)
        if self.path is None and "name" not in options and \
                b"--name" not in text:
            # not "_string_", nor "kernel" ("kernel kernel: ...")
            flags.append("--name=unnamed")
        self._opts = _options.Options(flags)
        self._text = text
        self._name = name
        d = self._dev
        with d.lock:
            h = rt.nbrt_load_source(d._h, _os.fsencode(name), text,
                                    len(text), self._opts.ptr)
            msg = None if h else d.error()
        if not h:
            assert msg is not None
            # the source's diagnostics, under the name as the runtime and
            # the compiler write it: escaped (nb_esc), so that a path with
            # a control byte matched no "cannot compile NAME:" and its
            # errors came as Error, not CompileError.  A failure of the C
            # compiler after nbcc ("cannot compile NAME with 'cc' ...")
            # has no diagnostic of that name under it.
            if _re.match(r"cannot compile ([^\n]*):\n\1:", msg):
                raise CompileError(msg)
            raise Error(msg)
        self._h = h
        self._fin = _weakref.finalize(self, _free, d, h)
        self.kernel_time = self.total_time = self.pairs = 0.0
        self.newton_used = False
        self.launches = 0
        self._read_iface()
        if _facts.is_generated(name, text):
            # the runtime takes code nbcc wrote as it is: precision="float"
            # gave a double kernel, grad="xi" the primal, without a word;
            # nbrun warns of its flags alike
            given = ["%s=%r" % o for o in options.items()]
            if precision is not None and precision != self.precision:
                given.insert(0, "precision=%r" % precision)
            for g in given:
                _warnings.warn("Kernel(): %s is ignored: %r is compiled "
                               "already" % (g, name), RuntimeWarning,
                               stacklevel=2)

    def _read_iface(self) -> None:
        f = self._iface_ptr = rt.nbrt_iface(self._h)
        self.interface, _ = _lib.printed(
            lambda fp: cc.nb_iface_print(f, fp, b""))

        def field(key: str) -> str:
            return _lib.text(cc.nb_iface_field(f, key.encode()))

        self.name = field("kernel")
        self.target = field("target")
        self.precision = field("precision")
        self.flags = field("flags")
        role, typ, red = _ctypes.c_int(), _ctypes.c_int(), _ctypes.c_int()
        vs: List[Var] = []
        reds: Dict[str, str] = {}
        while True:
            n = cc.nb_iface_var(f, len(vs), _ctypes.byref(role),
                                _ctypes.byref(typ), _ctypes.byref(red))
            if not n:
                break
            vs.append(Var(_lib.text(n), _facts.ROLES[role.value],
                          _facts.PREC_OF[typ.value].name))
            if vs[-1].role == "RMEM":
                reds[vs[-1].name] = _facts.REDS[red.value]
        self.variables = tuple(vs)
        self.reductions = reds
        self._var = {v.name: v for v in self.variables}

    def _role(self, role: str) -> List[str]:
        return [v.name for v in self.variables if v.role == role]

    @property
    def inputs(self) -> List[str]:
        """the LMEM then the BMEM names"""
        return self._role("LMEM") + self._role("BMEM")

    @property
    def consts(self) -> List[str]:
        """CONST names"""
        return self._role("CONST")

    @property
    def results(self) -> List[str]:
        """RMEM names"""
        return self._role("RMEM")

    @property
    def device(self) -> str:
        """the device's name"""
        return self._dev.name

    @property
    def cache_hit(self) -> bool:
        """whether the program came from the cache"""
        return bool(rt.nbrt_cache_hit(self._h))

    def __repr__(self) -> str:
        sig = ", ".join("%s %s %s" % (v.role, v.type, v.name)
                        for v in self.variables)
        return "<nbcc.Kernel %s(%s) on %s>" % (self.name, sig, self.device)

    # what nbcc writes for this kernel, from the flags and target its
    # interface records (they reproduce it: docs/language.md)
    def _compile(self, emit: str) -> str:
        if _facts.is_generated(self._name, self._text):
            if emit == "code":
                return self._text.decode("utf-8", "replace")
            raise ValueError("kernel %s was loaded from generated code: "
                             "%s needs its .nbl" % (self.name, emit))
        o = _options.Options(self.flags.split() + ["--target=" + self.target])
        n = _ctypes.c_size_t()
        code = cc.nb_compile_text(_os.fsencode(self._name), self._text,
                                  len(self._text), o.ptr, emit.encode(),
                                  None, _ctypes.byref(n))
        if not code:
            raise Error("kernel %s: nb_compile --emit=%s failed" %
                        (self.name, emit))
        return _lib.take_string(code, n.value)

    @property
    def source(self) -> str:
        """The generated code (OpenCL C or C) the device runs."""
        return self._compile("code")

    def explain(self) -> str:
        """The loop nest after the transforms (nbcc --explain)."""
        return self._compile("explain")

    def stats(self) -> str:
        """Operation counts and a register estimate (nbcc --stats)."""
        return self._compile("stats")

    # --- a run ---------------------------------------------------------

    def _fail(self, what: str) -> str:
        return "kernel %s: %s" % (self.name, what)

    def _check_names(self, given: Dict[str, Any]) -> None:
        for name in given:
            v = self._var.get(name)
            if v is None:
                # the runtime's own message, which lists the names; a lone
                # surrogate ("x\udcff", from os.fsdecode) raised a bare
                # UnicodeEncodeError that named neither kernel nor input
                with self._dev.lock:
                    rt.nbrt_set_const(self._h,
                                      name.replace("\0", "\\0").encode(
                                          "utf-8", "backslashreplace"),
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

    def _input(self, v: Var, x: Any) -> Any:
        """x checked for v, as a DD or an array, not yet copied."""
        what = "%s '%s'" % (v.role, v.name)
        if isinstance(x, DD):
            if x.pairs.ndim != 2:
                raise ValueError(self._fail("%s: a 1-D DD is needed, not "
                                            "shape %s" % (what, x.shape)))
            return x
        # (its mask: nomask, a False, or an array of bools)
        mask = _np.asarray(getattr(x, "mask"), bool) \
            if isinstance(x, _np.ma.MaskedArray) else None
        if mask is not None and mask.any():
            # np.require() took its data as they are: the masked elements'
            # values, whatever they hold, ran as if given
            raise ValueError(self._fail(
                "%s: a masked array with %d masked elements: the kernel "
                "has no mask; give x.filled(value) or x.compressed()" %
                (what, int(_np.count_nonzero(mask)))))
        a = x if isinstance(x, _np.ndarray) else _np.asarray(x)
        if a.dtype.kind not in "fiubUS":
            raise TypeError(self._fail(
                "%s: cannot use an array of dtype %s: real numbers are "
                "needed (float32 and float64 as they are, integers and "
                "bools as float64, decimal strings read exactly)" %
                (what, a.dtype)))
        # before the decimals are read: their ravel() took a (3, 2) array
        # as 6 elements, and one string as an array of 1
        if a.ndim != 1:
            raise ValueError(self._fail("%s: a 1-D array is needed, not "
                                        "shape %s" % (what, a.shape)))
        return a

    @staticmethod
    def _as_is(a: NDArray[Any], dtype: Any) -> bool:
        """Whether np.require(a, dtype, ["C", "A"]) returns a itself."""
        return bool(a.dtype == dtype and a.flags.c_contiguous and
                    a.flags.aligned)

    def _copy_bytes(self, v: Var, a: Any) -> int:
        """The bytes of the array _array(v, a) makes (0: a itself goes to
        the runtime), for the memory check before any is made."""
        if isinstance(a, DD):
            return 0 if self._as_is(a.pairs, _np.float64) else len(a) * 16
        if a.dtype.kind in "US":
            # the pairs read, and the values in v's layout
            return len(a) * (16 + _facts.PRECS[v.type].itemsize)
        if a.dtype == _np.longdouble and v.type == _facts.DD.name and \
                _np.dtype(_np.longdouble) != _np.float64:
            return len(a) * 16
        if a.dtype == _facts.FLOAT.dtype:
            return 0 if self._as_is(a, a.dtype) else len(a) * 4
        return 0 if self._as_is(a, _facts.DOUBLE.dtype) else len(a) * 8

    def _array(self, v: Var, a: Any) -> Tuple[NDArray[Any], int]:
        """a (from _input) as an array the runtime can take for v without
        another copy: (array, nbrt type)."""
        what = "%s '%s'" % (v.role, v.name)
        if isinstance(a, DD):
            return _np.require(a.pairs, _np.float64, ["C", "A"]), \
                _facts.DD.host
        if a.dtype.kind in "US":
            # decimals, read exactly into the variable's own layout
            prec = _facts.PRECS[v.type]
            flat = [read_decimal(s, prec, self._fail("%s[%d]" % (what, i)))
                    for i, s in enumerate(a.tolist())]
            pairs = _np.array(flat, _np.float64).reshape(-1, 2)
            r = prec.empty(len(flat))
            r[...] = pairs[:, :prec.scalars].reshape(r.shape)
            return r, prec.host
        if a.dtype == _np.longdouble and v.type == _facts.DD.name and \
                _np.dtype(_np.longdouble) != _np.float64:
            return dd(a).pairs, _facts.DD.host
        if a.dtype == _facts.FLOAT.dtype:
            return _np.require(a, a.dtype, ["C", "A"]), _facts.FLOAT.host
        # float64 as it is; the rest (ints, bools, halves, long doubles)
        # become float64, which holds them exactly or nearest
        return _np.require(a, _facts.DOUBLE.dtype, ["C", "A"]), \
            _facts.DOUBLE.host

    def _const(self, v: Var, x: Any) -> Tuple[float, float]:
        what = "CONST '%s'" % v.name
        if isinstance(x, DD):
            if x.shape != ():
                raise ValueError(self._fail("%s: one value is needed, not "
                                            "shape %s" % (what, x.shape)))
            hi, lo = float(x.hi), float(x.lo)
            if not _np.isfinite(hi + lo):
                raise ValueError(self._fail("%s: %r is not a finite number"
                                            % (what, hi + lo)))
            return self._in_range(v, what, hi, lo)
        if isinstance(x, (str, bytes)):
            return read_decimal(x, _facts.PRECS[v.type], self._fail(what))
        if isinstance(x, int) and not isinstance(x, bool):
            # past 2^64 numpy would hold it as an object, "not a real
            # number": the nearest double, as for an array of integers
            try:
                x = float(x)
            except OverflowError:
                raise ValueError(self._fail(
                    "%s: an integer of %d digits is beyond the range of a "
                    "double" % (what, len(str(x))))) from None
        a = _np.asarray(x)
        if a.dtype.kind not in "fiub":
            raise TypeError(self._fail("%s: a real number is needed, not "
                                       "%s" % (what, type(x).__name__)))
        if a.ndim != 0:
            raise ValueError(self._fail("%s: one value is needed, not shape "
                                        "%s" % (what, a.shape)))
        if a.dtype == _np.longdouble and \
                _np.dtype(_np.longdouble) != _np.float64:
            d = dd(a)
            hi, lo = float(d.hi), float(d.lo)
        else:
            hi, lo = float(a), 0.0
        if not _np.isfinite(hi):
            # as nbrun --const and read_decimal refuse it
            raise ValueError(self._fail("%s: %r is not a finite number" %
                                        (what, hi)))
        return self._in_range(v, what, hi, lo)

    def _in_range(self, v: Var, what: str, hi: float, lo: float) \
            -> Tuple[float, float]:
        """(hi, lo), where v's type holds the value: a float CONST of
        1e300 became inf in the kernel, and its results NaN, where the
        same decimal as text (and nbrun --const) is refused."""
        if v.type == _facts.FLOAT.name:
            with _np.errstate(over="ignore"):
                if _np.isinf(_np.float32(hi)):
                    raise ValueError(self._fail(
                        "%s: %r is out of range for float" % (what, hi)))
        return hi, lo

    def __call__(self, /, **given: Any) -> Dict[str, Result]:
        inputs, options = _pairs.split([v.name for v in self.variables],
                                       given)
        return self.run(inputs, **options)

    def grad(self, wrt: Union[str, Sequence[str], None] = None, /,
             **given: Any) -> Dict[str, Any]:
        """k.grad(wrt, of=None, cotangent=None, per_i=False, **inputs):
        the gradient of the sum result `of` (by default the kernel's only
        sum) with respect to the inputs wrt (a name, "xi,yi" or a list),
        as {name: gradient}: for an LMEM X, the array d of[i]/d X[i]
        (summed over j by the kernel); for a CONST c, the total
        sum_i d of[i]/dc, the gradient of sum_i of[i], summed in
        double-double (nbrt_sum): a float, or a DD of shape () in dd.
        cotangent=g (Ni numbers, the incoming gradient of each of[i])
        weighs a CONST's total, sum_i g[i] d of[i]/dc, the vector-Jacobian
        product of sum_i g[i] of[i]; an LMEM's gradient stays per i (its
        share of that product is g[i] times it).  per_i=True gives a
        CONST's per-i column d of[i]/dc instead of its total.  inputs and
        run options as for k(); a kernel variable named wrt, of,
        cotangent or per_i is an input, and then wrt is given first."""
        self._underived("grad")
        names_asked = self._take(given, "wrt", wrt)
        of = self._take(given, "of", None)
        cot = self._keyword(given, "cotangent", None)
        per_i = self._keyword(given, "per_i", False)
        if not isinstance(per_i, (bool, _np.bool_)):
            # bool() took per_i="no" (or 0.0 from a computation) silently
            raise TypeError(self._fail("grad(): per_i= takes True or False, "
                                       "not %s" % type(per_i).__name__))
        if of is not None and not isinstance(of, str):
            # a list reached a dict lookup: "unhashable type: 'list'"
            raise TypeError(self._fail("grad(): of= takes a result's name, "
                                       "not %s" % type(of).__name__))
        if per_i and cot is not None:
            raise ValueError(self._fail(
                "grad(): cotangent= weighs a CONST's total, and per_i=True "
                "asks for its column instead: give one of them"))
        spec, of, names = _derive.grad(self._fail, self.reductions,
                                       names_asked, of)
        out: Dict[str, Any] = dict(
            self._derived_run("grad", spec, given, names, of))
        for x in names:
            if self._var[x].role == "CONST" and not per_i:
                out[x] = self._total(out[x], cot)
        return out

    def _keyword(self, given: Dict[str, Any], key: str, default: Any) -> Any:
        """A method's own optional keyword, unless it names a variable."""
        return given.pop(key) if key in given and key not in self._var \
            else default

    def _total(self, col: Result, cot: Any) -> Any:
        """sum_i cot[i] col[i] (cot None: 1) in double-double: a float, or
        a DD of shape () for a dd column."""
        is_dd = isinstance(col, DD)
        a = _np.ascontiguousarray(col.pairs if isinstance(col, DD) else col)
        prec = _facts.DD if is_dd else _facts.FLOAT \
            if a.dtype == _np.float32 else _facts.DOUBLE
        w = None
        if cot is not None:
            w = _np.asarray(cot)
            if w.dtype.kind not in "fiub":
                # a cast would drop a complex's imaginary part, silently
                raise TypeError(self._fail(
                    "grad(): cotangent= must hold real numbers, not dtype "
                    "%s" % w.dtype))
            w = _np.ascontiguousarray(w, dtype=_np.float64)
            if w.shape != (len(a),):
                raise ValueError(self._fail(
                    "grad(): cotangent= must hold one number per i-element "
                    "(shape (%d,)), not shape %s" % (len(a), w.shape)))
        s = (_ctypes.c_double * 2)()
        if rt.nbrt_sum(prec.host, a.ctypes.data,
                       None if w is None else w.ctypes.data, len(a), s):
            raise RuntimeError(self._fail("nbrt_sum refused type %d" %
                                          prec.host))
        return DD(s[0], s[1]) if is_dd else s[0] + s[1]

    def jvp(self, tangents: Optional[Mapping[str, Any]] = None, /,
            **given: Any) -> Dict[str, Result]:
        """k.jvp(tangents, **inputs): the derivative of every sum result
        along the tangents, {input name: its tangent} (an array for an
        LMEM or BMEM, a number for a CONST), as {result: array}."""
        self._underived("jvp")
        spec, values, names = _derive.jvp(
            self._fail, [v.name for v in self.variables], self.reductions,
            self._take(given, "tangents", tangents))
        return self._derived_run("jvp", spec, dict(given, **values), names)

    def _derived_run(self, option: str, spec: str, given: Dict[str, Any],
                     names: Dict[str, str], of: Optional[str] = None) \
            -> Dict[str, Result]:
        """The derived kernel's run; {key: its result names[key]}.  A
        result of this kernel that the derived one takes as an input (a
        logsumexp=: its derivative weighs each term by exp(term - result))
        comes from this kernel's run first."""
        d = self._derived(option, spec, of)
        primal = [v.name for v in d.variables if v.role != "RMEM" and
                  self.reductions.get(v.name) is not None]
        if primal:
            ran = self(**{k: v for k, v in given.items()
                          if k in self._var or k in _pairs.OPTIONS})
            given = dict(given, **{r: ran[r] for r in primal})
        inputs, options = _pairs.split([v.name for v in d.variables], given)
        out = d.run(inputs, **options)
        for r in names.values():
            if r not in out:
                raise RuntimeError(self._fail(
                    "%s(): the derived kernel has no result %s (it has %s)"
                    % (option, r, ", ".join(out))))
        return {x: out[r] for x, r in names.items()}

    def _take(self, given: Dict[str, Any], key: str, value: Any) -> Any:
        """A method's own keyword, unless it names a kernel variable."""
        if value is None and key in given and key not in self._var:
            return given.pop(key)
        if value is None and key != "of":
            raise TypeError(self._fail("%s= is needed" % key))
        return value

    def _underived(self, method: str) -> None:
        if _facts.is_generated(self._name, self._text):
            # the runtime takes generated code as it is, options aside
            raise ValueError(self._fail(
                "%s(): the kernel was loaded from generated code; "
                "derivatives need its .nbl" % method))
        options = self._how[2]
        if "grad" in options or "jvp" in options or "grad_of" in options:
            raise ValueError(self._fail(
                "%s(): the kernel is derived already (%s); load the source "
                "without it" % (method, ", ".join(
                    "%s=%r" % (o, options[o]) for o in ("grad", "jvp")
                    if o in options))))

    def _derived(self, option: str, spec: str,
                 of: Optional[str] = None) -> Kernel:
        """This kernel derived by nbcc's --OPTION=SPEC (and --grad-of=OF:
        only that result), loaded once."""
        k = self._derivs.get((option, spec, of))
        if k is None:
            source, precision, options = self._how
            extra = {option: spec}
            if of is not None:
                extra["grad_of"] = of
            k = Kernel(source, precision, self._dev,
                       **dict(options, **extra))
            self._derivs[(option, spec, of)] = k
        return k

    def run(self, inputs: Mapping[str, Any], /,
            **options: Any) -> Dict[str, Result]:
        """The run of k(**inputs, **options), the inputs by name in a
        mapping and the options (ranges=, cutoff=, pos=, periodic=,
        self=, newton=, theta=, bucket=, group=, far=) apart, whatever the kernel's variables are called."""
        for k in options:
            if k not in _pairs.OPTIONS:
                raise TypeError(self._fail(
                    "run() has no option '%s' (its options: %s)" %
                    (k, ", ".join(_pairs.OPTIONS))))
        if not isinstance(inputs, Mapping):
            raise TypeError(self._fail("run() takes the inputs as a mapping "
                                       "{name: value}, not %s" %
                                       type(inputs).__name__))
        inputs = dict(inputs)
        for name in inputs:
            if not isinstance(name, str):
                # a key of 1 or b"xi" reached str methods: AttributeError
                raise TypeError(self._fail(
                    "run(): an input's name is a str, not %s (%r)" %
                    (type(name).__name__, name)))
        self._check_names(inputs)
        pairs = _pairs.Pairs(self._fail, options)
        if pairs.theta is not None:
            pairs.tree_for(self, self._fail)
        given: Dict[str, Any] = {}
        consts: Dict[str, Tuple[float, float]] = {}
        n: Dict[str, Tuple[str, int]] = {}
        for v in self.variables:
            if v.role == "CONST":
                consts[v.name] = self._const(v, inputs[v.name])
            elif v.role != "RMEM":
                a = given[v.name] = self._input(v, inputs[v.name])
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
        if pairs.same and ni != nj:
            raise ValueError(self._fail(
                "self=True: the i-elements are the j-elements, but Ni = %d "
                "and Nj = %d" % (ni, nj)))
        self._check_counts(nj)
        d = self._dev
        # the copies the inputs need (a strided or broadcast array, ints,
        # decimals) are counted before any is made: each was made first,
        # and those within the memory one at a time could together
        # exhaust it where the check saw only the results
        copies = sum(self._copy_bytes(self._var[x], a)
                     for x, a in given.items())
        with d.lock:
            self._check_memory(ni, nj, copies)
        arrays = {x: self._array(self._var[x], a) for x, a in given.items()}
        with d.lock:
            out: Dict[str, Result] = {}
            for v in self.variables:
                if v.role == "RMEM":
                    # a result in the runtime's layout of its precision:
                    # a dd comes back as (hi, lo) pairs, a DD
                    prec = _facts.PRECS[v.type]
                    a, t = prec.empty(ni), prec.host
                    out[v.name] = DD.from_pairs(a) if prec is _facts.DD \
                        else a
                elif v.role == "CONST":
                    hi, lo = consts[v.name]
                    if rt.nbrt_set_const(self._h, v.name.encode(), hi, lo):
                        raise ValueError(d.error())
                    continue
                else:
                    a, t = arrays[v.name]
                if rt.nbrt_bind(self._h, v.name.encode(), t,
                                a.ctypes.data):
                    raise ValueError(d.error())
            # the GIL is released for the run (ctypes): other threads go on
            r = pairs.run(self._h, ni, nj)
            self.pairs = rt.nbrt_pairs(self._h)
            self.newton_used = bool(rt.nbrt_newton_used(self._h))
            self.kernel_time = rt.nbrt_kernel_time(self._h)
            self.total_time = rt.nbrt_total_time(self._h)
            self.launches = rt.nbrt_launches(self._h)
            if r:
                raise Error(d.error())
            if rt.nbrt_iface(self._h) != self._iface_ptr:
                self._read_iface()  # a GPU ran another j-split
        for name, red in self.reductions.items():
            if red in _facts.INTEGER_REDS:
                out[name] = _integers(out[name])
        return out

    def _check_counts(self, nj: int) -> None:
        """A count is summed in its RMEM's type inside the kernel, so past
        the integers the type holds it stops growing: say so where Nj
        allows that (the int64 it comes back as cannot help).  Only a
        count declared RMEM float can (nbcc makes an untyped one a
        double)."""
        for v in self.variables:
            if self.reductions.get(v.name) != "count":
                continue
            top = _facts.PRECS[v.type].exact_to
            if nj > top:
                _warnings.warn(self._fail(
                    "count '%s' is a %s, exact up to %d, and Nj = %d: a "
                    "count above %d comes back rounded (declare it "
                    "double, or leave its type out)"
                    % (v.name, v.type, top, nj, top)),
                    RuntimeWarning, stacklevel=4)

    def _check_memory(self, ni: int, nj: int, copies: int) -> None:
        """What the run needs beyond the caller's arrays (the results, the
        inputs' copies and the runtime's copies), checked before anything
        is allocated."""
        extra = _ctypes.c_double()
        if rt.nbrt_run_memory(self._h, ni, nj, 1, _ctypes.byref(extra)):
            raise MemoryError(self._dev.error())
        res = sum(ni * _facts.PRECS[v.type].itemsize
                  for v in self.variables if v.role == "RMEM")
        need, avail = res + copies + extra.value, rt.nbrt_host_memory()
        if need > avail:
            def b(x: float) -> str:
                s = _ctypes.create_string_buffer(32)
                rt.nbrt_format_bytes(s, 32, x)
                return s.value.decode()
            raise MemoryError(self._fail(
                "Ni = %d, Nj = %d needs %s of memory (results %s, %sthe "
                "runtime %s), and %s is available" %
                (ni, nj, b(need), b(res), "the inputs' copies %s, " %
                 b(copies) if copies else "", b(extra.value), b(avail))))
