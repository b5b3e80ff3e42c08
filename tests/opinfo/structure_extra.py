"""OpInfo entries for dyngrad/ops/structure_extra.py: inner, tril_indices / triu_indices,
vander / linalg.vander, chain_matmul, renorm and narrow_copy, with non-contiguous, 0-dim and
empty inputs and the invalid calls whose errors must be torch's."""
from __future__ import annotations

from .core import (ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, DType, FLOATS_AND_COMPLEX, INTS, OP_DB,
                   OpInfo, SampleInput, make_array, permuted3, sliced, transposed)


def _other(dtype):
    return "float64" if dtype != "float64" else "float32"


def _inner(dtype, rng):
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng)
    return [
        SampleInput(x(3, 4), x(2, 4)), SampleInput(x(4), x(4)), SampleInput(x(3, 4), x(4)),
        SampleInput(x(4), x(2, 4)), SampleInput(x(1, 4), x(1, 1, 4)),
        SampleInput(x(2, 3, 4), x(5, 4)), SampleInput(x(2, 1), x(3, 1)),
        SampleInput(transposed((4, 3), dtype, rng), sliced((2, 3), dtype, rng)),
        SampleInput(permuted3(dtype, rng), x(2, 3)), SampleInput(x(), x(3, 2)),
        SampleInput(x(3), x()), SampleInput(x(0, 3), x(2, 3)), SampleInput(x(2, 0), x(3, 0)),
        SampleInput(x(), x(3, dt=_other(dtype)), desc="0-dim promotes"),
        # invalid: torch's errors
        SampleInput(x(3, 4), x(3, 5)), SampleInput(x(3), x(4)), SampleInput(x(2, 1), x(3, 4)),
        SampleInput(x(3, 4), x(2, 4, dt=_other(dtype))), SampleInput(x(3, 4), 2.0),
    ]


def _indices(dtype, rng):
    d = DType(dtype)
    return [
        SampleInput(3, 4, dtype=d), SampleInput(3, 4, 1, dtype=d), SampleInput(4, 3, -1, dtype=d),
        SampleInput(3, 4, -5, dtype=d), SampleInput(3, 4, 9, dtype=d), SampleInput(0, 4, dtype=d),
        SampleInput(3, 0, dtype=d), SampleInput(5, 5, 2, dtype=d), SampleInput(1, 1, dtype=d),
        # invalid: torch's errors
        SampleInput(-1, 4, dtype=d), SampleInput(3, -4, dtype=d), SampleInput(3.0, 3, dtype=d),
        SampleInput(3, 3, 1.0, dtype=d), SampleInput(True, 3, dtype=d), SampleInput(3, dtype=d),
    ]


def _vander(dtype, rng):
    def x(*shape, **kw):
        return make_array(shape, dtype, rng, **kw)
    v = x(4, low=-2, high=3)
    return [
        SampleInput(v), SampleInput(v, 3), SampleInput(v, N=5, increasing=True),
        SampleInput(v, 1), SampleInput(v, 0), SampleInput(v, 2, True), SampleInput(x(0)),
        SampleInput(v[::2]),
        # invalid: torch's errors
        SampleInput(v, -1), SampleInput(x(2, 2)), SampleInput(x()),
    ]


def _linalg_vander(dtype, rng):
    def x(*shape, **kw):
        return make_array(shape, dtype, rng, low=-2, high=3, **kw)
    return [
        SampleInput(x(4)), SampleInput(x(4), N=3), SampleInput(x(2, 3), N=4),
        SampleInput(x(), N=3), SampleInput(x(0), N=3),
        SampleInput(transposed((3, 2), dtype, rng, low=-2, high=3)),
        # invalid: torch's errors
        SampleInput(x(4), N=1), SampleInput(x()), SampleInput(x(0)), SampleInput(x(3), 3),
    ]


def _chain_matmul(dtype, rng):
    def x(*shape, dt=dtype):
        return make_array(shape, dt, rng, low=-3, high=4)
    return [
        SampleInput(x(3, 4), x(4, 2)), SampleInput(x(3, 4), x(4, 2), x(2, 5)),
        SampleInput(x(2, 3), x(3, 4), x(4, 1), x(1, 3)),
        SampleInput(transposed((3, 4), dtype, rng)),
        SampleInput(x(3, 4)), SampleInput(x(0, 4), x(4, 2)),
        # invalid: torch's errors
        SampleInput(x(3, 4), x(3, 4)), SampleInput(x(3, 4), x(4)), SampleInput(x(2, 2, 2)),
        SampleInput(x(3, 4), x(4, 2, dt=_other(dtype))),
    ]


def _renorm(dtype, rng):
    def x(*shape):
        return make_array(shape, dtype, rng)
    m = x(3, 4)
    return [
        SampleInput(m, 2, 0, 5.0), SampleInput(m, 1, 1, 4), SampleInput(m, 3, -1, 2.5),
        SampleInput(m, float("inf"), 0, 3.0), SampleInput(m, 1.5, 1, 100.0),
        SampleInput(m, 2, 0, 0.0), SampleInput(transposed((3, 4), dtype, rng), 2, 1, 4.0),
        SampleInput(permuted3(dtype, rng), 2, 1, 5.0), SampleInput(x(0, 3), 2, 0, 1.0),
        SampleInput(x(3, 0), 2, 0, 1.0),
        # invalid: torch's errors
        SampleInput(m, 0, 0, 1.0), SampleInput(m, -1, 0, 1.0), SampleInput(m, 2, 0, -1.5),
        SampleInput(m, 2, 2, 1.0), SampleInput(x(4), 2, 0, 1.0), SampleInput(x(), 2, 0, 1.0),
        SampleInput(m, 1j, 0, 1.0), SampleInput(m, 2, 0, 1j),
    ]


def _narrow_copy(dtype, rng):
    def x(*shape):
        return make_array(shape, dtype, rng)
    m = x(3, 4)
    return [
        SampleInput(m, 0, 1, 2), SampleInput(m, 1, 0, 4), SampleInput(m, -1, -3, 2),
        SampleInput(m, 0, 3, 0), SampleInput(transposed((3, 4), dtype, rng), 1, 1, 2),
        SampleInput(permuted3(dtype, rng), 2, 1, 1), SampleInput(x(0, 2), 1, 1, 1),
        # invalid: torch's errors
        SampleInput(m, 0, 2, 2), SampleInput(m, 0, 5, 0), SampleInput(m, 0, -5, 0),
        SampleInput(m, 0, 0, -1), SampleInput(m, 2, 0, 1), SampleInput(m, -3, 0, 1),
        SampleInput(x(), 0, 0, 1),
    ]


OP_DB += [
    OpInfo("inner", _inner, ALL_BUT_BOOL, gradgrad_samples=4),
    OpInfo("tril_indices", _indices, ("int32", "int64"), supports_out=False),
    OpInfo("triu_indices", _indices, ("int32", "int64"), supports_out=False),
    # torch's own vander cannot be differentiated (its cumprod's saved input is overwritten in
    # place): tests/test_structure_extra.py checks that backward fails as torch's does
    OpInfo("vander", _vander, ALL_DTYPES, supports_out=False, supports_autograd=False),
    OpInfo("linalg.vander", _linalg_vander, ("float32", "float64") + COMPLEX + INTS,
           supports_out=False, gradgrad_samples=3),
    OpInfo("chain_matmul", _chain_matmul, ALL_BUT_BOOL, gradgrad_samples=3),
    OpInfo("renorm", _renorm, FLOATS_AND_COMPLEX, gradgrad_samples=4),
    OpInfo("narrow_copy", _narrow_copy, ALL_DTYPES, gradgrad_samples=3),
]
