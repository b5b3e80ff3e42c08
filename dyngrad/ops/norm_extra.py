"""Norm helpers torch exposes at the top level: ``native_layer_norm`` (torch's argument order,
three outputs, ``NativeLayerNormBackward0``) and ``norm_except_dim`` (weight norm's per-slice
norm, composed of views and a norm as torch composes it).

Differences from torch: ``norm_except_dim(v, pow, -1)`` records ``LinalgVectorNormBackward0``
where torch's C++ ``at::norm`` records ``NormBackward0`` (same values and gradients).
"""
from __future__ import annotations

from .normalization import _as_shape, native_layer_norm as _native_layer_norm
from ._registry import FUNCTIONS


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(output, mean, rstd)`` of layer norm over the trailing `normalized_shape` dims; mean
    and rstd keep those dims as size 1 (torch's ``aten::native_layer_norm``)."""
    return _native_layer_norm(input, weight, bias, _as_shape(normalized_shape, "layer_norm"), eps)


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of `v` over every dim but `dim`, shaped to broadcast against `v`
    (``dim=-1``: the norm of all of `v`)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(
            [v.size(0)] + [1] * (v.dim() - 1))
    if dim == v.dim() - 1:
        return v.contiguous().view(-1, v.size(v.dim() - 1)).norm(pow, 0).view(
            [1] * (v.dim() - 1) + [v.size(v.dim() - 1)])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


FUNCTIONS["native_layer_norm"] = native_layer_norm
FUNCTIONS["norm_except_dim"] = norm_except_dim
