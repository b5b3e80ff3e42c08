"""OpInfo entries for dyngrad/ops/padding.py: F.pad (one entry per mode), constant_pad_nd,
F.one_hot, F.unfold (im2col) and F.fold (col2im).

Padding samples cover each number of padded dims with and without a batch dim, negative
(cropping) amounts, non-contiguous and channels_last inputs, and the invalid calls whose errors
must be torch's (too much padding, too small outputs, unsupported ranks).
"""
from __future__ import annotations

import numpy as np

from .core import (ALL_DTYPES, BOOL, COMPLEX, FLOATS, INTS, OP_DB, OpInfo, SampleInput, Strided,
                   make_array, sliced, transposed)


def _gen(build):
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), dtype, rng)
    return gen


def _channels_last(dtype, rng):
    """A (2, 3, 3, 4) tensor laid out channels_last."""
    return Strided(make_array((72,), dtype, rng), (2, 3, 3, 4), (36, 1, 12, 3),
                   kind="channels_last ")


def _constant(x, dtype, rng):
    t = transposed((3, 4), dtype, rng)
    return [SampleInput(x((3, 4)), (1, 2)), SampleInput(t, (1, 2, 0, 1), value=-1.5),
            SampleInput(t, (-1, 0)), SampleInput(x((2, 3, 4)), (-1, -1, 1, 0)),
            SampleInput(t, (0, 0)), SampleInput(x(()), ()), SampleInput(x((0, 3)), (1, 1), value=2),
            SampleInput(_channels_last(dtype, rng), (1, 1)),
            SampleInput(x((3, 4)), (-5, 2)), SampleInput(x((3, 4)), (1,)),
            SampleInput(x((3, 4)), (1,) * 6), SampleInput(x((3, 4)), (1, 1), "bogus")]


def _reflect(x, dtype, rng):
    return _non_constant(x, dtype, rng, "reflect") + [
        SampleInput(x((3, 4)), (4, 1), "reflect"),
        SampleInput(x((2, 3, 4)), (1, 1, 1, 3), "reflect")]


def _replicate(x, dtype, rng):
    return _non_constant(x, dtype, rng, "replicate") + [
        SampleInput(x((2, 1)), (3, 3), "replicate"), SampleInput(x((3, 4)), (-5, 2), "replicate")]


def _circular(x, dtype, rng):
    return _non_constant(x, dtype, rng, "circular") + [
        SampleInput(x((3, 4)), (4, 4), "circular"), SampleInput(x((3, 4)), (5, 1), "circular"),
        SampleInput(x((3, 4)), (-5, 0), "circular")]


def _non_constant(x, dtype, rng, mode):
    t, s = transposed((3, 4), dtype, rng), sliced((3, 4), dtype, rng)
    return [SampleInput(x((3, 4)), (1, 2), mode), SampleInput(t, (2, -1), mode),
            SampleInput(x((2, 3, 4)), (1, 2, 2, 0), mode=mode),
            SampleInput(s, (-1, 1), mode), SampleInput(x((2, 3, 4)), (-1, 0, 1, 1), mode),
            SampleInput(_channels_last(dtype, rng), (1, 1, 2, 0), mode),
            SampleInput(x((2, 3, 3, 2)), (1, 1, 1, 0, 1, 1), mode),
            SampleInput(x((1, 2, 2, 3, 2)), (1, 0, 1, 1, 0, 1), mode),
            SampleInput(x((0, 2, 3)), (1, 1), mode),
            SampleInput(x((3, 4)), (1, 1), mode, 1.0), SampleInput(x((4,)), (1, 1), mode),
            SampleInput(x((3, 4)), (1, 1, 1, 1), mode), SampleInput(x((2, 0, 3)), (1, 1), mode),
            SampleInput(x((3, 4)), (-2, -2), mode)]


def _constant_pad_nd(x, dtype, rng):
    return [SampleInput(x((3, 4)), (1, 2)), SampleInput(x((3, 4)), (1, -1, 2, 0), 2),
            SampleInput(x((3, 4)), (1,)), SampleInput(x((3, 4)), (1, 1) * 3)]


def _one_hot(dtype, rng):
    def a(values):
        return np.array(values).astype(dtype)
    return [SampleInput(a([0, 2, 1])), SampleInput(a([[1, 2], [0, 0]]), 4),
            SampleInput(a(3)), SampleInput(a(np.zeros((2, 0))), 3),
            SampleInput(a([0, 2, 1]), num_classes=2), SampleInput(a(np.zeros(0))),
            SampleInput(a([0, -1])), SampleInput(a([1, 1]), 0)]


def _unfold(x, dtype, rng):
    return [SampleInput(x((2, 2, 5, 6)), 2), SampleInput(x((2, 5, 6)), (2, 3)),
            SampleInput(x((1, 2, 5, 6)), (2, 3), (1, 2), (1, 0), (2, 1)),
            SampleInput(x((1, 2, 4, 4)), 3, padding=1, stride=2),
            SampleInput(_channels_last(dtype, rng), 2, 1, 1, 2), SampleInput(x((0, 2, 3, 3)), 2),
            SampleInput(x((1, 2, 5, 6)), 7), SampleInput(x((1, 2, 5, 6)), 0),
            SampleInput(x((1, 2, 5, 6)), 2, stride=0), SampleInput(x((1, 2, 5, 6)), 2, padding=-1),
            SampleInput(x((5, 6)), 2), SampleInput(x((1, 0, 5, 6)), 2),
            SampleInput(x((1, 2, 5, 6)), (2, 3, 4))]


def _fold(x, dtype, rng):
    return [SampleInput(x((2, 8, 12)), (4, 5), 2), SampleInput(x((8, 12)), (4, 5), (2, 2)),
            SampleInput(x((1, 12, 6)), (4, 5), (2, 3), (1, 2), (1, 0), (2, 1)),
            SampleInput(x((1, 8, 4)), (4, 4), 3, padding=1, stride=2),
            SampleInput(x((0, 4, 6)), (3, 4), 2),
            SampleInput(x((1, 8, 11)), (4, 5), 2), SampleInput(x((1, 7, 12)), (4, 5), 2),
            SampleInput(x((1, 8, 12, 1)), (4, 5), 2), SampleInput(x((1, 8, 12)), (4, 5), 0),
            SampleInput(x((1, 8, 12)), (4, 5), 2, stride=0), SampleInput(x((1, 0, 12)), (4, 5), 2),
            SampleInput(x((1, 8, 12)), (4, 5, 6), 2)]


PAD_DTYPES = INTS + FLOATS + COMPLEX
PATCH_DTYPES = BOOL + FLOATS + COMPLEX

OP_DB += [
    OpInfo("nn.functional.pad", _gen(_constant), ALL_DTYPES, variant="constant",
           supports_out=False),
    OpInfo("nn.functional.pad", _gen(_reflect), PAD_DTYPES, variant="reflect",
           supports_out=False, gradgrad_samples=3),
    OpInfo("nn.functional.pad", _gen(_replicate), PAD_DTYPES, variant="replicate",
           supports_out=False, gradgrad_samples=3),
    OpInfo("nn.functional.pad", _gen(_circular), ALL_DTYPES, variant="circular",
           supports_out=False, gradgrad_samples=3),
    OpInfo("constant_pad_nd", _gen(_constant_pad_nd), ALL_DTYPES, supports_out=False),
    OpInfo("nn.functional.one_hot", _one_hot, ("int64",), supports_out=False),
    OpInfo("nn.functional.unfold", _gen(_unfold), PATCH_DTYPES, supports_out=False,
           gradgrad_samples=3),
    OpInfo("nn.functional.fold", _gen(_fold), PATCH_DTYPES, supports_out=False,
           gradgrad_samples=3),
]
