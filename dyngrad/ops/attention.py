"""``nn.functional.scaled_dot_product_attention``: torch's math path on CPU, composed of
matmul, softmax and masks (dropout_p > 0 draws a dropout mask as torch does).
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


@composite("nn.functional.scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(q k^T * scale + mask) v``; ``scale`` defaults to ``1 / sqrt(E)``."""
    from .. import bool as _bool, ones, zeros
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
