"""torch.accelerator.memory: the accelerator's caching allocator (raises: dyngrad has none).

torch asks first whether the allocator is initialised, which itself needs an accelerator, so
these raise before looking at their arguments, except ``get_memory_info``, which checks its
argument first, as torch's does."""
from __future__ import annotations

from ._utils import device_index as _device_index, no_accelerator as _no_accelerator

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats"]


def empty_cache() -> None:
    """Release the allocator's unused cached memory."""
    raise _no_accelerator()


def empty_host_cache() -> None:
    """Release the pinned host memory the allocator caches."""
    raise _no_accelerator()


def memory_stats(device_index=None, /):
    """The allocator's statistics for the device, flattened into an ordered dict."""
    raise _no_accelerator()


def memory_allocated(device_index=None, /) -> int:
    """Bytes the device's tensors occupy now."""
    raise _no_accelerator()


def max_memory_allocated(device_index=None, /) -> int:
    """The peak of ``memory_allocated``."""
    raise _no_accelerator()


def memory_reserved(device_index=None, /) -> int:
    """Bytes the allocator holds for the device now."""
    raise _no_accelerator()


def max_memory_reserved(device_index=None, /) -> int:
    """The peak of ``memory_reserved``."""
    raise _no_accelerator()


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    """Reset the allocator's accumulated counters."""
    raise _no_accelerator()


def reset_peak_memory_stats(device_index=None, /) -> None:
    """Reset the allocator's peak counters."""
    raise _no_accelerator()


def get_memory_info(device_index=None, /) -> tuple:
    """(free, total) bytes of the device."""
    _device_index(device_index, optional=True)
    raise _no_accelerator()
