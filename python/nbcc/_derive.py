"""_derive.py: Kernel.grad() and Kernel.jvp(), the derived kernels of
nbcc's --grad and --jvp (docs/autodiff.md) called as methods: the flag
made from the names asked for, the derived kernel loaded once per flag
(Kernel._derived), run on the caller's inputs, and its derived results
handed back under the names of what they are derivatives of."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, \
    Sequence, Set, Union

from . import _pairs

if TYPE_CHECKING:
    from .kernel import Kernel


def _names(fail: Any, what: str, x: Union[str, Sequence[str]]) -> List[str]:
    """A name, names separated by commas, or a sequence of names."""
    names = [n.strip() for n in x.split(",")] if isinstance(x, str) else \
        list(x)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(fail("%s=%r: one or more input names are needed" %
                              (what, x)))
    return names


def _sums(k: Kernel) -> List[str]:
    return [r for r, red in k.reductions.items() if red == "sum"]


def _fresh(taken: Set[str], base: str) -> str:
    """base, or base with a number, whichever no variable holds."""
    name, n = base, 1
    while name in taken:
        name, n = "%s%d" % (base, n), n + 1
    taken.add(name)
    return name


def _run(d: Kernel, given: Dict[str, Any]) -> Dict[str, Any]:
    """d's run on the inputs and run options among given."""
    inputs, options = _pairs.split([v.name for v in d.variables], given)
    return d.run(inputs, **options)


def grad(k: Kernel, wrt: Union[str, Sequence[str]], of: Optional[str],
         given: Dict[str, Any]) -> Dict[str, Any]:
    wrt = _names(k._fail, "wrt", wrt)
    sums = _sums(k)
    if of is None:
        if len(sums) != 1:
            raise ValueError(k._fail(
                "grad(): of= must name the sum to differentiate (%s)" %
                (", ".join(sums) if sums else "the kernel has none")))
        of = sums[0]
    elif of not in sums:
        raise ValueError(k._fail(
            "grad(of=%r): %s; the sums (+=, -=) are %s" % (
                of, "its reduction is %s" % k.reductions[of]
                if of in k.reductions else "not a result",
                ", ".join(sums) or "none")))
    d = k._derived("grad", ",".join(wrt))
    out = _run(d, given)
    res: Dict[str, Any] = {}
    for x in wrt:
        # the result's name as the compiler gives it (docs/autodiff.md)
        name = "d%s_d%s" % (of, x)
        if name not in out:
            raise RuntimeError(k._fail("grad(): the derived kernel has no "
                                       "result %s (it has %s)" %
                                       (name, ", ".join(out))))
        res[x] = out[name]
    return res


def jvp(k: Kernel, tangents: Mapping[str, Any],
        given: Dict[str, Any]) -> Dict[str, Any]:
    if not isinstance(tangents, Mapping) or not tangents:
        raise TypeError(k._fail(
            "jvp(): tangents= must be a dict {input name: its tangent (an "
            "array for an LMEM or BMEM, a number for a CONST)}, not %r" %
            (tangents,)))
    taken = {v.name for v in k.variables}
    spec: List[str] = []
    values: Dict[str, Any] = {}
    derived: Dict[str, str] = {}
    for x, t in tangents.items():
        if not isinstance(x, str) or x not in taken:
            raise ValueError(k._fail("jvp(): tangents names %r, which is "
                                     "not an input of the kernel" % (x,)))
        name = _fresh(taken, "t_" + x)
        spec.append("%s:%s" % (x, name))
        values[name] = t
    for r in _sums(k):
        derived[r] = _fresh(taken, "d_" + r)
        spec.append("%s:%s" % (r, derived[r]))
    d = k._derived("jvp", ",".join(spec))
    out = _run(d, dict(given, **values))
    return {r: out[name] for r, name in derived.items()}
