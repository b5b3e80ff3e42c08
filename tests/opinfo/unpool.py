"""OpInfo entries for dyngrad/ops/unpool.py: max_unpool1d/2d/3d.

Indices are what a max pool could return: one position inside each window (kernel, stride,
padding), clipped to the input. Samples cover default and explicit output sizes (with and
without the (N, C) prefix), unbatched and channels_last inputs, repeated indices (overlapping
windows) and invalid calls: out-of-range indices, int32 indices, mismatched shapes, bad
output_size lengths and ranges, zero strides.
"""
from __future__ import annotations

import numpy as np

from .core import FLOATS, OP_DB, OpInfo, SampleInput, Strided, make_array


def _indices(rng, shape, k, s, p, size):
    """Flat plane indices of shape ``shape`` (.., o_1, .., o_n) for windows of the spatial
    ``size``: per dim o * s - p + a random offset in [0, k), clipped."""
    n = len(size)
    lead, out = tuple(shape[:-n]), tuple(shape[-n:])
    flat = np.zeros(shape, np.int64)
    for d in range(n):
        o = np.arange(out[d]).reshape([-1 if e == d else 1 for e in range(n)])
        pos = np.clip(o * s[d] - p[d] + rng.integers(0, k[d], size=lead + out), 0, size[d] - 1)
        flat = flat * size[d] + pos
    return flat


def _gen(n, build):
    def gen(dtype, rng):
        def pair(shape, k, s=None, p=0, size=None):
            k3, s3, p3 = (k,) * n, ((s or k),) * n, (p,) * n
            if size is None:
                size = tuple((o - 1) * s3[i] + k3[i] - 2 * p3[i]
                             for i, o in enumerate(shape[-n:]))
            return make_array(shape, dtype, rng), _indices(rng, shape, k3, s3, p3, size)
        return build(pair)
    return gen


def _unpool1d(pair):
    x, i = pair((2, 3, 4), 2)
    xo, io = pair((3, 4), 3, 2, 1)
    xs, is_ = pair((2, 3, 4), 2, size=(9,))
    return [SampleInput(x, i, 2), SampleInput(xo, io, 3, 2, 1),
            SampleInput(xs, is_, 2, output_size=(9,)), SampleInput(xs, is_, 2, 2, 0, (2, 3, 9)),
            # invalid
            SampleInput(xs, is_, 2), SampleInput(x, i, 2, output_size=(12,)),
            SampleInput(x, i, 2, output_size=(2, 8)), SampleInput(x[0, 0], i[0, 0], 2)]


def _unpool2d(pair):
    x, i = pair((2, 3, 2, 3), 2)
    xo, io = pair((3, 3, 4), 3, 2, 1)
    xs, is_ = pair((2, 3, 2, 3), 2, size=(5, 7))
    cl = Strided(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), x.shape, (18, 1, 9, 3),
                 kind="channels_last ")
    return [SampleInput(x, i, 2), SampleInput(xo, io, 3, 2, 1),
            SampleInput(xs, is_, 2, output_size=(5, 7)),
            SampleInput(xs, is_, (2, 2), None, 0, [2, 3, 5, 7]),
            SampleInput(cl, i, 2), SampleInput(x[:0], i[:0], 2),
            # invalid
            SampleInput(xs, is_, 2), SampleInput(x, i - 1, 2),
            SampleInput(x, i.astype(np.int32), 2),
            SampleInput(x, i[:1], 2), SampleInput(x[0, 0], i[0, 0], 2),
            SampleInput(x, i, 2, output_size=(9, 6)), SampleInput(x, i, 2, output_size=(4,)),
            SampleInput(x[:, :0], i[:, :0], 2), SampleInput(x, i, 2, 1, 2)]


def _unpool3d(pair):
    x, i = pair((2, 2, 2, 2, 3), 2)
    xo, io = pair((2, 2, 3, 3), 3, 2, 1)
    xs, is_ = pair((2, 2, 2, 2, 3), 2, size=(5, 4, 7))
    return [SampleInput(x, i, 2), SampleInput(xo, io, 3, 2, 1),
            SampleInput(xs, is_, 2, output_size=(5, 4, 7)),
            SampleInput(xs, is_, 2, 2, 0, (2, 2, 5, 4, 7)), SampleInput(x[:0], i[:0], 2),
            # invalid
            SampleInput(xs, is_, 2), SampleInput(x, i + 1000, 2),
            SampleInput(x, i.astype(np.int32), 2), SampleInput(x, i[:1], 2),
            SampleInput(x[0, 0], i[0, 0], 2), SampleInput(x, i, 2, 0),
            SampleInput(x, i, (2, 2)), SampleInput(x, i, 2, output_size=(9, 4, 6)),
            SampleInput(x[:, :0], i[:, :0], 2)]


GRAD = dict(supports_out=False, gradgrad_samples=2)

OP_DB += [
    OpInfo("nn.functional.max_unpool1d", _gen(1, _unpool1d), FLOATS, **GRAD),
    OpInfo("nn.functional.max_unpool2d", _gen(2, _unpool2d), FLOATS, **GRAD),
    OpInfo("nn.functional.max_unpool3d", _gen(3, _unpool3d), FLOATS, **GRAD),
]
