"""The layout (strides) and values of gradients from pointwise backward formulas, against torch.

torch computes most pointwise gradients with a TensorIterator kernel, and when its operands
disagree on a layout the first of them decides (Note [Output layout of pointwise ops]): relu's
and leaky_relu's backward follow the input, elu's, softplus's and hardswish's the incoming
gradient; some formulas end in ``masked_fill`` or write into a contiguous buffer (mse_loss,
glu), so their gradients are contiguous whatever the operands. Each case below runs on both
libraries with every operand (inputs and incoming gradient) in a different layout: contiguous,
channels_last (channels_last_3d for 5-D) or permuted (dense, neither of those), in turn.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import dyngrad

SHAPES = {4: (2, 4, 3, 5), 5: (2, 4, 3, 2, 3)}
_PERMUTED = {4: (2, 0, 3, 1), 5: (3, 1, 4, 0, 2)}


def _values(shape, domain, salt):
    """Fixed, tie-free values of `domain` (a scrambled ramp: the same for both libraries)."""
    n = int(np.prod(shape))
    u = ((np.arange(n) * 37 + 11 * salt) % n + 0.5) / n
    if domain == "sign":
        return np.where(u > 0.5, 1.0, -1.0).reshape(shape).astype(np.float32)
    low, width = {"real": (-2.5, 5.0), "pos": (0.2, 2.8), "prob": (0.05, 0.9)}[domain]
    return (low + width * u).reshape(shape).astype(np.float32)


def _laid_out(lib, arr, layout):
    t = lib.tensor(arr)
    if layout == "contiguous":
        return t
    if layout == "channels_last":
        fmt = lib.channels_last if arr.ndim == 4 else lib.channels_last_3d
        return t.contiguous(memory_format=fmt)
    perm = _PERMUTED[arr.ndim]
    inverse = [perm.index(i) for i in range(arr.ndim)]
    return lib.tensor(np.ascontiguousarray(arr.transpose(perm))).permute(*inverse)


def F(lib):
    return lib.nn.functional


_CHANNEL_WEIGHT = [0.1, -0.2, 0.3, 0.05]

# name -> (function of (lib, *inputs), domains of the inputs; the incoming gradient comes last)
CASES = {
    # activations whose backward kernel follows the input (self first)
    "relu": (lambda L, x: F(L).relu(x), ["real"]),
    "relu_": (lambda L, x: F(L).relu(x * 1, inplace=True), ["real"]),
    "threshold": (lambda L, x: F(L).threshold(x, 0.1, 20.0), ["real"]),
    "leaky_relu": (lambda L, x: F(L).leaky_relu(x, 0.2), ["real"]),
    "leaky_relu_": (lambda L, x: F(L).leaky_relu(x * 1, 0.2, inplace=True), ["real"]),
    "rrelu eval": (lambda L, x: F(L).rrelu(x, training=False), ["real"]),
    "prelu": (lambda L, x: F(L).prelu(x, L.tensor(_CHANNEL_WEIGHT)), ["real"]),
    "prelu one weight": (lambda L, x: F(L).prelu(x, L.tensor([0.25])), ["real"]),
    # ... and those that follow the incoming gradient
    "elu": (lambda L, x: F(L).elu(x), ["real"]),
    "elu_": (lambda L, x: F(L).elu(x * 1, inplace=True), ["real"]),
    "selu": (lambda L, x: F(L).selu(x), ["real"]),
    "celu": (lambda L, x: F(L).celu(x, 1.5), ["real"]),
    "celu_": (lambda L, x: F(L).celu(x * 1, 1.5, inplace=True), ["real"]),
    "hardswish": (lambda L, x: F(L).hardswish(x), ["real"]),
    "hardswish_": (lambda L, x: F(L).hardswish(x * 1, inplace=True), ["real"]),
    "softplus": (lambda L, x: F(L).softplus(x), ["real"]),
    "softplus beta": (lambda L, x: F(L).softplus(x, 2.0, 1.0), ["real"]),
    "logit": (lambda L, x: L.logit(x), ["prob"]),
    "logit eps": (lambda L, x: L.logit(x, 0.1), ["prob"]),
    "gelu": (lambda L, x: F(L).gelu(x), ["real"]),
    "silu": (lambda L, x: F(L).silu(x), ["real"]),
    "sigmoid": (lambda L, x: L.sigmoid(x), ["real"]),
    "tanh": (lambda L, x: L.tanh(x), ["real"]),
    "hardtanh": (lambda L, x: F(L).hardtanh(x), ["real"]),
    "hardsigmoid": (lambda L, x: F(L).hardsigmoid(x), ["real"]),
    "softshrink": (lambda L, x: F(L).softshrink(x), ["real"]),
    # contiguous whatever the layouts
    "glu": (lambda L, x: F(L).glu(x, 1), ["real"]),
    "sgn": (lambda L, x: L.sgn(x), ["real"]),
    # zeros laid out as the input
    "angle": (lambda L, x: L.angle(x), ["real"]),
    # unary math (matching already: kept as a guard)
    "exp": (lambda L, x: L.exp(x), ["real"]),
    "sqrt": (lambda L, x: L.sqrt(x), ["pos"]),
    "pow": (lambda L, x: x.pow(3), ["real"]),
    "clamp": (lambda L, x: x.clamp(-1, 1), ["real"]),
    "rpow": (lambda L, x: 2 ** x, ["real"]),
    "xlogy number": (lambda L, x: L.xlogy(x, 2.0), ["real"]),
    "xlogy negative number": (lambda L, x: L.xlogy(x, -1.0), ["real"]),
    # binary
    "mul": (lambda L, a, b: a * b, ["real", "real"]),
    "div": (lambda L, a, b: a / b, ["real", "pos"]),
    "atan2": (lambda L, a, b: L.atan2(a, b), ["real", "real"]),
    "maximum": (lambda L, a, b: L.maximum(a, b), ["real", "real"]),
    "minimum": (lambda L, a, b: L.minimum(a, b), ["real", "real"]),
    "fmax": (lambda L, a, b: L.fmax(a, b), ["real", "real"]),
    "fmin": (lambda L, a, b: L.fmin(a, b), ["real", "real"]),
    "copysign": (lambda L, a, b: L.copysign(a, b), ["real", "real"]),
    "nextafter": (lambda L, a, b: L.nextafter(a, b), ["real", "real"]),
    "xlogy": (lambda L, a, b: L.xlogy(a, b), ["real", "pos"]),
    "xlog1py": (lambda L, a, b: L.special.xlog1py(a, b), ["real", "pos"]),
    "where": (lambda L, a, b: L.where(a > 0.3, a, b), ["real", "real"]),
    "lerp": (lambda L, a, b, w: L.lerp(a, b, w), ["real", "real", "real"]),
    "addcdiv": (lambda L, a, b, c: L.addcdiv(a, b, c, value=0.5), ["real", "real", "pos"]),
    # losses, elementwise
    "mse_loss": (lambda L, x, t: F(L).mse_loss(x, t, reduction="none"), ["real", "real"]),
    "smooth_l1_loss": (lambda L, x, t: F(L).smooth_l1_loss(x, t, reduction="none"),
                       ["real", "real"]),
    "huber_loss": (lambda L, x, t: F(L).huber_loss(x, t, reduction="none", delta=0.5),
                   ["real", "real"]),
    "l1_loss": (lambda L, x, t: F(L).l1_loss(x, t, reduction="none"), ["real", "real"]),
    "binary_cross_entropy": (lambda L, x, t: F(L).binary_cross_entropy(x, t, reduction="none"),
                             ["prob", "prob"]),
    "binary_cross_entropy weight": (
        lambda L, x, t, w: F(L).binary_cross_entropy(x, t, w.detach(), reduction="none"),
        ["prob", "prob", "pos"]),
    "bce_with_logits": (lambda L, x, t: F(L).binary_cross_entropy_with_logits(
        x, t, reduction="none"), ["real", "prob"]),
    "bce_with_logits weight": (lambda L, x, t, w: F(L).binary_cross_entropy_with_logits(
        x, t, w.detach(), reduction="none"), ["real", "prob", "pos"]),
    "bce_with_logits pos_weight": (lambda L, x, t, p: F(L).binary_cross_entropy_with_logits(
        x, t, pos_weight=p.detach(), reduction="none"), ["real", "prob", "pos"]),
    "kl_div": (lambda L, x, t: F(L).kl_div(x, t, reduction="none"), ["real", "prob"]),
    "kl_div log_target": (lambda L, x, t: F(L).kl_div(x, t, reduction="none", log_target=True),
                          ["real", "real"]),
    "poisson_nll_loss": (lambda L, x, t: F(L).poisson_nll_loss(x, t, reduction="none"),
                         ["real", "pos"]),
    "margin_ranking_loss": (lambda L, a, b, t: F(L).margin_ranking_loss(
        a, b, t.sign(), reduction="none"), ["real", "real", "sign"]),
    # losses, reduced (the incoming gradient is a number)
    "mse_loss mean": (lambda L, x, t: F(L).mse_loss(x, t), ["real", "real"]),
    "huber_loss sum": (lambda L, x, t: F(L).huber_loss(x, t, reduction="sum"), ["real", "real"]),
    "smooth_l1_loss mean": (lambda L, x, t: F(L).smooth_l1_loss(x, t), ["real", "real"]),
    "margin_ranking_loss mean": (lambda L, a, b, t: F(L).margin_ranking_loss(a, b, t.sign()),
                                 ["real", "real", "sign"]),
    "poisson_nll_loss sum": (lambda L, x, t: F(L).poisson_nll_loss(x, t, reduction="sum"),
                             ["real", "pos"]),
    "triplet_margin_loss": (lambda L, a, p, n: F(L).triplet_margin_loss(a, p, n, reduction="none"),
                            ["real", "real", "real"]),
}



def _combos(n):
    """Layouts for n operands (the incoming gradient last): each permutation of the three
    layouts, repeated along them; the gradient's always differs from the first input's."""
    combos = []
    for p in itertools.permutations(("contiguous", "channels_last", "permuted")):
        combo = [p[i % 3] for i in range(n)]
        if n > 1 and combo[-1] == combo[0]:
            combo[-1] = p[1]
        combos.append(tuple(combo))
    return combos


PARAMS = [pytest.param(name, nd, combo, id=f"{name}-{nd}d-{'-'.join(combo)}")
          for name, (_, domains) in CASES.items() for nd in (4, 5)
          for combo in _combos(len(domains) + 1)]


def _run(lib, name, nd, combo, create_graph=False):
    fn, domains = CASES[name]
    shape = SHAPES[nd]
    inputs = [_laid_out(lib, _values(shape, d, i + 1), layout).requires_grad_()
              for i, (d, layout) in enumerate(zip(domains, combo))]
    y = fn(lib, *inputs)
    grad = lib.tensor(_values(tuple(y.shape), "real", 7))
    if y.dim() in SHAPES:
        grad = _laid_out(lib, grad.numpy(), combo[-1])
    grads = lib.autograd.grad(y, inputs, grad, allow_unused=True, create_graph=create_graph)
    return [(None, None) if g is None else (tuple(g.stride()), _numpy(g)) for g in (y,) + grads]


def _numpy(t):
    if isinstance(t, torch.Tensor) and t._is_zerotensor():   # (sgn's: torch's efficient zeros)
        return np.zeros(tuple(t.shape), np.float32)
    return t.detach().numpy()


def _compare(name, nd, combo, create_graph=False):
    ours = _run(dyngrad, name, nd, combo, create_graph)
    theirs = _run(torch, name, nd, combo, create_graph)
    assert [s for s, _ in ours] == [s for s, _ in theirs], "strides of (result, gradients...)"
    for (_, a), (_, b) in zip(ours, theirs):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, nd, combo", PARAMS)
def test_gradient_layout_like_torch(name, nd, combo):
    _compare(name, nd, combo)


# torch's logit backward is a kernel (the incoming gradient first) without create_graph, and a
# where() on the input (the input first) with it; the others keep their layout
@pytest.mark.parametrize("name", ["logit", "logit eps", "relu", "elu", "softplus", "hardswish",
                                  "leaky_relu", "glu", "mse_loss", "maximum", "fmax"])
@pytest.mark.parametrize("combo", _combos(3))
def test_double_backward_graph_layout_like_torch(name, combo):
    n = len(CASES[name][1]) + 1
    _compare(name, 4, combo[:n], create_graph=True)


def test_hardswish_gradient_is_torch_node():
    # hardswish's gradient is an op of its own, as torch's (its kernel decides the layout)
    names = []
    for lib in (dyngrad, torch):
        x = lib.linspace(-4, 4, 9).requires_grad_()
        g, = lib.autograd.grad(F(lib).hardswish(x), x, lib.ones(9), create_graph=True)
        names.append(type(g.grad_fn).__name__)
    assert names[0] == names[1] == "HardswishBackwardBackward0"


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("eps", [None, 0.1, -1.0])
def test_logit_gradient_outside_the_bounds_like_torch(eps, create_graph):
    # without create_graph torch's kernel reads a negative eps as none; its differentiable form
    # (with create_graph) bounds the input by [eps, 1 - eps] whatever eps's sign
    got = []
    for lib in (dyngrad, torch):
        x = lib.tensor([float("nan"), 0.0, 1.0, 0.05, 0.5, 2.0, -1.0] * 3,
                       dtype=lib.float64).requires_grad_()
        g, = lib.autograd.grad(lib.logit(x, eps), x, lib.full((21,), -1.0, dtype=lib.float64),
                               create_graph=create_graph)
        got.append(g.detach().numpy())
    np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "permuted"])
def test_pow_of_a_number_is_contiguous(layout):
    # torch.pow(Scalar, Tensor) allocates its result contiguous, whatever the exponent's layout
    results = [_laid_out(lib, _values(SHAPES[4], "real", 1), layout) for lib in (dyngrad, torch)]
    for fn in (lambda L, x: 2 ** x, lambda L, x: L.pow(2.5, x), lambda L, x: L.float_power(2, x)):
        ours, theirs = fn(dyngrad, results[0]), fn(torch, results[1])
        assert ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "permuted"])
def test_rrelu_noise_is_contiguous(layout):
    # torch draws rrelu's slopes into a contiguous buffer: its gradient is laid out as that
    got = []
    for lib in (dyngrad, torch):
        x = _laid_out(lib, _values(SHAPES[4], "real", 1), layout).requires_grad_()
        y = F(lib).rrelu(x, training=True)
        noise = y.grad_fn._saved_noise
        g, = lib.autograd.grad(y, x, _laid_out(lib, _values(SHAPES[4], "real", 7), layout))
        got.append((y.stride(), g.stride(), noise.stride()))
    assert got[0] == got[1]


# An in-place op whose formula reads the input saves a copy of it before the write, in the
# input's layout as torch's ``self.clone()``: the gradient of a formula that starts from the
# input is laid out after it.
@pytest.mark.parametrize("name", ["threshold_", "clamp_", "clamp_min_"])
def test_inplace_saved_input_layout_like_torch(name):
    fns = {"threshold_": lambda L, x: F(L).threshold(x, 0.1, 20.0, inplace=True),
           "clamp_": lambda L, x: x.clamp_(-1, 1), "clamp_min_": lambda L, x: x.clamp_(min=0)}
    got = []
    for lib in (dyngrad, torch):
        x = _laid_out(lib, _values(SHAPES[4], "real", 1), "channels_last").requires_grad_()
        y = fns[name](lib, x * 1)
        g, = lib.autograd.grad(y, x, lib.tensor(_values(SHAPES[4], "real", 7)))
        got.append(g.stride())
    assert got[0] == got[1]


@pytest.mark.parametrize("reduction", ["none", "mean"])
@pytest.mark.parametrize("which", ["weight", "pos_weight"])
def test_bce_with_logits_weight_wider_than_input_raises_like_torch(which, reduction):
    # torch multiplies the loss in place by the weights: they may not widen it
    errors = []
    for lib in (dyngrad, torch):
        kwargs = {which: lib.ones(3, 4), "reduction": reduction}
        with pytest.raises(RuntimeError) as info:
            F(lib).binary_cross_entropy_with_logits(lib.zeros(4), lib.full((4,), 0.5), **kwargs)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
