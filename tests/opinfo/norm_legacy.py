"""OpInfo entries for dyngrad/ops/norm_legacy.py (torch.frobenius_norm, torch.nuclear_norm)."""
from __future__ import annotations

from .core import OP_DB, OpInfo, SampleInput, make_array
from .linalg_decomp import LAPACK, TOL, transposed_matrix


def _arr(shape, dtype, rng):
    return make_array(shape, dtype, rng, -2, 2)


def _frobenius(dtype, rng):
    return [SampleInput(_arr((3, 4), dtype, rng), (0, 1)),
            SampleInput(_arr((2, 3, 4), dtype, rng), (1, 2)),
            SampleInput(_arr((2, 3, 4), dtype, rng), (0, 2), True),
            SampleInput(_arr((2, 3, 4), dtype, rng), 1),
            SampleInput(_arr((2, 3, 4), dtype, rng), (-1,), keepdim=True),
            SampleInput(_arr((2, 3, 4), dtype, rng), (0, 1, 2), desc="three dims"),
            SampleInput(_arr((2, 3, 4), dtype, rng), (1, 1), desc="repeated dim")]


def _nuclear(dtype, rng):
    return [SampleInput(_arr((3, 4), dtype, rng)), SampleInput(_arr((5, 3), dtype, rng), True),
            SampleInput(_arr((2, 5, 3), dtype, rng), (1, 2)),
            SampleInput(_arr((3, 2, 5), dtype, rng), (2, 0), True),
            SampleInput(_arr((2, 3, 3), dtype, rng), keepdim=True),
            SampleInput(transposed_matrix((3, 3), dtype, rng)),
            SampleInput(_arr((2, 3, 4), dtype, rng), (1,), desc="one dim"),
            SampleInput(_arr((3,), dtype, rng), desc="1-D")]


OP_DB += [
    OpInfo("frobenius_norm", _frobenius, ("float16",) + LAPACK, tol=TOL, gradgrad_samples=2,
           supports_out=True),
    OpInfo("nuclear_norm", _nuclear, LAPACK, tol=TOL, gradgrad_samples=2),
]
