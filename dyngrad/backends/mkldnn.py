"""``torch.backends.mkldnn``: oneDNN's flags, kept as torch keeps them in a build without it
(see _flags.py): dyngrad's kernels are NumPy's, so ``is_available()`` is False."""
from __future__ import annotations

from . import _flags


def is_available() -> bool:
    """Whether dyngrad is built with MKL-DNN (oneDNN): it is not."""
    return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    prev = _flags.set_flags(__name__, enabled=_enabled, deterministic=_deterministic,
                            allow_tf32=_allow_tf32)
    return prev["enabled"], prev["deterministic"], prev["allow_tf32"], _fp32_precision


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    return _flags.flags_block(__name__, enabled=enabled, deterministic=deterministic,
                              allow_tf32=allow_tf32)


_flags.install(__name__, {"enabled": True, "deterministic": False, "allow_tf32": True})
