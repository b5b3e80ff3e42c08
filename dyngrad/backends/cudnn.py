"""``torch.backends.cudnn``: cuDNN's flags, kept as torch keeps them in a build without cuDNN
(see _flags.py). ``enabled``, ``benchmark``, ``deterministic``, ``allow_tf32`` read and assign;
``benchmark_limit`` is None, as torch's is when cuDNN is not available."""
from __future__ import annotations

from . import _flags


def is_available() -> bool:
    """Whether cuDNN can be used: never in dyngrad."""
    return False


def version():
    """cuDNN's version: None when it is not available."""
    return None


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would take `tensor`: never without cuDNN."""
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none", _depthwise_kernel=None):
    """Set the given flags; return the previous ones, in torch's order."""
    prev = _flags.set_flags(__name__, enabled=_enabled, benchmark=_benchmark,
                            deterministic=_deterministic, allow_tf32=_allow_tf32)
    return (prev["enabled"], prev["benchmark"], None, prev["deterministic"],
            prev["allow_tf32"], _fp32_precision, _depthwise_kernel)


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """A block with these flags (torch's defaults: ``with flags():`` disables cuDNN)."""
    return _flags.flags_block(__name__, enabled=enabled, benchmark=benchmark,
                              deterministic=deterministic, allow_tf32=allow_tf32)


_flags.install(__name__, {"enabled": True, "benchmark": False, "deterministic": False,
                          "allow_tf32": True, "benchmark_limit": None})
