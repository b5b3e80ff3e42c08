"""OpInfo entries for dyngrad/ops/linalg_matrix_exp.py (linalg.matrix_exp, matrix_exp)."""
from __future__ import annotations

from .core import OP_DB, OpInfo, SampleInput, make_array, transposed

DTYPES = ("float16", "float32", "float64", "complex64", "complex128")
TOL = {"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5), "float64": (1e-10, 1e-12),
       "complex128": (1e-10, 1e-12)}
# torch's float16 kernel overflows its Taylor coefficients (exp(ones(2, 2)) is inf): dyngrad
# returns the exponential, rounded to float16
HALF = {("forward", "float16"): "torch's float16 matrix_exp overflows; dyngrad's is accurate"}


def _samples(dtype, rng):
    def m(shape, scale=1.0):
        return make_array(shape, dtype, rng, -scale, scale)
    out = [SampleInput(m((3, 3))), SampleInput(m((2, 4, 4), 2.0)), SampleInput(m((5, 5), 4.0)),
           SampleInput(m((1, 1))), SampleInput(m((0, 0))), SampleInput(m((2, 0, 0))),
           SampleInput(m((2, 1, 2, 2), 0.01)), SampleInput(transposed((3, 3), dtype, rng))]
    out += [SampleInput(m((2, 3)), desc="not square"), SampleInput(m((3,)), desc="1-D")]
    return out


OP_DB += [
    OpInfo("linalg.matrix_exp", _samples, DTYPES, tol=TOL, xfail=HALF, supports_out=False,
           gradgrad_samples=2),
    OpInfo("matrix_exp", _samples, DTYPES, tol=TOL, xfail=HALF, supports_out=False,
           gradgrad_samples=1),
]
