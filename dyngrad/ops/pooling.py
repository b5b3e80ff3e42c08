"""Pooling ops of ``torch.nn.functional``: max / average pooling (1-d and 2-d, with padding,
dilation, ceil_mode, count_include_pad, divisor_override) and adaptive average / max pooling.

As in ATen, the 2-d ops are the primitives (``max_pool2d_with_indices`` →
``MaxPool2DWithIndicesBackward0``, ``avg_pool2d`` → ``AvgPool2DBackward0``,
``_adaptive_avg_pool2d``, ``adaptive_max_pool2d``) and the 1-d ops are compositions
(``unsqueeze(-2)`` → 2-d op → ``squeeze(-2)``). Each gradient is a backward primitive
(``max_pool2d_with_indices_backward`` …) whose own gradient is again a pool or a gather, so
double backward works. The NumPy kernels are in ``backends/pool_numpy.py``; see Note [Pooling
windows as index tables] there.
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import shape_str
from ..backends import pool_numpy as P
from . import shape as S
from ._geometry import memory_format_strides
from ._registry import FUNCTIONS, defop
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD, LINEAR_IN_GRAD_OUTPUT
from .creation import copy_with_strides, suggest_memory_format
from .view_backward import backward_only
from ._arg_parser import type_name as _tp_name


def _is_tensor(value) -> bool:
    return isinstance(value, S._tensor_cls())


def _check_tensor(fname, value):
    if not _is_tensor(value):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(value)}")


def _not_implemented(name, np_dtype):
    return NotImplementedError(f"\"{name}\" not implemented for '{D.from_np(np_dtype)._legacy}'")


def _strides_of(arr):
    return tuple(s // arr.itemsize for s in arr.strides)


def _batched(x):
    return x if x.ndim == 4 else x[None]


def _like_input(out, self):
    """``out`` (batched) shaped and laid out as torch gives it: unbatched if ``self`` is, and
    channels_last when ``self`` is."""
    if self.ndim == 3:
        return P.contiguous(out[0])
    fmt = suggest_memory_format(self.shape, _strides_of(self))
    return copy_with_strides(out, out.dtype, memory_format_strides(out.shape, fmt))


def _pair(fname, what, value, omit=False):
    """ATen's expansion of an IntArrayRef[2] argument with its check."""
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return (value, value)
    value = tuple(operator.index(v) for v in value)
    if omit and not value:
        return value
    if len(value) not in (1, 2):
        raise RuntimeError(f"{fname}: {what}")
    return value if len(value) == 2 else value * 2


def _output_size(size, k, pad, stride, dilation, ceil_mode):
    """ATen's pooling_output_shape: the last window must start inside the input or the left
    padding."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={pad}, kernel_size={k} and dilation={dilation}")
    out = (size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)) \
        // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _shape_check(shape, k, s, p, d, oh, ow, check_pad):
    """ATen's pool2d_shape_check."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d
    if not (kw > 0 and kh > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if not (sw > 0 and sh > 0):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if not (dh > 0 and dw > 0):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    nd = len(shape)
    valid = shape[-3] != 0 and shape[-2] != 0
    if not ((nd == 3 and shape[0] != 0 and valid) or (nd == 4 and valid and shape[3] != 0)):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{shape_str(shape)}")
    if check_pad and not (kw // 2 >= pw and kh // 2 >= ph):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    if ow < 1 or oh < 1:
        c, h, w = shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{oh}x{ow}). Output size is too small")


def _window_args(fname, kernel_size, stride, padding, dilation=1):
    k = _pair(fname, "kernel_size must either be a single int, or a tuple of two ints",
              kernel_size)
    s = _pair(fname, "stride must either be omitted, a single int, or a tuple of two ints",
              stride, omit=True)
    p = _pair(fname, "padding must either be a single int, or a tuple of two ints", padding)
    d = _pair(fname, "dilation must be either a single int, or a tuple of two ints", dilation)
    return k, (s or k), p, d


def _tables(shape, k, s, p, d, ceil_mode, check_pad=False):
    h, w = shape[-2:]
    oh = _output_size(h, k[0], p[0], s[0], d[0], ceil_mode)
    ow = _output_size(w, k[1], p[1], s[1], d[1], ceil_mode)
    _shape_check(shape, k, s, p, d, oh, ow, check_pad)
    return P.regular_table(h, oh, k[0], s[0], p[0], d[0]) + \
        P.regular_table(w, ow, k[1], s[1], p[1], d[1])


# ---------------------------------------------------------------------------------------------
# max pooling
# ---------------------------------------------------------------------------------------------
@defop("max_pool2d_with_indices", node="MaxPool2DWithIndicesBackward0", promote=Promote.NONE,
       variants=(), outputs=("result0", "result1"), saves=("self", "result1"),
       nondiff_outputs=(1,), kernel_dtypes=True)
def _max_pool2d_with_indices(xp, self, kernel_size, stride=(), padding=(0, 0), dilation=(1, 1),
                             ceil_mode=False):
    k, s, p, d = _window_args("max_pool2d", kernel_size, stride, padding, dilation)
    if self.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    tables = _tables(self.shape, k, s, p, d, ceil_mode)
    if self.dtype.kind in "bc":
        raise _not_implemented("max_pool2d", self.dtype)
    values, indices = P.regular_max(_batched(self), k, s, p, d, tables)
    return _like_input(values, self), _like_input(indices, self)


@_max_pool2d_with_indices.backward
def _(ctx, grad, _grad_indices=None):
    self, indices = ctx.saved_tensors
    return (_max_pool2d_backward(grad, self, ctx.kernel_size, ctx.stride, ctx.padding,
                                 ctx.dilation, ctx.ceil_mode, indices),)


_max_pool2d_with_indices.jvp(FROM_BACKWARD)


@defop("max_pool2d_with_indices_backward", node="MaxPool2DWithIndicesBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self", "indices"),
       differentiable=("grad_output", "self"), saves=("indices",))
def _max_pool2d_backward_kernel(xp, grad_output, self, indices, kernel_size, stride, padding,
                                dilation, ceil_mode):
    k, s, _, d = _window_args("max_pool2d", kernel_size, stride, padding, dilation)
    disjoint = all(s[i] >= (k[i] - 1) * d[i] + 1 for i in (0, 1))
    return _like_input(P.index_scatter(_batched(grad_output), _batched(indices),
                                       *self.shape[-2:], unique=disjoint), self)


def _max_pool2d_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return _max_pool2d_backward_kernel(grad, self, indices, kernel_size, stride, padding,
                                       dilation, ceil_mode)


backward_only(_max_pool2d_backward_kernel)
_max_pool2d_backward_kernel.jvp(AUTO_LINEAR)   # self gives a shape (torch: auto_linear)


def _gather_at(grad, indices):
    """``grad`` (N, C, H, W) read at the pool's indices, with dyngrad ops (differentiable)."""
    flat = grad.flatten(-2)
    return flat.gather(-1, indices.flatten(-2)).view(tuple(indices.shape))


@_max_pool2d_backward_kernel.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return _gather_at(grad, indices), grad.new_zeros(ctx.self_shape)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """2-d max pooling; returns (values, flat h * W + w indices of each maximum)."""
    _check_tensor("max_pool2d_with_indices", input)
    if stride is None:
        stride = ()
    return _max_pool2d_with_indices(input, _ints(kernel_size), _ints(stride), _ints(padding, 2),
                                    _ints(dilation, 2), bool(ceil_mode))


def _ints(value, expand=2):
    """An IntArrayRef[2] argument as torch's parser gives it: an int expands to a pair, a list
    becomes a tuple."""
    if isinstance(value, (tuple, list)):
        return tuple(operator.index(v) for v in value)
    v = operator.index(value)
    return (v, v)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over (N, C, H, W) or (C, H, W): the first maximum of each window (NaN
    wins); ``return_indices`` also gives the flat index of each maximum in its plane."""
    _check_tensor("max_pool2d", input)
    out, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                           ceil_mode)
    return (out, indices) if return_indices else out


def _one(fname, arg, value):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"{fname}() argument '{arg}' should contain one int (got "
                               f"{len(value)})")
        return operator.index(value[0])
    return operator.index(value)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over (N, C, L) or (C, L): the 2-d op on an unsqueezed input, as torch."""
    _check_tensor("max_pool1d", input)
    k = _one("max_pool1d", "kernel_size", kernel_size)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _one("max_pool1d", "stride", stride)
    p = _one("max_pool1d", "padding", padding)
    d = _one("max_pool1d", "dilation", dilation)
    if return_indices:   # torch's max_pool1d_with_indices: the 2-d op's checks and kernel
        if input.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                               "tensor for argument #1 'self' (while checking arguments for "
                               "max_pool1d)")
        out, indices = _max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p),
                                                (1, d), bool(ceil_mode))
        return out.squeeze(-2), indices.squeeze(-2)
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:   # (only a batch dim may be empty)
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{shape_str(tuple(input.shape))}")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    length = input.shape[-1]
    out_len = _output_size(length, k, p, s, d, ceil_mode)
    if out_len < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out_len}")
    if not input.is_floating_point():
        # torch runs its own 1-d kernel when no gradient is needed
        raise _not_implemented("max_pool1d_impl", input.dtype.np)
    out, _ = _max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d),
                                      bool(ceil_mode))
    return out.squeeze(-2)


# ---------------------------------------------------------------------------------------------
# average pooling
# ---------------------------------------------------------------------------------------------
def _avg_factors(xp, shape, k, s, p, ceil_mode, count_include_pad, divisor_override):
    """(tables, divisor (oh, ow)) of avg_pool2d."""
    tables = _tables(shape, k, s, p, (1, 1), ceil_mode, check_pad=True)
    rows, vr, cols, vc = tables
    h, w = shape[-2:]
    if divisor_override is not None:
        return tables, xp.full((rows.shape[0], cols.shape[0]), divisor_override)
    if count_include_pad:
        # the window clipped to the padded input: [i*s - p, min(i*s - p + k, size + p))
        def full(size, out, kk, ss, pp):
            start = xp.arange(out) * ss - pp
            return xp.minimum(start + kk, size + pp) - start
        return tables, xp.outer(full(h, rows.shape[0], k[0], s[0], p[0]),
                                full(w, cols.shape[0], k[1], s[1], p[1]))
    return tables, xp.outer(vr.sum(1), vc.sum(1))


def _check_avg_dtype(xp, arr):
    if arr.dtype.kind in "bcu":
        raise _not_implemented("avg_pool2d", arr.dtype)
    if arr.dtype.kind == "i" and arr.dtype.itemsize < 8:
        raise _not_implemented("avg_pool2d", arr.dtype)


def _divide(xp, total, divisor):
    if total.dtype.kind in "fV":
        return total / divisor.astype(total.dtype)
    # integer inputs divide as C++ does (truncation toward zero, a negative divisor too)
    q = xp.abs(total) // xp.abs(divisor)
    return (xp.sign(total) * xp.sign(divisor) * q).astype(total.dtype)


@defop("avg_pool2d", node="AvgPool2DBackward0", promote=Promote.NONE, variants=(),
       saves=("self",))
def _avg_pool2d(xp, self, kernel_size, stride=(), padding=(0, 0), ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    k, s, p, _ = _window_args("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.ndim < 3:
        from .._utils import canonical_dim
        canonical_dim(-3, self.ndim)
    tables, divisor = _avg_factors(xp, self.shape, k, s, p, ceil_mode, count_include_pad,
                                   divisor_override)
    _check_avg_dtype(xp, self)
    low = self.dtype.kind in "fV" and self.itemsize == 2   # half/bfloat16: sums in float32
    x = self.astype(xp.float32) if low else self
    total = P.regular_sum(_batched(x), k, s, p, (1, 1), *divisor.shape)
    out = _divide(xp, total, divisor)
    return _like_input(out.astype(self.dtype) if low else out, self)


@_avg_pool2d.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return (_avg_pool2d_backward(grad, self, ctx.kernel_size, ctx.stride, ctx.padding,
                                 ctx.ceil_mode, ctx.count_include_pad, ctx.divisor_override),)


_avg_pool2d.jvp(AUTO_LINEAR)


@defop("avg_pool2d_backward", node="AvgPool2DBackwardBackward0", promote=Promote.NONE,
       variants=(), inputs=("grad_output", "self"))
def _avg_pool2d_backward(xp, grad_output, self, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override):
    k, s, p, _ = _window_args("avg_pool2d", kernel_size, stride, padding)
    tables, divisor = _avg_factors(xp, self.shape, k, s, p, ceil_mode, count_include_pad,
                                   divisor_override)
    g = _batched(grad_output)
    g = g / divisor.astype(g.dtype)
    h, w = self.shape[-2:]
    return _like_input(P.regular_scatter(g, k, s, p, (1, 1), h, w), self)


backward_only(_avg_pool2d_backward)
_avg_pool2d_backward.jvp(LINEAR_IN_GRAD_OUTPUT)   # self gives a shape and windows


@_avg_pool2d_backward.backward
def _(ctx, grad):
    return (_avg_pool2d(grad, ctx.kernel_size, ctx.stride, ctx.padding, ctx.ceil_mode,
                        ctx.count_include_pad, ctx.divisor_override),
            grad.new_zeros(ctx.self_shape))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None, *, out=None):
    """2-d average pooling over (N, C, H, W) or (C, H, W)."""
    _check_tensor("avg_pool2d", input)
    if stride is None:
        stride = ()
    return _avg_pool2d(input, _ints(kernel_size), _ints(stride), _ints(padding, 2),
                       bool(ceil_mode), bool(count_include_pad), divisor_override,
                       **({} if out is None else {"out": out}))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling over (N, C, L) or (C, L): the 2-d op on an unsqueezed input."""
    _check_tensor("avg_pool1d", input)
    k = _one("avg_pool1d", "kernel_size", kernel_size)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _one("avg_pool1d", "stride", stride)
    p = _one("avg_pool1d", "padding", padding)
    out = _avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), bool(ceil_mode),
                      bool(count_include_pad), None)
    return out.squeeze(-2)


# ---------------------------------------------------------------------------------------------
# adaptive pooling
# ---------------------------------------------------------------------------------------------
def _adaptive_check(fname, shape, output_size, sep=""):
    nd = len(shape)
    if nd not in (3, 4):
        raise RuntimeError(f"{fname}(): Expected 3D or 4D tensor, but got{sep} {shape_str(shape)}")
    # adaptive_avg_pool2d checks the two pooled dims only (a 4-d input may have no channels)
    for i in range(nd - 2 if fname == "adaptive_avg_pool2d" else 1, nd):
        if shape[i] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape_str(shape)} with "
                               f"dimension {i} being empty")


def _adaptive_tables(shape, output_size):
    h, w = shape[-2:]
    return P.adaptive_table(h, output_size[0]) + P.adaptive_table(w, output_size[1])


@defop("_adaptive_avg_pool2d", node="AdaptiveAvgPool2DBackward0", promote=Promote.NONE,
       variants=(), saves=("self",))
def _adaptive_avg_pool2d(xp, self, output_size):
    _adaptive_check("adaptive_avg_pool2d", self.shape, output_size)
    if self.dtype.kind not in "fV":
        raise _not_implemented("adaptive_avg_pool2d", self.dtype)
    tables = _adaptive_tables(self.shape, output_size)
    rows, vr, cols, vc = tables
    low = self.itemsize == 2   # half/bfloat16: sums in float32, rounded once
    x = self.astype(xp.float32) if low else self
    total = P.window_sum(_batched(x), *tables)
    out = total / xp.outer(vr.sum(1), vc.sum(1)).astype(x.dtype)
    return _like_input(out.astype(self.dtype) if low else out, self)


@_adaptive_avg_pool2d.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return (_adaptive_avg_pool2d_backward(grad, self),)


_adaptive_avg_pool2d.jvp(AUTO_LINEAR)


@defop("_adaptive_avg_pool2d_backward", node="AdaptiveAvgPool2DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self"))
def _adaptive_avg_pool2d_backward(xp, grad_output, self):
    rows, vr, cols, vc = tables = _adaptive_tables(self.shape, grad_output.shape[-2:])
    g = _batched(grad_output)
    g = g / xp.outer(vr.sum(1), vc.sum(1)).astype(g.dtype)
    return _like_input(P.separable_scatter(g, *tables, *self.shape[-2:]), self)


backward_only(_adaptive_avg_pool2d_backward)
_adaptive_avg_pool2d_backward.jvp(LINEAR_IN_GRAD_OUTPUT)


@_adaptive_avg_pool2d_backward.backward
def _(ctx, grad):
    return (_adaptive_avg_pool2d(grad, tuple(ctx.grad_output_shape[-2:])),
            grad.new_zeros(ctx.self_shape))


def list_with_default(output_size, input):
    """torch's nn.functional check of an adaptive pool's output size given as a sequence: the
    input must have a dim more than it names (torch's _list_with_default)."""
    if input.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def _output_pair(fname, input, output_size):
    if isinstance(output_size, (tuple, list)):
        list_with_default(output_size, input)
        sizes = list(output_size)
    else:
        sizes = [output_size, output_size]
    if len(sizes) != 2:
        if fname == "adaptive_max_pool2d":
            raise RuntimeError(f"{fname}(): internal error: output_size.size() must be 2")
        raise RuntimeError(f"{fname}: output_size must be 2")
    shape = tuple(input.shape)
    return tuple(shape[-2 + i] if v is None else operator.index(v) for i, v in enumerate(sizes))


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed (oh, ow) output: window i spans [floor(i*H/oh),
    ceil((i+1)*H/oh)). A (1, 1) output is a mean, as in torch."""
    _check_tensor("adaptive_avg_pool2d", input)
    size = _output_pair("adaptive_avg_pool2d", input, output_size)
    if any(v < 0 for v in size):
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{size[0]}, {size[1]}}}")
    if size == (1, 1):
        _adaptive_check("adaptive_avg_pool2d", tuple(input.shape), size)
        out = input.mean((-1, -2), keepdim=True)
        if input.ndim == 4 and suggest_memory_format(tuple(input.shape), input.stride()) \
                is not suggest_memory_format((1, 1, 2, 2), (4, 4, 2, 1)):
            n, c = input.shape[:2]
            out.as_strided_((n, c, 1, 1), (c, 1, c, c))   # ATen restrides in place
        return out
    return _adaptive_avg_pool2d(input, size)


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling over the last dim of (N, C, L) or (C, L)."""
    _check_tensor("adaptive_avg_pool1d", input)
    size = _one("adaptive_avg_pool1d", "output_size", output_size)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for "
                           f"adaptive_avg_pool1d)")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


@defop("adaptive_max_pool2d", node="AdaptiveMaxPool2DBackward0", promote=Promote.NONE,
       variants=(), outputs=("result0", "result1"), saves=("self", "result1"),
       nondiff_outputs=(1,), kernel_dtypes=True)
def _adaptive_max_pool2d(xp, self, output_size):
    _adaptive_check("adaptive_max_pool2d", self.shape, output_size, sep=":")
    if self.dtype.kind not in "fV":
        raise _not_implemented("adaptive_max_pool2d", self.dtype)
    values, indices = P.window_max(_batched(self), *_adaptive_tables(self.shape, output_size))
    return _like_input(values, self), _like_input(indices, self)


@_adaptive_max_pool2d.backward
def _(ctx, grad, _grad_indices=None):
    self, indices = ctx.saved_tensors
    return (_adaptive_max_pool2d_backward(grad, self, indices),)


_adaptive_max_pool2d.jvp(FROM_BACKWARD)


@defop("adaptive_max_pool2d_backward", node="AdaptiveMaxPool2DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self", "indices"),
       differentiable=("grad_output", "self"), saves=("indices",))
def _adaptive_max_pool2d_backward(xp, grad_output, self, indices):
    return _like_input(P.index_scatter(_batched(grad_output), _batched(indices),
                                       *self.shape[-2:]), self)


backward_only(_adaptive_max_pool2d_backward)
_adaptive_max_pool2d_backward.jvp(AUTO_LINEAR)


@_adaptive_max_pool2d_backward.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return _gather_at(grad, indices), grad.new_zeros(ctx.self_shape)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed (oh, ow) output (adaptive windows as adaptive_avg_pool2d)."""
    _check_tensor("adaptive_max_pool2d", input)
    size = _output_pair("adaptive_max_pool2d", input, output_size)
    if any(v < 0 for v in size) and input.ndim in (3, 4):
        shape = tuple(input.shape[:-2]) + size
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(size)}: {shape_str(shape)}")
    out, indices = _adaptive_max_pool2d(input, size)
    return (out, indices) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling over the last dim of (N, C, L) or (C, L)."""
    _check_tensor("adaptive_max_pool1d", input)
    size = _one("adaptive_max_pool1d", "output_size", output_size)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for "
                           f"adaptive_max_pool1d)")
    if size < 0:   # (as a 2-d pool of height 1, which it is in torch)
        raise RuntimeError(f"Trying to create tensor with negative dimension {size}: "
                           f"{shape_str(tuple(input.shape[:-1]) + (1, size))}")
    out, indices = _adaptive_max_pool2d(input.unsqueeze(-2), (1, size))
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out


def _with_indices(fn):
    def wrapper(*args, **kwargs):
        kwargs["return_indices"] = True
        return fn(*args, **kwargs)
    wrapper.__name__ = fn.__name__ + "_with_indices"
    wrapper.__doc__ = fn.__doc__
    return wrapper


FUNCTIONS.update({
    "nn.functional.max_pool1d": max_pool1d,
    "nn.functional.max_pool2d": max_pool2d,
    "nn.functional.max_pool1d_with_indices": _with_indices(max_pool1d),
    "nn.functional.max_pool2d_with_indices": _with_indices(max_pool2d),
    "nn.functional.avg_pool1d": avg_pool1d,
    "nn.functional.avg_pool2d": avg_pool2d,
    "nn.functional.adaptive_avg_pool1d": adaptive_avg_pool1d,
    "nn.functional.adaptive_avg_pool2d": adaptive_avg_pool2d,
    "nn.functional.adaptive_max_pool1d": adaptive_max_pool1d,
    "nn.functional.adaptive_max_pool2d": adaptive_max_pool2d,
    "nn.functional.adaptive_max_pool1d_with_indices": _with_indices(adaptive_max_pool1d),
    "nn.functional.adaptive_max_pool2d_with_indices": _with_indices(adaptive_max_pool2d),
    "max_pool1d": max_pool1d,
    "max_pool2d": max_pool2d,
    "avg_pool1d": avg_pool1d,
    "adaptive_avg_pool1d": adaptive_avg_pool1d,
    "adaptive_max_pool1d": _with_indices(adaptive_max_pool1d),
})
