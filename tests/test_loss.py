"""Targeted checks of the losses against live torch: node names, errors, warnings, stability."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad


def both(fn):
    return fn(dyngrad), fn(torch)


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a.detach().tolist(), dtype=float),
                               b.detach().double().numpy(), rtol=tol, atol=tol)


def _x(lib, shape=(3, 4), low=-2.0, high=2.0, seed=0):
    arr = np.random.default_rng(seed).uniform(low, high, shape)
    return lib.tensor(arr, dtype=lib.float64, requires_grad=True)


NODES = {
    "mse": lambda lib: lib.nn.functional.mse_loss(_x(lib), _x(lib, seed=1)),
    "smooth_l1": lambda lib: lib.nn.functional.smooth_l1_loss(_x(lib), _x(lib, seed=1)),
    "huber": lambda lib: lib.nn.functional.huber_loss(_x(lib), _x(lib, seed=1)),
    "bce": lambda lib: lib.nn.functional.binary_cross_entropy(_x(lib, low=0.1, high=0.9),
                                                             _x(lib, low=0, high=1, seed=1)),
    "bce_logits": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        _x(lib), _x(lib, low=0, high=1, seed=1)),
    "soft_margin": lambda lib: lib.nn.functional.soft_margin_loss(_x(lib), lib.ones(3, 4)),
    "nll": lambda lib: lib.nn.functional.nll_loss(_x(lib), lib.tensor([0, 1, 3])),
    "nll2d": lambda lib: lib.nn.functional.nll_loss(_x(lib, (2, 3, 2, 2)),
                                                   lib.zeros(2, 2, 2, dtype=lib.int64)),
    "cross_entropy": lambda lib: lib.nn.functional.cross_entropy(_x(lib), lib.tensor([0, 1, 3])),
    "l1": lambda lib: lib.nn.functional.l1_loss(_x(lib), _x(lib, seed=1)),
}


@pytest.mark.parametrize("name", list(NODES))
def test_node_names_values_and_grads(name):
    ours, theirs = both(NODES[name])
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    close(ours, theirs)


def test_nll_out_of_bounds_and_ignore_index():
    for lib in (dyngrad, torch):
        with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
            lib.nn.functional.nll_loss(lib.zeros(3, 4), lib.tensor([0, 5, 1]))
    ours, theirs = both(lambda lib: lib.nn.functional.nll_loss(
        _x(lib), lib.tensor([-100, -100, -100])))
    assert np.isnan(ours.item()) and np.isnan(theirs.item())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_signed_zeros_like_torch(reduction, weighted):
    # torch's loop starts from +0 and subtracts, and writes +0 for an ignored target: a loss
    # of zeros is +0, never -0 (str() shows the sign)
    def losses(lib):
        out = []
        for x in (lib.zeros(2, 3), -lib.zeros(2, 3), lib.zeros(2, 3, 2)):
            t = lib.tensor([0, 1]) if x.dim() == 2 else lib.zeros(2, 2, dtype=lib.long)
            w = lib.ones(3) if weighted else None
            for ignore in (-100, 1):
                out.append(str(lib.nn.functional.nll_loss(x, t, weight=w, reduction=reduction,
                                                          ignore_index=ignore)))
        return out
    assert losses(dyngrad) == losses(torch)


def test_nll_all_ignored_gradient_is_zero():
    def run(lib):
        x = _x(lib)
        loss = lib.nn.functional.nll_loss(x, lib.tensor([-100, -100, -100]))
        return lib.autograd.grad(loss, x)[0]
    ours, theirs = both(run)
    close(ours, theirs)


def test_nll_double_backward():
    def run(lib):
        x = _x(lib)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor([0, 2, 3]), label_smoothing=0.1)
        g, = lib.autograd.grad(loss, x, create_graph=True)
        return lib.autograd.grad((g * g).sum(), x)[0]
    ours, theirs = both(run)
    close(ours, theirs)


def test_size_warning_text():
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.functional.mse_loss(lib.ones(3, 4), lib.ones(4))
        return [str(x.message) for x in w]
    ours, theirs = both(run)
    assert ours == theirs


def test_bce_clamps_log_at_minus_100():
    ours, theirs = both(lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.0, 1.0]), lib.tensor([1.0, 0.0]), reduction="none"))
    close(ours, theirs)
    assert ours.tolist() == [100.0, 100.0]


def test_bce_with_logits_is_stable_at_1000():
    def run(lib):
        x = lib.tensor([1000.0, -1000.0, 1000.0], dtype=lib.float64, requires_grad=True)
        t = lib.tensor([0.0, 1.0, 1.0], dtype=lib.float64)
        loss = lib.nn.functional.binary_cross_entropy_with_logits(
            x, t, pos_weight=lib.tensor([2.0, 3.0, 0.5], dtype=lib.float64), reduction="sum")
        return loss, lib.autograd.grad(loss, x)[0]
    (lo, go), (lt, gt) = both(run)
    close(lo, lt)
    close(go, gt)


def test_errors_match_torch():
    cases = [
        lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3) * 2, lib.ones(3)),
        lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.ones(3, 4),
                                                                       lib.ones(4)),
        lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(3), lib.ones(3), beta=-1.0),
        lambda lib: lib.nn.functional.nll_loss(lib.ones(3, 4), lib.tensor([0.0, 1.0, 1.0])),
        lambda lib: lib.nn.functional.mse_loss(lib.ones(3), lib.ones(3), reduction="bad"),
        lambda lib: lib.nn.functional.triplet_margin_loss(lib.ones(3), lib.ones(3),
                                                          lib.ones(3), margin=0.0),
    ]
    # nll_loss beyond two dimensions: nll_loss2d's checks, and the N-d reshape's
    nll = [((2, 3, 4), (2, 5), None), ((2, 3, 4), (2, 4, 1), None), ((2, 3, 4, 5), (2, 4), None),
           ((2, 3, 4, 5), (2, 4, 6), None), ((2, 3, 4, 5), (2, 4, 6, 1), None),
           ((2, 3, 4, 5, 6), (2, 4, 6), None), ((2, 3, 4, 5), (2, 4, 5), 2),
           ((2, 3), (2,), 2)]
    cases += [lambda lib, x=x, t=t, w=w: lib.nn.functional.nll_loss(
        lib.ones(x), lib.zeros(t, dtype=lib.long), None if w is None else lib.ones(w))
        for x, t, w in nll]
    for case in cases:
        errors = []
        for lib in (dyngrad, torch):
            with pytest.raises(Exception) as info:
                case(lib)
            errors.append((type(info.value).__name__, str(info.value)))
        assert errors[0] == errors[1]


# A functional loss hands its tensors to one binding (torch._C._nn.cross_entropy_loss,
# nll_loss_nd, torch.kl_div...), whose argument parser refuses anything else: a TypeError naming
# the binding and the argument, after the reduction is read (a bad reduction is found first).
_ARGUMENT_CASES = {
    "cross_entropy": lambda lib: (lib.rand(3, 4), lib.tensor([1, 2, 3])),
    "nll_loss": lambda lib: (lib.rand(3, 4).log(), lib.tensor([1, 2, 3])),
    "kl_div": lambda lib: (lib.rand(3, 4).log(), lib.rand(3, 4)),
    "poisson_nll_loss": lambda lib: (lib.rand(3, 4), lib.rand(3, 4)),
    "hinge_embedding_loss": lambda lib: (lib.rand(3, 4), lib.ones(3, 4)),
    "soft_margin_loss": lambda lib: (lib.rand(3, 4), lib.ones(3, 4)),
    "multilabel_margin_loss": lambda lib: (lib.rand(3, 4), lib.tensor([[1, 2, -1, 0]] * 3)),
    "multi_margin_loss": lambda lib: (lib.rand(3, 4), lib.tensor([1, 2, 3])),
    "cosine_embedding_loss": lambda lib: (lib.rand(3, 4), lib.rand(3, 4),
                                          lib.tensor([1.0, -1.0, 1.0])),
    "triplet_margin_loss": lambda lib: (lib.rand(3, 4), lib.rand(3, 4), lib.rand(3, 4)),
}


@pytest.mark.parametrize("bad", [[1.0], None, 2.5], ids=["list", "None", "float"])
@pytest.mark.parametrize("name", list(_ARGUMENT_CASES))
def test_tensor_arguments_are_checked_as_torch_binding_does(name, bad):
    for i in range(len(_ARGUMENT_CASES[name](torch))):
        errors = []
        for lib in (dyngrad, torch):
            args = list(_ARGUMENT_CASES[name](lib))
            args[i] = bad
            with warnings.catch_warnings(), pytest.raises(Exception) as info:
                warnings.simplefilter("ignore")
                getattr(lib.nn.functional, name)(*args)
            errors.append((type(info.value).__name__, str(info.value)))
        assert errors[0] == errors[1], (i, errors)


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
def test_weight_argument_and_reduction_order(name):
    for kwargs in ({"weight": [1.0] * 4}, {"weight": [1.0] * 4, "reduction": "bad"}):
        errors = []
        for lib in (dyngrad, torch):
            x, target = _ARGUMENT_CASES[name](lib)
            with pytest.raises(Exception) as info:
                getattr(lib.nn.functional, name)(x, target, **kwargs)
            errors.append((type(info.value).__name__, str(info.value)))
        assert errors[0] == errors[1]


def test_sdpa_fully_masked_row_and_causal():
    def run(lib):
        q = _x(lib, (2, 3, 4))
        mask = lib.tensor([[True, False, False], [False, False, False], [True, True, True]])
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        causal = lib.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        return out, causal, lib.autograd.grad((out.sum() + causal.sum()), q)[0]
    ours, theirs = both(run)
    for a, b in zip(ours, theirs):
        close(a, b)


def test_non_differentiable_weight_is_accepted_without_grad_mode():
    """torch refuses a class weight that requires grad only while grad mode is on."""
    got = []
    for lib in (torch, dyngrad):
        w = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            got.append(lib.nn.functional.binary_cross_entropy(
                lib.full((3,), 0.25), lib.ones(3), weight=w).item())
    assert got[0] == pytest.approx(got[1])
