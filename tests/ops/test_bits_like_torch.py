"""Results compared with torch's bit for bit, where its kernel is not NumPy's ufunc: remainder
(``%``: a zero result keeps the dividend's sign, torch's fmod-then-fix kernel, where NumPy's
remainder gives it the divisor's) and pow with the exponents torch computes without pow (3 and
-2 as products, -0.5 as 1 / sqrt)."""
import numpy as np
import pytest
import torch

import dyngrad

VALUES = [-4.0, 4.0, -3.5, 3.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 7.0]


def _same_bits(results, dtype):
    want, got = results
    word = {"float16": np.int16, "float32": np.int32, "float64": np.int64}[dtype]
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(word), want[~nan].view(word))


@pytest.mark.parametrize("divisor", [2.0, -2.0, 0.0, -0.0, np.inf, -np.inf, 0.3, -0.3])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_remainder_bits(divisor, dtype, as_tensor):
    results = []
    for L in (torch, dyngrad):
        x = L.tensor(VALUES, dtype=getattr(L, dtype))
        other = L.full((len(VALUES),), divisor, dtype=getattr(L, dtype)) if as_tensor \
            else divisor
        results.append(np.asarray((x % other).tolist(), dtype=dtype))
    _same_bits(results, dtype)


@pytest.mark.parametrize("exponent", [3, 3.0, -2, -2.0, -0.5, 2, -1])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_pow_bits(exponent, dtype):
    values = np.concatenate([np.random.default_rng(0).standard_normal(40) * 3,
                             [0.0, -0.0, np.inf, -np.inf, 1e-30, -1e-30]])
    _same_bits([np.asarray((L.tensor(values, dtype=getattr(L, dtype)) ** exponent).tolist(),
                           dtype=dtype) for L in (torch, dyngrad)], dtype)
