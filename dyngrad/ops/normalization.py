"""Normalisation layers: batch, layer, group and instance norm, rms_norm and normalize.

Primitives (torch's nodes): ``native_batch_norm`` (NativeBatchNormBackward0, training and eval),
``native_layer_norm`` (NativeLayerNormBackward0), ``native_group_norm``
(NativeGroupNormBackward0). Composites, as torch builds them: ``instance_norm`` (a view to
``(1, N*C, ...)`` around batch_norm), ``rms_norm`` (``x * rsqrt(mean(x**2) + eps) * w``) and
``normalize`` (``x / norm(x).clamp_min(eps).expand_as(x)``) and ``local_response_norm`` (over
avg_pool).

Note [Normalisation backward]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
All three primitives normalise ``x`` over some axes: ``xhat = (x - mean) * rstd``. With
``g = grad * weight`` the input gradient is ``rstd * (g - mean(g) - xhat * mean(g * xhat))``.
The formulas recompute ``mean`` and ``rstd`` from the saved input with dyngrad ops instead of
using the saved statistics (which are constants in the graph), so differentiating the formula
again (double backward) sees how the statistics depend on the input. In eval mode batch norm
uses the running statistics: constants, so the input gradient is just ``g * rstd``.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from .._promotion import Promote
from .._formats import contiguous_format
from .._utils import shape_str, value_error
from ..autograd.grad_mode import no_grad
from ._arg_parser import check_tensors
from ._geometry import memory_format_strides
from ._registry import FUNCTIONS, defop
from .creation import copy_with_strides, suggest_memory_format
from ..autograd.forward_ad import FROM_BACKWARD
from ._autograd_utils import arrays_only, contiguous, from_array
from .reduction import mean_dim, sum_dim


def _channel_shape(ndim: int, c: int) -> tuple:
    return (1, c) + (1,) * (ndim - 2)


def _normalised_grad(grad, xhat, rstd, weight, dims):
    """Note [Normalisation backward]: d(loss)/d(x) for xhat over `dims` (keepdim stats)."""
    g = grad if weight is None else grad * weight
    return rstd * (g - g.mean(dims, True) - xhat * (g * xhat).mean(dims, True))


def _float_input(xp, input, kernel):
    """The input as the kernel computes with it (float32 for half), after torch's dtype check."""
    if input.dtype.kind not in "fV":
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{D.from_np(input.dtype)._legacy}'")
    return input.astype(xp.float32) if input.dtype in _npb.LOW else input


def _stats(x, dims, eps):
    """(xhat, rstd) of `x` over `dims`, with dyngrad ops (differentiable)."""
    xc = x - x.mean(dims, True)
    rstd = ((xc * xc).mean(dims, True) + eps).rsqrt()
    return xc * rstd, rstd


def _mean_and_variance(xp, x, axes, count):
    """`x`'s mean over `axes` (kept as size-1 dims), `x` minus it, and the biased variance, by
    the kernels ``_stats`` reaches through its ops (mean's sum and division by the count, the
    product): the statistics a forward saves are then bit for bit the ones that recompute
    gives, and an array-form backward can take them (``_normalisation_grads``)."""
    mean = xp.true_divide(xp.add.reduce(x, axis=axes, keepdims=True), count)
    centred = xp.subtract(x, mean)
    var = xp.true_divide(xp.add.reduce(xp.multiply(centred, centred), axis=axes, keepdims=True),
                         count)
    return mean, centred, var


def _normalisation_grads(grad, x, weight, mean, rstd, dims, sum_dims, need):
    """The gradients of a normalisation over `dims` (Note [Normalisation backward]) for the
    input, its weight and its bias, in their array form (Note [Array formulas]): the kernels
    that ``_normalised_grad`` and the two sums over `sum_dims` call through their ops, in that
    order, on the arrays, with ``_stats``'s from the forward's statistics. `weight` is the
    weight's array shaped to broadcast (or None); `grad` may have any layout; the input's
    gradient comes back C-contiguous, as the callers' ops make it. `mean` and `rstd` are the
    forward's saved statistics, shaped to broadcast: made by ``_mean_and_variance``, they are
    what ``_stats`` computes again (its ``rsqrt`` is ``reciprocal(sqrt(v))``, the forward's
    ``1 / sqrt(v)``, the same division).
    A layer norm's formula on a (64, 128) float32 batch: 16 dispatched ops, 104 -> 51 us; a
    batch norm's on (16, 8, 16, 16): 264 -> 165 us."""
    xp = _npb.xp
    mean_of = mean_dim.kernel
    xhat = xp.multiply(xp.subtract(x, mean), rstd)
    gx = gw = gb = None
    if need[0]:
        g = grad if weight is None else xp.multiply(grad, weight)
        centred = xp.subtract(g, mean_of(xp, g, dims, True))
        gx = from_array(_npb.c_contiguous(xp.multiply(rstd, xp.subtract(
            centred, xp.multiply(xhat, mean_of(xp, xp.multiply(g, xhat), dims, True))))))
    # (with no dims to sum, the product or the gradient itself, contiguous, as _sum_dims)
    if weight is not None and need[1]:
        gw = xp.multiply(grad, xhat)
        gw = from_array(sum_dim.kernel(xp, gw, sum_dims) if sum_dims else _npb.c_contiguous(gw))
    if len(need) > 2 and need[2]:
        gb = from_array(sum_dim.kernel(xp, grad, sum_dims) if sum_dims
                        else xp.array(grad, order="C"))
    return gx, gw, gb


# ---------------------------------------------------------------------------------------------
# batch norm
# ---------------------------------------------------------------------------------------------
@defop("native_batch_norm", node="NativeBatchNormBackward0", promote=Promote.NONE,
       inputs=("input", "weight", "bias", "running_mean", "running_var"),
       differentiable=("input", "weight", "bias"), outputs=("result0", "result1", "result2"),
       non_differentiable=("running_mean", "running_var"),
       saves=("input", "weight", "running_mean", "running_var", "result1", "result2"),
       nondiff_outputs=(1, 2), variants=("function",), scalars=(), kernel_dtypes=True)
def native_batch_norm(xp, input, weight=None, bias=None, running_mean=None, running_var=None,
                      training=False, momentum=0.1, eps=1e-5):
    """Batch norm over every axis but 1; in training also updates the running statistics in
    place (no version bump, as torch): unbiased variance for ``running_var``."""
    if (running_mean is None) != (running_var is None):
        raise value_error("running_mean and running_var must either both be None or neither "
                          "be None")
    dt = input.dtype
    layout = _suggested_strides(input)
    input = _float_input(xp, input, "batch_norm")
    c = input.shape[1] if input.ndim > 1 else 1
    shape = _channel_shape(input.ndim, c)
    axes = (0,) + tuple(range(2, input.ndim))
    centred = None
    if training:
        n = input.size // max(c, 1)
        # (Note [Normalisation backward]: the statistics as its ops compute them again)
        mean, centred, var = _mean_and_variance(xp, input, axes, n)
        mean, var = mean.reshape(c), var.reshape(c)
        invstd = 1 / xp.sqrt(var + eps)
        if running_mean is not None:
            running_mean[...] = (1 - momentum) * running_mean + momentum * mean
        if running_var is not None:
            unbiased = var * (n / (n - 1)) if n > 1 else var * xp.inf
            running_var[...] = (1 - momentum) * running_var + momentum * unbiased
        use_mean, use_invstd = mean, invstd
        saved = (mean.astype(dt), invstd.astype(dt))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        use_mean, use_invstd = running_mean, 1 / xp.sqrt(running_var + eps)
        saved = (xp.empty((0,), dt), xp.empty((0,), dt))
    if centred is None:
        centred = input - use_mean.reshape(shape)
    out = centred * use_invstd.reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return (_laid_out(out, dt, layout),) + saved


def _laid_out(out, dt, strides):
    """`out` as an array of dtype `dt` with these strides (itself when it already is)."""
    if out.dtype != dt or out.strides != tuple([n * out.itemsize for n in strides]):
        out = copy_with_strides(out, dt, strides)
    return out


def _suggested_strides(x):
    """The strides torch's kernels give a result like the array `x`: channels_last when `x`
    is laid out so (its suggest_memory_format), contiguous otherwise."""
    fmt = suggest_memory_format(x.shape, tuple(s // x.itemsize for s in x.strides))
    return memory_format_strides(x.shape, fmt)


def _suggested_format(t):
    """The tensor `t`'s suggest_memory_format."""
    return suggest_memory_format(tuple(t.shape), t.stride())


@native_batch_norm.backward
def _(ctx, grad, *_):
    input, weight, running_mean, running_var, _mean, _invstd = ctx.saved_tensors
    if grad is None:
        return None, None, None
    nd = input.dim()
    c = input.shape[1]
    shape = _channel_shape(nd, c)
    dims = [0] + list(range(2, nd))
    w = None if weight is None else weight.reshape(shape)
    need = ctx.needs_input_grad
    given = (input,) if weight is None else (input, weight)
    if ctx.training and arrays_only(grad, *given) and contiguous(*given) \
            and _suggested_format(input) is contiguous_format:
        return _normalisation_grads(grad._data, input._data, None if w is None else w._data,
                                    _mean._data.reshape(shape), _invstd._data.reshape(shape),
                                    dims, dims, need)
    if ctx.training:
        xhat, rstd = _stats(input, dims, ctx.eps)
        gx = _normalised_grad(grad, xhat, rstd, w, dims)
    else:
        rstd = (running_var + ctx.eps).rsqrt().reshape(shape)
        xhat = (input - running_mean.reshape(shape)) * rstd
        gx = (grad if w is None else grad * w) * rstd
    gw = (grad * xhat).sum(dims) if weight is not None and need[1] else None
    gb = grad.sum(dims) if len(need) > 2 and need[2] else None
    # (laid out as the input whatever the gradient's layout, as torch's kernel allocates it)
    gx = gx.contiguous(memory_format=_suggested_format(input)) if need[0] else None
    return gx, gw, gb


native_batch_norm.jvp(FROM_BACKWARD)


def batch_norm(input, weight=None, bias=None, running_mean=None, running_var=None,
               training=False, momentum=0.1, eps=1e-5, cudnn_enabled=True):
    """torch.batch_norm: checks the parameter sizes in torch's order (the running statistics,
    which evaluation needs, then the affine parameters), then ``native_batch_norm``.

    An empty input comes back as a copy, scaled by the first weight and shifted by the first
    bias, before any check and with the running statistics untouched (torch's
    _batch_norm_impl_index: a clone rather than a view or a new empty tensor, so that the
    gradient chain holds; an empty batch would otherwise turn the statistics into NaN)."""
    check_tensors("batch_norm", ("input", input), ("weight?", weight), ("bias?", bias),
                  ("running_mean?", running_mean), ("running_var?", running_var))
    if input.numel() == 0:
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    c = input.shape[1] if input.dim() > 1 else 1
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None:
            if t.numel() != c:
                raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
        elif not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    return native_batch_norm(input, weight, bias, running_mean, running_var, training,
                             momentum, eps)[0]


def batch_norm_functional(input, running_mean, running_var, weight=None, bias=None,
                          training=False, momentum=0.1, eps=1e-5):
    """nn.functional.batch_norm (note the argument order: running stats first)."""
    if training:
        size = input.size()
        n = size[0] * math.prod(size[2:])
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {size}")
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def instance_norm(input, weight=None, bias=None, running_mean=None, running_var=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5, cudnn_enabled=True):
    """torch.instance_norm: batch norm of the input viewed as ``(1, N*C, ...)`` (torch's
    composition: ViewBackward0 around NativeBatchNormBackward0, RepeatBackward0 on the
    parameters); the running statistics receive the mean over the batch."""
    b, c = input.shape[0], input.shape[1]
    shape = (1, b * c) + tuple(input.shape[2:])

    def rep(t):
        return None if t is None else t.repeat(b)

    rm, rv = rep(running_mean), rep(running_var)
    out = batch_norm(input.contiguous().view(shape), rep(weight), rep(bias), rm, rv,
                     use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.view(b, c).mean(0))
    return out.view(input.shape)


def instance_norm_functional(input, running_mean=None, running_var=None, weight=None, bias=None,
                             use_input_stats=True, momentum=0.1, eps=1e-5):
    """nn.functional.instance_norm."""
    if use_input_stats:
        size = input.size()
        if math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {size}")
    return instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                         momentum, eps)


# ---------------------------------------------------------------------------------------------
# layer norm
# ---------------------------------------------------------------------------------------------
def _check_normalized_shape(input_shape, normalized_shape, weight_shape=None, bias_shape=None,
                            rms=False):
    ns = list(normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, s in (("weight", weight_shape), ("bias", bias_shape)):
        if s is not None and list(s) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {shape_str(s)} and normalized_shape = "
                               f"{shape_str(ns)}")
    k = len(ns)
    if rms and len(input_shape) < k:
        raise ValueError(f"Input tensor must have at least {k} dimensions, but got "
                           f"{len(input_shape)}")
    if len(input_shape) < k or list(input_shape[len(input_shape) - k:]) != ns:
        star = "*" if rms else "*, "    # (torch's two messages differ by this comma)
        raise RuntimeError(f"Given normalized_shape={shape_str(ns)}, expected input with shape "
                           f"[{star}{', '.join(map(str, ns))}], but got input of size"
                           f"{shape_str(input_shape)}")


@defop("native_layer_norm", node="NativeLayerNormBackward0", promote=Promote.NONE,
       inputs=("input", "weight", "bias"), outputs=("result0", "result1", "result2"),
       saves=("input", "weight", "bias", "result1", "result2"), nondiff_outputs=(1, 2),
       variants=(), scalars=(), kernel_dtypes=True)
def native_layer_norm(xp, input, weight=None, bias=None, normalized_shape=(), eps=1e-5):
    """Layer norm over the last ``len(normalized_shape)`` axes: (out, mean, rstd). (The tensors
    come first, as the dispatcher wants; torch's schema has normalized_shape second.)"""
    normalized_shape = tuple(normalized_shape)
    _check_normalized_shape(input.shape, normalized_shape,
                            None if weight is None else weight.shape,
                            None if bias is None else bias.shape)
    k = len(normalized_shape)
    axes = tuple(range(input.ndim - k, input.ndim))
    dt = input.dtype
    input = _float_input(xp, input, "LayerNormKernelImpl")
    if input.size:
        # (Note [Normalisation backward]: the statistics as its ops compute them again)
        mean, centred, var = _mean_and_variance(xp, input, axes,
                                                math.prod(input.shape[a] for a in axes))
        rstd = 1 / xp.sqrt(var + eps)
        out = centred * rstd
    else:
        mean = rstd = xp.zeros(input.shape[:input.ndim - k] + (1,) * k, dt)
        out = (input - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return (xp.ascontiguousarray(out.astype(dt, copy=False)), mean.astype(dt, copy=False),
            rstd.astype(dt, copy=False))


@native_layer_norm.backward
def _(ctx, grad, *_):
    input, weight, bias, _mean, _rstd = ctx.saved_tensors
    if grad is None:
        return None, None, None
    k = len(tuple(ctx.normalized_shape))
    nd = input.dim()
    dims = list(range(nd - k, nd))
    lead = list(range(nd - k))
    need = ctx.needs_input_grad
    given = (input,) if weight is None else (input, weight)
    if arrays_only(grad, *given) and contiguous(*given):
        return _normalisation_grads(grad._data, input._data,
                                    None if weight is None else weight._data, _mean._data,
                                    _rstd._data, dims, lead, need)
    xhat, rstd = _stats(input, dims, ctx.eps)
    # (torch's kernel writes the input's gradient contiguous, whatever the layout of `grad`)
    gx = _normalised_grad(grad, xhat, rstd, weight, dims).contiguous() if need[0] else None
    # (with no leading dims there is nothing to sum: an empty dim list would sum everything)
    gw = _sum_dims(grad * xhat, lead) if weight is not None and need[1] else None
    gb = _sum_dims(grad, lead) if bias is not None and need[2] else None
    return gx, gw, gb


def _sum_dims(t, dims):
    """`t` summed over `dims`; for none, `t` laid out contiguously as torch's kernel writes it
    (``sum([])`` would sum over every dim)."""
    return t.sum(dims) if dims else t.clone(memory_format=contiguous_format)


native_layer_norm.jvp(FROM_BACKWARD)


def _as_shape(normalized_shape, fname):
    if isinstance(normalized_shape, int):   # torch's parser wants a sequence here
        raise TypeError(f"{fname}(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not int")
    return tuple(normalized_shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """torch.layer_norm / nn.functional.layer_norm."""
    return native_layer_norm(input, weight, bias, _as_shape(normalized_shape, "layer_norm"), eps)[0]


# ---------------------------------------------------------------------------------------------
# group norm
# ---------------------------------------------------------------------------------------------
@defop("native_group_norm", node="NativeGroupNormBackward0", promote=Promote.NONE,
       inputs=("input", "weight", "bias"), outputs=("result0", "result1", "result2"),
       saves=("input", "weight", "result1", "result2"),
       variants=("function",), scalars=(), kernel_dtypes=True)
def native_group_norm(xp, input, weight=None, bias=None, N=0, C=0, HxW=0, group=1, eps=1e-5):
    """Group norm: channels split in ``group`` groups, each normalised over its channels and
    spatial positions: (out, mean (N, group), rstd (N, group))."""
    dt = input.dtype
    layout = _suggested_strides(input)
    input = _float_input(xp, input, "GroupNormKernelImpl")
    x3 = input.reshape(N, group, C // group * HxW)   # (not -1: an empty batch has no size)
    if x3.size:
        # (Note [Normalisation backward]: the statistics as its ops compute them again)
        mean, centred, var = _mean_and_variance(xp, x3, (2,), x3.shape[2])
        rstd = 1 / xp.sqrt(var + eps)
    else:
        mean = rstd = xp.zeros((N, group, 1), dt)
        centred = x3 - mean
    out = (centred * rstd).reshape(input.shape)
    shape = _channel_shape(input.ndim, C)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return (_laid_out(out, dt, layout), mean.reshape(N, group).astype(dt),
            rstd.reshape(N, group).astype(dt))


@native_group_norm.backward
def _(ctx, grad, grad_mean=None, grad_rstd=None):
    """Unlike batch and layer norm, torch lets gradients flow from the mean and rstd outputs."""
    input, weight, _mean, _rstd = ctx.saved_tensors
    n, c, g = ctx.N, ctx.C, ctx.group
    shape = _channel_shape(input.dim(), c)
    dims = [0] + list(range(2, input.dim()))
    need = ctx.needs_input_grad
    given = (input,) if weight is None else (input, weight)
    if grad is not None and grad_mean is None and grad_rstd is None and input.numel() \
            and arrays_only(grad, *given) and contiguous(*given) \
            and _suggested_format(input) is contiguous_format:
        return _group_norm_grads(grad._data, input._data, None if weight is None
                                 else weight._data.reshape(shape), _mean._data, _rstd._data,
                                 g, dims, need)
    x3 = input.reshape(n, g, c // g * ctx.HxW)
    xhat3, rstd = _stats(x3, [2], ctx.eps)
    xhat = xhat3.reshape(input.shape)
    gx = gw = gb = None
    if need[0]:
        gx3 = None
        if grad is not None:
            gh = grad if weight is None else grad * weight.reshape(shape)
            gx3 = _normalised_grad(gh.reshape(x3.shape), xhat3, rstd, None, [2])
        m = x3.shape[2]
        if grad_mean is not None:   # d mean / dx = 1 / m
            part = grad_mean.unsqueeze(-1) / m
            gx3 = part if gx3 is None else gx3 + part
        if grad_rstd is not None:   # d rstd / dx = -rstd**2 * xhat / m
            part = -grad_rstd.unsqueeze(-1) * rstd * rstd * xhat3 / m
            gx3 = part if gx3 is None else gx3 + part
        if gx3 is not None:   # (laid out as the input, channels_last included: torch's)
            gx = gx3.expand(x3.shape).reshape(input.shape).contiguous(
                memory_format=_suggested_format(input))
    if grad is not None:
        gw = (grad * xhat).sum(dims) if weight is not None and need[1] else None
        gb = grad.sum(dims) if len(need) > 2 and need[2] else None
    return gx, gw, gb


native_group_norm.jvp(FROM_BACKWARD)


def _group_norm_grads(grad, x, weight, mean, rstd, group, dims, need):
    """The group norm's gradients in their array form (Note [Array formulas]): the op form's
    kernels in its order on the arrays. The input's gradient is the normalisation's over each
    group's (channels x positions), with the weight (shaped to broadcast over the channels)
    applied first; the weight's and the bias's sum over the batch and the positions, in the
    input's shape."""
    xp = _npb.xp
    x3 = x.reshape(x.shape[0], group, -1)
    mean3, rstd3 = mean.reshape(mean.shape + (1,)), rstd.reshape(rstd.shape + (1,))
    gx = gw = gb = None
    if need[0]:
        g = grad if weight is None else xp.multiply(grad, weight)
        gx, _, _ = _normalisation_grads(g.reshape(x3.shape), x3, None, mean3, rstd3, [2], [],
                                        (True, False, False))
        gx = from_array(gx._data.reshape(x.shape))
    if weight is not None and need[1]:
        xhat = xp.multiply(xp.subtract(x3, mean3), rstd3).reshape(x.shape)
        gw = from_array(sum_dim.kernel(xp, xp.multiply(grad, xhat), dims))
    if len(need) > 2 and need[2]:
        gb = from_array(sum_dim.kernel(xp, grad, dims))
    return gx, gw, gb


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """torch.group_norm."""
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {shape_str(input.shape)} and num_groups="
                           f"{num_groups}")
    for t in (weight, bias):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            name = "weight" if t is weight else "bias"
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{shape_str(t.shape)} and input of shape "
                               f"{shape_str(input.shape)}")
    hxw = math.prod(input.shape[2:])
    return native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


def group_norm_functional(input, num_groups, weight=None, bias=None, eps=1e-5):
    """nn.functional.group_norm."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    size = input.size()
    n = size[0] * size[1] // num_groups * math.prod(size[2:])
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{[size[0] * size[1] // num_groups, num_groups] + list(size[2:])}")
    return group_norm(input, num_groups, weight, bias, eps)


# ---------------------------------------------------------------------------------------------
# rms_norm, normalize: composites (with the small primitive torch's graphs show)
# ---------------------------------------------------------------------------------------------
@defop("add.Scalar", node="AddBackward1", inputs=("self",), variants=(), scalars=())
def _add_scalar(xp, self, other, alpha=1):
    """``Tensor + Scalar`` as torch's C++ composites call it (AddBackward1)."""
    return self + other * alpha


@_add_scalar.backward
def _(ctx, grad):
    return grad


_add_scalar.jvp(FROM_BACKWARD)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.rms_norm / nn.functional.rms_norm: ``x * rsqrt(mean(x**2) + eps) * weight`` over
    the last ``len(normalized_shape)`` dims; ``eps=None`` is the dtype's machine epsilon."""
    shape = _as_shape(normalized_shape, "rms_norm")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{input.dtype._legacy}'")
    _check_normalized_shape(input.shape, shape, None if weight is None else weight.shape,
                            rms=True)
    # half precision is computed in float32 (torch's opmath type), eps that type's too, and
    # the result comes back in the input's dtype and suggested memory format
    dtype = input.dtype
    x = input.to(D.float32) if dtype in (D.float16, D.bfloat16) else input
    if eps is None:
        eps = float(D.finfo(x.dtype).eps)
    nd = input.dim()
    dims = list(range(nd - 1, nd - len(shape) - 1, -1))   # torch lists them last first
    r = _add_scalar(x.pow(2).mean(dims, True), eps).rsqrt()
    result = x * r
    if weight is not None:
        result = result * weight
    return result.contiguous(memory_format=_suggested_format(input)).to(dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """nn.functional.normalize: ``input / max(norm_p(input, dim), eps)``."""
    from .clamp_bound import clamp_min_scalar   # (ClampMinBackward0, as torch's)
    denom = clamp_min_scalar(input.norm(p, dim, keepdim=True), eps).expand_as(input)
    if out is None:
        return input / denom
    return FUNCTIONS["div"](input, denom, out=out)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """nn.functional.local_response_norm: ``x / (k + alpha * mean_c(x**2))**beta``, the mean
    taken over ``size`` neighbouring channels (zero padded), with avg_pool as torch does.

    For inputs of 4 or more dims torch pools with avg_pool3d over a (N, 1, C, H, rest) view;
    dyngrad has no avg_pool3d yet, so the same window runs as avg_pool2d over (N, 1, C, rest):
    the same values, but AvgPool2DBackward0 in the graph where torch has AvgPool3DBackward0.
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    pad, pool = FUNCTIONS["nn.functional.pad"], FUNCTIONS["nn.functional.avg_pool2d"]
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = pool(div, (size, 1), stride=1).squeeze(1)
    else:
        if input.dtype not in (D.int64, D.float32, D.float64):   # torch's avg_pool3d dtypes
            raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for "
                                      f"'{input.dtype._legacy}'")
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = pool(div, (size, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


for _name, _fn in (("batch_norm", batch_norm), ("instance_norm", instance_norm),
                   ("layer_norm", layer_norm), ("group_norm", group_norm),
                   ("rms_norm", rms_norm)):
    FUNCTIONS[_name] = _fn
FUNCTIONS["nn.functional.batch_norm"] = batch_norm_functional
FUNCTIONS["nn.functional.instance_norm"] = instance_norm_functional
FUNCTIONS["nn.functional.layer_norm"] = layer_norm
FUNCTIONS["nn.functional.group_norm"] = group_norm_functional
FUNCTIONS["nn.functional.rms_norm"] = rms_norm
FUNCTIONS["nn.functional.normalize"] = normalize
FUNCTIONS["nn.functional.local_response_norm"] = local_response_norm
