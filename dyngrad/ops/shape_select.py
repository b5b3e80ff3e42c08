"""The views that take part of a tensor: select, slice, narrow, diagonal, unfold and
as_strided (moved out of shape.py, which re-exports them; split/chunk/unbind build on the
select and slice geometries in split.py).

Each geometry is computed as ATen's (TensorShape.cpp), and each backward scatters the gradient
back into the input's shape (Note [View backward as a scatter] in view_backward.py).
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._utils import canonical_dim, shape_str
from . import view_backward as _vb
from ._registry import defop
from ..autograd.forward_ad import AUTO_LINEAR
from ._geometry import storage_extent
from .shape import _int_tuple


# ---------------------------------------------------------------------------------------------
# select / slice / narrow (split, chunk, unbind: split.py)
# ---------------------------------------------------------------------------------------------
def _select_geom(shape, stride, offset, dim, index):
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(dim, len(shape))
    size = shape[d]
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{shape_str(shape)} at dimension {d}")
    if index < 0:
        index += size
    return shape[:d] + shape[d + 1:], stride[:d] + stride[d + 1:], offset + index * stride[d]


@defop("select.int", node="SelectBackward0", view=True, variants=())
def _select(geom, dim, index):
    return _select_geom(*geom, dim, index)


@_select.numpy_view
def _(a, dim, index):
    # NumPy's basic indexing keeps the other dims' strides, as torch's select does; the view
    # starts `index` strides further into the storage (Note [Views NumPy makes directly]).
    # An empty array, a bad dim or index take the kernel (and its errors)
    nd = a.ndim
    if type(dim) is int and type(index) is int and -nd <= dim < nd and a.size:
        d = dim % nd
        size = a.shape[d]
        if -size <= index < size:
            if index < 0:
                index += size
            # (the Ellipsis: a 0-dim result is an array over the memory, not a NumPy scalar)
            return a[(slice(None),) * d + (index, Ellipsis)], index * a.strides[d] // a.itemsize
    return None


@_select.backward
def _(ctx, grad):
    return _vb.select_backward(grad, ctx.self_shape, ctx.dim, ctx.index)


_select.jvp(AUTO_LINEAR)


def select(input, dim: int, index: int):
    """The slice at ``index`` along ``dim``, with that dim removed (a view)."""
    return _select(input, dim, operator.index(index))


def _slice_bounds(n, start, end):
    """A slice's start and end along a dim of size `n`, clamped as ATen clamps them."""
    start = 0 if start is None else start
    end = n if end is None else end
    if start < 0:
        start += n
    if end < 0:
        end += n
    start = min(max(start, 0), n)
    return start, min(max(end, start), n)


def _slice_geom(shape, stride, offset, dim, start, end, step):
    if not shape:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(dim, len(shape))
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = shape[d]
    start, end = _slice_bounds(n, start, end)
    shape, stride = list(shape), list(stride)
    offset += start * stride[d]
    shape[d] = (end - start + step - 1) // step
    stride[d] *= step
    return tuple(shape), tuple(stride), offset


@defop("slice.Tensor", node="SliceBackward0", view=True, variants=())
def _slice(geom, dim=0, start=None, end=None, step=1):
    return _slice_geom(*geom, dim, start, end, step)


@_slice.numpy_view
def _(a, dim=0, start=None, end=None, step=1):
    # the kernel's bounds, then NumPy's basic slicing, which gives the same size, stride times
    # step and start (Note [Views NumPy makes directly]). An empty array or result, bad
    # arguments take the kernel
    nd = a.ndim
    if not (nd and a.size and type(dim) is int and -nd <= dim < nd and type(step) is int
            and step > 0 and (start is None or type(start) is int)
            and (end is None or type(end) is int)):
        return None
    d = dim % nd
    start, end = _slice_bounds(a.shape[d], start, end)
    if end == start:
        return None
    return a[(slice(None),) * d + (slice(start, end, step),)], start * a.strides[d] // a.itemsize


@_slice.backward
def _(ctx, grad):
    return _vb.slice_backward(grad, ctx.self_shape, ctx.dim, ctx.start, ctx.end, ctx.step)


_slice.jvp(AUTO_LINEAR)


def narrow(input, dim: int, start, length: int):
    """``length`` elements of dim ``dim`` from ``start`` (a view)."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, type(input)) and (start.dim() or start.dtype.category != D.INT):
        raise RuntimeError("start must be an 0-dim integral Tensor.")   # (narrow.Tensor's)
    start = operator.index(start)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = canonical_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if start > n - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    # (the dim as given: torch's SliceBackward0 keeps it unwrapped, as its _saved_dim shows)
    return _slice(input, operator.index(dim), start, start + length, 1)


# ---------------------------------------------------------------------------------------------
# diagonal / unfold / as_strided
# ---------------------------------------------------------------------------------------------
@defop("diagonal", node="DiagonalBackward0", view=True, variants=())
def _diagonal(geom, offset=0, dim1=0, dim2=1):
    shape, stride, storage_offset = geom
    nd = len(shape)
    d1 = canonical_dim(dim1, nd)
    d2 = canonical_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        size = max(min(shape[d1], shape[d2] - offset), 0)
    else:
        size = max(min(shape[d1] + offset, shape[d2]), 0)
    if size > 0:
        storage_offset += offset * stride[d2] if offset >= 0 else -offset * stride[d1]
    keep = [i for i in range(nd) if i not in (d1, d2)]
    return (tuple(shape[i] for i in keep) + (size,),
            tuple(stride[i] for i in keep) + (stride[d1] + stride[d2],), storage_offset)


@_diagonal.backward
def _(ctx, grad):
    return _vb.diagonal_backward(grad, ctx.self_shape, ctx.offset, ctx.dim1, ctx.dim2)


_diagonal.jvp(AUTO_LINEAR)


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """The diagonal of the (dim1, dim2) planes, as a new last dim (a view)."""
    return _diagonal(input, offset, dim1, dim2)


@defop("unfold", node="UnfoldBackward0", view=True, variants=())
def _unfold(geom, dimension, size, step):
    shape, stride, offset = geom
    nd = len(shape)
    d = canonical_dim(dimension, nd)
    max_size = 1 if nd == 0 else shape[d]
    if size > max_size:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {max_size} but size is "
                           f"{size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    new_shape = list(shape) + [size]
    new_stride = list(stride) + [1 if nd == 0 else stride[d]]
    if nd:
        new_shape[d] = (shape[d] - size) // step + 1
        new_stride[d] = step * stride[d]
    return tuple(new_shape), tuple(new_stride), offset


@_unfold.backward
def _(ctx, grad):
    return _vb.unfold_backward(grad, ctx.self_shape, ctx.dimension, ctx.size, ctx.step)


_unfold.jvp(AUTO_LINEAR)


def unfold(self, dimension: int, size: int, step: int):
    """Windows of ``size`` every ``step`` along ``dimension``, as a new last dim (a view)."""
    return _unfold(self, dimension, size, step)


@defop("as_strided", node="AsStridedBackward0", view=True, variants=())
def _as_strided(geom, size, stride, storage_offset=None, self_geometry=None):
    # self_geometry: the input's (shape, stride, offset), which the backward needs
    return tuple(size), tuple(stride), geom[2] if storage_offset is None else storage_offset


@_as_strided.backward
def _(ctx, grad):
    # See Note [as_strided backward] in view_backward.py
    return _vb.as_strided_backward(grad, ctx.self_geometry, ctx.size, ctx.stride,
                                   ctx.storage_offset)


_as_strided.jvp(AUTO_LINEAR)


def _as_strided_args(input, size, stride, storage_offset):
    """(size, stride, offset) of ``as_strided``, bounds-checked against the storage as torch."""
    size = _int_tuple("as_strided", "size", (size,))
    stride = _int_tuple("as_strided", "stride", (stride,))
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {shape_str(stride)}")
    offset = input._offset if storage_offset is None else storage_offset
    itemsize = input._data.itemsize
    extent = storage_extent(size, stride)
    need = (offset + extent) * itemsize if extent else 0
    have = input._storage_obj().buffer.nbytes
    if need > have:
        raise RuntimeError(f"setStorage: sizes {shape_str(size)}, strides {shape_str(stride)}, "
                           f"storage offset {offset}, and itemsize {itemsize} requiring a "
                           f"storage size of {need} are out of bounds for storage of size {have}")
    return size, stride, offset


def as_strided(input, size, stride, storage_offset=None):
    """A view with any geometry over ``input``'s storage (bounds-checked as torch does)."""
    size, stride, _ = _as_strided_args(input, size, stride, storage_offset)
    return as_strided_view(input, size, stride, storage_offset)


def as_strided_view(input, size, stride, storage_offset=None):
    """``as_strided`` without the bounds check, recording the input's geometry for backward."""
    if not input._requires_grad:
        return _as_strided(input, size, stride, storage_offset)
    geometry = (input._data.shape, input.stride(), input._offset)
    return _as_strided(input, size, stride, storage_offset, geometry)
