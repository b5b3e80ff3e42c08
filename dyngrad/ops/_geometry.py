"""Tensor geometry as ATen computes it: view strides, expand, dense layouts, memory formats.

Pure functions on ``(shape, stride)`` tuples in elements, shared by the view ops (shape.py) and
indexing (indexing.py). Each one ports the ATen function it names, so that every stride dyngrad
reports is the one torch reports, size-0 and size-1 dims included.
"""
from __future__ import annotations

from .._layout import dims_fastest_first
from .._utils import contiguous_strides, shape_str


def _memory_formats():
    from .. import _tensor
    return (_tensor.contiguous_format, _tensor.channels_last, _tensor.channels_last_3d,
            _tensor.preserve_format)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def infer_size(shape, numel: int) -> tuple:
    """Resolve one ``-1`` in `shape` for `numel` elements, with torch's errors (InferSize.h)."""
    infer = None
    newsize = 1
    for i, n in enumerate(shape):
        if n == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif n >= 0:
            newsize *= n
        else:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape "
                               f"{shape_str(shape)}")
    if numel == newsize or (infer is not None and newsize > 0 and numel % newsize == 0):
        if infer is None:
            return tuple(shape)
        if newsize == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                               f"{shape_str(shape)} because the unspecified dimension size -1 "
                               "can be any value and is ambiguous")
        out = list(shape)
        out[infer] = numel // newsize
        return tuple(out)
    raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")


# Note [View stride rule]
# ~~~~~~~~~~~~~~~~~~~~~~~
# A view to a new shape exists iff the new shape only splits or merges dims *within* "chunks" of
# the old tensor, a chunk being a run of dims that are contiguous with each other
# (stride[i] == stride[i+1] * size[i+1]; size-1 dims never break a chunk). Walking both shapes
# from the last dim, each chunk of the old shape must be covered exactly by a run of new dims,
# and those new dims get the strides of a contiguous layout based at the chunk's innermost
# stride. This is ATen's computeStride (TensorUtils.cpp), line for line.
def compute_stride(oldshape, oldstride, newshape):
    """Strides that view `oldshape`/`oldstride` as `newshape`, or None if no view exists."""
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    numel = _numel(oldshape)
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        # any strides would do; torch uses the ones resize() would give
        newstride = [0] * len(newshape)
        for d in range(len(newshape) - 1, -1, -1):
            newstride[d] = 1 if d == len(newshape) - 1 else \
                max(newshape[d + 1], 1) * newstride[d + 1]
        return tuple(newstride)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        # end of a chunk: the next (outer) dim is not contiguous with this one
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def expand_geometry(shape, stride, size, type_name: str):
    """(sizes, strides) of ``expand(size)`` (ATen's inferExpandGeometry), torch's errors.

    Dims where the input has size 1 and the target is larger get stride 0; new leading dims
    get stride 0 when expanded, else the stride a contiguous dim would have there.
    """
    nd, td = len(size), len(shape)
    if nd < td:
        raise RuntimeError(f"expand({type_name}{{{shape_str(shape)}}}, size={shape_str(size)}): "
                           f"the number of sizes provided ({nd}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({td})")
    if td == 0:
        out_shape = tuple(size)
        out_stride = (0,) * nd
    else:
        out_shape = [0] * nd
        out_stride = [0] * nd
        for i in range(nd - 1, -1, -1):
            dim = td - nd + i
            n = shape[dim] if dim >= 0 else 1
            s = stride[dim] if dim >= 0 else out_shape[i + 1] * out_stride[i + 1]
            target = size[i]
            if target == -1:
                if dim < 0:
                    raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                       f"leading, non-existing dimension {i}")
                target = n
            if n != target:
                if n != 1:
                    raise RuntimeError(
                        f"The expanded size of the tensor ({target}) must match the existing "
                        f"size ({n}) at non-singleton dimension {i}.  Target sizes: "
                        f"{shape_str(size)}.  Tensor sizes: {shape_str(shape)}")
                n = target
                s = 0
            out_shape[i] = n
            out_stride[i] = s
    if any(n < 0 for n in out_shape):
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(out_shape), tuple(out_stride)


def is_non_overlapping_and_dense(shape, stride) -> bool:
    """torch's is_non_overlapping_and_dense: the strides tile exactly numel elements."""
    nd = len(shape)
    if nd == 1:
        return shape[0] < 2 or stride[0] == 1
    perm = sorted(range(nd), key=lambda d: (shape[d] < 2, stride[d] if shape[d] >= 2 else 0))
    require = 1
    for d in perm:
        n = shape[d]
        if n < 2:
            return True
        if stride[d] != require:
            return False
        require *= n
    return True


def infer_dense_strides(shape, stride) -> tuple:
    """Dense strides keeping the input's dimension order (ATen's infer_dense_strides).

    The same insertion sort as TensorIterator: dims with stride 0 never move.
    """
    nd = len(shape)
    if nd == 0:
        return ()
    if nd == 1:
        return (1,)

    perm = dims_fastest_first(shape, [stride])
    out = [0] * nd
    acc = 1
    for d in perm:
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    return tuple(out)


def memory_format_strides(shape, memory_format) -> tuple:
    """Strides of a fresh tensor in `memory_format` (raw sizes, as torch's restride)."""
    contiguous, cl, cl3d, _ = _memory_formats()
    if memory_format is cl or memory_format is cl3d:
        rank = 4 if memory_format is cl else 5
        if len(shape) != rank:
            name = "channels_last" if rank == 4 else "channels_last_3d"
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        # C fastest, then the spatial dims from last to first, then N
        order = [1] + list(range(rank - 1, 1, -1)) + [0]
        out = [0] * rank
        acc = 1
        for d in order:
            out[d] = acc
            acc *= shape[d]
        return tuple(out)
    return contiguous_strides(shape)


def storage_extent(shape, stride) -> int:
    """Elements a geometry spans from its offset (0 when it has no elements)."""
    size = 1
    for n, s in zip(shape, stride):
        if n == 0:
            return 0
        size += s * (n - 1)
    return size


def _is_contig(shape, stride, order) -> bool:
    expected = 1
    for d in order:
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def iterator_strides(shape, operands) -> tuple:
    """Output strides TensorIterator gives for input `operands` [(shape, stride)] of ndim nd.

    Its fast setup (all operands of the full shape and one agreed layout) first, else its
    dimension sort: see Note [Output layout of pointwise ops] in _layout.py.
    """
    nd = len(shape)
    shape = tuple(shape)
    if all(tuple(s) == shape for s, _ in operands):
        if all(_is_contig(shape, st, range(nd - 1, -1, -1)) for _, st in operands):
            return contiguous_strides(shape)
        if nd == 4 and all(_is_contig(shape, st, (1, 3, 2, 0)) for _, st in operands):
            return memory_format_strides(shape, _memory_formats()[1])
        first = tuple(operands[-1][1])
        if all(is_non_overlapping_and_dense(shape, st) and tuple(st) == first
               for _, st in operands):
            return first
    if nd <= 1:
        return contiguous_strides(shape)
    strides = [[0 if (s[i] == 1 and shape[i] != 1) else st[i] for i in range(nd)]
               for s, st in operands]

    perm = dims_fastest_first(shape, strides)
    if perm == list(range(nd - 1, -1, -1)):
        return contiguous_strides(shape)
    out = [0] * nd
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def maybe_overlapping(shape, stride) -> bool:
    """Whether a geometry may address one element twice (ATen's _maybe_overlapping_memory).

    Size-1 dims are ignored. Walking the others by increasing stride, each stride must step
    past the furthest element the inner dims reach; a False answer is exact.
    """
    reach = 0
    for s, n in sorted((s, n) for n, s in zip(shape, stride) if n != 1):
        if s <= reach:
            return True
        reach += s * (n - 1)
    return False


def min_storage_size(shape, stride, offset) -> int:
    """Elements a storage needs to hold this geometry (ATen's _min_storage_size)."""
    size = offset + 1
    for n, s in zip(shape, stride):
        if n == 0:
            return offset
        size += (n - 1) * s
    return size
