"""Normalisation and embedding against live torch, beyond the op database
(tests/opinfo/normalization.py, embedding.py): running statistics updated in place (values and
version counters), the saved statistics, eval mode, instance norm's running statistics,
embedding's padding_idx / scale_grad_by_freq / max_norm / double backward, embedding_bag's
gradients, and torch's errors.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from ops._grad_support import assert_grads_close
from compare import same_outcome
from ops.test_forward import assert_same_error, assert_same_tensor, call

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 3, 5))
RM = RNG.standard_normal(3)
RV = RNG.random(3) + 0.5


def F(lib):
    return lib.nn.functional


def t(lib, a, requires_grad=False):
    return lib.tensor(np.asarray(a), requires_grad=requires_grad)


def raises_like_torch(fn):
    _, texc = call(fn, (torch,), {})
    assert texc is not None, "torch did not raise: the case is wrong"
    _, exc = call(fn, (dyngrad,), {})
    assert_same_error(exc, texc, "dyngrad vs torch")


# -- running statistics ----------------------------------------------------------------------------
@pytest.mark.parametrize("momentum", [0.1, 0.5, 1.0])
def test_batch_norm_updates_running_stats_like_torch(momentum):
    out = {}
    for lib in (torch, dyngrad):
        rm, rv = t(lib, RM), t(lib, RV)
        y = F(lib).batch_norm(t(lib, X), rm, rv, training=True, momentum=momentum)
        out[lib] = (y, rm, rv)
    for a, b in zip(out[dyngrad], out[torch]):
        assert_same_tensor(a, b, "batch_norm training")
    # torch's kernel writes the statistics without bumping their version
    assert out[dyngrad][1]._version == out[torch][1]._version


def test_batch_norm_running_var_is_unbiased_and_normalisation_biased():
    x = dyngrad.tensor(X)
    rm, rv = dyngrad.zeros(3, dtype=dyngrad.float64), dyngrad.ones(3, dtype=dyngrad.float64)
    y = F(dyngrad).batch_norm(x, rm, rv, training=True, momentum=1.0)
    np.testing.assert_allclose(rv.numpy(), X.var(axis=(0, 2), ddof=1), rtol=1e-12)
    np.testing.assert_allclose(rm.numpy(), X.mean(axis=(0, 2)), rtol=1e-12)
    expected = (X - X.mean(axis=(0, 2), keepdims=True)) / np.sqrt(
        X.var(axis=(0, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10)


def test_batch_norm_eval_uses_running_stats():
    for lib in (torch, dyngrad):
        y = F(lib).batch_norm(t(lib, X), t(lib, RM), t(lib, RV), training=False)
        expected = (X - RM[:, None]) / np.sqrt(RV[:, None] + 1e-5)
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_saved_statistics(training):
    res = {}
    for lib in (torch, dyngrad):
        x, w = t(lib, X, True), t(lib, np.ones(3), True)
        y = F(lib).batch_norm(x, t(lib, RM), t(lib, RV), w, None, training)
        fn = y.grad_fn
        res[lib] = (type(fn).__name__, fn._saved_result1, fn._saved_result2, fn._saved_training,
                    fn._saved_eps)
    assert res[dyngrad][0] == res[torch][0] == "NativeBatchNormBackward0"
    assert_same_tensor(res[dyngrad][1], res[torch][1], "save_mean")
    assert_same_tensor(res[dyngrad][2], res[torch][2], "save_invstd")
    assert res[dyngrad][3:] == res[torch][3:]


def test_instance_norm_running_stats_like_torch():
    out = {}
    for lib in (torch, dyngrad):
        rm, rv = t(lib, RM), t(lib, RV)
        y = F(lib).instance_norm(t(lib, X), rm, rv, momentum=0.3)
        out[lib] = (y, rm, rv, rm._version)
    for a, b in zip(out[dyngrad][:3], out[torch][:3]):
        assert_same_tensor(a, b, "instance_norm")
    assert out[dyngrad][3] == out[torch][3]


def test_double_backward_of_training_batch_norm():
    res = {}
    w0 = RNG.standard_normal(3)
    for lib in (torch, dyngrad):
        x, w = t(lib, X, True), t(lib, w0, True)
        y = F(lib).batch_norm(x, None, None, w, None, True)
        g = t(lib, np.linspace(-1, 1, X.size).reshape(X.shape))
        gx, gw = lib.autograd.grad(y, (x, w), g, create_graph=True)
        res[lib] = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (x, w))
    assert_grads_close(list(res[dyngrad]), list(res[torch]), "bn gradgrad", (1e-9, 1e-9))


# -- errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda lib: F(lib).batch_norm(t(lib, X), None, None, training=False),
    lambda lib: F(lib).batch_norm(lib.ones(1, 3), None, None, training=True),
    lambda lib: F(lib).batch_norm(t(lib, X), lib.zeros(4), t(lib, RV), training=True),
    lambda lib: F(lib).batch_norm(lib.ones(2, 3, dtype=lib.int64), None, None, training=True),
    lambda lib: F(lib).layer_norm(lib.ones(2, 3, dtype=lib.int32), (3,)),
    lambda lib: F(lib).layer_norm(lib.ones(2, 3), ()),
    lambda lib: F(lib).group_norm(lib.ones(2, 4, dtype=lib.int64), 2),
    lambda lib: F(lib).group_norm(lib.ones(3), 1),
    lambda lib: F(lib).group_norm(lib.ones(1, 2), 2),
    lambda lib: F(lib).group_norm(lib.ones(2, 4), 2, lib.ones(3)),
    lambda lib: F(lib).instance_norm(lib.ones(2, 3, 1)),
    lambda lib: F(lib).rms_norm(lib.ones(2, 3, dtype=lib.int64), (3,)),
    lambda lib: F(lib).rms_norm(lib.ones(2, 3), (5, 2, 3)),
    lambda lib: F(lib).rms_norm(lib.ones(2, 3), (3,), lib.ones(2)),
    lambda lib: F(lib).normalize(lib.ones(2, 3, dtype=lib.int64)),
])
def test_errors_like_torch(case):
    raises_like_torch(case)


# -- embedding -------------------------------------------------------------------------------------
W = RNG.standard_normal((6, 3))


def test_embedding_padding_idx_gets_no_gradient():
    res = {}
    for lib in (torch, dyngrad):
        w = t(lib, W, True)
        y = F(lib).embedding(lib.tensor([[0, 2], [2, 5]]), w, padding_idx=2)
        y.backward(t(lib, np.arange(12.0).reshape(2, 2, 3)))
        res[lib] = w.grad
    assert_same_tensor(res[dyngrad], res[torch], "embedding grad")
    assert not res[dyngrad][2].any()


def test_embedding_scale_grad_by_freq_and_double_backward():
    res = {}
    for lib in (torch, dyngrad):
        w = t(lib, W, True)
        y = F(lib).embedding(lib.tensor([1, 1, 4, 1, 0]), w, scale_grad_by_freq=True)
        g = t(lib, np.arange(15.0).reshape(5, 3), True)
        gw, = lib.autograd.grad(y, w, g, create_graph=True)
        gg, = lib.autograd.grad((gw * gw).sum(), g)
        res[lib] = (gw, gg)
    assert_grads_close(list(res[dyngrad]), list(res[torch]), "embedding", (1e-12, 1e-12))


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renorms_in_place(norm_type):
    res = {}
    for lib in (torch, dyngrad):
        w = t(lib, W * 3, True)
        y = F(lib).embedding(lib.tensor([1, 1, 4]), w, max_norm=1.5, norm_type=norm_type)
        res[lib] = (y, w.detach().clone(), w._version, type(y.grad_fn).__name__)
    assert_same_tensor(res[dyngrad][0], res[torch][0], "output")
    assert_same_tensor(res[dyngrad][1], res[torch][1], "renormed weight")
    assert res[dyngrad][2:] == res[torch][2:]


@pytest.mark.parametrize("case", [
    lambda lib: F(lib).embedding(lib.tensor([1.0]), lib.ones(3, 2)),
    lambda lib: F(lib).embedding(lib.tensor([3]), lib.ones(3, 2)),
    lambda lib: F(lib).embedding(lib.tensor([-1]), lib.ones(3, 2)),
    lambda lib: F(lib).embedding(lib.tensor([1]), lib.ones(3)),
    lambda lib: F(lib).embedding(lib.tensor([1]), lib.ones(3, 2), padding_idx=3),
    lambda lib: F(lib).embedding(lib.tensor([1]), lib.ones(3, 2), padding_idx=-4),
])
def test_embedding_errors_like_torch(case):
    raises_like_torch(case)


def test_embedding_double_backward_graph_and_padding():
    res = {}
    for lib in (torch, dyngrad):
        w = t(lib, W, True)
        idx = lib.tensor([[1, 3], [3, 0]])
        y = F(lib).embedding(idx, w, padding_idx=3)
        g = t(lib, np.arange(12.0).reshape(2, 2, 3), True)
        gw, = lib.autograd.grad(y, w, g, create_graph=True)
        gg, = lib.autograd.grad((gw * gw).sum(), g)
        res[lib] = (gw, gg, type(gw.grad_fn).__name__, gw.grad_fn._saved_padding_idx)
    assert_grads_close(list(res[dyngrad][:2]), list(res[torch][:2]), "embedding", (0, 0))
    assert res[dyngrad][2:] == res[torch][2:]


# -- embedding_bag ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_gradients_like_torch(mode, padding_idx):
    res = {}
    psw0 = RNG.random(8)
    for lib in (torch, dyngrad):
        w = t(lib, W, True)
        psw = t(lib, psw0, True) if mode == "sum" else None
        idx, off = lib.tensor([1, 2, 4, 5, 4, 3, 2, 0]), lib.tensor([0, 2, 2, 5])
        y = F(lib).embedding_bag(idx, w, off, mode=mode, per_sample_weights=psw,
                                 padding_idx=padding_idx)
        leaves = (w,) if psw is None else (w, psw)
        g = lib.autograd.grad(y, leaves, t(lib, np.arange(12.0).reshape(4, 3)))
        res[lib] = [y] + list(g)
    assert_grads_close(res[dyngrad], res[torch], "embedding_bag", (1e-12, 1e-12))


def test_embedding_bag_scale_grad_by_freq_is_documented_scaling():
    """Deliberate difference: torch's CPU kernel scales some rows by other rows' counts; dyngrad
    divides each row's gradient by how often that row occurs (the documented behaviour)."""
    w = dyngrad.zeros(6, 1, dtype=dyngrad.float64, requires_grad=True)
    idx, off = dyngrad.tensor([1, 2, 4, 5, 4, 3, 2, 0]), dyngrad.tensor([0, 2, 2, 5])
    y = F(dyngrad).embedding_bag(idx, w, off, mode="sum", scale_grad_by_freq=True)
    g, = dyngrad.autograd.grad(y, w, dyngrad.tensor([[1.0], [10.0], [100.0], [1000.0]],
                                                    dtype=dyngrad.float64))
    assert g.reshape(-1).tolist() == [1000.0, 1.0, 500.5, 1000.0, 100.0, 100.0]


@pytest.mark.parametrize("case", [
    lambda lib: F(lib).embedding_bag(lib.tensor([1, 2]), lib.ones(3, 2)),
    lambda lib: F(lib).embedding_bag(lib.tensor([1, 2]), lib.ones(3), lib.tensor([0])),
    lambda lib: F(lib).embedding_bag(lib.tensor([1, 2]), lib.ones(3, 2), lib.tensor([0]),
                                     mode="max", scale_grad_by_freq=True),
    lambda lib: F(lib).embedding_bag(lib.tensor([1, 2]), lib.ones(3, 2), lib.tensor([0]),
                                     per_sample_weights=lib.ones(3)),
    lambda lib: F(lib).embedding_bag(lib.tensor([1, 7]), lib.ones(3, 2), lib.tensor([0])),
    lambda lib: F(lib).embedding_bag(lib.tensor([1, -2, 1]), lib.ones(3, 2), lib.tensor([0])),
    lambda lib: F(lib).embedding_bag(lib.tensor([1, 2]), lib.ones(3, 2, dtype=lib.int64),
                                     lib.tensor([0])),
])
def test_embedding_bag_errors_like_torch(case):
    raises_like_torch(case)


# -- rms_norm: torch's composite (float32 compute for float16, its eps; suggested layout) --------
def _graph(fn):
    """The node names of a graph, depth first (each node once)."""
    names, seen, stack = [], set(), [fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.append(node.name())
        stack.extend(n for n, _ in reversed(node.next_functions))
    return names


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_rms_norm_like_torch(dtype, weighted, layout):
    data = np.linspace(-2e-3, 3e-3, 15).reshape(3, 5)   # small: the default eps matters
    out = []
    for lib in (torch, dyngrad):
        dt = getattr(lib, dtype)
        x = lib.tensor(data, dtype=dt) if layout == "contiguous" else \
            lib.tensor(data.T.copy(), dtype=dt).t()
        x.requires_grad_()
        w = lib.linspace(0.5, 1.5, 5, dtype=dt).requires_grad_() if weighted else None
        y = lib.nn.functional.rms_norm(x, (5,), w)
        gx, = lib.autograd.grad(y, x, lib.ones_like(y))
        out.append((str(y.dtype), y.stride(), _graph(y.grad_fn), y.detach().double().numpy(),
                    gx.double().numpy()))
    (dt0, s0, g0, y0, gx0), (dt1, s1, g1, y1, gx1) = out
    assert (dt1, s1, g1) == (dt0, s0, g0)
    tol = 2e-3 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(y1, y0, rtol=tol, atol=tol)
    np.testing.assert_allclose(gx1, gx0, rtol=tol, atol=tol)


_BN_SIZES = [(3, 4, 4, 4), (None, 3, 4, 4), (None, 4, 3, 4), (4, 4, 4, 3), (4, None, 3, 4),
             (None, 4, None, None), (4, None, 4, 4), (None, None, 4, 3)]


# (no running statistics in evaluation mode is left out: torch's native op crashes on it)
@pytest.mark.parametrize("sizes, training", [(s, t) for s in _BN_SIZES for t in (True, False)]
                         + [((None, None, None, None), True)])
def test_batch_norm_argument_checks(sizes, training):
    """Parameter sizes are checked in torch's order (running statistics, which evaluation mode
    requires, then weight and bias), and training with one running statistic is a ValueError
    from the native op."""
    def run(lib):
        x = lib.ones(2, 4, 2, 2)
        rm, rv, w, b = (None if n is None else lib.ones(n) for n in sizes)
        return F(lib).batch_norm(x, rm, rv, w, b, training)
    same_outcome(run)
