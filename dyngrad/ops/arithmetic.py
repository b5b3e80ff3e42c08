"""Arithmetic: add, sub, rsub, mul, div, floor_divide, remainder, neg, abs and pow, each with
its derivative right after its forward kernel.

Forward kernels take backend arrays (``xp``); promotion and casting are the dispatcher's job, so
a kernel sees its inputs already in the computation dtype (Python numbers stay numbers). Ops with
several torch overloads (``div`` with a rounding mode, ``pow`` with a number on either side)
declare one primitive per overload, each with its own node name as in torch, and a small public
function that picks one.

Backward formulas follow torch's derivatives.yaml (and FunctionsManual.cpp for the longer ones)
and receive and return Tensors, so they are differentiable again (``create_graph=True``). They
save what torch saves, and only when a needed gradient uses it (``saves={"self": "other"}``:
``x * 2`` keeps 2 but not x, so x may then be modified in place, as in torch).

Note [Which inputs get an edge]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A Python number passed where torch's schema has a Tensor (``x * 2``: mul.Tensor) is wrapped as a
0-dim tensor, so the node keeps an empty edge for it: ``((AccumulateGrad, 0), (None, 0))``.
Where the schema has a Scalar (``x ** 2``: pow.Tensor_Scalar, ``2 - x``: rsub.Scalar, ``x % 2``,
``clamp(x, 0, 1)``), the number is an argument, not an input, and the node has one edge: those
overloads declare ``differentiable=("self",)``. torch's ``NotImplemented`` nodes (floor_divide)
link only the inputs that require grad (the registry's ``_record`` does this).

Note [Checks on the inputs' own dtypes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A kernel only sees the promoted dtype. The few torch checks that look at the dtypes *before*
promotion (``sub`` refuses a bool operand even when the other one is an int: ``b - 1``) live in
the public function, which then dispatches the primitive.
"""
from __future__ import annotations

import cmath
import math

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import contiguous_strides
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from ..backends.blas import axpy
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, AUTO_LINEAR, MULTILINEAR, fw_not_implemented
from ..backends import numpy_backend as _npb
from ._autograd_utils import arrays_only, conj, contiguous, from_array, handle_r_to_c
from .creation import zeros_like
from .pointwise import (ALL, NO_INPLACE, _call, _dtype, _not_implemented, _require_tensor,
                        _tensor_cls, where_self)


def _maybe_multiply(grad, alpha):
    """torch's maybe_multiply: skip the product when alpha is 1 (alpha conjugated: a complex
    alpha scales the gradient by its conjugate, Note [Complex gradients])."""
    if alpha == 1:
        return grad
    return grad * (alpha.conjugate() if type(alpha) is complex else alpha)


def _r_to_c(ctx, grads):
    """handle_r_to_c on each of a formula's gradients when the incoming gradient is complex
    (only then can a real input's gradient be complex)."""
    return tuple([handle_r_to_c(ctx, i, g) for i, g in enumerate(grads)])


# add, sub and mul run in every training step: their formulas skip ctx's attribute lookups
# (``ctx.needs_input(i)`` is ``ctx.needs_input_grad[i]`` without building the tuple)
def _alpha(ctx):
    """``ctx.alpha`` (a keyword-only argument: absent from most calls)."""
    return ctx.alpha if ctx._kwargs else 1


def _no_derivative(name: str):
    """The formula of torch's ``NotImplemented`` nodes: backward through them raises."""
    def formula(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return formula


# -- add / sub / rsub / mul ------------------------------------------------------------------
def _check_alpha(dtype, alpha) -> None:
    """torch's alpha_check on the common dtype."""
    if type(alpha) is bool:
        if dtype.kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and dtype.kind in "iub":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    elif isinstance(alpha, complex) and dtype.kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")


def _scaled(xp, other, alpha, dtype):
    _check_alpha(dtype, alpha)
    if alpha is True:
        return other
    if dtype.kind in "iu":
        alpha = xp.asarray(alpha).astype(dtype)   # wraps around, as torch's C cast (uint8: -1)
    elif dtype in _npb.LOW:
        # half/bfloat16: as torch's scalar loop, alpha and b in the dtype, their product rounded
        # to it before the add (its vectorised loop, over all but the last size % 16 or 32
        # elements, makes one fused multiply-add: the two differ in the last bit, now and then)
        return xp.multiply(xp.asarray(other).astype(dtype), xp.asarray(alpha).astype(dtype))
    return xp.multiply(other, alpha, dtype=dtype)


@defop("add.Tensor", node="AddBackward0", inputs=("self", "other"), variants=ALL,
       pointwise=True, ufunc="add")
def add(xp, self, other, *, alpha=1, _into=None):
    if alpha != 1 or type(alpha) is not int:
        if _into is self and axpy(self, other, alpha):   # Note [axpy for add_ with alpha]
            return self
        other = _scaled(xp, other, alpha, _dtype(self, other))
    return xp.add(self, other, out=_into)


@add.backward
def _(ctx, grad):
    if not ctx._kwargs and grad._data.dtype.kind != "c":
        # alpha 1, the commonest call: both gradients are `grad` (where an input needs none,
        # the engine drops it, as it does for every edge to nowhere)
        return grad, grad
    out = grad, _maybe_multiply(grad, _alpha(ctx)) if ctx.needs_input(1) else None
    return _r_to_c(ctx, out) if grad._data.dtype.kind == "c" else out


add.jvp(AUTO_LINEAR)


@defop("sub.Tensor", node="SubBackward0", inputs=("self", "other"), variants=(),
       pointwise=True, public="sub", ufunc="subtract")
def sub_tensor(xp, self, other, *, alpha=1, _into=None):
    if alpha != 1 or type(alpha) is not int:
        if _into is self and type(alpha) is not bool and axpy(self, other, -alpha):
            return self   # (torch's sub is add with -alpha; -True would pass as the int -1)
        other = _scaled(xp, other, alpha, _dtype(self, other))
    return xp.subtract(self, other, out=_into)


@sub_tensor.backward
def _(ctx, grad):
    out = grad, _maybe_multiply(-grad, _alpha(ctx)) if ctx.needs_input(1) else None
    return _r_to_c(ctx, out) if grad._data.dtype.kind == "c" else out


sub_tensor.jvp(AUTO_LINEAR)


def _rsub(xp, self, other, alpha):
    if alpha != 1 or type(alpha) is not int:
        self = _scaled(xp, self, alpha, _dtype(self, other))
    return xp.subtract(other, self)


@defop("rsub.Tensor", node="RsubBackward0", inputs=("self", "other"), variants=(),
       pointwise=True, public="rsub")
def rsub_tensor(xp, self, other, *, alpha=1):
    return _rsub(xp, self, other, alpha)


@rsub_tensor.backward
def _(ctx, grad):
    out = _maybe_multiply(-grad, _alpha(ctx)) if ctx.needs_input(0) else None, grad
    return _r_to_c(ctx, out) if grad._data.dtype.kind == "c" else out


rsub_tensor.jvp(AUTO_LINEAR)
rsub_tensor.layout_reversed = True   # torch runs sub(other, self): the layout follows `other`


@defop("rsub.Scalar", node="RsubBackward1", inputs=("self", "other"), variants=(),
       differentiable=("self",), pointwise=True, public="rsub")   # Note [Which inputs get an edge]
def rsub_scalar(xp, self, other, alpha=1):
    return _rsub(xp, self, other, alpha)


@rsub_scalar.backward
def _(ctx, grad):
    return handle_r_to_c(ctx, 0, _maybe_multiply(-grad, ctx.alpha))


rsub_scalar.jvp(AUTO_ELEMENT_WISE)


def _is_bool(value) -> bool:
    d = getattr(value, "dtype", None)
    return d is D.bool_ if d is not None else type(value) is bool


def _sub_check(self, other) -> None:
    """torch's sub_check, on the inputs' own dtypes. See Note [Checks on the inputs' own dtypes]."""
    a, b = _is_bool(self), _is_bool(other)
    if a and b:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if a or b:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other``."""
    _sub_check(input, other)
    if out is None and alpha == 1 and type(alpha) is int:
        return sub_tensor(input, other)
    kw = {"alpha": alpha} if out is None else {"alpha": alpha, "out": out}
    return sub_tensor(input, other, **kw)


def sub_(self, other, *, alpha=1):
    _sub_check(self, other)
    return sub_tensor.call_inplace(self, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (what ``2 - x`` runs)."""
    if not isinstance(input, _tensor_cls()):   # torch has no overload for a number input
        from .creation import invalid_combination
        raise invalid_combination("rsub", (input, other), (
            "Tensor input, Tensor other, *, Number alpha = 1",
            "Tensor input, Number other, Number alpha = 1"))
    _sub_check(input, other)
    spec = rsub_tensor if isinstance(other, _tensor_cls()) else rsub_scalar
    if alpha == 1 and type(alpha) is int:
        return spec(input, other)
    return spec(input, other, alpha=alpha)


@defop("mul.Tensor", node="MulBackward0", inputs=("self", "other"), variants=ALL,
       saves={"self": "other", "other": "self"}, pointwise=True, ufunc="multiply")
def mul(xp, self, other, *, _into=None):
    return xp.multiply(self, other, out=_into)


@mul.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    if grad._data.dtype.kind == "c":   # Note [Complex gradients]
        return _r_to_c(ctx, (grad * conj(other) if ctx.needs_input(0) else None,
                             grad * conj(self) if ctx.needs_input(1) else None))
    # (the hottest formula reads its edges itself rather than making two calls of
    # ctx.needs_input: an edge that autograd.grad's inputs= prune gets a gradient, which the
    # engine then drops)
    to_self, to_other = ctx._next
    return (grad * other if to_self is not None else None,
            grad * self if to_other is not None else None)


mul.jvp(MULTILINEAR)


# -- division ----------------------------------------------------------------------------------
def _check_int_divisor(xp, other) -> None:
    if not xp.all(other):
        raise RuntimeError("ZeroDivisionError")


@defop("div.Tensor", node="DivBackward0", promote=Promote.INT_TO_FLOAT,
       inputs=("self", "other"), variants=(), saves={"self": "other", "other": None},
       public="div", pointwise=True, ufunc="true_divide")
def div_true(xp, self, other, *, _into=None):
    return xp.true_divide(self, other, out=_into)


@div_true.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    if grad._data.dtype.kind == "c":   # Note [Complex gradients]
        return _r_to_c(ctx, (grad / conj(other) if need_self else None,
                             -grad * conj(div_true(self, other) / other) if need_other else None))
    return (grad / other if need_self else None,
            -grad * (div_true(self, other) / other) if need_other else None)


@div_true.jvp
def _(ctx, self_t, other_t):   # torch's (self_t - other_t * result) / other
    other = ctx.primals[1]
    if other_t is None or not ctx.needs_input_grad[1]:
        return self_t / other
    return (self_t - other_t * ctx.result) / other


def _floor_div(xp, self, other, kernel_name):
    """Python-style floor division (NumPy's floor_divide is torch's div_floor for floats)."""
    dt = _dtype(self, other)
    if dt.kind in "bc":
        raise _not_implemented(kernel_name, dt)
    if dt.kind in "iu":
        _check_int_divisor(xp, other)
    return xp.floor_divide(self, other)


def _trunc_div(xp, self, other):
    dt = _dtype(self, other)
    if dt.kind in "bc":
        raise _not_implemented("div_trunc_cpu", dt)
    if dt.kind in "fV":
        if dt.itemsize == 2 and getattr(other, "size", 0) == 1:
            # a bfloat16/float16 divisor that is a scalar (0-dim, or one element broadcast):
            # torch's kernel divides in float32 (Note [Reduced-precision scalars])
            other = other.astype(xp.float32)
        return xp.trunc(xp.true_divide(self, other))
    _check_int_divisor(xp, other)
    q = xp.floor_divide(self, other)
    if dt.kind == "u":
        return q
    # C truncation: one more than the floor where the division is inexact and signs differ
    inexact = xp.not_equal(xp.remainder(self, other), 0)
    return q + (inexact & xp.not_equal(xp.less(self, 0), xp.less(other, 0))).astype(dt)


# torch saves self and other here although the derivative is zero (so it checks their versions)
@defop("div.Tensor_mode", node="DivBackward2", inputs=("self", "other"), variants=(),
       saves={"self": "other", "other": None}, public="div", pointwise=True)
def div_mode(xp, self, other, *, rounding_mode):
    dt = getattr(self, "dtype", None) or other.dtype   # (one of them may be a number)
    if dt.kind == "u" and dt.itemsize > 1:   # Note [Limited unsigned dtypes]
        from ._unsigned import refuse
        raise refuse("div_floor_cpu" if rounding_mode == "floor" else "div_trunc_cpu", dt)
    if rounding_mode == "floor":
        return _floor_div(xp, self, other, "div_floor_cpu")
    return _trunc_div(xp, self, other)


@div_mode.backward
def _(ctx, grad):
    zero = zeros_like(grad)   # rounding makes the quotient piecewise constant
    return zero, zero


div_mode.jvp(AUTO_ELEMENT_WISE)


def _div_spec(rounding_mode):
    if rounding_mode is None:
        return div_true, {}
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    return div_mode, {"rounding_mode": rounding_mode}


def div(input, other, *, rounding_mode=None, out=None):
    """Divide ``input`` by ``other``; ``rounding_mode`` None (true), 'trunc' or 'floor'."""
    if rounding_mode is None and out is None:
        return div_true(input, other)
    spec, kw = _div_spec(rounding_mode)
    if out is not None:
        kw["out"] = out
    return spec(input, other, **kw)


def div_(self, other, *, rounding_mode=None):
    spec, kw = _div_spec(rounding_mode)
    return spec.call_inplace(self, other, **kw)


def true_divide(input, other, *, out=None):
    """``div`` without rounding: integers divide to the default float dtype."""
    return _call(div_true, (input, other), out)


def true_divide_(self, other):
    return div_true.call_inplace(self, other)


# torch's floor_divide has no derivative formula: its grad_fn is a "NotImplemented" node.
@defop("floor_divide", node="NotImplemented", inputs=("self", "other"), variants=NO_INPLACE,
       pointwise=True)
def floor_divide(xp, self, other):
    return _floor_div(xp, self, other, "div_floor_cpu")


floor_divide.backward(_no_derivative("floor_divide"))
floor_divide.jvp(fw_not_implemented("aten::floor_divide", short=True))


# the in-place form is its own op in torch, and its backward error names it
@defop("floor_divide_.Tensor", node="NotImplemented", inputs=("self", "other"), variants=(),
       pointwise=True)
def floor_divide_inplace(xp, self, other):
    return _floor_div(xp, self, other, "div_floor_cpu")


floor_divide_inplace.backward(_no_derivative("floor_divide_"))
floor_divide_inplace.jvp(fw_not_implemented("aten::floor_divide_", short=True))


def _remainder(xp, self, other):
    dt = _dtype(self, other)
    if dt.kind in "bc":
        raise _not_implemented("remainder_cpu", dt)
    if dt.kind in "iu":
        _check_int_divisor(xp, other)
        return xp.remainder(self, other)
    # torch's float kernel: fmod, then the divisor added where the signs differ. A zero keeps
    # fmod's sign, the dividend's (NumPy's remainder gives it the divisor's)
    mod = xp.fmod(self, other)
    fix = (mod != 0) & ((xp.asarray(other) < 0) != (mod < 0))
    return xp.where(fix, mod + other, mod) if fix.any() else mod


@defop("remainder.Tensor", node="RemainderBackward1", inputs=("self", "other"), variants=(),
       saves={"self": "other", "other": "other"}, public="remainder", pointwise=True)
def remainder_tensor(xp, self, other):
    return _remainder(xp, self, other)


@remainder_tensor.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    if not ctx.needs_input_grad[1]:
        return grad, None
    return grad, -grad * div_mode(self, other, rounding_mode="floor")


remainder_tensor.jvp(AUTO_ELEMENT_WISE)


@defop("remainder.Scalar", node="RemainderBackward0", inputs=("self", "other"), variants=(),
       differentiable=("self",), public="remainder", pointwise=True)
def remainder_scalar(xp, self, other):
    return _remainder(xp, self, other)


@remainder_scalar.backward
def _(ctx, grad):
    return grad


remainder_scalar.jvp(AUTO_ELEMENT_WISE)


@defop("remainder.Scalar_Tensor", node="NotImplemented", inputs=("self", "other"),
       variants=(), public="remainder", pointwise=True)
def remainder_scalar_tensor(xp, self, other):
    return _remainder(xp, self, other)


remainder_scalar_tensor.backward(_no_derivative("remainder"))
remainder_scalar_tensor.jvp(fw_not_implemented("aten::remainder", short=True))


def _remainder_spec(input, other):
    Tensor = _tensor_cls()
    if not isinstance(input, Tensor):
        return remainder_scalar_tensor
    return remainder_tensor if isinstance(other, Tensor) else remainder_scalar


def remainder(input, other, *, out=None):
    """Python's modulus: the result has the sign of the divisor."""
    return _call(_remainder_spec(input, other), (input, other), out)


def remainder_(self, other):
    return _remainder_spec(self, other).call_inplace(self, other)


# -- unary sign ops ---------------------------------------------------------------------------
@defop("neg", node="NegBackward0", variants=ALL, scalars=(), pointwise=True)
def neg(xp, self):
    if self.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return xp.negative(self)


@neg.backward
def _(ctx, grad):
    return -grad


neg.jvp(AUTO_LINEAR)


def positive(input):
    """Returns ``input`` itself (torch returns the same tensor object)."""
    _require_tensor("positive", input)
    if input.dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@defop("abs", node="AbsBackward0", promote=Promote.COMPLEX_TO_FLOAT, variants=(),
       saves=("self",), scalars=(), pointwise=True, public="abs")
def abs_spec(xp, self):
    if self.dtype.kind == "b":
        raise _not_implemented("abs_cpu", self.dtype)
    return xp.abs(self)


@abs_spec.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * self.sgn()    # 0 at 0


abs_spec.jvp(AUTO_ELEMENT_WISE)


def abs(input, *, out=None):
    """Absolute value; complex inputs give their real dtype."""
    if out is None:
        return abs_spec(input)
    if isinstance(input, _tensor_cls()) and input.is_complex() and not out.is_complex():
        # torch computes into a fresh tensor and copies it into a contiguous out
        from ._dispatch import _write_out
        result = abs_spec(input)._data
        return _write_out(abs_spec, out, result if result.flags.c_contiguous else result.copy())
    return abs_spec(input, out=out)


def abs_(self):
    if self.is_complex():
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return abs_spec.call_inplace(self)


# -- pow: three overloads, as torch ------------------------------------------------------------
def _int_pow(xp, base, exponent):
    """Integer power where negative exponents give torch's values (1, ±1 or 0), not an error."""
    negative = xp.less(exponent, 0)
    if not xp.any(negative):
        return xp.power(base, exponent)
    safe = xp.power(base, xp.where(negative, 0, exponent).astype(_dtype(exponent)))
    odd = xp.not_equal(xp.remainder(exponent, 2), 0)
    special = xp.where(xp.equal(base, 1), 1,
                       xp.where(xp.equal(base, -1), xp.where(odd, -1, 1), 0))
    return xp.where(negative, special, safe).astype(safe.dtype)


def _pow(xp, base, exponent):
    dt = _dtype(base, exponent)
    if dt.kind == "b":
        raise _not_implemented("pow", dt)
    if dt.kind in "iu" and getattr(exponent, "ndim", None) is not None:
        return _int_pow(xp, base, exponent)
    return xp.power(base, exponent)


@defop("pow.Tensor_Scalar", node="PowBackward0", inputs=("self", "exponent"), variants=(),
       differentiable=("self",), saves=("self", "exponent"), public="pow", pointwise=True)
def pow_tensor_scalar(xp, self, exponent):
    if self.dtype.kind == "b":           # bool ** True / bool ** False: torch's shortcuts
        if exponent == 0:
            return xp.ones_like(self)
        if exponent == 1:
            return self.copy()
    if self.dtype.kind in "iu" and not isinstance(exponent, float) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if self.dtype.kind == "V" or self.dtype.itemsize >= 4 and self.dtype.kind == "f":
        # torch's float, double and bfloat16 kernels compute these exponents without pow, each
        # product rounded in the tensor's dtype: base * base * base, 1 / (base * base), and
        # (not bfloat16) 1 / sqrt(base), so that (-0.0) ** -0.5 is -inf where pow gives inf.
        # (Its half kernel calls pow.)
        if exponent == 3 or exponent == -2:
            square = xp.multiply(self, self)
            return xp.multiply(square, self) if exponent == 3 else \
                xp.true_divide(self.dtype.type(1), square)
        if exponent == -0.5 and self.dtype.kind == "f":
            return xp.true_divide(self.dtype.type(1), xp.sqrt(self))
    return _pow(xp, self, exponent)


@pow_tensor_scalar.backward
def _(ctx, grad):
    self, exponent = ctx.saved_tensors
    if exponent == 0:
        return zeros_like(grad)
    exponent = _as_double(exponent)   # torch computes with exponent.toDouble()
    if type(exponent) is float and arrays_only(grad, self) and contiguous(grad, self):
        # Note [Array formulas]: the three ops below on the arrays (pow's own kernel)
        g, x = grad._data, self._data
        return from_array(g * (exponent * pow_tensor_scalar.kernel(_npb.xp, x, exponent - 1)))
    if grad._data.dtype.kind == "c":   # Note [Complex gradients]
        return handle_r_to_c(ctx, 0, grad * conj(exponent * self.pow(exponent - 1)))
    return grad * (exponent * self.pow(exponent - 1))


pow_tensor_scalar.jvp(AUTO_ELEMENT_WISE)


@defop("pow.Tensor_Tensor", node="PowBackward1", inputs=("self", "exponent"), variants=(),
       saves=("self", "exponent", "result"), public="pow", pointwise=True)
def pow_tensor_tensor(xp, self, exponent):
    return _pow(xp, self, exponent)


def _nonnegative(exponent):
    """``exponent >= 0``; for a complex exponent, a real one that is (torch's
    pow_backward_exponent)."""
    if exponent.is_complex():
        return (exponent.imag == 0) & (exponent.real >= 0)
    return exponent >= 0


@pow_tensor_tensor.backward
def _(ctx, grad):
    self, exponent, result = ctx.saved_tensors
    need_self, need_exponent = ctx.needs_input_grad
    grad_self = grad_exponent = None
    if need_self:
        grad_self = where_self(exponent == 0.0, 0.0,
                               grad * conj(exponent * self.pow(exponent - 1)))
    if need_exponent:
        # d(a^b)/db at a = 0: 0 for b >= 0 (by continuity), -inf for b < 0 (torch's choice)
        at_zero = (self == 0) & _nonnegative(exponent)
        base = self if self.dtype is result.dtype else self.to(result.dtype)
        grad_exponent = grad * where_self(at_zero, 0.0, conj(result * base.log()))
    if grad._data.dtype.kind == "c":   # Note [Complex gradients]
        return _r_to_c(ctx, (grad_self, grad_exponent))
    return grad_self, grad_exponent


pow_tensor_tensor.jvp(AUTO_ELEMENT_WISE)


# torch allocates the result of a number to a tensor power contiguous, whatever the exponent's
# layout (no pointwise layout here)
@defop("pow.Scalar", node="PowBackward2", inputs=("self", "exponent"), variants=(),
       differentiable=("exponent",), saves=("self", "exponent", "result"), public="pow")
def pow_scalar(xp, self, exponent):
    result = _pow(xp, self, exponent)
    if getattr(result, "ndim", 0) > 1 and result.strides != tuple(
            [s * result.itemsize for s in contiguous_strides(result.shape)]):
        result = result.copy(order="C")
    return result


# torch's pow with a number exponent runs without making the number an operand: the result
# keeps the tensor's own layout (test_pointwise_layout.py)
pow_tensor_scalar.wraps_scalars = False


@pow_scalar.backward
def _(ctx, grad):
    base, exponent, result = ctx.saved_tensors    # base: the Python number
    if exponent.is_complex() and not isinstance(base, complex):
        base = complex(base)   # log of a negative base: complex, not nan
    if base == 0:
        out = grad * where_self(_nonnegative(exponent), 0.0, conj(result * _log(base)))
    else:
        out = grad * conj(result * _log(base))
    return handle_r_to_c(ctx, 0, out) if grad._data.dtype.kind == "c" else out


pow_scalar.jvp(AUTO_ELEMENT_WISE)


def _as_double(value):
    return value if isinstance(value, complex) else float(value)


def _log(value):
    """A Python number's log as torch's Scalar.log() gives it (nan below 0, -inf at 0)."""
    if isinstance(value, complex):
        return cmath.log(value) if value else complex(-math.inf, 0.0)
    value = float(value)
    return math.log(value) if value > 0 else -math.inf if value == 0 else math.nan


def _pow_spec(input, exponent):
    Tensor = _tensor_cls()
    if not isinstance(input, Tensor):
        return pow_scalar
    return pow_tensor_tensor if isinstance(exponent, Tensor) else pow_tensor_scalar


# c10's names for integer types, as its scalar-overflow message prints them
_C10_INT_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
                  "int64": "int64_t"}


def _check_int_exponent(input, exponent) -> None:
    """torch's checks of a Python int exponent on an integer tensor, before any cast."""
    if type(exponent) is not int or not isinstance(input, _tensor_cls()):
        return
    d = input.dtype
    if d.is_floating_point or d.is_complex:
        return
    if exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if d in D.LIMITED_UNSIGNED:   # (an int64 Scalar; the pow kernel then refuses the dtype)
        if exponent >= 2 ** 63:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return
    if d is not D.bool_ and exponent > _int_max(d):
        raise RuntimeError(f"value cannot be converted to type {_C10_INT_NAMES[d.name]} "
                           "without overflow")


def _int_max(d) -> int:
    return (1 << (8 * d.itemsize - (0 if d.name == "uint8" else 1))) - 1


def pow(input, exponent, *, out=None):
    """``input ** exponent``; either side may be a Python number."""
    _check_int_exponent(input, exponent)
    return _call(_pow_spec(input, exponent), (input, exponent), out)


def pow_(self, exponent):
    _check_int_exponent(self, exponent)
    return _pow_spec(self, exponent).call_inplace(self, exponent)


for _name, _fn in (("sub", sub), ("div", div), ("true_divide", true_divide), ("pow", pow),
                   ("abs", abs), ("remainder", remainder), ("positive", positive)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
FUNCTIONS["rsub"] = rsub
for _name, _fn in (("sub_", sub_), ("div_", div_), ("true_divide_", true_divide_),
                   ("pow_", pow_), ("remainder_", remainder_), ("abs_", abs_),
                   ("floor_divide_", floor_divide_inplace.call_inplace)):
    METHODS[_name] = INPLACE[_name] = _fn
