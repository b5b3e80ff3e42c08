"""Parameter and Buffer: the tensors a Module registers when they are assigned as attributes.

``Parameter`` is a real Tensor subclass (as in torch): a leaf that requires grad by default and
shares its storage with the tensor it was made from. Results of ops on a Parameter are plain
Tensors (the dispatcher always wraps outputs as ``Tensor``; views and ``detach`` do the same).

``Buffer`` is only a marker, as in torch: ``Buffer(t)`` returns a plain detached Tensor tagged
``_is_buffer`` (and ``persistent``), and ``isinstance(x, Buffer)`` reads that tag.

``UninitializedParameter`` / ``UninitializedBuffer`` are the placeholders of lazy modules: an
empty tensor whose shape is not known yet, turned into a ``Parameter`` / ``Tensor`` in place by
``materialize(shape)`` (see Note [Uninitialized tensors]).
"""
from __future__ import annotations

import sys
from typing import Any

from .. import _tensor as _tensor_module
from .._tensor import Tensor, _new
from ..overrides import _disabled_torch_function_impl, note_instance

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


def _make_subclass(cls, data: Tensor, requires_grad: bool) -> Tensor:
    """A `cls` instance sharing `data`'s storage, a leaf (torch.Tensor._make_subclass)."""
    if requires_grad and data._data.dtype.kind not in "fcV":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    if requires_grad and data._is_inference and not _tensor_module._grad_state.inference:
        raise RuntimeError(_tensor_module._INFERENCE_REQUIRES_GRAD)
    t = _new(cls)
    note_instance(t)
    t._data = data._data
    t._storage = data._storage_obj()
    t._offset = data._offset
    t._requires_grad = bool(requires_grad)
    t._grad_fn = None
    if data._is_inference:   # (it shares an inference tensor's memory: it is one, as in torch)
        t._is_inference = True
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

    # as torch's: ops on a Parameter give plain tensors (Note [__torch_function__])
    __torch_function__ = _disabled_torch_function_impl

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


# Note [Uninitialized tensors]
# torch guards these placeholders with ``__torch_function__``: any function but a short list
# (size, dtype and device queries, conversions, copy_) raises ValueError. dyngrad has no such
# protocol, but every op reads a tensor's values through its ``_data`` slot; the mixin hides
# that slot behind a property that raises, and implements the allowed methods on an alias of
# the (empty) array. ``materialize`` swaps ``__class__`` to the plain class, which uncovers the
# slot again (the layouts are the same, so the swap is legal).
_DATA = Tensor.__dict__["_data"]   # the slot descriptor itself
_CONVERSIONS = ("half", "float", "double", "char", "short", "int", "long", "cpu", "cuda", "to")
_ENTRY_FILES = ("_tensor.py", "functional.py", "init.py")


def _used_in() -> str:
    """How torch would name the function that touched the placeholder (best effort, without
    torch's addresses): the outermost dyngrad entry point the caller went through, a Tensor
    method (``<method 'clone' of ...>``) or a function (``<built-in function linear>``)."""
    frame, entry, inner = sys._getframe(2), None, None
    while frame is not None:
        code = frame.f_code
        path = code.co_filename.replace("\\", "/")
        if path.endswith("/dyngrad/overrides.py"):   # (the __torch_function__ wrapper of a
            frame = frame.f_back                      # Python function: not an entry point)
            continue
        if "/dyngrad/" not in path or not ("/dyngrad/ops/" in path
                                           or path.endswith(_ENTRY_FILES)):
            break
        inner, entry = entry, frame
        frame = frame.f_back
    if entry is None:
        return "<built-in function unknown>"
    name = entry.f_code.co_name
    if name == "method" and inner is not None:   # a Tensor method installed from ops
        spec = inner.f_locals.get("spec")
        name = inner.f_code.co_name if spec is None else getattr(spec, "base", name)
    elif name == "fast":                          # a Python operator on the fast path
        spec = entry.f_locals.get("spec")
        name = getattr(spec, "base", name)
    elif not entry.f_code.co_filename.endswith("_tensor.py") \
            and entry.f_code not in _tensor_module.METHOD_CODES:
        return f"<built-in function {name}>"
    return f"<method '{name}' of 'torch._C.TensorBase' objects>"


def _use_error(cls: type, func: str) -> ValueError:
    return ValueError(
        f"Attempted to use an uninitialized parameter in {func}. This error happens when you "
        "are using a `LazyModule` or explicitly manipulating "
        f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` "
        "with a dummy batch to initialize the parameters before calling torch functions")


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share (torch's mixin)."""

    # (its guard is the _data property below, not the protocol)
    __torch_function__ = _disabled_torch_function_impl

    __slots__ = ()
    cls_to_become: type = Tensor

    def __init__(self, *args, **kwargs) -> None:
        pass   # everything happens in __new__

    @property
    def _data(self):
        raise _use_error(type(self), _used_in())

    @_data.setter
    def _data(self, value) -> None:
        _DATA.__set__(self, value)

    def _alias(self) -> Tensor:
        """A plain Tensor over the placeholder's empty array (for the allowed methods)."""
        t = _new(Tensor)
        t._data = _DATA.__get__(self)
        t._storage = self._storage
        t._offset = 0
        t._requires_grad = False
        t._grad_fn = None
        return t

    def _rewrap(self, out: Tensor, alias: Tensor) -> Tensor:
        """The result of an allowed method: torch returns the placeholder itself when nothing
        changed, plain tensors for a parameter, placeholders again for a buffer."""
        return self if out is alias else out

    def materialize(self, shape, device=None, dtype=None) -> None:
        r"""Become a Parameter (or Tensor) of `shape`, on `device` with `dtype` (by default
        the placeholder's own); the values are uninitialised (``torch.empty``)."""
        from ..ops.creation import empty
        if device is None:
            device = self.device
        if dtype is None:
            dtype = self.dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    # -- the methods torch allows -------------------------------------------------------------
    def size(self, dim: int | None = None):
        return self._alias().size(dim)

    @property
    def dtype(self):
        return self._alias().dtype

    def is_floating_point(self) -> bool:
        return self._alias().is_floating_point()

    def is_complex(self) -> bool:
        return self._alias().is_complex()

    @property
    def ndim(self) -> int:
        return self._alias().ndim

    def copy_(self, src: Tensor, non_blocking: bool = False):
        alias = self._alias()
        alias._requires_grad = self._requires_grad   # torch's check for a leaf's in-place
        alias.copy_(src, non_blocking)
        return self

    def requires_grad_(self, requires_grad: bool = True):
        raise _use_error(type(self), "<method 'requires_grad_' of 'torch._C.TensorBase' "
                                     "objects>")

    def numpy(self, *args, **kwargs):
        raise _use_error(type(self), "<method 'numpy' of 'torch._C.TensorBase' objects>")


def _allowed_conversion(name: str):
    def method(self, *args, **kwargs):
        alias = self._alias()
        return self._rewrap(getattr(alias, name)(*args, **kwargs), alias)
    method.__name__ = name
    method.__doc__ = f"``Tensor.{name}`` on the placeholder's empty values."
    return method


for _name in _CONVERSIONS:
    setattr(UninitializedTensorMixin, _name, _allowed_conversion(_name))
del _name


def is_lazy(param: Any) -> bool:
    """Whether `param` is an UninitializedParameter or an UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    r"""A Parameter whose shape is not known yet (a lazy module's weight before its first call).

    Only its dtype and device may be read or changed; anything else raises until
    :meth:`materialize` turns it into a :class:`Parameter`.

    Args:
        requires_grad (bool): Default: ``True``
        device, dtype: what the materialized parameter will have by default.
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        from ..ops.creation import empty
        return _make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)

    @property
    def data(self) -> Tensor:
        return self._alias()

    @data.setter
    def data(self, value: Tensor) -> None:
        Tensor.data.fset(self, value._alias() if is_lazy(value) else value)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        alias = self._alias()
        result = type(self)(self.requires_grad, alias.device, alias.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    r"""A buffer whose shape is not known yet (a lazy batch norm's running statistics).

    As :class:`UninitializedParameter`, but :meth:`materialize` gives a plain Tensor, and
    conversions (``to``, ``double()``...) give placeholders again, as in torch.

    Args:
        requires_grad (bool): Default: ``False``
        device, dtype: what the materialized buffer will have by default.
        persistent (bool): whether the buffer goes into the ``state_dict``. Default: ``True``
    """

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None,
                persistent: bool = True):
        from ..ops.creation import empty
        ret = _make_subclass(cls, empty(0, device=device, dtype=dtype), requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret

    def _rewrap(self, out: Tensor, alias: Tensor) -> Tensor:
        if out is alias:
            return self
        ret = _make_subclass(type(self), out, self.requires_grad)
        ret.__dict__.update(self.__dict__)
        ret._storage = out._storage_obj()
        return ret

    @property
    def data(self) -> Tensor:
        return self._rewrap(self._alias().detach(), None)

    @data.setter
    def data(self, value: Tensor) -> None:
        Tensor.data.fset(self, value._alias() if is_lazy(value) else value)

    def __deepcopy__(self, memo):
        raise _use_error(type(self), repr(Tensor.__deepcopy__))
