"""Bounds checks of the integer samplers (torch's DistributionTemplates.h): ``random_`` and
``randint`` ranges per dtype, with torch's adjustment of float bounds to representable values
and its precision warning. Used by distributions.py.
"""
from __future__ import annotations

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from ._selection import warn_at_caller
from .creation import TYPEMETA_NAME

xp = _npb.xp


def _digits(d: D.dtype) -> int:
    return {D.float16: 11, D.float32: 24, D.float64: 53}[d]


def check_from_to_in_range(frm: int, to_inc: int, d: D.dtype) -> None:
    """torch's check_from_to_in_range: bounds must fit the dtype (a warning past float
    precision)."""
    name = TYPEMETA_NAME[d]
    if d.category == D.FLOAT:
        mx = float(_npb.finfo(d.np).max)
        for v, what in ((frm, "from"), (to_inc, "to - 1")):
            if not -mx <= v <= mx:
                raise RuntimeError(f"{what} is out of bounds for {name}")
        digits = _digits(d)
        for v, what, line in ((frm, "from", 110), (to_inc, "to - 1", 111)):
            if v < -(2 ** digits) or v > 2 ** digits:
                warn_at_caller(
                    f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {name} can support discrete uniform distribution only within "
                    "this range. This warning will become an error in version 1.7 release, "
                    "please fix the code in advance (Triggered internally at "
                    f"/__w/pytorch/pytorch/aten/src/ATen/native/DistributionTemplates.h:{line}.)")
    elif d.category in (D.INT, D.BOOL):
        lo, hi = (0, 1) if d is D.bool_ else (int(xp.iinfo(d.np).min), int(xp.iinfo(d.np).max))
        for v, what in ((frm, "from"), (to_inc, "to - 1")):
            if not lo <= v <= hi:
                raise RuntimeError(f"{what} is out of bounds for {name}")
    else:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")


def _in_float_range(v: int, d: D.dtype) -> bool:
    return abs(v) <= float(_npb.finfo(d.np).max)


def _update_from(frm: int, d: D.dtype) -> int:
    """torch's update_from: the smallest `from` the float dtype can represent exactly."""
    if not _in_float_range(frm + 1, d):
        return frm               # out of range: check_from_to_in_range reports it
    plus1 = int(xp.array(frm + 1, xp.float64).astype(d.np).astype(xp.float64))
    if plus1 < frm:
        n = abs(frm + 1).bit_length() - 1
        frm = plus1 + (1 << (n - _digits(d) + 1))
    return frm


def _update_to(to: int, d: D.dtype) -> int:
    if not _in_float_range(to - 1, d):
        return to
    minus1 = int(xp.array(to - 1, xp.float64).astype(d.np).astype(xp.float64))
    if minus1 >= to:
        n = abs(to - 1).bit_length() - 1
        to = minus1 - (1 << (n - _digits(d) + 1))
    return to


def _random_bounds(frm, to, d: D.dtype):
    """[from, to_inclusive] for ``random_(from, to)`` (to None: the dtype's top), checked."""
    if to is not None:
        if not frm < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} "
                               f">= to={to}")
        if d.category == D.FLOAT:
            frm, to = _update_from(frm, d), _update_to(to, d)
            if not frm < to:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' "
                                   f"casted to dtype, but got from={frm} >= to={to}")
        check_from_to_in_range(frm, to - 1, d)
        return frm, to - 1
    if d.category == D.FLOAT:
        to_inc = min(2 ** _digits(d), 2 ** 63 - 1)
        frm = _update_from(frm, d)
        if not frm < to_inc:
            raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal "
                               f"to 'to_inc' casted to dtype, but got from={frm} > "
                               f"to_inc={to_inc}")
    elif d.category in (D.INT, D.BOOL):
        to_inc = 1 if d is D.bool_ else int(xp.iinfo(d.np).max)
    else:
        raise RuntimeError("random_from_to_impl handles only integral, floating-point and "
                           "boolean types")
    check_from_to_in_range(frm, to_inc, d)
    return frm, to_inc


def _random_default_bounds(d: D.dtype):
    """The range of a bare ``random_()``: [0, 2**mantissa] for floats, [0, max] for ints."""
    if d.category == D.FLOAT:
        return 0, 2 ** _digits(d)
    if d is D.bool_:
        return 0, 1
    if d.category == D.INT and d not in D.LIMITED_UNSIGNED:   # (those have no such kernel)
        return 0, int(xp.iinfo(d.np).max)
    raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{d._legacy}'")
