"""isin: whether each element of ``elements`` occurs in ``test_elements`` (no gradient).

torch has three overloads (Tensor/Tensor, Number/Tensor, Tensor/Number) and no Tensor method.
Both sides are compared in their promoted dtype (torch's result_type, a Python number taking
part as a wrapped number), so ``isin(int8 tensor, 2.5)`` compares in float32 and ``isin(uint8
255, int8 -1)`` in int16. bool and complex inputs are refused (elements checked first); NaN is
never found. The result is a contiguous bool tensor of ``elements``'s shape.

Differences from torch: ``assume_unique=True`` is accepted and ignored. torch then takes a
sort-based path whose answer is unspecified when the inputs are not unique; ours is always the
exact answer (the same as torch's whenever the promise holds).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import result_type, scalar_dtype
from ..backends import numpy_backend as _npb
from . import _registry
from ._registry import FUNCTIONS
from .creation import cast_array
from ._selection import contiguous, structured_out_check, wrap_plain, write_out

_xp = _npb.xp

_SIGNATURES = (
    " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = "
    "False, Tensor out = None)\n"
    " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = "
    "False, Tensor out = None)\n"
    " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = "
    "False, Tensor out = None)\n")


def _is_number(v) -> bool:
    return isinstance(v, (bool, int, float, complex))


def _type_name(v) -> str:
    return "Tensor" if isinstance(v, _registry._Tensor) else type(v).__name__


def _dtype_of(v):
    return v.dtype if isinstance(v, _registry._Tensor) else scalar_dtype(v)


def _array(v, np_dtype):
    if isinstance(v, _registry._Tensor):
        return cast_array(v._data, np_dtype)
    return _xp.asarray(v).astype(np_dtype)


def isin(elements=None, test_elements=None, *, assume_unique=False, invert=False, out=None,
         element=None, test_element=None):
    """A bool tensor shaped as ``elements``: True where the element occurs in
    ``test_elements`` (``invert``: where it does not)."""
    Tensor = _registry._Tensor
    if element is not None and elements is None:
        elements = element
    if test_element is not None and test_elements is None:
        test_elements = test_element
    a_tensor, b_tensor = isinstance(elements, Tensor), isinstance(test_elements, Tensor)
    if not ((a_tensor and (b_tensor or _is_number(test_elements)))
            or (b_tensor and _is_number(elements))):
        raise TypeError("isin() received an invalid combination of arguments - got ("
                        f"{_type_name(elements)}, {_type_name(test_elements)}), but expected "
                        f"one of:\n{_SIGNATURES}")
    for v in (elements, test_elements):
        d = _dtype_of(v)
        if d is D.bool_ or d.is_complex:
            # a Python complex is wrapped as a complex128 tensor
            name = "ComplexDouble" if isinstance(v, complex) else d._legacy
            raise RuntimeError(f"Unsupported input type encountered for isin(): {name}")
    if out is not None:
        structured_out_check(D.bool_, out)
    common = result_type(elements, test_elements).np
    a, b = _array(elements, common), _array(test_elements, common)
    if common.kind == "u" and common.itemsize > 1 and isinstance(test_elements, Tensor) \
            and a.size \
            and b.size < int(10.0 * a.size ** 0.145):
        # Note [Limited unsigned dtypes]: torch's sort-based path works, its loop has no kernel
        from ._unsigned import refuse
        raise refuse("isin_default_cpu", common)
    found = _xp.isin(a, b.reshape(-1), invert=bool(invert))
    result = wrap_plain(contiguous(_xp.asarray(found, dtype=bool).reshape(a.shape)))
    if out is not None:
        if not isinstance(elements, Tensor) and tuple(out.shape) != (0,):
            # torch first sizes out for an empty result (warning as for any resize of a
            # non-empty out), then gives it the 0-dim result's shape
            write_out(out, wrap_plain(_xp.zeros((0,), bool)))
        write_out(out, result)
        return out
    return result


FUNCTIONS["isin"] = isin
