"""The one BLAS routine NumPy does not reach: axpy, ``y += alpha * x`` in place, from SciPy's
BLAS wrappers when SciPy is installed (the ``fast`` extra); without it, NumPy's two passes.

Note [axpy for add_ with alpha]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An optimizer step is ``param.add_(grad, alpha=-lr)``. NumPy computes it in two passes over
memory, ``alpha * grad`` into a temporary and then the sum; torch's CPU kernel makes one pass
with a fused multiply-add. BLAS's axpy is that same single pass, so where it runs the step is
about twice as fast on a large parameter (784 x 256 float32: 29 -> 14 us) and its values are
torch's to the bit (two roundings differ from the fused one in the last bit for a few elements
in a thousand). NumPy exposes BLAS only through its products (dot, matmul), so the routine comes
from SciPy, imported the first time a large enough ``add_`` with an alpha runs.

axpy only runs where it computes exactly what torch does: float32 or float64 arrays of one
shape, both C-contiguous, at least ``MIN_SIZE`` elements (below that the two NumPy passes cost
no more than the call), and an alpha that is not 0 in the array's dtype (BLAS returns early for
alpha 0 and would leave ``y`` unchanged where ``0 * inf`` makes torch's result NaN).
"""
from __future__ import annotations

import numpy as np

MIN_SIZE = 256
_routines = None   # dtype -> SciPy's axpy for it; {} once SciPy is found missing


def _load() -> dict:
    global _routines
    try:
        from scipy.linalg import blas
    except ImportError:
        _routines = {}
    else:
        _routines = {np.dtype(np.float32): blas.saxpy, np.dtype(np.float64): blas.daxpy}
    return _routines


def axpy(y: np.ndarray, x: np.ndarray, alpha) -> bool:
    """``y += alpha * x`` in place in one BLAS pass; False, with `y` untouched, where axpy does
    not apply (see the Note above) and the caller's NumPy passes must run instead."""
    if type(y) is not np.ndarray or y.size < MIN_SIZE or y.size >= 1 << 31 or (
            type(alpha) is not float and type(alpha) is not int):
        return False   # (a bool or complex alpha: the caller's checks raise torch's errors)
    if x.dtype is not y.dtype or x.shape != y.shape or not (
            y.flags.c_contiguous and x.flags.c_contiguous):
        return False
    routine = (_routines if _routines is not None else _load()).get(y.dtype)
    if routine is None or y.dtype.type(alpha) == 0:
        return False
    flat = y.reshape(-1)
    result = routine(x.reshape(-1), flat, a=alpha)
    if result is not flat:   # (SciPy copied y on the way in: write its answer back)
        flat[...] = result
    return True
