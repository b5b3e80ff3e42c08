"""Reductions: sum and mean (more in the op library issue)."""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import canonical_dims
from ._registry import FUNCTIONS, METHODS, defop


def _dims(dim, ndim):
    if dim is None or dim == () or dim == []:
        return None
    return canonical_dims(dim, max(ndim, 1)) if ndim else ()


def _np_dtype(dtype):
    return None if dtype is None else dtype.np


@defop("sum", node="SumBackward0", promote=Promote.SUM_TO_LONG, variants=())
def sum_all(xp, self, *, dtype=None):
    if dtype is not None:
        self = self.astype(dtype.np)
    return xp.sum(self)


@defop("sum.dim_IntList", node="SumBackward1", promote=Promote.SUM_TO_LONG, variants=(),
       public="sum")
def sum_dim(xp, self, dim, keepdim=False, *, dtype=None):
    if dtype is not None:
        self = self.astype(dtype.np)
    axes = _dims(dim, self.ndim)
    return xp.sum(self, axis=axes, keepdims=keepdim)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints)."""
    kw = {} if out is None else {"out": out}
    if dtype is not None:
        kw["dtype"] = dtype
    if dim is None:
        if keepdim:
            return sum_dim(input, None, True, **kw)
        return sum_all(input, **kw)
    return sum_dim(input, dim, keepdim, **kw)


def _mean_check(x, dtype):
    d = dtype or D.from_np(x.dtype)
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {d._legacy}")


@defop("mean", node="MeanBackward0", promote=Promote.NONE, variants=())
def mean_all(xp, self, *, dtype=None):
    _mean_check(self, dtype)
    if dtype is not None:
        self = self.astype(dtype.np)
    return xp.mean(self)


@defop("mean.dim", node="MeanBackward1", promote=Promote.NONE, variants=(), public="mean")
def mean_dim(xp, self, dim, keepdim=False, *, dtype=None):
    _mean_check(self, dtype)
    if dtype is not None:
        self = self.astype(dtype.np)
    return xp.mean(self, axis=_dims(dim, self.ndim), keepdims=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of all elements, or over ``dim``; floating and complex inputs only (as torch)."""
    kw = {} if out is None else {"out": out}
    if dtype is not None:
        kw["dtype"] = dtype
    if dim is None:
        if keepdim:
            return mean_dim(input, None, True, **kw)
        return mean_all(input, **kw)
    return mean_dim(input, dim, keepdim, **kw)


for _name, _fn in (("sum", sum), ("mean", mean)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
