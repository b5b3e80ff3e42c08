"""Pointwise ops other than arithmetic (arithmetic.py): unary math, comparisons, logical and
bitwise ops, where, clamp, maximum/minimum, real/imag; and the helpers both files share.

Forward kernels take backend arrays (``xp``); promotion and casting are the dispatcher's job, so
a kernel sees its inputs already in the computation dtype (Python numbers stay numbers). Ops with
several torch overloads (``clamp`` with number or tensor bounds) declare one primitive per
overload, each with its own node name as in torch, and a small public function that picks one.
Each derivative follows its forward kernel, written with dyngrad ops (see arithmetic.py).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from ..backends import numpy_backend as _npb
from . import _registry
from ._registry import FUNCTIONS, INPLACE, METHODS, OpSpec, defop
from ..autograd.forward_ad import AUTO_ELEMENT_WISE
from .._utils import reads_as_number, scalar_value
from ._autograd_utils import conj, handle_r_to_c
from .creation import zeros_like
from ._arg_parser import type_name as _tp_name

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
    """TORCH_WARN_ONCE: the first time in the process only (every time after
    ``set_warn_always(True)``), shown at the caller's line outside dyngrad."""
    from ._selection import warn_once_at_caller   # (it keeps the messages given in _WARNED)
    warn_once_at_caller(message)


def _require_tensor(name, input):
    if not isinstance(input, _tensor_cls()):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")


# -- unary math --------------------------------------------------------------------------------
@defop("exp", node="ExpBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL, scalars=(),
       saves=("result",), pointwise=True, ufunc="exp")
def exp(xp, self):
    return xp.exp(self)


@exp.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return grad * conj(result)   # Note [Complex gradients]


exp.jvp(AUTO_ELEMENT_WISE)


@defop("log", node="LogBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL, scalars=(),
       saves=("self",), pointwise=True, ufunc="log")
def log(xp, self):
    return xp.log(self)


@log.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad / conj(self)


log.jvp(AUTO_ELEMENT_WISE)


@defop("sqrt", node="SqrtBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL, scalars=(),
       saves=("result",), pointwise=True, ufunc="sqrt")
def sqrt(xp, self):
    return xp.sqrt(self)


@sqrt.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return grad / (2 * conj(result))    # inf at 0, as torch


sqrt.jvp(AUTO_ELEMENT_WISE)


@defop("reciprocal", node="ReciprocalBackward0", promote=Promote.INT_TO_FLOAT, variants=ALL,
       scalars=(), saves=("result",), pointwise=True)
def reciprocal(xp, self):
    return xp.reciprocal(self)


@reciprocal.backward
def _(ctx, grad):
    result, = ctx.saved_tensors
    return -grad * conj(result * result)


reciprocal.jvp(AUTO_ELEMENT_WISE)


def _rdiv(self, other):
    """``other / self`` for a number `other`: torch's Tensor.__rdiv__ (reciprocal, then mul)."""
    try:
        return reciprocal(self) * other
    except TypeError:
        return NotImplemented   # as torch: Python then raises its "unsupported operand" error


def _signum(xp, x):
    """(0 < x) - (x < 0), as torch computes sign: 0 for NaN and for -0.0."""
    return xp.subtract(xp.greater(x, 0), xp.less(x, 0), dtype=x.dtype)


@defop("sign", node="SignBackward0", promote=Promote.NONE, variants=ALL, scalars=(),
       pointwise=True)
def sign(xp, self):
    if self.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    return self.copy() if self.dtype.kind == "b" else _signum(xp, self)


@sign.backward
def _(ctx, grad):
    return zeros_like(grad)


sign.jvp(AUTO_ELEMENT_WISE)


@defop("sgn", node="SgnBackward0", promote=Promote.NONE, variants=ALL, scalars=(),
       saves=("self", "result"), pointwise=True)   # torch's complex formula needs them
def sgn(xp, self):
    if self.dtype.kind == "c":    # z / |z|, 0 at 0
        magnitude = xp.abs(self)
        return xp.where(magnitude == 0, 0, self / xp.where(magnitude == 0, 1, magnitude))
    return self.copy() if self.dtype.kind == "b" else _signum(xp, self)


def _sgn_backward(x, gx, sgn):
    """torch's sgn_backward: zero for a real `x`; for a complex one (z/|z| is not holomorphic)
    ``(gx - sgn² gx.conj()) / (2|x|)``, 0 where x is 0."""
    if not x.is_complex():   # torch: a zero tensor, contiguous whatever the layouts
        return gx.new_zeros(gx.shape)
    magnitude = x.abs()
    return where_self(magnitude == 0, 0.0, (gx - (sgn * sgn) * gx.conj()) / (2 * magnitude))


@sgn.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return _sgn_backward(self, grad, result)


@sgn.jvp
def _(ctx, self_t):   # torch's jvp is the same formula (the Jacobian is symmetric)
    return _sgn_backward(ctx.primals[0], self_t, ctx.result)


# -- comparisons and logical ops ---------------------------------------------------------------
def _zero_grads(ctx, grad):
    """A piecewise-constant op: zero for every input with an edge."""
    zero = zeros_like(grad)
    if zero._data.dtype.kind == "c":   # torch: zeros_like(other), real for a real other
        return tuple(handle_r_to_c(ctx, i, zero) for i in range(len(ctx._next)))
    return tuple(zero for _ in ctx._next)


def _comparison(name, ufunc_name, ordered):
    """``eq``… and their in-place forms.

    Out of place, the bool result has no grad_fn, so one primitive serves tensors and numbers
    alike (torch wraps numbers as 0-dim tensors). In place on a floating tensor, the result does
    have a node, and torch's differs by overload: ``x.eq_(y)`` EqBackward1 with an edge for
    each operand, ``x.eq_(2)`` EqBackward0 with one; the derivative is zero.
    """
    def kernel(xp, self, other):
        if ordered:
            dt = _dtype(self, other)
            if dt.kind == "c":
                raise _not_implemented(f"{name}_cpu", dt)
        return getattr(xp, ufunc_name)(self, other)

    common = dict(promote=Promote.ALWAYS_BOOL, inputs=("self", "other"), pointwise=True)
    cmp = defop(f"{name}.Tensor", node=None, variants=NO_INPLACE, public=name,
                scalars=("other",), **common)(kernel)
    title = name.capitalize()
    in_place_tensor = defop(f"{name}_.Tensor", node=f"{title}Backward1", variants=(),
                            scalars=(), **common)(kernel)
    in_place_scalar = defop(f"{name}_.Scalar", node=f"{title}Backward0", variants=(),
                            differentiable=("self",), **common)(kernel)
    in_place_tensor.backward(_zero_grads)
    in_place_scalar.backward(_zero_grads)
    in_place_tensor.jvp(AUTO_ELEMENT_WISE)
    in_place_scalar.jvp(AUTO_ELEMENT_WISE)

    def in_place(self, other):
        spec = in_place_tensor if isinstance(other, _tensor_cls()) else in_place_scalar
        return spec.call_inplace(self, other)

    in_place.__name__ = name + "_"
    METHODS[name + "_"] = INPLACE[name + "_"] = in_place
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
        if dt is None or dt.kind in "fcV":
            raise _not_implemented(kernel_name, dt if dt is not None else D.get_default_dtype().np)
        return getattr(xp, ufunc_name)(self, other)
    return op


bitwise_and = _bitwise("bitwise_and", "bitwise_and", "bitwise_and_cpu")
bitwise_or = _bitwise("bitwise_or", "bitwise_or", "bitwise_or_cpu")
bitwise_xor = _bitwise("bitwise_xor", "bitwise_xor", "bitwise_xor_cpu")


@defop("bitwise_not", node=None, variants=ALL, scalars=(), pointwise=True)
def bitwise_not(xp, self):
    if self.dtype.kind in "fcV":
        raise _not_implemented("bitwise_not_cpu", self.dtype)
    return xp.invert(self)


def _shift(name, ufunc_name, kernel_name):
    # NumPy's shifts already give torch's values for shifts < 0 or >= the bit width
    # (0 for left shifts, the sign for right shifts).
    @defop(f"{name}.Tensor", node=None, inputs=("self", "other"), variants=ALL, public=name,
           pointwise=True)
    def op(xp, self, other):
        dt = _dtype(self, other)
        if dt is None or dt.kind in "bfcV":
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
       variants=("out",), nopromote=("condition",), differentiable=("self", "other"),
       saves=("condition",), public="where", scalars=("self", "other"), pointwise=True)
def where_self(xp, condition, self, other):
    if condition.dtype == xp.uint8:
        _warn_once(_WHERE_UINT8)
        condition = condition.astype(bool)
    elif condition.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {D.from_np(condition.dtype)._legacy}")
    return xp.where(condition, self, other)


@where_self.backward
def _(ctx, grad):
    condition, = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    return (where_self(condition, grad, 0.0) if need_self else None,
            where_self(condition, 0.0, grad) if need_other else None)


where_self.jvp(AUTO_ELEMENT_WISE)
where_self.checked_scalars = "int"   # a number must fit an integer result (float16 takes inf)


def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` holds, else of ``other``; with the condition
    alone, the indices where it holds (``nonzero(condition, as_tuple=True)``)."""
    if input is None and other is None:
        if out is not None:   # (the one-argument overload takes no out=: the parser's listing)
            from ._arg_parser import parse_error
            raise TypeError(parse_error("where", (condition,), {"out": out}, False))
        return FUNCTIONS["nonzero"](condition, as_tuple=True)
    if out is not None:   # (the out= overload takes tensors only: torch's parser refuses numbers)
        for name, pos, v in (("input", 2, input), ("other", 3, other)):
            if not isinstance(v, _tensor_cls()):
                raise TypeError(f"where(): argument '{name}' (position {pos}) must be Tensor, "
                                f"not {type(v).__name__}")
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
    if x.dtype.kind == "u" and x.dtype.itemsize > 1:   # Note [Limited unsigned dtypes]
        if "scalar" in kernel_name:
            one = "" if lo is not None and hi is not None else "_min" if hi is None else "_max"
            raise _not_implemented(kernel_name.format(one), x.dtype)
        raise _not_implemented("clamp_cpu" if lo is not None and hi is not None else
                               "maximum_cpu" if hi is None else "minimum_cpu", x.dtype)


def _clamp(xp, x, lo, hi):
    # min(max(x, lo), hi), as torch: NaN propagates and hi wins when lo > hi
    if lo is not None:
        x = _npb.maximum(x, lo)
    if hi is not None:
        x = _npb.minimum(x, hi)
    return x


# number bounds get no edge: see Note [Which inputs get an edge] in arithmetic.py
@defop("clamp", node="ClampBackward1", inputs=("self", "min", "max"), variants=(),
       differentiable=("self",), saves=("self", "min", "max"), scalars=("min", "max"),
       pointwise=True)
def clamp_scalar(xp, self, min=None, max=None):
    _clamp_check(xp, self, min, max, "clamp{}_scalar_cpu")
    return _clamp(xp, self, min, max)


clamp_scalar.wraps_scalars = False   # number bounds are no operands of torch's kernel
clamp_scalar.checked_scalars = "all"   # they must fit the dtype: max=70000 on int16 raises


def _inside(self, min, max):
    """Where clamp passes the gradient to `self`: the bounds themselves included (torch)."""
    if min is None:
        return self <= max
    if max is None:
        return self >= min
    return (self >= min) & (self <= max)


@clamp_scalar.backward
def _(ctx, grad):
    self, min, max = ctx.saved_tensors
    return where_self(_inside(self, min, max), grad, 0.0)


clamp_scalar.jvp(AUTO_ELEMENT_WISE)


@defop("clamp.Tensor", node="ClampBackward0", inputs=("self", "min", "max"), variants=(),
       saves=("self", "min", "max"), scalars=(), public="clamp", pointwise=True)
def clamp_tensor(xp, self, min=None, max=None):
    _clamp_check(xp, self, min, max, "clamp{}_cpu")
    return _clamp(xp, self, min, max)


@clamp_tensor.backward
def _(ctx, grad):
    self, min, max = ctx.saved_tensors
    need_self, need_min, need_max = ctx.needs_input_grad
    grad_self = where_self(_inside(self, min, max), grad, 0.0) if need_self else None
    # below min (when min < max) the gradient goes to min; above max (or min > max) to max
    grad_min = grad_max = None
    if need_min:
        below = self < min if max is None else (self < min) & (min < max)
        grad_min = where_self(below, grad, 0.0)
    if need_max:
        above = self > max if min is None else (self > max) | (max < min)
        grad_max = where_self(above, grad, 0.0)
    return grad_self, grad_min, grad_max


@clamp_tensor.jvp
def _(ctx, self_t, min_t, max_t):   # the tangent of whichever bound is active, as torch
    self, min, max = ctx.primals
    if max is None:     # one bound: a tie takes the bound's tangent
        return where_self(self > min, self_t, min_t)
    if min is None:
        return where_self(self < max, self_t, max_t)
    # two bounds: as the backward splits it (a tie takes self's; min > max gives max's)
    below = (self < min) & (min < max)
    above = (self > max) | (max < min)
    return where_self(_inside(self, min, max), self_t,
                      where_self(below, min_t, where_self(above, max_t, 0.0)))


def _clamp_spec(min, max):
    Tensor = _tensor_cls()
    tmin, tmax = isinstance(min, Tensor), isinstance(max, Tensor)
    if tmin or tmax:
        if (min is not None and not tmin) or (max is not None and not tmax):
            # a number beside a tensor: torch's Number overload, where the parser reads a 0-dim
            # tensor that does not require grad as its value (Note [Tensors for numbers])
            if all(not isinstance(b, Tensor) or reads_as_number(b) for b in (min, max)):
                return clamp_scalar
            raise TypeError(f"clamp() received an invalid combination of arguments - got "
                            f"(Tensor, min={type(min).__name__}, max={type(max).__name__}): "
                            "min and max must both be Tensors or both be Numbers")
        return clamp_tensor
    return clamp_scalar


def clamp(input, min=None, max=None, *, out=None):
    """Limit values to [min, max]; the bounds are numbers or tensors (not one of each)."""
    spec = _clamp_spec(min, max)
    if spec is clamp_scalar:
        min, max = scalar_value(min), scalar_value(max)
    return _call(spec, (input, min, max), out)


def clamp_(self, min=None, max=None):
    spec = _clamp_spec(min, max)
    if spec is clamp_scalar:
        min, max = scalar_value(min), scalar_value(max)
        _scalar_cast_check(self, (min, max))
    return spec.call_inplace(self, min, max)


def _scalar_cast_check(self, bounds) -> None:
    """torch's first check of an in-place clamp with number bounds: the result type must cast
    to self's dtype (named by its C++ type, unlike the later checks)."""
    from .._promotion import result_type_of_args
    from .linalg import cpp_type_name
    res = result_type_of_args([self] + [b for b in bounds if b is not None])
    if res.category > self.dtype.category:
        raise RuntimeError(f"result type {res._legacy} can't be cast to the desired output "
                           f"type {cpp_type_name(self.dtype)}")


def extremum_op(name, ufunc_name):
    """The elementwise max/min primitives (maximum, minimum, fmax, fmin): one NumPy ufunc,
    refused for complex as torch does; each attaches its own tie rule as the derivative."""
    ufunc = getattr(_npb.xp, ufunc_name)

    @defop(name, node=f"{name.capitalize()}Backward0", inputs=("self", "other"),
           variants=NO_INPLACE, saves=("self", "other"), scalars=(), pointwise=True)
    def op(xp, self, other):
        if self.dtype.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        # which operand a tie (-0.0 against 0.0) gives, as torch's vectorised loops
        if ufunc_name in ("fmax", "fmin"):
            return _npb.keep_first_f(ufunc, self, other)
        return _npb.keep_first(ufunc, other, self)
    return op


def _minmax(name, ufunc_name, loses, wins):
    op = extremum_op(name, ufunc_name)

    @op.backward
    def _(ctx, grad):
        # every mask compares self with other, self first, as torch's: both gradients are
        # laid out as self == other (See Note [Output layout of pointwise ops])
        self, other = ctx.saved_tensors
        need_self, need_other = ctx.needs_input_grad
        shared = where_self(self == other, grad / 2, grad)    # ties split the gradient
        return (where_self(loses(self, other), 0.0, shared) if need_self else None,
                where_self(wins(self, other), 0.0, shared) if need_other else None)

    @op.jvp
    def _(ctx, self_t, other_t):   # ties average the tangents; a NaN takes other's, as torch
        self, other = ctx.primals
        chosen = where_self(loses(other, self), self_t, other_t)
        return where_self(self == other, (self_t + other_t) / 2, chosen)
    return op


maximum = _minmax("maximum", "maximum", lambda a, b: a < b, lambda a, b: a > b)
minimum = _minmax("minimum", "minimum", lambda a, b: a > b, lambda a, b: a < b)


# -- real / imag ---------------------------------------------------------------------------------
# torch's real and imag of a complex tensor are views of its memory: view_as_real (pairs of
# reals, one more dim of size 2) and a select of index 0 or 1 on that dim, hence the graph
# SelectBackward0 -> ViewAsRealBackward0, torch's strides (twice the complex tensor's) and
# writes through them (``z.real.mul_(2)``, ``z.imag = t``) landing in the complex tensor.
def real(input):
    """The real part: for a complex tensor a view of its memory, else the tensor itself."""
    _require_tensor("real", input)
    if not input.is_complex():
        return input
    return FUNCTIONS["view_as_real"](input).select(input.dim(), 0)


def imag(input):
    """The imaginary part of a complex tensor, as a view of its memory."""
    _require_tensor("imag", input)
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return FUNCTIONS["view_as_real"](input).select(input.dim(), 1)


for _name, _fn in (("clamp", clamp), ("clip", clamp)):
    FUNCTIONS[_name] = METHODS[_name] = _fn
for _name, _fn in (("where", where), ("real", real), ("imag", imag)):
    FUNCTIONS[_name] = _fn
for _name, _fn in (("clamp_", clamp_), ("clip_", clamp_)):
    METHODS[_name] = INPLACE[_name] = _fn
METHODS["where"] = _where_method
METHODS["__rdiv__"] = _rdiv

# isclose, allclose and equal live in closeness.py
