"""``torch.autograd.Variable``: the pre-0.4 wrapper class, kept (as torch keeps it) so that old
code runs. Since torch 0.4 every tensor is a Variable: ``Variable(t)`` returns ``t`` detached
(the same memory, no history) with ``requires_grad`` as asked, and ``isinstance(x, Variable)``
holds for every tensor."""
from __future__ import annotations

import warnings


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from .._tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: `data` detached, requiring grad as asked."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from .._tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
