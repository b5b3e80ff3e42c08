"""Fills and copies at indices: index_copy, index_fill and masked_fill (with their in-place
forms), and the gradients torch gives them (``IndexCopyBackward0``, ``IndexFillBackward0/1``,
``MaskedFillBackward0/1``).

A value given as a 0-dim tensor is a separate overload (``index_fill.int_Tensor``,
``masked_fill.Tensor``) whose node gives that tensor a gradient: the sum of the incoming
gradient over the filled positions (each filled slice once). Values are converted to the
tensor's dtype with torch's overflow checks ("value cannot be converted to type int without
overflow").

Note [Filling an expanded tensor]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch refuses most in-place writes into a tensor whose elements share memory (``expand``), but
index_fill_ and masked_fill_ only warn ("Use of masked_fill_ on expanded tensors is
deprecated...") and write through: a memory location is filled when any of the positions
that share it is selected. The dispatcher's in-place path would refuse, so these two write
directly into ``self``'s memory then (see ``_fill_expanded``).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_error, broadcast_shapes, canonical_dim, shape_str
from ..backends import numpy_backend as _npb
from . import shape as S
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD
from ._selection import warn_at_caller
from .creation import number
from .gather_scatter import _as_1d, _c10, _fill_value, check_bounds, tensor_arg

_xp = _npb.xp


def _tensor_cls():
    return S._tensor_cls()


# ---------------------------------------------------------------------------------------------
# index_copy
# ---------------------------------------------------------------------------------------------
def _legacy(dtype) -> str:
    return D.from_np(dtype)._legacy


def _sizes(shape) -> str:
    """A size vector as c10 prints it inside messages: ``3 4``."""
    return " ".join(str(n) for n in shape)


@defop("index_copy", node="IndexCopyBackward0", promote=Promote.NONE,
       inputs=("self", "index", "source"), differentiable=("self", "source"),
       saves=("index", "source"), variants=(), scalars=())
def _index_copy(xp, self, index, source, dim):
    d = canonical_dim(dim, self.ndim)
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    n = index.size
    if source.ndim == 0 and n != 1:
        raise IndexError("index_copy_(): When source is scalar, index should have one element "
                         f"(got {n})")
    if source.ndim not in (self.ndim, 0) and self.ndim != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({self.ndim})")
    if index.dtype != xp.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{_legacy(index.dtype)}")
    if self.dtype != source.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_legacy(self.dtype)} and (source) "
                           f"{_legacy(source.dtype)}")
    self_slice = [s for k, s in enumerate(self.shape) if k != d]
    source_slice = [s for k, s in enumerate(source.shape) if k != d]
    if self_slice != source_slice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {_sizes(self_slice)} at dimension "
                           f"{d} and source slice shape: {_sizes(source_slice)} at dimension 0.")
    if source.ndim and n != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({source.shape[d]})")
    out = xp.array(self, order="C")
    target, idx = _as_1d(out), index.reshape(-1)
    check_bounds(idx, target.shape[d], d, IndexError, "index_copy_(): ")
    target[(slice(None),) * d + (idx,)] = _as_1d(source)
    return out


@_index_copy.backward
def _(ctx, grad):
    index, source = ctx.saved_tensors
    need_self, need_source = ctx.needs_input_grad
    grad_self = grad_source = None
    if need_self:
        grad_self = _index_fill_scalar(grad, index, ctx.dim, 0)
    if need_source:
        from .indexing import index_select
        if source.ndim:
            grad_source = S.expand_as(index_select(grad, ctx.dim, index), source)
        else:
            grad_source = index_select(grad, ctx.dim, S.squeeze(index, 0))
    return grad_self, grad_source


_index_copy.jvp(AUTO_LINEAR)


# torch's node also shows the source's rank
_index_copy.node_cls._saved_source_dim = property(lambda node: len(node.source_shape))


def index_copy(input, dim, index, source, *, out=None):
    """``input`` with the slices of ``source`` copied to positions ``index`` along ``dim``."""
    tensor_arg("index_copy", "index", index, 3)
    tensor_arg("index_copy", "source", source, 4)
    if out is not None:
        return _index_copy(input, index, source, dim, out=out)
    return _index_copy(input, index, source, dim)


def _index_copy_method(self, dim, index, source):
    tensor_arg("index_copy", "index", index, 2)
    tensor_arg("index_copy", "source", source, 3)
    return _index_copy(self, index, source, dim)


def index_copy_(self, dim, index, source):
    """In-place :func:`index_copy`."""
    tensor_arg("index_copy_", "index", index, 2)
    tensor_arg("index_copy_", "source", source, 3)
    return _index_copy.call_inplace(self, index, source, dim)


# ---------------------------------------------------------------------------------------------
# index_fill
# ---------------------------------------------------------------------------------------------
def _index_fill_kernel(xp, self, index, dim, value):
    if index.dtype != xp.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    value = number(value)
    if isinstance(value, complex) and self.dtype.kind != "c":
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           "supported")
    d = canonical_dim(dim, self.ndim or 1)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    fill = _fill_value(value, self.dtype)
    out = S._clone.kernel(xp, self)   # torch: self.clone(preserve_format).index_fill_(...)
    target, idx = _as_1d(out), index.reshape(-1)
    check_bounds(idx, target.shape[d], d, IndexError, allow_negative=True)
    target[(slice(None),) * d + (idx,)] = fill
    return out


def _value_dim_check(fname, value) -> None:
    if value.ndim:
        raise RuntimeError(f"{fname} only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.ndim} dimension(s).")


@defop("index_fill.int_Scalar", node="IndexFillBackward0", promote=Promote.NONE,
       inputs=("self", "index"), differentiable=("self",), saves=("index",), variants=(),
       scalars=())
def _index_fill_scalar(xp, self, index, dim, value):
    return _index_fill_kernel(xp, self, index, dim, value)


@_index_fill_scalar.backward
def _(ctx, grad):
    (index,) = ctx.saved_tensors
    return _index_fill_scalar(grad, index, ctx.dim, 0)


_index_fill_scalar.jvp(FROM_BACKWARD)


@defop("index_fill.int_Tensor", node="IndexFillBackward1", promote=Promote.NONE,
       inputs=("self", "index", "value"), differentiable=("self", "value"), saves=("index",),
       variants=(), scalars=())
def _index_fill_tensor(xp, self, index, value, dim):
    _value_dim_check("index_fill_", value)
    return _index_fill_kernel(xp, self, index, dim, value.item())


@_index_fill_tensor.backward
def _(ctx, grad):
    (index,) = ctx.saved_tensors
    need_self, need_value = ctx.needs_input_grad
    grad_self = grad_value = None
    if need_self:
        grad_self = _index_fill_scalar(grad, index, ctx.dim, 0)
    if need_value:
        # torch: grad.index_select(dim, unique(index)).sum() -- each filled slice once
        from .._tensor import _wrap
        from .indexing import index_select
        unique = _wrap(_xp.unique(index._data.reshape(-1)))
        grad_value = index_select(grad, ctx.dim, unique).sum()
    return grad_self, grad_value


_index_fill_tensor.jvp(AUTO_LINEAR)


_FILL_WARNING = ("Use of {}_ on expanded tensors is deprecated. Please clone() the tensor before "
                 "performing this operation. This also applies to advanced indexing e.g. "
                 "tensor[mask] = scalar (Triggered internally at /__w/pytorch/pytorch/aten/src/"
                 "ATen/native/TensorAdvancedIndexing.cpp:{}.)")


def _expanded(t) -> bool:
    if 0 not in t._data.strides:   # (the common case, without building stride())
        return False
    return any(s == 0 and n > 1 for n, s in zip(t._data.shape, t.stride()))


def _fill_expanded(self, name, line, values, write) -> bool:
    """torch fills a tensor with repeated memory (``expand``) after a warning; True if done.

    The write goes through ``self``'s own memory, so a position repeated in memory is filled
    when any of its copies is selected (as torch's kernel does).
    """
    if not _expanded(self):
        return False
    warn_at_caller(_FILL_WARNING.format(name, line))
    from ..autograd import grad_mode
    if grad_mode.is_grad_enabled() and any(
            getattr(v, "requires_grad", False) for v in (self,) + values):
        return False       # the dispatcher's in-place checks decide
    write()
    self._bump_version()
    return True


def index_fill(input, dim, index, value):
    """``input`` with the slices at positions ``index`` along ``dim`` set to ``value``."""
    if isinstance(value, _tensor_cls()):
        return _index_fill_tensor(input, index, value, dim)
    return _index_fill_scalar(input, index, dim, value)


def index_fill_(self, dim, index, value):
    """In-place :func:`index_fill`. See Note [Filling an expanded tensor]."""
    is_tensor = isinstance(value, _tensor_cls())
    if is_tensor:
        _value_dim_check("index_fill_", value._data)

    if _fill_expanded(self, "index_fill", 1913, (value,), lambda: _fill_positions(
            self, index, dim, value.item() if is_tensor else value)):
        return self
    if is_tensor:
        return _index_fill_tensor.call_inplace(self, index, value, dim)
    return _index_fill_scalar.call_inplace(self, index, dim, value)


def _fill_positions(self, index, dim, value):
    """index_fill_ straight into ``self``'s memory (an expanded tensor)."""
    _index_fill_kernel(_xp, self._data, index._data, dim, value)        # torch's checks
    arr = _as_1d(self._data)
    d = canonical_dim(dim, self._data.ndim or 1)
    arr[(slice(None),) * d + (index._data.reshape(-1),)] = _fill_value(value, arr.dtype)


# ---------------------------------------------------------------------------------------------
# masked_fill
# ---------------------------------------------------------------------------------------------
def _broadcast_pair(a, b) -> tuple:
    """broadcast(a, b) with torch's error naming `a` "tensor a"."""
    try:
        return tuple(broadcast_shapes(a, b))
    except RuntimeError:
        raise broadcast_error([tuple(a), tuple(b)]) from None


def _fits(small, shape) -> bool:
    """`small` broadcasts to `shape` without changing it (a mask of size-1 dims)."""
    if len(small) > len(shape):
        return False
    for m, n in zip(small[::-1], shape[::-1]):
        if m != n and m != 1:
            return False
    return True


def _mask_check(mask) -> None:
    if mask.dtype.kind != "b":
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_c10(D.from_np(mask.dtype))}")


def _masked_fill_kernel(xp, self, mask, value, into=None):
    """`self` broadcast with `mask`, `value` where the mask is True; written straight into
    `into` (the target of an in-place call with nothing to record, which masked_fill_ has
    checked: Note [In-place kernels write into the target] in _dispatch.py)."""
    _mask_check(mask)
    fill = _fill_value(value, self.dtype)
    if into is not None:
        xp.copyto(into, fill, where=mask)
        return into
    out = xp.where(mask, fill, self)   # (one pass; a contiguous result, as torch's)
    return out if out.flags.c_contiguous else xp.ascontiguousarray(out)


@defop("masked_fill.Scalar", node="MaskedFillBackward0", promote=Promote.NONE,
       inputs=("self", "mask"), differentiable=("self",), saves=("mask",), variants=(),
       scalars=())
def _masked_fill_scalar(xp, self, mask, value, *, _into=None):
    if mask.shape != self.shape and _into is None:   # (masked_fill_ has checked its shapes)
        _broadcast_pair(mask.shape, self.shape)   # torch's error for shapes that do not broadcast
    return _masked_fill_kernel(xp, self, mask, value, _into)


@_masked_fill_scalar.backward
def _(ctx, grad):
    (mask,) = ctx.saved_tensors
    return _masked_fill_scalar(grad, mask, 0)


_masked_fill_scalar.jvp(FROM_BACKWARD)


@defop("masked_fill.Tensor", node="MaskedFillBackward1", promote=Promote.NONE,
       inputs=("self", "mask", "value"), differentiable=("self", "value"), saves=("mask",),
       variants=(), scalars=())
def _masked_fill_tensor(xp, self, mask, value):
    _broadcast_pair(mask.shape, self.shape)
    _value_dim_check("masked_fill_", value)
    return _masked_fill_kernel(xp, self, mask, value.item())


@_masked_fill_tensor.backward
def _(ctx, grad):
    (mask,) = ctx.saved_tensors
    need_self, need_value = ctx.needs_input_grad
    grad_self = grad_value = None
    if need_self:
        grad_self = _masked_fill_scalar(grad, mask, 0)
    if need_value:
        from .indexing import masked_select
        grad_value = masked_select(grad, mask).sum()
    return grad_self, grad_value


_masked_fill_tensor.jvp(AUTO_LINEAR)


def masked_fill(input, mask, value, *, out=None):
    """``input`` (broadcast with ``mask``) with ``value`` where ``mask`` is True.

    (torch has no ``out=`` form: passing one raises its TypeError.)
    """
    if out is not None:
        def kind(v):
            return "Tensor" if isinstance(v, _tensor_cls()) else type(v).__name__
        got = ", ".join(kind(v) for v in (input, mask, value))
        raise TypeError(f"masked_fill() received an invalid combination of arguments - got "
                        f"({got}, out={kind(out)}), but expected one of:\n"
                        " * (Tensor input, Tensor mask, Tensor value)\n"
                        " * (Tensor input, Tensor mask, Number value)\n")
    if isinstance(value, _tensor_cls()):
        return _masked_fill_tensor(input, mask, value)
    return _masked_fill_scalar(input, mask, value)


def masked_fill_(self, mask, value):
    """In-place :func:`masked_fill` (``mask`` must broadcast to ``self``). See Note [Filling an
    expanded tensor]."""
    is_tensor = isinstance(value, _tensor_cls())
    if is_tensor:
        _value_dim_check("masked_fill_", value._data)
    _mask_check(mask._data)
    shape = self._data.shape
    if mask._data.shape != shape and not _fits(mask._data.shape, shape):
        shape = _broadcast_pair(self._data.shape, mask._data.shape)
        if shape != self._data.shape:
            raise RuntimeError(f"output with shape {shape_str(self._data.shape)} doesn't match "
                               f"the broadcast shape {shape_str(shape)}")
    if _expanded(self):   # Note [Filling an expanded tensor]
        fill = value.item() if is_tensor else value

        def write():
            self._data[_xp.broadcast_to(mask._data, shape)] = _fill_value(fill, self._data.dtype)

        if _fill_expanded(self, "masked_fill", 2450, (value,), write):
            return self
    if is_tensor:
        return _masked_fill_tensor.call_inplace(self, mask, value)
    return _masked_fill_scalar.call_inplace(self, mask, value)


for _fn in (index_copy, index_fill, masked_fill):
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
METHODS["index_copy"] = _index_copy_method   # (torch numbers method arguments from 1)
for _fn in (index_copy_, index_fill_, masked_fill_):
    METHODS[_fn.__name__] = INPLACE[_fn.__name__] = _fn
