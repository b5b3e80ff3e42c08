"""More of ``torch.linalg``: the deprecated ``torch.cholesky``, ``cholesky_inverse``, and the
composites ``linalg.cond``, ``linalg.tensorinv`` and ``linalg.tensorsolve``.

Note [Condition numbers]
~~~~~~~~~~~~~~~~~~~~~~~~
torch composes ``linalg.cond`` from other ops, so its graph shows theirs. For p = None or ±2
it is the ratio of the extreme singular values (``svdvals``, two ``narrow``s, a division and a
``squeeze``), defined for any shape. For "nuc" it is sum(s) * sum(1 / s). For "fro", ±1 and
±inf it is ``matrix_norm(A) * matrix_norm(inv)``, where ``inv`` comes from ``inv_ex`` with the
singular matrices' inverses filled with inf in place, and the product goes through
``nan_to_num_(inf, inf, -inf)`` in place. Batches of empty matrices give zeros.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from ._registry import FUNCTIONS, METHODS, defop
from .linalg_decomp import (_LinAlgError, _triangular_solve_array, batch_prefix, call,
                            check_square, fortran, inv_ex, linalg_cholesky_ex, linalg_inv_ex,
                            not_implemented, solve, write_out)
from .pointwise import _warn_once


def _f(name: str):
    return FUNCTIONS[name]


def _m(name: str):
    return METHODS[name]


# -- torch.cholesky (deprecated) -----------------------------------------------------------------
_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
    "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for "
    "all valid (symmetric positive definite) inputs. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)")


@defop("cholesky", node="CholeskyBackward0", promote=Promote.NONE, variants=(),
       saves=("result",), scalars=(), kernel_dtypes=True)
def _cholesky(xp, self, upper=False):
    if self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        not_implemented(self, "cholesky_cpu")
    check_square(self, "cholesky")
    return linalg_cholesky_ex.kernel(xp, self, upper=upper, check_errors=True,
                                     api="cholesky")[0]


@_cholesky.backward
def _(ctx, grad):
    # the formula of linalg.cholesky_ex, which reads the same saved factor and ``upper``
    return linalg_cholesky_ex.backward_fn(ctx, grad)


# (no forward rule: torch has none for the deprecated op, and raises its NotImplementedError)


def cholesky(input, upper: bool = False, *, out=None):
    """``torch.cholesky`` (deprecated): L with A = L L^H, or U = L^H with `upper`."""
    _warn_once(_CHOLESKY_DEPRECATED)
    return write_out(_cholesky(input, upper), out, op="cholesky")


FUNCTIONS["cholesky"] = METHODS["cholesky"] = cholesky


# -- cholesky_inverse ------------------------------------------------------------------------------
@defop("cholesky_inverse", node="CholeskyInverseBackward0", promote=Promote.NONE, variants=(),
       saves=("self", "result"), scalars=(), kernel_dtypes=True)
def _cholesky_inverse(xp, self, upper=False):
    name = "cholesky_inverse"
    if self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        not_implemented(self, "cholesky_inverse_out_cpu")
    check_square(self, name)
    n = self.shape[-1]
    if self.size == 0:
        return fortran(xp, xp.zeros(self.shape, self.dtype))
    diag = xp.diagonal(self, 0, -2, -1).reshape(-1, n)
    zero = diag == 0
    if zero.any():
        index = int(xp.nonzero(zero.any(axis=-1))[0][0])
        first = int(xp.argmax(zero[index])) + 1
        raise _LinAlgError(f"{name}: {batch_prefix(self, index)}The diagonal element {first} is "
                           "zero, the inversion could not be completed because the input "
                           "matrix is singular.")
    # A^{-1} = (L L^H)^{-1} = L^{-H} L^{-1}; upper: A = U^H U, A^{-1} = U^{-1} U^{-H}
    eye = xp.broadcast_to(xp.eye(n, dtype=self.dtype), self.shape)
    T_inv = _triangular_solve_array(xp, self, eye, upper=upper)
    T_inv_h = xp.swapaxes(T_inv, -1, -2).conj()
    return fortran(xp, T_inv @ T_inv_h if upper else T_inv_h @ T_inv)


@_cholesky_inverse.backward
def _(ctx, grad):
    L, inverse = ctx.saved_tensors
    # torch's formula, on the whole input (not only the triangle the forward reads)
    common = inverse @ ((grad + grad.mH) @ inverse)
    return -(L @ common) if ctx.upper else -(common @ L)


@_cholesky_inverse.jvp
def _(ctx, self_t):
    # torch's cholesky_inverse_jvp, matched against it term by term: dX = P + P^H with
    # P = -X dC X C, C = L^H (or U) and dC its tangent, each taken whole (not only the
    # triangle the forward reads), so it is not the transpose of the backward
    F, = ctx.primals
    X = ctx.result
    factor, d_factor = (F, self_t.mH) if ctx.upper else (F.mH, self_t)
    partial = -(X @ d_factor @ X @ factor)
    return partial + partial.mH


def cholesky_inverse(input, upper: bool = False, *, out=None):
    """The inverse of A = L L^H (A = U^H U with `upper`) from its Cholesky factor."""
    return write_out(_cholesky_inverse(input, upper), out, lapack_layout=True,
                     op="cholesky_inverse")


FUNCTIONS["cholesky_inverse"] = METHODS["cholesky_inverse"] = cholesky_inverse


# -- cond ------------------------------------------------------------------------------------------
_NUMERIC_ORDS = (1, -1, 2, -2, math.inf, -math.inf)


def _ord_text(p) -> str:
    """How torch prints a Scalar norm order (``3``, ``2.5``, ``inf``)."""
    if isinstance(p, float) and p.is_integer():
        return str(int(p))
    return str(p) if not isinstance(p, float) else f"{p:g}"


def _square_name(p) -> str:
    """The name in torch's square-matrix message: std::to_string of the order."""
    if isinstance(p, str):
        return f"linalg.cond(ord={p})"
    if isinstance(p, float) and math.isinf(p):
        return f"linalg.cond(ord={'-' if p < 0 else ''}inf)"
    return f"linalg.cond(ord={p:.6f})" if isinstance(p, float) else f"linalg.cond(ord={p})"


def cond(A, p=None, *, out=None):
    """The condition number of a matrix (or of each matrix of a batch) in the norm `p`
    (Note [Condition numbers])."""
    if isinstance(p, str):
        _check_square_tensor(A, _square_name(p))
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    else:
        if A.dim() < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        if p is not None and p not in _NUMERIC_ORDS:
            raise RuntimeError(f"linalg.cond got an invalid norm type: {_ord_text(p)}")
    if A.numel() == 0:
        real = D.from_np(A._data.real.dtype) if A.is_complex() else A.dtype
        return write_out(_f("zeros")(tuple(A.shape[:-2]), dtype=real), out, op="linalg_cond")
    if p is None or p in (2, -2):
        s = _f("linalg.svdvals")(A)
        s_max, s_min = s.narrow(-1, 0, 1), s.narrow(-1, -1, 1)
        result = (s_min / s_max if p == -2 else s_max / s_min).squeeze(-1)
        return write_out(result, out, op="linalg_cond")
    if p == "nuc":
        s = _f("linalg.svdvals")(A)
        return write_out(s.sum(-1) * s.reciprocal().sum(-1), out, op="linalg_cond")
    if not isinstance(p, str):
        _check_square_tensor(A, _square_name(p))
    inverse, info = inv_ex(A)
    inverse.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, math.inf)
    norm = _f("linalg.matrix_norm")
    result = norm(A, p) * norm(inverse, p)
    result.nan_to_num_(math.inf, math.inf, -math.inf)
    return write_out(result, out, op="linalg_cond")


def _check_square_tensor(A, name):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


FUNCTIONS["linalg.cond"] = cond


# -- tensorinv, tensorsolve ------------------------------------------------------------------------
def _prod(sizes):
    out = 1
    for s in sizes:
        out *= s
    return out


def tensorinv(A, ind: int = 2, *, out=None):
    """The tensor X with ``tensordot(X, A, ind)`` the identity: A reshaped to a square matrix
    (``prod(shape[:ind])`` rows), inverted, reshaped to ``shape[ind:] + shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    rows, cols = _prod(shape[:ind]), _prod(shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    inverse = call(linalg_inv_ex, (A.reshape(cols, cols),), check_errors=True, api="inv")[0]
    return write_out(inverse.reshape(*shape[ind:], *shape[:ind]), out, op="linalg_inv_ex")


def tensorsolve(A, B, dims=None, *, out=None):
    """X with ``tensordot(A, X, X.ndim) == B``: the dimensions `dims` of A moved last, A
    reshaped to a square matrix and solved against B flattened."""
    if dims is not None:
        dims = tuple(dims)
        A = A.movedim(dims, tuple(range(A.dim() - len(dims), A.dim())))
    shape = tuple(A.shape)
    result_shape = shape[B.dim():]
    n, m = _prod(result_shape), _prod(B.shape)
    if n != m:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {n} != {m}")
    result = solve(A.reshape(n, n), B.flatten())
    return write_out(result.reshape(tuple(result_shape)), out, op="_linalg_solve_ex")


FUNCTIONS["linalg.tensorinv"] = tensorinv
FUNCTIONS["linalg.tensorsolve"] = tensorsolve
