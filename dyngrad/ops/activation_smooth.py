"""Activation functions, the smooth ones: elu, selu, celu, sigmoid (``special.expit``), logit,
logsigmoid, softplus, silu, mish, gelu, glu, softsign, tanhshrink and ``F.tanh``, in their
``torch.nn.functional`` forms (with ``inplace=`` where torch has it) and the ``torch.*`` /
``Tensor`` forms torch also has. The piecewise ones and the helpers both modules share are in
activation.py (see Note [Activation nodes] there).

Note [Logistic functions as torch computes them]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
sigmoid (and glu's gate) is torch's 1 / (1 + exp(-x)) and silu its x / (1 + exp(-x)): four
passes of NumPy's vectorised ufuncs, in place where they can (a (64, 256) float32 sigmoid 73 ->
15 us; the exp(-|x|) form below took seven). Where exp(-x) overflows to inf (x below -88 in
float32) the result is 0 exactly, as torch's: float32 sigmoid(-100) is 0 in both, not the
3.8e-44 the exp(-|x|) form gave. The error state hides the overflow's warning, which a thread
(where NumPy's warnings stay on) would otherwise see; torch warns nothing.

Note [Stable logistic functions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
logsigmoid and mish are computed from e = exp(-|x|) <= 1, which never overflows:
log(1 + exp(x)) = max(x, 0) + log1p(e). At
±1000 nothing overflows, no warning is raised and nothing is NaN. softplus keeps torch's own
formula, log1p(exp(beta x)) / beta below its threshold (stable for the default threshold 20).
In mish's derivative tanh(softplus(x)) and 1 - tanh(softplus(x))^2 are rational functions of
exp(min(x, 0)) and exp(-max(x, 0)), both <= 1 (see there).

Where torch's first derivative takes one branch at a kink but its second derivative counts the
open interval only (elu at 0, softplus at its threshold), the formula reads the input through
where(inside, x, x.detach()): the same value, a gradient only inside.
"""
from __future__ import annotations

import math

from .._utils import canonical_dim
from .._promotion import Promote
from ._autograd_utils import arrays_only, backward_op, conj, contiguous, from_array, row_major
from ..autograd.grad_mode import is_grad_enabled
from ._registry import FUNCTIONS, defop
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, FROM_BACKWARD, fw_not_implemented
from .activation import (_PW, _contiguous, _floating_only, _inplace, _like, _negative_slope_error,
                         _opmath, _unlisted, _with_inplace, publish, xp)
from .pointwise import _not_implemented, _require_tensor, exp, where_self

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_SQRT1_2 = math.sqrt(0.5)
_GELU_BETA = math.sqrt(2.0 / math.pi)     # tanh approximation: tanh(beta * (x + kappa x^3))
_GELU_KAPPA = 0.044715
_RSQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _cat(tensors, dim):
    """torch.cat (ops/join.py), or view_backward's backward-only cat where join is missing."""
    fn = FUNCTIONS.get("cat")
    if fn is None:
        from .view_backward import cat as fn
    return fn(tensors, dim)


def _logistic(x):
    """sigmoid(x) as torch computes it, ``1 / (1 + exp(-x))``. See Note [Logistic functions
    as torch computes them]."""
    with xp.errstate(over="ignore"):
        e = xp.exp(-x)
    e += 1
    return xp.reciprocal(e, out=e) if type(e) is xp.ndarray else 1 / e


def _log1p_exp(x):
    """log(1 + exp(x)) without overflow. See Note [Stable logistic functions]."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


def _gelu_prime(xp, x, approximate):
    """d gelu / dx on arrays (float64 for the erf form)."""
    if approximate == "tanh":
        inner = _GELU_BETA * (x + _GELU_KAPPA * x * x * x)
        t = xp.tanh(inner)
        d_inner = _GELU_BETA * (1 + 3 * _GELU_KAPPA * x * x)
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner
    from ..backends.special_math import erf
    return 0.5 * (1 + erf(x * _SQRT1_2)) + x * _RSQRT_2PI * xp.exp(-0.5 * x * x)


@_unlisted
@defop("gelu_backward", node="GeluBackwardBackward0", inputs=("grad_output", "self"),
       saves=("grad_output", "self"), **_PW)
def gelu_backward(xp, grad_output, self, *, approximate="none"):
    with xp.errstate(invalid="ignore", over="ignore"):
        return _like(_opmath(grad_output) * _gelu_prime(xp, _opmath(self), approximate),
                     grad_output)


@gelu_backward.backward
def _(ctx, grad):
    grad_output, self = ctx.saved_tensors
    need_grad, need_self = ctx.needs_input_grad
    return (gelu_backward(grad, self, approximate=ctx.approximate) if need_grad else None,
            grad * grad_output * _gelu_second(self, ctx.approximate) if need_self else None)


gelu_backward.jvp(AUTO_ELEMENT_WISE)   # (torch's gelu_backward + gelu_double_backward terms)


def _gelu_second(x, approximate):
    """d^2 gelu / dx^2 with dyngrad ops (differentiable again)."""
    if approximate == "tanh":
        # tanh(u) = 2 s - 1 and 1 - tanh(u)^2 = 4 s (1 - s), with s = sigmoid(2u)
        u = _GELU_BETA * (x + _GELU_KAPPA * x * x * x)
        s = sigmoid(2 * u)
        du = _GELU_BETA * (1 + 3 * _GELU_KAPPA * x * x)
        return 4 * s * (1 - s) * (du - x * (2 * s - 1) * du * du
                                  + 3 * _GELU_BETA * _GELU_KAPPA * x * x)
    return _RSQRT_2PI * exp(-0.5 * x * x) * (2 - x * x)


# -- elu, selu, celu -------------------------------------------------------------------------------
def _elu(self, alpha, scale, input_scale):
    x = _opmath(self)
    negative = xp.expm1(xp.minimum(x, 0) * input_scale) * (alpha * scale)
    return _like(xp.where(x > 0, x * scale, negative), self)


def _strictly_negative(x):
    """`x`, differentiable only where x < 0: torch's second derivatives of elu count x < 0
    while its first derivative takes the exponential branch at 0 too."""
    return where_self(x < 0, x, x.detach())


# Note [Gradient first]
# ~~~~~~~~~~~~~~~~~~~~
# torch's elu_backward and softplus_backward kernels take grad_output before the input, so where
# their layouts differ the gradient is laid out as the incoming one (See Note [Output layout of
# pointwise ops]). A where() on the input would follow the input: these formulas multiply the
# gradient by a factor chosen by where() instead, the gradient first. (Where the factor is 0,
# exp having underflowed, torch's kernel multiplies by 0 too.)
def _elu_grad(grad, x, alpha, scale, input_scale):
    """elu's derivative from the input; exp of min(x, 0) so the other branch stays finite."""
    below = _strictly_negative(x).clamp(max=0)
    negative = (input_scale * alpha * scale) * exp(below * input_scale)
    return grad * where_self(x > 0, scale, negative)   # See Note [Gradient first]


def _elu_grad_from_result(grad, result, alpha, scale, input_scale):
    if alpha < 0:
        raise _negative_slope_error("elu")
    negative = input_scale * (_strictly_negative(result) + alpha * scale)
    return grad * where_self(result > 0, scale, negative)   # See Note [Gradient first]


@defop("elu", node="EluBackward0", saves=("self",), **_PW)
def elu_op(xp, self, alpha=1, scale=1, input_scale=1):
    _floating_only(self, "elu_cpu")
    return _elu(self, alpha, scale, input_scale)


@elu_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return _elu_grad(grad, self, ctx.alpha, ctx.scale, ctx.input_scale)


elu_op.jvp(AUTO_ELEMENT_WISE)


@_unlisted
@defop("elu_", node="EluBackward1", saves=("result",), **_PW)
def elu_inplace(xp, self, alpha=1, scale=1, input_scale=1):
    _floating_only(self, "elu_cpu")
    return _elu(self, alpha, scale, input_scale)


@elu_inplace.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return _elu_grad_from_result(grad, result, ctx.alpha, ctx.scale, ctx.input_scale)


# the in-place forms' tangents come from the result, as their gradients (and as torch's)
elu_inplace.jvp(AUTO_ELEMENT_WISE)


def _celu_kernel(xp, self, alpha=1.0):
    _floating_only(self, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu(self, alpha, 1, 1.0 / alpha)


celu_op = defop("celu", node="CeluBackward0", saves=("self",), **_PW)(_celu_kernel)
celu_inplace = _unlisted(defop("celu_", node="CeluBackward1", saves=("result",),
                               **_PW)(_celu_kernel))


@celu_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return _elu_grad(grad, self, ctx.alpha, 1, 1.0 / ctx.alpha)


celu_op.jvp(AUTO_ELEMENT_WISE)


@celu_inplace.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return _elu_grad_from_result(grad, result, ctx.alpha, 1, 1.0 / ctx.alpha)


celu_inplace.jvp(AUTO_ELEMENT_WISE)


# -- the logistic family: sigmoid, logit, logsigmoid, softplus, silu, mish -------------------------
@defop("sigmoid", node="SigmoidBackward0", promote=Promote.INT_TO_FLOAT,
       variants=("function", "method", "inplace", "out"), saves=("result",), scalars=(),
       pointwise=True)
def sigmoid(xp, self):
    if self.dtype.kind == "c":
        with xp.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return 1 / (1 + xp.exp(-self))
    return _like(_logistic(_opmath(self)), self)


@sigmoid.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return sigmoid_backward(grad, result)


# see Note [tanh and sigmoid backward are ops] in unary.py
@defop("sigmoid_backward", node="SigmoidBackwardBackward0", inputs=("grad_output", "output"),
       saves=("grad_output", "output"), **_PW)
def sigmoid_backward(xp, grad_output, output):
    y = _opmath(output)
    if y.dtype.kind == "c":   # Note [Complex gradients] (_autograd_utils.py): conjugated
        return grad_output * xp.conj((1 - y) * y)
    return _like(_opmath(grad_output) * (1 - y) * y, output)


@sigmoid_backward.backward
def _(ctx, grad):
    grad_output, output = ctx.saved_tensors
    need_grad, need_output = ctx.needs_input_grad
    return (sigmoid_backward(grad, conj(output)) if need_grad else None,
            conj(grad) * grad_output * (-2 * conj(output) + 1) if need_output else None)


@sigmoid_backward.jvp
def _(ctx, grad_output_t, output_t):
    # as tanh_backward's (unary.py): conj(output_t) in the output's term, torch's formula
    grad_output, output = ctx.primals
    return sigmoid_backward(grad_output_t, output) + \
        conj(output_t) * grad_output * (-2 * conj(output) + 1)


_unlisted(sigmoid_backward)


sigmoid.jvp(AUTO_ELEMENT_WISE)


@defop("logit", node="LogitBackward0", promote=Promote.INT_TO_FLOAT,
       variants=("function", "method", "inplace", "out"), saves=("self",), scalars=(),
       pointwise=True)
def logit(xp, self, eps=None):
    if self.dtype.kind == "c":
        raise _not_implemented("logit_cpu", self.dtype)
    x = _opmath(self)
    if eps is not None and eps >= 0:
        x = xp.clip(x, eps, 1 - eps)
    with xp.errstate(divide="ignore", invalid="ignore"):
        return _like(xp.log(x / (1 - x)), self)


@logit.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    eps = ctx.eps
    if not is_grad_enabled():
        # as torch: its logit_backward kernel, which lays the gradient out as the incoming one
        return backward_op(logit_backward, grad, self, eps)
    # torch's infinitely differentiable form under create_graph: where(inside, grad / (x (1 -
    # x)), 0 or NaN), laid out as the input (a negative eps bounds it too, unlike the kernel)
    lo, hi, outside = (0.0, 1.0, math.nan) if eps is None else (eps, 1.0 - eps, 0.0)
    return where_self((self >= lo) & (self <= hi), grad / (self * (1 - self)), outside)


@_unlisted
@defop("logit_backward", node="LogitBackwardBackward0", inputs=("grad_output", "self"),
       **_PW)
def logit_backward(xp, grad_output, self, eps=None):
    """logit's derivative where nothing is recorded (a backward without create_graph)."""
    lo, hi = (0.0, 1.0) if eps is None or eps < 0 else (eps, 1.0 - eps)
    outside = 0.0 if eps is not None and eps >= 0 else math.nan
    with xp.errstate(divide="ignore", invalid="ignore"):
        inside = grad_output / (self * (1 - self))   # (half floats: in half, as torch's)
    return xp.where((self >= lo) & (self <= hi), inside, outside).astype(grad_output.dtype,
                                                                         copy=False)


logit_backward.jvp(fw_not_implemented("aten::logit_backward", short=True))


@logit.jvp
def _(ctx, self_t):   # torch's: a negative eps drops the NaN mask (finite outside [0, 1])
    if ctx.eps is not None and ctx.eps < 0:
        self, = ctx.saved_tensors
        return self_t / (self * (1 - self))
    return AUTO_ELEMENT_WISE(ctx, self_t)


# torch's log_sigmoid_forward allocates its output contiguous, whatever the input's layout
@defop("log_sigmoid", node="LogSigmoidBackward0", variants=("function", "out"), saves=("self",),
       scalars=(), public="nn.functional.logsigmoid")
def log_sigmoid(xp, self):
    _floating_only(self, "log_sigmoid_cpu")
    return _contiguous(_like(-_log1p_exp(-_opmath(self)), self))


@log_sigmoid.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * sigmoid(-self)


log_sigmoid.jvp(FROM_BACKWARD)


def _log_sigmoid_buffer(node):
    """torch's CPU kernel also saves exp(-|x|) (``_saved_buffer``); recomputed on access."""
    return (-node._saved_self.detach().abs()).exp()


log_sigmoid.node_cls._saved_buffer = property(_log_sigmoid_buffer)


@defop("softplus", node="SoftplusBackward0", variants=("function", "out"), saves=("self",),
       scalars=(), pointwise=True, public="nn.functional.softplus")
def softplus(xp, self, beta=1, threshold=20):
    _floating_only(self, "softplus_cpu")
    # torch's formula, overflow included: log1p(exp(x beta)) is inf where x beta exceeds exp's
    # range but not `threshold` (only when threshold is raised past 88 / 709)
    x = _opmath(self)
    scaled = x * beta
    with xp.errstate(over="ignore", divide="ignore", invalid="ignore"):
        soft = xp.log1p(xp.exp(xp.minimum(scaled, threshold))) / beta
    return _like(xp.where(scaled > threshold, x, soft), self)


@softplus.backward
def _(ctx, grad):
    # the identity above the threshold; the second derivative counts x beta < threshold only,
    # as torch's. Differences from torch: where exp(x beta) overflows below a raised threshold,
    # the gradient is sigmoid(x beta) (1), not torch's inf / inf (NaN).
    self, = ctx.saved_tensors
    scaled = self * ctx.beta
    below = where_self(scaled < ctx.threshold, scaled, scaled.detach())
    # See Note [Gradient first]
    return grad * where_self(scaled > ctx.threshold, 1.0, sigmoid(below))


softplus.jvp(AUTO_ELEMENT_WISE)


@defop("silu", node="SiluBackward0", saves=("self",), **_PW)
def silu_op(xp, self):
    if self.dtype.kind == "c":
        with xp.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self / (1 + xp.exp(-self))
    _floating_only(self, "silu_cpu")
    x = _opmath(self)
    # torch's x / (1 + exp(-x)) (Note [Logistic functions as torch computes them]): -inf
    # gives -inf / inf, NaN, as in torch
    with xp.errstate(over="ignore", invalid="ignore"):
        e = xp.exp(-x)
        e += 1
        return _like(xp.divide(x, e, out=e) if type(e) is xp.ndarray else x / e, self)


@silu_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    if arrays_only(grad, self) and contiguous(grad, self):
        # Note [Array formulas]: the kernels of the ops below, in their order, on the arrays
        x = self._data
        s = sigmoid.kernel(xp, x)
        return from_array(grad._data * (s * (1 + x * (1 - s))))
    s = sigmoid(self)
    return grad * (s * (1 + self * (1 - s)))


silu_op.jvp(AUTO_ELEMENT_WISE)


@defop("mish", node="MishBackward0", saves=("self",), **_PW)
def mish_op(xp, self):
    _floating_only(self, "mish_cpu")
    x = _opmath(self)
    with xp.errstate(invalid="ignore"):
        return _like(x * xp.tanh(_log1p_exp(x)), self)


@mish_op.backward
def _(ctx, grad):
    # mish' = tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2), sp = softplus(x). With e = exp(x):
    # tanh(sp) = e (e + 2) / (e (e + 2) + 2) and 1 - tanh(sp)^2 = 4 (e + 1)^2 / (e^2 + 2e + 2)^2;
    # above 0 the same in n = exp(-x). Both exponents are <= 0: nothing overflows, and at +inf
    # 1 - tanh^2 is 0, so x * 0 is NaN there as in torch.
    self, = ctx.saved_tensors
    e = exp(self.clamp(max=0))
    n = exp(-self.clamp(min=0))
    low = e * (e + 2) + 2
    high = 1 + 2 * n + 2 * n * n
    below = self <= 0
    tanh_sp = where_self(below, e * (e + 2) / low, (1 + 2 * n) / high)
    sech2_sp = where_self(below, 4 * (e + 1) * (e + 1) / (low * low),
                          4 * n * n * (1 + n) * (1 + n) / (high * high))
    return grad * (tanh_sp + self * sigmoid(self) * sech2_sp)


mish_op.jvp(AUTO_ELEMENT_WISE)


# -- gelu, glu -------------------------------------------------------------------------------------
@defop("gelu", node="GeluBackward0", saves=("self",), **_PW)
def gelu(xp, self, *, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating_only(self, "GeluKernelImpl")
    x = _opmath(self)
    with xp.errstate(invalid="ignore", over="ignore"):
        if approximate == "tanh":
            y = 0.5 * x * (1 + xp.tanh(_GELU_BETA * (x + _GELU_KAPPA * x * x * x)))
        else:
            from ..backends.special_math import erf
            y = x * (0.5 * (1 + erf(x * _SQRT1_2)))
    return _like(y, self)


@gelu.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return gelu_backward(grad, self, approximate=ctx.approximate)


gelu.jvp(AUTO_ELEMENT_WISE)


@defop("glu", node="GluBackward0", saves=("self",), variants=(), scalars=())
def glu_op(xp, self, dim=-1):
    _floating_only(self, "glu_cpu")
    d = canonical_dim(dim, self.ndim)
    if self.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{self.shape[d]}")
    a, b = xp.split(_opmath(self), 2, axis=d)
    return _like(a * _logistic(b), self)


@glu_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    d = canonical_dim(ctx.dim, self.ndim)
    half = self.shape[d] // 2
    a, b = self.narrow(d, 0, half), self.narrow(d, half, half)
    s = sigmoid(b)
    grad_a = grad * s
    # torch's glu_backward writes into a contiguous buffer, whatever the layouts
    return row_major(_cat([grad_a, grad_a * a * (1 - s)], d))


glu_op.jvp(FROM_BACKWARD)


# ---------------------------------------------------------------------------------------------
# Public forms: torch.*, Tensor methods, torch.nn.functional.* (signatures as torch's)
# ---------------------------------------------------------------------------------------------
def elu(input, alpha: float = 1.0, inplace: bool = False):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``."""
    if inplace:
        return elu_(input, alpha)
    _require_tensor("elu", input)
    return elu_op(input, alpha)


def elu_(input, alpha: float = 1.0):
    """In-place elu (``EluBackward1``: a negative alpha has no backward)."""
    return _inplace("elu_", elu_inplace, input, alpha)


def selu(input, inplace: bool = False):
    """Scaled elu with torch's constants (``EluBackward0``)."""
    if inplace:
        return selu_(input)
    _require_tensor("selu", input)
    return elu_op(input, SELU_ALPHA, SELU_SCALE)


def selu_(input):
    """In-place selu (``EluBackward1``)."""
    return _inplace("selu_", elu_inplace, input, SELU_ALPHA, SELU_SCALE)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if inplace:
        return celu_(input, alpha)
    _require_tensor("celu", input)
    return celu_op(input, alpha)


def celu_(input, alpha: float = 1.0):
    """In-place celu (``CeluBackward1``)."""
    return _inplace("celu_", celu_inplace, input, alpha)


def sigmoid_(input):
    """In-place sigmoid."""
    return _inplace("sigmoid_", sigmoid, input)


def F_sigmoid(input):
    """``input.sigmoid()``, as torch's F.sigmoid."""
    return input.sigmoid()


def logit_(input, eps=None):
    """In-place logit."""
    return _inplace("logit_", logit, input, eps)


def softsign(input):
    """x / (1 + |x|), recorded as torch does (DivBackward0 over AddBackward0 over AbsBackward0)."""
    return input / (input.abs() + 1)


def F_tanh(input):
    """``input.tanh()``, as torch's F.tanh."""
    return input.tanh()


def tanhshrink(input):
    """x - tanh(x), recorded as torch does (SubBackward0)."""
    return input - input.tanh()


def glu(input, dim: int = -1):
    """a * sigmoid(b), where a and b are the halves of ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return glu_op(input, dim)


def F_gelu(input, *, approximate: str = "none", out=None):
    """x * Phi(x) (``approximate="tanh"``: torch's tanh approximation)."""
    if out is None:
        return gelu(input, approximate=approximate)
    return gelu(input, approximate=approximate, out=out)


def silu(input, inplace: bool = False):
    """x * sigmoid(x)."""
    if inplace:
        return _inplace("silu_", silu_op, input)
    result = silu_op(input)
    if result._data.dtype.kind == "c":   # torch differentiates no complex silu
        from .gather_scatter import no_complex_autograd
        no_complex_autograd("silu", result.dtype, input)
    return result
mish = _with_inplace("mish", mish_op, "x * tanh(softplus(x)).")

publish(
    {"selu": selu, "selu_": selu_, "celu": celu, "celu_": celu_, "sigmoid_": sigmoid_,
     "logit_": logit_, "special.expit": sigmoid, "special.logit": logit},
    {"elu": elu, "elu_": elu_, "selu": selu, "selu_": selu_, "celu": celu, "celu_": celu_,
     "gelu": F_gelu, "silu": silu, "mish": mish, "sigmoid": F_sigmoid, "tanh": F_tanh,
     "softsign": softsign, "tanhshrink": tanhshrink, "glu": glu})
