"""Resampling ops of ``torch.nn.functional``: ``interpolate`` / ``upsample`` and the original
modes' primitives ('nearest' for 3-d and 4-d inputs, 'linear' for 3-d, 'bilinear' for 4-d),
``pixel_shuffle`` and ``pixel_unshuffle``. The other modes' primitives (5-d 'nearest',
'nearest-exact', 'trilinear', 'bicubic', antialiasing) are in upsample_modes.py; 'area' is
adaptive average pooling (pooling.py, pooling3d.py), as in torch.

The primitives are ATen's (``upsample_nearest2d`` → ``UpsampleNearest2DBackward0``,
``upsample_bilinear2d``, ``upsample_nearest1d``, ``upsample_linear1d``). Resampling is separable:
along each spatial dim every output reads one input position (nearest) or blends two (linear,
with ATen's source-index formulas, in ATen's float/double arithmetic), so the forward is a gather
per dim and the gradient the adjoint scatter-add per dim (a backward primitive whose own
gradient is the forward again). See Note [Resampling as taps per dim] in _resample.py; NumPy
helpers: ``backends/pool_numpy.py``.
"""
from __future__ import annotations

import operator

from .._promotion import Promote
from ..backends import pool_numpy as P
from . import _resample as R
from . import upsample_modes as M
from ._registry import FUNCTIONS, defop
from ..autograd.forward_ad import AUTO_LINEAR
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from .pooling3d import adaptive_avg_pool3d
from .view_backward import backward_only

_layout = R.layout
_check_dtype = R.check_dtype
_check_sizes = R.check_sizes


# ---------------------------------------------------------------------------------------------
# nearest
# ---------------------------------------------------------------------------------------------
def _nearest(xp, self, output_size, scales, name):
    return M.nearest_forward(xp, self, output_size, scales, name, exact=False)


def _nearest_back(xp, grad, output_size, input_size, scales):
    # torch's gradient keeps grad_output's channels_last layout (4-d)
    return M.nearest_backward(xp, grad, output_size, input_size, scales, exact=False,
                              keep_layout=True)


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
    if self.dtype == P.UINT8:   # ATen's separable fixed point
        out = M.separable_forward(xp, self, output_size, lambda k: R.collapse_border_taps(
            xp, *R.linear_taps(xp, self.shape[2 + k], output_size[k], align_corners, scales[k],
                               xp.float64)))
        return _layout(out, self)
    out = M.taps_forward(xp, self, output_size, align_corners, scales, R.linear_taps)
    return _layout(out, self)


def _linear_back(xp, grad, output_size, input_size, align_corners, scales):
    out = M.taps_backward(xp, grad, output_size, input_size, align_corners, scales,
                          R.linear_taps)
    return _layout(out, grad)   # torch's gradient keeps grad_output's channels_last layout


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
    _spec.jvp(AUTO_LINEAR)


# ---------------------------------------------------------------------------------------------
# F.interpolate
# ---------------------------------------------------------------------------------------------
_INTERP = "linear | bilinear | bicubic | trilinear"
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"),
                3: ("scales_d", "scales_h", "scales_w")}


def _is_integer(x) -> bool:
    """torch's ``_is_integer``: Python and NumPy integers, and tensors that are not floating."""
    if isinstance(x, int):
        return True
    if hasattr(x, "is_floating_point"):
        return not x.is_floating_point()
    return getattr(getattr(x, "dtype", None), "kind", None) in ("i", "u")


def _arg_parser_error(name, output_size, align_corners):
    """The TypeError of torch's argument parser for a non-integer ``output_size`` element."""
    kinds = ", ".join(type(v).__name__ for v in output_size)
    flag, flag_decl = ("bool, ", "bool align_corners, ") if align_corners is not None else ("", "")
    scales = ", ".join(f"float {n} = None" for n in _SCALE_NAMES[len(output_size)])
    return TypeError(
        f"{name}() received an invalid combination of arguments - got (Tensor, list, "
        f"{flag}NoneType), but expected one of:\n"
        f" * (Tensor input, tuple of ints output_size, {flag_decl}tuple of floats "
        f"scale_factors)\n"
        f"      didn't match because some of the arguments have invalid types: (Tensor, "
        f"!list of [{kinds}]!, {flag}!NoneType!)\n"
        f" * (Tensor input, tuple of ints output_size, {flag_decl}{scales}, *, Tensor out = "
        f"None)\n")


def _call(op, name, input, output_size, scale_factors, align_corners=None):
    """``op(input, output_size, [align_corners,] *scales)`` as torch's ``.vec`` overloads."""
    if not all(_is_integer(v) for v in output_size):
        raise _arg_parser_error(name, output_size, align_corners)
    output_size = tuple(operator.index(v) for v in output_size)
    scales = tuple(scale_factors) if scale_factors is not None else (None,) * len(output_size)
    if align_corners is None:
        return op(input, output_size, *scales)
    return op(input, output_size, bool(align_corners), *scales)


def _area(pool, name, input, output_size):
    bad = [v for v in output_size if not _is_integer(v)]
    if bad:   # torch's argument parser, for adaptive_avg_pool{1,2,3}d
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                        f"but found element of type {type(bad[0]).__name__} at pos "
                        f"{list(output_size).index(bad[0])}")
    return pool(input, [operator.index(v) for v in output_size])


# (mode, input.dim()) -> (primitive, torch's name, takes align_corners)
_PRIMITIVES = {
    ("nearest", 3): (lambda: _upsample_nearest1d, "upsample_nearest1d", False),
    ("nearest", 4): (lambda: _upsample_nearest2d, "upsample_nearest2d", False),
    ("nearest", 5): (lambda: M._upsample_nearest3d, "upsample_nearest3d", False),
    ("nearest-exact", 3): (lambda: M._upsample_nearest_exact1d, "_upsample_nearest_exact1d",
                           False),
    ("nearest-exact", 4): (lambda: M._upsample_nearest_exact2d, "_upsample_nearest_exact2d",
                           False),
    ("nearest-exact", 5): (lambda: M._upsample_nearest_exact3d, "_upsample_nearest_exact3d",
                           False),
    ("linear", 3): (lambda: _upsample_linear1d, "upsample_linear1d", True),
    ("bilinear", 4): (lambda: _upsample_bilinear2d, "upsample_bilinear2d", True),
    ("trilinear", 5): (lambda: M._upsample_trilinear3d, "upsample_trilinear3d", True),
    ("bicubic", 4): (lambda: M._upsample_bicubic2d, "upsample_bicubic2d", True),
}
_ANTIALIASED = {
    "bilinear": (lambda: M._upsample_bilinear2d_aa, "_upsample_bilinear2d_aa"),
    "bicubic": (lambda: M._upsample_bicubic2d_aa, "_upsample_bicubic2d_aa"),
    "lanczos": (lambda: M._upsample_lanczos2d_aa, "_upsample_lanczos2d_aa"),
}
_WRONG_DIM = {"bilinear": 4, "trilinear": 5, "linear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dims of ``input`` (N, C, *spatial) to ``size`` or by
    ``scale_factor``.

    Args:
        input: a 3-d, 4-d or 5-d tensor.
        size: the output's spatial size (an int or one per spatial dim).
        scale_factor: the multiplier of each spatial size (a float or one per dim).
        mode: 'nearest', 'nearest-exact', 'linear' (3-d), 'bilinear' (4-d), 'bicubic' (4-d),
            'trilinear' (5-d), 'area' (adaptive average pooling), 'lanczos' (4-d, antialias).
        align_corners: for the interpolating modes, align the corner pixels' centres.
        recompute_scale_factor: compute the output size from ``scale_factor`` and pass no
            scale to the kernel.
        antialias: a low-pass filter when downsampling ('bilinear', 'bicubic', 'lanczos').

    Returns:
        The resampled tensor, channels_last when ``input`` is.
    """
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
            if not all(_is_integer(x) for x in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, "
                                f"int] or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = list(size)
        else:
            output_size = [size] * dim
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
    if mode == "area" and output_size is None:   # area always takes an explicit size
        recompute_scale_factor = True
    if recompute_scale_factor and scale_factors is not None:
        output_size = [int(spatial[i] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if output_size is None:   # ATen's upsample compute_output_size
        output_size = [int(spatial[i] * scale_factors[i]) for i in range(dim)]
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "area" and input.dim() in (3, 4, 5):
        pool, name = {3: (adaptive_avg_pool1d, "adaptive_avg_pool1d"),
                      4: (adaptive_avg_pool2d, "adaptive_avg_pool2d"),
                      5: (adaptive_avg_pool3d, "adaptive_avg_pool3d")}[input.dim()]
        return _area(pool, name, input, output_size)
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias and mode in _ANTIALIASED:   # 4-d, checked above
        op, name = _ANTIALIASED[mode]
        return _call(op(), name, input, output_size, scale_factors, align_corners)
    entry = _PRIMITIVES.get((mode, input.dim()))
    if entry is not None:
        op, name, interpolating = entry
        return _call(op(), name, input, output_size, scale_factors,
                     align_corners if interpolating else None)
    if mode in _WRONG_DIM and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_WRONG_DIM[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{input.dim()}D) for the modes: {_MODES} (got {mode})")


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
