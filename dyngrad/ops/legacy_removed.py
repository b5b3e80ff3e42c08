"""Functions torch keeps only to raise, warn, or serve old code: the removed linear-algebra
functions (``matrix_rank``, ``lstsq``, ``solve``, ``eig``, ``symeig``, which raise torch's
RuntimeError pointing at ``torch.linalg``; their Tensor methods, which call them, are in
_tensor_python.py), the deprecated ``range``
(inclusive end) and ``set_default_tensor_type``, and ``resize_as_``, ``get_device``,
``is_distributed`` as functions.
"""
from __future__ import annotations

import importlib
import types
import warnings

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from .creation import check_tensor_arg, dtype_arg, number
from ._registry import FUNCTIONS, METHODS
from ._selection import warn_once_at_caller

xp = _npb.xp

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed: raises torch's RuntimeError (use ``linalg.matrix_rank``)."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter "
        "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


def solve(input, A, *, out=None):
    """Removed: raises torch's RuntimeError (use ``linalg.solve(A, B)``)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


def lstsq(input, A, *, out=None):
    """Removed: raises torch's RuntimeError (use ``linalg.lstsq(A, B)``)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
        "the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the last "
        "m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals "
        "are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution")


def _symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed: raises torch's RuntimeError (use ``linalg.eigh``/``eigvalsh``)."""
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion of "
        "the matrix by default to using the lower triangular portion.\n\n"
        "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed: raises torch's RuntimeError (use ``linalg.eig``/``eigvals``)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\n"
        "L, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\n"
        "and\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).")


def range(start=None, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Deprecated: values from `start` to `end` *inclusive* by `step`, in the default dtype
    unless `dtype` says otherwise; warns as torch does.

    Example::

        >>> dyngrad.range(1, 4)   # tensor([1., 2., 3., 4.]), with a UserWarning
    """
    if end is None:
        missing = '"start", "end"' if start is None else '"end"'
        n = 2 if start is None else 1
        raise TypeError(f"range() missing {n} required positional arguments: {missing}")
    for name, pos, v in (("start", 1, start), ("end", 2, end), ("step", 3, step)):
        number(v, "range", name, pos)
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    d = dtype_arg(dtype, "range") or (out.dtype if out is not None else D.get_default_dtype())
    if d.category == D.INT or d is D.bool_:
        # the bounds are converted to the integer type first (truncation), as torch's Scalar.to
        s, e, st = (int(v) for v in (start, end, step))
    else:
        s, e, st = (float(v) for v in (start, end, step))
    if st == 0:
        raise RuntimeError("step must be nonzero")
    if not (abs(s) < float("inf") and abs(e) < float("inf")):
        raise RuntimeError(f"unsupported range: {_fmt(s)} -> {_fmt(e)}")
    if not ((st > 0 and e >= s) or (st < 0 and e <= s)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if d.category == D.INT or d is D.bool_:
        n = abs(e - s) // abs(st) + 1                    # C's truncating division
        arr = (s + st * xp.arange(n, dtype=xp.int64)).astype(d.np)
    else:
        acc = xp.float32 if d is D.float16 else xp.float64   # torch's accumulate type
        n = int((acc(e) - acc(s)) / acc(st)) + 1
        arr = (acc(s) + acc(st) * xp.arange(n, dtype=acc)).astype(d.np)
    from .range_factories import finish_range   # (out= keeps its shape, as arange's)
    return finish_range(arr, requires_grad, device, out)


def _fmt(v) -> str:
    return str(int(v)) if float(v).is_integer() else repr(v)


def resize_as_(input, the_template, *, memory_format=None):
    """``input.resize_as_(the_template)`` as a function."""
    check_tensor_arg("resize_as_", input)
    check_tensor_arg("resize_as_", the_template, "the_template", 2)
    if memory_format is None:
        return input.resize_as_(the_template)
    return input.resize_as_(the_template, memory_format=memory_format)


def get_device(input) -> int:
    """The CUDA device index of `input`; -1 on the CPU."""
    check_tensor_arg("get_device", input)
    return input.get_device()


def is_distributed(input) -> bool:
    """Always False (a legacy THD query; torch gives False for every tensor)."""
    check_tensor_arg("is_distributed", input)
    return False


_DEFAULT_TYPE_WARNING = (
    "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
    "torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered "
    "internally at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)")


def set_default_tensor_type(t) -> None:
    """Deprecated: make a floating-point legacy tensor type's dtype the default
    (``torch.DoubleTensor`` or its name ``"torch.DoubleTensor"``); warns once, as torch does."""
    if isinstance(t, str):
        t = _import_dotted_name(t)
    warn_once_at_caller(_DEFAULT_TYPE_WARNING)
    from .._legacy_types import default_type_dtype
    d = default_type_dtype(t)
    from .. import set_default_dtype
    set_default_dtype(d)


def _import_dotted_name(name: str):
    """The object a dotted name names, as torch's ``_import_dotted_name`` finds it (``torch``
    is dyngrad), with Python's errors."""
    import dyngrad
    first, *rest = name.split(".")
    obj = dyngrad if first in ("torch", "dyngrad") else importlib.import_module(first)
    path = first
    for part in rest:
        if isinstance(obj, types.ModuleType) and not hasattr(obj, part):
            raise AttributeError(f"module '{path}' has no attribute '{part}'")
        obj = getattr(obj, part)
        path += "." + part
    return obj


for _fn in (matrix_rank, solve, lstsq, eig, range, resize_as_, get_device, is_distributed,
            set_default_tensor_type):
    FUNCTIONS[_fn.__name__] = _fn
FUNCTIONS["symeig"] = _symeig
# (their Tensor methods, which take fewer arguments, are in _tensor_python.py)
METHODS["is_distributed"] = is_distributed
