"""All ops, declared in the registry (see _registry.py) and gathered in this namespace.

``dyngrad.ops.add`` is the dispatcher entry for ``add``; ``dyngrad.ops.add_`` its in-place
variant. The top-level ``dyngrad`` namespace re-exports the function variants; dotted public
names (``"linalg.inv"``, ``"nn.functional.relu"``) go to ``dyngrad.linalg``,
``dyngrad.nn.functional``… (see ``_registry.namespace``).

Every module of this package whose name does not start with an underscore registers its ops on
import; modules are discovered, so a new op family is one new file. Modules import what they
use from each other explicitly, so the order of discovery does not matter.
"""
import importlib as _importlib
import pkgutil as _pkgutil

from ._registry import FUNCTIONS, INPLACE, METHODS, OPS, composite, defop, namespace  # noqa: F401

for _module in sorted(m.name for m in _pkgutil.iter_modules(__path__)):
    if not _module.startswith("_"):
        _importlib.import_module(f"{__name__}.{_module}")
from .indexing import delitem, getitem, setitem  # noqa: F401,E402
from . import _autograd_utils  # noqa: F401,E402

globals().update(METHODS)
globals().update({k: v for k, v in FUNCTIONS.items() if "." not in k})

_SUBMODULES = frozenset(m.name for m in _pkgutil.iter_modules(__path__))


def __getattr__(name):
    """``torch.ops.<namespace>`` (Note [torch.ops] in dyngrad/library/_ops.py)."""
    if name.startswith("_") or name in _SUBMODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..library import _ops as _library_ops
    return _library_ops.namespace(name)
