"""OpInfo entries for dyngrad/ops/minmax.py: max, min, amax, amin, aminmax, argmax, argmin."""
from __future__ import annotations

import numpy as np

from .core import (INTS, OP_DB, REAL_AND_BOOL, OpInfo, SampleInput, make_array,
                   special_values)
from .reduction import dims_samples, tied

REAL = INTS + ("float16", "float32", "float64")


def _specials(dtype, *args, **kwargs):
    sv = special_values(dtype)
    if sv is None:
        return []
    nan_first = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, -1.0, 2.0]], dtype)
    return [SampleInput(sv, *args, **kwargs, desc="special values"),
            SampleInput(nan_first, *args, **kwargs, desc="NaNs")]


def _max_samples(dtype, rng):
    out = dims_samples(dtype, rng)
    ties = tied((3, 4), dtype, rng)
    out += [SampleInput(ties, desc="ties"), SampleInput(ties, 1, desc="ties"),
            SampleInput(ties, 0, True, desc="ties"), SampleInput(ties, dim=1, keepdim=False),
            SampleInput(make_array((3, 4), dtype, rng), make_array((4,), dtype, rng),
                        desc="max(a, b): maximum")]
    out += _specials(dtype) + _specials(dtype, 1) + _specials(dtype, 0)
    return out


def _amax_samples(dtype, rng):
    out = dims_samples(dtype, rng)
    m = make_array((2, 3, 4), dtype, rng)
    ties = tied((3, 4), dtype, rng)
    out += [SampleInput(m, (0, 2)), SampleInput(m, (-1, 0), True), SampleInput(m, ()),
            SampleInput(m, None), SampleInput(m, (), True), SampleInput(m, dim=[1]),
            SampleInput(ties, desc="ties"), SampleInput(ties, 1, desc="ties"),
            SampleInput(ties, (0, 1), True, desc="ties"),
            SampleInput(make_array((0, 3), dtype, rng), (0, 1))]
    out += _specials(dtype) + _specials(dtype, 1)
    return out


def _aminmax_samples(dtype, rng):
    out = dims_samples(dtype, rng, keyword=True)
    ties = tied((3, 4), dtype, rng)
    out += [SampleInput(ties, desc="ties"), SampleInput(ties, dim=1, desc="ties"),
            SampleInput(ties, dim=0, keepdim=True, desc="ties"),
            SampleInput(ties, keepdim=True, desc="ties, keepdim without dim")]
    out += _specials(dtype) + _specials(dtype, dim=1)
    return out


def _arg_samples(dtype, rng):
    out = dims_samples(dtype, rng)
    ties = tied((3, 4), dtype, rng)
    out += [SampleInput(ties, desc="ties: first occurrence"), SampleInput(ties, 1),
            SampleInput(ties, 0, True), SampleInput(ties, None, True)]
    out += _specials(dtype) + _specials(dtype, 1) + _specials(dtype, 0, True)
    return out


OP_DB += [
    OpInfo("max", _max_samples, REAL_AND_BOOL, gradgrad_samples=6),
    OpInfo("min", _max_samples, REAL_AND_BOOL, gradgrad_samples=6),
    OpInfo("amax", _amax_samples, REAL_AND_BOOL, gradgrad_samples=6),
    OpInfo("amin", _amax_samples, REAL_AND_BOOL, gradgrad_samples=6),
    OpInfo("aminmax", _aminmax_samples, REAL_AND_BOOL, gradgrad_samples=6),
    OpInfo("argmax", _arg_samples, REAL),
    OpInfo("argmin", _arg_samples, REAL),
]
