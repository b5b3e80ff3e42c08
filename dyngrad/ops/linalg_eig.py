"""The eigendecomposition of general (non-Hermitian) square matrices: ``linalg.eig`` and
``linalg.eigvals``. Results are complex for every input (``float32`` -> ``complex64``).

Note [Eigenvectors of eig]
~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy and torch both call LAPACK's geev: eigenvalues in the order the Hessenberg QR iteration
leaves them, each eigenvector scaled to unit 2-norm with its largest component real. NumPy's
OpenBLAS and torch's MKL agree on these for the small, well-separated matrices tested; a
loss of eigenvectors must still not depend on their phases (torch's backward checks it, and
so does ours). The gradient is torch's linalg_eig_backward: with E_ij = conj(L_j - L_i),
gA = V^{-H} (diag(gL) + offdiag((V^H gV - V^H V Re diag(V^H gV)) / E)) V^H, and for a real
input its real part (handle_r_to_c).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from ..autograd import grad_mode as _gm
from .. import return_types as rt
from ._autograd_utils import handle_r_to_c
from ._registry import FUNCTIONS, defop
from .linalg_decomp import call, check_square, fortran, write_out, write_outs

_EIG_PHASE = ("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
              "multiplication by e^{i phi}. The specified loss function depends on this "
              "quantity, so it is ill-defined.")


def _f(name: str):
    return FUNCTIONS[name]


def _complex_of(xp, dtype):
    return xp.complex64 if dtype in (xp.float32, xp.complex64) else xp.complex128


@defop("linalg_eig", node="LinalgEigBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("eigenvalues", "eigenvectors"),
       outputs=("eigenvalues", "eigenvectors"), scalars=(), kernel_dtypes=True)
def linalg_eig(xp, A, compute_v=True, *, api="linalg.eig"):
    check_square(A, api)
    if A.dtype.kind not in "fcV" or A.dtype.itemsize == 2:
        legacy = D.from_np(A.dtype)._legacy
        if A.dtype.kind in "fV":   # half precision
            raise NotImplementedError(f"\"linalg_eig_out_cpu\" not implemented for '{legacy}'")
        raise RuntimeError(f"Unknown Complex ScalarType for {legacy}")
    cdt = _complex_of(xp, A.dtype)
    if A.size == 0:
        return xp.zeros(A.shape[:-1], cdt), fortran(xp, xp.zeros(A.shape, cdt))
    if not xp.all(xp.isfinite(A)):
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    if not compute_v:
        return xp.array(xp.linalg.eigvals(A), dtype=cdt), xp.empty(0, cdt)
    w, v = xp.linalg.eig(A)
    return xp.array(w, dtype=cdt), fortran(xp, v.astype(cdt))


def _off_diagonal(X):
    return X - _f("diag_embed")(X.diagonal(0, -2, -1))


def eig_backward(gL, gV, L, V):
    """torch's linalg_eig_backward (is_hermitian=False): see Note [Eigenvectors of eig]."""
    if gL is None and gV is None:
        return None
    solve = _f("linalg.solve")
    Vh = V.mH
    if gV is None:     # eigvals: V^{-H} diag(gL) V^H
        return solve(Vh, gL.unsqueeze(-1) * Vh)
    VhgV = Vh @ gV
    diag = VhgV.diagonal(0, -2, -1)
    imdiag = diag.imag
    if not bool(_f("allclose")(imdiag, _f("zeros_like")(imdiag), rtol=1e-2, atol=1e-2)):
        raise RuntimeError(_EIG_PHASE)
    VhgV = VhgV - Vh @ (V * diag.real.unsqueeze(-2))
    Lc = L.conj()
    n = L.shape[-1]
    eye = _f("eye")(n, dtype=L.dtype)
    Econj = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye
    gA = _off_diagonal(VhgV / Econj)
    if gL is not None:
        gA = gA + _f("diag_embed")(gL)
    return solve(Vh, gA @ Vh)


@linalg_eig.backward
def _(ctx, gL, gV=None):
    L, V = ctx.saved_tensors
    return handle_r_to_c(ctx, 0, eig_backward(gL, gV, L, V))


@linalg_eig.jvp
def _(ctx, A_t):
    """torch's linalg_eig_jvp: with dP = V^{-1} A_t V, L_t = diag(dP) and
    V_t = V (offdiag(dP) / E), E_ij = L_j - L_i, less its component along each (unit) column."""
    L, V = ctx.result
    if not ctx.compute_v:   # eigvals kept no eigenvectors: the tangent needs them
        V = linalg_eig(ctx.primals[0], True)[1]
    dP = _f("linalg.solve")(V, A_t.to(V.dtype) @ V)
    L_t = dP.diagonal(0, -2, -1)
    if not ctx.compute_v:
        return L_t, None
    eye = _f("eye")(L.shape[-1], dtype=L.dtype)
    V_t = V @ _off_diagonal(dP / (L.unsqueeze(-2) - L.unsqueeze(-1) + eye))
    V_t = V_t - V * (V.mH @ V_t).diagonal(0, -2, -1).real.unsqueeze(-2)
    return L_t, V_t


def eig(A, *, out=None):
    """``(eigenvalues, eigenvectors)`` of a square matrix, both complex, with A V = V diag(L).
    See Note [Eigenvectors of eig]."""
    result = call(linalg_eig, (A,), True)
    if out is not None:
        return write_outs("linalg_eig", result, out, "linalg_eig")
    return rt.linalg_eig(result)


def eigvals(A, *, out=None):
    """The (complex) eigenvalues of a square matrix, differentiable through ``linalg.eig``
    when A requires grad, as in torch."""
    compute_v = _gm.is_grad_enabled() and A.requires_grad
    L = call(linalg_eig, (A,), compute_v, api="linalg.eigvals")[0]
    return write_out(L, out, op="linalg_eig")


FUNCTIONS["linalg.eig"] = eig
FUNCTIONS["linalg.eigvals"] = eigvals
