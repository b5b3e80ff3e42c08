"""Power-average pooling (``torch.nn.functional.lp_pool1d/2d/3d``).

The LP pools are composites in torch, so their graphs hold the nodes of what they call: for a
finite p, ``avg_poolNd(x ** p)`` (no padding) ``= out``, then
``(sign(out) * relu(abs(out))) * prod(kernel_size)`` raised to ``1 / p`` (PowBackward0 over
MulBackward0 over MulBackward0 over SignBackward0 and ReluBackward0 / AbsBackward0, both over
the one AvgPool node). ``p = inf`` is ``max_poolNd(abs(x))`` and ``p = -inf`` is
``-max_poolNd(-abs(x))``.
"""
from __future__ import annotations

from ._registry import FUNCTIONS
from .pooling import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from .pooling3d import avg_pool3d, max_pool3d

_INF = float("inf")


def _lp_pool(max_pool, avg_pool, input, norm_type, kernel_size, stride, ceil_mode, window):
    if isinstance(norm_type, (int, float)):
        if norm_type == _INF:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -_INF:
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(window).pow(1.0 / norm_type)


def _unpack(kernel_size, n):
    """torch's ``_pair`` / ``_triple`` then tuple unpacking (a wrong length raises Python's
    ValueError, as in torch)."""
    sizes = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * n
    if len(sizes) != n:
        kind = "not enough" if len(sizes) < n else "too many"
        extra = f", got {len(sizes)})" if len(sizes) < n else ")"
        raise ValueError(f"{kind} values to unpack (expected {n}{extra}")
    out = 1
    for v in sizes:
        out *= v
    return out


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-d power-average pooling: (sum over each window of x ** p) ** (1 / p)."""
    return _lp_pool(max_pool1d, avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode,
                    kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling: (sum over each window of x ** p) ** (1 / p)."""
    window = _unpack(kernel_size, 2)
    return _lp_pool(max_pool2d, avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode,
                    window)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling: (sum over each window of x ** p) ** (1 / p)."""
    window = _unpack(kernel_size, 3)
    return _lp_pool(max_pool3d, avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode,
                    window)


FUNCTIONS.update({
    "nn.functional.lp_pool1d": lp_pool1d,
    "nn.functional.lp_pool2d": lp_pool2d,
    "nn.functional.lp_pool3d": lp_pool3d,
})
