"""OpInfo entries for dyngrad/ops/pointwise.py."""
from __future__ import annotations

from .core import (ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, FLOATS, INTS, INTS_AND_BOOL, NONCONTIGUOUS,
                   OP_DB, REAL, REAL_AND_BOOL, OpInfo, SampleInput, Strided, binary_samples,
                   chain, make_array, special_values, unary_samples)


def _alpha_samples(dtype, rng):
    alphas = {"bool": (True, False)}.get(dtype) or ((2, -1) if dtype in INTS else (0.5, 2, 1j)
                                                    if dtype in COMPLEX else (0.5, 2))
    out = [SampleInput(make_array((3, 4), dtype, rng), make_array((4,), dtype, rng), alpha=a)
           for a in alphas]
    out.append(SampleInput(make_array((3, 4), dtype, rng), 2, alpha=alphas[0]))
    return out


def _contiguous_only(gen):
    """Drop samples with a non-contiguous operand (see test_rsub_layout_follows_other)."""
    def g(dtype, rng):
        return [s for s in gen(dtype, rng)
                if not any(isinstance(a, Strided) for a in (s.input,) + s.args)]
    return g


def _with_kwargs(gen, **kwargs):
    def g(dtype, rng):
        samples = gen(dtype, rng)
        for s in samples:
            s.kwargs.update(kwargs)
        return samples
    return g


def _int_range(dtype, low=-3, high=4):
    """Small integer bases so that powers stay far from overflow in every integer dtype."""
    return dict(low=max(low, 0) if dtype in ("uint8", "bool") else low, high=high)


def _pow_samples(dtype, rng):
    if dtype in INTS:
        out = binary_samples(-3, 4, rhs_low=0, rhs_high=4, scalars=("int", "bool"),
                             lhs_scalars=("int",), partners=("float64", "int32", "bool"),
                             special=False)(dtype, rng)
        # negative integer exponents: an error for a Python number, torch's values for a tensor
        out.append(SampleInput(make_array((3, 4), dtype, rng, **_int_range(dtype)), -2))
        if dtype != "uint8":
            out.append(SampleInput(make_array((3, 4), dtype, rng, -3, 4),
                                   make_array((3, 4), dtype, rng, -3, 3)))
            out.append(SampleInput(2, make_array((3, 4), dtype, rng, -3, 3)))
        return out
    if dtype == "bool":
        b = make_array((3, 4), dtype, rng)
        return [SampleInput(b, make_array((3, 4), dtype, rng)), SampleInput(b, True),
                SampleInput(b, False), SampleInput(b, 2), SampleInput(b, 0.5), SampleInput(2, b),
                SampleInput(True, b), SampleInput(b, make_array((3, 4), "int64", rng, 0, 3))]
    out = binary_samples(0.25, 3, scalars=("int", "float", "bool"), lhs_scalars=("int", "float"),
                         special=dtype in FLOATS)(dtype, rng)
    out.append(SampleInput(make_array((3, 4), dtype, rng, -3, 3), 0.5, desc="nan for x < 0"))
    out.append(SampleInput(make_array((3, 4), dtype, rng), 2))
    return out


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


_float_tol = {"float16": (4e-3, 1e-3)}

OP_DB += [
    # arithmetic
    OpInfo("add", chain(binary_samples(lhs_scalars=("int", "float")), _alpha_samples),
           ALL_DTYPES),
    OpInfo("sub", chain(binary_samples(lhs_scalars=("int", "float")), _alpha_samples),
           ALL_BUT_BOOL),
    OpInfo("rsub", chain(_contiguous_only(binary_samples(scalars=("int", "float"))),
                         _alpha_samples),
           ALL_BUT_BOOL, supports_out=False),
    OpInfo("mul", binary_samples(lhs_scalars=("int", "float")), ALL_DTYPES),
    OpInfo("div", binary_samples(lhs_scalars=("int", "float")), ALL_DTYPES),
    OpInfo("div", chain(
        _with_kwargs(binary_samples(nonzero_rhs=True, lhs_scalars=("int",)),
                     rounding_mode="trunc"),
        _with_kwargs(binary_samples(nonzero_rhs=True, lhs_scalars=("int",)),
                     rounding_mode="floor")), REAL, variant="rounding_mode"),
    OpInfo("true_divide", binary_samples(lhs_scalars=("int", "float")), ALL_DTYPES),
    OpInfo("floor_divide", binary_samples(nonzero_rhs=True, lhs_scalars=("int", "float")), REAL),
    OpInfo("remainder", binary_samples(nonzero_rhs=True, lhs_scalars=("int", "float")), REAL),
    OpInfo("neg", unary_samples(), ALL_BUT_BOOL),
    OpInfo("positive", unary_samples(), ALL_BUT_BOOL, supports_out=False),
    OpInfo("abs", unary_samples(), ALL_BUT_BOOL),
    OpInfo("pow", _pow_samples, ALL_DTYPES, tol=_float_tol),
    # unary math
    OpInfo("exp", unary_samples(-4, 4), ALL_DTYPES, tol=_float_tol),
    OpInfo("log", unary_samples(-1, 8), ALL_DTYPES, tol=_float_tol),
    OpInfo("sqrt", unary_samples(-1, 8), ALL_DTYPES, tol=_float_tol),
    # comparisons and logical ops
    *[OpInfo(name, _comparison_samples, ALL_DTYPES) for name in ("eq", "ne")],
    *[OpInfo(name, _comparison_samples, REAL_AND_BOOL) for name in ("lt", "le", "gt", "ge")],
    *[OpInfo(name, binary_samples(-2, 2, scalars=(), partners=("float64", "int32", "bool")),
             ALL_DTYPES) for name in ("logical_and", "logical_or", "logical_xor")],
    OpInfo("logical_not", unary_samples(-2, 2), ALL_DTYPES),
    # bitwise ops
    *[OpInfo(name, _bitwise_samples, INTS_AND_BOOL)
      for name in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    OpInfo("bitwise_not", unary_samples(-20, 20), INTS_AND_BOOL),
    OpInfo("bitwise_left_shift", _shift_samples, INTS),
    OpInfo("bitwise_right_shift", _shift_samples, INTS),
    # selection
    OpInfo("where", _where_samples, ALL_DTYPES, method=False),
    OpInfo("clamp", _clamp_samples, REAL_AND_BOOL),
    OpInfo("clip", _clamp_samples, REAL_AND_BOOL),
    OpInfo("maximum", binary_samples(scalars=()), REAL_AND_BOOL),
    OpInfo("minimum", binary_samples(scalars=()), REAL_AND_BOOL),
    # complex parts (properties in torch: no method form)
    OpInfo("real", unary_samples(), ALL_DTYPES, method=False, supports_out=False),
    OpInfo("imag", unary_samples(), COMPLEX, method=False, supports_out=False),
]
