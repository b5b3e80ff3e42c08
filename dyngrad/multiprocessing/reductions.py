"""How tensors and storages cross process boundaries (torch.multiprocessing.reductions).

``init_reductions`` registers these reducers with ``multiprocessing.reduction.ForkingPickler``,
which pickles everything a ``Queue``, ``Pipe`` or ``Pool`` sends and a spawned ``Process``'s
arguments. A tensor is sent as its storage plus its geometry; the storage is first moved to
shared memory (Note [Shared memory] in dyngrad/_shared_memory.py) and travels as a duplicate of
its segment's file descriptor (``multiprocessing.reduction.DupFd``: passed to a child being
started, or fetched by the receiver from the sender's ``resource_sharer`` thread, so the sender
must still be alive when the receiver unpickles, as with torch's file_descriptor strategy). The
receiver maps the segment: both processes then see each other's writes.

A process maps a segment once: ``shared_cache`` remembers, by the file's (inode, device), the
buffer it mapped or sent, so tensors of one storage received at different times view the same
memory. Each received tensor gets a Storage object of its own over that buffer with version 1
(torch rebuilds it with ``set_``, which bumps it); views of it share that one.
"""
from __future__ import annotations

import os
import threading
import weakref
from multiprocessing import reduction
from multiprocessing.util import register_after_fork

import numpy as np

from .. import _shared_memory
from .._device import CPU
from .._storage import Storage, TypedStorage
from .._tensor import Tensor, _new
from ..backends.numpy_backend import data_ptr
from ..nn.parameter import Parameter
from ..utils.hooks import warn_if_has_hooks

try:
    # loaded now, not in a Queue's feeder thread that a fork could copy half done (as torch)
    import multiprocessing.resource_sharer  # noqa: F401
except ImportError:   # pragma: no cover
    pass


class SharedCache(dict):
    """(inode, device) of a segment -> weak reference to the buffer this process has over it."""

    def __init__(self) -> None:
        super().__init__()
        self._after_fork()
        register_after_fork(self, SharedCache._after_fork)

    def _after_fork(self) -> None:
        self.lock = threading.Lock()   # (a fork may copy it held)

    def get(self, key):
        with self.lock:
            ref = dict.get(self, key)
            return None if ref is None else ref()

    def __setitem__(self, key, buffer) -> None:
        with self.lock:
            if len(self) > 128:   # drop the dead entries now and then
                for k in [k for k, r in self.items() if r() is None]:
                    dict.__delitem__(self, k)
            dict.__setitem__(self, key, weakref.ref(buffer))


shared_cache = SharedCache()


def fd_id(fd: int) -> tuple:
    """What identifies the file behind `fd` in every process."""
    stat = os.fstat(fd)
    return (stat.st_ino, stat.st_dev)


# -- storages ------------------------------------------------------------------------------
def rebuild_storage_fd(df, nbytes: int, dtype) -> Storage:
    """The receiving side of ``reduce_storage``: map the segment (once per process)."""
    fd = df.detach()
    key = fd_id(fd)
    buffer = shared_cache.get(key)
    if buffer is None:
        seg = _shared_memory.map_segment(fd, nbytes)   # (it owns fd from now on)
        buffer = np.ndarray((nbytes // dtype.itemsize,), dtype, seg)
        shared_cache[key] = buffer
    else:
        os.close(fd)
    return Storage(buffer, CPU)


def rebuild_storage_empty(dtype) -> Storage:
    return Storage(np.empty(0, dtype), CPU)


def reduce_storage(storage: Storage):
    """Send a storage as its segment's file descriptor, moving it to shared memory first; an
    empty one is sent as such, unshared (mmap cannot map 0 bytes), as torch does."""
    if storage.nbytes() == 0:
        return (rebuild_storage_empty, (storage.buffer.dtype,))
    _shared_memory.share_storage(storage)
    buffer = storage.buffer
    fd = _shared_memory.segment_of(buffer).fd
    shared_cache[fd_id(fd)] = buffer
    return (rebuild_storage_fd, (reduction.DupFd(fd), storage.nbytes(), buffer.dtype))


def rebuild_typed_storage(storage: Storage, dtype) -> TypedStorage:
    return TypedStorage(wrap_storage=storage, dtype=dtype, _internal=True)


def reduce_typed_storage(storage: TypedStorage):
    return (rebuild_typed_storage, (storage._untyped_storage, storage.dtype))


# -- tensors -------------------------------------------------------------------------------
def rebuild_tensor(cls, storage: Storage, metadata) -> Tensor:
    """The receiving side of ``reduce_tensor``: a tensor over the storage's buffer."""
    storage_offset, shape, strides, byte_offset, dtype, requires_grad = metadata
    buffer = storage.buffer
    t = _new(Tensor)
    t._data = np.ndarray(shape, dtype, buffer, byte_offset, strides)
    t._storage = Storage(buffer, CPU, version=1)
    t._offset = storage_offset
    t._requires_grad = False
    t._grad_fn = None
    if cls is Parameter:
        return Parameter(t, requires_grad=requires_grad)
    t.requires_grad = requires_grad
    return t


def reduce_tensor(tensor: Tensor):
    """Send a tensor as its (shared) storage and its geometry; torch's refusal for a tensor
    with history, and its warning for backward hooks, which stay behind."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the "
            "queue).")
    warn_if_has_hooks(tensor)
    storage = tensor._storage_obj()
    if storage.nbytes() and not _shared_memory.storage_is_shared(storage):
        _shared_memory.share_tensor(tensor)   # (with its views: Note [Shared memory])
    data = tensor._data
    byte_offset = data_ptr(data) - data_ptr(storage.buffer) if data.size else 0
    metadata = (tensor._offset, data.shape, data.strides, byte_offset, data.dtype,
                tensor.requires_grad)
    return (rebuild_tensor, (type(tensor), storage, metadata))


def init_reductions() -> None:
    """Register the reducers with ``ForkingPickler`` (done when dyngrad.multiprocessing is
    imported)."""
    reduction.register(Storage, reduce_storage)
    reduction.register(TypedStorage, reduce_typed_storage)
    reduction.register(Tensor, reduce_tensor)
    reduction.register(Parameter, reduce_tensor)
