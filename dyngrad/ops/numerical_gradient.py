"""gradient: numerical derivatives by central differences (``torch.gradient``).

A composite, as in ATen (ReduceOps.cpp), returning one tensor per differentiated dim, each
``cat([prepend, interior, append], dim)`` (CatBackward0). Along a dim of values ``f``:

* a constant spacing ``h`` (a number, the default 1, or one number per dim):
  interior ``(f[2:] - f[:-2]) / h / 2``; edges, first order ``(f[1:2] - f[0:1]) / h`` and
  ``(f[-1:] - f[-2:-1]) / h``, second order ``(-1.5 f[0:1] + 2 f[1:2] - 0.5 f[2:3]) / h`` and
  ``(0.5 f[-3:-2] - 2 f[-2:-1] + 1.5 f[-1:]) / h``. Divisions and products by numbers are
  ATen's Scalar overloads (DivBackward1, MulBackward1).
* coordinates ``x`` (a 1-D tensor per dim): with ``dx = x.diff()``, ``dx1 = dx[:-1]``,
  ``dx2 = dx[1:]``, the interior is the non-uniform three-point formula
  ``a f[:-2] + b f[1:-1] + c f[2:]`` with ``a = -dx2 / (dx1 (dx1 + dx2))``,
  ``b = (dx2 - dx1) / (dx1 dx2)``, ``c = dx1 / (dx2 (dx1 + dx2))`` (viewed along the dim), and
  the edges use ``dx[0]``, ``dx[1]``, ``dx[-2]``, ``dx[-1]`` (each a fresh select, as in ATen).

torch's parser has seven overloads (number or list spacing, int or list dim); the checks
(``pre_check_gradient``) run in ATen's order: uint8, the spacing's length, edge_order, the dims
(range, repeats, then each size at least ``edge_order + 1``).
"""
from __future__ import annotations

import numbers

from .. import _dtypes as D
from .._utils import canonical_dim, canonical_dims
from . import _registry
from ._registry import FUNCTIONS
from .creation import _type_name, invalid_combination
from .integration import _div as _scalar_div, _mul, _slice

_SIGNATURES = tuple(f"Tensor input, *, {s}, int edge_order = 1" for s in (
    "tuple of ints dim", "Number spacing, tuple of ints dim",
    "Number spacing = None, int dim = None", "tuple of Scalars spacing, int dim = None",
    "tuple of Scalars spacing, tuple of ints dim", "tuple of Tensors spacing, int dim = None",
    "tuple of Tensors spacing, tuple of ints dim"))
_KEYWORDS = ("input", "spacing", "dim", "edge_order")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Number) or (
        isinstance(v, _registry._Tensor) and v.dim() == 0)


def _div(t, number):
    """``t / number`` as ATen's ``Tensor / Scalar`` (DivBackward1). A complex number over a
    real tensor takes the promoting op: the Scalar primitive keeps t's dtype."""
    if isinstance(number, complex) and not t.is_complex():
        return FUNCTIONS["div"](t, number)
    return _scalar_div(t, number)


def _parse(args, kwargs):
    """(input, spacing, dim, edge_order) as torch's parser takes them, or its TypeError."""
    def invalid():
        # torch lists the keywords last first
        return invalid_combination("gradient", args, _SIGNATURES, dict(reversed(kwargs.items())))
    n = len(args) + len(kwargs)
    if len(args) > 1 or any(k not in _KEYWORDS for k in kwargs) or \
            (not args and "input" not in kwargs):
        raise invalid()
    input = args[0] if args else kwargs["input"]
    if not isinstance(input, _registry._Tensor):
        if n == 1:                            # only one overload takes one argument
            where = " (position 1)" if args else ""
            raise TypeError(f"gradient(): argument 'input'{where} must be Tensor, not "
                            f"{_type_name(input)}")
        raise invalid()
    spacing, dim = kwargs.get("spacing"), kwargs.get("dim")
    edge_order = kwargs.get("edge_order", 1)
    if isinstance(dim, (list, tuple)):
        for i, d in enumerate(dim):
            if not _is_int(d):
                raise TypeError("gradient(): argument 'dim' failed to unpack the object at pos "
                                f"{i + 1} with error \"type must be tuple of ints,but got "
                                f"{_type_name(d)}\"")
        dim = list(dim)
    elif dim is not None and not _is_int(dim):
        raise invalid()
    if not _is_int(edge_order):
        raise invalid()
    if isinstance(spacing, (list, tuple)):
        if not all(_is_number(s) and not isinstance(s, _registry._Tensor) for s in spacing):
            for i, s in enumerate(spacing):
                if not isinstance(s, _registry._Tensor):
                    raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                                    f"{_type_name(s)}")
        spacing = list(spacing)
    elif spacing is not None:
        if not _is_number(spacing):
            raise invalid()
        if isinstance(spacing, _registry._Tensor):
            spacing = spacing.item()
    return input, spacing, dim, edge_order


def _pre_check(input, spacing_size, dims, edge_order):
    """ATen's ``pre_check_gradient``; `dims` None when the call gave no dim."""
    if input.dtype is D.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dims is None and spacing_size != input.dim():
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
            f"a list of length {spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length "
            f"{spacing_size} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is not None:
        canonical_dims(dims, input.dim())
    for d in (dims if dims is not None else range(input.dim())):
        if input.size(d) < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")


def _uniform(f, d, h, edge_order):
    """The derivative of `f` along `d` with a constant spacing `h` (a number)."""
    interior = _div(_slice(f, d, 2, None) - _slice(f, d, 0, -2), h)
    if edge_order == 1:
        first = _div(_slice(f, d, 1, 2) - _slice(f, d, 0, 1), h)
        last = _div(_slice(f, d, -1, None) - _slice(f, d, -2, -1), h)
    else:
        first = _div(_mul(_slice(f, d, 0, 1), -1.5) + _mul(_slice(f, d, 1, 2), 2)
                     - _mul(_slice(f, d, 2, 3), 0.5), h)
        last = _div(_mul(_slice(f, d, -3, -2), 0.5) - _mul(_slice(f, d, -2, -1), 2)
                    + _mul(_slice(f, d, -1, None), 1.5), h)
    return FUNCTIONS["cat"]([first, _div(interior, 2), last], d)


def _nonuniform(f, d, x, edge_order):
    """The derivative of `f` along `d` at the 1-D coordinates `x`."""
    if x.dim() != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one "
                           f"dimension, but got an element with {x.dim()} dimensions!")
    shape = [1] * f.dim()
    shape[d] = -1
    dx = FUNCTIONS["diff"](x, 1, 0)
    dx1, dx2 = _slice(dx, 0, 0, -1), _slice(dx, 0, 1, None)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    interior = a * _slice(f, d, 0, -2) + b * _slice(f, d, 1, -1) + c * _slice(f, d, 2, None)

    def h(i):
        return dx.select(0, i)
    if edge_order == 1:
        first = (_slice(f, d, 1, 2) - _slice(f, d, 0, 1)) / h(0)
        last = (_slice(f, d, -1, None) - _slice(f, d, -2, -1)) / h(-1)
    else:
        a = -(_mul(h(0), 2.0) + h(1)) / (h(0) * (h(0) + h(1)))
        b = (h(0) + h(1)) / (h(0) * h(1))
        c = (-h(0)) / (h(1) * (h(0) + h(1)))
        first = a * _slice(f, d, 0, 1) + b * _slice(f, d, 1, 2) + c * _slice(f, d, 2, 3)
        a = h(-1) / (h(-2) * (h(-1) + h(-2)))
        b = -(h(-1) + h(-2)) / (h(-1) * h(-2))
        c = (_mul(h(-1), 2) + h(-2)) / (h(-1) * (h(-1) + h(-2)))
        last = a * _slice(f, d, -3, -2) + b * _slice(f, d, -2, -1) + c * _slice(f, d, -1, None)
    return FUNCTIONS["cat"]([first, interior, last], d)


def gradient(*args, **kwargs):
    """Estimate the derivative of ``input`` along each dim in ``dim`` (all by default) by
    second-order central differences, with first- or second-order one-sided edges
    (``edge_order``). ``spacing`` is a number, one number per dim, or one 1-D coordinate tensor
    per dim. Returns a tuple with one tensor per dim."""
    input, spacing, dim, edge_order = _parse(args, kwargs)
    dims = list(range(input.dim())) if dim is None else [dim] if _is_int(dim) else dim
    if spacing is None or not isinstance(spacing, list):
        steps = [1.0 if spacing is None else spacing] * len(dims)
        size = None if spacing is None else len(dims)
    else:
        steps, size = spacing, len(spacing)
    _pre_check(input, size, None if dim is None else dims, edge_order)
    result = []
    for d, step in zip(dims, steps):
        d = canonical_dim(d, input.dim())
        if isinstance(step, _registry._Tensor):
            result.append(_nonuniform(input, d, step, edge_order))
        else:
            result.append(_uniform(input, d, step, edge_order))
    return tuple(result)


FUNCTIONS["gradient"] = gradient
