"""``torch.fft``: the discrete Fourier transforms and their helpers (``fft.fft``… in FUNCTIONS).

Every transform is a composite over the primitives of fft_helpers.py, as in ATen's
SpectralOps.cpp: the arguments are checked, integer inputs promoted to the default float dtype
(float16 is refused on CPU), the input trimmed (SliceBackward0) and zero-padded
(ConstantPadNdBackward0) to the requested sizes, then one primitive runs:

* complex input to ``fft``/``ifft``/``fftn``...: ``_fft_c2c`` (FftC2CBackward0); a real input
  to ``fft``/``ifft`` takes ``_fft_r2c`` with both halves, to ``fftn``/``fft2`` it is first
  made complex (ToCopyBackward0);
* ``rfft*``: ``_fft_r2c``, one-sided; ``ihfft``: the same, conjugated (ConjBackward0);
* ``irfft*``: ``_fft_c2r``; ``hfft``: ``_fft_c2r`` of the conjugate (after a ``_fft_c2c`` over
  the other dims for ``hfftn``); ``ihfftn`` over several dims: ``_fft_r2c`` over the last,
  ``conj_physical``, ``_fft_c2c`` over the others.

``norm`` is "backward" (scale the inverse by 1/n), "ortho" (both by 1/sqrt(n)) or "forward".
"""
from __future__ import annotations

import functools
import inspect
import math
import operator

from .. import _dtypes as D
from .._utils import canonical_dim
from . import _registry
from ._registry import FUNCTIONS
from .creation import check_pin_memory
from ._selection import check_no_grad_out, resize_output, resized_warning, write_out
from .fft_helpers import _fft_c2c, _fft_c2r, _fft_r2c


# torch's conj (ConjBackward0; a materialised copy here: Note [No conjugate bit] in
# _tensor_extras.py, which registers both) and conj_physical (ConjPhysicalBackward0)
def _conj(t):
    return FUNCTIONS["conj"](t)


def _conj_physical(t):
    return FUNCTIONS["conj_physical"](t)


# -- argument handling ------------------------------------------------------------------------
def _norm_mode(norm, forward):
    """ATen's norm_from_string: 0 (none), 1 (by sqrt(n)) or 2 (by n) for this direction."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(t, require_complex=False):
    """ATen's promote_tensor_fft: integers to the default dtype; only float32/64 (and their
    complex types) are computed on CPU."""
    dtype = t.dtype
    if dtype.is_complex:
        return t
    new = dtype if dtype.is_floating_point else D.get_default_dtype()
    if new not in (D.float32, D.float64):
        raise RuntimeError(f"Unsupported dtype {new._legacy}")
    if require_complex:
        new = new.to_complex()
    return t if new is dtype else t.to(new)


def _wrap(dim, ndim):
    dim = operator.index(dim)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return canonical_dim(dim, ndim)


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x, dims, sizes):
    """ATen's resize_fft_input: trim each dim that is too long (a slice each), then zero-pad
    those too short (one constant_pad_nd)."""
    pad = [0] * (2 * x.dim())
    padding = False
    for d, size in zip(dims, sizes):
        have = x.shape[d]
        if size < have:
            x = x.narrow(d, 0, size)
        elif size > have:
            pad[2 * (x.dim() - 1 - d) + 1] = size - have
            padding = True
    return FUNCTIONS["constant_pad_nd"](x, pad, 0) if padding else x


def _into(out, result):
    """The ``out=`` variant's ending: resize ``out`` as ATen's resize_output, copy."""
    resize_output(out, tuple(result.shape))
    out.copy_(result)
    return out


def _run(kind, out, x, *args):
    """One primitive (``kind`` "c2c", "r2c" or "c2r") into ``out`` or as a new tensor."""
    prim = {"c2c": _fft_c2c, "r2c": _fft_r2c, "c2r": _fft_c2r}[kind]
    if out is None:
        return prim(x, *args)
    check_no_grad_out(f"_fft_{kind}", x)
    return _into(out, prim(x, *args))


def _conj_into(out, result):
    """An inverse real-input transform's ending: ``conj()``, or ``conj_physical(out=)`` (whose
    resized ``out`` takes the result's layout; no out= autograd error there in torch)."""
    if out is None:
        return _conj(result)
    write_out(out, _conj_physical(result.detach()))
    return out


# -- one dim ----------------------------------------------------------------------------------
def _one_dim(x, n, dim, default_n):
    dim = _wrap(dim, x.dim())
    given = n is not None
    n = operator.index(n) if given else default_n(x.shape[dim])
    _check_n(n)
    return dim, n, given


def _c2c_1d(name, input, n, dim, norm, forward, out):
    if not input.is_complex():
        raise RuntimeError(f"{name} expects a complex input tensor, but got "
                           f"{input.dtype._legacy}")
    dim, n, given = _one_dim(input, n, dim, lambda size: size)
    x = _resize(input, [dim], [n]) if given else input
    return _run("c2c", out, x, [dim], _norm_mode(norm, forward), forward)


def _r2c_1d(name, input, n, dim, norm, forward, onesided, out):
    if input.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {input.dtype._legacy}")
    if out is not None and not out.is_complex():
        raise RuntimeError(f"{name} expects a complex output tensor, but got "
                           f"{out.dtype._legacy}")
    x = _promote(input)
    dim, n, given = _one_dim(x, n, dim, lambda size: size)
    if given:
        x = _resize(x, [dim], [n])
    mode = _norm_mode(norm, forward)
    if forward:
        return _run("r2c", out, x, [dim], mode, onesided)
    return _conj_into(out, _fft_r2c(x, [dim], mode, onesided))


def _c2r_1d(name, input, n, dim, norm, forward, out):
    if out is not None and out.is_complex():
        raise RuntimeError(f"{name} expects a floating point output tensor, but got "
                           f"{out.dtype._legacy}")
    x = _promote(input, require_complex=True)
    dim, n, given = _one_dim(x, n, dim, lambda size: 2 * (size - 1))
    if given:
        x = _resize(x, [dim], [n // 2 + 1])
    if forward:
        x = _conj(x)
    return _run("c2r", out, x, [dim], _norm_mode(norm, forward), n)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform along ``dim`` (zero-padded or trimmed to
    ``n`` points)."""
    if input.is_complex():
        return _c2c_1d("fft", input, n, dim, norm, True, out)
    return _r2c_1d("fft", input, n, dim, norm, True, False, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``fft``."""
    if input.is_complex():
        return _c2c_1d("ifft", input, n, dim, norm, False, out)
    return _r2c_1d("ifft", input, n, dim, norm, False, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a real signal: the n // 2 + 1 non-redundant frequencies."""
    return _r2c_1d("rfft", input, n, dim, norm, True, True, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``rfft``: a real signal of ``n`` points (default 2 * (size - 1))."""
    return _c2r_1d("irfft", input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: real."""
    return _c2r_1d("hfft", input, n, dim, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``hfft``: the one-sided inverse transform of a real signal."""
    return _r2c_1d("ihfft", input, n, dim, norm, False, True, out)


# -- several dims -----------------------------------------------------------------------------
def _int_list(value):
    if isinstance(value, _registry._Tensor) or not hasattr(value, "__iter__"):
        return [operator.index(value)]
    return [operator.index(v) for v in value]


def _shape_and_dims(input, s, dim):
    """ATen's canonicalize_fft_shape_and_dim_args: (sizes, dims) of the transform."""
    ndim = input.dim()
    dims = None
    if dim is not None:
        dims = [_wrap(d, ndim) for d in _int_list(dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = _int_list(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [input.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        if dims is None:
            dims = list(range(ndim))
        shape = [input.shape[d] for d in dims]
    for n in shape:
        _check_n(n)
    return shape, dims


def _c2r_shape_and_dims(name, input, s, dim):
    """The same for a one-sided input: also the real output's last size."""
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{name} must transform at least one axis")
    if s is None or _int_list(s)[-1] == -1:
        last = 2 * (input.shape[dims[-1]] - 1)
    else:
        last = shape[-1]
    _check_n(last)
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _fftn_c2c(name, input, s, dim, norm, forward, out):
    shape, dims = _shape_and_dims(input, s, dim)
    x = _resize(_promote(input, require_complex=True), dims, shape)
    return _run("c2c", out, x, dims, _norm_mode(norm, forward), forward)


def _rfftn(name, input, s, dim, norm, out):
    if input.is_complex():
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                           f"{input.dtype._legacy}")
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(input), dims, shape)
    return _run("r2c", out, x, dims, _norm_mode(norm, True), True)


def _irfftn(name, input, s, dim, norm, out):
    shape, dims, last = _c2r_shape_and_dims("irfftn", input, s, dim)
    x = _resize(_promote(input, require_complex=True), dims, shape)
    return _run("c2r", out, x, dims, _norm_mode(norm, False), last)


def _hfftn(name, input, s, dim, norm, out):
    shape, dims, last = _c2r_shape_and_dims("hfftn", input, s, dim)
    x = _resize(_promote(input, require_complex=True), dims, shape)
    mode = _norm_mode(norm, True)
    if len(dims) > 1:
        x = _fft_c2c(x, dims[:-1], mode, True)
    return _run("c2r", out, _conj(x), dims[-1:], mode, last)


def _ihfftn(name, input, s, dim, norm, out):
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    if input.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                           f"{input.dtype._legacy}")
    x = _resize(_promote(input), dims, shape)
    mode = _norm_mode(norm, False)
    if len(dims) == 1:
        half = _fft_r2c(x, dims, mode, True)
        if out is not None:
            # Note [ihfftn's out= over one dim]: ATen calls conj_physical_out with its
            # arguments swapped: the transform is resized to out's shape (with the resize
            # warning) and out comes back untouched. Kept as torch 2.13 behaves.
            if tuple(half.shape) != tuple(out.shape) and half.numel():
                resized_warning(half.shape, out.shape)
            return out
        return _conj(half)
    half = _conj_physical(_fft_r2c(x, dims[-1:], mode, True))
    return _run("c2c", out, half, dims[:-1], mode, False)


def _nd(name, impl, default_dim, forward=None):
    """The public ``fft.<name>`` over ``impl`` (``fft2``… default ``dim`` to the last two)."""
    if forward is None:
        def fn(input, s=None, dim=default_dim, norm=None, *, out=None):
            return impl(name, input, s, dim, norm, out)
    else:
        def fn(input, s=None, dim=default_dim, norm=None, *, out=None):
            return impl(name, input, s, dim, norm, forward, out)
    fn.__name__ = fn.__qualname__ = name
    return fn


_LAST_TWO = (-2, -1)
fft2 = _nd("fft2", _fftn_c2c, _LAST_TWO, True)
ifft2 = _nd("ifft2", _fftn_c2c, _LAST_TWO, False)
fftn = _nd("fftn", _fftn_c2c, None, True)
ifftn = _nd("ifftn", _fftn_c2c, None, False)
rfft2 = _nd("rfft2", _rfftn, _LAST_TWO)
rfftn = _nd("rfftn", _rfftn, None)
irfft2 = _nd("irfft2", _irfftn, _LAST_TWO)
irfftn = _nd("irfftn", _irfftn, None)
hfft2 = _nd("hfft2", _hfftn, _LAST_TWO)
hfftn = _nd("hfftn", _hfftn, None)
ihfft2 = _nd("ihfft2", _ihfftn, _LAST_TWO)
ihfftn = _nd("ihfftn", _ihfftn, None)
fft2.__doc__ = "The two-dimensional Fourier transform (``fftn`` over the last two dims)."
fftn.__doc__ = "The n-dimensional Fourier transform over ``dim`` (sizes ``s``)."
ifft2.__doc__ = ifftn.__doc__ = "The inverse of ``fft2`` / ``fftn``."
rfft2.__doc__ = rfftn.__doc__ = "The n-dimensional transform of a real input, one-sided."
irfft2.__doc__ = irfftn.__doc__ = "The inverse of ``rfft2`` / ``rfftn``: a real output."
hfft2.__doc__ = hfftn.__doc__ = "The n-dimensional transform of a Hermitian half-signal."
ihfft2.__doc__ = ihfftn.__doc__ = "The inverse of ``hfft2`` / ``hfftn``."


# -- frequencies and shifts -------------------------------------------------------------------
def _freq_dtype(name, dtype, out):
    if out is not None and dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {dtype._legacy} does not match dtype of out parameter "
                           f"({out.dtype._legacy})")
    dtype = (D.get_default_dtype() if out is None else out.dtype) if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    return dtype


def _freq_result(values, n, d, out, requires_grad):
    spacing = n * d
    values.mul_(1.0 / spacing if spacing else math.copysign(math.inf, spacing))
    if out is not None:
        return _into(out, values)
    return values.requires_grad_(requires_grad) if requires_grad else values


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
            requires_grad=False):
    """The sample frequencies of an ``n``-point FFT with spacing ``d``: [0, 1, ..., -2, -1]
    / (n * d)."""
    check_pin_memory(pin_memory)
    n = operator.index(n)
    dtype = _freq_dtype("fftfreq", dtype, out)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    values = FUNCTIONS["arange"](n, dtype=dtype, device=device)
    if n // 2:
        values.narrow(0, (n + 1) // 2, n // 2).copy_(
            FUNCTIONS["arange"](-(n // 2), 0, dtype=dtype, device=device))
    return _freq_result(values, n, d, out, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """The non-negative sample frequencies of an ``n``-point ``rfft``: [0, ..., n // 2]
    / (n * d)."""
    check_pin_memory(pin_memory)
    n = operator.index(n)
    dtype = _freq_dtype("rfftfreq", dtype, out)
    half = -(-n // 2) if n < 0 else n // 2   # (C++'s division, truncating toward zero)
    values = FUNCTIONS["arange"](half + 1, dtype=dtype, device=device)
    return _freq_result(values, n, d, out, requires_grad)


def _shift(input, dim, shift_of):
    dims = list(range(input.dim())) if dim is None else \
        [_wrap(d, input.dim()) for d in _int_list(dim)]
    return FUNCTIONS["roll"](input, [shift_of(input.shape[d]) for d in dims], dims)


def fftshift(input, dim=None):
    """The zero frequency moved to the middle: ``roll`` by size // 2 along ``dim`` (all)."""
    return _shift(input, dim, lambda size: size // 2)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``: ``roll`` by (size + 1) // 2."""
    return _shift(input, dim, lambda size: (size + 1) // 2)


# -- torch's argument parser --------------------------------------------------------------------
_KIND_TEXT = {"Tensor": "Tensor", "int": "int", "ints": "tuple of ints", "str": "str",
              "float": "float"}


def _is_int(v):
    return not isinstance(v, bool) and hasattr(v, "__index__") and \
        not isinstance(v, _registry._Tensor)


def _fits(kind, v):
    if kind == "Tensor":
        return isinstance(v, _registry._Tensor)
    if kind == "int":
        return _is_int(v)
    if kind == "ints":
        return _is_int(v) or (isinstance(v, (list, tuple)) and all(_is_int(e) for e in v))
    if kind == "str":
        return isinstance(v, str)
    return isinstance(v, (int, float)) and not isinstance(v, bool)   # float


def _parsed(fname, fn, kinds):
    """``fn`` behind the type checks of torch's argument parser, with its messages
    (``fft_fft(): argument 'n' (position 2) must be int, not float``)."""
    params = inspect.signature(fn).parameters
    positional = [n for n, p in params.items() if p.kind is p.POSITIONAL_OR_KEYWORD]

    def check(name, value, pos):
        kind = kinds.get(name)
        if kind is None or (value is None and name != "input") or _fits(kind, value):
            return
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{fname}(): argument '{name}'{where} must be {_KIND_TEXT[kind]}, not "
                        f"{type(value).__name__}")

    @functools.wraps(fn)
    def parsed(*args, **kwargs):
        for key in kwargs:
            if key not in params:
                raise TypeError(f"{fname}() got an unexpected keyword argument '{key}'")
        for i, (name, value) in enumerate(zip(positional, args)):
            check(name, value, i + 1)
        for name, value in kwargs.items():
            check(name, value, None)
        return fn(*args, **kwargs)
    return parsed


_ONE_DIM = {"input": "Tensor", "n": "int", "dim": "int", "norm": "str", "out": "Tensor"}
_N_DIM = {"input": "Tensor", "s": "ints", "dim": "ints", "norm": "str", "out": "Tensor"}
_FREQ = {"n": "int", "d": "float", "out": "Tensor"}
_SHIFT = {"input": "Tensor", "dim": "ints"}
for _fn, _kinds in ((fft, _ONE_DIM), (ifft, _ONE_DIM), (rfft, _ONE_DIM), (irfft, _ONE_DIM),
                    (hfft, _ONE_DIM), (ihfft, _ONE_DIM), (fft2, _N_DIM), (ifft2, _N_DIM),
                    (fftn, _N_DIM), (ifftn, _N_DIM), (rfft2, _N_DIM), (rfftn, _N_DIM),
                    (irfft2, _N_DIM), (irfftn, _N_DIM), (hfft2, _N_DIM), (hfftn, _N_DIM),
                    (ihfft2, _N_DIM), (ihfftn, _N_DIM), (fftfreq, _FREQ), (rfftfreq, _FREQ),
                    (fftshift, _SHIFT), (ifftshift, _SHIFT)):
    FUNCTIONS["fft." + _fn.__name__] = _parsed("fft_" + _fn.__name__, _fn, _kinds)
del _fn, _kinds
