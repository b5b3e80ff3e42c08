"""Window functions: ``torch.hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``, and the ``torch.signal.windows`` module's eleven.

Factories, as in ATen's TensorFactories.cpp: no graph, a leaf that may require grad. Each
checks the dtype (floating or complex) and ``window_length >= 0``; a length of 0 gives an empty
tensor and 1 gives ``[1.]``. Otherwise, with ``L = window_length + 1`` when ``periodic`` (the
last point then dropped by a narrow) and ``L = window_length`` when symmetric, the values are
computed from ``arange(L)`` in the output dtype, step by step as ATen does:

* hamming: ``alpha - beta * cos(2 pi n / (L - 1))``; hann is hamming with alpha = beta = 0.5;
* blackman: ``0.42 - 0.5 cos(2 pi n / (L - 1)) + 0.08 cos(4 pi n / (L - 1))``;
* bartlett: ``2 n / (L - 1)``, the second half mirrored as ``2 - 2 n / (L - 1)``;
* kaiser: ``I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)`` with ``a = (L - 1) / 2``.

Note [Window values in half precision]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
ATen runs each in-place step (``mul_``, ``cos_``, ``add_``) as its own kernel: the scalar is
rounded to the output dtype, the arithmetic runs in the op-math type (float for half) and the
result is rounded to the output dtype after every step. ``_step`` does the same, so float16
windows round where torch's do (bit for bit, kaiser aside: its kernel is one step). A complex
dtype passes the dtype check and fails in ``arange`` (as in torch) once the length is 2 or
more.

``signal.windows.*`` are Python composites in torch (float32/float64 only, ``sym`` instead of
``periodic``, ValueErrors): each builds its sample points with ``linspace`` (a leaf that may
require grad) and composes tensor ops over them, so their graphs are those ops' (ExpBackward0
over NegBackward0 over AbsBackward0 for ``exponential``…). They are published under
``signal.windows.<name>`` in the registry.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

from .. import _dtypes as D
from ..backends import numpy_backend as _npb
from ._registry import FUNCTIONS
from .creation import (FACTORY_KW, TYPEMETA_NAME, _type_name, alloc, argument_list, dtype_arg,
                       check_pin_memory, factory_device, finish)
from .range_factories import _not_implemented
from .special_bessel import _bessel

xp = _npb.xp

_MISSING = object()
_OPTIONS = ("dtype", "layout", "device", "pin_memory", "requires_grad")
_TYPE_NAMES = {"int": "int", "bool": "bool", "float": "float"}


# ---------------------------------------------------------------------------------------------
# torch's argument parser for the window overloads
# ---------------------------------------------------------------------------------------------
def _fits(kind, v) -> bool:
    if kind == "bool":
        return type(v) is bool
    if kind == "int":
        if hasattr(v, "_data"):           # a Tensor: 0-dim and integral only
            return v.dim() == 0 and v.dtype.category == D.INT
        return not isinstance(v, (bool, float)) and hasattr(v, "__index__")
    return isinstance(v, numbers.Real) and not hasattr(v, "_data")    # float (not a Tensor)


def _option_fits(name, v) -> bool:
    if v is None:
        return name not in ("pin_memory", "requires_grad")
    if name in ("pin_memory", "requires_grad"):
        return type(v) is bool
    if name == "dtype":
        try:
            dtype_arg(v)
        except TypeError:
            return False
        return True
    if name == "device":
        return isinstance(v, (str, int)) or type(v).__name__ == "device"
    return type(v).__name__ == "layout"


def _try(fname, params, args, kwargs):
    """Bind the call to one overload: (values, None), or (None, the overload's own error)."""
    if len(args) > len(params):
        return None, TypeError(f"{fname}() takes {len(params)} positional arguments but "
                               f"{len(args)} were given")
    values, missing = [], []
    for i, (name, kind) in enumerate(params):
        v = args[i] if i < len(args) else kwargs.get(name, _MISSING)
        if v is _MISSING:
            missing.append(name)
            continue
        if not _fits(kind, v):
            where = f" (position {i + 1})" if i < len(args) else ""
            return None, TypeError(f"{fname}(): argument '{name}'{where} must be "
                                   f"{_TYPE_NAMES[kind]}, not {_type_name(v)}")
        values.append(v)
    if missing:
        names = ", ".join(f'"{n}"' for n in missing)
        return None, TypeError(f"{fname}() missing {len(missing)} required positional "
                               f"arguments: {names}")
    named = {n for n, _ in params[len(args):]}
    for k, v in kwargs.items():
        if k in named:
            continue
        if k not in _OPTIONS:
            return None, TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
        if not _option_fits(k, v):
            return None, TypeError(f"{fname}(): argument '{k}' must be "
                                   f"{'bool' if k in _OPTIONS[3:] else 'torch.' + k}, not "
                                   f"{_arg_type(v)}")
    return values, None


def _parse(fname, extras, args, kwargs):
    """The positional values of the first overload ``(int window_length[, extras…], *, …)``
    that takes the call, or torch's TypeError: the one overload's own error when only one
    could take that many arguments, else the "invalid combination" listing."""
    overloads = [(("window_length", "int"),) + tuple(extras[:k]) for k in range(len(extras) + 1)]
    errors = []
    for params in overloads:
        values, err = _try(fname, params, args, kwargs)
        if err is None:
            return values
        errors.append(err)
    n = len(args) + len(kwargs)
    plausible = [e for p, e in zip(overloads, errors) if len(p) <= n <= len(p) + len(_OPTIONS)]
    if len(plausible) == 1:
        raise plausible[0]
    got = argument_list([_arg_type(a) for a in args],     # torch lists keywords last first
                        [f"{k}={_arg_type(v)}" for k, v in reversed(kwargs.items())])
    sigs = "".join(" * (" + ", ".join(f"{_TYPE_NAMES[k]} {name}" for name, k in p) + ", *, "
                   + FACTORY_KW + ")\n" for p in overloads)
    raise TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n{sigs}")


def _arg_type(v) -> str:
    """A type name as torch's parser prints it; dyngrad's dtype, device and layout objects
    print as torch's."""
    if isinstance(v, D.dtype):
        return "torch.dtype"
    if type(v).__name__ in ("device", "layout"):
        return "torch." + type(v).__name__
    return _type_name(v)


def _options_str(d, pin_memory) -> str:
    return (f"TensorOptions(dtype={TYPEMETA_NAME[d]}, device=cpu, layout=Strided (default), "
            f"requires_grad=false (default), pinned_memory={'true' if pin_memory else 'false'}, "
            "memory_format=(nullopt))")


# ---------------------------------------------------------------------------------------------
# the windows
# ---------------------------------------------------------------------------------------------
def _step(a, fn, scalar=None):
    """One ATen kernel ``fn(a[, scalar])``, in op-math precision (float for half), rounded
    back to a's dtype; the scalar is first rounded to a's dtype. See Note [Window values in
    half precision]."""
    work = xp.float32 if a.dtype == xp.float16 else a.dtype.type
    args = () if scalar is None else (work(a.dtype.type(scalar)),)
    return fn(a.astype(work, copy=False), *args).astype(a.dtype, copy=False)


def _window(fname, extras, args, kwargs, values_fn):
    """Parse, check as torch's ``window_function_checks``, handle lengths 0 and 1, then
    ``values_fn(L, np_dtype, *extras)`` on the extended length; periodic drops the last."""
    values = _parse(fname, extras, args, kwargs)
    n = values[0] = int(values[0].__index__())
    opts = {k: kwargs.get(k) for k in _OPTIONS}
    d = dtype_arg(opts["dtype"], fname) or D.get_default_dtype()
    if d.category not in (D.FLOAT, D.COMPLEX):
        raise RuntimeError(f"{fname} expects floating point dtypes, got: "
                           f"{_options_str(d, opts['pin_memory'])}")
    if n < 0:
        raise RuntimeError(f"{fname} requires non-negative window_length, got "
                           f"window_length={n}")
    check_pin_memory(opts["pin_memory"])
    requires_grad = bool(opts["requires_grad"])
    if n <= 1:
        return finish(alloc((n,), d.np, fill=1), requires_grad, factory_device(opts["device"]))
    if d.category == D.COMPLEX:
        raise _not_implemented("arange_cpu", d)
    periodic = values[1] if len(values) > 1 else True
    length = n + 1 if periodic else n
    arr = values_fn(length, d.np, *values[2:])
    return finish(arr[:n] if periodic else arr, requires_grad, factory_device(opts["device"]))


def _arange(length, np_dtype):
    return xp.arange(length, dtype=xp.float64).astype(np_dtype)


def _hamming_values(length, np_dtype, alpha=0.54, beta=0.46):
    w = _step(_arange(length, np_dtype), xp.multiply, math.pi * 2.0 / (length - 1))
    w = _step(w, xp.cos)
    w = _step(w, xp.multiply, -float(beta))
    return _step(w, xp.add, float(alpha))


def _blackman_values(length, np_dtype):
    w = _step(_arange(length, np_dtype), xp.multiply, math.pi / (length - 1))
    four = _step(_step(_step(w, xp.multiply, 4), xp.cos), xp.multiply, 0.08)
    two = _step(_step(_step(w, xp.multiply, 2), xp.cos), xp.multiply, 0.5)
    return _step(_step(four, lambda a: a - two.astype(a.dtype)), xp.add, 0.42)


def _bartlett_values(length, np_dtype):
    w = _step(_arange(length, np_dtype), xp.multiply, 2.0 / (length - 1))
    half = ((length - 1) >> 1) + 1
    w[half:] = _step(_step(w[half:], xp.multiply, -1), xp.add, 2)
    return w


def _kaiser_values(length, np_dtype, beta=12.0):
    def kernel(a):
        work = a.dtype.type
        alpha = work((length - 1) / 2.0)
        b = work(beta)
        ratio = (a - alpha) / alpha
        return _bessel(xp, b * xp.sqrt(work(1) - ratio * ratio), 0, False) / \
            _bessel(xp, xp.asarray(b), 0, False)
    return _step(_arange(length, np_dtype), kernel)


_PERIODIC = (("periodic", "bool"),)


def hann_window(*args, **kwargs):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (L - 1))``: ATen's hamming with alpha = beta
    = 0.5 (``periodic=True``: ``L = window_length + 1``)."""
    return _window("hann_window", _PERIODIC, args, kwargs,
                   lambda L, dt: _hamming_values(L, dt, 0.5, 0.5))


def hamming_window(*args, **kwargs):
    """The generalised Hamming window ``alpha - beta cos(2 pi n / (L - 1))``."""
    extras = _PERIODIC + (("alpha", "float"), ("beta", "float"))
    return _window("hamming_window", extras, args, kwargs, _hamming_values)


def blackman_window(*args, **kwargs):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (L - 1)) + 0.08 cos(4 pi n / (L - 1))``."""
    return _window("blackman_window", _PERIODIC, args, kwargs, _blackman_values)


def bartlett_window(*args, **kwargs):
    """The Bartlett (triangular) window: ``2 n / (L - 1)`` rising, ``2 - 2 n / (L - 1)``
    falling."""
    return _window("bartlett_window", _PERIODIC, args, kwargs, _bartlett_values)


def kaiser_window(*args, **kwargs):
    """The Kaiser window ``I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)``, ``a = (L - 1) / 2``
    (beta defaults to 12)."""
    extras = _PERIODIC + (("beta", "float"),)
    return _window("kaiser_window", extras, args, kwargs, _kaiser_values)


for _fn in (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window):
    FUNCTIONS[_fn.__name__] = _fn


# ---------------------------------------------------------------------------------------------
# torch.signal.windows: Python composites over tensor ops (their graphs are those ops')
# ---------------------------------------------------------------------------------------------
def _signal_checks(fname, M, dtype, layout):
    """torch.signal.windows' shared checks; returns the dtype (the default one for None)."""
    dtype = D.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{fname} requires non-negative window length, got M={M}")
    if type(layout).__name__ != "layout":
        raise ValueError(f"{fname} is implemented for strided tensors only, got: {layout}")
    if dtype not in (D.float32, D.float64):
        raise ValueError(f"{fname} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _filled(M, opts, fill):
    return FUNCTIONS["ones" if fill else "empty"]((M,), **opts)


def _points(start, M, scale, opts):
    """``linspace(start * scale, (start + M - 1) * scale, M)``: the sample points."""
    return FUNCTIONS["linspace"](start * scale, (start + (M - 1)) * scale, M, **opts)


def _opts(fname, M, dtype, layout, device, requires_grad):
    from .. import strided
    dtype = _signal_checks(fname, M, dtype, strided if layout is None else layout)
    return dict(dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """``exp(-|n - center| / tau)`` (the Poisson window); ``center`` only when periodic."""
    opts = _opts("exponential", M, dtype, layout, device, requires_grad)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _filled(0, opts, False)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _points(-center, M, 1 / tau, opts)
    return FUNCTIONS["exp"](-FUNCTIONS["abs"](k))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """``sin(pi (n + 0.5) / M)`` (M + 1 when periodic): the sine window."""
    opts = _opts("cosine", M, dtype, layout, device, requires_grad)
    if M == 0:
        return _filled(0, opts, False)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return FUNCTIONS["sin"](_points(0.5, M, step, opts))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``exp(-(n - c)^2 / (2 std^2))``, centred on the window."""
    opts = _opts("gaussian", M, dtype, layout, device, requires_grad)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _filled(0, opts, False)
    step = 1 / (std * math.sqrt(2))
    k = _points(-(M if not sym and M > 1 else M - 1) / 2.0, M, step, opts)
    return FUNCTIONS["exp"](-k ** 2)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """``I0(sqrt(beta^2 - k^2)) / I0(beta)`` for k from -beta to beta."""
    opts = _opts("kaiser", M, dtype, layout, device, requires_grad)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _filled(M, opts, M == 1)
    b = FUNCTIONS["tensor"](beta, dtype=opts["dtype"], device=device)
    step = 2.0 * b / (M if not sym else M - 1)
    end = FUNCTIONS["minimum"](b, -b + (M - 1) * step)
    k = FUNCTIONS["linspace"](-b, end, M, **opts)
    i0 = FUNCTIONS["i0"]
    return i0(FUNCTIONS["sqrt"](b * b - FUNCTIONS["pow"](k, 2))) / i0(b)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """``1 - |k|`` for k from -1 to 1: the triangular window."""
    opts = _opts("bartlett", M, dtype, layout, device, requires_grad)
    if M <= 1:
        return _filled(M, opts, M == 1)
    step = 2 / (M if not sym else M - 1)
    k = FUNCTIONS["linspace"](-1, -1 + (M - 1) * step, M, **opts)
    return 1 - FUNCTIONS["abs"](k)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))`` (M when periodic)."""
    opts = _opts("general_cosine", M, dtype, layout, device, requires_grad)
    if M <= 1:
        return _filled(M, opts, M == 1)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _points(0, M, 2 * math.pi / (M if not sym else M - 1), opts)
    coeffs = FUNCTIONS["tensor"]([(-1) ** i * w for i, w in enumerate(a)], **opts)
    i = FUNCTIONS["arange"](coeffs.shape[0], dtype=coeffs.dtype,
                            requires_grad=coeffs.requires_grad)
    return (coeffs.unsqueeze(-1) * FUNCTIONS["cos"](i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """general_cosine with a = (alpha, 1 - alpha)."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hamming window: general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hann window: general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Blackman window: general_cosine with a = (0.42, 0.5, 0.08)."""
    _opts("blackman", M, dtype, layout, device, requires_grad)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Nuttall's minimum 4-term Blackman-Harris window (a general_cosine)."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


for _fn in (bartlett, blackman, cosine, exponential, gaussian, general_cosine, general_hamming,
            hamming, hann, kaiser, nuttall):
    FUNCTIONS[f"signal.windows.{_fn.__name__}"] = _fn
