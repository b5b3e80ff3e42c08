"""State dicts to and from the safetensors format, which PyTorch (through safetensors.torch)
and other libraries read and write. (``dyngrad.save``/``load`` read and write torch's own
checkpoints too.)

The functions mirror ``safetensors.torch``: ``save_file(tensors, filename, metadata=None)``,
``load_file(filename, device="cpu")``, ``save(tensors, metadata=None) -> bytes`` and
``load(data) -> dict``. They go through the ``safetensors`` package's NumPy API, an optional
dependency (``pip install dyngrad[io]``) imported only when one of them is called.

A file written here loads with ``safetensors.torch.load_file`` into a ``torch.nn.Module``'s
``load_state_dict``, and a file ``safetensors.torch.save_file`` wrote loads here, as long as
every tensor has a dtype both sides know (the format has no complex128).

As in ``safetensors.torch``, a tensor to save must be contiguous, and two tensors may not share
memory (tied weights: save one of them); both raise the same errors.

bfloat16 tensors (``BF16``) cross both ways when the ``ml_dtypes`` package is installed
(``pip install dyngrad[bf16]``: dyngrad's bfloat16 needs it anyway).

Differences from ``safetensors.torch``: dyngrad has no float8, so loading a file with such
tensors raises a ``TypeError`` naming them; convert them to float32 before saving on the torch
side (``{k: v.float() for k, v in sd.items()}``).
"""
from __future__ import annotations

import json
import os
import struct

import numpy as np

import dyngrad
from dyngrad._dtypes import HAS_BFLOAT16
from dyngrad._tensor import _wrap   # (from_numpy refuses bfloat16 arrays, as torch's does)

__all__ = ["save", "save_file", "load", "load_file"]

# safetensors dtype codes dyngrad can hold (BF16 with ml_dtypes); the others (F8_* …) it cannot
_CODES = {"BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "I32": "int32",
          "I64": "int64", "F16": "float16", "F32": "float32", "F64": "float64",
          "C64": "complex64", "U16": "uint16", "U32": "uint32", "U64": "uint64"}
_KNOWN_CODES = set(_CODES)


def _known_codes() -> set:
    return _KNOWN_CODES | {"BF16"} if HAS_BFLOAT16 else _KNOWN_CODES


def _numpy_api():
    try:
        import safetensors.numpy as st_numpy
    except ImportError:
        raise ImportError("dyngrad.utils.safetensors needs the `safetensors` package: "
                          "pip install safetensors (or dyngrad[io])") from None
    return st_numpy


def _to_arrays(tensors: dict) -> dict:
    """The NumPy arrays to write, after safetensors.torch's checks (type, contiguity, sharing)."""
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for k, v in tensors.items():
        if not isinstance(v, dyngrad.Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
    shared = _shared_groups(tensors)
    if shared:
        indent = "\n" + " " * 12                     # safetensors.torch's text, verbatim
        raise RuntimeError(
            f"{indent}Some tensors share memory, this will lead to duplicate memory on disk and "
            f"potential differences when loading them again: {shared}.{indent}A potential way to "
            f"correctly save your model is to use `save_model`.{indent}More information at "
            f"https://huggingface.co/docs/safetensors/torch_shared_tensors{indent}")
    arrays = {}
    for k, v in tensors.items():
        if not v.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. It "
                "either means you are trying to save tensors which are reference of each other in "
                "which case it's recommended to save only the full tensors, and reslice at load "
                "time, or simply call `.contiguous()` on your tensor to pack it before saving.")
        # the NumPy API writes arr.nbytes bytes from arr's first element: it must be C-ordered
        # (a bfloat16 array, ml_dtypes' type, is written as BF16: its dtype's name is
        # "bfloat16", which the package's writer knows)
        # (and keeps its shape: np.ascontiguousarray would make a 0-dim array 1-dim)
        arr = v._data if v.dtype is dyngrad.bfloat16 else v.detach().numpy()
        arrays[k] = arr if arr.flags.c_contiguous else arr.copy(order="C")
    return arrays


def _shared_groups(tensors: dict) -> list:
    """Groups of names whose tensors overlap in memory (same storage, overlapping bytes)."""
    by_storage: dict[int, list] = {}
    for k, v in tensors.items():
        if v.numel() == 0:
            continue
        start = v.storage_offset() * v.element_size()
        span = sum((n - 1) * s for n, s in zip(v.shape, v.stride())) + 1
        by_storage.setdefault(id(v.untyped_storage()), []).append(
            (start, start + span * v.element_size(), k))
    groups = []
    for ranges in by_storage.values():
        ranges.sort()
        group, end = set(), -1
        for lo, hi, k in ranges:
            if lo < end:
                group.add(k)
            else:
                if len(group) > 1:
                    groups.append(group)
                group = {k}
            end = max(end, hi)
        if len(group) > 1:
            groups.append(group)
    return groups


def _check_header(header: dict) -> bool:
    """Raise for dtypes dyngrad cannot hold; whether the file has bfloat16 tensors (which the
    package's NumPy reader does not know: ``_read_tensors`` reads them)."""
    codes = _known_codes()
    unknown = {k: v["dtype"] for k, v in header.items()
               if k != "__metadata__" and v["dtype"] not in codes}
    if unknown:
        no = "float8 types" if "BF16" in codes else "bfloat16 or float8 types (bfloat16 needs " \
            "ml_dtypes: pip install dyngrad[bf16])"
        raise TypeError(f"dyngrad cannot hold the dtypes of these tensors: {unknown} (dyngrad "
                        f"has no {no}); convert them, e.g. to float32, before saving")
    return any(v["dtype"] == "BF16" for k, v in header.items() if k != "__metadata__")


def _read_tensors(header: dict, data) -> dict:
    """The tensors of a file's bytes (``data``: the whole file, its header included), read
    here rather than by the package's NumPy reader (for files holding bfloat16)."""
    (length,) = struct.unpack("<Q", bytes(data[:8]))
    start = 8 + length
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        begin, end = v["data_offsets"]
        dt = dyngrad.bfloat16.np if v["dtype"] == "BF16" else np.dtype(_CODES[v["dtype"]])
        # (a copy: the tensors loaded are ordinary, writable ones, as the NumPy reader's)
        arr = np.frombuffer(data, dtype=np.uint8, count=end - begin, offset=start + begin)
        out[k] = _wrap(arr.copy().view(dt.newbyteorder("<")).astype(dt, copy=False)
                       .reshape(v["shape"]))
    return out


def _read_header(first_bytes: bytes, rest) -> dict:
    (length,) = struct.unpack("<Q", first_bytes)
    return json.loads(rest(length))


def _to_tensors(arrays: dict) -> dict:
    # np.array copies: the arrays safetensors returns are read-only views of the file
    return {k: dyngrad.from_numpy(np.array(a)) for k, a in arrays.items()}


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The safetensors bytes of a dict of tensors (``metadata``: optional str → str)."""
    return _numpy_api().save(_to_arrays(tensors), metadata=metadata)


def save_file(tensors: dict, filename: str | os.PathLike, metadata: dict | None = None) -> None:
    """Write a dict of tensors (a state dict) to a ``.safetensors`` file.

    Example::

        >>> from dyngrad.utils.safetensors import save_file, load_file
        >>> save_file({"weight": dyngrad.ones(2, 3)}, "model.safetensors")
        >>> load_file("model.safetensors")["weight"].shape
        torch.Size([2, 3])
    """
    _numpy_api().save_file(_to_arrays(tensors), filename, metadata=metadata)


def load(data: bytes) -> dict:
    """The tensors in safetensors bytes, as a dict name → tensor."""
    header = _read_header(data[:8], lambda n: data[8:8 + n])
    if _check_header(header):
        return _read_tensors(header, data)
    return _to_tensors(_numpy_api().load(data))


def load_file(filename: str | os.PathLike, device="cpu") -> dict:
    """The tensors of a ``.safetensors`` file, as a dict name → tensor (on the CPU)."""
    if str(device) != "cpu":
        raise RuntimeError(f"dyngrad.utils.safetensors.load_file: device={device!r}: tensors "
                           "can only be loaded to the CPU")
    with open(filename, "rb") as f:
        header = _read_header(f.read(8), f.read)
        if _check_header(header):
            f.seek(0)
            return _read_tensors(header, f.read())
    return _to_tensors(_numpy_api().load_file(filename))
