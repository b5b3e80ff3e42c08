"""OpInfo entries for dyngrad/ops/norms.py: norm, linalg.vector_norm / matrix_norm / norm.

The nuclear and spectral matrix norms (ord 'nuc', 2, -2) go through ``linalg.svdvals``, whose
graph holds U and V (signs are arbitrary, so ``_saved_U`` cannot be compared with torch's):
tests/test_reductions.py checks their values and gradients instead."""
from __future__ import annotations

import math

import numpy as np

from .core import (FLOATS_AND_COMPLEX, DType, OP_DB, OpInfo, SampleInput, make_array,
                   permuted3, transposed)
from .reduction import tied


def _with_zero_row(dtype, rng):
    a = make_array((3, 4), dtype, rng)
    a[1] = 0
    return a


VECTOR_ORDS = (2, 1, 0, 3, 0.5, 1.5, -1, math.inf, -math.inf)


def _vector_norm_samples(dtype, rng):
    m = make_array((3, 4), dtype, rng)
    out = [SampleInput(m, ord) for ord in VECTOR_ORDS]
    out += [SampleInput(m, ord, 1) for ord in (2, 1, 0, 3, 0.5, math.inf, -math.inf)]
    out += [SampleInput(_with_zero_row(dtype, rng), ord, 1, desc="zero row: gradient at 0")
            for ord in (2, 3, 1.5, 0.5, math.inf)]
    out += [SampleInput(m, 2, (0, 1), True), SampleInput(m, 2, -1, True),
            SampleInput(m, dim=[0]), SampleInput(m, 3, ()), SampleInput(m, ord=-2, dim=0),
            SampleInput(tied((3, 4), dtype, rng), math.inf, 1, desc="ties"),
            SampleInput(make_array((), dtype, rng)), SampleInput(make_array((), dtype, rng), 3, 0),
            SampleInput(make_array((3, 1), dtype, rng), 3, 1, desc="size-1 dim: |x|"),
            SampleInput(make_array((0, 3), dtype, rng)), SampleInput(make_array((0, 3), dtype,
                                                                                rng), 1, 0),
            SampleInput(make_array((0, 3), dtype, rng), math.inf),
            SampleInput(make_array((0, 3), dtype, rng), -1, 0),
            SampleInput(make_array((0, 3), dtype, rng), math.inf, 1),
            SampleInput(transposed((3, 4), dtype, rng), 2, 0),
            SampleInput(permuted3(dtype, rng), 1, 2),
            SampleInput(m, dtype=DType("complex128" if dtype.startswith("complex") else
                                       "float64")),
            SampleInput(m, dtype=DType("float32")), SampleInput(m, dtype=DType("int64")),
            SampleInput(m, "fro", desc="ord str: torch's TypeError")]
    if dtype.startswith("float"):
        out.append(SampleInput(np.array([np.nan, 1.0, -3.0, np.inf], dtype), math.inf))
    return out


MATRIX_ORDS = ("fro", 1, -1, math.inf, -math.inf)


def _matrix_norm_samples(dtype, rng):
    m = make_array((3, 4), dtype, rng)
    b = make_array((2, 3, 4), dtype, rng)
    ords = MATRIX_ORDS
    out = [SampleInput(m, ord) for ord in ords]
    out += [SampleInput(b, ord, (0, 2), True) for ord in ords]
    out += [SampleInput(b, ord, (-1, 0)) for ord in (1, -math.inf)]
    out += [SampleInput(tied((3, 4), dtype, rng), ord, desc="ties") for ord in (1, math.inf)]
    out += [SampleInput(make_array((0, 3), dtype, rng), ord) for ord in MATRIX_ORDS]
    out += [SampleInput(transposed((3, 4), dtype, rng), 1),
            SampleInput(m, dtype=DType("complex128" if dtype.startswith("complex") else
                                       "float64")),
            SampleInput(m, 3, desc="order 3"), SampleInput(m, "abc"),
            SampleInput(make_array((3,), dtype, rng), desc="1-D"),
            SampleInput(m, dim=(0, 0)), SampleInput(b, 1, (0, 1, 2))]
    return out


def _linalg_norm_samples(dtype, rng):
    v, m = make_array((5,), dtype, rng), make_array((3, 4), dtype, rng)
    b = make_array((2, 3, 4), dtype, rng)
    out = [SampleInput(v), SampleInput(m), SampleInput(b), SampleInput(v, 3), SampleInput(v, 0),
           SampleInput(m, 1), SampleInput(m, "fro"), SampleInput(m, -math.inf),
           SampleInput(m, math.inf, keepdim=True), SampleInput(b, None, 1),
           SampleInput(b, 2, (1,)), SampleInput(b, 1, (0, 2)), SampleInput(b, "fro", (2, 1)),
           SampleInput(m, dtype=DType("complex128" if dtype.startswith("complex") else
                                      "float64")),
           SampleInput(b, 2, desc="3-D with ord: error"), SampleInput(b, None, (0, 1, 2)),
           SampleInput(v, "fro", desc="1-D with a matrix ord: error")]
    return out


def _norm_samples(dtype, rng):
    v, m = make_array((5,), dtype, rng), make_array((3, 4), dtype, rng)
    b = make_array((2, 3, 4), dtype, rng)
    out = [SampleInput(v), SampleInput(m), SampleInput(b), SampleInput(m, 3),
           SampleInput(m, math.inf), SampleInput(m, -math.inf, 1), SampleInput(m, 0),
           SampleInput(m, 1, 1, True), SampleInput(b, "fro", (0, 2)),
           SampleInput(b, 2, (0, 1, 2)), SampleInput(b, p=0.5, dim=-1),
           SampleInput(m, None), SampleInput(_with_zero_row(dtype, rng), 2, 1,
                                             desc="gradient at 0"),
           SampleInput(m, dtype=DType("complex128" if dtype.startswith("complex") else
                                      "float64")),
           SampleInput(b, "fro", (0, 1, 2), desc="fro over three dims: error"),
           SampleInput(m, "abc", (0, 1))]
    return out


OP_DB += [
    OpInfo("linalg.vector_norm", _vector_norm_samples, FLOATS_AND_COMPLEX, gradgrad_samples=10),
    OpInfo("linalg.matrix_norm", _matrix_norm_samples, FLOATS_AND_COMPLEX, gradgrad_samples=6),
    OpInfo("linalg.norm", _linalg_norm_samples, FLOATS_AND_COMPLEX, gradgrad_samples=4),
    OpInfo("norm", _norm_samples, FLOATS_AND_COMPLEX, gradgrad_samples=4),
]
