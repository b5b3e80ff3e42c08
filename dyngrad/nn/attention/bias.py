"""``torch.nn.attention.bias``: causal attention biases usable as ``attn_mask`` of
``scaled_dot_product_attention``.

Note [CausalBias dispatch]
~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``CausalBias`` is a Tensor subclass whose ``__torch_function__`` reroutes
``F.scaled_dot_product_attention(q, k, v, bias)`` to ``CausalBias._dispatch``. dyngrad's
opts out of ``__torch_function__``; instead ops/attention.py hands an ``attn_mask`` that is a
CausalBias to ``_dispatch``. What ``_dispatch`` does on CPU is torch's: an upper-left bias (or a square one)
is ``is_causal=True``; a lower-right one has no fused CUDA kernel to go to and runs SDPA with
the materialized boolean mask. The object itself is, as in torch, the uninitialized tensor
that ``Tensor(variant, seq_len_q, seq_len_kv)`` makes (float32, shape
``(int(variant), seq_len_q, seq_len_kv)``); its repr is the materialized mask's.
"""
from __future__ import annotations

from enum import IntEnum, auto
from warnings import warn

from ..._tensor import Tensor
from ...overrides import _disabled_torch_function_impl
from ._utils import _validate_sdpa_input

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    r"""The two causal biases: ``UPPER_LEFT`` is ``tril(ones(L, S))`` (``is_causal=True``);
    ``LOWER_RIGHT`` aligns the diagonal with the lower-right corner,
    ``tril(ones(L, S), diagonal=S - L)``. They agree when L == S."""

    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


class CausalBias(Tensor):
    """A causal (triangular) attention bias, made by :func:`causal_upper_left` or
    :func:`causal_lower_right` (Note [CausalBias dispatch])."""

    # (ops/attention.py reroutes it, not the protocol: Note [CausalBias dispatch])
    __torch_function__ = _disabled_torch_function_impl

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warn("Lower right causal bias will produce NaNs in the output when "
                 "seq_len_q > seq_len_kv!", stacklevel=2)

    def _upper_left(self, device):
        from ... import bool as _bool, ones, tril
        return tril(ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=_bool))

    def _lower_right(self, device):
        from ... import bool as _bool, ones, tril
        return tril(ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=_bool),
                    diagonal=self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device=None):
        """The bias as a boolean (seq_len_q, seq_len_kv) tensor."""
        if device is None:
            from ... import device as _device
            device = _device("cpu")
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)
        return None

    @staticmethod
    def _dispatch(query, key, value, attn_mask, dropout_p=0.0, is_causal=False, scale=None,
                  enable_gqa=False):
        """scaled_dot_product_attention with the causal bias `attn_mask` (CPU: see
        Note [CausalBias dispatch])."""
        from .. import functional as F
        from . import _raise_kernel_warnings
        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if (attn_mask.seq_len_q == attn_mask.seq_len_kv
                or attn_mask.variant == CausalVariant.UPPER_LEFT):
            return F.scaled_dot_product_attention(query, key, value, attn_mask=None,
                                                  dropout_p=dropout_p, is_causal=True,
                                                  scale=scale, enable_gqa=enable_gqa)
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            _validate_sdpa_input(query, key, value, None, dropout_p, is_causal, scale)
            _raise_kernel_warnings()
            return F.scaled_dot_product_attention(
                query, key, value, attn_mask=attn_mask._materialize(query.device),
                dropout_p=dropout_p, is_causal=False, scale=scale, enable_gqa=enable_gqa)
        raise ValueError("CausalBias.variant must be a CausalVariant type, but found: "
                         f"{attn_mask.variant}")

    def __repr__(self) -> str:
        return self._materialize().__repr__()


def causal_upper_left(*size) -> CausalBias:
    """An upper-left causal bias of ``size`` (seq_len_q, seq_len_kv): ``is_causal=True``."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size) -> CausalBias:
    """A lower-right causal bias of ``size`` (seq_len_q, seq_len_kv): query i attends to keys
    up to ``i + seq_len_kv - seq_len_q``."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
