"""OpInfo entry for dyngrad/ops/native_dropout.py: torch.native_dropout.

The op database calls an op several times without reseeding, so the entry has
``check_values=False`` (dtypes, shapes and strides of the output and the bool mask are still
compared) and no gradient tests; tests/test_native_dropout.py compares seeded values, masks and
gradients. Samples: train True / None / False, p = 0 and 1, 0-dim, empty, channels_last and
sliced inputs, and p outside [0, 1].
"""
from __future__ import annotations

import numpy as np

from .core import COMPLEX, FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array


def _samples(dtype, rng):
    x = make_array((3, 4), dtype, rng)
    img = make_array((2, 3, 4, 5), dtype, rng)
    cl = Strided(np.ascontiguousarray(img.transpose(0, 2, 3, 1)), img.shape, (60, 1, 15, 3),
                 kind="channels_last ")
    sliced = Strided(make_array((4, 6), dtype, rng), (4, 3), (6, 2))
    return [SampleInput(x, 0.3, True), SampleInput(x, 0.5, None), SampleInput(x, 0.3, False),
            SampleInput(x, 0.0, True), SampleInput(x, 1.0, True),
            SampleInput(make_array((), dtype, rng), 0.2, True),
            SampleInput(x[:0], 0.3, True), SampleInput(cl, 0.4, True),
            SampleInput(sliced, 0.4, True), SampleInput(sliced, 0.4, False),
            # invalid
            SampleInput(x, 1.5, True), SampleInput(x, -0.1, True)]


OP_DB += [
    OpInfo("native_dropout", _samples, FLOATS + COMPLEX, supports_out=False, method=False,
           inplace=False, check_values=False, supports_autograd=False),
]
