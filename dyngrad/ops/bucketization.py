"""searchsorted and bucketize: where values would go in sorted boundaries (no gradient).

Both run torch's binary search literally, vectorised over all values at once: ``left`` moves
right while ``!(mid >= value)``, ``right`` while ``!(mid > value)``. A NaN value therefore lands
after every boundary, and NaNs inside the boundaries steer the search exactly as they steer
torch's (the bisection takes the same midpoints).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import result_type
from .._utils import shape_str
from ..backends import numpy_backend as _npb
from ._registry import FUNCTIONS
from .pointwise import _not_implemented, _warn_once
from ._selection import contiguous, wrap_plain, write_out

_xp = _npb.xp
_INT64 = _xp.dtype("int64")
_NONCONTIGUOUS = ("torch.searchsorted(): {} tensor is non-contiguous, this will lower the "
                  "performance due to extra data copy when converting non-contiguous tensor to "
                  "contiguous, please use contiguous {} tensor if possible. This message will "
                  "only appear once per program. (Triggered internally at /__w/pytorch/pytorch/"
                  "aten/src/ATen/native/BucketizationUtils.h:{}.)")
_WARN_LINES = {"input value": 32, "boundary": 38, "sorter": 44}


def _tensor_cls():
    from . import _registry
    return _registry._Tensor


def _warn_noncontiguous(t, what) -> None:
    if not t.is_contiguous():
        _warn_once(_NONCONTIGUOUS.format(what, what, _WARN_LINES[what]))


def _binary_search(bounds, values, right, sorter):
    """torch's cus_lower_bound / cus_upper_bound for every value at once. ``bounds``: (lanes, m),
    ``values``: (lanes, k), ``sorter``: (lanes, m) or None."""
    lanes, m = bounds.shape
    start = _xp.zeros(values.shape, _INT64)
    end = _xp.full(values.shape, m, _INT64)
    row = _xp.arange(lanes).reshape(-1, 1)
    while True:
        active = start < end
        if not active.any():
            return start
        mid = start + ((end - start) >> 1)
        at = _xp.minimum(mid, m - 1)
        if sorter is not None:
            at = sorter[row, at]
        mid_val = bounds[row, at]
        go_right = ~(mid_val > values) if right else ~(mid_val >= values)
        start = _xp.where(active & go_right, mid + 1, start)
        end = _xp.where(active & ~go_right, mid, end)


def _searchsorted(boundaries, input, out_int32, right, side, sorter, out):
    Tensor = _tensor_cls()
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                           f"{side}")
    if side == "left" and right:
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                           "side of left while right was True")
    right = right or side == "right"
    if not isinstance(input, Tensor):
        from .creation import wrapped_scalar
        input = wrapped_scalar(input)
    if sorter is not None:
        if tuple(sorter.shape) != tuple(boundaries.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {shape_str(boundaries.shape)}and "
                               f"got sorter tensor {shape_str(sorter.shape)}")
        if sorter.dtype is not D.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {sorter.dtype._legacy}")
        s = sorter._data
        if s.size and (s.min() < 0 or s.max() >= boundaries.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if not (input.dim() > 0 or boundaries.dim() == 1):
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when "
                           "boundaries tensor dimension is 1, but we got boundaries tensor dim("
                           f"{boundaries.dim()}) and input value's dim({input.dim()}) numel("
                           f"{input.numel()})")
    if boundaries.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if boundaries.dim() != 1 and tuple(boundaries.shape[:-1]) != tuple(input.shape[:-1]) or \
            boundaries.dim() != 1 and boundaries.dim() != input.dim():
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           f"must match, but we got boundaries tensor {shape_str(boundaries.shape)}"
                           f" and input value tensor {shape_str(input.shape)}")
    out_dtype = D.int32 if out_int32 else D.int64
    if out is not None:
        if out.dtype is not out_dtype:
            raise RuntimeError("torch.searchsorted(): output tensor's dtype is wrong, it can "
                               "only be Int(int32) or Long(int64) depending on whether out_int32 "
                               f"flag is True, but we got output tensor's dtype "
                               f"{out.dtype._legacy} and out_int32 flag is "
                               f"{'True' if out_int32 else 'False'}")
    if input.dim():
        _warn_noncontiguous(input, "input value")
    _warn_noncontiguous(boundaries, "boundary")
    if sorter is not None:
        _warn_noncontiguous(sorter, "sorter")
    common = result_type(boundaries, input)
    bounds, values = boundaries._data, input._data
    if bounds.dtype != common.np or values.dtype != common.np:
        from .creation import cast_array
        bounds, values = cast_array(bounds, common.np), cast_array(values, common.np)
    if common.category not in (D.INT, D.FLOAT) or common in D.LIMITED_UNSIGNED:
        raise _not_implemented("searchsorted_out_cpu", common.np)
    shape = values.shape
    m = bounds.shape[-1]
    if values.size == 0 or m == 0:
        result = _xp.zeros(shape, out_dtype.np)
    else:
        lanes = 1 if bounds.ndim == 1 else bounds.size // m
        order = None if sorter is None else sorter._data.reshape(lanes, m)
        found = _binary_search(bounds.reshape(lanes, m), values.reshape(lanes, -1), right, order)
        result = found.reshape(shape).astype(out_dtype.np)
    result = wrap_plain(contiguous(result))
    if out is not None:
        write_out(out, result)
        return out
    return result


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, out=None,
                 sorter=None):
    """Indices into the innermost dim of ``sorted_sequence`` where ``input``'s values would be
    inserted to keep it sorted (``right``/``side="right"``: after equal values). ``sorter``
    gives the order of an unsorted ``sorted_sequence``."""
    Tensor = _tensor_cls()
    if not isinstance(sorted_sequence, Tensor) or not isinstance(
            input, (Tensor, bool, int, float)):
        raise TypeError(_invalid("searchsorted", (sorted_sequence, input)))
    return _searchsorted(sorted_sequence, input, out_int32, right, side, sorter, out)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value of ``input`` among the sorted 1-D ``boundaries``
    (``boundaries[i-1] < x <= boundaries[i]``; ``right=True``: ``boundaries[i-1] <= x <
    boundaries[i]``)."""
    Tensor = _tensor_cls()
    if not isinstance(boundaries, Tensor) or not isinstance(input, (Tensor, bool, int, float)):
        raise TypeError(_invalid("bucketize", (input, boundaries)))
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    return _searchsorted(boundaries, input, out_int32, right, None, None, out)


def _invalid(name, args) -> str:
    """The head of torch's "invalid combination of arguments" TypeError."""
    got = ", ".join("Tensor" if isinstance(a, _tensor_cls()) else type(a).__name__ for a in args)
    return f"{name}() received an invalid combination of arguments - got ({got}), but expected " \
           "one of:"


FUNCTIONS["searchsorted"] = searchsorted
FUNCTIONS["bucketize"] = bucketize
