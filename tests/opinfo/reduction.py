"""OpInfo entries for dyngrad/ops/reduction.py."""
from __future__ import annotations

from .core import (ALL_DTYPES, COMPLEX, DType, OP_DB, OpInfo, SampleInput, make_array, permuted3,
                   special_values, transposed, expanded)


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
           SampleInput(m, dtype=DType("complex128" if dtype in COMPLEX else "float64")),
           SampleInput(m, 1, dtype=DType("complex64")),
           SampleInput(m, 0, keepdim=True, dtype=DType("float32"))]
    if dtype != "float16":   # torch keeps integer sums exact; a float cast of ints is exact too
        out.append(SampleInput(m, dtype=DType("int32")))
    sv = special_values(dtype)
    if sv is not None:
        out += [SampleInput(sv), SampleInput(sv, 0), SampleInput(sv, 1)]
    return out


OP_DB += [
    OpInfo("sum", _reduction_samples, ALL_DTYPES),
    OpInfo("mean", _reduction_samples, ALL_DTYPES),
]
