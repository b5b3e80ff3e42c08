"""``dyngrad.xpu``: the device module of Intel GPUs, as torch's CPU build has it.

Device-selection code runs unchanged (``is_available()`` is False, ``device_count()`` 0), the
bookkeeping calls answer as torch's do without the device (no memory in use, seeds kept for
an initialisation that never comes), and every call that needs the device raises torch's
AssertionError. dyngrad has no XPU backend.
"""
from __future__ import annotations

import collections

from ._device import device as _device_type

_NOT_COMPILED = "Torch not compiled with XPU enabled"
_NO_PYZES = "pyzes is required; install it with 'pip install pyzes'."


def _lazy_init(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def _needs_pyzes(device=None):
    raise ImportError(_NO_PYZES)


def _nothing(*args, **kwargs) -> None:
    """Accepted and forgotten, as torch does where the device would take it at its start."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def _is_compiled() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def get_arch_list() -> list:
    return []


def get_gencode_flags() -> str:
    return ""


def get_rng_state_all() -> list:
    return []


def _no_memory(device=None) -> int:
    return 0


def memory_stats(device=None) -> dict:
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None) -> dict:
    return {}


def memory_snapshot(mempool_id=None) -> list:
    return []


# the calls that need the device
init = current_device = set_device = synchronize = get_device_name = _lazy_init
get_device_properties = get_device_capability = initial_seed = get_rng_state = _lazy_init
current_stream = mem_get_info = set_per_process_memory_fraction = _lazy_init
get_per_process_memory_fraction = _lazy_init
# seeds and states kept for the device's start, and its cache
manual_seed = manual_seed_all = seed = seed_all = set_rng_state = set_rng_state_all = _nothing
empty_cache = _nothing
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _no_memory
# the metrics read through Level Zero's sysman bindings
utilization = temperature = power_draw = clock_rate = memory_usage = _needs_pyzes
device_memory_used = _needs_pyzes


class _Dummy:
    """torch's stand-in for a class of the backend it was built without."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError(f"Tried to instantiate dummy base class {cls.__name__}")


class Stream(_Dummy):
    pass


class Event(_Dummy):
    pass


def _device_index(value):
    """torch.xpu's ``_get_device_index(value, optional=True)`` in a build without XPU: an xpu
    device's index (None when it has none), an int as it is, None for anything else (there is
    no current device to fall back on); another device type is refused."""
    if isinstance(value, str):
        value = _device_type(value)
    if isinstance(value, _device_type):
        if value.type != "xpu":
            raise ValueError(f"Expected a xpu device, but got: {value}")
        return value.index
    if isinstance(value, device):   # (the context manager below)
        return value.idx
    return value if isinstance(value, int) else None


class device:
    """Context manager that makes an XPU device the current one: entering it raises here."""

    def __init__(self, device) -> None:
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        raise NotImplementedError("PyTorch was compiled without XPU support")

    def __exit__(self, *exc) -> bool:
        return False


class device_of(device):
    """``device`` of the XPU device `obj` (a tensor) lives on."""

    def __init__(self, obj) -> None:
        super().__init__(-1)
