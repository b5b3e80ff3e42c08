"""Device objects, as ``torch.device``.

Note [Device strings]
~~~~~~~~~~~~~~~~~~~~~
A device is a type and an optional index, parsed as torch's C++ ``Device`` parses a string:
letters and underscores, then optionally ``:`` and an index without a leading zero (the
regular expression ``([a-zA-Z_]+)(?::([1-9]\\d*|0))?``); anything else is an "Invalid device
string". The type must be one of torch's device types (``xpu``, ``mps``, ``meta``... are
devices too: dyngrad can name them, and refuses to put a tensor there). torch keeps the index
in a signed byte, so ``"cuda:128"`` has index -128 (and a repr showing 65408, those bits as an
unsigned 16-bit number); dyngrad keeps that arithmetic too. Every device, whatever its type,
compares equal only to a device: ``torch.device("cpu") == "cpu"`` is False in torch, and here.
"""
from __future__ import annotations

import warnings

# torch's DeviceType numbers (c10/core/DeviceType.h), which its hash of a device carries
_TYPES = {"cpu": 0, "cuda": 1, "mkldnn": 2, "opengl": 3, "opencl": 4, "ideep": 5, "hip": 6,
          "fpga": 7, "maia": 8, "xla": 9, "vulkan": 10, "xpu": 12, "mps": 13, "meta": 14,
          "hpu": 15, "ve": 16, "lazy": 17, "ipu": 18, "mtia": 19, "privateuseone": 20}
_EXPECTED = ("Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
             "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
             "of device string: ")
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_warned_mkldnn: list = []
_PARSED: dict = {}   # device string -> (type, index), for strings parsed before


def _byte_index(index: int) -> int:
    """An index as torch stores it: a signed byte (200 is kept as -56)."""
    return (index + 128) % 256 - 128


def _parse(text: str):
    """(type, index or None) of a device string (Note [Device strings])."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    name, sep, digits = text.partition(":")
    valid = name and all(c.isalpha() and c.isascii() or c == "_" for c in name) and (
        not sep or (digits.isascii() and digits.isdigit() and (digits == "0" or digits[0] != "0")))
    if not valid:
        raise RuntimeError(f"Invalid device string: '{text}'")
    index = None
    if sep:
        if int(digits) > 2 ** 31 - 1:   # (torch's std::stoi)
            raise RuntimeError(f"Could not parse device index '{digits}' in device string "
                               f"'{text}'")
        index = _byte_index(int(digits))
    if name not in _TYPES:
        raise RuntimeError(_EXPECTED + name)
    if name == "mkldnn" and not _warned_mkldnn:   # (torch warns once per process)
        _warned_mkldnn.append(True)
        warnings.warn("'mkldnn' is no longer used as device type. So torch.device('mkldnn') will "
                      "be deprecated and removed in the future. Please use other valid device "
                      "types instead. (Triggered internally at /__w/pytorch/pytorch/c10/core/"
                      "Device.cpp:40.)", UserWarning, stacklevel=4)   # (the caller of device())
    return name, index


def _signature_error(args, kwargs, note=""):
    got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}"
                                                        for k, v in kwargs.items()])
    if kwargs:
        got += ", "
    return TypeError(f"device() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:\n * (torch.device device)\n{note} * (str type, int index "
                     "= -1)\n")


class device:
    """Where a tensor's storage lives: ``device('cpu')``, ``device('cuda', 0)``. Immutable;
    ``with device:`` makes it the default device inside the block."""

    __slots__ = ("_type", "_index", "_previous")

    def __init__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and type(args[0]) is str:
            parsed = _PARSED.get(args[0])   # (a string seen before: its parse, reused)
            if parsed is not None:
                self._type, self._index = parsed
                return
        type_, index = _arguments(args, kwargs)
        self._type = type_
        self._index = index

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self):
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        # (torch's repr shows a negative index through 16 unsigned bits: -128 as 65408)
        return f"device(type='{self._type}', index={self._index & 0xFFFF})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __ne__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return not self == other

    def _order(self, other):
        raise TypeError("comparison not implemented")

    __lt__ = __le__ = __gt__ = __ge__ = _order

    def __hash__(self) -> int:
        index = -1 if self._index is None else self._index
        return (_TYPES[self._type] << 16) | (index & 0xFF)

    def __reduce__(self):
        return (device, (self._type, self._index))

    def __enter__(self):
        from . import _settings
        previous = _settings._state.default_device
        _settings.set_default_device(self)
        try:
            self._previous.append(previous)
        except AttributeError:   # (a stack per device object: `with d:` may nest)
            self._previous = [previous]
        return self

    def __exit__(self, *exc_info):
        from . import _settings
        _settings._state.default_device = self._previous.pop()
        return None


def _arguments(args, kwargs):
    """torch.device's two signatures: ``(torch.device device)`` (also a string, bytes or an
    accelerator index) and ``(str type, int index=-1)``."""
    if kwargs:
        typed = args or "type" in kwargs   # (a type to go with an index=)
        if set(kwargs) - {"type", "index"} or len(args) + len(kwargs) > 2 or not typed or (
                "type" in kwargs and args):
            raise _signature_error(args, kwargs, "      didn't match because some of the "
                                   f"keywords were incorrect: {', '.join(kwargs)}\n"
                                   if not typed else "")
        args = args + tuple(kwargs[k] for k in ("type", "index") if k in kwargs)
    if not args or len(args) > 2:
        raise _signature_error(args, kwargs)
    first = args[0]
    if len(args) == 1:
        if isinstance(first, device):
            return first._type, first._index
        if type(first) is int:
            if first < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError(_NO_ACCELERATOR)
        if isinstance(first, bytes):
            first = first.decode()
        if not isinstance(first, str):
            name = type(first).__name__
            raise _signature_error(args, kwargs, "      didn't match because some of the "
                                   f"arguments have invalid types: (!{name}!)\n")
        parsed = _parse(first)
        if len(_PARSED) < 256:
            _PARSED[first] = parsed
        return parsed
    index = args[1]
    if isinstance(first, bytes):
        first = first.decode()
    if not isinstance(first, str):
        raise TypeError("device(): argument 'type' (position 1) must be str, not "
                        f"{_torch_type_name(first)}")
    if index is None:
        return _parse(first)
    if type(index) is not int:
        raise TypeError("device(): argument 'index' (position 2) must be int, not "
                        f"{type(index).__name__}")
    if index < 0:
        raise RuntimeError("Device index must not be negative")
    type_, given = _parse(first)
    if given is not None:
        raise RuntimeError("type (string) must not include an index because index was passed "
                           f"explicitly: {first}")
    return type_, _byte_index(index)


def _torch_type_name(value) -> str:
    return "torch.device" if isinstance(value, device) else type(value).__name__


CPU = device("cpu")
