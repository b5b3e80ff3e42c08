"""``dyngrad.cuda``: the CUDA device module, as ``torch.cuda``.

dyngrad's CUDA backend (CuPy) is not written yet, so ``is_available()`` says whether one could
run here (CuPy importable and a GPU visible) and every attempt to put a tensor on ``cuda``
raises torch's error for a build without CUDA. Seeding functions are no-ops, as torch's are
when CUDA is not initialised.
"""
from __future__ import annotations

import importlib.util

_available = None


class OutOfMemoryError(RuntimeError):
    """Exception raised when device is out of memory"""

    __module__ = "dyngrad"   # (torch.OutOfMemoryError, which torch.cuda's is)


class AcceleratorError(RuntimeError):
    """Exception raised while executing on device"""

    __module__ = "dyngrad"   # (torch.AcceleratorError)


def is_available() -> bool:
    """True when CuPy is installed and sees at least one GPU (CuPy is imported only then)."""
    global _available
    if _available is None:
        _available = False
        if importlib.util.find_spec("cupy") is not None:
            try:
                import cupy
                _available = cupy.cuda.runtime.getDeviceCount() > 0
            except Exception:
                _available = False
    return _available


def device_count() -> int:
    """The number of GPUs dyngrad could use (0 without CuPy)."""
    if not is_available():
        return 0
    import cupy
    return int(cupy.cuda.runtime.getDeviceCount())


def is_initialized() -> bool:
    return False


def _lazy_init() -> None:
    """Raise as torch does when CUDA tensors are requested and cannot be made."""
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise NotImplementedError("dyngrad's CUDA backend (CuPy) is not implemented yet: tensors "
                              "live on the cpu")


def current_device() -> int:
    _lazy_init()


def synchronize(device=None) -> None:
    _lazy_init()


def get_device_name(device=None) -> str:
    _lazy_init()


def manual_seed(seed) -> None:
    """Seed the current GPU's generator: a no-op without CUDA (as torch's)."""


def manual_seed_all(seed) -> None:
    """Seed every GPU's generator: a no-op without CUDA (as torch's)."""


def seed() -> None:
    """A no-op without CUDA."""


def seed_all() -> None:
    """A no-op without CUDA."""


def empty_cache() -> None:
    """Release cached GPU memory: nothing to release here."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


from ._legacy_types import CUDA_TENSOR_TYPES as _CUDA_TENSOR_TYPES  # noqa: E402
globals().update(_CUDA_TENSOR_TYPES)   # torch.cuda.FloatTensor...: constructing one raises
