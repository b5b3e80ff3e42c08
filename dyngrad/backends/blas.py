"""The one BLAS routine NumPy does not reach: axpy, ``y += alpha * x`` in place, from SciPy's
BLAS wrappers when SciPy is installed (the ``fast`` extra); without it, NumPy's two passes.

Note [axpy for add_ with alpha]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An optimizer step is ``param.add_(grad, alpha=-lr)``. NumPy computes it in two passes over
memory, ``alpha * grad`` into a temporary and then the sum; torch's CPU kernel makes one pass
with a fused multiply-add (one rounding), its vectorised loop and its tail alike. BLAS's axpy is
that same single pass, so where it runs the step is about twice as fast on a large parameter
(784 x 256 float32: 29 -> 14 us, torch 17). OpenBLAS fuses the multiply-add in its vector loop
but not for the last few elements (fewer than 32 in float32, per thread), so the values agree
with torch's bit for bit except there, where they round twice as NumPy's passes do (those
differ from torch's by a rounding for a few elements in a thousand with a small alpha, for
about a tenth of them with alpha 3). NumPy exposes BLAS only through its products
(dot, matmul), so the routine comes from SciPy, imported the first time a large enough ``add_``
with an alpha runs.

axpy runs only where it computes what the NumPy passes would, up to that rounding: float32 or
float64 arrays of one shape, both C-contiguous, at least ``MIN_SIZE`` elements (below that the
two NumPy passes cost no more than the call), and an alpha of at least 1e-30 in size, so never
0 in float32 either (BLAS returns early for alpha 0 and would leave ``y`` unchanged where
``0 * inf`` makes torch's result NaN).
"""
from __future__ import annotations

import numpy as np

MIN_SIZE = 256
_routines = None   # dtype -> SciPy's axpy for it; {} once SciPy is found missing


def _load() -> dict:
    global _routines
    try:
        from scipy.linalg import blas
    except Exception:   # (not installed, or an install that cannot load: NumPy's passes)
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
    if not abs(alpha) >= 1e-30:   # (0, or 0 once float32 rounds it, or NaN: NumPy's passes)
        return False
    routine = (_routines if _routines is not None else _load()).get(y.dtype)
    if routine is None:
        return False
    flat = y.reshape(-1)
    result = routine(x.reshape(-1), flat, a=alpha)
    if result is not flat:   # (SciPy copied y on the way in: write its answer back)
        flat[...] = result
    return True
