"""The flag registry behind ``torch.backends.cudnn`` / ``mkldnn`` (``cudnn.deterministic =
True``, ``with cudnn.flags(enabled=False): ...``).

dyngrad computes on NumPy, so none of these libraries is available here (``is_available()`` is
False) and the flags change no computation; they are kept and read back as torch keeps them in a
build without the library, so seeding and set-up code written for torch runs unchanged. As in
torch, ``backends.disable_global_flags()`` freezes them against plain assignment, and the
``flags()`` context managers still set them for their block.
"""
from __future__ import annotations

import contextlib
import sys
import types

_frozen = False   # set by backends.disable_global_flags()


def disable_global_flags() -> None:
    global _frozen
    _frozen = True


def flags_frozen() -> bool:
    return _frozen


@contextlib.contextmanager
def _allow_mutation():
    """Let a flags() block set flags even after disable_global_flags()."""
    global _frozen
    old, _frozen = _frozen, False
    try:
        yield
    finally:
        _frozen = old


class FlagModule(types.ModuleType):
    """A backends module whose listed attributes are flags: reading gives the stored value,
    assigning stores it unless the flags are frozen. The module replaces itself with an
    instance of this class (as torch's CudnnModule does), so ``module.flag = value`` reaches
    ``__setattr__``."""

    def __init__(self, module, defaults: dict):
        super().__init__(module.__name__, module.__doc__)
        self.__dict__.update({k: v for k, v in vars(module).items() if k not in defaults})
        object.__setattr__(self, "_values", dict(defaults))

    def __getattr__(self, name):   # (only called for names not in the module's dict)
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name in self._values:
            if _frozen:
                name = self.__name__.replace("dyngrad.", "torch.", 1)   # (torch's text)
                raise RuntimeError(f"not allowed to set {name} flags after "
                                   "disable_global_flags; please use flags() context manager "
                                   "instead")
            self._values[name] = value
        else:
            super().__setattr__(name, value)


def install(name: str, defaults: dict) -> FlagModule:
    """Replace the module `name` in sys.modules by its FlagModule."""
    module = FlagModule(sys.modules[name], defaults)
    sys.modules[name] = module
    return module


def set_flags(module_name: str, **values) -> dict:
    """Store each given (not None) flag; return all the previous values."""
    module = sys.modules[module_name]
    previous = dict(module._values)
    for key, value in values.items():
        if value is not None:
            module._values[key] = value
    return previous


@contextlib.contextmanager
def flags_block(module_name: str, **values):
    """Set the flags for the block, restore them after (the body of each module's flags())."""
    with _allow_mutation():
        previous = set_flags(module_name, **values)
    try:
        yield
    finally:
        with _allow_mutation():
            sys.modules[module_name]._values.update(previous)
