"""``nn.functional.multi_head_attention_forward`` and its helpers (``_canonical_mask``,
``_none_or_dtype``, ``_mha_shape_check``, ``_in_projection_packed``, ``_in_projection``):
the math behind ``nn.MultiheadAttention``, composed of ``linear``, ``bmm``/``baddbmm``,
``softmax``, ``dropout`` and ``scaled_dot_product_attention``, as in torch/nn/functional.py.

Note [Multi-head attention, step by step]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Inputs are sequence-first: query (L, N, E), key (S, N, Ek), value (S, N, Ev) (a 2-D query is
one unbatched sequence). The steps:

1. masks are made "canonical": a boolean mask (True = do not attend) becomes a float mask
   holding ``-inf`` where True and 0 elsewhere; a float mask is added to the scores as is;
2. q, k, v are projected: one packed ``in_proj_weight`` (3E, E) split in three, or separate
   ``q/k/v_proj_weight`` when key or value have other widths (kdim/vdim);
3. optional extras on the key/value sequence: a learnt ``bias_k``/``bias_v`` row appended
   (add_bias_kv) and a row of zeros appended (add_zero_attn); masks get a 0 column to match;
4. heads are split: (L, N, E) -> (N*H, L, E/H);
5. with ``need_weights`` the attention matrix is formed explicitly,
   ``softmax(q/sqrt(d) k^T + mask)`` (baddbmm), dropped out, multiplied by v, and returned
   (averaged over heads unless ``average_attn_weights=False``); otherwise the heads go through
   ``scaled_dot_product_attention``, which can also apply ``is_causal`` without a mask;
6. heads are merged back and ``out_proj`` is applied.
"""
from __future__ import annotations

import math
import warnings

from .._dtypes import bool_
from . import _registry
from ._registry import FUNCTIONS, composite


def _fn(name):
    return FUNCTIONS[name]


@composite("nn.functional._none_or_dtype")
def _none_or_dtype(input):
    """The dtype of ``input``, or None when it is None."""
    if input is None:
        return None
    if isinstance(input, _registry._Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


@composite("nn.functional._canonical_mask")
def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask as a float mask of ``target_type`` (``-inf`` where True, 0 elsewhere);
    float masks pass through. See Note [Multi-head attention, step by step]."""
    if mask is None:
        return None
    mask_dtype = mask.dtype
    mask_is_float = mask.is_floating_point()
    if mask_dtype != bool_ and not mask_is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask_dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=2)
    if not mask_is_float:
        mask = _fn("zeros_like")(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


@composite("nn.functional._mha_shape_check")
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for a batched (3-D) query, False for an unbatched (2-D) one; torch's checks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be "
                                 f"3-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


@composite("nn.functional._in_projection_packed")
def _in_projection_packed(q, k, v, w, b=None):
    """Project q, k, v with one packed weight (3E, E): one product when q, k, v are the same
    tensor (self-attention), two when only k and v are (encoder-decoder attention)."""
    linear = _fn("nn.functional.linear")
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            # (..., 3E) -> (3, ..., E): a contiguous stack of the three projections
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv_proj = kv_proj.contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


@composite("nn.functional._in_projection")
def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """Project q, k, v with separate weights (used when kdim or vdim differ from embed_dim)."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for what, t, shape in (("query weights", w_q, (Eq, Eq)), ("key weights", w_k, (Eq, Ek)),
                           ("value weights", w_v, (Eq, Ev))):
        if t.shape != shape:
            raise AssertionError(f"expecting {what} shape of {shape}, but got {t.shape}")
    for what, t in (("query bias", b_q), ("key bias", b_k), ("value bias", b_v)):
        if t is not None and t.shape != (Eq,):
            raise AssertionError(f"expecting {what} shape of {(Eq,)}, but got {t.shape}")
    linear = _fn("nn.functional.linear")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _add_bias_rows(k, v, bias_k, bias_v, attn_mask, key_padding_mask, bsz, static_k,
                   static_v):
    """Step 3a: append the learnt bias_k / bias_v rows to the key and value sequences."""
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _fn("cat")([k, bias_k.repeat(1, bsz, 1)])
        v = _fn("cat")([v, bias_v.repeat(1, bsz, 1)])
        pad = _fn("nn.functional.pad")
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    return k, v, attn_mask, key_padding_mask


def _split_heads(t, static, bsz, num_heads, head_dim, name):
    """Step 4: (S, N, E) -> (N*H, S, E/H), or a given ``static_k``/``static_v`` checked."""
    if static is None:
        return t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _check_mask_shapes(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dim() == 2:
        correct = (tgt_len, src_len)
        if attn_mask.shape != correct:
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {correct}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        correct = (bsz * num_heads, tgt_len, src_len)
        if attn_mask.shape != correct:
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {correct}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


@composite("nn.functional.multi_head_attention_forward")
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on sequence-first inputs; returns ``(attn_output, attn_weights)``
    (weights None unless ``need_weights``). See Note [Multi-head attention, step by step]."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]

    # 1. canonical masks
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # scaled_dot_product_attention builds the causal mask itself
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False   # the mask (with the padding merged in) says it all

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # 2. input projections
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)
    if attn_mask is not None:
        attn_mask = _check_mask_shapes(attn_mask, tgt_len, src_len, bsz, num_heads)

    # 3. bias_k/bias_v rows; 4. heads; 3b. a zero row
    k, v, attn_mask, key_padding_mask = _add_bias_rows(
        k, v, bias_k, bias_v, attn_mask, key_padding_mask, bsz, static_k, static_v)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _split_heads(k, static_k, bsz, num_heads, head_dim, "static_k")
    v = _split_heads(v, static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros, cat, pad = _fn("zeros"), _fn("cat"), _fn("nn.functional.pad")
        shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(shape, dtype=k.dtype)], dim=1)
        v = cat([v, zeros(shape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    # the padding mask joins the attention mask, one row per (batch, head)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    linear = _fn("nn.functional.linear")
    if need_weights:
        # 5. the explicit attention matrix
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _fn("baddbmm")(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _fn("bmm")(q_scaled, k.transpose(-2, -1))
        weights = _fn("nn.functional.softmax")(weights, dim=-1)
        if dropout_p > 0.0:
            weights = _fn("nn.functional.dropout")(weights, p=dropout_p)
        attn_output = _fn("bmm")(weights, v)
        # 6. merge heads, output projection
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            weights = weights.squeeze(0)
        return attn_output, weights

    # 5'. scaled_dot_product_attention on (N, H, L, E/H)
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = _fn("nn.functional.scaled_dot_product_attention")(q, k, v, attn_mask,
                                                                     dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
