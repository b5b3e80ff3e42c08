"""The LDL (Bunch-Kaufman) factorisation of symmetric / Hermitian matrices:
``linalg.ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve``.

Note [Bunch-Kaufman pivoting]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch calls LAPACK's sytrf / hetrf with uplo "L"; NumPy has no binding for it, so the kernel
below is LAPACK's unblocked sytf2 / hetf2 (lower), step for step: alpha = (1 + sqrt(17)) / 8,
1x1 or 2x2 pivots chosen from the largest off-diagonal entries (|re| + |im| for complex ones),
pivots stored 1-based, negative for both columns of a 2x2 block. LAPACK switches to the blocked
algorithm (lasyf) for matrices larger than its block size (64 columns here, MKL may differ), which
can pick other pivots; the factorisations of small matrices match torch's. ``LD`` holds L below
the diagonal and D on it (and the sub-diagonal of 2x2 blocks); the upper triangle is zero.
``ldl_solve`` rebuilds A = M D M^T (M^H for Hermitian) from those factors and solves with it.
torch has no derivative for these ops: their grad_fn is a "NotImplemented" node.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from .. import return_types as rt
from ..autograd.forward_ad import fw_not_implemented
from ._registry import FUNCTIONS, defop
from .linalg_decomp import call, check_square, fortran, write_out

_ALPHA = (1 + math.sqrt(17)) / 8


def _legacy(arr):
    return D.from_np(arr.dtype)._legacy


def _cabs1(xp, z):
    return xp.abs(z.real) + xp.abs(z.imag) if z.dtype.kind == "c" else xp.abs(z)


def _argmax(xp, v):
    """LAPACK's i?amax: the first index of the largest |re| + |im|."""
    return int(xp.argmax(_cabs1(xp, v)))


def _sytf2(xp, A, hermitian):
    """LAPACK's ?sytf2 / ?hetf2 with uplo "L" on one matrix (a copy): (A, ipiv, info)."""
    n = A.shape[0]
    herm = hermitian and A.dtype.kind == "c"

    def cj(z):
        return xp.conj(z) if herm else z

    ipiv = xp.zeros(n, xp.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(A[k, k].real) if herm else float(_cabs1(xp, A[k, k]))
        if k < n - 1:
            imax = k + 1 + _argmax(xp, A[k + 1:, k])
            colmax = float(_cabs1(xp, A[imax, k]))
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
            if herm:
                A[k, k] = A[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + _argmax(xp, A[imax, k:imax])
                rowmax = float(_cabs1(xp, A[imax, jmax]))
                if imax < n - 1:
                    jmax = imax + 1 + _argmax(xp, A[imax + 1:, imax])
                    rowmax = max(rowmax, float(_cabs1(xp, A[jmax, imax])))
                diag = abs(A[imax, imax].real) if herm else float(_cabs1(xp, A[imax, imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:   # swap rows and columns kk and kp of the trailing matrix
                if kp < n - 1:
                    A[kp + 1:, [kk, kp]] = A[kp + 1:, [kp, kk]]
                t = cj(A[kk + 1:kp, kk].copy())
                A[kk + 1:kp, kk] = cj(A[kp, kk + 1:kp])
                A[kp, kk + 1:kp] = t
                if herm:
                    A[kp, kk] = xp.conj(A[kp, kk])
                    A[kk, kk], A[kp, kp] = A[kp, kp].real, A[kk, kk].real
                else:
                    A[kk, kk], A[kp, kp] = A[kp, kp], A[kk, kk]
                if kstep == 2:
                    if herm:
                        A[k, k] = A[k, k].real
                    A[k + 1, k], A[kp, k] = A[kp, k], A[k + 1, k]
            elif herm:
                A[k, k] = A[k, k].real
                if kstep == 2:
                    A[k + 1, k + 1] = A[k + 1, k + 1].real
            if kstep == 1:
                _update_1x1(xp, A, k, herm)
            else:
                _update_2x2(xp, A, k, herm)
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return A, ipiv, info


def _update_1x1(xp, A, k, herm):
    if k == A.shape[0] - 1:
        return
    d11 = 1 / A[k, k].real if herm else 1 / A[k, k]
    x = A[k + 1:, k].copy()
    upd = d11 * xp.outer(x, xp.conj(x) if herm else x)
    A[k + 1:, k + 1:] -= xp.tril(upd)
    if herm:
        idx = range(k + 1, A.shape[0])
        A[idx, idx] = A[idx, idx].real
    A[k + 1:, k] = x * d11


def _update_2x2(xp, A, k, herm):
    n = A.shape[0]
    if k >= n - 2:
        return
    if herm:
        d = abs(A[k + 1, k])
        d11 = A[k + 1, k + 1].real / d
        d22 = A[k, k].real / d
        tt = 1 / (d11 * d22 - 1)
        d21 = A[k + 1, k] / d
        d = tt / d
        wk = d * (d11 * A[k + 2:, k] - d21 * A[k + 2:, k + 1])
        wkp1 = d * (d22 * A[k + 2:, k + 1] - xp.conj(d21) * A[k + 2:, k])
        upd = xp.outer(A[k + 2:, k], xp.conj(wk)) + xp.outer(A[k + 2:, k + 1], xp.conj(wkp1))
    else:
        d21 = A[k + 1, k]
        d11 = A[k + 1, k + 1] / d21
        d22 = A[k, k] / d21
        t = 1 / (d11 * d22 - 1)
        d21 = t / d21
        wk = d21 * (d11 * A[k + 2:, k] - A[k + 2:, k + 1])
        wkp1 = d21 * (d22 * A[k + 2:, k + 1] - A[k + 2:, k])
        upd = xp.outer(A[k + 2:, k], wk) + xp.outer(A[k + 2:, k + 1], wkp1)
    A[k + 2:, k + 2:] -= xp.tril(upd)
    if herm:
        idx = range(k + 2, n)
        A[idx, idx] = A[idx, idx].real
    A[k + 2:, k] = wk
    A[k + 2:, k + 1] = wkp1


@defop("linalg_ldl_factor_ex", node="NotImplemented", promote=Promote.NONE, inputs=("self",),
       variants=(), outputs=("LD", "pivots", "info"), nondiff_outputs=(1, 2), scalars=(),
       kernel_dtypes=True)
def linalg_ldl_factor_ex(xp, self, *, hermitian=False, check_errors=False):
    api = "torch.linalg.ldl_factor_ex"
    check_square(self, api)
    if self.dtype.kind not in "fcV":
        raise RuntimeError(f"{api}: Expected a floating point or complex tensor as input. Got "
                           f"{_legacy(self)}")
    if self.dtype.itemsize == 2:
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for "
                                  f"'{_legacy(self)}'")
    n = self.shape[-1]
    batch = self.shape[:-2]
    LD = xp.zeros(self.shape, self.dtype)
    piv = xp.zeros(batch + (n,), xp.int32)
    info = xp.zeros(batch, xp.int32)
    for idx in xp.ndindex(*batch):
        a, p, i = _sytf2(xp, xp.tril(self[idx]).astype(self.dtype), hermitian)
        LD[idx], piv[idx], info[idx] = xp.tril(a), p, i
    if check_errors and xp.any(info > 0):
        first = int(xp.flatnonzero(info.reshape(-1) > 0)[0])
        raise RuntimeError(f"torch.linalg.ldl_factor: Unknown error code: "
                           f"{int(info.reshape(-1)[first])}.")
    return fortran(xp, LD), piv, info


@linalg_ldl_factor_ex.backward
def _(ctx, *grads):
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


linalg_ldl_factor_ex.jvp(fw_not_implemented("aten::linalg_ldl_factor_ex", short=True))


def ldl_factor_ex(A, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """``(LD, pivots, info)``: A = L D L^T (L^H with `hermitian`), pivots as LAPACK's; info > 0
    where D is singular. See Note [Bunch-Kaufman pivoting]."""
    result = call(linalg_ldl_factor_ex, (A,), hermitian=hermitian, check_errors=check_errors)
    return rt.linalg_ldl_factor_ex(_write_outs(result, out))


def ldl_factor(A, *, hermitian: bool = False, out=None):
    """``(LD, pivots)`` of ``ldl_factor_ex``; a singular D raises (torch's message)."""
    LD, piv, info = call(linalg_ldl_factor_ex, (A,), hermitian=hermitian, check_errors=True)
    return rt.linalg_ldl_factor(_write_outs((LD, piv), out))


def _write_outs(result, out):
    if out is None:
        return result
    for o, r in zip(out, result):
        write_out(r, o, lapack_layout=True, op="linalg_ldl_factor_ex")
    return tuple(out)


# -- ldl_solve -----------------------------------------------------------------------------------
def _factors(xp, LD, ipiv, hermitian):
    """M and D with A = M D M^T (M^H when hermitian and complex), from sytrf's output."""
    n = LD.shape[0]
    M = xp.eye(n, dtype=LD.dtype)
    Dm = xp.zeros((n, n), LD.dtype)
    k = 0
    while k < n:
        step = 1 if ipiv[k] > 0 else 2
        kp = abs(int(ipiv[k])) - 1
        kk = k + step - 1
        P = xp.eye(n, dtype=LD.dtype)
        P[[kk, kp]] = P[[kp, kk]]
        L = xp.eye(n, dtype=LD.dtype)
        L[k + step:, k:k + step] = LD[k + step:, k:k + step]
        M = M @ P @ L
        Dm[k:k + step, k:k + step] = LD[k:k + step, k:k + step]
        if step == 2:
            Dm[k, k + 1] = xp.conj(LD[k + 1, k]) if hermitian else LD[k + 1, k]
        k += step
    return M, Dm


def _check_ldl_solve(LD, pivots, B):
    name = "torch.linalg.ldl_solve"
    check_square(LD, name)
    if B.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "-2)")
    if pivots.shape != LD.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape [{', '.join(map(str, pivots.shape))}] "
                           "instead")
    if pivots.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_legacy(pivots)}")
    if LD.dtype.kind not in "fcV":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_legacy(LD)}")
    if LD.dtype != B.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_legacy(B)} and A of type {_legacy(LD)} instead.")
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is "
                           f"{LD.shape[-1]} by {LD.shape[-1]} but each b matrix is "
                           f"{B.shape[-2]} by {B.shape[-1]}")


@defop("linalg_ldl_solve", node="NotImplemented", promote=Promote.NONE,
       inputs=("LD", "pivots", "B"), variants=(), scalars=(), kernel_dtypes=True)
def linalg_ldl_solve(xp, LD, pivots, B, *, hermitian=False):
    _check_ldl_solve(LD, pivots, B)
    if LD.dtype.itemsize == 2:
        raise NotImplementedError(f"\"ldl_solve_kernel_cpu\" not implemented for '{_legacy(LD)}'")
    batch = tuple(xp.broadcast_shapes(LD.shape[:-2], B.shape[:-2]))
    n = LD.shape[-1]
    LD = xp.broadcast_to(LD, batch + LD.shape[-2:])
    pivots = xp.broadcast_to(pivots, batch + (n,))
    B = xp.broadcast_to(B, batch + B.shape[-2:])
    X = xp.zeros(B.shape, LD.dtype)
    herm = hermitian and LD.dtype.kind == "c"
    for idx in xp.ndindex(*batch):
        M, Dm = _factors(xp, LD[idx], pivots[idx], herm)
        Mt = M.conj().T if herm else M.T
        X[idx] = xp.linalg.solve(Mt, xp.linalg.solve(Dm, xp.linalg.solve(M, B[idx])))
    return fortran(xp, X)


@linalg_ldl_solve.backward
def _(ctx, grad):
    raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


linalg_ldl_solve.jvp(fw_not_implemented("aten::linalg_ldl_solve", short=True))


def ldl_solve(LD, pivots, B, *, hermitian: bool = False, out=None):
    """X with A X = B for the A that ``ldl_factor`` factored into (LD, pivots)."""
    return write_out(call(linalg_ldl_solve, (LD, pivots, B), hermitian=hermitian), out,
                     lapack_layout=True, op="linalg_ldl_solve")


FUNCTIONS["linalg.ldl_factor_ex"] = ldl_factor_ex
FUNCTIONS["linalg.ldl_factor"] = ldl_factor
FUNCTIONS["linalg.ldl_solve"] = ldl_solve
