"""Dropout against live torch. Values are checked by their relations and statistics (the
seeded masks themselves are compared with torch's in test_torch_streams.py): ``output = input * mask / (1 - p)``, the gradient
``grad * mask / (1 - p)``, the fraction dropped, channel-wise masks, alpha dropout's two
values; and exactly against torch: p = 0 / eval (the input itself), p = 1, the graph (node
names and edges), in-place forms, warnings and errors.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from ops.test_forward import assert_same_error, call

ALPHA = 1.7580993408473766


def F(lib):
    return lib.nn.functional


def raises_like_torch(fn):
    _, texc = call(fn, (torch,), {})
    assert texc is not None, "torch did not raise: the case is wrong"
    _, exc = call(fn, (dyngrad,), {})
    assert_same_error(exc, texc, "dyngrad vs torch")


def graph(y):
    """Node names down the graph, with None for missing edges."""
    out = []
    todo = [y.grad_fn]
    while todo:
        fn = todo.pop(0)
        out.append(None if fn is None else type(fn).__name__)
        if fn is not None:
            todo += [f for f, _ in fn.next_functions]
    return out


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_mask_scale_and_gradient(p, dtype):
    dyngrad.manual_seed(0)
    x = dyngrad.randn(100, 200, dtype=getattr(dyngrad, dtype)).requires_grad_()
    y = F(dyngrad).dropout(x, p)
    assert y.dtype == x.dtype and y.shape == x.shape
    xs, ys = x.detach().numpy(), y.detach().numpy()
    kept = ys != 0
    n = kept.size
    # the fraction dropped: within 6 standard deviations of p
    assert abs((1 - kept.mean()) - p) < 6 * np.sqrt(p * (1 - p) / n)
    np.testing.assert_allclose(ys[kept], xs[kept] / (1 - p), rtol=1e-6)
    g = dyngrad.randn(100, 200, dtype=x.dtype)
    gx, = dyngrad.autograd.grad(y, x, g)
    expected = np.where(kept, g.numpy() / (1 - p), 0)
    np.testing.assert_allclose(gx.numpy(), expected.astype(gx.numpy().dtype), rtol=1e-6)


def test_alpha_dropout_defaults_to_eval_like_torch():
    x = dyngrad.randn(3)
    assert F(dyngrad).alpha_dropout(x, 0.5) is x
    assert F(dyngrad).feature_alpha_dropout(x, 0.5) is x


def test_dropout_is_reproducible_with_the_generator_seed():
    x = dyngrad.ones(50)
    dyngrad.manual_seed(3)
    a = F(dyngrad).dropout(x, 0.5)
    dyngrad.manual_seed(3)
    b = F(dyngrad).dropout(x, 0.5)
    assert dyngrad.equal(a, b)


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_alpha_dropout",
                                  "dropout2d"])
def test_identity_cases_return_the_input(name):
    for lib in (torch, dyngrad):
        x = lib.randn(2, 3, 4, 5, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert getattr(F(lib), name)(x, 0.0) is x
            assert getattr(F(lib), name)(x, 0.5, training=False) is x


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_alpha_dropout",
                                  "dropout2d"])
def test_p_one_zeroes_everything_like_torch(name):
    res = {}
    for lib in (torch, dyngrad):
        x = lib.randn(2, 3, 4, 5, dtype=lib.float64, requires_grad=True)
        y = getattr(F(lib), name)(x, 1.0, True)
        gx, = lib.autograd.grad(y, x, lib.ones_like(y))
        res[lib] = (y.abs().sum().item(), gx.abs().sum().item(), graph(y), y.dtype is lib.float64)
    assert res[dyngrad] == res[torch]


@pytest.mark.parametrize("case", [
    lambda lib, x: F(lib).dropout(x, 0.5),
    lambda lib, x: F(lib).dropout(x * 1, 0.5, inplace=True),
    lambda lib, x: lib.dropout(x, 0.3, True),
    lambda lib, x: F(lib).alpha_dropout(x, 0.5, True),
    lambda lib, x: F(lib).feature_alpha_dropout(x, 0.5, True),
    lambda lib, x: F(lib).dropout1d(x[0], 0.5),
    lambda lib, x: F(lib).dropout1d(x, 0.5),
    lambda lib, x: F(lib).dropout3d(x.unsqueeze(0), 0.5),
    lambda lib, x: F(lib).dropout3d(x.unsqueeze(0) * 1, 0.5, inplace=True),
])
def test_graph_like_torch(case):
    res = {}
    for lib in (torch, dyngrad):
        x = lib.randn(2, 3, 4, requires_grad=True)
        y = case(lib, x)
        res[lib] = (graph(y), tuple(y.shape), str(y.dtype))
    assert res[dyngrad] == res[torch]


def test_inplace_dropout_writes_the_input():
    x = dyngrad.randn(30, 30)
    v = x._version
    y = F(dyngrad).dropout(x, 0.5, inplace=True)
    assert y is x and x._version > v
    assert ((x == 0).float().mean() - 0.5).abs() < 0.2


@pytest.mark.parametrize("name,shape,batched", [("dropout1d", (8, 20, 30), True),
                                                 ("dropout1d", (20, 30), False),
                                                 ("dropout2d", (8, 10, 5, 6), True),
                                                 ("dropout3d", (4, 10, 3, 4, 5), True),
                                                 ("dropout3d", (10, 3, 4, 5), False)])
def test_feature_dropout_drops_whole_channels(name, shape, batched):
    dyngrad.manual_seed(1)
    x = dyngrad.rand(*shape) + 0.5      # no zeros of its own
    y = getattr(F(dyngrad), name)(x, 0.5).numpy()
    lead = 2 if batched else 1
    per_channel = y.reshape(y.shape[:lead] + (-1,))
    dropped = (per_channel == 0).all(-1)
    kept = (per_channel != 0).all(-1)
    assert (dropped | kept).all()      # a channel is dropped entirely or kept entirely
    assert 0 < dropped.mean() < 1
    xs = x.numpy().reshape(per_channel.shape)
    np.testing.assert_allclose(per_channel[kept], xs[kept] * 2, rtol=1e-6)


def test_alpha_dropout_values_and_statistics():
    p = 0.3
    dyngrad.manual_seed(2)
    x = dyngrad.randn(400, 500, dtype=dyngrad.float64)
    y = F(dyngrad).alpha_dropout(x, p, True).numpy()
    a = 1 / np.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    b_kept = ALPHA * a * p
    dropped_value = -ALPHA * a + ALPHA * a * p
    xs = x.numpy()
    kept = np.isclose(y, xs * a + b_kept, rtol=1e-12, atol=1e-12)
    assert np.allclose(y[~kept], dropped_value, rtol=1e-12)
    assert abs((~kept).mean() - p) < 0.01
    # self-normalising: unit Gaussian input keeps zero mean and unit variance
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


@pytest.mark.parametrize("p", [-0.1, 1.5])
@pytest.mark.parametrize("case", [
    lambda lib, p: F(lib).dropout(lib.ones(3), p),
    lambda lib, p: F(lib).dropout(lib.ones(3), p, inplace=True),
    lambda lib, p: F(lib).alpha_dropout(lib.ones(3), p),
    lambda lib, p: F(lib).feature_alpha_dropout(lib.ones(2, 3), p),
    lambda lib, p: F(lib).dropout1d(lib.ones(2, 3), p),
    lambda lib, p: F(lib).dropout2d(lib.ones(2, 3, 4), p),
    lambda lib, p: F(lib).dropout3d(lib.ones(2, 3, 4, 5), p),
    lambda lib, p: lib.dropout(lib.ones(3), p, True),
    lambda lib, p: lib.alpha_dropout(lib.ones(3), p, False),
    lambda lib, p: lib.feature_dropout(lib.ones(2, 3), p, True),
])
def test_p_out_of_range_raises_like_torch(case, p):
    raises_like_torch(lambda lib: case(lib, p))


def test_dropout1d_rejects_other_ranks():
    raises_like_torch(lambda lib: F(lib).dropout1d(lib.ones(2, 3, 4, 5)))
    raises_like_torch(lambda lib: lib.feature_dropout(lib.ones(3), 0.5, True))


@pytest.mark.parametrize("case", [
    lambda lib: F(lib).dropout2d(lib.ones(2, 3, 4)),
    lambda lib: F(lib).dropout2d(lib.ones(2, 3)),
    lambda lib: F(lib).dropout3d(lib.ones(2, 3, 4)),
])
def test_warnings_like_torch(case):
    msgs = {}
    for lib in (torch, dyngrad):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            case(lib)
        msgs[lib] = [(type(m.message), str(m.message)) for m in w]
    assert msgs[dyngrad] == msgs[torch] and msgs[torch]
