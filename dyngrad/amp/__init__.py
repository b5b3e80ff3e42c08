"""``torch.amp``: autocast (mixed precision regions, Note [Autocast] in amp/_policy.py) and
GradScaler (dynamic loss scaling)."""
from .autocast_mode import (  # noqa: F401
    _enter_autocast, _exit_autocast, autocast, custom_bwd, custom_fwd, is_autocast_available,
)
from .grad_scaler import GradScaler  # noqa: F401
from . import _policy  # noqa: F401  (the dispatcher's hook, installed while autocast is on)

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
