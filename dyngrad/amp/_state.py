"""Autocast's state: per thread and per device type, as torch's thread-local autocast flags,
and the torch-level functions that read and set it (``torch.is_autocast_enabled(device_type)``,
``set_autocast_dtype``, the weight-cast cache switch, the nesting count...).

Only CPU autocast changes what ops do (amp/_policy.py): dyngrad has no other device, so the
other device types keep a flag and a dtype that nothing reads, as torch's do on a machine
without them. Turning CPU autocast on in any thread installs the dispatcher's hook
(Note [Autocast] in amp/_policy.py); the count of such threads decides when it comes off.
"""
from __future__ import annotations

import re
import threading
import warnings

from .. import _dtypes as D

# the device types torch's autocast knows, with their default dtypes (None: torch gives a
# default dtype but no autocast state, "hip"); any other valid device type has neither
_AVAILABLE = ("cpu", "cuda", "ipu", "xpu", "maia", "xla", "mps", "hpu", "mtia", "privateuseone")
_BF16_DEVICES = ("cpu", "maia", "xla", "hpu")
# every device type torch's device strings name (most have no autocast)
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


def _default_dtype(device_type: str):
    if device_type in _BF16_DEVICES:
        # CPU autocast's default is bfloat16 (float16 until dyngrad has bfloat16)
        return getattr(D, "bfloat16", D.float16)
    return D.float16


class _State(threading.local):
    """One thread's autocast state: ``cpu`` is read by the dispatcher's hook on every op."""

    def __init__(self):
        self.cpu = False            # CPU autocast enabled in this thread
        self.excluded = False       # inside an op autocast already handled (no recasting)
        self.enabled = {}           # other device types: enabled flags
        self.dtypes = {}            # device type -> dtype set by set_autocast_dtype
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}             # id(leaf) -> (weakref to it, its lower-precision copy)


state = _State()
_lock = threading.Lock()
_cpu_threads = 0            # threads with CPU autocast enabled (the hook is on while > 0)
on_cpu_change = None        # set by amp/_policy.py: (any thread enabled) -> None


def _device_type(device_type, fn: str, position: int = 1) -> str:
    """`device_type` checked as torch's parser and device-string parser check it."""
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position {position}) must be str, "
                        f"not {type(device_type).__name__}")
    m = re.fullmatch(r"([a-zA-Z_]+)(?::[0-9]+)?", device_type)
    if m is None:
        raise RuntimeError(f"Invalid device string: '{device_type}'")
    if m.group(1) not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start "
                           f"of device string: {device_type}")
    return m.group(1)


def _autocast_device(device_type, fn: str) -> str:
    kind = _device_type(device_type, fn)
    if kind not in _AVAILABLE:
        raise RuntimeError("unknown device type for autocast in "
                           "get_autocast_dispatch_key_from_device_type")
    return kind


def _check_bool(value, fn: str, name: str, position: int) -> None:
    if type(value) is not bool:
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be bool, "
                        f"not {type(value).__name__}")


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast has a state for `device_type` ("cpu", "cuda", "mps"... not "meta")."""
    return _device_type(device_type, "_is_autocast_available") in _AVAILABLE


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for `device_type` in this thread (no argument: CUDA's)."""
    kind = _autocast_device(device_type, "is_autocast_enabled")
    return state.cpu if kind == "cpu" else state.enabled.get(kind, False)


def set_autocast_enabled(device_type, enabled=None) -> None:
    """``set_autocast_enabled(device_type, enabled)``; ``set_autocast_enabled(enabled)`` sets
    CUDA's (torch's older form)."""
    if enabled is None:
        _check_bool(device_type, "set_autocast_enabled", "enabled", 1)
        device_type, enabled = "cuda", device_type
    kind = _autocast_device(device_type, "set_autocast_enabled")
    _check_bool(enabled, "set_autocast_enabled", "enabled", 2)
    if kind != "cpu":
        state.enabled[kind] = enabled
        return
    if state.cpu is enabled:
        return
    global _cpu_threads
    with _lock:   # (the dispatcher must see the counts in order)
        state.cpu = enabled
        _cpu_threads += 1 if enabled else -1
        if on_cpu_change is not None:
            on_cpu_change(_cpu_threads > 0)


def get_autocast_dtype(device_type: str):
    """The dtype autocast casts to on `device_type` (CPU: bfloat16 unless set)."""
    kind = _device_type(device_type, "get_autocast_dtype")
    if kind not in _AVAILABLE and kind != "hip":
        raise RuntimeError("unsupported scalarType")
    return state.dtypes.get(kind) or _default_dtype(kind)


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Set the dtype autocast casts to on `device_type` (no check, as in torch: autocast's
    context manager refuses an unsupported one)."""
    kind = _device_type(device_type, "set_autocast_dtype")
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"torch.dtype, not {type(dtype).__name__}")
    state.dtypes[kind] = dtype


def is_autocast_cache_enabled() -> bool:
    return state.cache_enabled


def set_autocast_cache_enabled(enabled) -> None:
    if type(enabled) is not bool:
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    state.cache_enabled = enabled


def clear_autocast_cache() -> None:
    """Forget this thread's cached lower-precision copies of leaf tensors."""
    state.cache.clear()


def autocast_increment_nesting() -> int:
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting() -> int:
    state.nesting -= 1
    return state.nesting


# -- torch's deprecated spellings ---------------------------------------------------------------
_INIT_CPP = "/__w/pytorch/pytorch/torch/csrc/autograd/init.cpp"


def _deprecated(old: str, new: str, line: int) -> None:
    warnings.warn(f"{old} is deprecated. Please use {new} instead. (Triggered internally at "
                  f"{_INIT_CPP}:{line}.)", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled() -> bool:
    _deprecated("torch.is_autocast_cpu_enabled()", "torch.is_autocast_enabled('cpu')", 883)
    return state.cpu


def set_autocast_cpu_enabled(enabled) -> None:
    _deprecated("torch.set_autocast_cpu_enabled(enabled)",
                "torch.set_autocast_enabled('cpu', enabled)", 874)
    _check_bool(enabled, "set_autocast_cpu_enabled", "enabled", 1)
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("torch.get_autocast_cpu_dtype()", "torch.get_autocast_dtype('cpu')", 1016)
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype) -> None:
    _deprecated("torch.set_autocast_cpu_dtype(dtype)",
                "torch.set_autocast_dtype('cpu', dtype)", 967)
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("torch.get_autocast_gpu_dtype()", "torch.get_autocast_dtype('cuda')", 1007)
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype) -> None:
    _deprecated("torch.set_autocast_gpu_dtype(dtype)",
                "torch.set_autocast_dtype('cuda', dtype)", 952)
    set_autocast_dtype("cuda", dtype)


__all__ = ["is_autocast_available", "is_autocast_enabled", "set_autocast_enabled",
           "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled",
           "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "set_autocast_gpu_dtype"]
