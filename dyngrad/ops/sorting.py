"""Sorting and selection along a dim: sort, argsort, msort, topk, kthvalue, median, nanmedian,
mode, with their derivatives (the gradient goes back to the selected indices).

Each op that returns (values, indices) runs in two steps (Note [Values selected by indices] in
_selection.py): a plain function computes the int64 indices, then a primitive named as torch
names the op gathers the values and records the node that saves those indices.

Note [NaN and ties in torch's selections]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
* Order: NaN sorts as the largest value (first when descending, first for ``topk``), and all
  NaNs are equivalent; -0.0 and 0.0 are equal.
* ``sort(stable=True)`` is ``std::stable_sort``: equal elements keep their order. That is what
  NumPy's stable argsort gives (descending: sort the reversed lane, reverse the result).
* ``median(dim)`` partitions (value, index) pairs, so its index is the lower median's *stable*
  rank; a lane with a NaN gives its first NaN. ``nanmedian(dim)`` skips NaNs the same way.
* ``topk``, ``kthvalue``, ``mode``, ``nanmedian`` of an all-NaN lane and ``sort(stable=False)``
  of bool/uint8/int8/int16/float16 report whichever tied element libstdc++'s ``std::sort`` /
  ``nth_element`` / ``partial_sort`` or ATen's quick-select leave in place: we replay those
  algorithms (Note [Replaying torch's tie order] in _stl.py), lane by lane, where a lane has
  ties that matter; other lanes take NumPy's answer, which is then the only correct one.
* ``sort(stable=False)`` of int32/int64/float32/float64 is x86-simd-sort in torch, whose order of
  ties depends on the CPU: we give the stable order (same values; indices may differ).
"""
from __future__ import annotations

import functools

from .. import _dtypes as D
from .. import return_types
from .._promotion import Promote
from .._utils import canonical_dim, plain_int
from ..backends import numpy_backend as _npb
from . import _dispatch, _stl
from ._geometry import infer_dense_strides, is_non_overlapping_and_dense
from ._arg_parser import check_call
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR
from .pointwise import _not_implemented, _require_tensor
from ._selection import (check_no_grad_out, contiguous, fresh, gather_along, scalar_type_check,
                   scatter_grad, structured_out_check, wrap_plain, write_out, write_outs)

_xp = _npb.xp
_INT64 = _xp.dtype("int64")
_XSS_DTYPES = frozenset(("int32", "int64", "float32", "float64"))   # x86-simd-sort in torch
_UNSET = object()


# ---------------------------------------------------------------------------------------------
# Lanes, keys and the stable order
# ---------------------------------------------------------------------------------------------
def _stable_order(arr, d, descending=False):
    """Stable argsort along ``d`` with NaN largest (``std::stable_sort`` with torch's compare)."""
    if not descending:
        return _xp.argsort(arr, axis=d, kind="stable")
    n = arr.shape[d]
    reversed_order = _xp.argsort(_xp.flip(arr, axis=d), axis=d, kind="stable")
    return _xp.flip(n - 1 - reversed_order, axis=d)


def _rank_keys(lane, negate=False) -> list:
    """Keys ordering as torch's comparators do: NaN above everything (all NaNs equivalent),
    -0.0 == 0.0. The values themselves where there is no NaN, else their dense ranks;
    ``negate`` reverses the order (a descending comparator)."""
    if lane.dtype.kind in "fV" and _xp.isnan(lane).any():
        nan = _xp.isnan(lane)
        _, inverse = _xp.unique(_xp.where(nan, 0, lane), return_inverse=True)
        lane = inverse.reshape(-1).astype(_INT64)
        lane[nan] = lane.size
    elif lane.dtype.kind in "biu":
        lane = lane.astype(_INT64)       # (negating int8 -128 or uint8 would wrap)
    return (-lane).tolist() if negate else lane.tolist()


def _same(a, b):
    """Elementwise "equivalent" under torch's comparators (NaNs are equivalent)."""
    eq = a == b
    if a.dtype.kind in "fV":
        eq |= _xp.isnan(a) & _xp.isnan(b)
    return eq


def _replay(arr, d, picked, tied, run, negate=False):
    """``picked`` (indices, lanes along ``d``) with the lanes where ``tied`` (a bool array
    over the other dims) replaced by ``run(keys)`` (keys: ``_rank_keys(lane, negate)``): the
    indices torch's algorithm leaves there."""
    if not tied.any():
        return picked
    lanes = _xp.moveaxis(arr, d, -1)
    out = _xp.moveaxis(picked, d, -1).copy()
    for pos in zip(*_xp.nonzero(tied)) if tied.ndim else [()]:
        lane = lanes[pos]
        out[pos] = run(_rank_keys(lane, negate))
    return _xp.moveaxis(out, -1, d)


def _lane_ties(arr, order, d, stop=None):
    """Per lane: whether two of its first ``stop`` elements in sorted ``order`` tie."""
    if stop is not None:
        order = _xp.take(order, _xp.arange(min(stop, order.shape[d])), axis=d)
    ranked = _xp.take_along_axis(arr, order, axis=d)
    n = ranked.shape[d]
    return _same(_xp.take(ranked, _xp.arange(1, n), axis=d),
                 _xp.take(ranked, _xp.arange(n - 1), axis=d)).any(axis=d)


def _reduced_shape(shape, d, keepdim):
    if keepdim:
        return shape[:d] + (1,) + shape[d + 1:]
    return shape[:d] + shape[d + 1:]


def _select_backward(ctx, grad, keepdim):
    """torch's value_selecting_reduction_backward: the gradient scattered to the indices."""
    (indices,) = ctx.saved_tensors
    return scatter_grad(grad, ctx.dim, indices, ctx.self_shape, keepdim=keepdim)


def _values_op(name, node, keepdim_of):
    """The primitive that gathers an op's values at its indices and records its node;
    ``keepdim_of(ctx)`` says whether its output kept the reduced dim."""
    def deco(fn):
        spec = defop(name, node=node, promote=Promote.NONE, inputs=("self", "indices"),
                     differentiable=("self",), saves=("indices",), variants=(),
                     scalars=())(fn)
        spec.backward(lambda ctx, grad: _select_backward(ctx, grad, keepdim_of(ctx)))
        spec.jvp(AUTO_LINEAR)   # the tangent gathered at the indices
        return spec
    return deco


# ---------------------------------------------------------------------------------------------
# sort / argsort / msort
# ---------------------------------------------------------------------------------------------
def _sort_indices(input, dim, descending, stable):
    arr = input._data
    if arr.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    d = canonical_dim(dim, arr.ndim)
    if arr.ndim == 0:
        return wrap_plain(_xp.zeros((), _INT64))
    order = _stable_order(arr, d, descending)
    n = arr.shape[d]
    # (torch returns a lane of stride 0 as it is: that is the stable order)
    if not stable and arr.dtype.name not in _XSS_DTYPES and n > 16 and arr.size \
            and input.stride()[d]:
        def run(keys):
            order = list(range(n))
            _stl.std_sort(order, keys)
            return order

        order = _replay(arr, d, order, _lane_ties(arr, order, d), run, negate=descending)
    shape, stride = arr.shape, input.stride()
    if not is_non_overlapping_and_dense(shape, stride):
        stride = infer_dense_strides(shape, stride)
    out = fresh(shape, stride, _INT64)
    out[...] = order
    return wrap_plain(out)


@_values_op("sort", "SortBackward0", lambda ctx: True)
def _sort(xp, self, indices, dim=-1, descending=False):
    return gather_along(xp, self, indices, dim)


@_values_op("sort.stable", "SortBackward1", lambda ctx: True)
def _sort_stable(xp, self, indices, *, stable, dim=-1, descending=False):
    return gather_along(xp, self, indices, dim)


def _stable_by_keyword(name: str, is_method: bool):
    """sort's and argsort's overloads that take ``stable`` take dim and descending by keyword
    only: torch's parser refuses ``sort(x, 1, stable=True)``, with its TypeError."""
    def wrap(fn):
        @functools.wraps(fn)
        def checked(self, *args, **kwargs):
            if args and "stable" in kwargs:
                check_call(name, args if is_method else (self,) + args, kwargs, is_method)
            return fn(self, *args, **kwargs)
        return checked
    return wrap


@_stable_by_keyword("sort", False)
def sort(input, dim=-1, descending=False, *, stable=_UNSET, out=None):
    """Sort ``input`` along ``dim``: ``(values, indices)``. NaN sorts as the largest value.

    Differences from torch: with ``stable=False``, equal int32/int64/float32/float64 elements
    come in their stable order (torch's order there depends on the CPU's SIMD sort).
    """
    _require_tensor("sort", input)
    indices = _sort_indices(input, dim, descending, bool(stable) if stable is not _UNSET
                            else False)
    if stable is _UNSET:
        values = _sort(input, indices, dim, descending)
    else:
        values = _sort_stable(input, indices, stable=stable, dim=dim, descending=descending)
    if out is not None:
        check_no_grad_out("sort", input)

        def check(values_out, indices_out):
            structured_out_check(input.dtype, values_out)
            structured_out_check(D.int64, indices_out)
        return write_outs("sort", out, values, indices, check)
    return return_types.sort((values, indices))


@_stable_by_keyword("argsort", False)
def argsort(input, dim=-1, descending=False, *, stable=False, out=None):
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``)."""
    _require_tensor("argsort", input)
    indices = _sort_indices(input, dim, descending, bool(stable))
    if out is not None:
        check_no_grad_out("sort", input)
        structured_out_check(D.int64, out)
        write_out(out, indices)
        return out
    return indices


def msort(input, *, out=None):
    """``input`` sorted along its first dim (``sort(input, 0).values``)."""
    _require_tensor("msort", input)
    values = sort(input, 0).values
    if out is not None:
        check_no_grad_out("sort", input)
        structured_out_check(input.dtype, out)
        _dispatch.check_out_overlap(out, (input,), "partial")   # (Note [out= and memory
        write_out(out, values)                                  # overlap] in _dispatch.py)
        return out
    return values


@_stable_by_keyword("sort", True)
def _sort_method(self, dim=-1, descending=False, *, stable=_UNSET):
    return sort(self, dim=dim, descending=descending, stable=stable)


@_stable_by_keyword("argsort", True)
def _argsort_method(self, dim=-1, descending=False, *, stable=False):
    return argsort(self, dim=dim, descending=descending, stable=stable)


# ---------------------------------------------------------------------------------------------
# topk
# ---------------------------------------------------------------------------------------------
def _topk_indices(input, k, dim, largest, sorted_):
    arr = input._data
    d = canonical_dim(dim, arr.ndim)
    n = arr.shape[d] if arr.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if arr.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if arr.dtype.kind == "c":
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    if arr.ndim == 0:
        return wrap_plain(_xp.zeros((), _INT64))
    shape = list(arr.shape)
    shape[d] = k
    out = _xp.zeros(shape, _INT64)
    if k == 0 or not arr.size:
        return wrap_plain(out)
    order = _stable_order(arr, d, descending=largest)
    partial = k * 64 <= n            # torch's choice between partial_sort and nth_element

    def run(keys):
        order = list(range(n))
        if partial:
            _stl.std_partial_sort(order, k, keys)
        else:
            _stl.std_nth_element(order, k - 1, keys)
            if sorted_:
                _stl.std_sort(order, keys, 0, k - 1)
        return order[:k]

    # where no two of the first k + 1 ranks tie, every algorithm agrees; an unsorted result
    # of nth_element keeps its arrangement
    tied = _lane_ties(arr, order, d, k + 1)
    if not sorted_ and not partial and k > 2:
        tied = _xp.ones_like(tied)
    out[...] = _replay(arr, d, _xp.take(order, _xp.arange(k), axis=d), tied, run,
                       negate=largest)
    return wrap_plain(out)


@_values_op("topk", "TopkBackward0", lambda ctx: True)
def _topk(xp, self, indices, k, dim=-1, largest=True, sorted=True):
    return gather_along(xp, self, indices, dim)


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim``, with indices.
    NaN counts as larger than any number."""
    _require_tensor("topk", input)
    indices = _topk_indices(input, k, dim, largest, sorted)
    values = _topk(input, indices, k, dim, largest, sorted)
    if out is not None:
        check_no_grad_out("topk", input)

        def check(values_out, indices_out):
            structured_out_check(input.dtype, values_out)
            structured_out_check(D.int64, indices_out)
        return write_outs("topk", out, values, indices, check)
    return return_types.topk((values, indices))


# ---------------------------------------------------------------------------------------------
# kthvalue / median / nanmedian / mode: reductions that select one element per lane
# ---------------------------------------------------------------------------------------------
def _reduction_dim(arr, dim, name):
    d = canonical_dim(dim, arr.ndim)
    if arr.ndim and arr.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return d


def _pick(order, d, position):
    """``order[..., position, ...]`` along ``d`` (position: an int or an array per lane)."""
    if isinstance(position, int):
        return _xp.take(order, position, axis=d)
    return _xp.take_along_axis(order, _xp.expand_dims(position, d), axis=d).squeeze(d)


def _finish(picked, arr, d, keepdim):
    """Lay the per-lane indices out as torch's reductions do (contiguous, dim kept or not)."""
    shape = _reduced_shape(arr.shape, d, keepdim)
    return wrap_plain(contiguous(picked.reshape(shape)))


def _kthvalue_indices(input, k, dim, keepdim):
    arr = input._data
    if arr.dtype.kind in "bc":
        raise _not_implemented("kthvalue_cpu", arr.dtype)
    d = _reduction_dim(arr, dim, "kthvalue")
    n = arr.shape[d] if arr.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if arr.ndim == 0:
        return wrap_plain(_xp.zeros((), _INT64))
    if not arr.size:
        return _finish(_xp.zeros(_reduced_shape(arr.shape, d, False), _INT64), arr, d, keepdim)
    order = _stable_order(arr, d)

    def run(keys):
        order = list(range(n))
        _stl.quick_select(order, k - 1, keys)
        return [order[k - 1]]

    kth = _xp.take(order, [k - 1], axis=d)
    kth_value = _xp.take_along_axis(arr, kth, axis=d)
    tied = _same(arr, kth_value).sum(axis=d) > 1        # the k-th value occurs more than once
    picked = _replay(arr, d, kth, tied, run)
    return _finish(picked.squeeze(d), arr, d, keepdim)


@_values_op("kthvalue", "KthvalueBackward0", lambda ctx: ctx.keepdim)
def _kthvalue(xp, self, indices, k, dim=-1, keepdim=False):
    return gather_along(xp, self, indices, dim, keepdim)


def _median_indices(input, dim, keepdim, ignore_nan):
    arr = input._data
    if arr.dtype.kind in "bc":
        raise _not_implemented("median_out", arr.dtype)
    d = _reduction_dim(arr, dim, "median")
    if arr.ndim == 0:
        return wrap_plain(_xp.zeros((), _INT64))
    if not arr.size:
        return _finish(_xp.zeros(_reduced_shape(arr.shape, d, False), _INT64), arr, d, keepdim)
    n = arr.shape[d]
    order = _stable_order(arr, d)          # nth_element over (value, index): the stable rank
    if arr.dtype.kind not in "fV":
        return _finish(_pick(order, d, (n - 1) // 2), arr, d, keepdim)
    nan = _xp.isnan(arr)
    count = n - nan.sum(axis=d)
    if not ignore_nan:
        picked = _xp.where(nan.any(axis=d), nan.argmax(axis=d), _pick(order, d, (n - 1) // 2))
        return _finish(picked, arr, d, keepdim)
    picked = _pick(order, d, _xp.maximum(count - 1, 0) // 2)
    # an all-NaN lane: nth_element(first) over equivalent elements, replayed
    all_nan = [i for i in range(n)]
    _stl.std_nth_element(all_nan, 0, [0] * n)
    picked = _xp.where(count == 0, all_nan[0], picked)
    return _finish(picked, arr, d, keepdim)


@_values_op("median.dim", "MedianBackward1", lambda ctx: ctx.keepdim)
def _median_dim(xp, self, indices, dim, keepdim=False):
    return gather_along(xp, self, indices, dim, keepdim)


@_values_op("nanmedian.dim", "NanmedianBackward1", lambda ctx: ctx.keepdim)
def _nanmedian_dim(xp, self, indices, dim, keepdim=False):
    return gather_along(xp, self, indices, dim, keepdim)


def _median_all_kernel(xp, self, ignore_nan):
    if self.dtype.kind in "bc":
        raise _not_implemented("median_cpu", self.dtype)
    flat = self.reshape(-1)
    if self.dtype.kind in "fV":
        nan = xp.isnan(flat)
        if nan.any() and not ignore_nan:
            return xp.array(float("nan"), self.dtype)
        flat = flat[~nan]
    if not flat.size:       # torch gives NaN converted to the dtype (0 or INT_MIN for integers)
        return xp.array(float("nan")).astype(self.dtype)
    return xp.array(xp.partition(flat, (flat.size - 1) // 2)[(flat.size - 1) // 2])


def _evenly_distribute_backward(ctx, grad):
    """torch's evenly_distribute_backward: grad shared by the elements equal to the result."""
    self, result = ctx.saved_tensors
    mask = self.isnan() if bool(result.isnan()) else self == result
    return FUNCTIONS["where"](mask, grad / mask.sum(), 0.0)


@defop("median", node="MedianBackward0", promote=Promote.NONE, variants=(), scalars=(),
       saves=("self", "result"))
def _median_all(xp, self):
    return _median_all_kernel(xp, self, False)


@defop("nanmedian", node="NanmedianBackward0", promote=Promote.NONE, variants=(), scalars=(),
       saves=("self", "result"))
def _nanmedian_all(xp, self):
    return _median_all_kernel(xp, self, True)


def _evenly_read_jvp(ctx, self_t):
    """torch's evenly_read_jvp: the mean tangent of the elements equal to the result (NaN for
    a NaN result, 0 for an empty input)."""
    self, result = ctx.saved_tensors
    if not self.numel():
        return self_t.sum()
    mask = self == result
    return (self_t * mask).sum() / mask.sum()


_median_all.backward(_evenly_distribute_backward)
_median_all.jvp(_evenly_read_jvp)
_nanmedian_all.backward(_evenly_distribute_backward)
_nanmedian_all.jvp(_evenly_read_jvp)


def _median_out_check(dtype):
    def check(values_out, indices_out):   # torch checks the indices first here
        if indices_out.dtype is not D.int64:
            raise RuntimeError("Expected tensor for argument #1 'indices' to have scalar type "
                               f"Long; but got torch.{indices_out.dtype._legacy}Tensor instead "
                               "(while checking arguments for median)")
        if values_out.dtype is not dtype:
            raise RuntimeError("Expected tensor for 'values' to have the same type as tensor "
                               f"for argument #2 'self'; but type torch."
                               f"{values_out.dtype._legacy}Tensor does not equal torch."
                               f"{dtype._legacy}Tensor (while checking arguments for median)")
    return check


def _median_public(name, all_spec, dim_spec, ignore_nan):
    def fn(input, dim=_UNSET, keepdim=_UNSET, *, out=None):
        _require_tensor(name, input)
        if dim is _UNSET:
            if out is not None or keepdim is not _UNSET:   # (the overload that takes them)
                raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
            return all_spec(input)
        dim = plain_int(dim)
        if not isinstance(dim, int):
            raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
        if keepdim is _UNSET:
            keepdim = False
        indices = _median_indices(input, dim, keepdim, ignore_nan)
        values = dim_spec(input, indices, dim, keepdim)
        if out is not None:
            check_no_grad_out(name, input)
            return write_outs(name, out, values, indices, _median_out_check(input.dtype))
        return getattr(return_types, name)((values, indices))

    fn.__name__ = name
    fn.__doc__ = (f"The lower median of ``input`` (over all elements, or along ``dim`` with its "
                  f"index){', ignoring NaN' if ignore_nan else '; NaN if there is a NaN'}.")
    return fn


median = _median_public("median", _median_all, _median_dim, False)
nanmedian = _median_public("nanmedian", _nanmedian_all, _nanmedian_dim, True)


def _mode_lane(lane):
    """(index of the mode) as torch's CPU kernel finds it: std::sort of (value, index) pairs by
    value, then the first longest run of equal values; its last element is reported."""
    n = lane.size
    values = lane.tolist()
    has_nan = lane.dtype.kind in "fV" and bool(_xp.isnan(lane).any())
    if n > 16 and not has_nan and _xp.unique(lane).size == n:
        return int(_xp.argmin(lane))              # all distinct: the smallest value wins
    order = list(range(n))
    _stl.std_sort(order, values)          # (raw values: NaN compares false, as in torch)
    best, best_index, run = 0, 0, 0
    for i in range(n):
        run += 1
        if i == n - 1 or values[order[i]] != values[order[i + 1]]:
            if run > best:
                best, best_index = run, order[i]
            run = 0
    return best_index


def _mode_indices(input, dim, keepdim):
    arr = input._data
    if arr.dtype.kind == "c":
        raise _not_implemented("mode_cpu", arr.dtype)
    d = _reduction_dim(arr, dim, "mode")
    if arr.ndim == 0:
        return wrap_plain(_xp.zeros((), _INT64))
    lanes = _xp.moveaxis(arr, d, -1).reshape(-1, arr.shape[d])
    picked = _xp.array([_mode_lane(lane) for lane in lanes], _INT64)
    return _finish(picked.reshape(_reduced_shape(arr.shape, d, False)), arr, d, keepdim)


@_values_op("mode", "ModeBackward0", lambda ctx: ctx.keepdim)
def _mode(xp, self, indices, dim=-1, keepdim=False):
    return gather_along(xp, self, indices, dim, keepdim)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element along ``dim`` and its index (NaN counts as largest)."""
    _require_tensor("kthvalue", input)
    indices = _kthvalue_indices(input, k, dim, keepdim)
    values = _kthvalue(input, indices, k, dim, keepdim)
    if out is not None:
        check_no_grad_out("kthvalue", input)
        if isinstance(out, (tuple, list)):   # (Note [out= and memory overlap] in _dispatch.py)
            for o in out:
                _dispatch.check_out_overlap(o, (input,), "full")

        def check(values_out, indices_out):
            if values_out.dtype is not input.dtype:
                raise RuntimeError("output values must be of same type as input")
            if indices_out.dtype is not D.int64:
                raise RuntimeError("output indices must be of scalar type Long")
        return write_outs("kthvalue", out, values, indices, check)
    return return_types.kthvalue((values, indices))


_MODE_OUT_CHECK = scalar_type_check((
    "expected scalar type '{want._legacy}' but got '{got._legacy}' for values output",
    "expected scalar type '{want._legacy}' but got '{got._legacy}' for indices output"))


def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and an
    index where it occurs."""
    _require_tensor("mode", input)
    indices = _mode_indices(input, dim, keepdim)
    values = _mode(input, indices, dim, keepdim)
    if out is not None:
        check_no_grad_out("mode", input)
        return write_outs("mode", out, values, indices, _MODE_OUT_CHECK(input.dtype))
    return return_types.mode((values, indices))


def _method(fn):
    def method(self, *args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"{fn.__name__}() got an unexpected keyword argument 'out'")
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


for _fn in (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode):
    FUNCTIONS[_fn.__name__] = _fn
    METHODS[_fn.__name__] = _method(_fn)
METHODS["sort"], METHODS["argsort"] = _sort_method, _argsort_method
