"""Pointwise unary math: exponentials and logarithms (exp2, expm1, log2, log10, log1p, rsqrt),
trigonometric and hyperbolic functions and their inverses, the error and gamma families (erf,
erfc, erfinv, lgamma, digamma, polygamma), rounding (floor, ceil, round, trunc/fix, frac),
nan_to_num, the floating-point predicates (isnan, isinf, ...), deg2rad/rad2deg, sinc and angle,
plus their ``torch.special`` and ``arc*`` aliases. exp, log, sqrt and reciprocal live in
pointwise.py, neg, abs and pow in arithmetic.py.

Each primitive's derivative follows its kernel, as in torch's derivatives.yaml, written with
dyngrad ops so that it is differentiable again; for complex inputs the derivative factor is
conjugated (Note [Complex gradients] in _autograd_utils.py). Integer and bool inputs compute in
the default float dtype (``Promote.INT_TO_FLOAT``) like torch. NumPy lacks the special
functions: they come from ``backends/special_math.py``, which computes in float64 (or in float32
where torch's own kernel does, see Note [digamma as torch computes it] there); the kernels here
cast the result to the op's dtype.
"""
from __future__ import annotations

import math

from .._promotion import Promote
from .._utils import plain_int
from ..backends import special_math as _sm
from ..backends import numpy_backend as _npb
from ._autograd_utils import arrays_only, backward_op, conj, contiguous, from_array
from ._registry import FUNCTIONS, INPLACE, METHODS, OPS, defop
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, FROM_BACKWARD, fw_not_implemented
from .creation import laid_out_like, zeros_like
from .activation import _like, _opmath
from .pointwise import ALL, _call, _not_implemented, _tensor_cls, exp, where_self
from ._arg_parser import type_name as _tp_name

LN2 = math.log(2.0)
LN10 = math.log(10.0)
TWO_RSQRT_PI = 2.0 / math.sqrt(math.pi)
PI_180 = math.pi / 180.0
D180_PI = 180.0 / math.pi


def _unary(name, node, saves=(), promote=Promote.INT_TO_FLOAT, variants=ALL, ufunc=None):
    """defop for a one-tensor pointwise op (a Python number as input is a TypeError)."""
    return defop(name, node=node, promote=promote, variants=variants, scalars=(), saves=saves,
                 pointwise=True, ufunc=ufunc)


def _real_only(kernel_name, x):
    """torch's error for a kernel compiled for real floating types only (erf_vml_cpu…)."""
    if x.dtype.kind == "c":
        raise _not_implemented(kernel_name, x.dtype)


def _as(values, like):
    """A float64 (or float32) result of special_math in the dtype of the kernel's input."""
    return values.astype(like.dtype, copy=False)


# -- exponentials and logarithms ------------------------------------------------------------
@_unary("exp2", "Exp2Backward0", saves=("result",))
def exp2(xp, self):
    return xp.exp2(self)


@exp2.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return grad * conj(result) * LN2


exp2.jvp(AUTO_ELEMENT_WISE)


@_unary("expm1", "Expm1Backward0", saves=("result",))
def expm1(xp, self):
    return xp.expm1(self)


@expm1.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return grad * (conj(result) + 1)


expm1.jvp(AUTO_ELEMENT_WISE)


@_unary("log2", "Log2Backward0", saves=("self",))
def log2(xp, self):
    return xp.log2(self)


@log2.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad / (conj(self) * LN2)


log2.jvp(AUTO_ELEMENT_WISE)


@_unary("log10", "Log10Backward0", saves=("self",))
def log10(xp, self):
    return xp.log10(self)


@log10.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad / (conj(self) * LN10)


log10.jvp(AUTO_ELEMENT_WISE)


@_unary("log1p", "Log1PBackward0", saves=("self",))
def log1p(xp, self):
    return xp.log1p(self)


@log1p.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad / conj(self + 1)       # inf at -1, as torch


log1p.jvp(AUTO_ELEMENT_WISE)


@_unary("rsqrt", "RsqrtBackward0", saves=("result",))
def rsqrt(xp, self):
    return xp.reciprocal(xp.sqrt(self))      # -inf at -0.0, as torch


@rsqrt.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return -0.5 * grad * conj(result ** 3)


rsqrt.jvp(AUTO_ELEMENT_WISE)


# -- trigonometric -----------------------------------------------------------------------------
@_unary("sin", "SinBackward0", saves=("self",), ufunc="sin")
def sin(xp, self):
    return xp.sin(self)


@sin.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * conj(cos(self))


sin.jvp(AUTO_ELEMENT_WISE)


@_unary("cos", "CosBackward0", saves=("self",), ufunc="cos")
def cos(xp, self):
    return xp.cos(self)


@cos.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * -conj(sin(self))


cos.jvp(AUTO_ELEMENT_WISE)


@_unary("tan", "TanBackward0", saves=("result",))
def tan(xp, self):
    return xp.tan(self)


@tan.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return grad * conj(1 + result * result)


tan.jvp(AUTO_ELEMENT_WISE)


@_unary("asin", "AsinBackward0", saves=("self",))
def asin(xp, self):
    return xp.arcsin(self)


@asin.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * conj(rsqrt(-self * self + 1))      # inf at +-1, as torch


asin.jvp(AUTO_ELEMENT_WISE)


@_unary("acos", "AcosBackward0", saves=("self",))
def acos(xp, self):
    return xp.arccos(self)


@acos.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * -conj(rsqrt(-self * self + 1))


acos.jvp(AUTO_ELEMENT_WISE)


@_unary("atan", "AtanBackward0", saves=("self",))
def atan(xp, self):
    return xp.arctan(self)


@atan.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad / conj(self * self + 1)


atan.jvp(AUTO_ELEMENT_WISE)


# -- hyperbolic --------------------------------------------------------------------------------
@_unary("sinh", "SinhBackward0", saves=("self",))
def sinh(xp, self):
    return xp.sinh(self)


@sinh.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * conj(cosh(self))


sinh.jvp(AUTO_ELEMENT_WISE)


@_unary("cosh", "CoshBackward0", saves=("self",))
def cosh(xp, self):
    return xp.cosh(self)


@cosh.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * conj(sinh(self))


cosh.jvp(AUTO_ELEMENT_WISE)


@_unary("tanh", "TanhBackward0", saves=("result",), ufunc="tanh")
def tanh(xp, self):
    return xp.tanh(self)


@tanh.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return backward_op(tanh_backward, grad, result)


# Note [tanh and sigmoid backward are ops]: as in torch, TanhBackward0 and SigmoidBackward0 call
# one primitive each (``tanh_backward``, ``sigmoid_backward``; sigmoid's lives in
# activation_smooth.py) instead of three pointwise ops: one dispatch per node, float16 computed
# in float32 as torch's kernels do, and a double backward with torch's nodes
# (TanhBackwardBackward0...). Backward-only: kept out of the op database (``OPS``).
@defop("tanh_backward", node="TanhBackwardBackward0", inputs=("grad_output", "output"),
       saves=("grad_output", "output"), variants=(), scalars=(), pointwise=True)
def tanh_backward(xp, grad_output, output):
    y = _opmath(output)   # (float16 in float32, as torch's kernels)
    if y.dtype.kind == "c":   # Note [Complex gradients]: the factor conjugated
        return grad_output * xp.conj(1 - y * y)
    # grad * (1 - y * y), each step written into the first one's fresh array: the same numbers
    # with one allocation instead of three (4.7 -> 3.3 us on 64 x 64 float64)
    factor = y * y
    if type(factor) is not xp.ndarray or grad_output.shape != factor.shape:
        # (0-dim, where NumPy answers with a scalar; a gradient broadcasting the output)
        return _like(_opmath(grad_output) * (1 - factor), output)
    xp.subtract(1, factor, out=factor)
    xp.multiply(_opmath(grad_output), factor, out=factor)
    return _like(factor, output)


@tanh_backward.backward
def _(ctx, grad):
    grad_output, output = ctx.saved_tensors
    need_grad, need_output = ctx.needs_input_grad
    if arrays_only(grad, grad_output, output) and contiguous(grad, grad_output, output):
        # Note [Array formulas]: the kernel and the three products below, on the arrays
        g, go, y = grad._data, grad_output._data, output._data
        grad_output_grad = None
        if need_output:   # g * (-2 * y * go), in the first product's fresh array
            grad_output_grad = -2 * y
            if type(grad_output_grad) is _npb.ndarray and y.shape == go.shape == g.shape:
                grad_output_grad *= go
                _npb.xp.multiply(g, grad_output_grad, out=grad_output_grad)
            else:   # (0-dim, where NumPy answers with a scalar; broadcast operands)
                grad_output_grad = g * (grad_output_grad * go)
            grad_output_grad = from_array(grad_output_grad)
        return (from_array(tanh_backward.kernel(_npb.xp, g, y)) if need_grad else None,
                grad_output_grad)
    return (tanh_backward(grad, conj(output)) if need_grad else None,
            conj(grad) * (-2 * conj(output) * grad_output) if need_output else None)


@tanh_backward.jvp
def _(ctx, grad_output_t, output_t):
    # torch's formula: the op conjugates `output` for complex values (not holomorphic in it), so
    # its term takes conj(output_t); AUTO_ELEMENT_WISE's conjugation trick fits only holomorphic
    # ops
    grad_output, output = ctx.primals
    return tanh_backward(grad_output_t, output) + \
        conj(output_t) * (-2 * conj(output) * grad_output)


del OPS[tanh_backward.name]


tanh.jvp(AUTO_ELEMENT_WISE)


# Note [In-place inverse hyperbolics]
# torch has no derivative for asinh_, acosh_ and atanh_ (derivatives.yaml: not_implemented):
# the in-place forms record AsinhBackward1 & co., whose backward raises. They are primitives of
# their own so that the node names match.
def _inverse_hyperbolic(name, ufunc_name, formula):
    title = name.capitalize()
    op = _unary(name, f"{title}Backward0", saves=("self",), variants=("function", "method",
                                                                        "out"))(
        lambda xp, self: getattr(xp, ufunc_name)(self))
    op.backward(formula)
    op.jvp(AUTO_ELEMENT_WISE)
    in_place = _unary(f"{name}_", f"{title}Backward1", variants=())(
        lambda xp, self: getattr(xp, ufunc_name)(self))

    @in_place.backward
    def _(ctx, grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not "
                                  "implemented.")

    in_place.jvp(fw_not_implemented(f"{name}_", explicit=True))

    METHODS[name + "_"] = INPLACE[name + "_"] = in_place.call_inplace
    return op


def _asinh_grad(ctx, grad):
    self, = ctx.saved_tensors
    return grad * conj(rsqrt(self * self + 1))


def _acosh_grad(ctx, grad):
    self, = ctx.saved_tensors
    if self.is_complex():   # sqrt(x - 1) sqrt(x + 1) is not sqrt(x² - 1) off the real line
        return grad * conj(rsqrt(self + 1) * rsqrt(self - 1))
    return grad * rsqrt(self * self - 1)


def _atanh_grad(ctx, grad):
    self, = ctx.saved_tensors
    return grad / conj(1 - self * self)


asinh = _inverse_hyperbolic("asinh", "arcsinh", _asinh_grad)
acosh = _inverse_hyperbolic("acosh", "arccosh", _acosh_grad)
atanh = _inverse_hyperbolic("atanh", "arctanh", _atanh_grad)


# -- error function family ---------------------------------------------------------------------
@_unary("erf", "ErfBackward0", saves=("self",))
def erf(xp, self):
    _real_only("erf_vml_cpu", self)
    return _as(_sm.erf(self), self)


@erf.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return TWO_RSQRT_PI * exp(-(self * self)) * grad


erf.jvp(AUTO_ELEMENT_WISE)


@_unary("erfc", "ErfcBackward0", saves=("self",))
def erfc(xp, self):
    _real_only("erfc_vml_cpu", self)
    return _as(_sm.erfc(self), self)


@erfc.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return -TWO_RSQRT_PI * exp(-(self * self)) * grad


erfc.jvp(AUTO_ELEMENT_WISE)


@_unary("erfinv", "ErfinvBackward0", saves=("self",))
def erfinv(xp, self):
    _real_only("erfinv_vml_cpu", self)
    return _as(_sm.erfinv(self), self)


@erfinv.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    x = erfinv(self)
    return (1.0 / TWO_RSQRT_PI) * exp(x * x) * grad   # sqrt(pi)/2 exp(erfinv(y)^2)


erfinv.jvp(AUTO_ELEMENT_WISE)


# -- gamma family ------------------------------------------------------------------------------
@_unary("lgamma", "LgammaBackward0", saves=("self",))
def lgamma(xp, self):
    _real_only("lgamma_vml_cpu", self)
    return _as(_sm.lgamma(self), self)


@lgamma.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * digamma(self)


lgamma.jvp(AUTO_ELEMENT_WISE)


@_unary("digamma", "DigammaBackward0", saves=("self",))
def digamma(xp, self):
    _real_only("digamma", self)
    return _as(_sm.digamma(self), self)


@digamma.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * polygamma_op(self, 1)


digamma.jvp(AUTO_ELEMENT_WISE)


def _polygamma_kernel(xp, self, n):
    _real_only(("digamma", "trigamma")[n] if n < 2 else "polygamma", self)
    return _as(_sm.polygamma(n, self), self)


# torch's schema is polygamma(int n, Tensor self); the kernel takes the tensor first, and the
# public function below puts n back in front
polygamma_op = _unary("polygamma", "PolygammaBackward0", saves=("self",),
                      variants=())(_polygamma_kernel)
polygamma_inplace = _unary("polygamma_", "PolygammaBackward1", saves=("self",),
                           variants=())(_polygamma_kernel)


@polygamma_op.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * polygamma_op(self, ctx.n + 1)


polygamma_op.jvp(AUTO_ELEMENT_WISE)


polygamma_inplace.backward(polygamma_op.backward_fn)
polygamma_inplace.jvp(AUTO_ELEMENT_WISE)


def _check_n(n):
    if type(n) is not int:
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma (``polygamma(0, x)`` is ``digamma(x)``)."""
    _check_n(n)
    _require(input, "polygamma")
    return _call(polygamma_op, (input, n), out)


def _polygamma_method(self, n):
    _check_n(n)
    return polygamma_op(self, n)


def polygamma_(self, n):
    _check_n(n)
    return polygamma_inplace.call_inplace(self, n)


# -- rounding ------------------------------------------------------------------------------------
def _rounding(name, ufunc_name, node, complex_message):
    """floor/ceil/trunc: integers are returned as they are (a copy); bool and complex raise."""
    @_unary(name, node, promote=Promote.DEFAULT)
    def op(xp, self):
        kind = self.dtype.kind
        if kind == "b":
            raise _not_implemented(f"{ufunc_name}_vml_cpu", self.dtype)
        if kind == "c":
            if complex_message is None:
                raise _not_implemented(f"{ufunc_name}_vml_cpu", self.dtype)
            raise NotImplementedError(complex_message)
        if kind in "iu":
            return self.copy()
        return getattr(xp, ufunc_name)(self)

    op.backward(_zero_grad)
    op.jvp(AUTO_ELEMENT_WISE)
    return op


def _zero_grad(ctx, grad):
    return zeros_like(grad)


floor = _rounding("floor", "floor", "FloorBackward0", "floor is not supported for complex inputs")
ceil = _rounding("ceil", "ceil", "CeilBackward0", "ceil is not supported for complex inputs")
trunc = _rounding("trunc", "trunc", "TruncBackward0", "trunc is not supported for complex inputs")
round_half_even = _rounding("round", "round", "RoundBackward0", None)   # NumPy rounds half to even


@_unary("round.decimals", "RoundBackward1", promote=Promote.DEFAULT, variants=())
def round_decimals(xp, self, *, decimals):
    if self.dtype.kind not in "fV":
        raise _not_implemented("round_cpu", self.dtype)
    # torch scales by 10^|decimals| (a double, cast to the compute type), rounds half to even,
    # and scales back; half precision computes in float
    work = self.astype(xp.float32) if self.dtype in _npb.LOW else self
    scale = work.dtype.type(xp.power(10.0, abs(decimals)))
    if decimals < 0:
        return (xp.rint(work / scale) * scale).astype(self.dtype, copy=False)
    return (xp.rint(work * scale) / scale).astype(self.dtype, copy=False)


round_decimals.backward(_zero_grad)
round_decimals.jvp(AUTO_ELEMENT_WISE)

_ROUND_OVERLOADS = ("(Tensor input, *, Tensor out = None)",
                    "(Tensor input, *, int decimals, Tensor out = None)")


def round(input, *, decimals=None, out=None):
    """Round half to even; with ``decimals``, to that many decimal places (negative: tens...)."""
    if decimals is None:
        return _call(round_half_even, (input,), out)
    decimals = plain_int(decimals)
    if type(decimals) is not int:
        raise TypeError("round() received an invalid combination of arguments - got (Tensor, "
                        f"decimals={type(decimals).__name__}), but expected one of:\n"
                        + "".join(f" * {o}\n" for o in _ROUND_OVERLOADS))
    _require(input, "round")
    if out is None:
        return round_decimals(input, decimals=decimals)
    return round_decimals(input, decimals=decimals, out=out)


def _round_method(self, *, decimals=None):
    if decimals is None:
        return round_half_even(self)
    return round_decimals(self, decimals=decimals)


def round_(self, *, decimals=None):
    if decimals is None:
        return round_half_even.call_inplace(self)
    return round_decimals.call_inplace(self, decimals=decimals)


def special_round(input, *, decimals=0, out=None):
    """``torch.special.round``: always the ``decimals`` overload (RoundBackward1)."""
    _require(input, "special_round")
    return round(input, decimals=decimals, out=out)


@_unary("frac", "FracBackward0", promote=Promote.DEFAULT)
def frac(xp, self):
    if self.dtype.kind not in "fV":
        raise _not_implemented("frac_cpu", self.dtype)
    return self - xp.trunc(self)


@frac.backward
def _(ctx, grad):
    return grad


frac.jvp(AUTO_ELEMENT_WISE)


# -- nan_to_num ----------------------------------------------------------------------------------
@_unary("nan_to_num", "NanToNumBackward0", saves=("self",), promote=Promote.DEFAULT)
def nan_to_num(xp, self, nan=None, posinf=None, neginf=None):
    # torch allocates the result as empty_like(self): self's own strides when it is dense, a
    # size-1 dim's included (which NumPy's results do not keep)
    return laid_out_like(_nan_to_num_values(xp, self, nan, posinf, neginf), self)


def _nan_to_num_values(xp, self, nan, posinf, neginf):
    kind = self.dtype.kind
    if kind in "biu":
        return self.copy()
    if kind == "c":            # real and imaginary parts separately
        out = xp.empty_like(self)
        out.real = _nan_to_num_values(xp, self.real, nan, posinf, neginf)
        out.imag = _nan_to_num_values(xp, self.imag, nan, posinf, neginf)
        return out
    info = _npb.finfo(self.dtype)
    t = self.dtype.type
    out = xp.where(xp.isnan(self), t(0.0 if nan is None else nan), self)
    out = xp.where(out == xp.inf, info.max if posinf is None else t(posinf), out)
    return xp.where(out == -xp.inf, info.min if neginf is None else t(neginf), out)


def _nan_to_num(input, nan=None, posinf=None, neginf=None, *, out=None):
    """Replace NaN, +inf and -inf (by default: 0, the largest and the lowest finite value)."""
    if out is not None and isinstance(input, _tensor_cls()) and not (
            input.is_floating_point() or input.is_complex()):
        input = input.contiguous()   # torch copies integers into a resized out: contiguous
    result = _call(nan_to_num, (input, nan, posinf, neginf), out)
    if out is None and result._data.dtype.kind == "c":
        from .gather_scatter import no_complex_autograd
        no_complex_autograd("nan_to_num", result.dtype, input)
    return result


def _nan_to_num_method(self, nan=None, posinf=None, neginf=None):
    return _nan_to_num(self, nan, posinf, neginf)


def nan_to_num_(self, nan=None, posinf=None, neginf=None):
    if not (self.is_floating_point() or self.is_complex()):
        self._bump_version()        # torch copies the tensor onto itself: nothing changes
        return self
    return nan_to_num.call_inplace(self, nan, posinf, neginf)


@nan_to_num.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * isfinite(self)


nan_to_num.jvp(AUTO_ELEMENT_WISE)


# -- predicates: bool results, no graph ----------------------------------------------------------
def _predicate(name, variants=("function", "method")):
    """defop for a bool-valued test (no node: its result never requires grad)."""
    return defop(name, node=None, promote=Promote.ALWAYS_BOOL, variants=variants, scalars=(),
                 pointwise=True)


@_predicate("isnan")
def isnan(xp, self):
    return xp.isnan(self) if self.dtype.kind in "fcV" else xp.zeros(self.shape, bool)


@_predicate("isinf")
def isinf(xp, self):
    return xp.isinf(self) if self.dtype.kind in "fcV" else xp.zeros(self.shape, bool)


@_predicate("isfinite")
def isfinite(xp, self):
    return xp.isfinite(self) if self.dtype.kind in "fcV" else xp.ones(self.shape, bool)


def _no_out(spec):
    """The function form of a test torch declares without ``out=`` (Python then refuses it)."""
    def fn(input):
        return spec(input)
    fn.__name__ = fn.__qualname__ = spec.base
    fn.__doc__ = f"Elementwise ``{spec.base}`` (a bool tensor)."
    return fn


for _spec in (isnan, isinf, isfinite):
    FUNCTIONS[_spec.base] = _no_out(_spec)


def _signed_infinity(name, sign):
    def test(xp, self):
        if self.dtype.kind == "c":
            raise RuntimeError(f"{name} does not support complex inputs.")
        if self.dtype.kind not in "fV":
            return xp.zeros(self.shape, bool)
        return self == sign * xp.inf
    return _predicate(name, ("function", "method", "out"))(test)


isposinf = _signed_infinity("isposinf", 1)
isneginf = _signed_infinity("isneginf", -1)


@_predicate("signbit", ("function", "method", "out"))
def signbit(xp, self):
    kind = self.dtype.kind
    if kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if kind in "bu":
        return xp.zeros(self.shape, bool)
    return xp.signbit(self)


# -- angles, sinc --------------------------------------------------------------------------------
def _no_complex_angles(name, x):
    if x.dtype.kind == "c":
        raise RuntimeError(f"{name} is not supported for complex tensors.")


@_unary("deg2rad", "Deg2RadBackward0")
def deg2rad(xp, self):
    _no_complex_angles("deg2rad", self)
    return self * PI_180


@deg2rad.backward
def _(ctx, grad):
    return grad * PI_180


deg2rad.jvp(AUTO_ELEMENT_WISE)


@_unary("rad2deg", "Rad2DegBackward0")
def rad2deg(xp, self):
    _no_complex_angles("rad2deg", self)
    return self * D180_PI


@rad2deg.backward
def _(ctx, grad):
    return grad * D180_PI


rad2deg.jvp(AUTO_ELEMENT_WISE)


@_unary("sinc", "SincBackward0", saves=("self",))
def sinc(xp, self):
    work = self.astype(xp.float32) if self.dtype in _npb.LOW else self
    product = work * math.pi
    return xp.where(work == 0, 1, xp.sin(product) / product).astype(self.dtype)


@sinc.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    self_pi = self * math.pi
    denominator = self * self * math.pi
    out = grad * conj((self_pi * cos(self_pi) - sin(self_pi)) / denominator)
    return where_self(denominator == 0.0, zeros_like(grad), out)   # sinc is flat at 0


sinc.jvp(AUTO_ELEMENT_WISE)


# angle promotes integers to float and gives complex numbers their real dtype: one primitive
# per promotion kind (torch has one op), picked by the public function
@_unary("angle", "AngleBackward0", saves=("self",), variants=())
def angle_real(xp, self):
    # pi for negative numbers, 0 otherwise (-0.0 included), NaN kept
    return xp.where(self < 0, self.dtype.type(math.pi), xp.where(xp.isnan(self), self, 0))


@defop("angle.complex", node="AngleBackward0", saves=("self",), scalars=(),
       promote=Promote.COMPLEX_TO_FLOAT, variants=())
def angle_complex(xp, self):
    return xp.asarray(xp.angle(self)).copy(order="C")   # torch's result is contiguous here


@angle_real.backward
def _(ctx, grad):   # torch's: zeros laid out as the input
    self, = ctx.saved_tensors
    return zeros_like(self, dtype=grad.dtype)


angle_real.jvp(AUTO_ELEMENT_WISE)


@angle_complex.backward
def _(ctx, grad):   # torch's angle_backward: d arg(z) = Im(dz / z)
    self, = ctx.saved_tensors
    return where_self(self == 0.0, 0.0, grad * self / self.abs().pow(2) * 1j)


angle_complex.jvp(FROM_BACKWARD)


def angle(input, *, out=None):
    """The argument of each element: pi for negative reals, 0 for the others."""
    _require(input, "angle")
    return _call(angle_complex if input.is_complex() else angle_real, (input,), out)


# -- composites and aliases --------------------------------------------------------------------
def square(input, *, out=None):
    """``input * input``; torch computes it as ``pow(input, 2)`` (PowBackward0)."""
    _require(input, "square")
    pow_ = FUNCTIONS["pow"]
    return pow_(input, 2) if out is None else pow_(input, 2, out=out)


def square_(self):
    return METHODS["pow_"](self, 2)


def _require(input, name):
    if not isinstance(input, _tensor_cls()):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")


def _alias(public_name, target):
    """``torch.arcsin`` → asin & co.: the same op under another name (its own TypeError text)."""
    def fn(input, *args, **kwargs):
        _require(input, public_name)
        return target(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = f"Alias of ``{getattr(target, 'base', getattr(target, '__name__', ''))}``."
    return fn


_ALIASES = {"arcsin": asin, "arccos": acos, "arctan": atan, "arcsinh": asinh,
            "arccosh": acosh, "arctanh": atanh, "fix": trunc}
for _name, _spec in _ALIASES.items():
    FUNCTIONS[_name] = _alias(_name, _spec)
    METHODS[_name] = _spec
    _inplace = METHODS.get(_spec.base + "_")
    if _inplace is not None:
        METHODS[_name + "_"] = INPLACE[_name + "_"] = _inplace

_SPECIAL = {"exp2": exp2, "expm1": expm1, "log1p": log1p, "erf": erf, "erfc": erfc,
            "erfinv": erfinv, "gammaln": lgamma, "digamma": digamma, "psi": digamma,
            "sinc": sinc}
for _name, _spec in _SPECIAL.items():
    FUNCTIONS["special." + _name] = _alias("special_" + _name, _spec)


def special_polygamma(n, input, *, out=None):
    """``torch.special.polygamma``."""
    return polygamma(n, input, out=out)


METHODS["angle"] = angle
FUNCTIONS.update({"angle": angle, "nan_to_num": _nan_to_num, "polygamma": polygamma,
                  "special.polygamma": special_polygamma, "round": round,
                  "special.round": special_round, "square": square})
METHODS.update({"polygamma": _polygamma_method, "round": _round_method, "square": square,
                "nan_to_num": _nan_to_num_method})
for _name, _fn in (("nan_to_num_", nan_to_num_), ("polygamma_", polygamma_), ("round_", round_),
                   ("square_", square_)):
    METHODS[_name] = INPLACE[_name] = _fn
del _name, _spec, _fn, _inplace
