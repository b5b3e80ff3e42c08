"""OpInfo entries for dyngrad/ops/pooling3d.py: max_pool3d, avg_pool3d and the adaptive 3-d pools.

Samples: batched and unbatched inputs (N=2, C=2, 4x5x6), padding, dilation, ceil_mode,
channels_last_3d and transposed inputs, ties and NaN/-inf windows, and invalid calls whose
errors must be torch's.
"""
from __future__ import annotations

import numpy as np

from .core import FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array


def _gen(build):
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), dtype, rng)
    return gen


def _channels_last_3d(dtype, rng):
    """A (2, 2, 4, 5, 6) tensor laid out channels_last_3d."""
    return Strided(make_array((480,), dtype, rng), (2, 2, 4, 5, 6), (240, 1, 60, 12, 2),
                   kind="channels_last_3d ")


def _transposed(dtype, rng):
    """A (2, 2, 4, 5, 6) tensor whose last two dims are swapped in memory."""
    return Strided(make_array((480,), dtype, rng), (2, 2, 4, 5, 6), (120, 60, 1, 4, 20),
                   kind="transposed ")


def _ties(dtype):
    """A (1, 2, 3, 4) volume with ties, NaN and -inf (floats) to pin down which index wins."""
    if dtype in FLOATS:
        a = [1, 1, np.nan, 2, np.nan, np.nan, 0, -np.inf, -np.inf, 3, 3, 0,
             1, 1, 2, 2, 2, 2, -np.inf, -np.inf, 5, 0, 0, 0]
    else:
        a = [1, 1, 2, 2, 3, 3, 0, 4, 4, 3, 3, 0, 1, 1, 2, 2, 2, 2, 0, 0, 5, 0, 0, 0]
    return np.array(a).astype(dtype).reshape(1, 2, 3, 4)


S = (2, 2, 4, 5, 6)


def _max_pool3d(x, dtype, rng):
    return [SampleInput(x(S), 2), SampleInput(x((2, 4, 5, 6)), (2, 3, 2), (1, 2, 1)),
            SampleInput(x(S), 3, 2, 1, ceil_mode=True),
            SampleInput(x(S), (3, 2, 2), 1, (1, 0, 1), (1, 2, 1)),
            SampleInput(x((1, 2, 4, 5, 6)), 2, return_indices=True, ceil_mode=True),
            SampleInput(_channels_last_3d(dtype, rng), 2, return_indices=True),
            SampleInput(_transposed(dtype, rng), 3, 2),
            SampleInput(_ties(dtype), 2, return_indices=True),
            SampleInput(_ties(dtype), 3, 1, 1, return_indices=True),
            SampleInput(x((0, 2, 4, 5, 6)), 2),
            # invalid
            SampleInput(x(S), 2, padding=2), SampleInput(x(S), 5), SampleInput(x(S), 2, 1, 2, 3),
            SampleInput(x(S), 2, stride=0), SampleInput(x(S), 2, dilation=0),
            SampleInput(x(S), -1), SampleInput(x((4, 5, 6)), 2), SampleInput(x(S), (2, 2)),
            SampleInput(x(S), 2, padding=-1), SampleInput(x((2, 0, 4, 5, 6)), 2)]


def _avg_pool3d(x, dtype, rng):
    return [SampleInput(x(S), 2), SampleInput(x((2, 4, 5, 6)), (2, 3, 2), (1, 2, 1)),
            SampleInput(x(S), 3, 2, 1, ceil_mode=True),
            SampleInput(x(S), 3, 2, 1, True, False),
            SampleInput(x(S), (3, 2, 2), 1, (1, 0, 1), divisor_override=5),
            SampleInput(_channels_last_3d(dtype, rng), 2),
            SampleInput(_transposed(dtype, rng), 3, 2, 1, count_include_pad=False),
            SampleInput(x((0, 2, 4, 5, 6)), 2),
            # invalid
            SampleInput(x(S), 2, padding=2), SampleInput(x(S), 5), SampleInput(x(S), 2, -1),
            SampleInput(x(S), 2, divisor_override=0), SampleInput(x((4, 5, 6)), 2),
            SampleInput(x(S), 2, 2, (1, 1)), SampleInput(x((2, 2, 0, 5, 6)), 2)]


def _adaptive3d(x, dtype, rng):
    return [SampleInput(x(S), (2, 3, 4)), SampleInput(x((2, 4, 5, 6)), 3),
            SampleInput(x(S), (None, 3, None)), SampleInput(x(S), (5, 7, 8)),
            SampleInput(x(S), 1), SampleInput(_channels_last_3d(dtype, rng), (3, 2, 4)),
            SampleInput(_channels_last_3d(dtype, rng), 1), SampleInput(_transposed(dtype, rng), 3),
            SampleInput(x((0, 2, 4, 5, 6)), 2),
            # invalid
            SampleInput(x((4, 5, 6)), 2), SampleInput(x(S), (-1, 2, 2)),
            SampleInput(x(S), (2, 2)), SampleInput(x((2, 2, 0, 5, 6)), 2),
            SampleInput(x((5, 6)), (None, 2, 2))]


def _adaptive_max3d(x, dtype, rng):
    return _adaptive3d(x, dtype, rng) + [
        SampleInput(_ties(dtype), (2, 2, 3), return_indices=True),
        SampleInput(x(S), (3, 4, 5), True)]


MAX_DTYPES = ("uint8", "int8", "int16", "int32", "int64") + FLOATS
GRAD = dict(supports_out=False, gradgrad_samples=2)

OP_DB += [
    OpInfo("nn.functional.max_pool3d", _gen(_max_pool3d), MAX_DTYPES, **GRAD),
    OpInfo("nn.functional.avg_pool3d", _gen(_avg_pool3d), ("int64", "float32", "float64"),
           **GRAD),
    OpInfo("nn.functional.adaptive_avg_pool3d", _gen(_adaptive3d), FLOATS, **GRAD),
    OpInfo("nn.functional.adaptive_max_pool3d", _gen(_adaptive_max3d), FLOATS, **GRAD),
]
