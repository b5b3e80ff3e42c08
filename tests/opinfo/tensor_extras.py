"""OpInfo entries for the primitives of dyngrad/_tensor_extras.py: conj (ConjBackward0; a real
tensor is returned itself), conj_physical (ConjPhysicalBackward0, with out= and the in-place
conj_physical_) and as_strided_scatter (AsStridedScatterBackward0), over every dtype."""
from __future__ import annotations

from .core import ALL_DTYPES, OP_DB, OpInfo, SampleInput, make_array, unary_samples

# torch 2.13's gradient for as_strided_scatter's `self` is the complement of the right one (the
# gradient at the positions src overwrites, zeros elsewhere; torch's own gradcheck fails on it).
# dyngrad gives the right one: grad with zeros where src was written.
_TORCH_WRONG_GRAD = "torch 2.13's as_strided_scatter gradient for self is wrong (fails gradcheck)"


def _as_strided_scatter(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    # torch refuses inputs that require grad unless they are contiguous (an internal assert):
    # non-contiguous inputs are checked in tests/test_tensor_extras.py
    return [
        SampleInput(x((6,)), x((2,)), (2,), (2,)),
        SampleInput(x((6,)), x((2,)), (2,), (2,), 1),
        SampleInput(x((3, 4)), x((2, 2)), (2, 2), (1, 4), 2),
        SampleInput(x((3, 4)), x((4, 3)), (4, 3), (1, 4)),
        SampleInput(x((2, 3, 4)), x((3,)), (3,), (5,), 3),
        SampleInput(x((6,)), x((0,)), (0,), (1,)),
        SampleInput(x(()), x(()), (), ()),
        # invalid: torch's errors
        SampleInput(x((6,)), x((3,)), (2,), (2,)),
        SampleInput(x((6,)), x((2,)), (2,), (4,), 4),
        SampleInput(x((6,)), x((2,)), (2,), (-1,)),
        SampleInput(x((6,)), x((2,)), (2, 2), (1,)),
    ]


OP_DB += [
    OpInfo("conj", unary_samples(), ALL_DTYPES, supports_out=False),
    OpInfo("conj_physical", unary_samples(), ALL_DTYPES),
    OpInfo("as_strided_scatter", _as_strided_scatter, ALL_DTYPES, supports_out=False,
           xfail={"backward": _TORCH_WRONG_GRAD, "gradgrad": _TORCH_WRONG_GRAD}),
]
