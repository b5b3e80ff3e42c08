"""Global settings user code calls on ``torch``: threads, determinism, matmul precision,
warnings, denormals, the default device, plus ``typename`` and ``is_storage``.

dyngrad runs single-threaded on NumPy, is deterministic by construction, computes float32
matmuls in NumPy's precision and cannot flush denormals, so most of these only store what they
are given and give it back, with torch's argument checks and messages. Each says so.
"""
from __future__ import annotations

import os
import warnings

from ._device import device as _device

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads",
           "get_num_interop_threads", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "set_warn_always",
           "is_warn_always_enabled", "set_flush_denormal", "set_default_device",
           "get_default_device", "typename", "is_storage", "compiled_with_cxx11_abi",
           "init_num_threads", "get_device_module", "has_lapack", "has_spectral", "has_mkl",
           "has_openmp"]


class _State:
    num_threads = os.cpu_count() or 1
    num_interop_threads = os.cpu_count() or 1
    interop_set = False
    deterministic = False
    deterministic_warn_only = False
    # the float32 matmul precision as torch keeps it: one setting for CUDA's matmuls and one for
    # the others ("ieee", "tf32" or "bf16"; see get_float32_matmul_precision)
    matmul_cuda = matmul_other = "ieee"
    warn_always = False
    flush_denormal = False
    default_device = None


_state = _State()


def _one_arg(fname, args):
    if len(args) != 1:
        raise TypeError(f"torch.{fname}() takes exactly one argument ({len(args)} given)")
    return args[0]


def _expect(fname, value, kind):
    """torch's C++ checks of a Python argument's type (``expects an int, but got float``)."""
    ok = type(value) is bool if kind is bool else \
        isinstance(value, int) and not isinstance(value, bool)
    if not ok:
        article = "an" if kind is int else "a"
        raise RuntimeError(f"{fname} expects {article} {kind.__name__}, but got "
                           f"{type(value).__name__}")
    return value


# -- threads -----------------------------------------------------------------------------------
def set_num_threads(*args) -> None:
    """Set the number of intra-op threads. dyngrad is single-threaded (NumPy may use its own
    BLAS threads): the value is only stored, for ``get_num_threads``."""
    n = _expect("set_num_threads", _one_arg("set_num_threads", args), int)
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _state.num_threads = n


def get_num_threads() -> int:
    """The number last given to ``set_num_threads`` (initially the CPU count); dyngrad itself
    is single-threaded."""
    return _state.num_threads


def set_num_interop_threads(*args) -> None:
    """Set the number of inter-op threads, once, as torch allows. dyngrad is single-threaded:
    the value is only stored."""
    n = _expect("set_num_interop_threads", _one_arg("set_num_interop_threads", args), int)
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _state.interop_set:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _state.num_interop_threads, _state.interop_set = n, True


def get_num_interop_threads() -> int:
    """The number given to ``set_num_interop_threads`` (initially the CPU count)."""
    return _state.num_interop_threads


def init_num_threads(*args, **kwargs) -> None:
    """Propagate ``set_num_threads`` to a new thread. dyngrad keeps one setting for every
    thread, so there is nothing to do. It takes no arguments (torch's pybind11 error)."""
    if args or kwargs:
        given = [", ".join(repr(a) for a in args)] if args else []
        if kwargs:
            given.append("kwargs: " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()))
        raise TypeError("init_num_threads(): incompatible function arguments. The following "
                        "argument types are supported:\n    1. () -> None\n\nInvoked with: "
                        + "; ".join(given))


# -- determinism -------------------------------------------------------------------------------
def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms only. Every dyngrad op is deterministic already: the
    flags are stored for ``are_deterministic_algorithms_enabled`` and friends."""
    if type(mode) is not bool:
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if type(warn_only) is not bool:
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _state.deterministic, _state.deterministic_warn_only = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _state.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state.deterministic_warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """``use_deterministic_algorithms`` by level: 0/"default" off, 1/"warn" on with warnings
    only, 2/"error" on."""
    if not isinstance(debug_mode, (str, int)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (warn only) or 2 (error), from ``use_deterministic_algorithms``' flags."""
    if not _state.deterministic:
        return 0
    return 1 if _state.deterministic_warn_only else 2


# -- precision, warnings, denormals --------------------------------------------------------------
def set_float32_matmul_precision(precision: str) -> None:
    """Store torch's float32 matmul precision ("highest", "high", "medium"). dyngrad's matmuls
    always run in NumPy's float32 precision; another string warns and is ignored, as in
    torch."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning,
                      stacklevel=2)
        return
    _state.matmul_cuda = _state.matmul_other = _PRECISION_MODES[precision]


_PRECISION_MODES = {"highest": "ieee", "high": "tf32", "medium": "bf16"}
_MIXED_PRECISION = ("PyTorch is checking the matmul precision without a specific backend name,"
                    "Current status indicate that you have used mix of the legacy and new APIs to "
                    "set the matmul precision. We suggest only using the new API for matmul "
                    "precision. See also: https://pytorch.org/docs/main/notes/cuda.html"
                    "#tensorfloat-32-tf32-on-ampere-and-later-devices")


def get_float32_matmul_precision() -> str:
    """The precision set_float32_matmul_precision set. ``backends.cuda.matmul.allow_tf32``
    changes only the CUDA half of it (as in torch): where the halves then disagree, torch
    refuses to name one precision, and so do we."""
    cuda, other = _state.matmul_cuda, _state.matmul_other
    if cuda == other or other == "ieee":
        return {"ieee": "highest", "tf32": "high", "bf16": "medium"}[cuda]
    raise RuntimeError(_MIXED_PRECISION)


def _set_cuda_matmul_tf32(allow: bool) -> None:
    """``backends.cuda.matmul.allow_tf32 = allow``: the CUDA half of the precision."""
    _state.matmul_cuda = "tf32" if allow else "ieee"


def _cuda_matmul_tf32() -> bool:
    return _state.matmul_cuda != "ieee"


def set_warn_always(b: bool, /) -> None:
    """Store whether warnings torch gives once should be given every time (read it with
    ``is_warn_always_enabled``)."""
    _state.warn_always = _expect("setWarnOnlyOnce", b, bool)


def is_warn_always_enabled() -> bool:
    return _state.warn_always


def set_flush_denormal(*args) -> bool:
    """Whether denormal floats may be flushed to zero. torch answers True on a CPU with SSE3,
    as dyngrad does; NumPy's arithmetic keeps denormals either way (the flag is only stored)."""
    _state.flush_denormal = _expect("flush_denormal", _one_arg("set_flush_denormal", args), bool)
    return True


# -- the default device --------------------------------------------------------------------------
def set_default_device(device) -> None:
    """Set the device factories use when given none (ops.creation.factory_device; ``with
    torch.device(...)`` sets it for a block). dyngrad's tensors live on the cpu: "cpu" (any
    index) and None are stored; "cuda" is stored, and reading it or calling a factory then
    fails, as torch without CUDA does; any other device raises."""
    from .ops.creation import check_device
    if device is None:
        _state.default_device = None
        return
    if isinstance(device, int) and not isinstance(device, bool):
        check_device(device)
    if not isinstance(device, (str, _device)):
        raise TypeError("device() received an invalid combination of arguments - got "
                        f"({type(device).__name__}), but expected one of:\n * (torch.device "
                        "device)\n      didn't match because some of the arguments have invalid "
                        f"types: (!{type(device).__name__}!)\n * (str type, int index = -1)\n")
    d = _device(device)
    if d.type not in ("cpu", "cuda"):
        check_device(d)
    _state.default_device = d


def get_default_device() -> _device:
    """The device set by ``set_default_device`` (the cpu by default)."""
    d = _state.default_device
    if d is None:
        return _device("cpu")
    if d.type == "cuda":
        from .ops.creation import check_device
        check_device(d)
    return d


# -- small introspection helpers -----------------------------------------------------------------
def get_device_module(device=None):
    """The module for a device type: ``dyngrad.cpu`` for ``"cpu"``, ``dyngrad.cuda`` for
    ``"cuda"``; with no device, that of the accelerator (cuda when it is available) or cpu.

    Differences from torch: device types without a module here (``mtia``, ``hpu``…) raise
    torch's error for an unregistered module, where torch returns its module for them."""
    import sys
    if isinstance(device, _device):
        name = device.type
    elif isinstance(device, str):
        name = _device(device).type
    elif device is None:
        from . import cuda
        name = "cuda" if cuda.is_available() else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    module = getattr(sys.modules[__name__.rsplit(".", 1)[0]], name, None)
    if module is None or type(module) is not type(sys):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered "
                           f"as 'torch.{name}'.")
    return module


def typename(obj, /) -> str:
    """A readable name for the type of `obj`: a tensor's legacy type (``torch.FloatTensor``),
    else the dotted name of `obj` if it is a class or function, or of its class."""
    from ._tensor import Tensor
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if name is None:
        module, name = type(obj).__module__ or "", type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def is_storage(obj, /) -> bool:
    """Whether `obj` is a storage (``tensor.untyped_storage()``)."""
    from ._storage import Storage, TypedStorage
    return isinstance(obj, (Storage, TypedStorage))


def compiled_with_cxx11_abi() -> bool:
    """True, as torch's binaries answer; dyngrad has no C++ part."""
    return True


# What the build has, as torch reports it. dyngrad's answers are its own: linear algebra runs on
# NumPy's LAPACK (torch.linalg works) and FFTs on NumPy's pocketfft (torch.fft works); MKL and
# OpenMP are not used (torch.backends.mkldnn.is_available() is False for the same reason).
has_lapack = True
has_spectral = True
has_mkl = False
has_openmp = False
