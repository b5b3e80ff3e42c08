"""OpInfo entry for dyngrad/ops/difference.py: diff, over every dtype (bool takes logical_xor),
with n, dim, prepend and append, strided inputs, empty dims, n past the dim's length, and the
invalid calls whose errors must be torch's."""
from __future__ import annotations

from .core import (ALL_DTYPES, OP_DB, OpInfo, SampleInput, make_array, permuted3, sliced,
                   transposed)


def _diff(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [
        SampleInput(x((5,))), SampleInput(x((3, 4))), SampleInput(x((3, 4)), 2, 0),
        SampleInput(x((3, 4)), n=3, dim=-1), SampleInput(transposed((3, 4), dtype, rng), 1, 0),
        SampleInput(sliced((3, 4), dtype, rng), dim=1), SampleInput(permuted3(dtype, rng), 2, 1),
        SampleInput(x((3, 4)), 1, 1, x((3, 2)), x((3, 1))),
        SampleInput(x((3, 4)), n=2, dim=0, prepend=x((1, 4))),
        SampleInput(x((3, 4)), append=x((3, 3))), SampleInput(x((3, 4)), n=0),
        SampleInput(x((3, 4)), n=9), SampleInput(x((2, 0))), SampleInput(x((0, 3)), 1, 0),
        SampleInput(x((2, 1)), 1, 1),
        # invalid: torch's errors
        SampleInput(x(())), SampleInput(x((3, 4)), -1), SampleInput(x((3, 4)), dim=2),
        SampleInput(x((3, 4)), prepend=x((2, 1))), SampleInput(x((3, 4)), append=x((3,))),
        SampleInput(x((3, 4)), 1, 0, x((1, 3))), SampleInput(x((3, 4)), 2.5),
        SampleInput(x((3, 4)), 1, 5, x((3, 1))),
    ]


OP_DB += [OpInfo("diff", _diff, ALL_DTYPES, supports_out=False, gradgrad_samples=4)]
