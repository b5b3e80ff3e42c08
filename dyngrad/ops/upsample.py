"""Resampling ops of ``torch.nn.functional``: ``interpolate`` / ``upsample`` (modes 'nearest',
'linear' for 3-d and 'bilinear' for 4-d inputs), ``pixel_shuffle`` and ``pixel_unshuffle``.

The primitives are ATen's (``upsample_nearest2d`` → ``UpsampleNearest2DBackward0``,
``upsample_bilinear2d``, ``upsample_nearest1d``, ``upsample_linear1d``). Resampling is separable:
along each spatial dim every output reads one input position (nearest) or blends two (linear,
with ATen's source-index formulas, in ATen's float/double arithmetic), so the forward is a gather
per dim and the gradient the adjoint scatter-add per dim (a backward primitive whose own
gradient is the forward again). NumPy helpers: ``backends/pool_numpy.py``.
"""
from __future__ import annotations

import math
import operator

from .. import _dtypes as D
from .._promotion import Promote
from ..backends import pool_numpy as P
from ._geometry import memory_format_strides
from ._registry import FUNCTIONS, defop
from ..autograd.forward_ad import AUTO_LINEAR
from .creation import copy_with_strides, suggest_memory_format
from .view_backward import backward_only


def _strides_of(arr):
    return tuple(s // arr.itemsize for s in arr.strides)


def _layout(out, self):
    """``out`` laid out as torch lays out a resampled ``self`` (channels_last stays so)."""
    fmt = suggest_memory_format(self.shape, _strides_of(self))
    return copy_with_strides(out, out.dtype, memory_format_strides(out.shape, fmt))


def _check_dtype(name, arr, uint8=True):
    """torch's CPU kernels take floating types and uint8 (the names are the kernels' own)."""
    if arr.dtype.kind != "f" and not (uint8 and arr.dtype == P.UINT8):
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{D.from_np(arr.dtype)._legacy}'")


def _check_sizes(in_sizes, out_sizes, full_shape, n):
    if len(out_sizes) != n:
        raise RuntimeError(f"It is expected output_size equals to {n}, but got size "
                           f"{len(out_sizes)}")
    if len(full_shape) != n + 2:
        raise RuntimeError(f"It is expected input_size equals to {n + 2}, but got size "
                           f"{len(full_shape)}")
    if not (all(s > 0 for s in in_sizes) and all(s > 0 for s in out_sizes)):
        if n == 2:
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                               f"(H: {in_sizes[0]}, W: {in_sizes[1]}) output (H: {out_sizes[0]}, "
                               f"W: {out_sizes[1]})")
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"(W: {in_sizes[0]}) and output (W: {out_sizes[0]})")


# ---------------------------------------------------------------------------------------------
# nearest
# ---------------------------------------------------------------------------------------------
def _nearest(xp, self, output_size, scales, name):
    n = len(scales)
    _check_sizes(self.shape[2:], tuple(output_size), self.shape, n)
    _check_dtype(name, self)
    out = self
    for k in range(n):
        axis = 2 + k
        index = P.nearest_index(self.shape[axis], output_size[k], scales[k])
        out = xp.take(out, index, axis=axis)
    return _layout(out, self)


def _nearest_back(xp, grad, output_size, input_size, scales):
    out = grad
    for k in reversed(range(len(scales))):
        axis = 2 + k
        index = P.nearest_index(input_size[axis], output_size[k], scales[k])
        out = P.nearest_scatter(out, axis, index, input_size[axis])
    return out


@defop("upsample_nearest2d", node="UpsampleNearest2DBackward0", promote=Promote.NONE,
       variants=())
def _upsample_nearest2d(xp, self, output_size, scales_h=None, scales_w=None):
    return _nearest(xp, self, output_size, (scales_h, scales_w),
                    "upsample_nearest2d_channels_last")


@_upsample_nearest2d.backward
def _(ctx, grad):
    return (_upsample_nearest2d_backward(grad, ctx.output_size, ctx.self_shape, ctx.scales_h,
                                         ctx.scales_w),)


_upsample_nearest2d.jvp(AUTO_LINEAR)


@defop("upsample_nearest2d_backward", node="UpsampleNearest2DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_nearest2d_backward(xp, grad_output, output_size, input_size, scales_h=None,
                                 scales_w=None):
    return _nearest_back(xp, grad_output, output_size, input_size, (scales_h, scales_w))


@_upsample_nearest2d_backward.backward
def _(ctx, grad):
    return (_upsample_nearest2d(grad, ctx.output_size, ctx.scales_h, ctx.scales_w),)


@defop("upsample_nearest1d", node="UpsampleNearest1DBackward0", promote=Promote.NONE,
       variants=())
def _upsample_nearest1d(xp, self, output_size, scales=None):
    return _nearest(xp, self, output_size, (scales,), "compute_indices_weights_nearest")


@_upsample_nearest1d.backward
def _(ctx, grad):
    return (_upsample_nearest1d_backward(grad, ctx.output_size, ctx.self_shape, ctx.scales),)


_upsample_nearest1d.jvp(AUTO_LINEAR)


@defop("upsample_nearest1d_backward", node="UpsampleNearest1DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_nearest1d_backward(xp, grad_output, output_size, input_size, scales=None):
    return _nearest_back(xp, grad_output, output_size, input_size, (scales,))


@_upsample_nearest1d_backward.backward
def _(ctx, grad):
    return (_upsample_nearest1d(grad, ctx.output_size, ctx.scales),)


# ---------------------------------------------------------------------------------------------
# linear / bilinear
# ---------------------------------------------------------------------------------------------
def _linear(xp, self, output_size, align_corners, scales, name):
    n = len(scales)
    _check_sizes(self.shape[2:], tuple(output_size), self.shape, n)
    _check_dtype(name, self, uint8=n == 2)
    out = self if self.dtype.kind == "f" else self.astype(xp.float32)
    for k in range(n):
        axis = 2 + k
        w = P.linear_weights(self.shape[axis], output_size[k], align_corners, scales[k],
                             out.dtype)
        out = P.linear_gather(out, axis, *w)
    if self.dtype.kind != "f":   # uint8: rounded to nearest (torch's fixed point may differ by 1)
        out = xp.clip(xp.rint(out), 0, 255)
    return _layout(out.astype(self.dtype, copy=False), self)


def _linear_back(xp, grad, output_size, input_size, align_corners, scales):
    out = grad
    for k in reversed(range(len(scales))):
        axis = 2 + k
        w = P.linear_weights(input_size[axis], output_size[k], align_corners, scales[k],
                             grad.dtype)
        out = P.linear_scatter(out, axis, *w, input_size[axis])
    return out


@defop("upsample_bilinear2d", node="UpsampleBilinear2DBackward0", promote=Promote.NONE,
       variants=())
def _upsample_bilinear2d(xp, self, output_size, align_corners, scales_h=None, scales_w=None):
    return _linear(xp, self, output_size, align_corners, (scales_h, scales_w),
                   "upsample_bilinear2d_channels_last")


@_upsample_bilinear2d.backward
def _(ctx, grad):
    return (_upsample_bilinear2d_backward(grad, ctx.output_size, ctx.self_shape,
                                          ctx.align_corners, ctx.scales_h, ctx.scales_w),)


_upsample_bilinear2d.jvp(AUTO_LINEAR)


@defop("upsample_bilinear2d_backward", node="UpsampleBilinear2DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_bilinear2d_backward(xp, grad_output, output_size, input_size, align_corners,
                                  scales_h=None, scales_w=None):
    return _linear_back(xp, grad_output, output_size, input_size, align_corners,
                        (scales_h, scales_w))


@_upsample_bilinear2d_backward.backward
def _(ctx, grad):
    return (_upsample_bilinear2d(grad, ctx.output_size, ctx.align_corners, ctx.scales_h,
                                 ctx.scales_w),)


@defop("upsample_linear1d", node="UpsampleLinear1DBackward0", promote=Promote.NONE,
       variants=())
def _upsample_linear1d(xp, self, output_size, align_corners, scales=None):
    return _linear(xp, self, output_size, align_corners, (scales,),
                   "compute_indices_weights_linear")


@_upsample_linear1d.backward
def _(ctx, grad):
    return (_upsample_linear1d_backward(grad, ctx.output_size, ctx.self_shape,
                                        ctx.align_corners, ctx.scales),)


_upsample_linear1d.jvp(AUTO_LINEAR)


@defop("upsample_linear1d_backward", node="UpsampleLinear1DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_linear1d_backward(xp, grad_output, output_size, input_size, align_corners,
                                scales=None):
    return _linear_back(xp, grad_output, output_size, input_size, align_corners, (scales,))


@_upsample_linear1d_backward.backward
def _(ctx, grad):
    return (_upsample_linear1d(grad, ctx.output_size, ctx.align_corners, ctx.scales),)


for _spec in (_upsample_nearest2d_backward, _upsample_nearest1d_backward,
              _upsample_bilinear2d_backward, _upsample_linear1d_backward):
    backward_only(_spec)


# ---------------------------------------------------------------------------------------------
# F.interpolate
# ---------------------------------------------------------------------------------------------
_INTERP = "linear | bilinear | bicubic | trilinear"


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dims of ``input`` (N, C, *spatial) to ``size`` or by
    ``scale_factor``. Modes: 'nearest' (3-d, 4-d) and 'linear' (3-d) / 'bilinear' (4-d) with
    ``align_corners``.

    Differences from torch: modes 'bicubic', 'trilinear', 'area', 'nearest-exact' and 5-d
    inputs are not implemented (NotImplementedError)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(f"align_corners option can only be set with the interpolating "
                             f"modes: {_INTERP}")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = list(input.shape[2:])
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of "
                                 f"{spatial} and output size of {size}. Please provide input "
                                 f"tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            output_size = [operator.index(s) for s in size]
        else:
            output_size = [operator.index(size)] * dim
        scale_factors = None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(f"Input and scale_factor must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of "
                                 f"{spatial} and scale_factor of shape {scale_factor}. Please "
                                 f"provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 f"scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
        output_size = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor and scale_factors is not None:
        output_size = [math.floor(float(spatial[i]) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if output_size is None:
        output_size = [int(spatial[i] * scale_factors[i]) for i in range(dim)]
    scales = tuple(scale_factors) if scale_factors is not None else (None,) * max(dim, 0)
    output_size = tuple(output_size)
    if input.dim() == 3 and mode == "nearest":
        return _upsample_nearest1d(input, output_size, *scales)
    if input.dim() == 4 and mode == "nearest":
        return _upsample_nearest2d(input, output_size, *scales)
    if input.dim() == 3 and mode == "linear":
        return _upsample_linear1d(input, output_size, bool(align_corners), *scales)
    if input.dim() == 4 and mode == "bilinear":
        return _upsample_bilinear2d(input, output_size, bool(align_corners), *scales)
    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if input.dim() == 4 and mode == "linear":
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if input.dim() in (3, 4, 5) and mode in ("nearest", "linear", "bilinear", "bicubic",
                                             "trilinear", "area", "nearest-exact"):
        raise NotImplementedError(f"interpolate: mode '{mode}' for {input.dim()}-d input is not "
                                  f"implemented in dyngrad")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{input.dim()}D) for the modes: nearest | linear | bilinear | "
                              f"bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate`` (torch warns too)."""
    import warnings
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    import warnings
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    import warnings
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------------------------------------
# pixel shuffle
# ---------------------------------------------------------------------------------------------
def _shuffle_checks(shape, r, down):
    name = "pixel_unshuffle" if down else "pixel_shuffle"
    if len(shape) < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {len(shape)} dimension(s)")
    if r <= 0:
        what = "downscale_factor" if down else "upscale_factor"
        raise RuntimeError(f"{name} expects a positive {what}, but got {r}")
    c, h, w = shape[-3:]
    if down:
        if h % r:
            raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                               f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
        if w % r:
            raise RuntimeError(f"pixel_unshuffle expects width to be divisible by "
                               f"downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    elif c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")


def _shuffle(xp, x, r):
    *lead, c, h, w = x.shape
    oc = c // (r * r)
    y = x.reshape(*lead, oc, r, r, h, w)
    k = len(lead)
    y = y.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return y.reshape(*lead, oc, h * r, w * r)


def _unshuffle(xp, x, r):
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    y = y.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return y.reshape(*lead, c * r * r, h // r, w // r)


@defop("pixel_shuffle", node="PixelShuffleBackward0", promote=Promote.NONE,
       variants=("function",))
def _pixel_shuffle(xp, self, upscale_factor):
    _shuffle_checks(self.shape, upscale_factor, False)
    return _layout(_shuffle(xp, self, upscale_factor), self) if self.ndim == 4 \
        else xp.ascontiguousarray(_shuffle(xp, self, upscale_factor))


@_pixel_shuffle.backward
def _(ctx, grad):
    return (_pixel_unshuffle(grad, ctx.upscale_factor),)


_pixel_shuffle.jvp(AUTO_LINEAR)


@defop("pixel_unshuffle", node="PixelUnshuffleBackward0", promote=Promote.NONE,
       variants=("function",))
def _pixel_unshuffle(xp, self, downscale_factor):
    _shuffle_checks(self.shape, downscale_factor, True)
    return _layout(_unshuffle(xp, self, downscale_factor), self) if self.ndim == 4 \
        else xp.ascontiguousarray(_unshuffle(xp, self, downscale_factor))


@_pixel_unshuffle.backward
def _(ctx, grad):
    return (_pixel_shuffle(grad, ctx.downscale_factor),)


_pixel_unshuffle.jvp(AUTO_LINEAR)


FUNCTIONS.update({
    "nn.functional.interpolate": interpolate,
    "nn.functional.upsample": upsample,
    "nn.functional.upsample_nearest": upsample_nearest,
    "nn.functional.upsample_bilinear": upsample_bilinear,
    "nn.functional.pixel_shuffle": _pixel_shuffle,
    "nn.functional.pixel_unshuffle": _pixel_unshuffle,
})
