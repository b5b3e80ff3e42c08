"""OpInfo entries for dyngrad/ops/linalg_decomp.py (inv, det, slogdet, solve, cholesky, the
triangular solvers).

Matrices are built well conditioned (a random matrix plus a multiple of the identity), so that
values, gradients and second derivatives compare closely; singular inputs and their errors are
covered in tests/test_linalg.py.
"""
from __future__ import annotations

import numpy as np

from .core import OP_DB, OpInfo, SampleInput, Strided, make_array

LAPACK = ("float32", "float64", "complex64", "complex128")
TOL = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-7, 1e-7),
       "complex128": (1e-7, 1e-7)}


def matrix(shape, dtype, rng, kind="general"):
    """A (batch of) well-conditioned matrices: "general", "spd" (Hermitian positive-definite),
    "upper" / "lower" (triangular, diagonal away from zero)."""
    shape = tuple(shape)
    n = shape[-1]
    target = dtype
    dtype = "complex128" if dtype.startswith("complex") else "float64"
    a = make_array(shape, dtype, rng, -1, 1)
    if kind == "spd":
        a = a @ np.swapaxes(a, -1, -2).conj() / max(n, 1)
    if n and shape[-2] == n:
        eye = np.eye(n, dtype=dtype)
        signs = np.where(rng.random(n) < 0.5, -1, 1).astype(dtype) if kind == "general" else 1
        a = a + (2 + n / 2) * eye * signs
    if kind == "upper":
        a = np.triu(a)
    elif kind == "lower":
        a = np.tril(a)
    return np.ascontiguousarray(a.astype(target))


def transposed_matrix(shape, dtype, rng, kind="general"):
    """The same kind of matrix, as the transpose of a contiguous one (non-contiguous)."""
    a = matrix(shape, dtype, rng, kind)
    t = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    n, m = shape[-2:]
    batch = tuple(shape[:-2])
    stride = tuple(int(np.prod(shape[i + 1:])) for i in range(len(batch))) + (1, n)
    return Strided(t.reshape(-1), shape, stride, kind="transposed ")


def _unary(shapes, kind="general", args=(), kwargs=None, extra=()):
    kwargs = kwargs or {}

    def gen(dtype, rng):
        out = [SampleInput(matrix(s, dtype, rng, kind), *args, **kwargs) for s in shapes]
        out.append(SampleInput(transposed_matrix((3, 3), dtype, rng, kind), *args, **kwargs))
        for desc, make in extra:
            value = make(dtype, rng)
            if value is not None:
                out.append(SampleInput(value, *args, desc=desc, **kwargs))
        return out
    return gen


NOT_SQUARE = (("not square", lambda dtype, rng: make_array((2, 3), dtype, rng)),
              ("1-D", lambda dtype, rng: make_array((3,), dtype, rng)))
SQUARE_SHAPES = ((3, 3), (1, 1), (2, 4, 4), (2, 1, 2, 2), (0, 0), (2, 0, 0))


def _solve(dtype, rng):
    def m(shape, kind="general"):
        return matrix(shape, dtype, rng, kind)

    def b(shape):
        return make_array(shape, dtype, rng, -2, 2)
    out = [SampleInput(m((3, 3)), b((3, 2))), SampleInput(m((3, 3)), b((3,))),
           SampleInput(m((2, 3, 3)), b((2, 3))), SampleInput(m((2, 3, 3)), b((3,))),
           SampleInput(m((2, 3, 3)), b((3, 4))), SampleInput(m((3, 3)), b((2, 3, 1))),
           SampleInput(m((4, 3, 3)), b((4, 3))),
           SampleInput(m((3, 3)), b((2, 3)), left=False),
           SampleInput(m((2, 3, 3)), b((2, 4, 3)), left=False),
           SampleInput(transposed_matrix((3, 3), dtype, rng), b((3, 2))),
           SampleInput(m((0, 0)), b((0, 2))),
           SampleInput(m((3, 3)), b((4,)), desc="shapes"),
           SampleInput(m((3, 3)), b((3,)), left=False, desc="vector with left=False")]
    if dtype != "float64":
        out.append(SampleInput(m((3, 3)), make_array((3,), "float64", rng), desc="dtypes"))
    return out


def _triangular(dtype, rng):
    def b(shape):
        return make_array(shape, dtype, rng, -2, 2)
    up, low = matrix((3, 3), dtype, rng, "upper"), matrix((3, 3), dtype, rng, "lower")
    full = matrix((3, 3), dtype, rng)       # only one triangle is read
    return [SampleInput(up, b((3, 2)), upper=True), SampleInput(low, b((3, 2)), upper=False),
            SampleInput(full, b((3, 2)), upper=True, unitriangular=True),
            SampleInput(full, b((2, 3)), upper=False, left=False),
            SampleInput(matrix((2, 3, 3), dtype, rng, "upper"), b((3, 1)), upper=True),
            SampleInput(up, b((2, 3, 2)), upper=True, left=True),
            SampleInput(transposed_matrix((3, 3), dtype, rng, "lower"), b((3, 2)), upper=False),
            SampleInput(up, b((3,)), upper=True, desc="1-D B")]


def _triangular_solve(dtype, rng):
    def b(shape):
        return make_array(shape, dtype, rng, -2, 2)
    up, low = matrix((3, 3), dtype, rng, "upper"), matrix((3, 3), dtype, rng, "lower")
    return [SampleInput(b((3, 2)), up), SampleInput(b((3, 2)), low, False),
            SampleInput(b((3, 2)), up, True, True), SampleInput(b((3, 1)), low, False, True, True),
            SampleInput(b((2, 3, 2)), up), SampleInput(b((3, 2)), matrix((2, 3, 3), dtype, rng,
                                                                          "upper")),
            SampleInput(b((2, 1)), up, desc="shapes")]


def _cholesky_solve(dtype, rng):
    def b(shape):
        return make_array(shape, dtype, rng, -2, 2)
    wide = "complex128" if dtype.startswith("complex") else "float64"
    low = np.linalg.cholesky(matrix((3, 3), wide, rng, "spd")).astype(dtype)
    return [SampleInput(b((3, 2)), low), SampleInput(b((3, 2)), np.ascontiguousarray(
                np.swapaxes(low, -1, -2).conj()), True),
            SampleInput(b((2, 3, 1)), low), SampleInput(b((2, 1)), low, desc="shapes")]


def _singular(dtype, rng):
    """Singular in any LAPACK's arithmetic: a zero row stays zero through any elimination, so
    det is exactly 0 on both sides. ([[1, 2, 3], [2, 4, 6], [1, 0, 1]] is not: torch's MKL
    finds det -6.7e-16 for it on an Intel Xeon, NumPy's OpenBLAS 0.)"""
    return np.array([[1, 2, 3], [0, 0, 0], [4, 5, 7]], dtype=dtype)


def _singular_real(dtype, rng):
    """(torch's logdet of a singular complex matrix is -inf+nanj, and its slogdet's gradient
    there all NaN where dyngrad's LU solve leaves finite entries: not compared)"""
    return None if dtype.startswith("complex") else _singular(dtype, rng)


def _det_extra(singular=_singular):
    return (("singular", singular),) + NOT_SQUARE


OP_DB += [
    OpInfo("linalg.inv", _unary(SQUARE_SHAPES, extra=NOT_SQUARE), LAPACK, tol=TOL,
           gradgrad_samples=2),
    OpInfo("inverse", _unary(((3, 3), (2, 2, 2))), LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.inv_ex", _unary(((3, 3), (2, 2, 2))), LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.det", _unary(SQUARE_SHAPES, extra=_det_extra()), LAPACK, tol=TOL,
           gradgrad_samples=3),
    OpInfo("det", _unary(((3, 3), (2, 2, 2))), LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.slogdet", _unary(SQUARE_SHAPES, extra=_det_extra(_singular_real)), LAPACK,
           tol=TOL, gradgrad_samples=2),
    OpInfo("slogdet", _unary(((3, 3), (2, 2, 2))), LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("logdet", _unary(((3, 3), (2, 3, 3), (0, 0)), extra=_det_extra(_singular_real)),
           LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.solve", _solve, LAPACK, tol=TOL, gradgrad_samples=3),
    OpInfo("linalg.solve_ex", _solve, LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.cholesky", _unary(SQUARE_SHAPES, "spd", extra=NOT_SQUARE), LAPACK, tol=TOL,
           gradgrad_samples=2),
    OpInfo("linalg.cholesky", _unary(((3, 3), (2, 2, 2)), "spd", kwargs={"upper": True}),
           LAPACK, tol=TOL, gradgrad_samples=1, variant="upper"),
    OpInfo("linalg.cholesky_ex", _unary(((3, 3),), "spd"), LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.solve_triangular", _triangular, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("triangular_solve", _triangular_solve, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("cholesky_solve", _cholesky_solve, LAPACK, tol=TOL, gradgrad_samples=2),
]
