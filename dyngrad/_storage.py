"""Storage: one flat backend buffer, its device and the version counter shared by its views.

Note [Version counters]
~~~~~~~~~~~~~~~~~~~~~~~
torch keeps one version counter per group of tensors that alias each other through views and
``detach()``; every in-place op bumps it, and a saved tensor remembers the version it was saved
at. dyngrad keeps that counter on the Storage object: views and ``detach()`` share the Storage,
so they share the counter. ``.data`` is the one exception torch makes (it aliases the memory but
gets a fresh counter); dyngrad gives it a new Storage over the *same* buffer.
"""
from __future__ import annotations

from .backends.numpy_backend import data_ptr


class Storage:
    """A flat buffer (1-D backend array), the device it lives on and the version counter."""

    __slots__ = ("buffer", "device", "version", "__weakref__")

    def __init__(self, buffer, device, version: int = 0):
        self.buffer = buffer
        self.device = device
        self.version = version

    # torch.UntypedStorage-like accessors (sizes are in bytes, as torch's untyped storage)
    def data_ptr(self) -> int:
        return data_ptr(self.buffer)

    def nbytes(self) -> int:
        return self.buffer.nbytes

    def size(self) -> int:
        return self.buffer.nbytes

    __len__ = size

    def element_size(self) -> int:
        return 1

    def __repr__(self) -> str:
        return (f"dyngrad.UntypedStorage(nbytes={self.nbytes()}, device={self.device}, "
                f"data_ptr={self.data_ptr():#x})")
