"""OpInfo entries for dyngrad/ops/linalg_extra.py (torch.cholesky, cholesky_inverse,
linalg.cond, linalg.tensorinv, linalg.tensorsolve)."""
from __future__ import annotations

import math

import numpy as np

from .core import OP_DB, OpInfo, SampleInput, Strided, make_array
from .linalg_decomp import LAPACK, NOT_SQUARE, TOL, _unary, matrix, transposed_matrix


def _singular(dtype, rng):
    return np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], dtype=dtype)


def _not_pd(dtype, rng):
    return np.stack([np.eye(3, dtype=dtype), _singular(dtype, rng)])


def _cholesky_factor(shape, dtype, rng, upper=False):
    wide = "complex128" if dtype.startswith("complex") else "float64"
    low = np.linalg.cholesky(matrix(shape, wide, rng, "spd"))
    low = np.swapaxes(low, -1, -2).conj() if upper else low
    return np.ascontiguousarray(low.astype(dtype))


def _transposed_factor(dtype, rng):
    """A lower Cholesky factor stored column-major (non-contiguous)."""
    low = _cholesky_factor((3, 3), dtype, rng)
    return Strided(np.ascontiguousarray(low.T).reshape(-1), (3, 3), (1, 3), kind="transposed ")


def _cholesky_inverse(dtype, rng):
    out = []
    for upper in (False, True):
        for shape in ((3, 3), (2, 4, 4), (1, 1)):
            out.append(SampleInput(_cholesky_factor(shape, dtype, rng, upper), upper))
    full = matrix((3, 3), dtype, rng)      # only one triangle is read in the forward
    # (LAPACK's complex potri reads the diagonal's real part only in one of its two steps;
    # a Cholesky factor's diagonal is real)
    full = np.where(np.eye(3, dtype=bool), full.real, full).astype(dtype)
    out += [SampleInput(full), SampleInput(full, True), SampleInput(matrix((0, 0), dtype, rng)),
            SampleInput(_transposed_factor(dtype, rng)),
            SampleInput(np.diag(np.array([1, 0, 2], dtype)), desc="singular"),
            SampleInput(np.stack([np.eye(2, dtype=dtype), np.zeros((2, 2), dtype)]),
                        desc="singular batch"),
            SampleInput(make_array((2, 3), dtype, rng), desc="not square"),
            SampleInput(make_array((3,), dtype, rng), desc="1-D")]
    return out


# Note [Condition numbers] (dyngrad/ops/linalg_extra.py): torch's backward fails for the orders
# computed from the inverse, which it fills in place; those are tested without gradients
SVD_ORDS = (None, 2, -2, "nuc")
INVERSE_ORDS = (1, -1, math.inf, -math.inf, "fro", 1.0)


def _cond(dtype, rng, ords=SVD_ORDS):
    out = []
    for p in ords:
        out.append(SampleInput(matrix((3, 3), dtype, rng), p))
    if ords is INVERSE_ORDS:
        out += [SampleInput(matrix((2, 4, 4), dtype, rng), "fro"),
                SampleInput(transposed_matrix((3, 3), dtype, rng), 1)]
        for p in (1, math.inf, "fro", -2):    # (the SVD's smallest singular value is noise)
            out.append(SampleInput(_singular(dtype, rng), p, desc="singular"))
    else:
        out += [SampleInput(matrix((2, 3, 3), dtype, rng)),
                SampleInput(make_array((3, 4), dtype, rng, -1, 1)),
                SampleInput(make_array((2, 3, 4), dtype, rng, -1, 1), -2)]
    for p in (None, "fro", 1, "nuc"):
        out.append(SampleInput(np.zeros((2, 0, 0), dtype), p, desc="empty"))
    for p in (1, 1.0, -math.inf, "fro", "nuc"):
        out.append(SampleInput(make_array((2, 3), dtype, rng), p, desc="not square"))
    for p in (None, "fro"):
        out.append(SampleInput(make_array((3,), dtype, rng), p, desc="1-D"))
    for p in (3, 3.0, 2.5, "foo"):
        out.append(SampleInput(matrix((3, 3), dtype, rng), p, desc="bad ord"))
    out.append(SampleInput(make_array((2, 3), dtype, rng), "foo", desc="bad ord, not square"))
    return out


def _tensorinv(dtype, rng):
    def m(shape):
        n = int(np.prod(shape[:len(shape) // 2])) if len(shape) > 1 else 1
        return matrix((n, n), dtype, rng).reshape(shape)
    out = [SampleInput(matrix((4, 4), dtype, rng).reshape(4, 2, 2), ind=1),
           SampleInput(matrix((4, 4), dtype, rng).reshape(2, 2, 4)),
           SampleInput(matrix((6, 6), dtype, rng).reshape(2, 3, 3, 2)),
           SampleInput(matrix((6, 6), dtype, rng).reshape(6, 3, 2), 1),
           SampleInput(matrix((4, 4), dtype, rng), ind=1),
           SampleInput(m((4, 4)), ind=0, desc="ind 0"),
           SampleInput(make_array((4, 2, 2), dtype, rng), ind=2, desc="shapes"),
           SampleInput(np.zeros((4, 2, 2), dtype), ind=1, desc="singular")]
    return out


def _tensorsolve(dtype, rng):
    def b(shape):
        return make_array(shape, dtype, rng, -2, 2)
    A6 = matrix((6, 6), dtype, rng)
    out = [SampleInput(A6.reshape(2, 3, 6), b((2, 3))),
           SampleInput(A6.reshape(6, 2, 3), b((6,))),
           SampleInput(np.ascontiguousarray(A6.reshape(2, 3, 6).transpose(2, 0, 1)), b((2, 3)),
                       dims=(0,)),
           SampleInput(A6.reshape(2, 3, 2, 3), b((2, 3)), dims=None),
           SampleInput(A6.reshape(2, 3, 6), b((5,)), desc="shapes"),
           SampleInput(np.zeros((2, 3, 6), dtype), b((2, 3)), desc="singular")]
    if dtype != "float64":
        out.append(SampleInput(A6.reshape(2, 3, 6), make_array((2, 3), "float64", rng),
                               desc="dtypes"))
    return out


OP_DB += [
    OpInfo("cholesky", _unary(((3, 3), (2, 4, 4), (1, 1), (0, 0)), "spd",
                              extra=NOT_SQUARE + (("not positive-definite", _not_pd),)),
           LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("cholesky", _unary(((3, 3), (2, 2, 2)), "spd", args=(True,)), LAPACK, tol=TOL,
           gradgrad_samples=1, variant="upper"),
    OpInfo("cholesky_inverse", _cholesky_inverse, LAPACK, tol=TOL, gradgrad_samples=3),
    OpInfo("linalg.cond", _cond, LAPACK, tol=TOL, gradgrad_samples=4),
    OpInfo("linalg.cond", lambda dtype, rng: _cond(dtype, rng, INVERSE_ORDS), LAPACK, tol=TOL,
           supports_autograd=False, variant="inverse"),
    OpInfo("linalg.tensorinv", _tensorinv, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("linalg.tensorsolve", _tensorsolve, LAPACK, tol=TOL, gradgrad_samples=2),
]
