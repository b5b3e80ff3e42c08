"""Convolution and linear layers against live torch: errors, layouts, graphs, nn.grad (speed: bench/)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
import dyngrad.nn.grad  # noqa: F401
from compare import warn_always


def _pair(*shapes, seed=0, dtype="float64", grad=True):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-2, 2, s).astype(dtype) for s in shapes]
    out = []
    for lib in (torch, dyngrad):
        out.append([lib.tensor(a, requires_grad=grad) for a in arrays])
    return out


def _raises_like_torch(fn):
    outcome = []
    for lib in (torch, dyngrad):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(lib)
        except Exception as e:   # noqa: BLE001 - the type is compared
            outcome.append((type(e).__name__, str(e)))
        else:
            outcome.append(None)
    assert outcome[0] is not None, "torch did not raise"
    assert outcome[1] == outcome[0]


def F(lib):
    return lib.nn.functional


ERRORS = {
    "channels": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 4, 3, 3)),
    "groups channels": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3), groups=2),
    "groups divisible": lambda L: F(L).conv2d(L.ones(2, 4, 5, 6), L.ones(4, 2, 3, 3), groups=3),
    "kernel too big": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 7, 3)),
    "unbatched channels": lambda L: F(L).conv2d(L.ones(2, 3, 5), L.ones(4, 3, 3, 3)),
    "input rank": lambda L: F(L).conv2d(L.ones(2, 3), L.ones(4, 3, 3, 3)),
    "stride 0": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3), stride=0),
    "negative padding": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3),
                                              padding=-1),
    "dilation 0": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3), dilation=0),
    "same strided": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3),
                                          padding="same", stride=2),
    "bad padding string": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3),
                                                padding="foo"),
    "stride length": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3),
                                           stride=(1, 1, 1)),
    "weight rank": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3)),
    "bias size": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(4, 3, 3, 3),
                                       L.ones(3)),
    "dtype float/double": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6),
                                                L.ones(4, 3, 3, 3, dtype=L.float64)),
    "dtype double/float": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6, dtype=L.float64),
                                                L.ones(4, 3, 3, 3)),
    "transposed channels": lambda L: F(L).conv_transpose2d(L.ones(2, 3, 5, 6),
                                                           L.ones(4, 3, 3, 3)),
    "output padding": lambda L: F(L).conv_transpose2d(L.ones(2, 3, 5, 6), L.ones(3, 3, 3, 3),
                                                      stride=2, output_padding=2),
    "bool conv2d": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6, dtype=L.bool),
                                         L.ones(4, 3, 3, 3, dtype=L.bool)),
    "int transposed": lambda L: F(L).conv_transpose1d(L.ones(2, 3, 5, dtype=L.int32),
                                                      L.ones(3, 2, 3, dtype=L.int32)),
    "empty weight": lambda L: F(L).conv2d(L.ones(2, 3, 5, 6), L.ones(0, 3, 3, 3)),
    "linear shapes": lambda L: F(L).linear(L.ones(2, 3), L.ones(4, 5)),
    "linear 0-d": lambda L: F(L).linear(L.ones(()), L.ones(4, 3)),
    "linear bool": lambda L: F(L).linear(L.ones(2, 3, dtype=L.bool), L.ones(4, 3, dtype=L.bool)),
    "linear dtypes": lambda L: F(L).linear(L.ones(2, 3), L.ones(4, 3, dtype=L.float64)),
    "linear dtypes bias": lambda L: F(L).linear(L.ones(2, 3), L.ones(4, 3, dtype=L.float64),
                                                L.ones(4)),
    "linear 1-d weight bias": lambda L: F(L).linear(L.ones(2, 3), L.ones(3), L.ones(1)),
    "bilinear batch": lambda L: F(L).bilinear(L.ones(2, 3), L.ones(3, 2), L.ones(4, 3, 2)),
    "bilinear input2": lambda L: F(L).bilinear(L.ones(2, 3), L.ones(2, 2), L.ones(4, 3, 3)),
    "bilinear bias": lambda L: F(L).bilinear(L.ones(2, 3), L.ones(2, 2), L.ones(4, 3, 2),
                                             L.ones(3)),
    "bilinear dtype": lambda L: F(L).bilinear(L.ones(2, 3), L.ones(2, 2),
                                              L.ones(4, 3, 2, dtype=L.float64)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_like_torch(name):
    _raises_like_torch(ERRORS[name])


def _names(fn):
    out, stack = [], [fn]
    while stack:
        node = stack.pop()
        if node is None:
            out.append(None)
            continue
        out.append(type(node).__name__)
        stack.extend(f for f, _ in reversed(node.next_functions))
    return out


@pytest.mark.parametrize("layout", ["input", "weight", "both", "none"])
def test_conv2d_channels_last_output(layout):
    (tx, tw), (dx, dw) = _pair((2, 3, 5, 6), (4, 3, 3, 3), grad=False)
    results = []
    for lib, x, w in ((torch, tx, tw), (dyngrad, dx, dw)):
        if layout in ("input", "both"):
            x = x.contiguous(memory_format=lib.channels_last)
        if layout in ("weight", "both"):
            w = w.contiguous(memory_format=lib.channels_last)
        y = F(lib).conv2d(x, w)
        yt = F(lib).conv_transpose2d(x, w.transpose(0, 1))
        results.append((y.stride(), yt.stride(), y.detach().numpy(), yt.detach().numpy()))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-10)
    np.testing.assert_allclose(results[1][3], results[0][3], rtol=1e-10)


def test_graphs_and_saved_values():
    (tx, tw, tb), (dx, dw, db) = _pair((2, 3, 5, 6), (4, 3, 2, 2), (4,))
    for kw in ({}, {"padding": "same"}, {"padding": "valid"}, {"stride": 2, "dilation": 2}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ty = F(torch).conv2d(tx, tw, tb, **kw)
            dy = F(dyngrad).conv2d(dx, dw, db, **kw)
        assert _names(dy.grad_fn) == _names(ty.grad_fn)
        for attr in ("_saved_stride", "_saved_padding", "_saved_dilation", "_saved_groups",
                     "_saved_transposed", "_saved_output_padding",
                     "_saved_bias_sym_sizes_opt"):
            assert tuple(np.atleast_1d(getattr(dy.grad_fn, attr))) == \
                tuple(np.atleast_1d(getattr(ty.grad_fn, attr))), (kw, attr)
    # unbatched input: unsqueeze -> convolution -> squeeze
    ty = F(torch).conv_transpose2d(tx[0], tw.transpose(0, 1))
    dy = F(dyngrad).conv_transpose2d(dx[0], dw.transpose(0, 1))
    assert _names(dy.grad_fn) == _names(ty.grad_fn)


def test_double_backward_node_and_values():
    (tx, tw, tb), (dx, dw, db) = _pair((2, 3, 5, 6), (6, 1, 3, 2), (6,))
    grads = []
    for lib, x, w, b in ((torch, tx, tw, tb), (dyngrad, dx, dw, db)):
        y = F(lib).conv2d(x, w, b, stride=(2, 1), padding=1, groups=3)
        gx, gw, gb = lib.autograd.grad((y * y).sum(), (x, w, b), create_graph=True)
        assert type(gx.grad_fn).__name__ == "ConvolutionBackwardBackward0"
        total = (gx ** 2).sum() + (gw ** 2).sum() + (gb ** 2).sum()
        grads.append([g.detach().numpy() for g in lib.autograd.grad(total, (x, w, b))])
    for ours, theirs in zip(grads[1], grads[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("which", ["input", "weight"])
def test_nn_grad_backward(which):
    (tg, tw, tx), (dg, dw, dx) = _pair((2, 4, 2, 4), (4, 3, 3, 2), (2, 3, 5, 6))
    out = []
    for lib, g, w, x in ((torch, tg, tw, tx), (dyngrad, dg, dw, dx)):
        if which == "input":
            r = lib.nn.grad.conv2d_input((2, 3, 5, 6), w, g, stride=2, padding=(0, 1))
            leaves = (w, g)
        else:
            r = lib.nn.grad.conv2d_weight(x, (4, 3, 3, 2), g, stride=2, padding=(0, 1))
            leaves = (x, g)
        assert type(r.grad_fn).__name__ == "ConvolutionBackwardBackward0"
        out.append([r.detach().numpy()] + [t.numpy() for t in
                                           lib.autograd.grad((r * r).sum(), leaves)])
    for ours, theirs in zip(out[1], out[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


def test_same_padding_warns_like_torch():
    x, w = dyngrad.ones(1, 1, 4, 4), dyngrad.ones(1, 1, 2, 2)
    with warn_always(dyngrad), pytest.warns(   # (torch warns once per process)
            UserWarning, match="padding='same' with even kernel lengths"):
        y = dyngrad.nn.functional.conv2d(x, w, padding="same")
    assert tuple(y.shape) == (1, 1, 4, 4)


def test_torch_namespace_functions():
    for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "conv_transpose3d", "convolution", "bilinear"):
        assert callable(getattr(dyngrad, name)), name
    assert not hasattr(dyngrad, "linear")      # torch has only nn.functional.linear


def test_complex_conv_values():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 5, 6)) + 1j * rng.normal(size=(2, 3, 5, 6))
    w = rng.normal(size=(4, 3, 3, 2)) + 1j * rng.normal(size=(4, 3, 3, 2))
    b = rng.normal(size=4) + 1j * rng.normal(size=4)
    ty = F(torch).conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), padding=1)
    dy = F(dyngrad).conv2d(dyngrad.tensor(x), dyngrad.tensor(w), dyngrad.tensor(b), padding=1)
    assert dy.dtype == dyngrad.complex128
    np.testing.assert_allclose(dy.numpy(), ty.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape,bias,contiguous", [
    ((3,), True, True), ((3,), False, True), ((2, 3), True, True), ((2, 3), False, True),
    ((5, 2, 3), True, True), ((5, 2, 3), False, True), ((5, 2, 3), True, False),
    ((2, 5, 2, 3), True, True)])
def test_linear_graph_like_torch(shape, bias, contiguous):
    """See Note [linear is a composite]: the path taken shows in the graph."""
    (tx, tw, tb), (dx, dw, db) = _pair(shape, (4, 3), (4,))
    outs = []
    for lib, x, w, b in ((torch, tx, tw, tb), (dyngrad, dx, dw, db)):
        if not contiguous:
            x = x.transpose(0, 1).contiguous().transpose(0, 1)
        y = F(lib).linear(x, w, b if bias else None)
        outs.append((_names(y.grad_fn), y.stride(), y._version, y.detach().numpy()))
    assert outs[1][:3] == outs[0][:3]
    np.testing.assert_allclose(outs[1][3], outs[0][3], rtol=1e-12)
