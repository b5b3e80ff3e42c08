"""OpInfo entries for dyngrad/ops/conv.py (convolution, conv*d, conv_transpose*d, nn.grad)."""
from __future__ import annotations

import numpy as np

import dyngrad.nn.grad  # noqa: F401  (publishes dyngrad.nn.grad)

from .core import COMPLEX, FLOATS, INTS, OP_DB, OpInfo, SampleInput, Strided, make_array

CONV_DTYPES = INTS + FLOATS + COMPLEX
TRANSPOSE_DTYPES = ("int64",) + FLOATS + COMPLEX
_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-4), "float64": (1e-7, 1e-7),
        "complex64": (1e-4, 1e-4)}


def _a(shape, dtype, rng):
    return make_array(shape, dtype, rng, -2, 3)


def _channels_last(shape, dtype, rng):
    n, c, h, w = shape
    return Strided(_a((n * c * h * w,), dtype, rng), shape, (h * w * c, 1, w * c, c),
                   kind="channels_last ")


def _transposed_weight(shape, dtype, rng):
    """A weight whose first two dims are swapped views of a contiguous tensor."""
    a, b = shape[:2]
    rest = int(np.prod(shape[2:]))
    strides = [rest, a * rest]
    acc = 1
    tail = []
    for n in reversed(shape[2:]):
        tail.insert(0, acc)
        acc *= n
    return Strided(_a((a * b * rest,), dtype, rng), shape, strides + tail, kind="transposed ")


def _conv_samples(nd):
    def gen(dtype, rng):
        sp = {1: (7,), 2: (5, 6), 3: (3, 4, 3)}[nd]
        k = {1: (3,), 2: (3, 2), 3: (2, 2, 2)}[nd]
        x = (2, 3) + sp
        out = [
            SampleInput(_a(x, dtype, rng), _a((4, 3) + k, dtype, rng), _a((4,), dtype, rng)),
            SampleInput(_a(x, dtype, rng), _a((4, 3) + k, dtype, rng), stride=2, padding=1),
            SampleInput(_a(x, dtype, rng), _a((6, 1) + k, dtype, rng), _a((6,), dtype, rng),
                        groups=3, dilation=(2,) * (nd - 1) + (1,), padding=(1,) * nd),
            SampleInput(_a(x, dtype, rng), _a((4, 3) + k, dtype, rng), padding="same"),
            SampleInput(_a(x, dtype, rng), _a((4, 3) + k, dtype, rng), padding="valid",
                        stride=(1,) * (nd - 1) + (2,)),
            SampleInput(_a((3,) + sp, dtype, rng), _a((2, 3) + k, dtype, rng),
                        desc="unbatched"),
            SampleInput(_a((0, 3) + sp, dtype, rng), _a((2, 3) + k, dtype, rng),
                        desc="empty batch"),
            SampleInput(_a(x, dtype, rng), _transposed_weight((4, 3) + k, dtype, rng)),
        ]
        if nd == 2:
            out.append(SampleInput(_channels_last(x, dtype, rng), _a((4, 3) + k, dtype, rng),
                                   _a((4,), dtype, rng), padding=(0, 1)))
        return out
    return gen


def _conv_transpose_samples(nd):
    def gen(dtype, rng):
        sp = {1: (5,), 2: (4, 3), 3: (2, 3, 2)}[nd]
        k = {1: (3,), 2: (3, 2), 3: (2, 2, 2)}[nd]
        x = (2, 3) + sp
        out = [
            SampleInput(_a(x, dtype, rng), _a((3, 2) + k, dtype, rng), _a((2,), dtype, rng)),
            SampleInput(_a(x, dtype, rng), _a((3, 2) + k, dtype, rng), stride=2, padding=1,
                        output_padding=1),
            SampleInput(_a(x, dtype, rng), _a((3, 1) + k, dtype, rng), _a((3,), dtype, rng),
                        groups=3, dilation=2, output_padding=(1,) * nd, stride=(2,) * nd),
            SampleInput(_a((3,) + sp, dtype, rng), _a((3, 2) + k, dtype, rng),
                        desc="unbatched"),
        ]
        if nd == 2:
            out.append(SampleInput(_channels_last(x, dtype, rng), _a((3, 2) + k, dtype, rng)))
        return out
    return gen


def _convolution(dtype, rng):
    return [
        SampleInput(_a((2, 3, 5, 6), dtype, rng), _a((4, 3, 3, 3), dtype, rng),
                    _a((4,), dtype, rng), [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
        SampleInput(_a((2, 3, 4, 3), dtype, rng), _a((3, 2, 2, 2), dtype, rng), None,
                    [2, 2], [0, 1], [1, 1], True, [1, 0], 1),
    ]


def _grad_input(dtype, rng):
    return [SampleInput((2, 3, 5, 6), _a((4, 3, 3, 2), dtype, rng), _a((2, 4, 2, 4), dtype, rng),
                        stride=2, padding=(0, 1)),
            SampleInput((2, 6, 5, 6), _a((4, 3, 3, 2), dtype, rng), _a((2, 4, 3, 5), dtype, rng),
                        groups=2)]


def _grad_weight(dtype, rng):
    return [SampleInput(_a((2, 3, 5, 6), dtype, rng), (4, 3, 3, 2), _a((2, 4, 2, 4), dtype, rng),
                        stride=2, padding=(0, 1)),
            SampleInput(_a((2, 6, 5, 6), dtype, rng), (4, 3, 3, 2), _a((2, 4, 3, 5), dtype, rng),
                        groups=2)]


OP_DB += [
    OpInfo(f"nn.functional.conv{nd}d", _conv_samples(nd), CONV_DTYPES, supports_out=False,
           tol=_TOL, gradgrad_samples=2)
    for nd in (1, 2, 3)
] + [
    OpInfo(f"nn.functional.conv_transpose{nd}d", _conv_transpose_samples(nd), TRANSPOSE_DTYPES,
           supports_out=False, tol=_TOL, gradgrad_samples=2)
    for nd in (1, 2, 3)
] + [
    OpInfo("convolution", _convolution, INTS + FLOATS, supports_out=False, method=False,
           inplace=False, tol=_TOL, gradgrad_samples=2),
    # torch saves an uninitialised ``empty(...).expand(...)`` placeholder for the input (or
    # weight) these functions do not need, so graph parity cannot compare saved values: their
    # gradients are checked in tests/test_conv.py instead.
    OpInfo("nn.grad.conv2d_input", _grad_input, FLOATS, supports_out=False, tol=_TOL,
           supports_autograd=False),
    OpInfo("nn.grad.conv2d_weight", _grad_weight, FLOATS, supports_out=False, tol=_TOL,
           supports_autograd=False),
]
