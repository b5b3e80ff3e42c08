"""The matrix exponential: ``linalg.matrix_exp``, also ``torch.matrix_exp`` and
``Tensor.matrix_exp``; one node, ``LinalgMatrixExpBackward0``.

Note [Scaling and squaring]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
exp(A) = exp(A / 2^s)^(2^s). Each matrix is scaled until its 1-norm is at most theta_13, where
the [13/13] Padé approximant r(X) = (V - U)^{-1} (V + U) is exact to double rounding (Higham,
"The scaling and squaring method for the matrix exponential revisited", 2005), and the result
is squared s times. Every floating dtype is computed in double precision and rounded once:
torch's kernel (a Taylor polynomial of the input's own precision) lands within a unit of
rounding of it, except for float16, where torch's coefficients overflow.

The derivative of exp at A in direction E is the top-right block of exp([[A, E], [0, A]])
(Van Loan, 1978). The backward is that block for [[A^H, G], [0, A^H]], built from dyngrad ops
so that it is itself differentiable; the forward-mode rule is the same with [[A, E], [0, A]].
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from ._registry import FUNCTIONS, METHODS, defop
from .linalg_decomp import check_square

_THETA_13 = 5.371920351148152
_PADE_13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
            129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
            40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def _check_input(A, name="linalg.matrix_exp"):
    if A.dtype.kind not in "fcV":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {D.from_np(A.dtype)._legacy}")
    check_square(A, name)


def matrix_exp_array(xp, A):
    """exp of each matrix of a batch, in `A`'s dtype (Note [Scaling and squaring])."""
    n = A.shape[-1]
    if A.size == 0:
        return xp.zeros(A.shape, A.dtype)
    if n == 1:
        return xp.exp(A)
    work = xp.complex128 if A.dtype.kind == "c" else xp.float64
    X = xp.array(A, dtype=work).reshape(-1, n, n)
    norm = xp.abs(X).sum(axis=-2).max(axis=-1)
    finite = xp.isfinite(norm)
    ratio = xp.where(finite & (norm > _THETA_13), norm / _THETA_13, 1.0)
    s = xp.maximum(xp.ceil(xp.log2(ratio)), 0).astype(xp.int64)
    X = X / (2.0 ** s)[:, None, None]
    b = _PADE_13
    eye = xp.eye(n, dtype=work)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2)
             + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 \
        + b[0] * eye
    try:
        R = xp.linalg.solve(V - U, V + U)
    except xp.linalg.LinAlgError:       # non-finite entries: NaNs, as torch's
        R = xp.full(X.shape, xp.nan, work)
    for k in range(int(s.max()) if s.size else 0):
        R = xp.where((s > k)[:, None, None], R @ R, R)
    return R.reshape(A.shape).astype(A.dtype)


@defop("linalg_matrix_exp", node="LinalgMatrixExpBackward0", promote=Promote.NONE,
       variants=(), saves=("self",), scalars=(), kernel_dtypes=True)
def _linalg_matrix_exp(xp, self):
    _check_input(self)
    return xp.ascontiguousarray(matrix_exp_array(xp, self))


def _differential(A, E):
    """The top-right block of exp([[A, E], [0, A]]): the derivative of exp at A along E."""
    n = A.shape[-1]
    cat = FUNCTIONS["cat"]
    zeros = FUNCTIONS["zeros_like"](A)
    if tuple(E.shape) != tuple(A.shape):
        E = E.expand(*A.shape)
    block = cat([cat([A, E], -1), cat([zeros, A], -1)], -2)
    return _linalg_matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n)


@_linalg_matrix_exp.backward
def _(ctx, grad):
    A, = ctx.saved_tensors
    return _differential(A.mH, grad)


@_linalg_matrix_exp.jvp
def _(ctx, self_t):
    return _differential(ctx.primals[0], self_t)


def linalg_matrix_exp(A):
    """exp(A) = sum_k A^k / k! of a square matrix, or of each matrix of a batch (torch's
    binding takes no ``out=``)."""
    return _linalg_matrix_exp(A)


def matrix_exp(input):
    """``torch.matrix_exp``: ``linalg.matrix_exp``."""
    return _linalg_matrix_exp(input)


FUNCTIONS["linalg.matrix_exp"] = linalg_matrix_exp
FUNCTIONS["matrix_exp"] = METHODS["matrix_exp"] = matrix_exp
