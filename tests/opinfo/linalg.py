"""OpInfo entries for dyngrad/ops/linalg.py."""
from __future__ import annotations

from .core import (ALL_BUT_BOOL, FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array,
                   sliced, transposed)


def _pairs(pairs):
    """Samples from (shape_a, shape_b) pairs; a shape "T(m, n)" / "S(m, n)" is non-contiguous."""
    def make(spec, dtype, rng):
        kind, shape = spec if isinstance(spec[0], str) else ("", spec)
        if kind == "T":
            return transposed(shape, dtype, rng, low=-3, high=4)
        if kind == "S":
            return sliced(shape, dtype, rng, low=-3, high=4)
        if kind == "P":   # a (2, 3, 4) tensor whose batch dims are not foldable: (3, 2, 4)
            return Strided(make_array((24,), dtype, rng, -3, 4), (3, 2, 4), (4, 12, 1),
                           kind="batch-transposed ")
        return make_array(shape, dtype, rng, -3, 4)

    def gen(dtype, rng):
        return [SampleInput(make(a, dtype, rng), make(b, dtype, rng)) for a, b in pairs]
    return gen


MATMUL_PAIRS = (((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                ((0,), (0, 2)), ((4,), ("T", (4, 2))),
                ((4, 2, 3), (3, 5)), ((4, 2, 3), (3,)), ((3,), (4, 3, 2)), ((2, 3), (5, 3, 2)),
                ((2, 1, 2, 3), (5, 3, 2)), ((5, 2, 3), (5, 3, 4)), ((4, 2, 3), (1, 3, 2)),
                ((1, 2, 3), (4, 3, 2)),
                ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((3, 0, 2), (2,)), ((0,), (0,)),
                (("T", (2, 3)), (3, 4)), ((2, 3), ("S", (3, 4))), (("P", None), (4, 5)),
                (("T", (3, 4)), ("T", (4, 2))))
MM_PAIRS = (((2, 3), (3, 4)), ((1, 1), (1, 1)), ((0, 3), (3, 4)), ((2, 0), (0, 4)),
            (("T", (2, 3)), (3, 4)), ((2, 3), ("S", (3, 4))), (("T", (3, 4)), ("T", (4, 2))))
BMM_PAIRS = (((5, 2, 3), (5, 3, 4)), ((1, 1, 1), (1, 1, 1)), ((0, 2, 3), (0, 3, 4)),
             ((2, 0, 3), (2, 3, 4)), ((2, 3, 0), (2, 0, 4)))
DOT_PAIRS = (((3,), (3,)), ((0,), (0,)), ((1,), (1,)))
MV_PAIRS = (((2, 3), (3,)), ((0, 3), (3,)), ((2, 0), (0,)), (("T", (2, 3)), (3,)),
            (("S", (3, 4)), (4,)))

_tol = {"float16": (4e-3, 4e-3)} | {d: (1e-4, 1e-4) for d in FLOATS if d != "float16"}

OP_DB += [
    OpInfo("matmul", _pairs(MATMUL_PAIRS), ALL_BUT_BOOL, tol=_tol),
    OpInfo("mm", _pairs(MM_PAIRS), ALL_BUT_BOOL, tol=_tol),
    OpInfo("bmm", _pairs(BMM_PAIRS), ALL_BUT_BOOL, tol=_tol),
    OpInfo("dot", _pairs(DOT_PAIRS), ALL_BUT_BOOL, tol=_tol),
    OpInfo("mv", _pairs(MV_PAIRS), ALL_BUT_BOOL, tol=_tol),
]
