"""OpInfo entries for dyngrad/ops/lp_pool.py: lp_pool1d/2d/3d.

LP samples: p = 2 on signed values, fractional and odd p on positive values (torch's pow of a
negative base is NaN there), p = +-inf (max pooling of |x|), stride and ceil_mode, unbatched
inputs, and invalid calls (kernel tuples of the wrong length, windows larger than the input).
"""
from __future__ import annotations

from .core import FLOATS, OP_DB, OpInfo, SampleInput, make_array

INF = float("inf")


def _lp(n):
    sizes = {1: (2, 3, 8), 2: (2, 3, 6, 7), 3: (2, 2, 4, 5, 6)}[n]

    def gen(dtype, rng):
        def signed(shape=sizes):
            return make_array(shape, dtype, rng)

        def positive(shape=sizes):
            return make_array(shape, dtype, rng, low=0.5, high=2.0)
        k3 = (2, 3, 2)[:n] if n > 1 else 2
        return [SampleInput(signed(), 2, 2), SampleInput(positive(), 3, k3, 1),
                SampleInput(positive(), 1.5, 3, 2, True), SampleInput(signed(), INF, 2),
                SampleInput(signed(), -INF, k3, 1, True), SampleInput(signed(sizes[1:]), 2, 2),
                SampleInput(positive(), 1, 2),
                # invalid
                SampleInput(signed(), 2, 9),
                SampleInput(signed(), 2, (2,) * (n + 1)) if n > 1 else
                SampleInput(signed(), 2, 2, 0)]
    return gen


LP = dict(supports_out=False, gradgrad_samples=2)

OP_DB += [
    OpInfo("nn.functional.lp_pool1d", _lp(1), ("bool", "int64") + FLOATS, **LP),
    OpInfo("nn.functional.lp_pool2d", _lp(2), ("bool", "int64") + FLOATS, **LP),
    OpInfo("nn.functional.lp_pool3d", _lp(3), ("bool", "int64", "float32", "float64"), **LP),
]
