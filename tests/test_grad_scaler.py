"""torch.amp.GradScaler and its kernels against live torch: training steps with an overflowing
one (scales, skipped steps, parameters), the state machine's errors, state_dict, and
``_amp_foreach_non_finite_check_and_unscale_`` / ``_amp_update_scale_``."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch


def outcome(fn, lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(lib)
        except Exception as e:   # noqa: BLE001
            r = f"{type(e).__name__}: {e}"
    return str(r).replace("dyngrad", "torch"), [(x.category.__name__, str(x.message)) for x in w]


def same_outcome(fn):
    assert outcome(fn, dyngrad) == outcome(fn, torch)


# -- the kernels -----------------------------------------------------------------------------------
def _t(lib, values, dtype="float32"):
    return lib.tensor(np.array(values, dtype=dtype))


UNSCALE = {
    "finite": lambda t: ([_t(t, [1., 2.]), _t(t, [4., -8.])], _t(t, 0.), _t(t, .5)),
    "inf": lambda t: ([_t(t, [1., 2.]), _t(t, [4., np.inf])], _t(t, 0.), _t(t, .5)),
    "nan": lambda t: ([_t(t, [np.nan, 2.])], _t(t, 0.), _t(t, 2.)),
    "f16_overflows": lambda t: ([_t(t, [65504., 2.], "float16")], _t(t, 0.), _t(t, 2.)),
    "f64": lambda t: ([_t(t, [1., 3.], "float64")], _t(t, 0.), _t(t, 1 / 3)),
    "one": lambda t: ([_t(t, [1., np.inf])], _t(t, 0.), _t(t, 1.)),
    "found_inf_shape_1": lambda t: ([_t(t, [1.])], _t(t, [0.]), _t(t, [.5])),
    "empty": lambda t: ([], _t(t, 0.), _t(t, .5)),
    "found_inf_f64": lambda t: ([_t(t, [1.])], _t(t, 0., "float64"), _t(t, .5)),
    "found_inf_2": lambda t: ([_t(t, [1.])], _t(t, [0., 0.]), _t(t, .5)),
    "inv_scale_2": lambda t: ([_t(t, [1.])], _t(t, 0.), _t(t, [.5, .5])),
    "inv_scale_f64": lambda t: ([_t(t, [1.])], _t(t, 0.), _t(t, .5, "float64")),
    "both_bad": lambda t: ([_t(t, [1.])], _t(t, [0., 0.], "float64"), _t(t, [.5, .5], "float64")),
    "int_grad": lambda t: ([_t(t, [1], "int64")], _t(t, 0.), _t(t, .5)),
    "noncontiguous": lambda t: ([_t(t, np.arange(6.).reshape(2, 3)).t()], _t(t, 0.), _t(t, .5)),
}


@pytest.mark.parametrize("case", sorted(UNSCALE))
def test_foreach_non_finite_check_and_unscale(case):
    def run(t):
        grads, found_inf, inv_scale = UNSCALE[case](t)
        out = t._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale)
        assert out is None
        return tuple(grads) + (found_inf,)
    like_torch(run)


UPDATE = {
    "grow_count": (4., 0, 0., 2),
    "grow": (4., 1, 0., 2),
    "backoff": (4., 1, 1., 2),
    "found_2": (4., 1, 2., 2),
    "past_interval": (4., 5, 0., 2),   # (torch tests ==, not >=)
    "overflow": (3e38, 1, 0., 2),
}


@pytest.mark.parametrize("case", sorted(UPDATE))
def test_update_scale(case):
    scale, tracker, found, interval = UPDATE[case]

    def run(t):
        s = _t(t, scale)
        g = t.tensor(tracker, dtype=t.int32)
        r = t._amp_update_scale_(s, g, _t(t, found), 2.0, 0.5, interval)
        assert r is s
        return s, g
    like_torch(run)


@pytest.mark.parametrize("bad", ["tracker_i64", "scale_f64", "scale_2", "tracker_2", "found_2",
                                 "found_f64", "all_bad"])
def test_update_scale_errors(bad):
    def run(t):
        s = _t(t, [4., 4.] if bad in ("scale_2", "all_bad") else 4.,
               "float64" if bad in ("scale_f64", "all_bad") else "float32")
        g = t.zeros(2 if bad in ("tracker_2", "all_bad") else (),
                    dtype=t.int64 if bad in ("tracker_i64", "all_bad") else t.int32)
        f = _t(t, [0., 0.] if bad in ("found_2", "all_bad") else 0.,
               "float64" if bad in ("found_f64", "all_bad") else "float32")
        return t._amp_update_scale_(s, g, f, 2.0, 0.5, 2)
    like_torch(run)


# -- GradScaler ------------------------------------------------------------------------------------
def _model(t, opt="SGD"):
    rng = np.random.default_rng(0)
    lin = t.nn.Linear(4, 3)
    with t.no_grad():
        lin.weight.copy_(t.tensor(rng.standard_normal((3, 4)).astype("float32")))
        lin.bias.copy_(t.tensor(rng.standard_normal(3).astype("float32")))
    kw = {"lr": 0.1} if opt == "SGD" else {"lr": 0.01}
    return lin, getattr(t.optim, opt)(lin.parameters(), **kw)


@pytest.mark.parametrize("opt", ["SGD", "Adam"])
@pytest.mark.parametrize("autocast", [False, True])
def test_training_steps_with_overflow(opt, autocast):
    """Six steps with growth_interval=2: step 3's loss is inf, so its step is skipped and the
    scale backs off; the others grow it every two steps."""
    def run(t):
        lin, optim = _model(t, opt)
        scaler = t.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
        rng = np.random.default_rng(1)
        log = []
        for step in range(6):
            x = t.tensor(rng.standard_normal((5, 4)).astype("float32"))
            optim.zero_grad()
            with t.autocast("cpu", dtype=t.float16, enabled=autocast):
                loss = lin(x).float().pow(2).mean()
            if step == 3:
                loss = loss * float("inf")
            ret = scaler.step(optim) if scaler.scale(loss).backward() is None else None
            scaler.update()
            log.append((scaler.get_scale(), scaler._get_growth_tracker(), ret))
        return log, lin.weight.detach(), lin.bias.detach(), scaler.state_dict()
    (dlog, dw, db, dsd), (tlog, tw, tb, tsd) = run(dyngrad), run(torch)
    assert dlog == tlog and dsd == tsd
    np.testing.assert_allclose(dw.numpy(), tw.numpy(), rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(db.numpy(), tb.numpy(), rtol=2e-3, atol=1e-4)


def test_unscale_then_clip_then_step():
    def run(t):
        lin, optim = _model(t)
        scaler = t.amp.GradScaler("cpu")
        loss = lin(t.ones(2, 4)).sum()
        scaler.scale(loss).backward()
        scaler.unscale_(optim)
        norm = t.nn.utils.clip_grad_norm_(lin.parameters(), 0.5)
        scaler.step(optim)
        scaler.update()
        return norm, lin.weight.grad, lin.weight.detach()
    like_torch(run, rtol=1e-6, atol=1e-6)


def _ready(t, **kw):
    lin, optim = _model(t)
    scaler = t.amp.GradScaler("cpu", **kw)
    scaler.scale(lin(t.ones(2, 4)).sum()).backward()
    return scaler, optim


ERRORS = {
    "unscale_twice": lambda t: (lambda s, o: (s.unscale_(o), s.unscale_(o)))(*_ready(t)),
    "unscale_after_step": lambda t: (lambda s, o: (s.step(o), s.unscale_(o)))(*_ready(t)),
    "step_twice": lambda t: (lambda s, o: (s.step(o), s.step(o)))(*_ready(t)),
    "closure": lambda t: (lambda s, o: s.step(o, closure=lambda: 0))(*_ready(t)),
    "step_before_scale": lambda t: t.amp.GradScaler("cpu").step(_model(t)[1]),
    "unscale_before_scale": lambda t: t.amp.GradScaler("cpu").unscale_(_model(t)[1]),
    "update_before_scale": lambda t: t.amp.GradScaler("cpu").update(),
    "update_without_step": lambda t: _ready(t)[0].update(),
    "growth_factor": lambda t: t.amp.GradScaler("cpu", growth_factor=1.0),
    "backoff_factor": lambda t: t.amp.GradScaler("cpu", backoff_factor=1.0),
    "cuda_disabled": lambda t: (t.amp.GradScaler().is_enabled(), t.amp.GradScaler().get_scale(),
                                t.amp.GradScaler().state_dict()),
    "default_cuda_device": lambda t: t.amp.GradScaler()._device,
    "cpu_amp_deprecated": lambda t: t.cpu.amp.GradScaler().get_scale(),
    "fp16_grads": lambda t: (lambda lin, o: (
        lin.half(), (lin(t.ones(2, 4).half()).sum() * 1).backward(),
        t.amp.GradScaler("cpu").scale(t.ones(())),
        ))(*_model(t)),
    "scale_bad_outputs": lambda t: t.amp.GradScaler("cpu").scale([t.ones(2), 3]),
    "load_empty": lambda t: t.amp.GradScaler("cpu").load_state_dict({}),
    "new_scale_tensor_2": lambda t: _ready(t)[0].update(t.ones(2)),
    "new_scale_requires_grad": lambda t: _ready(t)[0].update(t.ones((), requires_grad=True)),
    "pickle_mid_iteration": lambda t: (lambda s, o: (s.unscale_(o), pickle.dumps(s)))(*_ready(t)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_and_edges(case):
    same_outcome(ERRORS[case])


def test_unscale_fp16_grads_refused():
    def run(t):
        lin, optim = _model(t)
        lin.half()
        scaler = t.amp.GradScaler("cpu")
        scaler.scale(lin(t.ones(2, 4).half()).float().sum()).backward()
        scaler.unscale_(optim)
    same_outcome(run)


def test_scale_iterables_and_state_dict():
    def run(t):
        scaler = t.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
        nested = scaler.scale([t.ones(2), (t.full((), 2.0), [t.ones(1)])])
        gen = list(scaler.scale(x for x in [t.ones(1)]))
        other = t.amp.GradScaler("cpu")
        other.load_state_dict(scaler.state_dict())
        copy = pickle.loads(pickle.dumps(scaler))
        scaler.update(16.0)
        after_float = scaler.get_scale()
        scaler.update(t.tensor(4.0))
        return (nested, gen, scaler.get_scale(), after_float, other.state_dict(),
                copy.state_dict(), copy._scale, scaler.get_growth_factor(),
                scaler.get_backoff_factor(), scaler.get_growth_interval())
    same_outcome(run)


def test_disabled_scaler_passes_through():
    def run(t):
        lin, optim = _model(t)
        scaler = t.amp.GradScaler("cpu", enabled=False)
        loss = lin(t.ones(2, 4)).sum()
        same_obj = scaler.scale(loss) is loss
        loss.backward()
        scaler.unscale_(optim)
        scaler.step(optim)
        scaler.update()
        return (same_obj, scaler.get_scale(), scaler.state_dict(), scaler.is_enabled(),
                scaler._get_growth_tracker(), lin.weight.detach())
    same_outcome(run)


def test_step_returns_optimizer_value():
    def run(t):
        lin, optim = _model(t)
        scaler = t.amp.GradScaler("cpu")

        def closure_free_step(*a, **k):
            optim.__class__.step(optim)
            return "stepped"
        optim.step = closure_free_step
        scaler.scale(lin(t.ones(2, 4)).sum()).backward()
        return scaler.step(optim), scaler.update(), scaler._get_growth_tracker()
    same_outcome(run)
