"""``torch.nn.attention``: which backend ``scaled_dot_product_attention`` may use
(``SDPBackend``, ``sdpa_kernel``), and the flash-attention implementation registry.

On CPU torch has two SDPA backends: FLASH_ATTENTION (its fused CPU kernel, tried first) and
MATH (the composite of matmul and softmax). The others (EFFICIENT_ATTENTION, CUDNN_ATTENTION,
OVERRIDEABLE) never run on CPU; allowing only them makes SDPA raise torch's error. The flags
live in backends/_sdp.py, read by ops/attention.py (Note [SDPA backends on CPU] there).

Submodules: ``bias`` (CausalBias) and ``flex_attention``. torch's ``varlen`` and
``experimental`` (paged and quantized attention) are CUDA kernels and are left out.
"""
from __future__ import annotations

import contextlib
from warnings import warn

from ...backends import _sdp
from . import _registry

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS",
           "register_flash_attention_impl", "activate_flash_attention_impl",
           "list_flash_attention_impls", "current_flash_attention_impl",
           "restore_flash_attention_impl"]

# Note: [SDPA warnings] in torch: with this set, CausalBias warns when it cannot use a fused
# kernel (on CPU it never can).
WARN_FOR_UNFUSED_KERNELS = False


class _SDPBackendMeta(type):
    """Class attributes ``SDPBackend.MATH`` ... are the members (as pybind11's enums)."""

    def __getattr__(cls, name):
        members = cls.__dict__.get("_members", {})
        if name in members:
            return members[name]
        raise AttributeError(f"type object 'SDPBackend' has no attribute '{name}'")

    @property
    def __members__(cls):
        return dict(cls._members)


class SDPBackend(metaclass=_SDPBackendMeta):
    """An enum-like class of the backends of scaled dot product attention (torch's pybind11
    enum ``torch._C._SDPBackend``): ERROR, MATH, FLASH_ATTENTION, EFFICIENT_ATTENTION,
    CUDNN_ATTENTION, OVERRIDEABLE. Members are not ints (``SDPBackend.MATH == 0`` is False)
    but convert with ``int()``. Use with :func:`sdpa_kernel`."""

    __slots__ = ("_value",)
    _members: dict = {}

    def __init__(self, value):
        self._value = int(value)

    @property
    def name(self) -> str:
        for name, member in type(self)._members.items():
            if member._value == self._value:
                return name
        return "???"

    @property
    def value(self) -> int:
        return self._value

    def __int__(self):
        return self._value

    __index__ = __int__

    def __eq__(self, other):
        return type(other) is type(self) and other._value == self._value

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._value)

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self._value}>"

    def __str__(self):
        return f"SDPBackend.{self.name}"

    def __reduce__(self):
        return SDPBackend, (self._value,)


SDPBackend._members = {name: SDPBackend(value) for name, value in (
    ("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1), ("EFFICIENT_ATTENTION", 2),
    ("CUDNN_ATTENTION", 3), ("OVERRIDEABLE", 4))}
SDPBackend.__qualname__ = "_SDPBackend"   # as torch's class prints: <class '..._SDPBackend'>


def _raise_kernel_warnings(params=None) -> None:
    """With WARN_FOR_UNFUSED_KERNELS, warn why the fused kernels cannot run (torch's
    ``can_use_*_attention(params, debug=True)`` add no reasons on a build without CUDA)."""
    if WARN_FOR_UNFUSED_KERNELS:
        warn("Efficient attention can't be used because:", stacklevel=2)
        warn("Flash attention can't be used because:", stacklevel=2)


_backend_names = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION",
                  "mem_efficient": "EFFICIENT_ATTENTION", "math": "MATH",
                  "overrideable": "OVERRIDEABLE"}


def _backend_from_string(name: str):
    return getattr(SDPBackend, name)


def _cur_sdpa_kernel_backends(with_priority: bool = False):
    """The allowed backends, in the priority order with `with_priority`."""
    backends = [getattr(SDPBackend, val) for name, val in _backend_names.items()
                if _sdp.enabled(name)]
    if with_priority:
        order = _sdp.priority_order()
        backends = sorted(backends, key=lambda backend: order.index(int(backend)))
    return backends


def _sdpa_kernel(backends, set_priority: bool = False) -> None:
    for name, val in _backend_names.items():
        _sdp.set_enabled(name, getattr(SDPBackend, val) in backends)
    if set_priority:
        user_priority = [int(backend) for backend in backends]
        for backend in _sdp.priority_order():
            if backend not in user_priority:
                user_priority.append(int(backend))
        _sdp.set_priority_order(user_priority)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    r"""Context manager (or decorator) allowing only `backends` (an SDPBackend or a list of
    them) for scaled dot product attention; with `set_priority`, their order is the order in
    which they are tried. The previous flags are restored on exit."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous_backends = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous_backends, set_priority)


@contextlib.contextmanager
def _sdpa_kernel_variadic(*backends):
    with sdpa_kernel(list(backends)):
        yield


def _get_flash_version() -> str:
    """The closest matching tag of the flash attention backend (torch's answer)."""
    return "2.5.7"


_FlashAttentionImpl = _registry._FlashAttentionImpl
_RegisterFn = _registry._RegisterFn
register_flash_attention_impl = _registry.register_flash_attention_impl
activate_flash_attention_impl = _registry.activate_flash_attention_impl
list_flash_attention_impls = _registry.list_flash_attention_impls
current_flash_attention_impl = _registry.current_flash_attention_impl
restore_flash_attention_impl = _registry.restore_flash_attention_impl
for _fn in (register_flash_attention_impl, activate_flash_attention_impl,
            list_flash_attention_impls, current_flash_attention_impl,
            restore_flash_attention_impl):
    _fn.__module__ = __name__
del _fn

