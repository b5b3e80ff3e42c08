"""OpInfo entries for dyngrad/ops/histogram.py: histc, histogram and bincount (no gradients:
tests/test_statistics_extra.py checks their nodes), with ranges from the data or given, values
on and outside the edges, NaN and inf, weights, density, edge tensors (unsorted too), and the
invalid calls whose errors must be torch's."""
from __future__ import annotations

import numpy as np

from .core import FLOATS, INTS, OP_DB, OpInfo, SampleInput, make_array, sliced, transposed


def _histc_samples(dtype, rng):
    def x(shape, **kw):
        return make_array(shape, dtype, rng, **kw)

    v = x((20,))
    edge = np.array([-2.0, 3.0, 0.5, 3.0, -2.0, 7.0, -9.0], dtype) if dtype in FLOATS else v
    out = [SampleInput(v, 10), SampleInput(v), SampleInput(v, 7, -2, 3),
           SampleInput(v, bins=4, min=-1.5, max=2.5), SampleInput(x((3, 4)), 5),
           SampleInput(v, 1), SampleInput(x(()), 3), SampleInput(x((0,)), 4),
           SampleInput(x((2, 0)), 4, -3, 3), SampleInput(transposed((3, 4), dtype, rng), 6),
           SampleInput(sliced((3, 4), dtype, rng), 6, 0, 4), SampleInput(edge, 5, -2, 3),
           SampleInput(edge, 3, desc="values on the edges"), SampleInput(v, 6, True, 4),
           SampleInput(x((50,), low=0, high=1), 13, 0.1, 0.9)]
    if dtype in FLOATS:
        out += [SampleInput(np.full((4,), 2.5, dtype), 3, desc="constant: range +-1"),
                SampleInput(np.array([np.nan, 1.0, np.inf, -np.inf, 0.5], dtype), 4, -1, 2)]
    # invalid: torch's errors
    out += [SampleInput(v, 0), SampleInput(v, -3), SampleInput(v, 3, 2, 1),
            SampleInput(v, 3, 0, float("inf")), SampleInput(v, 3.0), SampleInput(v, True),
            SampleInput(v, 3, None), SampleInput(v, 3, "a"), SampleInput(v, 3, 1 + 1j, 2)]
    if dtype in FLOATS:
        out.append(SampleInput(np.array([1.0, np.nan], dtype), 3, desc="NaN in the range"))
    return out


def _histogram_samples(dtype, rng):
    def x(shape, **kw):
        return make_array(shape, dtype, rng, **kw)

    v = x((20,))
    m = x((3, 4))
    floats = dtype in FLOATS
    edges = np.array([-4.0, -1.0, 0.5, 2.0, 4.5], dtype if floats else "float64")
    out = [SampleInput(v, 5), SampleInput(m), SampleInput(m, 4, range=(-2.0, 3.0)),
           SampleInput(v, 7, range=(0, 2)), SampleInput(v, bins=3, weight=x((20,))),
           SampleInput(m, 4, weight=x((3, 4)), density=True), SampleInput(m, 6, density=True),
           SampleInput(m, 4, range=[1.0, 1.0], desc="empty range: +-0.5"),
           SampleInput(x(()), 3), SampleInput(x((0,)), 3), SampleInput(x((0,)), 3, density=True),
           SampleInput(transposed((3, 4), dtype, rng), 5),
           SampleInput(x((200,), low=-1, high=1), 17, desc="local search"),
           SampleInput(v, edges), SampleInput(m, edges, weight=x((12,))),
           SampleInput(v, edges, density=True), SampleInput(v, edges[::-1].copy()),
           SampleInput(v, edges[[3, 1, 4]], desc="unsorted edges"),
           SampleInput(v, edges[:2])]
    if floats:
        out += [SampleInput(np.array([np.nan, 1.0, np.inf, 0.5, -np.inf], dtype), 3,
                            range=(0.0, 1.0)),
                SampleInput(np.array([-4.0, 4.5, 0.5, 2.0, 1.0], dtype), edges,
                            desc="values on the edges"),
                SampleInput(np.full((4,), 2.5, dtype), 2)]
    # invalid: torch's errors
    out += [SampleInput(v, 0), SampleInput(v, 3, range=(0.0, 1.0, 2.0)),
            SampleInput(v, 3, range=(2.0, 0.0)), SampleInput(v, 3, range=(0.0, float("inf"))),
            SampleInput(v, 3, weight=x((19,))), SampleInput(v, edges.reshape(1, 5)),
            SampleInput(v, edges[:0]), SampleInput(v, edges[:1]),
            SampleInput(v, edges[:1].reshape(())),
            SampleInput(v, 3.0), SampleInput(v, [0.0, 1.0]), SampleInput(v, 3, (0.0, 1.0)),
            SampleInput(v, edges, range=(0.0, 1.0))]
    if floats:
        other = "float64" if dtype != "float64" else "float32"
        out += [SampleInput(v, edges.astype(other)), SampleInput(v, 3, weight=v.astype(other)),
                SampleInput(np.array([1.0, np.nan], dtype), 3, desc="NaN in the range")]
    return out


def _bincount_samples(dtype, rng):
    def x(shape, low=0, high=10):
        return make_array(shape, dtype, rng, low=low, high=high)

    v = x((15,))
    out = [SampleInput(v), SampleInput(v, minlength=12), SampleInput(v, None, 3),
           SampleInput(v, rng.random(15).astype("float32")), SampleInput(v, rng.random(15)),
           SampleInput(v, rng.random(15).astype("float16"), 4),
           SampleInput(v, np.arange(15, dtype="int32")), SampleInput(v, rng.random(15) < 0.5),
           SampleInput(x((0,))), SampleInput(x((0,)), minlength=5),
           SampleInput(x((0,)), np.zeros(3), 2), SampleInput(x((1,), 7, 8)),
           SampleInput(sliced((1, 6), dtype, rng, low=0, high=10).values()[0])]
    if dtype in INTS and dtype != "uint8":
        out.append(SampleInput(np.array([1, -1, 2], dtype)))
    # invalid: torch's errors
    out += [SampleInput(x((2, 3))), SampleInput(x(())), SampleInput(v, np.ones(14)),
            SampleInput(v, np.ones((15, 1))), SampleInput(v, minlength=-1),
            SampleInput(v, minlength=True), SampleInput(v, minlength=2.0), SampleInput(v, 5),
            SampleInput([1, 2])]
    return out


def _histogramdd_samples(dtype, rng):
    def x(shape, **kw):
        return make_array(shape, dtype, rng, **kw)

    floats = dtype in FLOATS
    pts = x((12, 2))
    e0 = np.array([-4.0, 0.0, 4.5], dtype if floats else "float64")
    e1 = np.array([-5.0, -1.0, 1.0, 5.0], dtype if floats else "float64")
    out = [SampleInput(pts, 3), SampleInput(pts, [2, 4]), SampleInput(pts, (3, 1)),
           SampleInput(x((4, 3, 3)), [2, 3, 2]), SampleInput(pts, [2, 3], [-2, 2, -3, 3.0]),
           SampleInput(pts, 2, weight=x((12,))), SampleInput(pts, [3, 2], density=True),
           SampleInput(x((4, 3, 2)), 2, weight=x((4, 3)), density=True),
           SampleInput(pts, [e0, e1]), SampleInput(pts, [e0, e1], weight=x((12,)), density=True),
           SampleInput(pts, bins=[e1, e0]), SampleInput(x((0, 2)), 2),
           SampleInput(x((5, 1)), 4), SampleInput(transposed((6, 2), dtype, rng), 3)]
    # invalid: torch's errors
    out += [SampleInput(x((6,)), 2), SampleInput(x(()), 2), SampleInput(pts, [2]),
            SampleInput(pts, [2, 0]), SampleInput(pts, [2, 2], [0.0, 1.0]),
            SampleInput(pts, 2, weight=x((11,))), SampleInput(pts, [e0]),
            SampleInput(pts, [e0, 2]), SampleInput(pts, [True, 2]), SampleInput(pts, 2.0),
            SampleInput(pts, [2, 2], [0.0, 1.0, 2.0, float("inf")]),
            SampleInput(pts, [2, 2, 2], [0.0, 1.0, 2.0, float("inf")]),
            SampleInput(pts, 2, out=None), SampleInput(pts, [e0, e1[:1]]), SampleInput(pts, [])]
    if floats:
        other = "float64" if dtype != "float64" else "float32"
        out += [SampleInput(pts, [e0, e1.astype(other)]),
                SampleInput(pts, 2, weight=x((12,)).astype(other))]
    return out


OP_DB += [
    OpInfo("histogramdd", _histogramdd_samples, FLOATS, supports_autograd=False,
           supports_out=False),
    OpInfo("histc", _histc_samples, FLOATS, supports_autograd=False),
    OpInfo("histogram", _histogram_samples, FLOATS, supports_autograd=False, supports_out=False),
    OpInfo("bincount", _bincount_samples, INTS, supports_autograd=False, supports_out=False),
]
