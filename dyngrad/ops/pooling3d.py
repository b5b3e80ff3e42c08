"""3-d pooling ops of ``torch.nn.functional``: ``max_pool3d`` (with indices), ``avg_pool3d``,
``adaptive_avg_pool3d`` and ``adaptive_max_pool3d``.

All four are ATen primitives (``MaxPool3DWithIndicesBackward0``, ``AvgPool3DBackward0``,
``AdaptiveAvgPool3DBackward0``, ``AdaptiveMaxPool3DBackward0``) whose gradients are backward
primitives (``...BackwardBackward0``) so that double backward works, as in the 2-d ops of
pooling.py. ``adaptive_avg_pool3d`` to a (1, 1, 1) output is a ``mean`` in torch.

Note [3-d pooling kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A regular window (kernel, stride, padding, dilation) is read one kernel offset at a time: the
input, padded with the reduction's identity when padding or ceil_mode needs it, is sliced with
basic strided slices, one slice of output shape per offset (kd * kh * kw passes, no loop over
pixels). The max keeps ATen's running rule ``val > best or isnan(val)`` from an initial
``-inf`` (the dtype's lowest for integers) at the window's first valid position, so the first
maximum, the last NaN and the first valid position of an all-lowest window win, as in ATen.
Adaptive windows use one (index, valid) table per dim (pool_numpy.adaptive_table) and gather
each offset with fancy indexing, masking positions past a window's end. The gradient of a
regular sum is the same passes as strided adds; an adaptive one uses ``add.at`` (windows may
share a start), sending masked positions to a spare slot; a max's gradient scatters to the
saved flat indices (pool_numpy.index_scatter on the flattened (T * H, W) planes).
"""
from __future__ import annotations

import operator

from .._utils import shape_str
from ._arg_parser import type_name as _type_name
from .._promotion import Promote
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD, LINEAR_IN_GRAD_OUTPUT
from ..backends import pool_numpy as P
from ._geometry import memory_format_strides
from ._registry import FUNCTIONS, defop
from .creation import copy_with_strides, suggest_memory_format
from .pooling import (_check_tensor, _divide, _is_tensor, _not_implemented, _strides_of,
                      _with_indices, list_with_default)
from .view_backward import backward_only

_NAMES = ("T", "H", "W")


def _batched(x):
    return x if x.ndim == 5 else x[None]


def _like_input(out, self, keep_layout=False):
    """``out`` (batched) as torch returns it: unbatched if ``self`` is; channels_last_3d when
    ``self`` is and the op keeps layouts (max pooling); else contiguous."""
    if self.ndim == 4:
        return P.contiguous(out[0])
    if keep_layout:
        fmt = suggest_memory_format(self.shape, _strides_of(self))
        return copy_with_strides(out, out.dtype, memory_format_strides(out.shape, fmt))
    return P.contiguous(out)


def _triple(what, value, omit=False):
    """ATen's expansion of an IntArrayRef[3] argument; ``what`` is the error message."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * 3
    value = tuple(operator.index(v) for v in value)
    if omit and not value:
        return value
    if len(value) not in (1, 3):
        raise RuntimeError(what)
    return value if len(value) == 3 else value * 3


def _where(fname, name, pos):
    return f"{fname}(): argument '{name}'" + (f" (position {pos})" if pos else "")


def _int_list(fname, name, pos, value):
    """An IntArrayRef[3] argument as torch's parser takes it: an int expands to a triple, a
    sequence must hold ints (``pos`` None: passed by keyword)."""
    def is_int(v):
        return not isinstance(v, bool) and hasattr(v, "__index__")
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            if not is_int(v):
                raise TypeError(f"{_where(fname, name, pos)} must be tuple of ints, but found "
                                f"element of type {_type_name(v)} at pos {i}")
        return tuple(operator.index(v) for v in value)
    if not is_int(value):
        raise TypeError(f"{_where(fname, name, pos)} must be tuple of ints, not "
                        f"{_type_name(value)}")
    return (operator.index(value),) * 3


def _flag(fname, name, pos, value):
    if type(value) is not bool:
        raise TypeError(f"{_where(fname, name, pos)} must be bool, not {_type_name(value)}")
    return value


def _out_size(size, k, pad, stride, dilation, ceil_mode):
    """ATen's pooling_output_shape (C++ division truncates in the padding bound)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > int(((k - 1) * dilation + 1) / 2):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={pad}, kernel_size={k} and dilation={dilation}")
    out = (size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)) \
        // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _shape_check(fname, shape, k, s, p, d, out, check_input_size=False):
    """ATen's pool3d_shape_check."""
    def kv(prefix, v):
        return " ".join(f"{prefix}{n}: {x}" for n, x in zip(_NAMES, v))
    if not all(v > 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got {kv('k', k)}")
    if not all(v > 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got {kv('d', s)}")
    if not all(v > 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got "
                           f"{kv('dilation', d)}")
    nd = len(shape)
    for i in range(nd):
        if not (nd == 5 and i == 0) and shape[i] <= 0:
            raise RuntimeError(f"{fname}: Expected input's non-batch dimensions to have "
                               f"positive length, but input has a shape of {shape_str(shape)} "
                               f"and non-batch dimension {shape[i]} has length zero!")
    t, h, w = shape[-3:]
    if check_input_size and not (t >= k[0] and h >= k[1] and w >= k[2]):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"({kv('k', k)})")
    if not (k[0] // 2 >= p[0] and k[2] // 2 >= p[2] and k[1] // 2 >= p[1]):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} "
                           f"padH: {p[1]}")
    if min(out) < 1:
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


def _geometry(fname, shape, k, s, p, d, ceil_mode, check_input_size=False):
    out = tuple(_out_size(n, *a, ceil_mode) for n, a in zip(shape[-3:], zip(k, p, s, d)))
    _shape_check(fname, shape, k, s, p, d, out, check_input_size)
    return out


def _padded(xp, x, k, s, p, d, out, fill):
    """``x`` (N, C, T, H, W) padded with ``fill`` so that every window offset is a basic slice
    (no copy when no padding is needed)."""
    ext = tuple(max(n + pp, (o - 1) * ss + (kk - 1) * dd + 1) + pp
                for n, o, kk, ss, pp, dd in zip(x.shape[2:], out, k, s, p, d))
    if ext == tuple(x.shape[2:]):
        return x
    base = xp.full(tuple(x.shape[:2]) + ext, fill, x.dtype)
    base[(Ellipsis,) + tuple(slice(pp, pp + n) for pp, n in zip(p, x.shape[2:]))] = x
    return base


def _offsets(k, s, d, out):
    """(offset (a, b, c), the slices of the padded input it reads) for each kernel offset."""
    for a in range(k[0]):
        for b in range(k[1]):
            for c in range(k[2]):
                yield (a, b, c), (Ellipsis,) + tuple(
                    slice(l * dd, l * dd + ss * (o - 1) + 1, ss)
                    for l, dd, ss, o in zip((a, b, c), d, s, out))


def _lowest(xp, dtype):
    return -float("inf") if dtype.kind in "fV" else xp.iinfo(dtype).min


def _running_max(xp, best, index, val, where, flat):
    """ATen's update ``val > best or isnan(val)`` (restricted to ``where`` if given)."""
    upd = val > best
    if val.dtype.kind in "fV":
        upd |= xp.isnan(val)
    if where is not None:
        upd &= where
    return xp.where(upd, val, best), xp.where(upd, flat, index)


# ---------------------------------------------------------------------------------------------
# max pooling
# ---------------------------------------------------------------------------------------------
def _max_args(kernel_size, stride, padding, dilation):
    k = _triple("max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
                kernel_size)
    s = _triple("max_pool3d: stride must either be omitted, a single int, or a tuple of three "
                "ints", stride, omit=True)
    p = _triple("max_pool3d: padding must either be a single int, or a tuple of three ints",
                padding)
    d = _triple("max_pool3d: dilation must be either a single int, or a tuple of three ints",
                dilation)
    return k, (s or k), p, d


@defop("max_pool3d_with_indices", node="MaxPool3DWithIndicesBackward0", promote=Promote.NONE,
       variants=(), outputs=("result0", "result1"), saves=("self", "result1"),
       nondiff_outputs=(1,), kernel_dtypes=True)
def _max_pool3d_with_indices(xp, self, kernel_size, stride=(), padding=(0, 0, 0),
                             dilation=(1, 1, 1), ceil_mode=False):
    k, s, p, d = _max_args(kernel_size, stride, padding, dilation)
    if self.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out = _geometry("max_pool3d_with_indices_out_cpu_template()", self.shape, k, s, p, d,
                    ceil_mode)
    if self.dtype.kind in "bc":
        raise _not_implemented("max_pool3d", self.dtype)
    x = _batched(self)
    fill = _lowest(xp, x.dtype)
    base = _padded(xp, x, k, s, p, d, out, fill)
    t, h, w = x.shape[2:]
    # flat index of each window's corner, and ATen's start: its first valid position
    starts = [xp.arange(o) * ss - pp for o, ss, pp in zip(out, s, p)]
    first = [xp.where(st < 0, st + ((-st + dd - 1) // dd) * dd, st) for st, dd in zip(starts, d)]

    def flat(v):
        return (v[0][:, None, None] * h + v[1][None, :, None]) * w + v[2][None, None, :]

    corner = flat(starts)
    best = xp.full(tuple(x.shape[:2]) + out, fill, x.dtype)
    index = xp.broadcast_to(flat(first), best.shape)
    for (a, b, c), key in _offsets(k, s, d, out):
        step = (a * d[0] * h + b * d[1]) * w + c * d[2]
        best, index = _running_max(xp, best, index, base[key], None, corner + step)
    index = index.astype(xp.int64)
    return _like_input(best, self, True), _like_input(index, self, True)


@_max_pool3d_with_indices.backward
def _(ctx, grad, _grad_indices=None):
    self, indices = ctx.saved_tensors
    return (_max_pool3d_backward(grad, self, indices, ctx.kernel_size, ctx.stride,
                                 ctx.padding, ctx.dilation, ctx.ceil_mode),)


_max_pool3d_with_indices.jvp(FROM_BACKWARD)


def _index_scatter(grad_output, indices, self, unique=False):
    """Gradient of a 3-d max pool: ``grad_output`` added at the saved flat indices."""
    g, i = _batched(grad_output), _batched(indices)
    n, c = g.shape[:2]
    t, h, w = self.shape[-3:]
    k = g.shape[2] * g.shape[3] * g.shape[4]
    flat = P.index_scatter(g.reshape(n, c, k, 1), i.reshape(n, c, k, 1), t * h, w, unique)
    return _like_input(flat.reshape(n, c, t, h, w), self, True)


@defop("max_pool3d_with_indices_backward", node="MaxPool3DWithIndicesBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self", "indices"),
       differentiable=("grad_output", "self"), saves=("indices",))
def _max_pool3d_backward(xp, grad_output, self, indices, kernel_size, stride, padding,
                         dilation, ceil_mode):
    k, s, _, d = _max_args(kernel_size, stride, padding, dilation)
    disjoint = all(s[i] >= (k[i] - 1) * d[i] + 1 for i in range(3))
    return _index_scatter(grad_output, indices, self, disjoint)


backward_only(_max_pool3d_backward)
_max_pool3d_backward.jvp(AUTO_LINEAR)   # self gives a shape (torch: auto_linear)


def _gather_at(grad, indices):
    """``grad`` (.., T, H, W) read at the pool's flat indices, with dyngrad ops."""
    flat = grad.flatten(-3)
    return flat.gather(-1, indices.flatten(-3)).view(tuple(indices.shape))


@_max_pool3d_backward.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return _gather_at(grad, indices), grad.new_zeros(ctx.self_shape)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling over (N, C, T, H, W) or (C, T, H, W): the first maximum of each window
    (NaN wins); ``return_indices`` also gives each maximum's flat (t * H + h) * W + w index.
    The result keeps a channels_last_3d layout."""
    # torch's wrapper passes its arguments on by position, to the op named here
    fname = "max_pool3d_with_indices" if return_indices else "max_pool3d"
    _check_tensor(fname, input)
    args = [_int_list(fname, name, pos, value) for name, pos, value in (
        ("kernel_size", 2, kernel_size), ("stride", 3, () if stride is None else stride),
        ("padding", 4, padding), ("dilation", 5, dilation))]
    out, indices = _max_pool3d_with_indices(input, *args,
                                            _flag(fname, "ceil_mode", 6, ceil_mode))
    return (out, indices) if return_indices else out


# ---------------------------------------------------------------------------------------------
# average pooling
# ---------------------------------------------------------------------------------------------
def _avg_args(kernel_size, stride, padding):
    k = _triple("avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
                kernel_size)
    s = _triple("avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
                stride, omit=True)
    p = _triple("avg_pool3d: padding must be a single int, or a tuple of three ints", padding)
    return k, (s or k), p


def _avg_geometry(xp, shape, k, s, p, ceil_mode, count_include_pad, divisor_override):
    """(output size, divisor (ot, oh, ow)) of avg_pool3d, with ATen's checks."""
    out = _geometry("avg_pool3d()", shape, k, s, p, (1, 1, 1), ceil_mode, True)
    if divisor_override is not None:
        return out, xp.full(out, divisor_override)
    factors = []
    for n, o, kk, ss, pp in zip(shape[-3:], out, k, s, p):
        start = xp.arange(o) * ss - pp
        end = xp.minimum(start + kk, n + pp)
        if count_include_pad:
            factors.append(end - start)   # the window clipped to the padded input
        else:
            factors.append(xp.minimum(end, n) - xp.maximum(start, 0))
    f0, f1, f2 = factors
    return out, f0[:, None, None] * f1[None, :, None] * f2[None, None, :]


@defop("avg_pool3d", node="AvgPool3DBackward0", promote=Promote.NONE, variants=(),
       saves=("self",))
def _avg_pool3d(xp, self, kernel_size, stride=(), padding=(0, 0, 0), ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    k, s, p = _avg_args(kernel_size, stride, padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out, divisor = _avg_geometry(xp, self.shape, k, s, p, ceil_mode, count_include_pad,
                                 divisor_override)
    if not (self.dtype.kind == "f" and self.dtype.itemsize >= 4 or self.dtype == xp.int64):
        raise _not_implemented("avg_pool3d_out_frame", self.dtype)
    x = _batched(self)
    base = _padded(xp, x, k, s, p, (1, 1, 1), out, 0)
    total = xp.zeros(tuple(x.shape[:2]) + out, x.dtype)
    for _, key in _offsets(k, s, (1, 1, 1), out):
        total += base[key]
    return _like_input(_divide(xp, total, divisor), self)


@_avg_pool3d.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return (_avg_pool3d_backward(grad, self, ctx.kernel_size, ctx.stride, ctx.padding,
                                 ctx.ceil_mode, ctx.count_include_pad, ctx.divisor_override),)


_avg_pool3d.jvp(AUTO_LINEAR)


@defop("avg_pool3d_backward", node="AvgPool3DBackwardBackward0", promote=Promote.NONE,
       variants=(), inputs=("grad_output", "self"))
def _avg_pool3d_backward(xp, grad_output, self, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override):
    k, s, p = _avg_args(kernel_size, stride, padding)
    out, divisor = _avg_geometry(xp, self.shape, k, s, p, ceil_mode, count_include_pad,
                                 divisor_override)
    g = _batched(grad_output)
    g = g / divisor.astype(g.dtype)
    size = tuple(self.shape[-3:])
    ext = tuple(max(n + 2 * pp, (o - 1) * ss + kk) for n, o, kk, ss, pp in
                zip(size, out, k, s, p))
    acc = xp.zeros(tuple(g.shape[:2]) + ext, g.dtype)
    for _, key in _offsets(k, s, (1, 1, 1), out):
        acc[key] += g
    crop = (Ellipsis,) + tuple(slice(pp, pp + n) for pp, n in zip(p, size))
    return _like_input(acc[crop], self)


backward_only(_avg_pool3d_backward)
_avg_pool3d_backward.jvp(LINEAR_IN_GRAD_OUTPUT)   # self gives a shape and windows


@_avg_pool3d_backward.backward
def _(ctx, grad):
    return (_avg_pool3d(grad, ctx.kernel_size, ctx.stride, ctx.padding, ctx.ceil_mode,
                        ctx.count_include_pad, ctx.divisor_override),
            grad.new_zeros(ctx.self_shape))


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-d average pooling over (N, C, T, H, W) or (C, T, H, W) (float32/64 and int64, whose
    averages truncate)."""
    # Note [avg_pool3d argument errors]: torch.nn.functional.avg_pool3d is the ATen binding,
    # whose TypeErrors give a position only for positional arguments; these name the usual
    # call, kernel_size to padding by position and the rest by keyword.
    fname = "avg_pool3d"
    _check_tensor(fname, input)
    k = _int_list(fname, "kernel_size", 2, kernel_size)
    s = _int_list(fname, "stride", 3, () if stride is None else stride)
    p = _int_list(fname, "padding", 4, padding)
    flags = [_flag(fname, name, None, value) for name, value in
             (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad))]
    if divisor_override is not None and (isinstance(divisor_override, bool) or
                                         not hasattr(divisor_override, "__index__")):
        raise TypeError(f"avg_pool3d(): argument 'divisor_override' must be int, not "
                        f"{_type_name(divisor_override)}")
    return _avg_pool3d(input, k, s, p, *flags, divisor_override)


# ---------------------------------------------------------------------------------------------
# adaptive pooling
# ---------------------------------------------------------------------------------------------
def _adaptive_check(fname, shape, sep=""):
    nd = len(shape)
    if nd not in (4, 5):
        raise RuntimeError(f"{fname}(): Expected 4D or 5D tensor, but got{sep} {shape_str(shape)}")
    for i in range(1, nd):
        if shape[i] == 0:
            raise RuntimeError(f"{fname}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape_str(shape)} with "
                               f"dimension {i} being empty")


def _adaptive_windows(shape, output_size):
    """(fancy-index key, valid mask (ot, oh, ow)) of each window offset of an adaptive pool."""
    tables = [P.adaptive_table(n, o) for n, o in zip(shape[-3:], output_size)]
    (i0, v0), (i1, v1), (i2, v2) = tables
    for a in range(i0.shape[1]):
        for b in range(i1.shape[1]):
            for c in range(i2.shape[1]):
                key = (slice(None), slice(None), i0[:, a][:, None, None],
                       i1[:, b][None, :, None], i2[:, c][None, None, :])
                valid = v0[:, a][:, None, None] & v1[:, b][None, :, None] & \
                    v2[:, c][None, None, :]
                yield key, valid


def _check_grad_output(fname, shape):
    for i in range(1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError(f"{fname}(): Expected grad_output to have non-zero size for "
                               f"non-batch dimensions, but grad_output has sizes "
                               f"{shape_str(shape)} with dimension {i} being empty")


def _window_sizes(shape, output_size):
    (_, v0), (_, v1), (_, v2) = [P.adaptive_table(n, o) for n, o in zip(shape[-3:], output_size)]
    s0, s1, s2 = v0.sum(1), v1.sum(1), v2.sum(1)
    return s0[:, None, None] * s1[None, :, None] * s2[None, None, :]


@defop("_adaptive_avg_pool3d", node="AdaptiveAvgPool3DBackward0", promote=Promote.NONE,
       variants=(), saves=("self",))
def _adaptive_avg_pool3d(xp, self, output_size):
    _adaptive_check("adaptive_avg_pool3d", self.shape)
    if self.dtype.kind not in "fV":
        raise _not_implemented("adaptive_avg_pool3d_cpu", self.dtype)
    x = _batched(self)
    total = xp.zeros(tuple(x.shape[:2]) + tuple(output_size), x.dtype)   # half sums in half
    zero = xp.zeros((), x.dtype)
    for key, valid in _adaptive_windows(x.shape, output_size):
        total += xp.where(valid, x[key], zero)
    return _like_input(total / _window_sizes(x.shape, output_size).astype(x.dtype), self)


@_adaptive_avg_pool3d.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return (_adaptive_avg_pool3d_backward(grad, self),)


_adaptive_avg_pool3d.jvp(AUTO_LINEAR)


@defop("_adaptive_avg_pool3d_backward", node="AdaptiveAvgPool3DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self"))
def _adaptive_avg_pool3d_backward(xp, grad_output, self):
    _check_grad_output("adaptive_avg_pool3d_backward", grad_output.shape)
    g = _batched(grad_output)
    size = tuple(g.shape[-3:])
    g = g / _window_sizes(self.shape, size).astype(g.dtype)
    t, h, w = self.shape[-3:]
    acc = xp.zeros(tuple(g.shape[:2]) + (t + 1, h + 1, w + 1), g.dtype)
    for key, valid in _adaptive_windows(self.shape, size):
        # positions past a window's end go to a spare slot that is cropped away
        spare = tuple(xp.where(valid, k, n) for k, n in zip(key[2:], (t, h, w)))
        xp.add.at(acc, key[:2] + spare, g)
    return _like_input(acc[..., :t, :h, :w], self)


backward_only(_adaptive_avg_pool3d_backward)
_adaptive_avg_pool3d_backward.jvp(LINEAR_IN_GRAD_OUTPUT)


@_adaptive_avg_pool3d_backward.backward
def _(ctx, grad):
    return (_adaptive_avg_pool3d(grad, tuple(ctx.grad_output_shape[-3:])),
            grad.new_zeros(ctx.self_shape))


def _output_triple(fname, input, output_size):
    """torch's _list_with_default (None keeps the input's size), then ATen's length check."""
    if isinstance(output_size, int):
        sizes = [output_size] * 3
    else:
        if not hasattr(output_size, "__len__"):
            raise TypeError(f"object of type '{_type_name(output_size)}' has no len()")
        list_with_default(output_size, input)
        shape = tuple(input.shape)
        sizes = [d if v is None else v for v, d in zip(output_size, shape[-len(output_size):])]
        sizes = list(_int_list(fname, "output_size", 2, sizes))
    if len(sizes) != 3:
        if fname == "adaptive_max_pool3d":
            raise RuntimeError(f"{fname}(): internal error: output_size.size() must be 3")
        raise RuntimeError(f"{fname}: output_size must be 3")
    return tuple(sizes)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed (ot, oh, ow) output: window i spans [floor(i*T/ot),
    ceil((i+1)*T/ot)). A (1, 1, 1) output is a mean over the last three dims, as in torch."""
    if not _is_tensor(input):   # torch's Python wrapper calls input.size() first: the error
        input.size()           # Python raises for this object
    size = _output_triple("adaptive_avg_pool3d", input, output_size)
    if any(v < 0 for v in size):
        raise RuntimeError(f"adaptive_avg_pool3d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{size[0]}, {size[1]},{size[2]}}}")
    if size == (1, 1, 1):
        out = input.mean((-1, -2, -3), keepdim=True)
        if input.ndim == 5 and suggest_memory_format(tuple(input.shape), input.stride()) \
                is not suggest_memory_format((1, 1, 1, 2, 2), (4, 4, 4, 2, 1)):
            n, c = input.shape[:2]
            out.as_strided_((n, c, 1, 1, 1), (c, 1, c, c, c))   # ATen restrides in place
        return out
    return _adaptive_avg_pool3d(input, size)


@defop("adaptive_max_pool3d", node="AdaptiveMaxPool3DBackward0", promote=Promote.NONE,
       variants=(), outputs=("result0", "result1"), saves=("self", "result1"),
       nondiff_outputs=(1,), kernel_dtypes=True)
def _adaptive_max_pool3d(xp, self, output_size):
    _adaptive_check("adaptive_max_pool3d", self.shape, sep=":")
    if self.dtype.kind not in "fV":
        raise _not_implemented("adaptive_max_pool3d_cpu", self.dtype)
    x = _batched(self)
    t, h, w = x.shape[2:]
    best = xp.full(tuple(x.shape[:2]) + tuple(output_size), -float("inf"), x.dtype)
    index = None
    for key, valid in _adaptive_windows(x.shape, output_size):
        flat = (key[2] * h + key[3]) * w + key[4]
        if index is None:   # ATen starts at the window's first position
            index = xp.broadcast_to(flat, best.shape)
        best, index = _running_max(xp, best, index, x[key], valid, flat)
    index = index.astype(xp.int64)
    return _like_input(best, self), _like_input(index, self)


@_adaptive_max_pool3d.backward
def _(ctx, grad, _grad_indices=None):
    self, indices = ctx.saved_tensors
    return (_adaptive_max_pool3d_backward(grad, self, indices),)


_adaptive_max_pool3d.jvp(FROM_BACKWARD)


@defop("adaptive_max_pool3d_backward", node="AdaptiveMaxPool3DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output", "self", "indices"),
       differentiable=("grad_output", "self"), saves=("indices",))
def _adaptive_max_pool3d_backward(xp, grad_output, self, indices):
    _check_grad_output("adaptive_max_pool3d_backward", grad_output.shape)
    return P.contiguous(_index_scatter(grad_output, indices, self))


backward_only(_adaptive_max_pool3d_backward)
_adaptive_max_pool3d_backward.jvp(AUTO_LINEAR)


@_adaptive_max_pool3d_backward.backward
def _(ctx, grad):
    indices, = ctx.saved_tensors
    return _gather_at(grad, indices), grad.new_zeros(ctx.self_shape)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling to a fixed (ot, oh, ow) output (windows as adaptive_avg_pool3d)."""
    if not _is_tensor(input):   # torch's Python wrapper calls input.size() first: the error
        input.size()           # Python raises for this object
    size = _output_triple("adaptive_max_pool3d", input, output_size)
    if any(v < 0 for v in size) and input.ndim in (4, 5):
        shape = tuple(input.shape[:-3]) + size
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(size)}: {shape_str(shape)}")
    out, indices = _adaptive_max_pool3d(input, size)
    return (out, indices) if return_indices else out


FUNCTIONS.update({
    "nn.functional.max_pool3d": max_pool3d,
    "nn.functional.max_pool3d_with_indices": _with_indices(max_pool3d),
    "nn.functional.avg_pool3d": avg_pool3d,
    "nn.functional.adaptive_avg_pool3d": adaptive_avg_pool3d,
    "nn.functional.adaptive_max_pool3d": adaptive_max_pool3d,
    "nn.functional.adaptive_max_pool3d_with_indices": _with_indices(adaptive_max_pool3d),
    "max_pool3d": max_pool3d,
})
