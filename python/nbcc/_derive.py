"""_derive.py: what Kernel.grad() and Kernel.jvp() ask of nbcc's --grad
and --jvp (docs/autodiff.md): the flag made from the names asked for, the
tangents' and derived results' names chosen apart from the kernel's, and
which derived result answers for which name.  Kernel loads and runs the
derived kernel; nothing here touches one."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, \
    Set, Tuple, Union

Fail = Callable[[str], str]


def _names(fail: Fail, x: Union[str, Sequence[str]]) -> List[str]:
    """A name, names separated by commas, or a sequence of names."""
    try:
        names = [n.strip() for n in x.split(",")] if isinstance(x, str) \
            else list(x)
    except TypeError:
        raise TypeError(fail("wrt=%r: a name, names separated by commas, or "
                             "a list of names is needed" % (x,))) from None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(fail("wrt=%r: one or more input names are needed" %
                              (x,)))
    return names


# the reductions nbcc differentiates (docs/autodiff.md); a logsumexp='s
# derived kernel takes the primal's result as an input of its name, a
# min='s or max='s the argmin= or argmax= declared beside it
DIFFERENTIABLE = ("sum", "logsumexp", "min", "max")


def _sums(reductions: Mapping[str, str]) -> List[str]:
    return [r for r, red in reductions.items() if red in DIFFERENTIABLE]


def _fresh(taken: Set[str], base: str) -> str:
    """base, or base with a number, whichever no variable holds."""
    name, n = base, 1
    while name in taken:
        name, n = "%s%d" % (base, n), n + 1
    taken.add(name)
    return name


def grad(fail: Fail, reductions: Mapping[str, str],
         wrt: Union[str, Sequence[str]], of: Optional[str]) \
        -> Tuple[str, str, Dict[str, str]]:
    """--grad's value, --grad-of's (only `of` is derived), and {input
    name: the derived result holding the gradient of `of` by it}."""
    names = _names(fail, wrt)
    sums = _sums(reductions)
    if of is None:
        if len(sums) != 1:
            raise ValueError(fail(
                "grad(): of= must name the result to differentiate (%s)" %
                (", ".join(sums) if sums else "the kernel has none")))
        of = sums[0]
    elif of not in sums:
        raise ValueError(fail(
            "grad(of=%r): %s; the results differentiated (sums, "
                "logsumexp=, min=, max=) are %s" % (
                of, "its reduction is %s" % reductions[of]
                if of in reductions else "not a result",
                ", ".join(sums) or "none")))
    # the result's name as the compiler gives it (compiler/ad.c's gname)
    return ",".join(names), of, {x: "d%s_d%s" % (of, x) for x in names}


def jvp(fail: Fail, variables: Sequence[str], reductions: Mapping[str, str],
        tangents: Mapping[str, Any]) \
        -> Tuple[str, Dict[str, Any], Dict[str, str]]:
    """--jvp's value, {tangent variable: its values}, and {sum result: the
    derived result holding its derivative}.  variables: every variable's
    name, the results (those of reductions) among them."""
    if not isinstance(tangents, Mapping) or not tangents:
        raise TypeError(fail(
            "jvp(): tangents= must be a dict {input name: its tangent (an "
            "array for an LMEM or BMEM, a number for a CONST)}, not %r" %
            (tangents,)))
    taken = set(variables)
    spec: List[str] = []
    values: Dict[str, Any] = {}
    derived: Dict[str, str] = {}
    for x, t in tangents.items():
        # a result's NAME:OTHER in --jvp names its derivative, so a
        # tangent of a result came back as "no variable 't_r'"
        if not isinstance(x, str) or x not in variables or \
                x in reductions:
            raise ValueError(fail("jvp(): tangents names %r, which is not "
                                  "an input of the kernel" % (x,)))
        name = _fresh(taken, "t_" + x)
        spec.append("%s:%s" % (x, name))
        values[name] = t
    for r in _sums(reductions):
        derived[r] = _fresh(taken, "d_" + r)
        spec.append("%s:%s" % (r, derived[r]))
    return ",".join(spec), values, derived
