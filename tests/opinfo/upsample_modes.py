"""OpInfo entries for dyngrad/ops/upsample_modes.py: F.interpolate's 'nearest' on 5-d inputs,
'nearest-exact', 'trilinear', 'bicubic', 'area' and antialiasing ('bilinear', 'bicubic',
'lanczos').

Samples: size and scale_factor (integer, fractional, per dim, recomputed), up- and
downsampling, align_corners, a channels_last input, and invalid calls whose errors must be
torch's. tests/test_interpolate_modes.py goes further (gradient layouts, uint8, quirks).
"""
from __future__ import annotations

from .core import FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array


def _gen(build):
    def gen(dtype, rng):
        return build(lambda shape: make_array(shape, dtype, rng), dtype, rng)
    return gen


def _channels_last(dtype, rng):
    return Strided(make_array((120,), dtype, rng), (2, 3, 5, 4), (60, 1, 12, 3),
                   kind="channels_last ")


def _channels_last_3d(dtype, rng):
    return Strided(make_array((360,), dtype, rng), (2, 3, 5, 4, 3), (180, 1, 36, 9, 3),
                   kind="channels_last_3d ")


def _nearest_3d(x, dtype, rng):
    return [SampleInput(x((2, 3, 4, 3, 5)), scale_factor=2),
            SampleInput(x((2, 3, 4, 3, 5)), size=(5, 2, 7)),
            SampleInput(x((2, 3, 4, 3, 5)), scale_factor=(1.5, 0.5, 1.3)),
            SampleInput(x((2, 3, 4, 3, 5)), scale_factor=1.7, recompute_scale_factor=True),
            SampleInput(_channels_last_3d(dtype, rng), size=4),
            SampleInput(x((2, 3, 4, 3, 5)), size=(0, 2, 2)),
            SampleInput(x((2, 3, 4, 3, 5)), size=2, align_corners=False)]


def _nearest_exact(x, dtype, rng):
    out = [SampleInput(x(shape), scale_factor=s, mode="nearest-exact")
           for shape in ((2, 3, 7), (2, 3, 6, 7), (1, 2, 4, 3, 5)) for s in (1.7, 0.6)]
    return out + [SampleInput(_channels_last(dtype, rng), size=(3, 7), mode="nearest-exact"),
                  SampleInput(x((2, 3, 6, 7)), size=(9, 2), mode="nearest-exact"),
                  SampleInput(x((2, 3, 7)), size=0, mode="nearest-exact")]


def _trilinear(x, dtype, rng):
    return [SampleInput(x((2, 3, 4, 3, 5)), scale_factor=2, mode="trilinear"),
            SampleInput(x((2, 3, 4, 3, 5)), size=(3, 5, 2), mode="trilinear",
                        align_corners=True),
            SampleInput(x((2, 3, 4, 3, 5)), scale_factor=(1.3, 0.6, 2.2), mode="trilinear"),
            SampleInput(_channels_last_3d(dtype, rng), size=(6, 2, 4), mode="trilinear"),
            SampleInput(x((2, 3, 4, 3)), size=3, mode="trilinear")]


def _bicubic(x, dtype, rng):
    return [SampleInput(x((2, 3, 6, 7)), scale_factor=2, mode="bicubic"),
            SampleInput(x((2, 3, 6, 7)), size=(4, 9), mode="bicubic", align_corners=True),
            SampleInput(x((2, 3, 6, 7)), scale_factor=(0.6, 1.3), mode="bicubic"),
            SampleInput(x((2, 3, 6, 7)), size=(1, 2), mode="bicubic", align_corners=True),
            SampleInput(_channels_last(dtype, rng), size=(8, 3), mode="bicubic"),
            SampleInput(x((2, 3, 7)), size=4, mode="bicubic")]


def _area(x, dtype, rng):
    return [SampleInput(x((2, 3, 7)), size=3, mode="area"),
            SampleInput(x((2, 3, 6, 7)), scale_factor=0.5, mode="area"),
            SampleInput(x((2, 3, 6, 7)), size=(4, 9), mode="area"),
            SampleInput(x((1, 2, 4, 3, 5)), scale_factor=(0.6, 1.5, 0.5), mode="area"),
            SampleInput(_channels_last(dtype, rng), size=(2, 3), mode="area"),
            SampleInput(x((2, 3, 6, 7)), size=3, mode="area", align_corners=True)]


def _antialias(x, dtype, rng):
    out = [SampleInput(x((2, 3, 9, 8)), size=s, mode=m, antialias=True, align_corners=ac)
           for m in ("bilinear", "bicubic") for s in ((4, 3), (13, 5)) for ac in (False, True)]
    return out + [SampleInput(x((2, 3, 9, 8)), scale_factor=(0.45, 0.6), mode="lanczos",
                              antialias=True),
                  SampleInput(_channels_last(dtype, rng), size=(2, 3), mode="bicubic",
                              antialias=True),
                  SampleInput(x((2, 3, 4, 3, 5)), size=2, mode="bilinear", antialias=True)]


GRAD = dict(supports_out=False, gradgrad_samples=2)

OP_DB += [
    OpInfo("nn.functional.interpolate", _gen(_nearest_3d), FLOATS + ("uint8",),
           variant="nearest3d", **GRAD),
    OpInfo("nn.functional.interpolate", _gen(_nearest_exact), FLOATS + ("uint8",),
           variant="nearest_exact", **GRAD),
    OpInfo("nn.functional.interpolate", _gen(_trilinear), FLOATS, variant="trilinear", **GRAD),
    OpInfo("nn.functional.interpolate", _gen(_bicubic), FLOATS + ("uint8",), variant="bicubic",
           **GRAD),
    OpInfo("nn.functional.interpolate", _gen(_area), FLOATS, variant="area", **GRAD),
    OpInfo("nn.functional.interpolate", _gen(_antialias), ("float32", "float64", "uint8"),
           variant="antialias", **GRAD),
]
