"""optim.swap_in_optimizer_params_and_state against live torch: a step inside the context
moves the swapped-in tensors and state (in place), the live optimizer comes back untouched,
and invalid state dicts raise torch's errors."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import dyngrad

SHAPES = [(3, 2), (2,), (4,)]


def _setup(lib, opt_name, **kwargs):
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.standard_normal(s).astype("float32"), requires_grad=True)
              for s in SHAPES]
    groups = [{"params": params[:2]}, {"params": params[2:], "lr": 0.05}]
    opt = getattr(lib.optim, opt_name)(groups, lr=0.1, **kwargs)
    for p in params:
        p.grad = lib.ones_like(p)
    opt.step()
    return params, opt


def _swap_run(lib, opt_name, **kwargs):
    params, opt = _setup(lib, opt_name, **kwargs)
    live = [p.detach().clone() for p in params]
    live_state = copy.deepcopy(opt.state_dict())
    groups_before = [g["params"] for g in opt.param_groups]
    swap_params = {f"p{i}": p.detach().clone().mul(2).requires_grad_() for i, p in
                   enumerate(params)}
    for p in swap_params.values():
        p.grad = lib.full_like(p, 0.5)
    swap_state = copy.deepcopy(opt.state_dict())
    swap_state["param_groups"][0]["lr"] = 0.3
    with lib.optim.swap_in_optimizer_params_and_state(opt, swap_params, swap_state):
        assert opt.param_groups[0]["lr"] == 0.3
        assert opt.param_groups[0]["params"][0] is swap_params["p0"]
        opt.step()
    # the live optimizer is back
    assert [g["params"] for g in opt.param_groups] == groups_before
    assert all(a is b for a, b in zip(opt.param_groups[0]["params"], groups_before[0]))
    assert opt.param_groups[0]["lr"] == 0.1
    for p, before in zip(params, live):
        np.testing.assert_array_equal(p.detach().numpy(), before.numpy())
    after = opt.state_dict()
    for k, entry in live_state["state"].items():
        for name, value in entry.items():
            np.testing.assert_array_equal(np.asarray(after["state"][k][name]),
                                          np.asarray(value))
    moved = [p.detach().numpy().copy() for p in swap_params.values()]
    state = {k: {n: np.asarray(v).copy() for n, v in e.items()}
             for k, e in swap_state["state"].items()}
    return moved, state


@pytest.mark.parametrize("opt_name,kwargs", [("SGD", {"momentum": 0.9}), ("Adam", {}),
                                             ("AdamW", {"amsgrad": True})])
def test_step_on_swapped_in_params_matches_torch(opt_name, kwargs):
    ours = _swap_run(dyngrad, opt_name, **kwargs)
    theirs = _swap_run(torch, opt_name, **kwargs)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert sorted(ours[1]) == sorted(theirs[1])
    for k in theirs[1]:
        assert sorted(ours[1][k]) == sorted(theirs[1][k])
        for name in theirs[1][k]:   # in-place updates reached the caller's state dict
            np.testing.assert_allclose(ours[1][k][name], theirs[1][k][name], rtol=1e-6,
                                       atol=1e-7)


def _bad(lib, edit, fresh=False):
    if fresh:
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        sd = opt.state_dict()
        params = {"p": p}
    else:
        params_list, opt = _setup(lib, "SGD", momentum=0.9)
        sd = copy.deepcopy(opt.state_dict())
        params = {f"p{i}": p for i, p in enumerate(params_list)}
    params, sd = edit(params, sd)
    with lib.optim.swap_in_optimizer_params_and_state(opt, params, sd):
        pass


EDITS = [
    lambda p, sd: (p, sd),                                      # (fresh: no state yet)
    lambda p, sd: (p, [sd]),
    lambda p, sd: (p, dict(sd, state=[])),
    lambda p, sd: (p, dict(sd, state={0: 1.0})),
    lambda p, sd: (p, dict(sd, param_groups=tuple(sd["param_groups"]))),
    lambda p, sd: (p, dict(sd, param_groups=sd["param_groups"][:1])),
    lambda p, sd: (p, dict(sd, param_groups=[sd["param_groups"][0], 3])),
    lambda p, sd: (p, dict(sd, param_groups=[dict(sd["param_groups"][0], params=["a", "b"]),
                                             sd["param_groups"][1]])),
    lambda p, sd: (p, dict(sd, param_groups=[dict(sd["param_groups"][0], params=[0]),
                                             sd["param_groups"][1]])),
    lambda p, sd: (p, dict(sd, param_groups=[dict(sd["param_groups"][0], extra=1),
                                             sd["param_groups"][1]])),
    lambda p, sd: (dict(list(p.items())[:2]), sd),
    lambda p, sd: (p, dict(sd, state=dict(sd["state"], **{"7": {}}))),
]


@pytest.mark.parametrize("index", range(len(EDITS)))
def test_errors_match_torch(index):
    def raised(lib):
        try:
            _bad(lib, EDITS[index], fresh=index == 0)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            return e
        return None
    texc, exc = raised(torch), raised(dyngrad)
    assert texc is not None and exc is not None, (texc, exc)
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))
