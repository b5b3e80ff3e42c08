"""OpInfo entries for dyngrad/ops/channel_shuffle.py: channel_shuffle and
native_channel_shuffle. Samples: 3-d to 5-d inputs, one group, channels_last and transposed
inputs, empty tensors, and torch's errors (groups not dividing C, groups <= 0, 2-d input).
"""
from __future__ import annotations

from .core import ALL_DTYPES, OP_DB, OpInfo, SampleInput, Strided, make_array


def _shuffle(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    cl = Strided(make_array((144,), dtype, rng), (2, 4, 3, 6), (72, 1, 24, 4),
                 kind="channels_last ")
    tr = Strided(make_array((144,), dtype, rng), (2, 4, 3, 6), (72, 18, 1, 3),
                 kind="transposed ")
    return [SampleInput(x((2, 4, 3, 3)), 2), SampleInput(x((6, 3, 2)), 3),
            SampleInput(x((1, 6, 2, 2, 2)), 2), SampleInput(x((2, 4, 3)), 1),
            SampleInput(cl, 2), SampleInput(tr, 4), SampleInput(x((0, 4, 3)), 2),
            # invalid
            SampleInput(x((2, 4, 3, 3)), 3), SampleInput(x((2, 4, 3, 3)), 0),
            SampleInput(x((4, 3)), 2), SampleInput(x((2, 4, 3, 3)), -2)]


SHUFFLE = dict(supports_out=False, gradgrad_samples=2)

OP_DB += [
    OpInfo("nn.functional.channel_shuffle", _shuffle, ALL_DTYPES, **SHUFFLE),
    OpInfo("nn.functional.native_channel_shuffle", _shuffle, ALL_DTYPES, **SHUFFLE),
]
