"""OpInfo entries for dyngrad/ops/scan.py: cumsum, cumprod, logcumsumexp, cummax, cummin.

Samples cover each dim (negative too), 0-dim and empty inputs, non-contiguous layouts, special
values, ``dtype=`` conversions, long lanes (accumulation precision), zeros for cumprod's
gradient and ties/NaNs for cummax's indices. tests/test_sorting.py checks the finer points.
"""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, COMPLEX, FLOATS, FLOATS_AND_COMPLEX, OP_DB, REAL_AND_BOOL, DType,
                   OpInfo, SampleInput, expanded, make_array, permuted3, sliced, special_values,
                   transposed)


def _scan_samples(low=None, high=None, dtypes_kw=True, long_lane=(0.5, 1.5)):
    def gen(dtype, rng):
        def x(shape, lo=low, hi=high):
            return make_array(shape, dtype, rng, lo, hi)

        m = x((3, 4))
        out = [SampleInput(m, 0), SampleInput(m, -1), SampleInput(m, dim=1),
               SampleInput(x((2, 3, 4)), 1), SampleInput(x((2, 3, 4)), -3),
               SampleInput(x(()), 0), SampleInput(x(()), -1), SampleInput(x((5,)), 0),
               SampleInput(x((0,)), 0), SampleInput(x((2, 0, 3)), 1), SampleInput(x((2, 0, 3)), 2),
               SampleInput(x((3, 1)), 1, desc="lane of one"),
               SampleInput(transposed((3, 4), dtype, rng, low=low, high=high), 1),
               SampleInput(sliced((3, 4), dtype, rng, low=low, high=high), 0),
               SampleInput(expanded((3, 4), dtype, rng, low=low, high=high), 0),
               SampleInput(permuted3(dtype, rng, low=low, high=high), 2),
               SampleInput(m, 2), SampleInput(x(()), 1)]
        if long_lane is not None:
            out.append(SampleInput(make_array((2, 300), dtype, rng, *long_lane), 1,
                                   desc="long lane (accumulation)"))
        if dtypes_kw:
            wide = "complex128" if dtype in COMPLEX else "float64"
            out += [SampleInput(m, 1, dtype=DType(wide)),
                    SampleInput(x((2, 3)), 0, dtype=DType("int32" if dtype != "bool" else "int64"))]
            if dtype in COMPLEX:
                out.append(SampleInput(m, 0, dtype=DType("float32"), desc="complex to real"))
        sv = special_values(dtype)
        if sv is not None:
            out += [SampleInput(sv, 1), SampleInput(sv, 0)]
        return out
    return gen


def _cumprod_samples(dtype, rng):
    out = _scan_samples(-2, 2, long_lane=(0.9, 1.1))(dtype, rng)
    zeros = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 0.0, 1.5, -2.0], [1.5, -1.0, 2.0, 0.0]])
    if dtype not in ("bool", "uint8"):
        out += [SampleInput(zeros.astype(dtype), 1, desc="zeros"),
                SampleInput(zeros.astype(dtype), 0, desc="zeros")]
    return out


def _logcumsumexp_samples(dtype, rng):
    out = _scan_samples(dtypes_kw=False, long_lane=(-3, 3))(dtype, rng)
    big = np.array([[1000.0, -1000.0, 999.0, 1000.0], [-1000.0, -1001.0, 1.0, 0.0]])
    inf = float("inf")
    edge = np.array([[-inf, -inf, 1.0, -inf], [inf, 2.0, inf, -inf]])
    if dtype != "float16":
        out += [SampleInput(big.astype(dtype), 1, desc="stability at +-1000")]
    if dtype not in COMPLEX:
        # (complex: torch's own complex add gives (0+0j) + (inf+0j) = inf+nanj, which its
        # backward formula then meets; dyngrad's add keeps the imaginary 0, so the gradients
        # at infinities differ: see README's differences)
        out += [SampleInput(edge.astype(dtype), 1, desc="infinities")]
    return out


def _cum_extreme_samples(dtype, rng):
    out = _scan_samples(dtypes_kw=False, long_lane=None)(dtype, rng)
    ties = make_array((4, 6), dtype, rng, 0, 3)
    out += [SampleInput(ties, 1, desc="ties"), SampleInput(ties, 0, desc="ties")]
    if dtype in FLOATS:
        nan = float("nan")
        v = np.array([[1.0, nan, 2.0, nan, 3.0], [0.0, -0.0, 0.0, -1.0, -0.0]], dtype)
        out += [SampleInput(v, 1, desc="NaNs and signed zeros")]
    return out




OP_DB += [
    OpInfo("cumsum", _scan_samples(), ALL_DTYPES, gradgrad_samples=3),
    OpInfo("cumprod", _cumprod_samples, ALL_DTYPES, gradgrad_samples=4),
    OpInfo("logcumsumexp", _logcumsumexp_samples, FLOATS_AND_COMPLEX, gradgrad_samples=3),
    OpInfo("cummax", _cum_extreme_samples, REAL_AND_BOOL, supports_out=False,
           gradgrad_samples=3),
    OpInfo("cummin", _cum_extreme_samples, REAL_AND_BOOL, supports_out=False,
           gradgrad_samples=3),
]
