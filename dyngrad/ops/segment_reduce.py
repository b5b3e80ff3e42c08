"""``torch.segment_reduce``: reductions over consecutive segments of one axis.

Segments are given by ``lengths`` (B..., K) or ``offsets`` (B..., K + 1) whose last dim runs
along ``axis`` of ``data`` (``axis == lengths.dim() - 1``, so 1-d lengths reduce axis 0). The
output has K along that axis. As ATen's CPU kernel: an empty segment gives ``initial`` when
given, else 0 (sum), 1 (prod), -inf (max), +inf (min) or NaN (mean); a given ``initial`` also
enters every non-empty segment (a mean divides by the segment length alone); max and min
propagate NaN.

The node is ``SegmentReduceBackward0``; its formula is ATen's ``_segment_reduce_backward``
(a primitive whose own derivative torch does not implement: a ``NotImplemented`` node):
sum and mean spread the gradient (over the length for mean); max and min give it to the
elements equal to the result and to NaN elements, and where several take it, the positive
gradients are shared among them (ATen divides only values > 0); prod gives
``grad * result / x``, or ``grad`` times the product of the others when x is 0 or NaN.
"""
from __future__ import annotations

import itertools

from .. import _dtypes as D
from .._promotion import Promote
from ._registry import FUNCTIONS, defop
from ..autograd.forward_ad import fw_not_implemented
from .view_backward import backward_only

_REDUCE = {"sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "amax": "max",
           "min": "min", "amin": "min"}


def _reduction(reduce):
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    return _REDUCE[reduce]


def _offsets_of(xp, lengths, offsets):
    """Offsets (B..., K + 1) from whichever of lengths / offsets is given."""
    if lengths is not None:
        zero = xp.zeros(lengths.shape[:-1] + (1,), xp.int64)
        return xp.concatenate([zero, xp.cumsum(lengths.astype(xp.int64), -1)], -1)
    return offsets.astype(xp.int64)


def _segments(offsets):
    """(batch index, segment number, start, end) for every segment; the batch dims of
    ``offsets`` are the leading dims of data, so data's segment is ``data[b + (start:end,)]``."""
    batch = offsets.shape[:-1]
    for b in itertools.product(*(range(n) for n in batch)):
        row = offsets[b]
        for k in range(row.shape[0] - 1):
            start, end = int(row[k]), int(row[k + 1])
            yield b, k, start, end


def _check(data, reduce, lengths, offsets, axis, unsafe):
    kind = _reduction(reduce)
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    given = lengths if lengths is not None else offsets
    if data.ndim < given.ndim:
        raise RuntimeError("Expected data.dim() >= lengths_value.dim() to be true, but got "
                           "false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    if axis != given.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                           f"lengths but got {axis}.")
    if lengths is not None and not unsafe:
        if (lengths < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if not (lengths.sum(-1) == data.shape[axis]).all():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to "
                               "sum to data.size(lengths.dim()-1) when !unsafe.")
    if given.dtype.kind not in "iu":
        name = "lengths" if lengths is not None else "offsets"
        raise NotImplementedError(f"\"_segment_reduce_{name}_cpu_kernel1\" not implemented for "
                                  f"'{D.from_np(given.dtype)._legacy}'")
    if data.dtype.kind not in "fV":
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{D.from_np(data.dtype)._legacy}'")
    return kind


def _reduce_one(xp, vals, kind, initial, axis, dtype):
    """One segment's result (``vals`` has the segment along ``axis``)."""
    n = vals.shape[axis]
    if kind == "sum" or kind == "mean":
        out = vals.sum(axis, dtype=dtype)
        if initial is not None:
            out = out + dtype.type(initial)
        if kind == "mean":
            if n > 0:
                out = out / dtype.type(n)
            else:
                out = xp.full(out.shape, initial if initial is not None else xp.nan, dtype)
        return out
    if kind == "prod":
        out = vals.prod(axis, dtype=dtype)
        return out * dtype.type(initial) if initial is not None else out
    ufunc = xp.maximum if kind == "max" else xp.minimum
    start = initial if initial is not None else (-xp.inf if kind == "max" else xp.inf)
    out = xp.full(vals.shape[:axis] + vals.shape[axis + 1:], start, dtype)
    if n:
        out = ufunc(ufunc.reduce(vals, axis), out)   # NaN propagates
    return out


@defop("segment_reduce", node="SegmentReduceBackward0", promote=Promote.NONE, variants=(),
       inputs=("data", "lengths", "indices", "offsets"), differentiable=("data",),
       saves=("data", "lengths", "offsets", "result"), kernel_dtypes=True)
def _segment_reduce(xp, data, lengths=None, indices=None, offsets=None, reduce="sum", axis=0,
                    unsafe=False, initial=None):
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    axis = axis + data.ndim if axis < 0 else axis   # the node keeps the axis as given
    kind = _check(data, reduce, lengths, offsets, axis, unsafe)
    offs = _offsets_of(xp, lengths, offsets)
    k = offs.shape[-1] - 1
    out = xp.empty(data.shape[:axis] + (k,) + data.shape[axis + 1:], data.dtype)
    for b, j, start, end in _segments(offs):
        vals = data[b + (slice(start, end),)]
        out[b + (j,)] = _reduce_one(xp, vals, kind, initial, 0, data.dtype)
    return out


@_segment_reduce.backward
def _(ctx, grad):
    data, lengths, offsets, result = ctx.saved_tensors
    return (_segment_reduce_backward(grad, result, data, lengths, offsets, ctx.reduce,
                                     ctx.axis, ctx.initial),)


@defop("_segment_reduce_backward", node="NotImplemented", promote=Promote.NONE, variants=(),
       inputs=("grad", "output", "data", "lengths", "offsets"),
       differentiable=("grad", "output", "data"), kernel_dtypes=True)
def _segment_reduce_backward(xp, grad, output, data, lengths=None, offsets=None, reduce="sum",
                             axis=0, initial=None):
    kind = _REDUCE[reduce]
    axis = axis + data.ndim if axis < 0 else axis
    offs = _offsets_of(xp, lengths, offsets)
    dt = data.dtype
    gin = xp.zeros(data.shape, dt)
    for b, j, start, end in _segments(offs):
        n = end - start
        if n <= 0:
            continue
        here = b + (slice(start, end),)
        vals, g, res = data[here], grad[b + (j,)], output[b + (j,)]
        if kind == "sum":
            gin[here] = xp.broadcast_to(g, vals.shape)
        elif kind == "mean":
            gin[here] = xp.broadcast_to(g / dt.type(n), vals.shape)
        elif kind in ("max", "min"):
            hit = xp.isnan(vals) | (vals == res)
            part = xp.where(hit, g, dt.type(0))
            count = hit.sum(0)
            shared = xp.where((count >= 2) & (part > 0), part / xp.maximum(count, 1).astype(dt),
                              part)
            gin[here] = shared.astype(dt, copy=False)
        else:   # prod
            gin[here] = _prod_grad(xp, vals, g, res, initial)
    return gin


def _prod_grad(xp, vals, g, res, initial):
    """ATen's prod rule for one segment: g * res / x, or g * (the others' product) where x is
    0 or NaN (times ``initial`` when given)."""
    dt = vals.dtype
    with xp.errstate(divide="ignore", invalid="ignore"):
        out = (g * res) / vals
    special = (vals == 0) | xp.isnan(vals)
    if special.any():
        n = vals.shape[0]
        for i in range(n):
            if not special[i].any():
                continue
            others = xp.concatenate([vals[:i], vals[i + 1:]], 0).prod(0, dtype=dt)
            if initial is not None:
                others = dt.type(initial) * others
            out[i] = xp.where(special[i], g * others, out[i])
    return out.astype(dt, copy=False)


backward_only(_segment_reduce_backward)


@_segment_reduce_backward.backward
def _(ctx, *grads):
    raise RuntimeError("derivative for aten::_segment_reduce_backward is not implemented")


_segment_reduce_backward.jvp(fw_not_implemented("aten::_segment_reduce_backward", short=True))


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduce ``data`` over consecutive segments of ``axis`` ('sum', 'mean', 'prod', 'max',
    'min', 'amax', 'amin'), given by ``lengths`` or ``offsets``."""
    if lengths is not None:
        offsets = None   # ATen uses lengths when both are given
    return _segment_reduce(data, lengths, indices, offsets, reduce, axis, bool(unsafe), initial)


FUNCTIONS["segment_reduce"] = segment_reduce
