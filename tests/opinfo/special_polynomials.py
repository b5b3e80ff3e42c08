"""OpInfo entries for dyngrad/ops/special_polynomials.py (special.chebyshev_polynomial_t ...
special.legendre_polynomial_p): Tensor and Number x and n, degrees around torch's switches
to closed forms, |x| = 1 and x = 0, negative and fractional n. None is differentiable in
torch. (torch returns uninitialised memory for NaN x with n >= 2: no sample has one.)
Larger degrees and ranges are in tests/test_special_extra.py."""
from __future__ import annotations

import numpy as np

from .core import (INTS_AND_BOOL, OP_DB, OpInfo, SampleInput, make_array, permuted3,
                   transposed)


def _samples(dtype, rng):
    real = dtype in ("float32", "float64")
    n = np.array([-1, 0, 1, 2, 3, 5, 7, 9, 12], dtype if dtype != "bool" else "int64") \
        if dtype != "uint8" else np.array([0, 1, 2, 3, 5, 7, 9, 12], dtype)
    x = make_array((3, 1), dtype, rng, -1, 1) if real else make_array((3, 1), dtype, rng, -2, 3)
    out = [SampleInput(x, n, desc="degrees"),
           SampleInput(make_array((3, 4), dtype, rng, -2, 2), 4),
           SampleInput(make_array((), dtype, rng, 0, 1), n),
           SampleInput(0.25, n, desc="number x"),
           SampleInput(transposed((3, 4), dtype, rng, low=-1, high=1), 3.0),
           SampleInput(permuted3(dtype, rng, low=0, high=1), np.array(6, dtype)),
           SampleInput(make_array((0, 2), dtype, rng), 2),
           SampleInput(make_array((3,), dtype, rng, -1, 1), make_array((3,), "float64", rng, 0, 9),
                       desc="mixed dtypes")]
    if real:
        ends = np.array([[1.0], [-1.0], [0.0], [0.5], [np.inf]], dtype)
        out += [SampleInput(ends, np.array([-1, 0, 1, 2, 3, 8, 9, 10], dtype), desc="ends"),
                SampleInput(np.array([np.nan, 0.5, 0.3], dtype),
                            np.array([1.0, np.nan, 3.5], dtype), desc="NaN and fractions")]
    out += [SampleInput(0.5, 2, desc="no tensor: invalid"),
            SampleInput(make_array((2,), dtype, rng), make_array((3,), dtype, rng),
                        desc="shapes: invalid")]
    return out


NAMES = tuple(f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw") + (
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p")
_tol = {"float32": (1e-4, 1e-4)}

OP_DB += [OpInfo(f"special.{name}", _samples, INTS_AND_BOOL + ("float32", "float64"),
                 tol=_tol, supports_gradgrad=False) for name in NAMES]
