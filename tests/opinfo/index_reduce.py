"""OpInfo entries for dyngrad/ops/index_reduce.py: index_reduce with each reduction ('prod',
'mean', 'amax', 'amin'), with and without self, repeated indices, ties and zeros (the
gradient's special cases), non-contiguous, 0-dim and empty inputs, and the invalid calls
whose errors must be torch's."""
from __future__ import annotations

import numpy as np

from .core import (ALL_BUT_BOOL, ALL_DTYPES, OP_DB, OpInfo, REAL_AND_BOOL, SampleInput,
                   make_array, permuted3, sliced, transposed)


def _partner(dtype):
    return "float64" if dtype != "float64" else "float32"


def _samples(reduce):
    def gen(dtype, rng):
        def x(*shape, dt=dtype):
            return make_array(shape, dt, rng, low=-3, high=4)

        def small(*shape):      # few distinct values: ties and zeros
            return np.asarray(rng.integers(-1, 2, size=shape)).astype(dtype)

        m = x(3, 4)
        return [
            SampleInput(m, 0, np.array([2, 0]), x(2, 4), reduce),
            SampleInput(m, 0, np.array([1, 1, 2]), x(3, 4), reduce, include_self=False),
            SampleInput(m, 1, np.array([3, 0, 3], np.int32), x(3, 3), reduce),
            SampleInput(m, -1, np.array([1, 1]), x(3, 2), reduce, include_self=False),
            SampleInput(small(3, 4), 0, np.array([0, 2, 0, 0]), small(4, 4), reduce,
                        desc="ties and zeros"),
            SampleInput(small(3, 4), 1, np.array([2, 2, 1]), small(3, 3), reduce,
                        include_self=False, desc="ties and zeros"),
            SampleInput(transposed((3, 4), dtype, rng), 0, np.array([1]),
                        sliced((1, 4), dtype, rng), reduce),
            SampleInput(permuted3(dtype, rng), 1, np.array([0, 1, 0]), x(4, 3, 3), reduce),
            SampleInput(x(), 0, np.array([0]), x(), reduce),
            SampleInput(m, 0, np.zeros((0,), np.int64), x(0, 4), reduce),
            # invalid: torch's errors
            SampleInput(m, 0, np.array([3, 0]), x(2, 4), reduce, desc="out of bounds"),
            SampleInput(m, 0, np.array([-1, 0]), x(2, 4), reduce, desc="negative"),
            SampleInput(m, 0, np.array([[1, 0]]), x(2, 4), reduce, desc="index rank"),
            SampleInput(m, 0, np.array([1.0]), x(1, 4), reduce, desc="index dtype"),
            SampleInput(m, 0, np.array([1]), x(1, 4, dt=_partner(dtype)), reduce),
            SampleInput(m, 0, np.array([1, 0]), x(3, 4), reduce, desc="count"),
            SampleInput(m, 0, np.array([1, 0]), x(2, 3), reduce, desc="slice shape"),
            SampleInput(m, 2, np.array([1]), x(1, 4), reduce, desc="dim"),
            SampleInput(m, 1, np.array([1]), x(4), reduce, desc="source dim"),
            SampleInput(m, 0, np.array([1]), x(1, 4), "sum", desc="reduce"),
        ]
    return gen


_DTYPES = {"prod": ALL_DTYPES, "mean": ALL_BUT_BOOL, "amax": REAL_AND_BOOL,
           "amin": REAL_AND_BOOL}
# (torch refuses complex autograd for index_reduce, though not for index_reduce_)
OP_DB += [OpInfo("index_reduce", _samples(r), _DTYPES[r], variant=r, gradgrad_samples=4,
                 supports_complex_autograd=False)
          for r in ("prod", "mean", "amax", "amin")]
