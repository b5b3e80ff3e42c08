"""``torch.autocast`` (``torch.amp.autocast``): the context manager and decorator that turns
autocast on for a region, and ``custom_fwd``/``custom_bwd`` for custom autograd Functions, as
torch/amp/autocast_mode.py. What autocast does to ops: Note [Autocast] in amp/_policy.py.
"""
from __future__ import annotations

import collections.abc
import functools
import warnings

import numpy as np

from .. import _dtypes as D
from ._state import (autocast_decrement_nesting, autocast_increment_nesting,
                     clear_autocast_cache, get_autocast_dtype, is_autocast_available,
                     is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled,
                     set_autocast_dtype, set_autocast_enabled)

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]


def _supported_dtypes():
    """The dtypes autocast accepts on a device other than CUDA: bfloat16 and float16."""
    return [d for d in (getattr(D, "bfloat16", None), D.float16) if d is not None]


def _supported_names() -> str:
    # torch names bfloat16 first; dyngrad without bfloat16 still words it as torch does
    return "torch.bfloat16, torch.float16"


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """Run the ops of a region in the dtype autocast picks for each (Note [Autocast]):
    ``with torch.autocast("cpu", dtype=torch.bfloat16): out = model(x)``, or as a decorator.

    Args: ``device_type`` ("cpu"; "cuda" warns and is disabled, there being no CUDA),
    ``dtype`` (default ``torch.get_autocast_dtype(device_type)``: bfloat16 on the CPU),
    ``enabled``, ``cache_enabled`` (the weight-cast cache; default
    ``torch.is_autocast_cache_enabled()``).
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{self.device}'")
        self.custom_backend_name = "privateuseone"
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        device_name = self.device if self.device == self.custom_backend_name \
            else self.device.upper()
        if enabled:
            if self.device == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype not in _supported_dtypes():
                warnings.warn(f"In {device_name} autocast, but the target dtype is not "
                              f"supported. Disabling autocast.\n{device_name} Autocast only "
                              f"supports dtypes of {_supported_names()} currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        # the cache goes when the outermost autocast region is left
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


class _UnmanagedAutocast(autocast):
    """An autocast entered by ``_enter_autocast`` rather than by a ``with`` statement."""


def _enter_autocast(*vals):
    mode = _UnmanagedAutocast(*vals)
    mode.__enter__()
    return mode


def _exit_autocast(mode):
    mode.__exit__(None, None, None)


def _cast(value, device_type: str, dtype):
    """Floating (not float64) tensors of `device_type` in `value` (nested in lists, tuples,
    dicts, other iterables) cast to `dtype`; anything else as it is."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type \
            and value.dtype is not D.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom Function's ``forward``: with ``cast_inputs``, inside an autocast
    region, floating tensor inputs are cast to it and ``forward`` runs with autocast off;
    without, ``forward`` runs in the region's autocast state. ``custom_bwd`` then runs
    ``backward`` in the state ``forward`` ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom Function's ``backward``: it runs in the autocast state (and
    dtype) its ``forward`` ran in (see ``custom_fwd``)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
