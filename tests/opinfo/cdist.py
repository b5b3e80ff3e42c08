"""OpInfo entries for dyngrad/ops/cdist.py: cdist (both routes: the direct kernel and, for p = 2
past 25 rows or with ``use_mm_for_euclid_dist``, the matrix-product one), pdist (and
nn.functional.pdist) and dist, with broadcast batches, strided and empty inputs, zero
distances, and the invalid calls whose errors must be torch's. tests/test_cdist.py covers what
the database cannot say (the 25-row switch, double backward errors, gradients at 0)."""
from __future__ import annotations

from .core import COMPLEX, FLOATS, OP_DB, OpInfo, SampleInput, make_array, transposed

MM = "use_mm_for_euclid_dist"
NO_MM = "donot_use_mm_for_euclid_dist"
PS = (0.0, 1.0, 3.0, 0.5, 1.5, float("inf"))


def _with_twins(x, y, rows):
    """y with its first `rows` rows copied from x: pairs at distance exactly 0."""
    y = y.copy()
    y[:rows] = x[:rows]
    return y


def _cdist(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    other = "float64" if dtype == "float32" else "float32"
    a = x((3, 4))
    return [
        SampleInput(a, x((5, 4))), SampleInput(a, _with_twins(a, x((5, 4)), 2), desc="zeros"),
        *[SampleInput(x((3, 4)), x((5, 4)), p) for p in PS],
        SampleInput(a, _with_twins(a, x((5, 4)), 2), 0.5, desc="zeros"),
        SampleInput(x((2, 3, 4)), x((2, 5, 4)), p=1.0),
        SampleInput(x((2, 1, 3, 4)), x((5, 2, 4)), p=3.0),
        SampleInput(x((1, 3, 2)), x((4, 2))), SampleInput(transposed((3, 4), dtype, rng),
                                                          x((2, 4)), p=1.5),
        SampleInput(x((3, 4)), transposed((2, 4), dtype, rng)),
        SampleInput(x((3, 1)), x((2, 1)), 0.0), SampleInput(x((4, 6)), x((3, 6)), 2.5),
        # the matrix-product route
        SampleInput(x((27, 3)), x((4, 3))), SampleInput(x((3, 3)), x((26, 3)), 2),
        SampleInput(x((3, 4)), x((5, 4)), compute_mode=MM),
        SampleInput(x((2, 3, 4)), x((2, 5, 4)), compute_mode=MM),
        SampleInput(x((2, 1, 26, 3)), x((3, 4, 3))),
        SampleInput(x((1, 26, 3)), x((4, 3))),
        SampleInput(transposed((26, 3), dtype, rng), x((2, 3))),
        SampleInput(x((26, 3)), x((4, 3)), compute_mode=NO_MM),
        # empty
        SampleInput(x((0, 4)), x((5, 4))), SampleInput(x((3, 0)), x((5, 0))),
        SampleInput(x((30, 0)), x((5, 0))), SampleInput(x((0, 2, 3)), x((30, 3))),
        SampleInput(x((2, 3, 4)), x((2, 0, 4)), p=1.0),
        # invalid: torch's errors
        SampleInput(x((3,)), x((3, 3))), SampleInput(x((3, 3)), x((3,))),
        SampleInput(x((3, 3)), x((3, 4))), SampleInput(x((3, 3)), x((4, 3)), -1.0),
        SampleInput(x((30, 3)), x((4, 3)), -1.0), SampleInput(x((3, 3)), x((4, 3)), "2"),
        SampleInput(x((3, 3)), x((4, 3)), compute_mode="bad"),
        SampleInput(x((3, 3)), x((4, 3)), compute_mode=None),
        SampleInput(x((2, 3, 3)), x((3, 4, 3))), SampleInput(x((2, 30, 3)), x((3, 4, 3))),
        SampleInput(x((2, 3, 3)), x((3, 4, 4))), SampleInput(x((0, 3)), x((4, 3)), -1.0),
        SampleInput(make_array((3, 3), "int64", rng), x((4, 3))),
        SampleInput(x((30, 3)), make_array((4, 3), "int32", rng)),
        SampleInput(x((3, 3)), make_array((4, 3), other, rng), p=1.0),
        SampleInput(x((30, 3)), make_array((4, 3), other, rng)),
        SampleInput(x((2, 3, 3)), make_array((2, 4, 3), other, rng), compute_mode=MM),
        SampleInput(make_array((3, 3), "float16", rng), x((4, 3))),
        SampleInput(make_array((3, 3), "complex64", rng), x((4, 3))),
    ]


def _pdist(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    a = x((5, 4))
    a[3] = a[1]
    return [
        SampleInput(x((5, 4))), *[SampleInput(x((4, 3)), p) for p in PS],
        SampleInput(a, desc="zeros"), SampleInput(a, 0.5, desc="zeros"),
        SampleInput(a, 3.0, desc="zeros"), SampleInput(transposed((4, 3), dtype, rng)),
        SampleInput(x((2, 6)), p=2.5), SampleInput(x((4, 1))),
        SampleInput(x((1, 3))), SampleInput(x((3, 0))),   # (0, 3): test_cdist.py
        # invalid: torch's errors
        SampleInput(x((3,))), SampleInput(x((2, 3, 3))), SampleInput(x((3, 3)), -1.0),
        SampleInput(x((3, 3)), float("nan")), SampleInput(x((3, 3)), "a"),
        SampleInput(make_array((3, 3), "int64", rng)),
        SampleInput(make_array((3, 3), "float16", rng)),
    ]


def _dist(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    real = dtype in FLOATS
    out = [SampleInput(x((3, 4)), x((3, 4))), SampleInput(x((3, 4)), x((4,)), 3),
           SampleInput(x((2, 1, 3)), x((4, 1)), 1), SampleInput(x(()), x((3,)), 0.5),
           SampleInput(x((5,)), x((5,)), float("inf")), SampleInput(x((3, 4)), x((3, 4)), 0),
           SampleInput(x((3,)), x((3,)), -1.5), SampleInput(x((3,)), x((3,)), 2.5),
           SampleInput(x((0, 3)), x((3,))), SampleInput(transposed((3, 4), dtype, rng),
                                                        x((3, 4)), 1.5),
           SampleInput(x((3,)), make_array((3,), "int64", rng)),
           # invalid: torch's errors
           SampleInput(x((3,)), x((4,))), SampleInput(x((0,)), x((0,)), float("inf")),
           SampleInput(x((3,)), 2.0), SampleInput(x((3,)), x((3,)), "a"),
           SampleInput(x((3,)), x((3,)), 1j), SampleInput(x((3,)), make_array((3,), "bool", rng)),
           SampleInput(make_array((3,), "int64", rng), make_array((3,), "int32", rng))]
    if real:
        a = x((3, 4))
        out += [SampleInput(a, a.copy(), desc="zero distance"),
                SampleInput(a, a.copy(), 1.5, desc="zero distance"),
                SampleInput(x((3,)), make_array((), "float64", rng))]
    return out


OP_DB += [
    OpInfo("cdist", _cdist, ("float32", "float64"), supports_out=False),
    OpInfo("pdist", _pdist, ("float32", "float64"), supports_out=False, gradgrad_samples=4),
    OpInfo("nn.functional.pdist", _pdist, ("float32", "float64"), supports_out=False,
           gradgrad_samples=4),
    OpInfo("dist", _dist, FLOATS + COMPLEX, supports_out=False, gradgrad_samples=6,
           tol={"float16": (1e-2, 1e-2)}),
]
