"""Tensor creation: tensor/as_tensor/from_numpy, zeros/ones/full/empty/arange and ``_like``.

Creation functions make leaves: they take ``dtype``, ``device`` and ``requires_grad`` keywords
as torch's do and never record graph nodes.
"""
from __future__ import annotations

import warnings

from .. import _dtypes as D
from .._device import device as _device
from .._promotion import scalar_dtype
from ..backends import numpy_backend as _npb

xp = _npb.xp


def _tensor_cls():
    from .._tensor import Tensor, _wrap
    return Tensor, _wrap


def _check_device(device) -> None:
    if device is None:
        return
    d = _device(device)
    if d.type != "cpu":
        raise RuntimeError(f"Device '{d}' is not available: dyngrad has no backend for "
                           f"'{d.type}' on this machine (dyngrad.cuda.is_available() is False)")


def _finish(arr, requires_grad=False, device=None):
    _check_device(device)
    _, wrap = _tensor_cls()
    t = wrap(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _infer_dtype(data):
    """torch's dtype inference for nested Python data: the highest category seen."""
    Tensor, _ = _tensor_cls()
    best = None
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, Tensor):
            d = v.dtype
        elif isinstance(v, xp.ndarray):
            d = D.from_np(v.dtype)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
            continue
        elif isinstance(v, xp.generic):
            d = D.from_np(v.dtype)
        elif isinstance(v, (bool, int, float, complex)):
            d = scalar_dtype(v)
        else:
            raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
        if best is None or d.category > best.category:
            best = d
        elif d.category == best.category and d.category > D.INT and d.itemsize > best.itemsize \
                and not isinstance(v, (float, complex)):
            best = d
    return best or D.get_default_dtype()


def _to_nested(data):
    """Replace tensors inside nested lists by their values; check the sequences are regular."""
    Tensor, _ = _tensor_cls()
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_to_nested(v) for v in data]
    return data


def _check_ragged(data, dim=0):
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], (list, tuple)):
        n = len(data[0])
        for v in data:
            if not isinstance(v, (list, tuple)) or len(v) != n:
                got = len(v) if isinstance(v, (list, tuple)) else type(v).__name__
                raise ValueError(f"expected sequence of length {n} at dim {dim + 1} (got {got})")
        for v in data:
            _check_ragged(v, dim + 1)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data`` (nested lists, numbers, arrays, tensors)."""
    Tensor, _ = _tensor_cls()
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    d = dtype or _infer_dtype(data)
    _check_ragged(data)
    arr = xp.array(_to_nested(data), dtype=d.np)
    return _finish(arr, requires_grad, device)


def scalar_tensor(value, *, dtype=None, device=None, requires_grad=False):
    """A 0-dim tensor of a Python number (dtype as torch infers it unless given)."""
    d = dtype or scalar_dtype(value)
    return _finish(xp.array(value, dtype=d.np), requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    """Share memory with ``data`` when it is already a tensor/array of the right dtype."""
    Tensor, _ = _tensor_cls()
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, xp.ndarray) and (dtype is None or dtype.np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    """A tensor sharing memory with a NumPy array (torch's errors for unsupported arrays)."""
    if not isinstance(ndarray, xp.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_np(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    if any(s % ndarray.itemsize for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    return _finish(ndarray)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, int) and not hasattr(s, "__index__"):
            raise TypeError(f"empty(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__} at pos 0")
        if int(s) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {int(s)}: "
                               f"[{', '.join(str(int(x)) for x in size)}]")
    return tuple(int(s) for s in size)


def _fresh(shape, d, fill):
    if fill is None:
        arr = xp.empty(shape, d.np)
    elif fill == 0:
        arr = xp.zeros(shape, d.np)
    else:
        arr = xp.full(shape, fill, d.np)
    if arr.size == 0 and arr.ndim:   # NumPy gives 0 strides here, torch contiguous ones
        from .._utils import contiguous_strides
        arr = _npb.strided(xp.empty(0, d.np), shape, contiguous_strides(shape), 0)
    return arr


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None, out=None,
          layout=None, pin_memory=False):
    shape = _size(size)
    arr = _fresh(shape, dtype or D.get_default_dtype(), None)
    return _layout(_finish(arr, requires_grad, device), memory_format)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    return _finish(_fresh(_size(size), dtype or D.get_default_dtype(), 0), requires_grad, device)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    return _finish(_fresh(_size(size), dtype or D.get_default_dtype(), 1), requires_grad, device)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None,
         layout=None):
    d = dtype or scalar_dtype(fill_value)
    return _finish(_fresh(_size((size,)), d, fill_value), requires_grad, device)


def _layout(t, memory_format):
    from .._tensor import preserve_format, contiguous_format
    if memory_format is None or memory_format is contiguous_format \
            or memory_format is preserve_format:
        return t
    return t.contiguous(memory_format=memory_format)


def _like(input, dtype, fill, requires_grad, memory_format):
    d = dtype or input.dtype
    t = _finish(_fresh(tuple(input.shape), d, fill), requires_grad)
    from .._tensor import preserve_format
    if memory_format is None or memory_format is preserve_format:
        # keep a dense non-contiguous layout (channels_last, transposed), as torch does
        if not input.is_contiguous() and _is_dense(input):
            perm = sorted(range(input.ndim), key=lambda i: -input.stride(i))
            base = _fresh(tuple(input.shape[i] for i in perm), d, fill)
            inv = [perm.index(i) for i in range(input.ndim)]
            t = _finish(base.transpose(inv), requires_grad)
        return t
    return _layout(t, memory_format)


def _is_dense(t):
    pairs = sorted(zip(t.stride(), t.shape))
    expected = 1
    for s, n in pairs:
        if n == 1:
            continue
        if s != expected:
            return False
        expected *= n
    return True


def empty_like(input, *, dtype=None, device=None, requires_grad=False,
               memory_format=None, layout=None):
    return _like(input, dtype, None, requires_grad, memory_format)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False,
               memory_format=None, layout=None):
    return _like(input, dtype, 0, requires_grad, memory_format)


def ones_like(input, *, dtype=None, device=None, requires_grad=False,
              memory_format=None, layout=None):
    return _like(input, dtype, 1, requires_grad, memory_format)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None, layout=None):
    return _like(input, dtype, fill_value, requires_grad, memory_format)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None,
           layout=None):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 unless a bound is float."""
    if end is None:
        start, end = 0, start
    args = [v.item() if hasattr(v, "item") and not isinstance(v, (int, float)) else v
            for v in (start, end, step)]
    start, end, step = args
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, int) and not isinstance(v, bool) or
                               isinstance(v, bool) for v in args) else D.get_default_dtype()
    import math
    n = math.ceil((end - start) / step)
    arr = (start + step * xp.arange(n, dtype=xp.float64 if dtype.category >= D.FLOAT
                                    else xp.int64)).astype(dtype.np)
    return _finish(arr, requires_grad, device)


from ._registry import FUNCTIONS  # noqa: E402

for _fn in (tensor, scalar_tensor, as_tensor, from_numpy, empty, zeros, ones, full, empty_like,
            zeros_like, ones_like, full_like, arange):
    FUNCTIONS[_fn.__name__] = _fn
