"""The loss modules built on loss_margin.py's functions (MultiMarginLoss, MultiLabelMarginLoss,
MultiLabelSoftMarginLoss, GaussianNLLLoss, TripletMarginWithDistanceLoss) against torch: repr,
buffers, forward values and grad_fn, gradients, constructor errors."""
import numpy as np
import pytest
import torch

import dyngrad

from .helpers import check_forward_backward, pair

W5 = np.array([0.2, 1.0, 0.5, 0.7, 1.3])


def f(*shape):
    return lambda rng: rng.standard_normal(shape)


def pos(*shape):
    return lambda rng: rng.uniform(0.1, 2.0, shape)


def classes(high, *shape):
    return lambda rng: rng.integers(0, high, shape)


def labels(rng):
    """multilabel_margin_loss targets: each row lists classes, ended by -1."""
    return np.array([[3, 0, -1, 1, 4], [0, 1, 2, 3, 4], [-1, 1, 0, 0, 0], [2, 2, 4, -1, 0]])


def binary(*shape):
    def make(rng):
        return (rng.random(shape) < 0.5).astype("float64")
    make.no_grad = True
    return make


def _l1(a, b):
    return (a - b).abs().sum(-1)


CASES = [
    ("MultiMarginLoss", lambda lib: lib.nn.MultiMarginLoss(), [f(4, 5), classes(5, 4)]),
    ("MultiMarginLoss_p2_weight", lambda lib: lib.nn.MultiMarginLoss(
        p=2, margin=0.5, weight=lib.tensor(W5, dtype=lib.float32), reduction="none"),
     [f(4, 5), classes(5, 4)]),
    ("MultiMarginLoss_sum", lambda lib: lib.nn.MultiMarginLoss(reduction="sum"),
     [f(5), classes(5, 1)]),
    ("MultiLabelMarginLoss", lambda lib: lib.nn.MultiLabelMarginLoss(), [f(4, 5), labels]),
    ("MultiLabelMarginLoss_none", lambda lib: lib.nn.MultiLabelMarginLoss(reduction="none"),
     [f(4, 5), labels]),
    ("MultiLabelSoftMarginLoss", lambda lib: lib.nn.MultiLabelSoftMarginLoss(),
     [f(4, 5), binary(4, 5)]),
    ("MultiLabelSoftMarginLoss_weight", lambda lib: lib.nn.MultiLabelSoftMarginLoss(
        weight=lib.tensor(W5, dtype=lib.float32), reduction="sum"), [f(4, 5), f(4, 5)]),
    ("GaussianNLLLoss", lambda lib: lib.nn.GaussianNLLLoss(), [f(4, 5), f(4, 5), pos(4, 5)]),
    ("GaussianNLLLoss_full", lambda lib: lib.nn.GaussianNLLLoss(full=True, eps=1e-3,
                                                                reduction="none"),
     [f(4, 5), f(4, 5), pos(4, 1)]),
    ("GaussianNLLLoss_var_short", lambda lib: lib.nn.GaussianNLLLoss(reduction="sum"),
     [f(4, 5), f(4, 5), pos(4)]),
    ("TripletMarginWithDistanceLoss", lambda lib: lib.nn.TripletMarginWithDistanceLoss(),
     [f(4, 3), f(4, 3), f(4, 3)]),
    ("TripletMarginWithDistanceLoss_l1_swap", lambda lib: lib.nn.TripletMarginWithDistanceLoss(
        distance_function=_l1, margin=0.5, swap=True, reduction="none"),
     [f(4, 3), f(4, 3), f(4, 3)]),
]


@pytest.mark.parametrize("name,make,inputs", CASES, ids=[c[0] for c in CASES])
def test_repr_and_buffers(name, make, inputs):
    ours, theirs = make(dyngrad), make(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    for attr in ("reduction", "p", "margin", "full", "eps", "swap"):
        assert getattr(ours, attr, None) == getattr(theirs, attr, None), attr


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,inputs", CASES, ids=[c[0] for c in CASES])
def test_forward_backward_like_torch(name, make, inputs, dtype):
    rng = np.random.default_rng(0)
    arrays = [mk(rng) for mk in inputs]
    grad_inputs = [a.dtype.kind == "f" and not getattr(mk, "no_grad", False)
                   for a, mk in zip(arrays, inputs)]
    ours, theirs = pair(make, dtype)
    check_forward_backward(ours, theirs, arrays, dtype, grad_inputs)


def test_gaussian_nll_module_takes_a_float_var():
    x = np.random.default_rng(1).standard_normal((3, 2))
    out = [lib.nn.GaussianNLLLoss(reduction="none")(lib.tensor(x), lib.zeros(3, 2,
                                                                           dtype=lib.float64),
                                                    0.5)
           for lib in (dyngrad, torch)]
    np.testing.assert_allclose(out[0].numpy(), out[1].numpy(), rtol=1e-12)


def _same_error(fn):
    errors = []
    for lib in (torch, dyngrad):
        with pytest.raises(Exception) as info:
            fn(lib)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.MultiMarginLoss(p=3),
    lambda lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 3)),
    lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0),
    lambda lib: lib.nn.TripletMarginWithDistanceLoss(lambda a, b: a),
    lambda lib: lib.nn.GaussianNLLLoss(True),
    lambda lib: lib.nn.GaussianNLLLoss()(lib.ones(3, 4), lib.ones(3, 4), lib.ones(2, 4)),
], ids=["p3", "weight2d", "margin0", "positional distance", "positional full", "var size"])
def test_constructor_and_call_errors(case):
    _same_error(case)


def test_legacy_size_average_warns_and_sets_reduction():
    for lib in (dyngrad, torch):
        with pytest.warns(UserWarning, match="reduction='sum'"):
            m = lib.nn.MultiMarginLoss(size_average=False)
        assert m.reduction == "sum"
        with pytest.warns(UserWarning, match="reduction='none'"):
            m = lib.nn.MultiLabelSoftMarginLoss(reduce=False)
        assert m.reduction == "none"


def test_multi_margin_weight_follows_to():
    ours, theirs = pair(lambda lib: lib.nn.MultiMarginLoss(weight=lib.tensor(W5,
                                                                             dtype=lib.float32)),
                        "float64")
    assert str(ours.weight.dtype) == str(theirs.weight.dtype) == "torch.float64"
