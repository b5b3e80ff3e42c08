"""The scaled-dot-product-attention backend flags (torch._C's ``_get/_set_sdp_use_*`` and
``_get/_set_sdp_priority_order``): which SDPA backends the user allows, and the order in which
they are tried. ``torch.backends.cuda.enable_*_sdp`` and ``torch.nn.attention.sdpa_kernel`` set
them; ``nn.functional.scaled_dot_product_attention`` reads them (ops/attention.py).

The integers are ``SDPBackend``'s values: 0 math, 1 flash, 2 efficient, 3 cudnn, 4 overrideable.
"""
from __future__ import annotations

NAMES = ("cudnn", "flash", "mem_efficient", "math", "overrideable")
_VALUES = {"math": 0, "flash": 1, "mem_efficient": 2, "cudnn": 3, "overrideable": 4}

_enabled = dict.fromkeys(NAMES, True)
_priority = [1, 2, 0, 3, 4]   # torch's default order: flash, efficient, math, cudnn, ...


def enabled(name: str) -> bool:
    """Whether the backend ``name`` (one of NAMES) is allowed."""
    return _enabled[name]


def set_enabled(name: str, value: bool) -> None:
    _enabled[name] = bool(value)


def priority_order() -> list[int]:
    """The backends' values in the order SDPA tries them (a copy)."""
    return list(_priority)


def set_priority_order(order) -> None:
    _priority[:] = [int(b) for b in order]


def value_of(name: str) -> int:
    return _VALUES[name]
