"""torch.py: an nbcc kernel's sum as a PyTorch autograd function, for
fitting through a pairwise reduction: forward is a call of the kernel,
backward its gradient (Kernel.grad) times the incoming gradient.  Needs
PyTorch (importing this module without it is an ImportError); the rest of
the package never imports it.  docs/python.md, "Derivatives"."""

from __future__ import annotations

import importlib as _importlib
from typing import Any, Dict, List, Tuple

import numpy as _np

from .doubledouble import DD
from .kernel import Kernel

# typed as Any whether or not PyTorch ships its hints, so that the
# package's type check is the same with and without it
_torch: Any = _importlib.import_module("torch")

__all__ = ["pairwise"]


def _numpy(x: Any) -> Any:
    if isinstance(x, _torch.Tensor):
        x = x.detach().cpu().numpy()
        return x if x.ndim else x.item()
    return x


def _tensor(a: Any, like: Any) -> Any:
    if isinstance(a, DD):
        a = a.hi + a.lo  # dd's value to double's precision
    return _torch.from_numpy(_np.ascontiguousarray(a)).to(like.device)


class _Sum(_torch.autograd.Function):  # type: ignore[misc]
    """forward(ctx, kernel, of, names, *values): kernel's result `of`."""

    @staticmethod
    def forward(ctx: Any, k: Kernel, of: str, names: Tuple[str, ...],
                *values: Any) -> Any:
        given = {n: _numpy(v) for n, v in zip(names, values)}
        out = k(**given)[of]
        ctx.k, ctx.of, ctx.names, ctx.given = k, of, names, given
        ctx.values = values
        like = next((v for v in values if isinstance(v, _torch.Tensor)),
                    _torch.zeros(0))
        return _tensor(out, like)

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        need = [n for n, req in zip(ctx.names, ctx.needs_input_grad[3:])
                if req]
        grads: Dict[str, Any] = {}
        roles = {v.name: v.role for v in ctx.k.variables}
        if need:
            # the VJP: an LMEM's gradient per i, times g here; a CONST's
            # is sum_i g[i] d of[i]/dc, which Kernel.grad sums in dd
            grads = ctx.k.grad(need, of=ctx.of, cotangent=_numpy(g).astype(
                _np.float64) if any(roles[n] == "CONST" for n in need)
                else None, **ctx.given)
        out: List[Any] = [None, None, None]
        for n, v in zip(ctx.names, ctx.values):
            if n not in grads:
                out.append(None)
            elif roles[n] == "LMEM":
                out.append(g * _tensor(grads[n], g).to(g.dtype))
            else:
                t = grads[n]
                t = float(t.hi + t.lo) if isinstance(t, DD) else t
                out.append(_torch.full(_torch.as_tensor(v).shape, t,
                                       dtype=g.dtype, device=g.device))
        return tuple(out)


def pairwise(k: Kernel, of: str, **inputs: Any) -> Any:
    """k's sum result `of` as a tensor, differentiable with respect to the
    LMEM and CONST tensors among inputs (those with requires_grad).  A
    BMEM tensor that requires a gradient is refused: its gradient is a
    sum over i weighted by the incoming gradient, where nbcc's BMEM
    gradient (Kernel.grad by a BMEM) is of the unweighted total sum_i
    of[i] (docs/autodiff.md); for it, write the weights into the kernel
    as an LMEM factor of the sum and call Kernel.grad by the BMEM."""
    roles = {v.name: v.role for v in k.variables}
    for n, v in inputs.items():
        if isinstance(v, _torch.Tensor) and v.requires_grad and \
                roles.get(n) not in ("LMEM", "CONST"):
            raise ValueError("kernel %s: nbcc.torch.pairwise: %s '%s' "
                             "requires a gradient, which is given only for "
                             "LMEM and CONST inputs" %
                             (k.name, roles.get(n, "the non-variable"), n))
    names = tuple(inputs)
    return _Sum.apply(k, of, names, *(inputs[n] for n in names))
