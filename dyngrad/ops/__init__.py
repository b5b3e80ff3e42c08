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

# the ops that take an expanded out= as torch's do, writing several results to one element
# (Note [out= and memory overlap] in _dispatch.py): most reductions, and a few products
_TAKE_EXPANDED_OUT = frozenset((
    "sum", "prod", "amax", "amin", "nansum", "linalg_vector_norm", "argmax", "argmin", "any",
    "all", "count_nonzero", "bmm", "mv", "tril", "triu", "dot", "vdot"))
# and those whose out= may not overlap an input in part (nor at all: cross), as the pointwise
_NO_PARTIAL_OUT = frozenset((
    "addmm", "addmv", "addbmm", "baddbmm", "addr", "scatter", "scatter_add", "scatter_reduce",
    "renorm", "cumsum", "cumprod", "logcumsumexp"))
_NO_OVERLAPPING_OUT = frozenset(("cross", "linalg_cross"))
for _spec in OPS.values():   # (every overload: sum.dim_IntList...)
    if _spec.base in _TAKE_EXPANDED_OUT:
        _spec.out_overlap = None
    elif _spec.base in _NO_PARTIAL_OUT:
        _spec.out_overlap = "partial"
    elif _spec.base in _NO_OVERLAPPING_OUT:
        _spec.out_overlap = "full"

globals().update(METHODS)
globals().update({k: v for k, v in FUNCTIONS.items() if "." not in k})

_SUBMODULES = frozenset(m.name for m in _pkgutil.iter_modules(__path__))


def __getattr__(name):
    """``torch.ops.<namespace>`` (Note [torch.ops] in dyngrad/library/_ops.py)."""
    if name.startswith("_") or name in _SUBMODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..library import _ops as _library_ops
    return _library_ops.namespace(name)
