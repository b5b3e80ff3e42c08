"""ASGD, Adadelta, Adafactor, Rprop, LBFGS and SparseAdam against torch.optim: parameters
and state dicts compared after every step from the same weights, state-dict round trips,
a scheduler driving them, reprs and errors.  (swa_utils: test_swa_utils.py.)"""
import copy

import numpy as np
import pytest
import torch

import dyngrad

from .helpers import (assert_close_values, elementwise_loss, loss_fn, make_data,
                      make_elementwise_data, make_params, raises_like, state_dict_to_dyngrad,
                      to_numpy, train)

RTOL = {"float32": 1e-5, "float64": 1e-10}

GRID = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, rho=0.95, maximize=True)),
    ("Adadelta", dict(lr=0.5, foreach=False, capturable=False, differentiable=False)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=1e-3, alpha=0.5, t0=5, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
    ("ASGD", dict(lr=0.02, lambd=0.01, alpha=1.0, t0=3.0, foreach=False)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("Rprop", dict(lr=0.01, etas=(0.6, 1.1), step_sizes=(0.005, 1.0), foreach=False)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.1, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0)),
    ("Adafactor", dict(lr=0.05, eps=(1e-3, 1e-3), weight_decay=0.1)),
    ("Adafactor", dict(lr=0.05, maximize=True, foreach=False)),
    ("Adafactor", dict(lr=0.2, beta2_decay=0.0, d=1.0)),
    # torch's multi-tensor kernels: dyngrad runs its one loop for them
    ("Adadelta", dict(lr=0.5, weight_decay=0.1, foreach=True)),
    ("ASGD", dict(lr=0.05, t0=4, weight_decay=0.1, foreach=True)),
    ("Rprop", dict(lr=0.05, foreach=True)),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1, foreach=True)),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}"
       for name, kw in GRID]
NAMES = ["Adadelta", "ASGD", "Rprop", "Adafactor"]


def subgrid(*indices):
    return dict(argvalues=[GRID[i] for i in indices], ids=[IDS[i] for i in indices])


ONE_EACH = subgrid(1, 5, 9, 14)
ANOTHER_EACH = subgrid(2, 6, 10, 13)


def build(lib, name, kwargs, dtype, groups=False, n_params=4):
    params = make_params(lib, dtype)[:n_params]
    cls = getattr(lib.optim, name)
    if groups:
        lr = kwargs.get("lr", 0.01)
        opt = cls([{"params": params[:2]}, {"params": params[2:], "lr": lr / 2}], **kwargs)
    else:
        opt = cls(params, **kwargs)
    return params, opt


def compare_params(ours, theirs, rtol, versions=True):
    for i, (o, t) in enumerate(zip(ours, theirs)):
        expected = to_numpy(t)
        scale = float(np.abs(expected).max())
        np.testing.assert_allclose(to_numpy(o), expected, rtol=rtol, atol=rtol * scale,
                                   err_msg=f"param {i}")
        assert str(o.dtype) == str(t.dtype)
        if versions:
            assert o._version == t._version, f"param {i}: version {o._version} != {t._version}"


def lockstep(name, kwargs, dtype, steps=20, loss=elementwise_loss, data_fn=make_elementwise_data,
             groups=False, closure=False, n_params=4, rtol=None):
    """Run both libraries side by side; compare parameters and state dicts after each step."""
    rtol = RTOL[dtype] if rtol is None else rtol
    runs = {}
    for lib in (dyngrad, torch):
        params, opt = build(lib, name, kwargs, dtype, groups=groups, n_params=n_params)
        runs[lib] = (params, opt, data_fn(lib, dtype))
    sign = -1.0 if kwargs.get("maximize") else 1.0
    for step in range(steps):
        losses = []
        for lib, (params, opt, data) in runs.items():
            def closure_fn(lib=lib, params=params, opt=opt, data=data):
                opt.zero_grad()
                value = sign * loss(lib, params, data)
                value.backward()
                return value
            if closure:
                losses.append(opt.step(closure_fn))
            else:
                closure_fn()
                losses.append(opt.step())
        if closure:
            assert isinstance(losses[0], dyngrad.Tensor)
            np.testing.assert_allclose(losses[0].item(), losses[1].item(), rtol=rtol)
        else:
            assert losses == [None, None]
        (ours, our_opt, _), (theirs, their_opt, _) = runs[dyngrad], runs[torch]
        # torch's multi-tensor kernels touch the parameters a different number of times
        # (a version-counter difference only; see the Optimizer docstring)
        compare_params(ours, theirs, rtol, versions=not kwargs.get("foreach"))
        assert_close_values(our_opt.state_dict(), their_opt.state_dict(), rtol,
                            where=f"step {step}")
    return runs


# -------------------------------------------------------------------------- steps vs torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", GRID, ids=IDS)
def test_steps_match_torch(name, kwargs, dtype):
    """20 steps on an elementwise loss (bit-identical gradients), compared after each."""
    lockstep(name, kwargs, dtype)


@pytest.mark.parametrize("name,kwargs", **ONE_EACH)
def test_steps_of_an_mlp_match_torch(name, kwargs):
    lockstep(name, kwargs, "float64", loss=loss_fn, data_fn=make_data)


@pytest.mark.parametrize("name,kwargs", **ANOTHER_EACH)
def test_two_param_groups_and_closure(name, kwargs):
    lockstep(name, kwargs, "float64", steps=10, loss=loss_fn, data_fn=make_data, groups=True,
             closure=True)


@pytest.mark.parametrize("name", NAMES)
def test_float64_default_dtype_state_scalars(name):
    """The step counters (and ASGD's eta and mu) follow the default dtype, as in torch."""
    dyngrad.set_default_dtype(dyngrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        lockstep(name, dict(lr=0.05), "float32", steps=5)
    finally:
        dyngrad.set_default_dtype(dyngrad.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("name", NAMES)
def test_tensor_lr(name):
    runs = {}
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        opt = getattr(lib.optim, name)(params, lr=lib.tensor(0.05))
        train(lib, opt, params, make_data(lib, "float64"), steps=5)
        runs[lib] = (params, opt.state_dict())
    compare_params(runs[dyngrad][0], runs[torch][0], 1e-10)
    assert_close_values(runs[dyngrad][1], runs[torch][1], 1e-10)


def test_asgd_averages_after_t0():
    """Past t0 the average ``ax`` lags the parameters; before it, it copies them."""
    runs = lockstep("ASGD", dict(lr=0.1, t0=3), "float64", steps=8)
    params, opt, _ = runs[dyngrad]
    ax = opt.state[params[0]]["ax"]
    assert not np.allclose(to_numpy(ax), to_numpy(params[0]))
    assert opt.state[params[0]]["mu"].item() == pytest.approx(1 / 5)


def test_adafactor_factors_matrices_and_batches():
    """A 3-d parameter is factored over its last two dims; a vector keeps a full variance."""
    def loss3(lib, params, data):
        return elementwise_loss(lib, params, data)

    def data3(lib, dtype):
        rng = np.random.default_rng(5)
        return [(lib.tensor(rng.standard_normal(s).astype(dtype)),
                 lib.tensor(rng.uniform(0.5, 2.0, s).astype(dtype))) for s in [(2, 3, 4), (3,)]]

    runs = {}
    for lib in (dyngrad, torch):
        rng = np.random.default_rng(6)
        params = [lib.tensor(rng.standard_normal(s), requires_grad=True)
                  for s in [(2, 3, 4), (3,)]]
        opt = lib.optim.Adafactor(params, lr=0.1)
        train(lib, opt, params, data3(lib, "float64"), steps=6, loss=loss3)
        runs[lib] = (params, opt.state_dict())
    compare_params(runs[dyngrad][0], runs[torch][0], 1e-10)
    assert_close_values(runs[dyngrad][1], runs[torch][1], 1e-10)
    assert list(runs[dyngrad][1]["state"][0]) == ["step", "row_var", "col_var"]
    assert tuple(runs[dyngrad][1]["state"][0]["col_var"].shape) == (2, 1, 4)


# -------------------------------------------------------------------------- state dicts
@pytest.mark.parametrize("name,kwargs", **ONE_EACH)
def test_state_dict_round_trip_then_continue(name, kwargs):
    results = {}
    for lib in (dyngrad, torch):
        params, opt = build(lib, name, kwargs, "float64", groups=True)
        data = make_data(lib, "float64")
        train(lib, opt, params, data, steps=6)
        saved = copy.deepcopy(opt.state_dict())
        params2 = [lib.tensor(to_numpy(p).copy(), requires_grad=True) for p in params]
        opt2 = getattr(lib.optim, name)([{"params": params2[:2]},
                                         {"params": params2[2:], "lr": 123.0}], **kwargs)
        opt2.load_state_dict(saved)
        assert opt2.param_groups[1]["lr"] == kwargs.get("lr", 0.01) / 2
        train(lib, opt2, params2, data, steps=6)
        results[lib] = (params2, opt2.state_dict())
    compare_params(results[dyngrad][0], results[torch][0], 1e-10, versions=False)
    assert_close_values(results[dyngrad][1], results[torch][1], 1e-10)


@pytest.mark.parametrize("name,kwargs", **ANOTHER_EACH)
def test_load_a_torch_state_dict(name, kwargs):
    """torch's state dict (tensors converted) loads into dyngrad as into a torch optimizer."""
    theirs, their_opt = build(torch, name, kwargs, "float64")
    train(torch, their_opt, theirs, make_data(torch, "float64"), steps=6)
    saved = their_opt.state_dict()
    theirs2 = [torch.tensor(to_numpy(p).copy(), requires_grad=True) for p in theirs]
    their_opt2 = getattr(torch.optim, name)(theirs2, **kwargs)
    their_opt2.load_state_dict(copy.deepcopy(saved))
    ours = [dyngrad.tensor(to_numpy(p).copy(), requires_grad=True) for p in theirs]
    our_opt = getattr(dyngrad.optim, name)(ours, **kwargs)
    our_opt.load_state_dict(state_dict_to_dyngrad(saved))
    # load_state_dict casts floating state (not "step") to the parameter's dtype
    assert_close_values(our_opt.state_dict(), their_opt2.state_dict(), 0.0)
    train(dyngrad, our_opt, ours, make_data(dyngrad, "float64"), steps=6)
    train(torch, their_opt2, theirs2, make_data(torch, "float64"), steps=6)
    compare_params(ours, theirs2, 1e-10, versions=False)
    assert_close_values(our_opt.state_dict(), their_opt2.state_dict(), 1e-10)


@pytest.mark.parametrize("name", NAMES)
def test_old_state_dict_with_plain_number_steps(name):
    """State dicts from before the step counters were tensors load as torch loads them."""
    results = []
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        opt = getattr(lib.optim, name)(params, lr=0.05)
        train(lib, opt, params, make_data(lib, "float64"), steps=3)
        sd = copy.deepcopy(opt.state_dict())
        for s in sd["state"].values():
            for key in ("step", "eta", "mu"):
                if key in s:
                    s[key] = s[key].item()
        opt.load_state_dict(sd)
        train(lib, opt, params, make_data(lib, "float64"), steps=3)
        results.append((params, opt.state_dict()))
    compare_params(results[0][0], results[1][0], 1e-10, versions=False)
    assert_close_values(results[0][1], results[1][1], 1e-10)


# -------------------------------------------------------------------------- schedulers
@pytest.mark.parametrize("name", NAMES)
def test_step_lr_scheduler_drives_the_new_optimizers(name):
    runs = {}
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        data = make_data(lib, "float64")
        opt = getattr(lib.optim, name)([{"params": params[:2]},
                                        {"params": params[2:], "lr": 0.02}], lr=0.05)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        lrs = []
        for _ in range(7):
            train(lib, opt, params, data, steps=1)
            sched.step()
            lrs.append(sched.get_last_lr())
        runs[lib] = (params, opt.state_dict(), lrs, sched.state_dict())
    assert runs[dyngrad][2] == runs[torch][2]
    compare_params(runs[dyngrad][0], runs[torch][0], 1e-10)
    assert_close_values(runs[dyngrad][1], runs[torch][1], 1e-10)


def test_cosine_schedule_with_lbfgs():
    runs = {}
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        data = make_data(lib, "float64")
        opt = lib.optim.LBFGS(params, lr=0.5, max_iter=3)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        for _ in range(5):
            train(lib, opt, params, data, steps=1, closure=True)
            sched.step()
        runs[lib] = (params, opt.state_dict(), sched.get_last_lr())
    assert runs[dyngrad][2] == pytest.approx(runs[torch][2], rel=1e-12)
    compare_params(runs[dyngrad][0], runs[torch][0], 1e-9, versions=False)
    compare_lbfgs_state(runs[dyngrad][1], runs[torch][1], 1e-9)


# -------------------------------------------------------------------------- repr and errors
@pytest.mark.parametrize("name,kwargs", **ONE_EACH)
def test_repr(name, kwargs):
    reprs = []
    for lib in (dyngrad, torch):
        params = make_params(lib)
        opt = getattr(lib.optim, name)([{"params": params[:1]},
                                        {"params": params[1:], "lr": 0.5}], **kwargs)
        reprs.append(repr(opt))
    assert reprs[0] == reprs[1]


ARG_ERRORS = [
    ("Adadelta", dict(lr=-1)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(rho=-0.1)),
    ("Adadelta", dict(eps=-1)), ("Adadelta", dict(weight_decay=-1)),
    ("ASGD", dict(lr=-1)), ("ASGD", dict(weight_decay=-1)),
    ("Rprop", dict(lr=-1)), ("Rprop", dict(etas=(1.0, 1.2))), ("Rprop", dict(etas=(0.0, 1.2))),
    ("Rprop", dict(etas=(0.5, 1.0))),
    ("Adafactor", dict(lr=-1)), ("Adafactor", dict(beta2_decay=0.1)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))), ("Adafactor", dict(eps=(None, -1e-3))),
    ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-0.1)),
    ("LBFGS", dict(lr=-1)),
    ("SparseAdam", dict(lr=0.0)), ("SparseAdam", dict(eps=0.0)),
    ("SparseAdam", dict(betas=(1.0, 0.9))), ("SparseAdam", dict(betas=(0.9, -0.5))),
]


@pytest.mark.parametrize("name,kwargs", ARG_ERRORS, ids=[f"{n}-{kw}" for n, kw in ARG_ERRORS])
def test_bad_arguments_raise_like_torch(name, kwargs):
    raises_like(lambda lib: getattr(lib.optim, name)(make_params(lib), **kwargs))


@pytest.mark.parametrize("name", NAMES + ["LBFGS", "SparseAdam"])
def test_tensor_lr_must_have_one_element(name):
    raises_like(lambda lib: getattr(lib.optim, name)(make_params(lib), lr=lib.ones(2)))


@pytest.mark.parametrize("name", ["Adadelta", "ASGD", "Rprop"])
def test_capturable_on_cpu_raises_at_step(name):
    def make(lib):
        params = make_params(lib)
        opt = getattr(lib.optim, name)(params, capturable=True)
        loss_fn(lib, params, make_data(lib)).backward()
        opt.step()
    raises_like(make)


@pytest.mark.parametrize("name", ["Adadelta", "ASGD", "Rprop"])
def test_differentiable_step_on_a_leaf_raises_like_torch(name):
    def make(lib):
        params = make_params(lib)
        opt = getattr(lib.optim, name)(params, differentiable=True)
        loss_fn(lib, params, make_data(lib)).backward()
        opt.step()
    raises_like(make)


@pytest.mark.parametrize("name,steps", [("Adadelta", 2), ("ASGD", 2), ("Rprop", 1)])
def test_differentiable_step_gives_a_meta_gradient(name, steps):
    """The updated parameter and state are functions of the initial value and the grads.

    (A second Rprop step makes torch's own backward fail: it overwrites a saved step size.)
    """
    grads = []
    for lib in (dyngrad, torch):
        w = lib.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
        v = lib.tensor(np.array([0.5, 0.25, -1.5]), requires_grad=True)
        p = w.clone()
        opt = getattr(lib.optim, name)([p], lr=0.1, differentiable=True)
        for i in range(steps):
            p.grad = v * (i + 2.0)
            opt.step()
        assert p.grad_fn is not None
        state = [s for s in opt.state[p].values() if s.requires_grad]
        loss = (p * p).sum() + sum((s * s).sum() for s in state)
        grads.append([to_numpy(g) for g in lib.autograd.grad(loss, (w, v))])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("name", ["Adadelta", "ASGD", "Rprop"])
def test_foreach_and_differentiable_together_raise_at_step(name):
    def make(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        p = w * 1.0
        opt = getattr(lib.optim, name)([p], foreach=True, differentiable=True)
        p.grad = lib.ones(2)
        opt.step()
    raises_like(make)


def test_adafactor_rejects_grad_scaling_inside_step():
    def make(lib):
        params = make_params(lib)
        opt = lib.optim.Adafactor(params)
        opt.grad_scale = lib.tensor(2.0)
        loss_fn(lib, params, make_data(lib)).backward()
        opt.step()
    raises_like(make)


@pytest.mark.parametrize("name", NAMES + ["SparseAdam"])
def test_state_dict_before_any_step(name):
    ours = getattr(dyngrad.optim, name)(make_params(dyngrad), lr=0.1).state_dict()
    theirs = getattr(torch.optim, name)(make_params(torch), lr=0.1).state_dict()
    assert_close_values(ours, theirs, 0.0)


# -------------------------------------------------------------------------- SparseAdam
def test_sparse_adam_refuses_dense_gradients_like_torch():
    def make(lib):
        params = make_params(lib)
        opt = lib.optim.SparseAdam(params, lr=0.1)
        loss_fn(lib, params, make_data(lib)).backward()
        opt.step()
    raises_like(make)


def test_sparse_adam_without_gradients_only_runs_the_closure():
    states = []
    for lib in (dyngrad, torch):
        params = make_params(lib)
        opt = lib.optim.SparseAdam([{"params": params[:2]}, {"params": params[2:]}],
                                   betas=(0.8, 0.9), maximize=True)
        assert opt.step() is None
        assert opt.step(lambda: 5.0) == 5.0
        with pytest.raises(RuntimeError, match="does not support dense gradients"):
            opt.step(lambda: loss_fn(lib, params, make_data(lib)).backward())
        states.append((opt.state_dict(), repr(opt), [p._version for p in params]))
    assert_close_values(states[0][0], states[1][0], 0.0)
    assert states[0][1:] == states[1][1:]


# -------------------------------------------------------------------------- LBFGS
LBFGS_GRID = [
    dict(),
    dict(lr=0.5, max_iter=5),
    dict(lr=1, max_iter=4, history_size=2),
    dict(lr=0.8, max_iter=7, max_eval=9, tolerance_change=1e-6),
    dict(max_iter=50, tolerance_grad=1e-3),
    dict(line_search_fn="strong_wolfe"),
    dict(line_search_fn="strong_wolfe", max_iter=6, history_size=3),
    dict(line_search_fn="strong_wolfe", max_iter=10, max_eval=12, lr=2.0),
    dict(line_search_fn="strong_wolfe", tolerance_change=1e-4, tolerance_grad=1e-4),
]
LBFGS_IDS = ["-".join(f"{k}={v}" for k, v in kw.items()) or "defaults" for kw in LBFGS_GRID]


def lbfgs_lockstep(kwargs, dtype, loss, data_fn, steps=4, rtol=None):
    rtol = RTOL[dtype] if rtol is None else rtol
    runs = {}
    for lib in (dyngrad, torch):
        params = make_params(lib, dtype)
        runs[lib] = (params, lib.optim.LBFGS(params, **kwargs), data_fn(lib, dtype))
    for step in range(steps):
        losses = []
        for lib, (params, opt, data) in runs.items():
            def closure(lib=lib, params=params, opt=opt, data=data):
                opt.zero_grad()
                value = loss(lib, params, data)
                value.backward()
                return value
            losses.append(opt.step(closure))
        assert isinstance(losses[0], dyngrad.Tensor)
        np.testing.assert_allclose(losses[0].item(), losses[1].item(), rtol=rtol)
        (ours, our_opt, _), (theirs, their_opt, _) = runs[dyngrad], runs[torch]
        compare_params(ours, theirs, rtol, versions=False)
        compare_lbfgs_state(our_opt.state_dict(), their_opt.state_dict(), rtol,
                            where=f"step {step}")
    return runs


def compare_lbfgs_state(ours, theirs, rtol, where=""):
    """LBFGS state dicts: as assert_close_values, except the two-loop coefficients ``al``.

    ``al[i]`` is a dot product that can cancel to far below its terms, and NumPy and torch
    sum dot products in different orders: those are compared against the largest ``al``,
    with a hundredfold tolerance (over 20 iterations a step, the rounding differences of the
    MLP's matmuls reach them too).
    """
    ours, theirs = copy.copy(ours), copy.copy(theirs)
    ours["state"] = {k: dict(v) for k, v in ours["state"].items()}
    theirs["state"] = {k: dict(v) for k, v in theirs["state"].items()}
    for key, state in theirs["state"].items():
        if "al" not in state:
            continue
        our_al, their_al = ours["state"][key].pop("al"), state.pop("al")
        assert [a is None for a in our_al] == [a is None for a in their_al], where
        their_values = np.array([a.item() for a in their_al if a is not None])
        our_values = np.array([a.item() for a in our_al if a is not None])
        assert {str(a.dtype) for a in our_al if a is not None} == \
            {str(a.dtype) for a in their_al if a is not None}
        scale = float(np.abs(their_values).max()) if their_values.size else 0.0
        np.testing.assert_allclose(our_values, their_values, rtol=0, atol=100 * rtol * scale,
                                   err_msg=f"{where} al")
    assert_close_values(ours, theirs, rtol, where=where)


@pytest.mark.parametrize("kwargs", LBFGS_GRID, ids=LBFGS_IDS)
def test_lbfgs_on_an_mlp_matches_torch(kwargs):
    """Up to 60 quasi-Newton iterations in lockstep. They amplify the matmuls' last-bit
    differences (NumPy and torch round them differently): with the defaults the params still
    agree to ~5e-13 after 60 iterations, but after 80 (a fourth step) the run nears its
    optimum and how far the gradients drift apart depends on the CPU's BLAS kernels (1e-7 of
    their size on one machine, 2e-6 on an AVX-512 one)."""
    lbfgs_lockstep(kwargs, "float64", loss_fn, make_data, steps=3, rtol=1e-6)


@pytest.mark.parametrize("kwargs", LBFGS_GRID, ids=LBFGS_IDS)
def test_lbfgs_on_an_elementwise_loss_matches_torch(kwargs):
    lbfgs_lockstep(kwargs, "float64", elementwise_loss, make_elementwise_data, rtol=1e-9)


@pytest.mark.parametrize("kwargs", [LBFGS_GRID[1], LBFGS_GRID[6]], ids=["fixed", "wolfe"])
def test_lbfgs_float32(kwargs):
    """In float32 the dot products' summation order shows in the directions at ~1e-4."""
    lbfgs_lockstep(kwargs, "float32", elementwise_loss, make_elementwise_data, steps=2,
                   rtol=1e-3)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_tensor_lr(line_search_fn):
    """A tensor lr makes the step length ``t`` a tensor in the state, as in torch."""
    runs = []
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        opt = lib.optim.LBFGS(params, lr=lib.tensor([0.5], dtype=lib.float64), max_iter=4,
                              line_search_fn=line_search_fn)
        train(lib, opt, params, make_elementwise_data(lib, "float64"), steps=2, closure=True,
              loss=elementwise_loss)
        runs.append((params, opt.state_dict()))
    compare_params(runs[0][0], runs[1][0], 1e-9, versions=False)
    compare_lbfgs_state(runs[0][1], runs[1][1], 1e-9)


def test_lbfgs_state_dict_round_trip_and_counters():
    results = []
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        data = make_data(lib, "float64")
        opt = lib.optim.LBFGS(params, max_iter=5, history_size=3,
                              line_search_fn="strong_wolfe")
        train(lib, opt, params, data, steps=2, closure=True)
        saved = copy.deepcopy(opt.state_dict())
        params2 = [lib.tensor(to_numpy(p).copy(), requires_grad=True) for p in params]
        opt2 = lib.optim.LBFGS(params2, max_iter=5, history_size=3,
                               line_search_fn="strong_wolfe")
        opt2.load_state_dict(saved)
        train(lib, opt2, params2, data, steps=2, closure=True)
        sd = opt2.state_dict()
        results.append((params2, sd, sd["state"][0]["func_evals"], sd["state"][0]["n_iter"]))
    compare_params(results[0][0], results[1][0], 1e-8, versions=False)
    compare_lbfgs_state(results[0][1], results[1][1], 1e-8)
    assert results[0][2:] == results[1][2:]


def test_lbfgs_stops_at_once_when_already_optimal():
    for lib in (dyngrad, torch):
        w = lib.zeros(3, requires_grad=True)
        opt = lib.optim.LBFGS([w])

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        assert opt.step(closure).item() == 0.0
        assert dict(opt.state[w]) == {"func_evals": 1, "n_iter": 0}


def test_lbfgs_parameter_without_grad_counts_as_zero():
    runs = []
    for lib in (dyngrad, torch):
        params = make_params(lib, "float64")
        opt = lib.optim.LBFGS(params, max_iter=3)

        def closure(params=params, opt=opt):
            opt.zero_grad()
            loss = ((params[0] - 1.0) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        runs.append((params, opt.state_dict()))
    compare_params(runs[0][0], runs[1][0], 1e-10, versions=False)
    compare_lbfgs_state(runs[0][1], runs[1][1], 1e-10)


def test_lbfgs_errors():
    raises_like(lambda lib: lib.optim.LBFGS([{"params": make_params(lib)[:2]},
                                             {"params": make_params(lib)[2:]}]))

    def bad_line_search(lib):
        params = make_params(lib)
        opt = lib.optim.LBFGS(params, line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = loss_fn(lib, params, make_data(lib))
            loss.backward()
            return loss
        opt.step(closure)
    raises_like(bad_line_search)

    raises_like(lambda lib: lib.optim.LBFGS(make_params(lib)).step())

    def added_group(lib):
        params = make_params(lib)
        opt = lib.optim.LBFGS(params[:2])
        opt.add_param_group({"params": params[2:]})
        opt.step(lambda: 0.0)
    raises_like(added_group)


def test_lbfgs_repr_and_defaults():
    reprs = [repr(lib.optim.LBFGS(make_params(lib), max_iter=8)) for lib in (dyngrad, torch)]
    assert reprs[0] == reprs[1]
    assert dyngrad.optim.LBFGS(make_params(dyngrad), max_iter=8).defaults["max_eval"] == 10
