"""OpInfo entries for dyngrad/ops/pooling.py: max / avg pooling (1-d, 2-d) and adaptive pooling.

Samples: batched and unbatched inputs (N=2, C=3, 6x7), padding, dilation, ceil_mode, a
channels_last input, a non-contiguous input, ties and NaN/-inf windows, and invalid calls whose
errors must be torch's.
"""
from __future__ import annotations

import numpy as np

from .core import FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array


def _gen(build):
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), dtype, rng)
    return gen


def _channels_last(dtype, rng):
    """A (2, 3, 6, 7) tensor laid out channels_last."""
    return Strided(make_array((252,), dtype, rng), (2, 3, 6, 7), (126, 1, 21, 3),
                   kind="channels_last ")


def _transposed(dtype, rng):
    """A (2, 3, 6, 7) tensor whose last two dims are swapped in memory."""
    return Strided(make_array((252,), dtype, rng), (2, 3, 6, 7), (126, 42, 1, 6),
                   kind="transposed ")


def _ties(dtype):
    """Windows with ties, NaN and -inf (floats) to pin down which index wins."""
    if dtype in FLOATS:
        a = np.array([[1, 1, np.nan, 2, np.nan, np.nan, 0], [-np.inf, -np.inf, 3, 3, 0, 1, 1],
                      [2, 2, 2, 2, -np.inf, -np.inf, 5], [0, 0, 0, 0, -np.inf, -np.inf, 1]])
    else:
        a = np.array([[1, 1, 2, 2, 3, 3, 0], [4, 4, 3, 3, 0, 1, 1], [2, 2, 2, 2, 0, 0, 5],
                      [0, 0, 0, 0, 1, 1, 1]])
    return a.astype(dtype)[None]


def _max_pool2d(x, dtype, rng):
    return [SampleInput(x((2, 3, 6, 7)), 2), SampleInput(x((3, 6, 7)), (2, 3), (1, 2)),
            SampleInput(x((2, 3, 6, 7)), 3, 2, 1, ceil_mode=True),
            SampleInput(x((2, 3, 6, 7)), (3, 2), 1, (1, 0), (2, 1)),
            SampleInput(x((1, 2, 6, 7)), 2, return_indices=True, ceil_mode=True),
            SampleInput(_channels_last(dtype, rng), 2, return_indices=True),
            SampleInput(_transposed(dtype, rng), 3, 2),
            SampleInput(_ties(dtype), 2, return_indices=True),
            SampleInput(_ties(dtype), 3, 1, 1, return_indices=True),
            SampleInput(x((0, 3, 6, 7)), 2),
            SampleInput(x((2, 3, 6, 7)), 2, padding=2), SampleInput(x((2, 3, 6, 7)), 7),
            SampleInput(x((2, 3, 6, 7)), 2, stride=0), SampleInput(x((2, 3, 6, 7)), 2,
                                                                   dilation=0),
            SampleInput(x((6, 7)), 2), SampleInput(x((2, 3, 6, 7)), (2, 2, 2)),
            SampleInput(x((2, 3, 6, 7)), 2, padding=-1)]


def _max_pool1d(x, dtype, rng):
    return [SampleInput(x((2, 3, 7)), 2), SampleInput(x((3, 7)), 3, 2, 1, ceil_mode=True),
            SampleInput(x((2, 3, 7)), 2, 1, 0, 3, return_indices=True),
            SampleInput(x((2, 3, 4)), 5), SampleInput(x((2, 3, 4)), 2, padding=2),
            SampleInput(x((4,)), 2)]


def _avg_pool2d(x, dtype, rng):
    return [SampleInput(x((2, 3, 6, 7)), 2), SampleInput(x((3, 6, 7)), (2, 3), (1, 2)),
            SampleInput(x((2, 3, 6, 7)), 3, 2, 1, ceil_mode=True),
            SampleInput(x((2, 3, 6, 7)), 3, 2, 1, True, False),
            SampleInput(x((2, 3, 6, 7)), (3, 2), 1, (1, 0), divisor_override=5),
            SampleInput(_channels_last(dtype, rng), 2),
            SampleInput(_transposed(dtype, rng), 3, 2, 1, count_include_pad=False),
            SampleInput(x((0, 3, 6, 7)), 2),
            SampleInput(x((2, 3, 6, 7)), 2, padding=2), SampleInput(x((2, 3, 6, 7)), 7),
            SampleInput(x((2, 3, 6, 7)), 2, divisor_override=0), SampleInput(x((6, 7)), 2)]


def _avg_pool1d(x, dtype, rng):
    return [SampleInput(x((2, 3, 7)), 2), SampleInput(x((3, 7)), 3, 2, 1, ceil_mode=True),
            SampleInput(x((2, 3, 7)), 3, 2, 1, True, False),
            SampleInput(x((2, 3, 4)), 5), SampleInput(x((2, 3, 4)), 2, padding=2)]


def _adaptive2d(x, dtype, rng):
    return [SampleInput(x((2, 3, 6, 7)), (3, 4)), SampleInput(x((3, 6, 7)), 4),
            SampleInput(x((2, 3, 6, 7)), (None, 5)), SampleInput(x((2, 3, 6, 7)), (8, 9)),
            SampleInput(x((2, 3, 6, 7)), 1), SampleInput(_channels_last(dtype, rng), (4, 3)),
            SampleInput(_channels_last(dtype, rng), 1), SampleInput(_transposed(dtype, rng), 5),
            SampleInput(x((6, 7)), 2), SampleInput(x((2, 3, 6, 7)), (-1, 2)),
            SampleInput(x((2, 3, 6, 7)), (1, 2, 3)), SampleInput(x((2, 3, 0, 4)), 2)]


def _adaptive_max2d(x, dtype, rng):
    return _adaptive2d(x, dtype, rng) + [
        SampleInput(_ties(dtype), (2, 3), return_indices=True),
        SampleInput(x((2, 3, 6, 7)), (4, 5), True)]


def _adaptive1d(x, dtype, rng):
    return [SampleInput(x((2, 3, 7)), 3), SampleInput(x((3, 7)), 5), SampleInput(x((2, 3, 7)), 1),
            SampleInput(x((2, 3, 7)), 9), SampleInput(x((7,)), 2)]


def _adaptive_max1d(x, dtype, rng):
    return _adaptive1d(x, dtype, rng) + [SampleInput(x((2, 3, 7)), 4, return_indices=True)]


MAX_DTYPES = ("uint8", "int8", "int16", "int32", "int64") + FLOATS
AVG_DTYPES = ("int64",) + FLOATS
GRAD = dict(supports_out=False, gradgrad_samples=2)

OP_DB += [
    OpInfo("nn.functional.max_pool2d", _gen(_max_pool2d), MAX_DTYPES, **GRAD),
    OpInfo("nn.functional.max_pool1d", _gen(_max_pool1d), FLOATS, **GRAD),
    OpInfo("nn.functional.avg_pool2d", _gen(_avg_pool2d), AVG_DTYPES, **GRAD),
    OpInfo("nn.functional.avg_pool1d", _gen(_avg_pool1d), AVG_DTYPES, **GRAD),
    OpInfo("nn.functional.adaptive_avg_pool2d", _gen(_adaptive2d), FLOATS, **GRAD),
    OpInfo("nn.functional.adaptive_avg_pool1d", _gen(_adaptive1d), FLOATS, **GRAD),
    OpInfo("nn.functional.adaptive_max_pool2d", _gen(_adaptive_max2d), FLOATS, **GRAD),
    OpInfo("nn.functional.adaptive_max_pool1d", _gen(_adaptive_max1d), FLOATS, **GRAD),
]
