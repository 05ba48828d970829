"""_options.py: Kernel()'s keyword options as nbcc's flags, and the
nb_options they make: allocated by the library (nb_options_new) and filled
by its own option parser, so the package knows neither the struct's size
nor its fields."""

import ctypes
import weakref
from typing import Any, Dict, List, Optional, Sequence

from . import _facts
from ._lib import cc

# keyword options and the nbcc flags they stand for (docs/python.md): the
# package's own words, each flag checked by nb_options_parse
_VALUED = {"unroll_i": "--unroll-i", "unroll_j": "--unroll-j",
           "jsplit": "--jsplit", "sched": "--sched", "wg": "--wg",
           "tile": "--tile", "name": "--name", "jvp": "--jvp",
           "grad": "--grad", "grad_of": "--grad-of"}
# a switch's flags for True and for False (None: the default, no flag)
_SWITCH = {"fast_math": ("--fast-math", None), "fma": ("--fma", "--no-fma"),
           "ftz": (None, "--no-ftz"), "split_warps": ("--split-warps", None)}


class Options:
    """An nb_options made from flags.  The flags' bytes live as long as
    the options, which may point into them."""

    def __init__(self, flags: Sequence[str]) -> None:
        p = cc.nb_options_new()
        if not p:
            raise MemoryError("nb_options_new failed")
        self.ptr: int = p
        self._fin = weakref.finalize(self, cc.nb_options_free, p)
        # a lone surrogate (os.fsdecode's) goes as its byte, which the
        # compiler refuses by name, not as a bare UnicodeEncodeError
        self.flags = [f.encode("utf-8", "surrogateescape") for f in flags]
        err = ctypes.create_string_buffer(512)
        for f in self.flags:
            r = cc.nb_options_parse(p, f, None, err, len(err))
            if r != 1:
                raise ValueError(err.value.decode() if r < 0 else
                                 "not an nbcc flag: " + f.decode())


def flags(precision: Optional[str], options: Dict[str, Any]) -> List[str]:
    """nbcc's flags for Kernel()'s precision and keyword options; a
    TypeError for an option it does not take or a value of the wrong
    kind, a ValueError for a precision the library does not have."""
    out = []
    if precision is not None:
        if not isinstance(precision, str):
            # a list reached the dict lookup: "unhashable type: 'list'"
            raise TypeError("precision must be %s, not %s" %
                            (_facts.prec_names(), type(precision).__name__))
        if precision not in _facts.PRECS:
            raise ValueError("precision must be %s, not %r" %
                             (_facts.prec_names(), precision))
        out.append("--precision=" + precision)
    for k, v in options.items():
        if k in _VALUED:
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise TypeError("%s=%r: an int or str is needed" % (k, v))
            if isinstance(v, str) and "\0" in v:
                # the C flag would end at it, silently
                raise ValueError("%s=%r: a NUL character is not allowed" %
                                 (k, v))
            out.append("%s=%s" % (_VALUED[k], v))
        elif k in _SWITCH:
            if not isinstance(v, bool):
                raise TypeError("%s=%r: True or False is needed" % (k, v))
            f = _SWITCH[k][0 if v else 1]
            if f:
                out.append(f)
        else:
            raise TypeError("Kernel() got an unknown option %r (options: "
                            "precision, device, %s)" %
                            (k, ", ".join(sorted(list(_VALUED) +
                                                 list(_SWITCH)))))
    return out
