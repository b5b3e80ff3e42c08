"""OpInfo entries for dyngrad/ops/special_bessel2.py (special.bessel_j0 ... special.airy_ai).
None is differentiable in torch: the gradient tests check that no result requires grad. torch's
own J, Y and Ai kernels are off by up to ~3e-6 (See Note [Bessel kernels, second family]),
hence the float64 atol; tests/test_special_extra.py compares with mpmath as well."""
from __future__ import annotations

import numpy as np

from .core import (INTS_AND_BOOL, OP_DB, OpInfo, SampleInput, make_array, permuted3,
                   special_values, transposed)

_EDGES = [0.0, -0.0, 1e-300, 1e-7, 2.0, 4.0, -4.0, 5.0, 8.0, -8.0, 8.001, 25.7, 26.0, 30.0,
          88.0, 89.0, 100.0, 104.0, 700.0, 1e4, -1e4, 1e30, -2.09, -2.1, -3.0]


def _samples(dtype, rng):
    out = [SampleInput(make_array((3, 4), dtype, rng, -10, 10)),
           SampleInput(make_array((), dtype, rng, 0, 3)),
           SampleInput(make_array((40,), dtype, rng, 0.01, 60), desc="positive"),
           SampleInput(transposed((3, 4), dtype, rng, low=-12, high=12)),
           SampleInput(permuted3(dtype, rng, low=-5, high=5)),
           SampleInput(make_array((0, 2), dtype, rng))]
    sv = special_values(dtype)
    if sv is not None:
        out += [SampleInput(sv, desc="special values"),
                SampleInput(np.array(_EDGES, dtype), desc="edges")]
    out.append(SampleInput(2.0, desc="number: invalid"))
    return out


NAMES = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
         "airy_ai")
_tol = {"float64": (1e-7, 5e-6)}

OP_DB += [OpInfo(f"special.{name}", _samples, INTS_AND_BOOL + ("float32", "float64"),
                 tol=_tol, supports_gradgrad=False) for name in NAMES]
