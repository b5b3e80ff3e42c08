"""Parameter and Buffer: the tensors a Module registers when they are assigned as attributes.

``Parameter`` is a real Tensor subclass (as in torch): a leaf that requires grad by default and
shares its storage with the tensor it was made from. Results of ops on a Parameter are plain
Tensors (the dispatcher always wraps outputs as ``Tensor``; views and ``detach`` do the same).

``Buffer`` is only a marker, as in torch: ``Buffer(t)`` returns a plain detached Tensor tagged
``_is_buffer`` (and ``persistent``), and ``isinstance(x, Buffer)`` reads that tag.
"""
from __future__ import annotations

from .._tensor import Tensor, _new

__all__ = ["Parameter", "Buffer"]


def _make_subclass(cls, data: Tensor, requires_grad: bool) -> Tensor:
    """A `cls` instance sharing `data`'s storage, a leaf (torch.Tensor._make_subclass)."""
    if requires_grad and data._data.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t = _new(cls)
    t._data = data._data
    t._storage = data._storage_obj()
    t._offset = data._offset
    t._requires_grad = bool(requires_grad)
    t._grad_fn = None
    return t


class Parameter(Tensor):
    r"""A Tensor that is a module parameter: assigning one as a Module attribute registers it.

    Args:
        data (Tensor): parameter tensor (its storage is shared, not copied).
        requires_grad (bool, optional): whether the parameter requires gradient; ``no_grad``
            does not change this default. Default: ``True``

    Example::

        >>> p = nn.Parameter(torch.zeros(3))
        >>> p.requires_grad, p.is_leaf
        (True, True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .. import empty
            data = empty(0)
        return _make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass   # everything happens in __new__ (Tensor's __init__ must not run again)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        return (_rebuild_parameter, (self.detach().clone(), self.requires_grad, state))


def _rebuild_parameter(data: Tensor, requires_grad: bool, state: dict) -> Parameter:
    """Unpickle a Parameter (torch._utils._rebuild_parameter_with_state)."""
    p = Parameter(data, requires_grad)
    p.__dict__.update(state)
    return p


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is true for the tensors ``Buffer(...)`` tagged."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    r"""A Tensor that is module state but not a parameter (BatchNorm's ``running_mean``).

    Assigning a ``Buffer`` as a Module attribute registers it as a buffer.

    Args:
        data (Tensor): buffer tensor.
        persistent (bool, optional): whether the buffer is part of the module's
            :attr:`state_dict`. Default: ``True``
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            from .. import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
