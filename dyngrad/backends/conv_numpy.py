"""NumPy kernels of the convolution family (forward, input gradient, weight gradient).

Note [Convolution as one BLAS call]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An N-d convolution is a matrix product between the kernel and the input's patches. The patches
are a strided *view* (``sliding_window_view`` over the padded input, sliced by stride and
dilation), copied once into a contiguous ``(N, C*K, O)`` matrix (im2col) with the output
positions innermost, so the copy reads long runs; one ``matmul`` of the ``(groups, Co/g, C/g*K)``
weight against it gives the output directly in NCHW order (groups ride along as a batch dim: no
loop over groups). The weight gradient is the same patches against the output gradient, summed
over the batch. The input gradient (and so the transposed convolution) multiplies the weight's
transpose with the output gradient, giving the gradient of every patch, and adds the patches
back into place (col2im): one strided add per kernel offset, never a loop over pixels or
channels.
"""
from __future__ import annotations

import numpy as np

from .numpy_backend import LOW

_window = np.lib.stride_tricks.sliding_window_view


def _pad(x, pad_lo, pad_hi):
    """Zero-pad (or crop, for negative amounts) the spatial dims of (N, C, *spatial)."""
    if any(p < 0 for p in pad_lo + pad_hi):
        index = [slice(None), slice(None)]
        for lo, hi, n in zip(pad_lo, pad_hi, x.shape[2:]):
            index.append(slice(max(-lo, 0), n - max(-hi, 0)))
        x = x[tuple(index)]
        pad_lo = tuple(max(p, 0) for p in pad_lo)
        pad_hi = tuple(max(p, 0) for p in pad_hi)
    if any(pad_lo) or any(pad_hi):              # np.zeros + one slice copy: ~3x np.pad's speed
        shape = x.shape[:2] + tuple(n + lo + hi for n, lo, hi in zip(x.shape[2:], pad_lo, pad_hi))
        buf = np.zeros(shape, x.dtype)
        buf[(slice(None), slice(None)) + tuple(slice(lo, lo + n) for lo, n in
                                               zip(pad_lo, x.shape[2:]))] = x
        x = buf
    return x


def _patches(x, kernel, stride, dilation, out):
    """The (N, C, *out, *kernel) view of `x`'s patches (x already padded)."""
    nd = len(kernel)
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    win = _window(x, extent, axis=tuple(range(2, 2 + nd)))
    index = (slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1, s) if o else slice(0, 0)
                                              for o, s in zip(out, stride))
    index += tuple(slice(None, None, d) for d in dilation)
    return win[index]


def _im2col(x, kernel, stride, dilation, out):
    """The patches of padded `x` as one contiguous (N, C * prod(kernel), prod(out)) array.

    The copy keeps the output positions innermost, so it reads the input in long runs."""
    nd = len(kernel)
    win = _patches(x, kernel, stride, dilation, out)
    order = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    n, c = x.shape[:2]
    return np.ascontiguousarray(win.transpose(order)).reshape(n, c * _prod(kernel), _prod(out))


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def output_size(in_size, kernel, stride, pad_lo, pad_hi, dilation):
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1
                 for n, k, s, lo, hi, d in zip(in_size, kernel, stride, pad_lo, pad_hi, dilation))


def _as_float(*arrays):
    """float16 computes in float32, as torch's CPU kernels accumulate half in float."""
    low = arrays[0].dtype
    if low in LOW:   # (bfloat16 too)
        return tuple(a.astype(np.float32) for a in arrays), low
    return arrays, None


def channels_last_if(res, channels_last):
    """`res` (N, Co, *out), contiguous or channels_last (N, *out, Co in memory; for 2-d and
    3-d convolutions, channels_last and channels_last_3d)."""
    if channels_last and res.ndim in (4, 5):
        last = (0,) + tuple(range(2, res.ndim)) + (1,)
        back = (0, res.ndim - 1) + tuple(range(1, res.ndim - 1))
        return np.ascontiguousarray(res.transpose(last)).transpose(back)
    return res


def conv_forward(x, w, stride, pad_lo, pad_hi, dilation, groups, channels_last=False):
    """Cross-correlation of x (N, C, *S) with w (Co, C/groups, *K); result (N, Co, *out)."""
    (x, w), half = _as_float(x, w)
    kernel = w.shape[2:]
    xp_ = _pad(x, tuple(pad_lo), tuple(pad_hi))
    out = output_size(xp_.shape[2:], kernel, stride, (0,) * len(kernel), (0,) * len(kernel),
                      dilation)
    n, co = x.shape[0], w.shape[0]
    dtype = np.result_type(x, w)
    if 0 in out or n == 0 or co == 0 or x.shape[1] == 0:
        res = np.zeros((n, co) + tuple(out), dtype)
    else:
        cols = _im2col(xp_, kernel, stride, dilation, out)            # (N, C*K, O)
        cols = cols.reshape(n, groups, cols.shape[1] // groups, cols.shape[2])
        wm = w.reshape(groups, co // groups, -1)                       # (g, Co/g, C/g*K)
        res = np.matmul(wm, cols).reshape((n, co) + tuple(out))       # one BLAS call per image
    res = channels_last_if(res, channels_last)
    return res.astype(half) if half else res


def conv_input_grad(g, w, in_size, stride, padding, dilation, groups, channels_last=False):
    """The adjoint of ``conv_forward`` in its input: g (N, Co, *out) -> (N, C, *in_size).

    The gradient of the patches (one matmul) is added back into place (col2im): one strided
    add per kernel offset. With stride 1 it is instead a convolution of the output gradient
    with the flipped, transposed kernel (one im2col and one matmul: about twice as fast)."""
    if all(st == 1 for st in stride) and g.ndim > 2:
        return _input_grad_stride1(g, w, in_size, padding, dilation, groups, channels_last)
    (g, w), half = _as_float(g, w)
    kernel, out = w.shape[2:], g.shape[2:]
    n, co = g.shape[:2]
    c = w.shape[1] * groups
    padded = tuple(i + 2 * p for i, p in zip(in_size, padding))
    buf = np.zeros((n, c) + padded, np.result_type(g, w))
    if n and c and co and 0 not in out:
        wm = w.reshape(groups, co // groups, -1).swapaxes(1, 2)         # (g, C/g*K, Co/g)
        cols = np.matmul(wm, g.reshape(n, groups, co // groups, -1))   # (N, g, C/g*K, O)
        cols = cols.reshape((n, c) + tuple(kernel) + tuple(out))
        for offset in np.ndindex(*kernel):
            index = (slice(None), slice(None)) + tuple(
                slice(k * d, k * d + (o - 1) * s + 1, s)
                for k, d, o, s in zip(offset, dilation, out, stride))
            buf[index] += cols[(slice(None), slice(None)) + offset]
    res = buf[(slice(None), slice(None)) + tuple(slice(p, p + i) for p, i in
                                                 zip(padding, in_size))]
    res = channels_last_if(np.ascontiguousarray(res), channels_last)
    return res.astype(half) if half else res


def _input_grad_stride1(g, w, in_size, padding, dilation, groups, channels_last):
    """dx[i] = sum_{o,k} w[o, c, k] g[i + p - k*d]: a cross-correlation of g, padded by
    d*(K-1) - p below (so that out-of-range positions read zeros), with w flipped along every
    spatial dim and with in/out channels swapped within each group."""
    co, cg = w.shape[:2]
    kernel = w.shape[2:]
    nd = len(kernel)
    wt = w.reshape((groups, co // groups, cg) + kernel).swapaxes(1, 2)
    wt = wt.reshape((cg * groups, co // groups) + kernel)[(slice(None), slice(None))
                                                         + (slice(None, None, -1),) * nd]
    lo = tuple(d * (k - 1) - p for k, d, p in zip(kernel, dilation, padding))
    hi = tuple(i - o - l + d * (k - 1) for i, o, l, k, d in
               zip(in_size, g.shape[2:], lo, kernel, dilation))
    return conv_forward(g, np.ascontiguousarray(wt), (1,) * nd, lo, hi, dilation, groups,
                        channels_last)


def conv_weight_grad(x, g, kernel, stride, padding, dilation, groups):
    """The adjoint of ``conv_forward`` in its weight: -> (Co, C/groups, *kernel)."""
    (x, g), half = _as_float(x, g)
    out = g.shape[2:]
    n, co, c = g.shape[0], g.shape[1], x.shape[1]
    cg = c // groups
    if 0 in out or n == 0 or co == 0 or c == 0:
        res = np.zeros((co, cg) + tuple(kernel), np.result_type(x, g))
    else:
        cols = _im2col(_pad(x, tuple(padding), tuple(padding)), kernel, stride, dilation, out)
        cols = cols.reshape(n, groups, cols.shape[1] // groups, cols.shape[2])
        gm = g.reshape(n, groups, co // groups, -1)                     # (N, g, Co/g, O)
        res = np.matmul(gm, cols.swapaxes(2, 3)).sum(axis=0)            # (g, Co/g, C/g*K)
        res = res.reshape((co, cg) + tuple(kernel))
    return res.astype(half) if half else res
