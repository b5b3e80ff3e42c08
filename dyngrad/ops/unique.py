"""unique and unique_consecutive (flat or along a dim): values, inverse indices and counts.

torch's CPU unique always sorts (``sorted=False`` gives the sorted result too), then keeps the
first element of each run of equal values. Equality is ``!=``: each NaN is unique, -0.0 and 0.0
are one value (the first in sorted order is kept). With ``dim``, slices are sorted
lexicographically (``std::sort`` with a comparator that skips positions where neither side is
smaller, so NaN compares "equal" there) and then grouped with ``at::equal``, under which a slice
holding a NaN equals nothing. Where the order of equivalent elements shows in the result
(which of -0.0/0.0 is kept, which NaN gets which inverse index), we replay torch's
``std::sort`` as sorting.py does (Note [Replaying torch's tie order] in _stl.py); x86-simd-sort
dtypes keep the stable order.

The values carry a node whose derivative torch does not implement (``Unique2Backward0``,
``UniqueDimBackward0``, ``UniqueConsecutiveBackward0``): backward raises torch's error.
"""
from __future__ import annotations

from .._promotion import Promote
from .._utils import canonical_dim
from ..backends import numpy_backend as _npb
from . import _registry, _stl
from ._arg_parser import check_binding
from ._registry import FUNCTIONS, METHODS, defop
from .pointwise import _not_implemented, _require_tensor
from ._selection import contiguous, wrap_plain

_xp = _npb.xp
_INT64 = _xp.dtype("int64")


def _check_dtype(arr, kernel_name):
    if arr.dtype.kind == "c":
        raise _not_implemented(kernel_name, arr.dtype)


def _stable_sort_flat(flat):
    """torch's ``flatten().sort()`` order for unique: stable, replayed for float16 where the
    order of equivalent elements shows (NaNs, signed zeros)."""
    order = _xp.argsort(flat, kind="stable")
    if flat.dtype == _xp.float16 and flat.size > 16:
        if _xp.isnan(flat).any() or (_xp.signbit(flat) & (flat == 0)).any():
            from .sorting import _rank_keys
            replayed = list(range(flat.size))
            _stl.std_sort(replayed, _rank_keys(flat))
            order = _xp.array(replayed, _INT64)
    return order


def _runs(sorted_flat):
    """Where a new run of equal values starts (``!=``: NaN always starts one)."""
    new = _xp.ones(sorted_flat.shape[0], bool)
    if sorted_flat.ndim == 1:
        new[1:] = sorted_flat[1:] != sorted_flat[:-1]
    else:
        new[1:] = (sorted_flat[1:] != sorted_flat[:-1]).any(axis=1)
    return new


def _group(order, new, n):
    """(inverse indices by original position, counts) from a sorted order and its run starts."""
    inverse = _xp.empty(n, _INT64)
    inverse[order] = _xp.cumsum(new) - 1
    starts = _xp.flatnonzero(new)
    counts = _xp.diff(_xp.append(starts, n)).astype(_INT64)
    return inverse, counts


def _unique_flat(arr, consecutive):
    """(values, inverse shaped like arr, counts) of the flattened ``arr``."""
    flat = contiguous(arr).reshape(-1)
    n = flat.size
    order = _xp.arange(n) if consecutive else _stable_sort_flat(flat)
    ordered = flat[order]
    new = _runs(ordered) if n else _xp.zeros(0, bool)
    inverse, counts = _group(order, new, n)
    return ordered[new], inverse.reshape(arr.shape), counts


class _Slice:
    """A slice compared as torch's unique_dim compares them: the first position where one
    side is smaller decides; a NaN is smaller than nothing (and nothing is smaller than it)."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    def __lt__(self, other):
        for x, y in zip(self.values, other.values):
            if x < y:
                return True
            if x > y:
                return False
        return False


def _slice_order(rows):
    """torch's std::sort of slice indices, lexicographic: NumPy's lexsort where ties cannot
    show, else replayed."""
    m = rows.shape[0]
    order = _xp.lexsort(rows.T[::-1]) if rows.shape[1] else _xp.arange(m)
    if rows.dtype.kind not in "fV":
        return order
    has_nan = bool(_xp.isnan(rows).any())
    if has_nan or (m > 16 and bool((_xp.signbit(rows) & (rows == 0)).any())):
        replayed = list(range(m))
        _stl.std_sort(replayed, [_Slice(row) for row in rows.tolist()])
        order = _xp.array(replayed, _INT64)
    return order


def _unique_dim(arr, dim, consecutive):
    """(values, inverse, counts) of the slices of ``arr`` along ``dim``."""
    if arr.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = canonical_dim(dim, arr.ndim)
    zeros = arr.shape.count(0)
    if arr.shape[d] == 0:
        if zeros != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        return _xp.empty(arr.shape, arr.dtype), _xp.empty(0, _INT64), _xp.empty(0, _INT64)
    if zeros:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    moved = contiguous(_xp.moveaxis(arr, d, 0))
    m = moved.shape[0]
    rows = moved.reshape(m, -1)
    order = _xp.arange(m) if consecutive else _slice_order(rows)
    ordered = rows[order]
    new = _runs(ordered)
    inverse, counts = _group(order, new, m)
    kept = contiguous(ordered[new]).reshape((-1,) + moved.shape[1:])
    return _xp.moveaxis(kept, 0, d), inverse, counts


@defop("_unique2", node="Unique2Backward0", promote=Promote.NONE, variants=(), scalars=())
def _unique2(xp, self, sorted=True, return_inverse=False, return_counts=False):
    _check_dtype(self, "unique")
    return _unique_flat(self, False)[0]


@defop("unique_dim", node="UniqueDimBackward0", promote=Promote.NONE, variants=(), scalars=())
def _unique_dim_op(xp, self, dim, sorted=True, return_inverse=False, return_counts=False):
    _check_dtype(self, "unique_dim")
    return _unique_dim(self, dim, False)[0]


@defop("unique_consecutive", node="UniqueConsecutiveBackward0", promote=Promote.NONE,
       variants=(), scalars=())
def _unique_consecutive(xp, self, return_inverse=False, return_counts=False, dim=None):
    _check_dtype(self, "unique")
    if dim is None or (dim == 0 and self.ndim == 1):
        return _unique_flat(self, True)[0]
    return _unique_dim(self, dim, True)[0]


def _results(values, extras, return_inverse, return_counts):
    inverse, counts = extras
    out = (values,)
    if return_inverse:
        out += (wrap_plain(inverse),)
    if return_counts:
        out += (wrap_plain(counts),)
    return out if len(out) > 1 else values


# the bindings torch/functional.py calls with a dim (its parser refuses a dim that is no int)
_UNIQUE_DIM = ("unique_dim(Tensor input, int dim, bool sorted=True, bool return_inverse=False, "
               "bool return_counts=False)",)
_UNIQUE_CONSECUTIVE = ("unique_consecutive(Tensor input, bool return_inverse=False, "
                       "bool return_counts=False, int? dim=None)",)


def _dispatch_flags(*flags):
    """torch/functional.py picks its function by the truth of these flags (boolean_dispatch)
    before any check: a tensor of several elements fails there, as ``bool`` of it does."""
    for flag in flags:
        if isinstance(flag, _registry._Tensor):
            bool(flag)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The unique elements of ``input`` (or unique slices along ``dim``), sorted; optionally
    the index of each input element in them and how often each occurs.

    Differences from torch: for float32/float64, which of -0.0/0.0 is kept and which NaN gets
    which inverse index follow the stable order (torch's depend on the CPU's SIMD sort).
    """
    _dispatch_flags(return_counts, return_inverse)
    _require_tensor("_unique2" if dim is None else "unique_dim", input)   # (the binding's words)
    if dim is None:
        # (keywords, as torch/functional.py passes them: its parser's errors name no position)
        values = _unique2(input, sorted=sorted, return_inverse=return_inverse,
                          return_counts=return_counts)
        extras = _unique_flat(input._data, False)[1:] if return_inverse or return_counts \
            else (None, None)
    else:
        if type(dim) is not int:
            check_binding(_UNIQUE_DIM, (input, dim), {"sorted": sorted,
                                                      "return_inverse": return_inverse,
                                                      "return_counts": return_counts})
        values = _unique_dim_op(input, dim, sorted=sorted, return_inverse=return_inverse,
                                return_counts=return_counts)
        extras = _unique_dim(input._data, dim, False)[1:] if return_inverse or return_counts \
            else (None, None)
    return _results(values, extras, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive elements (or slices along ``dim``) to one."""
    _dispatch_flags(return_inverse)
    _require_tensor("unique_consecutive", input)
    if dim is not None and type(dim) is not int:
        check_binding(_UNIQUE_CONSECUTIVE, (input,), {"return_inverse": return_inverse,
                                                      "return_counts": return_counts,
                                                      "dim": dim})
    values = _unique_consecutive(input, return_inverse=return_inverse,
                                 return_counts=return_counts, dim=dim)
    extras = (None, None)
    if return_inverse or return_counts:
        arr = input._data
        if dim is None or (dim == 0 and arr.ndim == 1):
            extras = _unique_flat(arr, True)[1:]
        else:
            extras = _unique_dim(arr, dim, True)[1:]
    return _results(values, extras, return_inverse, return_counts)


for _fn in (unique, unique_consecutive):
    FUNCTIONS[_fn.__name__] = METHODS[_fn.__name__] = _fn
