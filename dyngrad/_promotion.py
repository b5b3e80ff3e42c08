"""torch's type promotion: promote_types, result_type, can_cast and the per-op promotion kinds.

torch's rules differ from NumPy's (see ../shared/DESIGN.md §3):

* categories order bool < integer < floating < complex;
* a tensor with dimensions outranks a 0-dim tensor, which outranks a Python scalar, but only
  *within the same category*: ``int32_tensor + 1.5`` is floating (the default dtype), while
  ``float16_tensor + float64_0dim`` stays float16;
* float16 with any integer is float16 (NumPy would say float32).

Results are cached by the input dtypes so the dispatcher pays one dict lookup per op.
"""
from __future__ import annotations

import enum

import numpy as np

from . import _dtypes as D
from ._dtypes import BOOL, COMPLEX, FLOAT, INT

_INT_ORDER = {D.uint8: 0, D.int8: 1, D.int16: 2, D.int32: 3, D.int64: 4}


# Note [Limited unsigned dtypes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's uint16, uint32 and uint64 exist, print, convert and serialize, but take part in
# promotion only with themselves and the floating types (``uint16 + float32`` is float32); any
# other pair is refused by promote_types with the message below (a 0-dim tensor or a Python
# number of another category still gives way as usual: ``uint16 * 2`` stays uint16). ATen
# compiles only "barebones" kernels for them (mul, eq/ne, bitwise and/or/xor, sort, unique,
# cat, where, fill_, copy_, indexing reads…): the ops it lacks raise torch's
# ``"<kernel>" not implemented for 'UInt16'``, from the table in ops/_unsigned.py that the
# dispatcher consults once per promotion key (and, for the few that depend on layout or
# arguments, from their kernels). Ops computing in another dtype (``/``, ``sqrt``: float;
# ``sum``, ``cumsum``: int64) work.
def _limited_pair_error(a: D.dtype, b: D.dtype) -> RuntimeError:
    return RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                        f"attempted to promote {a._legacy} and {b._legacy}")


def _promote_pair(a: D.dtype, b: D.dtype) -> D.dtype:
    if a is b:
        return a
    if a in D.LIMITED_UNSIGNED or b in D.LIMITED_UNSIGNED:
        if a.category == FLOAT or b.category == FLOAT:
            return a if a.category == FLOAT else b
        raise _limited_pair_error(a, b)
    ca, cb = a.category, b.category
    if ca < cb:
        a, b, ca, cb = b, a, cb, ca          # make `a` the higher category
    if ca == BOOL:
        return a
    if ca == INT:
        if cb == BOOL:
            return a
        # uint8 with a signed type needs the next wider signed type (uint8 + int8 -> int16).
        if D.uint8 in (a, b):
            other = b if a is D.uint8 else a
            return D.int16 if other in (D.int8,) else other
        return a if _INT_ORDER[a] >= _INT_ORDER[b] else b
    if ca == FLOAT:
        if cb != FLOAT:
            return a
        return D.float64 if D.float64 in (a, b) else D.float32  # float16 vs float32
    # complex: keep the widest floating precision of either side
    if cb == COMPLEX:
        return D.complex128 if D.complex128 in (a, b) else D.complex64
    if cb == FLOAT and b is D.float64:
        return D.complex128
    return a


_PAIR_CACHE: dict = {}


def promote_types(type1: D.dtype, type2: D.dtype) -> D.dtype:
    """The smallest dtype to which both may be cast, as ``torch.promote_types``."""
    key = (type1, type2)
    r = _PAIR_CACHE.get(key)
    if r is None:
        r = _PAIR_CACHE[key] = _promote_pair(type1, type2)
    return r


def _combine(higher: D.dtype | None, lower: D.dtype | None) -> D.dtype | None:
    """torch's combine_categories: `lower` wins only from a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        # keep the value precision of a floating `higher` (float64 + 1j -> complex128)
        return higher.to_complex() if higher.category == FLOAT else lower
    if higher.category == FLOAT:
        return higher
    if higher is D.bool_ or lower.category == FLOAT:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(value) -> D.dtype:
    """The dtype torch gives a Python scalar when it takes part in promotion."""
    t = type(value)
    if t is bool:
        return D.bool_
    if t is int:
        return D.int64
    if t is float:
        return D.get_default_dtype()
    if t is complex:
        return D.get_default_complex_dtype()
    if isinstance(value, (bool, np.bool_)):
        return D.bool_
    if isinstance(value, (int, np.integer)):
        return D.int64
    if isinstance(value, (float, np.floating)):
        return D.get_default_dtype()
    if isinstance(value, (complex, np.complexfloating)):
        return D.get_default_complex_dtype()
    raise TypeError(f"unsupported scalar type {t.__name__}")


def _result_type_of(dims, zero_dims, scalars) -> D.dtype:
    def fold(ds):
        r = None
        for d in ds:
            r = d if r is None else promote_types(r, d)
        return r

    return _combine(fold(dims), _combine(fold(zero_dims), fold(scalars)))


def result_type_of_args(args) -> D.dtype:
    """Promote a sequence of Tensors and Python scalars by torch's rules."""
    from ._tensor import Tensor
    dims, zero_dims, scalars = [], [], []
    for a in args:
        if isinstance(a, Tensor):
            (dims if a._data.ndim else zero_dims).append(a.dtype)
        else:
            scalars.append(scalar_dtype(a))
    return _result_type_of(dims, zero_dims, scalars)


def result_type(tensor1, tensor2) -> D.dtype:
    """The dtype of an arithmetic op on the two operands (Tensor or Number), as torch's."""
    return result_type_of_args((tensor1, tensor2))


def can_cast(from_: D.dtype, to: D.dtype) -> bool:
    """Whether the casting rules of in-place ops allow `from_` -> `to` (torch.can_cast)."""
    return from_.category <= to.category


class Promote(enum.Enum):
    """How an op decides its computation and result dtypes (torch's ELEMENTWISE_TYPE_PROMOTION_KIND)."""

    DEFAULT = 0          # result = promoted inputs (add, mul, where…)
    INT_TO_FLOAT = 1     # integers and bool compute in the default float dtype (div, exp, sqrt)
    ALWAYS_BOOL = 2      # compare in the promoted dtype, return bool (eq, lt, isnan)
    COMPLEX_TO_FLOAT = 3  # complex inputs give their real dtype (abs)
    BOOL_TO_LONG = 4     # bool -> int64, others unchanged (pow)
    NONE = 5             # no promotion: the op takes its inputs as they are
    SUM_TO_LONG = 6      # integer and bool -> int64 (sum, cumsum, prod)
    NO_OPMATH = 7        # DEFAULT, named for ops torch declares so


def elementwise_dtypes(kind: Promote, common: D.dtype) -> tuple[D.dtype, D.dtype]:
    """(computation dtype, result dtype) of an op of the given kind on the promoted dtype."""
    if kind is Promote.INT_TO_FLOAT:
        if common.category <= INT:
            d = D.get_default_dtype()
            return d, d
        return common, common
    if kind is Promote.ALWAYS_BOOL:
        return common, D.bool_
    if kind is Promote.COMPLEX_TO_FLOAT:
        return common, common.to_real()
    if kind is Promote.BOOL_TO_LONG:
        return (D.int64, D.int64) if common is D.bool_ else (common, common)
    if kind is Promote.SUM_TO_LONG:
        if common.category <= INT:
            return D.int64, D.int64
        return common, common
    return common, common
