"""RemovableHandle: what ``register_hook`` returns (torch.utils.hooks.RemovableHandle)."""
from __future__ import annotations

import itertools
import weakref

_ids = itertools.count()


class RemovableHandle:
    """A handle that removes the hook it was returned for from its dict of hooks."""

    def __init__(self, hooks_dict: dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict) if hasattr(hooks_dict, "__weakref__") \
            else (lambda d=hooks_dict: d)
        self.id = next(_ids)

    def remove(self) -> None:
        hooks = self.hooks_dict_ref()
        if hooks is not None and self.id in hooks:
            del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
