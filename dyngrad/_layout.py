"""The memory layout of pointwise results, computed as torch's TensorIterator does.

Note [Output layout of pointwise ops]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch gives the output of a pointwise op the dimension order of its inputs: a channels_last
input gives a channels_last output, ``a.t() + b`` is transposed like ``a.t()``. TensorIterator
decides by sorting the dimensions from fastest to slowest with an insertion sort whose
comparison asks each operand in turn (first input first) and takes the first strict
preference; a broadcast dimension (stride 0) has no say, and equal strides put the smaller size
first. NumPy's ``order='K'`` is close but not the same (it lets *any* operand veto a swap), so
the dispatcher asks this module whenever an input is not C-contiguous.
"""
from __future__ import annotations

from ._utils import contiguous_strides


def _broadcast_strides(shape, arr):
    """Strides of `arr` (in bytes) viewed in the broadcast `shape`: 0 on broadcast dims."""
    nd = len(shape)
    off = nd - arr.ndim
    out = [0] * nd
    for i, (n, s) in enumerate(zip(arr.shape, arr.strides)):
        out[off + i] = 0 if (n == 1 and shape[off + i] != 1) else s
    return out


def _fast_layout(shape, arrays):
    """torch's fast setup: operands of the full shape that all agree on a layout keep it.

    In order: all contiguous -> contiguous; all channels_last -> channels_last; all with the
    same dense strides -> those strides. (torch ignores size-1 dims when it tests layouts.)
    """
    shape = tuple(shape)
    strides = []
    for a in arrays:
        if a.shape != shape:
            return None
        strides.append(tuple(s // a.itemsize for s in a.strides))
    contiguous = contiguous_strides(shape)
    if all(_matches(shape, st, contiguous) for st in strides):
        return contiguous
    if len(shape) == 4:
        cl = channels_last_strides(shape)
        if all(_matches(shape, st, cl) for st in strides):
            return cl
    if all(st == strides[0] for st in strides) and _dense(shape, strides[0]):
        return strides[0]
    return None


def _matches(shape, strides, expected) -> bool:
    return all(n == 1 or s == e for n, s, e in zip(shape, strides, expected))


# The answer depends only on the shapes, strides and item sizes, and a program asks about the
# same few layouts again and again (a transposed weight's gradient, a broadcast bias): each is
# worked out once (~6 us for two operands) and then looked up (~1 us).
_KNOWN: dict = {}


def elementwise_strides(shape, arrays) -> tuple:
    """Output strides (in elements) torch chooses for a pointwise op over `arrays`."""
    key = (tuple(shape), tuple([(a.shape, a.strides, a.itemsize) for a in arrays]))
    strides = _KNOWN.get(key)
    if strides is None:
        if len(_KNOWN) >= 4096:   # (a bound, for programs with endlessly new shapes)
            _KNOWN.clear()
        strides = _KNOWN[key] = _elementwise_strides(shape, arrays)
    return strides


def _elementwise_strides(shape, arrays) -> tuple:
    nd = len(shape)
    if nd <= 1:
        return (1,) * nd
    fast = _fast_layout(shape, arrays)
    if fast is not None:
        return fast
    perm = dims_fastest_first(shape, [_broadcast_strides(shape, a) for a in arrays])
    out = [0] * nd
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= max(shape[d], 1)
    return tuple(out)


def dims_fastest_first(shape, operand_strides) -> list:
    """TensorIterator's dimension order, fastest-moving dim first (its reorder_dimensions).

    An insertion sort whose comparison asks each operand's strides in turn and takes the
    first strict preference; a stride of 0 (a broadcast dim) has no say, and equal strides
    put the smaller size first. With one operand this is also ATen's infer_dense_strides.
    """
    nd = len(shape)

    def should_swap(d0, d1):
        for st in operand_strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def channels_last_strides(shape) -> tuple:
    """NHWC strides for an NCHW shape, as torch computes them (size-0/1 dims count as 1)."""
    n, c, h, w = (max(x, 1) for x in shape)
    return (h * w * c, 1, w * c, c)


def _dense(shape, strides) -> bool:
    """Non-overlapping and dense: the strides tile exactly numel elements."""
    expected = 1
    for s, n in sorted(zip(strides, shape)):
        if n == 1:
            continue
        if s != expected:
            return False
        expected *= n
    return True
