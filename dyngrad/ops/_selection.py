"""What the ops returning (values, indices) share: the gather of the values, the scatter of
their gradient, outputs without gradient, and ``out=`` tuples.

Note [Values selected by indices]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
cummax/cummin (scan.py) and sort/topk/kthvalue/median/mode (sorting.py) return (values,
indices), and their nodes save the *indices output*. The dispatcher records one node per
primitive and saves inputs (or the first output), so these ops run in two steps: a plain
function computes the indices (no gradient, as in torch), then a primitive named as torch names
the op takes ``self`` and those indices, gathers the values and records the node
(``CummaxBackward0`` with ``_saved_indices``). Its derivative scatters the gradient back to the
indices as torch's formulas do (``zeros.scatter_(dim, indices, grad)``), and the scatter's own
derivative gathers, so higher derivatives need no more code.
"""
from __future__ import annotations

import warnings

from .. import _dtypes as D
from .. import return_types
from .._utils import canonical_dim, contiguous_strides, shape_str
from ..autograd import grad_mode as _gm
from ..backends import numpy_backend as _npb
from . import _dispatch
from ._geometry import _numel
from .linalg import cpp_type_name

_xp = _npb.xp


def wrap_plain(arr):
    """A Tensor for an output without gradient (indices, counts), outside the dispatcher."""
    t = _dispatch._wrap(_dispatch._as_array(arr))   # (empty arrays get torch's strides)
    if _gm._state.inference:
        t._is_inference = True
    return t


def fresh(shape, strides, np_dtype):
    """An uninitialised array with these (dense) strides in elements, owning its memory."""
    return _npb.strided(_xp.empty(_numel(shape), np_dtype), tuple(shape), tuple(strides), 0)


def contiguous(arr):
    """``arr`` with torch's contiguous strides, copied if needed (NumPy's ascontiguousarray
    makes a 0-dim array 1-dim and keeps odd strides on dims of size 1)."""
    if arr.strides == tuple(s * arr.itemsize for s in contiguous_strides(arr.shape)):
        return arr
    out = _xp.empty(arr.shape, arr.dtype)
    out[...] = arr
    return out


def elem_strides(arr) -> tuple:
    return tuple(s // arr.itemsize for s in arr.strides)


def gather_along(xp, self, indices, dim, keepdim=True):
    """``self`` gathered at ``indices`` along ``dim``, laid out as ``indices`` is."""
    if self.ndim == 0:
        return self.copy()
    d = canonical_dim(dim, self.ndim)
    idx = indices if keepdim else xp.expand_dims(indices, d)
    taken = xp.take_along_axis(self, idx, axis=d)
    if not keepdim:
        taken = taken.reshape(indices.shape)
    out = fresh(indices.shape, elem_strides(indices), self.dtype)
    out[...] = taken
    return out


def scatter_grad(grad, dim, indices, sizes, accumulate=False, keepdim=True):
    """torch's value_selecting_reduction_backward / cummaxmin_backward: zeros of ``sizes`` with
    ``grad`` scattered (``accumulate``: added) at ``indices`` along ``dim``."""
    zeros = grad.new_zeros(tuple(sizes))
    if not keepdim and sizes:
        d = canonical_dim(dim, len(sizes))
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    if accumulate:
        return zeros.scatter_add(dim, indices, grad)
    return zeros.scatter(dim, indices, grad)


def check_no_grad_out(name: str, *tensors) -> None:
    if _gm._state.grad_enabled and any(getattr(t, "_requires_grad", False) for t in tensors):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def warn_at_caller(message: str, category=UserWarning) -> None:
    """A TORCH_WARN (every call), shown at the caller's line outside dyngrad."""
    import sys
    level, frame = 2, sys._getframe(1)   # stacklevel 2 is the frame that called this
    while frame is not None and frame.f_globals.get("__name__", "").startswith("dyngrad"):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)


def tensor_shape_cpp(line: int) -> str:
    """The end of a warning torch raises from its TensorShape.cpp, naming the line (2.13's)."""
    return (" (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
            f"TensorShape.cpp:{line}.)")


def warn_once_at_caller(message: str) -> None:
    """A TORCH_WARN_ONCE, shown at the caller's line outside dyngrad: the first time in the
    process only (every time after ``set_warn_always(True)``; as torch, the warnings given then
    do not count as the one time)."""
    from .pointwise import _WARNED
    from .._settings import _state
    if _state.warn_always:
        warn_at_caller(message)
    elif message not in _WARNED:
        _WARNED.add(message)
        warn_at_caller(message)


def resized_warning(old_shape, new_shape) -> None:
    """torch's deprecation warning for an ``out=`` tensor with elements that gets resized."""
    warn_at_caller(
        f"An output with one or more elements was resized since it had shape "
        f"{shape_str(tuple(old_shape))}, which does not match the required output shape "
        f"{shape_str(tuple(new_shape))}. This behavior is deprecated, and in a future PyTorch "
        "release outputs will not be resized unless they have zero elements. You can explicitly "
        "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). "
        "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


def resize_output(out, shape) -> None:
    """ATen's resize_output: ``out`` resized to `shape`, warning when it had elements."""
    shape = tuple(shape)
    if tuple(out.shape) != shape:
        if out.numel():
            resized_warning(out.shape, shape)
        out.resize_(shape)


def write_out(out, result) -> None:
    """Resize ``out`` to ``result``'s shape (warning as torch when it had elements) and copy;
    an expanded ``out`` is refused (Note [out= and memory overlap] in _dispatch.py)."""
    out._check_writeable()
    shape = tuple(result.shape)
    if tuple(out.shape) != shape:
        resize_output(out, shape)
        arr = result._data
        if arr.ndim > 1 and arr.size > 1 and elem_strides(arr) != contiguous_strides(shape):
            # a resized out takes the layout torch computed for the result
            out._data = _npb.strided(out._storage_obj().buffer, shape, elem_strides(arr),
                                     out._offset)
    _xp.copyto(out._data, result._data, casting="unsafe")
    out._bump_version()


def structured_out_check(expected, out) -> None:
    """The dtype check of torch's structured kernels' ``out=``."""
    if out.dtype is not expected:
        raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(expected)}, but "
                           f"got {cpp_type_name(out.dtype)} instead")


def write_outs(name, out, values, indices, check):
    """``out=(values, indices)``: ``check(values_out, indices_out)`` raises torch's error for
    wrong dtypes; returns ``return_types.<name>_out``."""
    from ._dispatch import check_out_tuple
    check_out_tuple(name, out, 2, None)   # (the parser has checked the elements)
    check(out[0], out[1])
    for o in out:   # (both refused before either is written)
        o._check_writeable()
    write_out(out[0], values)
    write_out(out[1], indices)
    return getattr(return_types, name + "_out")(tuple(out))


def scalar_type_check(message):
    """A ``check`` for write_outs: values of the input's dtype, int64 indices."""
    def make(dtype):
        def check(values_out, indices_out):
            if values_out.dtype is not dtype:
                raise RuntimeError(message[0].format(want=dtype, got=values_out.dtype))
            if indices_out.dtype is not D.int64:
                raise RuntimeError(message[1].format(want=D.int64, got=indices_out.dtype))
        return check
    return make
