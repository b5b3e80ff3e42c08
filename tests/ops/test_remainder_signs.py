"""remainder (``%``) on special values against torch, bit for bit: a zero result keeps the
dividend's sign (torch's fmod-then-fix kernel; NumPy's remainder gives it the divisor's), and
infinities, NaNs and tiny values follow torch."""
import numpy as np
import pytest
import torch

import dyngrad

VALUES = [-4.0, 4.0, -3.5, 3.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 7.0]


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
    want, got = results
    word = {"float16": np.int16, "float32": np.int32, "float64": np.int64}[dtype]
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(word), want[~nan].view(word))
