"""OpInfo entries for dyngrad/ops/special_bessel.py (i0, special.i0/i0e/i1/i1e). Accuracy over
a wide range, large |x| included, is checked in tests/test_pointwise_extra.py."""
from __future__ import annotations

import numpy as np

from .core import (FLOATS, OP_DB, REAL_AND_BOOL, OpInfo, SampleInput, chain, make_array,
                   permuted3, special_values, transposed)


def _lean(dtype, rng):
    out = [SampleInput(make_array((3, 4), dtype, rng, -10, 10)),
           SampleInput(make_array((), dtype, rng, -3, 3)),
           SampleInput(transposed((3, 4), dtype, rng, low=-12, high=12)),
           SampleInput(permuted3(dtype, rng, low=-5, high=5)),
           SampleInput(make_array((0, 2), dtype, rng))]
    sv = special_values(dtype)
    if sv is not None:
        out.append(SampleInput(sv, desc="special values"))
    return out


def _edges(dtype, rng):
    """Both sides of the expansions' seam at 8, large |x| (overflow of exp(|x|)), tiny |x|."""
    if dtype not in FLOATS:
        return []
    values = [8.0, -8.0, 7.999, 8.001, 30.0, -45.5, 88.0, 89.0, -95.0, 700.0, 713.0, 1e-5,
              -1e-30, 1e4]
    if dtype == "float16":
        values = [v for v in values if abs(v) < 6e4]
    return [SampleInput(np.array(values, dtype), desc="edges")]


def _grad_range(dtype, rng):
    """Moderate values for the gradient tests (gradgrad keeps the first samples)."""
    return [SampleInput(make_array((3, 4), dtype, rng, -6, 6))]


_samples = chain(_grad_range, _lean, _edges)
_tol = {"float16": (2e-3, 1e-3), "float32": (2e-6, 1e-6)}

OP_DB += [
    OpInfo(name, _samples, REAL_AND_BOOL, tol=_tol, gradgrad_samples=2)
    for name in ("i0", "special.i0", "special.i0e", "special.i1", "special.i1e")
]
