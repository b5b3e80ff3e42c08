"""``dyngrad.save`` / ``dyngrad.load``: tensors, state dicts and nested containers to a file.

Files are PyTorch's (Note [PyTorch's save format] in _torch_format.py): ``torch.load`` reads
what ``dyngrad.save`` writes, and ``dyngrad.load`` reads what ``torch.save`` writes. Tensors
keep their dtype, shape, strides, storage offset and the storages they share; autograd history
is not saved (a tensor comes back as a leaf with its ``requires_grad``, as in torch), and
``nn.Parameter`` comes back as a Parameter.

``dyngrad.load`` also reads the format earlier dyngrad versions wrote (Note [dyngrad's old save
format]).

Note [Loading safely: weights_only]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Unpickling runs code: a pickle can name any importable function (``os.system``) and call it
with arguments of its choosing. ``load(..., weights_only=True)`` (the default, as in torch 2.6+)
unpickles with an Unpickler whose ``find_class`` only hands out an allow-list: our tensor
rebuild functions, ``dyngrad.dtype``/``device``/``Size``, ``OrderedDict``, ``Counter``,
``set``, ``bytearray``, ``complex`` (as torch's default list) and what ``add_safe_globals``
adds. Every other global, the only way a pickle reaches code, raises ``pickle.UnpicklingError``
before anything runs. Lists, dicts, tuples, numbers, strings and bytes need no global at all.
``weights_only=False`` unpickles everything; use it only on files you trust.
"""
from __future__ import annotations

import codecs
import collections
import contextlib
import io
import os
import pickle
import zipfile
from typing import Any

import numpy as np

from . import _dtypes as D
from ._device import device as _device
from ._storage import Storage
from ._tensor import Tensor, _new
from ._utils import Size
from . import _torch_format

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2   # (torch.save's)
# Note [dyngrad's old save format]: before it wrote PyTorch's, dyngrad.save wrote a zip of its
# own: "dyngrad/format" (the text below), "dyngrad/data.pkl" (the object, with each tensor a
# call of _rebuild_tensor and each storage a persistent id ("storage", k, NumPy dtype string,
# element count)) and "dyngrad/storages/<k>" (the bytes). dyngrad.load still reads it.
_FORMAT_NAME = "dyngrad/format"
_FORMAT = b"dyngrad-save 1"
_PICKLE_NAME = "dyngrad/data.pkl"
_STORAGE_DIR = "dyngrad/storages/"
_CPU = _device("cpu")
# '<f4', '|b1', …: no object dtype; bfloat16 by its name (its NumPy str, '<V2', is a void's)
_STORAGE_DTYPES = {d.np.str for d in D.NP_DTYPES if d is not D.bfloat16} | {"bfloat16"}


# ---------------------------------------------------------------------------------------------
# Rebuilding tensors (the functions a saved file calls when it is loaded)
# ---------------------------------------------------------------------------------------------
def _rebuild_tensor(storage, dtype_name, offset, shape, stride, requires_grad) -> Tensor:
    """A tensor over ``storage`` with the given geometry (in elements of ``dtype_name``)."""
    if not isinstance(storage, Storage):
        raise pickle.UnpicklingError("dyngrad.load: a tensor's storage is not a storage")
    dtype = D._BY_NAME.get(dtype_name) if isinstance(dtype_name, str) else None
    if dtype is None:
        raise pickle.UnpicklingError(f"dyngrad.load: unknown dtype {dtype_name!r}")
    if not (_int_tuple(shape) and _int_tuple(stride) and len(shape) == len(stride)
            and type(offset) is int and offset >= 0 and min(stride, default=0) >= 0
            and min(shape, default=0) >= 0):
        raise pickle.UnpicklingError("dyngrad.load: bad tensor geometry "
                                     f"(offset {offset!r}, shape {shape!r}, stride {stride!r})")
    if requires_grad and dtype.category < D.FLOAT:
        raise pickle.UnpicklingError("dyngrad.load: only floating point and complex tensors "
                                     "can require grad")
    buffer = storage.buffer
    capacity = buffer.nbytes // dtype.itemsize          # elements of `dtype` in the storage
    if 0 not in shape:
        last = offset + sum((n - 1) * s for n, s in zip(shape, stride))
        if last >= capacity:
            raise pickle.UnpicklingError("dyngrad.load: a tensor reaches past its storage")
    t = _new(Tensor)
    itemsize = dtype.itemsize
    offset_bytes = 0 if 0 in shape else offset * itemsize
    t._data = np.ndarray(tuple(shape), dtype.np, buffer, offset_bytes,
                         tuple(s * itemsize for s in stride))
    t._storage = storage
    t._offset = offset
    t._requires_grad = bool(requires_grad)
    t._grad_fn = None
    return t


def _rebuild_parameter(tensor, requires_grad):
    """An ``nn.Parameter`` around a rebuilt tensor."""
    from .nn import Parameter          # nn imports the library; import it only when needed
    return Parameter(tensor, requires_grad)


def _rebuild_tensor_subclass(cls, tensor):
    """A tensor of a Tensor subclass: ``cls`` itself must be allowed (``add_safe_globals``)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise pickle.UnpicklingError(f"dyngrad.load: {cls!r} is not a Tensor subclass")
    t = _new(cls)
    for slot in ("_data", "_requires_grad", "_grad_fn"):
        setattr(t, slot, getattr(tensor, slot))
    t._storage, t._offset = tensor._storage, tensor._offset
    return t


def _int_tuple(value) -> bool:
    return isinstance(value, tuple) and all(type(v) is int for v in value)


# ---------------------------------------------------------------------------------------------
# save
# ---------------------------------------------------------------------------------------------
def save(obj: Any, f, pickle_protocol: int = DEFAULT_PROTOCOL) -> None:
    """Save ``obj`` (tensors, state dicts, nested containers, numbers, strings…) to ``f``, in
    PyTorch's format (``torch.load`` reads it).

    Args:
        obj: what to save.
        f: a path (``str`` or ``os.PathLike``) or a writable binary file object.
        pickle_protocol (int): the protocol of the pickled part (2 or more; default 2, torch's).

    Example::

        >>> dyngrad.save({"w": dyngrad.ones(2, 3), "step": 10}, "ckpt.pt")
        >>> dyngrad.load("ckpt.pt")
        {'w': tensor([[1., 1., 1.],
                [1., 1., 1.]]), 'step': 10}

    Differences from torch: ``pickle_module`` and ``_use_new_zipfile_serialization`` are not
    taken (the zip format is the only one written).
    """
    if pickle_protocol < 2:
        raise ValueError("dyngrad.save needs pickle protocol 2 or higher")
    _torch_format.write(obj, f, pickle_protocol)


def _open_zip(f, mode) -> zipfile.ZipFile:
    """A zip archive on a path or a binary file object (which stays open after the archive)."""
    target = os.fspath(f) if isinstance(f, (str, os.PathLike)) else f
    return zipfile.ZipFile(target, mode, zipfile.ZIP_STORED)


# ---------------------------------------------------------------------------------------------
# load
# ---------------------------------------------------------------------------------------------
_SAFE_GLOBALS = {
    ("dyngrad.serialization", "_rebuild_tensor"): _rebuild_tensor,
    ("dyngrad.serialization", "_rebuild_parameter"): _rebuild_parameter,
    ("dyngrad.serialization", "_rebuild_tensor_subclass"): _rebuild_tensor_subclass,
    ("dyngrad._dtypes", "_by_name"): D._by_name,
    ("dyngrad._device", "device"): _device,
    ("dyngrad._utils", "Size"): Size,
    ("collections", "OrderedDict"): collections.OrderedDict,   # torch's default list has
    ("collections", "Counter"): collections.Counter,           # these containers too
    ("builtins", "set"): set,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "complex"): complex,
    ("_codecs", "encode"): codecs.encode,            # how protocol 2 pickles bytes
}
_user_safe_globals: dict[tuple[str, str], Any] = {}


def add_safe_globals(safe_globals: list) -> None:
    """Allow more globals (classes, functions) in ``load(..., weights_only=True)``.

    Each entry is an object (looked up by its ``__module__`` and ``__qualname__``) or an
    ``(object, "module.name")`` pair, as in torch.
    """
    for entry in safe_globals:
        if isinstance(entry, tuple):
            obj, full_name = entry
            module, _, name = full_name.rpartition(".")
        else:
            obj, module, name = entry, entry.__module__, entry.__qualname__
        _user_safe_globals[(module, name)] = obj


def get_safe_globals() -> list:
    """The globals added with ``add_safe_globals``."""
    return list(_user_safe_globals.values())


def clear_safe_globals() -> None:
    """Forget the globals added with ``add_safe_globals``."""
    _user_safe_globals.clear()


@contextlib.contextmanager
def safe_globals(globals_list: list):
    """Allow ``globals_list`` in ``weights_only`` loads inside a ``with`` block."""
    saved = dict(_user_safe_globals)
    add_safe_globals(globals_list)
    try:
        yield
    finally:
        _user_safe_globals.clear()
        _user_safe_globals.update(saved)


def _weights_only_error(detail: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        "Weights only load failed. Re-running `dyngrad.load` with `weights_only` set to "
        "`False` will likely succeed, but it can result in arbitrary code execution. Do it "
        "only if you got the file from a trusted source.\n\n" + detail + "\n\n"
        "With weights_only=True, dyngrad.load accepts tensors, nn.Parameter, dtypes, devices, "
        "Size, dicts/OrderedDicts/Counters, lists, tuples, sets, numbers, strings and bytes; "
        "allow more "
        "with dyngrad.serialization.add_safe_globals([...]).")


class _Unpickler(pickle.Unpickler):
    """Resolves storage references; with ``weights_only`` also restricts globals (Note [Loading
    safely: weights_only]). In a torch archive, torch's globals are read as dyngrad's
    (``_torch_format.TORCH_GLOBALS``, and any other ``torch.*`` name as ``dyngrad.*``)."""

    def __init__(self, file, weights_only, persistent_load, torch_names: bool):
        super().__init__(file)
        self.weights_only = weights_only
        self.persistent_load = persistent_load
        self.torch_names = torch_names

    def find_class(self, module, name):
        key = (module, name)
        if self.torch_names and key in _torch_format.TORCH_GLOBALS:
            return _torch_format.TORCH_GLOBALS[key]
        if not self.weights_only:
            if self.torch_names and (module == "torch" or module.startswith("torch.")):
                module = "dyngrad" + module[len("torch"):]
            return super().find_class(module, name)
        obj = _SAFE_GLOBALS.get(key, _user_safe_globals.get(key))
        if obj is None:
            raise _weights_only_error(
                f"Unsupported global: GLOBAL {module}.{name} is not an allowed global with "
                "weights_only=True.")
        return obj


class _OldFormatStorages:
    """persistent_load of dyngrad's old format (Note [dyngrad's old save format])."""

    def __init__(self, archive, map_location):
        self.archive = archive
        self.map_location = map_location
        self.storages: dict[int, Storage] = {}

    def __call__(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 4 and pid[0] == "storage"
                and type(pid[1]) is int and pid[2] in _STORAGE_DTYPES and type(pid[3]) is int):
            raise pickle.UnpicklingError(f"dyngrad.load: unknown persistent id {pid!r}")
        _, key, dtype_str, numel = pid
        storage = self.storages.get(key)
        if storage is None:
            try:
                raw = self.archive.read(f"{_STORAGE_DIR}{key}")
            except KeyError:
                raise pickle.UnpicklingError(f"dyngrad.load: storage {key} is missing") from None
            dtype = D.bfloat16 if dtype_str == "bfloat16" else D.from_np(np.dtype(dtype_str))
            if len(raw) != numel * dtype.itemsize:
                raise pickle.UnpicklingError(f"dyngrad.load: storage {key} has the wrong size")
            storage = self.storages[key] = storage_from_bytes(raw, dtype, self.map_location)
        return storage


def storage_from_bytes(raw: bytes, dtype, map_location, location: str = "cpu") -> Storage:
    """A CPU Storage of `dtype` elements over a copy of the little-endian bytes `raw`, moved
    as ``map_location`` says for a storage saved at `location`."""
    bf16 = dtype is D.bfloat16
    np_dtype = np.dtype(np.uint16) if bf16 else np.dtype(dtype.np)   # bfloat16: its bits
    buffer = np.frombuffer(raw, dtype=np_dtype.newbyteorder("<")).astype(np_dtype)
    if bf16:
        buffer = buffer.view(D.bfloat16.np)   # (raises when ml_dtypes is missing)
    return _map_storage(Storage(buffer, _CPU), map_location, location)


def _map_storage(storage: Storage, map_location, location: str = "cpu") -> Storage:
    """Apply ``map_location`` to a storage saved at `location`: only the CPU exists for loaded
    tensors."""
    if map_location is None:
        if not location.startswith("cpu"):
            _device(location)   # (a bad location string raises torch's error)
            if location.startswith("cuda"):
                raise RuntimeError(
                    "Attempting to deserialize object on a CUDA device but "
                    "torch.cuda.is_available() is False. If you are running on a CPU-only "
                    "machine, please use torch.load with map_location=torch.device('cpu') to "
                    "map your storages to the CPU.")
            raise RuntimeError(f"dyngrad.load: a storage saved on {location!r}: tensors can "
                               "only be loaded to the CPU (give map_location='cpu')")
        return storage
    if callable(map_location) and not isinstance(map_location, (str, _device)):
        mapped = map_location(storage, location)
        return storage if mapped is None else mapped
    target = map_location.get(location, location) if isinstance(map_location, dict) \
        else map_location
    if isinstance(target, str):
        target = _device(target)
    if target.type != "cpu":
        raise RuntimeError(f"dyngrad.load: map_location={map_location!r}: tensors can only be "
                           "loaded to the CPU")
    return storage


def load(f, map_location=None, weights_only: bool | None = True, **kwargs) -> Any:
    """Load an object saved with :func:`save` or ``torch.save``.

    Args:
        f: a path or a readable, seekable binary file object.
        map_location: ``None``, ``'cpu'``, a CPU ``device``, a dict mapping saved locations
            (``'cpu'``, ``'cuda:0'``) to one of those, or a callable ``(storage, location) ->
            storage``.
        weights_only (bool): unpickle only tensors, containers and primitives (the default; see
            Note [Loading safely: weights_only]); ``False`` unpickles anything, so only use it
            on trusted files.

    Raises:
        pickle.UnpicklingError: with ``weights_only=True``, for a file that needs any other
            global (a class, a function), e.g. one that would run ``os.system``.
        RuntimeError: when ``f`` is not a zip archive written by :func:`save`,
            ``torch.save`` or an earlier dyngrad.

    Differences from torch: torch's legacy (pre-1.6, not zip) files are not read; ``mmap``
    and ``pickle_module`` are not taken.
    """
    if kwargs:
        raise TypeError(f"load() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if weights_only is None:
        weights_only = True
    try:
        archive = _open_zip(f, "r")
    except zipfile.BadZipFile:
        raise RuntimeError(_not_ours(f)) from None
    with archive:
        names = archive.namelist()
        if _FORMAT_NAME in names and _PICKLE_NAME in names:
            version = archive.read(_FORMAT_NAME)
            if version != _FORMAT:
                raise RuntimeError(f"dyngrad.load: unsupported format {version!r} "
                                   f"(this dyngrad reads {_FORMAT!r})")
            data = io.BytesIO(archive.read(_PICKLE_NAME))
            return _Unpickler(data, weights_only, _OldFormatStorages(archive, map_location),
                              False).load()
        folder = _torch_format.folder_of(names)
        if folder is None:
            raise RuntimeError(_not_ours(f))
        reader = _torch_format.Reader(archive, folder, map_location)
        data = io.BytesIO(archive.read(f"{folder}/data.pkl"))
        return _Unpickler(data, weights_only, reader.persistent_load, True).load()


def _not_ours(f) -> str:
    name = f if isinstance(f, (str, os.PathLike)) else "the file"
    return (f"dyngrad.load: {name} is not a checkpoint written by torch.save or dyngrad.save "
            "(a zip archive; torch's legacy format from before PyTorch 1.6 is not read)")
