"""OpInfo entries for dyngrad/ops/linalg_eig.py (linalg.eig, linalg.eigvals).

The generic tests compare eigenvectors entry by entry. LAPACK's geev fixes each eigenvector only
up to a sign (a phase for complex ones), and NumPy's OpenBLAS and torch's MKL often pick
different signs for general matrices of size 3 and more; for triangular matrices they agree, so
``linalg.eig`` samples are triangular (eigenvalues on the diagonal, in order) or of size 1 / 2.
tests/test_linalg_eig.py compares general matrices up to phase, and gradients of losses that do
not depend on the phases. The eigenvectors' random cotangents make torch's phase check fail for
``linalg.eig``'s backward; the tests then compare that error.
"""
from __future__ import annotations

from .core import OP_DB, OpInfo, SampleInput, make_array
from .linalg_decomp import LAPACK, TOL, matrix, transposed_matrix


def _eig(dtype, rng):
    out = [SampleInput(matrix(s, dtype, rng, kind))
           for s, kind in (((3, 3), "upper"), ((4, 4), "lower"), ((2, 3, 3), "upper"),
                           ((1, 1), "general"), ((0, 0), "general"), ((2, 0, 0), "general"))]
    out += [SampleInput(transposed_matrix((3, 3), dtype, rng, "upper")),
            SampleInput(make_array((2, 3), dtype, rng), desc="not square"),
            SampleInput(make_array((3,), dtype, rng), desc="1-D")]
    return out


def _eigvals(dtype, rng):
    out = [SampleInput(make_array(s, dtype, rng, -2, 2))
           for s in ((3, 3), (2, 2, 2), (1, 1), (0, 0), (2, 1, 3, 3))]
    out += [SampleInput(matrix((4, 4), dtype, rng, "upper")),
            SampleInput(transposed_matrix((3, 3), dtype, rng)),
            SampleInput(make_array((2, 3), dtype, rng), desc="not square")]
    return out


OP_DB += [
    OpInfo("linalg.eig", _eig, LAPACK, tol=TOL, gradgrad_samples=2),
    OpInfo("linalg.eigvals", _eigvals, LAPACK, tol=TOL, gradgrad_samples=2),
]
