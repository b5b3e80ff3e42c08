"""OpInfo entries for dyngrad/ops/quantile.py: quantile and nanquantile (float32/float64 only),
with a float or 1-D (or 0-dim) tensor q, every dim form, keepdim, the five interpolations,
strided inputs, NaN slices, and the invalid calls whose errors must be torch's."""
from __future__ import annotations

import numpy as np

from .core import OP_DB, OpInfo, SampleInput, make_array, permuted3, transposed

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    if dtype not in ("float32", "float64"):   # torch rejects the dtype: one sample suffices
        return [SampleInput(x((3, 4)), 0.3, 1)]
    other = "float64" if dtype == "float32" else "float32"
    qs = np.array([0.0, 0.25, 0.6, 1.0], dtype)
    nans = x((3, 4))
    nans[0, 1] = np.nan          # one NaN per row: sort's order of equal NaNs is not pinned
    nans[2, :] = np.nan          # an all-NaN row
    m = x((3, 4))
    out = [SampleInput(m, 0.3), SampleInput(m, 0.5, 1), SampleInput(m, 0.7, 0, True),
           SampleInput(m, qs), SampleInput(m, qs, 1), SampleInput(m, qs, -2, True),
           SampleInput(m, qs, keepdim=True), SampleInput(m, 0.3, keepdim=True),
           SampleInput(m, np.array(0.4, dtype), 0, desc="0-dim q"),
           SampleInput(m, np.zeros((0,), dtype), 1, desc="empty q"),
           SampleInput(x((2, 3, 4)), qs[1:3], 1), SampleInput(x((2, 3, 4)), 0.9, 0),
           SampleInput(x((5,)), 0.4, 0), SampleInput(x(()), 0.4), SampleInput(x(()), qs, 0),
           SampleInput(x((1,)), qs), SampleInput(transposed((3, 4), dtype, rng), qs, 0),
           SampleInput(permuted3(dtype, rng), 0.45, 2), SampleInput(permuted3(dtype, rng), qs),
           SampleInput(m, 1, desc="int q"), SampleInput(m, True, desc="bool q"),
           SampleInput(nans, 0.5, 1, desc="NaN rows"), SampleInput(nans, qs, 0),
           SampleInput(nans, qs[1:3], 1, True)]
    out += [SampleInput(m, qs, 1, interpolation=mode) for mode in _MODES]
    out += [SampleInput(nans, 0.6, 1, interpolation=mode) for mode in _MODES]
    out += [SampleInput(m, 0.35, interpolation=mode) for mode in _MODES]
    # invalid: torch's errors
    out += [SampleInput(m, 1.5), SampleInput(m, -0.1, 0), SampleInput(m, float("nan")),
            SampleInput(m, np.array([0.5, 1.5], dtype)), SampleInput(m, np.array([[0.5]], dtype)),
            SampleInput(m, np.array([0.5], other)), SampleInput(x((0,)), 0.5),
            SampleInput(x((2, 0)), 0.5, 0), SampleInput(m, 0.5, interpolation="cubic"),
            SampleInput(m, 0.5, 2), SampleInput(m, 0.5, 0, 1), SampleInput(m, [0.5]),
            SampleInput(m, 0.5, dim=1.0), SampleInput(m, 1.5, interpolation="cubic")]
    return out


OP_DB += [OpInfo(name, _samples, ("float32", "float64"), gradgrad_samples=6)
          for name in ("quantile", "nanquantile")]
