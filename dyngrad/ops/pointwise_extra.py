"""Pointwise ops on the bits of numbers: heaviside (the step function), gcd and lcm (integers
only) and frexp (mantissa and exponent; ldexp, its inverse, lives in binary.py); and the
special functions of statistics: ``special.entr``, ``special.erfcx``, ``special.ndtr``,
``special.ndtri``, ``special.log_ndtr`` and ``mvlgamma`` (``special.multigammaln``). The Bessel
functions are in special_bessel.py.

heaviside has no derivative in torch: its grad_fn is a ``NotImplemented`` node whose backward
raises. gcd and lcm take integers only, so their results never require grad. frexp returns
``return_types.frexp(mantissa, exponent)``; only the mantissa is differentiable
(``FrexpBackward0``: ``grad / exponent.exp2()``).
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from ..backends import special_math as _sm
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, check_supported, fw_not_implemented
from ..return_types import frexp as _frexp_type, frexp_out as _frexp_out_type
from . import _dispatch
from ._registry import FUNCTIONS, INPLACE, METHODS, OPS, defop
from ._selection import check_no_grad_out, write_out
from .arithmetic import _no_derivative
from .pointwise import _call, _dtype, _not_implemented, _tensor_cls, exp, log
from .unary import _real_only, digamma, erf, exp2
from ._arg_parser import type_name as _tp_name


def _require(fname, value, arg, position):
    if not isinstance(value, _tensor_cls()):
        raise TypeError(f"{fname}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{_tp_name(value)}")


# -- heaviside ---------------------------------------------------------------------------------
def _heaviside(xp, self, values):
    # values where self is 0 (-0.0 included), else self > 0 (so 0 for NaN), as torch's kernel
    return xp.where(self == 0, values, (self > 0).astype(self.dtype))


# a NotImplemented node for each form: the backward error names the form (heaviside_)
@defop("heaviside", node="NotImplemented", inputs=("self", "values"), variants=(),
       scalars=(), pointwise=True)
def heaviside_op(xp, self, values):
    return _heaviside(xp, self, values)


heaviside_op.backward(_no_derivative("heaviside"))
heaviside_op.jvp(fw_not_implemented("aten::heaviside", short=True))


@defop("heaviside_", node="NotImplemented", inputs=("self", "values"), variants=(),
       scalars=(), pointwise=True)
def heaviside_inplace(xp, self, values):
    return _heaviside(xp, self, values)


heaviside_inplace.backward(_no_derivative("heaviside_"))
heaviside_inplace.jvp(fw_not_implemented("aten::heaviside_", short=True))


def _heaviside_check(spec, self, values, out=None):
    """torch's checks, made before broadcasting: no complex, one dtype (``out``'s included);
    a dual input is refused first (no forward derivative)."""
    check_supported(spec, (self, values))
    if self.is_complex() or values.is_complex():
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if self.dtype is not values.dtype or (out is not None and out.dtype is not self.dtype):
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")


def heaviside(input, values, *, out=None):
    """The step function: 0 where ``input < 0``, 1 where ``input > 0``, ``values`` at 0."""
    _require("heaviside", input, "input", 1)
    _require("heaviside", values, "values", 2)
    _heaviside_check(heaviside_op, input, values, out)
    return _call(heaviside_op, (input, values), out)


def _heaviside_method(self, values):
    _require("heaviside", values, "values", 1)
    _heaviside_check(heaviside_op, self, values)
    return heaviside_op(self, values)


def heaviside_(self, values):
    _require("heaviside_", values, "values", 1)
    _heaviside_check(heaviside_inplace, self, values)
    return heaviside_inplace.call_inplace(self, values)


# -- gcd / lcm ---------------------------------------------------------------------------------
def _integers_only(kernel_name, self, other):
    dt = _dtype(self, other)
    if dt.kind not in "iu":
        raise _not_implemented(kernel_name, dt)


@defop("gcd", node=None, inputs=("self", "other"), variants=("function", "out"), scalars=(),
       pointwise=True)
def gcd(xp, self, other):
    """The greatest common divisor, non-negative (gcd(0, 0) = 0); as torch, the most
    negative integer keeps its sign (its absolute value overflows)."""
    _integers_only("gcd_cpu", self, other)
    return xp.gcd(self, other)


@defop("lcm", node=None, inputs=("self", "other"), variants=("function", "out"), scalars=(),
       pointwise=True)
def lcm(xp, self, other):
    """The least common multiple, non-negative, wrapping around on overflow as torch's."""
    _integers_only("lcm_cpu", self, other)
    return xp.lcm(self, other)


def _method_forms(spec):
    """``Tensor.gcd`` and ``Tensor.gcd_``: ``other`` is their first argument (position 1)."""
    name = spec.base

    def method(self, other):
        _require(name, other, "other", 1)
        return spec(self, other)

    def in_place(self, other):
        _require(name + "_", other, "other", 1)
        return spec.call_inplace(self, other)

    method.__name__, in_place.__name__ = name, name + "_"
    METHODS[name] = method
    METHODS[name + "_"] = INPLACE[name + "_"] = in_place


_method_forms(gcd)
_method_forms(lcm)


# -- frexp -------------------------------------------------------------------------------------
@defop("frexp.Tensor", node="FrexpBackward0", promote=Promote.NONE, variants=(),
       public="frexp", outputs=("mantissa", "exponent"), saves=("exponent",),
       nondiff_outputs=(1,), kernel_dtypes=True, scalars=(), pointwise=True)
def frexp_op(xp, self):
    if self.dtype.kind not in "fV":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = xp.frexp(self)
    return mantissa, exponent.astype(xp.int32, copy=False)


@frexp_op.backward
def _(ctx, grad, grad_exponent=None):
    exponent, = ctx.saved_tensors
    return grad / exp2(exponent)


frexp_op.jvp(AUTO_ELEMENT_WISE)


def _frexp_out_check(input, out):
    _dispatch.check_out_tuple("frexp", out, 2, 1)
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = out
    if mantissa.dtype is not input.dtype:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype "
                           f"{_c_name(input.dtype)} but got {_c_name(mantissa.dtype)}")
    if exponent.dtype is not D.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got "
                           f"{_c_name(exponent.dtype)}")


def _c_name(dtype):
    """The C name torch's frexp messages give a dtype (``float``, ``double``, ``long int``)."""
    from .linalg import cpp_type_name
    return cpp_type_name(dtype)


def frexp(input, *, out=None):
    """``input = mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1`` (int32 exponent)."""
    _require("frexp", input, "input", 1)
    if out is None:
        return _frexp_type(frexp_op(input))
    _frexp_out_check(input, out)
    check_no_grad_out("frexp", input)
    mantissa, exponent = frexp_op(input)
    write_out(out[0], mantissa)
    write_out(out[1], exponent)
    return _frexp_out_type(tuple(out))


def _frexp_method(self):
    return _frexp_type(frexp_op(self))


# -- entropy and the normal distribution -------------------------------------------------------
def _special_unary(name, node, saves):
    """defop for ``torch.special.<name>`` (function and ``out=``; integers compute in the
    default float dtype)."""
    return defop(f"special_{name}", node=node, promote=Promote.INT_TO_FLOAT,
                 variants=("function", "out"), scalars=(), saves=saves,
                 public=f"special.{name}", pointwise=True)


def _no_half(kernel_name, x):
    if x.dtype.itemsize == 2:
        raise _not_implemented(kernel_name, x.dtype)


@_special_unary("entr", "SpecialEntrBackward0", ("self",))
def entr(xp, self):
    """-x log(x) for x > 0, 0 at 0, -inf below (NaN stays NaN); in the input's precision."""
    _real_only("entr_cpu", self)
    positive = self > 0
    value = -self * xp.log(xp.where(positive, self, self.dtype.type(1)))
    return xp.where(positive, value, xp.where(self == 0, self.dtype.type(0),
                                              xp.where(self < 0, -xp.inf, self)))


@entr.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * -(1 + log(self))


_RSQRT_PI = 1.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT1_2 = math.sqrt(0.5)


def _exp_square(xp, y):
    """exp(y * y) without rounding y * y first (Note [Cody's erf] in special_math.py)."""
    whole = xp.trunc(y * 16.0) / 16.0
    return xp.exp(whole * whole) * xp.exp((y - whole) * (y + whole))


def _erfcx64(xp, x):
    """exp(x^2) erfc(x) in float64: erfc times exp(x^2), both split so that x^2 is not rounded,
    up to |x| = 26 (where erfc is still a normal number); the asymptotic series beyond; and
    2 exp(x^2) - erfcx(-x) for negative x (inf below about -26.6, or -9.4 for float32)."""
    square = x * x
    x = x.astype(xp.float64)
    y = xp.abs(x)
    near = xp.minimum(y, 26.0)
    positive = xp.asarray(_sm.erfc(near)) * _exp_square(xp, near)
    far = xp.maximum(y, 26.0)
    z = 0.5 / (far * far)
    series = 1.0
    for k in (13, 11, 9, 7, 5, 3, 1):
        series = 1.0 - k * z * series
    positive = xp.where(y > 26.0, series * _RSQRT_PI / far, positive)
    # torch's negative branch computes exp(x * x) plainly, in the input's precision
    grow = xp.exp(square).astype(xp.float64)
    return xp.where(x < 0, 2.0 * grow - positive, positive)


@_special_unary("erfcx", "SpecialErfcxBackward0", ("self", "result"))
def erfcx(xp, self):
    """The scaled complementary error function, exp(x^2) erfc(x)."""
    _real_only("erfcx_cpu", self)
    _no_half("erfcx_cpu", self)
    return _erfcx64(xp, self).astype(self.dtype)


@erfcx.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return (2.0 * self * result - 2.0 * _RSQRT_PI) * grad


def _ndtr64(xp, x):
    """The standard normal CDF in float64, accurate in both tails (erfc of |x|)."""
    half = 0.5 * xp.asarray(_sm.erfc(xp.abs(x) * _SQRT1_2))
    return xp.where(x < 0, half, 1.0 - half)


def _ndtri64(xp, p):
    """The normal quantile in float64: a rational first guess (Abramowitz & Stegun 26.2.23,
    error < 4.5e-4) refined by three Halley steps on the CDF, which double the digits twice
    over; the upper half by symmetry, ndtri(p) = -ndtri(1 - p), as Cephes."""
    upper = p > 0.5
    q = xp.where(upper, 1.0 - p, p)
    inside = (q > 0) & (q <= 0.5)
    q_safe = xp.where(inside, q, 0.25)
    t = xp.sqrt(-2.0 * xp.log(q_safe))
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
          / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(3):
        error = (0.5 * xp.asarray(_sm.erfc(-x * _SQRT1_2)) - q_safe) * _SQRT_2PI \
            * xp.exp(0.5 * x * x)
        x = x - error / (1.0 + 0.5 * x * error)
    x = xp.where(q == 0, -xp.inf, x)
    x = xp.where(q == 0.5, 0.0, x)                 # exactly, as Cephes's central formula
    x = xp.where(inside | (q == 0), x, xp.nan)     # outside [0, 1], NaN
    return xp.where(upper, -x, x)


@_special_unary("ndtri", "SpecialNdtriBackward0", ("result",))
def ndtri(xp, self):
    """The inverse of the standard normal CDF (``ndtri(0) = -inf``, NaN outside [0, 1])."""
    _real_only("ndtri_cpu", self)
    _no_half("ndtri_cpu", self)
    return _ndtri64(xp, self.astype(xp.float64)).astype(self.dtype)


@ndtri.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return grad * _SQRT_2PI * exp(result * result / 2)


@_special_unary("log_ndtr", "SpecialLogNdtrBackward0", ("self", "result"))
def log_ndtr(xp, self):
    """log of the standard normal CDF: log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below -1 (the
    lower tail, without underflow), log1p(-erfc(x / sqrt 2) / 2) above."""
    _real_only("log_ndtr_cpu", self)
    _no_half("log_ndtr_cpu", self)
    x = self.astype(xp.float64)
    low = xp.minimum(x, -1.0)
    lower = xp.log(_erfcx64(xp, -low * _SQRT1_2) / 2.0) - low * low / 2.0
    upper = xp.log1p(-0.5 * xp.asarray(_sm.erfc(xp.maximum(x, -1.0) * _SQRT1_2)))
    return xp.where(x < -1.0, lower, upper).astype(self.dtype)


@log_ndtr.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return grad / _SQRT_2PI * exp(-(self * self / 2 + result))


def special_ndtr(input, *, out=None):
    """The standard normal CDF. torch composes it as ``(1 + erf(x / sqrt 2)) * 0.5`` (number
    operands: MulBackward1 over AddBackward1 over ErfBackward0 over MulBackward1)."""
    _require("special_ndtr", input, "input", 1)
    mul, add = OPS["mul.Scalar"], OPS["add.Scalar"]
    if not (input.is_floating_point() or input.is_complex()):
        input = input.to(D.get_default_dtype())   # (as the number's promotion makes it)
    result = mul(add(erf(mul(input, _SQRT1_2)), 1), 0.5)
    if out is None:
        return result
    if result.dtype.category > out.dtype.category:
        raise RuntimeError(f"result type {result.dtype._legacy} can't be cast to the desired "
                           f"output type {out.dtype._legacy}")
    write_out(out, result.contiguous())   # (torch copies into a contiguous out)
    return out


# -- multivariate log-gamma --------------------------------------------------------------------
def _mvlgamma_check(self, p):
    """torch's checks, on the input's own dtype (before integers become floats)."""
    if self.dtype is D.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if self.is_complex():
        raise _not_implemented("arange_cpu", self.dtype.np)


# not laid out as a pointwise op: torch sums over an added dim, so the result is contiguous
@defop("mvlgamma", node="MvlgammaBackward0", promote=Promote.INT_TO_FLOAT, variants=(),
       scalars=(), saves=("self",))
def mvlgamma_op(xp, self, p):
    """sum_j lgamma(x - j / 2) for j < p, plus p (p - 1) / 4 log(pi)."""
    x = xp.array(self, dtype=xp.float64, order="C")
    total = sum(xp.asarray(_sm.lgamma(x - 0.5 * j)) for j in range(p))
    return xp.array(total + p * (p - 1) * math.log(math.pi) / 4, dtype=self.dtype, order="C")


@mvlgamma_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    p = ctx.p
    total = digamma(self - 0.5 * (p - 1))
    for j in range(p - 2, -1, -1):
        total = total + digamma(self - 0.5 * j)
    return grad * total


mvlgamma_op.jvp(AUTO_ELEMENT_WISE)


def _check_p(fname, p, position):
    if type(p) is not int:
        raise TypeError(f"{fname}(): argument 'p' (position {position}) must be int, not "
                        f"{type(p).__name__}")


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension ``p``."""
    _require("mvlgamma", input, "input", 1)
    _check_p("mvlgamma", p, 2)
    _mvlgamma_check(input, p)
    return _call(mvlgamma_op, (input, p), out)


def special_multigammaln(input, p, *, out=None):
    """``torch.special.multigammaln``: ``mvlgamma``."""
    _require("special_multigammaln", input, "input", 1)
    _check_p("special_multigammaln", p, 2)
    _mvlgamma_check(input, p)
    return _call(mvlgamma_op, (input, p), out)


def _mvlgamma_method(self, p):
    _check_p("mvlgamma", p, 1)
    _mvlgamma_check(self, p)
    return mvlgamma_op(self, p)


def mvlgamma_(self, p):
    _check_p("mvlgamma_", p, 1)
    _mvlgamma_check(self, p)
    if not (self.is_floating_point() or self.is_complex()):
        raise RuntimeError(f"mvlgamma: result type {self.dtype._legacy} can't be cast to the "
                           f"desired output type {D.get_default_dtype()._legacy}")
    return mvlgamma_op.call_inplace(self, p)


for _spec in (entr, erfcx, ndtri, log_ndtr):
    _spec.jvp(AUTO_ELEMENT_WISE)
FUNCTIONS.update({"special.ndtr": special_ndtr, "mvlgamma": mvlgamma,
                  "special.multigammaln": special_multigammaln})
METHODS["mvlgamma"] = _mvlgamma_method
METHODS["mvlgamma_"] = INPLACE["mvlgamma_"] = mvlgamma_

FUNCTIONS.update({"heaviside": heaviside, "frexp": frexp})
METHODS.update({"heaviside": _heaviside_method, "frexp": _frexp_method})
METHODS["heaviside_"] = INPLACE["heaviside_"] = heaviside_
