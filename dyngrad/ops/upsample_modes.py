"""The resampling primitives behind ``F.interpolate``'s other modes: 'nearest' for 5-d inputs
(``upsample_nearest3d``), 'nearest-exact' (``_upsample_nearest_exact1d/2d/3d``), 'trilinear'
(``upsample_trilinear3d``), 'bicubic' (``upsample_bicubic2d``) and ``antialias=True``
(``_upsample_bilinear2d_aa``, ``_upsample_bicubic2d_aa``, ``_upsample_lanczos2d_aa``).

Each is a gather of taps per spatial dim and its gradient the adjoint (see Note
[Resampling as taps per dim] in _resample.py); the gradient is a backward primitive of its own,
as in ATen, whose derivative is the forward op again. Where torch's CPU gradient keeps the
gradient's channels_last layout (trilinear, nearest-exact 2-d, bilinear antialiasing) so does
ours; bicubic, lanczos and the 3-d nearest gradients are contiguous in torch, and here.
"""
from __future__ import annotations

from .._promotion import Promote
from ..autograd.forward_ad import AUTO_LINEAR
from ..backends import pool_numpy as P
from . import _resample as R
from ._registry import defop
from .view_backward import backward_only


def _finish(xp, out, like, keep_layout):
    return R.layout(out, like) if keep_layout else R.contiguous(xp, out)


# ---------------------------------------------------------------------------------------------
# nearest (3-d) and nearest-exact (1-d, 2-d, 3-d)
# ---------------------------------------------------------------------------------------------
def nearest_forward(xp, self, output_size, scales, name, exact):
    """Nearest resampling of the last ``len(scales)`` dims (ATen's nearest_idx or, exact,
    nearest_exact_idx). torch's gradient of 1-d and 3-d 'nearest' takes the shortcuts of
    nearest_idx where the forward does not (see ``R.nearest_taps``): so do we."""
    n = len(scales)
    R.check_sizes(self.shape[2:], tuple(output_size), self.shape, n)
    R.check_dtype(name, self)
    out = self
    for k in range(n):
        if exact:
            idx, _ = R.nearest_exact_taps(xp, self.shape[2 + k], output_size[k], scales[k])
        else:
            idx, _ = R.nearest_taps(xp, self.shape[2 + k], output_size[k], scales[k],
                                    shortcut=n == 2)
        out = xp.take(out, idx[0], axis=2 + k)
    return R.layout(out, self)


def nearest_backward(xp, grad, output_size, input_size, scales, exact, keep_layout):
    taps = R.nearest_exact_taps if exact else R.nearest_taps
    out = grad
    for k in reversed(range(len(scales))):
        idx, _ = taps(xp, input_size[2 + k], output_size[k], scales[k])
        out = R.scatter(xp, out, 2 + k, idx, None, input_size[2 + k])
    return _finish(xp, out, grad, keep_layout)


@defop("upsample_nearest3d", node="UpsampleNearest3DBackward0", promote=Promote.NONE,
       variants=())
def _upsample_nearest3d(xp, self, output_size, scales_d=None, scales_h=None, scales_w=None):
    return nearest_forward(xp, self, output_size, (scales_d, scales_h, scales_w),
                           "compute_indices_weights_nearest", False)


@_upsample_nearest3d.backward
def _(ctx, grad):
    return (_upsample_nearest3d_backward(grad, ctx.output_size, ctx.self_shape, ctx.scales_d,
                                         ctx.scales_h, ctx.scales_w),)


@backward_only
@defop("upsample_nearest3d_backward", node="UpsampleNearest3DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_nearest3d_backward(xp, grad_output, output_size, input_size, scales_d=None,
                                 scales_h=None, scales_w=None):
    return nearest_backward(xp, grad_output, output_size, input_size,
                            (scales_d, scales_h, scales_w), False, False)


@_upsample_nearest3d_backward.backward
def _(ctx, grad):
    return (_upsample_nearest3d(grad, ctx.output_size, ctx.scales_d, ctx.scales_h,
                                ctx.scales_w),)


@defop("_upsample_nearest_exact1d", node="UpsampleNearestExact1DBackward0",
       promote=Promote.NONE, variants=())
def _upsample_nearest_exact1d(xp, self, output_size, scales=None):
    return nearest_forward(xp, self, output_size, (scales,), "compute_indices_weights_nearest",
                           True)


@_upsample_nearest_exact1d.backward
def _(ctx, grad):
    return (_upsample_nearest_exact1d_backward(grad, ctx.output_size, ctx.self_shape,
                                               ctx.scales),)


@backward_only
@defop("_upsample_nearest_exact1d_backward", node="UpsampleNearestExact1DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_nearest_exact1d_backward(xp, grad_output, output_size, input_size, scales=None):
    return nearest_backward(xp, grad_output, output_size, input_size, (scales,), True, False)


@_upsample_nearest_exact1d_backward.backward
def _(ctx, grad):
    return (_upsample_nearest_exact1d(grad, ctx.output_size, ctx.scales),)


@defop("_upsample_nearest_exact2d", node="UpsampleNearestExact2DBackward0",
       promote=Promote.NONE, variants=())
def _upsample_nearest_exact2d(xp, self, output_size, scales_h=None, scales_w=None):
    return nearest_forward(xp, self, output_size, (scales_h, scales_w),
                           "upsample_nearest2d_channels_last", True)


@_upsample_nearest_exact2d.backward
def _(ctx, grad):
    return (_upsample_nearest_exact2d_backward(grad, ctx.output_size, ctx.self_shape,
                                               ctx.scales_h, ctx.scales_w),)


@backward_only
@defop("_upsample_nearest_exact2d_backward", node="UpsampleNearestExact2DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_nearest_exact2d_backward(xp, grad_output, output_size, input_size, scales_h=None,
                                       scales_w=None):
    return nearest_backward(xp, grad_output, output_size, input_size, (scales_h, scales_w),
                            True, True)


@_upsample_nearest_exact2d_backward.backward
def _(ctx, grad):
    return (_upsample_nearest_exact2d(grad, ctx.output_size, ctx.scales_h, ctx.scales_w),)


@defop("_upsample_nearest_exact3d", node="UpsampleNearestExact3DBackward0",
       promote=Promote.NONE, variants=())
def _upsample_nearest_exact3d(xp, self, output_size, scales_d=None, scales_h=None,
                              scales_w=None):
    return nearest_forward(xp, self, output_size, (scales_d, scales_h, scales_w),
                           "compute_indices_weights_nearest", True)


@_upsample_nearest_exact3d.backward
def _(ctx, grad):
    return (_upsample_nearest_exact3d_backward(grad, ctx.output_size, ctx.self_shape,
                                               ctx.scales_d, ctx.scales_h, ctx.scales_w),)


@backward_only
@defop("_upsample_nearest_exact3d_backward", node="UpsampleNearestExact3DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_nearest_exact3d_backward(xp, grad_output, output_size, input_size, scales_d=None,
                                       scales_h=None, scales_w=None):
    return nearest_backward(xp, grad_output, output_size, input_size,
                            (scales_d, scales_h, scales_w), True, False)


@_upsample_nearest_exact3d_backward.backward
def _(ctx, grad):
    return (_upsample_nearest_exact3d(grad, ctx.output_size, ctx.scales_d, ctx.scales_h,
                                      ctx.scales_w),)


# ---------------------------------------------------------------------------------------------
# linear, bilinear, trilinear and bicubic: taps in ATen's opmath type, the last dim first
# ---------------------------------------------------------------------------------------------
def taps_forward(xp, self, output_size, align_corners, scales, taps):
    """Every spatial dim resampled with ``taps(xp, in, out, align_corners, scale, t)``."""
    t = P.opmath(self.dtype)
    out = self
    for k in reversed(range(len(scales))):
        idx, w = taps(xp, self.shape[2 + k], output_size[k], align_corners, scales[k], t)
        out = R.gather(xp, out, 2 + k, idx, w)
    return out.astype(self.dtype, copy=False)


def taps_backward(xp, grad, output_size, input_size, align_corners, scales, taps):
    """The adjoint of ``taps_forward``: ``grad`` back to ``input_size``."""
    t = P.opmath(grad.dtype)
    out = grad
    for k in range(len(scales)):
        idx, w = taps(xp, input_size[2 + k], output_size[k], align_corners, scales[k], t)
        out = R.scatter(xp, out, 2 + k, idx, w, input_size[2 + k])
    return out


@defop("upsample_trilinear3d", node="UpsampleTrilinear3DBackward0", promote=Promote.NONE,
       variants=())
def _upsample_trilinear3d(xp, self, output_size, align_corners, scales_d=None, scales_h=None,
                          scales_w=None):
    R.check_sizes(self.shape[2:], tuple(output_size), self.shape, 3)
    R.check_dtype("compute_indices_weights_linear", self, uint8=False)
    out = taps_forward(xp, self, output_size, align_corners, (scales_d, scales_h, scales_w),
                        R.linear_taps)
    return R.layout(out, self)


@_upsample_trilinear3d.backward
def _(ctx, grad):
    return (_upsample_trilinear3d_backward(grad, ctx.output_size, ctx.self_shape,
                                           ctx.align_corners, ctx.scales_d, ctx.scales_h,
                                           ctx.scales_w),)


@backward_only
@defop("upsample_trilinear3d_backward", node="UpsampleTrilinear3DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_trilinear3d_backward(xp, grad_output, output_size, input_size, align_corners,
                                   scales_d=None, scales_h=None, scales_w=None):
    out = taps_backward(xp, grad_output, output_size, input_size, align_corners,
                         (scales_d, scales_h, scales_w), R.linear_taps)
    return R.layout(out, grad_output)


@_upsample_trilinear3d_backward.backward
def _(ctx, grad):
    return (_upsample_trilinear3d(grad, ctx.output_size, ctx.align_corners, ctx.scales_d,
                                  ctx.scales_h, ctx.scales_w),)


def width_one_quirk(self, output_size):
    """torch 2.13's separable CPU kernels (antialiasing; uint8 bicubic/bilinear with more than
    4 channels) give every output row the taps of row 0 when they resample the rows of a
    1-pixel-wide contiguous image: reproduced, as torch's values are the reference."""
    if output_size[1] != 1 or output_size[0] == self.shape[2] or R.is_channels_last(self):
        return False
    return self.dtype != P.UINT8 or self.shape[1] > 4


def separable_forward(xp, self, output_size, tables):
    """ATen's separable CPU path: the last dim first, a dim whose size does not change is left
    as it is, uint8 in fixed point. ``tables(k)`` gives the taps of spatial dim ``k``."""
    quirk = width_one_quirk(self, output_size)
    out = self
    for k in reversed(range(len(output_size))):
        if output_size[k] == self.shape[2 + k]:
            continue
        table = tables(k)
        if quirk and k == 0:
            table = [xp.repeat(a[:, :1], a.shape[1], 1) for a in table]
        out = R.gather_uint8(xp, out, 2 + k, *table) if self.dtype == P.UINT8 \
            else R.gather(xp, out, 2 + k, *table)
    return out


@defop("upsample_bicubic2d", node="UpsampleBicubic2DBackward0", promote=Promote.NONE,
       variants=())
def _upsample_bicubic2d(xp, self, output_size, align_corners, scales_h=None, scales_w=None):
    R.check_sizes(self.shape[2:], tuple(output_size), self.shape, 2)
    R.check_dtype("compute_indices_weights_cubic", self)
    scales = (scales_h, scales_w)
    if self.dtype == P.UINT8:   # ATen's separable fixed point
        out = separable_forward(xp, self, output_size, lambda k: R.collapse_border_taps(
            xp, *R.cubic_taps(xp, self.shape[2 + k], output_size[k], align_corners, scales[k],
                              xp.float64)))
    else:
        out = taps_forward(xp, self, output_size, align_corners, scales, R.cubic_taps)
    return R.layout(out, self)


@_upsample_bicubic2d.backward
def _(ctx, grad):
    return (_upsample_bicubic2d_backward(grad, ctx.output_size, ctx.self_shape,
                                         ctx.align_corners, ctx.scales_h, ctx.scales_w),)


@backward_only
@defop("upsample_bicubic2d_backward", node="UpsampleBicubic2DBackwardBackward0",
       promote=Promote.NONE, variants=(), inputs=("grad_output",))
def _upsample_bicubic2d_backward(xp, grad_output, output_size, input_size, align_corners,
                                 scales_h=None, scales_w=None):
    if tuple(output_size) == tuple(input_size[2:]):   # ATen's backward copies (not its forward)
        return R.contiguous(xp, grad_output.copy())
    out = taps_backward(xp, grad_output, output_size, input_size, align_corners,
                        (scales_h, scales_w), R.cubic_taps)
    return R.contiguous(xp, out)


@_upsample_bicubic2d_backward.backward
def _(ctx, grad):
    return (_upsample_bicubic2d(grad, ctx.output_size, ctx.align_corners, ctx.scales_h,
                                ctx.scales_w),)


# ---------------------------------------------------------------------------------------------
# antialiasing (bilinear, bicubic, lanczos; 4-d)
# ---------------------------------------------------------------------------------------------
def aa_forward(xp, self, output_size, align_corners, scales, mode):
    R.check_sizes(self.shape[2:], tuple(output_size), self.shape, 2)
    if self.dtype not in (xp.float32, xp.float64, P.UINT8):
        raise R.not_implemented("compute_index_ranges_weights", self.dtype)
    t = xp.float64 if self.dtype == P.UINT8 else self.dtype.type
    out = separable_forward(xp, self, output_size, lambda k: R.aa_taps(
        xp, self.shape[2 + k], output_size[k], align_corners, scales[k], t, mode))
    return R.layout(out, self)


def aa_backward(xp, grad, output_size, input_size, align_corners, scales, mode, keep_layout):
    out = grad
    for k in range(len(scales)):   # every dim, resized or not, as ATen's backward kernel
        idx, w, valid = R.aa_taps(xp, input_size[2 + k], output_size[k], align_corners,
                                  scales[k], grad.dtype.type, mode)
        out = R.scatter(xp, out, 2 + k, idx, w, input_size[2 + k], valid)
    return _finish(xp, out, grad, keep_layout)


def _make_aa(mode: str, keep_layout: bool):
    """The antialiased primitive ``_upsample_{mode}2d_aa`` and its backward primitive, whose
    derivative is the forward again (torch's gradient keeps the incoming gradient's layout for
    bilinear only: `keep_layout`)."""
    name = f"_upsample_{mode}2d_aa"
    node = f"Upsample{mode.capitalize()}2DAaBackward0"

    def forward(xp, self, output_size, align_corners, scales_h=None, scales_w=None):
        return aa_forward(xp, self, output_size, align_corners, (scales_h, scales_w), mode)

    def backward_kernel(xp, grad_output, output_size, input_size, align_corners,
                        scales_h=None, scales_w=None):
        return aa_backward(xp, grad_output, output_size, input_size, align_corners,
                           (scales_h, scales_w), mode, keep_layout)

    forward.__name__ = name
    backward_kernel.__name__ = name + "_backward"
    spec = defop(name, node=node, promote=Promote.NONE, variants=())(forward)
    back = backward_only(defop(name + "_backward",
                               node=node.replace("Backward0", "BackwardBackward0"),
                               promote=Promote.NONE, variants=(),
                               inputs=("grad_output",))(backward_kernel))

    @spec.backward
    def _(ctx, grad):
        return (back(grad, ctx.output_size, ctx.self_shape, ctx.align_corners, ctx.scales_h,
                     ctx.scales_w),)

    @back.backward
    def _(ctx, grad):
        return (spec(grad, ctx.output_size, ctx.align_corners, ctx.scales_h, ctx.scales_w),)

    back.jvp(AUTO_LINEAR)

    return spec


_upsample_bilinear2d_aa = _make_aa("bilinear", True)
_upsample_bicubic2d_aa = _make_aa("bicubic", False)
_upsample_lanczos2d_aa = _make_aa("lanczos", False)


for _spec in (_upsample_nearest3d, _upsample_nearest_exact1d, _upsample_nearest_exact2d,
              _upsample_nearest_exact3d, _upsample_trilinear3d, _upsample_bicubic2d,
              _upsample_bilinear2d_aa, _upsample_bicubic2d_aa, _upsample_lanczos2d_aa,
              _upsample_nearest3d_backward, _upsample_nearest_exact1d_backward,
              _upsample_nearest_exact2d_backward, _upsample_nearest_exact3d_backward,
              _upsample_trilinear3d_backward, _upsample_bicubic2d_backward):
    _spec.jvp(AUTO_LINEAR)
