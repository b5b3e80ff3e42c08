"""OpInfo entries for dyngrad/ops/grid_sample.py and affine_grid.py: F.grid_sample (4-d input in
each mode, 5-d input) and F.affine_grid (4-d and 5-d sizes).

Samples: every padding mode with and without align_corners, grids reaching past the borders,
grid points exactly on pixel centres and borders, far outside, a channels_last input, a
transposed grid, empty batches and grids, and invalid calls whose errors must be torch's.
"""
from __future__ import annotations

import numpy as np

from .core import FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array

PADDINGS = ("zeros", "border", "reflection")


def _grid(shape, dtype, rng, reach=1.3):
    if dtype not in FLOATS:    # (unsupported dtypes: torch's error is what is compared)
        return make_array(shape, dtype, rng)
    return make_array(shape, dtype, rng, -reach, reach)


def _edges(h, w, dtype, align_corners):
    """A (1, 4, 4, 2) grid of points exactly on pixel centres, the image's borders, and past
    them (far away too)."""
    def centres(n):
        if align_corners:
            return [-1.0, 1.0, -1.0 + 2.0 / (n - 1), 0.0]
        return [-1.0 + 1.0 / n, 1.0 - 1.0 / n, -1.0, 1.0]
    xs = centres(w) + [1.5, -3.0, 7.25, -1e3]
    ys = centres(h) + [-1.25, 2.0, -7.0, 1e3]
    g = np.array([[xs[i], ys[(i * 3) % 8]] for i in range(8)] * 2)
    return g.reshape(1, 4, 4, 2).astype(dtype) if dtype in FLOATS else \
        np.ones((1, 4, 4, 2), dtype)


def _grid_sample_2d(mode):
    def gen(dtype, rng):
        def x(shape):
            return make_array(shape, dtype, rng)
        out = []
        for pad in PADDINGS:
            for ac in (False, True):
                out.append(SampleInput(x((2, 3, 5, 6)), _grid((2, 4, 3, 2), dtype, rng),
                                       mode=mode, padding_mode=pad, align_corners=ac))
        for pad in PADDINGS:
            for ac in (False, True):
                out.append(SampleInput(x((1, 2, 4, 5)), _edges(4, 5, dtype, ac), mode=mode,
                                       padding_mode=pad, align_corners=ac, desc="edges"))
        out += [
            SampleInput(x((1, 1, 1, 1)), _grid((1, 2, 2, 2), dtype, rng), mode=mode,
                        padding_mode="reflection", align_corners=True, desc="1x1 input"),
            SampleInput(Strided(make_array((60,), dtype, rng), (2, 3, 2, 5), (30, 1, 15, 3),
                                kind="channels_last "), _grid((2, 3, 2, 2), dtype, rng),
                        mode=mode, align_corners=False),
            SampleInput(x((2, 2, 3, 4)),
                        Strided(_grid((40,), dtype, rng), (2, 5, 2, 2), (20, 2, 10, 1),
                                kind="transposed "), mode=mode, padding_mode="border",
                        align_corners=False),
            SampleInput(x((2, 3, 4, 5)), _grid((2, 3, 3, 2), dtype, rng, 5.0), mode=mode,
                        padding_mode="reflection", align_corners=False, desc="far"),
            SampleInput(x((0, 2, 3, 4)), _grid((0, 2, 2, 2), dtype, rng), mode=mode,
                        align_corners=False),
            SampleInput(x((2, 2, 3, 4)), _grid((2, 0, 2, 2), dtype, rng), mode=mode,
                        align_corners=True),
            SampleInput(x((2, 3, 4, 5)), _grid((2, 3, 3, 2), dtype, rng), mode=mode),
            # invalid: torch's errors
            SampleInput(x((2, 3, 4)), _grid((2, 3, 2), dtype, rng), mode=mode,
                        align_corners=False),
            SampleInput(x((2, 3, 4, 5)), _grid((2, 3, 3, 3), dtype, rng), mode=mode,
                        align_corners=False),
            SampleInput(x((2, 3, 4, 5)), _grid((2, 3, 3, 1, 2), dtype, rng), mode=mode,
                        align_corners=False),
            SampleInput(x((2, 3, 4, 5)), _grid((3, 3, 3, 2), dtype, rng), mode=mode,
                        align_corners=False),
            SampleInput(x((2, 3, 0, 5)), _grid((2, 3, 3, 2), dtype, rng), mode=mode,
                        align_corners=False),
            SampleInput(x((2, 3, 4, 5)), _grid((2, 3, 3, 2), "float64" if dtype != "float64"
                                               else "float32", rng), mode=mode,
                        align_corners=False, desc="grid of another dtype"),
            SampleInput(x((2, 3, 4, 5)), _grid((2, 3, 3, 2), dtype, rng), mode="linear",
                        align_corners=False),
            SampleInput(x((2, 3, 4, 5)), _grid((2, 3, 3, 2), dtype, rng), mode=mode,
                        padding_mode="zero", align_corners=False),
            SampleInput(x((2, 3, 4, 5)), [[0.5, 0.5]], mode=mode, align_corners=False),
        ]
        return out
    return gen


def _grid_sample_3d(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    out = []
    for mode in ("bilinear", "nearest"):
        for pad in PADDINGS:
            for ac in (False, True):
                out.append(SampleInput(x((2, 2, 3, 4, 5)), _grid((2, 2, 3, 2, 3), dtype, rng),
                                       mode=mode, padding_mode=pad, align_corners=ac))
    edges = np.array([[-1, -1, -1], [1, 1, 1], [0, 1, -1], [1.5, -2, 9], [-1e3, 0.25, 0.5],
                      [1 / 3, -0.5, 2 / 3]]).reshape(1, 1, 2, 3, 3)
    edges = edges.astype(dtype) if dtype in FLOATS else np.ones(edges.shape, dtype)
    out += [
        SampleInput(x((1, 2, 3, 3, 4)), edges, padding_mode=pad, align_corners=ac,
                    desc="edges") for pad in PADDINGS for ac in (False, True)]
    out += [
        SampleInput(x((1, 1, 2, 3, 4)), _grid((1, 2, 2, 2, 3), dtype, rng, 4.0),
                    padding_mode="reflection", align_corners=False, desc="far"),
        # invalid: torch's errors
        SampleInput(x((1, 1, 2, 3, 4)), _grid((1, 2, 2, 2, 3), dtype, rng), mode="bicubic",
                    align_corners=False),
        SampleInput(x((1, 1, 2, 3, 4)), _grid((1, 2, 2, 3), dtype, rng), align_corners=False),
        SampleInput(x((1, 1, 2, 3, 4)), _grid((1, 2, 2, 2, 2), dtype, rng),
                    align_corners=False),
        SampleInput(x((1, 1, 2, 3, 4)), _grid((2, 2, 2, 2, 3), dtype, rng),
                    align_corners=False),
        SampleInput(x((1, 1, 2, 3, 0)), _grid((1, 2, 2, 2, 3), dtype, rng),
                    align_corners=False),
        SampleInput(x((1, 1, 1, 2, 3, 4)), _grid((1, 1, 2, 2, 2, 4), dtype, rng),
                    align_corners=False),
    ]
    return out


def _affine_grid(dtype, rng):
    def theta(n, k=2):
        return _grid((n, k, k + 1), dtype, rng, 1.5)
    out = [SampleInput(theta(2), (2, 3, 4, 5), align_corners=ac) for ac in (False, True)]
    out += [SampleInput(theta(1, 3), (1, 2, 3, 4, 5), align_corners=ac) for ac in (False, True)]
    out += [
        SampleInput(theta(2), [2, 1, 7, 6], align_corners=False),
        SampleInput(theta(3), (3, 2, 5, 5)),
        SampleInput(theta(2, 3), [2, 1, 4, 3, 2], align_corners=True),
        SampleInput(theta(1), (1, 1, 2, 2), align_corners=True),
        # unit-size grids (torch warns with align_corners=True; float16 raises)
        SampleInput(theta(2), (2, 3, 1, 5), align_corners=True),
        SampleInput(theta(2), (2, 3, 4, 1), align_corners=False),
        SampleInput(theta(1, 3), (1, 1, 1, 1, 2), align_corners=False),
        # invalid: torch's errors
        SampleInput(theta(2, 3), (2, 3, 4, 5), align_corners=False),
        SampleInput(theta(2), (2, 3, 4, 5, 6), align_corners=False),
        SampleInput(make_array((2, 2, 2), dtype, rng), (2, 3, 4, 5), align_corners=False),
        SampleInput(make_array((2, 3), dtype, rng), (2, 3, 4, 5), align_corners=False),
        SampleInput(theta(2), (2, 3, 4), align_corners=False),
        SampleInput(theta(2), (2, 3, 4, 5, 6, 7), align_corners=False),
        SampleInput(theta(2), (3, 3, 4, 5), align_corners=False),
        SampleInput(theta(2, 3), (3, 3, 4, 5, 6), align_corners=True),
        SampleInput(theta(2), (2, 3, 0, 5), align_corners=False),
        SampleInput(theta(0), (0, 3, 4, 5), align_corners=False),
        SampleInput(theta(2), (2, 3, 4, 5.0), align_corners=False),
    ]
    return out


GRAD = dict(supports_out=False, gradgrad_samples=4, tol={"float16": (1e-2, 1e-2)})

OP_DB += [
    OpInfo("nn.functional.grid_sample", _grid_sample_2d(mode), FLOATS, variant=mode, **GRAD)
    for mode in ("bilinear", "nearest", "bicubic")
] + [
    OpInfo("nn.functional.grid_sample", _grid_sample_3d, FLOATS, variant="3d", **GRAD),
    OpInfo("nn.functional.affine_grid", _affine_grid, FLOATS, **GRAD),
]
