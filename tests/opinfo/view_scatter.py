"""OpInfo entries for dyngrad/ops/view_scatter.py: select_scatter, slice_scatter,
diagonal_scatter (their results keep ``self``'s strides, non-dense ones included) and
slice_inverse (a view of its input's storage with src's geometry)."""
from __future__ import annotations

from .core import (ALL_DTYPES, OP_DB, OpInfo, SampleInput, Strided, expanded, make_array,
                   permuted3, sliced, transposed)


def _partner(dtype):
    return "float64" if dtype != "float64" else "float32"


def _gen(build):
    def gen(dtype, rng):
        return build(lambda *shape, dt=dtype: make_array(shape, dt, rng), dtype, rng)
    return gen


def _select(x, dtype, rng):
    return [SampleInput(x(3, 4), x(4), 0, 1), SampleInput(x(3, 4), x(3), -1, -1),
            SampleInput(transposed((3, 4), dtype, rng), x(4), 0, 2),
            SampleInput(sliced((3, 4), dtype, rng), x(3), 1, 0),
            SampleInput(expanded((3, 4), dtype, rng), x(4), 0, 1),
            SampleInput(permuted3(dtype, rng), x(4, 3), 1, 1),
            SampleInput(x(3), x(), 0, 2),
            SampleInput(x(3, 4), x(4, dt=_partner(dtype)), 0, 1, desc="src dtype"),
            SampleInput(x(3, 4), x(3), 0, 1, desc="src shape"),
            SampleInput(x(3, 4), x(4), 0, 3, desc="index"),
            SampleInput(x(), x(), 0, 0, desc="0-dim")]


def _slice(x, dtype, rng):
    return [SampleInput(x(3, 4), x(3, 2), 1, 1, 3), SampleInput(x(3, 4), x(3, 4)),
            SampleInput(x(3, 4), x(2, 4), 0, None, None, 2),
            SampleInput(x(3, 4), x(3, 2), dim=1, start=-2),
            SampleInput(transposed((3, 4), dtype, rng), x(1, 4), 0, 1, 2),
            SampleInput(sliced((3, 4), dtype, rng), x(3, 2), 1, 0, 4, 2),
            SampleInput(expanded((3, 4), dtype, rng), x(3, 1), 1, 3),
            SampleInput(permuted3(dtype, rng), x(4, 2, 1), 2, -1),
            SampleInput(x(3, 4), x(3, 0), 1, 5),
            SampleInput(x(3, 4), x(3, 2, dt=_partner(dtype)), 1, 2, desc="src dtype"),
            SampleInput(x(3, 4), x(3, 3), 1, 2, desc="src shape"),
            SampleInput(x(3, 4), x(3, 2), 1, 0, None, 0, desc="step"),
            SampleInput(x(), x(), desc="0-dim")]


def _diagonal(x, dtype, rng):
    return [SampleInput(x(3, 4), x(3)), SampleInput(x(3, 4), x(3), 1),
            SampleInput(x(3, 4), x(2), -1), SampleInput(x(2, 3, 4), x(4, 2), 0, 0, 1),
            SampleInput(x(2, 3, 4), x(2, 3), 0, -1, 1),
            SampleInput(transposed((3, 4), dtype, rng), x(3)),
            SampleInput(sliced((3, 4), dtype, rng), x(2), 1),
            SampleInput(expanded((3, 4), dtype, rng), x(3)),
            SampleInput(x(3, 4), x(0), 5),
            SampleInput(x(3, 4), x(3, dt=_partner(dtype)), desc="src dtype"),
            SampleInput(x(3, 4), x(4), desc="src shape"),
            SampleInput(x(3, 4), x(3), 0, 0, 0, desc="same dims")]


_FAST = dict(supports_out=False, gradgrad_samples=3)
OP_DB += [
    OpInfo("select_scatter", _gen(_select), ALL_DTYPES, supports_complex_autograd=False,
           **_FAST),
    OpInfo("slice_scatter", _gen(_slice), ALL_DTYPES, supports_complex_autograd=False,
           **_FAST),
    OpInfo("diagonal_scatter", _gen(_diagonal), ALL_DTYPES, **_FAST),
]


def _slice_inverse(dtype, rng):
    """`input` a slice of a base (so its storage holds `src`'s geometry), `src` that base's
    shape; the backward slices the gradient back to `input`'s shape."""
    flat = lambda n: make_array((n,), dtype, rng)   # noqa: E731
    return [
        SampleInput(Strided(flat(10), (3,), (2,), 2), make_array((10,), dtype, rng), 0, 2, 8, 2),
        SampleInput(Strided(flat(20), (4, 3), (5, 1), 1), make_array((4, 5), dtype, rng), 1, 1,
                    4),
        SampleInput(Strided(flat(20), (2, 5), (5, 1), 10), make_array((4, 5), dtype, rng),
                    dim=0, start=2),
        SampleInput(make_array((6,), dtype, rng), make_array((6,), dtype, rng)),
        SampleInput(make_array((12,), dtype, rng), transposed((3, 4), dtype, rng), 0, 0, 12, 1,
                    desc="src transposed (no gradient fits)"),
        SampleInput(make_array((4,), dtype, rng), make_array((3, 2), dtype, rng),
                    desc="storage too small"),
        SampleInput(make_array((), dtype, rng), make_array((), dtype, rng), desc="0-dim"),
    ]


OP_DB += [
    OpInfo("slice_inverse", _slice_inverse, ALL_DTYPES, supports_complex_autograd=False,
           supports_out=False, gradgrad_samples=3),
]
