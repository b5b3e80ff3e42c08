"""``torch.backends.cuda``: the CUDA library settings code sets before training
(``torch.backends.cuda.matmul.allow_tf32 = True``). dyngrad has no CUDA build (``is_built()``
is False); ``matmul.allow_tf32`` is the CUDA half of the float32 matmul precision, as in torch
(see _settings.get_float32_matmul_precision), and the reduced-precision-reduction flags are
stored."""
from __future__ import annotations

from .. import _settings


def is_built() -> bool:
    """Whether dyngrad is built with CUDA: it is not."""
    return False


def _as_reduction_setting(value, name):
    """torch's parsing of allow_{fp16,bf16}_reduced_precision_reduction: a bool, or one or two
    bools (allow_reduced_precision, allow_splitk)."""
    def as_bool(obj, which):
        if isinstance(obj, bool):
            return obj
        raise TypeError(f"{name} expects a bool for {which}, but got {type(obj)!r}")
    if isinstance(value, bool):
        return value, True
    if isinstance(value, (list, tuple)):
        if not value:
            raise TypeError(f"{name} expects at least one boolean argument")
        if len(value) > 2:
            raise TypeError(f"{name} expects at most two boolean arguments")
        allow = as_bool(value[0], "allow_reduced_precision")
        return allow, (True if len(value) == 1 else as_bool(value[1], "allow_splitk"))
    raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)!r}")


class _MatmulSettings:
    """``torch.backends.cuda.matmul``."""

    _reductions = {"fp16": (True, True), "bf16": (True, True)}

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _settings._cuda_matmul_tf32()
        for kind in ("fp16", "bf16"):
            if name == f"allow_{kind}_reduced_precision_reduction":
                return self._reductions[kind][0]
            if name == f"allow_{kind}_reduced_precision_reduction_split_k":
                return self._reductions[kind][1]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _settings._set_cuda_matmul_tf32(bool(value))
            return
        for kind in ("fp16", "bf16"):
            if name == f"allow_{kind}_reduced_precision_reduction":
                allow, splitk = _as_reduction_setting(value, name)
                if allow and not splitk:
                    raise RuntimeError("allow_splitk=False is not supported when reduced "
                                       "precision reductions are enabled")
                self._reductions[kind] = (allow, splitk)
                return
        raise AttributeError("Unknown attribute " + name)


matmul = _MatmulSettings()


# the scaled-dot-product-attention backend flags (backends/_sdp.py); torch.nn.attention's
# sdpa_kernel sets them too
def _sdp_flag_functions(name, doc):
    from . import _sdp

    def is_enabled() -> bool:
        return _sdp.enabled(name)

    def enable(enabled: bool) -> None:
        _sdp.set_enabled(name, enabled)

    is_enabled.__doc__ = f"Whether {doc} scaled dot product attention is enabled."
    enable.__doc__ = f"Enables or disables {doc} scaled dot product attention."
    return is_enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_flag_functions("flash", "flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_flag_functions("mem_efficient",
                                                                          "memory efficient")
math_sdp_enabled, enable_math_sdp = _sdp_flag_functions("math", "math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_flag_functions("cudnn", "cuDNN")
