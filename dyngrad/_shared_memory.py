"""Memory shared between processes: ``Tensor.share_memory_``, ``Storage.share_memory_`` and the
segments ``dyngrad.multiprocessing`` sends to other processes.

Note [Shared memory]
~~~~~~~~~~~~~~~~~~~~
torch's ``share_memory_()`` moves a storage's bytes into a shared-memory file and points the
storage at the new memory; every tensor viewing that storage follows, since they reach the
memory only through it. dyngrad does the same with a *segment*: an anonymous in-memory file
(``os.memfd_create``) mapped with ``mmap`` (MAP_SHARED), kept with its file descriptor
(``SharedMap``). ``fork`` children inherit the mapping, so the memory stays shared; the file
descriptor is what ``spawn``/``forkserver`` children and ``Queue`` receivers get
(``multiprocessing.reduction.DupFd``, torch's file_descriptor strategy) to map the same memory.
A storage is shared when its flat buffer is the array over a whole segment (``is_shared``);
a storage made later over part of that memory (``from_numpy(t.numpy())``) is not, as in torch.

Moving is where dyngrad differs: a tensor reaches its memory through its own NumPy array
(``_data``), not through the Storage, so every tensor and array viewing the old memory must get
a new array over the segment, and dyngrad keeps no registry of them. It moves what it can find:
the tensor, its base and the base's views that autograd tracks (``autograd/views.py``), all of
them sharing the Storage (``.grad`` is a tensor of its own: ``Module.share_memory`` moves it
too, as torch's). Anything else still reaching the old memory — a ``detach()`` or ``.data``
alias, a view of a leaf that requires grad (untracked, though moving the view finds the leaf),
a NumPy array from ``numpy()`` or the one given to ``from_numpy``, a tensor saved by autograd
as an array — would silently stop seeing the tensor's writes (torch's aliases all follow). So dyngrad counts the references: every object
between the arrays it found and the memory's owner (NumPy's ``.base`` chain) must be held by
those arrays, the tensors and the Storage alone (``sys.getrefcount``, the test
``_only_view_of_its_memory`` in autograd/engine.py makes). If anything else holds one, nothing is
moved and ``share_memory_`` raises a RuntimeError saying so: call it before making such
aliases, or share a ``clone()``. (A reference another thread holds at that moment counts as
well: a Queue pickles in a thread of its own, so share a tensor before putting it on a queue
while the program goes on using it.) ``Storage.share_memory_`` can find no tensor at all, so it
moves only a storage no tensor views (``Tensor.share_memory_`` is the way for the others).

The Storage object, hence the version counter, is kept; its ``data_ptr()`` changes, strides and
offsets do not. A shared storage is left as it is. Each segment keeps one file descriptor open
for as long as any array uses it (``map_segment``), as torch keeps one per shared storage with
this strategy: a process holding more shared tensors than its limit on open files allows fails
to make or receive the next one, as torch's does.
"""
from __future__ import annotations

import mmap
import os
import sys
import tempfile

import numpy as np

from .backends.numpy_backend import data_ptr

_SHM_DIR = "/dev/shm"


class SharedMap(mmap.mmap):
    """A MAP_SHARED mapping of a whole segment; ``fd`` is a file descriptor of the segment,
    open as long as the mapping: mmap's own (closed by mmap) or, where that one could not be
    told (``map_segment``), one this object closes with it (``owns_fd``)."""

    fd = -1
    owns_fd = False

    def __del__(self):
        if self.owns_fd:
            self.owns_fd = False
            os.close(self.fd)


def _new_fd(nbytes: int) -> int:
    """An anonymous in-memory file of `nbytes` bytes (an unlinked one where there is no
    memfd_create)."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("dyngrad-shm", os.MFD_CLOEXEC)
    else:   # pragma: no cover -- platforms without memfd_create
        fd, name = tempfile.mkstemp(prefix="dyngrad-shm-",
                                    dir=_SHM_DIR if os.path.isdir(_SHM_DIR) else None)
        os.unlink(name)
    try:
        os.ftruncate(fd, nbytes)
    except OSError:
        os.close(fd)
        raise
    return fd


def _same_file(a: int, b: int) -> bool:
    try:
        sa, sb = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (sa.st_ino, sa.st_dev) == (sb.st_ino, sb.st_dev)


def map_segment(fd: int, nbytes: int) -> SharedMap:
    """Map the segment `fd` (which the returned object now owns) of `nbytes` bytes.

    ``mmap`` keeps a duplicate of the descriptor for itself, and Python before 3.13 can neither
    skip that nor tell which it is. A duplicate takes the lowest free descriptor, so the one
    free just before mapping is mmap's if it then refers to the segment (nobody else knows this
    descriptor): the segment uses that one and `fd` is closed, one descriptor per segment as in
    torch. Otherwise (another thread took that number meanwhile) it keeps `fd` as well.
    """
    try:
        probe = os.dup(fd)
        os.close(probe)
        seg = SharedMap(fd, max(nbytes, 1))   # (mmap refuses a length of 0)
    except BaseException:
        os.close(fd)
        raise
    if _same_file(probe, fd):
        os.close(fd)
        seg.fd = probe
    else:
        seg.fd, seg.owns_fd = fd, True
    return seg


def new_buffer(nbytes: int, dtype) -> np.ndarray:
    """A 1-D array of `dtype` over a new segment of `nbytes` bytes: a shared storage's buffer."""
    seg = map_segment(_new_fd(max(nbytes, 1)), nbytes)
    return np.ndarray((nbytes // dtype.itemsize,), dtype, seg)


def segment_of(buffer) -> SharedMap | None:
    """The segment `buffer` is the array of, or None."""
    seg = buffer.base
    return seg if type(seg) is SharedMap else None


def storage_is_shared(st) -> bool:
    if getattr(st, "_source", None) is not None:   # its buffer is still to be made: a new one
        return False
    return type(st.buffer.base) is SharedMap


# -- moving ------------------------------------------------------------------------------------
def _parent(obj):
    """The object whose memory `obj` borrows: an array's base, a memoryview's exporter."""
    if isinstance(obj, memoryview):
        return obj.obj
    if isinstance(obj, np.ndarray) or hasattr(obj, "__array_interface__"):
        return getattr(obj, "base", None)   # (NumPy's DummyArray, as_strided's, has one too)
    return None


def _known_references(st, tensors):
    """Every object from the tensors' arrays and `st`'s buffer up to the memory's owner, and the
    number of references to each that the tensors, `st` and the objects themselves hold."""
    objs, index = [], {}

    def visit(obj, holders):
        while True:
            i = index.get(id(obj))
            if i is not None:
                counts[i] += holders
                return
            index[id(obj)] = len(objs)
            objs.append(obj)
            counts.append(holders)
            obj, holders = _parent(obj), 1
            if obj is None:
                return

    counts = []
    visit(st.buffer, 1)
    for t in tensors:
        visit(t._data, 1)
    return objs, counts


def _only_known_references(objs, counts) -> bool:
    # sys.getrefcount's argument and the list `objs` hold each object once more
    for i in range(len(objs)):
        if sys.getrefcount(objs[i]) != counts[i] + 2:
            return False
    return True


def _move(st, tensors) -> None:
    """Copy `st`'s buffer into a new segment; `st` and each tensor's array view it instead."""
    old = st.buffer
    new = new_buffer(old.nbytes, old.dtype)
    new[...] = old
    start, nbytes = data_ptr(old), old.nbytes
    arrays = []
    for t in tensors:
        d = t._data
        offset = data_ptr(d) - start
        if not 0 <= offset <= nbytes:
            if d.size:
                raise RuntimeError("share_memory_(): a view lies outside its storage")
            offset = 0   # (an empty array's address means nothing)
        a = np.ndarray(d.shape, d.dtype, new, offset, d.strides)
        if not d.flags.writeable:   # (expand's arrays are read-only)
            a.flags.writeable = False
        arrays.append(a)
    for t, a in zip(tensors, arrays):
        t._data = a
    st.buffer = new


_ALIASES = ("other tensors or arrays view the same memory (a view or alias dyngrad does not "
            "track: detach(), .data, a view of a leaf that requires grad, a NumPy array from "
            "numpy() or from_numpy(), a tensor saved for backward), and dyngrad cannot find them "
            "to move them along: they would no longer see its writes (Note [Shared memory])")


def share_tensor(t) -> None:
    """Move `t`'s storage into shared memory, with `t`, its base and the base's tracked views
    (Note [Shared memory]); nothing to do when it is shared already."""
    from .autograd.views import live_views
    st = t._storage_obj()
    if storage_is_shared(st):
        return
    st.buffer   # noqa: B018 -- made now, so that the counts below see it
    base = t._base if t._base is not None else t
    tensors = [base]
    for v in live_views(base):
        if v is not base:
            tensors.append(v)
    if all(x is not t for x in tensors):
        tensors.append(t)
    tensors = [x for x in tensors if x._storage is st]
    if not _only_known_references(*_known_references(st, tensors)):
        raise RuntimeError("share_memory_(): cannot move this tensor to shared memory: "
                           + _ALIASES + ". Call share_memory_() before making them, or share "
                           "a clone().")
    _move(st, tensors)


def share_storage(st) -> None:
    """Move a storage no tensor views into shared memory (Note [Shared memory])."""
    if storage_is_shared(st):
        return
    st.buffer   # noqa: B018
    if not _only_known_references(*_known_references(st, ())):
        raise RuntimeError("share_memory_(): cannot move this storage to shared memory: "
                           + _ALIASES + ". Call share_memory_() on the tensor instead.")
    _move(st, ())
