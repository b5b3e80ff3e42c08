"""OpInfo entries for dyngrad/ops/arithmetic.py."""
from __future__ import annotations

import numpy as np

from .core import (ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, FLOATS, INTS, OP_DB, REAL, OpInfo,
                   SampleInput, Strided, binary_samples, chain, make_array, unary_samples)


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


def _pow_edges(dtype, rng):
    """Where pow's derivatives have special cases: zero bases, zero and negative exponents."""
    if dtype not in FLOATS:
        return []
    base = np.array([[0.0, 0.0, 0.0, 2.0], [1.5, 0.5, 0.0, 3.0]], dtype=dtype)
    exponent = np.array([[0.0, 2.0, -1.0, 0.0], [1.0, -2.0, 0.5, 2.5]], dtype=dtype)
    out = [SampleInput(base, e, desc="zero base") for e in (0, 0.0, 0.5, 1, 2, -1, 3, True)]
    out.append(SampleInput(base, exponent, desc="zero base and exponent"))
    out += [SampleInput(b, exponent, desc="number base") for b in (0, 0.0, -2.0, 2, 1.5)]
    return out


_float_tol = {"float16": (4e-3, 1e-3)}

OP_DB += [
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
                     rounding_mode="floor")), REAL, variant="rounding_mode",
           gradgrad_samples=16),   # zero derivatives: a few samples say it all
    OpInfo("true_divide", binary_samples(lhs_scalars=("int", "float")), ALL_DTYPES),
    OpInfo("floor_divide", binary_samples(nonzero_rhs=True, lhs_scalars=("int", "float")), REAL),
    OpInfo("remainder", binary_samples(nonzero_rhs=True, lhs_scalars=("int", "float")), REAL),
    OpInfo("neg", unary_samples(), ALL_BUT_BOOL),
    OpInfo("positive", unary_samples(), ALL_BUT_BOOL, supports_out=False),
    OpInfo("abs", unary_samples(), ALL_BUT_BOOL),
    OpInfo("pow", chain(_pow_samples, _pow_edges), ALL_DTYPES, tol=_float_tol),
]
