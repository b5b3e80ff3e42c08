"""``nn.functional.scaled_dot_product_attention``: torch's math path on CPU, composed of
matmul, softmax and masks (dropout_p > 0 draws a dropout mask as torch does).

Note [SDPA backends on CPU]
~~~~~~~~~~~~~~~~~~~~~~~~~~
torch picks a backend from the flags ``torch.nn.attention.sdpa_kernel`` sets (backends/_sdp.py).
On CPU only two exist: its fused flash kernel, tried first, which needs 4-d inputs and no
dropout, and MATH. With neither allowed, SDPA raises "No viable backend..."; with flash allowed
but unusable and MATH off, it warns why flash was not used and raises "No available kernel".
``_check_backend`` makes those choices and raises those errors; whichever backend torch would
take, dyngrad computes the math composite below (values agree to rounding; the graph is the
math one, not torch's single ScaledDotProductFlashAttentionForCpuBackward0 node).
"""
from __future__ import annotations

import math

from ._registry import composite


def _safe_softmax(x, dim):
    """softmax, with 0 instead of NaN on rows that are all -inf (fully masked)."""
    from .. import where
    masked_rows = (x == float("-inf")).all(dim, True)
    # softmax of a finite stand-in for those rows, so that neither value nor gradient is NaN
    out = where(masked_rows, 0.0, x).softmax(dim)
    return where(masked_rows, 0.0, out)


def _flash_cpu_refusal(query, key, value, dropout_p):
    """Why torch's CPU flash kernel cannot run these inputs (its first failing check), or None."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout."
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return ("All fused kernels requires query, key and value to be 4 dimensional, but got "
                f"Query dim: {query.dim()}, Key dim: {key.dim()}, Value dim: {value.dim()} "
                "instead.")
    return None


def _check_backend(query, key, value, dropout_p):
    """Raise torch's errors when no allowed backend can run on CPU (Note [SDPA backends on
    CPU])."""
    from ..backends import _sdp
    if _sdp.enabled("math"):
        return
    if not _sdp.enabled("flash"):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    reason = _flash_cpu_refusal(query, key, value, dropout_p)
    if reason is None:
        return
    import warnings
    where = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/transformers/"
    warnings.warn("Flash attention kernel not used because:" + where + "sdp_utils_cpp.cpp:99.)",
                  stacklevel=3)
    line = 241 if dropout_p > 0.0 else 327
    warnings.warn(reason + where + f"sdp_utils_cpp.h:{line}.)", stacklevel=3)
    raise RuntimeError("No available kernel.  Aborting execution.")


@composite("nn.functional.scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(q k^T * scale + mask) v``; ``scale`` defaults to ``1 / sqrt(E)``."""
    from .. import bool as _bool, ones, zeros
    if attn_mask is not None and type(attn_mask).__name__ == "CausalBias":
        from ..nn.attention.bias import CausalBias   # Note [CausalBias dispatch]
        if isinstance(attn_mask, CausalBias):
            return CausalBias._dispatch(query, key, value, attn_mask, dropout_p, is_causal,
                                        scale, enable_gqa)
    _check_backend(query, key, value, dropout_p)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    L, S = query.shape[-2], key.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    factor = math.sqrt(scale)
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    if is_causal:
        attn_mask = ones(L, S, dtype=_bool).tril()
    if attn_mask is not None and attn_mask.dtype == _bool:
        attn_mask = zeros(attn_mask.shape, dtype=query.dtype).masked_fill(
            attn_mask.logical_not(), float("-inf"))
    attn = (query * factor).matmul(key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn = attn + attn_mask
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        from .. import nn
        attn = nn.functional.dropout(attn, dropout_p)
    return attn.matmul(value)
