"""PyTorch's checkpoint format, written by ``dyngrad.save`` and read by ``dyngrad.load``.

Note [PyTorch's save format]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``torch.save`` writes an uncompressed zip archive whose records all sit in one folder (named
after the file, ``archive`` for a file object)::

    <folder>/data.pkl                 the object, pickled (protocol 2)
    <folder>/.format_version          "1"
    <folder>/.storage_alignment       "64": each storage's bytes start at a multiple of 64
    <folder>/byteorder                "little"
    <folder>/data/<key>               the raw bytes of one storage
    <folder>/version                  "3"
    <folder>/.data/serialization_id   an identifier of the file

In ``data.pkl`` a tensor is a call of ``torch._utils._rebuild_tensor_v2(storage, offset,
size, stride, requires_grad, backward_hooks)`` (``_rebuild_tensor_v3`` with the dtype as a
last argument for the dtypes without a typed storage class: uint16/32/64), a Parameter a call
of ``torch._utils._rebuild_parameter(tensor, requires_grad, backward_hooks)``, a dtype the
global ``torch.float32`` (and so on), and a storage a *persistent id*, ``("storage",
torch.FloatStorage, key, location, numel)``, that names the record holding its bytes. A
storage is written once however many tensors view it, so views still share memory after
loading.

dyngrad writes exactly these names, so ``torch.load`` reads dyngrad's files, and reads them
back by mapping each ``torch.*`` name to its dyngrad counterpart (``TORCH_GLOBALS``), so
``dyngrad.load`` reads torch's. The pickled names are torch's, not importable objects of
dyngrad, so the pickler writes them itself (``_Pickler.save``): Python's own pickler only
names a global after checking that importing it gives back the very object being pickled.
"""
from __future__ import annotations

import collections
import hashlib
import io
import os
import pickle
import zipfile

import numpy as np

from . import _dtypes as D
from ._device import device as _device
from ._storage import Storage
from ._tensor import Tensor
from ._utils import Size

ALIGNMENT = 64
PROTOCOL = 2   # torch.save's default

# dtype -> the typed storage class torch pickles its storages as (the others: UntypedStorage)
_STORAGE_CLASS = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}


class _Global:
    """A global of torch's to write into the pickle by name (see Note [PyTorch's save format])."""

    __slots__ = ("line",)

    def __init__(self, module: str, name: str):
        self.line = f"{module}\n{name}\n".encode()

    def __call__(self, *args):   # (the pickler wants a reduction's function to be callable)
        raise TypeError("a name written into a pickle, not a function to call")


_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_FROM_TYPE = _Global("torch._tensor", "_rebuild_from_type_v2")
_UNTYPED = _Global("torch.storage", "UntypedStorage")
_SPARSE = _Global("torch._utils", "_rebuild_sparse_tensor")
_GET_LAYOUT = _Global("torch.serialization", "_get_layout")
_DTYPE_GLOBALS = {name: _Global("torch", name) for name in D._BY_NAME}
_STORAGE_GLOBALS = {dt: _Global("torch", cls) for dt, cls in _STORAGE_CLASS.items()}


# ---------------------------------------------------------------------------------------------
# save
# ---------------------------------------------------------------------------------------------
class _Pickler(pickle._Pickler):
    """Pickles tensors, Parameters, dtypes, devices and Sizes under torch's names; storages
    as persistent ids. (Python's pure pickler: it lets ``save`` write torch's globals.)"""

    def __init__(self, file, protocol):
        super().__init__(file, protocol, fix_imports=False)
        self.storages: dict[int, tuple[str, Storage, str]] = {}   # id -> (key, storage, dtype)

    def save(self, obj, save_persistent_id=True):
        if type(obj) is _Global:
            self.write(pickle.GLOBAL + obj.line)
            return
        if type(obj) is D.dtype:
            self.write(pickle.GLOBAL + _DTYPE_GLOBALS[obj.name].line)
            return
        super().save(obj, save_persistent_id)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor) and not hasattr(obj, "materialize"):
            # (lazy modules' placeholders, which hold no data, pickle themselves)
            return _tensor_reduction(self, obj)
        if type(obj) is _device:
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return _Global("torch", "device"), args
        if type(obj) is Size:
            return _Global("torch", "Size"), (tuple(obj),)
        if type(obj) is _Reduced:
            return obj.reduction
        return NotImplemented

    def persistent_id(self, obj):
        if type(obj) is not _Typed:
            return None
        return ("storage", obj.cls, obj.key, "cpu", obj.numel)


class _Typed:
    """A storage as torch's persistent id names it: one dtype's view of its bytes."""

    __slots__ = ("cls", "key", "numel")

    def __init__(self, cls, key, numel):
        self.cls, self.key, self.numel = cls, key, numel


class _Reduced:
    """A (callable, args) pair to pickle as it is (a tensor inside a Parameter's reduction)."""

    __slots__ = ("reduction",)

    def __init__(self, reduction):
        self.reduction = reduction


def _tensor_reduction(pickler, t):
    if t.is_sparse:   # its indices and values, as tensors of their own (torch's format)
        from ._tensor import _wrap
        data = t._data
        return _SPARSE, (_Reduced((_GET_LAYOUT, ("torch.sparse_coo",))),
                         (_wrap(data.indices), _wrap(data.values), Size(data.shape),
                          data.coalesced))
    storage = t._storage_obj()
    if storage.device != _device("cpu"):
        raise RuntimeError("dyngrad.save: only CPU storages can be saved")
    name = t.dtype.name
    key, _, saved_as = pickler.storages.setdefault(
        id(storage), (str(len(pickler.storages)), storage, name))
    if saved_as != name:
        raise RuntimeError("Cannot save multiple tensors or storages that view the same data as "
                           "different types")
    itemsize = t.dtype.itemsize
    cls = _STORAGE_GLOBALS.get(name)
    typed = _Typed(cls or _UNTYPED, key,
                   storage.buffer.nbytes // itemsize if cls else storage.buffer.nbytes)
    args = (typed, t._offset, tuple(t.shape), t.stride(), t._requires_grad,
            collections.OrderedDict())
    plain = (_V2, args) if cls else (_V3, args + (t.dtype,))
    if t._backward_hooks and not _is_parameter(t):   # (torch warns: hooks are not saved)
        from .utils.hooks import warn_if_has_hooks
        warn_if_has_hooks(t)
    if type(t) is Tensor:
        return plain
    if _is_parameter(t):
        return _PARAMETER, (_Reduced(plain), t._requires_grad, collections.OrderedDict())
    # the subclass's state: its attributes (those named with an underscore are dyngrad's own:
    # the tensor's storage, offset, base... which the rebuilt tensor has already)
    state = {k: v for k, v in vars(t).items() if not k.startswith("_")}
    return _FROM_TYPE, (plain[0], type(t), plain[1], state)


def _is_parameter(t) -> bool:
    cls = type(t)
    return cls.__name__ == "Parameter" and cls.__module__.startswith("dyngrad.nn")


def write(obj, f, protocol: int) -> None:
    """Write ``obj`` to ``f`` (a path or a binary file object) as torch.save does."""
    data = io.BytesIO()
    pickler = _Pickler(data, protocol)
    pickler.dump(obj)
    pkl = data.getvalue()
    folder = (os.path.splitext(os.path.basename(os.fspath(f)))[0]
              if isinstance(f, (str, os.PathLike)) else "archive")
    target = os.fspath(f) if isinstance(f, (str, os.PathLike)) else f
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        put = _aligned_writer(archive, folder)
        put("data.pkl", pkl)
        put(".format_version", b"1")
        put(".storage_alignment", str(ALIGNMENT).encode())
        put("byteorder", b"little")
        for key, storage, _ in pickler.storages.values():
            buffer = storage.buffer
            if buffer.dtype.byteorder == ">":           # keep files little-endian
                buffer = buffer.astype(buffer.dtype.newbyteorder("<"))
            put(f"data/{key}", np.ascontiguousarray(buffer).tobytes())
        put("version", b"3\n")
        put(".data/serialization_id", str(int(hashlib.sha1(pkl).hexdigest(), 16))[:40]
            .rjust(40, "0").encode())


def _aligned_writer(archive, folder):
    """``put(name, data)``: one stored record whose data starts at a multiple of ALIGNMENT
    (padding in the local header's extra field, as torch's writer pads)."""
    def put(name, data):
        info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
        start = archive.fp.tell() + 30 + len(info.filename.encode()) + 4
        info.extra = b"FB" + ((-start) % ALIGNMENT).to_bytes(2, "little") \
            + bytes((-start) % ALIGNMENT)
        archive.writestr(info, data)
    return put


# ---------------------------------------------------------------------------------------------
# load
# ---------------------------------------------------------------------------------------------
class _StorageType:
    """What ``torch.FloatStorage`` (and the others) unpickle as: the dtype of its elements
    (None for ``UntypedStorage``: bytes, given a dtype by the tensor)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype


class _Record:
    """A storage's record, read and made into a Storage when a tensor first needs it."""

    __slots__ = ("reader", "key", "dtype", "location", "numel", "made")

    def __init__(self, reader, key, dtype, location, numel):
        self.reader, self.key, self.dtype = reader, key, dtype
        self.location, self.numel = location, numel
        self.made = {}   # dtype name -> Storage

    def storage(self, dtype) -> Storage:
        made = self.made.get(dtype.name)
        if made is None:
            made = self.made[dtype.name] = self.reader.storage(self, dtype)
        return made


def _rebuild_v2(record, offset, size, stride, requires_grad, backward_hooks=None,
                metadata=None):
    if not isinstance(record, _Record) or record.dtype is None:
        raise pickle.UnpicklingError("dyngrad.load: a tensor's storage is not a typed storage")
    return _rebuild(record, record.dtype, offset, size, stride, requires_grad)


def _rebuild_v3(record, offset, size, stride, requires_grad, backward_hooks, dtype,
                metadata=None):
    if not isinstance(record, _Record) or not isinstance(dtype, D.dtype):
        raise pickle.UnpicklingError("dyngrad.load: a tensor's storage or dtype is not one")
    return _rebuild(record, dtype, offset, size, stride, requires_grad)


def _rebuild(record, dtype, offset, size, stride, requires_grad):
    from .serialization import _rebuild_tensor   # (the geometry checks)
    return _rebuild_tensor(record.storage(dtype), dtype.name, offset, tuple(size),
                           tuple(stride), requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks=None, state=None):
    from .serialization import _rebuild_parameter as make
    return _set_state(make(data, requires_grad), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    from .serialization import _rebuild_tensor_subclass
    t = func(*args)
    if not isinstance(t, Tensor):
        raise pickle.UnpicklingError("dyngrad.load: a tensor subclass rebuilt from no tensor")
    if type(t) is not new_type:
        t = _rebuild_tensor_subclass(new_type, t)
    return _set_state(t, state)


def _set_state(t, state):
    """A rebuilt tensor's saved attributes; dyngrad's own (named with an underscore: its
    storage, offset...) are never taken from a file."""
    if isinstance(state, dict):
        for k, v in state.items():
            if isinstance(k, str) and not k.startswith("_"):
                setattr(t, k, v)
    return t


def _get_layout(name):
    from ._formats import sparse_coo, strided
    layouts = {"torch.sparse_coo": sparse_coo, "torch.strided": strided}
    if name not in layouts:
        raise pickle.UnpicklingError(f"dyngrad.load: no layout {name!r} here")
    return layouts[name]


def _rebuild_sparse_tensor(layout, data):
    """A sparse COO tensor from its saved indices, values, size (and coalesced flag)."""
    from ._formats import sparse_coo
    from .ops.sparse import sparse_coo_tensor
    if layout is not sparse_coo:
        raise pickle.UnpicklingError(f"dyngrad.load: rebuilding sparse tensor for layout "
                                     f"{layout}")
    indices, values, size = data[:3]
    is_coalesced = data[3] if len(data) > 3 else None
    return sparse_coo_tensor(indices, values, size, is_coalesced=is_coalesced)


TORCH_GLOBALS = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_v2,
    ("torch._utils", "_rebuild_sparse_tensor"): _rebuild_sparse_tensor,
    ("torch.serialization", "_get_layout"): _get_layout,
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_v3,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
    ("torch", "Size"): Size,
    ("torch", "device"): _device,
    ("torch.storage", "UntypedStorage"): _StorageType(None),
    ("torch", "UntypedStorage"): _StorageType(None),
}
TORCH_GLOBALS.update({("torch", name): dt for name, dt in D._BY_NAME.items()})
TORCH_GLOBALS.update({("torch", cls): _StorageType(D._BY_NAME[name])
                      for name, cls in _STORAGE_CLASS.items()})


def folder_of(names) -> str | None:
    """The folder of a torch archive (the one holding ``data.pkl``), or None."""
    for name in names:
        folder, _, rest = name.partition("/")
        if rest == "data.pkl":
            return folder
    return None


class Reader:
    """Reads the storages of one torch archive."""

    def __init__(self, archive, folder, map_location):
        self.archive, self.folder, self.map_location = archive, folder, map_location
        self.records: dict[str, _Record] = {}

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType) and isinstance(pid[2], str)
                and isinstance(pid[3], str) and type(pid[4]) is int):
            raise pickle.UnpicklingError(f"dyngrad.load: unknown persistent id {pid!r}")
        _, kind, key, location, numel = pid
        record = self.records.get(key)
        if record is None:
            record = self.records[key] = _Record(self, key, kind.dtype, location, numel)
        return record

    def storage(self, record, dtype) -> Storage:
        from .serialization import storage_from_bytes
        try:
            raw = self.archive.read(f"{self.folder}/data/{record.key}")
        except KeyError:
            raise pickle.UnpicklingError(
                f"dyngrad.load: storage {record.key} is missing") from None
        nbytes = record.numel * (1 if record.dtype is None else record.dtype.itemsize)
        if len(raw) != nbytes or len(raw) % dtype.itemsize:
            raise pickle.UnpicklingError(f"dyngrad.load: storage {record.key} has the wrong "
                                         "size")
        return storage_from_bytes(raw, dtype, self.map_location, record.location)
