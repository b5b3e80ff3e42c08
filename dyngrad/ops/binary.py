"""Pointwise binary and ternary ops beyond arithmetic: fmod, float_power, atan2, fmax/fmin,
hypot, lerp, addcmul/addcdiv, xlogy/xlog1py, copysign, logaddexp(2), nextafter and ldexp, and
the aliases arctan2, subtract, multiply and divide (isclose, allclose and equal: closeness.py).
Each derivative follows its forward kernel (see arithmetic.py for the conventions).

Ops whose torch schema has several overloads (``fmod(x, y)`` / ``fmod(x, 2)``, ``xlogy`` with a
number on either side, ``lerp`` with a number or tensor weight) declare one primitive per
overload, each with torch's node name, and a public resolver that picks one; a call no overload
takes raises torch's "invalid combination of arguments" TypeError.

Note [Checks on the inputs' own dtypes] (arithmetic.py) applies to lerp (its operands must share
one dtype), addcdiv (no integer division) and ldexp (Note [ldexp's two computations]).
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from .._promotion import Promote, result_type_of_args
from .._utils import broadcast_shapes
from ._arg_parser import check_tensors
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, AUTO_LINEAR
from ._autograd_utils import conj
from .arithmetic import _r_to_c, _check_int_divisor, div, div_, div_mode, mul, pow, pow_, sub, sub_
from .creation import (argument_list, checked_scalar, empty_like, invalid_combination,
                       zeros_like)
from ._selection import resized_warning
from .linalg import cpp_type_name
from .pointwise import (ALL, NO_INPLACE, _call, _dtype, _not_implemented, _tensor_cls,
                        extremum_op, where_self)

_LN2 = math.log(2.0)


def _number_minus(number, tensor):
    """``number - tensor`` as torch's C++ formulas compute it: a tensor like `tensor` filled
    with the number, then ``sub_`` (so a bool tensor raises torch's error)."""
    return empty_like(tensor).fill_(number).sub_(tensor)


def _number_over(number, tensor):
    """``number / tensor`` as torch's C++ formulas compute it (``div_`` into a tensor like
    `tensor`: an integer one raises torch's cast error)."""
    return empty_like(tensor).fill_(number).div_(tensor)


# -- argument checks shared by the resolvers ---------------------------------------------------
def _is_number(value) -> bool:
    """A Python number or a NumPy scalar: what torch's parser takes for a Number."""
    t = type(value)
    return isinstance(value, (int, float, complex)) or (t.__module__ == "numpy"
                                                        and t.__name__ != "ndarray")


def _matches(kind: str, value) -> bool:
    return isinstance(value, _tensor_cls()) if kind == "Tensor" else \
        _is_number(value) and not isinstance(value, _tensor_cls())


def _type_name(value) -> str:
    return "Tensor" if isinstance(value, _tensor_cls()) else type(value).__name__


def _overload_error(fname, args, overloads, method=False, kwargs=None) -> TypeError:
    """torch's TypeError when no overload takes `args` (and `kwargs`); ``overloads`` lists each
    overload's parameters as (type, name) pairs, ``self`` included (dropped for a method). A
    method's message says, per overload, which keywords it does not know or, where the number
    of arguments fits, which arguments have the wrong type."""
    kwargs = kwargs or {}
    if not method:
        sigs = [", ".join(f"{t} {'input' if n == 'self' and t == 'Tensor' else n}"
                          for t, n in params) + ", *, Tensor out = None" for params in overloads]
        return invalid_combination(fname, args, sigs, kwargs)
    got = argument_list([_type_name(a) for a in args],
                        [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    lines = []
    seen = set()
    for params in overloads:
        if ("Number", "self") in params:   # a method has no Scalar_Self form
            continue
        params = [p for p in params if p[1] != "self"]
        sig = ", ".join(f"{t} {n}" for t, n in params)
        if sig in seen:
            continue
        seen.add(sig)
        lines.append(f" * ({sig})\n")
        types = {n: t for t, n in params}
        unknown = [k for k in kwargs if k not in types]
        if unknown:
            lines.append("      didn't match because some of the keywords were incorrect: "
                         f"{', '.join(unknown)}\n")
        elif len(params) == len(args) + len(kwargs):
            shown = argument_list(
                [_marked(t, a, _type_name(a)) for (t, _), a in zip(params, args)],
                [_marked(types[k], v, f"{k}={_type_name(v)}") for k, v in kwargs.items()])
            lines.append(f"      didn't match because some of the arguments have invalid "
                         f"types: ({shown})\n")
    return TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{''.join(lines)}")


def _marked(kind, value, text) -> str:
    """`text` (an argument as listed), between !s where `value` is not of `kind`."""
    return text if _matches(kind, value) else f"!{text}!"


_TENSOR_OR_NUMBER = ((("Tensor", "self"), ("Tensor", "other")),
                     (("Tensor", "self"), ("Number", "other")))
_EITHER_SIDE = (_TENSOR_OR_NUMBER[0], (("Number", "self"), ("Tensor", "other")),
                _TENSOR_OR_NUMBER[1])


def _resolve(fname, input, other, tensor_spec, scalar_spec, scalar_self_spec=None,
             overloads=_TENSOR_OR_NUMBER, method=False):
    """The primitive of one overload of a binary op: Tensor-Tensor, Tensor-Number or (where
    torch has one) Number-Tensor."""
    Tensor = _tensor_cls()
    if isinstance(input, Tensor):
        if isinstance(other, Tensor):
            return tensor_spec
        if _is_number(other):
            return scalar_spec
    elif scalar_self_spec is not None and _is_number(input) and isinstance(other, Tensor):
        return scalar_self_spec
    args = (other,) if method else (input, other)
    raise _overload_error(fname, args, overloads, method)


def _binary_family(name, tensor_spec, scalar_spec, scalar_self_spec=None, error_name=None):
    """Function, method and in-place forms of a binary op with Tensor/Number overloads."""
    overloads = _TENSOR_OR_NUMBER if scalar_self_spec is None else _EITHER_SIDE
    error_name = error_name or name

    def function(input, other, *, out=None):
        spec = _resolve(error_name, input, other, tensor_spec, scalar_spec, scalar_self_spec,
                        overloads)
        return _call(spec, (input, other), out)

    def method(self, other):
        return _resolve(name, self, other, tensor_spec, scalar_spec, None, overloads,
                        True)(self, other)

    def in_place(self, other):
        return _resolve(name + "_", self, other, tensor_spec, scalar_spec, None, overloads,
                        True).call_inplace(self, other)

    function.__name__, method.__name__, in_place.__name__ = name, name, name + "_"
    return function, method, in_place


def _opmath(np_dtype):
    """The dtype torch's CPU kernels compute in: float for half, the dtype itself otherwise."""
    return D.float32 if np_dtype.kind in "fV" and np_dtype.itemsize == 2 else D.from_np(np_dtype)


def _in_opmath(xp, fn, self, *values):
    """``fn(self, *values)`` computed in float32 where the operands are float16 (torch's
    opmath), the result rounded back to float16 once. (The dispatcher has given the array
    operands one dtype, so `self`'s tells.)"""
    low = self.dtype
    if low not in _npb.LOW:
        return fn(self, *values)
    values = (self,) + values
    values = [v.astype(xp.float32) if getattr(v, "dtype", None) == low else v
              for v in values]
    return fn(*values).astype(low)


# -- fmod: two overloads -----------------------------------------------------------------------
def _fmod(xp, self, other):
    dt = _dtype(self, other)
    if dt.kind in "bc":
        raise _not_implemented("fmod_cpu", dt)
    if dt.kind in "iu":
        _check_int_divisor(xp, other)
    return xp.fmod(self, other)   # C's remainder: the sign of the dividend


@defop("fmod.Tensor", node="FmodBackward1", inputs=("self", "other"), variants=(),
       saves={"self": "other", "other": "other"}, public="fmod", scalars=(), pointwise=True)
def fmod_tensor(xp, self, other):
    return _fmod(xp, self, other)


@fmod_tensor.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    if not ctx.needs_input_grad[1]:
        return grad, None
    return grad, -grad * div_mode(self, other, rounding_mode="trunc")


fmod_tensor.jvp(AUTO_ELEMENT_WISE)


# a number divisor is an argument, not an input: see Note [Which inputs get an edge]
@defop("fmod.Scalar", node="FmodBackward0", inputs=("self", "other"), variants=(),
       differentiable=("self",), public="fmod", scalars=("other",), pointwise=True)
def fmod_scalar(xp, self, other):
    return _fmod(xp, self, other)


@fmod_scalar.backward
def _(ctx, grad):
    return grad


fmod_scalar.jvp(AUTO_ELEMENT_WISE)


fmod, _fmod_method, fmod_ = _binary_family("fmod", fmod_tensor, fmod_scalar)


# -- float_power: pow in double precision -----------------------------------------------------
def _float_power_dtype(*values):
    Tensor = _tensor_cls()
    for v in values:
        if isinstance(v, complex) or (isinstance(v, Tensor) and v.is_complex()):
            return D.complex128
    return D.float64


def _in_dtype(value, dtype):
    """A tensor converted to `dtype` (ToCopyBackward0 in the graph), a number to double."""
    if isinstance(value, _tensor_cls()):
        return value.to(dtype)
    return complex(value) if dtype.is_complex else float(value)


_FLOAT_POWER = tuple(tuple((t, "exponent" if n == "other" else n) for t, n in o)
                     for o in _EITHER_SIDE)
_ANY_OVERLOAD = ("Tensor_Tensor", "Tensor_Scalar", "Scalar")   # stand-ins: a check of types
_METHOD_OVERLOAD = ("Tensor_Tensor", "Tensor_Scalar", None)


def float_power(input, exponent, *, out=None):
    """``input ** exponent`` computed in float64 (complex128 when either is complex)."""
    _resolve("float_power", input, exponent, *_ANY_OVERLOAD, _FLOAT_POWER)   # types only
    dtype = _float_power_dtype(input, exponent)
    if out is not None and out.dtype is not dtype:
        raise RuntimeError(f"the output given to float_power has dtype {out.dtype._legacy} but "
                           f"the operation's result requires dtype {dtype._legacy}")
    return pow(_in_dtype(input, dtype), _in_dtype(exponent, dtype), out=out)


def _float_power_method(self, exponent):
    _resolve("float_power", self, exponent, *_METHOD_OVERLOAD, _FLOAT_POWER, True)
    return float_power(self, exponent)


def float_power_(self, exponent):
    """In place: ``self`` must already have the result's dtype (float64 or complex128)."""
    _resolve("float_power_", self, exponent, *_METHOD_OVERLOAD, _FLOAT_POWER, True)
    dtype = _float_power_dtype(self, exponent)
    if self.dtype is not dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype._legacy} but "
                           f"the operation's result requires dtype {dtype._legacy}")
    return pow_(self, _in_dtype(exponent, dtype))


# -- atan2, hypot --------------------------------------------------------------------------------
@defop("atan2", node="Atan2Backward0", promote=Promote.INT_TO_FLOAT, inputs=("self", "other"),
       variants=ALL, saves=("self", "other"), scalars=(), pointwise=True)
def atan2(xp, self, other):
    if self.dtype.kind == "c":
        raise _not_implemented("atan2_cpu", self.dtype)
    return xp.arctan2(self, other)


@atan2.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    # d atan2(y, x) = (x dy - y dx) / (x² + y²); torch gives 0 where x² + y² is 0
    denominator = self * self + other * other
    recip = where_self(denominator == 0, 0.0, denominator.reciprocal())
    return (grad * other * recip if need_self else None,
            grad * -self * recip if need_other else None)


@atan2.jvp
def _(ctx, self_t, other_t):   # torch's (x dy - y dx) / (x² + y²), NaN where both are 0
    self, other = ctx.primals
    return (other * self_t - self * other_t) / (self * self + other * other)


@defop("hypot", node="HypotBackward0", inputs=("self", "other"), variants=ALL,
       saves={"self": "self", "other": "other", "result": None}, scalars=(), pointwise=True)
def hypot(xp, self, other):
    if self.dtype.kind not in "fV":
        raise _not_implemented("hypot_cpu", self.dtype)
    return xp.hypot(self, other)


@hypot.backward
def _(ctx, grad):
    self, other, result = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    return (grad * self / result if need_self else None,     # nan at (0, 0), as torch
            grad * other / result if need_other else None)


hypot.jvp(AUTO_ELEMENT_WISE)


def arctan2(input, other, *, out=None):
    """Alias of ``atan2``."""
    check_tensors("arctan2", ("input", input), ("other", other))
    return _call(atan2, (input, other), out)


def _arctan2_method(self, other):
    check_tensors("arctan2", ("other", other))
    return atan2(self, other)


def arctan2_(self, other):
    check_tensors("arctan2_", ("other", other))
    return atan2.call_inplace(self, other)


# -- fmax / fmin: maximum / minimum that ignore NaN -----------------------------------------------
def _nan_ignoring(name, ufunc_name, wins):
    """fmax/fmin. Unlike maximum's, their gradient is not split on ties: it goes to ``self``
    where self wins or ties, or where ``other`` is NaN; to ``other`` everywhere else."""
    op = extremum_op(name, ufunc_name)

    @op.backward
    def _(ctx, grad):
        self, other = ctx.saved_tensors
        need_self, need_other = ctx.needs_input_grad
        to_self = wins(self, other) | (other != other)
        # masked_fill, as torch's formulas: its result is contiguous, whatever the layouts
        return (grad.masked_fill(~to_self, 0.0) if need_self else None,
                grad.masked_fill(to_self, 0.0) if need_other else None)

    @op.jvp
    def _(ctx, self_t, other_t):   # torch's: ties take other's tangent for fmax, self's for fmin
        self, other = ctx.primals
        if name == "fmax":
            return where_self((self > other) | (other != other), self_t, other_t)
        return where_self((self <= other) | (other != other), self_t, other_t)
    return op


fmax = _nan_ignoring("fmax", "fmax", lambda a, b: a >= b)
fmin = _nan_ignoring("fmin", "fmin", lambda a, b: a <= b)


# -- lerp: a number or a tensor weight -------------------------------------------------------------
# Note [Fresh intermediates take the next step]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A kernel of several NumPy steps (lerp, addcmul, addcdiv: an optimizer's step) makes a new
# array at each. Where an intermediate is the kernel's own fresh array and the next step's
# result has its shape and dtype, that step writes into it (``out=``): the same operations in
# the same order, so the same numbers, with one array fewer. On the arrays of a large layer
# this is what counts: NumPy's passes there are bound by memory traffic, and each new array
# pushes the operands out of the cache. An Adam step's lerp_ of a (256, 784) float32 moment,
# 156 -> 100 us (one thread, Intel Xeon; torch's fused kernel takes 30).
def _fits(xp, fresh, other) -> bool:
    """Whether a ufunc of `fresh` (a kernel's own new array) and `other` can write its result
    into `fresh`: a float array, and `other` a Python number or an array of its dtype and
    shape (the result's dtype and shape are then `fresh`'s). NumPy answers a 0-dim
    computation with a scalar, which never fits."""
    if type(fresh) is not xp.ndarray or fresh.dtype.kind != "f":
        return False
    kind = type(other)
    if kind is float or kind is int:
        return True
    return kind is xp.ndarray and other.dtype == fresh.dtype and other.shape == fresh.shape


def _then(xp, ufunc, fresh, other):
    """``ufunc(fresh, other)``, into `fresh` where it fits (Note [Fresh intermediates take
    the next step])."""
    return ufunc(fresh, other, out=fresh) if _fits(xp, fresh, other) else ufunc(fresh, other)


def _lerp(xp, self, end, weight, _into=None):
    """self + weight * (end - self), evaluated from the nearer end as torch does (exact at
    weight 0 and 1), in float for half tensors."""
    out = _last_step_into(xp, self, _into)

    def kernel(self, end, weight):
        diff = end - self
        if getattr(weight, "ndim", 0) == 0:   # one weight: one of the two forms, not both
            if abs(weight) < 0.5:   # (weight * diff, written into diff)
                return xp.add(self, _then(xp, xp.multiply, diff, weight), out=out)
            return xp.subtract(end, _then(xp, xp.multiply, diff, 1 - weight), out=out)
        return xp.where(xp.abs(weight) < 0.5, self + weight * diff, end - diff * (1 - weight))
    return _in_opmath(xp, kernel, self, end, weight)


def _last_step_into(xp, self, _into):
    """Where a kernel given ``_into`` (an in-place call with nothing to record: Note [In-place
    kernels write into the target] in _dispatch.py) writes its last step: the target itself
    for float32/64, one pass and one temporary fewer than a result copied in; None (a new
    result, which the caller copies) for float16, computed in float32 first, and integers."""
    if _into is not None and self.dtype.kind in "fV" and self.dtype not in _npb.LOW:
        return _into
    return None


@defop("lerp.Scalar", node="LerpBackward0", inputs=("self", "end"), variants=(),
       public="lerp", scalars=(), pointwise=True)
def lerp_scalar(xp, self, end, weight, *, _into=None):
    if self.dtype.kind in "biu":
        raise _not_implemented("lerp_kernel_scalar", self.dtype)
    return _lerp(xp, self, end, checked_scalar(weight, _opmath(self.dtype)), _into)


@lerp_scalar.backward
def _(ctx, grad):
    weight = ctx.weight
    weight = weight.conjugate() if isinstance(weight, complex) else float(weight)
    return grad * (1 - weight), grad * weight   # Note [Complex gradients]: conjugated


lerp_scalar.jvp(AUTO_LINEAR)   # linear in (self, end) for a number weight


@defop("lerp.Tensor", node="LerpBackward1", inputs=("self", "end", "weight"), variants=(),
       saves={"self": "weight", "end": "weight", "weight": None}, public="lerp", scalars=(),
       pointwise=True)
def lerp_tensor(xp, self, end, weight):
    if self.dtype.kind in "biu":
        raise _not_implemented("lerp_kernel_tensor", self.dtype)
    return _lerp(xp, self, end, weight)


@lerp_tensor.backward
def _(ctx, grad):
    self, end, weight = ctx.saved_tensors
    need_self, need_end, need_weight = ctx.needs_input_grad
    return (grad * conj(_number_minus(1, weight)) if need_self else None,
            grad * conj(weight) if need_end else None,
            grad * conj(end - self) if need_weight else None)


@lerp_tensor.jvp
def _(ctx, self_t, end_t, weight_t):
    self, end, weight = ctx.primals
    result = lerp_tensor(self_t, end_t, weight)
    if ctx.needs_input_grad[2]:
        result = result + weight_t * (end - self)
    return result


_LERP = ((("Tensor", "self"), ("Tensor", "end"), ("Tensor", "weight")),
         (("Tensor", "self"), ("Tensor", "end"), ("Number", "weight")))


def _lerp_spec(fname, input, end, weight, method=False):
    Tensor = _tensor_cls()
    if not (isinstance(input, Tensor) and isinstance(end, Tensor)
            and (isinstance(weight, Tensor) or _is_number(weight))):
        raise _overload_error(fname, (end, weight) if method else (input, end, weight), _LERP,
                              method)
    # torch checks the operands' own dtypes; a 0-dim weight may differ (it is promoted)
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {cpp_type_name(input.dtype)} for `end` but got "
                           f"dtype {cpp_type_name(end.dtype)}")
    if not isinstance(weight, Tensor):
        return lerp_scalar
    if weight.dim() and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {cpp_type_name(input.dtype)} for `weight` but got "
                           f"dtype {cpp_type_name(weight.dtype)}")
    return lerp_tensor


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)``; ``weight`` is a number or a tensor."""
    return _call(_lerp_spec("lerp", input, end, weight), (input, end, weight), out)


def _lerp_method(self, end, weight):
    return _lerp_spec("lerp", self, end, weight, True)(self, end, weight)


def lerp_(self, end, weight):
    return _lerp_spec("lerp_", self, end, weight, True).call_inplace(self, end, weight)


# -- addcmul / addcdiv ---------------------------------------------------------------------------
def _value(name, value):
    """A ``Scalar value`` argument: a number, or a 0-dim tensor's number (torch's parser)."""
    if isinstance(value, _tensor_cls()):
        if value.dim() == 0:
            return value.item()
    elif _is_number(value):
        return value
    raise TypeError(f"{name}(): argument 'value' must be Number, not {_type_name(value)}")


def _scaled_value(xp, dtype, value):
    """``value`` converted as torch converts it for the kernel (checked, then C-cast)."""
    value = checked_scalar(value, _opmath(dtype))
    if dtype.kind in "iu":
        return xp.asarray(value, dtype=xp.int64).astype(dtype)   # -1 wraps for uint8
    return value


@defop("addcmul", node="AddcmulBackward0", inputs=("self", "tensor1", "tensor2"),
       variants=(), saves={"tensor1": "tensor2", "tensor2": "tensor1"}, scalars=(),
       pointwise=True)
def addcmul_spec(xp, self, tensor1, tensor2, *, value=1, _into=None):
    if self.dtype.kind == "b":
        raise _not_implemented("addcmul_cpu_out", self.dtype)
    scale = _scaled_value(xp, self.dtype, value)
    out = _last_step_into(xp, self, _into)
    # (scale * b) * c, the second product written into the first's array
    return _in_opmath(xp, lambda a, b, c: xp.add(a, _then(xp, xp.multiply, scale * b, c),
                                                 out=out), self, tensor1, tensor2)


@addcmul_spec.backward
def _(ctx, grad):
    tensor1, tensor2 = ctx.saved_tensors
    _, need1, need2 = ctx.needs_input_grad
    value = ctx.value
    if grad._data.dtype.kind == "c":   # Note [Complex gradients]
        return _r_to_c(ctx, (grad, grad * conj(tensor2 * value) if need1 else None,
                             grad * conj(tensor1 * value) if need2 else None))
    return (grad, grad * (tensor2 * value) if need1 else None,
            grad * (tensor1 * value) if need2 else None)


@addcmul_spec.jvp
def _(ctx, self_t, tensor1_t, tensor2_t):
    _, tensor1, tensor2 = ctx.primals
    need_self, need1, need2 = ctx.needs_input_grad
    result = self_t
    if need1:
        result = result + tensor1_t * tensor2 * ctx.value
    if need2:
        result = result + tensor1 * tensor2_t * ctx.value
    return result


_ADDCDIV_INTEGERS = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


@defop("addcdiv", node="AddcdivBackward0", inputs=("self", "tensor1", "tensor2"),
       variants=(), saves={"tensor1": "tensor2", "tensor2": None}, scalars=(), pointwise=True)
def addcdiv_spec(xp, self, tensor1, tensor2, *, value=1, _into=None):
    scale = _scaled_value(xp, self.dtype, value)
    out = _last_step_into(xp, self, _into)
    # (scale * b) / c, the quotient written into the product's array
    return _in_opmath(xp, lambda a, b, c: xp.add(a, _then(xp, xp.true_divide, scale * b, c),
                                                 out=out), self, tensor1, tensor2)


@addcdiv_spec.backward
def _(ctx, grad):
    tensor1, tensor2 = ctx.saved_tensors
    _, need1, need2 = ctx.needs_input_grad
    value = ctx.value
    if grad._data.dtype.kind == "c":   # Note [Complex gradients]
        return _r_to_c(ctx, (
            grad, grad * conj(_number_over(value, tensor2)) if need1 else None,
            -grad * conj(value * tensor1 / (tensor2 * tensor2)) if need2 else None))
    return (grad, grad * _number_over(value, tensor2) if need1 else None,
            -grad * (value * tensor1 / (tensor2 * tensor2)) if need2 else None)


@addcdiv_spec.jvp
def _(ctx, self_t, tensor1_t, tensor2_t):
    _, tensor1, tensor2 = ctx.primals
    need_self, need1, need2 = ctx.needs_input_grad
    result = self_t
    if need1:
        result = result + tensor1_t / tensor2 * ctx.value
    if need2:
        result = result - tensor1 * tensor2_t / (tensor2 * tensor2) * ctx.value
    return result


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 * tensor2``."""
    value = _value("addcmul", value)
    kw = {"value": value} if out is None else {"value": value, "out": out}
    return addcmul_spec(input, tensor1, tensor2, **kw)


def addcmul_(self, tensor1, tensor2, *, value=1):
    value = _value("addcmul_", value)
    return addcmul_spec.call_inplace(self, tensor1, tensor2, value=value)


def _addcdiv_check(name, tensor1, tensor2, value):
    """torch's checks, on the operands' own dtypes (bool counts as an integer here); returns
    the value as a number."""
    value = _value(name, value)
    Tensor = _tensor_cls()
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor) and \
            tensor1.dtype.category <= D.INT and tensor2.dtype.category <= D.INT:
        raise RuntimeError(_ADDCDIV_INTEGERS)
    return value


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 / tensor2``; integer tensor1 and tensor2 are refused."""
    if not isinstance(input, _tensor_cls()):
        return addcdiv_spec(input, tensor1, tensor2)   # torch's TypeError
    value = _addcdiv_check("addcdiv", tensor1, tensor2, value)
    kw = {"value": value} if out is None else {"value": value, "out": out}
    return addcdiv_spec(input, tensor1, tensor2, **kw)


def addcdiv_(self, tensor1, tensor2, *, value=1):
    value = _addcdiv_check("addcdiv_", tensor1, tensor2, value)
    return addcdiv_spec.call_inplace(self, tensor1, tensor2, value=value)


# -- xlogy / xlog1py: three overloads each ---------------------------------------------------------
# Note [xlogy at x = 0]
# ~~~~~~~~~~~~~~~~~~~~~
# xlogy(0, y) is 0 for every y but NaN (torch's definition), so x * log(y) is not differentiable
# at x = 0, y <= 0 (it is not even defined nearby). torch returns the derivative along x = 0
# there, zero, for x's gradient (and 0 * log(y) = NaN elsewhere stays NaN): ``xlogy(grad, y)``
# with zeros where x == 0 and y <= 0. xlog1py does the same with y <= -1.
def _xlog(xp, kernel_name, log, self, other):
    dt = _dtype(self, other)
    if dt.kind == "c":
        raise _not_implemented(kernel_name, dt)
    # numbers become 0-dim arrays of the computation dtype (NumPy would compute log(2.5) in
    # double, log(True) in half); half tensors round each step, as torch's Half arithmetic
    self, other = (v if hasattr(v, "dtype") else xp.asarray(v, dtype=dt) for v in (self, other))
    return xp.where(xp.isnan(other), xp.nan, xp.where(xp.equal(self, 0), 0, self * log(other)))


def _xlog_family(torch_name, public, node, kernel_name, log_name, boundary, shift):
    """The Tensor, Scalar_Self and Scalar_Other primitives of xlogy or xlog1py."""
    def kernel(xp, self, other):
        return _xlog(xp, kernel_name, getattr(xp, log_name), self, other)

    common = dict(promote=Promote.INT_TO_FLOAT, inputs=("self", "other"), variants=(),
                  saves=("self", "other"), public=public, pointwise=True)
    tensor = defop(torch_name, node=f"{node}0", scalars=(), **common)(kernel)
    scalar_self = defop(f"{torch_name}.Scalar_Self" if torch_name == "xlogy" else
                        f"{torch_name}.self_scalar", node=f"{node}1", differentiable=("other",),
                        scalars=("self",), **common)(kernel)
    scalar_other = defop(f"{torch_name}.Scalar_Other" if torch_name == "xlogy" else
                         f"{torch_name}.other_scalar", node=f"{node}2",
                         differentiable=("self",), scalars=("other",), **common)(kernel)

    def grad_other(grad, self, other):
        return grad * self / (other + shift if shift else other)

    @tensor.backward
    def _(ctx, grad):   # See Note [xlogy at x = 0]
        self, other = ctx.saved_tensors
        need_self, need_other = ctx.needs_input_grad
        grad_self = None
        if need_self:   # (masked_fill, as torch's: a contiguous result, whatever the layouts)
            grad_self = tensor(grad, other).masked_fill((self == 0.0) & (other <= boundary), 0.0)
        return grad_self, grad_other(grad, self, other) if need_other else None

    @scalar_self.backward
    def _(ctx, grad):
        self, other = ctx.saved_tensors
        return grad_other(grad, self, other)

    @scalar_other.backward
    def _(ctx, grad):
        self, other = ctx.saved_tensors
        result = scalar_other(grad, other)
        return result if other > boundary else result.masked_fill(self == 0.0, 0.0)

    for spec in (tensor, scalar_self, scalar_other):
        spec.jvp(AUTO_ELEMENT_WISE)
    return tensor, scalar_other, scalar_self


xlogy_tensor, xlogy_scalar_other, xlogy_scalar_self = _xlog_family(
    "xlogy", "xlogy", "XlogyBackward", "xlogy_cpu", "log", 0.0, 0)
xlog1py_tensor, xlog1py_scalar_other, xlog1py_scalar_self = _xlog_family(
    "special_xlog1py", "special.xlog1py", "SpecialXlog1PyBackward", "xlog1py_cpu", "log1p",
    -1.0, 1)

xlogy, _xlogy_method, xlogy_ = _binary_family(
    "xlogy", xlogy_tensor, xlogy_scalar_other, xlogy_scalar_self)
special_xlogy, _, _ = _binary_family(
    "xlogy", xlogy_tensor, xlogy_scalar_other, xlogy_scalar_self, error_name="special_xlogy")
special_xlog1py, _, _ = _binary_family(
    "xlog1py", xlog1py_tensor, xlog1py_scalar_other, xlog1py_scalar_self,
    error_name="special_xlog1py")


# -- copysign --------------------------------------------------------------------------------------
def _copysign(xp, self, other):
    dt = _dtype(self, other)
    if dt.kind == "c":
        raise _not_implemented("copysign_cpu", dt)
    return xp.copysign(self, other)


def _copysign_self_grad(grad, self, result):
    """grad * sign(self) * sign(other), i.e. result / self, with zeros where self is 0."""
    return grad * where_self(self == 0, 0.0, result / self)


@defop("copysign.Tensor", node="CopysignBackward0", promote=Promote.INT_TO_FLOAT,
       inputs=("self", "other"), variants=(), saves={"self": "self", "result": None},
       public="copysign", scalars=(), pointwise=True)
def copysign_tensor(xp, self, other):
    return _copysign(xp, self, other)


@copysign_tensor.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    return (_copysign_self_grad(grad, self, result) if need_self else None,
            grad.new_zeros(grad.shape) if need_other else None)   # (contiguous)


copysign_tensor.jvp(AUTO_ELEMENT_WISE)


@defop("copysign.Scalar", node="CopysignBackward1", promote=Promote.INT_TO_FLOAT,
       inputs=("self", "other"), variants=(), differentiable=("self",),
       saves=("self", "result"), public="copysign", scalars=("other",), pointwise=True)
def copysign_scalar(xp, self, other):
    return _copysign(xp, self, other)


@copysign_scalar.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return _copysign_self_grad(grad, self, result)


copysign_scalar.jvp(AUTO_ELEMENT_WISE)


copysign, _copysign_method, copysign_ = _binary_family("copysign", copysign_tensor,
                                                       copysign_scalar)


# -- logaddexp / logaddexp2 ------------------------------------------------------------------------
def _log1p_complex(xp, z):
    """torch's CPU complex log1p: log(u) * z / (u - 1) with u = 1 + z, which keeps the digits
    of a small z (and gives torch's NaN when u - 1 is subnormal and z / (u - 1) overflows)."""
    u = z + 1
    log_u = xp.log(u)
    shifted = u - 1
    result = xp.where(shifted == z, log_u, log_u * (z / shifted))
    return xp.where(u == 1, z, result)


def _logaddexp_complex(xp, x, y):
    """log(exp(x) + exp(y)) for complex numbers, as torch's helper: factor out the operand with
    the larger real part; NaN anywhere gives NaN; equal infinite real parts are special."""
    x, y = xp.broadcast_arrays(x, y)
    x_first = x.real < y.real
    low, high = xp.where(x_first, x, y), xp.where(x_first, y, x)
    y_nan, x_nan = xp.isnan(y), xp.isnan(x)
    low = xp.where(y_nan, y, xp.where(x_nan, x, low))
    high = xp.where(y_nan, y, xp.where(x_nan, x, high))
    result = _log1p_complex(xp, xp.exp(low - high)) + high
    infinite = ~xp.isfinite(low.real) & (low.real == high.real)
    result = xp.where(infinite & (low.real < 0), low, result)
    result = xp.where(infinite & (low.real > 0), xp.log(xp.exp(low) + xp.exp(high)), result)
    return xp.where(xp.isnan(low), complex(math.nan, math.nan), result)


@defop("logaddexp", node="LogaddexpBackward0", inputs=("self", "other"), variants=NO_INPLACE,
       saves=("self", "other"), scalars=(), pointwise=True)
def logaddexp(xp, self, other):
    if self.dtype.kind in "biu":
        raise _not_implemented("logaddexp_cpu", self.dtype)
    if self.dtype.kind == "c":
        return _logaddexp_complex(xp, self, other)
    return xp.logaddexp(self, other)


@logaddexp.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    return (grad / conj(1 + (other - self).exp()) if need_self else None,
            grad / conj(1 + (self - other).exp()) if need_other else None)


logaddexp.jvp(AUTO_ELEMENT_WISE)


@defop("logaddexp2", node="Logaddexp2Backward0", inputs=("self", "other"),
       variants=NO_INPLACE, saves=("self", "other"), scalars=(), pointwise=True)
def logaddexp2(xp, self, other):
    if self.dtype.kind in "biuc":
        raise _not_implemented("logaddexp2_cpu", self.dtype)
    return xp.logaddexp2(self, other)


@logaddexp2.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    return (grad / (1 + pow(2, other - self)) if need_self else None,
            grad / (1 + pow(2, self - other)) if need_other else None)


logaddexp2.jvp(AUTO_ELEMENT_WISE)


# -- nextafter -------------------------------------------------------------------------------------
@defop("nextafter", node="NextafterBackward0", inputs=("self", "other"), variants=ALL,
       saves={"self": "self", "other": "self"}, scalars=(), pointwise=True)
def nextafter(xp, self, other):
    if self.dtype.kind not in "fV":
        raise _not_implemented("nextafter_cpu", self.dtype)
    return xp.nextafter(self, other)


@nextafter.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors   # one ulp: the identity for self, except where it stays
    need_self, need_other = ctx.needs_input_grad
    return (where_self(self != other, grad, 0.0) if need_self else None,
            grad.new_zeros(grad.shape) if need_other else None)   # (contiguous)


nextafter.jvp(AUTO_ELEMENT_WISE)


# -- ldexp ---------------------------------------------------------------------------------------
# Note [ldexp's two computations]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# For a floating ``self`` and an integer ``other``, torch runs C's ldexp: it scales self's
# exponent directly, so 1e-30 * 2**129 is finite in float32 although 2**129 is not, and the
# result keeps self's dtype (a bool exponent is refused). Otherwise it computes
# ``self * pow(2.0, other)``: the power in other's own dtype (the default float for integers),
# rounded there, then the product in the promoted dtype (integers promote to the default
# float). So the kernel needs ``other`` unpromoted: the resolver computes the result dtype and
# passes it as ``dtype``, which the dispatcher takes as the result type.
@defop("ldexp.Tensor", node="LdexpBackward0", inputs=("self", "other"), variants=(),
       nopromote=("other",), saves={"other": "self", "result": None}, public="ldexp",
       scalars=(), pointwise=True)
def ldexp_spec(xp, self, other, *, dtype):
    if self.dtype.kind in "fV" and other.dtype.kind in "iu":
        return xp.ldexp(self, other.astype(xp.int64))
    if other.dtype.kind not in "fcV":
        other = other.astype(D.get_default_dtype().np)
    power = xp.power(other.dtype.type(2), other)
    return xp.multiply(self.astype(dtype.np), power.astype(dtype.np))


@ldexp_spec.backward
def _(ctx, grad):
    other, result = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    # torch multiplies by pow(2, other) with an integer 2: integer exponents stay integers
    if grad._data.dtype.kind == "c":   # Note [Complex gradients] (torch has no r-to-c here)
        return (grad * conj(pow(2, other)) if need_self else None,
                grad * conj(result) * _LN2 if need_other else None)
    return (grad * pow(2, other) if need_self else None,
            grad * result * _LN2 if need_other else None)


ldexp_spec.jvp(AUTO_ELEMENT_WISE)


def _ldexp_dtype(input, other):
    """The result dtype (See Note [ldexp's two computations])."""
    Tensor = _tensor_cls()
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
        return None   # the dispatcher raises torch's TypeError
    if input.dtype.category == D.FLOAT and other.dtype.category <= D.INT:
        if other.dtype is D.bool_:
            raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
        return input.dtype
    common = result_type_of_args((input, other))
    return D.get_default_dtype() if common.category <= D.INT else common


def _ldexp_cast_check(target) -> None:
    if target.dtype.category <= D.INT:
        raise RuntimeError(f"ldexp can't be cast to the desired output type "
                           f"{target.dtype._legacy}")


def _warn_resized(input, other) -> None:
    """torch's C ldexp path writes into a tensor shaped like ``input`` and resizes it to the
    broadcast shape, with its deprecation warning when that tensor had elements."""
    shape = broadcast_shapes(input.shape, other.shape)
    if input.numel() and tuple(input.shape) != tuple(shape):
        resized_warning(input.shape, shape)


def ldexp(input, other, *, out=None):
    """``input * 2 ** other``."""
    dtype = _ldexp_dtype(input, other)
    if out is None:
        if dtype is not None and dtype is input.dtype and other.dtype.category <= D.INT:
            _warn_resized(input, other)
        return ldexp_spec(input, other, dtype=dtype)
    _ldexp_cast_check(out)
    return ldexp_spec(input, other, dtype=dtype, out=out)


def ldexp_(self, other):
    _ldexp_cast_check(self)
    return ldexp_spec.call_inplace(self, other, dtype=_ldexp_dtype(self, other))


# -- aliases -------------------------------------------------------------------------------------
def subtract(input, other, *, alpha=1, out=None):
    """Alias of ``sub``."""
    return sub(input, other, alpha=alpha, out=out)


def multiply(input, other, *, out=None):
    """Alias of ``mul``."""
    return _call(mul, (input, other), out)


def divide(input, other, *, rounding_mode=None, out=None):
    """Alias of ``div``."""
    return div(input, other, rounding_mode=rounding_mode, out=out)


for _name, _fn, _method, _inplace in (
        ("fmod", fmod, _fmod_method, fmod_),
        ("float_power", float_power, _float_power_method, float_power_),
        ("lerp", lerp, _lerp_method, lerp_),
        ("addcmul", addcmul, addcmul, addcmul_),
        ("addcdiv", addcdiv, addcdiv, addcdiv_),
        ("xlogy", xlogy, _xlogy_method, xlogy_),
        ("copysign", copysign, _copysign_method, copysign_),
        ("ldexp", ldexp, ldexp, ldexp_),
        ("arctan2", arctan2, _arctan2_method, arctan2_),
        ("subtract", subtract, subtract, sub_),
        ("multiply", multiply, multiply, mul.call_inplace),
        ("divide", divide, divide, div_)):
    FUNCTIONS[_name] = _fn
    METHODS[_name] = _method
    METHODS[_name + "_"] = INPLACE[_name + "_"] = _inplace
FUNCTIONS["special.xlogy"] = special_xlogy
FUNCTIONS["special.xlog1py"] = special_xlog1py
