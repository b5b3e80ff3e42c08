"""Indexing: ``x[index]``, ``x[index] = value``, and index_select / masked_select / take.

Note [How torch reads an index]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
(torch/csrc/autograd/python_variable_indexing.cpp, ATen/TensorIndexing.h)

1. A lone int, slice, None, Ellipsis or bool is handled directly. Anything else becomes a tuple:
   a tuple as is; a short non-tuple sequence (a list) *as a tuple* if it contains a tensor, a
   sequence, a slice, None or Ellipsis (NumPy's old heuristic, deprecated with a warning);
   otherwise a 1-tuple.
2. The entries are applied left to right on the tensor as view ops (torch's ``applySlicing``):
   an int or a 0-dim integer tensor is ``select`` (its dim disappears), a slice is ``slice``
   (skipped when it spans the whole dim, except for a lone slice), None is ``unsqueeze``,
   Ellipsis skips the dims no other entry names. A bool (Python or 0-dim tensor) unsqueezes and
   records the index tensor ``[0]`` (True) or ``[]`` (False).
3. Tensors, lists and arrays are *recorded* at the current dim as index tensors; a bool mask
   spans as many dims as it has.
4. No index tensors: the result is the view (``alias(x)`` if no entry did anything). Otherwise
   ``index(view, indices)`` copies: masks become their ``nonzero()`` columns, the index tensors
   broadcast together and their shape replaces the indexed dims -- in place if those dims are
   adjacent, else at the front. That is NumPy's rule once ints are selects, so NumPy computes
   the values; the output *layout* is TensorIterator's (see ``_index_strides``).

``x[index] = v`` slices the same way, then either copies ``v`` into the view (``copy_to``:
broadcasting, any dtype cast) or runs ``index_put_`` (``v`` must have ``x``'s dtype; one bool
mask with a one-element value is a ``masked_fill_``). Python numbers are converted to ``x``'s
dtype first, with torch's overflow checks. The version counter is bumped once.
"""
from __future__ import annotations

import math
import numbers
import operator
import warnings

from ._arg_parser import type_name as _tp_name
from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_shapes, canonical_dim, contiguous_strides, shape_str
from ..autograd import grad_mode as _gm
from ..backends import numpy_backend as _npb
from . import _dispatch
from . import _geometry as G
from . import shape as S
from ._registry import FUNCTIONS, METHODS, defop
from ._selection import warn_at_caller
from .creation import _COMPLEX_WARNING, _warn_once
from ..autograd.forward_ad import AUTO_LINEAR
from ..autograd.forward_ad import _state as _fw_state
from .view_backward import backward_only

_xp = _npb.xp
_INT64 = _xp.dtype("int64")
_PY_SSIZE_MAX = 2 ** 63 - 1


def _tensor_cls():
    return S._tensor_cls()


def _tp_name(obj) -> str:
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


# ---------------------------------------------------------------------------------------------
# Python numbers as values: torch's checked conversion (c10::checked_convert)
# ---------------------------------------------------------------------------------------------
_CTYPE = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
          "int64": "int64_t", "float16": "double", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
          "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
          "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}


def checked_scalar(value, dtype: D.dtype):
    """``value`` (a Python number) converted to ``dtype`` as torch fills a tensor with it."""
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    np_dtype = dtype.np
    kind = np_dtype.kind
    if kind == "b":
        return bool(value)
    err = RuntimeError(f"value cannot be converted to type {_CTYPE.get(dtype.name, dtype.name)} "
                       "without overflow")
    if isinstance(value, complex) and kind != "c":
        if value.imag != 0:
            raise err
        value = value.real
    if kind in "iu":
        info = _xp.iinfo(np_dtype)
        if isinstance(value, float):
            if math.isnan(value) or not info.min <= value <= info.max:
                raise err
            return int(value)
        value = int(value)
        if kind == "u" and value < 0:   # negative ints wrap around (two's complement)
            if -value > info.max:
                raise err
            return value + info.max + 1
        if not info.min <= value <= info.max:
            raise err
        return value
    limit = {"float32": 3.4028234663852886e38, "complex64": 3.4028234663852886e38}.get(
        dtype.name)
    if limit is not None:
        parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
        for part in parts:
            if math.isfinite(part) and abs(part) > limit:
                raise err
    return value


def _value_tensor(self, value):
    """The right-hand side of ``x[i] = value`` as a Tensor (numbers take x's dtype)."""
    if isinstance(value, _tensor_cls()):
        return value
    if isinstance(value, (bool, float, complex)) or (
            isinstance(value, numbers.Integral) and not isinstance(value, _tensor_cls())):
        if isinstance(value, numbers.Integral):
            value = int(value)
        dtype = self.dtype
        arr = _xp.asarray(checked_scalar(value, dtype), dtype=dtype.np)
        from .._tensor import _wrap
        return _wrap(arr)
    raise TypeError(f"can't assign a {_tp_name(value)} to a torch.{self.dtype._legacy}Tensor")


# ---------------------------------------------------------------------------------------------
# Reading the index (Note [How torch reads an index])
# ---------------------------------------------------------------------------------------------
_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will "
                "be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 "
                "this will be interpreted as tensor index, x[torch.tensor(seq)], which will "
                "result either in an error or a different result (Triggered internally at "
                "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:349.)")


def _is_long(obj) -> bool:
    return isinstance(obj, numbers.Integral) and not isinstance(obj, bool)


def _is_sequence(obj) -> bool:
    return isinstance(obj, (list, tuple, range, str, bytes, _npb.ndarray))


def _as_tuple(index) -> tuple:
    """The index as a tuple of entries (torch's wrapTuple / treatSequenceAsTuple). A NumPy
    array is one entry, read as the tensor it holds (a mask of its dims, or int64 indices),
    never as a sequence of entries."""
    if isinstance(index, tuple):
        if any(type(obj) is _npb.ndarray for obj in index):
            return tuple(_ndarray_index(obj) if type(obj) is _npb.ndarray else obj
                         for obj in index)
        return index
    if type(index) is _npb.ndarray:
        return (_ndarray_index(index),)
    if isinstance(index, _tensor_cls()) or not _is_sequence(index):
        return (index,)
    try:
        if len(index) >= 32:
            return (index,)
    except TypeError:       # a 0-dim array
        return (index,)
    for obj in index:
        if isinstance(obj, _tensor_cls()) or _is_sequence(obj) or isinstance(obj, slice) \
                or obj is None or obj is Ellipsis:
            warnings.warn(_SEQ_WARNING, UserWarning, stacklevel=4)
            return tuple(index)
    return (index,)


def _is_mask(arr) -> bool:
    return arr.dtype.kind == "b" or arr.dtype == _xp.uint8


def _count_specified(items) -> int:
    count = 0
    for obj in items:
        if isinstance(obj, _tensor_cls()):
            arr = obj._data
            count += arr.ndim if _is_mask(arr) else 1
        elif obj is not None and obj is not Ellipsis and obj is not True and obj is not False:
            count += 1
    return count


def _torch_strides(arr):
    """`arr` itself, or re-strided as torch's contiguous layout if empty (NumPy gives 0s)."""
    if arr.size:
        return arr
    return _npb.strided(arr, arr.shape, contiguous_strides(arr.shape), 0)


def _sequence_index(obj):
    """A list/array used as an index: a bool (or uint8) mask, or int64 (torch's rule)."""
    arr = FUNCTIONS["tensor"](obj)._data
    if arr.dtype.kind != "b" and arr.dtype != _xp.uint8:
        arr = arr.astype(_INT64)
    return _torch_strides(arr)


def _ndarray_index(arr):
    """A NumPy array used as an index: the tensor torch makes of it."""
    from .._tensor import _wrap
    return _wrap(_sequence_index(arr))


def _apply_select(t, dim: int, index: int, real_dim: int):
    shape = t._data.shape
    if index == 0 and dim == 0 and not shape:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = shape[dim] if dim < len(shape) else 0
    if not (size > -1 - index and size > index):
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size "
                         f"{size}")
    return S._select(t, dim, index)


def _slice_bound(v, default):
    if v is None:
        return default
    v = operator.index(v)
    return max(min(v, _PY_SSIZE_MAX), -_PY_SSIZE_MAX - 1)


def _apply_slice(t, dim: int, slc: slice, disable_optimization: bool):
    try:
        step = 1 if slc.step is None else operator.index(slc.step)
        start = _slice_bound(slc.start, 0)
        stop = _slice_bound(slc.stop, _PY_SSIZE_MAX)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ "
                        "method") from None
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    shape = t._data.shape
    # a slice over the whole dim is no op at all inside a tuple (torch's applySlice)
    if shape and not disable_optimization and start == 0 and step == 1 and stop >= shape[dim]:
        return t
    return S._slice(t, dim, start, stop, step)


def _bool_index(value: bool):
    return _xp.zeros(1, _INT64) if value else _torch_strides(_xp.zeros(0, _INT64))


def apply_slicing(self, items, disable_optimization=False):
    """Apply the basic entries as views; return (view, {dim: index array})."""
    nd = self._data.ndim
    specified = _count_specified(items)
    if specified > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    Tensor = _tensor_cls()
    result = self
    dim = 0
    indices = {}
    for i, obj in enumerate(items):
        if obj is None:
            result = S._unsqueeze(result, dim)
            dim += 1
        elif obj is Ellipsis:
            dim += nd - specified
        elif obj is True or obj is False:
            result = S._unsqueeze(result, dim)
            indices[dim] = _bool_index(obj)
            dim += 1
        elif isinstance(obj, slice):
            result = _apply_slice(result, dim, obj, disable_optimization)
            dim += 1
        elif isinstance(obj, Tensor):
            arr = obj._data
            if arr.ndim == 0 and arr.dtype.kind in "iub":
                if _is_mask(arr):
                    result = S._unsqueeze(result, dim)
                    indices[dim] = _bool_index(bool(arr))
                    dim += 1
                else:
                    result = _apply_select(result, dim, int(arr), i)
            else:
                indices[dim] = arr
                dim += arr.ndim if _is_mask(arr) else 1
        elif _is_long(obj):
            result = _apply_select(result, dim, operator.index(obj), i)
        elif _is_sequence(obj):
            arr = _sequence_index(obj)
            indices[dim] = arr
            dim += arr.ndim if _is_mask(arr) else 1
        else:
            try:
                value = operator.index(obj)
            except TypeError:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long "
                                 f"or byte Variables are valid indices (got {_tp_name(obj)})"
                                 ) from None
            result = _apply_select(result, dim, value, i)
    return result, indices


def _index_entries(indices: dict) -> tuple:
    """{dim: array} as the tuple ``index`` takes: one entry per dim up to the last indexed."""
    if not indices:
        return ()
    return tuple(indices.get(d) for d in range(max(indices) + 1))


# ---------------------------------------------------------------------------------------------
# index / index_put_: torch's make_info (masks, broadcasting, checks) and output layout
# ---------------------------------------------------------------------------------------------
def _check_index_types(entries) -> None:
    for e in entries:
        if e is None:
            continue
        k, size = e.dtype.kind, e.dtype.itemsize
        if not (k == "b" or (k == "i" and size in (4, 8)) or (k == "u" and size == 1)):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _expand_masks(shape, entries):
    """Masks -> their nonzero() columns. Returns [(array, (shape, stride), is_int32) or None]."""
    out = []
    for e in entries:
        if e is None:
            out.append(None)
        elif _is_mask(e):
            if e.dtype.kind != "b":
                warn_at_caller("indexing with dtype torch.uint8 is now deprecated, please use a "
                               "dtype torch.bool instead. (Triggered internally at "
                               "/__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)")
            for j in range(e.ndim):
                src = len(out) + j
                if e.shape[j] != shape[canonical_dim(src, len(shape))]:
                    raise IndexError(f"The shape of the mask {shape_str(e.shape)} at index {j} "
                                     "does not match the shape of the indexed tensor "
                                     f"{shape_str(shape)} at index {src}")
            for col in _xp.nonzero(e):
                # torch's nonzero() is (n, k) with strides (1, n): each column is contiguous
                out.append((col, (col.shape, (1,)), False))
        else:
            out.append((e, (e.shape, S._elem_strides(e)), e.dtype.itemsize == 4))
    return out


def _prepare(shape, entries):
    """torch's make_info: checked index arrays, their layouts and the result shape."""
    _check_index_types(entries)
    items = _expand_masks(shape, entries)
    defined = [it for it in items if it is not None]
    shapes = [it[1][0] for it in defined]
    try:
        bshape = tuple(broadcast_shapes(*shapes))
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         f"shapes {', '.join(shape_str(s) for s in shapes)}") from None
    items += [None] * (len(shape) - len(items))
    layouts = []
    for it in items:
        if it is None:
            layouts.append(None)
            continue
        (ishape, istride), is_int32 = it[1], it[2]
        if tuple(ishape) != bshape:
            ishape, istride = G.expand_geometry(ishape, istride, bshape, "")
        if is_int32 and not G.is_non_overlapping_and_dense(ishape, istride):
            istride = G.infer_dense_strides(ishape, istride)   # .to(kLong) preserves layout
        layouts.append((tuple(ishape), tuple(istride)))
    dims = [d for d, it in enumerate(items) if it is not None]
    if any(shape[d] == 0 for d in dims) and 0 not in bshape:
        raise IndexError("index is out of bounds for dimension with size 0")
    adjacent = dims[-1] - dims[0] + 1 == len(dims)
    keep = [d for d in range(len(shape)) if d not in dims]
    if adjacent:
        result = tuple(shape[:dims[0]]) + bshape + tuple(shape[dims[-1] + 1:])
    else:
        result = bshape + tuple(shape[d] for d in keep)
    arrays = [it[0] if it is not None else None for it in items]
    return arrays, layouts, dims, bshape, result


def _check_bounds(shape, arrays, dims) -> None:
    for j, d in enumerate(dims):
        a = arrays[d]
        n = shape[d]
        if a.size and (a.min() < -n or a.max() >= n):
            bad = a[(a < -n) | (a >= n)].reshape(-1)[0]
            raise IndexError(f"index {int(bad)} is out of bounds for dimension {j} with size {n}")


def _np_index(arrays) -> tuple:
    return tuple(slice(None) if a is None else a for a in arrays)


def _index_strides(shape, stride, layouts, dims, bshape) -> tuple:
    """Strides of torch's index() output (AdvancedIndex + TensorIterator, in Python).

    The source is restrided so the indexed dims become the broadcast index shape with stride
    0 (moved to the front first when they are not adjacent); each index tensor is reshaped
    with size-1 dims around it. TensorIterator then orders the output's dims by the strides
    of those operands.
    """
    adjacent = dims[-1] - dims[0] + 1 == len(dims)
    order = list(range(len(shape))) if adjacent else \
        dims + [d for d in range(len(shape)) if d not in dims]
    shape = [shape[d] for d in order]
    stride = [stride[d] for d in order]
    layouts = [layouts[d] for d in order]
    pos = [i for i, lay in enumerate(layouts) if lay is not None]
    before, after = pos[0], len(shape) - pos[-1] - 1
    src_shape = tuple(shape[:before]) + bshape + tuple(shape[pos[-1] + 1:])
    src_stride = tuple(stride[:before]) + (0,) * len(bshape) + tuple(stride[pos[-1] + 1:])
    operands = [(src_shape, src_stride)]
    idx_shape = (1,) * before + bshape + (1,) * after
    for i in pos:
        ishape, istride = layouts[i]
        operands.append((idx_shape, G.compute_stride(ishape, istride, idx_shape)))
    return G.iterator_strides(src_shape, operands)


@defop("index.Tensor", node="IndexBackward0", promote=Promote.NONE, variants=())
def _index(xp, self, indices):
    """``self[indices]`` for a tuple of index arrays (None: whole dim), one per leading dim."""
    arrays, layouts, dims, bshape, result_shape = _prepare(self.shape, _entry_arrays(indices))
    _check_bounds(self.shape, arrays, dims)
    out = self[_np_index(arrays)]
    strides = _index_strides(self.shape, S._elem_strides(self), layouts, dims, bshape)
    if S._elem_strides(out) != strides or out.shape != result_shape:
        fresh = S._fresh_strided(xp, result_shape, strides, out.dtype)
        xp.copyto(fresh, out.reshape(result_shape))
        out = fresh
    return out


@_index.backward
def _(ctx, grad):
    # the gradient goes back where each element came from, added up over repeated indices
    return _index_put_impl(grad.new_zeros(ctx.self_shape), grad, ctx.indices, True)


_index.jvp(AUTO_LINEAR)


def _no_internal_overlap_warning(t) -> None:
    for n, s in zip(t._data.shape, t.stride()):
        if s == 0 and n > 1:
            warn_at_caller("Use of index_put_ on expanded tensors is deprecated. Please clone() "
                           "the tensor before performing this operation. This also applies to "
                           "advanced indexing e.g. tensor[indices] = tensor (Triggered "
                           "internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                           "TensorAdvancedIndexing.cpp:976.)")
            return


def _masked_fill_target(shape, entries, value):
    """The (mask, dim) when torch turns ``index_put_`` into ``masked_fill_``, else None."""
    if value.size != 1:
        return None
    found = None
    for d, e in enumerate(entries):
        if e is None:
            continue
        if not _is_mask(e) or found is not None:
            return None
        found = (e, d)
    if found is None:
        return None
    mask, d = found
    for j in range(mask.ndim):
        src = d + j
        if mask.shape[j] != shape[canonical_dim(src, len(shape))]:
            raise IndexError(f"The shape of the mask {shape_str(mask.shape)} at index {j} does "
                             f"not match the shape of the indexed tensor {shape_str(shape)} at "
                             f"index {src}")
    if mask.dtype.kind != "b":
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    return found


def index_put_(self, indices, values, accumulate: bool = False):
    """``self[indices] = values`` for index tensors (None: whole dim); returns ``self``."""
    Tensor = _tensor_cls()
    if isinstance(indices, Tensor) or not isinstance(indices, (tuple, list)):
        raise TypeError("index_put_(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{_tp_name(t)}")
    if not isinstance(values, Tensor):
        raise TypeError("index_put_(): argument 'values' (position 2) must be Tensor, not "
                        f"{_tp_name(values)}")
    _dispatch.check_inference_inplace(self)
    if _gm._state.grad_enabled and (self._requires_grad or values._requires_grad) or (
            _fw_state.active and (self._fw_grad is not None or values._fw_grad is not None)):
        # recorded as IndexPutBackward0 on self (see _write_inplace in the registry)
        _no_internal_overlap_warning(self)
        if _overlap(self._data, values._data) in (_PARTIAL, _FULL):
            raise RuntimeError(_PARTIAL_MSG)
        return _index_put_op.call_inplace(self, values, tuple(indices), accumulate)
    entries = tuple(i._data for i in indices)
    _index_put(self, entries, values, accumulate)
    self._bump_version()
    return self


def index_put(input, indices, values, accumulate: bool = False):
    """``input`` with ``values`` put (or added) at ``indices`` (a copy; ``input`` is untouched)."""
    _check_index_put_args(indices, values, 1)
    return _index_put_op(input, values, tuple(indices), accumulate)


def _index_put_method(self, indices, values, accumulate: bool = False):
    _check_index_put_args(indices, values, 0)
    return _index_put_op(self, values, tuple(indices), accumulate)


def _check_index_put_args(indices, values, first: int) -> None:
    """torch's argument errors; `first` is the position of ``indices`` minus one."""
    Tensor = _tensor_cls()
    if isinstance(indices, Tensor) or not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position {first + 1}) must be tuple "
                        f"of Tensors, not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {first}, but got "
                            f"{_tp_name(t)}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position {first + 2}) must be Tensor, "
                        f"not {type(values).__name__}")


def _entry_arrays(indices) -> tuple:
    """Index entries as arrays: Tensors (index_put's argument) or arrays (getitem's)."""
    Tensor = _tensor_cls()
    return tuple(i._data if isinstance(i, Tensor) else i for i in indices)


def _put_kernel(xp, self, values, indices, accumulate=False):
    out = S._clone.kernel(xp, self)   # torch: self.clone().index_put_(...)
    _index_put_array(out, _entry_arrays(indices), values, accumulate, check_overlap=False)
    return out


_index_put_op = defop("index_put", node="IndexPutBackward0", promote=Promote.NONE,
                      inputs=("self", "values"), variants=())(_put_kernel)
# the scatter of index's backward (torch: at::_index_put_impl_ into zeros)
_index_put_impl = backward_only(defop(
    "_index_put_impl", node="IndexPutImplBackward0", promote=Promote.NONE,
    inputs=("self", "values"), variants=())(_put_kernel))


def _index_put_backward(ctx, grad):
    self_grad = values_grad = None
    if ctx.needs_input_grad[0]:
        self_grad = grad if ctx.accumulate else \
            _index_put_op(grad, grad.new_zeros(ctx.values_shape), ctx.indices, False)
    if ctx.needs_input_grad[1]:
        values_grad = _index(grad, _entry_arrays(ctx.indices))   # summed to values' shape
    return self_grad, values_grad


_index_put_op.backward(_index_put_backward)
_index_put_op.jvp(AUTO_LINEAR)
_index_put_impl.backward(_index_put_backward)
_index_put_impl.jvp(AUTO_LINEAR)


def _index_put(self, entries, value, accumulate=False):
    _no_internal_overlap_warning(self)
    _index_put_array(self._data, entries, value._data, accumulate)


def _index_put_array(dst, entries, value, accumulate=False, check_overlap=True):
    """``dst[entries] = value`` (or ``+=``) on arrays, with index_put_'s checks and errors."""
    if len(entries) > dst.ndim:
        raise IndexError(f"too many indices for tensor of dimension {dst.ndim} (got "
                         f"{len(entries)})")
    dtype = D.from_np(dst.dtype)
    if not accumulate:
        found = _masked_fill_target(dst.shape, entries, value)
        if found is not None:
            mask, d = found
            if dtype in D.LIMITED_UNSIGNED:   # (torch runs masked_fill_, which has no kernel)
                from ._unsigned import refuse
                raise refuse("masked_fill", dtype)
            fill = checked_scalar(value.reshape(-1)[0].item(), dtype)
            dst[(slice(None),) * d + (mask,)] = fill
            return
    if check_overlap and _overlap(dst, value) in (_PARTIAL, _FULL):
        raise RuntimeError(_PARTIAL_MSG)
    arrays, layouts, dims, bshape, result_shape = _prepare(dst.shape, entries)
    vshape = value.shape
    if len(vshape) > len(result_shape) or any(
            v != 1 and v != r for v, r in zip(reversed(vshape), reversed(result_shape))):
        raise RuntimeError(f"shape mismatch: value tensor of shape {shape_str(vshape)} cannot be "
                           f"broadcast to indexing result of shape {shape_str(result_shape)}")
    if value.dtype != dst.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{dtype._legacy} for the destination and "
                           f"{D.from_np(value.dtype)._legacy} for the source.")
    if dtype in D.LIMITED_UNSIGNED:   # Note [Limited unsigned dtypes] in _promotion.py
        from ._unsigned import refuse
        raise refuse("index_put", dtype)
    _check_bounds(dst.shape, arrays, dims)
    idx = _np_index(arrays)
    if accumulate and len(dims) == 1:   # one index tensor (x[i]'s gradient): along its dim
        d = dims[0]
        index = arrays[d]
        value = _xp.broadcast_to(value, result_shape).reshape(
            dst.shape[:d] + (index.size,) + dst.shape[d + 1:])
        _npb.add_at_axis(dst, d, index.reshape(-1), value)
    elif accumulate:
        _xp.add.at(dst, idx, value)
    else:
        dst[idx] = value   # NumPy places separated index dims first, as torch does


# ---------------------------------------------------------------------------------------------
# copy_to (basic setitem): torch's expand + copy_ with its memory-overlap checks
# ---------------------------------------------------------------------------------------------
_NO, _FULL, _PARTIAL, _TOO_HARD = range(4)
_PARTIAL_MSG = ("unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.")


def _overlap(a, b) -> int:
    """torch's get_overlap_status for two arrays (memory ranges of dense tensors)."""
    if a.size == 0 or b.size == 0:
        return _NO
    sa, sb = S._elem_strides(a), S._elem_strides(b)
    if not G.is_non_overlapping_and_dense(a.shape, sa) or \
            not G.is_non_overlapping_and_dense(b.shape, sb):
        return _TOO_HARD
    a0, b0 = _npb.data_ptr(a), _npb.data_ptr(b)
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        return _FULL if sa == sb else _PARTIAL
    if a0 < b1 and b0 < a1:
        return _PARTIAL
    return _NO


def _strip_leading_ones(shape) -> tuple:
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def copy_to(dst, src) -> None:
    """Write ``src`` into ``dst`` as ``dst[...] = src`` does (no version bump here)."""
    dst_arr = dst._data
    src_arr = src._data
    dst._check_writeable()
    if src_arr.shape != dst_arr.shape:
        if src_arr.ndim == 0:
            src_arr = src_arr.copy()            # fill_: a value aliasing dst is cloned first
        else:
            stripped = _strip_leading_ones(src_arr.shape)
            src_arr = src_arr.reshape(stripped)
            G.expand_geometry(stripped, S._elem_strides(src_arr), dst_arr.shape,
                              S._type_name(src))
    if src_arr.shape == dst_arr.shape and _overlap(dst_arr, src_arr) == _PARTIAL:
        raise RuntimeError(_PARTIAL_MSG)
    if src_arr.dtype.kind == "c" and dst_arr.dtype.kind != "c":
        _warn_once(_COMPLEX_WARNING)   # (torch's copy_ warning, once per process)
        src_arr = src_arr.real         # (NumPy's cast would add a ComplexWarning of its own)
    _xp.copyto(dst_arr, src_arr, casting="unsafe")


# ---------------------------------------------------------------------------------------------
# __getitem__ / __setitem__
# ---------------------------------------------------------------------------------------------
def _ints_and_slices(index) -> bool:
    for obj in index:
        if type(obj) is not slice and type(obj) is not int:
            return False
    return True


def getitem(self, index):
    """``self[index]``: views for basic indexing, a copy for advanced (tensors, lists, masks)."""
    t = type(index)
    if t is int:
        return _apply_select(self, 0, index, 0)
    if t is slice:
        return _apply_slice(self, 0, index, True)
    if index is None:
        return S._unsqueeze(self, 0)
    if index is Ellipsis:
        return S.alias(self)
    if _is_long(index) and not isinstance(index, _tensor_cls()):
        return _apply_select(self, 0, operator.index(index), 0)
    if t is tuple and len(index) <= self._data.ndim and _ints_and_slices(index):
        # (``x[:, 0, ::2]``) apply_slicing's steps for these entries, which make views only,
        # without its passes over the entries for other kinds
        result = self
        dim = 0
        for i, obj in enumerate(index):
            if type(obj) is slice:
                result = _apply_slice(result, dim, obj, False)
                dim += 1
            else:
                result = _apply_select(result, dim, obj, i)
        return S.alias(result) if result is self else result
    sliced, indices = apply_slicing(self, _as_tuple(index))
    if not indices:
        return S.alias(sliced) if sliced is self else sliced
    entries = _index_entries(indices)
    if sliced._requires_grad and _gm._state.grad_enabled:
        # IndexBackward0 saves them as index tensors, as torch shows them (_saved_indices)
        from .._tensor import _wrap
        out = _index(sliced, tuple(None if e is None else _wrap(e) for e in entries))
    else:
        out = _index(sliced, entries)
    if not out._data.size:
        # the dispatcher gives empty results contiguous strides; torch's may differ
        arr = sliced._data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # (already given once by the kernel)
            _, layouts, dims, bshape, shape = _prepare(arr.shape, entries)
        strides = _index_strides(arr.shape, S._elem_strides(arr), layouts, dims, bshape)
        out._data = _npb.strided(out._data, shape, strides, 0)
    return out


def _copy_recorded(target, value) -> None:
    """``target[...] = value`` with autograd recording, as torch's copy_to does it: ``copy_``
    for equal shapes, ``fill_`` for a 0-dim value, else ``copy_`` of ``value`` viewed without
    its leading 1s and expanded. A view target gets CopySlices (autograd/views.py)."""
    from .conversion import copy, fill_tensor
    if value._data.shape == target._data.shape:
        copy.call_inplace(target, value, False)
        return
    if value._data.ndim == 0:
        fill_tensor.call_inplace(target, value)
        return
    stripped = _strip_leading_ones(value._data.shape)
    value = S._view(value, stripped)
    if stripped != target._data.shape:
        value = S.expand(value, target._data.shape)
    copy.call_inplace(target, value, False)


def setitem(self, index, value) -> None:
    """``self[index] = value``: writes through the view, or index_put_ for advanced indices.

    Under autograd the write is an in-place op on the indexed view (``copy_``, ``fill_`` or
    ``index_put_``), so that the view's base gets CopySlices as in torch; ``x[[0, 2]] = v`` on
    ``x`` itself is ``index_put_`` on ``x`` (IndexPutBackward0).
    """
    v = _value_tensor(self, value)
    _dispatch.check_inference_inplace(self)
    if index is False:
        return
    indices = None
    if index is Ellipsis:
        target = self
    elif index is None or index is True:
        target = S._unsqueeze(self, 0)
    elif type(index) is slice:
        target = _apply_slice(self, 0, index, False)
    elif _is_long(index) and not isinstance(index, _tensor_cls()):
        target = _apply_select(self, 0, operator.index(index), 0)
    else:
        target, indices = apply_slicing(self, _as_tuple(index))
    record = _gm._state.grad_enabled and (self._requires_grad or v._requires_grad)
    if not record and _fw_state.active:   # dual tensors: the ops' path carries the tangents
        record = self._fw_grad is not None or v._fw_grad is not None
    if not indices:
        if record:
            _copy_recorded(target, v)
            return
        copy_to(target, v)
        self._bump_version()
        return
    stripped = _strip_leading_ones(v._data.shape)
    if stripped != v._data.shape:
        v = S._view(v, stripped)
    if record:   # index_put_ with its node (its _write_inplace bumps the version)
        _no_internal_overlap_warning(self)
        if _overlap(self._data, v._data) in (_PARTIAL, _FULL):
            raise RuntimeError(_PARTIAL_MSG)
        _index_put_op.call_inplace(target, v, _index_entries(indices), False)
        return
    _index_put(target, _index_entries(indices), v)
    self._bump_version()


def delitem(self, index) -> None:
    raise TypeError("Tensor does not support deleting items")


# ---------------------------------------------------------------------------------------------
# index_select / masked_select / take
# ---------------------------------------------------------------------------------------------
@defop("index_select", node="IndexSelectBackward0", promote=Promote.NONE,
       inputs=("self", "index"), differentiable=("self",), saves=("index",), variants=())
def _index_select(xp, self, index, dim):
    if index.dtype not in (xp.int64, xp.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self.ndim <= 1 and self.dtype.kind == "u" and self.itemsize > 1:
        from ._unsigned import refuse   # torch's vector kernel has none for uint16/32/64
        raise refuse("index_select", self.dtype)
    d = canonical_dim(dim, self.ndim)
    n = self.shape[d] if self.ndim else 1
    flat = index.reshape(-1)
    if self.ndim > 1 and flat.size and n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = (flat < 0) | (flat >= n)
    if bad.any():
        # torch's kernels check in two places: a vector (or scalar), and the rows of a
        # non-empty tensor along dim 0, are copied one index at a time; other dims go
        # through its gather loop, which has a message of its own
        if self.ndim <= 1 or (d == 0 and self.size):
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(flat[bad][0])} "
                           f"axis_dim={n}")
    if self.ndim == 0:
        return self.copy()
    return xp.ascontiguousarray(xp.take(self, flat, axis=d))


@_index_select.backward
def _(ctx, grad):
    (index,) = ctx.saved_tensors
    return _scatter.index_add(grad.new_zeros(ctx.self_shape), ctx.dim, index, grad)


_index_select.jvp(AUTO_LINEAR)


def index_select(input, dim: int, index, *, out=None):
    """The entries of ``input`` at positions ``index`` (a vector) along ``dim`` (a copy)."""
    if out is not None:
        return _index_select(input, index, dim, out=out)
    return _index_select(input, index, dim)


@defop("masked_select", node="MaskedSelectBackward0", promote=Promote.NONE,
       inputs=("self", "mask"), differentiable=("self",), saves=("self", "mask"))
def masked_select(xp, self, mask):
    if mask.dtype.kind != "b":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask.shape, self.shape)
    return xp.broadcast_to(self, shape)[xp.broadcast_to(mask, shape)]


@masked_select.backward
def _(ctx, grad):
    self, mask = ctx.saved_tensors
    shape = broadcast_shapes(self.shape, mask.shape)   # the engine sums back to self's shape
    return _scatter.masked_scatter(grad.new_zeros(shape), grad, mask)


masked_select.jvp(AUTO_LINEAR)


@defop("take", node="TakeBackward0", promote=Promote.NONE, inputs=("self", "index"),
       differentiable=("self",), saves=("self", "index"))
def take(xp, self, index):
    if index.dtype != xp.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{D.from_np(index.dtype)._legacy}")
    n = self.size
    bad = (index < -n) | (index >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(index[bad][0])} on a tensor "
                         f"of {n} elements.")
    return xp.asarray(self.reshape(-1)[index])   # (a 0-dim index gives a 0-dim result)


@take.backward
def _(ctx, grad):
    self, index = ctx.saved_tensors
    return _scatter.put(grad.new_zeros(self.shape), grad, index, True)


take.jvp(AUTO_LINEAR)


FUNCTIONS["index_select"] = METHODS["index_select"] = index_select
from . import scatter as _scatter  # noqa: E402  (the backward of the gathers above)
FUNCTIONS["index_put"] = index_put
METHODS["index_put"] = _index_put_method
METHODS["index_put_"] = index_put_


# an out= may share no memory with the inputs (Note [out= and memory overlap] in _dispatch.py)
for _spec in (_index_select, masked_select, take):
    _spec.out_overlap = "full"
