"""Shared set-up for the optimizer and scheduler tests: one problem built on both libraries.

The problem is a tiny MLP (4 -> 5 -> 2, tanh) fitted by least squares to fixed data.  Its
weights come from one NumPy seed, so dyngrad and torch start from the same values.
"""
import copy

import numpy as np
import torch

import dyngrad

SHAPES = {"w1": (4, 5), "b1": (5,), "w2": (5, 2), "b2": (2,)}


def make_params(lib, dtype="float32", seed=0):
    """The four MLP parameters as leaf tensors of ``lib`` (same values on both libraries)."""
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(shape).astype(dtype) * 0.5, requires_grad=True)
            for shape in SHAPES.values()]


def make_data(lib, dtype="float32"):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 4)).astype(dtype)
    y = rng.standard_normal((8, 2)).astype(dtype)
    return lib.tensor(x), lib.tensor(y)


def mlp_loss(lib, params, data):
    w1, b1, w2, b2 = params
    x, y = data
    return ((lib.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2).mean()


def elementwise_loss(lib, params, data):
    """A non-quadratic loss built from elementwise products and sums only.

    Every operation in it and in its backward is one correctly rounded IEEE operation, so
    both libraries compute bit-identical gradients and a float32 comparison measures the
    optimizer's arithmetic alone (the MLP's matmuls round differently in NumPy and torch,
    and normalising optimizers such as Adam amplify that for near-zero gradients).
    """
    loss = 0.0
    for p, (target, weight) in zip(params, data):
        d = p - target
        loss = loss + (weight * d * d).sum() + 0.1 * (d * d * d * d).sum()
    return loss


def make_elementwise_data(lib, dtype="float32"):
    """One (target, weight) pair per MLP parameter."""
    rng = np.random.default_rng(2)
    return [(lib.tensor(rng.standard_normal(shape).astype(dtype)),
             lib.tensor(rng.uniform(0.5, 2.0, shape).astype(dtype)))
            for shape in SHAPES.values()]


loss_fn = mlp_loss     # the name the tests import


def train(lib, opt, params, data, steps=20, closure=False, loss=mlp_loss):
    """``steps`` optimizer steps on ``loss``; returns the last loss value.

    An optimizer with ``maximize=True`` gets the negated loss, so that it still converges
    (gradient ascent on an unbounded objective would amplify rounding differences).
    """
    sign = -1.0 if opt.defaults.get("maximize") else 1.0

    def objective():
        return sign * loss(lib, params, data)

    def closure_fn():
        opt.zero_grad()
        value = objective()
        value.backward()
        return value

    value = None
    for _ in range(steps):
        if closure:
            value = opt.step(closure_fn)
        else:
            value = closure_fn()
            opt.step()
    return value


def to_numpy(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.array(t.detach()._data)


def assert_close_values(ours, theirs, rtol, where=""):
    """Tensors (same dtype and shape, values within rtol), or equal plain values, recursively."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, dyngrad.Tensor), f"{where}: {type(ours)} is not a Tensor"
        assert str(ours.dtype) == str(theirs.dtype), f"{where}: {ours.dtype} != {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), where
        # state buffers (gradient averages) can hold near-zero entries from cancellation: an
        # absolute tolerance scaled by the tensor's largest entry covers those
        expected = to_numpy(theirs)
        scale = float(np.abs(expected).max()) if expected.size else 0.0
        np.testing.assert_allclose(to_numpy(ours), expected, rtol=rtol, atol=rtol * scale,
                                   err_msg=where)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        assert list(ours.keys()) == list(theirs.keys()), f"{where}: {list(ours)} != {list(theirs)}"
        for key in theirs:
            assert_close_values(ours[key], theirs[key], rtol, f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{where}: {ours!r}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            assert_close_values(o, t, rtol, f"{where}[{i}]")
    elif isinstance(theirs, float):
        close = ours == theirs or abs(ours - theirs) <= rtol * abs(theirs)
        assert isinstance(ours, float) and close, f"{where}: {ours!r} != {theirs!r}"
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def state_dict_to_dyngrad(state_dict):
    """A torch optimizer state dict with every tensor turned into a dyngrad tensor."""
    def convert(value):
        if isinstance(value, torch.Tensor):
            return dyngrad.from_numpy(value.detach().numpy().copy())
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(convert(v) for v in value)
        return value
    return convert(copy.deepcopy(state_dict))


def raises_like(fn):
    """``fn(lib)`` raises the same exception type and message on both libraries."""
    try:
        fn(torch)
    except Exception as e:   # noqa: BLE001
        expected = e
    else:
        raise AssertionError("torch did not raise")
    try:
        fn(dyngrad)
    except Exception as e:   # noqa: BLE001
        got = e
    else:
        raise AssertionError(f"dyngrad did not raise; torch raised {expected!r}")
    assert (type(got).__name__, str(got)) == (type(expected).__name__, str(expected))
