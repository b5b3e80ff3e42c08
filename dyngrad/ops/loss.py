"""Pointwise losses of ``nn.functional``: mse, l1, smooth_l1, huber, soft_margin, binary cross
entropy (on probabilities and on logits), kl_div, poisson_nll, margin_ranking, hinge_embedding
and cosine_embedding.

torch gives the first ones a node of their own (``MseLossBackward0``...): they are primitives
here, with a ``reduction`` code (0 none, 1 mean, 2 sum) as in aten; the rest are compositions
of other ops, as torch writes them, so their graphs show the ops they are made of.
nll_loss and cross_entropy live in loss_nll.py.
"""
from __future__ import annotations

import warnings

from .._utils import shape_str
from ._arg_parser import check_tensors
from ._autograd_utils import row_major
from ._registry import FUNCTIONS, composite, defop
from ._selection import warn_at_caller
from .creation import laid_out_like
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, AUTO_LINEAR, FROM_BACKWARD
from .pointwise import _not_implemented

NONE, MEAN, SUM = 0, 1, 2


# -- reduction codes -----------------------------------------------------------------------------
def get_enum(reduction: str) -> int:
    """torch's reduction code for a reduction name (ValueError for an unknown one)."""
    if reduction == "none":
        return NONE
    if reduction == "mean":
        return MEAN
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return MEAN
    if reduction == "sum":
        return SUM
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_reduction(size_average, reduce) -> str:
    """The reduction named by the deprecated ``size_average`` / ``reduce`` flags (warns)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}'"
                  " instead.", stacklevel=3)
    return ret


def reduction_code(size_average, reduce, reduction) -> int:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    return get_enum(reduction)


def apply_reduction(loss, code: int):
    """A composite's elementwise loss, reduced as aten's apply_loss_reduction."""
    if code == MEAN:
        return loss.mean()
    if code == SUM:
        return loss.sum()
    return loss


def warn_size(input, target) -> None:
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _broadcast(input, target):
    from .. import broadcast_tensors
    if input.shape == target.shape:
        return input, target
    return broadcast_tensors(input, target)


def clamp_min(x, value):
    """``x.clamp_min(value)`` recorded as torch's ClampMinBackward0 where that op exists."""
    if x.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    from .clamp_bound import clamp_min_scalar
    return clamp_min_scalar(x, value)


def add_scalar(x, value):
    """aten's C++ ``Tensor + Scalar`` (add.Scalar: AddBackward1 in the graph)."""
    if not x.dtype.is_floating_point:
        return x + float(value)
    try:
        from .normalization import _add_scalar
    except ImportError:   # pragma: no cover
        return x + value
    return _add_scalar(x, value)


@defop("sub.Scalar", node="SubBackward1", inputs=("self",), variants=(), scalars=())
def _sub_scalar(xp, self, other, alpha=1):
    """``Tensor - Scalar`` as torch's C++ composites call it (SubBackward1)."""
    return self - other * alpha


@_sub_scalar.backward
def _(ctx, grad):
    return grad


_sub_scalar.jvp(FROM_BACKWARD)


def sub_scalar(x, value):
    """aten's C++ ``Tensor - Scalar`` (SubBackward1 in the graph)."""
    if not x.dtype.is_floating_point:
        return x - float(value)
    return _sub_scalar(x, value)


@defop("mul.Scalar", node="MulBackward1", inputs=("self",), variants=(), scalars=())
def _mul_scalar(xp, self, other):
    """``Tensor * Scalar`` as torch's C++ composites call it (MulBackward1)."""
    return self * other


@_mul_scalar.backward
def _(ctx, grad):
    return grad * ctx.other


_mul_scalar.jvp(AUTO_LINEAR)


@defop("div.Scalar", node="DivBackward1", inputs=("self",), variants=(), scalars=())
def _div_scalar(xp, self, other):
    """``Tensor / Scalar`` as torch's C++ composites call it (DivBackward1)."""
    return self / other


@_div_scalar.backward
def _(ctx, grad):
    return grad / ctx.other


_div_scalar.jvp(AUTO_LINEAR)


def mul_scalar(x, value):
    """aten's C++ ``Tensor * Scalar`` (MulBackward1 in the graph)."""
    return _mul_scalar(x, value) if x.dtype.is_floating_point else x * float(value)


def div_scalar(x, value):
    """aten's C++ ``Tensor / Scalar`` (DivBackward1 in the graph)."""
    return _div_scalar(x, value) if x.dtype.is_floating_point else x / value


def scalar_minus(value, x):
    """aten's C++ ``Scalar - Tensor``: ``empty_like(x).fill_(value).sub_(x)``, in x's dtype."""
    from .. import empty_like
    return empty_like(x).fill_(value).sub_(x)


# -- kernel helpers ------------------------------------------------------------------------------
def _float_input(xp, x, kernel):
    """x in a float type to compute with (float32 for half), after torch's dtype check."""
    if x.dtype.kind not in "fV":
        raise _not_implemented(kernel, x.dtype)
    return x.astype(xp.float32) if x.dtype.itemsize < 4 else x


def _reduce(xp, loss, reduction, dtype):
    """The kernel's elementwise loss reduced by `reduction`, in `dtype`, contiguous."""
    if reduction == MEAN:
        with xp.errstate(invalid="ignore", divide="ignore"):
            loss = xp.sum(loss) / loss.size if loss.size else xp.asarray(xp.nan)
    elif reduction == SUM:
        loss = xp.sum(loss)
    return xp.asarray(xp.asarray(loss).astype(dtype), order="C")


def _per_element(ctx, grad):
    """The incoming gradient as a per-element factor: divided by the count for 'mean'."""
    if ctx.reduction == MEAN:
        n = 1
        for s in ctx.self_shape:
            n *= s
        return grad / n if n else grad
    return grad


def _grads(ctx, g):
    """(g, -g): the gradients of a loss of ``self - target``, each only where needed, laid out
    row-major: torch's kernels for them write into ``zeros_like(input, contiguous_format)``."""
    g = row_major(g)
    return (g if ctx.needs_input_grad[0] else None), (-g if ctx.needs_input_grad[1] else None)


# -- mse, smooth_l1, huber -----------------------------------------------------------------------
@defop("mse_loss", node="MseLossBackward0", inputs=("self", "target"), variants=(),
       saves=("self", "target"), pointwise=True)
def mse_loss_op(xp, self, target, reduction=MEAN):
    x = _float_input(xp, self, "mse_cpu")
    if x is not self:   # half/bfloat16: torch's kernel rounds the difference, then its square
        d = self - target.astype(self.dtype)
        return _reduce(xp, (d * d).astype(x.dtype), reduction, self.dtype)
    d = x - target.astype(x.dtype)
    return _reduce(xp, d * d, reduction, self.dtype)


@mse_loss_op.backward
def _(ctx, grad):
    self, target = ctx.saved_tensors
    return _grads(ctx, 2 * (self - target) * _per_element(ctx, grad))


mse_loss_op.jvp(AUTO_ELEMENT_WISE)


@defop("smooth_l1_loss", node="SmoothL1LossBackward0", inputs=("self", "target"), variants=(),
       saves=("self", "target"), pointwise=True)
def smooth_l1_loss_op(xp, self, target, reduction=MEAN, beta=1.0):
    x = _float_input(xp, self, "smooth_l1_cpu")
    z = xp.abs(x - target.astype(x.dtype))
    with xp.errstate(invalid="ignore", divide="ignore"):
        loss = xp.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)
    return _reduce(xp, loss, reduction, self.dtype)


@smooth_l1_loss_op.backward
def _(ctx, grad):
    self, target = ctx.saved_tensors
    return _grads(ctx, ((self - target) / ctx.beta).clamp(-1, 1) * _per_element(ctx, grad))


smooth_l1_loss_op.jvp(AUTO_ELEMENT_WISE)


@defop("huber_loss", node="HuberLossBackward0", inputs=("self", "target"), variants=(),
       saves=("self", "target"), pointwise=True)
def huber_loss_op(xp, self, target, reduction=MEAN, delta=1.0):
    x = _float_input(xp, self, "huber_cpu")
    z = xp.abs(x - target.astype(x.dtype))
    loss = xp.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    return _reduce(xp, loss, reduction, self.dtype)


@huber_loss_op.backward
def _(ctx, grad):
    self, target = ctx.saved_tensors
    return _grads(ctx, (self - target).clamp(-ctx.delta, ctx.delta) * _per_element(ctx, grad))


huber_loss_op.jvp(AUTO_ELEMENT_WISE)


@composite("nn.functional.mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error; a ``weight`` of the input's size weighs each element."""
    warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _broadcast(input, target)
    if weight is not None:
        return _weighted((input - target).pow(2), weight, reduction, sum_weight=True)
    return mse_loss_op(input, target, get_enum(reduction))


@composite("nn.functional.l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error (``abs(input - target)``, reduced)."""
    warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _broadcast(input, target)
    if weight is not None:
        return _weighted((input - target).abs(), weight, reduction, sum_weight=True)
    return apply_reduction((input - target).abs(), get_enum(reduction))


def _weighted(loss, weight, reduction, sum_weight):
    """The weighted forms of mse / l1 / huber loss, written by F in Python."""
    from .. import sum as _sum
    if weight.size() != loss.size():
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _sum(loss)
    if reduction == "mean":
        return _sum(loss) / _sum(weight) if sum_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


@composite("nn.functional.smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below ``beta``, linear above it (l1_loss for ``beta=0``)."""
    warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _broadcast(input, target)
    if beta == 0.0:
        return apply_reduction((input - target).abs(), get_enum(reduction))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return smooth_l1_loss_op(input, target, get_enum(reduction), beta)


@composite("nn.functional.huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic below ``delta``, ``delta``-sloped linear above it."""
    warn_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast(input, target)
    if weight is None:
        return huber_loss_op(input, target, get_enum(reduction), delta)
    return _weighted(huber_loss_op(input, target, NONE, delta), weight, reduction,
                     sum_weight=False)


# -- soft margin ---------------------------------------------------------------------------------
@defop("soft_margin_loss", node="SoftMarginLossBackward0", inputs=("self", "target"),
       variants=(), saves=("self", "target"), differentiable=("self",), pointwise=True,
       non_differentiable=("target",))
def soft_margin_loss_op(xp, self, target, reduction=MEAN):
    x = _float_input(xp, self, "soft_margin_loss")
    with xp.errstate(over="ignore"):
        loss = xp.log1p(xp.exp(-target.astype(x.dtype) * x))
    return _reduce(xp, loss, reduction, self.dtype)


@soft_margin_loss_op.backward
def _(ctx, grad):
    self, target = ctx.saved_tensors
    z = (-target * self).exp()
    return -target * z / (z + 1) * _per_element(ctx, grad)


soft_margin_loss_op.jvp(AUTO_ELEMENT_WISE)


@composite("nn.functional.soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, reduced (torch's kernel: overflows past ~88)."""
    code = reduction_code(size_average, reduce, reduction)
    check_tensors("soft_margin_loss", ("input", input), ("target", target))
    if input.dtype.is_floating_point:
        return soft_margin_loss_op(input, target, code)
    # integer/complex inputs: aten's composite and its errors; torch's op refuses to record
    # complex results
    result = apply_reduction((-input).mul_(target).exp_().add_(1.0).log_(), code)
    from .gather_scatter import no_complex_autograd
    no_complex_autograd("soft_margin_loss", result.dtype, input)
    return result


# -- binary cross entropy ------------------------------------------------------------------------
@defop("binary_cross_entropy", node="BinaryCrossEntropyBackward0",
       inputs=("self", "target", "weight"), variants=(), saves=("self", "target", "weight"),
       differentiable=("self", "target"), pointwise=True, non_differentiable=("weight",))
def binary_cross_entropy_op(xp, self, target, weight=None, reduction=MEAN):
    x = _float_input(xp, self, "binary_cross_entropy")
    t = target.astype(x.dtype)
    if not xp.all((x >= 0) & (x <= 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with xp.errstate(divide="ignore", invalid="ignore"):
        # Note [Clamped logs in binary_cross_entropy]: torch clamps each log at -100, so a
        # confident wrong prediction (x = 0, t = 1) costs 100 rather than inf.
        loss = (t - 1) * xp.maximum(xp.log1p(-x), -100) - t * xp.maximum(xp.log(x), -100)
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss, reduction, self.dtype)


@binary_cross_entropy_op.backward
def _(ctx, grad):
    self, target, weight = ctx.saved_tensors
    g = _per_element(ctx, grad)
    if weight is not None:
        g = g * weight
    gi = gt = None
    # torch's formulas start from the input (its kernel writes into empty_like(input)): the
    # gradients are laid out as the input (See Note [Output layout of pointwise ops])
    if ctx.needs_input_grad[0]:
        gi = (self - target) * g / ((1 - self) * self).clamp(min=1e-12)
    if ctx.needs_input_grad[1]:
        gt = ((-self).log1p() - self.log()) * g
    return gi, gt


binary_cross_entropy_op.jvp(AUTO_ELEMENT_WISE)


@composite("nn.functional.binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(t log x + (1 - t) log(1 - x))`` with each log clamped at -100, weighted, reduced."""
    code = reduction_code(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the same "
                         "size.")
    if weight is not None:
        from .. import broadcast_shapes
        weight = weight.expand(broadcast_shapes(target.size(), weight.size()))
    return binary_cross_entropy_op(input, target, weight, code)


def _log_sigmoid(x):
    return FUNCTIONS["nn.functional.logsigmoid"](x)


@defop("binary_cross_entropy_with_logits", node="BinaryCrossEntropyWithLogitsBackward0",
       inputs=("self", "target", "weight", "pos_weight"), variants=("function",),
       saves=("self", "target", "weight", "pos_weight"), differentiable=("self", "target"),
       non_differentiable=("weight", "pos_weight"))
def binary_cross_entropy_with_logits_op(xp, self, target, weight=None, pos_weight=None,
                                        reduction=MEAN):
    x = _float_input(xp, self, "log_sigmoid_cpu")
    t = target.astype(x.dtype)
    # log(sigmoid(x)) = -(max(-x, 0) + log1p(exp(-|x|))): finite for x = +-1000
    log_sig = -(xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x))))
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * t + 1)
    loss = (1 - t) * x - log_sig
    if weight is not None:
        loss = loss * weight
    if loss.shape != target.shape:   # torch multiplies in place by the weights
        raise RuntimeError(f"output with shape {shape_str(target.shape)} doesn't match the "
                           f"broadcast shape {shape_str(loss.shape)}")
    if reduction == NONE:   # torch's loss starts as (1 - target): it is laid out as the target
        return laid_out_like(loss.astype(self.dtype), target)
    return _reduce(xp, loss, reduction, self.dtype)


@binary_cross_entropy_with_logits_op.backward
def _(ctx, grad):
    self, target, weight, pos_weight = ctx.saved_tensors
    g = _per_element(ctx, grad)
    if weight is not None:
        g = g * weight
    gi = gt = None
    # the operands in torch's order, which lays the gradients out: pos_weight * target (or the
    # input) first; log_sigmoid's results are contiguous
    if ctx.needs_input_grad[0]:
        if pos_weight is not None:
            pt = pos_weight * target
            gi = ((pt + 1 - target) * self.sigmoid() - pt) * g
        else:
            gi = (self.sigmoid() - target) * g
    if ctx.needs_input_grad[1]:
        if pos_weight is not None:
            gt = (_log_sigmoid(-self) - _log_sigmoid(self) * pos_weight) * g
        else:
            gt = -self * g
    return gi, gt


binary_cross_entropy_with_logits_op.jvp(FROM_BACKWARD)


@composite("nn.functional.binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)``, computed stably from the logits."""
    code = reduction_code(size_average, reduce, reduction)
    if not target.size() == input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return binary_cross_entropy_with_logits_op(input, target, weight, pos_weight, code)


# -- kl_div, poisson_nll -------------------------------------------------------------------------
def _kl_div(input, target, reduction=MEAN, log_target=False):
    """torch.kl_div (aten's composite): ``t * (log t - input)``, 0 where t = 0."""
    for t in (input, target):
        if t.dtype.is_complex:
            raise RuntimeError("kl_div: Complex inputs not supported.")
        if not t.dtype.is_floating_point:
            raise RuntimeError("kl_div: Integral inputs not supported.")
    # aten's compiled composite evaluates the right operand first: so does this, as the order
    # of the nodes decides the order in which backward adds the gradients of `target` (and
    # with it their layout)
    if log_target:
        diff = target - input
        out = target.exp() * diff
    else:
        product = target * input
        out = target.xlogy(target) - product
    return apply_reduction(out, reduction)


FUNCTIONS["kl_div"] = _kl_div


@composite("nn.functional.kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence of ``target`` from ``input`` (log-probabilities)."""
    if size_average is not None or reduce is not None:
        code = get_enum(legacy_reduction(size_average, reduce))
    else:
        if reduction == "mean":
            warn_at_caller("reduction: 'mean' divides the total loss by both the batch size "
                           "and the support size.'batchmean' divides only by the batch size, and "
                           "aligns with the KL div math definition.'mean' will be changed to "
                           "behave the same as 'batchmean' in the next major release.")
        code = SUM if reduction == "batchmean" else get_enum(reduction)
    check_tensors("kl_div", ("input", input), ("target", target))
    out = _kl_div(input, target, code, log_target)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def _poisson_nll_loss(input, target, log_input, full, eps, reduction):
    if log_input:
        product = target * input   # first, as aten's compiled composite (see _kl_div)
        loss = input.exp() - product
    else:
        loss = input - target * add_scalar(input, eps).log()
    if full:
        two_pi_t = mul_scalar(target, 2 * 3.141592653589793)
        stirling = target * target.log() - target + mul_scalar(two_pi_t.log(), 0.5)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return apply_reduction(loss, reduction)


FUNCTIONS["poisson_nll_loss"] = _poisson_nll_loss


@composite("nn.functional.poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log likelihood (``exp(input) - target * input`` for log inputs)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    code = get_enum(reduction)
    check_tensors("poisson_nll_loss", ("input", input), ("target", target))
    return _poisson_nll_loss(input, target, log_input, full, eps, code)


# -- margin losses -------------------------------------------------------------------------------
def _margin_ranking_loss(input1, input2, target, margin=0.0, reduction=MEAN):
    diff = input1 - input2
    return apply_reduction(clamp_min(add_scalar(-target * diff, margin), 0), reduction)


FUNCTIONS["margin_ranking_loss"] = _margin_ranking_loss


@composite("nn.functional.margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, reduced."""
    code = reduction_code(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return _margin_ranking_loss(input1, input2, target, margin, code)


def _hinge_embedding_loss(self, target, margin=1.0, reduction=MEAN):
    from .. import where, zeros_like
    zeros = zeros_like(self)
    margin_clamp = clamp_min(scalar_minus(margin, self), 0)
    out = where(target != 1, margin_clamp, zeros) + where(target != -1, self, zeros)
    return apply_reduction(out, reduction)


FUNCTIONS["hinge_embedding_loss"] = _hinge_embedding_loss


@composite("nn.functional.hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1, reduced."""
    code = reduction_code(size_average, reduce, reduction)
    check_tensors("hinge_embedding_loss", ("input", input), ("target", target))
    return _hinge_embedding_loss(input, target, margin, code)


def _cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=MEAN):
    from .. import where, zeros_like
    d = target.dim()
    if d not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if d == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if d == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    prod = (input1 * input2).sum(d)
    mag1 = add_scalar((input1 * input1).sum(d), eps)
    mag2 = add_scalar((input2 * input2).sum(d), eps)
    cos = prod / (mag1 * mag2).sqrt()
    zeros = zeros_like(cos)
    neg = clamp_min(sub_scalar(cos, margin), 0)
    out = where(target == 1, scalar_minus(1, cos), zeros) + where(target == -1, neg, zeros)
    return apply_reduction(out, reduction)


FUNCTIONS["cosine_embedding_loss"] = _cosine_embedding_loss


@composite("nn.functional.cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos`` for target 1, ``max(0, cos - margin)`` for target -1, reduced."""
    code = reduction_code(size_average, reduce, reduction)
    check_tensors("cosine_embedding_loss", ("input1", input1), ("input2", input2),
                  ("target", target))
    return _cosine_embedding_loss(input1, input2, target, margin, code)
