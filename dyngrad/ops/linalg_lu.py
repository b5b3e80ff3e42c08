"""LU factorisation with partial pivoting and what uses it: ``linalg.lu_factor`` /
``lu_factor_ex``, ``linalg.lu``, ``lu_unpack``, ``linalg.lu_solve`` and the deprecated
``torch.lu`` and ``torch.lu_solve``.

Note [LU with partial pivoting]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy has no LU. ``linalg_decomp._lu`` runs LAPACK getrf's rule (the pivot is the entry of
largest modulus in the column, the first one on ties), vectorised over the batch, one Python
step per column. ``pivots`` are 1-based int32 row interchanges: row j was swapped with row
``pivots[j] - 1`` at step j. Applied in order to ``arange(m)`` they give ``perm`` with
``(P^T A)[i] = A[perm[i]]``, i.e. ``P[perm[i], i] = 1`` and A = P L U. torch's CPU LU always
pivots: ``pivot=False`` is its "not implemented on the CPU" error.

Note [LU derivatives]
~~~~~~~~~~~~~~~~~~~~~
With A = P L U (L unit lower m x k, U upper k x n, k = min(m, n)) and the square blocks L1, U1:
  square:  gA = P L^{-H} [tril(L^H gL, -1) + triu(gU U^H)] U^{-H}
  wide:    gA1 = P L^{-H} [tril(L^H gL - gU2 U2^H, -1) + triu(gU1 U1^H)] U1^{-H},
           gA2 = P L^{-H} gU2
  tall:    gA1 = P L1^{-H} [tril(L1^H gL1, -1) + triu(gU U^H - L2^H gL2)] U^{-H},
           gA2 = P gL2 U^{-H}   (the rows of P^T A)
``lu_solve``'s gradient for LU maps the gradient of A = P L U onto the packed factors:
tril(P^H gA U^H, -1) + triu(L^H P^H gA). All are written with dyngrad ops (``lu_unpack`` of
the saved factors included), so second derivatives follow.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_shapes
from .. import return_types as rt
from . import _registry
from ._arg_parser import check_binding
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import FROM_BACKWARD
from .linalg_decomp import (_lu, _triangular_solve_array, batch_prefix, check_out_grad,
                            fortran, solve_triangular, write_out)
from .pointwise import _warn_once


def _f(name: str):
    return FUNCTIONS[name]


def _check_lu_input(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if A.dtype.kind not in "fcV" or A.dtype.itemsize == 2:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for "
                                  f"'{D.from_np(A.dtype)._legacy}'")


def _check_pivot(pivot):
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _permutation(xp, pivots, m, batch):
    """perm (batch..., m) from LAPACK pivots (Note [LU with partial pivoting])."""
    k = pivots.shape[-1]
    count = 1
    for size in batch:
        count *= size
    flat = xp.broadcast_to(pivots, tuple(batch) + (k,)).reshape(count, k).astype(xp.int64) - 1
    perm = xp.array(xp.broadcast_to(xp.arange(m), (count, m)))
    rows = xp.arange(count)
    for j in range(k):
        p = flat[:, j]
        at_j, at_p = perm[rows, j].copy(), perm[rows, p].copy()
        perm[rows, j], perm[rows, p] = at_p, at_j
    return perm.reshape(tuple(batch) + (m,))


def _permutation_matrix(xp, perm, dtype):
    m = perm.shape[-1]
    P = xp.zeros(perm.shape + (m,), dtype)
    xp.put_along_axis(P, perm[..., None, :], 1, axis=-2)   # P[perm[i], i] = 1
    return P


# -- lu_factor ---------------------------------------------------------------------------------
@defop("linalg_lu_factor_ex", node="LinalgLuFactorExBackward0", promote=Promote.NONE,
       inputs=("A",), variants=(), saves=("LU", "pivots"), outputs=("LU", "pivots", "info"),
       nondiff_outputs=(1, 2), scalars=(), kernel_dtypes=True)
def linalg_lu_factor_ex(xp, A, *, pivot=True, check_errors=False,
                        api="torch.linalg.lu_factor_ex"):
    _check_lu_input(A, "torch.lu_factor")
    _check_pivot(pivot)
    LU, pivots, info = _lu(xp, A)
    if check_errors:
        flat = info.reshape(-1)
        bad = xp.nonzero(flat)[0]
        if bad.size:
            index, j = int(bad[0]), int(flat[bad[0]])
            raise RuntimeError(f"{api}: {batch_prefix(A, index)}U[{j},{j}] is zero and using "
                               "it on lu_solve would result in a division by zero. If you still "
                               "want to perform the factorization, consider calling "
                               "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LU, pivots, info


@linalg_lu_factor_ex.backward
def _(ctx, grad, _pivots=None, _info=None):
    LU, pivots = ctx.saved_tensors
    m, n = LU.shape[-2:]
    k = min(m, n)
    P, L, U = lu_unpack(LU, pivots)
    return lu_backward(grad.narrow(-1, 0, k).tril(-1), grad.narrow(-2, 0, k).triu(), P, L, U)


linalg_lu_factor_ex.jvp(FROM_BACKWARD)


def lu_backward(gL, gU, P, L, U):
    """The gradient of A = P L U from those of L and U (Note [LU derivatives])."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if gL is None and gU is None:
        return None
    if gL is not None:
        gL = gL.tril(-1)
    if gU is not None:
        gU = gU.triu()
    if m == n:
        M = (L.mH @ gL).tril(-1) if gL is not None else None
        if gU is not None:
            upper = (gU @ U.mH).triu()
            M = upper if M is None else M + upper
        gA = solve_triangular(U.mH, M, upper=False, left=False)
        gA = solve_triangular(L.mH, gA, upper=True, unitriangular=True)
        return P @ gA
    if m < n:
        U1, U2 = U.narrow(-1, 0, k), U.narrow(-1, k, n - k)
        lower = L.mH @ gL if gL is not None else None
        if gU is not None:
            gU1, gU2 = gU.narrow(-1, 0, k), gU.narrow(-1, k, n - k)
            lower = -(gU2 @ U2.mH) if lower is None else lower - gU2 @ U2.mH
            M = lower.tril(-1) + (gU1 @ U1.mH).triu()
        else:
            gU2 = _f("zeros_like")(U2)
            M = lower.tril(-1)
        gA1 = solve_triangular(U1.mH, M, upper=False, left=False)
        gA = solve_triangular(L.mH, _f("cat")([gA1, gU2], -1), upper=True, unitriangular=True)
        return P @ gA
    L1, L2 = L.narrow(-2, 0, k), L.narrow(-2, k, m - k)
    upper = gU @ U.mH if gU is not None else None
    if gL is not None:
        gL1, gL2 = gL.narrow(-2, 0, k), gL.narrow(-2, k, m - k)
        upper = -(L2.mH @ gL2) if upper is None else upper - L2.mH @ gL2
        M = (L1.mH @ gL1).tril(-1) + upper.triu()
    else:
        gL2 = _f("zeros_like")(L2)
        M = upper.triu()
    gA1 = solve_triangular(L1.mH, M, upper=True, unitriangular=True)
    gA = solve_triangular(U.mH, _f("cat")([gA1, gL2], -2), upper=False, left=False)
    return P @ gA


def lu_factor_ex(A, *, pivot: bool = True, check_errors: bool = False, out=None):
    """``(LU, pivots, info)``: the packed factors of A = P L U, LAPACK's 1-based row
    interchanges and, per matrix, 0 or the index of U's first zero diagonal entry."""
    result = linalg_lu_factor_ex(A, pivot=pivot, check_errors=check_errors)
    if out is not None:
        _write_outs(result, out, op="linalg_lu_factor_ex")
        return rt.linalg_lu_factor_ex_out(out)
    return rt.linalg_lu_factor_ex(result)


def lu_factor(A, *, pivot: bool = True, out=None):
    """``(LU, pivots)``; torch's RuntimeError when U has a zero on its diagonal."""
    result = linalg_lu_factor_ex(A, pivot=pivot, check_errors=True,
                                 api="torch.linalg.lu_factor")[:2]
    if out is not None:
        _write_outs(result, out, op="linalg_lu_factor_ex")
        return rt.linalg_lu_factor_out(out)
    return rt.linalg_lu_factor(result)


def _write_outs(results, outs, op, lapack=(True, False, False)):
    for r in results:
        check_out_grad(r, op)
    for r, o, lap in zip(results, outs, lapack):
        write_out(r, o, lapack_layout=lap)


FUNCTIONS["linalg.lu_factor_ex"] = lu_factor_ex
FUNCTIONS["linalg.lu_factor"] = lu_factor


# -- lu and lu_unpack ----------------------------------------------------------------------------
def _unpack_data(xp, LU):
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = xp.tril(LU[..., :, :k], -1)
    idx = xp.arange(k)
    L[..., idx, idx] = 1
    U = xp.triu(LU[..., :k, :])
    return xp.ascontiguousarray(L), xp.ascontiguousarray(U)


@defop("linalg_lu", node="LinalgLuBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("P", "L", "U"), outputs=("P", "L", "U"), nondiff_outputs=(0,),
       scalars=(), kernel_dtypes=True)
def linalg_lu(xp, A, *, pivot=True):
    _check_lu_input(A, "linalg.lu")
    _check_pivot(pivot)
    LU, pivots, _ = _lu(xp, A)
    L, U = _unpack_data(xp, LU)
    perm = _permutation(xp, pivots, A.shape[-2], A.shape[:-2])
    return _permutation_matrix(xp, perm, A.dtype), L, U


@linalg_lu.backward
def _(ctx, _gP, gL=None, gU=None):
    P, L, U = ctx.saved_tensors
    return lu_backward(gL, gU, P, L, U)


linalg_lu.jvp(FROM_BACKWARD)


def lu(A, *, pivot: bool = True, out=None):
    """``(P, L, U)`` with A = P L U: P a permutation, L unit lower, U upper triangular."""
    result = linalg_lu(A, pivot=pivot)
    if out is not None:
        _write_outs(result, out, op="linalg_lu", lapack=(False,) * 3)
        return rt.linalg_lu_out(out)
    return rt.linalg_lu(result)


FUNCTIONS["linalg.lu"] = lu

_PIVOTS_RANGE = ("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                 "Did you properly pass the result of lu_factor?")


@defop("lu_unpack", node="LuUnpackBackward0", promote=Promote.NONE,
       inputs=("LU_data", "LU_pivots"), differentiable=("LU_data",), variants=(),
       outputs=("P", "L", "U"), nondiff_outputs=(0,), scalars=(), kernel_dtypes=True)
def _lu_unpack(xp, LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if LU_data.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data.shape)} instead")
    if LU_pivots.dtype != xp.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")
    m, n = LU_data.shape[-2:]
    empty = xp.empty(0, LU_data.dtype)
    L = U = P = empty
    if unpack_data:
        L, U = _unpack_data(xp, LU_data)
    if unpack_pivots:
        if LU_pivots.ndim == 0 or LU_pivots.shape[-1] != min(m, n) or (
                LU_pivots.size and (LU_pivots.min() < 1 or LU_pivots.max() > m)):
            raise RuntimeError(_PIVOTS_RANGE)
        batch = LU_data.shape[:-2]
        pivots = LU_pivots if LU_pivots.shape[:-1] == batch else \
            xp.broadcast_to(LU_pivots, batch + LU_pivots.shape[-1:])
        P = _permutation_matrix(xp, _permutation(xp, pivots, m, batch), LU_data.dtype)
    return P, L, U


_lu_unpack.node_cls._saved_LU_data_sym_argsize_minus_1 = property(
    lambda ctx: ctx.LU_data_shape[-1])
_lu_unpack.node_cls._saved_LU_data_sym_argsize_minus_2 = property(
    lambda ctx: ctx.LU_data_shape[-2])


@_lu_unpack.backward
def _(ctx, _gP, gL=None, gU=None):
    m, n = ctx.LU_data_shape[-2:]
    k = min(m, n)
    cat, zeros = _f("cat"), _f("zeros")
    grad = None
    if gU is not None:             # k x n, padded to m x n
        grad = gU.triu()
        if m > k:
            grad = cat([grad, zeros(*grad.shape[:-2], m - k, n, dtype=grad.dtype)], -2)
    if gL is not None:             # m x k, padded to m x n
        lower = gL.tril(-1)
        if n > k:
            lower = cat([lower, zeros(*lower.shape[:-1], n - k, dtype=lower.dtype)], -1)
        grad = lower if grad is None else grad + lower
    return grad


_lu_unpack.jvp(FROM_BACKWARD)


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True, *,
              out=None):
    """``(P, L, U)`` from ``lu_factor``'s packed result (empty tensors for the parts not
    asked for)."""
    result = _lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    if out is not None:
        _write_outs(result, out, op="lu_unpack", lapack=(False,) * 3)
        return rt.lu_unpack_out(out)
    return rt.lu_unpack(result)


FUNCTIONS["lu_unpack"] = lu_unpack


# -- lu_solve ------------------------------------------------------------------------------------
@defop("linalg_lu_solve", node="LinalgLuSolveBackward0", promote=Promote.NONE,
       inputs=("LU", "pivots", "B"), differentiable=("LU", "B"), variants=(),
       saves=("LU", "pivots", "result"), scalars=(), kernel_dtypes=True)
def linalg_lu_solve(xp, LU, pivots, B, *, left=True, adjoint=False):
    name = "linalg.lu_solve"
    if LU.dtype.kind not in "fcV":
        raise RuntimeError(f"torch.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {D.from_np(LU.dtype)._legacy}")
    if pivots.dtype != xp.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if LU.ndim < 2:
        raise RuntimeError(f"torch.{name}: The input tensor A must have at least 2 dimensions.")
    n = LU.shape[-1]
    if LU.shape[-2] != n:
        raise RuntimeError(f"torch.{name}: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {n} matrices")
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if B.dtype != LU.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {D.from_np(LU.dtype)._legacy} and B of type "
                           f"{D.from_np(B.dtype)._legacy} instead")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if pivots.ndim == 0 or pivots.shape[-1] != n:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the dimension "
                           "of the matrix")
    if pivots.shape != LU.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(pivots.shape)} instead")
    if LU.dtype.itemsize == 2:
        raise NotImplementedError(f"\"linalg.lu_solve_cpu\" not implemented for "
                                  f"'{D.from_np(LU.dtype)._legacy}'")
    if pivots.size and pivots.min() < 1:
        raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did you "
                           "properly pass the result of lu_factor?")
    if pivots.size and pivots.max() > n:
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to LU.size(-2)."
                           " Did you properly pass the result of lu_factor?")
    if not left:   # X op(A) = B  <=>  op(A)^H X^H = B^H
        X = _lu_solve_left(xp, LU, pivots, xp.swapaxes(B, -1, -2).conj(), not adjoint)
        return xp.swapaxes(fortran(xp, X), -1, -2).conj()
    return fortran(xp, _lu_solve_left(xp, LU, pivots, B, adjoint))


def _lu_solve_left(xp, LU, pivots, B, adjoint):
    """X with A X = B (A^H X = B with `adjoint`), A = P L U, batches broadcast."""
    batch = tuple(broadcast_shapes(LU.shape[:-2], B.shape[:-2]))
    n = LU.shape[-1]
    LU = xp.broadcast_to(LU, batch + (n, n))
    X = xp.array(xp.broadcast_to(B, batch + B.shape[-2:]))
    perm = _permutation(xp, pivots, n, LU.shape[:-2])
    index = xp.broadcast_to(perm[..., None], batch + (n, X.shape[-1]))
    if not adjoint:   # X = U^{-1} L^{-1} P^T B
        X = xp.take_along_axis(X, index, axis=-2)
        X = _triangular_solve_array(xp, LU, X, upper=False, unitriangular=True)
        return _triangular_solve_array(xp, LU, X, upper=True)
    LUh = xp.swapaxes(LU, -1, -2).conj()   # X = P L^{-H} U^{-H} B
    X = _triangular_solve_array(xp, LUh, X, upper=False)
    X = _triangular_solve_array(xp, LUh, X, upper=True, unitriangular=True)
    out = xp.empty_like(X)
    xp.put_along_axis(out, index, X, axis=-2)
    return out


@linalg_lu_solve.backward
def _(ctx, grad):
    LU, pivots, X = ctx.saved_tensors
    need_LU, need_B = ctx.needs_input_grad
    left, adjoint = ctx.left, ctx.adjoint
    gB = linalg_lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)
    gLU = None
    if need_LU:
        if left:
            gA = -(gB @ X.mH) if not adjoint else -(X @ gB.mH)
        else:
            gA = -(X.mH @ gB) if not adjoint else -(gB.mH @ X)
        P, L, U = lu_unpack(LU, pivots)
        PgA = P.mT @ gA
        gLU = (PgA @ U.mH).tril(-1) + (L.mH @ PgA).triu()
    return gLU, gB if need_B else None


linalg_lu_solve.jvp(FROM_BACKWARD)


def lu_solve(LU, pivots, B, *, left: bool = True, adjoint: bool = False, out=None):
    """X with A X = B (X A = B when not `left`; A^H in place of A with `adjoint`), given
    ``lu_factor``'s ``(LU, pivots)`` of A."""
    return write_out(linalg_lu_solve(LU, pivots, B, left=left, adjoint=adjoint), out,
                     lapack_layout=True, op="linalg_lu_solve")


FUNCTIONS["linalg.lu_solve"] = lu_solve

_LU_SOLVE_DEPRECATED = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")


def torch_lu_solve(input, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve`` / ``Tensor.lu_solve`` (deprecated): ``linalg.lu_solve`` with the
    right-hand side first."""
    _warn_once(_LU_SOLVE_DEPRECATED)
    return write_out(linalg_lu_solve(LU_data, LU_pivots, input), out, lapack_layout=True,
                     op="linalg_lu_solve")


FUNCTIONS["lu_solve"] = METHODS["lu_solve"] = torch_lu_solve


# -- torch.lu (deprecated) -----------------------------------------------------------------------
_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")


# torch.lu and Tensor.lu call this binding, whose parser refuses their arguments first
_LU_WITH_INFO = ("_lu_with_info(Tensor input, bool pivot=True, bool check_errors=True)",)


def torch_lu(A, pivot: bool = True, get_infos: bool = False, out=None):
    """``torch.lu`` / ``Tensor.lu`` (deprecated): ``(LU, pivots)``, with ``get_infos`` also
    ``info``, from ``linalg.lu_factor_ex``."""
    if type(pivot) is not bool or not isinstance(A, _registry._Tensor):
        check_binding(_LU_WITH_INFO, (A,), {"pivot": pivot, "check_errors": not get_infos})
    _warn_once(_LU_DEPRECATED)
    result = linalg_lu_factor_ex(A, pivot=pivot)
    if out is not None:   # (torch/functional.py's checks, then resize_as_ and copy_)
        if len(out) != 2 + get_infos:
            raise TypeError(f"expected tuple of {2 + get_infos} elements but got {len(out)}")
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"argument 'out' must be tuple of Tensors, not "
                            f"{type(out).__name__}")
        _write_outs(result[:len(out)], out, op="linalg_lu_factor_ex", lapack=(False,) * 3)
        return out
    return rt._lu_with_info(result) if get_infos else tuple(result[:2])


FUNCTIONS["lu"] = METHODS["lu"] = torch_lu
