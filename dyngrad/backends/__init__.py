"""Array backends. Kernels receive ``xp`` (the array module of the tensor's device).

``numpy_backend`` serves ``cpu``; a ``cupy_backend`` with the same names can serve ``cuda``
(DESIGN.md §6). Where NumPy and CuPy differ, a named function in each backend hides it.
"""
from . import numpy_backend

BACKENDS = {"cpu": numpy_backend}

# torch.backends' own namespaces (flags for libraries dyngrad does not use; see _flags.py)
from ._flags import disable_global_flags, flags_frozen  # noqa: E402,F401
from . import cuda, cudnn, mkldnn, mps  # noqa: E402,F401
