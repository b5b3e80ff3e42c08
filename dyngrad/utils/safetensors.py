"""State dicts to and from the safetensors format, the way weights move between dyngrad and
PyTorch (or any other library that reads safetensors).

The functions mirror ``safetensors.torch``: ``save_file(tensors, filename, metadata=None)``,
``load_file(filename, device="cpu")``, ``save(tensors, metadata=None) -> bytes`` and
``load(data) -> dict``. They go through the ``safetensors`` package's NumPy API, an optional
dependency (``pip install dyngrad[io]``) imported only when one of them is called.

A file written here loads with ``safetensors.torch.load_file`` into a ``torch.nn.Module``'s
``load_state_dict``, and a file ``safetensors.torch.save_file`` wrote loads here, as long as
every tensor has a dtype both sides know (the format has no complex128).

As in ``safetensors.torch``, a tensor to save must be contiguous, and two tensors may not share
memory (tied weights: save one of them); both raise the same errors.

Differences from ``safetensors.torch``: dyngrad has no bfloat16 (nor float8), so loading a file
with such tensors raises a ``TypeError`` naming them; convert them to float32 before saving on
the torch side (``{k: v.float() for k, v in sd.items()}``).
"""
from __future__ import annotations

import json
import os
import struct

import numpy as np

import dyngrad

__all__ = ["save", "save_file", "load", "load_file"]

# safetensors dtype codes dyngrad can hold; the others (BF16, F8_* …) it cannot
_KNOWN_CODES = {"BOOL", "U8", "I8", "I16", "I32", "I64", "F16", "F32", "F64", "C64", "U16", "U32",
                "U64"}


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
        arrays[k] = np.ascontiguousarray(v.detach().numpy())
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


def _check_header(header: dict) -> None:
    unknown = {k: v["dtype"] for k, v in header.items()
               if k != "__metadata__" and v["dtype"] not in _KNOWN_CODES}
    if unknown:
        raise TypeError(f"dyngrad cannot hold the dtypes of these tensors: {unknown} (dyngrad "
                        "has no bfloat16 or float8 types); convert them, "
                        "e.g. to float32, before saving")


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
    _check_header(_read_header(data[:8], lambda n: data[8:8 + n]))
    return _to_tensors(_numpy_api().load(data))


def load_file(filename: str | os.PathLike, device="cpu") -> dict:
    """The tensors of a ``.safetensors`` file, as a dict name → tensor (on the CPU)."""
    if str(device) != "cpu":
        raise RuntimeError(f"dyngrad.utils.safetensors.load_file: device={device!r}: tensors "
                           "can only be loaded to the CPU")
    with open(filename, "rb") as f:
        _check_header(_read_header(f.read(8), f.read))
    return _to_tensors(_numpy_api().load_file(filename))
