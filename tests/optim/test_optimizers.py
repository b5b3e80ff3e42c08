"""dyngrad.optim optimizers against torch.optim: same parameters after 20 steps from the same
weights, same state dicts, state-dict round trips, hooks, reprs and errors."""
import copy
import importlib
import pickle
import warnings

import numpy as np
import pytest
import torch

import dyngrad

from .helpers import (assert_close_values, elementwise_loss, loss_fn, make_data,
                      make_elementwise_data, make_params, raises_like, state_dict_to_dyngrad,
                      to_numpy, train)

RTOL = {"float32": 1e-5, "float64": 1e-10}

# For every optimizer, a grid of its options (each entry: class name, keyword arguments).
GRID = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.05)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("SGD", dict(lr=0.05, foreach=False, differentiable=False)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True, foreach=False)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.2, amsgrad=True)),
    ("AdamW", dict(lr=0.01, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
    ("Adagrad", dict(lr=0.1, eps=1e-6, maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.01, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.5), maximize=True)),   # rho_t > 5 from step 6
    # torch's multi-tensor (foreach) and fused kernels: dyngrad runs its one loop for them
    ("SGD", dict(lr=0.1, momentum=0.9, foreach=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, fused=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, foreach=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, fused=True)),
    ("AdamW", dict(lr=0.01, fused=True)),
    ("Adagrad", dict(lr=0.1, fused=True)),
    ("Adagrad", dict(lr=0.1, foreach=True)),
    ("RMSprop", dict(lr=0.01, centered=True, foreach=True)),
    ("Adamax", dict(lr=0.01, foreach=True)),
    ("NAdam", dict(lr=0.01, foreach=True)),
    ("RAdam", dict(lr=0.01, foreach=True)),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}"
       for name, kw in GRID]


def one_per_optimizer(*indices):
    """A sub-grid (one configuration of each optimizer) for the slower scenario tests."""
    return dict(argvalues=[GRID[i] for i in indices], ids=[IDS[i] for i in indices])


MLP_GRID = one_per_optimizer(3, 9, 12, 15, 20, 22, 25, 31)
ROUND_TRIP_GRID = one_per_optimizer(2, 8, 13, 16, 19, 23, 26, 29)
TORCH_STATE_GRID = one_per_optimizer(1, 7, 11, 14, 18, 21, 24, 28)
GROUPS_GRID = one_per_optimizer(4, 10, 12, 17, 19, 21, 27, 30)
REPR_GRID = one_per_optimizer(3, 9, 11, 15, 20, 22, 26, 31)


def build(lib, name, kwargs, dtype, groups=False, n_params=4):
    """Parameters, data and the optimizer on ``lib``; ``groups`` splits into two groups."""
    params = make_params(lib, dtype)[:n_params]
    data = make_data(lib, dtype)
    cls = getattr(lib.optim, name)
    if groups:
        lr = kwargs.get("lr", 0.01)
        opt = cls([{"params": params[:2]}, {"params": params[2:], "lr": lr / 2}], **kwargs)
    else:
        opt = cls(params, **kwargs)
    return params, data, opt


def optimizer_module(lib):
    """``lib.optim.optimizer`` (torch.optim does not bind it as an attribute)."""
    return importlib.import_module(lib.__name__ + ".optim.optimizer")


def compare_params(ours, theirs, rtol, versions=True):
    for i, (o, t) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(to_numpy(o), to_numpy(t), rtol=rtol, atol=0,
                                   err_msg=f"param {i}")
        assert str(o.dtype) == str(t.dtype)
        if versions:
            assert o._version == t._version, f"param {i}: version {o._version} != {t._version}"


# -------------------------------------------------------------------------- 20 steps vs torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", GRID, ids=IDS)
def test_twenty_steps_match_torch(name, kwargs, dtype):
    """20 steps on an elementwise loss (identical gradients on both libraries)."""
    ours, _, our_opt = build(dyngrad, name, kwargs, dtype, n_params=2)
    theirs, _, their_opt = build(torch, name, kwargs, dtype, n_params=2)
    train(dyngrad, our_opt, ours, make_elementwise_data(dyngrad, dtype), loss=elementwise_loss)
    train(torch, their_opt, theirs, make_elementwise_data(torch, dtype), loss=elementwise_loss)
    # torch's fused kernels write the parameters without bumping their version counters;
    # dyngrad's in-place ops always bump them (see the Optimizer docstring)
    compare_params(ours, theirs, RTOL[dtype], versions=not kwargs.get("fused"))
    # the optimizer state (buffers, step counts) and the param groups, as torch's
    assert_close_values(our_opt.state_dict(), their_opt.state_dict(), RTOL[dtype])


@pytest.mark.parametrize("name,kwargs", **MLP_GRID)
def test_twenty_steps_of_an_mlp_match_torch(name, kwargs):
    """20 steps training a tiny tanh MLP by least squares, in float64."""
    ours, our_data, our_opt = build(dyngrad, name, kwargs, "float64")
    theirs, their_data, their_opt = build(torch, name, kwargs, "float64")
    train(dyngrad, our_opt, ours, our_data)
    train(torch, their_opt, theirs, their_data)
    compare_params(ours, theirs, RTOL["float64"])
    assert_close_values(our_opt.state_dict(), their_opt.state_dict(), RTOL["float64"])


@pytest.mark.parametrize("name,kwargs", **GROUPS_GRID)
def test_two_param_groups_and_closure(name, kwargs):
    ours, our_data, our_opt = build(dyngrad, name, kwargs, "float64", groups=True)
    theirs, their_data, their_opt = build(torch, name, kwargs, "float64", groups=True)
    our_loss = train(dyngrad, our_opt, ours, our_data, steps=10, closure=True)
    their_loss = train(torch, their_opt, theirs, their_data, steps=10, closure=True)
    assert isinstance(our_loss, dyngrad.Tensor)
    np.testing.assert_allclose(our_loss.item(), their_loss.item(), rtol=1e-10)
    compare_params(ours, theirs, 1e-10)
    assert_close_values(our_opt.state_dict(), their_opt.state_dict(), 1e-10)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "NAdam"])
def test_float64_default_dtype_step_counters(name):
    dyngrad.set_default_dtype(dyngrad.float64)
    torch.set_default_dtype(torch.float64)
    kwargs = dict(momentum=0.9) if name == "SGD" else {}
    ours, our_data, our_opt = build(dyngrad, name, kwargs, "float32")
    theirs, their_data, their_opt = build(torch, name, kwargs, "float32")
    train(dyngrad, our_opt, ours, our_data, steps=5)
    train(torch, their_opt, theirs, their_data, steps=5)
    compare_params(ours, theirs, 1e-5)
    assert_close_values(our_opt.state_dict(), their_opt.state_dict(), 1e-5)


def test_parameters_without_grad_are_skipped():
    for lib in (dyngrad, torch):
        params = make_params(lib)
        opt = lib.optim.Adam(params, lr=0.1)
        (params[0] ** 2).sum().backward()
        opt.step()
        sd = opt.state_dict()
        if lib is torch:
            their_keys = list(sd["state"].keys())
            their_versions = [p._version for p in params]
        else:
            our_keys = list(sd["state"].keys())
            our_versions = [p._version for p in params]
    assert our_keys == their_keys == [0]
    assert our_versions == their_versions


# -------------------------------------------------------------------------- state dicts
@pytest.mark.parametrize("name,kwargs", **ROUND_TRIP_GRID)
def test_state_dict_round_trip_then_continue(name, kwargs):
    dtype = "float64"
    results = {}
    for lib in (dyngrad, torch):
        params, data, opt = build(lib, name, kwargs, dtype, groups=True)
        train(lib, opt, params, data, steps=10)
        saved = copy.deepcopy(opt.state_dict())
        # a fresh optimizer on fresh tensors holding the current values
        params2 = [lib.tensor(to_numpy(p).copy(), requires_grad=True) for p in params]
        cls = getattr(lib.optim, name)
        lr = kwargs.get("lr", 0.01)
        opt2 = cls([{"params": params2[:2]}, {"params": params2[2:], "lr": 123.0}], **kwargs)
        opt2.load_state_dict(saved)
        assert opt2.param_groups[1]["lr"] == lr / 2          # the saved hyper-parameters win
        assert opt2.param_groups[0]["params"][0] is params2[0]
        train(lib, opt2, params2, data, steps=10)
        results[lib.__name__] = (params2, opt2.state_dict())
    compare_params(results["dyngrad"][0], results["torch"][0], 1e-10, versions=False)
    assert_close_values(results["dyngrad"][1], results["torch"][1], 1e-10)


@pytest.mark.parametrize("name,kwargs", **TORCH_STATE_GRID)
def test_load_a_torch_state_dict(name, kwargs):
    """torch's state dict (tensors converted) loads into dyngrad and the runs agree after."""
    theirs, their_data, their_opt = build(torch, name, kwargs, "float64")
    train(torch, their_opt, theirs, their_data, steps=8)
    ours = [dyngrad.tensor(to_numpy(p).copy(), requires_grad=True) for p in theirs]
    our_opt = getattr(dyngrad.optim, name)(ours, **kwargs)
    our_opt.load_state_dict(state_dict_to_dyngrad(their_opt.state_dict()))
    train(dyngrad, our_opt, ours, make_data(dyngrad, "float64"), steps=8)
    train(torch, their_opt, theirs, their_data, steps=8)
    compare_params(ours, theirs, 1e-10, versions=False)


def test_load_state_dict_casts_state_to_the_parameter_dtype_but_not_step():
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        opt = lib.optim.Adam(params)
        loss_fn(lib, params, make_data(lib, "float64")).backward()
        opt.step()
        sd = copy.deepcopy(opt.state_dict())
        for s in sd["state"].values():
            s["exp_avg"] = s["exp_avg"].float()
        opt.load_state_dict(sd)
        dtypes = [(str(s["exp_avg"].dtype), str(s["step"].dtype)) for s in opt.state.values()]
        if lib is torch:
            expected = dtypes
        else:
            got = dtypes
    assert got == expected == [("torch.float64", "torch.float32")] * 4


def test_load_state_dict_errors():
    def different_group_count(lib):
        params = make_params(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        other = lib.optim.SGD([{"params": params[:2]}, {"params": params[2:]}], lr=0.1)
        opt.load_state_dict(other.state_dict())

    def different_group_size(lib):
        params = make_params(lib)
        opt = lib.optim.SGD(params[:3], lr=0.1)
        other = lib.optim.SGD(params, lr=0.1)
        opt.load_state_dict(other.state_dict())

    def missing_key(lib):
        params = make_params(lib)
        lib.optim.SGD(params, lr=0.1).load_state_dict({"state": {}})

    raises_like(different_group_count)
    raises_like(different_group_size)
    raises_like(missing_key)


def test_state_dict_numbers_shared_parameters_once():
    """A parameter listed twice in a group gets one index (and torch's warning)."""
    for lib in (dyngrad, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.warns(UserWarning, match="duplicate parameters"):
            opt = lib.optim.SGD([w, w], lr=0.1)
        # torch numbers it by its last place in the group
        assert opt.state_dict()["param_groups"][0]["params"] == [1, 1]


def test_named_parameters_give_param_names():
    results = []
    for lib in (dyngrad, torch):
        params = make_params(lib)
        opt = lib.optim.SGD([("a", params[0]), ("b", params[1])], lr=0.1)
        results.append(opt.state_dict()["param_groups"])
    assert results[0] == results[1]


# -------------------------------------------------------------------------- zero_grad, hooks
def test_zero_grad():
    for set_to_none in (True, False):
        outs = []
        for lib in (dyngrad, torch):
            params = make_params(lib)
            opt = lib.optim.SGD(params, lr=0.1)
            loss_fn(lib, params, make_data(lib)).backward()
            opt.zero_grad(set_to_none=set_to_none)
            outs.append([None if p.grad is None else to_numpy(p.grad).tolist() for p in params])
            if not set_to_none:
                assert params[0].grad.requires_grad is False
        assert outs[0] == outs[1]
    # the default sets to None
    params = make_params(dyngrad)
    opt = dyngrad.optim.Adam(params)
    loss_fn(dyngrad, params, make_data(dyngrad)).backward()
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_step_hooks_order_and_removal():
    for lib in (dyngrad, torch):
        calls = []
        params = make_params(lib)
        opt = lib.optim.SGD(params, lr=0.1)

        def pre(o, args, kwargs):
            calls.append(("pre", o is opt, len(args), args[0] is opt, kwargs))

        def post(o, args, kwargs):
            calls.append(("post", o is opt, len(args), args[0] is opt, kwargs))

        h1 = opt.register_step_pre_hook(pre)
        h2 = opt.register_step_post_hook(post)
        g1 = optimizer_module(lib).register_optimizer_step_pre_hook(
            lambda o, a, k: calls.append(("global pre",)))
        g2 = optimizer_module(lib).register_optimizer_step_post_hook(
            lambda o, a, k: calls.append(("global post",)))
        opt.step()
        h1.remove()
        h2.remove()
        g1.remove()
        g2.remove()
        opt.step()
        if lib is torch:
            expected = calls
        else:
            got = calls
    assert got == expected
    assert [c[0] for c in got] == ["global pre", "pre", "post", "global post"]


def test_step_pre_hook_can_replace_the_closure():
    for lib in (dyngrad, torch):
        params = make_params(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        opt.register_step_pre_hook(lambda o, args, kwargs: ((o,), {"closure": lambda: 7.0}))
        assert opt.step() == 7.0
        opt.register_step_pre_hook(lambda o, args, kwargs: 3)
        with pytest.raises(RuntimeError, match="must return None or a tuple"):
            opt.step()


def test_state_dict_hooks():
    for lib in (dyngrad, torch):
        params = make_params(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        seen = []
        opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("load pre"))
        opt.register_load_state_dict_post_hook(lambda o: seen.append("load post"), prepend=True)
        sd = opt.state_dict()
        assert sd["extra"] == 1
        opt.load_state_dict(sd)
        assert seen == ["pre", "load pre", "load post"]


def test_add_param_group_mid_training():
    results = []
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        data = make_data(lib, "float64")
        opt = lib.optim.Adam(params[:2], lr=0.01)
        train(lib, opt, params, data, steps=5)
        opt.add_param_group({"params": params[2:], "lr": 0.05, "amsgrad": True})
        train(lib, opt, params, data, steps=5)
        results.append((params, opt.state_dict()))
    compare_params(results[0][0], results[1][0], 1e-10)
    assert_close_values(results[0][1], results[1][1], 1e-10)


# -------------------------------------------------------------------------- repr
@pytest.mark.parametrize("name,kwargs", **REPR_GRID)
def test_repr(name, kwargs):
    reprs = []
    for lib in (dyngrad, torch):
        params = make_params(lib)
        opt = getattr(lib.optim, name)([{"params": params[:1]}, {"params": params[1:],
                                                                  "lr": 0.5}], **kwargs)
        reprs.append(repr(opt))
    assert reprs[0] == reprs[1]


# -------------------------------------------------------------------------- errors
ARG_ERRORS = [
    ("SGD", dict(lr=-1)), ("SGD", dict(momentum=-0.5)), ("SGD", dict(weight_decay=-1e-3)),
    ("SGD", dict(nesterov=True)), ("SGD", dict(momentum=0.9, nesterov=True, dampening=0.1)),
    ("SGD", dict(fused=True, differentiable=True)), ("SGD", dict(fused=True, foreach=True)),
    ("Adam", dict(lr=-1)), ("Adam", dict(eps=-1.0)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-1)),
    ("Adam", dict(betas=(0, 0.9))), ("Adam", dict(fused=True, foreach=True)),
    ("AdamW", dict(lr=-0.5)), ("AdamW", dict(betas=(0.9, 1.5))),
    ("Adagrad", dict(lr=-1)), ("Adagrad", dict(lr_decay=-1)),
    ("Adagrad", dict(weight_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
    ("Adagrad", dict(eps=-1)),
    ("RMSprop", dict(lr=-1)), ("RMSprop", dict(eps=-1)), ("RMSprop", dict(momentum=-1)),
    ("RMSprop", dict(weight_decay=-1)), ("RMSprop", dict(alpha=-1)),
    ("Adamax", dict(lr=-1)), ("Adamax", dict(eps=-1)), ("Adamax", dict(betas=(1.0, 0.9))),
    ("Adamax", dict(betas=(0.9, 1.0))), ("Adamax", dict(weight_decay=-1)),
    ("NAdam", dict(lr=-1)), ("NAdam", dict(betas=(-0.1, 0.9))),
    ("NAdam", dict(momentum_decay=-1)), ("NAdam", dict(weight_decay=-1)),
    ("RAdam", dict(lr=-1)), ("RAdam", dict(eps=-1)), ("RAdam", dict(betas=(0.9, 1.0))),
    ("RAdam", dict(weight_decay=-1)),
]


@pytest.mark.parametrize("name,kwargs", ARG_ERRORS,
                         ids=[f"{n}-{kw}" for n, kw in ARG_ERRORS])
def test_bad_arguments_raise_like_torch(name, kwargs):
    raises_like(lambda lib: getattr(lib.optim, name)(make_params(lib), **kwargs))


def test_invalid_learning_rate_message():
    with pytest.raises(ValueError, match="^Invalid learning rate: -1$"):
        dyngrad.optim.SGD(make_params(dyngrad), lr=-1)


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(lib.ones(3, requires_grad=True), lr=0.1),
    lambda lib: lib.optim.SGD(lib.ones(3, dtype=lib.float64, requires_grad=True)),
    lambda lib: lib.optim.SGD([{"params": {lib.ones(3, requires_grad=True)}}], lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.SGD([np.ones(3)], lr=0.1),
    lambda lib: lib.optim.SGD([lib.ones(3, requires_grad=True) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([("a", lib.ones(3, requires_grad=True)),
                               lib.ones(3, requires_grad=True)], lr=0.1),
    lambda lib: lib.optim.Adam([{"params": [lib.ones(2, requires_grad=True)]},
                                [lib.ones(2, requires_grad=True)]]),
], ids=["empty", "tensor", "double-tensor", "set", "float", "ndarray", "non-leaf",
        "some-names", "group-not-dict"])
def test_bad_params_raise_like_torch(make):
    raises_like(make)


def test_parameter_in_two_groups():
    def make(lib):
        w = lib.ones(3, requires_grad=True)
        return lib.optim.SGD([{"params": [w]}, {"params": [w], "lr": 0.5}], lr=0.1)
    raises_like(make)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter"):
        make(dyngrad)


def test_groups_with_and_without_names():
    def make(lib):
        w, v = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([("w", w)], lr=0.1)
        opt.add_param_group({"params": [v]})
    raises_like(make)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adamax", "NAdam", "RAdam"])
def test_capturable_on_cpu_raises_at_step(name):
    def make(lib):
        params = make_params(lib)
        opt = getattr(lib.optim, name)(params, capturable=True)
        loss_fn(lib, params, make_data(lib)).backward()
        opt.step()
    raises_like(make)


def test_base_optimizer_step_is_abstract():
    for lib in (dyngrad, torch):
        opt = lib.optim.Optimizer(make_params(lib), {"lr": 0.1})
        with pytest.raises(NotImplementedError):
            opt.step()


def test_required_hyper_parameter():
    def make(lib):
        required = optimizer_module(lib).required
        return lib.optim.Optimizer(make_params(lib), {"lr": required})
    raises_like(make)
    assert repr(optimizer_module(dyngrad).required) == repr(optimizer_module(torch).required)


def test_step_runs_without_grad_and_bumps_versions_once():
    params = make_params(dyngrad)
    opt = dyngrad.optim.SGD(params, lr=0.1)
    loss_fn(dyngrad, params, make_data(dyngrad)).backward()
    seen = []
    opt.register_step_post_hook(lambda o, a, k: seen.append(dyngrad.is_grad_enabled()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
    assert [p._version for p in params] == [1, 1, 1, 1]
    assert all(p.grad_fn is None and p.requires_grad for p in params)
    assert dyngrad.is_grad_enabled()


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax",
                                  "NAdam", "RAdam"])
def test_differentiable_step_on_a_leaf_raises_like_torch(name):
    """differentiable=True runs the step with grad mode on: in-place on a leaf is refused."""
    def make(lib):
        params = make_params(lib)
        opt = getattr(lib.optim, name)(params, differentiable=True)
        loss_fn(lib, params, make_data(lib)).backward()
        opt.step()
    raises_like(make)


def test_differentiable_sgd_step_gives_a_meta_gradient():
    """The updated parameter stays a function of what it was computed from."""
    grads = []
    for lib in (dyngrad, torch):
        w = lib.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
        p = w * 1.0
        p.retain_grad()
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.1, differentiable=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # torch's create_graph reference-cycle warning
            (p * p * p).sum().backward(create_graph=True)
        opt.step()
        assert p.grad_fn is not None
        g, = lib.autograd.grad((p * p).sum(), w)
        grads.append(to_numpy(g))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copied_optimizer_continues_like_the_original(how):
    """deepcopy/pickle keep defaults, state and groups (hooks are not copied, as torch)."""
    results = []
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        data = make_data(lib, "float64")
        opt = lib.optim.Adam(params, lr=0.01, amsgrad=True)
        opt.register_step_pre_hook(lambda o, a, k: None)
        train(lib, opt, params, data, steps=5)
        if how == "deepcopy":
            params2, opt2 = copy.deepcopy((params, opt))
        else:
            params2, opt2 = pickle.loads(pickle.dumps((params, opt)))
        assert len(opt2._optimizer_step_pre_hooks) == 0
        train(lib, opt2, params2, data, steps=5)
        results.append((params2, opt2.state_dict()))
    compare_params(results[0][0], results[1][0], 1e-10, versions=False)
    assert_close_values(results[0][1], results[1][1], 1e-10)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "NAdam"])
def test_state_dict_before_any_step(name):
    """Only Adagrad creates its state at construction (torch does the same)."""
    ours = getattr(dyngrad.optim, name)(make_params(dyngrad), lr=0.1).state_dict()
    theirs = getattr(torch.optim, name)(make_params(torch), lr=0.1).state_dict()
    assert_close_values(ours, theirs, 0.0)
    assert bool(theirs["state"]) == (name == "Adagrad")
