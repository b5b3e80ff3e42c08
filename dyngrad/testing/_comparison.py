"""``assert_close`` and the deprecated ``assert_allclose`` (``torch.testing``).

The inputs are paired up by walking nested sequences and mappings; each leaf pair is handled by
the first comparer that accepts it (None, booleans, numbers, tensor-likes), the same order torch
uses, so the same inputs fail with the same exception type and message.

Differences from torch: no sparse CSR, quantized, meta or DTensor inputs (dyngrad has none).
"""
from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings
from typing import Any, Callable, Optional, Union

import numpy as _np

from .. import _dtypes as D

Msg = Union[str, Callable[[str], str], None]

# (rtol, atol) by dtype; any other dtype compares exactly
_PRECISIONS = {
    D.float16: (0.001, 1e-5),
    D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7),
    D.complex64: (1.3e-6, 1e-5),
    D.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: D.int64, float: D.float64, complex: D.complex128}


def _torch():
    import dyngrad
    return dyngrad


class ErrorMeta(Exception):
    """A comparison failure carried up to ``assert_close``: the exception type, its message,
    and the path of the failing item in nested inputs."""

    def __init__(self, type: type, msg: str, *, id: tuple = ()) -> None:
        super().__init__(msg)
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg: Msg = None) -> Exception:
        if not isinstance(msg, str):
            text = self.msg
            if self.id:
                path = "".join(str([item]) for item in self.id)
                text += f"\n\nThe failure occurred for item {path}"
            msg = msg(text) if callable(msg) else text
        return self.type(msg)


class _Unsupported(Exception):
    """Raised by a comparer that does not handle the inputs; the next one is tried."""


def default_tolerances(*inputs, dtype_precisions=None) -> tuple:
    """The loosest (rtol, atol) over the dtypes of `inputs` (tensors or dtypes)."""
    T = _torch()
    dtypes = []
    for x in inputs:
        if isinstance(x, T.Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, D.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
    table = dtype_precisions or _PRECISIONS
    rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol, atol, id: tuple = ()) -> tuple:
    if (rtol is None) ^ (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                        f"but got no {missing}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_msg(*, identifier: Msg, default: str, extra: Optional[str], abs_diff, abs_idx,
                  atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        if idx is None:
            s = f"{kind.title()} difference: {diff}"
        else:
            s = f"Greatest {kind} difference: {diff} at index {idx}"
        return s + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += line("absolute", abs_diff, abs_idx, atol)
    msg += line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier: Msg = None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier=identifier, default="Scalars",
                         extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff,
                         abs_idx=None, atol=atol, rel_diff=rel_diff, rel_idx=None, rtol=rtol)


def make_tensor_mismatch_msg(actual, expected, matches, *, rtol, atol,
                             identifier: Msg = None) -> str:
    T = _torch()
    shape = tuple(matches.shape)

    def unravel(flat: int) -> tuple:
        return tuple(int(i) for i in _np.unravel_index(flat, shape)) if shape else ()

    n = matches.numel()
    bad = n - int(T.sum(matches))
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not a.dtype.is_floating_point and not a.dtype.is_complex:
        a, e = a.to(T.int64), e.to(T.int64)
    abs_diff = T.abs(a - e)
    abs_diff[m] = 0
    max_abs, abs_at = T.max(abs_diff, 0)
    rel_diff = abs_diff / T.abs(e)
    rel_diff[m] = 0
    max_rel, rel_at = T.max(rel_diff, 0)
    return _mismatch_msg(identifier=identifier, default="Tensor-likes", extra=extra,
                         abs_diff=max_abs.item(), abs_idx=unravel(int(abs_at)), atol=atol,
                         rel_diff=max_rel.item(), rel_idx=unravel(int(rel_at)), rtol=rtol)


# -- comparers: each takes (actual, expected, id, options), raises _Unsupported when the inputs
#    are not its kind, and returns a `compare` callable that raises ErrorMeta on a mismatch --

def _none_pair(actual, expected, id, opts):
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise ErrorMeta(AssertionError, f"None mismatch: {actual} is not {expected}", id=id)
    return compare


def _bool_pair(actual, expected, id, opts):
    kinds = (bool, _np.bool_)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    a, e = bool(actual), bool(expected)

    def compare():
        if a is not e:
            raise ErrorMeta(AssertionError, f"Booleans mismatch: {a} is not {e}", id=id)
    return compare


def _number_pair(actual, expected, id, opts):
    kinds = (int, float, complex, _np.number)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    a, e = (x.item() if isinstance(x, _np.number) else x for x in (actual, expected))
    rtol, atol = get_tolerances(*[_NUMBER_DTYPES[type(x)] for x in (a, e)],
                                rtol=opts["rtol"], atol=opts["atol"], id=id)

    def compare():
        if opts["check_dtype"] and type(a) is not type(e):
            raise ErrorMeta(AssertionError,
                            f"The (d)types do not match: {type(a)} != {type(e)}.", id=id)
        if a == e:
            return
        if opts["equal_nan"] and cmath.isnan(a) and cmath.isnan(e):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(e):
            return
        raise ErrorMeta(AssertionError, make_scalar_mismatch_msg(a, e, rtol=rtol, atol=atol), id=id)
    return compare


def _tensor_pair(actual, expected, id, opts):
    T = _torch()
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not opts["allow_subclasses"] and type(actual) is not type(expected)):
        raise _Unsupported

    def as_tensor(x):
        if isinstance(x, T.Tensor):
            return x
        try:
            return T.as_tensor(x)
        except Exception:
            raise _Unsupported from None
    a, e = as_tensor(actual), as_tensor(expected)
    rtol, atol = get_tolerances(a, e, rtol=opts["rtol"], atol=opts["atol"], id=id)

    def fail(name, x, y):
        raise ErrorMeta(AssertionError,
                        f"The values for attribute '{name}' do not match: {x} != {y}.", id=id)

    def compare():
        x, y = a, e
        if x.shape != y.shape:
            fail("shape", x.shape, y.shape)
        if x.layout != y.layout:
            if opts["check_layout"]:
                fail("layout", x.layout, y.layout)
        elif opts["check_stride"] and x.stride() != y.stride():
            fail("stride()", x.stride(), y.stride())
        if opts["check_device"] and x.device != y.device:
            fail("device", x.device, y.device)
        if opts["check_dtype"] and x.dtype != y.dtype:
            fail("dtype", x.dtype, y.dtype)
        if x.device != y.device:
            x, y = x.cpu(), y.cpu()
        if x.dtype != y.dtype:
            common = T.promote_types(x.dtype, y.dtype)
            x, y = x.to(common), y.to(common)
        if x.is_sparse and y.is_sparse:
            _compare_sparse(x, y, rtol, atol, opts["equal_nan"], id)
            return
        compare_values(x, y, rtol=rtol, atol=atol, equal_nan=opts["equal_nan"], id=id)
    return compare


def _compare_sparse(x, y, rtol, atol, equal_nan, id):
    """Two sparse COO tensors as they are stored (not coalesced, as torch's): as many sparse
    dims and elements, the same addresses and close values (torch's order of checks and
    words)."""
    for what, a, b in (("sparse dimensions", x.sparse_dim(), y.sparse_dim()),
                       ("specified values", x._nnz(), y._nnz())):
        if a != b:
            raise ErrorMeta(AssertionError, f"The number of {what} in sparse COO tensors does "
                                            f"not match: {a} != {b}", id=id)
    compare_values(x._indices(), y._indices(), rtol=0, atol=0, equal_nan=False, id=id,
                   identifier="Sparse COO indices")
    compare_values(x._values(), y._values(), rtol=rtol, atol=atol, equal_nan=equal_nan, id=id,
                   identifier="Sparse COO values")


def compare_values(actual, expected, *, rtol, atol, equal_nan, id=(), identifier: Msg = None):
    """Raise ErrorMeta(AssertionError) unless the tensors are elementwise close."""
    T = _torch()
    with T.no_grad():
        matches = T.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if T.all(matches):
            return
        if actual.shape == T.Size([]):
            msg = make_scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol,
                                           identifier=identifier)
        else:
            msg = make_tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol,
                                           identifier=identifier)
    raise ErrorMeta(AssertionError, msg, id=id)


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _originate(actual, expected, id: tuple, opts: dict) -> list:
    seq, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (isinstance(actual, seq) and not isinstance(actual, str)
            and isinstance(expected, seq) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise ErrorMeta(AssertionError, "The length of the sequences mismatch: "
                            f"{len(actual)} != {len(expected)}", id=id)
        out = []
        for i in range(len(actual)):
            out.extend(_originate(actual[i], expected[i], (*id, i), opts))
        return out
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        ka, ke = set(actual.keys()), set(expected.keys())
        if ka != ke:
            raise ErrorMeta(AssertionError, (
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(ke - ka)}\n"
                f"Additional keys in the actual mapping: {sorted(ka - ke)}"), id=id)
        keys = ka
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        out = []
        for k in keys:
            out.extend(_originate(actual[k], expected[k], (*id, k), opts))
        return out
    for make in _PAIRS:
        try:
            return [make(actual, expected, id, opts)]
        except _Unsupported:
            continue
    raise ErrorMeta(TypeError, "No comparison pair was able to handle inputs of type "
                    f"{type(actual)} and {type(expected)}.", id=id)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: Optional[float] = None, atol: Optional[float] = None,
                 equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False, msg: Msg = None) -> None:
    """Assert that ``actual`` and ``expected`` are close (``torch.testing.assert_close``).

    Tensors (or tensor-likes) are close when ``|actual - expected| <= atol + rtol *
    |expected|`` elementwise, infinities only when equal, NaNs only with ``equal_nan``, and
    shapes (and, by the ``check_*`` flags, devices, dtypes, layouts, strides) agree. Python
    scalars, None, booleans and nested sequences and mappings of all of these are compared
    item by item. The default tolerances depend on the dtype, as in torch's table.

    Args:
        msg: replaces the generated message (a string), or is called with it (a callable).

    Raises:
        AssertionError: with torch's message, naming the failing item of nested inputs.

    Example::

        >>> dyngrad.testing.assert_close(dyngrad.tensor([1.0]), dyngrad.tensor([1.0 + 1e-9]))
    """
    __tracebackhide__ = True
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                check_stride=check_stride)
    try:
        comparisons = _originate(actual, expected, (), opts)
    except ErrorMeta as meta:
        raise meta.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except ErrorMeta as meta:
            raise meta.to_error(msg) from None


_ALLCLOSE_PRECISIONS = {D.float16: (1e-3, 1e-3), D.float32: (1e-4, 1e-5),
                        D.float64: (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: Optional[float] = None,
                    atol: Optional[float] = None, equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated: ``assert_close`` with looser default tolerances, ``equal_nan=True`` and no
    dtype check (torch warns with a FutureWarning, as here)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    T = _torch()
    if not isinstance(actual, T.Tensor):
        actual = T.tensor(actual)
    if not isinstance(expected, T.Tensor):
        expected = T.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
