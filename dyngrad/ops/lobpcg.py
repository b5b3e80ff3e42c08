"""``torch.lobpcg``: the k largest (or smallest) eigenpairs of a symmetric positive-definite
generalized problem A X = B X diag(E), by the locally optimal block preconditioned conjugate
gradient method (Knyazev 2001; the "ortho" variant of Stathopoulos and Wu 2002, and the "basic"
one of Duersch et al. 2018).

The steps follow torch/_lobpcg.py one for one with dyngrad ops, so that from the same initial
block (dyngrad's ``randn`` draws torch's numbers) the iterates agree up to rounding and the
eigenvector signs ``eigh`` picks (Note [Signs of singular vectors and eigenvectors]).
When A requires grad, the result comes from an autograd Function (``LOBPCGAutogradFunction``,
as torch's) on the symmetrised A, whose backward is the derivative of a partial
eigendecomposition (torch's _symeig_backward): for k < m eigenpairs it solves for the part of
the gradient in the complement of span(U) through the characteristic polynomial of D
evaluated at A, with a random basis of that complement (drawn from a fresh generator, as torch
does; the result does not depend on the draw). Differences from torch: no sparse A / B, and
``tracker`` is called with dyngrad's worker object.
"""
from __future__ import annotations

from ..autograd.function import Function
from ._registry import FUNCTIONS


def _f(name: str):
    return FUNCTIONS[name]


def _mm(A, B):
    return B if A is None else A @ B


def _qform(A, S):
    return S.mT @ _mm(A, S)


def _symeig(A, largest=False):
    E, Z = _f("linalg.eigh")(A, UPLO="U")
    if largest:
        E, Z = E.flip(-1), Z.flip(-1)
    return E, Z


def _floating_dtype(A):
    from .. import float16, float32, float64
    return A.dtype if A.dtype in (float16, float32, float64) else float32


class _Worker:
    """The state of one LOBPCG run (torch's LOBPCG class)."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        zeros = _f("zeros")
        self.X = X
        self.E = zeros((n,), dtype=X.dtype)
        self.R = zeros((m, n), dtype=X.dtype)
        self.S = zeros((m, 3 * n), dtype=X.dtype)
        self.tvars, self.ivars = {}, {"istep": 0}
        self.fvars, self.bvars = {"_": 0.0}, {"_": False}

    def update(self):
        if self.ivars["istep"] == 0:
            norm = _f("norm")
            X_norm = float(norm(self.X))
            iX_norm = X_norm ** -1
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(norm(_mm(self.A, self.X))) * iX_norm
            self.fvars["B_norm"] = float(norm(_mm(self.B, self.X))) * iX_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self):
        self.R = _mm(self.A, self.X) - _mm(self.B, self.X) * self.E

    def update_converged_count(self):
        prev = self.ivars["converged_count"]
        norm = _f("norm")
        E, X, R = self.E, self.X, self.R
        rerr = norm(R, 2, (0,)) / (norm(X, 2, (0,)) * (
            self.fvars["A_norm"] + E[:X.shape[-1]].abs() * self.fvars["B_norm"]))
        count = 0
        for ok in (rerr < self.fparams["tol"]).tolist():
            if not ok:
                break
            count += 1
        if count < prev:
            raise AssertionError(f"the number of converged eigenpairs (was {prev}, got {count}) "
                                 "cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def run(self):
        self.update()
        if self.tracker is not None:
            self.tracker(self)
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.tracker(self)

    def _start(self):
        n = self.iparams["n"]
        Ri = self._rayleigh_ritz_transform(self.X)
        M = _qform(_qform(self.A, self.X), Ri)
        E, Z = _symeig(M, self.bparams["largest"])
        return n, Ri, E, Z

    def _update_basic(self):
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            n, Ri, E, Z = self._start()
            self.X[:] = self.X @ (Ri @ Z)
            self.E[:] = E
            np_ = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _mm(self.iK, self.R)
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._rayleigh_ritz_transform(S_)
            E_, Z = _symeig(_qform(_qform(self.A, S_), Ri), largest)
            self.X[:, nc:] = S_ @ (Ri @ Z[:, :n - nc])
            self.E[nc:] = E_[:n - nc]
            P = S_ @ (Ri @ Z[:, n:2 * n - nc])
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n:n + np_] = P
            W = _mm(self.iK, self.R[:, nc:])
        self.ivars["converged_end"] = ns = n + np_ + W.shape[-1]
        self.S[:, n + np_:ns] = W

    def _update_ortho(self):
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            n, Ri, _E, Z = self._start()
            self.X = self.X @ (Ri @ Z)
            self.update_residual()
            np_ = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            E_, Z = _symeig(_qform(self.A, S_), largest)
            self.X[:, nc:] = S_ @ Z[:, :n - nc]
            self.E[nc:] = E_[:n - nc]
            basis = _f("linalg.qr")(Z[:n - nc, n - nc:].mT).Q
            P = S_ @ (Z[:, n - nc:] @ basis)
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n:n + np_] = P
            W = self._ortho(self.R[:, nc:], self.S[:, :n + np_])
        self.ivars["converged_end"] = ns = n + np_ + W.shape[-1]
        self.S[:, n + np_:ns] = W

    def _rayleigh_ritz_transform(self, S):
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = _f("linalg.cholesky")((SBS * d_row) * d_col, upper=True)
        return _f("linalg.solve_triangular")(R, d_row.diag_embed(), upper=True, left=False)

    def _svqb(self, U, drop, tau):
        if U.numel() == 0:
            return U
        where = _f("where")
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        nz = where(d.abs() != 0.0)
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if U.numel() == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
        d_col = (d ** -0.5).reshape(d.shape[0], 1)
        E, Z = _symeig((UBU * d_col) * d_col.mT)
        t = tau * E.abs().max()
        if drop:
            keep = where(E > t)[0]
            E, Z, d_col = E[keep], Z[:, keep], d_col[keep]
        else:
            E[where(E < t)[0]] = t
        return (U * d_col.mT) @ (Z * E ** -0.5)

    def _ortho(self, U, V):
        norm = _f("norm")
        fp, ip = self.fparams, self.iparams
        tau_ortho, tau_drop, tau_replace = fp["ortho_tol"], fp["ortho_tol_drop"], \
            fp["ortho_tol_replace"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [k for k in self.fvars if k.startswith("ortho_") and k.endswith("_rerr")]:
            self.fvars.pop(key)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = norm(_mm(self.B, V))
        BU = _mm(self.B, U)
        VBU = V.mT @ BU
        i = j = 0
        for i in range(ip["ortho_i_max"]):
            U = U - V @ VBU
            drop, tau_svqb = False, tau_drop
            for j in range(ip["ortho_j_max"]):
                if use_drop:
                    U = self._svqb(U, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    U = self._svqb(U, False, tau_replace)
                if U.numel() == 0:
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _mm(self.B, U)
                UBU = U.mT @ BU
                U_norm, BU_norm = norm(U), norm(BU)
                R_norm = norm(UBU - _f("eye")(UBU.shape[-1], dtype=UBU.dtype))
                rerr = float(R_norm) * float(BU_norm * U_norm) ** -1
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = V.mT @ BU
            rerr = float(norm(VBU)) * float(BV_norm * norm(U)) ** -1
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if ip["m"] < U.shape[-1] + V.shape[-1]:
                B = self.B
                if B is None:
                    raise AssertionError("B must not be None")
                raise ValueError(f"Overdetermined shape of U: #B-cols(={B.shape[-1]}) >= "
                                 f"#U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) must hold")
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U


def _params(m, n, k, niter, tol, largest, method, ortho_iparams, ortho_fparams, ortho_bparams):
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fparams.setdefault(key, tol)
        bparams.setdefault("ortho_use_drop", False)
    return iparams, fparams, bparams


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """``(E, X)``: k eigenvalues (largest by default) and eigenvectors of A X = B X diag(E)
    for symmetric A and positive-definite B (identity when None); X (m x n, n >= k) is the
    initial block (random by default). Not differentiable in dyngrad (see the module note)."""
    if A.requires_grad or (B is not None and B.requires_grad):
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest,
                                            method, tracker, ortho_iparams, ortho_fparams,
                                            ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                   ortho_fparams, ortho_bparams)


def _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
            ortho_fparams, ortho_bparams):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    from .. import float32, float64
    dtype = _floating_dtype(A)
    if tol is None:
        tol = {float32: 1.2e-07, float64: 2.23e-16}[dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    params = _params(m, n, k, niter, tol, largest, method, ortho_iparams, ortho_fparams,
                     ortho_bparams)
    randn = _f("randn")

    def solve(A_, B_, X_, index=None):
        X_ = randn((m, n), dtype=dtype) if X_ is None else X_
        if not (len(X_.shape) == 2 and tuple(X_.shape) == (m, n)):
            raise AssertionError(f"X shape mismatch: got {X_.shape}, expected {(m, n)}")
        if index is not None:
            params[0]["batch_index"] = index
        worker = _Worker(A_, B_, X_, iK, *params, method, tracker)
        worker.run()
        return worker.E[:k], worker.X[:, :k]

    if A.dim() == 2:
        return solve(A, B, X)
    batch = tuple(A.shape[:-2])
    N = 1
    for s in batch:
        N *= s
    bA = A.reshape((N, m, m))
    bB = B.reshape((N, m, m)) if B is not None else None
    bX = X.reshape((N,) + tuple(X.shape[-2:])) if X is not None else None
    Es, Xs = [], []
    for i in range(N):
        E_i, X_i = solve(bA[i], bB[i] if bB is not None else None,
                         bX[i] if bX is not None else None, i)
        Es.append(E_i)
        Xs.append(X_i)
    stack = _f("stack")
    return stack(Es).reshape(batch + (k,)), stack(Xs).reshape(batch + (m, k))


# -- the derivative (torch's _symeig_backward) ---------------------------------------------------
def _complete_eigenspace_backward(D_grad, U_grad, A, D, U):
    n = D.shape[-1]
    eye = _f("eye")(n, dtype=D.dtype)
    F = (1 - eye) / (D.unsqueeze(-2) - D.unsqueeze(-1) + eye)   # 1 / (D_j - D_i), 0 on diag
    Ut = U.mT
    return U @ ((_f("diag_embed")(D_grad) + (Ut @ U_grad) * F) @ Ut)


def _partial_eigenspace_backward(D_grad, U_grad, A, D, U, largest):
    Ut = U.mT
    m, k = A.shape[-1], D.shape[-1]
    proj = _f("eye")(m, dtype=A.dtype) - U @ Ut
    from .. import Generator
    draw = _f("randn")(*A.shape[:-1], m - k, dtype=A.dtype, generator=Generator())
    U_ortho = proj @ draw
    U_ortho_t = U_ortho.mT
    chr_poly = _char_poly(D)
    U_grad_projected = U_grad
    series = _f("zeros_like")(U_grad)
    for j in range(1, chr_poly.shape[-1]):
        poly_D = _vector_poly_value(chr_poly[..., j:], D)
        series = series + U_grad_projected * poly_D.unsqueeze(-2)
        U_grad_projected = A @ U_grad_projected
    at_A = U_ortho_t @ (_matrix_poly_value(chr_poly, A) @ U_ortho)
    sign = -1 if (largest and (j % 2 == 1)) else 1
    L = _f("linalg.cholesky")(sign * at_A)
    res = _complete_eigenspace_backward(D_grad, U_grad, A, D, U)
    return res - (U_ortho @ (sign * _f("cholesky_solve")(U_ortho_t @ series, L))) @ Ut


def _char_poly(roots):
    """Coefficients (a_0, ..., a_k = 1) of prod_i (x - roots_i), batched over leading dims."""
    k = roots.shape[-1]
    one = _f("ones_like")(roots.narrow(-1, 0, 1))
    coeffs = [one]   # the polynomial 1, lowest power first
    for i in range(k):
        r = roots.narrow(-1, i, 1)
        # (x - r) * sum_j c_j x^j: new_j = c_{j-1} - r c_j
        new = [-r * coeffs[0]]
        for j in range(1, len(coeffs)):
            new.append(coeffs[j - 1] - r * coeffs[j])
        new.append(coeffs[-1])
        coeffs = new
    return _f("cat")(coeffs, -1)


def _vector_poly_value(poly, x):
    """poly(x) by Horner's rule, poly's coefficients lowest power first (the last is 1)."""
    res = _f("ones_like")(x)
    for j in range(poly.shape[-1] - 2, -1, -1):
        res = poly[..., j].unsqueeze(-1) + x * res
    return res


def _matrix_poly_value(poly, X):
    n = X.shape[-1]
    eye = _f("eye")(n, dtype=X.dtype)
    res = eye.expand(X.shape)
    for j in range(poly.shape[-1] - 2, -1, -1):
        res = X @ res + poly[..., j].unsqueeze(-1).unsqueeze(-1) * eye
    return res


class LOBPCGAutogradFunction(Function):
    """lobpcg with a derivative with respect to A (B must be None to differentiate)."""

    @staticmethod
    def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None,
                largest=None, method=None, tracker=None, ortho_iparams=None,
                ortho_fparams=None, ortho_bparams=None):
        A = A.contiguous()
        if B is not None:
            B = B.contiguous()
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker,
                       ortho_iparams, ortho_fparams, ortho_bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        grads = [None] * 14
        A, B, D, U = ctx.saved_tensors
        largest = True if ctx.largest is None else ctx.largest
        if A.is_complex() or (B is not None and B.is_complex()):
            raise ValueError("lobpcg.backward does not support complex input yet. Note that "
                             "lobpcg.forward does though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        if U.shape[-1] == U.shape[-2]:
            grads[0] = _complete_eigenspace_backward(D_grad, U_grad, A, D, U)
        else:
            grads[0] = _partial_eigenspace_backward(D_grad, U_grad, A, D, U, largest)
        return tuple(grads)


FUNCTIONS["lobpcg"] = lobpcg
