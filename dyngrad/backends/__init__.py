"""Array backends. Kernels receive ``xp`` (the array module of the tensor's device).

``numpy_backend`` serves ``cpu``; a ``cupy_backend`` with the same names can serve ``cuda``
(DESIGN.md §6). Where NumPy and CuPy differ, a named function in each backend hides it.
"""
from . import numpy_backend

BACKENDS = {"cpu": numpy_backend}
