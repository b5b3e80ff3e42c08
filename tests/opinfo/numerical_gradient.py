"""OpInfo entry for dyngrad/ops/numerical_gradient.py: gradient with no spacing, a number, one
number per dim and 1-D coordinate tensors (which get gradients too), int and list dims,
edge_order 1 and 2, strided inputs, and the invalid calls whose errors must be torch's (uint8
and bool inputs among them)."""
from __future__ import annotations

import numpy as np

from .core import COMPLEX, FLOATS, OP_DB, SIGNED, OpInfo, SampleInput, make_array, transposed


def _gradient(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    def coords(*values):
        return np.array(values).astype(dtype)
    c3, c4, c5 = coords(0, 1, 3), coords(0, 2, 3, 5), coords(-1, 0, 2, 3, 6)
    return [
        SampleInput(x((3, 4))), SampleInput(x((5,))), SampleInput(x((3, 4)), spacing=2),
        SampleInput(x((3, 4)), spacing=0.5, edge_order=2),
        SampleInput(x((3, 4)), spacing=[2, 3.0]), SampleInput(x((3, 4)), dim=1),
        SampleInput(x((3, 4)), dim=-2, edge_order=2), SampleInput(x((3, 4)), dim=[1, 0]),
        SampleInput(x((3, 4)), spacing=1.5, dim=[1]), SampleInput(x((3, 4)), spacing=[2], dim=1),
        SampleInput(x((3, 4)), spacing=[c3, c4]), SampleInput(x((3, 4)), spacing=(c3, c4),
                                                              edge_order=2),
        SampleInput(x((2, 3, 5)), spacing=[c5], dim=-1, edge_order=2),
        SampleInput(transposed((4, 3), dtype, rng), spacing=[c4], dim=[0]),
        SampleInput(x((2, 3, 5)), spacing=[c3, c5], dim=(1, 2)), SampleInput(x(())),
        SampleInput(x((3, 4)), dim=[]),
        # invalid: torch's errors
        SampleInput(x((3, 4)), spacing=[2]), SampleInput(x((3, 4)), spacing=[2, 3], dim=1),
        SampleInput(x((3, 4)), edge_order=3), SampleInput(x((2, 4)), edge_order=2),
        SampleInput(x((3, 1))), SampleInput(x((3, 4)), dim=2),
        SampleInput(x((3, 4)), dim=[0, 0]), SampleInput(x((3, 4)), spacing=[c3, 2]),
        SampleInput(x((3, 4)), spacing=[c3, c4.reshape(2, 2)]),
        SampleInput(x((3, 4)), spacing=c4), SampleInput(x((3, 4)), 1),
        SampleInput(x((3, 4)), dim=[0, 1.0]), SampleInput(x((3, 4)), edge_order=True),
        SampleInput(x((3, 4)), spacing="a"),
    ]


OP_DB += [OpInfo("gradient", _gradient, SIGNED + FLOATS + COMPLEX, supports_out=False,
                 gradgrad_samples=4)]
