"""Helpers that backward formulas share, written with dyngrad ops so they are differentiable."""
from __future__ import annotations

from .._utils import shape_str
from ._registry import METHODS


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
    lead = len(gshape) - len(size)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(size, gshape[lead:])):
        raise RuntimeError(f"size {shape_str(size)} is not expandable to size "
                           f"{shape_str(gshape)}.")
    dims = list(range(lead)) + [lead + d for d, s in enumerate(size)
                                if s == 1 and gshape[lead + d] != 1]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(size)
    return grad


METHODS["sum_to_size"] = sum_to_size
