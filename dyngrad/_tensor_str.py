"""Printing tensors character for character as torch does (torch/_tensor_str.py).

The layout follows torch's algorithm step by step, on the NumPy array ``t._data``:

1. one ``_Formatter`` is built from the values that will be shown (all of them, or only the edges
   when the tensor has more than ``threshold`` elements); it chooses int mode, scientific mode and
   the common column width;
2. the array is walked dimension by dimension, each nesting level one column further right,
   rows wrapped at ``linewidth``;
3. suffixes (``dtype=``, ``size=``, ``grad_fn=`` …) are appended, wrapped the same way.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
from typing import Any

import numpy as np

from . import _dtypes as D


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """Set options for printing tensors, as ``torch.set_printoptions``.

    Args:
        precision: digits after the decimal point for floating values (default 4).
        threshold: element count above which the tensor is summarised with ``...`` (1000).
        edgeitems: items shown at the start and end of each summarised dimension (3).
        linewidth: characters per line before wrapping (80).
        profile: ``"default"``, ``"short"`` or ``"full"``; the options above override it.
        sci_mode: force (True) or forbid (False) scientific notation; None lets the
            formatter choose. Like torch, every call resets it to the value given.
    """
    if profile is not None and profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change the print options (same arguments as ``set_printoptions``)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# Note [Widest value]
# torch measures the column width by formatting every value and taking the longest string.
# Each of torch's formats ("{}" of an int, ".0f", ".4f", ".4e") gives strings whose length
# depends only on the sign and on a quantity monotone in |x| (the digit count of the rounded
# value, or the size of the exponent, which is largest at the smallest or the largest |x|).
# So the longest string always belongs to one of the extremes of |x| among the positive or
# among the negative values: four candidates instead of every element.
def _extremes(values) -> list:
    """The values that can hold the widest string (see Note [Widest value])."""
    out = []
    for part in (values[values > 0], values[values < 0]):
        if part.size:
            out += [part.min().item(), part.max().item()]
    return out


class _Formatter:
    """Chooses int/sci mode and the column width from the values shown; formats one value."""

    def __init__(self, arr):
        self.floating_dtype = arr.dtype.kind in "fV"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        if not self.floating_dtype:
            if arr.size:
                # ints and bools: the widest string is the minimum's or the maximum's
                for value in (arr.min().item(), arr.max().item()):
                    self.max_width = max(self.max_width, len(f"{value}"))
            return

        # float64 holds every float16/float32 value exactly, as torch's upcast for formatting
        values = arr.reshape(-1).astype(np.float64)
        values = values[np.isfinite(values) & (values != 0)]
        if values.size == 0:
            return  # nothing but zeros, nan and inf: int mode, width 1

        magnitudes = np.abs(values)
        smallest, largest = magnitudes.min().item(), magnitudes.max().item()
        self.int_mode = bool(np.all(values == np.ceil(values)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        precision = PRINT_OPTS.precision
        for value in _extremes(values):
            if self.sci_mode:
                width = len(f"{value:.{precision}e}")
            elif self.int_mode:
                width = len(f"{value:.0f}") + 1  # the "." that marks a float
            else:
                width = len(f"{value:.{precision}f}")
            self.max_width = max(self.max_width, width)

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating_dtype:
            precision = PRINT_OPTS.precision
            if self.sci_mode:
                text = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{precision}f}"
        else:
            text = f"{value}"
        return text.rjust(self.max_width)


def _summarized_data(arr):
    """The values left after summarisation (the edges of each dimension), for the formatter."""
    edge = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        if arr.shape[0] > 2 * edge:
            # with edgeitems=0 this keeps every value (arr[-0:] is all of it), as torch does;
            # nothing is formatted then anyway: the vector prints as [...]
            return np.concatenate((arr[:edge], arr[-edge:]))
        return arr
    if not edge:
        return np.empty((0,) * arr.ndim, dtype=arr.dtype)
    n = arr.shape[0]
    rows = range(n) if n <= 2 * edge else [*range(edge), *range(n - edge, n)]
    return np.stack([_summarized_data(arr[i]) for i in rows])


def _value_str(value, formatter1, formatter2=None) -> str:
    """One element; complex values join a real and an imaginary part (``1.+2.j``)."""
    if formatter2 is None:
        return formatter1.format(value)
    real = formatter1.format(value.real)
    imag = (formatter2.format(value.imag) + "j").lstrip()
    if imag[0] in "+-":  # a negative imaginary part (or -0.) carries its own sign
        return real + imag
    return real + "+" + imag


def _vector_str(arr, indent, summarize, formatter1, formatter2=None) -> str:
    element_length = formatter1.width() + 2  # ", " between elements
    if formatter2 is not None:
        element_length += formatter2.width() + 1  # the imaginary part and its "j"
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    def fmt(values):
        return [_value_str(v, formatter1, formatter2) for v in values.tolist()]

    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        data = fmt(arr[:edge]) + [" ..."] + fmt(arr[-edge:])
    else:
        data = fmt(arr)

    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(arr, indent, summarize, formatter1, formatter2=None) -> str:
    ndim = arr.ndim
    if ndim == 0:
        return _value_str(arr.item(), formatter1, formatter2)
    if ndim == 1:
        return _vector_str(arr, indent, summarize, formatter1, formatter2)

    def sub(i):
        return _tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter1, formatter2)

    n, edge = arr.shape[0], PRINT_OPTS.edgeitems
    if summarize and n > 2 * edge:
        slices = [sub(i) for i in range(edge)] + ["..."] + [sub(i) for i in range(n - edge, n)]
    else:
        slices = [sub(i) for i in range(n)]
    # sub-blocks are separated by one blank line per dimension below the outermost
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(arr, indent: int) -> str:
    """The bracketed values of a NumPy array, laid out as torch lays out a tensor."""
    if arr.size == 0:
        return "[]"
    if arr.dtype.kind == "V":   # bfloat16: its values, exactly, in float32
        arr = arr.astype(np.float32)
    summarize = arr.size > PRINT_OPTS.threshold

    def formatter(part):
        return _Formatter(_summarized_data(part) if summarize else part)

    if arr.dtype.kind == "c":
        return _tensor_str_with_formatter(arr, indent, summarize,
                                          formatter(arr.real), formatter(arr.imag))
    return _tensor_str_with_formatter(arr, indent, summarize, formatter(arr))


def _sparse_str(coo, indent: int) -> str:
    """A sparse tensor's ``indices=tensor(...),`` and ``values=tensor(...)`` lines."""
    parts = []
    for name, arr in (("indices", coo.indices), ("values", coo.values)):
        prefix = name + "=tensor("
        text = _tensor_str(arr, indent + len(prefix))
        if arr.size == 0:
            text += ", size=" + str(tuple(arr.shape))
        parts.append(prefix + text + ")")
    return (",\n" + " " * indent).join(parts)


def _add_suffixes(tensor_str: str, suffixes, indent: int, force_newline: bool) -> str:
    parts = [tensor_str]
    # torch's count (one more than the last line's length when there is a newline, two more
    # when there is none); kept as is so that wrapping happens at the same places
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _parameter_class():
    """``dyngrad.nn.Parameter`` once that module is loaded (no instance can exist before)."""
    module = sys.modules.get("dyngrad.nn.parameter")
    return getattr(module, "Parameter", None)


def _grad_fn_name(tensor) -> str | None:
    try:
        grad_fn = tensor.grad_fn
    except RuntimeError:
        return "Invalid"  # torch prints this when reading grad_fn raises
    if grad_fn is None:
        return None
    name = grad_fn.name() if hasattr(grad_fn, "name") else type(grad_fn).__name__
    return name.rsplit("::", 1)[-1]


def _str(self, *, tensor_contents=None) -> str:
    """``repr(tensor)``: torch's text, character for character."""
    from ._tensor import Tensor

    parameter = _parameter_class()
    is_plain_tensor = type(self) is Tensor or (parameter is not None and type(self) is parameter)
    prefix = "tensor(" if is_plain_tensor else f"{type(self).__name__}("
    indent = len(prefix)
    suffixes = []

    device = self.device
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")

    arr = self._data
    dtype = self.dtype
    default = D.get_default_dtype()
    has_default_dtype = dtype in (default, D._defaults.complex, D.int64, D.bool_)
    sparse = self.is_sparse
    if sparse:   # its addresses and values, then its size, nnz, dtype and layout
        suffixes.append("size=" + str(tuple(arr.shape)))
        suffixes.append(f"nnz={arr.nnz}")
        if not has_default_dtype:
            suffixes.append("dtype=" + str(dtype))
        tensor_str = _sparse_str(arr, indent)
        suffixes.append("layout=" + str(self.layout))
    elif arr.size == 0:
        if arr.ndim != 1:  # like NumPy, show the shape unless it is (0,)
            suffixes.append("size=" + str(tuple(arr.shape)))
        # no values to tell an int64 tensor from a float one: only the default dtype is implied
        if dtype is not default:
            suffixes.append("dtype=" + str(dtype))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(arr.shape)))
        if not has_default_dtype:
            suffixes.append("dtype=" + str(dtype))
        tensor_str = _tensor_str(arr, indent) if tensor_contents is None else None
    if tensor_contents is not None:
        tensor_str = tensor_contents

    grad_fn_name = _grad_fn_name(self)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    if self._fw_grad is not None:   # a dual tensor (autograd/forward_ad.py)
        # (formatted, not repr'd, as torch's f-string: a 0-dim tangent prints as its number)
        suffixes.append(f"tangent={self._fw_grad}")

    text = _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=sparse)
    if parameter is not None and isinstance(self, parameter) and not is_plain_tensor:
        text = f"Parameter({text})"
    return text
