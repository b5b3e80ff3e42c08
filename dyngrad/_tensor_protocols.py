"""torch.Tensor's Python protocols beyond the operators, and two attributes of its own:
``x in t``, ``reversed(t)``, the Python 2 names torch still answers to (``__long__``,
``__nonzero__``; ``__div__``/``__idiv__`` are operators, in _tensor.py's table), the legacy
pickle state (``__setstate__``), ``copy.deepcopy`` (``__deepcopy__``), pickling and
``copy.copy`` (``__reduce_ex__``), ``as_subclass``, ``module_load``, ``storage_type`` and
``grad_dtype``.

_tensor.py calls ``install`` once the ops exist.

Note [as_subclass]
~~~~~~~~~~~~~~~~~~
torch's ``t.as_subclass(cls)`` is ``alias(t)`` (a view: node AliasBackward0, ``_base`` set,
the same memory and version counter) given the class ``cls`` without calling ``cls.__init__``.
We do the same: the alias op's result changes class in place, or, for a subclass whose
``__slots__`` give it another memory layout, its slots and ``__dict__`` move to a new instance.
A subclass keeps its class through ops by ``__torch_function__`` (Note [__torch_function__] in
overrides.py): ``m * 2`` is an ``M``.

Note [grad_dtype]
~~~~~~~~~~~~~~~~~
A leaf's ``grad_dtype`` is the dtype its ``.grad`` must have: the leaf's own dtype until it is
set, a dtype to have the engine cast incoming gradients to it, or None to take them as they
come. It lives in ``Tensor._grad_dtype`` (``...`` until set). The engine reads it where a
gradient reaches a leaf's AccumulateGrad (engine._leaf_grad), before the leaf's hooks. torch's
engine casts (or, for None, leaves) the gradient there, but its op formulas have already cast
their gradients to each input's dtype; dyngrad's formulas leave that cast to the engine, so for
an op's node the engine still casts to the leaf's dtype first (``x.double()`` gives a float32
leaf a float32 gradient, as in torch, and a float64 grad_dtype sees its float32 values). A
custom Function's gradient is cast once, straight to the grad_dtype, or kept for None
(engine._validate_one), as torch does.
"""
from __future__ import annotations

import copy
import numbers

from . import _dtypes as D
from ._storage import warn_typed_storage_removal


def __contains__(self, element, /) -> bool:
    """Whether ``element`` (a Tensor or a number) equals any element of the tensor, broadcast
    against it: ``(element == self).any()``."""
    from ._tensor import Tensor
    if isinstance(element, (Tensor, numbers.Number)):
        return bool((element == self).any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       f"{type(element)}.")


def __reversed__(self):
    """The tensor flipped along dim 0; a 0-d tensor is returned itself."""
    return self if self._data.ndim == 0 else self.flip(0)


def __setstate__(self, state):
    """Restore a tensor pickled by a torch older than 0.4: ``(storage, offset, size, stride)``
    for a Tensor, ``(data, _, backward_hooks, requires_grad, _)`` for a Variable, or
    ``(requires_grad, _, backward_hooks)``. (Neither library's own pickles call it.)"""
    if not self.is_leaf:
        raise RuntimeError("__setstate__ can be only called on leaf Tensors")
    if len(state) == 4:   # a legacy Tensor
        self.set_(*state)
        return
    if len(state) == 5:   # a legacy Variable
        self.data = state[0]
        state = (state[3], state[4], state[2])
    self.requires_grad, _, self._backward_hooks = state


def as_subclass(self, *args, **kwargs):
    """A view of ``self`` (node AliasBackward0) that is an instance of ``cls``, a Tensor
    subclass; ``cls.__init__`` is not called. See Note [as_subclass]."""
    from ._tensor import Tensor
    if len(args) > 1:
        raise TypeError(f"as_subclass() takes 1 positional argument but {len(args)} were given")
    if args and "cls" in kwargs:
        raise TypeError("as_subclass() got multiple values for argument 'cls'")
    if not args and "cls" not in kwargs:
        raise TypeError('as_subclass() missing 1 required positional arguments: "cls"')
    cls = args[0] if args else kwargs.pop("cls")
    for name in kwargs:
        raise TypeError(f"as_subclass() got an unexpected keyword argument '{name}'")
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    from .ops import shape
    from .overrides import note_instance
    out = shape.alias(self)
    if cls is Tensor:
        return out
    try:
        out.__class__ = cls
    except TypeError:   # (a subclass with slots of its own: another memory layout)
        new = object.__new__(cls)
        new._data, new._requires_grad, new._grad_fn = out._data, out._requires_grad, out._grad_fn
        new.__dict__.update(out.__dict__)
        out = new
    note_instance(out)
    return out


def storage_type(self):
    """The legacy storage class of the tensor's dtype (``torch.FloatStorage``...), None for a
    dtype without one; warns that TypedStorage is deprecated, once per process, as torch."""
    warn_typed_storage_removal()
    from ._legacy_types import legacy_storage_class
    return legacy_storage_class(self.dtype)


# -- copy.deepcopy -----------------------------------------------------------------------------
_DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
    "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
_NEW_EMPTY_TYPE = (
    "The default implementation of __deepcopy__() for non-wrapper subclasses only works for "
    "subclass types that implement new_empty() and for which that function returns another "
    "instance of the same subclass. You should either properly implement new_empty() for your "
    "subclass or override __deepcopy__() if it is intended behavior for new_empty() to return "
    "an instance of a different type.")


def __deepcopy__(self, memo):
    """``copy.deepcopy(t)``, as torch's: a leaf only; the copy views a copy of the whole
    storage (one per storage in `memo`, so views copied together still share memory) with the
    same size, strides and offset, set there by ``set_`` (version 1); ``requires_grad``, a
    deep copy of ``.grad`` and of the attributes a user gave the tensor come along, hooks do
    not."""
    if self._grad_fn is not None:
        raise RuntimeError(_DEEPCOPY_NON_LEAF)
    copied = memo.get(id(self))
    if copied is not None:
        return copied
    if self.is_sparse:   # (no storage: its addresses and values, copied)
        from .ops.sparse import rebuild_sparse
        data = self._data
        new = memo[id(self)] = rebuild_sparse(data.indices.copy(), data.values.copy(),
                                              data.shape, data.coalesced, self._requires_grad)
        return new
    from .autograd.grad_mode import no_grad
    with no_grad():
        storage = _deepcopy_storage(self._storage_obj(), memo)
        new = self.new_empty([])
        if type(new) is not type(self):
            raise RuntimeError(_NEW_EMPTY_TYPE)
        new.set_(storage, self.storage_offset(), self.size(), self.stride())
        if self._requires_grad:
            new.requires_grad_()
        if self.grad is not None:
            new.grad = self.grad.__deepcopy__(memo)
        user = {k: v for k, v in self.__dict__.items() if not _is_internal(k)}
        if user:
            new.__dict__.update(copy.deepcopy(user, memo))
    memo[id(self)] = new
    return new


def _deepcopy_storage(st, memo):
    """A Storage over a copy of `st`'s buffer, one per storage in `memo`."""
    new = memo.get(id(st))
    if new is None:
        from ._storage import Storage
        new = memo[id(st)] = Storage(st.buffer.copy(), st.device)
        memo.setdefault(id(memo), []).append(st)   # (copy.deepcopy's keep-alive list)
    return new


# -- pickle and copy.copy ----------------------------------------------------------------------
def __reduce_ex__(self, protocol):
    """``pickle`` and ``copy.copy``, as torch's: the tensor is rebuilt over its storage with
    its size, strides and offset (``set_``: version 1), ``requires_grad`` and the attributes a
    user gave it; a subclass comes back through ``as_subclass``. ``copy.copy`` hands the
    storage over as it is (the copy shares the memory), pickle copies the whole storage, once
    per tensor (views pickled together no longer share memory, as in torch). ``.grad`` and
    hooks are left behind (torch warns about the hooks)."""
    if self._backward_hooks:
        from .utils.hooks import warn_if_has_hooks
        warn_if_has_hooks(self)
    if self.is_sparse:   # (torch's _rebuild_sparse_tensor: addresses, values, size, flag)
        from .ops.sparse import rebuild_sparse
        data = self._data
        return (rebuild_sparse, (data.indices.copy(), data.values.copy(), data.shape,
                                 data.coalesced))   # (not requires_grad: as torch's pickle)
    user = {k: v for k, v in self.__dict__.items() if not _is_internal(k)}
    return (_rebuild_from_storage,
            (type(self), _StorageRef(self._storage_obj()), self.dtype, self.storage_offset(),
             tuple(self.shape), self.stride(), self._requires_grad, user or None))


class _StorageRef:
    """A storage as one tensor's pickle carries it: a new object per tensor, so that pickle's
    memo does not share one storage between tensors (torch's pickles do not), and it pickles
    as a copy of the storage's bytes (copy.copy, which pickles nothing, passes it as it is)."""

    __slots__ = ("storage",)

    def __init__(self, storage):
        self.storage = storage

    def __reduce__(self):
        st = self.storage   # (a copy: pickle's memo would share one array between tensors)
        return (_StorageRef._from_buffer, (st.buffer.copy(), st.device))

    @staticmethod
    def _from_buffer(buffer, device):
        from ._storage import Storage
        return _StorageRef(Storage(buffer, device))


def _rebuild_from_storage(cls, ref, dtype, offset, shape, stride, requires_grad, attributes):
    """The tensor ``__reduce_ex__`` describes: a new tensor ``set_`` to the storage."""
    from .ops.creation import empty
    t = empty(0, dtype=dtype)
    t.set_(ref.storage, offset, shape, stride)
    if requires_grad:
        t.requires_grad_()
    if cls is not type(t):
        t = t.as_subclass(cls)
    if attributes:
        t.__dict__.update(attributes)
    return t


def _is_internal(name: str) -> bool:
    """Whether an entry of a tensor's ``__dict__`` is dyngrad's own state (the class gives each
    a default; a base keeps its views' registry) rather than an attribute the user set."""
    from ._tensor import Tensor
    return name == "_views" or hasattr(Tensor, name)


def module_load(self, other, assign=False):
    """What ``load_state_dict`` swaps into a module's parameter or buffer ``self`` for the
    state dict's value ``other``, when ``dyngrad.__future__``'s swap switch is on: a new
    tensor, never ``self`` or ``other`` (``other.detach()`` with `assign`, else
    ``self.copy_(other).detach()``). A subclass may override it."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


# -- grad_dtype (Note [grad_dtype]) -----------------------------------------------------------
def _get_grad_dtype(self):
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    gd = self._grad_dtype
    return D._FROM_NP[self._data.dtype] if gd is ... else gd


def _set_grad_dtype(self, value) -> None:
    if value is not None and not isinstance(value, D.dtype):
        raise RuntimeError("grad_dtype must be a torch.dtype or None, but got "
                           f"{type(value).__name__}")
    grad = self.grad   # (torch reads it first: its warning on a non-leaf)
    if grad is not None and value is not None and grad._data.dtype != value.np:
        from .ops.creation import TYPEMETA_NAME
        raise RuntimeError(
            f"Cannot set grad_dtype to '{value._legacy}' because there is already a gradient "
            f"with dtype '{TYPEMETA_NAME[grad.dtype]}'. Please clear the gradient (.grad = None) "
            "before changing grad_dtype, or ensure the new grad_dtype matches the existing "
            "gradient's dtype.")
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    self._grad_dtype = value


def install(tensor_cls) -> None:
    """Attach the protocols and attributes to Tensor."""
    from .overrides import asks, tensor_torch_function
    for fn in (__contains__, __reversed__, __setstate__, __deepcopy__, __reduce_ex__,
               as_subclass, module_load, storage_type):
        fn.__qualname__ = "Tensor." + fn.__name__
        if fn in (__deepcopy__, __reduce_ex__, __contains__, __reversed__):
            fn = asks(fn)   # (torch's ask __torch_function__: Note [__torch_function__])
        setattr(tensor_cls, fn.__name__, fn)
    tensor_torch_function.__name__ = "__torch_function__"
    tensor_torch_function.__qualname__ = "Tensor.__torch_function__"
    tensor_cls.__torch_function__ = classmethod(tensor_torch_function)
    tensor_cls.__long__ = tensor_cls.__int__
    tensor_cls.__nonzero__ = tensor_cls.__bool__
    tensor_cls.grad_dtype = property(_get_grad_dtype, _set_grad_dtype, doc=(
        "The dtype ``.grad`` must have: the tensor's own until set; a dtype makes the engine "
        "cast incoming gradients to it, None takes them as they come (leaf tensors only)."))
