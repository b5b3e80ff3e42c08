"""NumPy kernels of the pooling and resampling ops (dyngrad/ops/pooling.py, upsample.py).

Note [Pooling windows as index tables]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every 2-d pool reads, for output (i, j), the input rows ``rows[i, :]`` and columns
``cols[j, :]`` where ``valid`` says so: a window is separable into one index table per spatial
dim. Regular pools (kernel, stride, padding, dilation) have ``rows[i, l] = i*s - p + l*d``;
adaptive pools have ``start(i) + l`` with a shorter valid prefix for narrower windows.

Regular pools never copy windows: the input, padded with the reduction's identity (the
dtype's lowest value for max, 0 for sums) only when padding or ceil_mode needs it, is viewed as
(N, C, oh, ow, kh, kw) with strides, and the reduction is one vectorised pass per kernel offset
(kh * kw passes over the output, never a loop over pixels or channels); the gradient of a sum
is the same loop of strided adds. Adaptive pools gather all windows with the two tables and
reduce over the last two axes, masking invalid positions with ``where`` (never multiplying by 0,
which would turn a NaN elsewhere into NaN here); their gradients are scatter-adds, one dim at a
time. A max pool's gradient scatters to the saved indices, with a plain assignment when
windows cannot overlap.
"""
from __future__ import annotations

import numpy as np


def regular_table(size, out, k, s, p, d):
    """(index, valid) tables (out, k) of a strided, padded, dilated window along one dim."""
    idx = np.arange(out)[:, None] * s - p + np.arange(k)[None, :] * d
    valid = (idx >= 0) & (idx < size)
    return np.clip(idx, 0, max(size - 1, 0)), valid


def adaptive_table(size, out):
    """(index, valid) tables of torch's adaptive windows [floor(i*n/o), ceil((i+1)*n/o))."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    length = int((end - start).max()) if out else 1
    idx = start[:, None] + np.arange(length)[None, :]
    valid = idx < end[:, None]
    return np.clip(idx, 0, size - 1), valid


def windows(x, rows, cols):
    """All windows of batched ``x`` (N, C, H, W): (N, C, oh, ow, Lh, Lw)."""
    win = x[:, :, rows[:, :, None, None], cols[None, None, :, :]]   # N, C, oh, Lh, ow, Lw
    return win.transpose(0, 1, 2, 4, 3, 5)


def _mask(vr, vc):
    return vr[:, None, :, None] & vc[None, :, None, :]               # oh, ow, Lh, Lw


def _fill(dtype):
    return -np.inf if dtype.kind in "fV" else np.iinfo(dtype).min


def _argmax_windows(win, mask, rows, cols, w):
    """Values and flat input indices of the maxima of ``win`` (N, C, oh, ow, Lh, Lw), whose
    invalid positions hold the dtype's lowest value, as ATen picks them: the first maximum,
    the last NaN, and the first valid position when all are the lowest."""
    n, c, oh, ow, lh, lw = win.shape
    k = lh * lw
    fill = _fill(win.dtype)
    flat = win.reshape(n, c, oh, ow, k)
    pos = np.argmax(flat, axis=-1)
    top = np.take_along_axis(flat, pos[..., None], -1)[..., 0]
    low = top == fill
    if low.any():
        first_valid = np.argmax(mask.reshape(oh, ow, k), axis=-1)
        pos = np.where(low, first_valid, pos)
    if win.dtype.kind in "fV":
        has_nan = np.isnan(top)
        if has_nan.any():
            last_nan = k - 1 - np.argmax(np.isnan(flat)[..., ::-1], axis=-1)
            pos = np.where(has_nan, last_nan, pos)
    li, lj = pos // lw, pos % lw
    hi = rows[np.arange(oh)[:, None], li]
    wi = cols[np.arange(ow)[None, :], lj]
    return top, (hi * w + wi).astype(np.int64)


def window_max(x, rows, vr, cols, vc):
    """Max pooling over index-table windows (adaptive pools): (values, flat indices)."""
    mask = _mask(vr, vc)
    win = np.where(mask, windows(x, rows, cols), np.asarray(_fill(x.dtype), x.dtype))
    return _argmax_windows(win, mask, rows, cols, x.shape[3])


def regular_windows(x, k, s, p, d, oh, ow, fill):
    """Strided view (N, C, oh, ow, kh, kw) of ``x`` padded with ``fill`` (no copy when no
    padding is needed)."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d
    hp = max(h + ph, (oh - 1) * sh + (kh - 1) * dh + 1) + ph
    wp = max(w + pw, (ow - 1) * sw + (kw - 1) * dw + 1) + pw
    if (hp, wp) == (h, w):
        base = x
    else:
        base = np.full((n, c, hp, wp), fill, x.dtype)
        base[:, :, ph:ph + h, pw:pw + w] = x
    st = base.strides
    return np.lib.stride_tricks.as_strided(
        base, (n, c, oh, ow, kh, kw),
        (st[0], st[1], sh * st[2], sw * st[3], dh * st[2], dw * st[3]), writeable=False)


def regular_max(x, k, s, p, d, tables):
    """Max pooling with a regular window: (values, flat indices), ATen's choice of index (see
    ``_argmax_windows``). Values are a running ``maximum`` over the kernel offsets (NaN
    propagates). The index is the first offset equal to the maximum, found with byte-sized
    masks (``np.where``/``copyto(where=)`` on random masks is several times slower); the rare
    NaN and all-lowest windows are fixed up afterwards. A regular window's flat index is
    arithmetic: the window's corner ``(i*sh - ph) * W + (j*sw - pw)`` plus the offset's
    ``li*dh*W + lj*dw`` (every chosen position is a valid one, so no table lookup is needed)."""
    rows, vr, cols, vc = tables
    oh, ow = rows.shape[0], cols.shape[0]
    w = x.shape[3]
    fill = _fill(x.dtype)
    win = regular_windows(x, k, s, p, d, oh, ow, fill)
    kh, kw = k
    offsets = [(i, j) for i in range(kh) for j in range(kw)]
    best = np.array(win[:, :, :, :, 0, 0])
    for i, j in offsets[1:]:
        np.maximum(best, win[:, :, :, :, i, j], out=best)
    small = np.uint8 if len(offsets) < 256 else np.int32
    pos = np.zeros(best.shape, small)
    found = win[:, :, :, :, 0, 0] == best
    for l, (i, j) in enumerate(offsets[1:], 1):
        first = win[:, :, :, :, i, j] == best
        first &= ~found
        found |= first
        pos += first.view(np.uint8).astype(small, copy=False) * small(l)
    low = best == fill
    if low.any():
        first_valid = np.argmax(_mask(vr, vc).reshape(oh, ow, kh * kw), axis=-1)
        pos = np.where(low, first_valid, pos).astype(small)
    if x.dtype.kind in "fV":
        nan = np.isnan(best)
        if nan.any():
            for l, (i, j) in enumerate(offsets):
                np.copyto(pos, l, where=nan & np.isnan(win[:, :, :, :, i, j]))
    (sh, sw), (ph, pw), (dh, dw) = s, p, d
    corner = (np.arange(oh)[:, None] * sh - ph) * w + (np.arange(ow)[None, :] * sw - pw)
    step = np.array([i * dh * w + j * dw for i, j in offsets], np.int64)
    index = step.take(pos)
    index += corner
    return best, index


def regular_sum(x, k, s, p, d, oh, ow):
    """Window sums of a regular pool (zero padding): one strided add per kernel offset."""
    win = regular_windows(x, k, s, p, d, oh, ow, 0)
    total = np.zeros(win.shape[:4], x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            total += win[:, :, :, :, i, j]
    return total


def window_sum(x, rows, vr, cols, vc):
    win = windows(x, rows, cols)
    return np.where(_mask(vr, vc), win, np.zeros((), x.dtype)).sum(axis=(-2, -1), dtype=x.dtype)


def _scatter_1d(g, axis, rows, valid, size):
    """Adjoint of reading windows ``rows`` (o, L) along ``axis``: each output's gradient added
    to every valid position of its window. One pass per window offset; positions of one offset
    are distinct when the window starts are (else ``add.at``), invalid ones go to a spare slot."""
    shape = list(g.shape)
    shape[axis] = size + 1
    out = np.zeros(shape, g.dtype)
    starts = rows[:, 0]
    distinct = bool(np.all(starts[1:] > starts[:-1]))
    for l in range(rows.shape[1]):
        idx = np.where(valid[:, l], rows[:, l], size)
        key = [slice(None)] * g.ndim
        key[axis] = idx
        if distinct:
            out[tuple(key)] += g
        else:
            np.add.at(out, tuple(key), g)
    key = [slice(None)] * g.ndim
    key[axis] = slice(0, size)
    return out[tuple(key)]


def separable_scatter(g, rows, vr, cols, vc, h, w):
    """The adjoint of ``window_sum`` for weights that factor per dim (adaptive average)."""
    return _scatter_1d(_scatter_1d(g, 3, cols, vc, w), 2, rows, vr, h)


def index_scatter(g, indices, h, w, unique=False):
    """Gradient of a max pool: ``g`` added at each output's flat input index (N, C, H, W).
    ``unique``: no two windows overlap, so a plain fancy assignment is an exact scatter."""
    n, c = g.shape[:2]
    out = np.zeros((n * c, h * w), g.dtype)
    planes = np.arange(n * c)[:, None]
    k = g.shape[2] * g.shape[3]
    if unique:
        out[planes, indices.reshape(n * c, k)] = g.reshape(n * c, k)
    else:
        np.add.at(out, (planes, indices.reshape(n * c, k)), g.reshape(n * c, k))
    return out.reshape(n, c, h, w)


def regular_scatter(g, k, s, p, d, h, w):
    """The adjoint of a regular window sum: one strided add per kernel offset (kh * kw adds,
    no loop over pixels)."""
    n, c, oh, ow = g.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d
    hp = max(h + 2 * ph, (oh - 1) * sh + (kh - 1) * dh + 1)
    wp = max(w + 2 * pw, (ow - 1) * sw + (kw - 1) * dw + 1)
    out = np.zeros((n, c, hp, wp), g.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                j * dw:j * dw + sw * (ow - 1) + 1:sw] += g
    return out[:, :, ph:ph + h, pw:pw + w]


def index_gather(x, indices):
    """x (N, C, H, W) read at flat plane indices (N, C, oh, ow): the max pool's double
    backward."""
    n, c = x.shape[:2]
    flat = x.reshape(n, c, x.shape[2] * x.shape[3])
    k = indices.shape[2] * indices.shape[3]
    return np.take_along_axis(flat, indices.reshape(n, c, k), -1).reshape(indices.shape)


def contiguous(arr):
    return np.ascontiguousarray(arr)


# -- resampling (dyngrad/ops/upsample.py) ------------------------------------------------------
UINT8 = np.dtype(np.uint8)


def opmath(np_dtype):
    """The dtype ATen computes resampling weights in: float for half and float, else double."""
    return np.float64 if np_dtype == np.float64 else np.float32


def nearest_index(in_size, out_size, scale):
    """ATen's nearest_idx: src = min(floor(dst * s), in - 1) in float arithmetic."""
    dst = np.arange(out_size)
    if out_size == in_size:
        return dst
    if out_size == 2 * in_size:
        return dst >> 1
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 \
        else np.float32(in_size) / np.float32(out_size)
    src = np.floor(dst.astype(np.float32) * s).astype(np.int64)
    return np.minimum(src, in_size - 1)


def linear_weights(in_size, out_size, align_corners, scale, np_dtype):
    """(i0, i1, w0, w1) of ATen's linear interpolation along one dim."""
    t = opmath(np_dtype)
    if align_corners:
        s = t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    elif scale is not None and scale > 0:
        s = t(1.0 / scale)
    else:
        s = t(in_size) / t(out_size)
    dst = np.arange(out_size).astype(t)
    if align_corners:
        src = s * dst
    else:
        src = np.maximum(s * (dst + t(0.5)) - t(0.5), t(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    w1 = np.clip(src - i0.astype(t), t(0), t(1)).astype(t)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, t(1) - w1, w1


def _along(arr_ndim, axis, index):
    key = [slice(None)] * arr_ndim
    key[axis] = index
    return tuple(key)


def _weight(w, ndim, axis):
    shape = [1] * ndim
    shape[axis] = w.shape[0]
    return w.reshape(shape)


def linear_gather(x, axis, i0, i1, w0, w1):
    nd = x.ndim
    out = x[_along(nd, axis, i0)] * _weight(w0, nd, axis) \
        + x[_along(nd, axis, i1)] * _weight(w1, nd, axis)
    return out


def _segment_add(out, axis, index, vals):
    """``out[index] += vals`` along ``axis`` for a non-decreasing ``index`` (resampling's
    source indices). Each target reads a run of consecutive sources, so the sum is a few
    strided gathers (one per position in the longest run) instead of ``add.at``."""
    if vals.shape[axis] == 0:
        return out
    uniq, starts, counts = np.unique(index, return_index=True, return_counts=True)
    last = vals.shape[axis] - 1
    acc = None
    for r in range(int(counts.max())):
        term = np.take(vals, np.minimum(starts + r, last), axis=axis)
        short = counts <= r
        if short.any():
            term = np.where(_weight(~short, vals.ndim, axis), term, np.zeros((), vals.dtype))
        acc = term if acc is None else acc + term
    if uniq.shape[0] == out.shape[axis]:   # every target is hit: uniq is arange
        out += acc
    else:
        out[_along(out.ndim, axis, uniq)] += acc
    return out


def linear_scatter(g, axis, i0, i1, w0, w1, size):
    """The adjoint of ``linear_gather`` along ``axis`` (an input of ``size`` there)."""
    shape = list(g.shape)
    shape[axis] = size
    out = np.zeros(shape, g.dtype)
    nd = g.ndim
    out = _segment_add(out, axis, i0, (g * _weight(w0, nd, axis)).astype(g.dtype, copy=False))
    return _segment_add(out, axis, i1, (g * _weight(w1, nd, axis)).astype(g.dtype, copy=False))


def nearest_scatter(g, axis, index, size):
    shape = list(g.shape)
    shape[axis] = size
    return _segment_add(np.zeros(shape, g.dtype), axis, index, g)
