"""The NumPy backend: ``xp`` for the ``cpu`` device plus the few helpers kernels share."""
from __future__ import annotations

import math

import numpy as np

from .._utils import contiguous_strides
from .._dtypes import BF16_NP as BF16

# float16 and bfloat16 (ml_dtypes' "V"-kind dtype, where installed): the floating types torch's
# CPU kernels compute in float32 ("opmath") and round back once (Note [bfloat16 through
# ml_dtypes] in _dtypes.py)
HALF = np.dtype(np.float16)
LOW = (HALF, BF16) if BF16 is not None else (HALF,)


def finfo(dtype):
    """``np.finfo``, for ml_dtypes' bfloat16 too (NumPy's refuses a "V"-kind dtype)."""
    if BF16 is not None and np.dtype(dtype) == BF16:
        import ml_dtypes
        return ml_dtypes.finfo(BF16)
    return np.finfo(dtype)

xp = np
ndarray = np.ndarray
device_type = "cpu"
# np.dot, np.where and np.may_share_memory without their __array_function__ dispatch, which
# runs a Python frame on every call (0.15 us of a 0.47 us product of two small matrices): the
# hot paths that call these hand them plain ndarrays
dot = getattr(np.dot, "_implementation", np.dot)
where = getattr(np.where, "_implementation", np.where)
may_share_memory = getattr(np.may_share_memory, "_implementation", np.may_share_memory)

# torch computes silently: 1/0 is inf and 0/0 is nan without a warning. NumPy's floating-point
# error state is set once here, for the process (a difference from NumPy defaults, in the README).
np.seterr(all="ignore")


def flat_buffer(arr: np.ndarray) -> np.ndarray:
    """A 1-D array over all the memory `arr` spans, starting at arr's first element.

    `arr` must have non-negative strides (torch never has negative ones).
    """
    if arr.flags.c_contiguous:
        return arr.reshape(-1)
    if arr.flags.f_contiguous:          # a transposed result (BLAS): its transpose is C-ordered
        return arr.T.reshape(-1)
    itemsize = arr.itemsize
    span = 1
    for n, s in zip(arr.shape, arr.strides):
        if n == 0:
            return np.empty(0, arr.dtype)
        span += (n - 1) * (s // itemsize)
    return np.lib.stride_tricks.as_strided(arr, (span,), (itemsize,),
                                           writeable=arr.flags.writeable)


def strided(buffer: np.ndarray, shape, stride, offset: int, dtype=None) -> np.ndarray:
    """A strided view of a flat buffer (shape, stride and offset in elements, as torch's).

    ``dtype`` reinterprets the bytes (``Tensor.view(dtype)``); offset and strides then count
    elements of that dtype. An empty view addresses no memory, so its offset may lie past the
    buffer's end as torch allows (``x[:, 5:]``); NumPy refuses that, so it is built at 0.
    """
    if dtype is None:
        dtype = buffer.dtype
    itemsize = dtype.itemsize
    if 0 in shape:
        offset = 0
    return np.ndarray(shape, dtype, buffer, offset * itemsize,
                      tuple(s * itemsize for s in stride))


def c_contiguous(arr) -> np.ndarray:
    """`arr` with torch's contiguous strides, size-1 dims included: NumPy calls an array
    C-contiguous whatever stride such a dim has (``np.ascontiguousarray`` leaves it, and
    ``stride()`` would show it), so such a dim is restrided over the same memory."""
    arr = np.asarray(arr, order="C")
    if arr.ndim > 1 and 1 in arr.shape:
        want = tuple([s * arr.itemsize for s in contiguous_strides(arr.shape)])
        if want != arr.strides:
            return np.ndarray(arr.shape, arr.dtype, arr, 0, want)   # (the same memory)
    return arr


def data_ptr(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


_SAME_SIZE_INT = {2: np.int16, 4: np.int32, 8: np.int64}


# Note [Maximum and minimum against a number]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# NumPy vectorises ``maximum``/``minimum`` for two array operands only: against a number it runs
# a scalar loop, 2.5-3x slower (``np.maximum(x, 0)`` on 512x256 float32: 50 us; with an array
# of zeros: 18 us). relu, clamp and hardtanh bound arrays by numbers, so ``maximum``/``minimum``
# here pass the number as an array of x's shape instead: a read-only view of a zero array
# kept per dtype for 0 (relu's bound), a filled one for other numbers. Same values and NaNs as
# NumPy's own; where x ties with the bound, x itself, as torch's clamp gives (relu(-0.0) is
# -0.0), where NumPy gives one operand by position (tests/test_activation.py checks both
# against torch and NumPy). Only floating C-contiguous arrays
# of 4096 (16384 for a filled array) to 2**20 elements take this path: small ones gain
# nothing, and the zeros kept stay bounded (4 MB for float32).
_ZEROS: dict = {}


def _bound_array(x: np.ndarray, bound):
    """`bound` (a number) as an array like `x`, or None to leave it to NumPy's scalar loop."""
    if not (x.dtype.kind in "fV" and 4096 <= x.size <= 1 << 20 and x.flags.c_contiguous):
        return None
    tb = type(bound)
    if not (tb is float or tb is int or (isinstance(bound, np.floating)
                                          and bound.dtype == x.dtype)):
        return None   # (other numbers can change the result dtype: NumPy decides those)
    if tb is int and not -(1 << 53) <= bound <= 1 << 53:
        return None   # (beyond what a float holds exactly: NumPy decides how to convert it)
    if bound == 0 and math.copysign(1.0, bound) > 0:
        zeros = _ZEROS.get(x.dtype)
        if zeros is None or zeros.size < x.size:
            zeros = np.zeros(1 << max(12, (x.size - 1).bit_length()), x.dtype)
            zeros.flags.writeable = False
            _ZEROS[x.dtype] = zeros
        return zeros[:x.size].reshape(x.shape)
    if x.size < 16384:
        return None   # (filling an array first pays off from about this size)
    return np.full(x.shape, bound, x.dtype)


def maximum(x: np.ndarray, bound) -> np.ndarray:
    """``np.maximum(x, bound)`` for a number `bound`, x where they tie (Note [Maximum and
    minimum against a number])."""
    return _bounded(np.maximum, x, bound)


def minimum(x: np.ndarray, bound) -> np.ndarray:
    """``np.minimum(x, bound)`` for a number `bound`, x where they tie (Note [Maximum and
    minimum against a number])."""
    return _bounded(np.minimum, x, bound)


def _bounded(ufunc, x, bound):
    b = _bound_array(x, bound)
    return keep_first(ufunc, x, bound if b is None else b)


def keep_first(ufunc, x, y):
    """``np.maximum(x, y)`` or ``np.minimum(x, y)`` with x where the two compare equal: -0.0
    against 0.0, whose sign shows when printed. NumPy returns its second operand there for
    float32/64 and its first for float16, whatever the loop; NaN propagates from either.
    (x's dtype decides: the dispatcher has given both operands one dtype.)

    torch keeps x in clamp and its relatives, fmax and fmin; its maximum and minimum keep the
    second operand in their vectorised loop (and the first in the scalar tail), so those call
    this with the operands swapped and follow the vectorised loop, as the other ops here do."""
    return ufunc(x, y) if x.dtype in LOW else ufunc(y, x)


def keep_first_f(ufunc, x, y):
    """``np.fmax(x, y)`` or ``np.fmin(x, y)`` with x where the two compare equal (see
    keep_first): NumPy's fmax returns either operand on a tie, by the loop it takes. So the
    maximum/minimum with x kept on ties, then fmax/fmin only where that gave NaN (the other
    operand, unless both are NaN)."""
    r = keep_first(np.maximum if ufunc is np.fmax else np.minimum, x, y)
    if r.dtype.kind in "fV":
        nan = np.isnan(r)
        if nan.any():
            r = np.where(nan, ufunc(x, y), r)
    return r


def keep_where(keep: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``x`` where ``keep`` is true, +0 elsewhere: ``np.where(keep, x, 0)`` with the same result.

    Masked gradients (relu, threshold, clamp, max pools) are this op. ``np.where`` branches per
    element and runs ~8x slower than a multiply on a random mask; multiplying by the mask would
    be fast but turns an inf or NaN of ``x`` into NaN where torch writes 0. So a float array is
    ANDed bitwise with a mask of all-ones / all-zeros words: exact, NaN-safe, and as fast as the
    multiply. Other dtypes, and arrays under 4096 elements (where ``np.where``'s one call
    beats the mask's four: 1.2 against 2.6 us on 64 float32 elements, even at 4096), keep
    ``np.where``.
    """
    return _masked(keep, x, False)


def zero_where(drop: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``x`` where ``drop`` is false, +0 where it is true: ``keep_where(~drop, x)`` without the
    pass that inverts the mask (relu's backward: a third faster on a (32, 256) gradient)."""
    return _masked(drop, x, True)


def _masked(flags, x, drop: bool):
    word = _SAME_SIZE_INT.get(x.dtype.itemsize) if x.dtype.kind in "fV" and x.size >= 4096 \
        else None
    if (word is None or type(flags) is not np.ndarray or flags.shape != x.shape
            or not x.flags.c_contiguous or not flags.flags.c_contiguous):
        zero = np.zeros((), x.dtype)
        return where(flags, zero, x) if drop else where(flags, x, zero)
    mask = flags.view(np.int8).astype(word)   # 1 where the flag is set, 0 elsewhere
    if drop:
        np.subtract(mask, 1, out=mask)        # 0 where dropped, all ones (-1) where kept
    else:
        np.negative(mask, out=mask)           # all ones where kept, 0 elsewhere
    return np.bitwise_and(x.view(word), mask, out=mask).view(x.dtype)


# Note [Leading-axis sums as products]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A bias's gradient is the output gradient summed over the batch: ``g.sum(0)`` on a (rows,
# features) array. NumPy reduces a C-contiguous array's first axis one row at a time, adding
# each row into the running total: 12.5 us on a (512, 256) float32 gradient, 7.3 on (512, 10).
# The same sum is a vector-matrix product, ``ones(rows) @ g``, which BLAS's gemv computes with
# several partial sums per column: 4.9 and 1.4 us, and more accurate (its largest error against
# a float64 sum is 1.7e-5 against NumPy's 4.4e-5 there; torch's own is 1.3e-5). A sum over
# the leading axes of a C-contiguous float32/float64 array takes that product. Every element is
# multiplied by exactly 1, so inf and NaN propagate as in the sum, and a column of -0.0 sums to
# +0.0, as in NumPy's and torch's sums.

_ONES: dict = {}   # (rows, dtype) -> a read-only vector of ones


def leading_sum(x: np.ndarray, lead: int):
    """The sum over the first `lead` axes of `x` as a product with a vector of ones (Note
    [Leading-axis sums as products]); None where that does not apply (another dtype, memory
    order or size), and the caller's reduction runs."""
    if x.dtype.kind not in "fV" or x.itemsize not in (4, 8) or not x.flags.c_contiguous \
            or x.size == 0:
        return None
    shape = x.shape
    rows = math.prod(shape[:lead])
    if rows >= 1 << 31 or x.size // rows >= 1 << 31:
        return None
    key = (rows, x.dtype)
    ones = _ONES.get(key)
    if ones is None:
        if len(_ONES) >= 64:
            _ONES.clear()
        ones = _ONES[key] = np.ones(rows, x.dtype)
        ones.flags.writeable = False
    return dot(ones, x.reshape(rows, -1)).reshape(shape[lead:])


# Note [Row sums as one flat add.at]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# An embedding's gradient adds each looked-up row's gradient into its weight row, repeated
# indices summing: ``np.add.at(out, index, rows)``; index_add and an accumulating index_put do
# the same along some dim. With more than one element per index, NumPy's ``add.at`` takes a
# slow path, one row at a time (294 us for 640 rows of 64 float32 into a (1000, 64) table);
# with a 1-D array and 1-D indices it has a fast loop. So the values go in as one flat array,
# each element with its flat position in ``out``: 76 us for the same sum. Each element of
# ``out`` still receives its additions in the order of the indices, as from the row-wise
# ``add.at`` and from torch's loops, so the sums are the same bit for bit.
#
# With wide rows the flat positions cost as much as the sum itself. There the rows go in by
# rounds instead: round r adds every index's r-th row (the indices sorted stably, so in their
# order), and within a round no index repeats, so one fancy-indexed ``+=`` adds them all. Each
# element of ``out`` still receives its additions in the order of the indices. 512 rows of
# 1024 float32 into 256: 1068 -> 563 us; 640 rows of 256 into 1000: 365 -> 245. With many
# repeats of an index the rounds cost more than the flat sum: past _ROUNDS of them it is taken.
_ROUNDS = 8


def _add_rows_by_rounds(out, index, values) -> bool:
    """``out[index[j]] += values[j]`` in order, for 2-D `out` and `values`, by rounds (see
    above); False, with `out` untouched, where an index repeats more than _ROUNDS times."""
    k = index.size
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    first = np.empty(k, bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    rank = np.arange(k) - np.repeat(starts, np.diff(np.append(starts, k)))
    rounds = int(rank.max()) + 1
    if rounds > _ROUNDS:
        return False
    for r in range(rounds):
        picked = order[rank == r] if rounds > 1 else order
        out[index[picked]] += values[picked]
    return True


def add_at_axis(out: np.ndarray, axis: int, index: np.ndarray, values) -> None:
    """``out[(:,) * axis + (index[j],)] += values[(:,) * axis + (j,)]`` for every j in
    order, repeated indices summing (NumPy's ``add.at`` along `axis`; Note [Row sums as one
    flat add.at]). `index`: 1-D integers, negative ones counting from the end; `values`:
    broadcastable to ``out``'s shape with ``len(index)`` at `axis`."""
    shape = out.shape
    n = shape[axis]
    outer, inner = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
    if outer * inner < 2 or not out.flags.c_contiguous or not index.size:
        np.add.at(out, (slice(None),) * axis + (index,), values)
        return
    index = index.astype(np.int64, copy=False)
    if index.min() < 0:
        index = np.where(index < 0, index + n, index)
    k = index.size
    if outer == 1 and inner >= 128:   # (wide rows: by rounds, unless an index repeats often)
        rows = np.broadcast_to(values, (k,) + shape[axis + 1:]).reshape(k, inner)
        if _add_rows_by_rounds(out.reshape(n, inner), index, rows):
            return
    flat = index[:, None] * inner + np.arange(inner)
    if outer > 1:
        flat = (np.arange(outer)[:, None, None] * (n * inner) + flat).reshape(-1)
    values = np.broadcast_to(values, shape[:axis] + (k,) + shape[axis + 1:])
    np.add.at(out.reshape(-1), flat.reshape(-1), values.reshape(-1))
