"""Max unpooling (``torch.nn.functional.max_unpool1d/2d/3d``): the partial inverse of max
pooling, which writes each input value at its saved flat index of a zero output plane.

ATen has two primitives, ``max_unpool2d`` (``MaxUnpool2DBackward0``) and ``max_unpool3d``
(``MaxUnpool3DBackward0``; it also takes stride and padding, only to check them). The 1-d op
is the 2-d one on ``unsqueeze(-1)``-ed input and indices, then ``squeeze(-1)``. torch's Python
wrappers choose the output size (see ``_unpool_output_size``). The gradient reads the
incoming gradient back at the indices (ATen's max_pool_double_backward: a ``view`` to flat
planes, ``gather`` and ``view``), so it is differentiable with dyngrad ops.
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import shape_str
from ..autograd.forward_ad import AUTO_LINEAR
from ..backends import pool_numpy as P
from ._geometry import memory_format_strides
from ._registry import FUNCTIONS, defop
from .creation import copy_with_strides, suggest_memory_format
from .pooling import _is_tensor, _not_implemented, _strides_of
from ._arg_parser import type_name as _tp_name

_DIMS = {2: "two elements (height, width)", 3: "three elements (depth, height, width)"}


def _check_common(fname, self, indices):
    """The shape checks shared by ATen's max_unpooling2d and 3d (after their own)."""
    if tuple(self.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({shape_str(self.shape)}) but got indices tensor with shape: "
                           f"{shape_str(indices.shape)}")
    for i in range(1, self.ndim):
        if self.shape[i] <= 0:
            raise RuntimeError(f"{fname}_forward_out_cpu(): Expected input to have non-zero size "
                               f"for non-batch dimensions, but got {shape_str(self.shape)} with "
                               f"dimension {i} being empty.")


def _check_output_size(fname, output_size):
    if any(v < 0 for v in output_size):
        raise RuntimeError(f"{fname}(): output_size must contain non-negative spatial "
                           f"dimensions, but got output_size={tuple(output_size)}")


def _unpool(xp, self, indices, output_size, channels_last=False):
    """Values of ``self`` written at ``indices`` of zero planes of ``output_size``; batched
    (N, C, *output_size) result."""
    dims = len(output_size)
    x = self if self.ndim == dims + 2 else self[None]
    idx = indices if indices.ndim == dims + 2 else indices[None]
    n, c = x.shape[:2]
    plane = 1
    for v in output_size:
        plane *= v
    k = 1
    for v in x.shape[2:]:
        k *= v
    flat_idx = xp.ascontiguousarray(idx).reshape(n * c, k)
    bad = (flat_idx < 0) | (flat_idx >= plane)
    if bad.any():
        # ATen's serial loop keeps the last invalid index it meets (channels last: per pixel)
        order = idx.transpose((0,) + tuple(range(2, idx.ndim)) + (1,)) if channels_last else idx
        order = xp.ascontiguousarray(order).reshape(-1)
        wrong = (order < 0) | (order >= plane)
        last = int(order[order.shape[0] - 1 - int(xp.argmax(wrong[::-1]))])
        sizes = "x".join(str(v) for v in output_size)
        raise RuntimeError(f"Found an invalid max index: {last} (output volumes are of size "
                           f"{sizes})")
    out = xp.zeros(n * c * plane, x.dtype)
    key = (xp.arange(n * c)[:, None] * plane + flat_idx).reshape(-1)
    vals = xp.ascontiguousarray(x).reshape(-1)
    # Note [Repeated unpool indices]: ATen's loop leaves the last value written at an index;
    # a fancy assignment does not promise which one wins, so keep only each key's last use.
    _, first_reversed = xp.unique(key[::-1], return_index=True)
    pick = key.shape[0] - 1 - first_reversed
    out[key[pick]] = vals[pick]
    return out.reshape((n, c) + tuple(output_size))


def _check_dtype(fname, arr):
    if arr.dtype.kind not in "fV":
        raise _not_implemented(fname, arr.dtype)


def _indices_dtype_error(indices, with_name):
    msg = "elements in indices should be type int64"
    if with_name:
        msg += f" but got: {D.from_np(indices.dtype)._legacy}"
    return RuntimeError(msg)


@defop("max_unpool2d", node="MaxUnpool2DBackward0", promote=Promote.NONE, variants=(),
       inputs=("self", "indices"), differentiable=("self",), saves=("indices",))
def _max_unpool2d(xp, self, indices, output_size):
    if indices.dtype != xp.int64:
        raise _indices_dtype_error(indices, True)
    if len(output_size) != 2:
        raise RuntimeError(f"There should be exactly {_DIMS[2]} in output_size, but got "
                           f"{len(output_size)} elements.")
    if self.ndim not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {self.ndim} dimensions.")
    _check_common("max_unpooling2d", self, indices)
    _check_output_size("max_unpooling2d", output_size)
    _check_dtype("max_unpool2d", self)
    fmt = suggest_memory_format(self.shape, _strides_of(self))
    out = _unpool(xp, self, indices, tuple(output_size),
                  fmt is not suggest_memory_format((1, 1, 2, 2), (4, 4, 2, 1)))
    if self.ndim == 3:
        return out[0]
    return copy_with_strides(out, out.dtype, memory_format_strides(out.shape, fmt))


@defop("max_unpool3d", node="MaxUnpool3DBackward0", promote=Promote.NONE, variants=(),
       inputs=("self", "indices"), differentiable=("self",), saves=("indices",))
def _max_unpool3d(xp, self, indices, output_size, stride, padding):
    if indices.dtype != xp.int64:
        raise _indices_dtype_error(indices, False)
    if self.ndim not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
                           f"tensor with {self.ndim} dimensions.")
    for what, value in (("output_size", output_size), ("stride", stride),
                        ("padding", padding)):
        if len(value) != 3:
            sep = "" if what == "output_size" else ":"
            raise RuntimeError(f"There should be exactly {_DIMS[3]} in {what}, but got{sep} "
                               f"{len(value)} elements.")
    _check_common("max_unpooling3d", self, indices)
    if not all(s > 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: "
                           f"{shape_str(tuple(stride))}")
    _check_output_size("max_unpooling3d", output_size)
    _check_dtype("max_unpool3d", self)
    out = _unpool(xp, self, indices, tuple(output_size))
    return P.contiguous(out[0] if self.ndim == 4 else out)


def _read_back(grad, indices, dims):
    """ATen's max_pool_double_backward: ``grad`` read at the flat ``indices`` of its planes."""
    lead = tuple(indices.shape[:indices.ndim - dims])

    def numel(shape):
        out = 1
        for v in shape[len(lead):]:
            out *= v
        return out
    fmt = suggest_memory_format(tuple(indices.shape), indices.stride())
    flat = grad.contiguous(memory_format=fmt).view(lead + (numel(tuple(grad.shape)),))
    index = indices.view(lead + (numel(tuple(indices.shape)),))
    return flat.gather(-1, index).view(tuple(indices.shape))


@_max_unpool2d.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return (_read_back(grad, indices, 2),)


@_max_unpool3d.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return (_read_back(grad, indices, 3),)


_max_unpool2d.jvp(AUTO_LINEAR)
_max_unpool3d.jvp(AUTO_LINEAR)


# ---------------------------------------------------------------------------------------------
# torch.nn.functional's wrappers
# ---------------------------------------------------------------------------------------------
def _expand(value, n):
    """torch's _single / _pair / _triple: an int repeats, an iterable is kept as a tuple."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """The spatial output size of max_unpoolNd, as torch's Python wrapper picks it: by default
    (in - 1) * stride + kernel - 2 * padding per dim; a given ``output_size`` (optionally with
    (N, C) in front) must lie strictly within ``stride`` of that default."""
    if not _is_tensor(input):   # torch's wrapper calls input.size(): Python's own error
        input.size()
    in_size = tuple(input.shape)
    n = len(kernel_size)
    default = [(in_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        result = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                 f'between {low} and {high})')
        result = output_size
    for d in range(n):
        if result[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={result[d]}")
    return [operator.index(v) for v in result]


def _check_indices(fname, indices):
    if not _is_tensor(indices):
        raise TypeError(f"{fname}(): argument 'indices' (position 2) must be Tensor, not "
                        f"{_tp_name(indices)}")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool1d over (N, C, L) or (C, L): the 2-d op on unsqueezed
    input and indices."""
    kernel_size = _expand(kernel_size, 1)
    stride = kernel_size if stride is None else _expand(stride, 1)
    padding = _expand(padding, 1)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    if not _is_tensor(indices):   # (torch calls indices.unsqueeze(-1): Python's own error)
        indices.unsqueeze(-1)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1),
                         tuple(size) + (1,)).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool2d over (N, C, H, W) or (C, H, W): each value written at its
    flat h * W + w index of a zero plane."""
    kernel_size = _expand(kernel_size, 2)
    stride = kernel_size if stride is None else _expand(stride, 2)
    padding = _expand(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    _check_indices("max_unpool2d", indices)
    return _max_unpool2d(input, indices, tuple(size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool3d over (N, C, D, H, W) or (C, D, H, W)."""
    kernel_size = _expand(kernel_size, 3)
    stride = kernel_size if stride is None else _expand(stride, 3)
    padding = _expand(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    _check_indices("max_unpool3d", indices)
    return _max_unpool3d(input, indices, tuple(size), tuple(stride), tuple(padding))


FUNCTIONS.update({
    "nn.functional.max_unpool1d": max_unpool1d,
    "nn.functional.max_unpool2d": max_unpool2d,
    "nn.functional.max_unpool3d": max_unpool3d,
})
