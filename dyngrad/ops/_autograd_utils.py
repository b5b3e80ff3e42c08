"""Helpers that backward formulas share, written with dyngrad ops so they are differentiable."""
from __future__ import annotations

from .._utils import shape_str
from ._registry import METHODS


def expandable(size, shape) -> bool:
    """Whether `size` broadcasts to `shape` (so a gradient of `shape` sums down to `size`)."""
    lead = len(shape) - len(size)
    return lead >= 0 and all(s == 1 or s == g for s, g in zip(size, shape[lead:]))


def sum_to_size(grad, *size):
    """Sum `grad` down to `size` (torch's Tensor.sum_to_size / at::sum_to).

    Leading dims are summed away; dims where `size` has 1 are summed with keepdim.
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(size)
    gshape = tuple(grad.shape)
    if gshape == size:
        return grad
    if not expandable(size, gshape):
        raise RuntimeError(f"size {shape_str(size)} is not expandable to size "
                           f"{shape_str(gshape)}.")
    lead = len(gshape) - len(size)
    dims = list(range(lead)) + [lead + d for d, s in enumerate(size)
                                if s == 1 and gshape[lead + d] != 1]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(size)
    return grad


METHODS["sum_to_size"] = sum_to_size
