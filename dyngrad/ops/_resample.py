"""Shared machinery of the resampling ops (upsample.py, upsample_modes.py): argument checks,
output layouts and the per-dim tap tables of ATen's CPU kernels.

Note [Resampling as taps per dim]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every interpolation mode is separable: along each spatial dim, output position ``i`` is
``sum_k w[k, i] * x[idx[k, i]]`` for a small table of taps (1 for nearest, 2 linear, 4 cubic,
a filter window for antialiasing). The forward gathers dim by dim, the last dim first, which is
the order of ATen's nested loops; the gradient is the adjoint, dim by dim in the reverse order:
a gather again, with the transposed table (for each input, the outputs that read it, in output
order, as ATen's backward loops accumulate them). Gathers are a few whole-array ``take``s, so
the cost is (taps per dim) passes over the data, whatever the scale. The tables reproduce
ATen's arithmetic (float for float/half inputs, double for double), so values agree with torch
to rounding.

uint8 inputs of bilinear, bicubic and antialiased modes take ATen's separable fixed-point path
instead: weights scaled to int16 with as many fraction bits as fit, sums rounded and clamped to
0..255 after each dim (``gather_uint8``), a dim whose size does not change left alone.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from ..backends import pool_numpy as P
from ._geometry import _memory_formats, memory_format_strides
from .creation import copy_with_strides, suggest_memory_format


# ---------------------------------------------------------------------------------------------
# layouts and checks
# ---------------------------------------------------------------------------------------------
def strides_of(arr):
    return tuple(s // arr.itemsize for s in arr.strides)


def layout(out, like):
    """``out`` laid out as torch lays out a resampling of ``like`` (channels_last(_3d) stays)."""
    fmt = suggest_memory_format(like.shape, strides_of(like))
    return copy_with_strides(out, out.dtype, memory_format_strides(out.shape, fmt))


def contiguous(xp, out):
    return xp.ascontiguousarray(out)


def is_channels_last(arr):
    """Whether torch suggests channels_last(_3d) for this array's strides."""
    contiguous_format = _memory_formats()[0]
    return suggest_memory_format(arr.shape, strides_of(arr)) is not contiguous_format


def not_implemented(name, np_dtype):
    return NotImplementedError(f"\"{name}\" not implemented for "
                               f"'{D.from_np(np_dtype)._legacy}'")


def check_dtype(name, arr, uint8=True):
    """torch's CPU kernels take floating types and (most) uint8; the names are the kernels'."""
    if arr.dtype.kind not in "fV" and not (uint8 and arr.dtype == P.UINT8):
        raise not_implemented(name, arr.dtype)


_DIM_NAMES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def check_sizes(in_sizes, out_sizes, full_shape, n):
    """ATen's upsample_{1,2,3}d_common_check, then the non-empty check of the meta functions."""
    if len(out_sizes) != n:
        raise RuntimeError(f"It is expected output_size equals to {n}, but got size "
                           f"{len(out_sizes)}")
    if len(full_shape) != n + 2:
        raise RuntimeError(f"It is expected input_size equals to {n + 2}, but got size "
                           f"{len(full_shape)}")
    if not (all(s > 0 for s in in_sizes) and all(s > 0 for s in out_sizes)):
        names = _DIM_NAMES[n]
        ins = ", ".join(f"{k}: {s}" for k, s in zip(names, in_sizes))
        outs = ", ".join(f"{k}: {s}" for k, s in zip(names, out_sizes))
        sep = " and" if n == 1 else ""
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({ins}){sep} output ({outs})")
    if math.prod(full_shape) == 0 and math.prod(full_shape[1:]) == 0:
        raise RuntimeError(f"Non-empty {n + 2}D data tensor expected but got a tensor with "
                           f"sizes {list(full_shape)}")


# ---------------------------------------------------------------------------------------------
# tap tables: (idx, w[, valid]): idx (K, out) int64, w (K, out) weights or None (nearest)
# ---------------------------------------------------------------------------------------------
def _scale(in_size, out_size, align_corners, scale, t):
    """ATen's area_pixel_compute_scale in the weights' type ``t``."""
    if align_corners:
        return t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(in_size) / t(out_size)


def nearest_taps(xp, in_size, out_size, scale, shortcut=True):
    """ATen's nearest_idx: floorf(dst * s) in float. With ``shortcut`` an output of the input's
    size (or twice it) reads the obvious positions whatever the scale, as ATen's nearest_idx
    does; the 1-d and 3-d forward kernels (compute_indices_weights_nearest) do not."""
    if shortcut:
        return P.nearest_index(in_size, out_size, scale)[None], None
    s = xp.float32(1.0 / scale) if scale is not None and scale > 0 \
        else xp.float32(in_size) / xp.float32(out_size)
    src = xp.floor(xp.arange(out_size).astype(xp.float32) * s).astype(xp.int64)
    return xp.minimum(src, in_size - 1)[None], None


def nearest_exact_taps(xp, in_size, out_size, scale):
    """ATen's nearest_exact_idx: floorf((dst + 0.5) * s), the product in double, s a float."""
    s = float(xp.float32(1.0 / scale) if scale is not None and scale > 0
              else xp.float32(in_size) / xp.float32(out_size))
    src = ((xp.arange(out_size) + 0.5) * s).astype(xp.float32)
    index = xp.minimum(xp.floor(src).astype(xp.int64), in_size - 1)
    return index[None], None


def linear_taps(xp, in_size, out_size, align_corners, scale, t):
    """ATen's linear interpolation; a dim whose size does not change is copied whatever the
    scale (compute_source_index_and_lambda)."""
    if in_size == out_size:
        same = xp.arange(out_size)
        return xp.stack([same, same]), xp.stack([xp.ones(out_size, t), xp.zeros(out_size, t)])
    i0, i1, w0, w1 = P.linear_weights(in_size, out_size, align_corners, scale, t)
    return xp.stack([i0, i1]), xp.stack([w0, w1])


CUBIC_A = -0.75   # ATen's cubic convolution coefficient (antialiasing uses Keys' -0.5)


def _cubic1(x, a):
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic2(x, a):
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_taps(xp, in_size, out_size, align_corners, scale, t):
    """ATen's bicubic: 4 taps around floor(src), indices clamped to the border, the fraction
    clamped to [0, 1] (guard_index_and_lambda)."""
    s = _scale(in_size, out_size, align_corners, scale, t)
    dst = xp.arange(out_size).astype(t)
    src = s * dst if align_corners else s * (dst + t(0.5)) - t(0.5)
    i0 = xp.minimum(xp.floor(src).astype(xp.int64), in_size - 1)
    lam = xp.clip(src - i0.astype(t), t(0), t(1)).astype(t)
    a, one = t(CUBIC_A), t(1)
    w = xp.stack([_cubic2(lam + one, a), _cubic1(lam, a), _cubic1(one - lam, a),
                  _cubic2((one - lam) + one, a)]).astype(t)
    idx = xp.stack([xp.clip(i0 + (k - 1), 0, in_size - 1) for k in range(4)])
    return idx, w


def collapse_border_taps(xp, idx, w):
    """Taps that read the same (border-clamped) position merged into the first of them, as
    ATen's uint8 tables hold them (the sum of the weights is what gets rounded to int16)."""
    merged = []
    for k in range(idx.shape[0]):
        first = xp.ones(idx.shape[1], bool)
        for j in range(k):
            first &= idx[j] != idx[k]
        total = w[k] * 0
        for j in range(idx.shape[0]):
            total = total + xp.where(idx[j] == idx[k], w[j], 0)
        merged.append(xp.where(first, total, 0))
    return idx, xp.stack(merged).astype(w.dtype)


# antialiasing filters (as in Pillow): name -> (interp_size, filter on |x| arrays of type t)
def _aa_bilinear(xp, x, t):
    x = xp.abs(x)
    return xp.where(x < 1, t(1) - x, t(0)).astype(t)


def _aa_bicubic(xp, x, t, a=-0.5):
    x = xp.abs(x)
    a = t(a)
    near = ((a + t(2)) * x - (a + t(3))) * x * x + t(1)
    far = (((x - t(5)) * x + t(8)) * x - t(4)) * a
    return xp.where(x < 1, near, xp.where(x < 2, far, t(0))).astype(t)


def _sinc(xp, x):
    px = x * math.pi
    return xp.where(x == 0, 1.0, xp.sin(px) / xp.where(x == 0, 1.0, px))


def _aa_lanczos(xp, x, t):
    x64 = x.astype(xp.float64)
    val = _sinc(xp, x64) * _sinc(xp, x64 / 3)
    return xp.where((x64 >= -3.0) & (x64 < 3.0), val, 0.0).astype(t)


AA_FILTERS = {"bilinear": (2, _aa_bilinear), "bicubic": (4, _aa_bicubic),
              "lanczos": (6, _aa_lanczos)}


def aa_taps(xp, in_size, out_size, align_corners, scale, t, mode):
    """ATen's _compute_indices_min_size_weights_aa: a window of the filter, widened by the
    scale when downsampling, cut at the borders and normalised to sum 1. Returns ``(idx, w,
    valid)``: the window of output ``i`` is its ``valid`` taps (the others weigh 0)."""
    interp_size, filt = AA_FILTERS[mode]
    s = _scale(in_size, out_size, align_corners, scale, t)
    wide = s >= 1.0
    support = t(interp_size * 0.5) * s if wide else t(interp_size * 0.5)
    max_size = int(math.ceil(support)) * 2 + 1
    invscale = t(1.0) / s if wide else t(1.0)
    center = (s * (xp.arange(out_size) + 0.5)).astype(t)
    c64, sup = center.astype(xp.float64), float(support)
    xmin = xp.maximum((c64 - sup + 0.5).astype(xp.int64), 0)
    xsize = xp.minimum((c64 + sup + 0.5).astype(xp.int64), in_size) - xmin
    xsize = xp.clip(xsize, 0, max_size)
    j = xp.arange(max_size)[:, None]
    arg = (((j + xmin[None, :]) - c64[None, :]) + 0.5) * float(invscale)
    w = filt(xp, arg.astype(t), t)
    w = xp.where(j < xsize[None, :], w, t(0)).astype(t)
    total = xp.zeros(out_size, t)
    for k in range(max_size):   # ATen's running sum, in the weights' type
        total = (total + w[k]).astype(t)
    w = xp.where(total != 0, w / xp.where(total != 0, total, t(1)), w).astype(t)
    idx = xp.minimum(xmin[None, :] + j, in_size - 1)
    return idx, w, xp.broadcast_to(j < xsize[None, :], idx.shape)


# ---------------------------------------------------------------------------------------------
# applying tables
# ---------------------------------------------------------------------------------------------
def _along(w, ndim, axis):
    shape = [1] * ndim
    shape[axis] = w.shape[0]
    return w.reshape(shape)


def gather(xp, x, axis, idx, w, valid=None):
    """``out[..., i, ...] = sum_k w[k, i] * x[..., idx[k, i], ...]`` along ``axis``; taps
    outside a filter's window (``valid`` False) are skipped, so a NaN there does not spread."""
    out = None
    for k in range(idx.shape[0]):
        term = xp.take(x, idx[k], axis=axis)
        if w is not None:
            term = term * _along(w[k], x.ndim, axis)
        if valid is not None and not valid[k].all():
            term = xp.where(_along(valid[k], x.ndim, axis), term, 0).astype(term.dtype)
        out = term if out is None else out + term
    return out


def transpose_taps(xp, idx, w, valid, size):
    """The adjoint table: for each of the ``size`` inputs, the outputs that read it (in output
    order) and their weights; ``valid`` marks the real entries of the padded table."""
    count, n = idx.shape
    keep = xp.ones(idx.shape, bool) if valid is None else valid
    target = idx[keep]
    source = xp.broadcast_to(xp.arange(n), (count, n))[keep]
    order = xp.lexsort((source, target))
    target, source = target[order], source[order]
    hits = xp.bincount(target, minlength=size)
    rank = xp.arange(target.shape[0]) - (xp.cumsum(hits) - hits)[target]
    width = int(hits.max()) if hits.shape[0] else 0
    idx_t = xp.zeros((width, size), xp.int64)
    valid_t = xp.zeros((width, size), bool)
    idx_t[rank, target] = source
    valid_t[rank, target] = True
    w_t = None
    if w is not None:
        w_t = xp.zeros((width, size), w.dtype)
        w_t[rank, target] = w[keep][order]
    return idx_t, w_t, valid_t


def scatter(xp, g, axis, idx, w, size, valid=None):
    """The adjoint of ``gather``: an input of ``size`` along ``axis``, itself a gather with
    the transposed table (each input sums the outputs that read it, in output order)."""
    idx_t, w_t, valid_t = transpose_taps(xp, idx, w, valid, size)
    if idx_t.shape[0] == 0:
        shape = list(g.shape)
        shape[axis] = size
        return xp.zeros(shape, g.dtype)
    return gather(xp, g, axis, idx_t, w_t, valid_t).astype(g.dtype, copy=False)


def _precision(xp, w):
    """The int16 fixed-point fraction bits ATen gives a weight table (at most 22)."""
    top = float(xp.max(w))
    bits = 0
    while bits < 22 and 0.5 + top * (1 << (bits + 1)) < (1 << 15):
        bits += 1
    return bits


def gather_uint8(xp, x, axis, idx, w, valid=None):
    """``gather`` in ATen's uint8 fixed point: int16 weights, rounded, clamped to 0..255
    (``valid`` is not needed: taps outside a window weigh 0 and integers hold no NaN)."""
    bits = _precision(xp, w)
    wq = xp.trunc(w * float(1 << bits) + xp.sign(w) * 0.5).astype(xp.int64)
    acc = None
    for k in range(idx.shape[0]):
        term = xp.take(x, idx[k], axis=axis).astype(xp.int64) * _along(wq[k], x.ndim, axis)
        acc = term if acc is None else acc + term
    acc = (acc + (1 << (bits - 1))) >> bits
    return xp.clip(acc, 0, 255).astype(xp.uint8)
