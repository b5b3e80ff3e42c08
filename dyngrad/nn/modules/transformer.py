"""``nn.TransformerEncoderLayer`` and ``nn.TransformerEncoder`` as in torch: a self-attention
block and a feed-forward block, each with a residual connection and a LayerNorm (after the
block by default, before it with ``norm_first``), stacked ``num_layers`` times; and the
decoder side (``TransformerDecoderLayer``, ``TransformerDecoder``, with a cross-attention block
over the encoder's output) and the whole ``Transformer``.

Note [Transformer fast path]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
In eval mode with autograd off torch may run fused kernels (``_transformer_encoder_layer_fwd``,
``_native_multi_head_attention``): the same math, so we always take the ordinary path. One
visible effect remains: ``TransformerEncoder`` with a ``src_key_padding_mask`` then packs the
batch into a nested tensor and unpacks it with zeros at the padded positions (before the
final ``norm``). We reproduce that by zeroing those positions under the same conditions
(``use_nested_tensor``, eval mode, batched input, no ``mask``, a left-aligned padding mask,
no gradient to record); the other positions are unchanged.
"""
from __future__ import annotations

import copy
import warnings

from ...autograd.grad_mode import is_grad_enabled
from .. import functional as F
from .activation import GELU, ReLU
from ..init import xavier_uniform_
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .multihead_attention import MultiheadAttention
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None):
    """The causal mask: ``-inf`` above the diagonal, 0 on and below it."""
    from ... import full   # late: dyngrad imports nn before its own namespace is full
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _get_seq_len(src, batch_first: bool) -> int:
    size = src.size()
    if len(size) == 2:   # unbatched: (S, E)
        return size[0]
    return size[1 if batch_first else 0]


def _get_clones(module, N):
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation: str):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _detect_is_causal_mask(mask, is_causal=None, size=None) -> bool:
    """``is_causal`` if given; otherwise whether ``mask`` equals the causal mask of its size."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if mask.size() == causal.size():
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


class TransformerEncoderLayer(Module):
    r"""Self-attention and feed-forward, each with dropout, a residual and a LayerNorm:

    ``x = norm1(x + dropout1(self_attn(x)))``, ``x = norm2(x + dropout2(linear2(dropout(
    activation(linear1(x))))))``; with ``norm_first`` the norms are applied to the block inputs.

    Args:
        d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu ("relu", "gelu"
        or a callable), layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
        device=None, dtype=None

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> out = layer(torch.randn(2, 5, 16))
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation=F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # read by TransformerEncoder's fast-path test (see Note [Transformer fast path])
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        """src (S, E), (S, N, E) or with batch_first (N, S, E); masks as in
        MultiheadAttention (True = not attended)."""
        src_key_padding_mask = F._canonical_mask(
            mask=src_key_padding_mask, mask_name="src_key_padding_mask",
            other_type=F._none_or_dtype(src_mask), other_name="src_mask",
            target_type=src.dtype)
        src_mask = F._canonical_mask(mask=src_mask, mask_name="src_mask", other_type=None,
                                     other_name="", target_type=src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask,
                                   is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask,
                                              is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


def _why_not_nested(encoder_layer) -> str:
    """Why torch would not use nested tensors for this layer ('' when it would)."""
    enc_layer = "encoder_layer"
    if not isinstance(encoder_layer, TransformerEncoderLayer):
        return f"{enc_layer} was not TransformerEncoderLayer"
    if encoder_layer.norm_first:
        return f"{enc_layer}.norm_first was True"
    if not encoder_layer.self_attn.batch_first:
        return (f"{enc_layer}.self_attn.batch_first was not True"
                "(use batch_first for better inference performance)")
    if not encoder_layer.self_attn._qkv_same_embed_dim:
        return f"{enc_layer}.self_attn._qkv_same_embed_dim was not True"
    if encoder_layer.self_attn.in_proj_bias is None:
        return f"{enc_layer}.self_attn was passed bias=False"
    if not encoder_layer.activation_relu_or_gelu:
        return f"{enc_layer}.activation_relu_or_gelu was not True"
    if encoder_layer.norm1.eps != encoder_layer.norm2.eps:
        return f"{enc_layer}.norm1.eps was not equal to {enc_layer}.norm2.eps"
    if encoder_layer.self_attn.num_heads % 2 == 1:
        return f"{enc_layer}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    r"""``num_layers`` deep copies of ``encoder_layer`` applied in turn, then ``norm`` if given.

    Args:
        encoder_layer: a TransformerEncoderLayer (copied, not shared).
        num_layers: how many.
        norm: an optional final normalisation module.
        enable_nested_tensor, mask_check: as torch (see Note [Transformer fast path]).

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4)
        >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
        >>> out = encoder(torch.randn(5, 2, 16))
    """

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers: int, norm=None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why_not}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Pass ``src`` through every layer; ``mask`` is the attention mask, ``is_causal`` a
        hint that it is the causal mask (detected when None)."""
        src_key_padding_mask = F._canonical_mask(
            mask=src_key_padding_mask, mask_name="src_key_padding_mask",
            other_type=F._none_or_dtype(mask), other_name="mask", target_type=src.dtype)
        mask = F._canonical_mask(mask=mask, mask_name="mask", other_type=None, other_name="",
                                 target_type=src.dtype, check_other=False)
        first_layer = self.layers[0]
        batch_first = first_layer.self_attn.batch_first
        zero_padding = self._pads_with_zeros(src, mask, src_key_padding_mask)
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask)
        if zero_padding:
            output = output.masked_fill((src_key_padding_mask != 0).unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _pads_with_zeros(self, src, mask, src_key_padding_mask) -> bool:
        """Whether torch would run this call on nested tensors: see
        Note [Transformer fast path]."""
        first = self.layers[0]
        if (not getattr(self, "use_nested_tensor", False) or first.training or src.dim() != 3
                or src_key_padding_mask is None or mask is not None):
            return False
        keep = src_key_padding_mask.logical_not()
        if getattr(self, "mask_check", True) and bool(
                (keep[:, 1:] & keep[:, :-1].logical_not()).any()):
            return False   # not left aligned: torch checks this and keeps the padded batch
        attn = first.self_attn
        tensors = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                   attn.out_proj.bias, first.norm1.weight, first.norm1.bias,
                   first.norm2.weight, first.norm2.bias, first.linear1.weight,
                   first.linear1.bias, first.linear2.weight, first.linear2.bias)
        if is_grad_enabled() and any(t.requires_grad for t in tensors):
            return False
        return True


class TransformerDecoderLayer(Module):
    r"""Self-attention over the target, attention to the encoder's output (``memory``) and
    feed-forward, each with dropout, a residual and a LayerNorm (``norm1``..``norm3``; applied
    to the block inputs with ``norm_first``).

    Args:
        d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu ("relu", "gelu"
        or a callable), layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
        device=None, dtype=None

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4)
        >>> out = layer(torch.randn(4, 2, 16), torch.randn(6, 2, 16))
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation=F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **factory_kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias,
                                                 **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation = activation

    def __setstate__(self, state):
        state.setdefault("activation", F.relu)
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False):
        """tgt (T, E) or (T, N, E), memory (S, E) or (S, N, E) (N first with batch_first)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                              tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerDecoder(Module):
    r"""``num_layers`` deep copies of ``decoder_layer`` applied in turn to the target (each
    attending to ``memory``), then ``norm`` if given.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4)
        >>> decoder = nn.TransformerDecoder(layer, num_layers=2)
        >>> out = decoder(torch.randn(4, 2, 16), torch.randn(6, 2, 16))
    """

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers: int, norm=None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None,
                memory_is_causal: bool = False):
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    r"""The encoder-decoder model of "Attention Is All You Need": an encoder of
    ``num_encoder_layers`` layers and a decoder of ``num_decoder_layers``, each closed by a
    LayerNorm; every weight matrix is re-drawn with ``xavier_uniform_``.

    Args:
        d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
        dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
        custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
        bias=True, device=None, dtype=None

    Example::

        >>> model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=2,
        ...                        num_decoder_layers=2, dim_feedforward=32)
        >>> out = model(torch.randn(6, 2, 16), torch.randn(4, 2, 16))
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                                    activation, layer_norm_eps, batch_first,
                                                    norm_first, bias, **factory_kwargs)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                                    activation, layer_norm_eps, batch_first,
                                                    norm_first, bias, **factory_kwargs)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal: bool = False):
        """Encode ``src``, decode ``tgt`` attending to the encoding; returns (T, N, E)."""
        is_batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None):
        """The causal mask for ``sz`` positions: ``-inf`` above the diagonal, 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
