"""``make_tensor`` (``torch.testing.make_tensor``): a tensor of random values for tests.

It draws exactly as torch's does (``randint`` for bool and integers, ``uniform_`` for floats
and the real view of complex tensors), so after the same ``manual_seed`` both libraries give
the same values.
"""
from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Optional

from .. import _dtypes as D

_INTEGRAL = (D.uint8, D.int8, D.int16, D.int32, D.int64, D.uint16, D.uint32, D.uint64)
_BOOL_OR_INTEGRAL = (D.bool_, *_INTEGRAL)
_FLOATING = (D.float16, D.float32, D.float64)
_COMPLEX = (D.complex64, D.complex128)
_FLOATING_OR_COMPLEX = (*_FLOATING, *_COMPLEX)


def _uniform_fill(t, low, high):
    """``uniform_`` on [low, high), halving a range too wide for the dtype and doubling."""
    import dyngrad
    if high - low >= dyngrad.finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low: Optional[float] = None,
                high: Optional[float] = None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None):
    """A tensor of `shape` with values drawn uniformly from ``[low, high)``.

    ``low``/``high`` default by dtype (bool: [0, 2), unsigned: [0, 10), signed: [-9, 10),
    floating and complex: [-9, 9)) and are clamped to the dtype's finite range.

    Args:
        noncontiguous: return every other element of a tensor twice as wide (ignored for
            fewer than two elements); exclusive with ``memory_format``.
        exclude_zero: replace zeros with 1 (bool, integers) or ``finfo(dtype).tiny``.

    Raises:
        ValueError: ``requires_grad`` with an integral dtype, ``low >= high``, a NaN bound, or
            both ``noncontiguous`` and ``memory_format``.
        TypeError: a dtype make_tensor does not support.

    Example::

        >>> dyngrad.manual_seed(0)
        >>> make_tensor(3, dtype=dyngrad.float32, device="cpu", low=-1, high=1)
    """
    import dyngrad

    def bounds(low, high, *, lowest, highest, default_low, default_high):
        low = default_low if low is None else low
        high = default_high if high is None else high
        if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and "
                             f"high={high!r}")
        elif low == high and dtype in _FLOATING_OR_COMPLEX:
            warnings.warn(
                "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
                "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` "
                "instead.", FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest or low >= highest:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, "
                             f"{high}), but {dtype} only supports [{lowest}, {highest})")
        low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
        if dtype in _BOOL_OR_INTEGRAL:
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous!r} and "
                         f"memory_format={memory_format!r}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype!r}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is D.bool_:
        low, high = bounds(low, high, lowest=0, highest=2, default_low=0, default_high=2)
        result = dyngrad.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = dyngrad.iinfo(dtype)
        low, high = bounds(low, high, lowest=info.min,
                           highest=info.max + (1 if dtype is not D.int64 else 0),
                           default_low=-9, default_high=10)
        result = dyngrad.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX:
        info = dyngrad.finfo(dtype)
        low, high = bounds(low, high, lowest=info.min, highest=info.max,
                           default_low=-9, default_high=9)
        result = dyngrad.empty(shape, device=device, dtype=dtype)
        _uniform_fill(dyngrad.view_as_real(result) if dtype in _COMPLEX else result, low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else dyngrad.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX:
        result.requires_grad = requires_grad
    return result
