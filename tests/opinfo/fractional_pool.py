"""OpInfo entries for dyngrad/ops/fractional_pool.py: fractional_max_pool2d/3d.

Every sample passes ``_random_samples`` (in [0, 1), in the input's dtype) so the windows are
fixed; tests/nn/test_fractional_pool.py compares the samples torch draws itself after
``manual_seed``. Samples: output_size and output_ratio, kernels of 1 to 3, outputs of one
window, ties and NaN / -inf windows, unbatched and channels_last inputs, more samples than the
batch, an empty batch, and invalid calls (bad kernel / output lengths, windows too large,
sample shapes and dtypes, empty planes, 2-d inputs).
"""
from __future__ import annotations

import numpy as np

from .core import FLOATS, OP_DB, Gen, OpInfo, SampleInput, Strided, make_array


class Seeded(Gen):
    """``_random_samples=Seeded(s)``: seeds the library's global generator while the sample is
    materialised and stands for None, so the op draws its samples with ``rand`` as torch does
    (this is how the gradient tests reach the op: torch refuses ``_random_samples`` that
    require grad). A Gen subclass only so that core.materialise calls ``to``."""

    def to(self, lib):
        lib.manual_seed(self.seed)
        return None

    def __repr__(self) -> str:
        return f"Seeded({self.seed})"


def _u(rng, shape, dtype):
    if dtype == "bool" or np.dtype(dtype).kind != "f":
        return make_array(shape, dtype, rng)
    return make_array(shape, dtype, rng, low=0.0, high=1.0)


def _special(x):
    x = x.copy()
    if x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[::5] = np.nan
        flat[1::7] = -np.inf
        flat[2::4] = flat[3::4][:flat[2::4].size] if flat[3::4].size >= flat[2::4].size else 1
    return x


def _pool2d(dtype, rng):
    x = make_array((2, 3, 9, 8), dtype, rng)
    u = _u(rng, (2, 3, 2), dtype)
    ties = np.round(x) if x.dtype.kind == "f" else x
    cl = Strided(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), x.shape, (216, 1, 24, 3),
                 kind="channels_last ")
    return [SampleInput(x, 2, output_size=(4, 5), _random_samples=Seeded(1)),
            SampleInput(ties, 3, output_ratio=(0.4, 0.5), _random_samples=Seeded(2)),
            SampleInput(x[0], (2, 3), output_size=3, _random_samples=Seeded(3)),
            SampleInput(x, 2, output_size=(4, 5), _random_samples=u),
            SampleInput(x, (3, 2), output_size=4, _random_samples=u, return_indices=True),
            SampleInput(x, 2, output_ratio=(0.5, 0.7), _random_samples=u),
            SampleInput(ties, 3, output_size=(7, 1), _random_samples=u),
            SampleInput(_special(x), 2, output_size=(8, 7), _random_samples=u),
            SampleInput(x, 1, output_size=(9, 8), _random_samples=u),
            SampleInput(x[0], 2, output_size=(5, 3), _random_samples=u[:1]),
            SampleInput(x[:1], 2, output_size=(3, 3), _random_samples=_u(rng, (3, 3, 2), dtype)),
            SampleInput(cl, 2, output_size=(4, 4), _random_samples=u),
            SampleInput(x, 2, output_size=(0, 3), _random_samples=u),
            SampleInput(x[:0], 2, output_size=(3, 3), _random_samples=u[:0]),
            # invalid
            SampleInput(x, 2, output_size=(9, 3), _random_samples=u),
            SampleInput(x, (2, 2, 2), output_size=(3, 3), _random_samples=u),
            SampleInput(x, 2, output_size=(3, 3, 3), _random_samples=u),
            SampleInput(x, 2, output_size=(-1, 3), _random_samples=u),
            SampleInput(x, 2, output_size=(3, 3), _random_samples=u[:1]),
            SampleInput(x, 2, output_size=(3, 3), _random_samples=u[:, :2]),
            SampleInput(x, 2, output_size=(3, 3), _random_samples=u[..., :1]),
            SampleInput(x, 2, output_size=(3, 3), _random_samples=u[0]),
            SampleInput(x, 2, output_size=(3, 3), _random_samples=u.astype(np.float64)
                        if dtype != "float64" else u.astype(np.float32)),
            SampleInput(x[:, :, :0], 2, output_size=(3, 3), _random_samples=u),
            SampleInput(x[0, 0], 2, output_size=(3, 3), _random_samples=u),
            SampleInput(x, 2, _random_samples=u)]


def _pool3d(dtype, rng):
    x = make_array((2, 2, 7, 6, 8), dtype, rng)
    u = _u(rng, (2, 2, 3), dtype)
    ties = np.round(x) if x.dtype.kind == "f" else x
    return [SampleInput(x, 2, output_size=(3, 4, 5), _random_samples=Seeded(4)),
            SampleInput(ties, (1, 2, 3), output_ratio=0.5, _random_samples=Seeded(5)),
            SampleInput(x[1], 2, output_size=(2, 3, 4), _random_samples=Seeded(6)),
            SampleInput(x, 2, output_size=(3, 4, 5), _random_samples=u),
            SampleInput(x, (3, 2, 1), output_size=3, _random_samples=u, return_indices=True),
            SampleInput(x, 2, output_ratio=0.5, _random_samples=u),
            SampleInput(ties, 3, output_size=(4, 1, 2), _random_samples=u),
            SampleInput(_special(x), 2, output_size=(6, 5, 7), _random_samples=u),
            SampleInput(x[0], 2, output_size=(2, 3, 4), _random_samples=u[:1]),
            SampleInput(x[:0], 2, output_size=(2, 2, 2), _random_samples=u[:0]),
            # invalid
            SampleInput(x, 2, output_size=(3, 6, 3), _random_samples=u),
            SampleInput(x, (2, 2), output_size=(3, 3, 3), _random_samples=u),
            SampleInput(x, 2, output_size=(3, 3), _random_samples=u),
            SampleInput(x, 2, output_size=3, _random_samples=u[..., :2]),
            SampleInput(x, 2, output_size=3, _random_samples=u[:1]),
            SampleInput(x, 2, output_size=3, _random_samples=u[:, :1]),
            SampleInput(x, 2, output_size=3, _random_samples=u.astype(np.float64)
                        if dtype != "float64" else u.astype(np.float32)),
            SampleInput(x[:, :0], 2, output_size=3, _random_samples=u[:, :0]),
            SampleInput(x[0, 0], 2, output_size=3, _random_samples=u)]


FRAC = dict(supports_out=False, method=False, inplace=False, gradgrad_samples=3)

OP_DB += [
    OpInfo("nn.functional.fractional_max_pool2d", _pool2d, FLOATS, **FRAC),
    OpInfo("nn.functional.fractional_max_pool3d", _pool3d, FLOATS, **FRAC),
]
