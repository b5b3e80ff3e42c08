"""OpInfo entries for dyngrad/ops/reorder.py: flip, roll, rot90, repeat, repeat_interleave, tile,
broadcasting, meshgrid, cartesian_prod, combinations and block_diag.

These ops move elements without arithmetic, so every dtype behaves alike: each op keeps a few
samples over contiguous, non-contiguous (transposed, sliced, expanded, permuted), 0-dim and empty
inputs, plus invalid calls whose error must be torch's.
"""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, OP_DB, OpInfo, SampleInput, expanded, make_array, permuted3,
                   sliced, transposed)


def _gen(build):
    """A sample generator from ``build(x, dtype, rng)``, ``x(shape)`` making an array."""
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), dtype, rng)
    return gen


def _layouts(dtype, rng):
    return (transposed((3, 4), dtype, rng), sliced((3, 4), dtype, rng),
            expanded((3, 4), dtype, rng))


def _flip(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), (0,)), SampleInput(t, (0, 1)), SampleInput(s, (-1,)),
            SampleInput(e, [1]), SampleInput(permuted3(dtype, rng), (0, 2)),
            SampleInput(x(()), ()), SampleInput(x(()), (0,)), SampleInput(x((0, 3)), (1,)),
            SampleInput(x((3, 4)), (0, -2)), SampleInput(x((3, 4)), 0)]


def _fliplr(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(t), SampleInput(e), SampleInput(x((2, 3, 2))),
            SampleInput(x((4,)))]


def _flipud(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(s), SampleInput(x((5,))), SampleInput(x(()))]


def _roll(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), 1), SampleInput(x((3, 4)), 1, 0), SampleInput(t, -5),
            SampleInput(t, (1, -3), (0, 1)), SampleInput(e, 2, 1), SampleInput(s, (1, 1), (1, 1)),
            SampleInput(permuted3(dtype, rng), 2, -1), SampleInput(x(()), 1),
            SampleInput(x((0, 3)), 1, 0), SampleInput(x((3, 4)), (1, 2)),
            SampleInput(x((3, 4)), ()), SampleInput(x(()), 1, 0), SampleInput(x((3, 4)), 1, 2)]


def _rot90(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(t, 2), SampleInput(e, -1, [1, 0]),
            SampleInput(s, 3), SampleInput(permuted3(dtype, rng), 1, (0, 2)),
            SampleInput(x((3, 4)), 4), SampleInput(x((0, 2)), 1), SampleInput(x((4,))),
            SampleInput(x((3, 4)), 1, (0, -2)), SampleInput(x((3, 4)), 1, (0,))]


def _repeat(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), (2, 1, 3)), SampleInput(t, (1, 1)), SampleInput(x(()), (2, 3)),
            SampleInput(x(()), ()), SampleInput(e, (2, 2)), SampleInput(x((3, 4)), (0, 2)),
            SampleInput(permuted3(dtype, rng), (1, 2, 1, 1)), SampleInput(x((3, 4)), (2,)),
            SampleInput(x((3, 4)), (-1, 2))]


def _tile(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), (2,)), SampleInput(t, (2, 1, 1)), SampleInput(x(()), (3,)),
            SampleInput(s, ()), SampleInput(x((3, 4)), (2, 0))]


def _index(values):
    return np.array(values, dtype=np.int64)


def _repeat_interleave(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 4)), 2), SampleInput(t, 2, 1), SampleInput(x(()), 3),
            SampleInput(x((3, 4)), 2, 0, output_size=6), SampleInput(e, 0, 0),
            SampleInput(x((3, 4)), _index([1, 0, 2]), 0), SampleInput(s, _index([2]), -1),
            SampleInput(x((3, 4)), _index(3)),
            SampleInput(x((3, 4)), _index([1, 2, 1]), 0, output_size=4),
            SampleInput(x((3, 4)), -1), SampleInput(x((3, 4)), 2, 0, output_size=5),
            SampleInput(x((3, 4)), _index([1, 2]), -1), SampleInput(x(()), 2, 0),
            SampleInput(x((3, 4)), _index([1, -1, 1]), 0)]


def _repeat_index(dtype, rng):
    def a(values):
        return np.array(values).astype(dtype)
    out = [SampleInput(a([1, 2, 0])), SampleInput(a([3, 1]), output_size=4),
           SampleInput(a(np.zeros(0))), SampleInput(a([1, 2]), output_size=2), SampleInput(a(2))]
    if dtype in ("int32", "int64"):
        out.append(SampleInput(a([1, -2])))
    return out


def _broadcast_to(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 1)), (2, 3, 4)), SampleInput(x((4,)), (3, 4)),
            SampleInput(x(()), (2, 2)), SampleInput(t, (2, -1, 4)), SampleInput(x((3, 4)), (3, 4)),
            SampleInput(x((3, 4)), (2, 4)), SampleInput(x((3, 4)), (4,))]


def _broadcast_tensors(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    return [SampleInput(x((3, 1)), x((4,))), SampleInput(x(()), x((2, 3)), x((3,))),
            SampleInput(t, x((3, 4))), SampleInput(x((2,))), SampleInput(x((0, 1)), x((3,))),
            SampleInput(x((3, 4)), x((2, 4)))]


def _meshgrid(x, dtype, rng):
    return [SampleInput(x((4,)), x((3,)), indexing="ij"),
            SampleInput(x((4,)), x((3,)), x((2,)), indexing="xy"),
            SampleInput(x(()), x((3,)), indexing="xy"), SampleInput(x((3,)), indexing="ij"),
            SampleInput(x((2,)), x((0,)), indexing="ij"),
            SampleInput(x((3,)), x((2,)), indexing="yx"),
            SampleInput(x((2, 3)), x((2,)), indexing="ij")]


def _cartesian_prod(x, dtype, rng):
    return [SampleInput(x((3,)), x((2,))), SampleInput(x((3,))),
            SampleInput(x((2,)), x((2,)), x((3,))), SampleInput(x((3,)), x((0,))),
            SampleInput(x((2, 2)), x((2,)))]


def _combinations(x, dtype, rng):
    return [SampleInput(x((4,))), SampleInput(x((4,)), 3),
            SampleInput(x((4,)), 2, with_replacement=True), SampleInput(x((3,)), r=1),
            SampleInput(x((3,)), 0), SampleInput(x((2,)), 3), SampleInput(x((0,)), 2),
            SampleInput(x((2, 2))), SampleInput(x((3,)), -1)]


def _block_diag(x, dtype, rng):
    t, s, e = _layouts(dtype, rng)
    other = "float64" if dtype != "float64" else "int32"
    return [SampleInput(x((2, 3)), x((4,)), x(())), SampleInput(t, x((0, 2)), s),
            SampleInput(x((2, 2)), make_array((), other, rng)),
            SampleInput(x((2, 2)), make_array((2,), other, rng)), SampleInput(e),
            SampleInput(x((0,)), x((3, 2))), SampleInput(x((2, 2)), x((1, 2, 2)))]


def _entry(name, build, **kw):
    kw.setdefault("supports_out", False)
    return OpInfo(name, _gen(build), ALL_DTYPES, **kw)


OP_DB += [
    _entry("flip", _flip),
    _entry("fliplr", _fliplr),
    _entry("flipud", _flipud),
    _entry("roll", _roll),
    _entry("rot90", _rot90),
    _entry("Tensor.repeat", _repeat),
    _entry("tile", _tile),
    _entry("repeat_interleave", _repeat_interleave),
    OpInfo("repeat_interleave", _repeat_index, ("int32", "int64"), variant="index",
           method=False, supports_out=False),
    _entry("broadcast_to", _broadcast_to),
    _entry("broadcast_tensors", _broadcast_tensors),
    _entry("meshgrid", _meshgrid, gradgrad_samples=2),
    _entry("cartesian_prod", _cartesian_prod, gradgrad_samples=2),
    _entry("combinations", _combinations, gradgrad_samples=2),
    _entry("block_diag", _block_diag),
]
