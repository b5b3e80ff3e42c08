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

from . import _shared_memory
from .backends.numpy_backend import data_ptr, flat_buffer, xp as _xp

_new = object.__new__


class UntypedStorage:
    """A flat buffer (1-D backend array), the device it lives on and the version counter
    (torch.UntypedStorage; called ``Storage`` inside dyngrad).

    ``Storage.of(array, device)`` makes the Storage of a tensor that had none yet, and leaves
    the flat buffer to be made on first use: a new tensor's Storage is often wanted only for
    its version counter (a node saving its output, a ``w.t()`` that NumPy builds directly), and
    the buffer is not free to make. Until then ``_buffer`` is None, ``_source`` holds the
    array, and the ``buffer`` property makes the buffer once. (A property, not a
    ``__getattr__``: Note [Node attributes are class attributes] in autograd/graph.py.)
    """

    __slots__ = ("_buffer", "device", "version", "_source", "__weakref__")

    def __init__(self, buffer, device, version: int = 0):
        self._buffer = buffer
        self._source = None
        self.device = device
        self.version = version

    @classmethod
    def of(cls, array, device) -> "UntypedStorage":
        st = _new(cls)
        st._buffer = None
        st._source = array
        st.device = device
        st.version = 0
        return st

    @property
    def buffer(self):
        buffer = self._buffer
        if buffer is None:
            buffer = self._buffer = flat_buffer(self._source)
            self._source = None   # (the buffer is a view of it: no second reference to count)
        return buffer

    @buffer.setter
    def buffer(self, value) -> None:
        self._buffer = value

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

    def _bytes(self):
        return self.buffer.view(_xp.uint8)

    def __getitem__(self, index):
        if isinstance(index, slice):
            raise RuntimeError("slices are not supported by dyngrad's UntypedStorage")
        return int(self._bytes()[_storage_index(index, self.nbytes())])

    def __setitem__(self, index, value) -> None:
        self._bytes()[_storage_index(index, self.nbytes())] = value

    def tolist(self) -> list:
        return self._bytes().tolist()

    def is_shared(self) -> bool:
        return _shared_memory.storage_is_shared(self)

    def share_memory_(self) -> "UntypedStorage":
        """Move the bytes into memory shared between processes (Note [Shared memory] in
        _shared_memory.py); only a storage no tensor views can be moved this way."""
        _shared_memory.share_storage(self)
        return self

    def is_pinned(self, device="cuda") -> bool:
        return False

    @property
    def is_cuda(self) -> bool:
        return False

    def __repr__(self) -> str:   # (torch's: every byte on a line of its own)
        values = "\n ".join(str(v) for v in self.tolist())
        return (f" {values}\n[torch.storage.UntypedStorage(device={self.device}) of size "
                f"{self.nbytes()}]")


Storage = UntypedStorage


def _storage_index(index, size: int) -> int:
    i = index.__index__()
    if not -size <= i < size:
        raise IndexError(f"index {i} out of range for storage of size {size}")
    return i + size if i < 0 else i


_typed_storage_warned = []


def warn_typed_storage_removal() -> None:
    """torch's TypedStorage deprecation warning, given once per process as torch does."""
    if not _typed_storage_warned:
        from .ops._selection import warn_at_caller
        _typed_storage_warned.append(True)
        warn_at_caller(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
            "will be the only storage class. This should only matter to you if you are using "
            "storages directly.  To access UntypedStorage directly, use "
            "tensor.untyped_storage() instead of tensor.storage()")


class TypedStorage:
    """``torch.TypedStorage``: a Storage read as elements of one dtype (``Tensor.storage()``).

    Reads and writes go to the tensor's memory; like torch's, writes through a storage do not
    bump the tensors' version counter. Sizes count elements of ``dtype``.
    """

    is_sparse = False

    def __init__(self, *args, wrap_storage=None, dtype=None, device=None, _internal=False):
        from . import _dtypes as D
        from ._device import CPU
        if not _internal:
            warn_typed_storage_removal()
        dtype = D.get_default_dtype() if dtype is None else dtype
        if wrap_storage is None:   # TypedStorage(n) / TypedStorage(sequence)
            n = args[0] if args else 0
            if isinstance(n, int):
                values = _xp.empty(n, dtype.np)
            else:
                values = _xp.asarray(list(n), dtype.np)
            wrap_storage = Storage(values, CPU)
        self._untyped_storage = wrap_storage
        self.dtype = dtype

    def _elements(self):
        return self._untyped_storage._bytes()[:self.size() * self.dtype.itemsize] \
            .view(self.dtype.np)

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return False

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    __len__ = size

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> Storage:
        return self._untyped_storage

    def tolist(self) -> list:
        return self._elements().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, index):
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._elements()[_storage_index(index, self.size())].item()

    def __setitem__(self, index, value) -> None:
        if isinstance(index, slice):
            self._elements()[index] = value
        else:
            self._elements()[_storage_index(index, self.size())] = value

    def fill_(self, value) -> "TypedStorage":
        self._elements()[...] = value
        return self

    def clone(self) -> "TypedStorage":
        from ._device import CPU
        return TypedStorage(wrap_storage=Storage(self._untyped_storage._bytes().copy(), CPU),
                            dtype=self.dtype, _internal=True)

    def cpu(self) -> "TypedStorage":
        return self

    def type(self, dtype=None):
        if dtype is None:
            return f"torch.{self.dtype._legacy}Storage"
        raise NotImplementedError("TypedStorage.type(dtype) is not supported by dyngrad")

    def pickle_storage_type(self) -> str:
        return f"{self.dtype._legacy}Storage"

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    _is_shared = is_shared

    def share_memory_(self) -> "TypedStorage":
        self._untyped_storage.share_memory_()
        return self

    _share_memory_ = share_memory_

    def is_pinned(self, device="cuda") -> bool:
        return False

    def __repr__(self) -> str:
        values = "".join(f" {v}\n" for v in self.tolist())
        return (f"{values}[torch.storage.TypedStorage(dtype={self.dtype}, "
                f"device={self.device}) of size {self.size()}]")
