"""OpInfo entries for dyngrad/ops/conv_tbc.py: conv_tbc (torch.conv_tbc and
nn.functional.conv_tbc). Samples: paddings 0, 1, 2 and -1, one kernel tap, a batch of one, an
empty output, an input whose rows cannot be flattened (torch's view error), and torch's other
errors (ranks, channel counts, bias size, a weight of another dtype, a negative length)."""
from __future__ import annotations

from .core import ALL_BUT_BOOL, OP_DB, OpInfo, SampleInput, Strided, make_array

_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}


def _samples(dtype, rng):
    def a(*shape):
        return make_array(shape, dtype, rng, -2, 3)
    w = a(3, 3, 4)
    b = a(4)
    other = "float64" if dtype != "float64" else "float32"
    return [
        SampleInput(a(5, 2, 3), w, b), SampleInput(a(5, 2, 3), w, b, 1),
        SampleInput(a(4, 3, 3), w, b, 2), SampleInput(a(6, 2, 3), w, b, -1),
        SampleInput(a(4, 2, 3), a(1, 3, 2), a(2)), SampleInput(a(5, 1, 3), w, b, 1),
        SampleInput(a(3, 2, 3), w, b, desc="empty output"),
        SampleInput(Strided(a(30), (5, 2, 3), (3, 15, 1), kind="time-major "), w, b, 1),
        # invalid
        SampleInput(a(2, 3), w, b), SampleInput(a(5, 2, 3), a(3, 4), b),
        SampleInput(a(5, 2, 3), w, a(2, 2)), SampleInput(a(5, 2, 3), w, a(3)),
        SampleInput(a(5, 2, 4), w, b), SampleInput(a(2, 2, 3), w, b),
        SampleInput(a(5, 2, 3), make_array((3, 3, 4), other, rng), b, desc="weight dtype"),
    ]


OP_DB += [
    OpInfo("conv_tbc", _samples, ALL_BUT_BOOL, supports_out=False, tol=_TOL,
           gradgrad_samples=3, supports_complex_autograd=False),
    OpInfo("nn.functional.conv_tbc", _samples, ALL_BUT_BOOL, supports_out=False, tol=_TOL,
           gradgrad_samples=3, supports_complex_autograd=False),
]
