"""The op database's building blocks: OpInfo, SampleInput and generic sample generators.

A ``SampleInput`` holds NumPy arrays (plus Python numbers, dims, dtype markers) and materialises
itself for either library (``sample.to(dyngrad)`` / ``sample.to(torch)``), so one description
drives both sides of every comparison. An ``OpInfo`` names the op (``"add"``,
``"nn.functional.relu"``: resolved on both libraries), its sample generator, the dtypes it
supports, and its variants. See STYLE.md §6.
"""
from __future__ import annotations

import zlib

import numpy as np

OP_DB: list = []

BOOL = ("bool",)
UNSIGNED = ("uint8",)
SIGNED = ("int8", "int16", "int32", "int64")
INTS = UNSIGNED + SIGNED
FLOATS = ("float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
ALL_DTYPES = BOOL + INTS + FLOATS + COMPLEX
INTS_AND_BOOL = BOOL + INTS
REAL = INTS + FLOATS                      # no bool, no complex
ALL_BUT_BOOL = INTS + FLOATS + COMPLEX
REAL_AND_BOOL = BOOL + INTS + FLOATS
FLOATS_AND_COMPLEX = FLOATS + COMPLEX

# (rtol, atol) per dtype: loose enough for one rounding step of float16, which NumPy and torch
# may take in different places (NumPy computes some float16 ufuncs in float32, torch in float).
TOLERANCES = {"float16": (2e-3, 1e-3), "float32": (1.3e-5, 1e-5), "float64": (1e-7, 1e-7),
              "complex64": (1.3e-5, 1e-5), "complex128": (1e-7, 1e-7)}


# -- materialising samples ---------------------------------------------------------------------
class DType:
    """A dtype argument (``dtype=DType("float64")``): ``lib.float64`` on either side."""

    def __init__(self, name: str):
        self.name = name

    def to(self, lib):
        return getattr(lib, self.name)

    def __repr__(self) -> str:
        return f"DType({self.name})"


class Gen:
    """A ``generator=`` argument: ``lib.Generator().manual_seed(seed)`` on either side (the op
    database calls an op several times without reseeding, so only ops with
    ``check_values=False`` take one; tests/test_torch_streams.py compares the values)."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def to(self, lib):
        return lib.Generator().manual_seed(self.seed)

    def __repr__(self) -> str:
        return f"Gen({self.seed})"


class Strided:
    """A non-contiguous tensor: a flat `base` viewed with torch's (shape, stride, offset)."""

    def __init__(self, base: np.ndarray, shape, stride, offset: int = 0, kind: str = ""):
        self.base = np.ascontiguousarray(base).reshape(-1)
        self.shape, self.stride, self.offset, self.kind = tuple(shape), tuple(stride), offset, kind

    @property
    def dtype(self):
        return self.base.dtype

    def values(self) -> np.ndarray:
        item = self.base.itemsize
        return np.lib.stride_tricks.as_strided(self.base[self.offset:], self.shape,
                                               tuple(s * item for s in self.stride))

    def to(self, lib):
        base = _tensor(lib, self.base)
        if lib.__name__ == "torch":
            return base.as_strided(self.shape, self.stride, self.offset)
        return base._make_view(self.shape, self.stride, self.offset)

    def __repr__(self) -> str:
        return f"Strided({self.kind or ''}{list(self.shape)}, stride={list(self.stride)}, " \
               f"{self.dtype})"


def _tensor(lib, arr: np.ndarray):
    """A fresh tensor owning a copy of `arr`, with the same dtype and shape."""
    if arr.size == 0:   # torch.from_numpy gives empty arrays zero strides; zeros() does not
        return lib.zeros(arr.shape, dtype=getattr(lib, arr.dtype.name))
    return lib.from_numpy(np.array(arr, copy=True))


def materialise(value, lib):
    if isinstance(value, np.ndarray):
        return _tensor(lib, value)
    if isinstance(value, (Strided, DType, Gen)):
        return value.to(lib)
    if isinstance(value, list):
        return [materialise(v, lib) for v in value]
    if isinstance(value, tuple):
        return tuple(materialise(v, lib) for v in value)
    if isinstance(value, dict):
        return {k: materialise(v, lib) for k, v in value.items()}
    return value


def describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"array{list(value.shape)}:{value.dtype}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


class SampleInput:
    """One call of an op: ``input`` (usually an array), positional ``args`` and ``kwargs``."""

    def __init__(self, input, *args, desc: str = "", **kwargs):
        self.input = input
        self.args = args
        self.kwargs = kwargs
        self.desc = desc

    @property
    def input_is_tensor(self) -> bool:
        return isinstance(self.input, (np.ndarray, Strided))

    def to(self, lib):
        """(args, kwargs) for `lib`, input first, every array a fresh tensor."""
        args = materialise((self.input,) + self.args, lib)
        return args, materialise(self.kwargs, lib)

    def __repr__(self) -> str:
        parts = [describe(self.input)] + [describe(a) for a in self.args]
        parts += [f"{k}={describe(v)}" for k, v in self.kwargs.items()]
        return f"SampleInput({', '.join(parts)}{'; ' + self.desc if self.desc else ''})"


# -- OpInfo ------------------------------------------------------------------------------------
def resolve(lib, dotted: str):
    obj = lib
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


class OpInfo:
    """One op of the database.

    Args:
        name: the public name, dotted if nested (``"nn.functional.relu"``).
        samples: ``samples(dtype: str, rng) -> list[SampleInput]``.
        dtypes: names of the dtypes torch supports for the op (others must raise torch's
            error: see tests/ops/test_errors.py).
        method: the Tensor method name, ``False`` for none (default: the name, when
            ``torch.Tensor`` has it).
        inplace: the in-place method name, ``False`` for none (default: ``name + "_"`` when
            ``torch.Tensor`` has it).
        supports_out: whether the function takes ``out=``.
        xfail: ``{test: reason}`` or ``{(test, dtype): reason}``; strict (an xfail that passes
            fails the suite).
        tol: ``{dtype: (rtol, atol)}`` overrides of TOLERANCES.
        variant: a label telling apart several entries of one op (``div`` with rounding modes).
        check_values: False for random ops: dtype, shape and strides are still compared, and
            ``support`` checks the values.
        support: ``support(values, sample) -> bool`` for random ops: whether the result's values
            (a NumPy array) lie where the distribution puts them (``uniform_(a, b)``: in [a, b)).
        inplace_only: the op is only an in-place method (``"Tensor.fill_"``, ``"Tensor.copy_"``,
            ``"Tensor.uniform_"``): ``inplace`` is that method, there is no function, method or
            ``out=`` form, and the tests call it on (a clone of) the sample's input.
        supports_autograd: run the gradient tests (tests/ops/test_backward.py,
            test_graph_parity.py) on the floating dtypes; default: the op supports float64.
        supports_gradgrad: run tests/ops/test_gradgrad.py (default: ``supports_autograd``).
        gradgrad_samples: how many samples test_gradgrad takes (spread over the list; None:
            all), to keep the slowest test short. Gradients are compared with ``tol``.
        supports_complex_autograd: whether torch differentiates the op's complex results
            (the gradient tests run complex128 when the op supports it); False where torch
            refuses ("<op> does not support automatic differentiation for outputs with complex
            dtype."): tests/ops/test_backward.py's test_complex_autograd_refused checks that.

    Gradient xfail keys: ``"backward"``, ``"backward_inplace"``, ``"gradgrad"``,
    ``"graph_parity"``, ``"graph_parity_inplace"``.
    """

    def __init__(self, name, samples, dtypes, *, method=None, inplace=None, supports_out=True,
                 xfail=None, tol=None, variant="", check_values=True, supports_autograd=None,
                 supports_gradgrad=None, gradgrad_samples=None, support=None,
                 inplace_only=False, supports_complex_autograd=True):
        import torch
        self.name = name
        self.variant = variant
        self.id = f"{name}.{variant}" if variant else name
        self.samples = samples
        self.dtypes = tuple(dtypes)
        base = name.split(".")[-1]
        if method is None:
            method = base if "." not in name and hasattr(torch.Tensor, base) else False
        if inplace is None:
            inplace = base + "_" if "." not in name and hasattr(torch.Tensor, base + "_") \
                else False
        if inplace_only:
            method, inplace, supports_out = False, base, False
        self.inplace_only = inplace_only
        self.method = method
        self.inplace = inplace
        self.supports_out = supports_out
        self.support = support
        self.xfail = dict(xfail or {})
        self.tol = dict(tol or {})
        self.check_values = check_values
        if supports_autograd is None:
            supports_autograd = "float64" in self.dtypes
        self.supports_autograd = supports_autograd
        self.supports_gradgrad = supports_autograd if supports_gradgrad is None \
            else supports_gradgrad
        self.gradgrad_samples = gradgrad_samples
        self.supports_complex_autograd = supports_complex_autograd

    def op(self, lib):
        return resolve(lib, self.name)

    def sample_inputs(self, dtype: str):
        rng = np.random.default_rng(zlib.crc32(f"{self.id}:{dtype}".encode()))
        return list(self.samples(dtype, rng))

    def tolerance(self, dtype_name: str):
        return self.tol.get(dtype_name, TOLERANCES.get(dtype_name, (0.0, 0.0)))

    def xfail_reason(self, test: str, dtype: str | None = None):
        return self.xfail.get((test, dtype)) or self.xfail.get(test)

    def __repr__(self) -> str:
        return f"OpInfo({self.id})"


# -- values --------------------------------------------------------------------------------------
def make_array(shape, dtype: str, rng, low=None, high=None, nonzero=False) -> np.ndarray:
    """Random values of `dtype` in [low, high) (defaults by dtype), optionally without zeros."""
    shape = tuple(shape)
    if dtype == "bool":
        arr = np.asarray(rng.random(shape) < 0.5)
        if nonzero:
            arr[...] = True
        return arr
    np_dtype = np.dtype(dtype)
    if np_dtype.kind in "iu":
        lo = low if low is not None else (0 if np_dtype.kind == "u" else -9)
        hi = high if high is not None else 10
        arr = np.asarray(rng.integers(int(np.ceil(lo)), int(np.ceil(hi)), size=shape),
                         dtype=np_dtype)
        if nonzero:
            arr[arr == 0] = 1
        return arr
    lo = -5.0 if low is None else low
    hi = 5.0 if high is None else high
    values = rng.uniform(lo, hi, size=shape)
    if np_dtype.kind == "c":
        values = values + 1j * rng.uniform(lo, hi, size=shape)
    arr = np.asarray(values, dtype=np_dtype)
    if nonzero:
        arr[arr == 0] = 1
    return arr


def special_values(dtype: str) -> np.ndarray | None:
    """NaN, ±inf, ±0 and ordinary values (floating dtypes only)."""
    if dtype not in FLOATS:
        return None
    return np.array([[np.nan, np.inf, -np.inf, 0.0], [-0.0, 1.5, -2.25, 3.0]], dtype=dtype)


# -- non-contiguous layouts ----------------------------------------------------------------------
def transposed(shape, dtype, rng, **kw) -> Strided:
    """A (m, n) tensor that is the transpose of a contiguous (n, m) one."""
    m, n = shape
    return Strided(make_array((n * m,), dtype, rng, **kw), (m, n), (1, m), kind="transposed ")


def sliced(shape, dtype, rng, **kw) -> Strided:
    """Every other column of a wider tensor, starting at offset 1: x[:, 1::2]."""
    m, n = shape
    return Strided(make_array((m * 2 * n + 1,), dtype, rng, **kw), (m, n), (2 * n, 2), 1,
                   kind="sliced ")


def expanded(shape, dtype, rng, **kw) -> Strided:
    """A row broadcast over the first dim: stride 0 (x.expand)."""
    m, n = shape
    return Strided(make_array((n,), dtype, rng, **kw), (m, n), (0, 1), kind="expanded ")


def permuted3(dtype, rng, **kw) -> Strided:
    """A (4, 2, 3) permutation of a contiguous (2, 3, 4) tensor."""
    return Strided(make_array((24,), dtype, rng, **kw), (4, 2, 3), (1, 12, 4), kind="permuted ")


NONCONTIGUOUS = (transposed, sliced, expanded)


# -- generic generators --------------------------------------------------------------------------
UNARY_SHAPES = ((), (5,), (3, 4), (2, 3, 4))
EMPTY_SHAPES = ((0,), (2, 0, 3))


def unary_samples(low=None, high=None, *, special=True, kwargs=None):
    """Generator of one-tensor samples: shapes, 0-dim, non-contiguous, empty, special values."""
    kwargs = kwargs or {}

    def gen(dtype, rng):
        out = [SampleInput(make_array(s, dtype, rng, low, high), **kwargs) for s in UNARY_SHAPES]
        out += [SampleInput(f((3, 4), dtype, rng, low=low, high=high), **kwargs)
                for f in NONCONTIGUOUS]
        out.append(SampleInput(permuted3(dtype, rng, low=low, high=high), **kwargs))
        out += [SampleInput(make_array(s, dtype, rng), **kwargs) for s in EMPTY_SHAPES]
        sv = special_values(dtype) if special else None
        if sv is not None:
            out.append(SampleInput(sv, desc="special values", **kwargs))
        return out
    return gen


BROADCAST_PAIRS = (((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((5,), (2, 1, 5)),
                   ((), (3, 4)), ((3, 4), ()), ((), ()), ((0, 3), (3,)), ((2, 0), (2, 1)))
SCALARS = {"bool": (True,), "int": (3, -2), "float": (2.5, -0.5), "complex": (1.5 - 2j,)}


def _scalars_for(kinds):
    return [v for k in kinds for v in SCALARS[k]]


def binary_samples(low=None, high=None, *, rhs_low=None, rhs_high=None, nonzero_rhs=False,
                   scalars=("bool", "int", "float"), lhs_scalars=(), partners=("float64",
                   "int32", "bool"), special=True, kwargs=None):
    """Generator of (tensor, other) samples.

    Covers broadcasting (incl. 0-dim and empty), Python scalars as `other` (kinds in
    `scalars`) and as `input` (kinds in `lhs_scalars`), non-contiguous operands, and `other`
    of another dtype (`partners`: a 0-dim tensor of the first, dimensioned tensors of the rest).
    """
    kwargs = kwargs or {}
    rhs = dict(low=low if rhs_low is None else rhs_low, high=high if rhs_high is None else rhs_high,
               nonzero=nonzero_rhs)
    lhs = dict(low=low, high=high)

    def gen(dtype, rng):
        out = []
        for sa, sb in BROADCAST_PAIRS:
            out.append(SampleInput(make_array(sa, dtype, rng, **lhs),
                                   make_array(sb, dtype, rng, **rhs), **kwargs))
        for v in _scalars_for(scalars):
            if nonzero_rhs and not v:
                continue
            out.append(SampleInput(make_array((3, 4), dtype, rng, **lhs), v, **kwargs))
            out.append(SampleInput(make_array((), dtype, rng, **lhs), v, **kwargs))
        for v in _scalars_for(lhs_scalars):
            out.append(SampleInput(v, make_array((3, 4), dtype, rng, **rhs), **kwargs))
        for f in NONCONTIGUOUS:
            out.append(SampleInput(f((3, 4), dtype, rng, **lhs),
                                   make_array((3, 4), dtype, rng, **rhs), **kwargs))
            out.append(SampleInput(make_array((3, 4), dtype, rng, **lhs),
                                   f((3, 4), dtype, rng, **rhs), **kwargs))
        out.append(SampleInput(permuted3(dtype, rng, **lhs), make_array((3,), dtype, rng, **rhs),
                               **kwargs))
        for i, p in enumerate(partners):
            if p == dtype:
                continue
            shape = () if i == 0 else (3, 4)
            out.append(SampleInput(make_array((3, 4), dtype, rng, **lhs),
                                   make_array(shape, p, rng, **rhs), desc="mixed dtypes",
                                   **kwargs))
        sv = special_values(dtype) if special else None
        if sv is not None:
            out.append(SampleInput(sv, sv[::-1].copy(), desc="special values", **kwargs))
            out.append(SampleInput(sv, make_array((2, 4), dtype, rng, **rhs),
                                   desc="special values", **kwargs))
        return out
    return gen


def chain(*generators):
    """One generator yielding the samples of several."""
    def gen(dtype, rng):
        out = []
        for g in generators:
            out += g(dtype, rng)
        return out
    return gen
