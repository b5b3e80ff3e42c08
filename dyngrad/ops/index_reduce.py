"""index_reduce: ``source``'s slices along ``dim`` reduced into ``self`` at positions ``index``
('prod', 'mean', 'amax' or 'amin'), with its in-place form (``Tensor.index_reduce_``).

A primitive (IndexReduceBackward0, saving self, index, source and the result). The slices
are combined in index order, each step rounded to the dtype as torch's CPU loop does;
``include_self=False`` first overwrites the indexed slices of self with the reduction's
identity. 'mean' divides by the number of values each slice received (self counting as one
unless excluded; untouched slices by 1), flooring for integer dtypes (bool: no floor
division, torch's error; bool and complex take neither ``include_self=False`` nor a self
of fewer than 2 dims). The result is
contiguous. The first call warns that the op is in beta, once per process, as torch.

The checks are index_add's (torch shares them: its messages say ``index_reduce_()`` for every
form), after the reduce name; indices must lie in [0, size) (no negative indices).

The gradient follows torch's index_reduce_backward (FunctionsManual.cpp): 'prod' divides the
product by each factor, exact where factors are zero (more than one zero source factor on a
slice makes the second derivative raise, as torch's DelayedError); 'mean' divides the
gradient by the counts; 'amax' / 'amin' share it evenly between the values equal to the
result. Excluded self slices get no gradient. torch has no forward-mode rule: dual inputs are
refused before any check.
"""
from __future__ import annotations

from .._promotion import Promote
from .._utils import canonical_dim
from ..autograd.forward_ad import _has_tangent, check_supported, fw_not_implemented
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from ._selection import contiguous, structured_out_check
from .gather_scatter import _delayed_error, no_complex_autograd, tensor_arg
from .index_add import index_func_checks
from .join import int_arg
from .pointwise import _not_implemented, _warn_once

_REDUCES = ("prod", "mean", "amax", "amin")
_BETA = ("index_reduce() is in beta and the API may change at any time. (Triggered internally "
         "at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)")


def _identity(xp, reduce, dtype):
    if reduce == "prod":
        return 1
    if reduce == "mean":
        return 0
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind in "fV":
        return -xp.inf if reduce == "amax" else xp.inf
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


@defop("index_reduce", node="IndexReduceBackward0", promote=Promote.NONE,
       inputs=("self", "index", "source"), differentiable=("self", "source"),
       saves=("self", "index", "source", "result"), variants=(), scalars=())
def _index_reduce(xp, self, index, source, dim, reduce, include_self=True):
    _warn_once(_BETA)
    if not include_self and self.dtype.kind in "bc":
        raise _not_implemented("index_reduce_func_exclude_input_init", self.dtype)
    if self.ndim <= 1 and self.dtype.kind in "bc":   # torch's serial loop for vectors
        raise _not_implemented("index_func_", self.dtype)
    if reduce == "mean" and self.dtype.kind == "b":
        raise _not_implemented("div_floor_cpu", self.dtype)
    if reduce in ("amax", "amin") and self.dtype.kind == "c":
        raise _not_implemented("maximum_cpu" if reduce == "amax" else "minimum_cpu",
                               self.dtype)
    out = contiguous(xp.array(self, copy=True))
    if self.ndim == 0:
        view, values = out.reshape(1), source.reshape(1)
        d = 0
    else:
        d = canonical_dim(dim, self.ndim)
        view = xp.moveaxis(out, d, 0)
        values = xp.moveaxis(source.reshape(source.shape or (1,)), d, 0)
    idx = index.reshape(-1)
    if not include_self:
        view[idx] = _identity(xp, reduce, self.dtype)
    ufunc = {"prod": xp.multiply, "mean": xp.add, "amax": xp.maximum, "amin": xp.minimum}
    ufunc[reduce].at(view, idx, values)
    if reduce == "mean":
        counts = xp.full(view.shape[0], 1 if include_self else 0, self.dtype)
        xp.add.at(counts, idx, self.dtype.type(1))
        counts[counts == 0] = 1
        counts = counts.reshape((-1,) + (1,) * (view.ndim - 1))
        if self.dtype.kind in "fcV":
            view[...] = view / counts
        else:
            view[...] = xp.floor_divide(view, counts)
    return out


@_index_reduce.backward
def _(ctx, grad):
    self, index, source, result = ctx.saved_tensors
    dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
    need_self, need_source = ctx.needs_input_grad
    index_add, index_select = FUNCTIONS["index_add"], FUNCTIONS["index_select"]
    if reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = _index_reduce(masked_self, index, source, dim, reduce, include_self)
        grad_self = grad * masked_self_result / masked_self
        src_zero = source == 0
        src_num_zeros = index_select(index_add(FUNCTIONS["zeros_like"](self), dim, index,
                                               src_zero.to(self.dtype)), dim, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        # where source holds the only zero reaching a slice: the product of the others
        masked_src = source.masked_fill(src_single_zero, 1)
        masked_src_result = _index_reduce(self, index, masked_src, dim, reduce, include_self)
        grad_source = FUNCTIONS["where"](
            src_single_zero, index_select(grad * masked_src_result, dim, index),
            index_select(grad * result, dim, index) / source.masked_fill(src_zero, 1))
        if (src_num_zeros > 1).any().item():
            grad_source = _delayed_error(
                grad_source, "index_reduce(): Double backward is unsupported for source when "
                ">1 zeros in source are scattered to the same position in self")
    elif reduce == "mean":
        counts = FUNCTIONS["ones_like" if include_self else "zeros_like"](grad)
        counts = index_add(counts, dim, index, FUNCTIONS["ones_like"](source))
        counts = counts.masked_fill(counts == 0, 1)
        grad_self = grad / counts
        grad_source = index_select(grad, dim, index) / index_select(counts, dim, index)
    else:
        value = index_select(result, dim, index)
        self_is_result = (self == result).to(self.dtype)
        source_is_result = (source == value).to(self.dtype)
        share = grad / index_add(self_is_result, dim, index, source_is_result)
        grad_self = self_is_result * share
        grad_source = source_is_result * index_select(share, dim, index)
    if not include_self:
        grad_self = grad_self.index_fill(dim, index, 0)
    return (grad_self if need_self else None), (grad_source if need_source else None)


def _checks(self, dim, index, source, reduce, inplace=False, pos=1) -> int:
    """torch's index_reduce meta function (the reduce name, then index_add's checks) and the
    kernel's bounds check, after the argument parser and the refusal of dual inputs (no
    forward AD in torch); returns dim as an int."""
    dim = int_arg("index_reduce_" if inplace else "index_reduce", "dim", dim, pos)
    if inplace:
        if _has_tangent((self, source)):
            fw_not_implemented("index_reduce_", explicit=True)(None)
    else:
        check_supported(_index_reduce, (self, index, source))
    if reduce not in _REDUCES:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d = index_func_checks("index_reduce_", self, dim, index, source)
    nd, n = self.dim(), index.numel()
    if n:
        flat = index._data.reshape(-1)
        size = self.shape[d] if nd else 1
        if ((flat < 0) | (flat >= size)).any():
            raise IndexError("index out of range in self")
    return dim


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """``input`` with the slices ``source[..., i, ...]`` reduced into ``input[..., index[i],
    ...]`` along ``dim`` by ``reduce`` ('prod', 'mean', 'amax', 'amin'); ``include_self``:
    whether input's own values take part."""
    tensor_arg("index_reduce", "index", index, 3)
    tensor_arg("index_reduce", "source", source, 4)
    dim = _checks(input, dim, index, source, reduce, pos=2)
    args = (input, index, source, dim, reduce, include_self)
    if out is not None:
        structured_out_check(input.dtype, out)
        return _index_reduce(*args, out=out)
    result = _index_reduce(*args)
    no_complex_autograd("index_reduce", result.dtype, input, source)   # (not index_reduce_)
    return result


def _index_reduce_method(self, dim, index, source, reduce, *, include_self=True):
    tensor_arg("index_reduce", "index", index, 2)
    tensor_arg("index_reduce", "source", source, 3)
    dim = _checks(self, dim, index, source, reduce)
    result = _index_reduce(self, index, source, dim, reduce, include_self)
    no_complex_autograd("index_reduce", result.dtype, self, source)
    return result


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place :func:`index_reduce`."""
    tensor_arg("index_reduce_", "index", index, 2)
    tensor_arg("index_reduce_", "source", source, 3)
    dim = _checks(self, dim, index, source, reduce, inplace=True)
    return _index_reduce.call_inplace(self, index, source, dim, reduce, include_self)


FUNCTIONS["index_reduce"] = index_reduce
METHODS["index_reduce"] = _index_reduce_method
METHODS["index_reduce_"] = INPLACE["index_reduce_"] = index_reduce_
