"""Activation functions against live torch, beyond what the op database covers
(tests/opinfo/activation.py): numerical stability at ±1000, gradients at the kinks and at NaN,
``inplace=True`` and the in-place-only functions (values, identity, version bump, grad_fn and
its saved values, first and second derivatives), rrelu, and torch's errors.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from ops._grad_support import assert_grads_close
from ops.test_forward import assert_same_error, assert_same_tensor, call
from ops.test_graph_parity import compare_graphs


def F(lib):
    return lib.nn.functional


def tensor(lib, values, dtype="float64", requires_grad=False):
    t = lib.tensor(values, dtype=getattr(lib, dtype))
    return t.requires_grad_() if requires_grad else t


def raises_like_torch(fn):
    _, texc = call(fn, (torch,), {})
    assert texc is not None, "torch did not raise: the case is wrong"
    _, exc = call(fn, (dyngrad,), {})
    assert_same_error(exc, texc, "dyngrad vs torch")


def grads(lib, fn, values, dtype="float64", create_graph=False):
    """(output, d sum(output) / dx) for `fn(lib, x)`."""
    x = tensor(lib, values, dtype, requires_grad=True)
    y = fn(lib, x)
    g, = lib.autograd.grad(y.sum(), x, create_graph=create_graph)
    return x, y, g


def assert_like_torch(fn, values, dtype="float64", tol=None):
    """Same values and same first derivative (of the sum) as torch."""
    _, ty, tg = grads(torch, fn, values, dtype)
    _, y, g = grads(dyngrad, fn, values, dtype)
    assert_same_tensor(y, ty, "forward")
    if tol is None:
        tol = (1e-6, 1e-6) if dtype == "float32" else (1e-12, 1e-12)
    assert_grads_close([g], [tg], "backward", tol)


# -- numerical stability ---------------------------------------------------------------------------
STABLE = {
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "logsigmoid": lambda lib, x: F(lib).logsigmoid(x),
    "softplus": lambda lib, x: F(lib).softplus(x),
    "softplus beta=3": lambda lib, x: F(lib).softplus(x, beta=3, threshold=50),
    "softplus beta=-1": lambda lib, x: F(lib).softplus(x, beta=-1),
    "silu": lambda lib, x: F(lib).silu(x),
    "mish": lambda lib, x: F(lib).mish(x),
    "gelu": lambda lib, x: F(lib).gelu(x),
    "gelu tanh": lambda lib, x: F(lib).gelu(x, approximate="tanh"),
    "elu": lambda lib, x: F(lib).elu(x),
    "selu": lambda lib, x: F(lib).selu(x),
    "celu": lambda lib, x: F(lib).celu(x, 0.5),
    "softsign": lambda lib, x: F(lib).softsign(x),
    "hardswish": lambda lib, x: F(lib).hardswish(x),
    "glu": lambda lib, x: F(lib).glu(x.reshape(2, 4), 0),
}
EXTREMES = [-1000.0, -100.0, -30.0, -1e-8, 0.0, 1e-8, 30.0, 1000.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(STABLE))
def test_stable_at_extremes(name, dtype):
    """No overflow warning, no NaN, torch's values and gradients at ±1000."""
    fn = STABLE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, y, g = grads(dyngrad, fn, EXTREMES, dtype, create_graph=True)
        gg, = dyngrad.autograd.grad(g.sum(), x)
    for t in (y, g, gg):
        assert not np.isnan(t._data).any()
    assert_like_torch(fn, EXTREMES, dtype)


def test_sigmoid_family_saturates_exactly():
    for lib in (dyngrad, torch):
        x = tensor(lib, [-1000.0, 1000.0], "float32")
        assert lib.sigmoid(x).tolist() == [0.0, 1.0]
        assert F(lib).logsigmoid(x).tolist() == [-1000.0, 0.0]
        assert F(lib).softplus(x).tolist() == [0.0, 1000.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["sigmoid", "silu", "glu"])
def test_logistic_saturates_as_torchs_formula(name, dtype):
    """sigmoid, silu and glu compute torch's 1 / (1 + exp(-x)): where exp(-x) overflows the
    result is 0 exactly (torch's value; a float32 sigmoid(-100) is 0, not 3.8e-44), and a
    thread, which keeps NumPy's warnings on, sees no overflow warning."""
    import threading
    values = [-math.inf, math.inf, math.nan, -1000.0, -745.5, -100.0, -88.8, -30.0, -0.0, 0.0,
              30.0, 88.8, 1000.0, 3.0]
    fn = {"sigmoid": lambda lib, x: lib.sigmoid(x), "silu": lambda lib, x: F(lib).silu(x),
          "glu": lambda lib, x: F(lib).glu(lib.stack([x.flip(0), x]), 0)}[name]
    want = fn(torch, tensor(torch, values, dtype)).numpy()
    got, caught = [], []

    def run():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got.append(fn(dyngrad, tensor(dyngrad, values, dtype)).numpy())
        caught.extend(seen)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not caught
    # (exact zeros and signs; elsewhere NumPy's exp and torch's round apart by an ulp or two)
    np.testing.assert_allclose(got[0], want, rtol=3e-7 if dtype == "float32" else 1e-15, atol=0)
    number = ~np.isnan(want)   # (a NaN's sign bit says nothing)
    assert np.array_equal(np.signbit(got[0][number]), np.signbit(want[number]))


def test_softplus_with_a_raised_threshold_overflows_as_torch():
    """Below its threshold softplus is torch's log1p(exp(beta x)) / beta, inf where exp overflows.
    Differences from torch: the gradient there is sigmoid(beta x) = 1, not torch's NaN."""
    values = [-1000.0, 1.0, 300.0, 1000.0]
    for lib in (dyngrad, torch):
        y = F(lib).softplus(tensor(lib, values), beta=3, threshold=5000)
        assert y.tolist()[:2] == pytest.approx([0.0, 1.0161957838579])
        assert y.tolist()[2:] == [float("inf")] * 2
    _, _, g = grads(dyngrad, lambda lib, x: F(lib).softplus(x, beta=3, threshold=5000), values)
    assert g.tolist()[2:] == [1.0, 1.0]


# -- gradients at the kinks ------------------------------------------------------------------------
KINKS = {
    "relu at 0": (lambda lib, x: lib.relu(x), [0.0, -0.0, 1e-30, -1e-30]),
    "relu6 at 0 and 6": (lambda lib, x: F(lib).relu6(x), [0.0, 6.0, 5.999, 6.001]),
    "hardtanh at the bounds": (lambda lib, x: F(lib).hardtanh(x, -0.5, 2.0),
                               [-0.5, 2.0, -0.49, 1.99, -0.51, 2.01]),
    "leaky_relu at 0": (lambda lib, x: F(lib).leaky_relu(x, 0.2), [0.0, -0.0, 1e-30]),
    "threshold equality": (lambda lib, x: F(lib).threshold(x, 0.5, 7.0), [0.5, 0.5001, 0.4999]),
    "softplus switch": (lambda lib, x: F(lib).softplus(x, 2, 10),
                        [5.0, 5.0 + 1e-9, 5.0 - 1e-9, -5.0]),
    "hardsigmoid at ±3": (lambda lib, x: F(lib).hardsigmoid(x), [-3.0, 3.0, -2.99, 2.99]),
    "hardswish at ±3": (lambda lib, x: F(lib).hardswish(x), [-3.0, 3.0, -2.99, 2.99]),
    "hardshrink at ±lambd": (lambda lib, x: F(lib).hardshrink(x, 0.5), [-0.5, 0.5, 0.51, 0.0]),
    "softshrink at ±lambd": (lambda lib, x: F(lib).softshrink(x, 0.5), [-0.5, 0.5, 0.51, 0.0]),
    "elu at 0": (lambda lib, x: F(lib).elu(x, 2.0), [0.0, -0.0, -1e-9, 1e-9]),
    "celu at 0": (lambda lib, x: F(lib).celu(x, 2.0), [0.0, -1e-9, 1e-9]),
    "logit at its eps": (lambda lib, x: lib.logit(x, 0.25), [0.25, 0.75, 0.2, 0.8, 0.5]),
    "logit at 0 and 1": (lambda lib, x: lib.logit(x), [0.0, 1.0, -0.1, 1.1]),
    "prelu at 0": (lambda lib, x: F(lib).prelu(x, lib.full((1,), 0.25, dtype=x.dtype)),
                   [0.0, -0.0, -1.0]),
    "rrelu (eval) at 0": (lambda lib, x: F(lib).rrelu(x), [0.0, -2.0, 1.0]),
}


@pytest.mark.parametrize("name", list(KINKS))
def test_gradient_at_kinks(name):
    fn, values = KINKS[name]
    assert_like_torch(fn, values)
    assert_like_torch(fn, values, "float32")


@pytest.mark.parametrize("name", list(KINKS))
def test_second_derivative_at_kinks(name):
    """Double backward, with the second derivative of x where torch's is zeros (not None)."""
    fn, values = KINKS[name]

    def second(lib):
        x, _, g = grads(lib, fn, values, create_graph=True)
        return lib.autograd.grad(g.sum(), x, allow_unused=True)[0]
    expected, texc = call(second, (torch,), {})
    got, exc = call(second, (dyngrad,), {})
    if texc is not None:     # hardsigmoid: torch has no second derivative
        assert_same_error(exc, texc, name)
        return
    assert exc is None, exc
    assert (got is None) == (expected is None)
    if expected is not None:
        assert_grads_close([got], [expected], name, (1e-12, 1e-12))


NAN_CASES = {
    "hardtanh": lambda lib, x: F(lib).hardtanh(x), "relu6": lambda lib, x: F(lib).relu6(x),
    "elu": lambda lib, x: F(lib).elu(x), "selu": lambda lib, x: F(lib).selu(x),
    "hardshrink": lambda lib, x: F(lib).hardshrink(x),
    "softshrink": lambda lib, x: F(lib).softshrink(x),
    "hardswish": lambda lib, x: F(lib).hardswish(x),
    "hardsigmoid": lambda lib, x: F(lib).hardsigmoid(x),
    "mish": lambda lib, x: F(lib).mish(x), "logit": lambda lib, x: lib.logit(x),
    "logit eps": lambda lib, x: lib.logit(x, 0.0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(NAN_CASES))
def test_nan_and_inf_gradients_as_torch_vectorised_kernels(name, dtype):
    """torch's CPU kernels treat NaN differently in their vectorised loop and in their scalar
    tail (hardtanh'(NaN) is 0 in one, 1 in the other); dyngrad follows the vectorised loop,
    which every tensor of 64 elements takes."""
    values = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 3.0, -3.0, 0.5] * 8
    assert_like_torch(NAN_CASES[name], values, dtype)


# -- in-place forms ------------------------------------------------------------------------------
INPLACE = {
    "F.relu(inplace)": lambda lib, x: F(lib).relu(x, inplace=True),
    "F.relu_": lambda lib, x: F(lib).relu_(x),
    "torch.relu_": lambda lib, x: lib.relu_(x),
    "Tensor.relu_": lambda lib, x: x.relu_(),
    "F.relu6(inplace)": lambda lib, x: F(lib).relu6(x, inplace=True),
    "F.hardtanh(inplace)": lambda lib, x: F(lib).hardtanh(x, -0.5, 0.5, inplace=True),
    "F.hardtanh_": lambda lib, x: F(lib).hardtanh_(x),
    "F.leaky_relu(inplace)": lambda lib, x: F(lib).leaky_relu(x, 0.2, inplace=True),
    "F.leaky_relu_": lambda lib, x: F(lib).leaky_relu_(x),
    "F.elu(inplace)": lambda lib, x: F(lib).elu(x, 0.7, inplace=True),
    "F.elu_": lambda lib, x: F(lib).elu_(x),
    "F.selu(inplace)": lambda lib, x: F(lib).selu(x, inplace=True),
    "torch.selu_": lambda lib, x: lib.selu_(x),
    "F.celu(inplace)": lambda lib, x: F(lib).celu(x, 0.5, inplace=True),
    "torch.celu_": lambda lib, x: lib.celu_(x, 2.0),
    "F.threshold(inplace)": lambda lib, x: F(lib).threshold(x, 0.1, 9.0, inplace=True),
    "F.threshold_": lambda lib, x: F(lib).threshold_(x, 0.1, 9.0),
    "torch.threshold_": lambda lib, x: lib.threshold_(x, -0.5, 2.0),
    "F.rrelu(inplace)": lambda lib, x: F(lib).rrelu(x, 0.1, 0.3, inplace=True),
    "F.rrelu_": lambda lib, x: F(lib).rrelu_(x),
    "torch.rrelu_": lambda lib, x: lib.rrelu_(x),
    "F.silu(inplace)": lambda lib, x: F(lib).silu(x, inplace=True),
    "F.mish(inplace)": lambda lib, x: F(lib).mish(x, inplace=True),
    "F.hardsigmoid(inplace)": lambda lib, x: F(lib).hardsigmoid(x, inplace=True),
    "F.hardswish(inplace)": lambda lib, x: F(lib).hardswish(x, inplace=True),
    "Tensor.sigmoid_": lambda lib, x: x.sigmoid_(),
    "torch.sigmoid_": lambda lib, x: lib.sigmoid_(x),
    "Tensor.logit_": lambda lib, x: x.logit_(0.1),
    "torch.logit_": lambda lib, x: lib.logit_(x),
}
VALUES = [-2.0, -0.5, 0.0, 0.25, 0.5, 1.5, 4.0, 7.0]


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_writes_returns_self_and_bumps_version(name):
    fn = INPLACE[name]
    results = []
    for lib in (torch, dyngrad):
        x = tensor(lib, VALUES, "float32")
        before = x._version
        y = fn(lib, x)
        assert y is x
        results.append((x, x._version - before))
    (tx, tbump), (x, bump) = results
    assert bump == tbump == 1
    assert_same_tensor(x, tx, name)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_graph_and_gradients(name):
    """On a non-leaf: the node (``LeakyReluBackward1``…), its edges and saved values, and the
    first and second derivatives with respect to the leaf."""
    fn = INPLACE[name]
    out = {}
    for lib in (torch, dyngrad):
        leaf = tensor(lib, VALUES, requires_grad=True)
        y = fn(lib, leaf * 1.0)
        out[lib] = (leaf, y)
    (tleaf, ty), (leaf, y) = out[torch], out[dyngrad]
    compare_graphs([y.grad_fn], [ty.grad_fn], [leaf], [tleaf], name,
                   values="rrelu" not in name)   # torch's eval-mode noise is uninitialised
    cot = [0.5, -1.0, 2.0, 1.5, -0.25, 1.0, 3.0, -2.0]

    def derivatives(lib):
        lf, yy = out[lib]
        g, = lib.autograd.grad(yy, lf, tensor(lib, cot), create_graph=True)
        second = lib.autograd.grad(g.sum(), lf, allow_unused=True)[0] if g.requires_grad \
            else None
        return g, second
    expected, texc = call(derivatives, (torch,), {})
    result, exc = call(derivatives, (dyngrad,), {})
    if texc is not None:      # hardsigmoid has no second derivative in torch
        assert_same_error(exc, texc, name)
        return
    (tg, tsecond), (g, second) = expected, result
    assert_grads_close([g], [tg], name, (1e-12, 1e-12))
    assert (second is None) == (tsecond is None), name
    if tsecond is not None:
        assert_grads_close([second], [tsecond], name + " (second)", (1e-12, 1e-12))


def test_inplace_on_a_leaf_that_requires_grad():
    for name in ("F.relu(inplace)", "F.leaky_relu_", "F.elu(inplace)", "torch.threshold_",
                 "Tensor.sigmoid_"):
        raises_like_torch(lambda lib, fn=INPLACE[name]: fn(lib, tensor(lib, VALUES,
                                                                       requires_grad=True)))


def test_inplace_saved_input_is_the_original():
    """hardtanh_ saves a copy of the input from before the write, as torch."""
    for lib in (torch, dyngrad):
        leaf = tensor(lib, VALUES, requires_grad=True)
        y = F(lib).hardtanh_(leaf * 1.0)
        assert y.grad_fn._saved_self.tolist() == VALUES


INPLACE_NEGATIVE = {
    "leaky_relu_": lambda lib, x: F(lib).leaky_relu_(x, -0.5),
    "elu_": lambda lib, x: F(lib).elu_(x, -0.5),
    "celu_": lambda lib, x: F(lib).celu_(x, -0.5),
    "rrelu_ (eval)": lambda lib, x: F(lib).rrelu_(x, -0.5, -0.1),
}


@pytest.mark.parametrize("name", list(INPLACE_NEGATIVE))
def test_inplace_backward_with_negative_slope_raises(name):
    fn = INPLACE_NEGATIVE[name]

    def backward(lib):
        y = fn(lib, tensor(lib, VALUES, requires_grad=True) * 1.0)
        y.sum().backward()
    raises_like_torch(backward)


def test_integer_inplace():
    for fn in (lambda lib, x: x.relu_(), lambda lib, x: F(lib).relu6(x, inplace=True),
               lambda lib, x: F(lib).hardtanh_(x, -2, 3),
               lambda lib, x: lib.threshold_(x, 1, -4)):
        ours, theirs = (fn(lib, lib.tensor([-5, -1, 0, 2, 9], dtype=lib.int16))
                        for lib in (dyngrad, torch))
        assert_same_tensor(ours, theirs, "int16")
    raises_like_torch(lambda lib: lib.tensor([1, 2]).sigmoid_())
    raises_like_torch(lambda lib: F(lib).leaky_relu_(lib.tensor([1, 2])))
    raises_like_torch(lambda lib: lib.tensor([True]).relu_())


# -- rrelu -------------------------------------------------------------------------------------
def test_rrelu_eval_gradient_and_graph():
    fn = KINKS["rrelu (eval) at 0"][0]
    assert_like_torch(fn, VALUES)
    for lib in (torch, dyngrad):
        y = F(lib).rrelu(tensor(lib, VALUES, requires_grad=True), 0.1, 0.3)
        node = y.grad_fn
        assert type(node).__name__ == "RreluWithNoiseBackward0"
        assert (node._saved_lower, node._saved_upper, node._saved_training) == (0.1, 0.3, False)
        assert tuple(node._saved_noise.shape) == (8,)


def test_rrelu_training_draws_slopes_and_the_gradient_is_the_noise():
    dyngrad.manual_seed(0)
    x = tensor(dyngrad, VALUES * 4, requires_grad=True)
    y = F(dyngrad).rrelu(x, 0.1, 0.3, training=True)
    node = y.grad_fn
    assert type(node).__name__ == "RreluWithNoiseBackward0" and node._saved_training is True
    noise = node._saved_noise._data
    negative = x._data <= 0
    assert ((noise[negative] >= 0.1) & (noise[negative] <= 0.3)).all()
    assert (noise[~negative] == 1).all()
    np.testing.assert_allclose(y._data, x._data * noise)
    g, = dyngrad.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(g._data, noise)
    raises_like_torch(lambda lib: F(lib).rrelu(lib.tensor([1, -2]), training=True))
    raises_like_torch(lambda lib: F(lib).rrelu(lib.ones(2), 0.5, 0.1, training=True))


# -- errors ------------------------------------------------------------------------------------
ERRORS = {
    # arguments that are not tensors (each function names itself as torch does)
    **{f"F.{n}(2)": (lambda lib, n=n: getattr(F(lib), n)(2)) for n in (
        "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "elu", "elu_", "selu", "celu",
        "leaky_relu", "leaky_relu_", "gelu", "silu", "mish", "hardswish", "hardsigmoid",
        "logsigmoid", "softplus", "hardshrink", "softshrink", "rrelu", "rrelu_", "sigmoid",
        "softsign", "glu")},
    "F.threshold(2)": lambda lib: F(lib).threshold(2, 1.0, 2.0),
    "F.threshold_(2)": lambda lib: F(lib).threshold_(2, 1.0, 2.0),
    "F.silu(2, inplace)": lambda lib: F(lib).silu(2, inplace=True),
    "F.prelu(2, w)": lambda lib: F(lib).prelu(2, lib.ones(1)),
    "F.prelu(x, 0.3)": lambda lib: F(lib).prelu(lib.ones(2, 3), 0.3),
    "torch.sigmoid(2)": lambda lib: lib.sigmoid(2),
    "torch.logit(2)": lambda lib: lib.logit(2),
    "torch.relu(2)": lambda lib: lib.relu(2),
    "torch.selu_(2)": lambda lib: lib.selu_(2),
    # dtypes
    "relu bool": lambda lib: lib.relu(lib.tensor([True])),
    "relu complex": lambda lib: lib.relu(lib.tensor([1j])),
    "relu6 bool": lambda lib: F(lib).relu6(lib.tensor([True])),
    "hardtanh complex": lambda lib: F(lib).hardtanh(lib.tensor([1j])),
    "hardtanh uint8, negative limits": lambda lib: F(lib).hardtanh(
        lib.tensor([1, 2], dtype=lib.uint8)),
    "hardtanh_ uint8": lambda lib: F(lib).hardtanh_(lib.tensor([1, 2], dtype=lib.uint8)),
    "leaky_relu long": lambda lib: F(lib).leaky_relu(lib.tensor([1, -2])),
    "elu long": lambda lib: F(lib).elu(lib.tensor([1, -2])),
    "selu_ long": lambda lib: lib.selu_(lib.tensor([1, -2])),
    "gelu long": lambda lib: F(lib).gelu(lib.tensor([1, -2])),
    "silu bool": lambda lib: F(lib).silu(lib.tensor([True])),
    "mish complex": lambda lib: F(lib).mish(lib.tensor([1j])),
    "softplus long": lambda lib: F(lib).softplus(lib.tensor([1])),
    "threshold bool": lambda lib: F(lib).threshold(lib.tensor([True]), 0, 1),
    "logit complex": lambda lib: lib.logit(lib.tensor([1j])),
    "softshrink long": lambda lib: F(lib).softshrink(lib.tensor([1])),
    "prelu long": lambda lib: F(lib).prelu(lib.tensor([1, -2]), lib.tensor([1])),
    "glu long": lambda lib: F(lib).glu(lib.tensor([1, -2])),
    # argument values
    "hardtanh min > max": lambda lib: F(lib).hardtanh(lib.ones(2), 1.0, -1.0),
    "hardtanh min > max (non-tensor)": lambda lib: F(lib).hardtanh(2, 1.0, -1.0),
    "hardtanh int8 bound overflow": lambda lib: F(lib).hardtanh(
        lib.tensor([1], dtype=lib.int8), -1, 300),
    "hardtanh NaN bound on long": lambda lib: F(lib).hardtanh(lib.tensor([1]), float("nan"), 3),
    "hardtanh float16 bound overflow": lambda lib: F(lib).hardtanh(
        lib.ones(2, dtype=lib.float16), -1, 1e6),
    "threshold uint8 value overflow": lambda lib: F(lib).threshold(
        lib.tensor([0, 5], dtype=lib.uint8), 3, 300),
    "threshold float16 value overflow": lambda lib: F(lib).threshold(
        lib.ones(2, dtype=lib.float16), 3, 1e6),
    "threshold int NaN threshold": lambda lib: F(lib).threshold(lib.tensor([1]), float("nan"), 1),
    "hardshrink float16 lambd overflow": lambda lib: F(lib).hardshrink(
        lib.ones(1, dtype=lib.float16), 1e6),
    "softshrink negative lambd": lambda lib: F(lib).softshrink(lib.ones(2), -1),
    "softshrink negative lambd float64": lambda lib: F(lib).softshrink(
        lib.ones(2, dtype=lib.float64), -0.5),
    "softshrink float16 lambd too large": lambda lib: F(lib).softshrink(
        lib.ones(2, dtype=lib.float16), 1e5),
    "softshrink NaN lambd": lambda lib: F(lib).softshrink(lib.ones(2), float("nan")),
    "celu alpha 0": lambda lib: F(lib).celu(lib.ones(2), 0.0),
    "gelu approximate": lambda lib: F(lib).gelu(lib.ones(2), approximate="foo"),
    "gelu positional approximate": lambda lib: F(lib).gelu(lib.ones(2), "tanh"),
    "rrelu lower > upper": lambda lib: F(lib).rrelu(lib.ones(2), 0.5, 0.1),
    "glu scalar": lambda lib: F(lib).glu(lib.tensor(1.0)),
    "glu odd": lambda lib: F(lib).glu(lib.ones(3)),
    "glu odd dim 0": lambda lib: F(lib).glu(lib.ones(3, 4), 0),
    "glu dim out of range": lambda lib: F(lib).glu(lib.ones(2, 4), 2),
    "prelu channels": lambda lib: F(lib).prelu(lib.ones(2, 3, 4), lib.ones(4)),
    "prelu 1-d channels": lambda lib: F(lib).prelu(lib.ones(3), lib.ones(3)),
    "prelu 0-d input": lambda lib: F(lib).prelu(lib.tensor(1.0), lib.ones(3)),
    "prelu 2-d weight": lambda lib: F(lib).prelu(lib.ones(2, 3), lib.ones(1, 3)),
    "prelu dtypes": lambda lib: F(lib).prelu(lib.ones(2, 3), lib.ones(3, dtype=lib.float64)),
    # out=
    **{f"F.{n}(out=)": (lambda lib, n=n: getattr(F(lib), n)(lib.ones(2), out=lib.empty(2)))
       for n in ("relu", "relu6", "elu", "leaky_relu", "hardtanh", "silu", "mish", "selu",
                 "celu", "hardswish", "hardsigmoid", "sigmoid", "softsign", "glu", "rrelu")},
    "torch.relu(out=)": lambda lib: lib.relu(lib.ones(2), out=lib.empty(2)),
    "torch.prelu(out=)": lambda lib: lib.prelu(lib.ones(2), lib.ones(1), out=lib.empty(2)),
    "F.gelu(out=) with grad": lambda lib: F(lib).gelu(lib.ones(2, requires_grad=True),
                                                      out=lib.empty(2)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_error_like_torch(case):
    raises_like_torch(ERRORS[case])


def test_out_variants():
    for name, fn in {
        "F.gelu": lambda lib, x, o: F(lib).gelu(x, approximate="tanh", out=o),
        "F.softplus": lambda lib, x, o: F(lib).softplus(x, 2, out=o),
        "F.logsigmoid": lambda lib, x, o: F(lib).logsigmoid(x, out=o),
        "F.softshrink": lambda lib, x, o: F(lib).softshrink(x, 0.3, out=o),
        "torch.threshold": lambda lib, x, o: lib.threshold(x, 0.1, 5.0, out=o),
        "special.expit": lambda lib, x, o: lib.special.expit(x, out=o),
    }.items():
        res = []
        for lib in (dyngrad, torch):
            out = lib.empty(0)
            r = fn(lib, tensor(lib, VALUES, "float32"), out)
            assert r is out
            res.append(out)
        assert_same_tensor(*res, name)


def test_logsigmoid_saves_torch_buffer():
    nodes = [F(lib).logsigmoid(tensor(lib, VALUES, requires_grad=True)).grad_fn
             for lib in (dyngrad, torch)]
    np.testing.assert_allclose(nodes[0]._saved_buffer._data, nodes[1]._saved_buffer.numpy())


def test_relu_of_integers_keeps_the_dtype():
    for dtype in ("uint8", "int8", "int64"):
        ours, theirs = (lib.relu(lib.tensor([0, 3, 7], dtype=getattr(lib, dtype)))
                        for lib in (dyngrad, torch))
        assert_same_tensor(ours, theirs, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_at_infinity(dtype):
    """gelu(+inf) = inf (and gelu(-inf) = -inf * 0 = NaN) in both dtypes, as torch's float64
    and AVX2 kernels give (its AVX-512 float32 kernel gives NaN for +inf too, so the op database
    leaves ±inf out there)."""
    x = [float("inf"), float("-inf")] * 16
    ours = F(dyngrad).gelu(dyngrad.tensor(x, dtype=getattr(dyngrad, dtype)))
    theirs = F(torch).gelu(torch.tensor(x, dtype=torch.float64))
    assert theirs[0].item() == float("inf")
    assert np.array_equal(ours.numpy(), theirs.numpy().astype(dtype), equal_nan=True)


def _with_specials(shape, dtype):
    x = np.random.default_rng(5).standard_normal(shape).astype(dtype) * 4
    flat = x.reshape(-1)
    flat[:9] = [-0.0, 0.0, np.nan, -np.inf, np.inf, 6.0, -3.0, 0.5, -1.0]   # bounds and specials
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(16, 256), (64, 256), (512, 256)])
def test_maximum_and_minimum_against_a_number_are_numpys(shape, dtype):
    # Note [Maximum and minimum against a number]: the same bits as NumPy's scalar loop, but
    # x itself where x ties with the bound (a signed zero), as torch's clamp
    from dyngrad.backends import numpy_backend as B
    x = _with_specials(shape, dtype)
    bounds = [0, 0.0, -0.0, 1, -1.5, 6, np.inf, -np.inf, np.nan, 2 ** 60, dtype(0.25),
              np.float16(1.0)]
    for layout in (x, np.asfortranarray(x)):
        for bound in bounds:
            for ours, theirs in ((B.maximum, np.maximum), (B.minimum, np.minimum)):
                got, want = ours(layout, bound), theirs(layout, bound)
                assert got.dtype == want.dtype and got.strides == want.strides, bound
                tie = layout == bound
                want[tie] = layout[tie]
                assert got.tobytes() == want.tobytes(), (bound, ours)   # (signed zeros, NaNs)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 64, 5000, 20000])
def test_bounds_keep_the_sign_of_a_zero_input_as_torch(n, dtype):
    # torch's clamp keeps x where x ties with its bound: relu(-0.0) is -0.0, and clamping
    # +0.0 at max=-0.0 leaves +0.0 (printed "-0." and "0.": the sign is observable)
    x = np.zeros(n, dtype)
    x[::2] = -0.0
    fns = {
        "relu": lambda lib, t: lib.relu(t),
        "relu_": lambda lib, t: lib.relu_(t.clone()),
        "clamp min 0": lambda lib, t: lib.clamp(t, min=0),
        "clamp max -0.0": lambda lib, t: lib.clamp(t, max=-0.0),
        "clamp -0.0..0.0": lambda lib, t: lib.clamp(t, -0.0, 0.0),
        "Tensor.clamp min 0.0": lambda lib, t: t.clamp(min=0.0),
        "Tensor.clamp max 0": lambda lib, t: t.clamp(max=0),
        "hardtanh 0..1": lambda lib, t: F(lib).hardtanh(t, 0.0, 1.0),
        "hardtanh -1..-0.0": lambda lib, t: F(lib).hardtanh(t, -1.0, -0.0),
        "relu6": lambda lib, t: F(lib).relu6(t),
    }
    for name, fn in fns.items():
        ours = fn(dyngrad, dyngrad.tensor(x)).numpy()
        theirs = fn(torch, torch.tensor(x)).numpy()
        assert ours.dtype == theirs.dtype, name
        assert np.signbit(ours).tolist() == np.signbit(theirs).tolist(), name


@pytest.mark.parametrize("shape", [(64, 256), (32, 8, 28, 28)])
def test_bounded_activations_on_large_inputs_like_torch(shape):
    x = _with_specials(shape, np.float32)
    fns = {
        "relu": lambda lib, t: lib.relu(t),
        "clamp min": lambda lib, t: lib.clamp(t, min=-0.5),
        "clamp max": lambda lib, t: lib.clamp(t, max=0.5),
        "clamp both": lambda lib, t: lib.clamp(t, -1.0, 2),
        "hardtanh": lambda lib, t: F(lib).hardtanh(t),
        "relu6": lambda lib, t: F(lib).relu6(t),
        "hardsigmoid": lambda lib, t: F(lib).hardsigmoid(t),
        "hardswish": lambda lib, t: F(lib).hardswish(t),
    }
    for name, fn in fns.items():
        ours, theirs = fn(dyngrad, dyngrad.tensor(x)), fn(torch, torch.tensor(x))
        assert str(ours.dtype) == str(theirs.dtype) and ours.stride() == theirs.stride(), name
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7,
                                   equal_nan=True, err_msg=name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(32, 256), (8, 3, 5)])
def test_masked_gradients_like_torch_bit_for_bit(shape, dtype):
    """relu, threshold and hardtanh pass the gradient where the input is kept (NaN included)
    and +0 elsewhere, whatever the gradient holds there (NaN, ±inf, -0.0): the same bits as
    torch, for contiguous gradients (the masked fast kernel) and transposed ones. (hardtanh
    gets no NaN input: torch's vectorised loop and scalar tail disagree there, see above.)"""
    x = _with_specials(shape, dtype)
    g = np.random.default_rng(6).standard_normal(shape).astype(dtype)
    g.reshape(-1)[:12] = [np.nan, np.inf, -np.inf, -0.0] * 3
    g.reshape(-1)[-4:] = [np.nan, np.inf, -np.inf, -0.0]
    x.reshape(-1)[-4:] = [-1.0, -2.0, np.nan, 3.0]
    fns = {
        "relu": lambda lib, t: lib.relu(t),
        "threshold": lambda lib, t: F(lib).threshold(t, 0.5, 2.0),
        "hardtanh": lambda lib, t: F(lib).hardtanh(t),
    }
    for name, fn in fns.items():
        for transpose in (False, True):
            grads = []
            for lib in (dyngrad, torch):
                t = lib.tensor(np.nan_to_num(x, nan=0.25) if name == "hardtanh" else x,
                               requires_grad=True)
                gt = lib.tensor(g)
                if transpose:
                    gt = gt.transpose(0, 1).contiguous().transpose(0, 1)
                fn(lib, t).backward(gt)
                grads.append(t.grad.numpy())
            ours, theirs = grads
            assert ours.dtype == theirs.dtype, name
            assert np.array_equal(ours, theirs, equal_nan=True), (name, transpose)
            assert np.signbit(ours).tolist() == np.signbit(theirs).tolist(), (name, transpose)
