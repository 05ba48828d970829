"""_pairs.py: which pairs a call runs when not every (i, j): the
block-sparse lists of ranges= (nbrt_run_ranges) or the cell lists of
cutoff=, pos=, periodic= and self= (nbrt_run_cutoff), or with self=
alone the dense self run (nbrt_run_self), newton= saying whether a self
run may use Newton's third law (nbrt_set_newton), or the treecode of
theta=, bucket=, group=, far= and pos= (nbrt_run_tree), checked here for
their shapes and types and handed to the library's flat entries
(runtime/query.c); the values (bounds, overlaps, a cutoff of 0, names)
are the runtime's to judge, and its message is raised."""

from __future__ import annotations

import ctypes
import glob
import numbers
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, \
    Sequence, Tuple

import numpy as np

from ._facts import TREE_BUCKET
from ._lib import rt

if TYPE_CHECKING:
    from numpy.typing import NDArray

# the keyword arguments a call takes besides the kernel's variables
OPTIONS = ("ranges", "cutoff", "pos", "periodic", "self", "newton",
           "theta", "bucket", "group", "far")
# newton='s words, in nbrt_newton's order
NEWTON = ("auto", "on", "off")
# the largest count a size_t argument holds: ctypes wraps a larger one
SIZE_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1


def _real(fail: Callable[[str], str], what: str, x: Any) -> float:
    """x as a float; an int past the doubles is a ValueError naming what,
    not Python's bare OverflowError.  The runtime judges the value."""
    try:
        return float(x)
    except OverflowError:
        raise ValueError(fail("%s: an integer of %d digits is beyond the "
                              "range of a double" % (what, len(str(x)))))\
            from None


def _name(fail: Callable[[str], str], what: str, n: str) -> bytes:
    """A variable's name for the runtime: C would end it at a NUL, and the
    name before it might be another variable's."""
    if "\0" in n:
        raise ValueError(fail("%s: %r: a NUL character is not allowed" %
                              (what, n)))
    try:
        return n.encode()
    except UnicodeEncodeError:
        # a lone surrogate: the bare UnicodeEncodeError named no argument
        raise ValueError(fail("%s: %r is not a name a kernel can have (a "
                              "lone surrogate)" % (what, n))) from None


def _index_array(fail: Callable[[str], str], what: str, x: Any,
                 ncol: int) -> NDArray[Any]:
    """x as size_t indices: shape (n, ncol), or (n,) for ncol 0."""
    a = np.asarray(x)
    shape = "(n,)" if ncol == 0 else "(n, %d)" % ncol
    if a.dtype.kind not in "iu":
        raise TypeError(fail("ranges: %s must be an array of integers %s, "
                             "not of dtype %s" % (what, shape, a.dtype)))
    if a.ndim != (1 if ncol == 0 else 2) or (ncol and a.shape[1] != ncol):
        raise ValueError(fail("ranges: %s must have shape %s, not %s" %
                              (what, shape, a.shape)))
    if a.size and a.min() < 0:
        k = np.unravel_index(int(np.argmin(a)), a.shape)
        raise ValueError(fail("ranges: %s%s is %d: indices count from 0" %
                              (what, list(map(int, k)), a.min())))
    return np.ascontiguousarray(a, dtype=np.uintp)


class Pairs:
    """The pairs of one call, checked: run(h, ni, nj) runs them."""

    def __init__(self, fail: Callable[[str], str],
                 options: Dict[str, Any]) -> None:
        self.arrays: List[NDArray[Any]] = []
        self.ngroups = 0
        self.cutoff: Optional[float] = None
        self.names: Tuple[List[bytes], List[bytes]] = ([], [])
        self.period: List[float] = []
        self.same = False
        self.newton = 0
        self.theta: Optional[float] = None
        self.far: Any = None
        given = [k for k in OPTIONS if options.get(k) is not None]
        if "theta" in given:
            if "ranges" in given or "cutoff" in given:
                raise ValueError(fail("theta= and %s= both choose the pairs "
                                      "that run: give one or the other" %
                                      ("ranges" if "ranges" in given else
                                       "cutoff")))
            for k in ("self", "newton", "periodic"):
                if k in given:
                    raise ValueError(fail("%s= is not for theta=, the "
                                          "treecode" % k))
            self._tree(fail, options)
            return
        for k in ("bucket", "group", "far"):
            if k in given:
                raise ValueError(fail("%s= is for theta=, the treecode: "
                                      "give theta= too" % k))
        if "ranges" in given and "cutoff" in given:
            raise ValueError(fail("ranges= and cutoff= both choose the "
                                  "pairs that run: give one or the other"))
        if "ranges" in given:
            self._ranges(fail, options["ranges"])
        for k in ("pos", "periodic"):
            if k in given and "cutoff" not in given:
                raise ValueError(fail("%s= is for cutoff=: give cutoff= and "
                                      "pos= too" % k))
        if "self" in given and "ranges" in given:
            raise ValueError(fail("self= is for cutoff= or the dense run, "
                                  "not ranges="))
        self.same = self._same(fail, options.get("self"))
        if "cutoff" in given:
            self._cutoff(fail, options)
        m = options.get("newton")
        if m is not None and (not isinstance(m, str) or m not in NEWTON):
            raise ValueError(fail("newton=%r: expected \"auto\", \"on\" or "
                                  "\"off\"" % (m,)))
        self.newton = NEWTON.index(m) if m is not None else 0

    @staticmethod
    def _same(fail: Callable[[str], str], same: Any) -> bool:
        if same is not None and not isinstance(same, (bool, np.bool_)):
            raise TypeError(fail("self= takes True or False, not %s" %
                                 type(same).__name__))
        return bool(same)

    def _ranges(self, fail: Callable[[str], str], r: Any) -> None:
        if not isinstance(r, (tuple, list)) or len(r) != 3:
            raise TypeError(fail("ranges= takes (groups, offsets, ranges): "
                                 "integer arrays of shapes (G, 2), (G + 1,) "
                                 "and (R, 2)"))
        g = _index_array(fail, "groups", r[0], 2)
        o = _index_array(fail, "offsets", r[1], 0)
        e = _index_array(fail, "ranges", r[2], 2)
        if len(o) != len(g) + 1:
            raise ValueError(fail("ranges: offsets has %d entries for %d "
                                  "groups: it needs one more than groups" %
                                  (len(o), len(g))))
        # what the runtime reads through them: offsets from 0 to R
        if o[0] != 0 or o[-1] != len(e) or np.any(o[1:] < o[:-1]):
            raise ValueError(fail("ranges: offsets must run from 0 up to "
                                  "the number of ranges (%d), never "
                                  "decreasing" % len(e)))
        self.arrays = [g, o, e]
        self.ngroups = len(g)

    def _cutoff(self, fail: Callable[[str], str],
                options: Dict[str, Any]) -> None:
        rc = options["cutoff"]
        if not isinstance(rc, numbers.Real) or isinstance(rc, bool):
            raise TypeError(fail("cutoff= takes a number, not %s" %
                                 type(rc).__name__))
        self.cutoff = _real(fail, "cutoff=", rc)
        pos = options.get("pos")
        sides: List[List[bytes]] = []
        for side in pos if isinstance(pos, (tuple, list)) and \
                len(pos) == 2 else ():
            if isinstance(side, str) or not isinstance(side, (tuple, list)) \
                    or not 1 <= len(side) <= 3 or \
                    not all(isinstance(n, str) for n in side):
                break
            sides.append([_name(fail, "pos=", n) for n in side])
        if len(sides) != 2 or len(sides[0]) != len(sides[1]):
            raise ValueError(fail("cutoff= needs pos=((\"xi\", \"yi\", "
                                  "\"zi\"), (\"xj\", \"yj\", \"zj\")): 1 to "
                                  "3 LMEM names, then as many BMEM"))
        self.names = (sides[0], sides[1])
        dim = len(sides[0])
        per = options.get("periodic")
        if per is None:
            per = [0.0] * dim
        elif isinstance(per, numbers.Real) and not isinstance(per, bool):
            per = [_real(fail, "periodic=", per)] * dim
        if not isinstance(per, (tuple, list, np.ndarray)) or \
                len(per) != dim or not all(
                    isinstance(p, numbers.Real) and not isinstance(p, bool)
                    for p in per):
            raise ValueError(fail("periodic= takes one length for every "
                                  "axis or %d, one per axis of pos= (0: "
                                  "open)" % dim))
        self.period = [_real(fail, "periodic=", p) for p in per]

    def _tree(self, fail: Callable[[str], str],
              options: Dict[str, Any]) -> None:
        """theta= and its company; the runtime judges the values."""
        def number(k: str, default: Any, kind: Any) -> Any:
            x = options.get(k)
            if x is None:
                return default
            if not isinstance(x, kind) or isinstance(x, bool):
                raise TypeError(fail("%s= takes %s, not %s" % (
                    k, "a number" if kind is numbers.Real else
                    "an integer", type(x).__name__)))
            if kind is numbers.Integral and not 0 <= x <= SIZE_MAX:
                # past SIZE_MAX ctypes would pass it wrapped, silently
                raise ValueError(fail("%s= is %d: a count of bodies, at "
                                      "least 1 and at most %d" %
                                      (k, x, SIZE_MAX)))
            return x
        self.theta = _real(fail, "theta=", number("theta", 0.5,
                                                  numbers.Real))
        self.bucket = int(number("bucket", TREE_BUCKET, numbers.Integral))
        # left out: the runtime's group for the run's Ni (nbrt_tree_group)
        g = number("group", None, numbers.Integral)
        self.group: Optional[int] = None if g is None else int(g)
        self.far = options.get("far")
        self.pos = options.get("pos")
        if self.pos is not None and not (
                isinstance(self.pos, (tuple, list)) and len(self.pos) == 2
                and all(isinstance(s, (tuple, list)) and len(s) == 3 and
                        all(isinstance(n, str) for n in s)
                        for s in self.pos)):
            raise ValueError(fail("theta= takes pos=((\"xi\", \"yi\", "
                                  "\"zi\"), (\"xj\", \"yj\", \"zj\")): "
                                  "three LMEM names, then three BMEM"))

    def tree_for(self, k: Any, fail: Callable[[str], str]) -> None:
        """The far kernel (far=: a Kernel or a path; else the one
        far/STEM_*.nbl beside kernel k's STEM.nbl: in its folder or the
        one above), and the tree's columns: pos=, else k's first three LMEMs and
        BMEMs; the sources, k's other BMEMs (one, a mass; three, a
        vector), as nbrun --tree reads them."""
        far = self.far
        if far is None:
            stem = os.path.splitext(os.path.basename(k.path or ""))[0]
            dirs = [os.path.join(os.path.dirname(k.path), d)
                    for d in ("far", os.path.join("..", "far"))] \
                if k.path else []
            found: List[str] = []
            for d in dirs:
                found = sorted(glob.glob(os.path.join(glob.escape(d),
                                                      glob.escape(stem) +
                                                      "_*.nbl")))
                if found:
                    break
            if len(found) != 1:
                raise ValueError(fail(
                    "theta=: kernel %s has %s: give far= (a Kernel or a "
                    "path; docs/treecode.md)" % (k.name, "no far-field kernel"
                                                 " far/%s_*.nbl" % stem
                                                 if not found else
                                                 "several far kernels, " +
                                                 " and ".join(found))))
            far = found[0]
        if isinstance(far, (str, os.PathLike)):
            far = type(k)(os.fspath(far), precision=k.precision,
                          device=k._dev)
        elif not isinstance(far, type(k)):
            raise TypeError(fail("far= takes a Kernel or a path, not %s" %
                                 type(far).__name__))
        self.far = far
        lm = [v.name for v in k.variables if v.role == "LMEM"]
        bm = [v.name for v in k.variables if v.role == "BMEM"]
        ipos, jpos = (list(self.pos[0]), list(self.pos[1])) if self.pos \
            else (lm[:3], bm[:3])
        src = [n for n in bm if n not in jpos]
        if len(ipos) < 3 or len(jpos) < 3 or len(src) not in (1, 3):
            raise ValueError(fail(
                "theta=: kernel %s needs three LMEM and three BMEM "
                "positions and one source (a mass) or three (a vector) "
                "among its other BMEMs; it has LMEM %s, BMEM %s" %
                (k.name, ", ".join(lm), ", ".join(bm))))
        self.names = ([_name(fail, "pos=", n) for n in ipos],
                      [_name(fail, "pos=", n) for n in jpos])
        self.src = [n.encode() for n in src]

    def run(self, h: int, ni: int, nj: int) -> int:
        """The run (0, or -1 with the runtime's message set)."""
        if rt.nbrt_set_newton(h, self.newton):
            return -1
        if self.arrays:
            g, o, e = self.arrays

            def p(a: NDArray[Any]) -> Any:
                return a.ctypes.data_as(ctypes.POINTER(ctypes.c_size_t))
            r: int = rt.nbrt_run_ranges_csr(h, ni, nj, self.ngroups, p(g),
                                            p(o), p(e))
            return r
        if self.theta is not None:
            names = ctypes.c_char_p * 3
            src = names(*self.src) if len(self.src) == 3 else None
            r = rt.nbrt_run_tree_args(
                h, self.far._h, ni, nj, self.theta, self.bucket,
                rt.nbrt_tree_group(ni) if self.group is None else self.group,
                names(*self.names[0]), names(*self.names[1]),
                self.src[0] if len(self.src) == 1 else None, src)
            return r
        if self.cutoff is not None:
            dim = len(self.names[0])
            names = ctypes.c_char_p * 3
            per = (ctypes.c_double * 3)(*self.period)
            r = rt.nbrt_run_cutoff_args(
                h, ni, nj, self.cutoff, dim, names(*self.names[0]),
                names(*self.names[1]), per, int(self.same))
            return r
        r = rt.nbrt_run_self(h, ni) if self.same else rt.nbrt_run(h, ni, nj)
        return r


def split(names: Sequence[str], given: Dict[str, Any]) \
        -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """A call's keywords: (the inputs, the options).  A keyword that names
    a variable of the kernel is an input; Kernel.run takes the options
    apart where one does."""
    inputs = {k: v for k, v in given.items()
              if k in names or k not in OPTIONS}
    options = {k: v for k, v in given.items()
               if k not in names and k in OPTIONS}
    return inputs, options
