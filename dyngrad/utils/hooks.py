"""RemovableHandle: what ``register_hook`` returns (torch.utils.hooks.RemovableHandle), and the
warning for hooks a tensor sent to another process leaves behind."""
from __future__ import annotations

import itertools
import warnings
import weakref

_ids = itertools.count()


def _ref(d: dict):
    """A weak reference to `d` where the dict type allows one, else a strong one."""
    return weakref.ref(d) if hasattr(d, "__weakref__") else (lambda d=d: d)


class RemovableHandle:
    """A handle that removes the hook it was returned for from its dict of hooks."""

    def __init__(self, hooks_dict: dict, *, extra_dict=None):
        self.hooks_dict_ref = _ref(hooks_dict)
        self.id = next(_ids)
        # dicts keyed by the same id that hold flags about the hook (nn.Module's with_kwargs…)
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self.extra_dict_ref = tuple(_ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def unserializable_hook(f):
    """Mark a function as an unserializable hook (torch.utils.hooks.unserializable_hook): a
    tensor carrying it is sent to another process without ``warn_if_has_hooks``'s warning."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    """torch's warning that a tensor's backward hooks stay behind when it is pickled for
    another process (hooks are not serialized)."""
    if tensor._backward_hooks:
        for k in tensor._backward_hooks:
            hook = tensor._backward_hooks[k]
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If "
                              "this is expected, you can decorate the function with "
                              "@torch.utils.hooks.unserializable_hook to suppress this warning",
                              stacklevel=2)


def __getattr__(name):
    """``BackwardHook`` (the wiring of nn.Module's full backward hooks) is defined with the
    Function it uses in nn/modules/_functions.py, loaded on first use: nn imports this module."""
    if name == "BackwardHook":
        from ..nn.modules._functions import BackwardHook
        return BackwardHook
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
