"""_facts.py: what the C libraries say of themselves, read once at import
through their accessors (compiler/query.c, runtime/query.c): the
precisions with their sizes and the runtime's host type of each layout,
the roles of a kernel's variables, nb_num_read's refusals, the source
extension and which files are code nbcc wrote.  No enum value, size or
name of nbcc.h or nbrt.h is written here; the words the package's own
code uses ("dd", "LMEM", "range") are checked to be the libraries'."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Dict, NamedTuple, Optional, \
    Sequence

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

from ._lib import cc, rt, text


def _enum(get: Callable[[int], Optional[bytes]], step: int = 1) \
        -> Dict[int, str]:
    """{value: name} of an enum whose values run from 0 up (or from -1
    down, step -1) until the accessor answers NULL."""
    out: Dict[int, str] = {}
    v = 0 if step > 0 else -1
    while True:
        name = get(v)
        if not name:
            return out
        out[v] = name.decode()
        v += step


def _enum_named(kind: str, step: int = 1) -> Dict[int, str]:
    def get(v: int) -> Optional[bytes]:
        name: Optional[bytes] = cc.nb_enum_name(kind.encode(), v)
        return name
    return _enum(get, step)


class Prec(NamedTuple):
    """A precision of nbcc.h's table: its values are `scalars` machine
    scalars of `dtype` each (a dd is two float64: hi, lo), and host arrays
    in that layout are of nbrt type `host`."""
    name: str
    value: int  # nb_prec
    host: int  # nbrt_type
    scalars: int
    dtype: np.dtype[Any]

    @property
    def exact_to(self) -> float:
        """Every integer up to this one is a value (2^24 for a float)."""
        return 1 / float(cc.nb_prec_unit(self.value))

    @property
    def itemsize(self) -> int:
        return self.scalars * self.dtype.itemsize

    def empty(self, n: int) -> NDArray[Any]:
        """n values in the runtime's layout: shape (n,), or (n, scalars)."""
        return np.empty((n,) if self.scalars == 1 else (n, self.scalars),
                        self.dtype)


def _need(what: str, have: Sequence[str], names: Sequence[str]) -> None:
    for n in names:
        if n not in have:
            raise ImportError("nbcc: the library has no %s '%s' (it has %s):"
                              " the package and libnbcc.so are of different "
                              "versions" % (what, n, ", ".join(have)))


_HOST = {name: t for t, name in _enum(rt.nbrt_type_name).items()}
PRECS: Dict[str, Prec] = {
    name: Prec(name, p, _HOST[name], cc.nb_prec_scalars(p),
               np.dtype("f%d" % cc.nb_prec_scalar_bytes(p)))
    for p, name in _enum_named("nb_prec").items()}
PREC_OF: Dict[int, Prec] = {p.value: p for p in PRECS.values()}
ROLES: Dict[int, str] = _enum_named("nb_role")
# reductions by value: the interface header's word ("sum", "count", ...)
REDS: Dict[int, str] = _enum_named("nb_red")
NUM: Dict[str, int] = {n: v for v, n in _enum_named("nb_num", -1).items()}
# the tree's defaults (nbrt.h's NBRT_TREE_BUCKET and NBRT_TREE_GROUP)
TREE_BUCKET: int = rt.nbrt_tree_default(b"bucket")
TREE_GROUP: int = rt.nbrt_tree_default(b"group")
SOURCE_EXT = text(cc.nb_source_ext())
MAX_SOURCE: int = cc.nb_max_source()  # bytes

_need("precision", list(PRECS), ("float", "double", "dd"))
_need("role", list(ROLES.values()), ("LMEM", "BMEM", "RMEM", "CONST"))
_need("reduction", list(REDS.values()), ("sum",))
_need("nb_num_read result", list(NUM), ("nonfinite", "range"))
if not (TREE_BUCKET > 0 and TREE_GROUP > 0):
    raise ImportError("nbcc: libnbrt.so has no tree defaults: the package "
                      "and the library are of different versions")
FLOAT, DOUBLE, DD = PRECS["float"], PRECS["double"], PRECS["dd"]


def prec_names() -> str:
    """The precisions in words: "'float', 'double' or 'dd'"."""
    q = ["'%s'" % n for n in PRECS]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " or " + q[-1]


def known_ext(path: str) -> bool:
    """Whether path ends in an extension nbcc knows: a source's or a
    target's output's."""
    ext = os.path.splitext(path)[1]
    return ext == SOURCE_EXT or bool(ext and
                                     cc.nb_target_of_ext(os.fsencode(ext)))


def is_generated(name: str, src: bytes) -> bool:
    """Whether the runtime takes src as code nbcc wrote (by the name's
    extension, else by the interface header), as nbrt_load_source does."""
    return bool(cc.nb_is_generated(os.fsencode(name), src, len(src)))


# the reductions whose results are integers (counts and j indices), which
# the package returns as int64
INTEGER_REDS = frozenset(n for v, n in REDS.items() if cc.nb_red_integer(v))
