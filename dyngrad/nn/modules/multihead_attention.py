"""``nn.MultiheadAttention`` (torch keeps it in torch/nn/modules/activation.py): the parameters
and their initialisation; the math is ``nn.functional.multi_head_attention_forward``
(dyngrad/ops/mha.py, see Note [Multi-head attention, step by step]).

Differences from torch: torch's inference fast path (``_native_multi_head_attention``, taken
in eval mode without autograd) is not reproduced; it computes the same values, to rounding.
Nested tensors are not supported.
"""
from __future__ import annotations

from .. import functional as F
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


def empty(*size, **kwargs):
    from ... import empty as _empty   # late: dyngrad imports nn before its own namespace is full
    return _empty(*size, **kwargs)


class MultiheadAttention(Module):
    r"""Attention from a query sequence to a key/value sequence with ``num_heads`` heads:
    ``softmax(Q K^T / sqrt(d) + mask) V`` per head, heads concatenated, then ``out_proj``.

    Args:
        embed_dim: model width E (of the query, and of the output).
        num_heads: heads; ``embed_dim`` must be divisible by it.
        dropout: dropout on the attention weights (training only). Default: 0.0
        bias: biases on the input and output projections. Default: True
        add_bias_kv: learn an extra key and value row appended to the sequence. Default: False
        add_zero_attn: append a row of zeros to key and value. Default: False
        kdim, vdim: key and value widths (default ``embed_dim``); when they differ from it,
            separate ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` replace the packed
            ``in_proj_weight``.
        batch_first: inputs and outputs are (N, L, E) instead of (L, N, E). Default: False

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(attn_output, attn_weights)``.
    Boolean masks mark with True the positions that may *not* be attended.

    Example::

        >>> mha = nn.MultiheadAttention(16, 4)
        >>> x = torch.randn(5, 2, 16)
        >>> out, weights = mha(x, x, x)
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory_kwargs))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory_kwargs))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory_kwargs))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory_kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory_kwargs)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """Xavier-uniform projections, zero biases, Xavier-normal ``bias_k``/``bias_v``
        (``out_proj.weight`` keeps Linear's own initialisation)."""
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(
            mask=key_padding_mask, mask_name="key_padding_mask",
            other_type=F._none_or_dtype(attn_mask), other_name="attn_mask",
            target_type=query.dtype)
        attn_mask = F._canonical_mask(mask=attn_mask, mask_name="attn_mask", other_type=None,
                                      other_name="", target_type=query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # keep self-attention recognisable (query is key is value) for the packed projection
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {}
        if not self._qkv_same_embed_dim:
            separate = {"use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
                        "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        attn_output, attn_output_weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """One mask from ``attn_mask`` (L, L) or (N*H, L, L) and ``key_padding_mask`` (N, L)
        for batch-first self-attention: returns (mask, mask_type) with mask_type 1 for a
        padding mask alone, 2 for an attention mask (with the padding added), None for none."""
        mask_type = None
        merged_mask = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1)
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                key_padding_mask_expanded = key_padding_mask.view(
                    batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
                merged_mask = attn_mask_expanded + key_padding_mask_expanded
        return merged_mask, mask_type
