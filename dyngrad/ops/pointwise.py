"""Pointwise ops: arithmetic, pow, unary math, comparisons, logical and bitwise ops, where,
clamp, maximum/minimum, real/imag.

Forward kernels take backend arrays (``xp``); promotion and casting are the dispatcher's job, so
a kernel sees its inputs already in the computation dtype (Python numbers stay numbers). Ops with
several torch overloads (``div`` with a rounding mode, ``pow`` with a number on either side)
declare one primitive per overload, each with its own node name as in torch, and a small public
function that picks one.

Note [Checks on the inputs' own dtypes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A kernel only sees the promoted dtype. The few torch checks that look at the dtypes *before*
promotion (``sub`` refuses a bool operand even when the other one is an int: ``b - 1``) live in
the public function, which then dispatches the primitive.
"""
from __future__ import annotations

import warnings

from .. import _dtypes as D
from .._promotion import Promote
from ..backends import numpy_backend as _npb
from . import _registry
from ._registry import FUNCTIONS, INPLACE, METHODS, OpSpec, defop

ALL = ("function", "method", "inplace", "out")
NO_INPLACE = ("function", "method", "out")


def _dtype(*values):
    """The (promoted) dtype of a kernel's inputs: the first array among them."""
    for v in values:
        d = getattr(v, "dtype", None)
        if d is not None:
            return d
    return None


def _not_implemented(kernel_name: str, np_dtype) -> NotImplementedError:
    """torch's error for a dtype a CPU kernel was not compiled for."""
    return NotImplementedError(f'"{kernel_name}" not implemented for '
                               f"'{D.from_np(np_dtype)._legacy}'")


def _call(spec: OpSpec, args, out):
    return spec(*args) if out is None else spec(*args, out=out)


def _tensor_cls():
    return _registry._Tensor   # bound by _tensor.py once the class exists


_WARNED: set = set()


def _warn_once(message: str) -> None:
    """TORCH_WARN_ONCE: the first time in the process only."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


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
    return xp.multiply(other, alpha, dtype=dtype)


@defop("add.Tensor", node="AddBackward0", inputs=("self", "other"), variants=ALL,
       pointwise=True)
def add(xp, self, other, *, alpha=1):
    if alpha != 1 or type(alpha) is not int:
        other = _scaled(xp, other, alpha, _dtype(self, other))
    return xp.add(self, other)


@defop("sub.Tensor", node="SubBackward0", inputs=("self", "other"), variants=(),
       pointwise=True, public="sub")
def sub_tensor(xp, self, other, *, alpha=1):
    if alpha != 1 or type(alpha) is not int:
        other = _scaled(xp, other, alpha, _dtype(self, other))
    return xp.subtract(self, other)


def _rsub(xp, self, other, alpha):
    if alpha != 1 or type(alpha) is not int:
        self = _scaled(xp, self, alpha, _dtype(self, other))
    return xp.subtract(other, self)


@defop("rsub.Tensor", node="RsubBackward0", inputs=("self", "other"), variants=(),
       pointwise=True, public="rsub")
def rsub_tensor(xp, self, other, *, alpha=1):
    return _rsub(xp, self, other, alpha)


@defop("rsub.Scalar", node="RsubBackward1", inputs=("self", "other"), variants=(),
       pointwise=True, public="rsub")
def rsub_scalar(xp, self, other, alpha=1):
    return _rsub(xp, self, other, alpha)


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
    _sub_check(input, other)
    spec = rsub_tensor if isinstance(other, _tensor_cls()) else rsub_scalar
    if alpha == 1 and type(alpha) is int:
        return spec(input, other)
    return spec(input, other, alpha=alpha)


@defop("mul.Tensor", node="MulBackward0", inputs=("self", "other"), variants=ALL,
       pointwise=True)
def mul(xp, self, other):
    return xp.multiply(self, other)


# -- division ----------------------------------------------------------------------------------
def _check_int_divisor(xp, other) -> None:
    if not xp.all(other):
        raise RuntimeError("ZeroDivisionError")


@defop("div.Tensor", node="DivBackward0", promote=Promote.INT_TO_FLOAT,
       inputs=("self", "other"), variants=(), public="div", pointwise=True)
def div_true(xp, self, other):
    return xp.true_divide(self, other)


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
    if dt.kind == "f":
        return xp.trunc(xp.true_divide(self, other))
    _check_int_divisor(xp, other)
    q = xp.floor_divide(self, other)
    if dt.kind == "u":
        return q
    # C truncation: one more than the floor where the division is inexact and signs differ
    inexact = xp.not_equal(xp.remainder(self, other), 0)
    return q + (inexact & xp.not_equal(xp.less(self, 0), xp.less(other, 0))).astype(dt)


@defop("div.Tensor_mode", node="DivBackward2", inputs=("self", "other"), variants=(),
       public="div", pointwise=True)
def div_mode(xp, self, other, *, rounding_mode):
    if rounding_mode == "floor":
        return _floor_div(xp, self, other, "div_floor_cpu")
    return _trunc_div(xp, self, other)


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
@defop("floor_divide", node="NotImplemented", inputs=("self", "other"), variants=ALL,
       pointwise=True)
def floor_divide(xp, self, other):
    return _floor_div(xp, self, other, "div_floor_cpu")


def _remainder(xp, self, other):
    dt = _dtype(self, other)
    if dt.kind in "bc":
        raise _not_implemented("remainder_cpu", dt)
    if dt.kind in "iu":
        _check_int_divisor(xp, other)
    return xp.remainder(self, other)


@defop("remainder.Tensor", node="RemainderBackward1", inputs=("self", "other"), variants=(),
       public="remainder", pointwise=True)
def remainder_tensor(xp, self, other):
    return _remainder(xp, self, other)


@defop("remainder.Scalar", node="RemainderBackward0", inputs=("self", "other"), variants=(),
       public="remainder", pointwise=True)
def remainder_scalar(xp, self, other):
    return _remainder(xp, self, other)


@defop("remainder.Scalar_Tensor", node="NotImplemented", inputs=("self", "other"),
       variants=(), public="remainder", pointwise=True)
def remainder_scalar_tensor(xp, self, other):
    return _remainder(xp, self, other)


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


def _require_tensor(name, input):
    if not isinstance(input, _tensor_cls()):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def positive(input):
    """Returns ``input`` itself (torch returns the same tensor object)."""
    _require_tensor("positive", input)
    if input.dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@defop("abs", node="AbsBackward0", promote=Promote.COMPLEX_TO_FLOAT, variants=(),
       scalars=(), pointwise=True, public="abs")
def abs_spec(xp, self):
    if self.dtype.kind == "b":
        raise _not_implemented("abs_cpu", self.dtype)
    return xp.abs(self)


def abs(input, *, out=None):
    """Absolute value; complex inputs give their real dtype."""
    if out is None:
        return abs_spec(input)
    if isinstance(input, _tensor_cls()) and input.is_complex() and not out.is_complex():
        # torch computes into a fresh tensor and copies it into a contiguous out
        from ._registry import _write_out
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
       public="pow", pointwise=True)
def pow_tensor_scalar(xp, self, exponent):
    if self.dtype.kind == "b":           # bool ** True / bool ** False: torch's shortcuts
        if exponent == 0:
            return xp.ones_like(self)
        if exponent == 1:
            return self.copy()
    if self.dtype.kind in "iu" and not isinstance(exponent, float) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _pow(xp, self, exponent)


@defop("pow.Tensor_Tensor", node="PowBackward1", inputs=("self", "exponent"), variants=(),
       public="pow", pointwise=True)
def pow_tensor_tensor(xp, self, exponent):
    return _pow(xp, self, exponent)


@defop("pow.Scalar", node="PowBackward2", inputs=("self", "exponent"), variants=(),
       public="pow", pointwise=True)
def pow_scalar(xp, self, exponent):
    return _pow(xp, self, exponent)


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


# -- unary math --------------------------------------------------------------------------------
@defop("exp", node="ExpBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL, scalars=(),
       pointwise=True)
def exp(xp, self):
    return xp.exp(self)


@defop("log", node="LogBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL, scalars=(),
       pointwise=True)
def log(xp, self):
    return xp.log(self)


@defop("sqrt", node="SqrtBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL, scalars=(),
       pointwise=True)
def sqrt(xp, self):
    return xp.sqrt(self)


# -- comparisons and logical ops ---------------------------------------------------------------
def _comparison(name, ufunc_name, ordered):
    # the .Tensor overload serves Python numbers too (torch wraps them as 0-dim tensors)
    @defop(f"{name}.Tensor", node=None, promote=Promote.ALWAYS_BOOL, inputs=("self", "other"),
           variants=ALL, public=name, scalars=("other",), pointwise=True)
    def cmp(xp, self, other):
        if ordered:
            dt = _dtype(self, other)
            if dt.kind == "c":
                raise _not_implemented(f"{name}_cpu", dt)
        return getattr(xp, ufunc_name)(self, other)
    return cmp


eq = _comparison("eq", "equal", False)
ne = _comparison("ne", "not_equal", False)
lt = _comparison("lt", "less", True)
le = _comparison("le", "less_equal", True)
gt = _comparison("gt", "greater", True)
ge = _comparison("ge", "greater_equal", True)


def _logical(name):
    @defop(name, node=None, promote=Promote.ALWAYS_BOOL, inputs=("self", "other"),
           variants=ALL, scalars=(), pointwise=True)
    def op(xp, self, other):
        return getattr(xp, name)(self, other)
    return op


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


@defop("logical_not", node=None, promote=Promote.ALWAYS_BOOL, variants=ALL, scalars=(),
       pointwise=True)
def logical_not(xp, self):
    return xp.logical_not(self)


# -- bitwise ops (integers and bool; torch's NotImplementedError for the rest) ----------------
def _bitwise(name, ufunc_name, kernel_name):
    @defop(f"{name}.Tensor", node=None, inputs=("self", "other"), variants=ALL, public=name,
           pointwise=True)
    def op(xp, self, other):
        dt = _dtype(self, other)
        if dt is None or dt.kind in "fc":
            raise _not_implemented(kernel_name, dt if dt is not None else D.get_default_dtype().np)
        return getattr(xp, ufunc_name)(self, other)
    return op


bitwise_and = _bitwise("bitwise_and", "bitwise_and", "bitwise_and_cpu")
bitwise_or = _bitwise("bitwise_or", "bitwise_or", "bitwise_or_cpu")
bitwise_xor = _bitwise("bitwise_xor", "bitwise_xor", "bitwise_xor_cpu")


@defop("bitwise_not", node=None, variants=ALL, scalars=(), pointwise=True)
def bitwise_not(xp, self):
    if self.dtype.kind in "fc":
        raise _not_implemented("bitwise_not_cpu", self.dtype)
    return xp.invert(self)


def _shift(name, ufunc_name, kernel_name):
    # NumPy's shifts already give torch's values for shifts < 0 or >= the bit width
    # (0 for left shifts, the sign for right shifts).
    @defop(f"{name}.Tensor", node=None, inputs=("self", "other"), variants=ALL, public=name,
           pointwise=True)
    def op(xp, self, other):
        dt = _dtype(self, other)
        if dt is None or dt.kind in "bfc":
            raise _not_implemented(kernel_name, dt if dt is not None else D.get_default_dtype().np)
        return getattr(xp, ufunc_name)(self, other)
    return op


bitwise_left_shift = _shift("bitwise_left_shift", "left_shift", "lshift_cpu")
bitwise_right_shift = _shift("bitwise_right_shift", "right_shift", "rshift_cpu")


# -- where, clamp, maximum/minimum -------------------------------------------------------------
_WHERE_UINT8 = ("where received a uint8 condition tensor. This behavior is deprecated and will be "
                "removed in a future version of PyTorch. Use a boolean condition instead. "
                "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                "TensorCompare.cpp:621.)")


@defop("where.self", node="WhereBackward0", inputs=("condition", "self", "other"),
       variants=("out",), nopromote=("condition",), public="where",
       scalars=("self", "other"), pointwise=True)
def where_self(xp, condition, self, other):
    if condition.dtype == xp.uint8:
        _warn_once(_WHERE_UINT8)
        condition = condition.astype(bool)
    elif condition.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {D.from_np(condition.dtype)._legacy}")
    return xp.where(condition, self, other)


def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` holds, else of ``other``.

    Differences from torch: the one-argument form ``where(condition)`` needs ``nonzero``.
    """
    if input is None and other is None:
        nonzero = FUNCTIONS.get("nonzero")
        if nonzero is None:
            raise NotImplementedError("where(condition) needs nonzero, not implemented yet")
        return nonzero(condition, as_tuple=True)
    return _call(where_self, (condition, input, other), out)


def _where_method(self, condition, other):
    return where_self(condition, self, other)


def _clamp_check(xp, x, lo, hi, kernel_name):
    """torch's checks; `kernel_name` is "clamp{}_scalar_cpu" or "clamp{}_cpu"."""
    if x.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if x.dtype.kind == "b":
        # a single bound runs clamp_min/clamp_max, which torch's tensor kernels support for bool
        if lo is None or hi is None:
            if "scalar" not in kernel_name:
                return
            kernel_name = kernel_name.format("_min" if hi is None else "_max")
        raise _not_implemented(kernel_name.format(""), x.dtype)


def _clamp(xp, x, lo, hi):
    # min(max(x, lo), hi), as torch: NaN propagates and hi wins when lo > hi
    if lo is not None:
        x = xp.maximum(x, lo)
    if hi is not None:
        x = xp.minimum(x, hi)
    return x


@defop("clamp", node="ClampBackward1", inputs=("self", "min", "max"), variants=(),
       scalars=("min", "max"), pointwise=True)
def clamp_scalar(xp, self, min=None, max=None):
    _clamp_check(xp, self, min, max, "clamp{}_scalar_cpu")
    return _clamp(xp, self, min, max)


@defop("clamp.Tensor", node="ClampBackward0", inputs=("self", "min", "max"), variants=(),
       scalars=(), public="clamp", pointwise=True)
def clamp_tensor(xp, self, min=None, max=None):
    _clamp_check(xp, self, min, max, "clamp{}_cpu")
    return _clamp(xp, self, min, max)


def _clamp_spec(min, max):
    Tensor = _tensor_cls()
    tmin, tmax = isinstance(min, Tensor), isinstance(max, Tensor)
    if tmin or tmax:
        if (min is not None and not tmin) or (max is not None and not tmax):
            raise TypeError(f"clamp() received an invalid combination of arguments - got "
                            f"(Tensor, min={type(min).__name__}, max={type(max).__name__}): "
                            "min and max must both be Tensors or both be Numbers")
        return clamp_tensor
    return clamp_scalar


def clamp(input, min=None, max=None, *, out=None):
    """Limit values to [min, max]; the bounds are numbers or tensors (not one of each)."""
    return _call(_clamp_spec(min, max), (input, min, max), out)


def clamp_(self, min=None, max=None):
    spec = _clamp_spec(min, max)
    if spec is clamp_scalar:
        # torch checks the cast first here, naming the destination by its C++ type
        from .._promotion import result_type_of_args
        from .linalg import cpp_type_name
        res = result_type_of_args([a for a in (self, min, max) if a is not None])
        if res.category > self.dtype.category:
            raise RuntimeError(f"result type {res._legacy} can't be cast to the desired output "
                               f"type {cpp_type_name(self.dtype)}")
    return spec.call_inplace(self, min, max)


def _minmax(name, ufunc_name):
    @defop(name, node=f"{name.capitalize()}Backward0", inputs=("self", "other"),
           variants=NO_INPLACE, scalars=(), pointwise=True)
    def op(xp, self, other):
        if self.dtype.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return getattr(xp, ufunc_name)(self, other)
    return op


maximum = _minmax("maximum", "maximum")
minimum = _minmax("minimum", "minimum")


# -- real / imag ---------------------------------------------------------------------------------
# torch returns views of a complex tensor (view_as_real + select, hence SelectBackward0);
# dyngrad's storage is one NumPy buffer of the complex dtype, so these are copies for now.
def _complex_part(xp, z, index):
    """Part `index` (0 real, 1 imaginary) of a copy of `z`, strided as torch's view of it.

    The copy has z's geometry (strides in elements), so the part has torch's strides: twice
    z's, over the interleaved (re, im) floats.
    """
    stride = tuple(st // z.itemsize for st in z.strides)
    span = 0 if 0 in z.shape else 1 + sum((n - 1) * st for n, st in zip(z.shape, stride))
    buffer = xp.empty(span, z.dtype)
    _npb.strided(buffer, z.shape, stride, 0)[...] = z
    return _npb.strided(buffer.view(z.real.dtype), z.shape, tuple(2 * st for st in stride),
                        index if span else 0)


@defop("real", node="SelectBackward0", promote=Promote.COMPLEX_TO_FLOAT, variants=(),
       scalars=())
def real_complex(xp, self):
    return _complex_part(xp, self, 0)


@defop("imag", node="SelectBackward0", promote=Promote.COMPLEX_TO_FLOAT, variants=(),
       scalars=())
def imag_complex(xp, self):
    return _complex_part(xp, self, 1)


def real(input):
    """The real part. Differences from torch: a copy, not a view, for complex tensors."""
    _require_tensor("real", input)
    return real_complex(input) if input.is_complex() else input


def imag(input):
    """The imaginary part. Differences from torch: a copy, not a view."""
    _require_tensor("imag", input)
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return imag_complex(input)


for _name, _fn in (("sub", sub), ("div", div), ("true_divide", true_divide), ("pow", pow),
                   ("abs", abs), ("remainder", remainder), ("clamp", clamp), ("clip", clamp),
                   ("positive", positive)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
for _name, _fn in (("rsub", rsub), ("where", where), ("real", real), ("imag", imag)):
    FUNCTIONS[_name] = _fn
for _name, _fn in (("sub_", sub_), ("div_", div_), ("true_divide_", true_divide_),
                   ("pow_", pow_), ("remainder_", remainder_), ("clamp_", clamp_),
                   ("clip_", clamp_), ("abs_", abs_)):
    METHODS[_name] = INPLACE[_name] = _fn
METHODS["where"] = _where_method
