"""Tensors over foreign memory: ``frombuffer`` (the Python buffer protocol), ``from_file`` (a
file, copied or memory-mapped), ``from_dlpack`` and ``Tensor.__dlpack__`` /
``__dlpack_device__`` (DLPack, through NumPy's implementation of it).

The results share memory with their source, as torch's do: writes through either show in the
other. Errors and warnings are torch's.

Differences from torch: only CPU memory (DLPack device kDLCPU); a raw DLPack capsule is read by
NumPy, which accepts the dtypes NumPy has.
"""
from __future__ import annotations

import enum
import errno
import os

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from .creation import check_pin_memory, dtype_arg, finish
from .tensor_new import _check_numpy
from ._registry import FUNCTIONS, METHODS

xp = _npb.xp

_NOT_WRITABLE_BUFFER = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
    "means you can write to the underlying (supposedly non-writable) buffer using the tensor. You "
    "may want to copy the buffer to protect its data or make it writable before converting it to "
    "a tensor. This type of warning will be suppressed for the rest of this program. (Triggered "
    "internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:1556.)")


def _warn_once(text: str) -> None:
    """TORCH_WARN_ONCE (every time after ``set_warn_always(True)``), at the caller's line."""
    from ._selection import warn_once_at_caller
    warn_once_at_caller(text)


def frombuffer(buffer, *, dtype=None, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over an object that implements the buffer protocol (no copy).

    Args:
        count: number of elements (-1: to the end of the buffer).
        offset: bytes to skip at the start.

    Example::

        >>> b = bytearray(b"\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00")
        >>> dyngrad.frombuffer(b, dtype=dyngrad.int32)
        tensor([1, 2], dtype=torch.int32)
    """
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    d = dtype_arg(dtype, "frombuffer")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    if view.readonly:
        _warn_once(_NOT_WRITABLE_BUFFER)
    size = d.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) "
                         f"must be a multiple of element size ({size})")
    if count < 0:
        count = (length - offset) // size
    elif length - offset < count * size:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    raw = view.cast("B") if view.ndim != 1 or view.format != "B" else view
    arr = xp.frombuffer(raw, dtype=d.np, count=count, offset=offset)
    if not arr.flags.writeable:          # torch writes through regardless (it warned above)
        try:
            arr.flags.writeable = True
        except ValueError:
            arr = xp.ndarray(arr.shape, arr.dtype, buffer=bytearray(arr.tobytes()))
    return finish(arr, requires_grad)


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    """`size` elements of `dtype` read from a file: memory-mapped read-write with
    ``shared=True`` (writes reach the file), else a private copy."""
    check_pin_memory(pin_memory)
    d = dtype_arg(dtype, "from_file") or D.get_default_dtype()
    nbytes = size * d.itemsize
    shared = bool(shared)
    mode = "read-write" if shared else "read-only"
    try:
        st = os.stat(filename)
    except OSError as e:
        code = e.errno or errno.ENOENT
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: "
                           f"{os.strerror(code)} ({code})") from None
    if st.st_size < nbytes:
        raise RuntimeError(f"file <{filename}> size <{st.st_size}> is smaller than the required "
                           f"mapping size <{nbytes}>")
    if size == 0:
        from .. import empty
        return empty(0, dtype=d, device=device, requires_grad=requires_grad)
    if shared:
        arr = xp.memmap(filename, dtype=d.np, mode="r+", shape=(size,))
    else:
        arr = xp.fromfile(filename, dtype=d.np, count=size)
    return finish(xp.asarray(arr) if not shared else arr, requires_grad, device)


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (``torch.utils.dlpack.DLDeviceType``)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def __dlpack_device__(self):
    """``(DLDeviceType.kDLCPU, 0)``: where the tensor's memory is, for DLPack consumers."""
    return (DLDeviceType.kDLCPU, 0)


def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule sharing the tensor's memory (``"dltensor"``, or
    ``"dltensor_versioned"`` when the consumer asks for ``max_version >= (1, 0)``)."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None:
        raise AssertionError("stream should be None on cpu.")
    if dl_device is not None and tuple(dl_device) != (DLDeviceType.kDLCPU, 0):
        raise BufferError(f"Unsupported device {tuple(dl_device)} for a CPU tensor")
    arr = self._data
    kw = {} if max_version is None or tuple(max_version) < (1, 0) else {"max_version": (1, 0)}
    if copy:
        arr = arr.copy()
    return arr.__dlpack__(**kw)


class _Capsule:
    """A bare DLPack capsule presented as an exporter, so that NumPy can read it."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


_INVALID_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                    "consumed only once, so you might have already constructed a tensor from it "
                    "once.")


def from_dlpack(ext_tensor):
    """A tensor sharing memory with `ext_tensor`: an object with ``__dlpack__`` (a NumPy array,
    a torch tensor…) or a DLPack capsule (``to_dlpack``'s result, usable once)."""
    if hasattr(ext_tensor, "__dlpack__"):
        device = ext_tensor.__dlpack_device__()
        if int(device[0]) != DLDeviceType.kDLCPU:
            raise RuntimeError(f"Unsupported device type: {device[0]!r} (dyngrad has no CUDA)")
        if isinstance(ext_tensor, _tensor_class()):
            ext_tensor = _Capsule(ext_tensor.__dlpack__())
        source = ext_tensor
    elif type(ext_tensor).__name__ == "PyCapsule":
        source = _Capsule(ext_tensor)
    else:
        raise RuntimeError(_INVALID_CAPSULE)
    try:
        arr = xp.from_dlpack(source)
    except (ValueError, TypeError) as e:
        if isinstance(source, _Capsule):
            raise RuntimeError(_INVALID_CAPSULE) from None
        raise RuntimeError(str(e)) from None
    _check_numpy(arr, False)
    return finish(_writable(arr))


def _writable(arr):
    """`arr`, or a writable alias of its memory: NumPy marks arrays read from an unversioned
    capsule read-only, while torch's tensors write through to the producer's memory."""
    if arr.flags.writeable or arr.size == 0:
        return arr
    import ctypes
    extent = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides)) + arr.itemsize
    raw = (ctypes.c_char * extent).from_address(arr.__array_interface__["data"][0])
    raw._keep = arr                      # the producer's memory lives as long as the alias
    return xp.ndarray(arr.shape, arr.dtype, buffer=raw, strides=arr.strides)


def to_dlpack(*args, **kwargs):
    """A DLPack capsule (``"dltensor"``) sharing the tensor's memory; it can be read once.
    Unlike ``Tensor.__dlpack__``, a tensor that requires grad is accepted (as torch's)."""
    from ._schema_args import parse
    (data,) = parse("_to_dlpack", (("data", "Tensor"),), args, kwargs)
    return data._data.__dlpack__()


def _tensor_class():
    from .creation import _tensor_cls
    return _tensor_cls()


FUNCTIONS["frombuffer"] = frombuffer
FUNCTIONS["from_file"] = from_file
FUNCTIONS["from_dlpack"] = from_dlpack
FUNCTIONS["to_dlpack"] = to_dlpack
METHODS["__dlpack__"] = __dlpack__
METHODS["__dlpack_device__"] = __dlpack_device__
