"""cov and corrcoef (``torch.cov``, ``torch.corrcoef``).

Composites, as in ATen: the input is viewed as (variables, observations); the weights are
``fweights * aweights``; the weighted mean is ``(in * w).sum(1) / w.sum()``; the covariance is
``mm(in - mean, ((in - mean) * w).t().conj()) / norm_factor``, squeezed. The graph is torch's:
SqueezeBackward0 over DivBackward0 over MmBackward0 (TBackward0, and ConjBackward0 for complex
inputs).

Note [cov's normalisation]: with ``correction == 0`` the factor is the weight sum itself; with
aweights it is ``w_sum - correction * (w * aweights).sum() / w_sum``, otherwise ``w_sum -
correction``. A factor <= 0 warns and is zeroed in place, so the division gives inf / NaN.

corrcoef divides the covariance by the standard deviations (``sqrt`` of its diagonal's real
part) as a column then a row, and clips to [-1, 1] (real and imaginary parts apart for complex
inputs). A 0-dim covariance gives ``c / c``.
"""
from __future__ import annotations

from .. import _dtypes as D
from . import _registry
from ._registry import FUNCTIONS, METHODS
from .linalg_products import _conj
from .loss import mul_scalar
from .statistics import _warn
from ._arg_parser import type_name as _tp_name

_DOF_WARNING = ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                "number of observations. (Triggered internally at /__w/pytorch/pytorch/aten/src/"
                "ATen/native/Correlation.cpp:129.)")


def _check_args(name, input, method, correction=1, fweights=None, aweights=None):
    """torch's argument parser: the types of ``input`` and the keyword-only arguments."""
    Tensor = _registry._Tensor
    if not method and not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")
    if type(correction) is not int:
        raise TypeError(f"{name}(): argument 'correction' must be int, not "
                        f"{type(correction).__name__}")
    for arg, value in (("fweights", fweights), ("aweights", aweights)):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not "
                            f"{_tp_name(value)}")


def _check_weights(kind, w, num_observations, accepts):
    """ATen's checks of fweights (integral) or aweights (floating)."""
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got "
                           f"{kind} with {w.dim()} dimensions")
    if not accepts(w.dtype):
        what = "integral" if kind == "fweights" else "floating point"
        raise RuntimeError(f"cov(): expected {kind} to have {what} dtype but got {kind} with "
                           f"{w.dtype._legacy} dtype")
    if w.numel() != num_observations:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != "
                           f"{num_observations}")
    if num_observations and not bool(w.min() >= 0):
        raise RuntimeError(f"cov(): {kind} cannot be negative")


def _cov(input, correction, fweights, aweights):
    """ATen's cov, op for op."""
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is D.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    num_observations = x.size(1)
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, num_observations,
                       lambda d: d.category == D.INT)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, num_observations,
                       lambda d: d.category == D.FLOAT)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = FUNCTIONS["full"]((), num_observations, dtype=D.int64)
    else:
        w_sum = w.sum()
        if not bool(w_sum != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    # Note [cov's normalisation]
    if correction == 0:
        norm_factor = w_sum
    elif aweights is not None:
        norm_factor = w_sum - mul_scalar((w * aweights).sum(), correction) / w_sum
    else:
        norm_factor = w_sum - correction
    if bool(norm_factor <= 0):
        _warn(_DOF_WARNING)
        norm_factor.zero_()
    x = x - avg.unsqueeze(1)
    c = FUNCTIONS["mm"](x, _conj((x if w is None else x * w).t()) if x.is_complex()
                        else (x if w is None else x * w).t())
    return FUNCTIONS["true_divide"](c, norm_factor).squeeze()


def cov(input, *args, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the rows of ``input`` (variables) over its columns
    (observations), with integer frequency weights and floating observation weights;
    ``correction`` is subtracted from the (weighted) observation count."""
    if args:
        raise TypeError(f"cov() takes 1 positional argument but {1 + len(args)} were given")
    _check_args("cov", input, False, correction, fweights, aweights)
    return _cov(input, correction, fweights, aweights)


def _cov_method(self, *args, correction=1, fweights=None, aweights=None):
    if args:
        raise TypeError(f"cov() takes 0 positional arguments but {len(args)} "
                        f"{'was' if len(args) == 1 else 'were'} given")
    _check_args("cov", self, True, correction, fweights, aweights)
    return _cov(self, correction, fweights, aweights)


def _corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    c = _cov(input, 1, None, None)
    if c.dim() == 0:
        return c / c   # NaN for 0, inf or NaN; 1 otherwise
    d = c.diagonal()
    stddev = (FUNCTIONS["real"](d) if d.is_complex() else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if not c.is_complex():
        return c.clip(-1, 1)
    re = FUNCTIONS["real"](c).clip(-1, 1)
    im = FUNCTIONS["imag"](c).clip(-1, 1)
    make = FUNCTIONS.get("complex")
    return make(re, im) if make is not None else re + im * 1j


def corrcoef(input, *args):
    """Pearson correlation coefficients of the rows of ``input``: ``cov(input)`` divided by
    the outer product of the standard deviations, clipped to [-1, 1]."""
    if args:
        raise TypeError(f"corrcoef() takes 1 positional argument but {1 + len(args)} were "
                        "given")
    if not isinstance(input, _registry._Tensor):
        raise TypeError("corrcoef(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")
    return _corrcoef(input)


def _corrcoef_method(self, *args):
    if args:
        raise TypeError(f"TensorBase.corrcoef() takes no arguments ({len(args)} given)")
    return _corrcoef(self)


FUNCTIONS["cov"] = cov
METHODS["cov"] = _cov_method
FUNCTIONS["corrcoef"] = corrcoef
METHODS["corrcoef"] = _corrcoef_method
