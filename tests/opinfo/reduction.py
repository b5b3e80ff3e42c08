"""OpInfo entries for dyngrad/ops/reduction.py: sum, mean, nansum, nanmean, prod, all, any,
count_nonzero. The shared generators (dims, ties, zeros) serve minmax.py, statistics.py too."""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, COMPLEX, FLOATS, DType, OP_DB, OpInfo, SampleInput, expanded,
                   make_array, permuted3, special_values, transposed)


def _reduction_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    m = x((3, 4))
    out = [SampleInput(m), SampleInput(m, 0), SampleInput(m, -1, True), SampleInput(m, (0, 1)),
           SampleInput(m, dim=[1]), SampleInput(m, dim=None), SampleInput(m, dim=()),
           SampleInput(m, dim=(-1, 0), keepdim=True), SampleInput(m, dim=None, keepdim=True),
           SampleInput(x(()), 0), SampleInput(x(()), -1, True), SampleInput(x(())),
           SampleInput(x((2, 3, 4)), (0, 2)), SampleInput(x((2, 3, 4)), 1),
           SampleInput(x((0, 3)), 0), SampleInput(x((0, 3)), 1), SampleInput(x((0, 3))),
           SampleInput(x((1000,)), desc="long (accumulation)"),
           SampleInput(transposed((3, 4), dtype, rng), 0),
           SampleInput(expanded((3, 4), dtype, rng), 1),
           SampleInput(permuted3(dtype, rng), (1, 2)),
           SampleInput(permuted3(dtype, rng), 2, desc="contiguous result"),
           SampleInput(m, dtype=DType("complex128" if dtype in COMPLEX else "float64")),
           SampleInput(m, 1, dtype=DType("complex64")),
           SampleInput(m, 0, keepdim=True, dtype=DType("float32"))]
    if dtype != "float16":   # torch keeps integer sums exact; a float cast of ints is exact too
        out.append(SampleInput(m, dtype=DType("int32")))
    sv = special_values(dtype)
    if sv is not None:
        out += [SampleInput(sv), SampleInput(sv, 0), SampleInput(sv, 1)]
    return out


def dims_samples(dtype, rng, low=None, high=None, *, keyword=False):
    """Reductions over an int-or-tuple ``dim`` with ``keepdim``: the common layouts and shapes.

    With `keyword`, dim and keepdim are passed by keyword (aminmax takes them only so).
    """
    def x(shape):
        return make_array(shape, dtype, rng, low, high)

    def s(a, dim=None, keepdim=None, **kw):
        if keyword:
            if dim is not None:
                kw["dim"] = dim
            if keepdim is not None:
                kw["keepdim"] = keepdim
            return SampleInput(a, **kw)
        args = () if dim is None else ((dim,) if keepdim is None else (dim, keepdim))
        return SampleInput(a, *args, **kw)

    m = x((3, 4))
    return [s(m), s(m, 0), s(m, -1, True), s(x(()), 0), s(x(()), -1, True), s(x(())),
            s(x((2, 3, 4)), 1), s(x((2, 3, 4)), -3, True), s(x((0, 3)), 1), s(x((0, 3)), 0),
            s(x((0, 3))), s(transposed((3, 4), dtype, rng, low=low, high=high), 0),
            s(expanded((3, 4), dtype, rng, low=low, high=high), 1),
            s(permuted3(dtype, rng, low=low, high=high), 2)]


def tied(shape, dtype, rng):
    """Values from {0, 1, 2}: many ties (gradient conventions for max/amax/norm)."""
    return np.asarray(rng.integers(0, 3, size=shape)).astype(dtype)


# -- prod ----------------------------------------------------------------------------------------
def _prod_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -2, 2)

    one_zero = x((3, 4))
    one_zero[1, 2] = 0
    two_zeros = x((3, 4))
    two_zeros[0, 1] = two_zeros[0, 3] = 0
    two_zeros[2, 0] = 0
    out = [SampleInput(x((3, 4))), SampleInput(x((3, 4)), 0), SampleInput(x((3, 4)), -1, True),
           SampleInput(x((2, 3, 4)), 1), SampleInput(x(())), SampleInput(x(()), 0),
           SampleInput(x(()), -1, True), SampleInput(x((0, 3))), SampleInput(x((0, 3)), 1),
           SampleInput(x((0, 3)), 0), SampleInput(x((5,)), 0),
           SampleInput(transposed((3, 4), dtype, rng, low=-2, high=2), 1),
           SampleInput(one_zero, desc="one zero"), SampleInput(one_zero, 1, desc="one zero"),
           SampleInput(one_zero, 0, True, desc="one zero"),
           SampleInput(two_zeros, desc="three zeros"), SampleInput(two_zeros, 1,
                                                                   desc="two zeros in a row"),
           SampleInput(two_zeros, 0, desc="zeros in different columns"),
           SampleInput(x((3, 4)), dtype=DType("float64")),
           SampleInput(x((3, 4)), 1, dtype=DType("complex128"))]
    if dtype != "float16":
        out.append(SampleInput(x((3, 4)), 0, dtype=DType("int32")))
    if dtype == "float64":
        zero = np.array([1.5, 0.0, -2.0, 0.5])
        out += [SampleInput(zero, desc="one zero, full"),
                SampleInput(np.array([0.0, 1.5, 0.0]), desc="two zeros, full")]
    sv = special_values(dtype)
    if sv is not None:
        out += [SampleInput(sv), SampleInput(sv, 1)]
    return out


# -- all, any, count_nonzero ---------------------------------------------------------------------
def _logical_samples(dtype, rng):
    def x(shape):
        a = make_array(shape, dtype, rng)
        if a.size > 2:
            a.reshape(-1)[::3] = 0
        return a

    m = x((3, 4))
    out = [SampleInput(m), SampleInput(m, 0), SampleInput(m, -1, True), SampleInput(m, (0, 1)),
           SampleInput(m, None), SampleInput(m, keepdim=True), SampleInput(m, dim=(1,)),
           SampleInput(x(())), SampleInput(x(()), 0), SampleInput(x((0, 3))),
           SampleInput(x((0, 3)), 0), SampleInput(x((0, 3)), 1, True),
           SampleInput(np.ones((2, 3), dtype)), SampleInput(np.zeros((2, 3), dtype), 1),
           SampleInput(transposed((3, 4), dtype, rng), 1)]
    sv = special_values(dtype)
    if sv is not None:
        out += [SampleInput(sv), SampleInput(sv, 1)]
    return out


def _count_nonzero_samples(dtype, rng):
    m = make_array((3, 4), dtype, rng)
    m.reshape(-1)[::3] = 0
    return [SampleInput(m), SampleInput(m, 0), SampleInput(m, -1), SampleInput(m, (0, 1)),
            SampleInput(m, dim=(1,)), SampleInput(m, ()), SampleInput(make_array((), dtype, rng)),
            SampleInput(make_array((0, 3), dtype, rng), 1),
            SampleInput(transposed((3, 4), dtype, rng), 0)]


def _nan_reduction_samples(dtype, rng):
    out = _reduction_samples(dtype, rng)
    sv = special_values(dtype)
    if sv is not None:
        nan_rows = np.array([[np.nan, 1.0, 2.0], [np.nan, np.nan, np.nan]], dtype)
        out += [SampleInput(nan_rows, 1), SampleInput(nan_rows), SampleInput(nan_rows, 0, True)]
    return out


OP_DB += [
    OpInfo("sum", _reduction_samples, ALL_DTYPES),
    OpInfo("mean", _reduction_samples, ALL_DTYPES),
    OpInfo("nansum", _nan_reduction_samples, ALL_DTYPES[:-2], gradgrad_samples=8),
    OpInfo("nanmean", _nan_reduction_samples, FLOATS),
    OpInfo("prod", _prod_samples, ALL_DTYPES, gradgrad_samples=8),
    OpInfo("all", _logical_samples, ALL_DTYPES),
    OpInfo("any", _logical_samples, ALL_DTYPES),
    OpInfo("count_nonzero", _count_nonzero_samples, ALL_DTYPES),
]
