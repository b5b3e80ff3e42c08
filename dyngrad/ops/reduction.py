"""Reductions: sum and mean (more in the op library issue), each with its derivative.

torch has two overloads of each: ``sum(input, *, dtype)`` over everything (``SumBackward0``)
and ``sum(input, dim, keepdim=False, *, dtype)`` (``SumBackward1``), chosen by whether ``dim``
is passed at all (``dim=None`` passed explicitly picks the second). The public functions below
keep that distinction with a sentinel.

The derivatives save no tensor, only the input's shape (``_saved_self_sym_sizes``): the gradient
is the output's gradient expanded back over the reduced dims (divided by their size for mean).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import canonical_dims
from ._registry import FUNCTIONS, METHODS, defop
from .pointwise import _warn_once

_NO_DIM = object()   # `dim` not passed (a passed None means "all dims", other overload)


def _dims(dim, ndim):
    if dim is None or dim == () or dim == []:
        return None
    axes = canonical_dims(dim, max(ndim, 1))   # a 0-dim tensor takes dim 0 / -1 (checked)
    return axes if ndim else ()


_COMPLEX_TO_REAL = ("Casting complex values to real discards the imaginary part (Triggered "
                    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)")


def _accumulate(xp, x, dtype):
    """Cast to the requested dtype; accumulate float16 in float32, as torch's CPU kernels do."""
    if dtype is not None and x.dtype != dtype.np:
        if x.dtype.kind == "c" and not dtype.is_complex:
            _warn_once(_COMPLEX_TO_REAL)
            x = xp.real(x)
        x = x.astype(dtype.np)
    return x, (xp.float32 if x.dtype == xp.float16 else None)


def _sum(xp, x, axes, keepdim, dtype):
    x, acc = _accumulate(xp, x, dtype)
    total = xp.sum(x, axis=axes, keepdims=keepdim, dtype=acc)
    return total if acc is None else total.astype(x.dtype)


def sum_backward(grad, sizes, dim, keepdim):
    """torch's sum_backward: unsqueeze the reduced dims (unless kept), expand to `sizes`."""
    if not keepdim and sizes:
        for d in sorted(_dims(dim, len(sizes)) or ()):
            grad = grad.unsqueeze(d)
    return grad.expand(sizes)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


@defop("sum", node="SumBackward0", promote=Promote.SUM_TO_LONG, variants=(), scalars=())
def sum_all(xp, self, *, dtype=None):
    return _sum(xp, self, None, False, dtype)


@sum_all.backward
def _(ctx, grad):
    return grad.expand(ctx.self_shape)


@defop("sum.dim_IntList", node="SumBackward1", promote=Promote.SUM_TO_LONG, variants=(),
       public="sum", scalars=())
def sum_dim(xp, self, dim, keepdim=False, *, dtype=None):
    return _sum(xp, self, _dims(dim, self.ndim), keepdim, dtype)


@sum_dim.backward
def _(ctx, grad):
    return sum_backward(grad, ctx.self_shape, ctx.dim, ctx.keepdim)


def sum(input, dim=_NO_DIM, keepdim=False, *, dtype=None, out=None):
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints)."""
    kw = {} if out is None else {"out": out}
    if dtype is not None:
        kw["dtype"] = dtype
    if dim is _NO_DIM:
        if keepdim:
            return sum_dim(input, None, True, **kw)
        return sum_all(input, **kw)
    return sum_dim(input, dim, keepdim, **kw)


def _mean_check(x, dtype) -> None:
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: {dtype._legacy}")
        return
    if x.dtype.kind not in "fc":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {D.from_np(x.dtype)._legacy}")


def _mean(xp, x, axes, keepdim, dtype):
    _mean_check(x, dtype)
    x, acc = _accumulate(xp, x, dtype)
    total = xp.sum(x, axis=axes, keepdims=keepdim, dtype=acc)
    if axes is None:
        count = x.size
    else:
        count = 1
        for a in axes:
            count *= x.shape[a]
    mean = xp.true_divide(total, count)   # an empty reduction gives nan, without a warning
    return mean if acc is None else mean.astype(x.dtype)


@defop("mean", node="MeanBackward0", promote=Promote.NONE, variants=(), scalars=())
def mean_all(xp, self, *, dtype=None):
    return _mean(xp, self, None, False, dtype)


@mean_all.backward
def _(ctx, grad):
    return grad.expand(ctx.self_shape) / ctx._saved_self_sym_numel


@defop("mean.dim", node="MeanBackward1", promote=Promote.NONE, variants=(), public="mean",
       scalars=())
def mean_dim(xp, self, dim, keepdim=False, *, dtype=None):
    return _mean(xp, self, _dims(dim, self.ndim), keepdim, dtype)


@mean_dim.backward
def _(ctx, grad):
    sizes = ctx.self_shape
    dims = _dims(ctx.dim, len(sizes))
    count = _numel(sizes) if dims is None else _numel(sizes[d] for d in dims)
    return sum_backward(grad, sizes, ctx.dim, ctx.keepdim) / count


# torch's MeanBackward nodes also show the input's element count
for _spec in (mean_all, mean_dim):
    _spec.node_cls._saved_self_sym_numel = property(lambda ctx: _numel(ctx.self_shape))


def mean(input, dim=_NO_DIM, keepdim=False, *, dtype=None, out=None):
    """Mean of all elements, or over ``dim``; floating and complex inputs only (as torch)."""
    kw = {} if out is None else {"out": out}
    if dtype is not None:
        kw["dtype"] = dtype
    if dim is _NO_DIM:
        if keepdim:
            return mean_dim(input, None, True, **kw)
        return mean_all(input, **kw)
    return mean_dim(input, dim, keepdim, **kw)


for _name, _fn in (("sum", sum), ("mean", mean)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
