"""OpInfo entries for dyngrad/ops/split_extra.py: hsplit/vsplit/dsplit, split_with_sizes, the
unsafe splits and unravel_index, with torch's errors as invalid samples."""
from __future__ import annotations

import numpy as np

from .core import ALL_DTYPES, INTS, OP_DB, REAL, OpInfo, SampleInput, make_array, transposed


def _directional(dim_needed):
    def gen(dtype, rng):
        def x(shape):
            return make_array(shape, dtype, rng)
        big = x((4, 6, 2))
        out = [SampleInput(big, 2), SampleInput(big, [1, 3]), SampleInput(big, (1, 1, 9)),
               SampleInput(big, []),
               # invalid: not divisible, 0 sections, too few dims
               SampleInput(big, 5), SampleInput(big, 0), SampleInput(x(()), 1)]
        if dim_needed == 1:
            out += [SampleInput(x((6,)), 3), SampleInput(transposed((3, 4), dtype, rng), 2)]
        return out
    return gen


def _split_with_sizes(dtype, rng):
    x = make_array((4, 6), dtype, rng)
    return [SampleInput(x, [1, 3]), SampleInput(x, [1, 5], 1), SampleInput(x, [0, 6], -1),
            SampleInput(transposed((3, 4), dtype, rng), [2, 1, 1]),
            SampleInput(x, [1, 2]), SampleInput(x, [2, -1, 3])]


def _unsafe_split(dtype, rng):
    x = make_array((4, 6), dtype, rng)
    return [SampleInput(x, 2), SampleInput(x, 4, 1), SampleInput(x, 3, -1),
            SampleInput(transposed((3, 4), dtype, rng), 2), SampleInput(x, 0)]


def _unsafe_chunk(dtype, rng):
    x = make_array((4, 6), dtype, rng)
    return [SampleInput(x, 2), SampleInput(x, 4, 1), SampleInput(x, 3, -1),
            SampleInput(transposed((3, 4), dtype, rng), 3), SampleInput(x, 0),
            SampleInput(make_array((), dtype, rng), 1)]


def _unravel_index(dtype, rng):
    def idx(values):
        return np.array(values, dtype=dtype)
    out = [SampleInput(idx([4, 7]), (3, 4)), SampleInput(idx(5), (2, 3)),
           SampleInput(idx([[1, 2]]), (3,)), SampleInput(idx([11]), [3, 4]),
           SampleInput(idx([1]), 3),
           SampleInput(idx([1]), (3, -1)), SampleInput(idx([1]), (2.5,))]
    if dtype != "uint8":
        out.append(SampleInput(idx([-1]), (3, 4)))
    return out


def _fill_diagonal(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    value = {"bool": True, "complex64": 1 - 2j, "complex128": 2j}.get(dtype, 3)
    # (a tall matrix with wrap=True writes twice, _version + 2 as torch: in test_aliases.py)
    return [SampleInput(x((3, 4)), value), SampleInput(x((4, 3)), value, wrap=True),
            SampleInput(x((7, 3)), value), SampleInput(x((4, 9)), value, True),
            SampleInput(x((2, 2, 2)), value), SampleInput(transposed((3, 4), dtype, rng), value),
            SampleInput(x((3, 3)), 2.5, desc="a float into any dtype"),
            # invalid: torch's errors
            SampleInput(x((3, 4, 5)), value), SampleInput(x((3,)), value)]


def _max_pool1d_with_indices(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((1, 2, 6)), 2), SampleInput(x((2, 7)), 3, 2, 1, 1, True),
            SampleInput(x((1, 2, 9)), 3, dilation=2), SampleInput(x((2, 3, 4, 5)), 2)]


OP_DB += [
    OpInfo("Tensor.fill_diagonal_", _fill_diagonal, ALL_DTYPES, inplace_only=True),
    OpInfo("max_pool1d_with_indices", _max_pool1d_with_indices, REAL, supports_out=False,
           method=False, gradgrad_samples=2),
    OpInfo("hsplit", _directional(1), ALL_DTYPES, supports_out=False),
    OpInfo("vsplit", _directional(2), ALL_DTYPES, supports_out=False),
    OpInfo("dsplit", _directional(3), ALL_DTYPES, supports_out=False),
    OpInfo("split_with_sizes", _split_with_sizes, ALL_DTYPES, supports_out=False),
    OpInfo("unsafe_split", _unsafe_split, ALL_DTYPES, supports_out=False),
    OpInfo("unsafe_split_with_sizes", _split_with_sizes, ALL_DTYPES, supports_out=False),
    OpInfo("unsafe_chunk", _unsafe_chunk, ALL_DTYPES, supports_out=False),
    OpInfo("unravel_index", _unravel_index, INTS, supports_out=False, method=False,
           supports_autograd=False),
]
