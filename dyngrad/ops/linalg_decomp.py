"""Factorisations and solvers: ``linalg.inv``, ``det``, ``slogdet``/``logdet``, ``solve``,
``cholesky``, ``solve_triangular``, ``triangular_solve`` and ``cholesky_solve``, with
torch's derivatives, its errors for singular inputs (``linalg.LinAlgError``) and its layouts.

Note [LAPACK layouts]
~~~~~~~~~~~~~~~~~~~~~
torch's CPU kernels hand matrices to LAPACK in column-major ("Fortran") order and return them
so: ``inv``, ``solve``, ``cholesky`` and the factors of ``qr``/``svd``/``eigh`` have strides
``(..., 1, rows)``, each matrix of a batch stored one after the other. ``_fortran`` gives a
NumPy result that layout. Vectors and scalars (``det``, singular values) are contiguous.

Note [Singular inputs]
~~~~~~~~~~~~~~~~~~~~~~
NumPy reports a singular matrix without saying where; torch names the first zero pivot of the
LU factorisation ("The diagonal element 2 is zero") and, for batches, the first failing matrix.
On NumPy's error ``_lu`` (partial pivoting as LAPACK's getrf) finds both. ``det``'s backward
follows torch: without ``create_graph`` it is ``grad * det * A^{-H}`` with a singular matrix's
contribution zero; with ``create_graph`` a (nearly) singular matrix takes the SVD formula for
the adjugate, so that second derivatives stay finite.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_shapes, contiguous_strides
from ..autograd import grad_mode as _gm
from .. import return_types as rt
from . import _dispatch, _registry
from ._autograd_utils import conj
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import FROM_BACKWARD


class _LinAlgError(RuntimeError):
    """Raised by linalg functions for singular or non positive-definite inputs (torch's
    ``torch.linalg.LinAlgError``, a RuntimeError)."""


_LinAlgError.__module__ = "dyngrad.linalg"
FUNCTIONS["linalg.LinAlgError"] = _LinAlgError


def _m(name: str):
    return METHODS[name]


def _f(name: str):
    return FUNCTIONS[name]


# -- checks --------------------------------------------------------------------------------------
def check_floating(arr, name: str, half: str | None = None) -> None:
    """torch's "Expected a floating point or complex tensor" check; `half` is the error a
    float16 input gets (a message, or a kernel name for "not implemented")."""
    legacy = D.from_np(arr.dtype)._legacy
    if arr.dtype.kind not in "fcV":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {legacy}")
    if arr.dtype.itemsize == 2:
        if half is None:
            raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {legacy}")
        raise NotImplementedError(f"\"{half}\" not implemented for '{legacy}'")


def check_square(arr, name: str, what: str = "A") -> None:
    if arr.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    if arr.shape[-1] != arr.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{arr.shape[-2]} by {arr.shape[-1]} matrices")


def not_implemented(arr, kernel: str) -> None:
    legacy = D.from_np(arr.dtype)._legacy
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{legacy}'")


def batch_prefix(arr, flat_index: int) -> str:
    return "" if arr.ndim == 2 else f"(Batch element {flat_index}): "


# -- helpers on arrays ---------------------------------------------------------------------------
def fortran(xp, arr):
    """A copy of `arr` with each matrix column-major (Note [LAPACK layouts]): torch's
    batched_matrix_contiguous_strides, exact for empty and size-1 dims too."""
    if arr.ndim < 2:
        return xp.array(arr, order="C")
    from ..backends import numpy_backend as npb
    strides = list(contiguous_strides(arr.shape))
    strides[-1], strides[-2] = max(arr.shape[-2], 1), 1
    out = npb.strided(xp.empty(max(arr.size, 1), arr.dtype), arr.shape, strides, 0)
    out[...] = arr
    return out


def _lu(xp, a):
    """(LU, pivots, info) of a batch of matrices: LAPACK getrf's unblocked algorithm.

    `pivots` are 1-based int32 row interchanges, `info` the 1-based index of the first zero
    pivot per matrix (0: none; a zero column is skipped). The pivot search measures complex
    entries as LAPACK's izamax does, |re| + |im|. Used by linalg_lu.py (Note [LU with partial
    pivoting]), for torch's error messages and ``_saved_LU``.
    """
    lu = xp.array(a, dtype=a.dtype, order="C")
    *batch, m, n = lu.shape
    count = 1
    for size in batch:
        count *= size
    lu = lu.reshape(count, m, n)
    k = min(m, n)
    pivots = xp.zeros((count, k), xp.int32)
    info = xp.zeros(count, xp.int32)
    rows = xp.arange(count)
    for j in range(k):
        column = lu[:, j:, j]
        size = xp.abs(column.real) + xp.abs(column.imag) if lu.dtype.kind == "c" \
            else xp.abs(column)
        p = j + xp.argmax(size, axis=1)
        pivots[:, j] = p + 1
        pivot = lu[rows, p, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        row_j, row_p = lu[rows, j].copy(), lu[rows, p].copy()
        lu[rows, j], lu[rows, p] = row_p, row_j
        ok = ~zero
        if j + 1 < m and ok.any():
            lu[ok, j + 1:, j] *= (1 / pivot[ok])[:, None]
            lu[ok, j + 1:, j + 1:] -= lu[ok, j + 1:, j, None] * lu[ok, j, None, j + 1:]
    return (fortran(xp, lu.reshape(*batch, m, n)), pivots.reshape(*batch, k),
            info.reshape(batch))


def _first_failure(xp, info):
    """(flat batch index, info) of the first failing matrix, or None."""
    flat = info.reshape(-1)
    bad = xp.nonzero(flat)[0]
    return None if not bad.size else (int(bad[0]), int(flat[bad[0]]))


def lu_property(name: str, index: int, of_transpose: bool = False):
    """A node attribute (``_saved_LU``, ``_saved_pivots``) computed from the saved ``A``: the
    LU factorisation torch keeps, which dyngrad's formulas do not need. With `of_transpose`,
    a contiguous real A is factorised as A^T (torch hands LAPACK the column-major view)."""
    def get(ctx):
        A = ctx._saved_A
        from ..backends import numpy_backend as npb
        data = A._data
        if of_transpose and A.is_contiguous() and not A.is_complex():
            data = npb.xp.swapaxes(data, -1, -2)
        return _dispatch._wrap(_lu(npb.xp, data)[index])
    get.__name__ = name
    return property(get)


def call(spec, inputs, *args, **kwargs):
    """Run `spec` on `inputs` (its kernel returns every output in its final dtype: an SVD's
    singular values stay real for complex inputs, ``info`` stays int32)."""
    return spec(*inputs, *args, **kwargs)


def write_out(result, out, lapack_layout: bool = False, op: str | None = None):
    """Copy a composite's result into ``out=``. A resized ``out`` is contiguous, or with
    `lapack_layout` takes the result's own strides (Note [LAPACK layouts]), as torch's. `op`
    names the primitive in torch's error for a result that requires grad."""
    if out is None:
        return result
    check_out_grad(result, op)
    out._check_writeable()   # (an expanded out=: Note [out= and memory overlap] in _dispatch.py)
    from ..backends import numpy_backend as npb
    data = result._data
    resized = tuple(out.shape) != tuple(data.shape)
    if not lapack_layout:
        data = npb.xp.array(data, order="C")
    _dispatch._write_out(_registry.OPS["mm"], out, data)
    if lapack_layout and resized and out.stride() != result.stride():
        out._data = npb.strided(out._storage_obj().buffer, data.shape, result.stride(),
                                out._offset)
        npb.xp.copyto(out._data, data, casting="unsafe")
    return out


def write_outs(name: str, results, out, op: str | None = None, position: int = 1):
    """``out=`` of a function returning several tensors (``linalg.qr(A, out=(Q, R))``): torch's
    TypeErrors for an `out` that is not a tuple of as many tensors (`position`: out's index
    among the binding's parameters, which the message counts), then each result written as
    ``write_out`` writes it (LAPACK layouts), and the outs returned as torch returns them, a
    ``return_types.<name>_out``. `name` is torch's binding (``linalg_qr``)."""
    _dispatch.check_out_tuple(name, out, len(results), position)
    for r in results:   # (before anything is written)
        check_out_grad(r, op)
    for r, o in zip(results, out):
        write_out(r, o, lapack_layout=True)
    return getattr(rt, f"{name}_out")(tuple(out))


def check_out_grad(result, op):
    if op is not None and result.requires_grad:
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _eye_like(A):
    n = A.shape[-1]
    return _f("eye")(n, dtype=A.dtype)


def _triangular_solve_array(xp, A, B, upper, left=True, unitriangular=False):
    """X with A X = B (X A = B when not `left`) for triangular A, broadcasting batches.

    Only the `upper` (or lower) triangle of A is read, its diagonal taken as ones when
    `unitriangular`. Zeros on the diagonal give LAPACK trsm's infs and NaNs.
    """
    if not left:
        return xp.swapaxes(_triangular_solve_array(xp, xp.swapaxes(A, -1, -2),
                                                   xp.swapaxes(B, -1, -2), not upper,
                                                   True, unitriangular), -1, -2)
    n = A.shape[-1]
    T = xp.triu(A) if upper else xp.tril(A)
    if unitriangular:
        T = T.copy()
        idx = xp.arange(n)
        T[..., idx, idx] = 1
    batch = tuple(broadcast_shapes(A.shape[:-2], B.shape[:-2]))
    T = xp.broadcast_to(T, batch + (n, n))
    X = xp.array(xp.broadcast_to(B, batch + B.shape[-2:]), dtype=xp.result_type(A, B))
    diag = xp.diagonal(T, 0, -2, -1)
    if n and xp.all(diag != 0) and xp.all(xp.isfinite(T)):
        return xp.linalg.solve(T, X)
    order = range(n - 1, -1, -1) if upper else range(n)
    for j in order:
        row = X[..., j, :]
        live = row != 0                     # trsm skips zero entries (0 / 0 stays 0)
        row = xp.where(live, row / diag[..., j, None], row)
        X[..., j, :] = row
        rest = slice(0, j) if upper else slice(j + 1, n)
        X[..., rest, :] -= xp.where(live[..., None, :], T[..., rest, j, None] * row[..., None, :],
                                    0)
    return X


# -- inv -------------------------------------------------------------------------------------------
@defop("linalg_inv_ex", node="LinalgInvExBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("inverse",), outputs=("inverse", "info"), nondiff_outputs=(1,),
       scalars=(), kernel_dtypes=True)
def linalg_inv_ex(xp, A, *, check_errors=False, api="linalg.inv_ex"):
    name = "linalg.inv"
    check_floating(A, name)
    check_square(A, name)
    info = xp.zeros(A.shape[:-2], xp.int32)
    if A.size == 0:
        return fortran(xp, A), info
    try:
        inverse = xp.linalg.inv(A)
    except xp.linalg.LinAlgError:
        _, _, info = _lu(xp, A)
        failure = _first_failure(xp, info)
        if check_errors and failure is not None:
            index, pivot = failure
            raise _LinAlgError(f"{api}: {batch_prefix(A, index)}The diagonal element {pivot} "
                               "is zero, the inversion could not be completed because the "
                               "input matrix is singular.") from None
        eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)
        inverse = _lu_solve_array(xp, A, eye)
    return fortran(xp, inverse), info


def _lu_solve_array(xp, A, B):
    """A^{-1} B through the LU factors, infs and NaNs where A is singular."""
    lu, pivots, _ = _lu(xp, A)
    X = xp.array(xp.broadcast_to(B, lu.shape[:-2] + B.shape[-2:]))
    count = X.reshape(-1, *X.shape[-2:]).shape[0]
    flat_x, flat_p = X.reshape(count, *X.shape[-2:]), pivots.reshape(count, -1)
    for b in range(count):
        for j, p in enumerate(flat_p[b] - 1):
            flat_x[b, [j, p]] = flat_x[b, [p, j]]
    X = flat_x.reshape(X.shape)
    X = _triangular_solve_array(xp, lu, X, upper=False, unitriangular=True)
    return _triangular_solve_array(xp, lu, X, upper=True)


@linalg_inv_ex.backward
def _(ctx, grad, _info=None):
    inverse, = ctx.saved_tensors
    inverse_h = inverse.mH
    return -(inverse_h @ (grad @ inverse_h))


linalg_inv_ex.jvp(FROM_BACKWARD)


def inv_ex(A, *, check_errors: bool = False, out=None):
    """``(inverse, info)``: the inverse and, per matrix, 0 or the first zero pivot."""
    result = call(linalg_inv_ex, (A,), check_errors=check_errors)
    if out is not None:
        return write_outs("linalg_inv_ex", result, out, "linalg_inv_ex", 2)
    return rt.linalg_inv_ex(result)


def inv(A, *, out=None):
    """The inverse of a square matrix (or a batch); ``linalg.LinAlgError`` when singular."""
    result = call(linalg_inv_ex, (A,), check_errors=True, api="linalg.inv")[0]
    return write_out(result, out, lapack_layout=True, op="linalg_inv_ex")


def inverse(input, *, out=None):
    """``torch.inverse``: an alias of ``linalg.inv``."""
    return inv(input, out=out)


FUNCTIONS["linalg.inv_ex"] = inv_ex
FUNCTIONS["linalg.inv"] = inv
FUNCTIONS["inverse"] = METHODS["inverse"] = inverse


# -- det, slogdet, logdet --------------------------------------------------------------------------
@defop("_linalg_det", node="LinalgDetBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("A", "result"), scalars=(), kernel_dtypes=True)
def _linalg_det(xp, A, name="linalg.det"):
    check_floating(A, name, half="lu_cpu")
    check_square(A, name)
    if A.shape[-1] == 0:
        return xp.ones(A.shape[:-2], A.dtype)
    return xp.array(xp.linalg.det(A), dtype=A.dtype)


_linalg_det.node_cls._saved_LU = lu_property("_saved_LU", 0, of_transpose=True)
_linalg_det.node_cls._saved_pivots = lu_property("_saved_pivots", 1, of_transpose=True)


@_linalg_det.backward
def _(ctx, grad):
    A, det = ctx.saved_tensors
    if A.numel() == 0:
        return _f("zeros_like")(A)
    d = grad * conj(det)   # det is holomorphic: Note [Complex gradients]
    if not _gm.is_grad_enabled():
        # grad * det * A^{-H}; an exactly singular matrix (det == 0) contributes zeros
        singular = det == 0
        safe = _f("where")(singular.unsqueeze(-1).unsqueeze(-1), _eye_like(A), A)
        return solve(safe.mH, _diag(d, A))
    eps = D.finfo(A.dtype).eps
    near_singular = det.abs() < 100 * eps
    if not bool(near_singular.any()):
        return solve(A.mH, _diag(d, A))
    by_svd = _det_backward_svd(A, grad)
    if bool(near_singular.all()):
        return by_svd
    safe = _f("where")(near_singular.unsqueeze(-1).unsqueeze(-1), _eye_like(A), A)
    return _f("where")(near_singular.unsqueeze(-1).unsqueeze(-1), by_svd,
                       solve(safe.mH, _diag(d, A)))


_linalg_det.jvp(FROM_BACKWARD)


def _diag(values, A):
    """``values`` (one per matrix) times the identity, shaped like `A`."""
    return _f("diag_embed")(values.unsqueeze(-1).expand(*A.shape[:-1]))


def _det_backward_svd(A, grad):
    """The adjugate of A (transposed) times grad, through A = U S Vh: finite when singular."""
    from .linalg_spectral import svd
    U, S, Vh = svd(A)
    alpha = conj(_linalg_det(U) * _linalg_det(Vh)) * grad
    k = S.shape[-1]
    result = None
    for i in range(k):     # D_i = alpha * prod_{j != i} S_j, and sum_i D_i u_i v_i^H
        others = alpha
        for j in range(k):
            if j != i:
                others = others * S.select(-1, j)
        term = (U.narrow(-1, i, 1) @ Vh.narrow(-2, i, 1)) * others.unsqueeze(-1).unsqueeze(-1)
        result = term if result is None else result + term
    return result


def det(A, *, out=None):
    """The determinant of a square matrix (or of each matrix of a batch)."""
    return write_out(call(_linalg_det, (A,)), out, op="_linalg_det")


@defop("_linalg_slogdet", node="LinalgSlogdetBackward0", promote=Promote.NONE, inputs=("A",),
       variants=(), saves=("A", "sign"), outputs=("sign", "logabsdet"), scalars=(),
       kernel_dtypes=True)
def _linalg_slogdet(xp, A, name="linalg.slogdet"):
    check_floating(A, name)
    check_square(A, name)
    if A.shape[-1] == 0:
        return xp.ones(A.shape[:-2], A.dtype), xp.zeros(A.shape[:-2], A.real.dtype)
    sign, logabsdet = xp.linalg.slogdet(A)
    return (xp.array(sign, dtype=A.dtype),
            xp.array(logabsdet, dtype=A.real.dtype))


_linalg_slogdet.node_cls._saved_LU = lu_property("_saved_LU", 0, of_transpose=True)
_linalg_slogdet.node_cls._saved_pivots = lu_property("_saved_pivots", 1, of_transpose=True)


@_linalg_slogdet.backward
def _(ctx, grad_sign, grad_logabsdet):
    A, sign = ctx.saved_tensors
    g = grad_logabsdet
    if A.is_complex():
        # the sign of a complex determinant moves too (its phase is Im(log det)): torch's
        # slogdet_backward adds i Im(grad_sign * sign.conj()) to the gradient of logabsdet
        if grad_sign is not None:
            turn = (grad_sign * sign.conj()).imag * 1j
            g = turn if g is None else g + turn
        if g is None:
            return None
        g = g.to(A.dtype)
    elif g is None:
        return None      # the sign of a real determinant is locally constant
    if not _gm.is_grad_enabled():
        # torch solves with the forward's LU: a singular A gives infs, not an error
        return solve_ex(A.mH, _diag(g, A))[0]
    return solve(A.mH, _diag(g, A))


_linalg_slogdet.jvp(FROM_BACKWARD)


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of the determinant (``linalg.slogdet``)."""
    result = call(_linalg_slogdet, (A,))
    if out is not None:
        return write_outs("linalg_slogdet", result, out, "_linalg_slogdet")
    return rt.linalg_slogdet(result)


def torch_slogdet(input, *, out=None):
    """``torch.slogdet``: ``linalg.slogdet`` under torch's older result type."""
    result = call(_linalg_slogdet, (input,))
    if out is not None:
        return write_outs("slogdet", result, out, "_linalg_slogdet")
    return rt.slogdet(result)


def logdet(input):
    """log(det(A)): NaN for a negative determinant, -inf for a singular matrix."""
    sign, logabsdet = call(_linalg_slogdet, (input,), name="logdet")
    if input.is_complex():
        return sign.log() + logabsdet
    return _f("where")(sign == -1, float("nan"), logabsdet)


FUNCTIONS["linalg.det"] = det
FUNCTIONS["det"] = METHODS["det"] = lambda input: det(input)
FUNCTIONS["linalg.slogdet"] = slogdet
FUNCTIONS["slogdet"] = METHODS["slogdet"] = torch_slogdet
FUNCTIONS["logdet"] = METHODS["logdet"] = logdet


# -- solve ---------------------------------------------------------------------------------------
@defop("_linalg_solve_ex", node="LinalgSolveExBackward0", promote=Promote.NONE,
       inputs=("A", "B"), variants=(), saves=("A", "result"), outputs=("result", "info"),
       nondiff_outputs=(1,), scalars=(), kernel_dtypes=True)
def _linalg_solve_ex(xp, A, B, *, left=True, check_errors=False, api="torch.linalg.solve_ex"):
    name = "linalg.solve"
    check_floating(A, name, half="lu_cpu")
    check_square(A, name)
    if B.dtype != A.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of "
                           f"type {D.from_np(A.dtype)._legacy} and B of type "
                           f"{D.from_np(B.dtype)._legacy} instead")
    vector = B.ndim == 1 or (A.ndim - 1 == B.ndim and B.shape == A.shape[:-1])
    if vector:
        B = B[..., None]
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if vector and not left:
        raise RuntimeError(f"{name}: Vector broadcasting of the left hand side is not supported "
                           "for left=False. In this case linalg.solve is equivalent to B / "
                           "A.squeeze(-1)")
    batch = tuple(broadcast_shapes(B.shape[:-2], A.shape[:-2]))
    A_ = xp.broadcast_to(A, batch + A.shape[-2:])
    B_ = xp.broadcast_to(B, batch + B.shape[-2:])
    if not left:
        A_, B_ = xp.swapaxes(A_, -1, -2), xp.swapaxes(B_, -1, -2)
    info = xp.zeros(A.shape[:-2], xp.int32)
    try:
        X = xp.linalg.solve(A_, B_) if A_.size and B_.size else xp.zeros(B_.shape, A.dtype)
    except xp.linalg.LinAlgError:
        _, _, info = _lu(xp, A)
        if check_errors:
            index = _first_failure(xp, _lu(xp, A_)[2])
            prefix = batch_prefix(A_, index[0] if index else 0)
            raise _LinAlgError(f"{api}: {prefix}The solver failed because the input matrix is "
                               "singular.") from None
        X = _lu_solve_array(xp, A_, B_)
    X = fortran(xp, X)
    if not left:
        X = xp.swapaxes(X, -1, -2)
    if vector:
        # the result keeps the layout of the vector case's matrix (torch's meta function)
        X = fortran(xp, X[..., 0])
    return X, info


_linalg_solve_ex.node_cls._saved_LU = lu_property("_saved_LU", 0)
_linalg_solve_ex.node_cls._saved_pivots = lu_property("_saved_pivots", 1)


@_linalg_solve_ex.backward
def _(ctx, grad, _info=None):
    A, X = ctx.saved_tensors
    need_A, need_B = ctx.needs_input_grad
    left = ctx.left
    B_shape, A_shape = tuple(ctx.B_shape), tuple(ctx.A_shape)
    vector = len(B_shape) == 1 or (len(A_shape) - 1 == len(B_shape) and B_shape == A_shape[:-1])
    if vector:   # work with matrices, as the forward did
        grad, X = grad.unsqueeze(-1), X.unsqueeze(-1)
    gB = solve(A.mH, grad, left=left)
    gA = None
    if need_A:
        gA = -(gB @ X.mH) if left else -(X.mH @ gB)
    if vector:
        gB = gB.squeeze(-1)
    return gA, gB if need_B else None


_linalg_solve_ex.jvp(FROM_BACKWARD)


def solve(A, B, *, left: bool = True, out=None):
    """X with AX = B (XA = B when not `left`); B may be a vector or a batch of them."""
    result = call(_linalg_solve_ex, (A, B), left=left, check_errors=True,
                  api="torch.linalg.solve")[0]
    return write_out(result, out, lapack_layout=True, op="_linalg_solve_ex")


def solve_ex(A, B, *, left: bool = True, check_errors: bool = False, out=None):
    """``(result, info)``: info is 0 or the first zero pivot of A's LU factorisation."""
    result = call(_linalg_solve_ex, (A, B), left=left, check_errors=check_errors)
    if out is not None:
        return write_outs("linalg_solve_ex", result, out, "_linalg_solve_ex", 4)
    return rt.linalg_solve_ex(result)


FUNCTIONS["linalg.solve"] = solve
FUNCTIONS["linalg.solve_ex"] = solve_ex


# -- cholesky ------------------------------------------------------------------------------------
@defop("linalg_cholesky_ex", node="LinalgCholeskyExBackward0", promote=Promote.NONE,
       variants=(), saves=("L",), outputs=("L", "info"), nondiff_outputs=(1,), scalars=(),
       kernel_dtypes=True)
def linalg_cholesky_ex(xp, self, *, upper=False, check_errors=False,
                       api="linalg.cholesky_ex"):
    name = "linalg.cholesky"
    check_floating(self, name, half="cholesky_cpu")
    check_square(self, name)
    info = xp.zeros(self.shape[:-2], xp.int32)
    if self.size == 0:
        return fortran(xp, self), info
    try:
        L = xp.linalg.cholesky(self, upper=upper)
    except xp.linalg.LinAlgError:
        lower = self if not upper else xp.swapaxes(self, -1, -2).conj()
        L, info = _cholesky_unblocked(xp, lower)
        failure = _first_failure(xp, info)
        if check_errors and failure is not None:
            index, order = failure
            raise _LinAlgError(f"{api}: {batch_prefix(self, index)}The factorization could "
                               "not be completed because the input is not positive-definite "
                               f"(the leading minor of order {order} is not "
                               "positive-definite).") from None
        if upper:
            L = xp.swapaxes(L, -1, -2).conj()
    return fortran(xp, L), info


def _cholesky_unblocked(xp, A):
    """(L, info) as LAPACK's potf2 leaves them: the factor's columns up to the first
    non-positive pivot (stored unrooted), the rest of the lower triangle untouched."""
    flat = xp.tril(A).reshape(-1, *A.shape[-2:]).copy()
    info = xp.zeros(flat.shape[0], xp.int32)
    n = A.shape[-1]
    for b in range(flat.shape[0]):
        L = flat[b]
        for j in range(n):
            d = L[j, j] - xp.vdot(L[j, :j], L[j, :j])
            if not d.real > 0:
                L[j, j] = d
                info[b] = j + 1
                break
            L[j, j] = xp.sqrt(d.real)
            L[j + 1:, j] = (L[j + 1:, j] - L[j + 1:, :j] @ L[j, :j].conj()) / L[j, j]
    return flat.reshape(A.shape), info.reshape(A.shape[:-2])


@linalg_cholesky_ex.backward
def _(ctx, grad, _info=None):
    L, = ctx.saved_tensors
    if ctx.upper:
        L, grad = L.mH, grad.mH
    # gA = L^{-H} Phi L^{-1} (Murray 2016) with torch's Phi: 0.5 (P + tril(P, -1)^H) for
    # P = tril(L^H gL), Hermitian but for the (complex) diagonal, as torch's
    phi = (L.mH @ grad).tril()
    phi = 0.5 * (phi + phi.tril(-1).mH)
    gA = solve_triangular(L.mH, phi, upper=True)
    return solve_triangular(L, gA, upper=False, left=False)


@linalg_cholesky_ex.jvp
def _(ctx, self_t):   # L_t = L Phi(L^{-1} A_t L^{-H}); Phi: tril, half diagonal
    L = ctx.result[0]
    if ctx.upper:
        L = L.mH
    X = solve_triangular(L, self_t, upper=False)
    X = solve_triangular(L.mH, X, upper=True, left=False)
    phi = X.tril() - 0.5 * _f("diag_embed")(X.diagonal(0, -2, -1))
    L_t = L @ phi
    return (L_t.mH if ctx.upper else L_t), None


def cholesky(A, *, upper: bool = False, out=None):
    """The Cholesky factor L (A = L L^H), or U = L^H with `upper`."""
    result = call(linalg_cholesky_ex, (A,), upper=upper, check_errors=True,
                  api="linalg.cholesky")[0]
    return write_out(result, out, lapack_layout=True, op="linalg_cholesky_ex")


def cholesky_ex(A, *, upper: bool = False, check_errors: bool = False, out=None):
    """``(L, info)``: info is 0 or the order of the first non positive-definite minor."""
    result = call(linalg_cholesky_ex, (A,), upper=upper, check_errors=check_errors)
    if out is not None:
        return write_outs("linalg_cholesky_ex", result, out, "linalg_cholesky_ex", 3)
    return rt.linalg_cholesky_ex(result)


FUNCTIONS["linalg.cholesky"] = cholesky
FUNCTIONS["linalg.cholesky_ex"] = cholesky_ex


# -- triangular solvers --------------------------------------------------------------------------
def _check_solver_shapes(A, B, name, left=True):
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")


@defop("linalg_solve_triangular", node="LinalgSolveTriangularBackward0", promote=Promote.NONE,
       inputs=("self", "B"), variants=(), saves=("self", "result"), scalars=(), kernel_dtypes=True)
def linalg_solve_triangular(xp, self, B, *, upper, left=True, unitriangular=False):
    name = "linalg.solve_triangular"
    check_square(self, name)
    _check_solver_shapes(self, B, name, left)
    if self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        not_implemented(self, "triangular_solve_cpu")
    B = B.astype(self.dtype)
    return fortran(xp, _triangular_solve_array(xp, self, B, upper, left, unitriangular))


@linalg_solve_triangular.backward
def _(ctx, grad):
    A, X = ctx.saved_tensors
    need_A, need_B = ctx.needs_input_grad
    upper, left, unit = ctx.upper, ctx.left, ctx.unitriangular
    gB = solve_triangular(A.mH, grad, upper=not upper, left=left, unitriangular=unit)
    gA = None
    if need_A:
        gA = -(gB @ X.mH) if left else -(X.mH @ gB)
        gA = gA.triu(int(unit)) if upper else gA.tril(-int(unit))
    return gA, gB if need_B else None


linalg_solve_triangular.jvp(FROM_BACKWARD)


def solve_triangular(A, B, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None):
    """X with AX = B (XA = B when not `left`) for a triangular A."""
    return write_out(call(linalg_solve_triangular, (A, B), upper=upper, left=left,
                          unitriangular=unitriangular), out, lapack_layout=True,
                     op="linalg_solve_triangular")


FUNCTIONS["linalg.solve_triangular"] = solve_triangular


@defop("triangular_solve", node="TriangularSolveBackward0", promote=Promote.NONE,
       inputs=("self", "A"), variants=(), saves=("A", "self", "solution"),
       outputs=("solution", "cloned_coefficient"), scalars=(), kernel_dtypes=True)
def _triangular_solve(xp, self, A, upper=True, transpose=False, unitriangular=False):
    if self.ndim < 2:
        raise RuntimeError("torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {self.ndim} dimensions instead")
    if A.ndim < 2:
        raise RuntimeError("torch.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {A.ndim} dimensions instead")
    if A.shape[-1] != A.shape[-2] or A.shape[-1] != self.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is "
                           f"{self.shape[-2]} by {self.shape[-1]}")
    if A.dtype.kind not in "fcV" or A.dtype.itemsize == 2:
        not_implemented(A, "triangular_solve_cpu")
    batch = tuple(broadcast_shapes(A.shape[:-2], self.shape[:-2]))
    M = xp.swapaxes(A, -1, -2) if transpose else A
    X = _triangular_solve_array(xp, M, self, upper != transpose, True, unitriangular)
    return (fortran(xp, xp.broadcast_to(X, batch + X.shape[-2:])),
            fortran(xp, xp.broadcast_to(A, batch + A.shape[-2:])))


@_triangular_solve.backward
def _(ctx, grad_x, grad_m=None):
    A, b, x = ctx.saved_tensors
    need_b, need_A = ctx.needs_input_grad
    upper, transpose, unit = ctx.upper, ctx.transpose, ctx.unitriangular
    grad_b = grad_a = None
    if grad_x is not None:
        grad_b = _triangular_solve(grad_x, conj(A), upper, not transpose, unit)[0]
        if need_A:
            grad_a = -(conj(x) @ grad_b.mT) if transpose else -(grad_b @ x.mH)
            grad_a = grad_a.triu(int(unit)) if upper else grad_a.tril(-int(unit))
    if grad_a is None:
        grad_a = _f("zeros")(1, dtype=A.dtype).expand(*A.shape)
    if grad_b is None:
        grad_b = _f("zeros")(1, dtype=b.dtype).expand(*b.shape)
    if need_A and grad_m is not None:
        grad_a = grad_a + grad_m
    return grad_b, grad_a


@_triangular_solve.jvp
def _(ctx, self_t, A_t):   # torch's X_t = op(A)^{-1} (b_t - A_t X): A_t whole, untransposed
    A = ctx.primals[1]
    X = ctx.result[0]
    upper, transpose, unit = ctx.upper, ctx.transpose, ctx.unitriangular
    rhs = self_t - A_t @ X
    return _triangular_solve(rhs, A, upper, transpose, unit)[0], A_t


def triangular_solve(b, A, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out=None):
    """``(solution, cloned_coefficient)`` of A X = b for a triangular A (deprecated in torch)."""
    result = call(_triangular_solve, (b, A), upper, transpose, unitriangular)
    if out is not None:
        return write_outs("triangular_solve", result, out, "triangular_solve", 5)
    return rt.triangular_solve(result)


FUNCTIONS["triangular_solve"] = METHODS["triangular_solve"] = triangular_solve


@defop("cholesky_solve", node="CholeskySolveBackward0", promote=Promote.NONE,
       inputs=("self", "input2"), variants=(), saves=("input2", "result", "self"), scalars=(),
       kernel_dtypes=True)
def _cholesky_solve(xp, self, input2, upper=False):
    if self.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {self.ndim} "
                           "dimensions instead")
    if input2.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.ndim} "
                           "dimensions instead")
    if self.dtype != input2.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type "
                           f"{D.from_np(self.dtype)._legacy} and A of type "
                           f"{D.from_np(input2.dtype)._legacy} instead.")
    if input2.shape[-1] != input2.shape[-2] or input2.shape[-1] != self.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{input2.shape[-2]} by {input2.shape[-1]} but each b matrix is "
                           f"{self.shape[-2]} by {self.shape[-1]}")
    if self.dtype.kind not in "fcV" or self.dtype.itemsize == 2:
        not_implemented(self, "cholesky_solve_cpu")
    L = xp.swapaxes(input2, -1, -2).conj() if upper else input2
    Y = _triangular_solve_array(xp, L, self, False)
    X = _triangular_solve_array(xp, xp.swapaxes(L, -1, -2).conj(), Y, True)
    return fortran(xp, X)


@_cholesky_solve.backward
def _(ctx, grad):
    L, X, _b = ctx.saved_tensors
    need_b, need_L = ctx.needs_input_grad
    grad_b = _cholesky_solve(grad, L, ctx.upper)
    grad_L = None
    if need_L:
        common = grad_b @ X.mH
        common = common + common.mH
        grad_L = -(L @ common) if ctx.upper else -(common @ L)
    return grad_b if need_b else None, grad_L


_cholesky_solve.jvp(FROM_BACKWARD)


def cholesky_solve(B, L, upper: bool = False, *, out=None):
    """X with A X = B given the Cholesky factor L of A (upper: A = U^H U)."""
    return write_out(call(_cholesky_solve, (B, L), upper), out, op="cholesky_solve")


FUNCTIONS["cholesky_solve"] = METHODS["cholesky_solve"] = cholesky_solve
