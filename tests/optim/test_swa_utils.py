"""dyngrad.optim.swa_utils against torch.optim.swa_utils: AveragedModel with every averaging
rule (with and without buffers), the averaging functions, SWALR's lr sequence and state dict,
and update_bn's recomputed batch-norm statistics."""
import copy
import warnings

import numpy as np
import pytest
import torch

import dyngrad

from .helpers import make_params, raises_like, to_numpy
from .test_lr_scheduler import assert_same_sequence, compare_scheduler_state


def make_model(lib, dtype="float64"):
    """Linear -> BatchNorm1d -> tanh -> Linear with the same weights on both libraries."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 2))
    model = model.to(getattr(lib, dtype))
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    return model


def batches(lib, n=4, dtype="float64"):
    rng = np.random.default_rng(3)
    return [lib.tensor(rng.standard_normal((6, 3)).astype(dtype)) for _ in range(n)]


def train_a_little(lib, model, step, dtype="float64"):
    """Move the parameters (and, by a forward in train mode, the batch-norm buffers)."""
    rng = np.random.default_rng(10 + step)
    with lib.no_grad():
        for p in model.parameters():
            p.add_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.1))
    model.train()
    model(batches(lib, 1, dtype)[0] * (step + 1))


def compare_state_dicts(ours, theirs, rtol=1e-12):
    assert list(ours.keys()) == list(theirs.keys())
    for key in theirs:
        assert str(ours[key].dtype) == str(theirs[key].dtype), key
        np.testing.assert_allclose(to_numpy(ours[key]), to_numpy(theirs[key]), rtol=rtol,
                                   atol=1e-15, err_msg=key)


AVERAGING = {
    "swa-default": lambda swa: dict(),
    "ema-avg_fn": lambda swa: dict(avg_fn=swa.get_ema_avg_fn(0.9)),
    "swa-avg_fn": lambda swa: dict(avg_fn=swa.get_swa_avg_fn()),
    "ema-multi": lambda swa: dict(multi_avg_fn=swa.get_ema_multi_avg_fn(0.8)),
    "swa-multi": lambda swa: dict(multi_avg_fn=swa.get_swa_multi_avg_fn()),
    "custom-avg_fn": lambda swa: dict(avg_fn=lambda a, m, n: 0.5 * a + 0.5 * m),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("rule", list(AVERAGING))
def test_averaged_model_matches_torch(rule, use_buffers, dtype):
    if rule == "swa-multi" and use_buffers:
        # torch's running mean of the integer buffer num_batches_tracked is an integer
        # addcdiv, which torch refuses
        def average(lib):
            swa = lib.optim.swa_utils
            model = make_model(lib, dtype)
            averaged = swa.AveragedModel(model, use_buffers=True, **AVERAGING[rule](swa))
            for step in range(2):
                train_a_little(lib, model, step, dtype)
                averaged.update_parameters(model)
        raises_like(average)
        return
    states = []
    for lib in (dyngrad, torch):
        swa = lib.optim.swa_utils
        model = make_model(lib, dtype)
        averaged = swa.AveragedModel(model, use_buffers=use_buffers, **AVERAGING[rule](swa))
        record = []
        for step in range(5):
            train_a_little(lib, model, step, dtype)
            averaged.update_parameters(model)
            record.append(copy.deepcopy(averaged.state_dict()))
        averaged.eval()
        out = averaged(batches(lib, 1, dtype)[0])
        states.append((record, to_numpy(out), [p is q for p, q in zip(averaged.parameters(),
                                                                       model.parameters())]))
    rtol = 1e-6 if dtype == "float32" else 1e-12
    for ours, theirs in zip(states[0][0], states[1][0]):
        compare_state_dicts(ours, theirs, rtol)
    np.testing.assert_allclose(states[0][1], states[1][1], rtol=rtol, atol=rtol)
    assert states[0][2] == states[1][2]


def test_averaged_model_layout_and_device_argument():
    for lib in (dyngrad, torch):
        model = make_model(lib)
        averaged = lib.optim.swa_utils.AveragedModel(model, device="cpu")
        keys = list(averaged.state_dict().keys())
        if lib is torch:
            expected = (keys, repr(averaged), averaged.n_averaged.dtype)
        else:
            got = (keys, repr(averaged), averaged.n_averaged.dtype)
    assert (got[0], got[1], str(got[2])) == (expected[0], expected[1], str(expected[2]))
    assert got[0][0] == "n_averaged"


def test_averaged_model_loads_its_state_dict():
    results = []
    for lib in (dyngrad, torch):
        swa = lib.optim.swa_utils
        model = make_model(lib)
        averaged = swa.AveragedModel(model)
        for step in range(3):
            train_a_little(lib, model, step)
            averaged.update_parameters(model)
        fresh = swa.AveragedModel(make_model(lib))
        fresh.load_state_dict(averaged.state_dict())
        train_a_little(lib, model, 3)
        fresh.update_parameters(model)
        results.append(fresh.state_dict())
    compare_state_dicts(results[0], results[1])


def test_averaged_model_errors():
    raises_like(lambda lib: lib.optim.swa_utils.AveragedModel(
        make_model(lib), avg_fn=lib.optim.swa_utils.get_swa_avg_fn(),
        multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()))
    raises_like(lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5))
    raises_like(lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1))


@pytest.mark.parametrize("name,args", [
    ("get_ema_avg_fn", (0.7,)), ("get_swa_avg_fn", ()),
])
def test_avg_fns_on_tensors(name, args):
    outs = []
    for lib in (dyngrad, torch):
        fn = getattr(lib.optim.swa_utils, name)(*args)
        a = lib.tensor([1.0, 2.0, -3.0], dtype=lib.float64, requires_grad=True)
        m = lib.tensor([0.5, 4.0, 1.0], dtype=lib.float64)
        out = fn(a, m, lib.tensor(3))
        outs.append((to_numpy(out), out.requires_grad, str(out.dtype)))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-15)
    assert outs[0][1:] == outs[1][1:]


@pytest.mark.parametrize("name,args", [
    ("get_ema_multi_avg_fn", (0.7,)), ("get_swa_multi_avg_fn", ()),
])
@pytest.mark.parametrize("num_averaged", ["tensor", "int"])
def test_multi_avg_fns_on_float_and_integer_lists(name, args, num_averaged):
    def run(lib, dtype):
        fn = getattr(lib.optim.swa_utils, name)(*args)
        avg = [lib.tensor([1, 2, -3], dtype=dtype), lib.tensor([[4, 5]], dtype=dtype)]
        cur = [lib.tensor([5, 0, 1], dtype=dtype), lib.tensor([[-4, 9]], dtype=dtype)]
        n = lib.tensor(2) if num_averaged == "tensor" else 2
        fn(avg, cur, n)
        return [to_numpy(a) for a in avg]

    for dtype in ("float32", "float64"):
        ours = run(dyngrad, getattr(dyngrad, dtype))
        theirs = run(torch, getattr(torch, dtype))
        for o, t in zip(ours, theirs):
            assert o.dtype == t.dtype
            np.testing.assert_allclose(o, t, rtol=1e-7 if dtype == "float32" else 1e-15)
    if name == "get_swa_multi_avg_fn":
        # torch refuses both integer forms (addcdiv of integers; a float alpha for integers)
        raises_like(lambda lib: run(lib, lib.int64))
    else:
        ours, theirs = run(dyngrad, dyngrad.int64), run(torch, torch.int64)
        for o, t in zip(ours, theirs):
            np.testing.assert_array_equal(o, t)


# -------------------------------------------------------------------------- SWALR
def make_optimizer(lib, name="SGD"):
    w1, b1, w2, b2 = make_params(lib)
    groups = [{"params": [w1, b1]}, {"params": [w2, b2], "lr": 0.02}]
    return getattr(lib.optim, name)(groups, lr=0.1)


SWALR_CASES = {
    "cos": dict(swa_lr=0.05),
    "linear": dict(swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear"),
    "per-group": dict(swa_lr=[0.01, 0.2], anneal_epochs=3),
    "no-anneal": dict(swa_lr=0.03, anneal_epochs=0),
    "one-epoch": dict(swa_lr=0.03, anneal_epochs=1, anneal_strategy="linear"),
}


@pytest.mark.parametrize("optimizer", ["SGD", "ASGD", "Adadelta"])
@pytest.mark.parametrize("case", list(SWALR_CASES))
def test_swalr_sequence_matches_torch(case, optimizer):
    records = []
    for lib in (dyngrad, torch):
        opt = make_optimizer(lib, optimizer)
        sched = lib.optim.swa_utils.SWALR(opt, **SWALR_CASES[case])
        record = [[g["lr"] for g in opt.param_groups]]
        for _ in range(14):
            opt.step()
            sched.step()
            record.append(([g["lr"] for g in opt.param_groups], list(sched.get_last_lr()),
                           [g["swa_lr"] for g in opt.param_groups]))
        records.append((record, sched.state_dict()))
    assert_same_sequence(records[0][0], records[1][0])
    compare_scheduler_state(records[0][1], records[1][1])


def test_swalr_after_another_schedule():
    """The usual recipe: a cosine schedule, then SWALR takes over from the lr it left."""
    records = []
    for lib in (dyngrad, torch):
        opt = make_optimizer(lib)
        S = lib.optim.lr_scheduler
        cosine = S.CosineAnnealingLR(opt, T_max=10)
        swa = lib.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=3)
        record = []
        for epoch in range(12):
            opt.step()
            (cosine if epoch < 6 else swa).step()
            record.append([g["lr"] for g in opt.param_groups])
        records.append(record)
    assert_same_sequence(records[0], records[1])


def test_swalr_state_dict_round_trip():
    records = []
    for lib in (dyngrad, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_strategy="linear",
                                          anneal_epochs=6)
        for _ in range(3):
            opt.step()
            sched.step()
        saved = copy.deepcopy(sched.state_dict())
        assert "anneal_func" not in saved and "optimizer" not in saved
        opt2 = make_optimizer(lib)
        opt2.load_state_dict(opt.state_dict())
        sched2 = lib.optim.swa_utils.SWALR(opt2, swa_lr=0.5)     # cos, overwritten below
        sched2.load_state_dict(saved)
        assert sched2.anneal_func is sched2._linear_anneal
        lrs = []
        for _ in range(5):
            opt2.step()
            sched2.step()
            lrs.append(sched2.get_last_lr())
        records.append(lrs)
    assert_same_sequence(records[0], records[1])


@pytest.mark.parametrize("kwargs", [
    dict(swa_lr=0.1, anneal_strategy="exp"), dict(swa_lr=0.1, anneal_epochs=-1),
    dict(swa_lr=0.1, anneal_epochs=2.5), dict(swa_lr=[0.1, 0.2, 0.3]),
], ids=["strategy", "negative-epochs", "float-epochs", "list-length"])
def test_swalr_errors(kwargs):
    raises_like(lambda lib: lib.optim.swa_utils.SWALR(make_optimizer(lib), **kwargs))


def test_swalr_get_lr_outside_step_warns():
    for lib in (dyngrad, torch):
        sched = lib.optim.swa_utils.SWALR(make_optimizer(lib), swa_lr=0.1)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            sched.get_lr()


# -------------------------------------------------------------------------- update_bn
@pytest.mark.parametrize("loader_kind", ["tensors", "tuples"])
@pytest.mark.parametrize("was_training", [True, False])
def test_update_bn_matches_torch(loader_kind, was_training):
    results = []
    for lib in (dyngrad, torch):
        model = make_model(lib)
        for step in range(3):
            train_a_little(lib, model, step)
        bn = model[1]
        bn.momentum = 0.3
        model.train(was_training)
        loader = batches(lib)
        if loader_kind == "tuples":
            loader = [(x, lib.zeros(6)) for x in loader]
        lib.optim.swa_utils.update_bn(loader, model, device="cpu")
        results.append((model.state_dict(), model.training, bn.momentum,
                        [p.requires_grad for p in model.parameters()]))
    compare_state_dicts(results[0][0], results[1][0])
    assert results[0][1:] == results[1][1:]


def test_update_bn_on_an_averaged_model():
    results = []
    for lib in (dyngrad, torch):
        model = make_model(lib)
        averaged = lib.optim.swa_utils.AveragedModel(model)
        for step in range(3):
            train_a_little(lib, model, step)
            averaged.update_parameters(model)
        lib.optim.swa_utils.update_bn(batches(lib), averaged)
        results.append(averaged.state_dict())
    compare_state_dicts(results[0], results[1])


def test_update_bn_without_batch_norm_does_nothing():
    for lib in (dyngrad, torch):
        model = lib.nn.Sequential(lib.nn.Linear(3, 2))
        model.eval()
        calls = []
        model.register_forward_hook(lambda *a: calls.append(1))
        lib.optim.swa_utils.update_bn(batches(lib, dtype="float32"), model)
        assert calls == [] and model.training is False


def test_swa_utils_namespace():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sorted(dyngrad.optim.swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
