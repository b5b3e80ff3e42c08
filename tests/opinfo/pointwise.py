"""OpInfo entries for dyngrad/ops/pointwise.py (arithmetic is in arithmetic.py)."""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, COMPLEX, FLOATS, INTS, INTS_AND_BOOL, NONCONTIGUOUS, OP_DB,
                   REAL_AND_BOOL, OpInfo, SampleInput, binary_samples, chain, make_array,
                   special_values, unary_samples)


def _where_samples(dtype, rng):
    def cond(shape):
        return make_array(shape, "bool", rng)

    def x(shape):
        return make_array(shape, dtype, rng)

    out = [SampleInput(cond((3, 4)), x((3, 4)), x((3, 4))),
           SampleInput(cond((3, 1)), x((1, 4)), x((3, 4))),
           SampleInput(cond(()), x((2, 3)), x(())),
           SampleInput(cond((2, 3)), x(()), x(())),
           SampleInput(cond((0, 3)), x((3,)), x((0, 1))),
           SampleInput(cond((3, 4)), x((3, 4)), 2),
           SampleInput(cond((3, 4)), 2.5, x((3, 4))),
           SampleInput(cond((3, 4)), True, x((4,))),
           SampleInput(cond((3, 4)), 1, 2),
           SampleInput(cond((3, 4)), 1, 2.5),
           SampleInput(cond((3, 4)), x((3, 4)), make_array((3, 4), "float64", rng),
                       desc="mixed dtypes"),
           SampleInput(cond((3, 4)), x((3, 4)), make_array((), "int64", rng),
                       desc="mixed dtypes"),
           SampleInput(make_array((3, 4), "uint8", rng), x((3, 4)), x((3, 4)),
                       desc="non-bool condition")]
    for f in NONCONTIGUOUS:
        out.append(SampleInput(f((3, 4), "bool", rng), f((3, 4), dtype, rng), x((3, 4))))
    return out


def _clamp_samples(dtype, rng):
    def x(shape=(3, 4), **kw):
        return make_array(shape, dtype, rng, **kw)

    lo, hi = (1, 6) if dtype in INTS else (-1.5, 2.0)
    out = [SampleInput(x(), lo, hi), SampleInput(x(), lo), SampleInput(x(), min=lo),
           SampleInput(x(), max=hi), SampleInput(x(), None, hi), SampleInput(x(), hi, lo),
           SampleInput(x(()), lo, hi), SampleInput(x((0, 2)), lo, hi),
           SampleInput(x(), 0.5, 2.5, desc="float bounds"),
           SampleInput(x(), True, desc="bool bound"),
           SampleInput(x(), x((4,)), x((3, 1))), SampleInput(x(), x((4,))),
           SampleInput(x(), max=x(())), SampleInput(x(), min=x((4,)), max=x((4,))),
           SampleInput(x(), make_array((4,), "float64", rng), desc="mixed dtypes")]
    for f in NONCONTIGUOUS:
        out.append(SampleInput(f((3, 4), dtype, rng), lo, hi))
        out.append(SampleInput(x(), f((3, 4), dtype, rng)))
    sv = special_values(dtype)
    if sv is not None:
        out.append(SampleInput(sv, -1.0, 2.0, desc="special values"))
    return out


def _shift_samples(dtype, rng):
    bits = 8 if dtype in ("bool", "uint8", "int8") else 16
    out = binary_samples(-20, 20, rhs_low=0, rhs_high=bits, scalars=("int",),
                         lhs_scalars=("int",), partners=("int64", "int32", "float32"))(dtype, rng)
    wide = make_array((3, 4), dtype, rng, -20 if dtype != "uint8" else 0, 20)
    if dtype not in ("uint8", "bool"):
        out.append(SampleInput(wide, make_array((3, 4), dtype, rng, -3, 0), desc="negative"))
    big = {"uint8": 12, "int8": 12, "int16": 20, "int32": 40, "int64": 70}.get(dtype)
    if big:
        out.append(SampleInput(wide, make_array((3, 4), dtype, rng, 0, big), desc=">= bits"))
        out.append(SampleInput(wide, big - 1, desc=">= bits"))
    if dtype == "bool":
        out.append(SampleInput(make_array((3, 4), "bool", rng), 1))
    return out


def _bitwise_samples(dtype, rng):
    return binary_samples(-20, 20, scalars=("bool", "int"), lhs_scalars=("int",),
                          partners=("int64", "uint8", "bool"))(dtype, rng)


def _comparison_samples(dtype, rng):
    out = binary_samples(-3, 3)(dtype, rng)   # a small range gives equal elements too
    x = make_array((3, 4), dtype, rng, -3, 3)
    out.append(SampleInput(x, x.copy(), desc="equal"))
    return out


def _isclose_samples(dtype, rng):
    """Near and far values, NaN and inf, with and without tolerances and equal_nan."""
    x = make_array((3, 4), dtype, rng, -2, 2)
    near = x.copy()
    if near.dtype.kind in "fc":
        near = near + near.dtype.type(1e-6)
    samples = [SampleInput(x, near, desc="near"), SampleInput(x, x[0].copy(), desc="broadcast"),
               SampleInput(x, near, rtol=0.0, atol=0.0, desc="exact tolerances"),
               SampleInput(x, near, 1e-3, 1e-3, desc="positional tolerances")]
    if x.dtype.kind == "f":
        special = x.copy()
        special[0, :3] = [np.nan, np.inf, -np.inf]
        samples += [SampleInput(special, special.copy(), desc="nan/inf"),
                    SampleInput(special, special.copy(), equal_nan=True, desc="equal_nan")]
    return samples


def _tie_samples(dtype, rng):
    """Equal elements (maximum/minimum split the gradient between tied operands)."""
    x = make_array((3, 4), dtype, rng, -2, 2)
    y = make_array((3, 4), dtype, rng, -2, 2)
    y[:, :2] = x[:, :2]
    return [SampleInput(x, x.copy(), desc="all tied"), SampleInput(x, y, desc="half tied"),
            SampleInput(x, x[1].copy(), desc="tied row, broadcast")]


def _clamp_edges(dtype, rng):
    """Values exactly at the bounds (the gradient passes there), and min > max."""
    if dtype not in FLOATS:
        return []
    x = np.array([[-1.5, 2.0, -3.0, 4.0], [0.0, -1.5, 2.0, 0.5]], dtype=dtype)
    lo = np.array([-1.5, 0.0, -3.0, 1.0], dtype=dtype)
    hi = np.array([2.0, 2.0, -3.0, 4.0], dtype=dtype)
    return [SampleInput(x, -1.5, 2.0, desc="at the bounds"), SampleInput(x, min=-1.5),
            SampleInput(x, max=2.0), SampleInput(x, 2.0, -1.5, desc="min > max"),
            SampleInput(x, lo, hi, desc="at tensor bounds"), SampleInput(x, min=lo),
            SampleInput(x, max=hi), SampleInput(x, hi, lo, desc="min > max")]


def _one_bound_samples(side):
    """clamp_min / clamp_max: a number or a tensor bound, ties at the bound included."""
    def samples(dtype, rng):
        def x(shape=(3, 4)):
            return make_array(shape, dtype, rng)

        bound = 1 if dtype in INTS else 0.5
        out = [SampleInput(x(), bound), SampleInput(x(), **{side: bound}),
               SampleInput(x(()), bound), SampleInput(x((0, 2)), bound),
               SampleInput(x(), 0.25, desc="float bound"), SampleInput(x(), x((4,))),
               SampleInput(x((3, 1)), x((4,)), desc="broadcast to the bound"),
               SampleInput(x(), x(())), SampleInput(x(), **{side: x((3, 4))}),
               SampleInput(x(), make_array((4,), "float64", rng), desc="mixed dtypes")]
        for f in NONCONTIGUOUS:
            out.append(SampleInput(f((3, 4), dtype, rng), bound))
            out.append(SampleInput(x(), f((3, 4), dtype, rng)))
        if dtype in FLOATS:
            at = np.array([[-1.5, 2.0, 0.5, 4.0], [0.0, 0.5, -0.0, 0.5]], dtype=dtype)
            out += [SampleInput(at, 0.5, desc="at the bound"),
                    SampleInput(at, at[0].copy(), desc="at tensor bounds")]
        sv = special_values(dtype)
        if sv is not None:
            out.append(SampleInput(sv, 0.5, desc="special values"))
        return out
    return samples


_float_tol = {"float16": (4e-3, 1e-3)}

OP_DB += [
    # unary math
    OpInfo("exp", unary_samples(-4, 4), ALL_DTYPES, tol=_float_tol),
    OpInfo("log", unary_samples(-1, 8), ALL_DTYPES, tol=_float_tol),
    OpInfo("sqrt", unary_samples(-1, 8), ALL_DTYPES, tol=_float_tol),
    OpInfo("reciprocal", unary_samples(-4, 4), ALL_DTYPES, tol=_float_tol),
    OpInfo("sign", unary_samples(), REAL_AND_BOOL),
    OpInfo("sgn", unary_samples(), ALL_DTYPES),
    # comparisons and logical ops
    *[OpInfo(name, _comparison_samples, ALL_DTYPES) for name in ("eq", "ne")],
    *[OpInfo(name, _comparison_samples, REAL_AND_BOOL) for name in ("lt", "le", "gt", "ge")],
    *[OpInfo(name, binary_samples(-2, 2, scalars=(), partners=("float64", "int32", "bool")),
             ALL_DTYPES) for name in ("logical_and", "logical_or", "logical_xor")],
    OpInfo("logical_not", unary_samples(-2, 2), ALL_DTYPES),
    OpInfo("isclose", _isclose_samples, ALL_DTYPES,
           supports_out=False),
    # bitwise ops
    *[OpInfo(name, _bitwise_samples, INTS_AND_BOOL)
      for name in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    OpInfo("bitwise_not", unary_samples(-20, 20), INTS_AND_BOOL),
    OpInfo("bitwise_left_shift", _shift_samples, INTS),
    OpInfo("bitwise_right_shift", _shift_samples, INTS),
    # selection
    OpInfo("where", _where_samples, ALL_DTYPES, method=False),
    OpInfo("clamp", chain(_clamp_samples, _clamp_edges), REAL_AND_BOOL),
    OpInfo("clip", _clamp_samples, REAL_AND_BOOL),
    OpInfo("clamp_min", _one_bound_samples("min"), REAL_AND_BOOL),
    OpInfo("clamp_max", _one_bound_samples("max"), REAL_AND_BOOL),
    OpInfo("maximum", chain(binary_samples(scalars=()), _tie_samples), REAL_AND_BOOL),
    OpInfo("minimum", chain(binary_samples(scalars=()), _tie_samples), REAL_AND_BOOL),
    # complex parts (properties in torch: no method form)
    OpInfo("real", unary_samples(), ALL_DTYPES, method=False, supports_out=False),
    OpInfo("imag", unary_samples(), COMPLEX, method=False, supports_out=False),
]
