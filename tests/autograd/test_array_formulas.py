"""Note [Array formulas] (dyngrad/ops/_autograd_utils.py): a backward that records nothing runs
some formulas on the arrays; one that records (``create_graph=True``) runs their ops. Both must
give the same gradients, bit for bit, with the same strides; and the gradients must match
torch's. Where the array form must not run (the profiler is on, float16, a forward-AD level),
the results are the same too."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.ops import _autograd_utils


@pytest.fixture
def taken(monkeypatch):
    """What every ``arrays_only`` call answered (True: the array form ran)."""
    answers = []
    original = _autograd_utils.arrays_only

    def counting(*tensors):
        answers.append(original(*tensors))
        return answers[-1]
    for module in ("linalg", "norms", "reduction", "arithmetic", "unary", "loss_nll",
                   "normalization", "activation_smooth"):
        monkeypatch.setattr(importlib.import_module(f"dyngrad.ops.{module}"), "arrays_only",
                            counting)
    monkeypatch.setattr(_autograd_utils, "arrays_only", counting)
    return answers


def _data(seed, shape, dtype, zero_row=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    if zero_row:
        a[0] = 0
    return a


def _linear(lib, x, w, b):
    return lib.nn.functional.linear(x, w, b)


CASES = {
    # name: (fn(lib, *tensors), shapes)
    "mm": (lambda lib, a, b: a.mm(b), [(5, 4), (4, 3)]),
    "mm column-major": (lambda lib, a, b: a.t().mm(b.t()), [(4, 5), (3, 4)]),
    "linear (addmm)": (_linear, [(6, 8), (3, 8), (3,)]),
    "addmm transposed mat1": (lambda lib, c, a, b: lib.addmm(c, a.t(), b), [(5, 3), (4, 5),
                                                                         (4, 3)]),
    "2-norm over a dim": (lambda lib, x: x.norm(2, dim=1), [(6, 5)]),
    "2-norm keepdim": (lambda lib, x: x.norm(dim=0, keepdim=True), [(6, 5)]),
    "2-norm over two dims": (lambda lib, x: lib.linalg.vector_norm(x, 2, (0, 2)), [(3, 4, 2)]),
    "2-norm of everything": (lambda lib, x: x.norm(), [(4, 3)]),
    "mean": (lambda lib, x: x.mean(), [(4, 6)]),
    "mean of an empty tensor": (lambda lib, x: x.mean(), [(0, 3)]),
    "pow 2": (lambda lib, x: x ** 2, [(4, 6)]),
    "pow 0.5": (lambda lib, x: x.abs() ** 0.5, [(4, 6)]),
    "pow -1.5 of a 0-dim": (lambda lib, x: (x.abs() + 1) ** -1.5, [()]),
    "relu": (lambda lib, x: lib.relu(x), [(5, 7)]),
    "tanh": (lambda lib, x: lib.tanh(x), [(5, 7)]),
    "silu": (lambda lib, x: lib.nn.functional.silu(x * 40), [(5, 7)]),
    "softmax": (lambda lib, x: x.softmax(1), [(5, 7)]),
    "log_softmax": (lambda lib, x: x.log_softmax(-1), [(5, 7)]),
    "cross_entropy": (lambda lib, x: lib.nn.functional.cross_entropy(
        x, lib.tensor([0, 3, 6, 1, 2])), [(5, 7)]),
    "cross_entropy sum": (lambda lib, x: lib.nn.functional.cross_entropy(
        x, lib.tensor([0, 3, 6, 1, 2]), reduction="sum"), [(5, 7)]),
    "nll_loss ignore_index": (lambda lib, x: lib.nn.functional.nll_loss(
        x, lib.tensor([0, -100, 6, 1, 2])), [(5, 7)]),
    "layer_norm": (lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (7,), w, b),
                   [(5, 7), (7,), (7,)]),
    "layer_norm over two dims, no affine": (
        lambda lib, x: lib.nn.functional.layer_norm(x, (3, 4)), [(2, 3, 4)]),
    "layer_norm of the whole input, weight only": (
        lambda lib, x, w: lib.nn.functional.layer_norm(x, (5, 7), w), [(5, 7), (5, 7)]),
    "group_norm": (lambda lib, x, w, b: lib.nn.functional.group_norm(x, 3, w, b),
                   [(4, 6, 3, 2), (6,), (6,)]),
    "group_norm, no affine, one group": (lambda lib, x: lib.nn.functional.group_norm(x, 1),
                                         [(2, 4, 5)]),
    "batch_norm training": (lambda lib, x, w, b: lib.nn.functional.batch_norm(
        x, None, None, w, b, training=True), [(4, 3, 5, 2), (3,), (3,)]),
    "batch_norm training, running statistics, no affine": (
        lambda lib, x: lib.nn.functional.batch_norm(
            x, lib.zeros(5, dtype=x.dtype), lib.ones(5, dtype=x.dtype), training=True),
        [(6, 5)]),
}


def _grads(lib, name, dtype, create_graph):
    fn, shapes = CASES[name]
    zero = "norm" in name
    xs = [lib.tensor(_data(i, s, dtype, zero and i == 0 and len(s) > 1), requires_grad=True)
          for i, s in enumerate(shapes)]
    out = fn(lib, *xs)
    cot = lib.tensor(_data(9, tuple(out.shape), dtype))
    return lib.autograd.grad(out, xs, cot, create_graph=create_graph)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CASES))
def test_array_form_equals_op_form_and_torch(name, dtype, taken):
    array_form = _grads(dyngrad, name, dtype, create_graph=False)
    assert any(taken)
    taken.clear()
    op_form = _grads(dyngrad, name, dtype, create_graph=True)
    assert not any(taken)
    expected = _grads(torch, name, dtype, create_graph=False)
    for a, o, t in zip(array_form, op_form, expected):
        assert not a.requires_grad and a.grad_fn is None
        np.testing.assert_array_equal(a.numpy(), o.detach().numpy())
        assert a.stride() == o.stride() == t.stride()
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("create_graph", [False, True])
def test_layer_norm_gradients_are_contiguous_for_a_transposed_grad(create_graph):
    """torch's layer-norm backward kernel writes the input's gradient contiguous whatever the
    layout of the incoming gradient; both of dyngrad's forms do the same."""
    strides = {}
    for lib in (dyngrad, torch):
        x = lib.tensor(_data(0, (6, 5), "float32"), requires_grad=True)
        w = lib.tensor(_data(1, (5,), "float32"), requires_grad=True)
        b = lib.tensor(_data(2, (5,), "float32"), requires_grad=True)
        cot = lib.tensor(_data(3, (5, 6), "float32")).t()
        out = lib.nn.functional.layer_norm(x, (5,), w, b)
        grads = lib.autograd.grad(out, (x, w, b), cot, create_graph=create_graph)
        strides[lib] = [g.stride() for g in grads]
        if lib is torch:
            for g, mine in zip(grads, values):
                np.testing.assert_allclose(mine, g.detach().numpy(), rtol=1e-5, atol=1e-5)
        values = [g.detach().numpy() for g in grads]
    assert strides[dyngrad] == strides[torch] == [(5, 1), (1,), (1,)]


def test_tanh_double_backward_array_form():
    """TanhBackwardBackward0 (the gradient penalty's): its array form against its op form."""
    def second(create_graph):
        x = dyngrad.tensor(_data(1, (6, 4), "float64"), requires_grad=True)
        g, = dyngrad.autograd.grad(dyngrad.tanh(x).sum(), x, create_graph=True)
        return dyngrad.autograd.grad((g * g).sum(), x, create_graph=create_graph)[0]
    tx = torch.tensor(_data(1, (6, 4), "float64"), requires_grad=True)
    tg, = torch.autograd.grad(torch.tanh(tx).sum(), tx, create_graph=True)
    expected, = torch.autograd.grad((tg * tg).sum(), tx)
    got = second(False)
    np.testing.assert_array_equal(got.numpy(), second(True).detach().numpy())
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)


def test_empty_mean_backward_in_a_thread_divides_nothing():
    """A thread keeps NumPy's default error state (warnings on): the empty input's gradient is
    made without the division by its 0 elements that would warn there."""
    import threading
    import warnings
    x = dyngrad.empty(0, 3, requires_grad=True)
    y = x.mean()
    caught = []

    def run():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            y.backward()
        caught.extend(seen)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not caught
    assert x.grad.shape == (0, 3) and x.grad.stride() == (3, 1)


def test_array_forms_run_only_where_nothing_can_tell(taken):
    """They run in a plain backward, and not under the profiler, in a recording backward, for
    float16, or inside a forward-AD level."""
    def backward(dtype="float64", create_graph=False):
        taken.clear()
        a = dyngrad.tensor(_data(0, (4, 3), dtype), requires_grad=True)
        dyngrad.autograd.grad(a.mm(a.t()).norm(), a, create_graph=create_graph)
        return taken
    assert backward() and all(backward())
    assert not any(backward(create_graph=True))
    assert not any(backward("float16"))
    with dyngrad.autograd.profiler.profile():
        assert not any(backward())
    with dyngrad.autograd.forward_ad.dual_level():
        assert not any(backward())
