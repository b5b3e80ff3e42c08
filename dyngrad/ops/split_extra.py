"""More splits and small index helpers.

* ``hsplit`` / ``vsplit`` / ``dsplit``: ``tensor_split`` along dim 1 (dim 0 for a 1-d
  tensor), 0 and 2, after torch's rank check and, for a number of sections, its divisibility
  check: the pieces are SliceBackward0 views.
* ``split_with_sizes``: split.py's op as a function and method (SplitWithSizesBackward0).
* ``unsafe_split`` / ``unsafe_chunk`` / ``unsafe_split_with_sizes``: the same pieces, but not
  tracked as views (no ``_base``): nodes UnsafeSplitBackward0 / UnsafeSplitWithSizesBackward0.
  As in torch, the pieces still share the input's memory.
* ``unravel_index``: the coordinates of flat indices, ``(i // coefs) % shape`` unbound.
* ``Tensor.fill_diagonal_``: ``fill_`` on the diagonal as a strided view (CopySlices).
* ``max_pool1d_with_indices``: ``max_pool1d(..., return_indices=True)``.
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import canonical_dim, contiguous_strides
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR
from .pooling import max_pool1d
from .shape import _int_tuple
from .split import _pieces_backward, _split, _split_with_sizes, tensor_split


# -- hsplit, vsplit, dsplit ----------------------------------------------------------------------
def _directional(name, dim, min_dims):
    def fn(input, indices_or_sections):
        nd = input.dim()
        if nd < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} "
                               f"dimension, but got a tensor with {nd} dimensions!")
        d = 0 if name == "hsplit" and nd == 1 else dim
        if isinstance(indices_or_sections, (list, tuple)):
            return tensor_split(input, [operator.index(i) for i in indices_or_sections], d)
        sections = operator.index(indices_or_sections)
        size = input.shape[d]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {size} is not divisible by the split_size "
                               f"{sections}!")
        return tensor_split(input, sections, d)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tensor_split`` along dim {dim} ({name}), with torch's checks."
    return fn


hsplit = _directional("hsplit", 1, 1)
vsplit = _directional("vsplit", 0, 2)
dsplit = _directional("dsplit", 2, 3)


def split_with_sizes(input, split_sizes, dim: int = 0):
    """Pieces of the given sizes along ``dim`` (views; they must add up to its length)."""
    return _split_with_sizes(input, _int_tuple("split_with_sizes", "split_sizes",
                                               (split_sizes,)), dim)


# -- unsafe splits -------------------------------------------------------------------------------
def _pieces(self, geoms, dim):
    """The arrays of `self` the split geometries `geoms` describe (slices along `dim`)."""
    d = canonical_dim(dim, self.ndim)
    out, start = [], 0
    for shape, _, _ in geoms:
        index = (slice(None),) * d + (slice(start, start + shape[d]),)
        out.append(self[index])
        start += shape[d]
    return tuple(out)


def _geometry(self):
    return self.shape, contiguous_strides(self.shape), 0


@defop("unsafe_split.Tensor", node="UnsafeSplitBackward0", promote=Promote.NONE, variants=())
def _unsafe_split(xp, self, split_size, dim=0):
    return _pieces(self, _split.kernel(_geometry(self), split_size, dim), dim)


@_unsafe_split.backward
def _(ctx, *grads):
    return _pieces_backward(ctx, grads, _split.kernel, ctx.split_size, ctx.dim)


@defop("unsafe_split_with_sizes", node="UnsafeSplitWithSizesBackward0", promote=Promote.NONE,
       variants=())
def _unsafe_split_with_sizes(xp, self, split_sizes, dim=0):
    return _pieces(self, _split_with_sizes.kernel(_geometry(self), split_sizes, dim), dim)


@_unsafe_split_with_sizes.backward
def _(ctx, *grads):
    return _pieces_backward(ctx, grads, _split_with_sizes.kernel, ctx.split_sizes, ctx.dim)


_unsafe_split.jvp(AUTO_LINEAR)
_unsafe_split_with_sizes.jvp(AUTO_LINEAR)


def unsafe_split(input, split_size, dim: int = 0):
    """``split`` whose pieces are not tracked as views (UnsafeSplitBackward0)."""
    return _unsafe_split(input, operator.index(split_size), dim)


def unsafe_split_with_sizes(input, split_sizes, dim: int = 0):
    """``split_with_sizes`` whose pieces are not tracked as views."""
    return _unsafe_split_with_sizes(
        input, _int_tuple("unsafe_split_with_sizes", "split_sizes", (split_sizes,)), dim)


def unsafe_chunk(input, chunks: int, dim: int = 0):
    """``chunk`` through ``unsafe_split`` (same pieces, no view tracking)."""
    if input.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[canonical_dim(dim, input.dim())]
    return _unsafe_split(input, (n + chunks - 1) // chunks, dim)


# -- unravel_index -------------------------------------------------------------------------------
def unravel_index(indices, shape):
    """The coordinates, one int64 tensor per dim of ``shape``, of the flat ``indices``:
    ``indices.unsqueeze(-1) // coefs % shape`` unbound along the last dim (as torch)."""
    if indices.is_complex() or indices.is_floating_point() or indices.dtype is D.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    elif isinstance(shape, (list, tuple)):
        for n in shape:
            if not isinstance(n, int):
                raise TypeError("expected 'shape' sequence to only contain ints, but got "
                                f"{type(n)}")
        shape = tuple(shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs, c = [], 1
    for n in reversed(shape):
        coefs.append(c)
        c *= n
    tensor = FUNCTIONS["tensor"]
    divided = indices.unsqueeze(-1).floor_divide(tensor(coefs[::-1], dtype=D.int64))
    return (divided % tensor(list(shape), dtype=D.int64)).unbind(-1)


# -- fill_diagonal_ ------------------------------------------------------------------------------
def fill_diagonal_(self, fill_value, wrap: bool = False):
    """Fill the main diagonal (all dims of one length, or a tall or wide matrix) in place.

    The diagonal is the strided view of stride ``sum(strides)``; with ``wrap`` a tall matrix
    continues with the same stride after ``width + 1`` rows, as torch's contiguous layout."""
    nd = self.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape, strides = tuple(self.shape), self.stride()
    height, width = shape[0], shape[1]
    if nd > 2 and any(n != height for n in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    step = sum(strides)
    offset = self.storage_offset()
    size = min(height, width)
    self.as_strided((size,), (step,), offset).fill_(fill_value)
    if wrap and nd == 2 and height > width + 1:
        wrap_size = (self.numel() + step - 1) // step - size
        self.as_strided((wrap_size,), (step,), offset + strides[0] * (width + 1)) \
            .fill_(fill_value)
    return self


# -- max_pool1d_with_indices ---------------------------------------------------------------------
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """(values, indices) of 1-d max pooling: ``max_pool1d`` with ``return_indices=True``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices=True)


for _fn in (hsplit, vsplit, dsplit, split_with_sizes, unsafe_split, unsafe_split_with_sizes,
            unsafe_chunk):
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
FUNCTIONS["unravel_index"] = unravel_index
FUNCTIONS["max_pool1d_with_indices"] = max_pool1d_with_indices
METHODS["fill_diagonal_"] = fill_diagonal_
