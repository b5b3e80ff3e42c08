"""trapezoid, trapz and cumulative_trapezoid: the trapezoidal rule along a dim.

Composites, as in ATen (so their gradients follow from the ops they call). With sample points
``x`` (a tensor) the spacing is ``dx = x[1:] - x[:-1]`` (a 1-D ``x`` viewed along ``dim``, a
shorter ``x`` padded with leading dims of size 1) and

* trapezoid: ``((y[:-1] + y[1:]) * dx).sum(dim) / 2``,
* cumulative_trapezoid: ``((y[:-1] + y[1:]) * dx).cumsum(dim) / 2``;

with a constant spacing ``dx`` (a real number, taken as a double)

* trapezoid: ``(y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx``,
* cumulative_trapezoid: ``(dx / 2 * (y[:-1] + y[1:])).cumsum(dim)``,

where ``y[1:]`` and ``y[:-1]`` are slices along ``dim`` (SliceBackward0) and ``y[0]``,
``y[-1]`` selects. trapezoid of a dim of size 0 is zeros of the remaining shape (an empty
integral), before any other check. Each function has two overloads in torch's parser: ``(y, x,
*, dim)`` and ``(y, *, dx, dim)``; a number never goes positionally. No Tensor methods, no out=.
"""
from __future__ import annotations

from .._utils import canonical_dim
from . import _registry
from ._registry import FUNCTIONS, OPS
from .creation import invalid_combination

_TENSOR_X = "Tensor y, Tensor x, *, int dim = -1"
_SIGNATURES = {
    "trapezoid": (_TENSOR_X, "Tensor y, *, Number dx = 1, int dim = -1"),
    "cumulative_trapezoid": (_TENSOR_X, "Tensor y, *, Number dx = 1, int dim = -1"),
    "trapz": ("Tensor y, *, float dx = 1, int dim = -1", _TENSOR_X),
}


def _mul(t, number):
    """``t * number`` as a C++ ``Tensor * double`` (MulBackward1). The Scalar primitive keeps
    t's dtype, so an integer ``t`` (which has no gradient) takes the promoting op."""
    if t.is_floating_point() or t.is_complex():
        return OPS["mul.Scalar"](t, number)
    return FUNCTIONS["mul"](t, number)


def _div(t, number):
    """``t / number`` (DivBackward1); see :func:`_mul`."""
    if t.is_floating_point() or t.is_complex():
        return OPS["div.Scalar"](t, number)
    return FUNCTIONS["div"](t, number)


def _slice(t, dim, start, end):
    return OPS["slice.Tensor"](t, dim, start, end, 1)


def _pairs(y, dim):
    """``y[:-1] + y[1:]`` along ``dim``."""
    return _slice(y, dim, 0, -1) + _slice(y, dim, 1, None)


def _zeros_except(y, dim):
    sizes = list(y.shape)
    del sizes[canonical_dim(dim, y.dim())]
    return FUNCTIONS["zeros"](sizes, dtype=y.dtype)


def _spacing(name, y, x, dim):
    """``x[1:] - x[:-1]`` along ``dim``, after x is viewed to y's rank as torch does."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.dim()
        sizes[dim] = x.shape[0]
        x = x.view(sizes)
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    return _slice(x, dim, 1, None) - _slice(x, dim, 0, -1)


def _check_rank(y, dim):
    """y.size(dim) of a 0-dim y (dim already wrapped to 0): sym_size's IndexError."""
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def _check_bool(name, y, x=None):
    from .. import _dtypes as D
    if x is None:
        if y.dtype is D.bool_:
            raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not "
                               "supported")
    elif y.dtype is D.bool_ or x.dtype is D.bool_:
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not "
                           "supported")


def _check_dx(name, dx):
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return float(dx)


def _parse(name, y, args, kwargs):
    """torch's overload resolution: (y, x-or-None, dx-or-None, dim)."""
    Tensor = _registry._Tensor
    x = args[0] if args else kwargs.get("x")
    dx = kwargs.get("dx")
    dim = kwargs.get("dim", -1)
    ok = isinstance(y, Tensor) and len(args) <= 1 and set(kwargs) <= {"x", "dx", "dim"} \
        and not (args and "x" in kwargs)
    if ok and x is not None:
        ok = isinstance(x, Tensor) and "dx" not in kwargs
    elif ok:
        real = (int, float) if name == "trapz" else (int, float, complex)
        ok = "dx" not in kwargs or isinstance(dx, real)
    if ok:
        ok = type(dim) is int or (hasattr(dim, "__index__") and not isinstance(dim, bool))
    if not ok:
        raise invalid_combination(name, (y,) + tuple(args), _SIGNATURES[name], kwargs)
    return x, (1 if dx is None else dx), int(dim)


def trapezoid(y, *args, **kwargs):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, over sample points ``x``
    or at constant spacing ``dx`` (default 1)."""
    return _trapezoid("trapezoid", y, args, kwargs)


def trapz(y, *args, **kwargs):
    """Alias of :func:`trapezoid` (``dx`` a float)."""
    return _trapezoid("trapz", y, args, kwargs)


def _trapezoid(name, y, args, kwargs):
    x, dx, dim = _parse(name, y, args, kwargs)
    if x is not None:
        dim = canonical_dim(dim, y.dim())
        _check_rank(y, dim)
        if y.shape[dim] == 0:
            return _zeros_except(y, dim)
        _check_bool("trapezoid", y, x)
        return _div((_pairs(y, dim) * _spacing("trapezoid", y, x, dim)).sum(dim), 2.0)
    _check_rank(y, dim)     # (dim unwrapped here, as torch reports it)
    if y.shape[canonical_dim(dim, y.dim())] == 0:
        return _zeros_except(y, dim)
    _check_bool("trapezoid", y)
    if name == "trapz":
        dx = float(dx)      # its overload takes a float: True is 1.0
    dx = _check_dx("trapezoid", dx)
    ends = y.select(dim, 0) + y.select(dim, -1)
    return _mul(y.sum(dim) - _mul(ends, 0.5), dx)


def cumulative_trapezoid(y, *args, **kwargs):
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule (one element fewer
    than ``y`` along ``dim``), over sample points ``x`` or at constant spacing ``dx``."""
    name = "cumulative_trapezoid"
    x, dx, dim = _parse(name, y, args, kwargs)
    if x is not None:
        dim = canonical_dim(dim, y.dim())
        _check_bool(name, y, x)
        if x.dim() == 1:
            _check_rank(y, dim)
        return _div((_pairs(y, dim) * _spacing(name, y, x, dim)).cumsum(dim), 2.0)
    _check_bool(name, y)
    dx = _check_dx(name, dx)
    return _mul(_pairs(y, dim), dx / 2.0).cumsum(dim)


for _fn in (trapezoid, trapz, cumulative_trapezoid):
    FUNCTIONS[_fn.__name__] = _fn
