"""QR in LAPACK's compact form and the products of Householder reflectors: ``geqrf``,
``linalg.householder_product`` (``orgqr``) and ``ormqr``.

Note [Householder reflectors]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``geqrf`` returns R above the diagonal of ``a`` and, below it, the reflectors' vectors v_i
(v_i[i] = 1 implied, zeros above); ``tau`` their scales, so that Q = H_0 H_1 ... H_{k-1} with
H_i = I - tau_i v_i v_i^H. NumPy's ``qr(mode="raw")`` runs the same LAPACK geqrf as torch.
``geqrf`` has no derivative (torch's NotImplementedError at backward time). The gradient of
Q = H_0 ... H_{k-1} E is taken reflector by reflector: with prefix P_i = H_0 ... H_{i-1} and
suffix S_i = H_{i+1} ... H_{k-1} E, gH_i = P_i^H gQ S_i^H; then (conjugate Wirtinger, see Note
[Complex gradients]) g tau_i = -v_i^H gH_i v_i and g v_i = -(conj(tau_i) gH_i + tau_i gH_i^H) v_i,
of which the strictly lower part lands in the input. Everything is written with dyngrad ops, so
double backward works; torch writes the same derivative with in-place updates.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .. import return_types as rt
from ..autograd.forward_ad import FROM_BACKWARD
from ._autograd_utils import conj
from ._registry import FUNCTIONS, METHODS, defop
from .linalg_decomp import call, fortran, not_implemented, write_out


def _f(name: str):
    return FUNCTIONS[name]


def _legacy(arr):
    return D.from_np(arr.dtype)._legacy


# -- geqrf ---------------------------------------------------------------------------------------
@defop("geqrf", node="GeqrfBackward0", promote=Promote.NONE, inputs=("self",), variants=(),
       outputs=("a", "tau"), scalars=(), kernel_dtypes=True, complex_autograd=False)
def geqrf(xp, self):
    if self.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        not_implemented(self, "geqrf_cpu")
    m, n = self.shape[-2:]
    k = min(m, n)
    if self.size == 0:
        return fortran(xp, self), xp.zeros(self.shape[:-2] + (k,), self.dtype)
    h, tau = xp.linalg.qr(self, mode="raw")
    a = xp.swapaxes(h, -1, -2).astype(self.dtype)
    return fortran(xp, a), xp.array(tau, dtype=self.dtype)


@geqrf.backward
def _(ctx, grad_a, grad_tau=None):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def _geqrf(input, *, out=None):
    """``(a, tau)``: the QR decomposition in LAPACK's compact form (Note [Householder
    reflectors])."""
    result = call(geqrf, (input,))
    if out is not None:
        for o, r in zip(out, result):
            write_out(r, o, lapack_layout=True, op="geqrf")
        return rt.geqrf(tuple(out))
    return rt.geqrf(result)


FUNCTIONS["geqrf"] = METHODS["geqrf"] = _geqrf


# -- the product of the reflectors (arrays) ------------------------------------------------------
def _reflector_vectors(xp, A, k):
    V = xp.tril(A[..., :, :k], -1)
    V[..., range(k), range(k)] = 1
    return V


def _apply_q(xp, A, tau, C):
    """Q C for Q = H_0 ... H_{k-1} (k = tau.shape[-1]), from the last reflector to the first."""
    k = tau.shape[-1]
    V = _reflector_vectors(xp, A, k)
    C = C.copy()
    for i in reversed(range(k)):
        v = V[..., :, i:i + 1]
        C -= tau[..., i, None, None] * (v @ (xp.swapaxes(v, -1, -2).conj() @ C))
    return C


def _eye_batch(xp, batch, rows, cols, dtype):
    E = xp.zeros(tuple(batch) + (rows, cols), dtype)
    E[..., range(min(rows, cols)), range(min(rows, cols))] = 1
    return E


# -- the gradient (tensors) ----------------------------------------------------------------------
def _reflectors(A, tau):
    """The vectors v_i (as the columns of V) and the matrices H_i, as dyngrad tensors."""
    m, k = A.shape[-2], tau.shape[-1]
    V = A.narrow(-1, 0, k).tril(-1) + _f("eye")(m, k, dtype=A.dtype)
    eye = _f("eye")(m, dtype=A.dtype)
    vs = [V.narrow(-1, i, 1) for i in range(k)]
    Hs = [eye - tau.narrow(-1, i, 1).unsqueeze(-1) * (v @ v.mH) for i, v in enumerate(vs)]
    return vs, Hs


def householder_backward(gQ, A, tau, E):
    """(gA, gtau) for Q = H_0 ... H_{k-1} E; see Note [Householder reflectors]."""
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1]
    vs, Hs = _reflectors(A, tau)
    prefixes = [None] * k
    P = None
    for i in range(k):
        prefixes[i] = P
        P = Hs[i] if P is None else P @ Hs[i]
    S = E
    gtaus, gvs = [None] * k, [None] * k
    for i in reversed(range(k)):
        gH = gQ @ S.mH
        if prefixes[i] is not None:
            gH = prefixes[i].mH @ gH
        v, t = vs[i], tau.narrow(-1, i, 1).unsqueeze(-1)
        gtaus[i] = -(v.mH @ gH @ v).squeeze(-1)
        gvs[i] = -((conj(t) * gH + t * gH.mH) @ v)
        S = Hs[i] @ S
    gtau = _f("cat")(gtaus, -1)
    gA = _f("cat")(gvs, -1).tril(-1)
    if n > k:
        zeros = _f("zeros")(*gA.shape[:-1], n - k, dtype=gA.dtype)
        gA = _f("cat")([gA, zeros], -1)
    return gA, gtau


# -- linalg.householder_product ------------------------------------------------------------------
def _check_householder(A, tau):
    name = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    if A.ndim > 2 and tau.shape[:-1] != A.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got [{', '.join(map(str, tau.shape[:-1]))}]")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {_legacy(tau)} does not match input dtype "
                           f"{_legacy(A)}")


@defop("linalg_householder_product", node="LinalgHouseholderProductBackward0",
       promote=Promote.NONE, inputs=("input", "tau"), variants=(),
       saves=("input", "tau", "result"), scalars=(), kernel_dtypes=True)
def linalg_householder_product(xp, input, tau):
    _check_householder(input, tau)
    if input.dtype.kind not in "fcV" or input.dtype.itemsize == 2:
        not_implemented(input, "orgqr_cpu")
    m, n = input.shape[-2:]
    E = _eye_batch(xp, input.shape[:-2], m, n, input.dtype)
    return fortran(xp, _apply_q(xp, input, tau, E))


@linalg_householder_product.backward
def _(ctx, grad):
    A, tau, _ = ctx.saved_tensors
    if not A.numel() or not tau.numel():
        return None, None
    m, n = A.shape[-2:]
    return householder_backward(grad, A, tau, _f("eye")(m, n, dtype=A.dtype))


linalg_householder_product.jvp(FROM_BACKWARD)


def householder_product(A, tau, *, out=None):
    """The first n columns of H_0 ... H_{k-1} (Note [Householder reflectors])."""
    return write_out(call(linalg_householder_product, (A, tau)), out, lapack_layout=True,
                     op="linalg_householder_product")


def orgqr(input, tau):
    """``torch.orgqr``: ``linalg.householder_product``."""
    return call(linalg_householder_product, (input, tau))


FUNCTIONS["linalg.householder_product"] = householder_product
FUNCTIONS["orgqr"] = METHODS["orgqr"] = orgqr


# -- ormqr ---------------------------------------------------------------------------------------
def _check_ormqr(A, tau, C, left):
    name = "torch.ormqr"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if C.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if C.shape[side] != A.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim and tau.shape[-1] != min(A.shape[-2], A.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[-2], "
                           "input.shape[-1])")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    if A.ndim != C.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {C.ndim} and input.ndim is "
                           f"equal to {A.ndim}")
    if A.ndim > 2:
        for what, shape in (("tau", tau.shape[:-1]), ("other", C.shape[:-2])):
            if shape != A.shape[:-2]:
                raise RuntimeError(f"{name}: Expected batch dimensions of {what} to be equal to "
                                   f"input.shape[:-2], but got [{', '.join(map(str, shape))}]")
    for what, arr in (("tau", tau), ("other", C)):
        if arr.dtype != A.dtype:
            raise RuntimeError(f"{name}: Expected input and {what} to have the same dtype, but "
                               f"input has dtype{_legacy(A)} and {what} has dtype {_legacy(arr)}")


@defop("ormqr", node="OrmqrBackward0", promote=Promote.NONE, inputs=("self", "input2", "input3"),
       variants=(), saves=("self", "input2", "input3", "result"), scalars=(),
       kernel_dtypes=True)
def ormqr(xp, self, input2, input3, left=True, transpose=False):
    _check_ormqr(self, input2, input3, left)
    if self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        not_implemented(self, "ormqr_cpu")
    m = self.shape[-2]
    Q = _apply_q(xp, self, input2, _eye_batch(xp, self.shape[:-2], m, m, self.dtype))
    if transpose:
        Q = xp.swapaxes(Q, -1, -2).conj()
    return fortran(xp, Q @ input3 if left else input3 @ Q)


@ormqr.backward
def _(ctx, grad):
    A, tau, C, _ = ctx.saved_tensors
    need_A, need_tau, need_C = ctx.needs_input_grad
    left, transpose = ctx.left, ctx.transpose
    m = A.shape[-2]
    eye = _f("eye")(m, dtype=A.dtype)
    Q = _f("linalg.householder_product")(_pad_columns(A, m), _pad_tau(tau, m)) \
        if tau.shape[-1] else eye
    opQ = Q.mH if transpose else Q
    gC = (opQ.mH @ grad if left else grad @ opQ.mH) if need_C else None
    gA = gtau = None
    if (need_A or need_tau) and tau.shape[-1]:
        g_op = grad @ C.mH if left else C.mH @ grad
        gQ = g_op.mH if transpose else g_op
        gA, gtau = householder_backward(gQ, A, tau, eye)
    return gA, gtau, gC


def _pad_columns(A, m):
    n = A.shape[-1]
    if n >= m:
        return A.narrow(-1, 0, m)
    return _f("cat")([A, _f("zeros")(*A.shape[:-1], m - n, dtype=A.dtype)], -1)


def _pad_tau(tau, m):
    k = tau.shape[-1]
    if k == m:
        return tau
    return _f("cat")([tau, _f("zeros")(*tau.shape[:-1], m - k, dtype=tau.dtype)], -1)


def _ormqr(input, tau, other, left: bool = True, transpose: bool = False, *, out=None):
    """op(Q) @ other (other @ op(Q) unless `left`) for the Q of ``geqrf``'s (input, tau); op
    is the conjugate transpose when `transpose`."""
    return write_out(call(ormqr, (input, tau, other), left, transpose), out, lapack_layout=True,
                     op="ormqr")


FUNCTIONS["ormqr"] = METHODS["ormqr"] = _ormqr
