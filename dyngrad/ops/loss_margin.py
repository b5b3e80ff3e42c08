"""Multi-class margin losses and the losses torch composes in Python beside them.

Primitives (aten kernels with a node of their own): ``multi_margin_loss``
(MultiMarginLossBackward0) and ``multilabel_margin_loss_forward`` (MultilabelMarginLossBackward0,
which also returns ``is_target``). Their gradients are backward-only primitives too, and, as in
torch, those have no derivative: differentiating them again raises "derivative for
aten::multi_margin_loss_backward is not implemented" (their node is ``NotImplemented``).

Composites (torch.nn.functional writes them in Python, so their graphs show the ops they are
made of): ``multilabel_soft_margin_loss``, ``gaussian_nll_loss`` and
``triplet_margin_with_distance_loss``.

Note [Margin losses, vectorised]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
aten loops over samples and classes. Here each loss is one array expression over a batch:

* multi_margin: for sample n with target class t, every other class d adds
  ``max(0, margin - x[n, t] + x[n, d]) ** p`` (times ``weight[t]``), and the sum is divided by
  the number of classes. The pairs (n, d) form an (N, C) array; the target column is masked out.
* multilabel_margin: a row of ``target`` lists the sample's classes up to the first -1. Every
  listed class j and every class d *not* listed add ``max(0, 1 - x[n, j] + x[n, d])``, divided
  by the number of classes: an (N, J, C) array, masked where j is past the list's end or d is a
  listed class. A class listed twice counts twice, as in aten's loops.

Each hinge term ``z`` adds ``dz`` to ``x[n, d]`` and ``-dz`` to ``x[n, t]`` in the gradient,
``dz = 1`` (or ``2 z`` for p = 2) where ``z > 0``; the second kind of contribution is summed
per target class with ``add.at`` (a class may appear several times).
"""
from __future__ import annotations

import math

from .._promotion import Promote
from ._registry import OPS, composite, defop
from ._arg_parser import check_tensors
from .loss import MEAN, NONE, SUM, clamp_min, legacy_reduction, reduction_code
from .arithmetic import _no_derivative
from ..autograd.forward_ad import fw_not_implemented
from .pointwise import _not_implemented


def _legacy_name(np_dtype) -> str:
    from .._dtypes import from_np
    return from_np(np_dtype)._legacy


def _check_long(target) -> None:
    """aten reads targets as int64: any other dtype is refused with torch's message."""
    if target.dtype.kind != "i" or target.dtype.itemsize != 8:
        raise RuntimeError(f"expected scalar type Long but found {_legacy_name(target.dtype)}")


def _backward_only(spec, name: str):
    """A gradient kernel with torch's ``NotImplemented`` node: no OpInfo reaches it directly
    (the forward op's gradgradcheck does), and its own derivative raises, as torch's, in
    forward mode too."""
    spec.backward(_no_derivative(name))
    spec.jvp(fw_not_implemented(f"aten::{name}", short=True))
    del OPS[spec.name]
    return spec


def _per_sample(xp, grad_output, reduction, nframe, dtype):
    """The incoming gradient as one factor per sample (a column for broadcasting)."""
    g = xp.asarray(grad_output, dtype=dtype)
    if reduction == NONE:
        return g.reshape(nframe, 1)
    if reduction == MEAN:
        g = g / nframe
    return xp.broadcast_to(g.reshape(1, 1), (nframe, 1))


# -- multi_margin_loss ---------------------------------------------------------------------------
def _multi_margin_check(input, target, weight):
    """aten's multi_margin_loss_shape_check; returns (number of samples, number of classes)."""
    ndim = input.ndim
    if not ((ndim == 2 and input.shape[1] != 0) or (ndim == 1 and input.shape[0] != 0)
            or ndim == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    nframe = 1 if ndim <= 1 else input.shape[0]
    dim = 1 if ndim == 0 else input.shape[-1]
    if not (target.ndim <= 1 and target.size == nframe):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           "number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and not (weight.ndim <= 1 and weight.size == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{list(weight.shape)}")
    return nframe, dim


def _multi_margin_terms(xp, input, target, weight, p, margin, kernel):
    """(x as (N, C), target as (N, 1), the hinge terms z as (N, C) with the target column 0,
    the per-sample weight column or None). See Note [Margin losses, vectorised]."""
    nframe, dim = _multi_margin_check(input, target, weight)
    if input.dtype.kind not in "fV" or input.dtype.itemsize < 4:
        raise _not_implemented(kernel, input.dtype)
    _check_long(target)
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_legacy_name(input.dtype)} but found "
                           f"{_legacy_name(weight.dtype)}")
    x = input.reshape(nframe, dim)
    t = target.reshape(nframe, 1)
    if xp.any((t < 0) | (t >= dim)):
        raise RuntimeError("target out of range")
    picked = xp.take_along_axis(x, t, 1)
    z = margin - picked + x
    z = xp.where((xp.arange(dim) != t) & (z > 0), z, xp.zeros((), x.dtype))
    w = None if weight is None else weight.reshape(dim)[t]
    return x, t, z, w


@defop("multi_margin_loss", node="MultiMarginLossBackward0", inputs=("self", "target", "weight"),
       promote=Promote.NONE, kernel_dtypes=True, variants=(),
       saves=("self", "target", "weight"), differentiable=("self",),
       non_differentiable=("weight",))
def multi_margin_loss_op(xp, self, target, weight=None, p=1, margin=1.0, reduction=MEAN):
    x, t, z, w = _multi_margin_terms(xp, self, target, weight, p, margin,
                                     "multi_margin_loss_cpu_kernel")
    h = z if p == 1 else z * z
    if w is not None:
        h = h * w
    loss = xp.sum(h, axis=1) / x.shape[1]
    if reduction == MEAN:
        loss = xp.sum(loss) / x.shape[0] if x.shape[0] else xp.asarray(xp.nan)
    elif reduction == SUM:
        loss = xp.sum(loss)
    else:
        loss = loss.reshape(target.shape)
    return xp.asarray(xp.asarray(loss).astype(self.dtype), order="C")


@multi_margin_loss_op.backward
def _(ctx, grad):
    self, target, weight = ctx.saved_tensors
    return multi_margin_loss_backward(grad, self, target, weight, ctx.p, ctx.margin,
                                      ctx.reduction)


@defop("multi_margin_loss_backward", node="NotImplemented", promote=Promote.NONE,
       kernel_dtypes=True, variants=(), inputs=("grad_output", "self", "target", "weight"),
       differentiable=("grad_output", "self"))
def multi_margin_loss_backward(xp, grad_output, self, target, weight=None, p=1, margin=1.0,
                               reduction=MEAN):
    """``dz`` on each hinge term's class, minus their sum on the target class."""
    x, t, z, w = _multi_margin_terms(xp, self, target, weight, p, margin,
                                     "multi_margin_loss_backward_cpu_kernel")
    nframe, dim = x.shape
    dz = (z > 0).astype(x.dtype) if p == 1 else 2 * z
    if w is not None:
        dz = dz * w
    dz = dz * (_per_sample(xp, grad_output, reduction, nframe, x.dtype) / dim)
    grad = dz.copy()
    xp.put_along_axis(grad, t, -xp.sum(dz, axis=1, keepdims=True), 1)
    return xp.asarray(grad.reshape(self.shape), order="C")


_backward_only(multi_margin_loss_backward, "multi_margin_loss_backward")


@composite("nn.functional.multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """``sum over d != y of max(0, margin - x[y] + x[d]) ** p / C`` per sample (``weight[y]``
    times that when given), reduced."""
    code = reduction_code(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    check_tensors("multi_margin_loss", ("input", input), ("target", target))
    return multi_margin_loss_op(input, target, weight, p, margin, code)


# -- multilabel_margin_loss ----------------------------------------------------------------------
def _multilabel_check(xp, input, target):
    """aten's multilabel_margin_loss_shape_check and target range check: (samples, classes)."""
    ndim = input.ndim
    if not ((ndim == 2 and input.shape[1] != 0) or (ndim == 1 and input.shape[0] != 0)
            or ndim == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    if ndim <= 1:
        nframe, dim = 1, (1 if ndim == 0 else input.shape[0])
        ok = target.ndim <= 1 and target.size == dim
    else:
        nframe, dim = input.shape
        ok = target.ndim == 2 and target.shape == input.shape
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if target.size and (xp.min(target) < -1 or xp.max(target) >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    return nframe, dim


def _multilabel_terms(xp, input, target, kernel):
    """(x as (N, C), the listed classes as (N, J), the mask of listed positions (N, J), the
    is_target mask (N, C), the hinge terms z as (N, J, C), masked). See Note [Margin losses,
    vectorised]."""
    nframe, dim = _multilabel_check(xp, input, target)
    if input.dtype.kind not in "fV" or input.dtype.itemsize < 4:
        raise _not_implemented(kernel, input.dtype)
    _check_long(target)
    x = input.reshape(nframe, dim)
    t = target.reshape(nframe, dim)
    # the list of each row ends at its first -1
    listed = xp.cumsum(t == -1, axis=1) == 0
    safe = xp.where(listed, t, 0)
    is_target = xp.zeros((nframe, dim), bool)
    rows = xp.broadcast_to(xp.arange(nframe)[:, None], t.shape)
    is_target[rows[listed], safe[listed]] = True
    picked = xp.take_along_axis(x, safe, 1)
    z = 1 - picked[:, :, None] + x[:, None, :]
    keep = listed[:, :, None] & ~is_target[:, None, :] & (z > 0)
    z = xp.where(keep, z, xp.zeros((), x.dtype))
    return x, safe, is_target, z


@defop("multilabel_margin_loss_forward", node="MultilabelMarginLossBackward0",
       inputs=("self", "target"), promote=Promote.NONE, kernel_dtypes=True, variants=(),
       outputs=("output", "is_target"), nondiff_outputs=(1,),
       saves=("self", "target", "is_target"), differentiable=("self",))
def multilabel_margin_loss_forward(xp, self, target, reduction=MEAN):
    x, _, is_target, z = _multilabel_terms(xp, self, target,
                                           "multilabel_margin_loss_forward_out_frame")
    loss = xp.sum(z, axis=(1, 2)) / x.shape[1]
    if reduction == MEAN:
        loss = xp.sum(loss) / x.shape[0] if x.shape[0] else xp.asarray(xp.nan)
    elif reduction == SUM or self.ndim < 2:
        loss = xp.sum(loss)
    return (xp.asarray(xp.asarray(loss).astype(self.dtype), order="C"),
            xp.asarray(is_target.reshape(target.shape).astype(self.dtype), order="C"))


@multilabel_margin_loss_forward.backward
def _(ctx, grad, grad_is_target=None):
    self, target, is_target = ctx.saved_tensors
    return multilabel_margin_loss_backward(grad, self, target, ctx.reduction, is_target)


@defop("multilabel_margin_loss_backward", node="NotImplemented", promote=Promote.NONE,
       kernel_dtypes=True, variants=(), inputs=("grad_output", "self", "target", "is_target"),
       differentiable=("grad_output", "self"))
def multilabel_margin_loss_backward(xp, grad_output, self, target, reduction, is_target):
    """Each positive hinge term: ``+1`` on its class d, ``-1`` on its listed class j."""
    x, safe, _, z = _multilabel_terms(xp, self, target,
                                      "multilabel_margin_loss_backward_out_frame")
    nframe, dim = x.shape
    active = (z > 0).astype(x.dtype)                       # (N, J, C)
    scale = _per_sample(xp, grad_output, reduction, nframe, x.dtype) / dim
    grad = xp.sum(active, axis=1) * scale                  # + on each class d
    minus = xp.sum(active, axis=2) * scale                 # - on each listed class j
    rows = xp.broadcast_to(xp.arange(nframe)[:, None], safe.shape)
    xp.subtract.at(grad, (rows, safe), minus)
    return xp.asarray(grad.reshape(self.shape), order="C")


_backward_only(multilabel_margin_loss_backward, "multilabel_margin_loss_backward")


@composite("nn.functional.multilabel_margin_loss")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Hinge loss between each listed class of a sample (``target`` rows, ended by -1) and
    each class not listed, divided by the number of classes, reduced."""
    code = reduction_code(size_average, reduce, reduction)
    check_tensors("multilabel_margin_loss", ("input", input), ("target", target))
    return multilabel_margin_loss_forward(input, target, code)[0]


# -- composites ----------------------------------------------------------------------------------
@composite("nn.functional.multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Per-class logistic loss ``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))``, averaged
    over the classes (the last dim), then reduced over the samples."""
    from .. import nn
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    logsigmoid = nn.functional.logsigmoid
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _gaussian_var(input, var):
    """torch's checks of gaussian_nll_loss's ``var`` and its homoscedastic shapes: ``var`` one
    dim short of ``input`` gets a trailing dim; one dim that differs (of size 1) broadcasts."""
    from .. import any as any_, ones_like
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif any_(var < 0):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and
                  sum(v for i, v in zip(input.size(), var.size()) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    return var


@composite("nn.functional.gaussian_nll_loss")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood ``0.5 * (log(var) + (input - target) ** 2 / var)``
    (plus ``0.5 * log(2 pi)`` when ``full``), with ``var`` clamped at ``eps``.

    Note [gaussian_nll_loss's clamp]: torch clamps a clone of ``var`` in place under no_grad,
    so the clamp is invisible to autograd: the gradient reaches ``var`` through the clone as if
    unclamped, computed at the clamped value. The same steps here give the same graph.
    """
    from .. import log, no_grad
    var = _gaussian_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


@composite("nn.functional.triplet_margin_with_distance_loss")
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` for any distance ``d`` (default:
    ``pairwise_distance``); ``swap`` uses ``min(d(a, n), d(p, n))`` as the negative distance."""
    from .. import mean, minimum, pairwise_distance, sum as sum_
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a_dim}D, positive "
                           f"{p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance_function(positive, negative))
    loss = clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return sum_(loss)
    if reduction == "mean":
        return mean(loss)
    return loss
