"""``optim.swap_in_optimizer_params_and_state``: run an optimizer on other tensors for a while.

Inside the context the optimizer's param groups hold the given parameter tensors and the
hyperparameters of the given ``state_dict()``-style dict, and ``optimizer.state`` is that
dict's per-parameter state re-keyed by those tensors (each entry a shallow copy, so in-place
updates of its tensors reach the caller's dict while new entries stay local). On exit the
live groups and state come back. The checks and their messages are torch's
(torch/optim/_stateless.py).
"""
from __future__ import annotations

import contextlib
from collections import defaultdict
from typing import Any, NamedTuple

from .._tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


class _GroupSwapinInfo(NamedTuple):
    """One param group's swap: the live group dict, the incoming group (hyperparameters plus
    packed ``params`` ids) and the tensors replacing the live group's parameters, in order."""
    live_group: dict
    swapin_group: dict
    swapin_params: list


def _validate_state_field(state: Any) -> dict:
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping "
                           f"packed parameter ids to per-param state dicts, got "
                           f"{type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by "
                           f"packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be "
                           f"dictionaries.")
    return state


def _validate_param_groups_field(optimizer, param_groups: Any) -> list:
    if not isinstance(param_groups, list):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['param_groups'] to be a list "
                           f"of param-group dicts, got {type(param_groups).__name__}.")
    if len(optimizer.param_groups) != len(param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups "
                           "than the live optimizer.")
    return param_groups


def _validate_group_against_live(idx: int, group: dict, swapin_group: Any) -> list:
    """The packed ids of one incoming group, after checking it mirrors the live group."""
    if not isinstance(swapin_group, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin_group.get("params")
    if not isinstance(ids, list) or not all(isinstance(pid, int) for pid in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style "
                           f"param_groups[*]['params'] entries keyed by packed parameter ids.")
    if len(group["params"]) != len(ids):
        raise RuntimeError(f"swapin_optim_state param group {idx} has a different number of "
                           f"params than the live optimizer param group.")
    swapin_only = [k for k in swapin_group if k not in group]
    live_only = [k for k in group if k not in swapin_group]
    if swapin_only or live_only:
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param group keys to "
                           f"exactly match the live optimizer group keys for group {idx}. "
                           f"Keys only in swap-in: {swapin_only}. Keys only in live: "
                           f"{live_only}.")
    return ids


def _prepare_swap_in(optimizer, swapin_parameters: dict, swapin_optim_state: dict):
    """Check the incoming state_dict and pair each live group with its incoming tensors (taken
    in order from ``swapin_parameters``)."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _validate_state_field(swapin_optim_state.get("state"))
    groups = _validate_param_groups_field(optimizer, swapin_optim_state.get("param_groups"))
    flat = list(swapin_parameters.values())
    offset = 0
    seen: set = set()
    infos = []
    for idx, (group, swapin_group) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _validate_group_against_live(idx, group, swapin_group)
        seen.update(ids)
        end = offset + len(ids)
        if end > len(flat):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               f"optimizer.param_groups ordering.")
        infos.append(_GroupSwapinInfo(group, swapin_group, flat[offset:end]))
        offset = end
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be keyed only by "
                           f"packed parameter ids from param_groups[*]['params']; got extra "
                           f"keys {extra!r}.")
    return state, infos


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters: dict,
                                       swapin_optim_state: dict):
    """Temporarily give ``optimizer`` the parameters ``swapin_parameters`` (in the order of
    its param groups) and the state and hyperparameters of ``swapin_optim_state`` (an
    ``optimizer.state_dict()``-shaped dict); restore its own on exit. The optimizer's state
    must be initialised (run a step first)."""
    state, infos = _prepare_swap_in(optimizer, swapin_parameters, swapin_optim_state)
    original_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]   # keeps the params lists' identity
    try:
        swapped: defaultdict = defaultdict(dict)
        for info in infos:
            info.live_group["params"] = info.swapin_params
            for key, value in info.swapin_group.items():
                if key != "params":
                    info.live_group[key] = value
            for param, pid in zip(info.swapin_params, info.swapin_group["params"]):
                swapped[param] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
