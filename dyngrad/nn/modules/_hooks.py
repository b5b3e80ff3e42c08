"""Module hooks: the global registries (torch.nn.modules.module.register_module_*) and the
slow path of ``Module.__call__`` that runs the hooks around ``forward``.

See Note [Module call and hooks] in module.py for the order.
"""
from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict
from typing import Any, Callable

from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle
from ._functions import BackwardHook

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]

# -- global hooks (torch.nn.modules.module.register_module_*) ---------------------------------
_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_is_full_backward_hook: bool | None = None
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()


def _add_global(hooks: dict, hook, extra=None) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, buffer) -> None or Tensor`` before every buffer registration."""
    return _add_global(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, submodule) -> None or Module`` before every submodule
    registration."""
    return _add_global(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """``hook(module, name, param) -> None or Parameter`` before every parameter
    registration."""
    return _add_global(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """A forward pre-hook common to all modules (runs before each module's own)."""
    return _add_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook common to all modules (runs before each module's own)."""
    handle = _add_global(_global_forward_hooks, hook,
                         extra=(_global_forward_hooks_always_called,
                                _global_forward_hooks_with_kwargs))
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """A backward pre-hook common to all modules."""
    return _add_global(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """A full backward hook common to all modules."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as "
                           "a global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = True
    return _add_global(_global_backward_hooks, hook)



def _call_with_hooks(self, args: tuple, kwargs: dict):
    """The slow path of ``Module.__call__`` (see Note [Module call and hooks])."""
    result = None
    called_always = set()
    try:
        full_backward_hooks, non_full_backward_hooks = [], []
        backward_pre_hooks = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            backward_pre_hooks = self._get_backward_pre_hooks()
        if self._backward_hooks or _global_backward_hooks:
            full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()

        for hook_id, hook in (*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if isinstance(res, tuple) and len(res) == 2:
                        args, kwargs = res
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {res}.")
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)

        bw_hook = None
        if full_backward_hooks or backward_pre_hooks:
            bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)

        result = self.forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called \
                    or hook_id in _global_forward_hooks_always_called:
                called_always.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs \
                    or hook_id in _global_forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result

        if bw_hook:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=2)
            result = bw_hook.setup_output_hook(result)

        if non_full_backward_hooks:   # old-style hooks sit on the output's grad_fn
            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_backward_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
        return result
    except Exception:
        for hook_id, hook in _global_forward_hooks.items():
            if hook_id in _global_forward_hooks_always_called and hook_id not in called_always:
                try:
                    hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("global module forward hook with ``always_call=True`` raised "
                                  "an exception that was silenced as another error was raised "
                                  f"in forward: {str(e)}", stacklevel=2)
        for hook_id, hook in self._forward_hooks.items():
            if hook_id in self._forward_hooks_always_called and hook_id not in called_always:
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {str(e)}", stacklevel=2)
        raise


class _WrappedHook:
    """An old-style backward hook bound (weakly) to its module: ``hook(module, *args)``."""

    def __init__(self, hook: Callable, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)
