"""Matrix structure: ``trace``, ``tril``/``triu``, ``diag``, ``diag_embed``, ``diagflat``,
``diagonal_copy``, ``linalg.diagonal`` and the cross product (``cross``, ``linalg.cross``).

The gradients of the diagonal family go through ``diagonal_backward`` (ops/view_backward.py),
whose own derivative is ``diagonal`` again, so derivatives of any order need no more code.
"""
from __future__ import annotations

import operator


from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from .._promotion import Promote
from .._utils import broadcast_shapes, canonical_dim
from . import view_backward as _vb
from ._selection import warn_once_at_caller
from . import _registry
from ._autograd_utils import conj
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR, MULTILINEAR
from .linalg import _check_bool, _legacy


def _shape_op(name: str):
    return METHODS[name]


# -- trace ---------------------------------------------------------------------------------------
# integers accumulate into int64 as torch's sum does (SUM_TO_LONG); bool is refused first
@defop("trace", node="TraceBackward0", promote=Promote.SUM_TO_LONG, variants=(), scalars=())
def _trace(xp, self):
    if self.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    if self.dtype in _npb.LOW:
        return xp.asarray(xp.trace(self, dtype=xp.float32)).astype(self.dtype)
    return xp.asarray(xp.trace(self))


def trace(input):
    """The sum of the main diagonal of a matrix."""
    if isinstance(input, _registry._Tensor) and input.dtype is D.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return _trace(input)


FUNCTIONS["trace"] = METHODS["trace"] = trace


@_trace.backward
def _(ctx, grad):
    n, m = ctx.self_shape
    return _vb.diagonal_backward(grad.expand(min(n, m)), (n, m), 0, 0, 1)


_trace.jvp(AUTO_LINEAR)



# -- tril / triu -------------------------------------------------------------------------------
def _triangle(xp, self, diagonal, name, lower):
    if type(diagonal) is bool or not hasattr(diagonal, "__index__"):   # (a float too)
        raise TypeError(f"{name}(): argument 'diagonal' must be int, not "
                        f"{type(diagonal).__name__}")
    diagonal = operator.index(diagonal)
    if self.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    n, m = self.shape[-2:]
    keep = xp.tri(n, m, diagonal, dtype=bool) if lower else ~xp.tri(n, m, diagonal - 1,
                                                                      dtype=bool)
    out = xp.zeros(self.shape, self.dtype)
    xp.copyto(out, self, where=keep)
    return out


@defop("tril", node="TrilBackward0", promote=Promote.NONE,
       variants=("function", "method", "inplace", "out"), scalars=())
def tril(xp, self, diagonal=0):
    return _triangle(xp, self, diagonal, "tril", True)


@tril.backward
def _(ctx, grad):
    return grad.tril(ctx.diagonal)


tril.jvp(AUTO_LINEAR)


@defop("triu", node="TriuBackward0", promote=Promote.NONE,
       variants=("function", "method", "inplace", "out"), scalars=())
def triu(xp, self, diagonal=0):
    return _triangle(xp, self, diagonal, "triu", False)


@triu.backward
def _(ctx, grad):
    return grad.triu(ctx.diagonal)


triu.jvp(AUTO_LINEAR)


# -- diagonals -----------------------------------------------------------------------------------
@defop("diag_embed", node="DiagEmbedBackward0", promote=Promote.NONE,
       variants=("function", "method", "out"), scalars=())
def diag_embed(xp, self, offset=0, dim1=-2, dim2=-1):
    nd = self.ndim + 1
    d1, d2 = canonical_dim(dim1, nd), canonical_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (self.shape[-1] if self.ndim else 1) + abs(offset)
    batch = list(self.shape[:-1])
    # the new dims go to d1 and d2 (smaller first), the rest keep their order
    shape = []
    for i in range(nd):
        shape.append(n if i in (d1, d2) else batch.pop(0))
    out = xp.zeros(shape, self.dtype)
    diag = _vb.S._diagonal.kernel
    from ..backends import numpy_backend as npb
    from .._utils import contiguous_strides
    geom = diag((tuple(shape), contiguous_strides(shape), 0), offset, d1, d2)
    npb.strided(out.reshape(-1), *geom)[...] = self
    return out


@diag_embed.backward
def _(ctx, grad):
    return grad.diagonal(ctx.offset, ctx.dim1, ctx.dim2)


diag_embed.jvp(AUTO_LINEAR)


@defop("diagonal_copy", node="DiagonalBackward0_copy", promote=Promote.NONE,
       variants=("function", "out"), scalars=())
def diagonal_copy(xp, self, offset=0, dim1=0, dim2=1):
    from ..backends import numpy_backend as npb
    itemsize = self.itemsize
    geom = _vb.S._diagonal.kernel(
        (self.shape, tuple(s // itemsize for s in self.strides), 0), offset, dim1, dim2)
    view = npb.strided(npb.flat_buffer(self), *geom) if self.size else xp.empty(geom[0],
                                                                                  self.dtype)
    return xp.array(view, order="C")


@diagonal_copy.backward
def _(ctx, grad):
    return _vb.diagonal_backward(grad, ctx.self_shape, ctx.offset, ctx.dim1, ctx.dim2)


diagonal_copy.jvp(AUTO_LINEAR)


def diag(input, diagonal: int = 0, *, out=None):
    """A 1-D tensor as a diagonal matrix, or the `diagonal`-th diagonal of a matrix (a copy)."""
    if out is not None:      # torch's diag(out=) records no graph, even for inputs needing grad
        from ..autograd.grad_mode import no_grad
        with no_grad():
            return _diag(input, diagonal, {"out": out})
    return _diag(input, diagonal, {})


def _diag(input, diagonal, kw):
    if input.ndim == 1:
        return diag_embed(input, diagonal, **kw)
    if input.ndim == 2:
        return diagonal_copy(input, diagonal, **kw)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input, offset: int = 0, *, out=None):
    """The flattened input as the `offset`-th diagonal of a square matrix."""
    return diag(_shape_op("contiguous")(input).view(-1), offset,
                **({} if out is None else {"out": out}))


def linalg_diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """``torch.linalg.diagonal``: ``torch.diagonal`` with the last two dims as defaults."""
    return FUNCTIONS["diagonal"](A, offset, dim1, dim2)


FUNCTIONS["diag"] = METHODS["diag"] = diag
FUNCTIONS["diagflat"] = METHODS["diagflat"] = diagflat
FUNCTIONS["linalg.diagonal"] = linalg_diagonal


# -- cross products ------------------------------------------------------------------------------
@defop("linalg_cross", node="LinalgCrossBackward0", promote=Promote.NONE,
       inputs=("self", "other"), variants=(), saves=("self", "other"), scalars=())
def linalg_cross(xp, self, other, dim=-1):
    if self.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = canonical_dim(dim, self.ndim)
    if self.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{self.shape[d]} and {other.shape[d]}")
    shape = tuple(broadcast_shapes(self.shape, other.shape))
    if self.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_legacy(self)} but found {_legacy(other)}")
    _check_bool(self, "cross")
    a, b = xp.broadcast_to(self, shape), xp.broadcast_to(other, shape)
    return xp.ascontiguousarray(xp.cross(a, b, axis=d))


@linalg_cross.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    dim = ctx.dim
    # the operands conjugated: Note [Complex gradients]
    return (linalg_cross(conj(other), grad, dim) if need_self else None,
            linalg_cross(grad, conj(self), dim) if need_other else None)


linalg_cross.jvp(MULTILINEAR)


def _linalg_cross(input, other, *, dim: int = -1, out=None):
    """The cross product of 3-vectors along `dim` (broadcasting the other dims)."""
    return linalg_cross(input, other, dim, **({} if out is None else {"out": out}))


def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: without `dim`, the first dim of size 3 (deprecated, as in torch)."""
    if dim is None:
        warn_once_at_caller(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release. (Triggered "
            "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)")
        shape = input.shape
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _linalg_cross(input, other, dim=dim, out=out)


FUNCTIONS["linalg.cross"] = _linalg_cross
FUNCTIONS["cross"] = METHODS["cross"] = cross
