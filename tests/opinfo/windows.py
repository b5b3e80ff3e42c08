"""OpInfo entries for dyngrad/ops/windows.py: the five window factories over the floating
dtypes (integer, bool and complex dtypes raise torch's errors), periodic and symmetric, lengths
0, 1, 2 and longer, the extra parameters (hamming's alpha and beta, kaiser's beta), and the
invalid calls whose errors must be torch's. Factories: no autograd, no method, no out=."""
from __future__ import annotations

from .core import FLOATS, OP_DB, DType, OpInfo, SampleInput


def _samples(extra):
    def samples(dtype, rng):
        dt = DType(dtype)
        out = [SampleInput(5, dtype=dt), SampleInput(6, False, dtype=dt),
               SampleInput(7, True, dtype=dt), SampleInput(0, dtype=dt), SampleInput(1, dtype=dt),
               SampleInput(1, False, dtype=dt), SampleInput(2, dtype=dt),
               SampleInput(2, False, dtype=dt), SampleInput(16, periodic=False, dtype=dt)]
        out += [SampleInput(9, *args, dtype=dt) for args in extra]
        # invalid: torch's errors
        out += [SampleInput(-1, dtype=dt), SampleInput(5.0, dtype=dt), SampleInput(True),
                SampleInput(5, 1, dtype=dt), SampleInput(5, True, "x", dtype=dt),
                SampleInput(5, True, 1.0, 2.0, 3.0, dtype=dt), SampleInput(5, out=None),
                SampleInput(5, foo=1, dtype=dt), SampleInput(-1, dtype=DType("int64"))]
        return out
    return samples


_NO_EXTRA = [(False,)]
OP_DB += [
    OpInfo("hann_window", _samples(_NO_EXTRA), FLOATS, supports_out=False,
           supports_autograd=False),
    OpInfo("hamming_window", _samples([(False, 0.3), (True, 0.3, 0.2), (False, 1, 2)]), FLOATS,
           supports_out=False, supports_autograd=False),
    OpInfo("blackman_window", _samples(_NO_EXTRA), FLOATS, supports_out=False,
           supports_autograd=False),
    OpInfo("bartlett_window", _samples(_NO_EXTRA), FLOATS, supports_out=False,
           supports_autograd=False),
    OpInfo("kaiser_window", _samples([(False, 0.0), (True, 5), (False, -3.0), (True, 30.0)]),
           FLOATS, supports_out=False, supports_autograd=False),
]
