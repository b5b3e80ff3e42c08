"""OpInfo entries for dyngrad/ops/aliases.py: torch's alias names (absolute, negative, greater,
...), fill, adjoint and isreal."""
from __future__ import annotations

from .core import (ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, OP_DB, REAL_AND_BOOL, OpInfo,
                   SampleInput, make_array, permuted3, sliced, transposed, unary_samples)
from .pointwise import _comparison_samples


def _fill(dtype, rng):
    def x(shape=(3, 4)):
        return make_array(shape, dtype, rng)
    value = {"bool": True, "complex64": 1 - 2j, "complex128": 2j}.get(dtype, 3)
    return [SampleInput(x(), value), SampleInput(x(()), 2), SampleInput(x((0, 3)), 1),
            SampleInput(transposed((3, 4), dtype, rng), value),
            SampleInput(permuted3(dtype, rng), x(())), SampleInput(x(), x(())),
            SampleInput(x(), 2.5, desc="a float into any dtype"),
            # invalid: torch's errors
            SampleInput(x(), x((2,))), SampleInput(x(), "a")]


def _adjoint(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((3, 4))), SampleInput(x((2, 3, 4))), SampleInput(x((0, 2))),
            SampleInput(transposed((3, 4), dtype, rng)), SampleInput(permuted3(dtype, rng)),
            SampleInput(x((5,)))] + ([] if dtype in COMPLEX else [
                SampleInput(sliced((3, 4), dtype, rng), desc="complex: no conj view yet")])


OP_DB += [
    OpInfo("absolute", unary_samples(), ALL_BUT_BOOL),
    OpInfo("negative", unary_samples(), ALL_BUT_BOOL),
    OpInfo("not_equal", _comparison_samples, ALL_DTYPES),
    *[OpInfo(name, _comparison_samples, REAL_AND_BOOL)
      for name in ("greater", "greater_equal", "less", "less_equal")],
    OpInfo("fill", _fill, ALL_DTYPES, supports_out=False),
    OpInfo("adjoint", _adjoint, ALL_DTYPES, supports_out=False),
    OpInfo("isreal", unary_samples(), ALL_DTYPES, supports_out=False, supports_autograd=False),
]
