"""optim.Muon against live torch: trajectories of 2-d weights, state, errors.

torch runs Newton-Schulz in bfloat16 and dyngrad emulates it in float32 (Note [Muon without
bfloat16] in dyngrad/optim/muon.py), so parameters are compared to bfloat16 precision scaled
by the learning rate, and state_dict layout, state keys and errors exactly."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

SHAPES = [(6, 4), (3, 7), (5, 5)]


def _setup(lib, dtype, **kwargs):
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
              for s in SHAPES]
    targets = [lib.tensor(rng.standard_normal(s).astype(dtype)) for s in SHAPES]
    opt = lib.optim.Muon(params, **kwargs)
    return params, targets, opt


def _run(lib, dtype, steps, **kwargs):
    params, targets, opt = _setup(lib, dtype, **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p - t) ** 2).sum() for p, t in zip(params, targets))
        loss.backward()
        opt.step()
    return params, opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [
    {}, {"lr": 0.02, "nesterov": False}, {"lr": 0.01, "weight_decay": 0.0, "momentum": 0.5},
    {"lr": 0.01, "adjust_lr_fn": "match_rms_adamw"}, {"lr": 0.01, "ns_steps": 3},
    {"lr": 0.01, "adjust_lr_fn": "original", "ns_coefficients": (2.0, -1.5, 0.5)},
])
def test_trajectory_matches_torch(dtype, kwargs):
    steps = 4
    ours, opt = _run(dyngrad, dtype, steps, **kwargs)
    theirs, topt = _run(torch, dtype, steps, **kwargs)
    lr = kwargs.get("lr", 1e-3)
    scale = 0.2 * 7 ** 0.5 if kwargs.get("adjust_lr_fn") == "match_rms_adamw" else 2.0
    for p, tp in zip(ours, theirs):
        assert p.dtype == getattr(dyngrad, dtype)
        # each step moves entries by about lr * scale; bfloat16 holds ~3 significant digits
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=0,
                                   atol=steps * lr * scale * 2e-2)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sorted(sd["state"]) == sorted(tsd["state"])
    for k in tsd["state"]:
        assert sorted(sd["state"][k]) == sorted(tsd["state"][k]) == ["momentum_buffer"]
        np.testing.assert_allclose(sd["state"][k]["momentum_buffer"].numpy(),
                                   tsd["state"][k]["momentum_buffer"].numpy(), rtol=1e-4,
                                   atol=1e-5)


def test_orthogonalisation_close_to_torch():
    from dyngrad.optim.muon import _zeropower_via_newtonschulz as ours
    from torch.optim._muon import _zeropower_via_newtonschulz as theirs
    rng = np.random.default_rng(3)
    for shape in [(8, 5), (5, 8), (6, 6)]:
        g = rng.standard_normal(shape).astype("float32")
        coeffs = (3.4445, -4.7750, 2.0315)
        got = ours(dyngrad.from_numpy(g.copy()), coeffs, 5, 1e-7)
        want = theirs(torch.from_numpy(g.copy()), coeffs, 5, 1e-7).float()
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=3e-2)
        # every value is a bfloat16 value
        bits = got.numpy().view(np.uint32)
        assert not (bits & 0xFFFF).any()


ERRORS = [
    lambda lib: lib.optim.Muon([lib.ones(3, requires_grad=True)]),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], lr=-1.0),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], momentum=-1.0),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], weight_decay=-1.0),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], adjust_lr_fn="x"),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], lr=lib.ones(2)),
    lambda lib: _step_with(lib, ns_steps=100),
    lambda lib: _step_with(lib, ns_coefficients=(1.0, 2.0)),
    lambda lib: _step_with(lib, dtype=lib.complex64),
]


def _step_with(lib, dtype=None, **kwargs):
    p = lib.ones(2, 3, requires_grad=True, dtype=dtype or lib.float32)
    opt = lib.optim.Muon([p], **kwargs)
    p.grad = lib.ones(2, 3, dtype=dtype or lib.float32)
    opt.step()


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    def raised(lib):
        try:
            ERRORS[index](lib)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            return e
        return None
    texc, exc = raised(torch), raised(dyngrad)
    assert texc is not None and exc is not None, (texc, exc)
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))


def test_closure_and_no_grad_params():
    p = dyngrad.ones(3, 2, requires_grad=True)
    q = dyngrad.ones(2, 2, requires_grad=True)
    opt = dyngrad.optim.Muon([p, q], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert float(loss) == 6.0 and q.grad is None and len(opt.state) == 1
