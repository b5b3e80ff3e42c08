"""OpInfo entries for dyngrad/ops/special_gamma.py: igamma, igammac, special.gammainc,
special.gammaincc and special.zeta. Wide-range accuracy and the gradient with respect to x
alone (the database makes every floating input require grad, so only torch's "derivative ...
not implemented" error is compared here) are in tests/test_special_extra.py."""
from __future__ import annotations

import numpy as np

from .core import (FLOATS, OP_DB, REAL_AND_BOOL, OpInfo, SampleInput, binary_samples, chain,
                   make_array, special_values)


def _igamma_edges(dtype, rng):
    """Torch's values at a or x = 0, inf, NaN or negative, and the invalid calls."""
    out = []
    if dtype in FLOATS:
        inf, nan = np.inf, np.nan
        a = np.array([0, 0, 1, -1, inf, nan, 2, 2, inf, 0.5, 3, 30], dtype)
        x = np.array([0, 1, 0, 1, 1, 1, inf, -1, inf, 1e-3, 40, 25], dtype)
        out += [SampleInput(a, x, desc="edges"),
                SampleInput(special_values(dtype), special_values(dtype)[::-1].copy(),
                            desc="special values")]
    x = make_array((3,), dtype, rng, 0.5, 3)
    out += [SampleInput(x, 2.0, desc="number other"), SampleInput(2.0, x, desc="number self"),
            SampleInput(x, make_array((2, 2), dtype, rng, 0.5, 3), desc="no broadcast")]
    return out


def _igamma_values(dtype, rng):
    if dtype not in FLOATS:
        return binary_samples(0, 5, scalars=(), partners=(), special=False)(dtype, rng)[:3]
    return binary_samples(0.1, 6, rhs_low=0.05, rhs_high=9, scalars=(), partners=("float64",),
                          special=False)(dtype, rng)


_igamma = chain(_igamma_values, _igamma_edges)


def _zeta(dtype, rng):
    out = binary_samples(1.2, 6, rhs_low=0.3, rhs_high=5, scalars=("int", "float"),
                         lhs_scalars=("int", "float"), partners=("float64", "int32"),
                         special=False)(dtype, rng)
    if dtype in ("float32", "float64"):
        x = np.array([2, 3, 1, 0.5, np.nan, 2.5, 3, 4, 1.5], dtype)
        q = np.array([1, -2, 1, 1, 1, -1.5, -2.5, np.inf, 0], dtype)
        out += [SampleInput(x, q, desc="poles and undefined values"),
                SampleInput(special_values(dtype), special_values(dtype), desc="special values")]
    out.append(SampleInput(2, 3, desc="no tensor"))
    return out


_tol = {"float16": (4e-3, 1e-3), "float32": (5e-5, 1e-6)}

OP_DB += [
    OpInfo("igamma", _igamma, FLOATS, tol=_tol, supports_gradgrad=False),
    OpInfo("igammac", _igamma, FLOATS, tol=_tol, supports_gradgrad=False),
    OpInfo("special.gammainc", _igamma, FLOATS, tol=_tol, supports_gradgrad=False),
    OpInfo("special.gammaincc", _igamma, FLOATS, tol=_tol, supports_gradgrad=False),
    OpInfo("special.zeta", _zeta, tuple(d for d in REAL_AND_BOOL if d != "float16"), tol=_tol,
           gradgrad_samples=6),
]
