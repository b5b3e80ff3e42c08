"""Results and gradients laid out as torch lays them out for channels_last, channels_last_3d
and permuted inputs (torch's kernels allocate in the input's suggest_memory_format).

Each case is one function of (lib, x) run on both libraries with the same input layout; the
strides of its result and of the gradients w.r.t. x (and the weight, where it has one) must
be torch's, and the values close.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

RNG = np.random.default_rng(0)
DATA4 = RNG.standard_normal((2, 4, 3, 5)).astype(np.float32)
DATA5 = RNG.standard_normal((2, 4, 2, 3, 5)).astype(np.float32)


def _input(lib, layout):
    if layout == "channels_last":
        return lib.tensor(DATA4).contiguous(memory_format=lib.channels_last)
    if layout == "channels_last_3d":
        return lib.tensor(DATA5).contiguous(memory_format=lib.channels_last_3d)
    if layout == "permuted":   # dense, neither contiguous nor channels_last
        return lib.tensor(DATA4.transpose(2, 3, 0, 1).copy()).permute(2, 3, 0, 1)
    return lib.tensor(DATA4)


def _conv(lib, x, transposed=False):
    nd = x.dim() - 2
    shape = (4, 3) + (2,) * nd
    w = lib.linspace(-1, 1, int(np.prod(shape))).reshape(shape).requires_grad_()
    F = lib.nn.functional
    if transposed:
        return (F.conv_transpose2d if nd == 2 else F.conv_transpose3d)(x, w), w
    return (F.conv2d if nd == 2 else F.conv3d)(x, w.transpose(0, 1)), w


def _channels(lib, n):
    return lib.linspace(0.5, 1.5, n).requires_grad_()


CASES = {
    "batch_norm training": lambda lib, x: (lib.nn.functional.batch_norm(
        x, None, None, _w := _channels(lib, 4), None, training=True), _w),
    "batch_norm eval": lambda lib, x: (lib.nn.functional.batch_norm(
        x, lib.zeros(4), lib.ones(4), _w := _channels(lib, 4), lib.zeros(4)), _w),
    "group_norm": lambda lib, x: (lib.nn.functional.group_norm(
        x, 2, _w := _channels(lib, 4), lib.zeros(4)), _w),
    "rms_norm": lambda lib, x: (lib.nn.functional.rms_norm(
        x, (5,), _w := lib.linspace(0.5, 1.5, 5).requires_grad_()), _w),
    "reflection pad": lambda lib, x: (lib.nn.functional.pad(
        x, (1, 1) * (x.dim() - 2), mode="reflect"), None),
    "replication pad": lambda lib, x: (lib.nn.functional.pad(
        x, (1, 2) * (x.dim() - 2), mode="replicate"), None),
    "convolution": lambda lib, x: _conv(lib, x),
    "transposed convolution": lambda lib, x: _conv(lib, x, transposed=True),
}


def _run(lib, case, layout, grad_layout):
    x = _input(lib, layout).requires_grad_()
    y, w = CASES[case](lib, x)
    g = lib.linspace(-1, 1, y.numel()).reshape(y.shape)
    if grad_layout == "like the result":
        g = lib.empty_like(y).copy_(g)
    inputs = [x] if w is None else [x, w]
    grads = lib.autograd.grad(y, inputs, g)
    return [(t.stride(), t.detach().numpy()) for t in (y,) + tuple(grads)]


@pytest.mark.parametrize("grad_layout", ["contiguous", "like the result"])
@pytest.mark.parametrize("layout", ["channels_last", "channels_last_3d", "permuted",
                                    "contiguous"])
@pytest.mark.parametrize("case", list(CASES))
def test_layout_like_torch(case, layout, grad_layout):
    got = _run(dyngrad, case, layout, grad_layout)
    want = _run(torch, case, layout, grad_layout)
    assert [s for s, _ in got] == [s for s, _ in want]
    for (_, a), (_, b) in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
