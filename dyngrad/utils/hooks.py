"""RemovableHandle: what ``register_hook`` returns (torch.utils.hooks.RemovableHandle)."""
from __future__ import annotations

import itertools
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
