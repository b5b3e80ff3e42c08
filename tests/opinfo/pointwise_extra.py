"""OpInfo entries for dyngrad/ops/pointwise_extra.py (heaviside, gcd, lcm, frexp, special.entr,
erfcx, ndtr, ndtri, log_ndtr, mvlgamma / special.multigammaln)."""
from __future__ import annotations

import numpy as np

from .core import (FLOATS, INTS, OP_DB, REAL, REAL_AND_BOOL, OpInfo, SampleInput,
                   binary_samples, chain, make_array, permuted3, special_values, transposed)


def _heaviside_edges(dtype, rng):
    """Zeros of either sign, NaN, numbers, other dtypes and complex values (torch's errors)."""
    x = make_array((3, 4), dtype, rng, -3, 4)
    out = [SampleInput(x, make_array((4,), dtype, rng)),
           SampleInput(x, 0.5, desc="number values: a TypeError"),
           SampleInput(x, np.array([1 + 1j], "complex64"), desc="complex values"),
           SampleInput(x, make_array((5,), dtype, rng), desc="does not broadcast")]
    if dtype in FLOATS:
        z = np.array([[0.0, -0.0, np.nan, -np.inf], [np.inf, 1e-30, -1e-30, 2.0]], dtype)
        out.append(SampleInput(z, make_array((2, 4), dtype, rng), desc="zeros, NaN, inf"))
        out.append(SampleInput(z, make_array((4,), "float64" if dtype != "float64" else
                                             "float32", rng), desc="other dtype"))
    return out


_heaviside_samples = chain(binary_samples(-3, 4, scalars=(), special=False), _heaviside_edges)


def _int_edges(dtype, rng):
    """Zeros, signs, the most negative value and products that overflow (lcm wraps)."""
    info = np.iinfo(dtype)
    a = np.array([0, 0, info.min, info.max, 12, 100], dtype)
    b = np.array([0, 5, 0, 3, 18, 3], dtype)
    out = [SampleInput(a, b, desc="edges"), SampleInput(b, a, desc="edges swapped"),
           SampleInput(make_array((3, 4), dtype, rng, -30, 30), 4, desc="number: a TypeError"),
           SampleInput(make_array((3, 4), dtype, rng), make_array((4,), "float32", rng),
                       desc="promotes to float")]
    if info.min < 0:
        out.append(SampleInput(np.array([-4, -6, 7], dtype), np.array([6, -9, -14], dtype)))
    return out


def _gcd_samples(low, high):
    return chain(binary_samples(low, high, scalars=(), partners=("int64", "int8", "bool"),
                                special=False), _int_edges)


def _int_samples(dtype, rng):
    """The integer dtypes get the samples above; the others one sample, for their error."""
    if dtype not in INTS:
        return [SampleInput(make_array((3, 4), dtype, rng), make_array((3, 4), dtype, rng))]
    return _gcd_samples(-30, 30)(dtype, rng)


def _frexp_samples(dtype, rng):
    out = [SampleInput(make_array((3, 4), dtype, rng, -100, 100)),
           SampleInput(make_array((), dtype, rng)),
           SampleInput(transposed((3, 4), dtype, rng)),
           SampleInput(permuted3(dtype, rng)),
           SampleInput(make_array((0, 3), dtype, rng))]
    sv = special_values(dtype)
    if sv is not None:
        tiny = np.finfo(dtype).tiny
        out.append(SampleInput(sv, desc="special values"))
        out.append(SampleInput(np.array([tiny, tiny / 8, -tiny / 2, 1e4, 0.5, -1.0, 2.0 ** 10],
                                        dtype), desc="subnormals and powers of two"))
    return out


OP_DB += [
    OpInfo("heaviside", _heaviside_samples, REAL_AND_BOOL),
    OpInfo("gcd", _int_samples, INTS),
    OpInfo("lcm", _int_samples, INTS),
    OpInfo("frexp", _frexp_samples, FLOATS, supports_out=False, gradgrad_samples=3),
]


# -- special functions of statistics -----------------------------------------------------------
def _special_samples(low, high, edges):
    def gen(dtype, rng):
        if dtype not in FLOATS:   # (ndtri's [0.02, 0.98] has no integer: take 0 and 1)
            return [SampleInput(make_array((3, 4), dtype, rng, min(low, 0), max(high, 2)))]
        out = [SampleInput(make_array((3, 4), dtype, rng, low, high)),
               SampleInput(make_array((), dtype, rng, low, high)),
               SampleInput(transposed((3, 4), dtype, rng, low=low, high=high)),
               SampleInput(permuted3(dtype, rng, low=low, high=high)),
               SampleInput(make_array((0, 2), dtype, rng))]
        if dtype in FLOATS:
            out.append(SampleInput(special_values(dtype), desc="special values"))
            out.append(SampleInput(np.array(edges, dtype), desc="edges"))
        return out
    return gen


def _mvlgamma_samples(dtype, rng):
    if dtype not in FLOATS:
        x = make_array((3, 4), dtype, rng, 1, 9)
        return [SampleInput(x, 2), SampleInput(x, 1)]
    x = make_array((3, 4), dtype, rng, 2.5, 9)
    out = [SampleInput(x, 1), SampleInput(x, 3), SampleInput(make_array((), dtype, rng, 2, 5), 2),
           SampleInput(transposed((3, 4), dtype, rng, low=2, high=6), 4),
           SampleInput(make_array((0, 3), dtype, rng), 2),
           SampleInput(np.array([0.4, 1.0, 0.0, -1.5, np.inf, np.nan], dtype), 2,
                       desc="below (p - 1) / 2, poles"),
           SampleInput(x, 0, desc="p < 1"), SampleInput(x, -2, desc="p < 1"),
           SampleInput(x, 2.5, desc="p not an int")]
    return out


_fine = {"float16": (4e-3, 2e-3), "float32": (2e-6, 1e-6)}
_NO_HALF = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64")

OP_DB += [
    OpInfo("special.entr", _special_samples(-1, 4, [1.0, 1e-30, -1e-30, 0.5, 1e30]),
           REAL_AND_BOOL, tol=_fine, gradgrad_samples=2),
    OpInfo("special.erfcx", _special_samples(-3, 10, [-9.0, -9.5, -26.0, -27.0, 25.0, 26.0,
                                                      26.5, 100.0, 1e10, 1e-10]),
           _NO_HALF, tol=_fine, gradgrad_samples=2),
    OpInfo("special.ndtr", _special_samples(-4, 4, [5.0, -5.0, 1e-20, 0.5]), REAL_AND_BOOL,
           tol=_fine, gradgrad_samples=2),
    OpInfo("special.ndtri", _special_samples(0.02, 0.98, [0.0, 1.0, 0.5, 1e-10, 1 - 1e-7,
                                                          -0.5, 1.5]),
           _NO_HALF, tol=_fine, gradgrad_samples=2),
    OpInfo("special.log_ndtr", _special_samples(-6, 6, [-1.0, -1.0001, -30.0, -200.0, 8.0,
                                                        40.0, 1e-20]),
           _NO_HALF, tol=_fine, gradgrad_samples=2),
    OpInfo("mvlgamma", _mvlgamma_samples, REAL, tol=_fine, gradgrad_samples=2),
    OpInfo("special.multigammaln", lambda dt, rng: _mvlgamma_samples(dt, rng)[:2] +
           _mvlgamma_samples(dt, rng)[-3:], REAL, tol=_fine),
]
