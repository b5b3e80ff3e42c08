"""All ops, declared in the registry (see _registry.py) and gathered in this namespace.

``dyngrad.ops.add`` is the dispatcher entry for ``add``; ``dyngrad.ops.add_`` its in-place
variant. The top-level ``dyngrad`` namespace re-exports the function variants.
"""
from ._registry import FUNCTIONS, INPLACE, METHODS, OPS, composite, defop  # noqa: F401

# Each module registers its ops on import.
from . import creation  # noqa: F401,E402
from . import tensor_new  # noqa: F401,E402
from . import range_factories  # noqa: F401,E402
from . import random  # noqa: F401,E402
from . import distributions  # noqa: F401,E402
from . import conversion  # noqa: F401,E402
from . import pointwise  # noqa: F401,E402
from . import arithmetic  # noqa: F401,E402
from . import reduction  # noqa: F401,E402
from . import shape  # noqa: F401,E402
from .indexing import delitem, getitem, setitem  # noqa: F401,E402
from . import linalg  # noqa: F401,E402
from . import _autograd_utils  # noqa: F401,E402

globals().update(METHODS)
globals().update(FUNCTIONS)
