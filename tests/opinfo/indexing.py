"""OpInfo entries for dyngrad/ops/indexing.py: ``x[index]``, index_select, masked_select, take.

Index arrays in samples become index tensors of the library under test (``SampleInput``
materialises NumPy arrays); Python lists, ints and slices stay as they are. tests/test_indexing.py
covers setitem and the finer points (warnings, version counters, aliasing).
"""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, OP_DB, OpInfo, SampleInput, expanded, make_array, permuted3,
                   sliced, transposed)


def _getitem(dtype, rng):
    x = make_array((3, 4, 5), dtype, rng)
    t = transposed((3, 4), dtype, rng)
    mask = rng.random((3, 4)) > 0.5
    return [
        SampleInput(x, 1), SampleInput(x, (slice(None), 2)), SampleInput(x, (Ellipsis, None, 1)),
        SampleInput(x, (slice(1, None, 2), slice(None, 3))), SampleInput(x, Ellipsis),
        SampleInput(x, [2, 0]), SampleInput(x, (slice(None), [1, 3], [0, 4])),
        SampleInput(x, ([0, 2], slice(None), [1, 1])), SampleInput(x, mask),
        SampleInput(x, np.array([[0, 1], [2, 0]])), SampleInput(x, (np.int64(1), [0, 3])),
        SampleInput(t, (slice(None), [3, 0])), SampleInput(t, mask),
        SampleInput(permuted3(dtype, rng), ([0, 3], slice(None), [2, 1])),
        SampleInput(sliced((3, 4), dtype, rng), (Ellipsis, [1, 0])),
        SampleInput(expanded((3, 4), dtype, rng), [1, 2]),
        SampleInput(x, 3), SampleInput(x, [0, 3]), SampleInput(x, (slice(None, None, -1),)),
        SampleInput(make_array((), dtype, rng), None), SampleInput(make_array((), dtype, rng), 0),
    ]


def _index_select(dtype, rng):
    x = make_array((3, 4), dtype, rng)
    idx = np.array([2, 0, 2])
    return [SampleInput(x, 1, idx), SampleInput(x, 0, idx.astype(np.int32)),
            SampleInput(transposed((3, 4), dtype, rng), -1, np.array([3])),
            SampleInput(permuted3(dtype, rng), 2, np.array(1)),
            SampleInput(make_array((), dtype, rng), 0, np.array([0])),
            SampleInput(x, 1, np.array([4])), SampleInput(x, 1, np.array([0.0])),
            SampleInput(x, 0, np.zeros((0,), np.int64)),
            SampleInput(make_array((0, 4), dtype, rng), 1, np.array([3, 0])),
            SampleInput(sliced((3, 4), dtype, rng), 0, np.array([1, 1, 0])),
            SampleInput(expanded((3, 4), dtype, rng), 1, np.array([2]))]


def _masked_select(dtype, rng):
    x = make_array((3, 4), dtype, rng)
    return [SampleInput(x, rng.random((3, 4)) > 0.5), SampleInput(x, np.array([True, False] * 2)),
            SampleInput(transposed((3, 4), dtype, rng), rng.random((3, 1)) > 0.3),
            SampleInput(make_array((4,), dtype, rng), rng.random((2, 4)) > 0.5),
            SampleInput(x, np.array([1, 0, 1, 1], dtype=np.uint8)),
            SampleInput(make_array((), dtype, rng), np.array(True)),
            SampleInput(x, np.array(False)),
            SampleInput(make_array((0, 4), dtype, rng), rng.random((1, 4)) > 0.5),
            SampleInput(expanded((3, 4), dtype, rng), rng.random((3, 4)) > 0.5)]


def _take(dtype, rng):
    x = make_array((3, 4), dtype, rng)
    return [SampleInput(x, np.array([[0, 11], [-1, 5]])),
            SampleInput(transposed((3, 4), dtype, rng), np.array([1, 2, 3])),
            SampleInput(x, np.array(7)), SampleInput(x, np.array([12])),
            SampleInput(x, np.array([0], dtype=np.int32)),
            SampleInput(x, np.zeros((0, 2), np.int64)),
            SampleInput(make_array((0,), dtype, rng), np.zeros((0,), np.int64)),
            SampleInput(expanded((3, 4), dtype, rng), np.array([11, 0, 4])),
            SampleInput(sliced((3, 4), dtype, rng), np.array([[5], [2]]))]


def _index_put(dtype, rng):
    x = make_array((3, 4), dtype, rng)
    other = "float32" if dtype != "float32" else "int64"
    return [SampleInput(x, (np.array([0, 2]),), make_array((2, 4), dtype, rng)),
            SampleInput(x, (np.array([0, 0]), np.array([1, 1])), make_array((2,), dtype, rng),
                        True),
            SampleInput(x, (rng.random((3, 4)) > 0.5,), make_array((), dtype, rng)),
            SampleInput(transposed((3, 4), dtype, rng), (np.array([1]),),
                        make_array((4,), dtype, rng), accumulate=True),
            SampleInput(x, (np.array([3]),), make_array((4,), dtype, rng)),
            SampleInput(x, (np.array([1]),), make_array((4,), other, rng))]


OP_DB += [
    OpInfo("index_put", _index_put, ALL_DTYPES, supports_out=False),
    OpInfo("Tensor.__getitem__", _getitem, ALL_DTYPES),
    OpInfo("index_select", _index_select, ALL_DTYPES),
    OpInfo("masked_select", _masked_select, ALL_DTYPES),
    OpInfo("take", _take, ALL_DTYPES),
]
