"""``skip_init``: build a module without running its parameter initialization
(torch.nn.utils.init)."""
from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers.

    The class must accept a ``device`` argument. Like torch, the default random stream is left
    where it was.

    Differences from torch: dyngrad has no ``meta`` device, so the module is built normally
    (its initialization runs with the random state saved and then restored) and then
    ``to_empty(device=...)`` replaces every tensor with uninitialized memory.

    Example::

        >>> m = skip_init(nn.Linear, 5, 1)
    """
    from ... import get_rng_state, set_rng_state
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
    return module.to_empty(device=final_device)
