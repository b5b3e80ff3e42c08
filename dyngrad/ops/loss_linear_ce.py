"""``nn.functional.linear_cross_entropy``: cross entropy of ``linear(input, linear_weight)``.

Note [linear_cross_entropy's two paths]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
With ``options=None`` torch computes the reference ``cross_entropy(linear(...))``, so the graph
is the composite's (NllLossBackward0 <- LogSoftmaxBackward0 <- ViewBackward0 <- MmBackward0 /
AddmmBackward0); we compose the same ops. With a ``LinearCrossEntropyOptions`` (and a
supported call: reduction mean/sum/none, no label smoothing, int64 target, 2-d weight) torch
runs a custom op that walks the batch in chunks, never holding all logits at once:

* 'mean'/'sum': one node ``GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_
  defaultBackward``. Its forward also computes the gradients of input, weight and bias; its
  backward scales them by the incoming gradient, consuming them, so a second backward raises
  unless ``allow_retain_graph``; it has no double backward.
* 'none': node ``..._batch_chunked_no_reduction_defaultBackward``, whose backward recomputes
  the chunked gradients with the per-row incoming gradient folded in.

Both nodes' inputs are the tensor arguments (input, linear_weight, target, linear_bias, weight)
that are not None. We reproduce the two nodes as autograd Functions of those names with the
same chunking (``LinearCrossEntropyOptions._adjust`` resolves the chunk size and accumulation
dtype). Values agree with torch's to rounding: the arithmetic is the same but not its order.
Unsupported calls with options fall back to the reference path with torch's warning.
"""
from __future__ import annotations

import math
import warnings

from ._registry import composite

_FORWARD_ONLY = ("linear_cross_entropy chunked backward called twice; retain_graph=True / "
                 "double backward are not supported.")


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
             batch_chunk_size, acc_dtype, need_grads, row_grad=None):
    """(loss, grad_input, grad_linear_weight, grad_linear_bias) in acc_dtype, computed
    batch_chunk_size rows at a time. ``row_grad`` (N,) scales each row ('none' backward)."""
    from .. import float32, where, zeros
    acc = acc_dtype
    x = input.to(acc)
    w_lin = linear_weight.to(acc)
    b_lin = linear_bias.to(acc) if linear_bias is not None else None
    valid = target != ignore_index
    safe_target = where(valid, target, 0)
    row_weight = (weight.to(acc)[safe_target] * valid) if weight is not None else valid.to(acc)
    denom = row_weight.sum() if reduction == "mean" else None
    num_batches = x.shape[0]
    losses = []
    grad_x = zeros(x.shape, dtype=acc) if need_grads[0] else None
    grad_w = zeros(w_lin.shape, dtype=acc) if need_grads[1] else None
    grad_b = zeros(w_lin.shape[:1], dtype=acc) if need_grads[2] else None
    for start in range(0, num_batches, batch_chunk_size):
        stop = min(start + batch_chunk_size, num_batches)
        xc, tc, wc = x[start:stop], safe_target[start:stop], row_weight[start:stop]
        logits = xc.matmul(w_lin.t())
        if b_lin is not None:
            logits = logits + b_lin
        target_logit = logits.gather(1, tc.unsqueeze(1)).squeeze(1)
        losses.append((logits.logsumexp(1) - target_logit) * wc)
        if not any(need_grads):
            continue
        # d loss_row / d logits = w[t] * (softmax(logits) - onehot(t))
        d_logits = logits.softmax(1).scatter_add(1, tc.unsqueeze(1),
                                                 -logits.new_ones((stop - start, 1)))
        scale = wc if denom is None else wc / denom
        if row_grad is not None:
            scale = scale * row_grad[start:stop].to(acc)
        d_logits = d_logits * scale.unsqueeze(1)
        if grad_x is not None:
            grad_x[start:stop] = d_logits.matmul(w_lin)
        if grad_w is not None:
            grad_w += d_logits.t().matmul(xc)
        if grad_b is not None:
            grad_b += d_logits.sum(0)
    from .. import cat
    loss = cat(losses) if losses else zeros((0,), dtype=float32)
    if reduction == "sum":
        loss = loss.sum()
    elif reduction == "mean":
        loss = loss.sum() / denom
    return loss, grad_x, grad_w, grad_b


def _chunked_functions():
    """The two autograd Functions, named as torch's custom-op nodes (built once, lazily)."""
    from ..autograd import Function

    def split(args):
        """The tensor arguments back in (input, weight, target, bias, class weight) order."""
        it = iter(args)
        input, linear_weight, target = next(it), next(it), next(it)
        return input, linear_weight, target, it

    class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default(Function):
        @staticmethod
        def forward(ctx, config, *tensors):
            input, linear_weight, target, rest = split(tensors)
            linear_bias = next(rest) if config["has_bias"] else None
            weight = next(rest) if config["has_weight"] else None
            need = (ctx.needs_input_grad[1], ctx.needs_input_grad[2],
                    config["has_bias"] and ctx.needs_input_grad[4])
            loss, gx, gw, gb = _chunked(input, linear_weight, target, linear_bias, weight,
                                        config["reduction"], config["ignore_index"],
                                        config["batch_chunk_size"], config["acc_dtype"], need)
            ctx.grads = (gx.to(input.dtype) if gx is not None else None,
                         gw.to(linear_weight.dtype) if gw is not None else None,
                         gb.to(linear_bias.dtype) if gb is not None else None)
            ctx.allow_retain_graph = config["allow_retain_graph"]
            ctx.n_rest = len(tensors) - 3
            return loss.to(input.dtype)

        @staticmethod
        def backward(ctx, grad_output):
            if ctx.grads is None:
                raise RuntimeError(_FORWARD_ONLY)
            gx, gw, gb = ctx.grads
            if not ctx.allow_retain_graph:
                ctx.grads = None
            scaled = [g * grad_output if g is not None else None for g in (gx, gw)]
            rest = [gb * grad_output if gb is not None else None] + [None] * (ctx.n_rest - 1)
            return (None, *scaled, None, *rest[:ctx.n_rest])

    class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default(
            Function):
        @staticmethod
        def forward(ctx, config, *tensors):
            input, linear_weight, target, rest = split(tensors)
            linear_bias = next(rest) if config["has_bias"] else None
            weight = next(rest) if config["has_weight"] else None
            ctx.config = config
            ctx.inputs = (input.detach(), linear_weight.detach(), target,
                          linear_bias.detach() if linear_bias is not None else None,
                          weight.detach() if weight is not None else None)
            ctx.n_rest = len(tensors) - 3
            loss = _chunked(input, linear_weight, target, linear_bias, weight, "none",
                            config["ignore_index"], config["batch_chunk_size"],
                            config["acc_dtype"], (False, False, False))[0]
            return loss.to(input.dtype)

        @staticmethod
        def backward(ctx, grad_output):
            config = ctx.config
            input, linear_weight, target, linear_bias, weight = ctx.inputs
            need = (ctx.needs_input_grad[1], ctx.needs_input_grad[2],
                    config["has_bias"] and ctx.needs_input_grad[4])
            _, gx, gw, gb = _chunked(input, linear_weight, target, linear_bias, weight, "none",
                                     config["ignore_index"], config["batch_chunk_size"],
                                     config["acc_dtype"], need, row_grad=grad_output)
            rest = [gb.to(linear_bias.dtype) if gb is not None else None]
            rest += [None] * (ctx.n_rest - 1)
            return (None, gx.to(input.dtype) if gx is not None else None,
                    gw.to(linear_weight.dtype) if gw is not None else None, None,
                    *rest[:ctx.n_rest])

    return (GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default,
            GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default)


_FUNCTIONS = None


def _run_chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                 options):
    """torch's chunked path (Note [linear_cross_entropy's two paths])."""
    global _FUNCTIONS
    from .. import _dtypes, float16, float32
    low = {float16, getattr(_dtypes, "bfloat16", float16)}
    has_batches = input.dim() == 2
    if not has_batches:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    options = options._adjust(num_batches=input.shape[0], in_features=input.shape[-1],
                              num_classes=linear_weight.shape[0], dtype=input.dtype,
                              device=input.device)
    if options.acc_policy == "auto" or options.acc_dtype is None:
        raise RuntimeError(f"unresolved acc_policy={options.acc_policy!r} or "
                           f"acc_dtype={options.acc_dtype!r}; use F.linear_cross_entropy.")
    if input.dtype != options.acc_dtype and not (input.dtype in low
                                                 and options.acc_dtype == float32):
        raise RuntimeError("linear_cross_entropy supports float32 acc_dtype with float16/bfloat16"
                           f" inputs, but got {options.acc_dtype} acc_dtype and {input.dtype} "
                           "inputs.")
    if _FUNCTIONS is None:
        _FUNCTIONS = _chunked_functions()
    reduced, unreduced = _FUNCTIONS
    config = {"reduction": reduction, "ignore_index": ignore_index,
              "batch_chunk_size": options.batch_chunk_size, "acc_dtype": options.acc_dtype,
              "allow_retain_graph": options.allow_retain_graph,
              "has_bias": linear_bias is not None, "has_weight": weight is not None}
    tensors = [t for t in (input, linear_weight, target, linear_bias, weight) if t is not None]
    fn = unreduced if reduction == "none" else reduced
    result = fn.apply(config, *tensors)
    return result if has_batches else result.squeeze(0)


@composite("nn.functional.linear_cross_entropy")
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    r"""``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``, with the
    logits reshaped to ``(N, C, d_1, ..., d_K)`` for a ``(C, d_1, ..., d_K, in_features)``
    weight; ``options`` selects torch's chunked path (Note [linear_cross_entropy's two
    paths]). ``ignore_index`` None means -100 (and is required for probability targets)."""
    from .. import int64
    from ..nn import functional as F
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError("expected linear_bias shape "
                           f"{(num_classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched"
            f" input with shape {tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    chunkable = (reduction in {"mean", "sum", "none"} and label_smoothing == 0.0
                 and target.dtype == int64 and not out_features)
    if options is not None and not chunkable:
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs "
            "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype"
            " == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={out_features}"
            f", tracing=False, linear_bias.shape={bias_shape}.", stacklevel=2)
    if options is not None and chunkable:
        return _run_chunked(input, linear_weight, target, linear_bias, weight, reduction,
                            ignore_index, options)
    if out_features:
        linear_weight = linear_weight.reshape((math.prod(out_features, start=num_classes),
                                               in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = F.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=ignore_index, label_smoothing=label_smoothing)
