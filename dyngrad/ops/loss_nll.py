"""nll_loss (torch's ``nll_loss`` for 1-/2-d inputs, ``nll_loss2d`` for (N, C, H, W)), the
N-d dispatcher ``nn.functional.nll_loss`` and ``nn.functional.cross_entropy`` (log_softmax +
nll_loss for class indices; a weighted sum for class probabilities; label smoothing).

Note [nll_loss's gradient]: the gradient puts ``-weight[t] * grad`` at each picked (sample,
class) position and zeros elsewhere (divided by the total weight for 'mean'); ignored targets
get nothing (``where``, not a product: an all-ignored 'mean' divides by 0 and still gives
zeros, as torch). The picked positions come from a one-hot mask (``arange(C) == target``), so
the formula is made of dyngrad ops and differentiable again; a ``where`` that selects nothing
from ``self`` gives ``self`` the zero second derivative torch reports.
"""
from __future__ import annotations

from .._promotion import Promote
from ..backends.numpy_backend import xp as _xp
from ._autograd_utils import arrays_only, from_array
from ._registry import OPS, composite, defop
from ..autograd.forward_ad import FROM_BACKWARD, LINEAR_IN_GRAD_OUTPUT
from ._arg_parser import check_tensors
from .loss import (MEAN, NONE, SUM, add_scalar, div_scalar, get_enum, legacy_reduction,
                   mul_scalar)
from .pointwise import _not_implemented
from .softmax import _log_softmax


def _check_nll(xp, self, target, weight, kernel):
    """torch's checks of nll_loss / nll_loss2d, then (class axis, number of classes)."""
    if target.dtype not in (xp.int64, xp.uint8):
        from .._dtypes import from_np
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{from_np(target.dtype)._legacy}")
    if self.dtype.kind not in "fV":
        raise _not_implemented(kernel, self.dtype)
    axis = 0 if self.ndim == 1 else 1
    n_classes = self.shape[axis] if self.ndim else 1
    if weight is not None:
        if weight.dtype != self.dtype:
            from .._dtypes import from_np
            raise RuntimeError(f"expected scalar type {from_np(self.dtype)._legacy} but found "
                               f"{from_np(weight.dtype)._legacy}")
        if weight.size != n_classes and self.ndim == 4:   # (nll_loss2d's words)
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if weight.size != n_classes:
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
    return axis, n_classes


def _all_valid(xp, t, n_classes, ignore_index) -> bool:
    """Every target is a class index (none ignored, none out of range): the common case."""
    if not t.size:
        return False
    lo, hi = xp.minimum.reduce(t), xp.maximum.reduce(t)
    return 0 <= lo and hi < n_classes and not lo <= ignore_index <= hi


def _nll_forward(xp, self, target, weight, reduction, ignore_index, kernel):
    axis, n_classes = _check_nll(xp, self, target, weight, kernel)
    if (weight is None and self.ndim == 2 and self.dtype.itemsize >= 4
            and reduction != NONE and _all_valid(xp, target, n_classes, ignore_index)):
        # the common case in a few passes, the same numbers as below: every weight is 1
        # (-sum(picked) is sum(-picked * 1) exactly) and the total weight is the batch size
        n = target.shape[0]
        # (0 - sum, where torch's loop starts from +0 and subtracts: never a -0 result)
        loss = 0 - xp.add.reduce(self[xp.arange(n), target])
        if reduction == MEAN:
            loss = loss / self.dtype.type(n)
        return xp.asarray(loss, dtype=self.dtype), xp.asarray(n, dtype=self.dtype)
    t = target.astype(xp.int64)
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if xp.any(bad):
        raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")
    safe = xp.where(valid, t, 0)
    x = self.astype(xp.float32) if self.dtype.itemsize < 4 else self
    picked = xp.take_along_axis(x, xp.expand_dims(safe, axis), axis).squeeze(axis) \
        if self.ndim else x
    w = (weight.astype(x.dtype)[safe] if weight is not None else xp.ones_like(picked)) * valid
    loss = xp.where(valid, -picked * w, 0)   # (an ignored target's loss is +0, as torch's)
    total = xp.sum(w) if reduction != NONE or self.ndim == 1 else xp.zeros(())
    if reduction == SUM:
        loss = 0 - xp.sum(picked * w)
    elif reduction == MEAN:
        with xp.errstate(invalid="ignore", divide="ignore"):
            loss = (0 - xp.sum(picked * w)) / total
    return (xp.asarray(xp.asarray(loss).astype(self.dtype), order="C"),
            xp.asarray(total, dtype=self.dtype))


def _nll_backward(ctx, grad, grad_total_weight=None):
    """NllLossBackward0 / NllLoss2DBackward0: one call of the backward primitive, as torch."""
    self, target, weight, total_weight = ctx.saved_tensors
    op = nll_loss_backward if self.dim() < 3 else nll_loss2d_backward
    if weight is None and arrays_only(grad, self, total_weight):
        # Note [Array formulas]: the primitive's kernel on the arrays (it makes a new array)
        return from_array(op.kernel(_xp, grad._data, self._data, target._data,
                                    total_weight._data, None, ctx.reduction, ctx.ignore_index))
    return op(grad, self, target, total_weight, weight, ctx.reduction, ctx.ignore_index)


def _nll_backward_kernel(xp, grad_output, self, target, total_weight, weight=None,
                         reduction=MEAN, ignore_index=-100):
    """See Note [nll_loss's gradient]: ``-weight[t] * grad`` at each picked (sample, class),
    divided by the total weight for 'mean'; zeros elsewhere and for ignored targets."""
    axis = 0 if self.ndim == 1 else 1
    if (weight is None and self.ndim == 2 and reduction != NONE
            and _all_valid(xp, target, self.shape[1], ignore_index)):
        # the common case (see _nll_forward): one value, -grad / total, at every picked place
        g = grad_output / total_weight if reduction == MEAN else grad_output
        out = xp.zeros(self.shape, self.dtype)
        out[xp.arange(target.shape[0]), target] = -g
        return out
    t = target.astype(xp.int64)
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    g = grad_output
    if reduction == MEAN:
        with xp.errstate(invalid="ignore", divide="ignore"):
            g = g / total_weight
    coef = -g if weight is None else -weight[safe] * g
    coef = xp.where(valid, coef, xp.zeros((), self.dtype)).astype(self.dtype)
    out = xp.zeros(self.shape, self.dtype)
    if self.ndim == 0:
        return xp.asarray(coef, dtype=self.dtype).reshape(())
    xp.put_along_axis(out, xp.expand_dims(safe, axis),
                      xp.expand_dims(xp.broadcast_to(coef, safe.shape), axis), axis)
    return out


def _nll_double_backward(ctx, grad):
    """torch's formulas: the gradient is linear in grad_output (its derivative is nll_loss of
    the incoming gradient) and constant in self (zeros)."""
    target, weight = ctx.saved_tensors
    need_grad, need_self = ctx.needs_input_grad
    from .. import zeros_like
    forward = nll_loss_op if grad.dim() < 3 else nll_loss2d_op
    return (forward(grad, target, weight, ctx.reduction, ctx.ignore_index)[0]
            if need_grad else None,
            zeros_like(grad) if need_self else None)


def _nll_backward_op(name, node):
    spec = defop(name, node=node, promote=Promote.NONE, kernel_dtypes=True, variants=(),
                 inputs=("grad_output", "self", "target", "total_weight", "weight"),
                 saves=("target", "weight"), differentiable=("grad_output", "self"))(
        _nll_backward_kernel)
    spec.backward(_nll_double_backward)
    # (torch runs a decomposition, linear in grad_output: self's tangent is not read)
    spec.jvp(LINEAR_IN_GRAD_OUTPUT)
    del OPS[spec.name]               # backward-only: reached through nll_loss's gradgradcheck
    return spec


nll_loss_backward = _nll_backward_op("nll_loss_backward", "NllLossBackwardBackward0")
nll_loss2d_backward = _nll_backward_op("nll_loss2d_backward", "NllLoss2DBackwardBackward0")


@defop("nll_loss", node="NllLossBackward0", inputs=("self", "target", "weight"),
       promote=Promote.NONE, kernel_dtypes=True, variants=(), outputs=("output", "total_weight"),
       nondiff_outputs=(1,), saves=("self", "target", "weight", "total_weight"),
       differentiable=("self",), non_differentiable=("weight",),
       autograd_name="nll_loss_forward")
def nll_loss_op(xp, self, target, weight=None, reduction=MEAN, ignore_index=-100):
    if self.ndim not in (1, 2):
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if self.ndim == 2 and self.shape[0] != target.shape[0]:
        raise RuntimeError(f"size mismatch (got input: {list(self.shape)}, target: "
                           f"{list(target.shape)})")
    return _nll_forward(xp, self, target, weight, reduction, ignore_index, "nll_loss_out_frame")


nll_loss_op.backward(_nll_backward)
nll_loss_op.jvp(FROM_BACKWARD)


@defop("nll_loss2d", node="NllLoss2DBackward0", inputs=("self", "target", "weight"),
       promote=Promote.NONE, kernel_dtypes=True, variants=(), outputs=("output", "total_weight"),
       nondiff_outputs=(1,), saves=("self", "target", "weight", "total_weight"),
       differentiable=("self",), non_differentiable=("weight",),
       autograd_name="nll_loss2d_forward")
def nll_loss2d_op(xp, self, target, weight=None, reduction=MEAN, ignore_index=-100):
    if target.ndim != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.ndim}")
    if self.ndim != 4:
        raise RuntimeError("only batches of spatial inputs supported (4D tensors), but got "
                           f"input of dimension: {self.ndim}")
    if self.shape[0] != target.shape[0] or self.shape[2:] != target.shape[1:]:
        raise RuntimeError(f"size mismatch (got input: {list(self.shape)} , target: "
                           f"{list(target.shape)}")
    return _nll_forward(xp, self, target, weight, reduction, ignore_index,
                        "nll_loss2d_forward_out_frame")


nll_loss2d_op.backward(_nll_backward)
nll_loss2d_op.jvp(FROM_BACKWARD)


def nll_loss_nd(input, target, weight=None, reduction=MEAN, ignore_index=-100):
    """aten's nll_loss_nd: nll_loss for 1-/2-d inputs, nll_loss2d for the rest (reshaped).
    (Its callers have checked that `input` and `target` are tensors: it reads their arrays.)"""
    shape, target_shape = input._data.shape, target._data.shape
    d = len(shape)
    if d < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {d})")
    if d != 1 and shape[0] != target_shape[0]:
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target "
                         f"batch_size ({target_shape[0]}).")
    if d in (1, 2):
        return nll_loss_op(input, target, weight, reduction, ignore_index)[0]
    if d == 4:
        return nll_loss2d_op(input, target, weight, reduction, ignore_index)[0]
    n, c = input.shape[0], input.shape[1]
    out_size = (n,) + tuple(input.shape[2:])
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(target.shape)}")
    input, target = input.contiguous(), target.contiguous()
    if input.numel() > 0:
        input = input.view(n, c, 1, input.numel() // (n * c))
    else:
        input = input.view(n, c, 0, 0)
    if target.numel() > 0:
        target = target.view(n, 1, target.numel() // n)
    else:
        target = target.view(n, 0, 0)
    out = nll_loss2d_op(input, target, weight, reduction, ignore_index)[0]
    if reduction != NONE or out.numel() == 0:
        return out
    return out.view(out_size)


@composite("nn.functional.nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log likelihood of the target classes: ``-input[n, target[n]]``, weighted."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    code = get_enum(reduction)
    check_tensors("nll_loss_nd", ("input", input), ("target", target), ("weight?", weight))
    return nll_loss_nd(input, target, weight, code, ignore_index)


# -- cross entropy -------------------------------------------------------------------------------
def _class_weight(weight, ndim, class_dim):
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim,
                         ignore_index=-100):
    if not target.dtype.is_floating_point:
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {target.dtype._legacy}")
    if ignore_index >= 0:   # (a class index: there is none to ignore among probabilities)
        raise RuntimeError("ignore_index is not supported for floating point target")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    n_classes = input.shape[class_dim]
    logp = input.log_softmax(class_dim)
    if label_smoothing > 0:
        target = add_scalar(mul_scalar(target, 1 - label_smoothing), label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * _class_weight(weight, input.dim(), class_dim)
    if reduction == NONE:
        return -prod.sum(class_dim)
    if reduction == SUM:
        return -prod.sum()
    if input.numel() == 0:
        return -prod.sum().fill_(float("nan"))
    return div_scalar(-prod.sum(), input.numel() // n_classes)


def _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing,
                            class_dim):
    logp = input.log_softmax(class_dim)
    nll = nll_loss_nd(logp, target, weight, reduction, ignore_index)
    ignore = target == ignore_index
    if weight is not None:
        smooth = -(logp * _class_weight(weight, input.dim(), class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if reduction == MEAN:
        if weight is not None:
            kept = target.masked_select(~ignore).flatten()
            ret = smooth.sum() / weight.gather(0, kept).sum()
        else:
            ret = smooth.sum() / (~ignore).sum()
    elif reduction == SUM:
        ret = smooth.sum()
    else:
        ret = smooth
    n_classes = input.shape[class_dim]
    return mul_scalar(nll, 1 - label_smoothing) + mul_scalar(ret, label_smoothing / n_classes)


@composite("nn.functional.cross_entropy")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross entropy of ``softmax(input)`` against class indices or class probabilities."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    code = get_enum(reduction)
    check_tensors("cross_entropy_loss", ("input", input), ("target", target), ("weight?", weight))
    shape = input._data.shape
    class_dim = 0 if len(shape) == 1 else 1
    if shape == target._data.shape:
        return _cross_entropy_probs(input, target, weight, code, label_smoothing, class_dim,
                                    ignore_index)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if label_smoothing > 0:
        return _cross_entropy_smoothed(input, target, weight, code, ignore_index,
                                       label_smoothing, class_dim)
    # (the op itself, not the method: two Python frames less on every training step)
    return nll_loss_nd(_log_softmax(input, class_dim, False), target, weight, code,
                       ignore_index)


