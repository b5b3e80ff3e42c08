"""torch.accelerator: the device-agnostic API over the current accelerator (CUDA, XPU, MPS...).

dyngrad computes on the CPU, and the CPU is not an accelerator: as in torch's CPU build,
``is_available()`` is False, ``device_count()`` is 0 and ``current_accelerator()`` is None, so
the idiom ``torch.accelerator.current_accelerator() if torch.accelerator.is_available() else
"cpu"`` picks the CPU. Everything that would touch an accelerator device raises torch's
"Cannot access accelerator device when none is available." after torch's checks of its
arguments (``_utils.device_index``).
"""
from __future__ import annotations

import warnings

from .. import _device as _dev
from ._utils import device_index as _device_index, no_accelerator as _no_accelerator
from . import graphs, memory  # noqa: F401  (torch.accelerator.memory / .graphs)
from .graphs import Graph
from .memory import (empty_cache, empty_host_cache, get_memory_info, max_memory_allocated,
                     max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
                     reset_accumulated_memory_stats, reset_peak_memory_stats)

__all__ = ["Graph", "current_accelerator", "current_device_idx", "current_device_index",
           "get_device_capability", "current_stream", "device_count", "device_index",
           "empty_cache", "empty_host_cache", "get_memory_info", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
           "set_device_idx", "set_device_index", "set_stream", "synchronize"]


def device_count() -> int:
    """The number of accelerator devices: 0, dyngrad having none."""
    return 0


def is_available() -> bool:
    """Whether an accelerator can be used: False (tensors live on the CPU)."""
    return False


def current_accelerator(check_available: bool = False) -> _dev.device | None:
    """The accelerator's device type as a device without index, or None: always None here."""
    return None


def current_device_index() -> int:
    """The index of the current accelerator device (raises: there is none)."""
    raise _no_accelerator()


def current_device_idx() -> int:
    """Deprecated alias of ``current_device_index``."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def get_device_capability(device=None, /) -> dict:
    """The data types and features the accelerator device supports (raises: there is none)."""
    _device_index(device, optional=True)
    raise _no_accelerator()


def set_device_index(device, /) -> None:
    """Make `device` the current accelerator device (raises: there is none)."""
    _device_index(device, optional=False)
    raise _no_accelerator()


def set_device_idx(device, /) -> None:
    """Deprecated alias of ``set_device_index``."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    return set_device_index(device)


def current_stream(device=None, /):
    """The current stream of the accelerator device (raises: there is none)."""
    _device_index(device, optional=True)
    raise _no_accelerator()


def set_stream(stream) -> None:
    """Make `stream` the current stream of its device. dyngrad has no streams (torch.Stream),
    so whatever is passed is refused as torch's binding refuses a non-Stream."""
    raise TypeError("_accelerator_setStream(): incompatible function arguments. The following "
                    "argument types are supported:\n    1. (arg0: torch.Stream) -> None\n\n"
                    f"Invoked with: {stream!r}")


def synchronize(device=None, /) -> None:
    """Wait for the accelerator device's work to finish (raises: there is none)."""
    _device_index(device, optional=True)
    raise _no_accelerator()


class device_index:
    """Context manager making device `device` the current accelerator device for its block;
    ``None`` changes nothing (the only use without an accelerator)."""

    def __init__(self, device, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            raise _no_accelerator()

    def __exit__(self, *exc_info) -> None:
        return None
