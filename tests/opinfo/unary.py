"""OpInfo entries for dyngrad/ops/unary.py (pointwise unary math, rounding, predicates)."""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, FLOATS, OP_DB, REAL, REAL_AND_BOOL, OpInfo, SampleInput, chain,
                   make_array, permuted3, special_values, transposed, unary_samples)

NO_COMPLEX = REAL_AND_BOOL


def edges(*values, kwargs=None):
    """One sample of chosen values (domain edges, poles, ties) for the floating dtypes."""
    def gen(dtype, rng):
        if dtype not in FLOATS:
            return []
        return [SampleInput(np.array(values, dtype=dtype), desc="edges", **(kwargs or {}))]
    return gen


def lean(low=None, high=None):
    """The shapes that matter for a pointwise unary op, kept few so that the ~40 entries stay
    fast: a matrix, 0-dim, a transposed and a permuted view, empty, special values."""
    def gen(dtype, rng):
        kw = dict(low=low, high=high)
        out = [SampleInput(make_array((3, 4), dtype, rng, **kw)),
               SampleInput(make_array((), dtype, rng, **kw)),
               SampleInput(transposed((3, 4), dtype, rng, **kw)),
               SampleInput(permuted3(dtype, rng, **kw)),
               SampleInput(make_array((0,), dtype, rng))]
        sv = special_values(dtype)
        if sv is not None:
            out.append(SampleInput(sv, desc="special values"))
        return out
    return gen


def few(low=None, high=None, kwargs=None):
    """A light generator for aliases: one matrix, one transposed view, one 0-dim tensor."""
    full = unary_samples(low, high, special=False, kwargs=kwargs)

    def gen(dtype, rng):
        samples = full(dtype, rng)
        return [samples[0], samples[2], samples[4]]
    return gen


def _ops(table, dtypes, **kw):
    return [OpInfo(name, chain(lean(lo, hi), edges(*e)), dtypes, gradgrad_samples=4, **kw)
            for name, lo, hi, e in table]


_f16 = {"float16": (4e-3, 2e-3)}
# name, low, high, edge values
_COMPLEX_OK = (
    ("exp2", -4, 4, (-1100.0, 1030.0, -0.5)),
    ("expm1", -3, 3, (-800.0, 710.0, 1e-10, -1e-10)),
    ("log2", -1, 8, (1.0, 2.0, 0.5)),
    ("log10", -1, 8, (1.0, 10.0, 0.1)),
    ("log1p", -1.5, 5, (-1.0, -0.999, 1e-10)),
    ("rsqrt", -1, 8, (0.25, 1e-30)),
    ("sin", -6, 6, (np.pi, -np.pi / 2)),
    ("cos", -6, 6, (np.pi, -np.pi / 2)),
    ("tan", -1.4, 1.4, (np.pi / 4, 1.5)),
    ("asin", -1.1, 1.1, (1.0, -1.0, 0.5)),
    ("acos", -1.1, 1.1, (1.0, -1.0, 0.5)),
    ("atan", -5, 5, (1e10, -1e10)),
    ("sinh", -4, 4, (20.0, -20.0)),
    ("cosh", -4, 4, (20.0, -20.0)),
    ("tanh", -4, 4, (20.0, -20.0, 1e-8)),
    ("asinh", -5, 5, (1e10, -1e10)),
    ("acosh", 0.5, 5, (1.0, 0.5, 1e10)),
    ("atanh", -1.1, 1.1, (1.0, -1.0, 0.5)),
    ("sinc", -3, 3, (1.0, -2.0, 0.5, 1e-3)),
)
_REAL_FLOAT = (
    ("erf", -3, 3, (6.0, -6.0, 1e-20, 0.46875)),
    ("erfc", -3, 5, (10.0, 26.0, -6.0, 0.46875)),
    ("erfinv", -1, 1, (1.0, -1.0, 0.999999, -1e-12)),
    ("lgamma", -5, 6, (1.0, 2.0, -1.0, -2.0, 1e-30, 1e10)),
    ("digamma", -5, 6, (1.0, -1.0, -2.5, 10.0, 1e-30, 1e10)),
)


def _round_samples(dtype, rng):
    halves = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 3.5, 1e10]])
    out = lean(-5, 5)(dtype, rng)
    if dtype in FLOATS:
        out.append(SampleInput(halves.astype(dtype), desc="halves: to even"))
    return out


def _round_decimals_samples(dtype, rng):
    if dtype not in FLOATS:
        return [SampleInput(make_array((3, 4), dtype, rng), decimals=1)]
    x = make_array((3, 4), dtype, rng, -50, 50)
    ties = np.array([0.125, 0.375, 2.675, -1.005, 15.0, 25.0, -35.0, 1234.5678], dtype=dtype)
    return [SampleInput(x, decimals=2), SampleInput(x, decimals=0), SampleInput(x, decimals=-1),
            SampleInput(make_array((), dtype, rng), decimals=1),
            SampleInput(make_array((0, 2), dtype, rng), decimals=1),
            SampleInput(ties, decimals=2, desc="ties"), SampleInput(ties, decimals=-1),
            SampleInput(ties, decimals=400, desc="overflowing scale")]


def _nan_to_num_samples(dtype, rng):
    out = lean()(dtype, rng)
    if dtype in FLOATS or dtype.startswith("complex"):
        sv = np.array([[np.nan, np.inf, -np.inf, 0.0], [-0.0, 1.5, -2.25, 3.0]], dtype=dtype)
        if dtype.startswith("complex"):
            sv = sv + np.array([np.inf, 1.0, np.nan, -np.inf], dtype=dtype) * 1j
        out += [SampleInput(sv, nan=1.5), SampleInput(sv, 2.0, 100.0, -100.0),
                SampleInput(sv, posinf=1e30, desc="posinf out of float16's range"),
                SampleInput(sv, neginf=-7.0)]
    else:
        out.append(SampleInput(make_array((3,), dtype, rng), nan=2.5, posinf=1.0))
    return out


def _predicate_samples(dtype, rng):
    out = lean()(dtype, rng)
    if dtype.startswith("complex"):
        out.append(SampleInput(np.array([complex(np.nan, 0), complex(0, np.inf), 1j,
                                         complex(-np.inf, np.nan)], dtype=dtype)))
    return out


def _polygamma_samples(dtype, rng):
    x = make_array((3, 4), dtype, rng, -3, 5)
    out = [SampleInput(n, x) for n in (0, 1, 2, 3)]
    out += [SampleInput(1, make_array((), dtype, rng, 0.5, 3)),
            SampleInput(2, make_array((0, 3), dtype, rng))]
    if dtype in FLOATS:
        out.append(SampleInput(4, np.array([0.0, -1.0, -0.5, 1e-3, 30.0, np.inf], dtype=dtype),
                               desc="edges"))
    return out


def _polygamma_method_samples(dtype, rng):
    return [SampleInput(s.args[0], s.input) for s in _polygamma_samples(dtype, rng)]


def _square_samples(dtype, rng):
    return unary_samples(-4, 4)(dtype, rng)[:4]


OP_DB += [
    *_ops(_COMPLEX_OK, ALL_DTYPES, tol=_f16),
    *_ops(_REAL_FLOAT, NO_COMPLEX, tol=_f16),
    OpInfo("polygamma", _polygamma_samples, NO_COMPLEX, method=False, inplace=False,
           tol={"float16": (4e-3, 2e-3), "float32": (2e-5, 1e-4)}),
    OpInfo("Tensor.polygamma", _polygamma_method_samples, NO_COMPLEX, method=False,
           inplace="polygamma_", supports_out=False,
           tol={"float16": (4e-3, 2e-3), "float32": (2e-5, 1e-4)}),
    OpInfo("special.polygamma", lambda dt, rng: _polygamma_samples(dt, rng)[:2], NO_COMPLEX),
    # rounding
    *[OpInfo(name, _round_samples, REAL) for name in ("floor", "ceil", "trunc", "round")],
    OpInfo("fix", few(-5, 5), REAL),
    OpInfo("round", _round_decimals_samples, FLOATS, variant="decimals"),
    OpInfo("special.round", lambda dt, rng: _round_decimals_samples(dt, rng)[:4], FLOATS),
    OpInfo("frac", chain(lean(-5, 5), edges(1e20, -2.5, 0.75)), FLOATS),
    OpInfo("nan_to_num", _nan_to_num_samples, ALL_DTYPES, supports_complex_autograd=False),
    # predicates (bool results)
    *[OpInfo(name, _predicate_samples, ALL_DTYPES, supports_out=False)
      for name in ("isnan", "isinf", "isfinite")],
    *[OpInfo(name, _predicate_samples, REAL_AND_BOOL)
      for name in ("isposinf", "isneginf", "signbit")],
    # angles
    OpInfo("deg2rad", lean(-400, 400), REAL_AND_BOOL),
    OpInfo("rad2deg", lean(-7, 7), REAL_AND_BOOL),
    OpInfo("angle", lean(), ALL_DTYPES),
    OpInfo("square", _square_samples, ALL_DTYPES),
    # aliases
    *[OpInfo(name, few(lo, hi), ALL_DTYPES, tol=_f16) for name, lo, hi in (
        ("arcsin", -1, 1), ("arccos", -1, 1), ("arctan", -3, 3), ("arcsinh", -3, 3),
        ("arccosh", 1, 4), ("arctanh", -1, 1))],
    *[OpInfo("special." + name, few(lo, hi), dtypes, tol=_f16) for name, lo, hi, dtypes in (
        ("exp2", -3, 3, ALL_DTYPES), ("expm1", -3, 3, ALL_DTYPES), ("log1p", -0.9, 3, ALL_DTYPES),
        ("sinc", -3, 3, ALL_DTYPES), ("erf", -3, 3, NO_COMPLEX), ("erfc", -3, 3, NO_COMPLEX),
        ("erfinv", -1, 1, NO_COMPLEX), ("gammaln", -3, 5, NO_COMPLEX),
        ("digamma", -3, 5, NO_COMPLEX), ("psi", -3, 5, NO_COMPLEX))],
]
