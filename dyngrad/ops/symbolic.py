"""torch's SymInt-aware helpers on plain values: ``sym_float``, ``sym_int``, ``sym_max``,
``sym_min``, ``sym_not``, ``sym_sqrt``, ``sym_ite`` and ``sym_sum``.

In torch they stand in for ``float()``, ``max()``, ``not``… so that traced code keeps symbolic
sizes symbolic. dyngrad has no symbolic shapes (no ``SymInt``/``SymFloat``/``SymBool``), so
each is the Python operation it stands for, with torch's type rules and checks: an object with
torch's protocol method (``__sym_float__``, ``__sym_not__``, ``__sym_max__``…) still gets to
answer, and tensors go where Python's operation takes them (``float(t)`` of a one-element
tensor, ``not t``).
"""
from __future__ import annotations

import builtins
import math

from ..backends.numpy_backend import xp
from ._arg_parser import type_repr as _type_repr
from ._registry import FUNCTIONS

# the numbers sym_max/sym_min accept, and those among them that make the result a float
_ALL_TYPES = (xp.integer, xp.floating, int, float)
_FLOAT_TYPES = (xp.floating, float)


def sym_float(a):
    """``float(a)``, SymInt-aware in torch (``a.__sym_float__()`` when `a` has it)."""
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def sym_int(a):
    """``int(a)`` (truncation toward zero), SymInt-aware in torch."""
    return builtins.int(a)


def _check_number(a) -> None:
    if not isinstance(a, _ALL_TYPES):
        raise AssertionError(f"expected {_ALL_TYPES}, got {_type_repr(a)}")


def _sym_extreme(a, b, dunder, pick):
    """``pick(a, b)`` (max or min) of two numbers, a float when either is a float; an argument
    with its own ``dunder`` method decides (commutative under torch's promotion)."""
    if hasattr(a, dunder):
        return getattr(a, dunder)(b)
    if hasattr(b, dunder):
        return getattr(b, dunder)(a)
    _check_number(a)
    _check_number(b)
    if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES):
        return builtins.float(pick(a, b))
    return pick(a, b)


def sym_max(a, b):
    """``max(a, b)`` of two numbers, a float when either is a float (``sym_max(3, 2.0)`` is
    ``3.0``, unlike ``max``); NaN and signed zeros follow ``max``'s first-wins rule."""
    return _sym_extreme(a, b, "__sym_max__", builtins.max)


def sym_min(a, b):
    """``min(a, b)`` of two numbers, a float when either is a float."""
    return _sym_extreme(a, b, "__sym_min__", builtins.min)


def sym_not(a):
    """``not a`` (``a.__sym_not__()`` when `a` has it)."""
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


def sym_sqrt(a):
    """``math.sqrt(a)`` (``a.__sym_sqrt__()`` when `a` has it)."""
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


def sym_ite(b, t, f):
    """``t if b else f``: `b` must be a bool, and `t` and `f` of one type."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {_type_repr(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {_type_repr(t)} vs {_type_repr(f)}")
    return t if b else f


def sym_sum(*args):
    """``sum(args)``: the terms as ``sym_sum([a, b, c])`` or ``sym_sum(a, b, c)``."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


for _fn in (sym_float, sym_int, sym_max, sym_min, sym_not, sym_sqrt, sym_ite, sym_sum):
    FUNCTIONS[_fn.__name__] = _fn
