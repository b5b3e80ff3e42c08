"""Optimizer: the base class every optimizer derives from (torch/optim/optimizer.py).

An optimizer holds ``param_groups`` (a list of dicts: ``"params"`` plus the hyper-parameters of
that group, filled from ``defaults`` where the group does not say) and ``state`` (a dict keyed by
the parameter tensor itself, holding that parameter's buffers: momentum, running averages, the
step count).  ``step()`` reads ``p.grad`` and updates ``p`` in place under ``no_grad``, so the
parameter's version counter moves exactly as in torch.

Note [Optimizer state_dict format]
    ``state_dict()`` replaces every tensor key by an integer: parameters are numbered in the
    order they appear across the groups (0, 1, 2, ...).  ``param_groups`` keeps every
    hyper-parameter and lists those integers under ``"params"``; ``state`` maps the integers to
    the per-parameter dicts.  The state tensors are not copied (torch does not copy either).
    ``load_state_dict`` undoes the numbering: it zips the saved integers with this optimizer's
    parameters, so the two optimizers must have the same group sizes, and casts floating state
    to each parameter's dtype, except ``step`` which keeps its own dtype.

Differences from torch: the ``foreach`` and ``fused`` flags are accepted and stored but every
optimizer runs one loop over its parameters (torch's single-tensor code path, which is what
torch itself runs on the CPU unless asked otherwise); the values agree, but torch's fused
kernels leave the parameters' version counters alone where dyngrad's in-place ops bump them.
``capturable=True`` raises at ``step()``, as torch does on the CPU.  Sparse gradients
(``nn.Embedding(sparse=True)``) are taken by SGD, Adagrad, SparseAdam and LBFGS and refused by
the others with torch's words (``refuse_sparse``); there are no complex parameters.
``differentiable=True`` runs ``step()`` with grad mode on, as torch, with the same update
formulas (not torch's extra clones for that mode).
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

from .._tensor import Tensor
from .. import _dtypes
from ..autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..autograd.profiler import record_function
from ..ops.creation import zeros
from ..ops.tensor_new import tensor
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

# Hooks that run around the step() of every optimizer (torch.optim.optimizer globals).
_global_optimizer_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_optimizer_post_hooks: "OrderedDict[int, Callable]" = OrderedDict()


class _RequiredParameter:
    """Marker for a hyper-parameter that has no default: every group must give it."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    """torch.typename: 'torch.FloatTensor' for tensors, 'module.QualName' for the rest."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _get_value(x):
    """A Python number from a 0-dim state tensor (the step count) or a number."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A hyper-parameter given as a one-element tensor, as a Python number."""
    return x.item() if isinstance(x, Tensor) else x


def _get_scalar_dtype():
    """dtype of the ``step`` counters: float64 under a float64 default dtype, else float32."""
    return _dtypes.float64 if _dtypes.get_default_dtype() is _dtypes.float64 else _dtypes.float32


def _squeeze_scalar(x):
    """A hyper-parameter given as a one-element tensor of any shape becomes a 0-dim tensor."""
    return x.squeeze() if isinstance(x, Tensor) and x.dim() != 0 else x


def _new_step(group, param) -> Tensor:
    """The step counter of a new state: a 0-dim float tensor (float32 when fused)."""
    dtype = _dtypes.float32 if group.get("fused") else _get_scalar_dtype()
    return zeros((), dtype=dtype, device=param.device)


def _steps_to_tensors(optimizer, extra=()) -> None:
    """After loading an old state dict: plain-number ``step`` (and ``extra``) become tensors."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            p_state = optimizer.state.get(p, [])
            if len(p_state) == 0:
                continue
            for key in ("step",) + tuple(extra):
                if not isinstance(p_state[key], Tensor):
                    dtype = _dtypes.float32 if group.get("fused") else _get_scalar_dtype()
                    p_state[key] = tensor(float(p_state[key]), dtype=dtype)


def _use_grad_for_differentiable(step: Callable) -> Callable:
    """Run ``step`` with grad mode = ``defaults['differentiable']`` (off for ordinary use)."""

    @functools.wraps(step)
    def run_step(self, *args, **kwargs):
        previous = is_grad_enabled()
        try:
            set_grad_enabled(self.defaults["differentiable"])
            return step(self, *args, **kwargs)
        finally:
            set_grad_enabled(previous)

    return run_step


def _check_capturable(capturable: bool, what: str = "params and state_steps") -> None:
    """capturable=True needs an accelerator; on the CPU torch asserts when step() runs."""
    if capturable:
        devices = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
        raise AssertionError(
            f"If capturable=True, {what} must be on supported devices: {devices}.")


def _check_fused_flags(fused, foreach, differentiable) -> None:
    """The combinations of implementation flags torch refuses at construction."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _hooked_step(step: Callable) -> Callable:
    """Wrap a subclass's ``step`` so that the step pre- and post-hooks run around it.

    As in torch, the hooks see ``args`` with the optimizer itself first, and a pre-hook may
    return ``(new_args, new_kwargs)`` to replace them; the whole is a profiler range named
    ``Optimizer.step#{class name}.step``.
    """

    @functools.wraps(step)
    def step_with_hooks(*args, **kwargs):
        with record_function(f"Optimizer.step#{type(args[0]).__name__}.step"):
            return run_step(*args, **kwargs)

    def run_step(*args, **kwargs):
        self = args[0]
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
        out = step(*args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    step_with_hooks.hooked = True
    return step_with_hooks


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts
            (parameter groups, each with a ``"params"`` entry and optional hyper-parameters).
        defaults (dict): default hyper-parameters, used where a group does not give them.

    Example::

        >>> opt = dyngrad.optim.SGD([w], lr=0.1)
        >>> loss = (w ** 2).sum(); loss.backward(); opt.step(); opt.zero_grad()
    """

    def __init_subclass__(cls, **kwargs):
        # Every subclass that writes its own step() gets the hook-running wrapper, once.
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()

        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # ------------------------------------------------------------------ pickling and repr
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ------------------------------------------------------------------ parameter groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own hyper-parameters) to ``param_groups``.

        Args:
            param_group (dict): ``{"params": tensors, ...}``; missing hyper-parameters are
                taken from ``defaults``.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)

        # named_parameters() gives (name, tensor) pairs: keep the names beside the tensors
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, "
                                "but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        seen: set = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ gradients and step
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (default) or to zeros in place
        (a profiler range named ``Optimizer.zero_grad#{class name}.zero_grad``, as torch's)."""
        with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure: Callable[[], float] | None = None):
        """Update the parameters once (each optimizer implements it)."""
        raise NotImplementedError

    # the name in "<name> does not support sparse gradients" (_gather's check), for the
    # optimizers torch writes for dense gradients only
    _dense_only = None

    def _gather(self, group, init, keys):
        """The group's parameters that have a gradient, their gradients, and one list per state
        name in ``keys``. ``init(p)`` gives a new parameter's state (a dict, in torch's key
        order, which ``state_dict`` keeps)."""
        params = [p for p in group["params"] if p.grad is not None]
        refuse_sparse(type(self)._dense_only, [p.grad for p in params])
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state.update(init(p))
        return (params, [p.grad for p in params],
                *([self.state[p][k] for p in params] for k in keys))

    @staticmethod
    def _evaluate_closure(closure):
        """Run ``closure`` (which recomputes the loss and calls backward) with grad enabled."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` runs before step()."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None`` runs after step()."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    @staticmethod
    def _register(hooks: OrderedDict, hook: Callable, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer) -> None`` runs before state_dict()."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None`` runs after state_dict()."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None`` runs before loading."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer) -> None`` runs after load_state_dict()."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state dicts
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as ``{"state": ..., "param_groups": ...}``.

        See Note [Optimizer state_dict format].
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)

        index_of: dict[int, int] = {}      # id(param) -> its number
        next_index = 0

        def pack_group(group):
            nonlocal next_index
            packed = {k: v for k, v in group.items() if k != "params"}
            # a parameter new to this call takes the index of its *last* place in the group
            new = {id(p): i for i, p in enumerate(group["params"], next_index)
                   if id(p) not in index_of}
            index_of.update(new)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            next_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}

        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state_value(param: Tensor, value: Tensor, param_id, param_groups, key) -> Tensor:
        """Move a loaded state tensor to the parameter's device (and float dtype, not ``step``)."""
        fused = capturable = False
        for group in param_groups:
            if param_id in group["params"]:
                fused = group.get("fused", False)
                capturable = group.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=_dtypes.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state from :meth:`state_dict` (of an optimizer with the same group sizes).

        See Note [Optimizer state_dict format].
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")

        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id=None, key=None):
            # a deep copy of value in which every tensor follows the parameter's dtype/device
            if isinstance(value, Tensor):
                return Optimizer._cast_state_value(param, value, param_id,
                                                   state_dict["param_groups"], key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, param_id=k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run before the step of every optimizer."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run after the step of every optimizer."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def refuse_sparse(name, grads, hint="") -> None:
    """torch's refusal of a sparse gradient by an optimizer written for dense ones (`name`:
    ``"RMSprop"``; None: no refusal)."""
    if name is None:
        return
    for g in grads:
        if g.is_sparse:
            raise RuntimeError(f"{name} does not support sparse gradients{hint}")
