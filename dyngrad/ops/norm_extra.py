"""Norm helpers torch exposes at the top level: ``native_layer_norm`` (torch's argument order,
three outputs, ``NativeLayerNormBackward0``), ``norm_except_dim`` (weight norm's per-slice
norm, composed of views and a norm as torch composes it) and ``native_norm`` (a sparse-only
kernel in torch: on strided CPU tensors it raises torch's dispatcher error).

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


_NATIVE_NORM_SIGNATURES = (
    "native_norm() received an invalid combination of arguments - got {got}, but expected one "
    "of:\n * (Tensor input, Number p = 2)\n * (Tensor input, Number p, tuple of ints dim, bool "
    "keepdim, torch.dtype dtype)\n")


def native_norm(*args, **kwargs):
    """torch's ``native_norm(input, p=2)`` / ``native_norm(input, p, dim, keepdim, dtype)``:
    implemented in torch for sparse tensors only, so on dyngrad's (strided) tensors it raises
    torch's NotImplementedError, after torch's argument checks."""
    from ._schema_args import _type_name, parse
    from .batch_norm_stats import no_cpu_kernel
    names = ("input", "p", "dim", "keepdim", "dtype")
    given = len(args) + sum(1 for k in kwargs if k in names)
    if (given == 0 or len(args) > 2) and given != 5:
        got = ", ".join(_type_name(a) for a in args)
        raise TypeError(_NATIVE_NORM_SIGNATURES.format(got=f"({got})"))
    if given != 5:
        parse("native_norm", (("input", "Tensor"), ("p", "Number", 2)), args, kwargs)
        raise no_cpu_kernel("aten::native_norm", "SparseCPU, ")
    parse("native_norm", (("input", "Tensor"), ("p", "Number?"), ("dim", "int[]"),
                          ("keepdim", "bool"), ("dtype", "dtype?")), args, kwargs)
    raise no_cpu_kernel("aten::native_norm.ScalarOpt_dim_dtype", "SparseCPU, ")


FUNCTIONS["native_layer_norm"] = native_layer_norm
FUNCTIONS["native_norm"] = native_norm
FUNCTIONS["norm_except_dim"] = norm_except_dim
