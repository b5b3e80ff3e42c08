"""OpInfo entries for dyngrad/ops/linalg_spectral.py (qr, svd, eigh, pinv, lstsq, matrix_rank).

The generic tests compare Q, U, V and eigenvectors entry by entry, so these samples keep to
shapes where NumPy's LAPACK and torch's MKL pick the same signs (see Note [Signs of singular
vectors and eigenvectors]): all QR shapes; SVDs of square, wide and tall-enough matrices
(not 4 x 3); eigh of sizes 1 and 2. tests/test_linalg.py checks other shapes through
sign-invariant quantities.
"""
from __future__ import annotations

import numpy as np

from .core import OP_DB, OpInfo, SampleInput, make_array
from .linalg_decomp import LAPACK, TOL, matrix, transposed_matrix


def _arr(shape, dtype, rng):
    return make_array(shape, dtype, rng, -2, 2)


def _hermitian(shape, dtype, rng):
    a = _arr(shape, dtype, rng)
    return np.ascontiguousarray((a + np.swapaxes(a, -1, -2).conj()) / 2).astype(dtype)


def _qr(dtype, rng):
    out = [SampleInput(_arr(s, dtype, rng)) for s in ((4, 3), (3, 4), (3, 3), (2, 4, 2), (1, 1))]
    out += [SampleInput(_arr((3, 4), dtype, rng), "complete"),
            SampleInput(_arr((3, 3), dtype, rng), mode="complete"),
            SampleInput(transposed_matrix((3, 3), dtype, rng)),
            SampleInput(_arr((4, 3), dtype, rng), "complete", desc="not differentiable"),
            SampleInput(_arr((4, 3), dtype, rng), "r"),
            SampleInput(_arr((0, 3), dtype, rng)),
            SampleInput(_arr((3, 3), dtype, rng), "bad", desc="mode"),
            SampleInput(_arr((3,), dtype, rng), desc="1-D")]
    return out


def _torch_qr(dtype, rng):
    return [SampleInput(_arr((4, 3), dtype, rng)), SampleInput(_arr((3, 4), dtype, rng), False),
            SampleInput(_arr((3, 3), dtype, rng), some=False)]


SVD_SHAPES = ((3, 3), (3, 4), (5, 3), (2, 5, 3), (2, 3, 4), (1, 1), (3, 2))


def _svd(full_matrices):
    def gen(dtype, rng):
        out = [SampleInput(_arr(s, dtype, rng), full_matrices=full_matrices)
               for s in SVD_SHAPES]
        out.append(SampleInput(transposed_matrix((3, 3), dtype, rng),
                               full_matrices=full_matrices))
        out.append(SampleInput(_arr((3,), dtype, rng), desc="1-D"))
        return out
    return gen


def _svdvals(dtype, rng):
    return [SampleInput(_arr(s, dtype, rng)) for s in SVD_SHAPES + ((4, 3), (2, 0, 3))] + \
        [SampleInput(transposed_matrix((3, 3), dtype, rng))]


def _torch_svd(dtype, rng):
    return [SampleInput(_arr((3, 4), dtype, rng)), SampleInput(_arr((5, 3), dtype, rng), False),
            SampleInput(_arr((3, 3), dtype, rng), some=True),
            SampleInput(_arr((5, 3), dtype, rng), compute_uv=False),
            SampleInput(_arr((2, 3, 3), dtype, rng), True, False)]


EIGH_SHAPES = ((2, 2), (3, 2, 2), (1, 1))


def _eigh(dtype, rng):
    out = [SampleInput(_hermitian(s, dtype, rng)) for s in EIGH_SHAPES]
    out += [SampleInput(_arr((2, 2), dtype, rng), "U", desc="upper triangle read"),
            SampleInput(_arr((2, 2), dtype, rng), UPLO="L", desc="lower triangle read"),
            SampleInput(_arr((2, 2), dtype, rng), UPLO="X"),
            SampleInput(_arr((2, 3), dtype, rng), desc="not square")]
    return out


def _eigvalsh(dtype, rng):
    out = [SampleInput(_hermitian(s, dtype, rng)) for s in ((2, 2), (3, 2, 2), (1, 1), (0, 0))]
    out += [SampleInput(_arr((2, 2), dtype, rng), "U"), SampleInput(_arr((2, 2), dtype, rng))]
    return out


def _pinv(dtype, rng):
    out = [SampleInput(_arr(s, dtype, rng)) for s in ((3, 4), (4, 3), (3, 3), (2, 3, 2))]
    out += [SampleInput(matrix((3, 3), dtype, rng), hermitian=True),
            SampleInput(_hermitian((3, 3), dtype, rng), 1e-8, True),
            SampleInput(_arr((3, 4), dtype, rng), 0.1),
            SampleInput(_arr((3, 4), dtype, rng), atol=0.5),
            SampleInput(_arr((3, 4), dtype, rng), atol=0.5, rtol=0.2),
            SampleInput(_arr((3, 4), dtype, rng), rtol=0.3),
            SampleInput(transposed_matrix((3, 3), dtype, rng)),
            SampleInput(np.ones((3, 3), dtype), desc="rank 1"),
            SampleInput(_arr((3,), dtype, rng), desc="1-D")]
    return out


def _pinverse(dtype, rng):
    return [SampleInput(_arr((3, 4), dtype, rng)), SampleInput(_arr((4, 3), dtype, rng), 0.1)]


def _lstsq(dtype, rng):
    def m(shape):
        return matrix(shape, dtype, rng) if shape[-1] == shape[-2] else _arr(shape, dtype, rng)
    out = [SampleInput(m((4, 3)), _arr((4, 2), dtype, rng)),
           SampleInput(m((4, 3)), _arr((4,), dtype, rng)),
           SampleInput(m((3, 4)), _arr((3, 2), dtype, rng)),
           SampleInput(m((3, 3)), _arr((3, 2), dtype, rng)),
           SampleInput(m((2, 4, 3)), _arr((2, 4, 2), dtype, rng)),
           SampleInput(m((2, 4, 3)), _arr((4, 1), dtype, rng)),
           SampleInput(m((4, 3)), _arr((4, 2), dtype, rng), driver="gelsd"),
           SampleInput(m((4, 3)), _arr((4,), dtype, rng), driver="gelss"),
           SampleInput(m((2, 4, 3)), _arr((2, 4, 2), dtype, rng), driver="gelsd"),
           SampleInput(m((4, 3)), _arr((4, 2), dtype, rng), driver="gels"),
           SampleInput(m((4, 3)), _arr((4, 2), dtype, rng), 1e-3, driver="gelsy"),
           SampleInput(m((4, 3)), _arr((3, 2), dtype, rng), desc="shapes"),
           SampleInput(m((4, 3)), _arr((4, 2), dtype, rng), driver="bad")]
    return out


def _matrix_rank(dtype, rng):
    low_rank = _arr((4, 2), dtype, rng) @ _arr((2, 3), dtype, rng)
    return [SampleInput(_arr((3, 4), dtype, rng)), SampleInput(low_rank),
            SampleInput(np.ones((3, 3), dtype)), SampleInput(_arr((2, 3, 3), dtype, rng)),
            SampleInput(_hermitian((3, 3), dtype, rng), hermitian=True),
            SampleInput(_arr((3, 3), dtype, rng), atol=1.0),
            SampleInput(_arr((3, 3), dtype, rng), atol=0.5, rtol=0.5),
            SampleInput(_arr((3, 3), dtype, rng), rtol=0.4),
            SampleInput(_arr((3, 3), dtype, rng), 0.5),
            SampleInput(np.zeros((2, 0, 3), dtype)), SampleInput(_arr((3,), dtype, rng))]


OP_DB += [
    OpInfo("linalg.qr", _qr, LAPACK, tol=TOL, gradgrad_samples=3),
    OpInfo("qr", _torch_qr, LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.svd", _svd(False), LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("linalg.svd", _svd(True), LAPACK, tol=TOL, gradgrad_samples=1,
           variant="full_matrices"),
    OpInfo("linalg.svdvals", _svdvals, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("svd", _torch_svd, LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.eigh", _eigh, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("linalg.eigvalsh", _eigvalsh, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("linalg.pinv", _pinv, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("pinverse", _pinverse, LAPACK, tol=TOL, gradgrad_samples=1),
    OpInfo("linalg.lstsq", _lstsq, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("linalg.matrix_rank", _matrix_rank, LAPACK, tol=TOL),
]
