"""OpInfo entry for dyngrad/ops/membership.py: isin over its three overloads (tensor / tensor,
number / tensor, tensor / number), mixed dtypes compared in the promoted type, invert, empty
and non-contiguous inputs, NaN, and the invalid calls (bool or complex inputs, argument
types) whose errors must be torch's."""
from __future__ import annotations

import numpy as np

from .core import INTS, FLOATS, OP_DB, OpInfo, SampleInput, make_array, sliced, transposed


def _isin(dtype, rng):
    def x(*shape, dt=dtype, **kw):
        return make_array(shape, dt, rng, **kw)

    elements = x(3, 4, low=0, high=6)
    out = [
        SampleInput(elements, x(5, low=0, high=6)),
        SampleInput(elements, x(2, 2, low=0, high=6), invert=True),
        SampleInput(elements, x(40, low=0, high=6), assume_unique=False),
        SampleInput(x(5, low=0, high=4), np.unique(x(6, low=0, high=4)), assume_unique=True),
        SampleInput(transposed((3, 4), dtype, rng, low=0, high=6), sliced((2, 3), dtype, rng,
                                                                         low=0, high=6)),
        SampleInput(x(low=0, high=3), x(4, low=0, high=3)),
        SampleInput(elements, x()), SampleInput(x(0, 3), x(4)), SampleInput(elements, x(0)),
        SampleInput(elements, 3), SampleInput(elements, 2.5), SampleInput(elements, 2.0),
        SampleInput(4, x(3, low=0, high=6)), SampleInput(1.0, x(3, low=0, high=3), invert=True),
        SampleInput(elements, x(4, dt="float64", low=0, high=6), desc="mixed dtypes"),
        SampleInput(elements, x(4, dt="int8", low=0, high=6), desc="mixed dtypes"),
        # invalid: torch's errors
        SampleInput(elements, x(3, dt="bool")), SampleInput(x(3, dt="complex64"), elements),
        SampleInput(elements, 1j), SampleInput(True, elements), SampleInput(elements, "a"),
        SampleInput(2, 3),
    ]
    if dtype in FLOATS:
        nan = np.array([np.nan, 1.0, 2.0], dtype=dtype)
        out.append(SampleInput(nan, nan.copy(), desc="NaN is never found"))
    return out


OP_DB += [OpInfo("isin", _isin, INTS + FLOATS, method=False, supports_autograd=False)]
