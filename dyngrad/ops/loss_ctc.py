"""Connectionist temporal classification: ``nn.functional.ctc_loss`` (and aten's
``ctc_loss``, published as ``dyngrad.ctc_loss`` with a reduction code, as ``torch.ctc_loss``).

The primitive is aten's ``_ctc_loss`` (node CtcLossBackward0): per batch element, the negative
log likelihood of the target sequence under the per-frame log-probabilities, summed over every
alignment, and the forward variables ``log_alpha`` it keeps for the gradient. Its gradient is a
backward-only primitive whose own derivative raises, as torch's ("derivative for
aten::_ctc_loss_backward is not implemented"). Reductions, ``zero_infinity`` and the unbatched
form are composed around it, as aten's ``ctc_loss`` does.

Note [CTC recursions]
~~~~~~~~~~~~~~~~~~~~~
Graves et al. (2006). A target ``l`` of length L is extended with blanks: ``l' = (blank, l1,
blank, l2, ..., lL, blank)``, 2L + 1 states. An alignment walks the states over the frames,
each frame staying, moving one state on, or skipping a blank between two *different* labels.
In log space, with ``lp[t, s] = log_probs[t, l'(s)]``:

* forward: ``alpha[0] = (lp[0, 0], lp[0, 1], -inf, ...)``, and
  ``alpha[t, s] = lp[t, s] + logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2])``,
  the last term only where ``l'(s)`` is a label different from ``l'(s-2)``;
  ``nll = -logsumexp(alpha[T-1, 2L], alpha[T-1, 2L-1])`` (T: that element's input length).
* backward: ``beta`` runs the same way from the last frame (states 2L and 2L - 1), with
  ``s+1`` and ``s+2``. Both include ``lp[t, s]``, so ``alpha * beta`` counts it twice.
* gradient w.r.t. ``log_probs[t, c]``: ``exp(lp) - exp(log(sum over s with l'(s) = c of
  alpha[t, s] beta[t, s]) + nll - lp)``, times the incoming gradient; zero past the input
  length (and everywhere for an infinite loss under ``zero_infinity``).

aten loops over batch elements, frames and states. Here only the frames are a Python loop:
each step updates an (N, 2 * max L + 1) array for the whole batch, and masks keep each element
to its own states and frames. The sum over the states of one class is a matrix product with a
one-hot (state, class) matrix, after subtracting the largest term of the frame (the
log-sum-exp trick with one shift per frame rather than one per class).
"""
from __future__ import annotations

from .._promotion import Promote
from ._registry import FUNCTIONS, OPS, composite, defop
from .loss import MEAN, SUM, get_enum
from .arithmetic import _no_derivative
from ..autograd.forward_ad import fw_not_implemented
from .pointwise import _not_implemented

_CHECKS = "(while checking arguments for ctc_loss_allocate_outputs)"


def _check_ctc(log_probs, targets, input_lengths, target_lengths, blank):
    """aten's ctc_loss_allocate_outputs checks, in its order."""
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional "
                           f"tensor for argument #1 'log_probs' {_CHECKS}")
    if not 1 <= targets.ndim < 3:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional "
                           f"tensor for argument #2 'targets' {_CHECKS}")
    _, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for n in target_lengths:
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got "
                               f"value {n} {_CHECKS}")
    if targets.ndim == 1:
        expected, dim = sum(target_lengths), 0
    else:
        expected, dim = batch, 0
    if targets.shape[dim] != expected:
        raise RuntimeError(f"Expected tensor to have size {expected} at dimension {dim}, but got "
                           f"size {targets.shape[dim]} for argument #2 'targets' {_CHECKS}")
    longest = max(target_lengths, default=0)
    if targets.ndim == 2 and targets.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but "
                           f"got size {targets.shape[1]} for argument #2 'targets' {_CHECKS}")
    frames = log_probs.shape[0]
    for n in input_lengths:
        if n < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{n} {_CHECKS}")
        if n > frames:
            raise RuntimeError(f"Expected input_lengths to have value at most {frames}, but got "
                               f"value {n} {_CHECKS}")


def _states(xp, log_probs, targets, input_lengths, target_lengths, blank):
    """What both recursions need: the extended labels l' (N, S), per-frame log-probabilities
    of the states lp (T, N, S), the skip mask (N, S), the number of valid states and the input
    lengths (N,)."""
    frames, batch, _ = log_probs.shape
    tl = xp.asarray(target_lengths, dtype=xp.int64).reshape(batch)
    il = xp.asarray(input_lengths, dtype=xp.int64).reshape(batch)
    longest = int(tl.max()) if batch else 0
    # each element's labels as a row of a (N, longest) array, padded with blanks
    position = xp.arange(longest)
    inside = position < tl[:, None]
    if targets.ndim == 1:          # concatenated: element b starts after the lengths before it
        start = xp.cumsum(tl) - tl
        index = xp.where(inside, start[:, None] + position, 0)
        padded = targets[index] if targets.size else xp.zeros(index.shape, xp.int64)
    else:
        padded = targets[:, :longest]
    padded = xp.where(inside, padded, blank).astype(xp.int64)
    n_states = 2 * longest + 1
    labels = xp.full((batch, n_states), blank, dtype=xp.int64)
    labels[:, 1::2] = padded
    # a blank may be skipped between two different labels: state s (a label) from s - 2
    skip = xp.zeros((batch, n_states), bool)
    skip[:, 3::2] = padded[:, 1:] != padded[:, :-1]
    lp = xp.take_along_axis(log_probs, xp.broadcast_to(labels, (frames,) + labels.shape), 2)
    valid = xp.arange(n_states) < (2 * tl + 1)[:, None]
    return labels, lp, skip, valid, il, tl


def _logsumexp3(xp, a, b, c):
    """aten's three-term log-sum-exp: shift by the largest (0 when all are -inf)."""
    m = xp.maximum(xp.maximum(a, b), c)
    m = xp.where(m == -xp.inf, xp.zeros((), m.dtype), m)
    with xp.errstate(divide="ignore"):
        return xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m)) + m


def _shift(xp, x, k, fill):
    """x moved k places along the last axis (right for k > 0, left for k < 0), filled."""
    out = xp.full(x.shape, fill, x.dtype)
    if k > 0:
        out[:, k:] = x[:, :-k]
    else:
        out[:, :k] = x[:, -k:]
    return out


def _alphas(xp, lp, skip, valid, il):
    """log_alpha (N, T, S); frames past an element's input length stay -inf."""
    frames, batch, n_states = lp.shape
    neg = xp.asarray(-xp.inf, lp.dtype)
    alpha = xp.full((batch, frames, n_states), neg, lp.dtype)
    if frames == 0:
        return alpha
    first = xp.full((batch, n_states), neg, lp.dtype)
    first[:, :2] = lp[0, :, :2]
    first = xp.where(valid & (il[:, None] > 0), first, neg)
    alpha[:, 0] = first
    for t in range(1, frames):
        prev = alpha[:, t - 1]
        a = _logsumexp3(xp, prev, _shift(xp, prev, 1, neg),
                        xp.where(skip, _shift(xp, prev, 2, neg), neg)) + lp[t]
        alpha[:, t] = xp.where(valid & (t < il)[:, None], a, neg)
    return alpha


def _betas(xp, lp, skip, valid, il, tl):
    """log_beta (N, T, S), started at each element's last frame."""
    frames, batch, n_states = lp.shape
    neg = xp.asarray(-xp.inf, lp.dtype)
    beta = xp.full((batch, frames, n_states), neg, lp.dtype)
    rows = xp.arange(batch)
    last = xp.zeros((batch, n_states), bool)
    last[rows, 2 * tl] = True
    last[rows, xp.maximum(2 * tl - 1, 0)] |= tl > 0
    skip_next = _shift(xp, skip, -2, False)        # state s may reach s + 2
    for t in range(frames - 1, -1, -1):
        if t + 1 < frames:
            nxt = beta[:, t + 1]
            b = _logsumexp3(xp, nxt, _shift(xp, nxt, -1, neg),
                            xp.where(skip_next, _shift(xp, nxt, -2, neg), neg)) + lp[t]
        else:
            b = xp.full((batch, n_states), neg, lp.dtype)
        at_end = (t == il - 1)[:, None]
        b = xp.where(at_end, xp.where(last, lp[t], neg), b)
        beta[:, t] = xp.where(valid & (t < il)[:, None], b, neg)
    return beta


def _check_dtype(xp, log_probs, kernel):
    if log_probs.dtype.kind not in "fV" or log_probs.dtype.itemsize < 4:
        raise _not_implemented(kernel, log_probs.dtype)


@defop("_ctc_loss", node="CtcLossBackward0", inputs=("log_probs", "targets"),
       promote=Promote.NONE, kernel_dtypes=True, variants=(),
       outputs=("result0", "result1"), nondiff_outputs=(1,),
       saves=("log_probs", "targets", "result0", "result1"),
       differentiable=("log_probs",))
def ctc_loss_op(xp, log_probs, targets, input_lengths, target_lengths, blank=0,
                zero_infinity=False):
    """(negative log likelihood per batch element, log_alpha): Note [CTC recursions]. torch
    saves the two outputs as ``result0`` and ``result1``."""
    _check_dtype(xp, log_probs, "ctc_loss_cpu")
    if log_probs.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    _check_ctc(log_probs, targets, input_lengths, target_lengths, blank)
    labels, lp, skip, valid, il, tl = _states(xp, log_probs, targets, input_lengths,
                                              target_lengths, blank)
    alpha = _alphas(xp, lp, skip, valid, il)
    batch = log_probs.shape[1]
    rows = xp.arange(batch)
    end = xp.maximum(il - 1, 0)
    neg = xp.asarray(-xp.inf, lp.dtype)
    l1 = alpha[rows, end, 2 * tl]
    l2 = xp.where(tl > 0, alpha[rows, end, xp.maximum(2 * tl - 1, 0)], neg)
    nll = -_logsumexp3(xp, l1, l2, xp.full(l1.shape, neg))
    # no frames: the empty target has likelihood 1, any other 0
    nll = xp.where(il == 0, xp.where(tl == 0, -xp.zeros((), lp.dtype), xp.inf), nll)
    return (xp.asarray(nll.astype(log_probs.dtype), order="C"),
            xp.asarray(alpha, order="C"))


@ctc_loss_op.backward
def _(ctx, grad, grad_alpha=None):
    log_probs, targets, nll, log_alpha = ctx.saved_tensors
    return ctc_loss_backward(grad, log_probs, targets, nll, log_alpha, ctx.input_lengths,
                             ctx.target_lengths, ctx.blank, ctx.zero_infinity)


@defop("_ctc_loss_backward", node="NotImplemented", promote=Promote.NONE, kernel_dtypes=True,
       variants=(), inputs=("grad", "log_probs", "targets", "neg_log_likelihood", "log_alpha"),
       differentiable=("grad", "log_probs"))
def ctc_loss_backward(xp, grad, log_probs, targets, neg_log_likelihood, log_alpha,
                      input_lengths, target_lengths, blank=0, zero_infinity=False):
    """The gradient of Note [CTC recursions] w.r.t. log_probs, (T, N, C)."""
    labels, lp, skip, valid, il, tl = _states(xp, log_probs, targets, input_lengths,
                                              target_lengths, blank)
    beta = _betas(xp, lp, skip, valid, il, tl)
    frames, batch, classes = log_probs.shape
    both = log_alpha + beta                                       # (N, T, S)
    # Note [CTC's last frame]: aten sets (rather than log-adds) the last frame's two terms,
    # the final blank's first, assuming the last label differs from the blank; a last label
    # equal to the blank overwrites the blank's term. The same here, to give torch's numbers.
    rows = xp.arange(batch)
    last_label = labels[rows, xp.maximum(2 * tl - 1, 0)]
    lost = (il > 0) & (tl > 0) & (last_label == blank)
    both[rows[lost], il[lost] - 1, 2 * tl[lost]] = -xp.inf
    top = both.max(axis=2, initial=-xp.inf)
    top = xp.where(top == -xp.inf, xp.zeros((), both.dtype), top)
    one_hot = (labels[:, :, None] == xp.arange(classes)).astype(both.dtype)   # (N, S, C)
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        per_class = xp.log(xp.exp(both - top[:, :, None]) @ one_hot) + top[:, :, None]
        per_class = per_class.transpose(1, 0, 2)                  # (T, N, C)
        nll = neg_log_likelihood[None, :, None]
        out = (xp.exp(log_probs) - xp.exp(per_class + nll - log_probs)) * grad[None, :, None]
    keep = (xp.arange(frames)[:, None] < il[None, :])[:, :, None]
    if zero_infinity:
        keep = keep & (neg_log_likelihood != xp.inf)[None, :, None]
    out = xp.where(keep, out, xp.zeros((), out.dtype))
    return xp.asarray(out.astype(log_probs.dtype), order="C")


ctc_loss_backward.backward(_no_derivative("_ctc_loss_backward"))
ctc_loss_backward.jvp(fw_not_implemented("aten::_ctc_loss_backward", short=True))
del OPS[ctc_loss_backward.name]     # backward-only: reached through ctc_loss's gradients


def _lengths(lengths, name):
    """aten's ctc_loss takes lengths as int lists or integral tensors (made a list here)."""
    from .._tensor import Tensor
    if isinstance(lengths, Tensor):
        dtype = lengths.dtype
        if dtype.is_floating_point or dtype.is_complex or str(dtype) == "torch.bool":
            raise RuntimeError(f"{name} must be integral")
        return [int(n) for n in lengths.reshape(-1).tolist()]
    return [int(n) for n in lengths]


def ctc_loss_aten(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=MEAN,
                  zero_infinity=False):
    """aten's ctc_loss: ``_ctc_loss`` on a batched input, then zero_infinity and the reduction
    ('mean' divides each loss by its target length, at least 1, then averages)."""
    from .. import tensor, where, zeros
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if str(targets.dtype) != "torch.int64":
        targets = targets.long()
    res = ctc_loss_op(lp, targets, il, tl, blank, zero_infinity)[0]
    if zero_infinity:
        res = where(res == float("inf"), zeros((), dtype=res.dtype), res)
    if reduction == MEAN:
        return (res / tensor(tl, dtype=res.dtype).clamp(min=1)).mean()
    if reduction == SUM:
        return res.sum()
    return res if batched else res.squeeze(0)


FUNCTIONS["ctc_loss"] = ctc_loss_aten


@composite("nn.functional.ctc_loss")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """CTC loss of the target sequences given per-frame log-probabilities (T, N, C) or (T, C);
    targets padded (N, S) or concatenated (sum of target_lengths)."""
    return ctc_loss_aten(log_probs, targets, input_lengths, target_lengths, blank,
                         get_enum(reduction), zero_infinity)
