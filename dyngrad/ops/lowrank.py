"""Randomised low-rank decompositions: ``torch.svd_lowrank`` and ``torch.pca_lowrank`` (Halko,
Martinsson and Tropp, 2009, algorithms 4.4 and 5.1), built from dyngrad ops step for step as
torch/_lowrank.py builds them, so that with the same seed (dyngrad's ``randn`` draws torch's
numbers) they return torch's values, and their gradients flow through the ops they use.
Sparse inputs are not supported."""
from __future__ import annotations

from ._registry import FUNCTIONS


def _f(name: str):
    return FUNCTIONS[name]


def _floating_dtype(A):
    """torch's _linalg_utils.get_floating_dtype: A's dtype if floating, else float32."""
    from .. import float32
    return A.dtype if A.dtype.is_floating_point else float32


def get_approximate_basis(A, q: int, niter: int | None = 2, M=None):
    """Q with q orthonormal columns such that Q Q^H (A - M) approximates A - M."""
    niter = 2 if niter is None else niter
    dtype = _floating_dtype(A) if not A.is_complex() else A.dtype
    qr = _f("linalg.qr")
    R = _f("randn")(A.shape[-1], q, dtype=dtype)
    X = A @ R
    if M is not None:
        X = X - M @ R
    Q = qr(X).Q
    for _ in range(niter):
        X = A.mH @ Q
        if M is not None:
            X = X - M.mH @ Q
        Q = qr(X).Q
        X = A @ Q
        if M is not None:
            X = X - M @ Q
        Q = qr(X).Q
    return Q


def _svd_lowrank(A, q: int | None = 6, niter: int | None = 2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH @ A
    if M is not None:
        B = B - Q.mH @ M
    U, S, Vh = _f("linalg.svd")(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(A, q: int | None = 6, niter: int | None = 2, M=None):
    """``(U, S, V)`` with A - M ~ U diag(S) V^H of rank q, from a random subspace (seeded by
    dyngrad's generator)."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q: int | None = None, center: bool = True, niter: int = 2):
    """The PCA of the rows of A (centered unless `center` is False) as ``(U, S, V)``: V's
    columns are the principal directions, ``S ** 2 / (m - 1)`` the variances."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)


FUNCTIONS["svd_lowrank"] = svd_lowrank
FUNCTIONS["pca_lowrank"] = pca_lowrank
