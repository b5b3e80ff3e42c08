"""Registry of flash attention implementations (torch.nn.attention._registry).

torch registers two, "FA3" and "FA4", whose activation imports the CUDA packages
``flash_attn_interface`` / ``flash_attn`` and registers their kernels. dyngrad registers the
same names; activating one imports the package as torch does (so without it installed the
error is torch's ModuleNotFoundError), and there are no CUDA kernels to register after that.
"""
from __future__ import annotations

import importlib
import logging
from typing import Callable, Literal

logger = logging.getLogger(__name__)

_RegisterFn = Callable[..., object]
_FlashAttentionImpl = Literal["FA3", "FA4"]

_FLASH_ATTENTION_IMPLS: dict = {}
_FLASH_ATTENTION_ACTIVE = None   # (name, handle) once a registered impl returned a handle


def register_flash_attention_impl(impl, *, register_fn) -> None:
    """Register the callable that activates the flash attention implementation `impl`."""
    _FLASH_ATTENTION_IMPLS[impl] = register_fn


def activate_flash_attention_impl(impl) -> None:
    """Activate a registered flash attention implementation (after restoring the default)."""
    global _FLASH_ATTENTION_ACTIVE
    restore_flash_attention_impl(_raise_warn=False)
    register_fn = _FLASH_ATTENTION_IMPLS.get(impl)
    if register_fn is None:
        raise ValueError(f"Unknown flash attention impl '{impl}'. "
                         f"Available implementations: {list_flash_attention_impls()}")
    handle = register_fn()
    if handle is not None:
        _FLASH_ATTENTION_ACTIVE = (impl, handle)


def list_flash_attention_impls() -> list:
    """The names of all registered flash attention implementations."""
    return sorted(_FLASH_ATTENTION_IMPLS.keys())


def current_flash_attention_impl():
    """The name of the activated implementation, or None for the default."""
    return _FLASH_ATTENTION_ACTIVE[0] if _FLASH_ATTENTION_ACTIVE is not None else None


def restore_flash_attention_impl(_raise_warn: bool = True) -> None:
    """Restore the default (FA2) implementation."""
    global _FLASH_ATTENTION_ACTIVE
    handle = _FLASH_ATTENTION_ACTIVE[1] if _FLASH_ATTENTION_ACTIVE is not None else None
    if handle is not None:
        handle.remove()
    elif _raise_warn:
        logger.warning("Trying to restore default FA2 impl when no custom impl was activated")
    _FLASH_ATTENTION_ACTIVE = None


def _cuda_impl(package):
    def register():
        importlib.import_module(package)   # torch's ModuleNotFoundError when it is missing
        raise RuntimeError(f"{package} provides CUDA kernels; dyngrad runs on the CPU only")
    return register


register_flash_attention_impl("FA3", register_fn=_cuda_impl("flash_attn_interface"))
register_flash_attention_impl("FA4", register_fn=_cuda_impl("flash_attn"))
