"""clamp_min and clamp_max: clamp with one bound, as torch's own ops (their nodes are
ClampMinBackward0 / ClampMaxBackward0 for a number bound, ...Backward1 for a tensor one).

The kernels are clamp's (pointwise.py) with the other bound absent; the function, method and
in-place forms pick the overload by the bound's type, with torch's errors (binary.py).
"""
from __future__ import annotations

from ..autograd.forward_ad import AUTO_ELEMENT_WISE
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from .binary import _is_number, _overload_error
from .pointwise import (_call, _clamp, _clamp_check, _inside, _scalar_cast_check,
                        _tensor_cls, where_self)


# number bounds get no edge: see Note [Which inputs get an edge] in arithmetic.py
@defop("clamp_min", node="ClampMinBackward0", inputs=("self", "min"), variants=(),
       differentiable=("self",), saves=("self", "min"), scalars=("min",), pointwise=True)
def clamp_min_scalar(xp, self, min):
    _clamp_check(xp, self, min, None, "clamp{}_scalar_cpu")
    return _clamp(xp, self, min, None)


@defop("clamp_max", node="ClampMaxBackward0", inputs=("self", "max"), variants=(),
       differentiable=("self",), saves=("self", "max"), scalars=("max",), pointwise=True)
def clamp_max_scalar(xp, self, max):
    _clamp_check(xp, self, None, max, "clamp{}_scalar_cpu")
    return _clamp(xp, self, None, max)


clamp_min_scalar.checked_scalars = clamp_max_scalar.checked_scalars = "all"   # (as clamp's)


@defop("clamp_min.Tensor", node="ClampMinBackward1", inputs=("self", "min"), variants=(),
       saves=("self", "min"), scalars=(), public="clamp_min", pointwise=True)
def clamp_min_tensor(xp, self, min):
    _clamp_check(xp, self, min, None, "clamp{}_cpu")
    return _clamp(xp, self, min, None)


@defop("clamp_max.Tensor", node="ClampMaxBackward1", inputs=("self", "max"), variants=(),
       saves=("self", "max"), scalars=(), public="clamp_max", pointwise=True)
def clamp_max_tensor(xp, self, max):
    _clamp_check(xp, self, None, max, "clamp{}_cpu")
    return _clamp(xp, self, None, max)


@clamp_min_scalar.backward
def _(ctx, grad):   # the gradient passes where self >= min (the bound itself included)
    self, min = ctx.saved_tensors
    return where_self(_inside(self, min, None), grad, 0.0)


@clamp_max_scalar.backward
def _(ctx, grad):
    self, max = ctx.saved_tensors
    return where_self(_inside(self, None, max), grad, 0.0)


@clamp_min_tensor.backward
def _(ctx, grad):   # to self where self >= min, to min elsewhere
    self, min = ctx.saved_tensors
    need_self, need_min = ctx.needs_input_grad
    return (where_self(self >= min, grad, 0.0) if need_self else None,
            where_self(self < min, grad, 0.0) if need_min else None)


@clamp_max_tensor.backward
def _(ctx, grad):
    self, max = ctx.saved_tensors
    need_self, need_max = ctx.needs_input_grad
    return (where_self(self <= max, grad, 0.0) if need_self else None,
            where_self(self > max, grad, 0.0) if need_max else None)


for _spec in (clamp_min_scalar, clamp_max_scalar):
    _spec.wraps_scalars = False   # number bounds are no operands of torch's kernel
    _spec.jvp(AUTO_ELEMENT_WISE)


@clamp_min_tensor.jvp
def _(ctx, self_t, min_t):   # as the backward splits it: a tie takes self's tangent
    self, min = ctx.primals
    return where_self(self >= min, self_t, min_t)


@clamp_max_tensor.jvp
def _(ctx, self_t, max_t):
    self, max = ctx.primals
    return where_self(self <= max, self_t, max_t)


def _overload(name, side, tensor_spec, scalar_spec, input, args, kwargs, method):
    """(spec, bound) of the call: the Tensor or the Number overload, else torch's TypeError."""
    given = dict(kwargs)
    bound = given.pop(side, _MISSING)
    if len(args) == 1 and bound is _MISSING and not given:
        bound = args[0]
    elif args or given or bound is _MISSING:
        bound = _MISSING
    Tensor = _tensor_cls()
    if isinstance(input, Tensor) and bound is not _MISSING:
        if isinstance(bound, Tensor):
            return tensor_spec, bound
        if _is_number(bound):
            return scalar_spec, bound
    if not method:
        args = (input,) + tuple(args)
    raise _overload_error(name, args, _OVERLOADS[side], method, kwargs)


def _family(name, side, tensor_spec, scalar_spec):
    """The function, method and in-place forms of clamp_min or clamp_max."""
    def function(input, *args, out=None, **kwargs):
        spec, bound = _overload(name, side, tensor_spec, scalar_spec, input, args, kwargs,
                                False)
        return _call(spec, (input, bound), out)

    def method(self, *args, **kwargs):
        spec, bound = _overload(name, side, tensor_spec, scalar_spec, self, args, kwargs, True)
        return spec(self, bound)

    def in_place(self, *args, **kwargs):
        spec, bound = _overload(name + "_", side, tensor_spec, scalar_spec, self, args, kwargs,
                                True)
        if spec is scalar_spec:
            _scalar_cast_check(self, (bound,))
        return spec.call_inplace(self, bound)

    function.__name__, method.__name__, in_place.__name__ = name, name, name + "_"
    function.__doc__ = method.__doc__ = (f"clamp with only its {side} bound (a number or a "
                                         f"tensor): ``clamp({side}={side})``.")
    FUNCTIONS[name] = function
    METHODS[name] = method
    METHODS[name + "_"] = INPLACE[name + "_"] = in_place
    return function, in_place


_MISSING = object()
_OVERLOADS = {side: ((("Tensor", "self"), ("Tensor", side)),
                     (("Tensor", "self"), ("Number", side))) for side in ("min", "max")}
clamp_min, clamp_min_ = _family("clamp_min", "min", clamp_min_tensor, clamp_min_scalar)
clamp_max, clamp_max_ = _family("clamp_max", "max", clamp_max_tensor, clamp_max_scalar)
