"""Tensor creation: zeros/ones/full/empty/eye/scalar_tensor and the ``_like`` family, plus the
helpers every factory shares (scalar conversion, casts, layouts, sizes, ``out=``).

Creation functions make leaves: they take ``dtype``, ``device`` and ``requires_grad`` keywords
as torch's do and never record graph nodes. ``tensor``/``from_numpy`` live in tensor_new.py,
arange/linspace/logspace in range_factories.py, the random ones in distributions.py.

Note [Scalar conversions]
~~~~~~~~~~~~~~~~~~~~~~~~~
torch converts a Python number into a tensor element in two different ways, and the errors
differ, so dyngrad keeps both:

* ``torch.tensor(data)`` stores each element as its C++ ``store_scalar`` does: an integer
  dtype unpacks the object as a C ``long long`` (``__index__``; ``ValueError: Overflow when
  unpacking long long``) and checks the range ("value cannot be converted to type uint8 without
  overflow"), a floating dtype unpacks a C double ("must be real number, not list").
* ``full``/``fill_``/``scalar_tensor`` go through ``c10::Scalar::to<T>()`` (``checked_scalar``
  below), whose message names the C++ type ("... to type uint8_t without overflow").

Both follow c10's ``overflows`` rule: an unsigned dtype accepts negative *integers* down to
``-max`` (they wrap), never negative floats; floating dtypes accept inf and NaN but not finite
values beyond their range; a complex value with a non-zero imaginary part overflows any real
dtype. Converting to bool never overflows.

Note [Casts]
~~~~~~~~~~~~
``cast_array`` is torch's element conversion where NumPy's differs: a double becomes a half
through float (torch's ``c10::Half`` has no constructor from double, so 1 + 2**-11 + 2**-40 is
1.0 in torch and 1.001 in NumPy), and complex to real warns with torch's text.
"""
from __future__ import annotations

from ._geometry import infer_dense_strides, is_non_overlapping_and_dense  # noqa: F401

import math
import operator

from .. import _dtypes as D
from .._device import device as _device
from .._settings import _state as _settings_state
from .._promotion import scalar_dtype
from .._utils import contiguous_strides, shape_str
from ..autograd.grad_mode import _state as _grad_state
from ..backends import numpy_backend as _npb
from ..backends.sparse_coo import COO as _COO
from . import _dispatch

xp = _npb.xp
_ndarray = xp.ndarray

# c10's names for dtypes, as overflow and random-bounds messages print them
C10_NAME = {D.bool_: "bool", D.uint8: "uint8_t", D.int8: "int8_t", D.int16: "int16_t",
            D.int32: "int", D.int64: "int64_t", D.float16: "c10::Half", D.bfloat16: "c10::BFloat16",
            D.float32: "float",
            D.float64: "double", D.complex64: "c10::complex<float>",
            D.complex128: "c10::complex<double>", D.uint16: "uint16_t", D.uint32: "uint32_t",
            D.uint64: "uint64_t"}
TYPEMETA_NAME = {**C10_NAME, D.uint8: "unsigned char", D.int8: "signed char",
                 D.int16: "short int", D.int64: "long int", D.uint16: "short unsigned int",
                 D.uint32: "unsigned int", D.uint64: "long unsigned int"}

_COMPLEX_WARNING = ("Casting complex values to real discards the imaginary part (Triggered "
                    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)")
ZEROS = "zeros"   # the ``fill`` of alloc() for a zero-filled array


def _warn_once(msg: str) -> None:
    """TORCH_WARN_ONCE (every time after ``set_warn_always(True)``), at the caller's line; the
    messages given are kept with the other ops' (pointwise._WARNED), so a cast warned about
    here is not warned about again by a reduction's cast, as torch's one Copy.cpp warning."""
    from ._selection import warn_once_at_caller
    warn_once_at_caller(msg)


_TENSOR = []


def _tensor_cls():
    if not _TENSOR:
        from .._tensor import Tensor
        _TENSOR.append(Tensor)
    return _TENSOR[0]


def _type_name(v) -> str:
    """A type name as torch's argument parser prints it ('float', 'numpy.float64', 'Tensor')."""
    t = type(v)
    if isinstance(v, _tensor_cls()):
        return "Tensor"
    mod = t.__module__
    if mod is not None and mod.startswith("dyngrad"):   # torch's own types: "torch.dtype"...
        from ._arg_parser import type_name
        return type_name(v)
    return t.__name__ if mod in ("builtins", None) else f"{mod}.{t.__name__}"


def argument_list(positional, keywords) -> str:
    """Arguments as torch's parser lists them in its errors: ``int, min=int``, and ``min=int, ``
    (so, with a trailing comma) when there are keywords alone."""
    return ", ".join(positional + keywords) + (", " if keywords and not positional else "")


def invalid_combination(fname, args, signatures, kwargs=None) -> TypeError:
    """The TypeError of torch's argument parser when no overload matches the arguments."""
    got = argument_list([_type_name(a) for a in args],
                        [f"{k}={_type_name(v)}" for k, v in (kwargs or {}).items()])
    lines = "".join(f" * ({sig})\n" for sig in signatures)
    return TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{lines}")


FACTORY_KW = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
              "None, bool pin_memory = False, bool requires_grad = False")


# ---------------------------------------------------------------------------------------------
# Devices, finishing a new leaf, out=
# ---------------------------------------------------------------------------------------------
def check_device(device) -> None:
    """Accept cpu; raise torch's errors for devices dyngrad cannot serve here."""
    if device is None:
        return
    if type(device) is int:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    d = device if isinstance(device, _device) else _device(device)
    if d.type == "cpu":
        return
    if d.type == "cuda":
        from .. import cuda
        cuda._lazy_init()
    if d.type == "xpu":   # (torch's CPU build asserts the same for XPU as for CUDA)
        raise AssertionError("Torch not compiled with XPU enabled")
    if d.type == "mtia":
        raise AssertionError("Torch not compiled with MTIA enabled. Ensure you have `import "
                             "mtia.host_runtime.torch_mtia.dynamic_library` in your python src "
                             "file and include `//mtia/host_runtime/torch_mtia:torch_mtia` as "
                             "your target dependency!")
    if d.type in ("hpu", "privateuseone"):   # (torch looks for a backend module first)
        raise ModuleNotFoundError(f"No module named 'torch.{d.type}'")
    if d.type in ("mkldnn", "opengl", "opencl", "ideep"):   # (Caffe2's, no backend at all)
        raise RuntimeError('0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/'
                           'TensorOptions.h":663, please report a bug to PyTorch. This is a '
                           f"grandfathered Caffe2 device type {d.type}, it shouldn't ever "
                           "convert to a DispatchKey.  File a bug describing what you were "
                           "doing if you think this is in error.")
    raise NotImplementedError(f"dyngrad has no '{d.type}' backend: tensors live on the cpu")


# the device types torch's CPU build refuses in ``Tensor.to`` by saying it has no support linked
_NOT_LINKED = frozenset(("mps", "hip", "ipu", "mkldnn", "opengl", "opencl", "ideep", "ve",
                         "fpga", "maia", "vulkan", "xla"))


def check_to_device(device) -> None:
    """``check_device`` for ``Tensor.to``: torch's conversion names the devices it was built
    without before it allocates anything."""
    if device is not None and type(device) is not int:
        device = device if isinstance(device, _device) else _device(device)
        if device.type in _NOT_LINKED:
            raise RuntimeError(f"PyTorch is not linked with support for {device.type} devices")
    check_device(device)


def factory_device(device):
    """A factory function's device: `device`, or when none is given the default device
    (``set_default_device``, ``with torch.device(...)``), as torch's factory functions take it
    (``*_like``, ``new_*`` and conversions keep their input's device instead). The default can
    only be the cpu or a stored cuda, which ``check_device`` then refuses as torch does."""
    return _settings_state.default_device if device is None else device


def check_requires_grad(dtype: D.dtype) -> None:
    if dtype.category < D.FLOAT:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")


_PIN_MEMORY = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
               "allocator is available on this system.")


def check_pin_memory(pin_memory) -> None:
    """torch's error for a factory's ``pin_memory=True``: pinned memory needs an accelerator's
    allocator, which a CPU-only build (dyngrad's) has not."""
    if pin_memory:
        raise RuntimeError(_PIN_MEMORY)


def finish(arr, requires_grad=False, device=None, out=None):
    """Wrap a fresh array as a leaf (or write it into ``out``), after torch's checks."""
    check_device(device)
    t = _dispatch._wrap(arr) if out is None else write_out(out, arr)
    if _grad_state.inference and out is None:
        t._is_inference = True          # a factory under inference_mode: an inference tensor
    if requires_grad:
        check_requires_grad(D.from_np(arr.dtype))
        t._requires_grad = True
    return t


_PY_TYPE_DTYPES = {float: D.float64, int: D.int64, bool: D.bool_, complex: D.complex128}


def dtype_arg(dtype, fname=""):
    """A ``dtype=`` argument: a dtype, None, or a Python type (``float`` is float64, as torch)."""
    if dtype is None or isinstance(dtype, D.dtype):
        return dtype
    d = _PY_TYPE_DTYPES.get(dtype) if isinstance(dtype, type) else None
    if d is None:
        raise TypeError(f"{fname}(): argument 'dtype' must be torch.dtype, not "
                        f"{_type_name(dtype)}")
    return d


def out_dtype(dtype, out, default, fname=""):
    """The dtype a factory with ``out=`` produces: out's, which an explicit dtype must match."""
    if dtype is not None and not isinstance(dtype, D.dtype):
        dtype = dtype_arg(dtype, fname)
    if out is None:
        return dtype or default
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {dtype._legacy} does not match dtype of out parameter "
                           f"({out.dtype._legacy})")
    return out.dtype


def write_out(out, arr):
    """Store a factory's result in ``out`` (resized when its shape differs, as torch)."""
    if out._data.shape == arr.shape:
        xp.copyto(out._data, arr, casting="unsafe")
    else:
        out._data = arr.astype(out._data.dtype, copy=False)
        out._storage = None
        out._offset = 0
    out._bump_version()
    return out


# ---------------------------------------------------------------------------------------------
# Scalars. See Note [Scalar conversions].
# ---------------------------------------------------------------------------------------------
def _overflow(d, name=None):
    return RuntimeError(f"value cannot be converted to type {name or C10_NAME[d]} without "
                        "overflow")


_LIMITS: dict = {}


def _int_limits(d):
    r = _LIMITS.get(d)
    if r is None:
        info = xp.iinfo(d.np)
        r = _LIMITS[d] = (int(info.min), int(info.max))
    return r


def _float_max(d) -> float:
    r = _LIMITS.get(d)
    if r is None:
        r = _LIMITS[d] = float(_npb.finfo(d.to_real().np).max)
    return r


def number(value, fname="", argname="", pos=0):
    """A Python number from a Number, NumPy scalar or one-element tensor (torch's Scalar)."""
    t = type(value)
    if t is float or t is int or t is bool or t is complex:
        return value
    if isinstance(value, _tensor_cls()):
        if value.numel() != 1 or value.ndim:
            raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be "
                            f"Number, not Tensor")
        return value.item()
    if isinstance(value, xp.generic) and value.dtype.kind in "biufc":
        return value.item()
    for base in (bool, int, float, complex):    # subclasses of Python numbers
        if isinstance(value, base):
            return base(value)
    raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Number, not "
                    f"{_type_name(value)}")


def checked_scalar(value, d: D.dtype):
    """``c10::Scalar::to<T>()``: `value` as a Python number for dtype `d`, or torch's error."""
    if d is D.bool_:
        return bool(value)
    if type(value) is bool:
        value = int(value)
    if isinstance(value, complex):
        if d.category != D.COMPLEX:
            if value.imag != 0:
                raise _overflow(d)
            value = value.real
        else:
            for part in (value.real, value.imag):
                if not math.isinf(part) and not math.isnan(part) and abs(part) > _float_max(d):
                    raise _overflow(d)
            return value
    if isinstance(value, float):
        if d.category >= D.FLOAT:
            if not math.isinf(value) and not math.isnan(value) and abs(value) > _float_max(d):
                raise _overflow(d)
            return value
        lo, hi = _int_limits(d)
        if value != value or value < lo or value > hi:
            raise _overflow(d)
        return int(value)
    # integers
    if not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError("int too big to convert")
    if d.category >= D.FLOAT:
        if abs(value) > _float_max(d):
            raise _overflow(d)
        return value
    lo, hi = _int_limits(d)
    if value > hi or (value < lo and (lo < 0 or -value > hi)):
        raise _overflow(d)
    return value


def fill_array(value, d: D.dtype):
    """A 0-dim array of dtype `d` holding an already checked scalar (ints wrap as in C)."""
    if d.category == D.COMPLEX:
        return xp.array(complex(value)).astype(d.np)
    if d.category == D.FLOAT:
        return cast_array(xp.array(float(value)), d.np)
    if d is D.bool_:
        return xp.array(bool(value))
    if isinstance(value, float):
        value = int(value)
    return xp.array(value).astype(d.np)     # int64 or uint64 -> d, wrapping


def wrapped_scalar(value):
    """A 0-dim tensor for a Python number taking part in an op (torch's wrapped number)."""
    d = scalar_dtype(value)
    return _dispatch._wrap(fill_array(checked_scalar(number(value), d), d))


def cast_array(arr, np_dtype):
    """`arr` converted to `np_dtype` as torch converts elements. See Note [Casts]."""
    src = arr.dtype
    if src == np_dtype:
        return arr
    if src.kind == "c" and np_dtype.kind not in "cb":
        _warn_once(_COMPLEX_WARNING)
        arr = arr.real
        src = arr.dtype
    if np_dtype.kind in "fV" and np_dtype.itemsize == 2 and src.itemsize == 8:
        arr = arr.astype(xp.float32)
    return arr.astype(np_dtype)


# ---------------------------------------------------------------------------------------------
# Layouts: contiguous, channels_last, and torch's preserve_format
# ---------------------------------------------------------------------------------------------
def preserve_strides(shape, strides) -> tuple:
    """Strides of ``empty_like(x)`` with preserve_format: x's own if dense, else inferred."""
    shape, strides = tuple(shape), tuple(strides)
    if 0 in shape or is_non_overlapping_and_dense(shape, strides):
        return strides
    return infer_dense_strides(shape, strides)


def format_strides(shape, memory_format) -> tuple:
    """Strides of a new tensor of `shape` in an explicit memory format."""
    from .._tensor import channels_last, channels_last_3d, channels_last_strides, \
        contiguous_format, preserve_format
    if memory_format is None or memory_format is contiguous_format:
        return contiguous_strides(shape)
    if memory_format is channels_last or memory_format is channels_last_3d:
        rank = 4 if memory_format is channels_last else 5
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {memory_format.name} format")
        return channels_last_strides(shape)
    if memory_format is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    raise RuntimeError(f"unsupported memory format {memory_format}")


def like_strides(input, memory_format) -> tuple:
    """Strides of an ``*_like(input)`` result (torch's empty_like)."""
    from .._tensor import preserve_format
    if memory_format is None or memory_format is preserve_format:
        return preserve_strides(input._data.shape, input.stride())
    return format_strides(tuple(input._data.shape), memory_format)


def _channels_last_like(shape, strides, order) -> bool:
    """torch's is_channels_last_strides_2d_s4 / _3d_s5 (order: the dims, fastest first)."""
    if strides[1] == 0:
        return False
    lowest = 0
    for d in order:
        if shape[d] == 0 or strides[d] < lowest:
            return False
        if d == 0 and lowest == strides[1]:
            return False
        lowest = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest_memory_format(shape, strides):
    """torch's ``Tensor.suggest_memory_format()``: channels_last(_3d) if the strides look so."""
    from .._tensor import channels_last, channels_last_3d, contiguous_format
    if len(shape) == 4 and _channels_last_like(shape, strides, (1, 3, 2, 0)):
        return channels_last
    if len(shape) == 5 and _channels_last_like(shape, strides, (1, 4, 3, 2, 0)):
        return channels_last_3d
    return contiguous_format


def overlap_status(a, b) -> str:
    """torch's get_overlap_status for two tensors: 'full', 'partial', 'no' or 'too_hard'."""
    if a is b:
        return "full"
    x, y = a._data, b._data
    if x.size == 0 or y.size == 0:
        return "no"
    if not (is_non_overlapping_and_dense(x.shape, a.stride())
            and is_non_overlapping_and_dense(y.shape, b.stride())):
        return "too_hard"
    xb, yb = _npb.data_ptr(x), _npb.data_ptr(y)   # dense: the first element is the lowest
    xe = xb + x.size * x.itemsize
    ye = yb + y.size * y.itemsize
    if xb == yb and xe == ye:
        return "full" if a.stride() == b.stride() else "partial"
    if xb < ye and yb < xe:
        return "partial"
    return "no"


def storage_size(shape, strides) -> int:
    """Elements a tensor of this geometry spans (torch's computeStorageNbytes / itemsize)."""
    if any(n == 0 for n in shape):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, strides))


def alloc(shape, np_dtype, strides=None, fill=None):
    """A new array of `shape` with torch's `strides` (contiguous by default), maybe filled.

    ``fill`` is None (uninitialised), ZEROS or a 0-dim array of the dtype (``fill_array``).
    """
    shape = tuple(shape)
    if strides is None or tuple(strides) == contiguous_strides(shape):
        if 0 in shape:     # NumPy gives 0 strides here, torch contiguous ones
            return _npb.strided(xp.empty(0, np_dtype), shape, contiguous_strides(shape), 0)
        if fill is None:
            return xp.empty(shape, np_dtype)
        if fill is ZEROS:
            return xp.zeros(shape, np_dtype)
        return xp.full(shape, fill, np_dtype)
    n = storage_size(shape, strides)
    if fill is None:
        buf = xp.empty(n, np_dtype)
    elif fill is ZEROS:
        buf = xp.zeros(n, np_dtype)
    else:
        buf = xp.full(n, fill, np_dtype)
    return _npb.strided(buf, shape, strides, 0)


def copy_with_strides(arr, np_dtype, strides):
    """A copy of `arr` converted to `np_dtype`, laid out with `strides`."""
    out = alloc(arr.shape, np_dtype, strides)
    out[...] = cast_array(arr, np_dtype)
    return out


def laid_out_like(fresh, like):
    """`fresh` (a kernel's own new array) laid out as ``empty_like(like)`` would be
    (preserve_format): itself when it already is, else a copy with those strides."""
    strides = preserve_strides(like.shape, [s // like.itemsize for s in like.strides])
    if fresh.strides == tuple([s * fresh.itemsize for s in strides]):
        return fresh
    return copy_with_strides(fresh, fresh.dtype, strides)


# ---------------------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------------------
def _is_int(v) -> bool:
    if type(v) is int or isinstance(v, xp.integer):
        return True
    if isinstance(v, _tensor_cls()):
        return v._data.dtype.kind in "iu" and v._data.size == 1
    return False


def parse_size(fname: str, size, arg: str = "size") -> tuple:
    """An IntArrayRef argument: ints as varargs, or one tuple/list/Size (torch's errors)."""
    if len(size) > 1 and isinstance(size[0], (tuple, list)):
        raise TypeError(f"{fname}() takes 1 positional argument but {len(size)} were given")
    if len(size) == 1 and not _is_int(size[0]):
        items = size[0]
        if not isinstance(items, (tuple, list)):
            raise TypeError(f"{fname}(): argument '{arg}' (position 1) must be tuple of ints, "
                            f"not {_type_name(items)}")
    else:
        items = size
    out = []
    for i, v in enumerate(items):
        if type(v) is bool:
            raise TypeError(f"{fname}(): argument '{arg}' (position 1) must be tuple of ints, "
                            f"but found element of type bool at pos {i}")
        if not _is_int(v):
            raise TypeError(f"{fname}(): argument '{arg}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{_type_name(v)}\"")
        out.append(operator.index(v))
    return tuple(out)


def _size_kw(fname, kwargs):
    """The ``size=`` keyword of a varargs factory; any other keyword is a TypeError."""
    size = kwargs.pop("size", None)
    if kwargs:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return size


def fresh(arr):
    """`arr` from a NumPy routine, with torch's contiguous strides when it is empty."""
    return alloc(arr.shape, arr.dtype) if arr.size == 0 else arr


def check_size(shape) -> tuple:
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{shape_str(shape)}")
    return shape


def _size_args(fname, size, kw_size):
    if kw_size is not None:
        if size:
            raise TypeError(f"{fname}() got multiple values for argument 'size'")
        size = (kw_size,)
    if not size:
        raise TypeError(f"{fname}() missing 1 required positional arguments: \"size\"")
    return parse_size(fname, size)


# ---------------------------------------------------------------------------------------------
# Factories
# ---------------------------------------------------------------------------------------------
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs):
    """An uninitialised tensor of the given size."""
    check_pin_memory(pin_memory)
    shape = check_size(_size_args("empty", size, _size_kw("empty", kwargs)))
    d = out_dtype(dtype, out, D.get_default_dtype(), "empty")
    arr = alloc(shape, d.np, format_strides(shape, memory_format))
    return finish(arr, requires_grad, factory_device(device), out)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, **kwargs):
    """A tensor filled with 0 (size as varargs, a tuple, a list or a torch.Size)."""
    shape = _size_args("zeros", size, _size_kw("zeros", kwargs))
    if any(n < 0 for n in shape):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    check_pin_memory(pin_memory)
    d = out_dtype(dtype, out, D.get_default_dtype(), "zeros")
    return finish(alloc(shape, d.np, fill=ZEROS), requires_grad, factory_device(device), out)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, **kwargs):
    """A tensor filled with 1."""
    check_pin_memory(pin_memory)
    shape = check_size(_size_args("ones", size, _size_kw("ones", kwargs)))
    d = out_dtype(dtype, out, D.get_default_dtype(), "ones")
    return finish(alloc(shape, d.np, fill=xp.array(1).astype(d.np)), requires_grad,
                  factory_device(device), out)


def _fill_dtype(value):
    """The dtype torch's ``full`` infers from its fill value (NumPy non-integers: default)."""
    if isinstance(value, (xp.generic,)) and not isinstance(value, xp.integer):
        return D.get_default_dtype()
    if isinstance(value, _tensor_cls()):
        return scalar_dtype(value.item())
    return scalar_dtype(value)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of `size` filled with `fill_value`; dtype inferred from the value as torch."""
    check_pin_memory(pin_memory)
    shape = check_size(_full_size(size))
    value = number(fill_value, "full", "fill_value", 2)
    d = out_dtype(dtype, out, _fill_dtype(fill_value), "full")
    fill = fill_array(checked_scalar(value, d), d)
    return finish(alloc(shape, d.np, fill=fill), requires_grad, factory_device(device), out)


def _full_size(size):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{_type_name(size)}")
    return parse_size("full", (size,))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor with the given size and stride (its storage spans exactly
    what the geometry addresses)."""
    check_pin_memory(pin_memory)
    for name, v in (("size", size), ("stride", stride)):
        if not isinstance(v, (tuple, list)):
            raise TypeError(f"empty_strided(): argument '{name}' (position "
                            f"{1 if name == 'size' else 2}) must be tuple of ints, not "
                            f"{_type_name(v)}")
    shape = check_size(parse_size("empty_strided", (size,)))
    strides = parse_size("empty_strided", (stride,), "stride")
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(strides)})")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape_str(shape)} "
                           f"and strides={shape_str(strides)}")
    d = dtype_arg(dtype, "empty_strided") or D.get_default_dtype()
    return finish(alloc(shape, d.np, strides), requires_grad, factory_device(device))


def empty_permuted(*args, **kwargs):
    """An uninitialised dense tensor of `size` whose dims lie in memory in the order
    `physical_layout` gives, outermost first: ``t.stride(physical_layout[i])`` is the i-th
    contiguous stride of the permuted size (``(0, 2, 3, 1)`` lays out NCHW as NHWC).

    Signature: ``empty_permuted(size, physical_layout, *, dtype=None, layout=None,
    device=None, requires_grad=False, pin_memory=False)``.
    """
    names = ("size", "physical_layout")
    if len(args) > 2:
        raise TypeError(f"empty_permuted() takes 2 positional arguments but {len(args)} were "
                        "given")
    given = dict(zip(names, args))
    for name in names:
        if name in kwargs:
            given[name] = kwargs.pop(name)
    # (torch's parser names every argument from the first missing one on, and writes
    # "argument" for two, "arguments" for one)
    missing = names[0:] if "size" not in given else names[1:] if len(given) < 2 else ()
    if missing:
        raise TypeError(f"empty_permuted() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) == 1 else ''}: "
                        + ", ".join(f'"{name}"' for name in missing))
    for k in kwargs:
        if k not in ("dtype", "layout", "device", "requires_grad", "pin_memory"):
            raise TypeError(f"empty_permuted() got an unexpected keyword argument '{k}'")
    size, layout_ = given["size"], given["physical_layout"]
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    requires_grad = kwargs.get("requires_grad", False)
    shape, perm = (_int_list("empty_permuted", name, pos, v) for name, pos, v in
                   (("size", 1, size), ("physical_layout", 2, layout_)))
    n = len(shape)
    if len(perm) != n:
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {n} is not equal to "
                           f"len(physical_layout) = {len(perm)}")
    seen = set()
    for i, d in enumerate(perm):
        if not 0 <= d < n:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {n - 1}, "
                               f"but got {d} at index {i}).  NB: negative dims not currently "
                               "supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    check_pin_memory(kwargs.get("pin_memory"))
    physical = tuple(shape[d] for d in perm)
    check_size(physical)
    physical_strides = contiguous_strides(physical)
    strides = [0] * n
    for i, d in enumerate(perm):
        strides[d] = physical_strides[i]
    d = dtype_arg(dtype, "empty_permuted") or D.get_default_dtype()
    return finish(alloc(shape, d.np, tuple(strides)), requires_grad, factory_device(device))


def _int_list(fname, name, pos, value) -> tuple:
    """A ``SymIntArrayRef`` argument as torch's parser reads it: the first element must be a
    true int (not bool); later ones anything ``__index__`` takes (bools included)."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be tuple of ints, "
                        f"not {_type_name(value)}")
    for i, v in enumerate(value):
        if not _is_int(v) or (i == 0 and type(v) is bool):
            if i == 0:
                raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be tuple "
                                f"of ints, but found element of type {_type_name(v)} at pos 0")
            raise TypeError(f"{fname}(): argument '{name}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{_type_name(v)}\"")
    return tuple(operator.index(v) for v in value)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """A 2-D tensor with ones on the diagonal (n x m, m defaults to n)."""
    check_pin_memory(pin_memory)
    for name, pos, v in (("n", 1, n), ("m", 2, m)):
        if v is not None and (type(v) is bool or not _is_int(v)):
            raise TypeError(f"eye(): argument '{name}' (position {pos}) must be int, not "
                            f"{_type_name(v)}")
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = out_dtype(dtype, out, D.get_default_dtype(), "eye")
    if d in D.LIMITED_UNSIGNED:   # (no kernel: Note [Limited unsigned dtypes] in _promotion.py)
        raise NotImplementedError(f"\"eye\" not implemented for '{d._legacy}'")
    arr = alloc((n, m), d.np, fill=ZEROS)
    k = min(n, m)
    arr[xp.arange(k), xp.arange(k)] = 1
    return finish(arr, requires_grad, factory_device(device), out)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A 0-dim tensor holding `s`, of the default dtype unless `dtype` is given (as torch:
    ``scalar_tensor(3)`` is float32)."""
    value = number(s, "scalar_tensor", "s", 1)
    check_pin_memory(pin_memory)
    d = dtype_arg(dtype, "scalar_tensor") or D.get_default_dtype()
    return finish(fill_array(checked_scalar(value, d), d), requires_grad, factory_device(device))


# -- the _like family ------------------------------------------------------------------------
def check_tensor_arg(fname, input, name="input", pos=1):
    if not isinstance(input, _tensor_cls()):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{_type_name(input)}")


_NEW = {ZEROS: xp.zeros, 1: xp.ones, None: xp.empty}


def _like(fname, input, dtype, fill, requires_grad, memory_format, device, pin_memory):
    check_tensor_arg(fname, input)
    check_pin_memory(pin_memory)
    src = input._data
    if type(src) is _COO:
        from .sparse import sparse_like
        return sparse_like(input, dtype, fill, requires_grad)
    np_dtype = src.dtype if dtype is None else dtype_arg(dtype, fname).np
    if src.flags.c_contiguous and src.size and fill in _NEW and memory_format is None \
            and device is None and (src.ndim < 2 or 1 not in src.shape):
        # the common case (a contiguous input, as the autograd engine's seeds): no layout work
        arr = _NEW[fill](src.shape, np_dtype)
        return finish(arr, requires_grad)
    d = D.from_np(np_dtype)
    if fill is not None and fill is not ZEROS:
        fill = fill_array(checked_scalar(fill, d), d)
    arr = alloc(src.shape, np_dtype, like_strides(input, memory_format), fill)
    return finish(arr, requires_grad, device)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, pin_memory=False):
    """An uninitialised tensor like `input` (same layout under preserve_format)."""
    return _like("empty_like", input, dtype, None, requires_grad, memory_format, device,
                 pin_memory)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, pin_memory=False):
    return _like("zeros_like", input, dtype, ZEROS, requires_grad, memory_format, device,
                 pin_memory)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, pin_memory=False):
    return _like("ones_like", input, dtype, 1, requires_grad, memory_format, device,
                 pin_memory)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, pin_memory=False):
    value = number(fill_value, "full_like", "fill_value", 2)
    return _like("full_like", input, dtype, value, requires_grad, memory_format, device,
                 pin_memory)


# -- predicates --------------------------------------------------------------------------------
def is_tensor(obj) -> bool:
    """True if `obj` is a dyngrad Tensor."""
    return isinstance(obj, _tensor_cls())


def numel(input) -> int:
    check_tensor_arg("numel", input)
    return input._data.size


def is_floating_point(input) -> bool:
    check_tensor_arg("is_floating_point", input)
    return input._data.dtype.kind in "fV"


def is_complex(input) -> bool:
    check_tensor_arg("is_complex", input)
    return input._data.dtype.kind == "c"


def is_nonzero(input) -> bool:
    check_tensor_arg("is_nonzero", input)
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0])


from ._registry import FUNCTIONS  # noqa: E402

for _fn in (scalar_tensor, empty, zeros, ones, full, empty_strided, empty_permuted, eye,
            empty_like, zeros_like, ones_like, full_like, is_tensor, numel, is_floating_point,
            is_complex, is_nonzero):
    FUNCTIONS[_fn.__name__] = _fn


def __getattr__(name):
    # tensor()/from_numpy() live in tensor_new.py; ``creation.tensor`` still finds them
    if name in ("tensor", "as_tensor", "asarray", "from_numpy"):
        from . import tensor_new
        return getattr(tensor_new, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
