"""OpInfo entries for dyngrad/ops/linalg.py."""
from __future__ import annotations

import numpy as np

from .core import (ALL_BUT_BOOL, ALL_DTYPES, FLOATS, OP_DB, OpInfo, SampleInput, Strided,
                   make_array, sliced, transposed)


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


# -- vdot, outer, fused products (addmm & co) --------------------------------------------------
def _vectors(pairs, mixed=False):
    def gen(dtype, rng):
        out = [SampleInput(make_array(a, dtype, rng, -3, 4), make_array(b, dtype, rng, -3, 4))
               for a, b in pairs]
        if mixed and dtype != "float64":
            out.append(SampleInput(make_array((3,), dtype, rng, -3, 4),
                                   make_array((2,), "float64", rng, -3, 4), desc="mixed"))
        return out
    return gen


def _fused(shapes, special_self=True):
    """(self, a, b) samples with beta/alpha; "T" marks a transposed matrix operand."""
    def make(spec, dtype, rng):
        if isinstance(spec, tuple) and spec and spec[0] == "T":
            return transposed(spec[1], dtype, rng, low=-3, high=4)
        return make_array(spec, dtype, rng, -3, 4)

    def gen(dtype, rng):
        out = []
        for i, (s, a, b) in enumerate(shapes):
            kw = [{}, {"beta": 2, "alpha": 3}, {"beta": 0}][i % 3]
            if dtype in FLOATS and i % 3 == 1:
                kw = {"beta": 0.5, "alpha": -1.5}
            out.append(SampleInput(make(s, dtype, rng), make(a, dtype, rng),
                                   make(b, dtype, rng), **kw))
        if special_self and dtype in FLOATS:   # beta=0 ignores NaN and inf in self
            s, a, b = shapes[0]
            self = np.full(s, np.nan, dtype=dtype)
            self.reshape(-1)[:1] = np.inf
            out.append(SampleInput(self, make(a, dtype, rng), make(b, dtype, rng), beta=0,
                                   desc="beta=0 with nan self"))
        return out
    return gen


ADDMM = (((2, 4), (2, 3), (3, 4)), ((4,), (2, 3), (3, 4)), ((), ("T", (2, 3)), (3, 4)),
         ((1, 4), (2, 3), ("T", (3, 4))), ((2, 4), (2, 0), (0, 4)), (("T", (3, 2)), (2, 3), (3, 3)))
ADDMV = (((2,), (2, 3), (3,)), ((), (2, 3), (3,)), ((1,), ("T", (2, 3)), (3,)),
         ((2,), (2, 0), (0,)))
ADDR = (((2, 3), (2,), (3,)), ((3,), (2,), (3,)), ((), (2,), (3,)), (("T", (3, 2)), (3,), (2,)),
        ((2, 1), (2,), (3,)), ((0, 3), (0,), (3,)))
BADDBMM = (((2, 3, 4), (2, 3, 5), (2, 5, 4)), ((4,), (2, 3, 5), (2, 5, 4)),
           ((1, 3, 1), (2, 3, 5), (2, 5, 4)), ((2, 3, 4), (2, 3, 0), (2, 0, 4)))
ADDBMM = (((3, 4), (2, 3, 5), (2, 5, 4)), ((3, 4), (0, 3, 5), (0, 5, 4)),
          ((3, 4), (2, 3, 0), (2, 0, 4)))
ADDBMM_BROADCAST = (((4,), (2, 3, 5), (2, 5, 4)), ((), (2, 3, 5), (2, 5, 4)),
                    ((3, 1), (2, 3, 5), (2, 5, 4)))

OP_DB += [
    OpInfo("vdot", _vectors(DOT_PAIRS), ALL_BUT_BOOL, tol=_tol),
    OpInfo("outer", _vectors((((3,), (4,)), ((1,), (0,)), ((0,), (2,))), mixed=True),
           ALL_DTYPES, tol=_tol),
    OpInfo("ger", _vectors((((3,), (4,)),), mixed=True), ALL_DTYPES, tol=_tol),
    OpInfo("addmm", _fused(ADDMM), ALL_BUT_BOOL, tol=_tol),
    OpInfo("addmv", _fused(ADDMV), ALL_BUT_BOOL, tol=_tol),
    OpInfo("addr", _fused(ADDR), ALL_DTYPES, tol=_tol),
    OpInfo("baddbmm", _fused(BADDBMM), ALL_BUT_BOOL, tol=_tol),
    OpInfo("addbmm", _fused(ADDBMM), ALL_BUT_BOOL, tol=_tol),
    # torch's addbmm_ resizes a smaller self to the result (no in-place variant here)
    OpInfo("addbmm", _fused(ADDBMM_BROADCAST, special_self=False), ALL_BUT_BOOL, tol=_tol,
           inplace=False, variant="broadcast"),
]
