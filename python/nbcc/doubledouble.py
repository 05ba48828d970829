"""doubledouble.py: dd values in numpy.  DD holds double-doubles as the
runtime takes them, (hi, lo) pairs of float64 in an array of shape
(..., 2); dd() makes them from decimal strings (read exactly by the
library's nb_num_read), long doubles, floats or a (hi, lo) pair;
read_decimal reads one decimal at any precision, as nbrun reads CSV."""

from __future__ import annotations

import ctypes as _ctypes
from typing import TYPE_CHECKING, Any, Iterator, Optional, Tuple, Union

import numpy as _np

if TYPE_CHECKING:
    from numpy.typing import NDArray

from . import _facts
from ._lib import cc

# the public names; the rest, imported modules included, are the package's
__all__ = ["DD", "dd"]


def _two_sum(a: Any, b: Any) -> Tuple[Any, Any]:
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
    pairs: NDArray[_np.float64]

    def __init__(self, hi: Any, lo: Any = None) -> None:
        hi = _np.asarray(hi, dtype=_np.float64)
        lo = _np.zeros_like(hi) if lo is None else _np.asarray(lo, _np.float64)
        if hi.shape != lo.shape:
            raise ValueError("DD: hi has shape %s, lo %s" % (hi.shape,
                                                              lo.shape))
        # an infinite s makes inf - inf in the error term, which numpy
        # warned of ("invalid value encountered in subtract") for DD(inf);
        # that term is dropped below, and an overflow still warns
        with _np.errstate(invalid="ignore"):
            s, e = _two_sum(hi, lo)
        # an infinite or NaN hi keeps lo = 0, as the kernels' dd does
        e = _np.where(_np.isfinite(s), e, 0.0)
        self.pairs = _np.stack([s, e], axis=-1)

    @classmethod
    def from_pairs(cls, pairs: Any) -> DD:
        """A DD on an array of shape (..., 2) float64 (hi, lo), no copy."""
        pairs = _np.asarray(pairs)
        if pairs.dtype != _np.float64 or pairs.ndim < 1 or \
                pairs.shape[-1] != 2:
            raise ValueError("DD.from_pairs: an array of shape (..., 2) "
                             "float64 is needed, not %s %s" %
                             (pairs.shape, pairs.dtype))
        d = cls.__new__(cls)
        d.pairs = pairs
        return d

    @property
    def hi(self) -> NDArray[_np.float64]:
        """the high parts"""
        return self.pairs[..., 0]

    @property
    def lo(self) -> NDArray[_np.float64]:
        """the low parts"""
        return self.pairs[..., 1]

    @property
    def shape(self) -> Tuple[int, ...]:
        return self.pairs.shape[:-1]

    def __len__(self) -> int:
        if not self.shape:
            # len(pairs) would be 2, the hi and the lo
            raise TypeError("len() of a DD of shape ()")
        return len(self.pairs)

    def __iter__(self) -> Iterator[DD]:
        if not self.shape:
            raise TypeError("iteration over a DD of shape ()")
        return (self[k] for k in range(len(self)))

    def __getitem__(self, i: Any) -> DD:
        # the index is of the values, never of the (hi, lo) axis: d[..., 0]
        # took each hi part of a DD of 2 as one pair, and d[0, 1] of a 1-D
        # DD its first lo part as a DD
        key = i if isinstance(i, tuple) else (i,)
        return DD.from_pairs(self.pairs[key + (slice(None),)])

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        """hi + lo, rounded to float64."""
        a: NDArray[Any] = self.hi + self.lo
        return a if dtype is None else a.astype(dtype)

    def to_longdouble(self) -> NDArray[_np.longdouble]:
        """hi + lo as numpy's long double (64 bits of mantissa on x86)."""
        return self.hi.astype(_np.longdouble) + self.lo.astype(_np.longdouble)

    def to_strings(self) -> NDArray[_np.str_]:
        """Each value as the shortest decimal (32 digits at least) that
        reads back as the same dd: an array of str."""
        buf = _ctypes.create_string_buffer(1024)
        flat = [(cc.nb_dd_write(buf, len(buf), h, l), buf.value.decode())[1]
                for h, l in zip(self.hi.ravel().tolist(),
                                self.lo.ravel().tolist())]
        return _np.array(flat, dtype=str).reshape(self.shape)

    def __repr__(self) -> str:
        s = self.to_strings()
        return "DD(%s)" % (_np.array2string(s, separator=", ")
                           if s.ndim else repr(str(s)))


def read_decimal(s: Union[str, bytes], prec: _facts.Prec, what: str) \
        -> Tuple[float, float]:
    """Decimal text to (hi, lo) at precision prec, exactly, as nbrun reads
    CSV values; lo is 0 but for a dd."""
    if isinstance(s, bytes):
        s = s.decode("utf-8", "replace")
    b = s.encode("utf-8")
    v = (_ctypes.c_double * 2)()
    r = cc.nb_num_read(b, len(b), prec.value, v)
    if r:
        why = {_facts.NUM["nonfinite"]: "is not a finite number",
               _facts.NUM["range"]: "is out of range for " + prec.name}
        # repr: the text as given, with a control byte escaped (a raw
        # ESC in it reached the terminal), as nbrun escapes a CSV value
        raise ValueError("%s: %r %s" % (what, s,
                                         why.get(r, "is not a number")))
    return v[0], v[1]


def dd(x: Any, lo: Optional[Any] = None) -> DD:
    """A DD from: decimal strings ("0.1", read exactly to the nearest dd),
    numpy long doubles (split exactly), other real numbers or arrays
    (lo = 0), a DD (itself), or two arrays dd(hi, lo)."""
    if lo is not None:
        return DD(x, lo)
    if isinstance(x, DD):
        return x
    a = _np.asarray(x)
    if a.dtype.kind in "US":
        flat = [read_decimal(s, _facts.DD, "nbcc.dd")
                for s in a.ravel().tolist()]
        p = _np.array(flat, dtype=_np.float64).reshape(a.shape + (2,))
        return DD.from_pairs(p)
    if a.dtype == _np.longdouble and _np.dtype(_np.longdouble) != _np.float64:
        hi = a.astype(_np.float64)
        with _np.errstate(invalid="ignore"):  # inf - inf: DD drops it
            return DD(hi, (a - hi).astype(_np.float64))
    if a.dtype.kind not in "fiub":
        raise TypeError("nbcc.dd: cannot make double-doubles of dtype %s"
                        % a.dtype)
    return DD(a.astype(_np.float64))
