"""The BLAS routines NumPy does not reach, from SciPy's BLAS wrappers when SciPy and
threadpoolctl are installed (the ``fast`` extra) and every BLAS library runs one thread (Note
[One BLAS thread pool at a time]); otherwise, NumPy's passes. axpy, ``y += alpha * x`` in place,
and gemm with ``beta = 1``, ``c + a @ b`` in one call (Note [gemm onto the bias]).

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
_gemms = None      # dtype -> SciPy's gemm for it; {} once SciPy is found missing
_counters = ()     # per BLAS library loaded, a function returning its thread count


# Note [One BLAS thread pool at a time]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# NumPy's and SciPy's wheels each bring their own OpenBLAS, and each OpenBLAS its own pool of
# threads. After a call, OpenBLAS's threads spin a while waiting for the next one. With more than
# one thread per pool, the pool that is not working spins on the cores the working one needs:
# on two cores at two threads the MLP step of the bench went from 2.0 to 25 ms (batch 512) and
# from 0.45 to 10 ms (batch 32), and the NumPy baseline beside it in the same process from 1.8
# to 4.2 ms. So SciPy's routines run only while every BLAS library in the process runs one
# thread (the bench's headline setting, and a common one for training: one process per core);
# otherwise NumPy's passes and products do, in one pool. The counts are read at every call,
# since threadpool_limits may change them. threadpoolctl finds the libraries (without it the
# counts are unknown and SciPy's routines are not used) and reads a count in 0.3 us; OpenBLAS's
# own C function, called directly, takes 0.08, which matters for the small calls (six parameter
# updates a step). It is looked up under the names threadpoolctl tries for OpenBLAS builds
# (plain, SciPy's "scipy_" prefix, 64-bit integer suffixes); another library keeps
# threadpoolctl's reader.

_OPENBLAS_COUNT = tuple(f"{prefix}openblas_get_num_threads{suffix}"
                        for prefix in ("", "scipy_") for suffix in ("", "64_", "_64"))


def _thread_counter(pool):
    """A function of no argument returning the thread count of threadpoolctl's `pool`."""
    if pool.internal_api == "openblas":
        for name in _OPENBLAS_COUNT:
            count = getattr(pool.dynlib, name, None)
            if count is not None:
                return count
    return pool.get_num_threads


def _load() -> dict:
    global _routines, _gemms, _counters
    try:
        from scipy.linalg import blas
        from threadpoolctl import ThreadpoolController
        pools = ThreadpoolController().select(user_api="blas").lib_controllers
        counters = tuple(_thread_counter(pool) for pool in pools)
    except Exception:   # (not installed, or an install that cannot load: NumPy's passes)
        _routines = _gemms = {}
        return _routines
    _counters = counters
    _routines = {np.dtype(np.float32): blas.saxpy, np.dtype(np.float64): blas.daxpy}
    _gemms = {np.dtype(np.float32): blas.sgemm, np.dtype(np.float64): blas.dgemm}
    return _routines


def single_threaded() -> bool:
    """Every BLAS library loaded runs one thread (Note [One BLAS thread pool at a time])."""
    for count in _counters:
        if count() != 1:
            return False
    return True


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
    if routine is None or not single_threaded():
        return False
    flat = y.reshape(-1)
    result = routine(x.reshape(-1), flat, a=alpha)
    if result is not flat:   # (SciPy copied y on the way in: write its answer back)
        flat[...] = result
    return True


# Note [gemm onto the bias]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# A linear layer is ``addmm(bias, x, w.t())``: the product plus the bias broadcast over its rows.
# Through NumPy it takes two passes over the result besides the product itself: BLAS clears
# the fresh result before accumulating into it (beta = 0), then ``+= bias`` reads and writes it
# again. torch's addmm instead copies the bias into the result and calls gemm with beta = 1,
# which accumulates onto it: one pass (the copy) besides the product. SciPy's gemm takes a
# result array and a beta, so dyngrad does the same where SciPy's routines run (Note [One BLAS
# thread pool at a time]): a linear layer at batch 512 in float32, 512x784 @ 784x256 with its
# bias, 905 -> 865 us, and 512x256 @ 256x256, 310 -> 287 us, on an AVX-512 EPYC. About half of
# that is the bias's pass; the rest is SciPy's OpenBLAS (0.3.30 there) running this layout
# faster than NumPy's (0.3.31): 845 against 875 us for the product alone. For the transposed
# products of the backward it is the other way round, so those stay with NumPy. A few rows
# times a wide matrix keep the transposed product of ``_product`` in ops/linalg.py, faster
# still there.
#
# The sum is the same, rounded in another order: the bias joins the first block of the inner
# dimension instead of the finished product (as in torch's call), so where the inner dimension
# spans several of OpenBLAS's blocks (784 does, 256 does not) about a third of the elements
# differ from NumPy's order in the last bit; torch's own BLAS (MKL) agrees with either order on
# fewer than one element in ten. NaN and inf in the bias propagate as before (beta = 1 reads it).
#
# SciPy's wrappers are Fortran's: column-major arrays. The row-major result ``c = a @ b`` is
# the column-major ``c.T = b.T @ a.T``, and each operand goes in as whichever of itself or its
# transpose is column-major, with the matching transpose flag, so that nothing is copied.

def _transposed_operand(x):
    """``x.T`` as a column-major gemm operand without a copy: (array, transpose flag), where
    gemm reads op(array), the array itself for flag 0 and its transpose for 1; (None, 0) for a
    matrix neither C- nor F-ordered."""
    if x.flags.c_contiguous:
        return x.T, 0
    if x.flags.f_contiguous:
        return x, 1
    return None, 0


def gemm_plus(bias: np.ndarray, a: np.ndarray, b: np.ndarray):
    """``bias + a @ b`` as a new C-contiguous array made by one BLAS gemm call onto the bias
    broadcast into it (beta = 1), for 2-D float32/float64 operands of one dtype and a bias of
    that dtype broadcastable to the result. None where the call does not apply (SciPy missing,
    another dtype or layout, an empty or too large dimension): the caller's NumPy passes run."""
    if _gemms is None:
        _load()
    gemm = _gemms.get(a.dtype)
    if gemm is None or b.dtype is not a.dtype or bias.dtype is not a.dtype \
            or type(a) is not np.ndarray or type(b) is not np.ndarray or a.ndim != 2 \
            or b.ndim != 2 or not single_threaded():
        return None
    (m, k), n = a.shape, b.shape[1]
    if not (0 < m < 1 << 31 and 0 < n < 1 << 31 and 0 < k < 1 << 31):
        return None
    # column-major: c.T (n x m) = op(first) @ op(second) = b.T @ a.T
    first, trans_first = _transposed_operand(b)
    second, trans_second = _transposed_operand(a)
    if first is None or second is None:
        return None
    c = np.empty((m, n), a.dtype)
    c[...] = bias
    out = c.T
    result = gemm(1.0, first, second, 1.0, out, trans_first, trans_second, 1)
    if result is not out:   # (SciPy copied c on the way in: take its answer back)
        out[...] = result
    return c
