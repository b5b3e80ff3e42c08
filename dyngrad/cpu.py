"""``dyngrad.cpu`` (``torch.cpu``): the CPU's answers to ``torch.cuda``'s questions, so that
device-agnostic code (``torch.get_device_module(device).synchronize()``) runs on the CPU.

Differences from torch: no ``Stream``/``Event``/``current_stream``/``stream``, ``amp`` or
``get_capabilities``.
"""
from __future__ import annotations

__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device",
           "synchronize"]


def is_available() -> bool:
    """Always True: the CPU is always there."""
    return True


def is_initialized() -> bool:
    """Always True."""
    return True


def device_count() -> int:
    """Always 1."""
    return 1


def current_device() -> str:
    """Always ``"cpu"``."""
    return "cpu"


def set_device(device) -> None:
    """Does nothing (there is one CPU device), as torch's."""


def synchronize(device=None) -> None:
    """Does nothing: every dyngrad op has finished when it returns."""
