"""OpInfo entries for dyngrad/ops/upsample.py: F.interpolate (nearest, linear, bilinear),
F.pixel_shuffle and F.pixel_unshuffle.

Samples: size and scale_factor (integer and fractional), align_corners, downsampling, a
channels_last input, special values, and invalid calls whose errors must be torch's.
"""
from __future__ import annotations

import numpy as np

from .core import ALL_DTYPES, FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array


def _gen(build):
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), dtype, rng)
    return gen


def _channels_last(dtype, rng):
    return Strided(make_array((252,), dtype, rng), (2, 3, 6, 7), (126, 1, 21, 3),
                   kind="channels_last ")


def _nearest(x, dtype, rng):
    return [SampleInput(x((2, 3, 6, 7)), scale_factor=2),
            SampleInput(x((2, 3, 6, 7)), size=(5, 9)),
            SampleInput(x((2, 3, 6, 7)), scale_factor=(1.5, 0.5)),
            SampleInput(x((2, 3, 6, 7)), scale_factor=1.7, recompute_scale_factor=True),
            SampleInput(_channels_last(dtype, rng), size=4),
            SampleInput(x((2, 3, 7)), scale_factor=2.5), SampleInput(x((2, 3, 7)), size=4),
            SampleInput(x((2, 3, 6, 7)), size=3, scale_factor=2),
            SampleInput(x((2, 3, 6, 7))), SampleInput(x((2, 3, 6, 7)), size=(1, 2, 3)),
            SampleInput(x((2, 3, 6, 7)), scale_factor=2, align_corners=True),
            SampleInput(x((2, 3, 6, 7)), size=(0, 2)), SampleInput(x((2, 3, 6, 7)), 2,
                                                                   mode="foo")]


def _bilinear(x, dtype, rng):
    out = [SampleInput(x((2, 3, 6, 7)), scale_factor=2, mode="bilinear"),
           SampleInput(x((2, 3, 6, 7)), size=(4, 5), mode="bilinear", align_corners=True),
           SampleInput(x((2, 3, 6, 7)), size=(9, 11), mode="bilinear"),
           SampleInput(x((2, 3, 6, 7)), scale_factor=(0.6, 1.3), mode="bilinear"),
           SampleInput(x((2, 3, 6, 7)), size=(1, 3), mode="bilinear", align_corners=True),
           SampleInput(_channels_last(dtype, rng), size=(8, 3), mode="bilinear"),
           SampleInput(x((2, 3, 7)), 4, mode="bilinear")]
    if dtype in FLOATS:
        sv = np.array([[np.nan, 1, 2], [3, np.inf, 4], [5, 6, 7]], dtype=dtype)[None, None]
        out.append(SampleInput(sv, size=(5, 5), mode="bilinear", desc="special values"))
    return out


def _linear(x, dtype, rng):
    return [SampleInput(x((2, 3, 7)), scale_factor=2, mode="linear"),
            SampleInput(x((2, 3, 7)), size=4, mode="linear", align_corners=True),
            SampleInput(x((2, 3, 7)), scale_factor=1.3, mode="linear"),
            SampleInput(x((2, 3, 6, 7)), 4, mode="linear")]


def _pixel_shuffle(x, dtype, rng):
    return [SampleInput(x((2, 12, 3, 4)), 2), SampleInput(x((9, 2, 3)), 3),
            SampleInput(x((2, 2, 12, 2, 2)), 2), SampleInput(x((2, 3, 3, 4)), 1),
            SampleInput(Strided(make_array((144,), dtype, rng), (2, 12, 2, 3), (72, 1, 36, 12)),
                        2),
            SampleInput(x((2, 5, 3, 3)), 2), SampleInput(x((4, 3)), 2),
            SampleInput(x((2, 4, 3, 3)), 0)]


def _pixel_unshuffle(x, dtype, rng):
    return [SampleInput(x((2, 3, 6, 4)), 2), SampleInput(x((2, 6, 3)), 3),
            SampleInput(x((2, 2, 3, 4, 2)), 2), SampleInput(x((1, 3, 6, 6)), 3),
            SampleInput(_channels_last(dtype, rng), 1),
            SampleInput(x((2, 3, 5, 4)), 2), SampleInput(x((2, 3, 4, 5)), 2),
            SampleInput(x((4, 3)), 2), SampleInput(x((2, 4, 3, 3)), 0)]


GRAD = dict(supports_out=False, gradgrad_samples=2)

OP_DB += [
    OpInfo("nn.functional.interpolate", _gen(_nearest), FLOATS + ("uint8",), variant="nearest",
           **GRAD),
    OpInfo("nn.functional.interpolate", _gen(_bilinear), FLOATS + ("uint8",),
           variant="bilinear", tol={"uint8": (0, 1)}, **GRAD),
    OpInfo("nn.functional.interpolate", _gen(_linear), FLOATS, variant="linear", **GRAD),
    OpInfo("nn.functional.pixel_shuffle", _gen(_pixel_shuffle), ALL_DTYPES, **GRAD),
    OpInfo("nn.functional.pixel_unshuffle", _gen(_pixel_unshuffle), ALL_DTYPES, **GRAD),
]
