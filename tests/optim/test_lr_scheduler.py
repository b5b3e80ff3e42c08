"""dyngrad.optim.lr_scheduler against torch.optim.lr_scheduler: the lr (and momentum)
sequence over 25+ steps with the same optimizer, chained and sequential schedules,
ReduceLROnPlateau on a metric sequence, state dicts, warnings and errors."""
import copy
import math
import warnings

import pytest
import torch

import dyngrad

from .helpers import make_params, raises_like

STEPS = 25


def make_optimizer(lib, name="SGD", **kwargs):
    """An optimizer with two parameter groups of different learning rates."""
    w1, b1, w2, b2 = make_params(lib)
    defaults = dict(lr=0.1, momentum=0.9) if name == "SGD" else dict(lr=0.01)
    defaults.update(kwargs)
    groups = [{"params": [w1, b1]}, {"params": [w2, b2], "lr": defaults["lr"] / 4}]
    return getattr(lib.optim, name)(groups, **defaults)


def run_schedule(lib, make_scheduler, steps=STEPS, optimizer="SGD", metrics=None):
    """Step optimizer then scheduler ``steps`` times; record lrs, last lrs and momenta."""
    opt = make_optimizer(lib, optimizer)
    sched = make_scheduler(lib.optim.lr_scheduler, opt)
    record = [[g["lr"] for g in opt.param_groups]]
    for i in range(steps):
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[i])
        record.append(([g["lr"] for g in opt.param_groups], list(sched.get_last_lr()),
                       [g.get("momentum", g.get("betas")) for g in opt.param_groups]))
    return record, sched, opt


def assert_same_values(ours, theirs, where=""):
    """Nested lists/tuples of numbers: same structure, numbers equal to 1e-12 (relative)."""
    if isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{where}: {ours}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            assert_same_values(o, t, f"{where}[{i}]")
    elif isinstance(theirs, (torch.Tensor, dyngrad.Tensor)):
        assert type(ours).__name__ == "Tensor" and ours.item() == pytest.approx(theirs.item())
    else:
        assert type(ours) is type(theirs), f"{where}: {ours!r} vs {theirs!r}"
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15), f"{where}: {ours} != {theirs}"


def assert_same_sequence(ours, theirs):
    assert len(ours) == len(theirs)
    for step, (o, t) in enumerate(zip(ours, theirs)):
        assert_same_values(o, t, f"step {step}")


def compare_scheduler_state(ours, theirs):
    """Same keys; same plain values (functions and nested schedulers aside)."""
    assert set(ours) == set(theirs), set(ours) ^ set(theirs)
    for key, value in theirs.items():
        if key in ("_schedulers",):
            for o, t in zip(ours[key], value):
                compare_scheduler_state(o, t)
        elif isinstance(value, (int, float, str, bool, list, tuple, dict)) or value is None:
            if key == "_scale_fn_ref":
                continue
            assert ours[key] == pytest.approx(value) if isinstance(value, float) else \
                ours[key] == value, key


SCHEDULERS = {
    "StepLR": lambda S, opt: S.StepLR(opt, step_size=4, gamma=0.5),
    "MultiStepLR": lambda S, opt: S.MultiStepLR(opt, milestones=[3, 7, 7, 15], gamma=0.3),
    "ExponentialLR": lambda S, opt: S.ExponentialLR(opt, gamma=0.9),
    "CosineAnnealingLR": lambda S, opt: S.CosineAnnealingLR(opt, T_max=8, eta_min=1e-3),
    "CosineAnnealingLR-eta0": lambda S, opt: S.CosineAnnealingLR(opt, T_max=10),
    "LambdaLR": lambda S, opt: S.LambdaLR(opt, lr_lambda=lambda e: 1.0 / (1 + e)),
    "LambdaLR-per-group": lambda S, opt: S.LambdaLR(
        opt, lr_lambda=[lambda e: 0.95 ** e, lambda e: 1.0 + 0.1 * e]),
    "MultiplicativeLR": lambda S, opt: S.MultiplicativeLR(opt, lr_lambda=lambda e: 0.97),
    "LinearLR": lambda S, opt: S.LinearLR(opt, start_factor=0.2, total_iters=6),
    "LinearLR-decay": lambda S, opt: S.LinearLR(opt, start_factor=1.0, end_factor=0.1,
                                                total_iters=12),
    "ConstantLR": lambda S, opt: S.ConstantLR(opt, factor=0.25, total_iters=5),
    "PolynomialLR": lambda S, opt: S.PolynomialLR(opt, total_iters=15, power=2.0),
    "OneCycleLR": lambda S, opt: S.OneCycleLR(opt, max_lr=[1.0, 0.5], total_steps=STEPS),
    "OneCycleLR-linear-3phase": lambda S, opt: S.OneCycleLR(
        opt, max_lr=0.8, epochs=5, steps_per_epoch=5, anneal_strategy="linear",
        three_phase=True, pct_start=0.25),
    "CyclicLR": lambda S, opt: S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "CyclicLR-triangular2": lambda S, opt: S.CyclicLR(
        opt, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
        mode="triangular2"),
    "CyclicLR-exp_range": lambda S, opt: S.CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9,
        cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda S, opt: S.CosineAnnealingWarmRestarts(
        opt, T_0=5, eta_min=1e-3),
    "CosineAnnealingWarmRestarts-mult": lambda S, opt: S.CosineAnnealingWarmRestarts(
        opt, T_0=3, T_mult=2),
    "SequentialLR": lambda S, opt: S.SequentialLR(
        opt, [S.LinearLR(opt, start_factor=0.1, total_iters=5),
              S.CosineAnnealingLR(opt, T_max=15, eta_min=1e-4)], milestones=[5]),
    "SequentialLR-three": lambda S, opt: S.SequentialLR(
        opt, [S.ConstantLR(opt, factor=0.5, total_iters=3), S.ExponentialLR(opt, gamma=0.8),
              S.StepLR(opt, step_size=3, gamma=0.5)], milestones=[4, 12]),
    "ChainedScheduler": lambda S, opt: S.ChainedScheduler(
        [S.ConstantLR(opt, factor=0.3, total_iters=4), S.ExponentialLR(opt, gamma=0.9)]),
    "ChainedScheduler-with-optimizer": lambda S, opt: S.ChainedScheduler(
        [S.LinearLR(opt, start_factor=0.5, total_iters=3), S.StepLR(opt, 5, 0.5)],
        optimizer=opt),
}


# every schedule with SGD (momentum), and with Adam a few, among them the cyclic schedules
# that move betas[0] instead of the momentum
CASES = [(key, "SGD") for key in SCHEDULERS] + [
    (key, "Adam") for key in ("OneCycleLR", "CyclicLR", "StepLR", "SequentialLR")]


@pytest.mark.parametrize("key,optimizer", CASES)
def test_lr_sequence_matches_torch(key, optimizer):
    ours, our_sched, _ = run_schedule(dyngrad, SCHEDULERS[key], optimizer=optimizer)
    theirs, their_sched, _ = run_schedule(torch, SCHEDULERS[key], optimizer=optimizer)
    assert_same_sequence(ours, theirs)
    compare_scheduler_state(our_sched.state_dict(), their_sched.state_dict())


def test_two_schedulers_on_one_optimizer_compose():
    def make(lib):
        opt = make_optimizer(lib)
        s1 = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        s2 = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.95)
        lrs = []
        for _ in range(STEPS):
            opt.step()
            s1.step()
            s2.step()
            lrs.append(s2.get_last_lr())
        return lrs
    assert_same_sequence(make(dyngrad), make(torch))


PLATEAU = {
    "min-rel": dict(),
    "min-abs-cooldown": dict(patience=1, threshold=0.05, threshold_mode="abs", cooldown=2),
    "max-rel-min_lr": dict(mode="max", patience=2, factor=0.5, min_lr=[0.02, 0.001]),
    "max-abs-eps": dict(mode="max", patience=0, factor=0.9, threshold_mode="abs", eps=1e-3),
}
METRICS = [1.0, 0.9, 0.91, 0.92, 0.93, 0.8, 0.8, 0.8, 0.81, 0.79, 0.79, 0.85, 0.9, 0.7,
           0.7, 0.7, 0.7, 0.69, 0.7, 0.71, 0.72, 0.73, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]


@pytest.mark.parametrize("key", list(PLATEAU))
def test_reduce_lr_on_plateau_matches_torch(key):
    def make(S, opt):
        return S.ReduceLROnPlateau(opt, **{"patience": 3, **PLATEAU[key]})
    metrics = METRICS if not PLATEAU[key].get("mode") == "max" else [-m for m in METRICS]
    ours, our_sched, _ = run_schedule(dyngrad, make, steps=len(metrics), metrics=metrics)
    theirs, their_sched, _ = run_schedule(torch, make, steps=len(metrics), metrics=metrics)
    assert_same_sequence(ours, theirs)
    compare_scheduler_state(our_sched.state_dict(), their_sched.state_dict())


def test_reduce_lr_on_plateau_takes_a_tensor_metric():
    for lib in (dyngrad, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        sched.step(lib.tensor(1.0))
        sched.step(lib.tensor(2.0))
        assert sched.get_last_lr() == pytest.approx([0.01, 0.0025])


@pytest.mark.parametrize("key", ["StepLR", "CosineAnnealingLR", "SequentialLR",
                                 "OneCycleLR", "LambdaLR", "ChainedScheduler", "CyclicLR"])
def test_scheduler_state_dict_round_trip(key):
    """Save after 10 steps, load into a fresh scheduler, continue: same lrs as torch."""
    records = []
    for lib in (dyngrad, torch):
        S = lib.optim.lr_scheduler
        opt = make_optimizer(lib)
        sched = SCHEDULERS[key](S, opt)
        for _ in range(10):
            opt.step()
            sched.step()
        saved = copy.deepcopy(sched.state_dict())
        opt_saved = copy.deepcopy(opt.state_dict())
        opt2 = make_optimizer(lib)
        sched2 = SCHEDULERS[key](S, opt2)
        opt2.load_state_dict(opt_saved)
        sched2.load_state_dict(saved)
        lrs = [sched2.get_last_lr()]
        for _ in range(10):
            opt2.step()
            sched2.step()
            lrs.append(sched2.get_last_lr())
        records.append(lrs)
    assert_same_sequence(records[0], records[1])


def test_epoch_argument_uses_the_closed_form_and_warns():
    for key in ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR",
                "ConstantLR", "PolynomialLR", "LambdaLR"):
        results = []
        for lib in (dyngrad, torch):
            opt = make_optimizer(lib)
            sched = SCHEDULERS[key](lib.optim.lr_scheduler, opt)
            opt.step()
            lrs = []
            for epoch in (3, 7, 2, 11):
                with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
                    sched.step(epoch)
                lrs.append(sched.get_last_lr())
            results.append(lrs)
        assert_same_sequence(results[0], results[1])


def test_warm_restarts_with_fractional_epochs():
    results = []
    for lib in (dyngrad, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        lrs = []
        for epoch in (0.5, 1.25, 3.0, 4.5, 9.2, 20.0):
            opt.step()
            sched.step(epoch)
            lrs.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        results.append(lrs)
    assert_same_sequence(results[0], results[1])


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def test_warning_when_scheduler_steps_before_optimizer():
    def make(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        return lambda: sched.step()
    ours, theirs = _warnings_of(make(dyngrad)), _warnings_of(make(torch))
    assert ours == theirs and len(theirs) == 1 and "before `optimizer.step()`" in theirs[0]

    def in_order(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)

        def run():
            opt.step()
            sched.step()
        return run
    assert _warnings_of(in_order(dyngrad)) == _warnings_of(in_order(torch)) == []


def test_warning_when_optimizer_step_is_replaced():
    def make(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step = lambda closure=None: None
        return lambda: (opt.step(), sched.step())
    ours, theirs = _warnings_of(make(dyngrad)), _warnings_of(make(torch))
    assert ours == theirs and len(theirs) == 1 and "overridden" in theirs[0]


def test_get_lr_outside_step_warns():
    def make(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        return lambda: sched.get_lr()
    ours, theirs = _warnings_of(make(dyngrad)), _warnings_of(make(torch))
    assert ours == theirs and len(theirs) == 1


def test_initial_lr_and_base_lrs():
    for lib in (dyngrad, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        assert sched.base_lrs == [0.1, 0.025]
        assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.025]
        assert sched.last_epoch == 0 and sched._step_count == 1


def test_resuming_with_last_epoch():
    def make(lib):
        opt = make_optimizer(lib)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, last_epoch=4)
        lrs = [sched.get_last_lr()]
        for _ in range(6):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        return lrs
    assert_same_sequence(make(dyngrad), make(torch))


def test_tensor_lr_is_updated_in_place():
    results = []
    for lib in (dyngrad, torch):
        w = lib.ones(3, requires_grad=True)
        lr = lib.tensor(0.5)
        opt = lib.optim.SGD([w], lr=lr)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        for _ in range(3):
            opt.step()
            sched.step()
        assert opt.param_groups[0]["lr"] is lr
        results.append([lr.item()] + [float(x) for x in sched.get_last_lr()])
    assert results[0] == results[1]


SCHEDULER_ERRORS = {
    "not-an-optimizer": lambda S, opt: S.StepLR(object(), step_size=2),
    "plateau-not-an-optimizer": lambda S, opt: S.ReduceLROnPlateau("sgd"),
    "resume-without-initial_lr": lambda S, opt: S.StepLR(opt, step_size=2, last_epoch=3),
    "lambda-count": lambda S, opt: S.LambdaLR(opt, [lambda e: 1.0]),
    "multiplicative-not-callable": lambda S, opt: S.MultiplicativeLR(opt, [0.5, 0.5]),
    "constant-factor": lambda S, opt: S.ConstantLR(opt, factor=1.5),
    "linear-start": lambda S, opt: S.LinearLR(opt, start_factor=0.0),
    "linear-end": lambda S, opt: S.LinearLR(opt, end_factor=1.5),
    "plateau-factor": lambda S, opt: S.ReduceLROnPlateau(opt, factor=1.0),
    "plateau-mode": lambda S, opt: S.ReduceLROnPlateau(opt, mode="middle"),
    "plateau-threshold-mode": lambda S, opt: S.ReduceLROnPlateau(opt, threshold_mode="pct"),
    "plateau-min-lrs": lambda S, opt: S.ReduceLROnPlateau(opt, min_lr=[0.1]),
    "sequential-empty": lambda S, opt: S.SequentialLR(opt, [], milestones=[]),
    "sequential-milestones": lambda S, opt: S.SequentialLR(
        opt, [S.StepLR(opt, 2), S.StepLR(opt, 3)], milestones=[2, 4]),
    "sequential-plateau": lambda S, opt: S.SequentialLR(
        opt, [S.StepLR(opt, 2), S.ReduceLROnPlateau(opt)], milestones=[2]),
    "sequential-no-optimizer": lambda S, opt: S.SequentialLR(opt, [object()], milestones=[]),
    "chained-empty": lambda S, opt: S.ChainedScheduler([]),
    "one-cycle-no-steps": lambda S, opt: S.OneCycleLR(opt, max_lr=1.0),
    "one-cycle-total": lambda S, opt: S.OneCycleLR(opt, max_lr=1.0, total_steps=0),
    "one-cycle-epochs": lambda S, opt: S.OneCycleLR(opt, 1.0, epochs=0, steps_per_epoch=2),
    "one-cycle-steps-per-epoch": lambda S, opt: S.OneCycleLR(opt, 1.0, epochs=2,
                                                             steps_per_epoch=-1),
    "one-cycle-pct": lambda S, opt: S.OneCycleLR(opt, 1.0, total_steps=10, pct_start=1.5),
    "one-cycle-anneal": lambda S, opt: S.OneCycleLR(opt, 1.0, total_steps=10,
                                                    anneal_strategy="exp"),
    "one-cycle-max-lr-count": lambda S, opt: S.OneCycleLR(opt, [1.0], total_steps=10),
    "cyclic-mode": lambda S, opt: S.CyclicLR(opt, 0.01, 0.1, mode="square"),
    "warm-restarts-T_0": lambda S, opt: S.CosineAnnealingWarmRestarts(opt, T_0=0),
    "warm-restarts-T_mult": lambda S, opt: S.CosineAnnealingWarmRestarts(opt, 2, T_mult=1.5),
    "warm-restarts-eta_min": lambda S, opt: S.CosineAnnealingWarmRestarts(opt, 2, eta_min="0"),
}


@pytest.mark.parametrize("key", list(SCHEDULER_ERRORS))
def test_scheduler_errors_match_torch(key):
    raises_like(lambda lib: SCHEDULER_ERRORS[key](lib.optim.lr_scheduler, make_optimizer(lib)))


def test_cycle_momentum_needs_momentum():
    raises_like(lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        make_optimizer(lib, "Adagrad"), max_lr=1.0, total_steps=10))
    raises_like(lambda lib: lib.optim.lr_scheduler.CyclicLR(
        make_optimizer(lib, "Adagrad"), 0.01, 0.1))


def test_one_cycle_past_its_total_steps():
    def make(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
        for _ in range(4):
            opt.step()
            sched.step()
    raises_like(make)


def test_warm_restarts_negative_epoch():
    def make(lib):
        opt = make_optimizer(lib)
        lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2).step(-1)
    raises_like(make)


def test_lambda_state_dict_keeps_callable_objects_state():
    class Schedule:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor ** epoch

    states = []
    for lib in (dyngrad, torch):
        opt = make_optimizer(lib)
        fn = Schedule()
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [fn, lambda e: 1.0])
        fn.factor = 0.25
        state = sched.state_dict()
        states.append(state["lr_lambdas"])
        fn2 = Schedule()
        sched2 = lib.optim.lr_scheduler.LambdaLR(make_optimizer(lib), [fn2, lambda e: 1.0])
        sched2.load_state_dict(state)
        assert fn2.factor == 0.25 and "lr_lambdas" in state
    assert states[0] == states[1] == [{"factor": 0.25}, None]


def test_public_names():
    ours = set(dyngrad.optim.lr_scheduler.__all__)
    theirs = set(torch.optim.lr_scheduler.__all__)
    assert ours == theirs
    assert math.isclose(dyngrad.optim.lr_scheduler.StepLR.__init__.__defaults__[0],
                        torch.optim.lr_scheduler.StepLR.__init__.__defaults__[0])
