"""OpInfo entries for dyngrad/ops/complex_views.py (complex, polar, view_as_real,
view_as_complex); tests/test_pointwise_extra.py also compares their graphs, storage sharing,
storage offsets and versions with torch."""
from __future__ import annotations

import numpy as np

from .core import (COMPLEX, FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array, sliced,
                   transposed)

_NO_COMPLEX32 = "dyngrad has no complex32: float16 inputs raise where torch gives ComplexHalf"


def _pair_samples(dtype, rng):
    """Two real tensors of one dtype (broadcast, strided), then torch's errors."""
    def x(shape, **kw):
        return make_array(shape, dtype, rng, -3, 3, **kw)
    out = [SampleInput(x((3, 4)), x((3, 4))), SampleInput(x((3, 1)), x((1, 4))),
           SampleInput(x(()), x((2, 3))), SampleInput(x(()), x(())),
           SampleInput(transposed((3, 4), dtype, rng), x((4,))),
           SampleInput(x((3, 4)), sliced((3, 4), dtype, rng)),
           SampleInput(x((0, 3)), x((3,)))]
    if dtype in FLOATS:
        edges = np.array([0.0, -0.0, 1.5, np.inf, -2.0, np.nan], dtype)
        out += [SampleInput(edges, edges[::-1].copy(), desc="zeros, inf, NaN"),
                SampleInput(x((3,)), 0.5, desc="number: a TypeError"),
                SampleInput(x((3,)), x((3,)).astype("float64" if dtype != "float64"
                                                    else "float32"), desc="two dtypes"),
                SampleInput(x((3,)), make_array((3,), "int64", rng), desc="integers"),
                SampleInput(x((2, 3)), x((2,)), desc="does not broadcast")]
    return out


def _as_real_samples(dtype, rng):
    def z(shape):
        return make_array(shape, dtype, rng, -3, 3)
    return [SampleInput(z((3, 4))), SampleInput(z(())), SampleInput(z((0, 2))),
            SampleInput(transposed((3, 4), dtype, rng)), SampleInput(sliced((2, 3), dtype, rng)),
            SampleInput(Strided(z((4,)), (2, 3), (0, 1), 1), desc="expanded, offset 1")]


def _as_complex_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -3, 3)
    base = x((40,))
    out = [SampleInput(x((3, 2))), SampleInput(x((2,))), SampleInput(x((2, 3, 2))),
           SampleInput(x((0, 2))),
           SampleInput(Strided(base, (3, 2), (4, 1), 2), desc="rows of a wider tensor"),
           SampleInput(Strided(base, (2, 3, 2), (2, 0, 1)), desc="expanded"),
           SampleInput(Strided(base, (1, 2), (3, 1)), desc="odd stride of a size-1 dim"),
           SampleInput(Strided(base, (2, 1, 2), (4, 7, 1), 6), desc="size-1 dim, odd stride"),
           # torch's errors
           SampleInput(x(()), desc="0-dim"), SampleInput(x((3, 3)), desc="last dim 3"),
           SampleInput(transposed((3, 2), dtype, rng), desc="last stride not 1"),
           SampleInput(Strided(base, (3, 2), (5, 1)), desc="odd stride"),
           SampleInput(Strided(base, (3, 2), (4, 1), 1), desc="odd offset"),
           SampleInput(Strided(base, (3, 2), (5, 1), 1), desc="odd stride and offset"),
           SampleInput(Strided(base, (0, 2), (3, 1), 1), desc="empty, odd stride and offset")]
    return out


def _float_only(gen):
    """The samples for the floating dtypes; one plain sample (its error) for the others."""
    def g(dtype, rng):
        if dtype in FLOATS + COMPLEX:
            return gen(dtype, rng)
        return [SampleInput(make_array((3, 2), dtype, rng), make_array((3, 2), dtype, rng))]
    return g


OP_DB += [
    OpInfo("complex", _float_only(_pair_samples), FLOATS,
           xfail={("forward", "float16"): _NO_COMPLEX32}),
    OpInfo("polar", _float_only(_pair_samples), ("float32", "float64")),
    OpInfo("view_as_real", _as_real_samples, COMPLEX, supports_out=False),
    OpInfo("view_as_complex", _as_complex_samples, FLOATS, supports_out=False,
           xfail={("forward", "float16"): _NO_COMPLEX32}),
]
