"""OpInfo entry for dyngrad/ops/hashing.py: hash_tensor over every dim, one dim, several dims
(keepdim or not), non-contiguous and 0-dim inputs, empty slices, and the invalid calls (an
empty input without dim, a bad mode) whose errors must be torch's. The uint64 result is exact,
so the values are compared bit for bit."""
from __future__ import annotations

from .core import FLOATS, INTS_AND_BOOL, OP_DB, OpInfo, SampleInput, expanded, make_array, \
    sliced, transposed


def _hash_tensor(dtype, rng):
    def x(*shape):
        return make_array(shape, dtype, rng)

    return [
        SampleInput(x(3, 4)), SampleInput(x(3, 4), 1), SampleInput(x(3, 4), -2, keepdim=True),
        SampleInput(x(2, 3, 4), (0, 2)), SampleInput(x(2, 3, 4), [1], keepdim=True),
        SampleInput(x()), SampleInput(x(), 0), SampleInput(x(5), mode=0),
        SampleInput(transposed((3, 4), dtype, rng)), SampleInput(sliced((3, 4), dtype, rng), 1),
        SampleInput(expanded((3, 4), dtype, rng), 0), SampleInput(x(2, 0, 3), 2),
        # invalid: torch's errors
        SampleInput(x(0, 3)), SampleInput(x(0, 3), 0), SampleInput(x(3), mode=1),
        SampleInput(x(3, 4), 2),
    ]


OP_DB += [OpInfo("hash_tensor", _hash_tensor, INTS_AND_BOOL + FLOATS, supports_autograd=False)]
