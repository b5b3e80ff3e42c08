"""OpInfo entries for dyngrad/ops/join.py: cat (concat, concatenate), stack and the stacks
built on them (hstack, vstack, row_stack, dstack, column_stack), atleast_1d/2d/3d.

The samples' first argument is a list of arrays (a TensorList), so there is no method or
in-place form. They cover mixed dtypes (cat promotes), non-contiguous and channels_last inputs
(the output layout), the legacy empty 1-D tensors cat skips, and invalid calls (torch's error
must match). tests/test_gather_scatter.py checks ``out=`` casts and graphs of the composites.
"""
from __future__ import annotations

from .core import (ALL_DTYPES, OP_DB, OpInfo, SampleInput, Strided, expanded, make_array,
                   permuted3, sliced, transposed)


def _partner(dtype: str) -> str:
    return "float64" if dtype != "float64" else "int32"


def _channels_last(shape, dtype, rng) -> Strided:
    n, c, h, w = shape
    return Strided(make_array((n * c * h * w,), dtype, rng), shape, (h * w * c, 1, w * c, c),
                   kind="channels_last ")


def _cat(dtype, rng):
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng)

    cl = [_channels_last((2, 3, 2, 2), dtype, rng) for _ in range(2)]
    return [
        SampleInput([x(2, 3), x(1, 3), x(4, 3)]),
        SampleInput([x(2, 3), x(2, 1)], 1),
        SampleInput((x(2, 3), x(2, 2)), dim=-1),
        SampleInput([x(3)]),
        SampleInput([x(2, 3, 4), x(2, 1, 4)], 1),
        SampleInput([transposed((3, 4), dtype, rng), x(3, 2)], 1),
        SampleInput([sliced((3, 4), dtype, rng), transposed((3, 4), dtype, rng)], 0),
        SampleInput([expanded((3, 4), dtype, rng), x(1, 4)], 0),
        SampleInput([permuted3(dtype, rng), permuted3(dtype, rng)], 2),
        SampleInput(cl, 1, desc="channels_last"),
        SampleInput([cl[0], x(2, 3, 2, 2)], 1, desc="channels_last with contiguous"),
        SampleInput([x(2, 3), x(2, 3, dt=_partner(dtype)), x(2, 1, dt="bool")], 1,
                    desc="mixed dtypes"),
        SampleInput([x(0), x(2, 3), x(0)], 1, desc="legacy empty"),
        SampleInput([x(0), x(0)], desc="legacy empty only"),
        SampleInput([x(0, 3), x(2, 3)]),
        SampleInput([x(2, 0), x(2, 3)], 1),
        SampleInput([x(2, 3), x()], desc="0-dim"),
        SampleInput([x(2, 3), x(3, 3)], 1, desc="sizes"),
        SampleInput([x(2, 3), x(2, 3, 1)], desc="ranks"),
        SampleInput([x(2, 3)], 2, desc="dim"),
        SampleInput([], desc="empty list"),
    ]


def _stack(dtype, rng):
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng)

    cl = [_channels_last((2, 3, 2, 2), dtype, rng) for _ in range(2)]
    return [
        SampleInput([x(2, 3), x(2, 3), x(2, 3)]),
        SampleInput([x(2, 3), x(2, 3)], 1),
        SampleInput((x(2, 3), x(2, 3)), dim=2),
        SampleInput([x(2, 3), x(2, 3)], -1),
        SampleInput([x(), x()]),
        SampleInput([transposed((3, 4), dtype, rng), transposed((3, 4), dtype, rng)], 2),
        SampleInput([sliced((3, 4), dtype, rng), expanded((3, 4), dtype, rng)], 0),
        SampleInput(cl, 1, desc="channels_last"),
        SampleInput(cl, 4, desc="channels_last, last dim"),
        SampleInput([x(3), x(3, dt=_partner(dtype))], desc="mixed dtypes"),
        SampleInput([x(0), x(0)], desc="legacy empty"),
        SampleInput([x(0, 2), x(0, 2)], 1),
        SampleInput([x(2, 3), x(3)], desc="sizes"),
        SampleInput([x(2, 3)], 3, desc="dim"),
        SampleInput([], desc="empty list"),
    ]


def _hvd(dtype, rng):
    """Samples for hstack / vstack / dstack / column_stack."""
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng)

    return [
        SampleInput([x(2, 3), x(2, 3)]),
        SampleInput([x(3), x(3)]),
        SampleInput([x(), x()]),
        SampleInput([x(1, 3), x(3)]),
        SampleInput([x(2, 3, 2), x(2, 3, 2)]),
        SampleInput([transposed((3, 4), dtype, rng), x(3, 4, dt=_partner(dtype))]),
        SampleInput([_channels_last((2, 3, 2, 2), dtype, rng)] * 2, desc="channels_last"),
        SampleInput([x(0), x(0)]),
        SampleInput([x(3), x(2, 3)], desc="ranks"),
        SampleInput([], desc="empty list"),
    ]


def _atleast(dtype, rng):
    def x(*shape):
        return make_array(shape, dtype, rng)

    return [SampleInput(x()), SampleInput(x(3)), SampleInput(x(2, 3)), SampleInput(x(2, 3, 2)),
            SampleInput(x(), x(3)), SampleInput([x(), x(2, 3)]),
            SampleInput(transposed((3, 4), dtype, rng))]


_FAST = dict(gradgrad_samples=3)
OP_DB += [
    OpInfo("cat", _cat, ALL_DTYPES, **_FAST),
    OpInfo("concat", _cat, ALL_DTYPES, **_FAST),
    OpInfo("concatenate", _cat, ALL_DTYPES, **_FAST),
    OpInfo("stack", _stack, ALL_DTYPES, **_FAST),
    OpInfo("hstack", _hvd, ALL_DTYPES, **_FAST),
    OpInfo("vstack", _hvd, ALL_DTYPES, **_FAST),
    OpInfo("row_stack", _hvd, ALL_DTYPES, **_FAST),
    OpInfo("dstack", _hvd, ALL_DTYPES, **_FAST),
    OpInfo("column_stack", _hvd, ALL_DTYPES, **_FAST),
    OpInfo("atleast_1d", _atleast, ALL_DTYPES, supports_out=False, **_FAST),
    OpInfo("atleast_2d", _atleast, ALL_DTYPES, supports_out=False, **_FAST),
    OpInfo("atleast_3d", _atleast, ALL_DTYPES, supports_out=False, **_FAST),
]
