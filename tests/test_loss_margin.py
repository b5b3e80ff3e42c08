"""multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss, gaussian_nll_loss
and triplet_margin_with_distance_loss against live torch: what the OpInfo database cannot say
(weighted gradients, errors raised in backward, warnings, the is_target output, var shapes).
"""
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 5))
T = np.array([0, 4, 2, 2])
W = RNG.random(5) + 0.1
LABELS = np.array([[3, 0, -1, 1, 4], [0, 1, 2, 3, 4], [-1, 1, 0, 0, 0], [2, 2, 4, -1, 0]])


def _mm(lib, *args, **kwargs):
    return lib.nn.functional.multi_margin_loss(*args, **kwargs)


def _mlm(lib, *args, **kwargs):
    return lib.nn.functional.multilabel_margin_loss(*args, **kwargs)


def _gauss(lib, *args, **kwargs):
    return lib.nn.functional.gaussian_nll_loss(*args, **kwargs)


def _grad(lib, loss, x):
    g, = lib.autograd.grad(loss, x)
    return loss, g


# -- multi_margin_loss ---------------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multi_margin_weighted_gradient(p, reduction, dtype):
    def fn(lib):
        x = lib.tensor(X.astype(dtype), requires_grad=True)
        w = lib.tensor(W.astype(dtype))
        loss = lib.nn.functional.multi_margin_loss(x, lib.tensor(T), p=p, margin=0.8, weight=w,
                                                   reduction=reduction)
        return _grad(lib, loss.sum() if reduction == "none" else loss, x)
    like_torch(fn, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7)


def test_multi_margin_weight_requiring_grad_is_refused():
    like_torch(lambda lib: lib.nn.functional.multi_margin_loss(
        lib.tensor(X), lib.tensor(T), weight=lib.tensor(W, requires_grad=True)))


def test_multi_margin_weight_requiring_grad_under_no_grad():
    def fn(lib):
        with lib.no_grad():
            return lib.nn.functional.multi_margin_loss(
                lib.tensor(X), lib.tensor(T), weight=lib.tensor(W, requires_grad=True))
    like_torch(fn, rtol=1e-12)


@pytest.mark.parametrize("case", [
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor(T), weight=lib.ones(1, 5)),
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor(T), weight=lib.ones(5)),
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor(T), p=0),
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor([0, 1, 5, 2])),
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor([0, -1, 1, 2])),
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor(T).view(4, 1)),
    lambda lib: _mm(lib, lib.tensor(X[0]), lib.tensor([0, 1])),
    lambda lib: _mm(lib, lib.tensor(X).int(), lib.tensor(T)),
    lambda lib: _mm(lib, lib.tensor(X).half(), lib.tensor(T)),
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor(T).int()),
    lambda lib: _mm(lib, lib.ones(2, 0), lib.tensor([0, 0])),
    lambda lib: _mm(lib, lib.ones(2, 3, 4), lib.tensor([0, 0])),
    lambda lib: _mm(lib, lib.tensor(X), lib.tensor(T), reduction="x"),
], ids=lambda f: "")
def test_multi_margin_errors(case):
    like_torch(case)


def test_multi_margin_double_backward_is_not_implemented():
    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        loss = lib.nn.functional.multi_margin_loss(x, lib.tensor(T), p=2)
        g, = lib.autograd.grad(loss, x, create_graph=True)
        assert g.requires_grad and type(g.grad_fn).__name__ == "NotImplemented"
        return lib.autograd.grad(g.sum(), x)
    like_torch(fn)


@pytest.mark.filterwarnings("ignore:size_average and reduce args")
def test_multi_margin_legacy_reduction_warns():
    for lib in (torch, dyngrad):
        with pytest.warns(UserWarning, match="reduction='sum'"):
            lib.nn.functional.multi_margin_loss(lib.tensor(X), lib.tensor(T), size_average=False)
    like_torch(lambda lib: lib.nn.functional.multi_margin_loss(
        lib.tensor(X), lib.tensor(T), reduce=False), rtol=1e-12)


# -- multilabel_margin_loss ----------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_gradient(reduction):
    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        loss = lib.nn.functional.multilabel_margin_loss(x, lib.tensor(LABELS),
                                                        reduction=reduction)
        return _grad(lib, loss.sum() if reduction == "none" else loss, x)
    like_torch(fn, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_multilabel_margin_forward_returns_is_target(reduction):
    """The aten op returns (loss, is_target): is_target marks each sample's listed classes."""
    def fn(lib):
        op = torch.ops.aten.multilabel_margin_loss_forward if lib is torch else \
            dyngrad.ops.OPS["multilabel_margin_loss_forward"]
        return tuple(op(lib.tensor(X, requires_grad=True), lib.tensor(LABELS), reduction))
    like_torch(fn, rtol=1e-12)
    like_torch(lambda lib: (torch.ops.aten.multilabel_margin_loss_forward if lib is torch else
                            dyngrad.ops.OPS["multilabel_margin_loss_forward"])(
        lib.tensor(X[1]), lib.tensor(LABELS[3]), reduction)[1])


def test_multilabel_margin_saved_is_target():
    for lib in (torch, dyngrad):
        y = lib.nn.functional.multilabel_margin_loss(lib.tensor(X, requires_grad=True),
                                                     lib.tensor(LABELS))
        saved = y.grad_fn._saved_is_target
        np.testing.assert_array_equal(np.asarray(saved.detach().numpy()),
                                      [[1, 0, 0, 1, 0], [1] * 5, [0] * 5, [0, 0, 1, 0, 1]])


def test_multilabel_margin_double_backward_is_not_implemented():
    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        loss = lib.nn.functional.multilabel_margin_loss(x, lib.tensor(LABELS))
        g, = lib.autograd.grad(loss, x, create_graph=True)
        return lib.autograd.grad(g.sum(), x)
    like_torch(fn)


@pytest.mark.parametrize("case", [
    lambda lib: _mlm(lib, lib.tensor(X), lib.tensor(LABELS[:2])),
    lambda lib: _mlm(lib, lib.tensor(X), lib.tensor(LABELS) + 1),
    lambda lib: _mlm(lib, lib.tensor(X), lib.tensor(LABELS) - 2),
    lambda lib: _mlm(lib, lib.tensor(X[0]), lib.tensor(LABELS)),
    lambda lib: _mlm(lib, lib.tensor(X[0]), lib.tensor(LABELS[0, :3])),
    lambda lib: _mlm(lib, lib.tensor(X).float(), lib.tensor(LABELS).float()),
    lambda lib: _mlm(lib, lib.tensor(X).half(), lib.tensor(LABELS)),
    lambda lib: _mlm(lib, lib.ones(3, 0), lib.ones(3, 0).long()),
    lambda lib: _mlm(lib, lib.ones(2, 3, 4), lib.ones(2, 3, 4).long()),
], ids=lambda f: "")
def test_multilabel_margin_errors(case):
    like_torch(case)


# -- multilabel_soft_margin_loss -----------------------------------------------------------------
def test_multilabel_soft_margin_target_gradient():
    probs = RNG.random((4, 5))

    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        y = lib.tensor(probs, requires_grad=True)
        loss = lib.nn.functional.multilabel_soft_margin_loss(x, y, weight=lib.tensor(W))
        return (loss,) + lib.autograd.grad(loss, (x, y))
    like_torch(fn, rtol=1e-12)


@pytest.mark.filterwarnings("ignore:size_average and reduce args")
def test_multilabel_soft_margin_legacy_reduction():
    like_torch(lambda lib: lib.nn.functional.multilabel_soft_margin_loss(
        lib.tensor(X), lib.tensor(X > 0).double(), reduce=False), rtol=1e-12)


# -- gaussian_nll_loss ---------------------------------------------------------------------------
@pytest.mark.parametrize("var_shape", [(4, 5), (4,), (4, 1), (1, 5)])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_gradients(var_shape, full):
    var = np.abs(RNG.standard_normal(var_shape)) + 0.1

    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        t = lib.tensor(X[::-1].copy(), requires_grad=True)
        v = lib.tensor(var, requires_grad=True)
        loss = lib.nn.functional.gaussian_nll_loss(x, t, v, full=full)
        return (loss,) + lib.autograd.grad(loss, (x, t, v))
    like_torch(fn, rtol=1e-12)


def test_gaussian_nll_clamped_var_gradient():
    """The clamp at eps happens under no_grad: the gradient reaches var as if unclamped."""
    def fn(lib):
        v = lib.tensor([1e-9, 0.5, 2.0], requires_grad=True)
        loss = lib.nn.functional.gaussian_nll_loss(lib.tensor([0.1, 0.2, 0.3]),
                                                   lib.zeros(3), v, eps=1e-3, reduction="sum")
        return loss, lib.autograd.grad(loss, v)[0]
    like_torch(fn, rtol=1e-6)


@pytest.mark.parametrize("case", [
    lambda lib: _gauss(lib, lib.ones(3, 4), lib.ones(3, 4), lib.ones(3, 3)),
    lambda lib: _gauss(lib, lib.ones(3, 4), lib.ones(3, 4), lib.ones(4)),
    lambda lib: _gauss(lib, lib.ones(3, 4), lib.ones(3, 4), -lib.ones(3, 4)),
    lambda lib: _gauss(lib, lib.ones(3, 4), lib.ones(3, 4), -1.0),
    lambda lib: _gauss(lib, lib.ones(3, 4), lib.ones(3, 4), 1.0, reduction="x"),
], ids=lambda f: "")
def test_gaussian_nll_errors(case):
    like_torch(case)


def test_gaussian_nll_float_var():
    like_torch(lambda lib: lib.nn.functional.gaussian_nll_loss(
        lib.tensor(X, requires_grad=True), lib.zeros(4, 5, dtype=lib.float64), 0.7,
        reduction="none"), rtol=1e-12)


# -- triplet_margin_with_distance_loss -----------------------------------------------------------
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_with_custom_distance(swap):
    arrays = RNG.standard_normal((3, 4, 3))

    def fn(lib):
        a, p, n = (lib.tensor(arr, requires_grad=True) for arr in arrays)
        loss = lib.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda u, v: 1 - lib.nn.functional.cosine_similarity(u, v),
            margin=0.5, swap=swap)
        return (loss,) + lib.autograd.grad(loss, (a, p, n))
    like_torch(fn, rtol=1e-12)


def test_triplet_with_distance_arguments_are_keyword_only():
    like_torch(lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), None))


def test_no_warnings_from_plain_calls():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dyngrad.nn.functional.multi_margin_loss(dyngrad.tensor(X), dyngrad.tensor(T))
        dyngrad.nn.functional.multilabel_margin_loss(dyngrad.tensor(X), dyngrad.tensor(LABELS))
