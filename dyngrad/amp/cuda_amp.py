"""``torch.cuda.amp``: torch's deprecated spellings of ``torch.amp.autocast("cuda", ...)``,
``torch.amp.GradScaler("cuda", ...)`` and ``torch.amp.custom_fwd/custom_bwd(device_type=
"cuda")``, with their FutureWarnings. There is no CUDA here, so autocast and the scaler then
disable themselves with torch's UserWarnings, as torch's CPU build does: training code written
for CUDA mixed precision runs in float32."""
from __future__ import annotations

import warnings

from .. import _dtypes as D
from . import autocast_mode, grad_scaler

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use {new} instead.",
                  FutureWarning, stacklevel=3)


class autocast(autocast_mode.autocast):
    """See ``torch.autocast``; ``torch.cuda.amp.autocast(args...)`` is deprecated."""

    def __init__(self, enabled: bool = True, dtype=D.float16, cache_enabled: bool = True):
        _deprecated("autocast", "`torch.amp.autocast('cuda', args...)`")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    """See ``torch.amp.GradScaler``; ``torch.cuda.amp.GradScaler(args...)`` is deprecated."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        _deprecated("GradScaler", "`torch.amp.GradScaler('cuda', args...)`")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.amp.custom_fwd(..., device_type='cuda')``, deprecated spelling."""
    _deprecated("custom_fwd", "`torch.amp.custom_fwd(args..., device_type='cuda')`")
    return autocast_mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """``torch.amp.custom_bwd(..., device_type='cuda')``, deprecated spelling."""
    _deprecated("custom_bwd", "`torch.amp.custom_bwd(args..., device_type='cuda')`")
    return autocast_mode.custom_bwd(bwd, device_type="cuda")
