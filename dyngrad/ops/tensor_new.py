"""``tensor``, ``as_tensor``, ``asarray`` and ``from_numpy``: tensors from Python data and
NumPy arrays (torch's ``torch/csrc/utils/tensor_new.cpp`` and ``tensor_numpy.cpp``).

Nested sequences are read as torch reads them: the shape follows the first element down
(``compute_sizes``), the dtype promotes over every leaf (``infer_scalar_type``), and each leaf
is stored with ``store_scalar``'s rules and errors (see Note [Scalar conversions] in
creation.py). Plain nested lists of Python numbers take a NumPy fast path that gives the same
result; anything else (NumPy scalars, 0-dim tensors, errors) is stored element by element.
"""
from __future__ import annotations

import operator

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from . import _registry
from ._selection import warn_at_caller
from .creation import (ZEROS, _int_limits, _overflow, _tensor_cls, _type_name, _warn_once,
                       alloc, cast_array, check_device, check_requires_grad, copy_with_strides,
                       dtype_arg, factory_device, finish, preserve_strides, check_pin_memory)

xp = _npb.xp
_ndarray = xp.ndarray

_LIST_OF_ARRAYS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
    "tensor. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)")
_NOT_WRITEABLE_WARNING = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor. This "
    "type of warning will be suppressed for the rest of this program. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)")


# ---------------------------------------------------------------------------------------------
# Reading nested sequences
# ---------------------------------------------------------------------------------------------
def _is_sequence(v) -> bool:
    """Python's PySequence_Check as torch sees it (a Tensor is not a sequence there)."""
    if isinstance(v, (list, tuple, range, str, bytes, _ndarray)):
        return True
    if isinstance(v, (dict, _tensor_cls())):
        return False
    t = type(v)
    return hasattr(t, "__getitem__") and hasattr(t, "__len__")


def _compute_sizes(data) -> list:
    """The shape torch reads off nested sequences: follow the first element down."""
    sizes = []
    seq = data
    while _is_sequence(seq):
        n = len(seq)
        sizes.append(n)
        if len(sizes) > 64:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if n == 0:
            break
        seq = seq[0]
    return sizes


_PY_NUMBERS = frozenset((bool, int, float, complex))
_NO_DATA = object()   # tensor() without data: torch's parser words the missing argument
_PY_SEQ = frozenset((list, tuple))


def _leaf_types(data):
    """The types of the leaves of nested lists/tuples of plain Python numbers, else None."""
    found = set()
    stack = [data]
    while stack:
        seq = stack.pop()
        if not seq:
            found.add(float)      # an empty sequence counts as the default dtype
            continue
        types = set(map(type, seq))
        nested = types & _PY_SEQ
        if nested:
            types -= nested
            stack.extend(v for v in seq if type(v) in _PY_SEQ)
        if not types <= _PY_NUMBERS:
            return None
        found |= types
    return found


def _python_type_dtype(types):
    if complex in types:
        return D.get_default_complex_dtype()
    if float in types:
        return D.get_default_dtype()
    if int in types:
        return D.int64
    return D.bool_ if types else D.get_default_dtype()


def infer_dtype(obj) -> D.dtype:
    """torch's ``infer_scalar_type``: promote the dtypes of all the leaves."""
    if isinstance(obj, (xp.generic, _ndarray)):
        return D.from_np(obj.dtype)
    if isinstance(obj, float):
        return D.get_default_dtype()
    if isinstance(obj, bool):
        return D.bool_
    if isinstance(obj, int):
        return D.int64
    if isinstance(obj, complex):
        return D.get_default_complex_dtype()
    if isinstance(obj, _tensor_cls()):
        return obj.dtype
    if isinstance(obj, str):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if _is_sequence(obj):
        if isinstance(obj, (list, tuple)):
            types = _leaf_types(obj)
            if types is not None:
                return _python_type_dtype(types)
        if len(obj) == 0:
            return D.get_default_dtype()
        from .._promotion import promote_types
        best = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            d = infer_dtype(item)
            best = d if best is None else promote_types(best, d)
            if best is D.complex128:
                break
        return best
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _real_number(v) -> bool:
    if isinstance(v, (str, bytes, complex)):
        return False
    t = type(v)
    return hasattr(t, "__float__") or hasattr(t, "__index__")


def _storer(d: D.dtype):
    """torch's ``store_scalar`` for dtype `d`: one Python object -> a Python number."""
    if d.category == D.FLOAT:
        def store(v):
            if isinstance(v, float):
                return float(v)
            if not _real_number(v):
                raise TypeError(f"must be real number, not {type(v).__name__}")
            return float(v)
        return store
    if d.category == D.COMPLEX:
        def store(v):
            if isinstance(v, (complex, float)):
                return complex(v)
            if not (_real_number(v) or hasattr(type(v), "__complex__")):
                raise TypeError(f"must be real number, not {type(v).__name__}")
            return complex(v)
        return store
    if d is D.bool_:
        def store(v):
            if isinstance(v, (float, complex, xp.bool_)):
                return bool(v)
            return bool(operator.index(v))
        return store
    if d is D.uint64:   # unpacked as an unsigned long long: Python ints alone
        def store(v):
            if not isinstance(v, int):
                raise TypeError("an integer is required")
            if v < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if v >= 2 ** 64:
                raise OverflowError("int too big to convert")
            return v
        return store
    lo, hi = _int_limits(d)

    def store(v):
        if isinstance(v, float):
            if v != v or v < lo or v > hi:
                raise _overflow(d, d.name)
            return int(v)
        i = operator.index(v)
        if not -2 ** 63 <= i < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        if i > hi or (i < lo and (lo < 0 or -i > hi)):
            raise _overflow(d, d.name)
        return i
    return store


_WORK = {D.BOOL: xp.bool_, D.INT: xp.int64, D.FLOAT: xp.float64, D.COMPLEX: xp.complex128}


def _fast_from_lists(data, sizes, d: D.dtype, types):
    """np.array over nested lists of plain numbers, or None where torch's rules need the
    element-by-element path (errors, ragged lists, mixed float/int into an integer dtype)."""
    cat = d.category
    if cat == D.INT and (float in types or complex in types):
        return None
    if cat == D.FLOAT and complex in types:
        return None
    try:
        arr = xp.array(data, dtype=_WORK[cat])
    except (ValueError, OverflowError, TypeError):
        return None
    if list(arr.shape) != sizes:
        return None
    if d is D.uint64 and arr.size and arr.min() < 0:
        return None   # (the element-by-element path raises torch's OverflowError)
    if cat == D.INT and d is not D.int64 and arr.size:
        lo, hi = _int_limits(d)
        if lo == 0:
            lo = -hi
        if arr.min() < lo or arr.max() > hi:
            raise _overflow(d, d.name)
    return cast_array(arr, d.np)


def _from_sequence(data, dtype):
    """Nested sequences / numbers -> a contiguous array (torch's internal_new_from_data)."""
    sizes = _compute_sizes(data)
    d = dtype or infer_dtype(data)
    if sizes and 0 in sizes:
        return alloc(sizes, d.np, fill=ZEROS)
    if sizes and isinstance(data, (list, tuple)):
        types = _leaf_types(data)
        if types is not None:
            arr = _fast_from_lists(data, sizes, d, types)
            if arr is not None:
                return arr
    store = _storer(d)
    flat = []
    ndim = len(sizes)

    def rec(obj, dim):
        if dim == ndim:
            flat.append(store(obj))
            return
        if not _is_sequence(obj):
            raise TypeError("not a sequence")
        items = list(obj)
        n = sizes[dim]
        if len(items) != n:
            raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(items)})")
        for item in items:
            if isinstance(item, _ndarray):
                _warn_once(_LIST_OF_ARRAYS_WARNING)
            rec(item, dim + 1)

    rec(data, 0)
    arr = xp.array(flat, dtype=xp.uint64 if d is D.uint64 else _WORK[d.category]).reshape(sizes)
    return cast_array(arr, d.np)


def _check_numpy(arr, warn_if_not_writeable: bool) -> None:
    """torch's ``tensor_from_numpy`` checks."""
    if not arr.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    if arr.dtype not in D._FROM_NP or arr.dtype.kind == "V":   # (ml_dtypes' bfloat16 too)
        kind = D.np_type_name(arr.dtype) if arr.dtype.kind == "V" else \
            f"numpy.{arr.dtype.type.__name__}"
        raise TypeError(f"can't convert np.ndarray of type {kind}. The only supported types "
                        "are: float64, float32, float16, complex64, complex128, int64, int32, "
                        "int16, int8, uint64, uint32, uint16, uint8, and bool.")
    if any(s < 0 for s in arr.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    if any(s % arr.itemsize for s in arr.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if warn_if_not_writeable and not arr.flags.writeable:
        _warn_once(_NOT_WRITEABLE_WARNING)


def _element_strides(arr) -> tuple:
    return tuple(s // arr.itemsize for s in arr.strides)


def tensor(data=_NO_DATA, *extra, dtype=None, device=None, requires_grad=False, pin_memory=False,
           _api="torch.tensor"):
    """A new leaf holding a copy of `data` (nested sequences, numbers, arrays or a tensor).

    dtype inference is torch's: Python floats give the default dtype, ints int64, bools bool,
    complex the default complex dtype; NumPy arrays and scalars and tensors keep theirs, and
    mixed nests promote. Errors (ragged lists, overflow, bad types) are torch's.

    Example::

        >>> dyngrad.tensor([[1, 2], [3, 4.5]])
        tensor([[1.0000, 2.0000],
                [3.0000, 4.5000]])
    """
    check_pin_memory(pin_memory)
    if data is _NO_DATA or extra:   # (torch's parser's words for a missing or extra argument)
        raise TypeError(f"tensor() takes 1 positional argument but {1 + len(extra)} were given"
                        if extra else 'tensor() missing 1 required positional arguments: "data"')
    Tensor = _tensor_cls()
    dtype = dtype_arg(dtype, "tensor")
    if isinstance(data, Tensor):
        warn_at_caller("To copy construct from a tensor, it is recommended to use "
                       "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                       f"requires_grad_(True), rather than {_api}(sourceTensor).")
        src = data._data
        d = dtype or data.dtype
        arr = copy_with_strides(src, d.np, preserve_strides(src.shape, data.stride()))
    elif isinstance(data, _ndarray):
        _check_numpy(data, False)
        d = dtype or D.from_np(data.dtype)
        arr = copy_with_strides(data, d.np, preserve_strides(data.shape, _element_strides(data)))
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        arr = _from_sequence(data, dtype)
    return finish(arr, requires_grad, factory_device(device))


def as_tensor(data, dtype=None, device=None):
    """Convert `data` to a tensor, sharing memory with a tensor or NumPy array when no
    conversion is needed (as ``torch.as_tensor``)."""
    Tensor = _tensor_cls()
    dtype = dtype_arg(dtype, "as_tensor")
    if isinstance(data, Tensor):
        check_device(factory_device(device))
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, _ndarray):
        t = from_numpy(data)
        check_device(factory_device(device))
        return t if dtype is None or dtype is t.dtype else t.to(dtype)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return finish(_from_sequence(data, dtype), False, factory_device(device))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``torch.asarray``: share memory with tensors and arrays unless ``copy=True``."""
    if copy:
        t = tensor(obj, dtype=dtype, device=device) if not isinstance(obj, _tensor_cls()) \
            else obj.detach().to(dtype=dtype, copy=True)
    else:
        if copy is False and dtype is not None and isinstance(obj, (_ndarray, _tensor_cls())):
            src = D.from_np(obj.dtype) if isinstance(obj, _ndarray) else obj.dtype
            if src is not dtype:
                raise ValueError(f"can't alias tensor with dtype '{src._legacy}' into dtype "
                                 f"'{dtype._legacy}'.")
        t = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        check_requires_grad(t.dtype)
        t.requires_grad_(True)
    return t


def from_numpy(ndarray):
    """A tensor sharing memory with a NumPy array (torch's errors for unsupported arrays).

    Writes through either one show in the other; in-place ops on the tensor bump its version.
    """
    if not isinstance(ndarray, _ndarray):
        raise TypeError(f"expected np.ndarray (got {_type_name(ndarray)})")
    _check_numpy(ndarray, True)
    return finish(ndarray)


from ._registry import FUNCTIONS  # noqa: E402

for _fn in (tensor, as_tensor, asarray, from_numpy):
    FUNCTIONS[_fn.__name__] = _fn
