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

from .backends.numpy_backend import data_ptr, flat_buffer

_new = object.__new__


class Storage:
    """A flat buffer (1-D backend array), the device it lives on and the version counter.

    ``Storage.of(array, device)`` makes the Storage of a tensor that had none yet, and leaves
    the flat buffer to be made on first use: a new tensor's Storage is often wanted only for
    its version counter (a node saving its output, a ``w.t()`` that NumPy builds directly), and
    the buffer is not free to make. Until then the ``buffer`` slot is unset, ``_source`` holds
    the array, and ``__getattr__`` makes the buffer once; later reads find the slot.
    """

    __slots__ = ("buffer", "device", "version", "_source", "__weakref__")

    def __init__(self, buffer, device, version: int = 0):
        self.buffer = buffer
        self.device = device
        self.version = version

    @classmethod
    def of(cls, array, device) -> "Storage":
        st = _new(cls)
        st._source = array
        st.device = device
        st.version = 0
        return st

    def __getattr__(self, name):   # only reached while a slot is unset
        if name != "buffer":
            raise AttributeError(name)
        self.buffer = flat_buffer(self._source)
        self._source = None   # (the buffer is a view of it: no second reference to count)
        return self.buffer

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
