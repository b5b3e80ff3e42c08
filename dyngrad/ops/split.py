"""Multi-output views: unbind, split, split_with_sizes, chunk, tensor_split.

Each piece is a view of the input (select or slice geometry, see shape.py). The backward
``stack``s or ``cat``s the pieces' gradients, zeros standing in for pieces that got none
(view_backward.py).
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._utils import canonical_dim, contiguous_strides, shape_str
from . import view_backward as _vb
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR
from .shape import _select_geom, _slice, _slice_geom, _tensor_cls


@defop("unbind.int", node="UnbindBackward0", view=True, variants=())
def _unbind(geom, dim=0):
    shape, stride, offset = geom
    if not shape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = canonical_dim(dim, len(shape))
    return [_select_geom(shape, stride, offset, d, i) for i in range(shape[d])]


@_unbind.backward
def _(ctx, *grads):
    shape = ctx.self_shape
    d = canonical_dim(ctx.dim, len(shape))
    piece = shape[:d] + shape[d + 1:]
    return _vb.stack(_vb.with_zeros(grads, [piece] * shape[d]), d)


_unbind.jvp(AUTO_LINEAR)


def _pieces_backward(ctx, grads, kernel, *args):
    """cat the gradients of split's pieces back along ``dim`` (zeros for unused pieces)."""
    shape = ctx.self_shape
    geoms = kernel((shape, contiguous_strides(shape), 0), *args)
    return _vb.cat(_vb.with_zeros(grads, [g[0] for g in geoms]), ctx.dim)


def unbind(input, dim: int = 0):
    """The slices along ``dim``, as a tuple of views."""
    return _unbind(input, dim)


@defop("split.Tensor", node="SplitBackward0", view=True, variants=())
def _split(geom, split_size, dim=0):
    shape, stride, offset = geom
    if not shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    d = canonical_dim(dim, len(shape))
    n = shape[d]
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    num = max((n + split_size - 1) // split_size, 1) if split_size else 1
    last = split_size - (split_size * num - n)
    return [_slice_geom(shape, stride, offset, d, i * split_size,
                        i * split_size + (split_size if i < num - 1 else last), 1)
            for i in range(num)]


@_split.numpy_view
def _(a, split_size, dim=0):
    # the kernel's pieces as NumPy's basic slices, each with how many elements further into
    # the storage it starts (Note [Views NumPy makes directly]); an empty array or a bad
    # argument takes the kernel (and its errors)
    nd = a.ndim
    if not (nd and a.size and type(split_size) is int and split_size > 0 and type(dim) is int
            and -nd <= dim < nd):
        return None
    d = dim % nd
    n = a.shape[d]
    step = a.strides[d] // a.itemsize
    lead = (slice(None),) * d
    return [(a[lead + (slice(i, i + split_size),)], i * step) for i in range(0, n, split_size)]


@_split.backward
def _(ctx, *grads):
    return _pieces_backward(ctx, grads, _split.kernel, ctx.split_size, ctx.dim)


_split.jvp(AUTO_LINEAR)


@defop("split_with_sizes", node="SplitWithSizesBackward0", view=True, variants=())
def _split_with_sizes(geom, split_sizes, dim=0):
    shape, stride, offset = geom
    if not shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = canonical_dim(dim, len(shape))
    out = []
    start = 0
    for length in split_sizes:
        if length < 0:
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={shape_str(split_sizes)}")
        out.append(_slice_geom(shape, stride, offset, d, start, start + length, 1))
        start += length
    if start != shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {shape[d]} "
                           f"(input tensor's size at dimension {d}), but got "
                           f"split_sizes={shape_str(split_sizes)}")
    return out


@_split_with_sizes.backward
def _(ctx, *grads):
    return _pieces_backward(ctx, grads, _split_with_sizes.kernel, ctx.split_sizes, ctx.dim)


_split_with_sizes.jvp(AUTO_LINEAR)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size_or_sections`` along ``dim`` (the last may be smaller), or of the
    given sizes: the method's work, as torch/functional.py hands it over (the method, in
    _tensor_python.py, calls the ``split`` or ``split_with_sizes`` binding)."""
    return tensor.split(split_size_or_sections, dim)


def chunk(input, chunks: int, dim: int = 0):
    """At most ``chunks`` equal pieces along ``dim`` (torch's split_size rounding)."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input._data.shape[canonical_dim(dim, input._data.ndim)]
    split_size = (n + chunks - 1) // chunks
    if split_size == 0 and n == 0:
        return _split_with_sizes(input, (0,) * chunks, dim)
    return _split(input, split_size, dim)


def tensor_split(input, indices_or_sections, dim: int = 0):
    """``sections`` nearly equal pieces, or pieces cut at ``indices``, along ``dim`` (views)."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           f"tensor with {nd} dims")
    if isinstance(indices_or_sections, _tensor_cls()):
        ios = indices_or_sections
        if ios.dtype is not D.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {ios.dtype._legacy}")
        if ios.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {ios.ndim} dims")
        indices_or_sections = ios.item() if ios.ndim == 0 else ios.tolist()
    d = canonical_dim(dim, nd)
    n = input._data.shape[d]
    if isinstance(indices_or_sections, (list, tuple)):
        bounds = [0] + [operator.index(i) for i in indices_or_sections]
        ends = bounds[1:] + [n]
        return tuple(_slice(input, d, s, e, 1) for s, e in zip(bounds, ends))
    sections = operator.index(indices_or_sections)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    base, extra = divmod(n, sections)
    out = []
    start = 0
    for i in range(sections):
        size = base + 1 if i < extra else base
        out.append(_slice(input, d, start, start + size, 1))
        start += size
    return tuple(out)


for _fn in (unbind, chunk, tensor_split):
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
FUNCTIONS["split"] = split   # (the method is torch's Python one: _tensor_python.py)
