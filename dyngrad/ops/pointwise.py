"""Pointwise ops: arithmetic, comparisons, logical ops, where, clamp, maximum/minimum.

Forward kernels take backend arrays (``xp``); promotion and casting are the dispatcher's job.
Ops with several torch overloads (``div`` with a rounding mode, ``pow`` with a scalar on either
side) declare one primitive per overload (each has its own node name, as in torch) and a small
public function that picks one.
"""
from __future__ import annotations

from .._promotion import Promote
from ._registry import FUNCTIONS, INPLACE, METHODS, defop

ALL = ("function", "method", "inplace", "out")


def _check_alpha(self, other, alpha):
    if alpha is True or alpha is False:
        if self.dtype.kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and self.dtype.kind in "iub":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _kind(x):
    return x.dtype.kind if hasattr(x, "dtype") else {bool: "b", int: "i", float: "f"}.get(
        type(x), "c")


# -- arithmetic --------------------------------------------------------------------------------
@defop("add.Tensor", node="AddBackward0", inputs=("self", "other"), variants=ALL)
def add(xp, self, other, *, alpha=1):
    if alpha != 1 or alpha is True:
        _check_alpha(self, other, alpha)
        other = xp.multiply(other, alpha, dtype=self.dtype)
    return xp.add(self, other)


@defop("sub.Tensor", node="SubBackward0", inputs=("self", "other"), variants=ALL)
def sub(xp, self, other, *, alpha=1):
    ka, kb = _kind(self), _kind(other)
    if ka == "b" and kb == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if ka == "b" or kb == "b":
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    if alpha != 1:
        _check_alpha(self, other, alpha)
        other = xp.multiply(other, alpha, dtype=self.dtype)
    return xp.subtract(self, other)


@defop("mul.Tensor", node="MulBackward0", inputs=("self", "other"), variants=ALL)
def mul(xp, self, other):
    if self.dtype.kind == "b" and _kind(other) == "b":
        return xp.logical_and(self, other)
    return xp.multiply(self, other)


def _int_div_check(xp, other):
    if not xp.all(other):
        raise RuntimeError("ZeroDivisionError")


@defop("div.Tensor", node="DivBackward0", promote=Promote.INT_TO_FLOAT,
       inputs=("self", "other"), variants=(), public="div")
def div_true(xp, self, other):
    return xp.true_divide(self, other)


@defop("div.Tensor_mode", node="DivBackward2", inputs=("self", "other"), variants=(),
       public="div")
def div_mode(xp, self, other, *, rounding_mode):
    if self.dtype.kind in "iub":
        _int_div_check(xp, other)
        if rounding_mode == "floor":
            return xp.floor_divide(self, other)
        q = xp.abs(self) // xp.abs(other)           # C-style truncation for integers
        return xp.where(xp.signbit(self) ^ xp.signbit(other), -q, q).astype(self.dtype)
    q = xp.true_divide(self, other)
    return xp.floor(q) if rounding_mode == "floor" else xp.trunc(q)


def _div_spec(rounding_mode):
    if rounding_mode is None:
        return div_true, {}
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    return div_mode, {"rounding_mode": rounding_mode}


def div(input, other, *, rounding_mode=None, out=None):
    """Divide ``input`` by ``other``; ``rounding_mode`` None (true), 'trunc' or 'floor'."""
    spec, kw = _div_spec(rounding_mode)
    if out is not None:
        kw["out"] = out
    return spec(input, other, **kw)


def div_(self, other, *, rounding_mode=None):
    spec, kw = _div_spec(rounding_mode)
    return spec.call_inplace(self, other, **kw)


@defop("floor_divide", node="FloorDivideBackward0", inputs=("self", "other"), variants=ALL)
def floor_divide(xp, self, other):
    if self.dtype.kind in "iu":
        _int_div_check(xp, other)
    return xp.floor_divide(self, other)


@defop("remainder.Tensor", node="RemainderBackward0", inputs=("self", "other"), variants=ALL)
def remainder(xp, self, other):
    if self.dtype.kind in "iu":
        _int_div_check(xp, other)
    return xp.remainder(self, other)


@defop("neg", node="NegBackward0", variants=ALL)
def neg(xp, self):
    if self.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return xp.negative(self)


@defop("positive", node=None, variants=("function", "method"))
def positive(xp, self):
    if self.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self.copy()


@defop("abs", node="AbsBackward0", promote=Promote.NONE, variants=ALL)
def abs(xp, self):
    if self.dtype.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return xp.abs(self)


# -- pow: three overloads, as torch ------------------------------------------------------------
def _check_int_pow(xp, base, exponent):
    if getattr(base, "dtype", None) is not None and base.dtype.kind in "iu":
        e = exponent
        if (isinstance(e, int) and e < 0) or (hasattr(e, "dtype") and e.dtype.kind in "iu"
                                              and (e < 0).any()):
            raise RuntimeError("Integers to negative integer powers are not allowed.")


@defop("pow.Tensor_Scalar", node="PowBackward0", inputs=("self", "exponent"), variants=(),
       promote=Promote.BOOL_TO_LONG, public="pow")
def pow_scalar(xp, self, exponent):
    _check_int_pow(xp, self, exponent)
    return xp.power(self, exponent)


@defop("pow.Tensor_Tensor", node="PowBackward1", inputs=("self", "exponent"), variants=(),
       promote=Promote.BOOL_TO_LONG, public="pow")
def pow_tensor(xp, self, exponent):
    _check_int_pow(xp, self, exponent)
    return xp.power(self, exponent)


@defop("pow.Scalar", node="PowBackward2", inputs=("self", "exponent"), variants=(),
       promote=Promote.BOOL_TO_LONG, public="pow")
def pow_scalar_base(xp, self, exponent):
    _check_int_pow(xp, self, exponent)
    return xp.power(self, exponent)


def _pow_spec(input, exponent):
    from .._tensor import Tensor
    if not isinstance(input, Tensor):
        return pow_scalar_base
    return pow_tensor if isinstance(exponent, Tensor) else pow_scalar


def pow(input, exponent, *, out=None):
    """``input ** exponent``; either side may be a Python number."""
    spec = _pow_spec(input, exponent)
    return spec(input, exponent) if out is None else spec(input, exponent, out=out)


def pow_(self, exponent):
    return _pow_spec(self, exponent).call_inplace(self, exponent)


# -- unary math ----------------------------------------------------------------------------------
@defop("exp", node="ExpBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL)
def exp(xp, self):
    return xp.exp(self)


@defop("log", node="LogBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL)
def log(xp, self):
    return xp.log(self)


@defop("sqrt", node="SqrtBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL)
def sqrt(xp, self):
    return xp.sqrt(self)


# -- comparisons and logical ops ---------------------------------------------------------------
def _comparison(name, ufunc_name):
    @defop(f"{name}.Tensor", node=None, promote=Promote.ALWAYS_BOOL, inputs=("self", "other"),
           variants=ALL, public=name)
    def cmp(xp, self, other):
        return getattr(xp, ufunc_name)(self, other)
    return cmp


eq = _comparison("eq", "equal")
ne = _comparison("ne", "not_equal")
lt = _comparison("lt", "less")
le = _comparison("le", "less_equal")
gt = _comparison("gt", "greater")
ge = _comparison("ge", "greater_equal")


def _logical(name):
    @defop(name, node=None, promote=Promote.ALWAYS_BOOL, inputs=("self", "other"), variants=ALL)
    def op(xp, self, other):
        return getattr(xp, name)(self, other)
    return op


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


@defop("logical_not", node=None, promote=Promote.NONE, variants=ALL)
def logical_not(xp, self):
    return xp.logical_not(self)


# -- selection ---------------------------------------------------------------------------------
@defop("where.self", node="WhereBackward0", inputs=("condition", "self", "other"),
       variants=("function", "out"), nopromote=("condition",), public="where")
def where(xp, condition, self, other):
    if condition.dtype.kind != "b":
        from .._dtypes import from_np
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {from_np(condition.dtype)._legacy}")
    return xp.where(condition, self, other)


def _where_method(self, condition, other):
    return where(condition, self, other)


@defop("clamp", node="ClampBackward1", inputs=("self", "min", "max"), variants=())
def clamp_scalar(xp, self, min=None, max=None):
    return _clamp(xp, self, min, max)


@defop("clamp.Tensor", node="ClampBackward0", inputs=("self", "min", "max"), variants=())
def clamp_tensor(xp, self, min=None, max=None):
    return _clamp(xp, self, min, max)


def _clamp(xp, x, lo, hi):
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    # min(max(x, lo), hi), as torch: NaN propagates and hi wins when lo > hi
    if lo is not None:
        x = xp.maximum(x, lo)
    if hi is not None:
        x = xp.minimum(x, hi)
    return x


def _clamp_spec(min, max):
    from .._tensor import Tensor
    return clamp_tensor if isinstance(min, Tensor) or isinstance(max, Tensor) else clamp_scalar


def clamp(input, min=None, max=None, *, out=None):
    """Limit values to [min, max]; bounds are numbers or tensors."""
    spec = _clamp_spec(min, max)
    return spec(input, min, max) if out is None else spec(input, min, max, out=out)


def clamp_(self, min=None, max=None):
    return _clamp_spec(min, max).call_inplace(self, min, max)


@defop("maximum", node="MaximumBackward0", inputs=("self", "other"), variants=("function",
       "method", "out"))
def maximum(xp, self, other):
    return xp.maximum(self, other)


@defop("minimum", node="MinimumBackward0", inputs=("self", "other"), variants=("function",
       "method", "out"))
def minimum(xp, self, other):
    return xp.minimum(self, other)


for _name, _fn in (("div", div), ("true_divide", div), ("pow", pow), ("clamp", clamp),
                   ("clip", clamp)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
for _name, _fn in (("div_", div_), ("true_divide_", div_), ("pow_", pow_), ("clamp_", clamp_),
                   ("clip_", clamp_)):
    METHODS[_name] = INPLACE[_name] = _fn
METHODS["where"] = _where_method
