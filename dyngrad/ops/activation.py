"""Activation functions, the piecewise ones: relu, relu6/hardtanh, threshold, leaky_relu,
rrelu, hardsigmoid, hardswish, hardshrink, softshrink and prelu, in their ``torch.nn.functional``
forms (with ``inplace=`` where torch has it) and the ``torch.*`` / ``Tensor`` forms torch also has
(``torch.relu_``, ``Tensor.hardshrink``, ``torch.threshold_``…). The smooth ones (elu, sigmoid,
softplus, gelu…) are in activation_smooth.py, which shares this module's helpers.

Forward kernels take backend arrays (``xp``); float16 computes in float32, torch's "opmath"
type, and is cast back. Derivatives are written with dyngrad ops, so double backward works, and
keep torch's conventions at the kinks: relu'(0) = 0, leaky_relu takes the negative slope at 0,
hardtanh passes the gradient strictly inside (min, max) only, threshold compares with <=, the
shrink functions pass it strictly outside [-lambd, lambd]. At NaN they follow torch's vectorised
CPU loops (every tensor of 16+ float32 elements takes them; torch's scalar tail sometimes
differs): hardtanh'(NaN) = 0, hardshrink'(NaN) = 0, hardswish'(NaN) = NaN.

Note [Activation nodes]
~~~~~~~~~~~~~~~~~~~~~~~
torch records one node per activation (``EluBackward0``) and, for some in-place forms, a second
one whose formula reads the result instead of the input (``leaky_relu_`` → LeakyReluBackward1,
``elu_``/``selu_`` → EluBackward1, ``celu_``, ``threshold_``, ``rrelu_``). Those are primitives
of their own here, reached only through their in-place functions (no OpInfo can call them
without mutating its sample: tests/test_activation.py checks them against torch). relu6 is
hardtanh(0, 6) and selu is elu with fixed constants, as in torch; softsign and tanhshrink are
compositions. Where torch's first derivative is itself an op whose own derivative is zero for
``self`` (``threshold_backward`` for relu, ``hardtanh_backward``, ``_prelu_kernel_backward``…),
it is a backward-only primitive here too: a where() on ``self`` would leave ``self`` without a
gradient at second order, where torch gives zeros. ``hardswish_backward`` is one as well, so that
its result is laid out as torch's kernel lays it out (the incoming gradient first, where a
where() on ``self`` would follow ``self``). ``hardsigmoid_backward`` has no derivative in
torch: its node is ``NotImplemented``.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from ..backends import numpy_backend as _npb
from . import _dispatch
from ._registry import FUNCTIONS, METHODS, OPS, defop
from ._autograd_utils import backward_op
from ._geometry import _memory_formats
from ..autograd.forward_ad import (AUTO_ELEMENT_WISE, FROM_BACKWARD, LINEAR_IN_GRAD_OUTPUT,
                                   fw_not_implemented)
from .creation import empty_like, zeros_like
from . import random_streams as _rs
from .pointwise import _call, _not_implemented, _require_tensor, _tensor_cls, where_self
from .random import numpy_generator as _gen
from ._arg_parser import type_name as _tp_name

xp = _npb.xp

_ONE_SIXTH = float(xp.float32(1) / xp.float32(6))   # torch's hardsigmoid_backward: 1.0f / 6.0f
_PW = dict(variants=(), scalars=(), pointwise=True)   # a pointwise primitive without variants


def _unlisted(spec):
    """Keep a primitive out of ``OPS`` (the table of ops the op database must reach): the
    backward-only ones, and those reached only through an in-place function such as
    ``F.leaky_relu_``, which no OpInfo can call without mutating its sample (see Note
    [Activation nodes]; tests/test_activation.py checks them against torch)."""
    if OPS.get(spec.name) is spec:
        del OPS[spec.name]
    return spec


# -- kernel helpers --------------------------------------------------------------------------------
def _opmath(x):
    """float16 computes in float32, as torch's CPU kernels do (see `_like`)."""
    return x.astype(xp.float32) if x.dtype in _npb.LOW else x


def _like(result, x):
    """`result` (computed in float32 or float64) back in the dtype of the kernel's input."""
    return result if result.dtype == x.dtype else result.astype(x.dtype)


def _contiguous(result):
    """`result` laid out row-major (for ops whose output torch allocates contiguous)."""
    return result if result.flags.c_contiguous else result.copy(order="C")


def _floating_only(x, kernel_name):
    if x.dtype.kind not in "fV":
        raise _not_implemented(kernel_name, x.dtype)


_CTYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
           "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
           "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}


def _checked(value, np_dtype):
    """A Python number converted to `np_dtype` as c10::checked_convert does, or its error."""
    name = xp.dtype(np_dtype).name
    error = RuntimeError(f"value cannot be converted to type {_CTYPES[name]} without overflow")
    if xp.dtype(np_dtype).kind in "fV":
        if math.isfinite(value) and abs(value) > _npb.finfo(np_dtype).max:
            raise error
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise error
    info = xp.iinfo(np_dtype)
    if info.min == 0:     # unsigned: c10 lets negative values down to -max through (they wrap)
        if value > info.max or -value > info.max:
            raise error
        return int(value) % (info.max + 1)
    if not info.min <= value <= info.max:
        raise error
    return int(value)


def _opmath_dtype(np_dtype):
    return xp.dtype(xp.float32) if np_dtype in _npb.LOW else np_dtype


def _leaky(x, slope, kernel_name):
    _floating_only(x, kernel_name)
    if x.dtype == xp.float16 and type(slope) in (int, float):
        # torch's kernel takes the slope in float32 for float16, as for bfloat16 (where
        # ml_dtypes' type computes in float32 already); the result is rounded once
        return xp.where(x > 0, x, x * xp.float32(slope)).astype(x.dtype)
    return xp.where(x > 0, x, x * slope)


def _negative_slope_error(name, extra=""):
    return RuntimeError(f"In-place {name} backward calculation is triggered with a negative slope "
                        "which is not supported. This is caused by calling in-place forward "
                        "function with a negative slope, please call out-of-place version "
                        f"instead.{extra}")


_LEAKY_EXTRA = (" File an issue at https://github.com/pytorch/pytorch if you do require "
                "supporting in-place leakRelu backward calculation with negative slope")


# -- backward-only primitives (see Note [Activation nodes]) ----------------------------------------
def _masked_backward(name, node):
    """A backward-only op ``op(grad_output, self, *args)`` that is linear in ``grad_output``:
    its derivative is the op again for ``grad_output`` and zeros for ``self``, as torch's, and
    its tangent the op on ``grad_output``'s tangent (``self`` is a mask: its tangent is unused)."""
    def deco(kernel):
        spec = _unlisted(defop(name, node=node, inputs=("grad_output", "self"),
                               saves=("self",), **_PW)(kernel))
        spec.jvp(LINEAR_IN_GRAD_OUTPUT)

        @spec.backward
        def _(ctx, grad):
            self, = ctx.saved_tensors
            need_grad, need_self = ctx.needs_input_grad
            return (spec(grad, self, *ctx._args) if need_grad else None,
                    zeros_like(grad) if need_self else None)
        return spec
    return deco


@_masked_backward("threshold_backward", "ThresholdBackwardBackward0")
def threshold_backward(xp, grad_output, self, threshold):
    return _npb.zero_where(self <= threshold, grad_output)    # NaN in self keeps the grad


@threshold_backward.jvp
def _(ctx, grad_output_t, self_t):
    # unlike the other masks, torch's formula adds zeros_like(self_t): a tangent on self alone
    # gives a zero tangent, not none
    return threshold_backward(grad_output_t, ctx.primals[1], ctx.threshold)


@_masked_backward("hardtanh_backward", "HardtanhBackwardBackward0")
def hardtanh_backward(xp, grad_output, self, min_val, max_val):
    return _npb.keep_where((self > min_val) & (self < max_val), grad_output)


@_masked_backward("leaky_relu_backward", "LeakyReluBackwardBackward0")
def leaky_relu_backward(xp, grad_output, self, negative_slope):
    return xp.where(self > 0, grad_output, grad_output * negative_slope)


# torch's kernels for these two take self before grad_output: where the layouts differ, the
# gradient is laid out as the input (See Note [Output layout of pointwise ops])
threshold_backward.layout_reversed = leaky_relu_backward.layout_reversed = True


@_masked_backward("hardshrink_backward", "HardshrinkBackwardBackward0")
def hardshrink_backward(xp, grad_output, self, lambd):
    return xp.where((self < -lambd) | (self > lambd), grad_output, 0)


@_masked_backward("softshrink_backward", "SoftshrinkBackwardBackward0")
def softshrink_backward(xp, grad_output, self, lambd):
    return xp.where((self < -lambd) | (self > lambd), grad_output, 0)


@_unlisted
@defop("hardsigmoid_backward", node="NotImplemented", inputs=("grad_output", "self"), **_PW)
def hardsigmoid_backward(xp, grad_output, self):
    return xp.where((self > -3) & (self < 3), grad_output * _ONE_SIXTH, 0)


@hardsigmoid_backward.backward
def _(ctx, grad):
    raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


hardsigmoid_backward.jvp(fw_not_implemented("aten::hardsigmoid_backward", short=True))


# -- relu, hardtanh (relu6), threshold -------------------------------------------------------------
@defop("relu", node="ReluBackward0", variants=("function", "method", "inplace"),
       saves=("result",), scalars=(), pointwise=True)
def relu(xp, self):
    kind = self.dtype.kind
    if kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    if kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    return _npb.maximum(self, 0)


@relu.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return backward_op(threshold_backward, grad, result, 0)


relu.jvp(AUTO_ELEMENT_WISE)


def _hardtanh_bounds(x, min_val, max_val):
    """torch's checks and conversions of hardtanh's bounds (integer types clamp at ints)."""
    kind = x.dtype.kind
    if kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if kind in "iu":
        min_val, max_val = _checked(min_val, xp.int64), _checked(max_val, xp.int64)
        if kind == "u" and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _checked(min_val, x.dtype), _checked(max_val, x.dtype)


@defop("hardtanh", node="HardtanhBackward0", saves=("self",), **_PW)
def hardtanh_op(xp, self, min_val=-1, max_val=1):
    lo, hi = _hardtanh_bounds(self, min_val, max_val)
    return _npb.minimum(_npb.maximum(self, lo), hi)


@hardtanh_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return hardtanh_backward(grad, self, ctx.min_val, ctx.max_val)


hardtanh_op.jvp(AUTO_ELEMENT_WISE)


def _threshold_kernel(xp, self, threshold, value):
    if self.dtype.kind in "bc":
        raise _not_implemented("threshold_cpu", self.dtype)
    threshold = _checked(threshold, _opmath_dtype(self.dtype))
    value = _checked(value, self.dtype)
    return xp.where(_opmath(self) <= threshold, xp.asarray(value, self.dtype), self)


def _threshold_grad(ctx, grad):
    self, = ctx.saved_tensors
    return backward_op(threshold_backward, grad, self, ctx.threshold)


threshold_op = defop("threshold", node="ThresholdBackward0", saves=("self",),
                     **_PW)(_threshold_kernel)
threshold_inplace = _unlisted(defop("threshold_", node="ThresholdBackward1", saves=("self",),
                                    **_PW)(_threshold_kernel))
threshold_op.backward(_threshold_grad)
threshold_op.jvp(AUTO_ELEMENT_WISE)
threshold_inplace.backward(_threshold_grad)
threshold_inplace.jvp(AUTO_ELEMENT_WISE)


# -- leaky_relu, rrelu -----------------------------------------------------------------------------
@defop("leaky_relu", node="LeakyReluBackward0", saves=("self",), **_PW)
def leaky_relu_op(xp, self, negative_slope=0.01):
    return _leaky(self, negative_slope, "leaky_relu_cpu")


@leaky_relu_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return leaky_relu_backward(grad, self, ctx.negative_slope)


leaky_relu_op.jvp(AUTO_ELEMENT_WISE)


@_unlisted
@defop("leaky_relu_", node="LeakyReluBackward1", saves=("result",), **_PW)
def leaky_relu_inplace(xp, self, negative_slope=0.01):
    return _leaky(self, negative_slope, "leaky_relu_cpu")


@leaky_relu_inplace.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    if ctx.negative_slope < 0:
        raise _negative_slope_error("leakyReLu", _LEAKY_EXTRA)
    return leaky_relu_backward(grad, result, ctx.negative_slope)


# (from the result, as the backward: a negative slope raises its error in forward mode too)
leaky_relu_inplace.jvp(AUTO_ELEMENT_WISE)


def _rrelu_kernel(xp, self, noise, lower=0.125, upper=1.0 / 3.0, training=False, *,
                  generator=None):
    """Eval: leaky_relu with slope (lower + upper) / 2. Training: a slope drawn from
    U(lower, upper) for each element <= 0, written into ``noise`` (1 elsewhere), as torch:
    one 53-bit uniform per such element, in memory order, scaled with the bounds in the
    kernel's float type (float32 below float64)."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return _contiguous(_leaky(self, (lower + upper) / 2, "leaky_relu_cpu"))
    _floating_only(self, "rrelu_with_noise_out_cpu")
    negative = self <= 0
    op = xp.float64 if self.dtype == xp.float64 else xp.float32
    lo, hi = op(lower), op(upper)
    u = _rs.uniform01_double(_gen(generator), int(negative.sum()))
    slopes = xp.ones(self.shape, self.dtype)
    slopes[negative] = (u * float(hi - lo) + float(lo)).astype(self.dtype)
    noise[...] = xp.where(negative, slopes, 1)
    return _contiguous(xp.where(negative, self * slopes, self))


def _rrelu_grad(grad, x, noise, lower, upper, training):
    if training and upper - lower > 1e-6:
        return noise * grad   # (torch's order: the gradient is laid out as the noise)
    return leaky_relu_backward(grad, x, (lower + upper) / 2)


# torch allocates rrelu's output contiguous, whatever the input's layout (not pointwise here)
_RRELU = dict(inputs=("self", "noise"), differentiable=("self",), promote=Promote.NONE,
              variants=(), scalars=())
rrelu_with_noise = defop("rrelu_with_noise", node="RreluWithNoiseBackward0",
                         saves=("self", "noise"), **_RRELU)(_rrelu_kernel)
rrelu_with_noise_ = _unlisted(defop("rrelu_with_noise_", node="RreluWithNoiseBackward1",
                                    saves=("noise", "result"), **_RRELU)(_rrelu_kernel))


@rrelu_with_noise.backward
def _(ctx, grad):
    self, noise = ctx.saved_tensors
    return _rrelu_grad(grad, self, noise, ctx.lower, ctx.upper, ctx.training)


rrelu_with_noise.jvp(FROM_BACKWARD)


@rrelu_with_noise_.backward
def _(ctx, grad):
    noise, result = ctx.saved_tensors
    lower, upper, training = ctx.lower, ctx.upper, ctx.training
    if not (training and upper - lower > 1e-6) and lower + upper < 0:
        raise _negative_slope_error("leakyReLu", _LEAKY_EXTRA)
    return _rrelu_grad(grad, result, noise, lower, upper, training)


# torch has no forward formula for the in-place form (its error worded as for asinh_)
rrelu_with_noise_.jvp(fw_not_implemented("rrelu_with_noise_", explicit=True))


# -- hardsigmoid, hardswish ------------------------------------------------------------------------
@defop("hardsigmoid", node="HardsigmoidBackward0", saves=("self",), **_PW)
def hardsigmoid_op(xp, self):
    _floating_only(self, "hardsigmoid_cpu")
    return _like(_npb.minimum(_npb.maximum(_opmath(self) + 3, 0), 6) / 6, self)


@hardsigmoid_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return hardsigmoid_backward(grad, self)


hardsigmoid_op.jvp(AUTO_ELEMENT_WISE)


@defop("hardswish", node="HardswishBackward0", saves=("self",), **_PW)
def hardswish_op(xp, self):
    _floating_only(self, "hardswish_cpu")
    x = _opmath(self)
    with xp.errstate(invalid="ignore"):
        return _like(x * _npb.minimum(_npb.maximum(x + 3, 0), 6) / 6, self)


@hardswish_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return backward_op(hardswish_backward, grad, self)


hardswish_op.jvp(AUTO_ELEMENT_WISE)


# a primitive as torch's: its kernel takes grad_output first, so the gradient is laid out as the
# incoming one (a where() on self would follow self)
@_unlisted
@defop("hardswish_backward", node="HardswishBackwardBackward0",
       inputs=("grad_output", "self"), saves=("grad_output", "self"), **_PW)
def hardswish_backward(xp, grad_output, self):
    # 0 up to -3, x/3 + 1/2 between, 1 from 3 on (NaN takes the middle, as torch's vectorised
    # kernel); half floats compute in float32, as torch's kernel
    x = _opmath(self)
    g = _opmath(grad_output)
    with xp.errstate(invalid="ignore"):
        middle = g * (x / 3 + 0.5)
    return _like(xp.where(x <= -3, 0, xp.where(x >= 3, g, middle)), grad_output)


@hardswish_backward.backward
def _(ctx, grad):
    # linear in grad_output; the slope of x/3 counts strictly inside (-3, 3), as torch's
    grad_output, self = ctx.saved_tensors
    need_grad, need_self = ctx.needs_input_grad
    inside = (self > -3) & (self < 3)
    return (hardswish_backward(grad, self) if need_grad else None,
            where_self(inside, grad * grad_output / 3, 0.0) if need_self else None)


hardswish_backward.jvp(AUTO_ELEMENT_WISE)


# -- hardshrink, softshrink ------------------------------------------------------------------------
@defop("hardshrink", node="HardshrinkBackward0", variants=("function", "method", "out"),
       saves=("self",), scalars=(), pointwise=True)
def hardshrink(xp, self, lambd=0.5):
    _floating_only(self, "hardshrink_cpu")
    lambd = _checked(lambd, self.dtype)
    return xp.where((self >= -lambd) & (self <= lambd), 0, self)


@hardshrink.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return hardshrink_backward(grad, self, ctx.lambd)


hardshrink.jvp(AUTO_ELEMENT_WISE)


def _cpp_number(v) -> str:
    """A number as C++'s ostream prints it (6 significant digits)."""
    return str(v) if isinstance(v, int) else format(v, "g")


@defop("softshrink", node="SoftshrinkBackward0", variants=("function", "out"), saves=("self",),
       scalars=(), pointwise=True, public="nn.functional.softshrink")
def softshrink(xp, self, lambd=0.5):
    _floating_only(self, "softshrink_check")
    top = float(_npb.finfo(self.dtype).max)
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {_cpp_number(top)}] for input dtype "
                           f"{D.from_np(self.dtype)._legacy}, but found {_cpp_number(lambd)}")
    x = _opmath(self)
    return _like(xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, x * 0)), self)


@softshrink.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return softshrink_backward(grad, self, ctx.lambd)


softshrink.jvp(AUTO_ELEMENT_WISE)


# -- prelu -----------------------------------------------------------------------------------------
@defop("_prelu_kernel", node="PreluKernelBackward0", inputs=("self", "weight"),
       saves=("self", "weight"), **_PW)
def prelu_kernel(xp, self, weight):
    _floating_only(self, "prelu_cpu")
    return xp.where(self > 0, self, weight * self)


@prelu_kernel.backward
def _(ctx, grad):
    self, weight = ctx.saved_tensors
    return prelu_kernel_backward(grad, self, weight)   # the engine sums grad_weight to shape


prelu_kernel.jvp(AUTO_ELEMENT_WISE)


@_unlisted
@defop("_prelu_kernel_backward", node="PreluKernelBackwardBackward0",
       inputs=("grad_output", "self", "weight"), saves=("grad_output", "self", "weight"), **_PW)
def prelu_kernel_backward(xp, grad_output, self, weight):
    positive = self > 0
    # torch's kernel takes (self, weight, grad_output): both outputs are laid out from those,
    # by the dispatcher's rule, which leaves a kernel's several outputs as they are
    operands = (self, weight, grad_output)
    return (_dispatch._relayout(xp.where(positive, grad_output, weight * grad_output), operands),
            _dispatch._relayout(xp.where(positive, 0, self * grad_output), operands))


@prelu_kernel_backward.backward
def _(ctx, *grads):
    # both outputs are linear in grad_output; grad_weight is linear in self, grad_self in weight
    grad_output, self, weight = ctx.saved_tensors
    need_grad, need_self, need_weight = ctx.needs_input_grad
    positive = self > 0
    ggs, ggw = (list(grads) + [None])[:2]
    ggs = zeros_like(grad_output) if ggs is None else ggs
    ggw = zeros_like(grad_output) if ggw is None else ggw
    return (where_self(positive, ggs, weight * ggs + self * ggw) if need_grad else None,
            where_self(positive, 0.0, grad_output * ggw) if need_self else None,
            where_self(positive, 0.0, grad_output * ggs) if need_weight else None)


@prelu_kernel_backward.jvp
def _(ctx, grad_output_t, self_t, weight_t):
    # torch's formulas, which test self >= 0 where the kernel tests self > 0 (they differ at 0
    # only); each output gets a tangent only when an input its formula reads has one
    grad_output, self, weight = ctx.primals
    has_grad, has_self, has_weight = ctx.needs_input_grad
    positive = self >= 0
    grad_self_t = grad_weight_t = None
    if has_grad or has_weight:
        grad_self_t = where_self(positive, grad_output_t,
                                 grad_output_t * weight + grad_output * weight_t)
    if has_grad or has_self:
        grad_weight_t = where_self(positive, 0.0, grad_output * self_t + grad_output_t * self)
    return grad_self_t, grad_weight_t


# ---------------------------------------------------------------------------------------------
# Public forms: torch.*, Tensor methods, torch.nn.functional.* (signatures as torch's)
# ---------------------------------------------------------------------------------------------
def _inplace(name, spec, input, *args):
    _require_tensor(name, input)
    return spec.call_inplace(input, *args)


def _with_inplace(name, spec, doc):
    """F.<name>(input, inplace=False) for an op whose in-place form records the same node."""
    def fn(input, inplace: bool = False):
        if inplace:
            return _inplace(name + "_", spec, input)
        return spec(input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def torch_relu(input):
    """max(input, 0) (no ``out=``, as torch.relu); the gradient at 0 is 0."""
    return relu(input)


def relu_(input):
    """In-place relu."""
    return _inplace("relu_", relu, input)


def F_relu(input, inplace: bool = False):
    """max(input, 0); the gradient at 0 is 0. ``inplace=True`` writes into ``input``."""
    return relu_(input) if inplace else relu(input)


def relu6(input, inplace: bool = False):
    """min(max(input, 0), 6): hardtanh(input, 0, 6), as torch records it."""
    if inplace:
        return _inplace("relu6_", hardtanh_op, input, 0, 6)
    _require_tensor("relu6", input)
    return hardtanh_op(input, 0, 6)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """Clamp to [min_val, max_val]; the gradient passes strictly inside only."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace("hardtanh_", hardtanh_op, input, min_val, max_val)
    _require_tensor("hardtanh", input)
    return hardtanh_op(input, min_val, max_val)


def F_hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    """In-place hardtanh."""
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold(input, threshold, value, *, out=None):
    """``value`` where ``input <= threshold``, else ``input``."""
    _require_tensor("threshold", input)
    return _call(threshold_op, (input, threshold, value), out)


def threshold_(input, threshold, value):
    """In-place threshold (``ThresholdBackward1``)."""
    return _inplace("threshold_", threshold_inplace, input, threshold, value)


def F_threshold(input, threshold, value, inplace: bool = False):
    """``value`` where ``input <= threshold``, else ``input``; the gradient is 0 at equality."""
    if inplace:
        return threshold_(input, threshold, value)
    _require_tensor("threshold", input)
    return threshold_op(input, threshold, value)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """``input`` where positive, else ``negative_slope * input``."""
    if inplace:
        return leaky_relu_(input, negative_slope)
    _require_tensor("leaky_relu", input)
    return leaky_relu_op(input, negative_slope)


def leaky_relu_(input, negative_slope: float = 0.01):
    """In-place leaky_relu (``LeakyReluBackward1``: a negative slope has no backward)."""
    return _inplace("leaky_relu_", leaky_relu_inplace, input, negative_slope)


def _rrelu(name, spec, input, lower, upper, training, generator):
    _require_tensor(name, input)
    if generator is not None:   # (checked in eval mode too: the parser's TypeError)
        from .random import Generator
        if not isinstance(generator, Generator):
            raise TypeError(f"{name}(): argument 'generator' must be torch.Generator, not "
                            f"{type(generator).__name__}")
    # torch draws the slopes into a contiguous buffer, whatever the input's layout
    noise = empty_like(input, memory_format=_memory_formats()[0])
    args = (input, noise, lower, upper, training)
    if spec is rrelu_with_noise_:
        return spec.call_inplace(*args, generator=generator)
    return spec(*args, generator=generator)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator=None):
    """Randomized leaky relu; in eval mode the slope is (lower + upper) / 2.

    Differences from torch: training mode draws the slopes from dyngrad's generator.
    """
    return _rrelu("rrelu", rrelu_with_noise, input, lower, upper, training, generator)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None):
    """In-place rrelu (``RreluWithNoiseBackward1``)."""
    return _rrelu("rrelu_", rrelu_with_noise_, input, lower, upper, training, generator)


def F_rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
            inplace: bool = False):
    """Randomized leaky relu (eval mode by default: slope (lower + upper) / 2)."""
    return (rrelu_ if inplace else rrelu)(input, lower, upper, training)


def F_rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    """In-place rrelu."""
    return rrelu_(input, lower, upper, training)


def prelu(input, weight):
    """``input`` where positive, else ``weight * input``; ``weight`` has one element or one per
    channel (dim 1), and is viewed to broadcast as torch does (a ViewBackward0 in the graph)."""
    Tensor = _tensor_cls()
    _require_tensor("prelu", input)
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not "
                        f"{_tp_name(weight)}")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._legacy} and "
                           f"{weight.dtype._legacy}")
    ndim, numel = input.dim(), weight.numel()
    if numel != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if ndim > 1 else 1
        if channels != numel:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {numel} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if ndim != weight.dim():
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = numel
        weight = weight.reshape(shape)
    return prelu_kernel(input, weight)


hardsigmoid = _with_inplace("hardsigmoid", hardsigmoid_op, "relu6(x + 3) / 6.")
hardswish = _with_inplace("hardswish", hardswish_op, "x * relu6(x + 3) / 6.")


def publish(torch_forms: dict, functional_forms: dict) -> None:
    """Register ``torch.<name>`` and ``torch.nn.functional.<name>`` forms; a wrapper function
    takes its public name, so Python's own TypeErrors ("relu() got an unexpected keyword
    argument 'out'") read as torch's."""
    items = [*torch_forms.items(),
             *(("nn.functional." + k, v) for k, v in functional_forms.items())]
    for name, fn in items:
        short = name.rsplit(".", 1)[-1]
        if type(fn).__name__ == "function" and fn.__name__ != short:
            fn.__name__ = fn.__qualname__ = short
        FUNCTIONS[name] = fn


publish(
    {"relu": torch_relu, "relu_": relu_, "threshold": threshold, "threshold_": threshold_,
     "rrelu": rrelu, "rrelu_": rrelu_, "prelu": prelu},
    {"relu": F_relu, "relu_": relu_, "relu6": relu6, "hardtanh": hardtanh,
     "hardtanh_": F_hardtanh_, "threshold": F_threshold, "threshold_": threshold_,
     "leaky_relu": leaky_relu, "leaky_relu_": leaky_relu_, "rrelu": F_rrelu, "rrelu_": F_rrelu_,
     "hardsigmoid": hardsigmoid, "hardswish": hardswish, "hardshrink": hardshrink,
     "prelu": prelu})
METHODS["prelu"] = prelu
