"""``dyngrad.mps``: the device module of Apple's Metal GPUs, as torch's builds without MPS
have it: ``is_available()`` is False, ``device_count()`` 0, ``manual_seed`` does nothing, and
the rest raise torch's error for the missing backend. dyngrad has no MPS backend.
"""
from __future__ import annotations


def _no_backend(what: str):
    def call(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")
    return call


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed) -> None:
    """Nothing to seed without the backend (torch returns at once)."""


seed = get_rng_state = set_rng_state = _no_backend("getDefaultGenerator")
synchronize = _no_backend("deviceSynchronize")
empty_cache = _no_backend("emptyCache")
current_allocated_memory = _no_backend("getCurrentAllocatedMemory")
driver_allocated_memory = _no_backend("getDriverAllocatedMemory")
recommended_max_memory = _no_backend("getRecommendedMaxMemory")
_set_memory_fraction = _no_backend("setMemoryFraction")


def set_per_process_memory_fraction(fraction) -> None:
    """torch's checks of the fraction, then its error for the missing backend."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 2:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~2")
    _set_memory_fraction(fraction)


def compile_shader(source: str):
    raise RuntimeError("MPS is not available")


def load_metallib(source):
    raise RuntimeError("MPS is not available")


class Event:
    """An MPS event: there is no backend to make one."""

    def __init__(self, enable_timing: bool = False) -> None:
        raise RuntimeError("Cannot execute acquireEvent() without MPS backend.")
