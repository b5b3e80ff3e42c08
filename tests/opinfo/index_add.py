"""OpInfo entries for dyngrad/ops/index_add.py: index_add, masked_scatter and put (the public
forms of scatter.py's primitives), with repeated indices, broadcasting, non-contiguous and
0-dim / empty inputs, and invalid calls (torch's error must match)."""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, OP_DB, OpInfo, SampleInput, expanded, make_array, permuted3,
                   sliced, transposed)


def _partner(dtype):
    return "float64" if dtype != "float64" else "float32"


def _index_add(dtype, rng):
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng)

    m = x(3, 4)
    alpha = True if dtype == "bool" else 2
    return [
        SampleInput(m, 0, np.array([2, 0, 2]), x(3, 4)),
        SampleInput(m, 1, np.array([3, 1]), x(3, 2), alpha=alpha),
        SampleInput(m, -1, np.array([1, 1], np.int32), x(3, 2)),
        SampleInput(transposed((3, 4), dtype, rng), 0, np.array([1]), sliced((1, 4), dtype, rng)),
        SampleInput(permuted3(dtype, rng), 1, np.array([0, 1, 0]), x(4, 3, 3)),
        SampleInput(x(), 0, np.array([0]), x()), SampleInput(x(4), 0, np.array(3), x()),
        SampleInput(m, 0, np.zeros((0,), np.int64), x(0, 4)),
        SampleInput(m, 0, np.array([5, 0]), x(2, 4), desc="out of bounds"),
        SampleInput(m, 1, np.array([-1]), x(3, 1), alpha=alpha, desc="negative"),
        SampleInput(m, 0, np.array([[1, 0]]), x(2, 4), desc="index rank"),
        SampleInput(m, 0, np.array([1.0]), x(1, 4), desc="index dtype"),
        SampleInput(m, 0, np.array([1, 0]), x(2, 4, dt=_partner(dtype)), desc="source dtype"),
        SampleInput(m, 0, np.array([1, 0]), x(3, 4), desc="count"),
        SampleInput(m, 0, np.array([1, 0]), x(2, 3), desc="slice shape"),
        SampleInput(expanded((3, 4), dtype, rng), 0, np.array([1]), x(1, 4),
                    desc="expanded self"),
    ]


def _masked_scatter(dtype, rng):
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng)

    def mask(*shape):
        return rng.random(shape) < 0.5

    m = x(3, 4)
    return [
        SampleInput(m, mask(3, 4), x(12)), SampleInput(m, mask(4), x(3, 5)),
        SampleInput(x(4), mask(3, 4), x(12), desc="broadcast self"),
        SampleInput(transposed((3, 4), dtype, rng), mask(3, 4), transposed((4, 3), dtype, rng)),
        SampleInput(expanded((3, 4), dtype, rng), mask(3, 4), x(12)),
        SampleInput(x(), np.array(True), x(2)), SampleInput(m, np.array(False), x(0)),
        SampleInput(x(0, 4), mask(0, 4), x(3)),
        SampleInput(m, np.ones((3, 4), bool), x(5), desc="too few source elements"),
        SampleInput(m, mask(3, 4), x(12, dt=_partner(dtype)), desc="source dtype"),
        SampleInput(m, mask(3, 4).astype(np.int32), x(12), desc="mask dtype"),
        SampleInput(m, mask(4, 3), x(12), desc="shapes"),
    ]


def _put(dtype, rng):
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng)

    m = x(3, 4)
    return [
        SampleInput(m, np.array([1, -1, 5]), x(3)),
        SampleInput(m, np.array([[0, 0], [11, 0]]), x(2, 2), accumulate=True),
        SampleInput(m, np.array([2, 3]), x(2), True),
        SampleInput(transposed((3, 4), dtype, rng), np.array([[1], [2]]), x(2)),
        SampleInput(permuted3(dtype, rng), np.array([23, 0]), sliced((1, 2), dtype, rng)),
        SampleInput(x(), np.array(0), x(1)),
        SampleInput(m, np.zeros((0,), np.int64), x(0)),
        SampleInput(x(0), np.zeros((0,), np.int64), x(0)),
        SampleInput(m, np.array([12]), x(1), desc="out of bounds"),
        SampleInput(m, np.array([-13]), x(1), desc="out of bounds"),
        SampleInput(m, np.array([1], np.int32), x(1), desc="index dtype"),
        SampleInput(m, np.array([1]), x(1, dt=_partner(dtype)), desc="source dtype"),
        SampleInput(m, np.array([1, 2]), x(3), desc="count"),
        SampleInput(x(0), np.array([0]), x(1), desc="empty self"),
        SampleInput(expanded((3, 4), dtype, rng), np.array([1]), x(1), desc="expanded self"),
    ]


_FAST = dict(gradgrad_samples=3)
OP_DB += [
    OpInfo("index_add", _index_add, ALL_DTYPES, **_FAST),
    OpInfo("masked_scatter", _masked_scatter, ALL_DTYPES, supports_out=False, **_FAST),
    OpInfo("put", _put, ALL_DTYPES, supports_out=False, **_FAST),
]
