"""OpInfo entries for dyngrad/ops/statistics.py: var, std, var_mean, std_mean, logsumexp."""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, FLOATS, FLOATS_AND_COMPLEX, OP_DB, OpInfo, SampleInput,
                   expanded, make_array, permuted3, special_values, transposed)


def _var_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    m = x((3, 4))
    out = [SampleInput(m), SampleInput(m, 1), SampleInput(m, -1, keepdim=True),
           SampleInput(m, (0, 1), keepdim=True), SampleInput(m, False, desc="var(x, unbiased)"),
           SampleInput(m, 1, False, True, desc="var(x, dim, unbiased, keepdim)"),
           SampleInput(m, dim=0, unbiased=False), SampleInput(m, correction=0),
           SampleInput(m, 1, correction=2), SampleInput(m, dim=None, correction=0.5),
           SampleInput(m, None), SampleInput(m, keepdim=True), SampleInput(m, dim=[1]),
           SampleInput(x((2, 3, 4)), (0, 2)), SampleInput(x(()), 0), SampleInput(x(()),
                                                                              correction=0),
           SampleInput(x((5,)), 0), SampleInput(x((1,)), desc="one element: dof 0"),
           SampleInput(m, 0, correction=3, desc="dof 0 per column"),
           SampleInput(x((0, 3)), 0, desc="empty: nan"), SampleInput(x((0, 3)), 1),
           SampleInput(transposed((3, 4), dtype, rng), 1),
           SampleInput(expanded((3, 4), dtype, rng), 0, desc="constant columns"),
           SampleInput(permuted3(dtype, rng), 2)]
    sv = special_values(dtype)
    if sv is not None:
        out += [SampleInput(sv, 1), SampleInput(sv)]
    return out


def _logsumexp_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    m = x((3, 4))
    out = [SampleInput(m, 1), SampleInput(m, 0, True), SampleInput(m, (0, 1)),
           SampleInput(m, [-1], True), SampleInput(x((2, 3, 4)), (0, 2)), SampleInput(x(()), 0),
           SampleInput(x(()), -1, True), SampleInput(x((0, 3)), 0), SampleInput(x((0, 3)), 1),
           SampleInput(transposed((3, 4), dtype, rng), 1),
           SampleInput(permuted3(dtype, rng), 2)]
    if dtype in FLOATS:
        big = np.array([[1000.0, 1000.0, -1000.0], [-1000.0, -1000.0, -999.0]], dtype)
        if dtype == "float16":
            big = big / 100
        inf = np.array([[-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0],
                        [-np.inf, 0.0, 1.0]], dtype)
        out += [SampleInput(big, 1, desc="+-1000"), SampleInput(big, 0, desc="+-1000"),
                SampleInput(inf, 1, desc="infinite rows"), SampleInput(special_values(dtype), 1)]
    return out


def _alias_samples(dtype, rng):
    m = make_array((3, 4), dtype, rng)
    return [SampleInput(m, 1), SampleInput(m, (0, 1), True)]


OP_DB += [
    OpInfo("var", _var_samples, FLOATS_AND_COMPLEX, gradgrad_samples=8),
    OpInfo("std", _var_samples, FLOATS_AND_COMPLEX, gradgrad_samples=8),
    OpInfo("var_mean", _var_samples, FLOATS_AND_COMPLEX, gradgrad_samples=8),
    OpInfo("std_mean", _var_samples, FLOATS_AND_COMPLEX, gradgrad_samples=8),
    OpInfo("logsumexp", _logsumexp_samples, ALL_DTYPES, gradgrad_samples=8),
    OpInfo("special.logsumexp", _alias_samples, ALL_DTYPES, gradgrad_samples=1),
]
