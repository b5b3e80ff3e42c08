"""OpInfo entries for dyngrad/ops/linear.py (linear, bilinear, _trilinear)."""
from __future__ import annotations

from .core import ALL_BUT_BOOL, OP_DB, OpInfo, SampleInput, Strided, make_array

_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}


def _a(shape, dtype, rng):
    return make_array(shape, dtype, rng, -2, 3)


def _linear(dtype, rng):
    w = (4, 3)
    return [
        SampleInput(_a((2, 3), dtype, rng), _a(w, dtype, rng), _a((4,), dtype, rng)),
        SampleInput(_a((2, 3), dtype, rng), _a(w, dtype, rng)),
        SampleInput(_a((3,), dtype, rng), _a(w, dtype, rng), _a((4,), dtype, rng)),
        SampleInput(_a((3,), dtype, rng), _a(w, dtype, rng)),
        SampleInput(_a((5, 2, 3), dtype, rng), _a(w, dtype, rng), _a((4,), dtype, rng)),
        SampleInput(_a((5, 2, 3), dtype, rng), _a(w, dtype, rng)),
        SampleInput(_a((2, 1, 2, 3), dtype, rng), _a(w, dtype, rng), _a((4,), dtype, rng)),
        SampleInput(Strided(_a((30,), dtype, rng), (2, 5, 3), (3, 6, 1), kind="transposed "),
                    _a(w, dtype, rng), _a((4,), dtype, rng)),
        SampleInput(_a((2, 3), dtype, rng), _a((3,), dtype, rng), desc="1-d weight"),
        SampleInput(_a((2, 3), dtype, rng), _a(w, dtype, rng), _a((), dtype, rng)),
        SampleInput(_a((0, 3), dtype, rng), _a(w, dtype, rng), _a((4,), dtype, rng)),
        SampleInput(_a((5, 2, 3), dtype, rng), Strided(_a((12,), dtype, rng), w, (1, 4),
                                                       kind="transposed "),
                    _a((2, 4), dtype, rng), desc="2-d bias"),
        SampleInput(_a((5, 2, 3), dtype, rng), _a(w, dtype, rng), _a((), dtype, rng)),
    ]


def _bilinear(dtype, rng):
    w = _a((4, 3, 2), dtype, rng)
    return [
        SampleInput(_a((5, 3), dtype, rng), _a((5, 2), dtype, rng), w, _a((4,), dtype, rng)),
        SampleInput(_a((5, 3), dtype, rng), _a((5, 2), dtype, rng), w),
        SampleInput(_a((2, 3, 3), dtype, rng), _a((2, 3, 2), dtype, rng), w,
                    _a((4,), dtype, rng)),
        SampleInput(_a((3,), dtype, rng), _a((2,), dtype, rng), w, desc="unbatched"),
        SampleInput(_a((0, 3), dtype, rng), _a((0, 2), dtype, rng), w),
    ]


def _trilinear(dtype, rng):
    return [
        SampleInput(_a((5, 3), dtype, rng), _a((4, 3, 2), dtype, rng), _a((5, 2), dtype, rng),
                    [1, 3], [0], [1, 2], [2, 3]),
        SampleInput(_a((2, 3), dtype, rng), _a((3, 4), dtype, rng), _a((2, 4), dtype, rng),
                    [2], [0], [1], [1], desc="a matrix product times a mask"),
    ]


OP_DB += [
    OpInfo("nn.functional.linear", _linear, ALL_BUT_BOOL, supports_out=False, tol=_TOL,
           gradgrad_samples=2),
    OpInfo("nn.functional.bilinear", _bilinear, ALL_BUT_BOOL, supports_out=False, tol=_TOL,
           gradgrad_samples=2, supports_complex_autograd=False),
    OpInfo("_trilinear", _trilinear, ALL_BUT_BOOL, supports_out=False, method=False,
           inplace=False, tol=_TOL, gradgrad_samples=2, supports_complex_autograd=False),
]
