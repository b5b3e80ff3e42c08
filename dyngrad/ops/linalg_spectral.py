"""Orthogonal factorisations and what is built on them: ``linalg.qr``, ``linalg.svd`` /
``svdvals`` / ``torch.svd``, ``linalg.eigh`` / ``eigvalsh``, ``linalg.pinv`` / ``pinverse``,
``linalg.lstsq`` and ``linalg.matrix_rank``.

Note [Signs of singular vectors and eigenvectors]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each column of Q (qr), U/V (svd) and of the eigenvectors (eigh) is unique only up to its sign
(a phase for complex inputs). NumPy's LAPACK (OpenBLAS) and torch's (MKL) run the same
Householder QR and divide-and-conquer SVD and agree on those signs; for ``eigh`` of matrices of
size 3 to 25 they may differ. Gradients follow torch's formulas (derivatives.yaml), which assume
distinct singular values / eigenvalues and a loss that does not depend on those signs; for such
losses the gradient does not depend on the representative either.
"""
from __future__ import annotations

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from .._promotion import Promote
from .._utils import broadcast_shapes, shape_str
from ..autograd import grad_mode as _gm
from .. import return_types as rt
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import FROM_BACKWARD
from .linalg_decomp import (call, check_floating, check_square, fortran, solve_triangular,
                            write_out, write_outs, _LinAlgError)


def _f(name: str):
    return FUNCTIONS[name]


def _eye(n, like):
    return _f("eye")(n, dtype=like.dtype)


def adjoint(t):
    """``t.mH``; for complex tensors (no autograd) from the arrays while Tensor.conj is
    missing."""
    if not t.is_complex() or hasattr(t, "conj"):
        return t.mH
    from . import _dispatch
    from ..backends import numpy_backend as npb
    return _dispatch._wrap(npb.xp.swapaxes(npb.xp.conj(t._data), -1, -2))


# -- qr ------------------------------------------------------------------------------------------
def _parse_qr_mode(mode: str):
    if mode == "reduced":
        return True, True
    if mode == "complete":
        return True, False
    if mode == "r":
        return False, True
    raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
                       "(default), 'r', or 'complete'")


@defop("linalg_qr", node="LinalgQrBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("Q", "R"), outputs=("Q", "R"), scalars=(), kernel_dtypes=True)
def linalg_qr(xp, A, mode="reduced"):
    check_floating(A, "linalg.qr", half="geqrf_cpu")
    if A.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    compute_q, reduced = _parse_qr_mode(mode)
    m, n = A.shape[-2:]
    k = min(m, n)
    if A.size == 0:
        q_cols = k if reduced else m
        Q = xp.zeros(A.shape[:-2] + (m, q_cols), A.dtype)
        Q[..., range(min(m, q_cols)), range(min(m, q_cols))] = 1
        R = xp.zeros(A.shape[:-2] + ((k if reduced else m), n), A.dtype)
    elif compute_q:
        Q, R = xp.linalg.qr(A, mode="reduced" if reduced else "complete")
    else:
        R = xp.linalg.qr(A, mode="r")
    R = fortran(xp, R.astype(A.dtype))
    if not compute_q:
        return xp.empty(0, A.dtype), R
    return fortran(xp, Q.astype(A.dtype)), R


@linalg_qr.backward
def _(ctx, gQ, gR=None):
    Q, R = ctx.saved_tensors
    compute_q, reduced = _parse_qr_mode(ctx.mode)
    if not compute_q:
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going "
                           "to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if not reduced and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    if gQ is None and gR is None:
        return None
    if gQ is not None:
        gA = gR @ R.mH - Q.mH @ gQ if gR is not None else -(Q.mH @ gQ)
    else:
        gA = gR @ R.mH
    if m >= n:
        # gA = (gQ + Q syminvadj(triu(gR R^H - Q^H gQ))) R^{-H}
        upper = gA.triu()
        sym = upper + upper.mH
        sym = sym - 0.5 * _f("diag_embed")(sym.diagonal(0, -2, -1))
        gA = Q @ sym
        if gQ is not None:
            gA = gA + gQ
        return solve_triangular(R.mH, gA, upper=False, left=False)
    # m < n: gA = Q trilImInvAdjSkew(Q^H gQ - gR R^H) R_1^{-H}, padded, plus Q gR, where
    # trilImInvAdjSkew(X) is tril(X - X^H) with the (imaginary) diagonal halved
    X = (-gA - (-gA).mH).tril()
    if X.is_complex():   # (its diagonal is imaginary)
        X = X - 0.5 * _f("diag_embed")(X.diagonal(0, -2, -1))
    gA = Q @ X
    gA = solve_triangular(R.narrow(-1, 0, m).mH, gA, upper=False, left=False)
    zeros = _f("zeros")(*R.shape[:-1], n - m, dtype=gA.dtype)
    gA = _f("cat")([gA, zeros], -1)
    if gR is not None:
        gA = gA + Q @ gR
    return gA


linalg_qr.jvp(FROM_BACKWARD)


def qr(A, mode: str = "reduced", *, out=None):
    """``(Q, R)`` with A = QR; `mode` "reduced", "complete" or "r" (Q empty)."""
    result = call(linalg_qr, (A,), mode)
    if out is not None:
        return write_outs("linalg_qr", result, out, "linalg_qr", 2)
    return rt.linalg_qr(result)


def torch_qr(input, some: bool = True, *, out=None):
    """``torch.qr`` (deprecated in torch): ``some=False`` is mode "complete"."""
    result = call(linalg_qr, (input,), "reduced" if some else "complete")
    if out is not None:
        return write_outs("qr", result, out, "linalg_qr", 2)
    return rt.qr(result)


FUNCTIONS["linalg.qr"] = qr
FUNCTIONS["qr"] = METHODS["qr"] = torch_qr


# -- svd -----------------------------------------------------------------------------------------
@defop("_linalg_svd", node="LinalgSvdBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("U", "S", "Vh"), outputs=("U", "S", "Vh"), scalars=(),
       kernel_dtypes=True)
def _linalg_svd(xp, A, full_matrices=False, compute_uv=True, *, driver=None):
    check_floating(A, "linalg.svd", half="linalg_svd_cpu")
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    if not xp.all(xp.isfinite(A)):
        raise _LinAlgError("linalg.svd: The algorithm failed to converge because the input "
                           "matrix contained non-finite values.")
    m, n = A.shape[-2:]
    k = min(m, n)
    real = A.real.dtype
    if not compute_uv:
        S = xp.linalg.svd(A, compute_uv=False) if A.size else xp.zeros(A.shape[:-2] + (k,))
        return xp.empty(0, A.dtype), xp.array(S, dtype=real), xp.empty(0, A.dtype)
    if A.size == 0:
        U = _eye_batch(xp, A.shape[:-2], m, m if full_matrices else k, A.dtype)
        Vh = _eye_batch(xp, A.shape[:-2], n if full_matrices else k, n, A.dtype)
        return fortran(xp, U), xp.zeros(A.shape[:-2] + (k,), real), fortran(xp, Vh)
    U, S, Vh = xp.linalg.svd(A, full_matrices=full_matrices)
    return (fortran(xp, U.astype(A.dtype)), xp.array(S, dtype=real),
            fortran(xp, Vh.astype(A.dtype)))


def _eye_batch(xp, batch, rows, cols, dtype):
    out = xp.zeros(tuple(batch) + (rows, cols), dtype)
    idx = range(min(rows, cols))
    out[..., idx, idx] = 1
    return out


_linalg_svd.node_cls._saved_S_sym_argsize_minus_1 = property(
    lambda ctx: ctx._saved_S.shape[-1])
_linalg_svd.node_cls._saved_full_matrices = property(lambda ctx: ctx.full_matrices)


@_linalg_svd.backward
def _(ctx, gU, gS=None, gVh=None):
    U, S, Vh = ctx.saved_tensors
    if ctx.full_matrices:     # only the first k columns of U / rows of Vh take part
        k = S.shape[-1]
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
    return svd_backward(gU, gS, gVh, U, S, Vh)


@_linalg_svd.jvp
def _(ctx, A_t):
    """torch's linalg_svd_jvp. With U, V cut to their first k = min(m, n) columns and
    dP = U^H A_t V, S_t = Re(diag(dP)); U_t and V_t from the off-diagonal part scaled by
    F_ij = 1 / (s_j² - s_i²), plus the parts outside span(U) / span(V), plus (complex) the
    phases: see Note [The phases in the SVD's tangent]. With full_matrices the columns of U
    and rows of Vh beyond k get a zero tangent, as in torch."""
    A = ctx.primals[0]
    if not A.numel():
        return tuple(_f("zeros_like")(o) for o in ctx.result)
    U, S, Vh = ctx.result
    if not ctx.compute_uv:   # the singular vectors were not kept: the tangent needs them
        U, S, Vh = _linalg_svd(A, False, True)
    m, n = A.shape[-2], A.shape[-1]
    k = S.shape[-1]
    if ctx.full_matrices:
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
    V = Vh.mH
    dP = U.mH @ (A_t @ V)
    diag = dP.diagonal(0, -2, -1)
    S_t = diag.real if diag.is_complex() else diag
    if not ctx.compute_uv:
        return None, S_t, None
    eye = _eye(k, S)
    S2 = S * S
    F = (1 - eye) / (S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye)
    Sm = S.unsqueeze(-2)                     # multiplies columns: X @ diag(S)
    sym_u = dP * Sm + (dP * Sm).mH           # dP S + S dP^H
    sym_v = Sm.mT * dP + dP.mH * Sm          # S dP + dP^H S
    U_t = U @ (F * sym_u)
    V_t = V @ (F * sym_v)
    if diag.is_complex():
        phase = ((diag - S_t) / (2 * S)).unsqueeze(-2)   # i Im(dP_ii) / (2 s_i), per column
        U_t = U_t + U * phase
        V_t = V_t - V * phase
    if m > k:
        U_t = U_t + (A_t @ V - U @ dP) / Sm
    if n > k:
        V_t = V_t + (A_t.mH @ U - V @ dP.mH) / Sm
    Vh_t = V_t.mH
    if ctx.full_matrices:
        zeros = _f("zeros")
        if m > k:
            U_t = _f("cat")([U_t, zeros(*U_t.shape[:-1], m - k, dtype=U_t.dtype)], -1)
        if n > k:
            Vh_t = _f("cat")([Vh_t, zeros(*Vh_t.shape[:-2], n - k, n, dtype=Vh_t.dtype)], -2)
    return U_t, S_t, Vh_t


# Note [The phases in the SVD's tangent]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Differentiating A = U S V^H with U^H U = V^H V = I gives dP = U^H dA V = W_U S + dS - S W_V,
# where W_U = U^H dU and W_V = V^H dV are skew-Hermitian. Off the diagonal this fixes W_U and
# W_V (the F terms above). On it, dP_ii = ds_i + s_i (W_U_ii - W_V_ii) with W_U_ii, W_V_ii
# imaginary: ds_i = Re(dP_ii), and only the difference of the two phases' tangents is fixed,
# as the singular vectors of a complex matrix are defined up to a common phase e^{i phi} per
# pair. torch splits it evenly, W_U_ii = -W_V_ii = i Im(dP_ii) / (2 s_i), and so do we.


_SVD_PHASE = ("svd_backward: The singular vectors in the complex case are specified up to "
              "multiplication by e^{i phi}. The specified loss function depends on this phase "
              "term, making it ill-defined.")
_EIGH_PHASE = ("linalg_eigh_backward: The eigenvectors in the complex case are specified up to "
               "multiplication by e^{i phi}. The specified loss function depends on this "
               "quantity, so it is ill-defined.")


def _phase_check(imdiag, other, message):
    """torch's check that a loss of complex singular vectors or eigenvectors does not depend
    on their phases (lax tolerances, as torch's)."""
    if not bool(_f("allclose")(imdiag, other, rtol=1e-2, atol=1e-2)):
        raise RuntimeError(message)


def svd_backward(gU, gS, gVh, U, S, Vh):
    """torch's svd_backward: distinct singular values, full rank if rectangular."""
    if gU is None and gS is None and gVh is None:
        return None
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:     # svdvals: U diag(gS) Vh
        return U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh
    S2 = S * S
    k = S.shape[-1]
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye(k, S)   # off-diagonal S_j^2 - S_i^2; 1 on it
    UhgU = (U.mH @ gU) if gU is not None else None
    VhgV = (Vh @ gVh.mH) if gVh is not None else None
    if UhgU is not None:
        UhgU = UhgU - UhgU.mH
    if VhgV is not None:
        VhgV = VhgV - VhgV.mH
    imdiag_UhgU = None
    if U.is_complex():   # the phases of u_i and v_i cancel in A: the loss must not see them
        zeros = _f("zeros_like")(S)
        imdiag_UhgU = UhgU.diagonal(0, -2, -1).imag if UhgU is not None else zeros
        imdiag_VhgV = VhgV.diagonal(0, -2, -1).imag if VhgV is not None else zeros
        _phase_check(imdiag_UhgU, -imdiag_VhgV, _SVD_PHASE)
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        gA = (UhgU / E) * S.unsqueeze(-2)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + _f("diag_embed")(gS)
    if imdiag_UhgU is not None and gU is not None:   # the phase of each pair u_i s_i v_i^H
        gA = gA + _f("diag_embed")(imdiag_UhgU / (2 * S)) * 1j
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mH @ gUSinv)
        return gA @ Vh
    if m < n and gVh is not None:
        gA = gA @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mH) @ Vh
        return U @ gA
    return U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh


def svd(A, full_matrices: bool = True, *, driver=None, out=None):
    """``(U, S, Vh)`` with A = U diag(S) Vh, S descending. See Note [Signs of singular vectors
    and eigenvectors]."""
    result = call(_linalg_svd, (A,), full_matrices, True, driver=driver)
    if out is not None:
        return write_outs("linalg_svd", result, out, "_linalg_svd", 3)
    return rt.linalg_svd(result)


def svdvals(A, *, driver=None, out=None):
    """The singular values of A, descending (differentiable: U and Vh are kept when A requires
    grad, as in torch)."""
    compute_uv = _gm.is_grad_enabled() and A.requires_grad
    S = call(_linalg_svd, (A,), False, compute_uv, driver=driver)[1]
    return write_out(S, out, op="_linalg_svd")


def torch_svd(input, some: bool = True, compute_uv: bool = True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with V (not Vh); without `compute_uv`, U and V are zeros."""
    if input.ndim < 2:
        raise RuntimeError("linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.ndim} dimensions instead")
    if compute_uv:
        U, S, Vh = call(_linalg_svd, (input,), not some, True)
    else:
        S = svdvals(input)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        U = _f("zeros")(*batch, m, m, dtype=input.dtype)
        Vh = _f("zeros")(*batch, n, n, dtype=input.dtype)
    if out is not None:
        return write_outs("svd", (U, S, adjoint(Vh)), out, "_linalg_svd", 3)
    return rt.svd((U, S, adjoint(Vh)))


FUNCTIONS["linalg.svd"] = svd
FUNCTIONS["linalg.svdvals"] = svdvals
FUNCTIONS["svd"] = METHODS["svd"] = torch_svd


# -- eigh ------------------------------------------------------------------------------------------
@defop("_linalg_eigh", node="LinalgEighBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("eigenvalues", "eigenvectors"),
       outputs=("eigenvalues", "eigenvectors"), scalars=(), kernel_dtypes=True)
def _linalg_eigh(xp, A, UPLO="L", compute_v=True):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    check_square(A, "linalg.eigh")
    if A.dtype.kind not in "fcV" or A.dtype.itemsize == 2:
        legacy = D.from_np(A.dtype)._legacy
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{legacy}'")
    real = A.real.dtype
    if A.size == 0:
        return xp.zeros(A.shape[:-1], real), fortran(xp, A)
    if not xp.all(xp.isfinite(A)):     # LAPACK gives NaNs, as torch shows
        return (xp.full(A.shape[:-1], xp.nan, real),
                xp.full(A.shape, xp.nan, A.dtype) if compute_v else xp.empty(0, A.dtype))
    if not compute_v:
        return xp.array(xp.linalg.eigvalsh(A, UPLO=UPLO), dtype=real), xp.empty(0, A.dtype)
    w, v = xp.linalg.eigh(A, UPLO=UPLO)
    return xp.array(w, dtype=real), fortran(xp, v.astype(A.dtype))


@_linalg_eigh.backward
def _(ctx, gL, gV=None):
    L, V = ctx.saved_tensors
    if gL is None and gV is None:
        return None
    if gV is None:     # eigvalsh: V diag(gL) V^H
        return (V * gL.unsqueeze(-2)) @ V.mH
    VhgV = V.mH @ gV
    if V.is_complex():   # the loss must not depend on the eigenvectors' phases
        imdiag = VhgV.diagonal(0, -2, -1).imag
        _phase_check(imdiag, _f("zeros_like")(imdiag), _EIGH_PHASE)
    VhgV = 0.5 * (VhgV - VhgV.mH)      # projection onto skew-Hermitian matrices
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye(L.shape[-1], L)
    gA = VhgV / E
    if gL is not None:
        if gA.is_complex():   # torch writes gL over the diagonal (i Im, ~0 by the check)
            gA = gA - _f("diag_embed")(gA.diagonal(0, -2, -1))
        gA = gA + _f("diag_embed")(gL)
    return V @ (gA @ V.mH)


@_linalg_eigh.jvp
def _(ctx, A_t):   # L_t = diag(V^H A_t V); V_t = V (F o V^H A_t V), F_ij = 1 / (L_j - L_i)
    L, V = ctx.result
    A = ctx.primals[0]
    if not ctx.compute_v:   # eigvalsh kept no eigenvectors: the tangent needs them
        V = _linalg_eigh(A, ctx.UPLO, True)[1]
    VhAtV = V.mH @ (A_t @ V)
    L_t = VhAtV.diagonal(0, -2, -1)
    L_t = L_t.real if L_t.is_complex() else L_t
    if not ctx.compute_v:
        return L_t, None
    eye = _eye(L.shape[-1], L)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
    return L_t, V @ (VhAtV / E * (1 - eye))


def eigh(A, UPLO: str = "L", *, out=None):
    """``(eigenvalues, eigenvectors)`` of a Hermitian matrix (only the `UPLO` triangle is read),
    eigenvalues ascending. See Note [Signs of singular vectors and eigenvectors]."""
    result = call(_linalg_eigh, (A,), UPLO, True)
    if out is not None:
        return write_outs("linalg_eigh", result, out, "_linalg_eigh", 2)
    return rt.linalg_eigh(result)


def eigvalsh(A, UPLO: str = "L", *, out=None):
    """The eigenvalues of a Hermitian matrix, ascending."""
    compute_v = _gm.is_grad_enabled() and A.requires_grad
    return write_out(call(_linalg_eigh, (A,), UPLO, compute_v)[0], out, op="_linalg_eigh")


FUNCTIONS["linalg.eigh"] = eigh
FUNCTIONS["linalg.eigvalsh"] = eigvalsh


# -- pinv -----------------------------------------------------------------------------------------
def _tolerances(A, atol, rtol):
    """torch's defaults: atol 0; rtol eps * max(m, n) unless a positive atol is given."""
    if atol is None:
        atol_value = 0.0
        if rtol is None:
            rtol = D.finfo(_real_dtype(A)).eps * max(A.shape[-2], A.shape[-1])
    else:
        atol_value = atol
        if rtol is None:
            positive = atol > 0 if not hasattr(atol, "_data") else bool((atol > 0).any())
            rtol = 0.0 if positive else D.finfo(_real_dtype(A)).eps * max(A.shape[-2:])
    return atol_value, rtol


def _real_dtype(A):
    return D.from_np(A._data.real.dtype)


@defop("linalg_pinv", node="LinalgPinvBackward0", promote=Promote.NONE, variants=(),
       saves=("self", "result"), scalars=(), kernel_dtypes=True)
def linalg_pinv(xp, self, atol, rtol, hermitian=False):
    if self.ndim < 2 or self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        legacy = D.from_np(self.dtype)._legacy
        raise RuntimeError(f"linalg.pinv({legacy}{{{shape_str(self.shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or "
                           "cdouble types")
    m, n = self.shape[-2:]
    if self.size == 0:
        return xp.zeros(self.shape[:-2] + (n, m), self.dtype)
    # tolerances given as tensors hold one value per matrix
    atol, rtol = (t[..., None] if getattr(t, "ndim", 0) else t for t in (atol, rtol))
    if hermitian:
        w, U = xp.linalg.eigh(self)
        w_abs = xp.abs(w)
        tol = xp.maximum(atol, rtol * w_abs.max(-1, keepdims=True))
        inv_w = xp.where(w_abs > tol, 1 / xp.where(w_abs > tol, w, 1), 0).astype(w.dtype)
        result = (U * inv_w[..., None, :]) @ xp.swapaxes(U, -1, -2).conj()
    else:
        U, S, Vh = xp.linalg.svd(self, full_matrices=False)
        tol = xp.maximum(atol, rtol * S[..., :1])
        inv_s = xp.where(S > tol, 1 / xp.where(S > tol, S, 1), 0).astype(S.dtype)
        result = (xp.swapaxes(Vh, -1, -2).conj() * inv_s[..., None, :]) @ \
            xp.swapaxes(U, -1, -2).conj()
    return xp.ascontiguousarray(result.astype(self.dtype))


@linalg_pinv.backward
def _(ctx, grad):
    A, pinvA = ctx.saved_tensors
    return pinv_backward(grad, pinvA, A)


linalg_pinv.jvp(FROM_BACKWARD)


def pinv_backward(grad, pinvA, A):
    """torch's pinv_backward (Golub & Pereyra): the derivative of A^+ written with A^+."""
    m, n = A.shape[-2:]
    pinvAh, gradh = pinvA.mH, grad.mH
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mH + KpinvAh - (A @ pinvA) @ KpinvAh \
            + (pinvAh @ pinvA) @ (gradh - K @ A)
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mH + ((gradh - A @ K) @ pinvA) @ pinvAh + pinvAhK \
        - (pinvAhK @ pinvA) @ A


def _tol_value(v):
    return v._data if hasattr(v, "_data") else v


def pinv(A, rcond=None, hermitian: bool = False, *, atol=None, rtol=None, out=None):
    """The Moore-Penrose pseudo-inverse, through the SVD (eigh when `hermitian`); singular
    values at most ``max(atol, rtol * largest)`` count as zero."""
    if rcond is not None:
        rtol = rcond
    if A.ndim >= 2 and A._data.dtype.kind in "fcV" and A._data.dtype.itemsize > 2:
        atol, rtol = _tolerances(A, atol, rtol)
    else:
        atol, rtol = 0.0, 0.0
    return write_out(call(linalg_pinv, (A,), _tol_value(atol), _tol_value(rtol), hermitian),
                     out, op="linalg_pinv")


def pinverse(input, rcond: float = 1e-15):
    """``torch.pinverse``: ``linalg.pinv`` with a relative tolerance `rcond`."""
    return pinv(input, rtol=rcond)


FUNCTIONS["linalg.pinv"] = pinv
FUNCTIONS["pinverse"] = METHODS["pinverse"] = pinverse


# -- lstsq ---------------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@defop("linalg_lstsq", node="LinalgLstsqBackward0", promote=Promote.NONE, inputs=("self", "b"),
       variants=(), saves=("self", "b", "solution"),
       outputs=("solution", "residuals", "rank", "singular_values"), nondiff_outputs=(2, 3),
       scalars=(), kernel_dtypes=True)
def linalg_lstsq(xp, self, b, rcond=None, *, driver=None):
    name = "torch.linalg.lstsq"
    if self.dtype != b.dtype and self.dtype.kind in "fcV" and b.dtype.kind in "fcV":
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {D.from_np(self.dtype)._legacy} and other's dtype "
                           f"{D.from_np(b.dtype)._legacy}")
    if self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if self.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           "gelss)")
    vector = b.ndim == self.ndim - 1       # torch's rule for lstsq: by rank alone
    B = b[..., None] if vector else b
    m, n = self.shape[-2:]
    batch = tuple(broadcast_shapes(self.shape[:-2], B.shape[:-2]))
    if B.shape[-2] != m:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    A = xp.broadcast_to(self, batch + (m, n))
    B = xp.broadcast_to(B, batch + B.shape[-2:])
    k = B.shape[-1]
    real = self.real.dtype
    if rcond is None:
        rcond = float(_npb.finfo(real).eps) * max(m, n)
    flat_a, flat_b = A.reshape(-1, m, n), B.reshape(-1, m, k)
    count = flat_a.shape[0]
    rows = max(m, n)
    # the solution lives in the first n rows of a column-major (max(m, n), k) buffer
    buffer = xp.zeros((count, k, rows), self.dtype)
    rank = xp.zeros(count, xp.int64)
    sv = xp.zeros((count, min(m, n)), real)
    for i in range(count):
        if flat_a[i].size and k:
            x, _, r, s = xp.linalg.lstsq(flat_a[i], flat_b[i], rcond=rcond)
            buffer[i, :, :n] = x.T
            rank[i] = r
            sv[i] = s
        else:
            rank[i] = 0 if not flat_a[i].size else xp.linalg.matrix_rank(flat_a[i])
    solution = xp.swapaxes(buffer.reshape(batch + (k, rows)), -1, -2)[..., :n, :]
    if vector:
        solution = solution[..., 0]
    rank = rank.reshape(batch)
    sv = sv.reshape(batch + (min(m, n),))
    residuals = xp.empty(0, real)
    if m > n and driver != "gelsy" and (driver == "gels" or bool(xp.all(rank == n))):
        X = solution[..., None] if vector else solution
        residuals = (xp.abs(A @ X - B) ** 2).sum(-2).astype(real)
        if vector:
            residuals = residuals.reshape(batch + (1,))
    if driver == "gels":
        rank = xp.empty(0, xp.int64)
    if driver not in ("gelsd", "gelss"):
        sv = xp.empty(0, real)
    return solution, residuals, rank, sv


@linalg_lstsq.backward
def _(ctx, gX, gL=None, _rank=None, _sv=None):
    A, b, X = ctx.saved_tensors
    need_A, need_b = ctx.needs_input_grad
    if gL is not None and not gL.numel():
        gL = None
    if gX is None and gL is None:
        return None, None
    vector = b.ndim == A.ndim - 1
    B = b.unsqueeze(-1) if vector else b
    gA = gB = None
    if gX is not None:
        gX_ = gX.unsqueeze(-1) if vector else gX
        pinvA = pinv(A)
        if need_A:
            gA = pinv_backward(gX_ @ B.mH, pinvA, A)
        if need_b:
            gB = pinvA.mH @ gX_
            gB = gB.squeeze(-1) if vector else gB
    if gL is not None:
        X_ = X.unsqueeze(-1) if vector else X
        r = A @ X_ - B
        gL_ = gL.unsqueeze(-2)
        if need_A:
            term = 2 * (gL_ * r) @ X_.mH
            gA = term if gA is None else gA + term
        if need_b:
            term = -2 * gL_ * r
            term = term.squeeze(-1) if vector else term
            gB = term if gB is None else gB + term
    return gA, gB


linalg_lstsq.jvp(FROM_BACKWARD)


def lstsq(A, B, rcond=None, *, driver=None, out=None):
    """``(solution, residuals, rank, singular_values)`` of min ||AX - B||_F.

    The default CPU driver, 'gelsy', returns the rank but no residuals nor singular values
    (empty tensors), as torch does; 'gelsd'/'gelss' return both.

    Differences from torch: every driver is computed with NumPy's SVD-based solver; solutions
    agree up to rounding (for rank-deficient inputs both are the minimum-norm one).
    """
    result = call(linalg_lstsq, (A, B), rcond, driver=driver)
    if out is not None:
        return write_outs("linalg_lstsq", result, out, "linalg_lstsq", 4)
    return rt.linalg_lstsq(result)


FUNCTIONS["linalg.lstsq"] = lstsq


# -- matrix_rank ---------------------------------------------------------------------------------
def matrix_rank(A, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None):
    """The number of singular values above ``max(atol, rtol * largest)`` (int64)."""
    if A._data.dtype.kind not in "fcV" or A._data.dtype.itemsize == 2:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances(A, atol, rtol)
    with _gm.no_grad():
        S = eigvalsh(A).abs() if hermitian else svdvals(A)
        if S.shape[-1] == 0:
            return write_out(_f("zeros")(tuple(S.shape[:-1]), dtype=D.int64), out)
        largest = S.amax(-1, keepdim=True)
        threshold = _f("maximum")(_f("full_like")(largest, atol) if not hasattr(atol, "_data")
                                  else atol.unsqueeze(-1), rtol * largest)
        return write_out((S > threshold).sum(-1), out)


FUNCTIONS["linalg.matrix_rank"] = matrix_rank
