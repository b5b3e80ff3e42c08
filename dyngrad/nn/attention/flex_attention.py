"""``torch.nn.attention.flex_attention``: attention with a user ``score_mod`` (a function of the
score and its batch, head, query and key indices) and a ``mask_mod`` carried by a BlockMask.

Note [flex_attention runs the dense math path]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Without torch.compile, torch's flex_attention warns once that it runs "an unfused
implementation that materializes the full scores matrix" and runs its math path:
``scores = q @ k^T * scale`` in float32 (float64 for float64 inputs), ``score_mod`` and
``mask_mod`` applied to every element (masked scores are -inf), ``_safe_softmax`` (fully masked
rows give 0), the probabilities cast back to the query's dtype and multiplied by ``v``; the
logsumexp per row is -inf on fully masked rows. The block structure of the BlockMask plays no
part there (Note [Block masks and dense masks] in _block_mask.py). dyngrad computes the same.

torch applies the mods through four nested ``vmap``s, calling them on 0-d index tensors. We
call them once on broadcastable index tensors instead: ``b`` of shape (B, 1, 1, 1), ``h``
(1, H, 1, 1), ``q_idx`` (1, 1, L, 1), ``kv_idx`` (1, 1, 1, S), all int64 as torch's, and
``score`` (B, H, L, S). Elementwise arithmetic, comparisons, ``torch.where`` and indexing a
captured tensor with the indices (``doc_ids[q_idx]``, ``bias[h, q_idx, kv_idx]``) give the
same values either way. A mod that needs true scalars (Python ``if`` on a tensor, ``.item()``)
fails in both. ``create_mask``'s result is expanded to (B, H, L, S), so its strides are 0
along the dimensions the mask does not depend on, as vmap's are.

On CPU torch's flex_attention has no backward: inputs that require grad raise
NotImplementedError, and so they do here. ``torch.compile(flex_attention)`` in dyngrad calls
this same function (Note [compile runs eagerly] in compiler.py), warning included.
"""
from __future__ import annotations

import inspect
import math
import typing
import warnings
from enum import Enum
from typing import NamedTuple, TypedDict

from ._block_mask import (_DEFAULT_SPARSE_BLOCK_SIZE, _LARGE_SPARSE_BLOCK_SIZE, BlockMask,
                          _convert_mask_to_block_mask, _create_sparse_block_from_block_mask,
                          _sliced_mask_mod_error, noop_mask)
from ._utils import _validate_sdpa_input

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions",
           "create_block_mask", "create_mask", "or_masks", "and_masks", "noop_mask"]

_Backend = typing.Literal["AUTO", "TRITON", "FLASH", "TRITON_DECODE"]

# torch's debug switch: True skips its internal compile (and the unfused warning)
_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False

_WARNINGS_SHOWN: set = set()


def _warn_once(warning_id: str, message: str, category=UserWarning) -> None:
    """Show each warning once per process."""
    if warning_id not in _WARNINGS_SHOWN:
        warnings.warn(message, category, stacklevel=2)
        _WARNINGS_SHOWN.add(warning_id)


class FlexKernelOptions(TypedDict, total=False):
    """Options of torch's Triton flex-attention kernels (accepted and, but for BACKEND's
    check, unused: dyngrad runs the dense math path)."""

    num_warps: int
    num_stages: int
    BLOCK_M: int
    BLOCK_N: int
    BLOCK_M1: int
    BLOCK_N1: int
    BLOCK_M2: int
    BLOCK_N2: int
    PRESCALE_QK: bool
    ROWS_GUARANTEED_SAFE: bool
    BLOCKS_ARE_CONTIGUOUS: bool
    WRITE_DQ: bool
    FORCE_USE_FLEX_ATTENTION: bool
    USE_TMA: bool
    kpack: int
    matrix_instr_nonkdim: int
    waves_per_eu: int
    BACKEND: _Backend


class AuxRequest(NamedTuple):
    """Which auxiliary outputs flex_attention should compute and return."""

    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """flex_attention's auxiliary outputs (None where not requested)."""

    lse: object = None
    max_scores: object = None


class _ModificationType(Enum):
    SCORE_MOD = 1
    MASK_MOD = 2
    UNKNOWN = 3


def _get_mod_type(fn) -> _ModificationType:
    """SCORE_MOD for a function of 5 positional arguments, MASK_MOD for 4."""
    if hasattr(fn, "__code__"):
        num_positional_args = fn.__code__.co_argcount - len(getattr(fn, "__defaults__", None)
                                                             or ())
    else:
        num_positional_args = sum(1 for p in inspect.signature(fn).parameters.values()
                                  if p.default is inspect.Parameter.empty)
    if num_positional_args not in (4, 5):
        raise AssertionError(f"Expected 4 or 5 positional args, got {num_positional_args}")
    return _ModificationType.SCORE_MOD if num_positional_args == 5 else _ModificationType.MASK_MOD


def _identity(score, batch, head, token_q, token_kv):
    return score


def _index_grids(B, H, Q_LEN, KV_LEN, device=None):
    """The broadcastable int64 index tensors b, h, q_idx, kv_idx (Note [flex_attention runs
    the dense math path])."""
    from ... import arange
    return (arange(0, B, device=device).view(B, 1, 1, 1),
            arange(0, H, device=device).view(1, H, 1, 1),
            arange(0, Q_LEN, device=device).view(1, 1, Q_LEN, 1),
            arange(0, KV_LEN, device=device).view(1, 1, 1, KV_LEN))


def or_masks(*mask_mods):
    """A mask_mod that is the union of `mask_mods`."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        from ... import bool as _bool
        result = b.new_zeros(b.shape, dtype=_bool)   # as noop_mask's new_ones
        for mask in mask_mods:
            result = result | mask(b, h, q_idx, kv_idx)
        return result
    return or_mask


def and_masks(*mask_mods):
    """A mask_mod that is the intersection of `mask_mods`."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        from ... import bool as _bool
        result = b.new_ones(b.shape, dtype=_bool)   # as noop_mask's new_ones
        for mask in mask_mods:
            result = result & mask(b, h, q_idx, kv_idx)
        return result
    return and_mask


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """The (B, H, Q_LEN, KV_LEN) boolean mask of a mask_mod, or of a score_mod (True where it
    does not give -inf on zero scores)."""
    from ... import isneginf, where, zeros
    device = "cpu" if device is None else device
    B = 1 if B is None else B
    H = 1 if H is None else H
    b, h, m, n = _index_grids(B, H, Q_LEN, KV_LEN, device)
    if _get_mod_type(mod_fn) == _ModificationType.SCORE_MOD:
        out = mod_fn(zeros(B, H, Q_LEN, KV_LEN, device=device), b, h, m, n)
        return where(isneginf(out), False, True).expand(B, H, Q_LEN, KV_LEN)
    return mod_fn(b, h, m, n).expand(B, H, Q_LEN, KV_LEN)


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None,
                      BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False,
                      separate_full_blocks: bool = True, compute_dq_write_order: bool = False,
                      dq_kv_order: bool = True) -> BlockMask:
    r"""The BlockMask of `mask_mod` over (B, H, Q_LEN, KV_LEN) (None B/H: 1, broadcast), in
    BLOCK_SIZE tiles (an int, or (Q, KV))."""
    if _get_mod_type(mask_mod) != _ModificationType.MASK_MOD:
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    B = 1 if B is None else B
    H = 1 if H is None else H
    if isinstance(BLOCK_SIZE, int):
        Q_BLOCK_SIZE = KV_BLOCK_SIZE = BLOCK_SIZE
    else:
        Q_BLOCK_SIZE, KV_BLOCK_SIZE = BLOCK_SIZE
    if _compile:
        warnings.warn(
            "_compile flag on create_block_mask was originally added to work around a "
            "torch.compile limitation. That limitation has since been addressed. So, to compile "
            "create_block_mask, we suggest doing torch.compile(create_block_mask). This still "
            "works for now, but will be removed in the future.", DeprecationWarning, stacklevel=2)
    if not isinstance(dq_kv_order, bool):
        raise ValueError("dq_kv_order must be a bool when using create_block_mask")
    if compute_dq_write_order:
        raise NotImplementedError("create_block_mask: compute_dq_write_order (metadata for the "
                                  "deterministic FLASH backward on CUDA) is not supported by "
                                  "dyngrad")
    mask_tensor = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    partial, full = _convert_mask_to_block_mask(mask_tensor, Q_BLOCK_SIZE=Q_BLOCK_SIZE,
                                                KV_BLOCK_SIZE=KV_BLOCK_SIZE,
                                                separate_full_blocks=separate_full_blocks)
    return _create_sparse_block_from_block_mask((partial, full), mask_mod, (Q_LEN, KV_LEN),
                                                Q_BLOCK_SIZE, KV_BLOCK_SIZE)


def _create_empty_block_mask(query, key) -> BlockMask:
    """The BlockMask of no masking: one block covering everything."""
    from ... import int32, ones, zeros
    return BlockMask.from_kv_blocks(
        kv_num_blocks=ones([1, 1, 1], dtype=int32, device=query.device),
        kv_indices=zeros([1, 1, 1, 1], dtype=int32, device=query.device),
        BLOCK_SIZE=_LARGE_SPARSE_BLOCK_SIZE, seq_lengths=(1, 1))


def _apply_kernel_options(query, key, value, return_lse, kernel_options, return_aux=None):
    """torch's checks of kernel_options and the auxiliary outputs asked for."""
    kernel_options = {} if kernel_options is None else dict(kernel_options)
    if "BACKEND" in kernel_options and kernel_options.get("FORCE_USE_FLEX_ATTENTION", False):
        raise RuntimeError(
            "BACKEND cannot be combined with legacy FORCE_USE_FLEX_ATTENTION. BACKEND supersedes "
            "the legacy knob; please drop FORCE_USE_FLEX_ATTENTION and only specify the desired "
            "BACKEND.")
    if "BACKEND" in kernel_options:
        valid_backends = typing.get_args(_Backend)
        if kernel_options["BACKEND"] not in valid_backends:
            raise ValueError(f"Invalid BACKEND value '{kernel_options['BACKEND']}'. "
                             f"Must be one of {valid_backends}")
    kernel_options.setdefault("BACKEND", "AUTO")
    if "OUTPUT_LOGSUMEXP" in kernel_options:
        raise AssertionError("OUTPUT_LOGSUMEXP must not be in kernel_options")
    output_max = return_aux is not None and return_aux.max_scores
    if "OUTPUT_MAX" in kernel_options:
        raise AssertionError("OUTPUT_MAX must not be in kernel_options")
    if kernel_options["BACKEND"] == "FLASH" and output_max:
        raise NotImplementedError("Returning max scores is not supported with BACKEND='FLASH'. "
                                  "Use return_aux=AuxRequest(lse=True) or omit max_scores.")
    if output_max:   # every dyngrad tensor is on the CPU
        raise NotImplementedError("Returning max scores is not supported on CPU/MPS.")
    return kernel_options


def _validate_inputs(query, key, value, block_mask, enable_gqa):
    """torch's checks of q, k, v and the block mask's size, in torch's order."""
    if query.is_nested or key.is_nested or value.is_nested:
        raise NotImplementedError(
            "flex_attention does not support NestedTensor inputs, including "
            "torch.compile(flex_attention) with jagged NestedTensor inputs. "
            "Convert inputs to dense tensors before calling flex_attention.")
    _validate_sdpa_input(query, key, value, allow_lowp_kv=True)
    if query.size(-1) != key.size(-1):
        raise ValueError(f"Expect query and key/value to have the same embedding dimension "
                         f"but got E={query.size(-1)} and E={key.size(-1)}.")
    if query.requires_grad or key.requires_grad or value.requires_grad:
        raise NotImplementedError(
            "FlexAttention does not support backward on CPU. Please set the input "
            "requires_grad to False or use another device.")
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if (not enable_gqa) and query.size(-3) != key.size(-3):
        raise ValueError(f"Expect query and key/value to have the same number of heads "
                         f"but got Hq={query.size(-3)} and Hkv={key.size(-3)}. "
                         f"Try setting enable_gqa=True for GQA.")
    if enable_gqa and query.size(1) % key.size(1) != 0:
        raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA "
                         f"but got Hq={query.size(1)} and Hkv={key.size(1)}.")
    if query.size(0) != key.size(0):
        if block_mask is None:
            raise ValueError(
                f"Expect query and key/value to have the same batch size, "
                f"or non-none block_mask, "
                f"but got block_mask=None, Bq={query.size(0)}, and Bkv={key.size(0)}.")
        if block_mask.kv_num_blocks.size(0) != query.size(0):
            raise ValueError(
                f"Expect query and key/value to have the same batch size, "
                f"or block_mask and query to have the same batch size, "
                f"but got Bq={query.size(0)}, Bkv={key.size(0)}, "
                f"B_block_mask={block_mask.kv_num_blocks.size(0)}.")


def _validate_block_mask_size(query, key, block_mask):
    if block_mask.BLOCK_SIZE[0] == block_mask.BLOCK_SIZE[1] == _LARGE_SPARSE_BLOCK_SIZE:
        return   # the "no-op" block mask
    q_len, kv_len = block_mask.shape[-2], block_mask.shape[-1]
    got = (f"block_mask was created for block_mask.shape={block_mask.shape} but got "
           f"q_len={query.size(-2)} and kv_len={key.size(-2)}. ")
    if query.size(-2) > q_len or key.size(-2) > kv_len:
        raise ValueError(got + "As the block mask was created for a smaller length than you're "
                         "using it for, you likely need to create a new block mask.")
    if ((query.size(-2) < q_len and key.size(-2) <= kv_len)
            or (query.size(-2) <= q_len and key.size(-2) < kv_len)):
        raise ValueError(got + "As the block mask was created for a larger length than you're "
                         "using it for, you can either 1. create a new block mask with the "
                         "correct length, or 2. 'adjust' the existing block mask to the correct "
                         "length by calling block_mask._adjust(q_len, kv_len). This essentially "
                         "'crops' the block mask to the upper left corner, which does not work "
                         "for all mask_mods!")


def _safe_softmax(x, dim):
    """softmax with 0 on rows that are all -inf."""
    from ... import where
    masked_rows = (x == float("-inf")).all(dim, True)
    return where(masked_rows, 0.0, where(masked_rows, 0.0, x).softmax(dim))


def _math_attention(query, key, value, score_mod, mask_mod, scale):
    """(output, logsumexp / ln 2): torch's dense eager flex attention (Note [flex_attention
    runs the dense math path])."""
    from ... import float32, float64, repeat_interleave, tensor, where
    G = query.size(1) // key.size(1)
    value = repeat_interleave(value, G, dim=1)
    key = repeat_interleave(key, G, dim=1)
    Bq, Bkv = query.size(0), key.size(0)
    if not ((Bq == Bkv) or (Bq > 1 and Bkv == 1)):
        raise RuntimeError(f"Bq and Bkv must broadcast. Got Bq={Bq} and Bkv={Bkv}")
    key = key.expand((Bq, *key.size()[1:]))
    value = value.expand((Bq, *value.size()[1:]))
    working = float64 if query.dtype == float64 else float32
    scores = query.to(working) @ key.to(working).transpose(-2, -1)
    b, h, m, n = _index_grids(*scores.shape, device=scores.device)
    scores = (scores * scale).to(working)
    post_mod_scores = where(mask_mod(b, h, m, n), score_mod(scores, b, h, m, n),
                            tensor(-float("inf"), dtype=working, device=scores.device))
    logsumexp = post_mod_scores.logsumexp(dim=-1)
    masked_rows = (post_mod_scores == -float("inf")).all(dim=-1)
    logsumexp = where(masked_rows, -float("inf"), logsumexp)
    probabilities = _safe_softmax(post_mod_scores, -1)
    out = probabilities.to(query.dtype) @ value.to(query.dtype)
    return out, logsumexp / math.log(2)


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa: bool = False, return_lse: bool = False, kernel_options=None, *,
                   return_aux=None):
    r"""Scaled dot product attention with ``score_mod(score, b, h, q_idx, kv_idx)`` applied to
    each score and ``block_mask.mask_mod(b, h, q_idx, kv_idx)`` masking it; shapes
    q (B, Hq, L, E), k (B, Hkv, S, E), v (B, Hkv, S, Ev) -> (B, Hq, L, Ev). Returns the output,
    with ``(out, lse)`` for return_lse (deprecated) or ``(out, AuxOutput)`` for return_aux.
    Runs densely (Note [flex_attention runs the dense math path])."""
    _validate_inputs(query, key, value, block_mask, enable_gqa)
    if score_mod is None:
        score_mod = _identity
    if block_mask is None:
        block_mask = _create_empty_block_mask(query, key)
    if getattr(block_mask, "mask_mod", None) is _sliced_mask_mod_error:
        raise RuntimeError("Cannot use mask_mod from a sliced BlockMask")
    _validate_block_mask_size(query, key, block_mask)
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    if query.device != block_mask.kv_num_blocks.device:
        raise RuntimeError(f"Expect q/k/v and block_mask to be on the same device "
                           f"but got {query.device} and {block_mask.kv_num_blocks.device}.")
    if return_lse and return_aux is not None:
        raise ValueError("Cannot specify both return_lse and return_aux. return_lse is "
                         "deprecated, please use return_aux=AuxRequest(lse=True) instead.")
    if return_lse:
        _warn_once("deprecated_return_lse",
                   "return_lse is deprecated and will be removed in v2.10. "
                   "Please use return_aux=AuxRequest(lse=True) instead.", FutureWarning)
    kernel_options = _apply_kernel_options(query, key, value, return_lse, kernel_options,
                                           return_aux)
    if not _FLEX_ATTENTION_DISABLE_COMPILE_DEBUG:
        _warn_once(
            "flex_attention_performance",
            "flex_attention called without torch.compile() - this will use an unfused "
            "implementation that materializes the full scores matrix instead of generating a "
            "fused kernel.\n\nSOLUTION: Use torch.compile(flex_attention)(...)\n\n"
            "If you want to debug your score_mod/mask_mod, you can set:\n"
            "torch.nn.attention.flex_attention._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = True\n\n"
            "This will allow you to use print statements or breakpoints. Note: This doesn't "
            "work with the backwards pass and may produce incorrect results.")
    out, lse = _math_attention(query, key, value, score_mod, block_mask.mask_mod, scale)
    # torch's kernels give the logsumexp in base 2; the math path divides by ln 2 for them, and
    # the result is scaled back unless the FLASH backend (whose stats are natural) was asked for
    if _FLEX_ATTENTION_DISABLE_COMPILE_DEBUG or kernel_options["BACKEND"] != "FLASH":
        lse = lse * math.log(2.0)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    lse = lse if want_lse and lse.numel() > 0 else None
    if return_aux is not None:
        return out, AuxOutput(lse=lse, max_scores=None)
    if return_lse:
        return out, lse
    return out
