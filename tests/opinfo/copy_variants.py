"""OpInfo entries for dyngrad/ops/copy_variants.py: each ``*_copy`` op on contiguous and
strided inputs (the result is contiguous), its node ``<View>Backward0_copy``, and the view's
errors."""
from __future__ import annotations

from .complex_views import _NO_COMPLEX32
from .core import (ALL_DTYPES, COMPLEX, FLOATS, DType, OP_DB, OpInfo, SampleInput, make_array,
                   transposed)


def _gen(build):
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), transposed((3, 4), dtype, rng))
    return gen


_CASES = {
    "view_copy": lambda x, t: [SampleInput(x((3, 4)), (12,)), SampleInput(x((3, 4)), (-1, 2)),
                               SampleInput(x((3, 4)), (5,)), SampleInput(t, (12,)),
                               SampleInput(x((3, 4)), DType("int16")),
                               SampleInput(t, DType("uint8"))],
    "as_strided_copy": lambda x, t: [SampleInput(t, (2, 2), (1, 2)),
                                     SampleInput(x((3, 4)), (3,), (4,), 1),
                                     SampleInput(x((3, 4)), (2, 2), (1, 2), 3),
                                     SampleInput(x((3, 4)), (4, 4), (4, 1))],
    "permute_copy": lambda x, t: [SampleInput(t, (1, 0)), SampleInput(x((2, 3, 4)), (2, 0, 1)),
                                  SampleInput(t, (0,))],
    "t_copy": lambda x, t: [SampleInput(t), SampleInput(x((5,))), SampleInput(x((2, 3, 4)))],
    "expand_copy": lambda x, t: [SampleInput(x((3, 1)), (2, 3, 4)), SampleInput(t, (3, 4)),
                                 SampleInput(x((3, 2)), (3, 4))],
    "squeeze_copy": lambda x, t: [SampleInput(x((1, 3, 1))), SampleInput(x((1, 3, 1)), 0),
                                  SampleInput(x((1, 3, 1)), [0, 2]), SampleInput(x((3,)), 2)],
    "unsqueeze_copy": lambda x, t: [SampleInput(t, 0), SampleInput(t, -1), SampleInput(t, 4)],
    "transpose_copy": lambda x, t: [SampleInput(t, 0, 1), SampleInput(x((2, 3, 4)), 0, 2),
                                    SampleInput(t, 0, 3)],
    "select_copy": lambda x, t: [SampleInput(t, 0, 1), SampleInput(x((2, 3, 4)), -1, 2),
                                 SampleInput(t, 0, 9)],
    "slice_copy": lambda x, t: [SampleInput(t, 0, 1, 3), SampleInput(t),
                                SampleInput(t, 1, 0, 4, 2)],
    "diagonal_copy": lambda x, t: [SampleInput(t), SampleInput(x((2, 3, 4)), 1, 1, 2),
                                   SampleInput(t, 0, 0, 0)],
    "split_copy": lambda x, t: [SampleInput(t, 2), SampleInput(x((4, 6)), 4, 1)],
    "split_with_sizes_copy": lambda x, t: [SampleInput(t, [1, 3]), SampleInput(t, [1, 2])],
    "unbind_copy": lambda x, t: [SampleInput(t), SampleInput(x((2, 3, 4)), -1)],
    "unfold_copy": lambda x, t: [SampleInput(t, 0, 2, 1), SampleInput(x((6,)), 0, 3, 2)],
    "alias_copy": lambda x, t: [SampleInput(t), SampleInput(x(()))],
}

# torch differentiates complex results of these copies but for select_copy and slice_copy
_NO_COMPLEX_AUTOGRAD = ("select_copy", "slice_copy")
OP_DB += [OpInfo(name, _gen(build), ALL_DTYPES,
                 supports_out=name not in ("split_copy", "split_with_sizes_copy", "unbind_copy"),
                 supports_complex_autograd=name not in _NO_COMPLEX_AUTOGRAD)
          for name, build in _CASES.items()]
OP_DB += [OpInfo("detach_copy", _gen(lambda x, t: [SampleInput(t), SampleInput(x(()))]),
                 ALL_DTYPES, supports_autograd=False)]

OP_DB += [
    OpInfo("view_as_real_copy", _gen(lambda x, t: [SampleInput(t), SampleInput(x(())),
                                                   SampleInput(x((0, 2)))]), COMPLEX),
    # complex results: torch has no derivative (its error is in tests/test_aliases.py)
    OpInfo("view_as_complex_copy", _gen(lambda x, t: [
        SampleInput(x((3, 2))), SampleInput(x((2, 3, 2))), SampleInput(x((3, 3))),
        SampleInput(x(())), SampleInput(t)]), FLOATS, supports_autograd=False,
        xfail={("forward", "float16"): _NO_COMPLEX32}),
]
