"""``nn.functional.scaled_dot_product_attention`` on CPU, as torch runs it: one fused "flash"
op (``_scaled_dot_product_flash_attention_for_cpu``, one graph node) where torch's CPU flash
kernel accepts the inputs, otherwise torch's math composite (matmul, ``_safe_softmax``,
dropout, matmul), and a third graph for empty inputs.

Note [SDPA backends on CPU]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch picks a backend from the flags ``torch.nn.attention.sdpa_kernel`` sets (backends/_sdp.py).
On CPU only two exist: its fused flash kernel, tried first, and MATH. With neither allowed,
SDPA raises "No viable backend..."; with flash allowed but refusing the inputs and MATH off, it
warns why flash was not used (the first failing check of Note [SDPA on CPU: flash or math])
and raises "No available kernel". ``_choose_backend`` makes those choices and raises those
errors.

Note [SDPA on CPU: flash or math]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
In order (torch's ``scaled_dot_product_attention`` and ``use_flash_attention_cpp``, 2.13):

=================================================  ========================================
inputs                                             what torch runs (graph)
=================================================  ========================================
bad dtypes / dims / mask dtype                     error (validate_sdpa_input)
any of q, k, v empty                               ``zeros + (q.sum()+k.sum()+v.sum()) * 0``
                                                   (AddBackward0, MulBackward1, SumBackward0s)
flash disabled (``sdpa_kernel(MATH)``)             math
dropout_p > 0                                      math
q, k, v not all 4-d (3-d, 5-d...)                  math
batch sizes differ (broadcast k/v)                 math
heads differ, without ``enable_gqa``               math (broadcast, or its matmul error)
``enable_gqa``: k/v heads differ, or don't divide  math
attn_mask requires grad                            math
attn_mask neither 2-d nor 4-d, or a size not       math
  (L or 1, S or 1) / (B or 1, H or 1, ...)
q, k, v last dims (head dims) differ               math
a last dim with stride != 1                        math
dtype not float32/64, float16, bfloat16            math (which then fails)
otherwise (masks, is_causal, is_causal WITH a      flash: ScaledDotProductFlashAttention-
  mask, scale, GQA, float64, any other layout,     ForCpuBackward0, one node whether or not
  requires_grad or not)                            inputs require grad
=================================================  ========================================

What each graph looks like:

* flash: one node with edges to (query, key, value); it saves query, key, value, the output,
  the logsumexp (float32 for half inputs; (B, H, L) laid out as (B, L, H) transposed) and the
  additive mask (a bool mask converted to 0/-inf), and exposes ``dropout_p``, ``is_causal``
  and ``scale`` (None when not given). The output has the query's strides when the query is
  non-overlapping and dense (``empty_like``), else contiguous; the gradients are laid out
  (B, L, H, E) transposed. Causal masking is upper-left (key j <= query i) and may combine
  with a mask here. Fully masked rows give 0 (logsumexp 0). Its backward is one op,
  ``_scaled_dot_product_flash_attention_for_cpu_backward``, with no derivative of its own:
  double backward raises "derivative for aten::..._backward is not implemented", and forward
  AD is refused.
* math: ``q * sqrt(scale)`` (MulBackward1; ``-sqrt(|scale|)`` for a negative scale), GQA's
  ``repeat_interleave`` of k and v, ``matmul(q, k.transpose(-2, -1) * sqrt(scale))``, the mask
  added in place (AddBackward0; is_causal builds a (L, S) tril mask, and is_causal with a mask
  raises), ``_safe_softmax`` (SafeSoftmaxBackward0: 0 on fully masked rows), ``dropout``
  (MulBackward0 by a bernoulli noise: dyngrad draws torch's numbers, so seeded dropout matches),
  ``matmul(attn, v)``. Half inputs are computed in float32 (ToCopyBackward0 at both ends).
"""
from __future__ import annotations

import math

from .._promotion import Promote
from ..backends import numpy_backend as _npb
from ._autograd_utils import backward_op
from ._geometry import is_non_overlapping_and_dense
from ._registry import OPS, composite, defop
from .arithmetic import _no_derivative
from ..autograd.forward_ad import fw_not_implemented
from .softmax import _softmax, _softmax_backward_data

_NEG_INF = float("-inf")


# -- _safe_softmax ---------------------------------------------------------------------------
@defop("_safe_softmax", node="SafeSoftmaxBackward0", promote=Promote.NONE, variants=(),
       saves=("result",), scalars=())
def _safe_softmax_op(xp, self, dim, dtype=None):
    """softmax, with 0 instead of NaN on rows that are all -inf (fully masked)."""
    out = _softmax.kernel(xp, self, dim)
    if self.ndim and self.size:
        masked_rows = (self == _NEG_INF).all(axis=dim, keepdims=True)
        if masked_rows.any():
            out = xp.where(masked_rows, out.dtype.type(0), out)
    return out


@_safe_softmax_op.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return backward_op(_softmax_backward_data, grad, result, ctx.dim)


@_safe_softmax_op.jvp
def _(ctx, self_t):   # as softmax's: y * (t - sum(y t)); 0 on the masked rows (y is 0 there)
    result, = ctx.saved_tensors
    return result * (self_t - (result * self_t).sum(ctx.dim, True))


def _safe_softmax(x, dim):
    """torch's ``at::_safe_softmax`` (SafeSoftmaxBackward0)."""
    return _safe_softmax_op(x, dim)


# -- the flash kernel ------------------------------------------------------------------------
def _acc(xp, dtype):
    """The dtype the kernel computes in: float32 for half inputs."""
    return xp.dtype(xp.float32) if dtype.itemsize < 4 else dtype


def _scores(xp, query, key, attn_mask, is_causal, scale):
    """(the scores q k^T * scale + mask in the accumulation dtype, -inf above the diagonal when
    causal, each key head serving its group of query heads (GQA); the scale used)."""
    acc = _acc(xp, query.dtype)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    q = query.astype(acc, copy=False)
    k = _grouped(xp, key, query.shape[1]).astype(acc, copy=False)
    s = xp.matmul(q, xp.swapaxes(k, -1, -2)) * acc.type(scale)
    if attn_mask is not None:
        s = s + attn_mask.astype(acc, copy=False)
    if is_causal:
        L, S = s.shape[-2:]
        s = xp.where(xp.tri(L, S, dtype=bool), s, acc.type(_NEG_INF))
    return s, scale


def _grouped(xp, t, heads):
    """`t` (B, Hk, S, E) with each head repeated for its group of `heads` query heads."""
    return t if t.shape[1] == heads else xp.repeat(t, heads // t.shape[1], axis=1)


def _ungrouped(xp, g, heads):
    """The sum of a (B, H, S, E) gradient over each group of query heads: (B, heads, S, E)."""
    B, H, S, E = g.shape
    return g if H == heads else g.reshape(B, heads, H // heads, S, E).sum(axis=2)


def _blhe(xp, shape, dtype):
    """A fresh (B, H, L, E) array laid out as (B, L, H, E), transposed (the kernel's layout)."""
    B, H, L = shape[:3]
    return xp.empty((B, L, H) + tuple(shape[3:]), dtype).swapaxes(1, 2)


def _like(xp, x, dtype):
    """A fresh array of x's shape, torch's ``empty_like``: x's strides where x is
    non-overlapping and dense, else contiguous."""
    strides = tuple(s // x.itemsize for s in x.strides)
    if not is_non_overlapping_and_dense(x.shape, strides):
        return xp.empty(x.shape, dtype)
    return _npb.strided(xp.empty(x.size, dtype), x.shape, strides, 0)


@defop("_scaled_dot_product_flash_attention_for_cpu",
       node="ScaledDotProductFlashAttentionForCpuBackward0", promote=Promote.NONE,
       kernel_dtypes=True, variants=(), inputs=("query", "key", "value", "attn_mask"),
       differentiable=("query", "key", "value"), outputs=("output", "logsumexp"),
       nondiff_outputs=(1,), scalars=(),
       saves=("query", "key", "value", "output", "logsumexp", "attn_mask"))
def _flash_attention(xp, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                     scale=None):
    """(output, logsumexp): softmax(q k^T * scale + mask) v over (B, H, L, E) inputs, and the
    log of each row's softmax denominator (0 on a fully masked row). (torch's kernel takes
    ``attn_mask`` and ``scale`` as keyword arguments after the flags; here the mask is an
    input without an edge, so that the node saves it as torch does.)"""
    s, _ = _scores(xp, query, key, attn_mask, is_causal, scale)
    top = s.max(axis=-1, keepdims=True)
    masked = top == _NEG_INF   # fully masked rows: p = 0, output 0, logsumexp 0
    top = xp.where(masked, s.dtype.type(0), top)
    p = xp.exp(s - top)
    total = p.sum(axis=-1, keepdims=True)
    out = xp.matmul(p, _grouped(xp, value, query.shape[1]).astype(s.dtype, copy=False))
    out /= xp.where(masked, s.dtype.type(1), total)
    lse = xp.where(masked, s.dtype.type(0), top + xp.log(total))[..., 0]
    output = _like(xp, query, query.dtype)
    output[...] = out
    logsumexp = _blhe(xp, lse.shape, s.dtype)
    logsumexp[...] = lse
    return output, logsumexp


@_flash_attention.backward
def _(ctx, grad_out, grad_logsumexp=None):
    query, key, value, output, logsumexp, attn_mask = ctx.saved_tensors
    grads = _flash_attention_backward(grad_out, query, key, value, output, logsumexp,
                                      attn_mask, ctx.dropout_p, ctx.is_causal, ctx.scale)
    return tuple(g if need else None for g, need in zip(grads, ctx.needs_input_grad))


@defop("_scaled_dot_product_flash_attention_for_cpu_backward", node="NotImplemented",
       promote=Promote.NONE, kernel_dtypes=True, variants=(), scalars=(),
       inputs=("grad_out", "query", "key", "value", "out", "logsumexp", "attn_mask"),
       differentiable=("grad_out", "query", "key", "value", "out", "logsumexp"),
       outputs=("grad_query", "grad_key", "grad_value"))
def _flash_attention_backward(xp, grad_out, query, key, value, out, logsumexp, attn_mask=None,
                              dropout_p=0.0, is_causal=False, scale=None):
    """The gradients of q, k, v from the saved logsumexp: p = exp(s - lse), dv = p^T dO,
    ds = p * (dO v^T - rowsum(dO * O)), dq = ds k * scale, dk = ds^T q * scale."""
    s, scale = _scores(xp, query, key, attn_mask, is_causal, scale)
    acc, heads = s.dtype, key.shape[1]
    p = xp.exp(s - logsumexp[..., None].astype(acc, copy=False))
    g = grad_out.astype(acc, copy=False)
    v = _grouped(xp, value, query.shape[1]).astype(acc, copy=False)
    ds = p * (xp.matmul(g, xp.swapaxes(v, -1, -2))
              - (g * out.astype(acc, copy=False)).sum(axis=-1, keepdims=True))
    ds *= acc.type(scale)
    k = _grouped(xp, key, query.shape[1]).astype(acc, copy=False)
    grads = (xp.matmul(ds, k),
             _ungrouped(xp, xp.matmul(xp.swapaxes(ds, -1, -2), query.astype(acc, copy=False)),
                        heads),
             _ungrouped(xp, xp.matmul(xp.swapaxes(p, -1, -2), g), heads))
    result = []
    for grad, like in zip(grads, (query, key, value)):
        r = _blhe(xp, like.shape, like.dtype)
        r[...] = grad
        result.append(r)
    return tuple(result)


_flash_attention_backward.backward(
    _no_derivative("_scaled_dot_product_flash_attention_for_cpu_backward"))
_flash_attention_backward.jvp(
    fw_not_implemented("aten::_scaled_dot_product_flash_attention_for_cpu_backward", short=True))
del OPS[_flash_attention_backward.name]   # backward-only: reached through the flash node


# -- choosing the backend --------------------------------------------------------------------
_WHERE = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/transformers/"


def _c10_name(dtype) -> str:
    from .._tensor_extras import _C10_NAMES
    name = str(dtype).replace("torch.", "")
    return _C10_NAMES.get(name, {"bfloat16": "c10::BFloat16"}.get(name, name))


def _flash_cpu_refusal(query, key, value, attn_mask, dropout_p, enable_gqa):
    """Why torch's CPU flash kernel cannot run these inputs: (its warning, or None for a check
    that gives none; the source line), for the first failing check; None when it can run."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout.", "sdp_utils_cpp.h:241"
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return ("All fused kernels requires query, key and value to be 4 dimensional, but got "
                f"Query dim: {query.dim()}, Key dim: {key.dim()}, Value dim: {value.dim()} "
                "instead."), "sdp_utils_cpp.h:327"
    qs, ks, vs = list(query.shape), list(key.shape), list(value.shape)
    if not qs[0] == ks[0] == vs[0]:
        return ("For dense inputs, both fused kernels require query, key and value to have the "
                f"same batch_size. Query.sizes(): {qs}, Key.sizes(): {ks}, Value.sizes(): {vs} "
                "instead. To broadcast dense inputs, try using unsqueeze and expand_to before "
                "passing them into the kernel."), "sdp_utils_cpp.h:417"
    if enable_gqa:
        if ks[1] != vs[1]:
            return ("Both fused kernels require key and value to have the same num_heads and "
                    f"batch_size but got: Key sizes: {ks}, Value sizes: {vs}, Query sizes: "
                    f"{qs} instead."), "sdp_utils_cpp.h:365"
        if qs[1] % ks[1]:
            return ("The number of heads in key/value must divide number of heads in query."
                    f"Got input Key sizes(): {ks[1]}, Value sizes(): {vs[1]}, Query sizes(): "
                    f"{qs[1]} instead."), "sdp_utils_cpp.h:381"
    elif not qs[1] == ks[1] == vs[1]:
        return ("For dense input, both fused kernels require query, key and value to have the "
                f"same num_heads. Query.sizes(): {qs}, Key sizes(): {ks}, Value sizes(): {vs} "
                "instead. To broadcast dense inputs, try using unsqueeze and expand_to before "
                "passing them into the kernel."), "sdp_utils_cpp.h:437"
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return None, None
        if attn_mask.dim() < 2:   # (torch reads its size(-2))
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                             "got -2)")
        ms = attn_mask.shape
        ok = (ms[-2] in (qs[2], 1) and ms[-1] in (ks[2], 1)
              and (attn_mask.dim() == 2 or attn_mask.dim() == 4 and ms[0] in (1, qs[0])
                   and ms[1] in (1, qs[1])))
        if not ok:
            return ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x "
                    "{KV_seq_len, 1}); 4d - ({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x "
                    "{KV_seq_len, 1})"), "sdp_utils_cpp.h:314"
    if not qs[3] == ks[3] == vs[3]:
        return ("Flash attention requires q,k,v to have the same last dimension. Got "
                f"Query.size(-1): {qs[3]}, Key.size(-1): {ks[3]}, Value.size(-1): {vs[3]} "
                "instead."), "sdp_utils_cpp.cpp:21"
    strides = [t.stride(-1) for t in (query, key, value)]
    if strides != [1, 1, 1]:
        return ("All fused kernels require the last dimension of the input to have stride 1. "
                f"Got Query.stride(-1): {strides[0]}, Key.stride(-1): {strides[1]}, "
                f"Value.stride(-1): {strides[2]}"), "sdp_utils_cpp.h:546"
    if not query.dtype.is_floating_point:
        names = [_c10_name(t.dtype) for t in (query, key, value)]
        return ("Expected query, key and value to all be of dtype: {Float, Double, BFloat16, "
                f"Half}}. Got Query dtype: {names[0]}, Key dtype: {names[1]}, and Value dtype: "
                f"{names[2]} instead."), "sdp_utils_cpp.h:91"
    return None


def _choose_backend(query, key, value, attn_mask, dropout_p, enable_gqa) -> str:
    """"flash" or "math", as torch's select_sdp_backend_cpp (Note [SDPA backends on CPU])."""
    from ..backends import _sdp
    if not _sdp.enabled("math") and not _sdp.enabled("flash"):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    if not _sdp.enabled("flash"):
        return "math"
    refusal = _flash_cpu_refusal(query, key, value, attn_mask, dropout_p, enable_gqa)
    if refusal is None:
        return "flash"
    if _sdp.enabled("math"):
        return "math"
    import warnings
    warnings.warn("Flash attention kernel not used because:" + _WHERE + "sdp_utils_cpp.cpp:99.)",
                  stacklevel=3)
    reason, line = refusal
    if reason is not None:
        warnings.warn(reason + _WHERE + line + ".)", stacklevel=3)
    raise RuntimeError("No available kernel.  Aborting execution.")


def _validate(query, key, value, attn_mask):
    """torch's validate_sdpa_input."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_c10_name(query.dtype)} key.dtype: "
                           f"{_c10_name(key.dtype)} and value.dtype: {_c10_name(value.dtype)} "
                           "instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if attn_mask is not None:
        from .. import bool as _bool, float32
        if attn_mask.dtype not in (_bool, float32, query.dtype):
            raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {_c10_name(attn_mask.dtype)} "
                               f"and  query.dtype: {_c10_name(query.dtype)} instead.")


def _additive(mask, dtype):
    """A bool mask (True: attend) as the additive mask torch makes of it: 0 or -inf."""
    from .. import bool as _bool, zeros
    if mask is None or mask.dtype != _bool:
        return mask
    return zeros(mask.shape, dtype=dtype).masked_fill_(mask.logical_not(), _NEG_INF)


# -- the graphs ------------------------------------------------------------------------------
def _empty_inputs(query, key, value):
    """torch's answer when q, k or v has no elements: zeros of shape (..., L, Ev), linked to
    the inputs through ``(q.sum() + k.sum() + v.sum()) * 0``."""
    from .. import zeros
    from .loss import mul_scalar
    out = zeros(tuple(query.shape[:-1]) + (value.shape[-1],), dtype=query.dtype)
    return out + mul_scalar(query.sum() + key.sum() + value.sum(), 0)


def _grouped_kv(query, key, value, enable_gqa):
    """torch's pre_process_group_query_attention_input: k and v repeated to q's heads."""
    if not enable_gqa:
        return key, value
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq % hk or hq % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads "
                           "in ")
    if hq == hk == hv:
        return key, value
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


def _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """torch's _scaled_dot_product_attention_math (Note [SDPA on CPU: flash or math])."""
    from .. import bool as _bool, float32, ones
    from .loss import mul_scalar
    from ._registry import FUNCTIONS
    origin = query.dtype
    if origin.is_floating_point and origin.itemsize < 4:   # half: accumulate in float32
        query, key, value = (t.to(float32) for t in (query, key, value))
    negative = scale is not None and scale < 0.0
    factor = math.sqrt(1.0 / math.sqrt(query.shape[-1]) if scale is None else abs(scale))
    q = mul_scalar(query, -factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        causal = ones(q.shape[-2], key.shape[-2], dtype=_bool).tril()
        attn_mask = _additive(causal, q.dtype)
    key, value = _grouped_kv(q, key, value, enable_gqa)
    attn = q.matmul(mul_scalar(key.transpose(-2, -1), factor))
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = FUNCTIONS["dropout"](attn, dropout_p, True)
    out = attn.matmul(value)
    return out if out.dtype == origin else out.to(origin)


@composite("nn.functional.scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(q k^T * scale + mask) v``; ``scale`` defaults to ``1 / sqrt(E)``. See Note
    [SDPA on CPU: flash or math] for which graph it records."""
    if attn_mask is not None and type(attn_mask).__name__ == "CausalBias":
        from ..nn.attention.bias import CausalBias   # Note [CausalBias dispatch]
        if isinstance(attn_mask, CausalBias):
            return CausalBias._dispatch(query, key, value, attn_mask, dropout_p, is_causal,
                                        scale, enable_gqa)
    _validate(query, key, value, attn_mask)
    if query.numel() == 0 or key.numel() == 0 or value.numel() == 0:
        return _empty_inputs(query, key, value)
    backend = _choose_backend(query, key, value, attn_mask, dropout_p, enable_gqa)
    attn_mask = _additive(attn_mask, query.dtype)
    if backend == "flash":
        return _flash_attention(query, key, value, attn_mask, dropout_p, is_causal, scale)[0]
    return _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale,
                           enable_gqa)
