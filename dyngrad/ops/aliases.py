"""torch's other names for ops dyngrad has, and its small tensor predicates.

* Aliases (torch's ``alias`` entries): ``absolute`` is ``abs``, ``negative`` is ``neg``,
  ``greater`` ``gt``, ``greater_equal`` ``ge``, ``less`` ``lt``, ``less_equal`` ``le``,
  ``not_equal`` ``ne``: each calls the op itself (its grad_fn, ``out=``, errors), its
  TypeErrors naming the alias as torch's do.
* ``torch.X_(input, ...)``: the function form of an in-place method, ``input.X_(...)``.
* ``fill``: the out-of-place ``fill_`` (its own nodes, FillBackward0 / FillBackward1, with
  ``fill_``'s formulas), ``detach``, ``adjoint`` (``transpose(-2, -1)`` then ``conj``, a view),
  ``isreal`` and the predicates ``is_same_size``, ``is_signed``, ``is_nonzero``,
  ``is_inference``.
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from . import _registry, arithmetic, pointwise  # noqa: F401  (the ops aliased below come first)
from ._registry import FUNCTIONS, METHODS, defop
from ._selection import tensor_shape_cpp, warn_once_at_caller
from ..autograd import grad_mode as _grad_mode
from .complex_views import _require
from .conversion import fill_scalar, fill_tensor
from .creation import _type_name

# -- aliases -----------------------------------------------------------------------------------
_ALIASES = {"absolute": "abs", "negative": "neg", "greater": "gt", "greater_equal": "ge",
            "less": "lt", "less_equal": "le", "not_equal": "ne"}


def _renamed(fn, alias, name):
    """`fn` under torch's alias name: the same op, its TypeErrors naming the alias as torch's
    argument parser does (``absolute(): argument 'input' ...``)."""
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            message = str(e)
            if not message.startswith(name + "("):
                raise
            raise TypeError(alias + message[len(name):]) from None
    call.__name__ = call.__qualname__ = alias
    call.__doc__ = f"``{name}`` under torch's other name ``{alias}``."
    return call


for _alias, _op in _ALIASES.items():
    FUNCTIONS[_alias] = _renamed(FUNCTIONS[_op], _alias, _op)
    METHODS[_alias] = _renamed(METHODS[_op], _alias, _op)
    METHODS[_alias + "_"] = _renamed(METHODS[_op + "_"], _alias + "_", _op + "_")


# -- torch.X_: the in-place methods as functions -----------------------------------------------
# Every in-place function of torch's namespace whose method dyngrad's Tensor has.
_INPLACE_FUNCTIONS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ as_strided_ "
    "asin_ asinh_ atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ "
    "detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ "
    "ldexp_ log10_ log1p_ log2_ log_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ round_ "
    "rsqrt_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_").split()


def _inplace_function(name):
    def fn(input, *args, **kwargs):
        _require(name, input, "input", 1)
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(...)``: the in-place method as a function."
    return fn


for _name in _INPLACE_FUNCTIONS:
    FUNCTIONS[_name] = _inplace_function(_name)


# -- fill ----------------------------------------------------------------------------------------
@defop("fill.Scalar", node="FillBackward0", promote=Promote.NONE, variants=(), pointwise=True)
def _fill_scalar(xp, self, value):
    return fill_scalar.kernel(xp, self, value)


@defop("fill.Tensor", node="FillBackward1", promote=Promote.NONE, inputs=("self", "value"),
       variants=(), pointwise=True)
def _fill_tensor(xp, self, value):
    return fill_tensor.kernel(xp, self, value)


for _out, _inplace in ((_fill_scalar, fill_scalar), (_fill_tensor, fill_tensor)):
    _out.backward(_inplace.backward_fn)
    _out.jvp(_inplace.jvp_fn)


def fill(input, value):
    """A tensor like ``input`` (its layout kept) holding ``value``, a number or 0-dim tensor."""
    _require("fill", input, "input", 1)
    if isinstance(value, _registry._Tensor):
        return _fill_tensor(input, value)
    if isinstance(value, (bool, int, float, complex)):
        return _fill_scalar(input, value)
    got = _type_name(value)
    raise TypeError("fill() received an invalid combination of arguments - got (Tensor, "
                    f"{got}), but expected one of:\n"
                    " * (Tensor input, Tensor value)\n"
                    "      didn't match because some of the arguments have invalid types: "
                    f"(Tensor, !{got}!)\n"
                    " * (Tensor input, Number value)\n"
                    "      didn't match because some of the arguments have invalid types: "
                    f"(Tensor, !{got}!)\n")


FUNCTIONS["fill"] = fill


# -- detach, adjoint, isreal ---------------------------------------------------------------------
def detach(input):
    """``input.detach()``: a new leaf sharing the storage."""
    _require("detach", input, "input", 1)
    return input.detach()


def adjoint(input):
    """The conjugate transpose of the last two dims, a view (``transpose(-2, -1)``, then
    ``conj`` for complex tensors). A 0-dim tensor gives ``conj()`` with torch's warning."""
    _require("adjoint", input, "input", 1)
    if input.dim() == 0:
        warn_once_at_caller("adjoint() is deprecated on 0-D tensors. Consider using "
                            "x.conj()." + tensor_shape_cpp(4390))
        return _conj(input)
    if input.dim() == 1:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           "matrices. Got 1-D tensor.")
    return _conj(input.transpose(-2, -1))


def _conj(t):
    """``t.conj()`` where dyngrad's Tensor has it; else (no conj view yet) the conjugate values
    in a copy of ``t``'s layout, outside autograd."""
    if not t.is_complex():
        return t
    if hasattr(t, "conj"):
        return t.conj()
    with _grad_mode.no_grad():
        result = t.clone()
    result._data[...] = result._data.conj()
    return result


def isreal(input):
    """Where the imaginary part is zero: all True for a real tensor (``ones_like``, bool)."""
    _require("isreal", input, "input", 1)
    if not input.is_complex():
        return FUNCTIONS["ones_like"](input, dtype=D.bool_)
    return FUNCTIONS["eq"](FUNCTIONS["imag"](input), 0)


FUNCTIONS["detach"] = detach
FUNCTIONS["adjoint"] = METHODS["adjoint"] = adjoint
FUNCTIONS["isreal"] = METHODS["isreal"] = isreal


# -- predicates ----------------------------------------------------------------------------------
def is_same_size(input, other) -> bool:
    """Whether the two shapes are equal."""
    _require("is_same_size", input, "input", 1)
    _require("is_same_size", other, "other", 2)
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input) -> bool:
    """The truth of a one-element tensor (NaN is true); torch's errors otherwise."""
    _require("is_nonzero", input, "input", 1)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


def is_signed(input) -> bool:
    _require("is_signed", input, "input", 1)
    return input.is_signed()


def is_inference(input) -> bool:
    _require("is_inference", input, "input", 1)
    return input.is_inference()


FUNCTIONS["is_same_size"] = METHODS["is_same_size"] = is_same_size
FUNCTIONS["is_nonzero"] = METHODS["is_nonzero"] = is_nonzero
FUNCTIONS["is_signed"] = is_signed
FUNCTIONS["is_inference"] = is_inference
