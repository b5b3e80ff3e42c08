"""Linear layers: ``nn.functional.linear`` and ``bilinear`` (composites, as in torch) and the
primitive ``_trilinear`` (TrilinearBackward0) that ``bilinear`` reduces to.

Note [linear is a composite]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's aten::linear has no node of its own; the graph shows the path it took:
2-D input with bias -> ``addmm(bias, input, weight.t())`` (AddmmBackward0 <- TBackward0);
contiguous input with a 1-D bias -> the input flattened to a
matrix, ``addmm``, and a ``view`` back (ViewBackward0 <- AddmmBackward0); otherwise
``matmul(input, weight.t())`` followed by an in-place ``add_`` of the bias (AddBackward0).
Following the same paths gives the same node names, strides and error texts.
"""
from __future__ import annotations

from .._promotion import Promote
from . import _registry
from ._arg_parser import check_tensors
from ._registry import FUNCTIONS, METHODS, composite, defop
from ..autograd.forward_ad import MULTILINEAR


def _op(name):
    return FUNCTIONS.get(name) or METHODS[name]


def _flatten_nd_linear(input, weight, bias):
    sizes = tuple(input.shape)
    rows = 1
    for n in sizes[:-1]:
        rows *= n
    result = _op("addmm")(bias, input.reshape(rows, sizes[-1]), weight.t())
    return result.view(sizes[:-1] + (result.shape[1],))


@composite("nn.functional.linear")
def linear(input, weight, bias=None, *, out=None):
    """``input @ weight.T + bias``. See Note [linear is a composite]."""
    Tensor = _registry._Tensor
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)
            and (bias is None or isinstance(bias, Tensor))):   # (checked cheaply first)
        check_tensors("linear", ("input", input), ("weight", weight), ("bias?", bias))
    nd, weight_nd = input._data.ndim, weight._data.ndim
    if nd == 0 or weight_nd == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{nd}D and {weight_nd}D")
    if out is not None:
        return _linear_out(input, weight, bias, out)
    if bias is not None:
        if nd == 2:
            return _op("addmm")(bias, input, weight.t())
        if input.is_contiguous() and bias.ndim == 1:
            return _flatten_nd_linear(input, weight, bias)
    output = _op("matmul")(input, weight.t())
    if bias is not None:
        output.add_(bias)
    return output


def _linear_out(input, weight, bias, out):
    """linear's ``out=``, by torch's path (linear_out): addmm's for a 2-D input with a bias,
    else matmul's and an in-place add of the bias."""
    from ..autograd import grad_mode
    if grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad
                                           for t in (input, weight, bias)):
        raise RuntimeError("linear(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if input.ndim == 2 and bias is not None:
        return _op("addmm")(bias, input, weight.t(), out=out)
    _op("matmul")(input, weight.t(), out=out)
    if bias is not None:
        out.add_(bias)
    return out


# -- _trilinear and bilinear -------------------------------------------------------------------
def _letters(n):
    return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n]


@defop("_trilinear", node="TrilinearBackward0", promote=Promote.NONE,
       inputs=("i1", "i2", "i3"), variants=("function",), scalars=(),
       saves=("i1", "i2", "i3"), complex_autograd=False)
def _trilinear(xp, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """Each input, unsqueezed at its ``expand`` dims, multiplied together; the ``sumdim`` dims
    summed away. One einsum; size-1 (broadcast) dims are dropped from the contraction."""
    for other in (i2, i3):
        if other.dtype != i1.dtype:
            raise RuntimeError(f"expected scalar type {_legacy(i1)} but found {_legacy(other)}")
    if i1.dtype.kind == "b":
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    total = i1.ndim + len(expand1)
    letters = _letters(total)
    sizes = [1] * total
    operands, subscripts = [], []
    for arr, expand in ((i1, expand1), (i2, expand2), (i3, expand3)):
        dims = [d for d in range(total) if d not in expand]
        keep = [ax for ax, d in enumerate(dims) if arr.shape[ax] != 1]
        for ax in keep:
            sizes[dims[ax]] = arr.shape[ax]
        operands.append(arr.reshape([arr.shape[ax] for ax in keep]))
        subscripts.append("".join(letters[dims[ax]] for ax in keep))
    present = set("".join(subscripts))
    out_dims = [d for d in range(total) if d not in sumdim]
    out = "".join(letters[d] for d in out_dims if letters[d] in present)
    result = xp.einsum(",".join(subscripts) + "->" + out, *operands, optimize=True)
    return xp.ascontiguousarray(result.reshape([sizes[d] for d in out_dims]))


@_trilinear.backward
def _(ctx, grad):
    i1, i2, i3 = ctx.saved_tensors
    e1, e2, e3, s = ctx.expand1, ctx.expand2, ctx.expand3, ctx.sumdim
    need1, need2, need3 = ctx.needs_input_grad
    g1 = _trilinear(grad, i2, i3, s, e2, e3, e1) if need1 else None
    g2 = _trilinear(i1, grad, i3, e1, s, e3, e2) if need2 else None
    g3 = _trilinear(i1, i2, grad, e1, e2, s, e3) if need3 else None
    return g1, g2, g3


_trilinear.jvp(MULTILINEAR)


def _legacy(arr) -> str:
    from .. import _dtypes as D
    return D.from_np(arr.dtype)._legacy


def _bilinear_checks(input1, input2, weight, bias):
    from .linalg import cpp_type_name
    if not input1.dtype == input2.dtype == weight.dtype or (
            bias is not None and bias.dtype != input1.dtype):
        names = [("input1", input1), ("input2", input2), ("weight", weight)]
        if bias is not None:
            names.append(("bias", bias))
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{n}: {cpp_type_name(t.dtype)}" for n, t in names))
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")


@composite("bilinear", method=False)
def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``."""
    _bilinear_checks(input1, input2, weight, bias)
    out_size = tuple(input1.shape[:-1]) + (weight.shape[0],)
    flat1 = input1.reshape(-1, input1.shape[-1])
    flat2 = input2.reshape(-1, input2.shape[-1])
    output = _trilinear(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3]).reshape(out_size)
    if bias is not None:
        output = output + bias
    return output


FUNCTIONS["nn.functional.bilinear"] = bilinear
