"""Whole-tensor and elementwise closeness: isclose, allclose and equal (torch's
TensorCompare). allclose and equal return Python bools; isclose a bool tensor."""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from ._registry import FUNCTIONS, METHODS, defop
from .pointwise import _tensor_cls, eq
from ._arg_parser import type_name as _tp_name


# -- isclose / allclose / equal ----------------------------------------------------------------
# Note [isclose]
# ~~~~~~~~~~~~~~
# torch: close = (a == b) [or both NaN, with equal_nan]; unless rtol == atol == 0, also close
# where |a - b| is finite and <= atol + |rtol * b|, computed in the operands' dtype (integers
# and bools in the default float dtype). NumPy's isclose differs: it calls inf close to any
# finite number within an infinite atol, and computes integers in float64.
@defop("isclose", node=None, promote=Promote.ALWAYS_BOOL, inputs=("self", "other"),
       variants=(), scalars=(), pointwise=True)
def isclose_spec(xp, self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    close = xp.equal(self, other)
    kind = self.dtype.kind
    if equal_nan and kind in "fcV":
        close |= xp.isnan(self) & xp.isnan(other)
    if rtol == 0 and atol == 0:
        return close
    if kind in "biu":
        default = D.get_default_dtype().np
        self, other = self.astype(default), other.astype(default)
    allowed = atol + xp.abs(rtol * other)
    actual = xp.abs(self - other)
    return close | (xp.isfinite(actual) & (actual <= allowed))


def _check_close(fname, input, other, rtol, atol, method=False) -> None:
    """torch's argument checks for isclose/allclose, in its order."""
    first = 0 if method else 1
    for pos, (name, v) in enumerate((("input", input), ("other", other))):
        if not isinstance(v, _tensor_cls()) and not (method and name == "input"):
            raise TypeError(f"{fname}(): argument '{name}' (position {pos + first}) must be "
                            f"Tensor, not {type(v).__name__}")
    for pos, (name, v) in enumerate((("rtol", rtol), ("atol", atol))):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{fname}(): argument '{name}' (position {pos + first + 2}) must be "
                            f"float, not {type(v).__name__}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype._legacy} did not match {other.dtype._legacy}")
    for name, v in (("rtol", rtol), ("atol", atol)):
        if not v >= 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got "
                               f"{float(v):g}")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (a bool tensor).

    See Note [isclose] for how torch computes it."""
    _check_close("isclose", input, other, rtol, atol)
    return isclose_spec(input, other, rtol, atol, equal_nan)


def _isclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _check_close("isclose", self, other, rtol, atol, method=True)
    return isclose_spec(self, other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """Whether every element of ``input`` is close to ``other`` (a Python bool)."""
    _check_close("allclose", input, other, rtol, atol)
    return bool(isclose_spec(input, other, rtol, atol, equal_nan)._data.all())


def _allclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    _check_close("allclose", self, other, rtol, atol, method=True)
    return bool(isclose_spec(self, other, rtol, atol, equal_nan)._data.all())


def _equal(input, other, method) -> bool:
    Tensor = _tensor_cls()
    for pos, (name, v) in enumerate((("input", input), ("other", other))):
        if not isinstance(v, Tensor):
            raise TypeError(f"equal(): argument '{name}' (position {pos + (0 if method else 1)})"
                            f" must be Tensor, not {_tp_name(v)}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(eq(input, other)._data.all())


def equal(input, other) -> bool:
    """True when both tensors have the same shape and equal elements (a Python bool; values
    compare after promotion, NaN is never equal)."""
    return _equal(input, other, False)


def _equal_method(self, other) -> bool:
    return _equal(self, other, True)


for _name, _fn, _method in (("isclose", isclose, _isclose_method),
                            ("allclose", allclose, _allclose_method),
                            ("equal", equal, _equal_method)):
    FUNCTIONS[_name] = _fn
    METHODS[_name] = _method
