"""OpInfo entries for dyngrad/ops/gather_scatter.py and index_fill.py: gather, scatter (src,
value, legacy reduce=), scatter_add, scatter_reduce (one entry per reduction), take_along_dim,
nonzero / argwhere, index_copy, index_fill and masked_fill.

Index arrays become int64 (or int32) tensors. scatter and index_copy get indices without
repeats along ``dim`` (torch calls repeated writes nondeterministic); the reductions get
repeats on purpose, and ties (amax/amin) and zeros (prod) where the gradients are delicate.
Invalid calls are samples too: torch's error must match.
"""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, BOOL, COMPLEX, FLOATS, OP_DB, OpInfo, SampleInput, Strided, expanded,
                   make_array, permuted3, sliced, special_values, transposed)

ALL_BUT_BOOL = tuple(d for d in ALL_DTYPES if d not in BOOL)
ALL_BUT_COMPLEX = tuple(d for d in ALL_DTYPES if d not in COMPLEX)
_VALUES = {"bool": True, "complex64": 1 - 2j, "complex128": 1 - 2j, "float16": -1.5,
           "float32": -1.5, "float64": -1.5}


def _value(dtype):
    return _VALUES.get(dtype, 3)


def _partner(dtype):
    return "float64" if dtype != "float64" else "float32"


def _index(rng, shape, high, dt="int64"):
    """Random indices in [0, high), repeats allowed."""
    return rng.integers(0, high, size=shape).astype(dt)


def _unique_index(rng, shape, dim, high):
    """Indices in [0, high) without repeats along ``dim`` (shape[dim] <= high)."""
    full = list(shape)
    full[dim] = high
    order = np.argsort(rng.random(full), axis=dim)
    return np.take(order, np.arange(shape[dim]), axis=dim).astype(np.int64)


def _strided_index(values):
    """A transposed (non-contiguous) int64 index holding ``values``."""
    values = np.asarray(values, np.int64)
    m, n = values.shape
    return Strided(np.ascontiguousarray(values.T), (m, n), (1, m), kind="transposed ")


# -- gather / take_along_dim --------------------------------------------------------------------
def _gather(dtype, rng):
    def x(*shape):
        return make_array(shape, dtype, rng)

    m = x(3, 4)
    return [
        SampleInput(m, 0, _index(rng, (2, 4), 3)),
        SampleInput(m, 1, _index(rng, (3, 6), 4)),
        SampleInput(m, -1, _index(rng, (2, 2), 4, "int32")),
        SampleInput(transposed((3, 4), dtype, rng), 1, _strided_index([[3, 0, 1], [2, 2, 0]])),
        SampleInput(expanded((3, 4), dtype, rng), 0, _index(rng, (3, 4), 3)),
        SampleInput(sliced((3, 4), dtype, rng), 1, _index(rng, (3, 1), 4)),
        SampleInput(permuted3(dtype, rng), 2, _index(rng, (4, 2, 5), 3)),
        SampleInput(x(), 0, np.array([0, 0])), SampleInput(x(5), 0, np.array(3)),
        SampleInput(x(), 0, np.array(0)),
        SampleInput(m, 1, np.zeros((0,), np.float32), desc="empty index (no checks)"),
        SampleInput(m, 0, np.zeros((0, 4), np.int64)),
        SampleInput(m, 0, np.array([[1, 0, 7, 0], [5, 0, 0, 0]]), desc="out of bounds"),
        SampleInput(m, 1, np.array([[0, -1]]), desc="negative"),
        SampleInput(m, 1, np.array([0, 1]), desc="rank"),
        SampleInput(m, 0, np.zeros((4, 5), np.int64), desc="index too large"),
        SampleInput(m, 1, np.zeros((2, 2), np.float32), desc="index dtype"),
        SampleInput(m, 2, np.zeros((2, 2), np.int64), desc="dim"),
    ]


def _take_along_dim(dtype, rng):
    def x(*shape):
        return make_array(shape, dtype, rng)

    m = x(3, 4)
    return [
        SampleInput(m, _index(rng, (3, 2), 4), 1),
        SampleInput(m, _index(rng, (5, 4), 3), 0),
        SampleInput(m, np.array([[-1, 5, 9]]), -1, desc="indices wrap around"),
        SampleInput(m, _index(rng, (2, 2), 12)),
        SampleInput(m, _index(rng, (4,), 12, "int32")),
        SampleInput(x(3, 1), _index(rng, (3, 4), 4), 1, desc="broadcast input"),
        SampleInput(x(2, 1, 3), _index(rng, (1, 4, 1), 5), 1, desc="broadcast both"),
        SampleInput(transposed((3, 4), dtype, rng), _index(rng, (3, 4), 3), 0),
        SampleInput(x(), np.array(0)),
        SampleInput(x(3), np.array([2, 0]), 0),
        SampleInput(m, np.array([[12]]), desc="out of bounds (no dim)"),
        SampleInput(transposed((3, 4), dtype, rng), np.array([0]), desc="view of non-contiguous"),
        SampleInput(m, _index(rng, (3, 2), 4, "int32"), 1, desc="indices dtype"),
        SampleInput(m, np.array([0, 1]), 1, desc="rank"),
        SampleInput(x(4, 3), _index(rng, (2, 3), 3), 1, desc="shapes"),
        SampleInput(x(), np.array(0), 0, desc="0-dim with dim"),
    ]


# -- scatter ------------------------------------------------------------------------------------
def _scatter_common(dtype, rng, third):
    """Samples shared by the scatters; `third(shape)` gives the src (or value) argument."""
    def x(*shape):
        return make_array(shape, dtype, rng)

    m = x(3, 4)
    return [
        SampleInput(m, 0, _unique_index(rng, (2, 4), 0, 3), third((2, 4))),
        SampleInput(m, 1, _unique_index(rng, (3, 2), 1, 4), third((3, 3))),
        SampleInput(m, -1, _unique_index(rng, (2, 3), 1, 4).astype(np.int32), third((3, 4))),
        SampleInput(transposed((3, 4), dtype, rng), 1, _unique_index(rng, (3, 2), 1, 4),
                    third((3, 2))),
        SampleInput(sliced((3, 4), dtype, rng), 0, _unique_index(rng, (3, 4), 0, 3),
                    third((3, 4))),
        SampleInput(permuted3(dtype, rng), 1, _unique_index(rng, (4, 2, 3), 1, 2),
                    third((4, 2, 3))),
        SampleInput(x(), 0, np.array(0), third(())),
        SampleInput(x(4), 0, np.array([3, 1]), third((2,))),
        SampleInput(m, 1, np.zeros((0,), np.int64), third((3, 4)), desc="empty index"),
        SampleInput(m, 0, np.array([[1, 0, 7, 0], [5, 0, 0, 0]]), third((2, 4)),
                    desc="out of bounds"),
        SampleInput(m, 1, np.array([0, 1]), third((2,)), desc="rank"),
        SampleInput(m, 0, np.zeros((2, 5), np.int64), third((2, 5)), desc="index too large"),
        SampleInput(m, 1, np.zeros((2, 2), np.float32), third((2, 2)), desc="index dtype"),
    ]


def _scatter_src(dtype, rng):
    def src(shape):
        return make_array(shape, dtype, rng)

    m = make_array((3, 4), dtype, rng)
    return _scatter_common(dtype, rng, src) + [
        SampleInput(expanded((3, 4), dtype, rng), 0, _unique_index(rng, (2, 4), 0, 3),
                    src((2, 4)), desc="expanded self"),
        SampleInput(m, 1, _unique_index(rng, (3, 2), 1, 4), src((3, 1)), desc="src too small"),
        SampleInput(m, 1, _unique_index(rng, (3, 2), 1, 4), src(()), desc="0-dim src"),
        SampleInput(m, 1, _unique_index(rng, (3, 2), 1, 4),
                    make_array((3, 2), _partner(dtype), rng), desc="src dtype"),
    ]


def _scatter_value(dtype, rng):
    value = _value(dtype)
    samples = _scatter_common(dtype, rng, lambda shape: value)
    m = make_array((3, 4), dtype, rng)
    samples.append(SampleInput(m, 1, _index(rng, (3, 2), 4), value=value))
    if dtype in ("int8", "uint8", "int16", "int32", "float16"):
        samples.append(SampleInput(m, 1, _index(rng, (3, 2), 4), 2 ** 40, desc="overflow"))
    if dtype not in COMPLEX:
        samples.append(SampleInput(m, 1, _index(rng, (3, 2), 4), 2j, desc="complex value"))
    return samples


def _scatter_legacy_reduce(reduce, value=False):
    def gen(dtype, rng):
        m = make_array((3, 4), dtype, rng, low=-2, high=3)

        def third(shape):
            return _value(dtype) if value else make_array(shape, dtype, rng, low=-2, high=3)

        return [
            SampleInput(m, 1, _index(rng, (3, 3), 4), third((3, 3)), reduce=reduce),
            SampleInput(m, 0, _index(rng, (2, 4), 3), third((2, 4)), reduce=reduce),
            SampleInput(transposed((3, 4), dtype, rng), 1, _index(rng, (3, 2), 4),
                        third((3, 2)), reduce=reduce),
            SampleInput(m, 1, np.zeros((0,), np.int64), third((3, 4)), reduce=reduce),
            SampleInput(m, 1, _index(rng, (3, 3), 4), third((3, 3)), reduce="sum",
                        desc="bad reduce"),
        ]
    return gen


def _scatter_add(dtype, rng):
    def src(shape):
        return make_array(shape, dtype, rng)

    m = make_array((3, 4), dtype, rng)
    return _scatter_common(dtype, rng, src) + [
        SampleInput(m, 1, _index(rng, (3, 6), 4), src((3, 6)), desc="repeats"),
        SampleInput(m, 0, _index(rng, (5, 4), 3), src((5, 4)), desc="repeats"),
        SampleInput(m, 1, _index(rng, (3, 2), 4), 2.5, desc="number src"),
    ]


def _scatter_reduce(reduce):
    def gen(dtype, rng):
        def x(*shape, **kw):
            return make_array(shape, dtype, rng, **kw)

        m = x(3, 4)
        out = []
        for include_self in (True, False):
            kw = {} if include_self else {"include_self": False}
            out += [
                SampleInput(m, 1, _index(rng, (3, 5), 4), x(3, 5), reduce, **kw),
                SampleInput(m, 0, _index(rng, (4, 3), 3), x(5, 4), reduce, **kw),
                SampleInput(transposed((3, 4), dtype, rng), -1, _index(rng, (2, 4), 4),
                            sliced((3, 4), dtype, rng), reduce, **kw),
            ]
        out += [
            SampleInput(x(), 0, np.array(0), x(), reduce),
            SampleInput(x(4), 0, np.array([3, 3, 1]), x(3), reduce, include_self=False),
            SampleInput(m, 1, np.zeros((0,), np.int64), x(3, 4), reduce),
        ]
        if dtype not in BOOL + COMPLEX:
            # small integers: ties for amax/amin, zeros (single and repeated) for prod
            ties = x(3, 4, low=-1, high=2)
            out += [SampleInput(ties, 1, _index(rng, (3, 6), 4), x(3, 6, low=-1, high=2),
                                reduce, include_self=include_self, desc="ties and zeros")
                    for include_self in (True, False)]
            if reduce == "prod" and dtype in FLOATS:
                base = np.array([1.5, -2.0, 3.0]).astype(dtype)
                src = np.array([0.0, 2.0, 0.0, 0.0, 4.0]).astype(dtype)
                out += [SampleInput(base, 0, np.array([0, 0, 1, 2, 1]), src, reduce,
                                    desc="one zero per position"),
                        SampleInput(base, 0, np.array([0, 2, 0, 1, 1]), src, reduce,
                                    desc="two zeros at one position")]
        sv = special_values(dtype)
        if sv is not None:
            out.append(SampleInput(sv, 1, _index(rng, (2, 4), 4), sv[::-1].copy(), reduce))
        out += [SampleInput(m, 1, _index(rng, (3, 2), 4),
                            make_array((3, 2), _partner(dtype), rng), reduce, desc="src dtype"),
                SampleInput(m, 1, _index(rng, (3, 2), 4), x(3, 2), "add", desc="bad reduce")]
        return out
    return gen


# -- index_copy / index_fill / masked_fill ------------------------------------------------------
def _index_copy(dtype, rng):
    def x(*shape):
        return make_array(shape, dtype, rng)

    m = x(3, 4)
    return [
        SampleInput(m, 0, np.array([2, 0]), x(2, 4)),
        SampleInput(m, 1, np.array([3, 0, 1]), x(3, 3)),
        SampleInput(m, -1, np.array(2), x(3, 1)),
        SampleInput(transposed((3, 4), dtype, rng), 1, np.array([1]), sliced((3, 1), dtype, rng)),
        SampleInput(permuted3(dtype, rng), 2, np.array([2, 0]), x(4, 2, 2)),
        SampleInput(x(), 0, np.array([0]), x()), SampleInput(x(), 0, np.array([0]), x(1)),
        SampleInput(x(4), 0, np.array(3), x()),
        SampleInput(m, 0, np.zeros((0,), np.int64), x(0, 4)),
        SampleInput(m, 0, np.array([5, 0]), x(2, 4), desc="out of bounds"),
        SampleInput(m, 0, np.array([-1, 0]), x(2, 4), desc="negative"),
        SampleInput(m, 0, np.array([2, 0], np.int32), x(2, 4), desc="index dtype"),
        SampleInput(m, 0, np.array([[2, 0]]), x(2, 4), desc="index rank"),
        SampleInput(m, 0, np.array([2, 0]), x(3, 4), desc="count"),
        SampleInput(m, 0, np.array([2, 0]), x(2, 3), desc="slice shape"),
        SampleInput(m, 0, np.array([2, 0]), x(2), desc="source rank"),
        SampleInput(m, 0, np.array([2, 0]), make_array((2, 4), _partner(dtype), rng),
                    desc="source dtype"),
        SampleInput(expanded((3, 4), dtype, rng), 0, np.array([1]), x(1, 4),
                    desc="expanded self"),
    ]


def _index_fill(tensor_value):
    def gen(dtype, rng):
        def x(*shape):
            return make_array(shape, dtype, rng)

        value = np.array(_value(dtype)).astype(dtype) if tensor_value else _value(dtype)
        m = x(3, 4)
        out = [
            SampleInput(m, 0, np.array([2, 0]), value),
            SampleInput(m, 1, np.array([3, 3, 1]), value),
            SampleInput(m, -1, np.array(-2), value),
            SampleInput(transposed((3, 4), dtype, rng), 1, np.array([0]), value),
            SampleInput(expanded((3, 4), dtype, rng), 0, np.array([1]), value),
            SampleInput(permuted3(dtype, rng), 2, np.array([2, 0]), value),
            SampleInput(x(), 0, np.array([0, 0]), value),
            SampleInput(m, 0, np.zeros((0,), np.int64), value),
            SampleInput(m, 1, np.array([7, 5]), value, desc="out of bounds"),
            SampleInput(m, 1, np.array([2], np.int32), value, desc="index dtype"),
            SampleInput(m, 1, np.array([[2]]), value, desc="index rank"),
            SampleInput(m, 2, np.array([0]), value, desc="dim"),
        ]
        if tensor_value:
            out += [SampleInput(m, 0, np.array([1]), make_array((), _partner(dtype), rng)),
                    SampleInput(m, 0, np.array([1]), x(1), desc="value rank")]
        else:
            out.append(SampleInput(m, 0, np.array([1]), value=value))
            if dtype not in COMPLEX:
                out.append(SampleInput(m, 0, np.array([1]), 1j, desc="complex value"))
            if dtype in ("int8", "uint8", "int16", "int32", "float16"):
                out.append(SampleInput(m, 0, np.array([1]), 2 ** 40, desc="overflow"))
        return out
    return gen


def _masked_fill(tensor_value):
    def gen(dtype, rng):
        def x(*shape):
            return make_array(shape, dtype, rng)

        def mask(*shape):
            return rng.random(shape) < 0.5

        value = np.array(_value(dtype)).astype(dtype) if tensor_value else _value(dtype)
        m = x(3, 4)
        out = [
            SampleInput(m, mask(3, 4), value),
            SampleInput(m, mask(4), value),
            SampleInput(x(4), mask(3, 4), value, desc="broadcast self"),
            SampleInput(x(3, 1), mask(1, 4), value, desc="broadcast both"),
            SampleInput(transposed((3, 4), dtype, rng), mask(3, 4), value),
            SampleInput(sliced((3, 4), dtype, rng), mask(3, 1), value),
            SampleInput(expanded((3, 4), dtype, rng), mask(3, 4), value),
            SampleInput(permuted3(dtype, rng), mask(2, 3), value),
            SampleInput(x(), np.array(True), value), SampleInput(m, np.array(False), value),
            SampleInput(x(0, 4), mask(0, 4), value),
            SampleInput(m, mask(4, 3), value, desc="shapes"),
            SampleInput(m, mask(3, 4).astype(np.uint8), value, desc="mask dtype"),
        ]
        sv = special_values(dtype)
        if sv is not None:
            out.append(SampleInput(sv, mask(2, 4), value))
        if tensor_value:
            out += [SampleInput(m, mask(3, 4), make_array((), _partner(dtype), rng)),
                    SampleInput(m, mask(3, 4), x(1), desc="value rank")]
        else:
            out.append(SampleInput(m, mask(3, 4), value=value))
            if dtype not in COMPLEX:
                out.append(SampleInput(m, mask(3, 4), 1j, desc="complex value"))
        return out
    return gen


# -- nonzero ------------------------------------------------------------------------------------
def _nonzero(as_tuple):
    def gen(dtype, rng):
        kw = {"as_tuple": True} if as_tuple else {}

        def x(*shape):
            return make_array(shape, dtype, rng, low=-1, high=2)

        out = [SampleInput(x(3, 4), **kw), SampleInput(x(2, 3, 2), **kw),
               SampleInput(x(5), **kw), SampleInput(x(), **kw),
               SampleInput(np.zeros((), dtype), **kw), SampleInput(np.zeros((2, 3), dtype), **kw),
               SampleInput(x(2, 0), **kw), SampleInput(transposed((3, 4), dtype, rng), **kw),
               SampleInput(expanded((3, 4), dtype, rng), **kw)]
        sv = special_values(dtype)
        if sv is not None:
            out.append(SampleInput(sv, **kw))
        return out
    return gen


_FAST = dict(gradgrad_samples=3)
OP_DB += [
    OpInfo("gather", _gather, ALL_DTYPES, **_FAST),
    OpInfo("take_along_dim", _take_along_dim, ALL_DTYPES, **_FAST),
    OpInfo("scatter", _scatter_src, ALL_DTYPES, variant="src", **_FAST),
    OpInfo("scatter", _scatter_value, ALL_DTYPES, variant="value", **_FAST),
    OpInfo("scatter", _scatter_legacy_reduce("add"), ALL_DTYPES, variant="reduce_add",
           gradgrad_samples=1),
    OpInfo("scatter", _scatter_legacy_reduce("multiply", value=True), ALL_DTYPES,
           variant="value_reduce_multiply", gradgrad_samples=1),
    OpInfo("scatter_add", _scatter_add, ALL_DTYPES, **_FAST),
    # (torch refuses complex autograd for scatter_reduce, though not for scatter_reduce_)
    OpInfo("scatter_reduce", _scatter_reduce("sum"), ALL_DTYPES, variant="sum",
           supports_complex_autograd=False, **_FAST),
    OpInfo("scatter_reduce", _scatter_reduce("prod"), ALL_DTYPES, variant="prod",
           gradgrad_samples=4, supports_complex_autograd=False),
    OpInfo("scatter_reduce", _scatter_reduce("mean"), ALL_BUT_BOOL, variant="mean",
           supports_complex_autograd=False, **_FAST),
    OpInfo("scatter_reduce", _scatter_reduce("amax"), ALL_BUT_COMPLEX, variant="amax",
           **_FAST),
    OpInfo("scatter_reduce", _scatter_reduce("amin"), ALL_BUT_COMPLEX, variant="amin",
           **_FAST),
    OpInfo("index_copy", _index_copy, ALL_DTYPES, **_FAST),
    OpInfo("index_fill", _index_fill(False), ALL_DTYPES, variant="scalar",
           supports_out=False, **_FAST),
    OpInfo("index_fill", _index_fill(True), ALL_DTYPES, variant="tensor", supports_out=False,
           **_FAST),
    OpInfo("masked_fill", _masked_fill(False), ALL_DTYPES, variant="scalar",
           supports_out=False, **_FAST),
    OpInfo("masked_fill", _masked_fill(True), ALL_DTYPES, variant="tensor",
           supports_out=False, **_FAST),
    OpInfo("nonzero", _nonzero(False), ALL_DTYPES),
    OpInfo("nonzero", _nonzero(True), ALL_DTYPES, variant="as_tuple"),
    OpInfo("argwhere", _nonzero(False), ALL_DTYPES, supports_out=False),
]
