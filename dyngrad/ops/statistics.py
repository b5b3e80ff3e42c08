"""var, std, var_mean, std_mean and logsumexp, with their derivatives.

One primitive serves each of var/std/var_mean/std_mean: torch's ``.correction`` overload
(``var(input, dim=None, *, correction=None, keepdim=False)``). The public functions map the
older forms onto it exactly as torch's argument parser does, which decides the ``correction``
the node shows: ``var(x)`` keeps None, ``var(x, unbiased)`` gives 0 or 1, and any call that
passes ``dim`` without a correction gives 1 (the ``unbiased=True`` default of that overload).

The variance divides by ``max(0, N - correction)``: ``N <= correction`` gives inf (or NaN for
0 / 0) with torch's warning, as torch does; the derivative follows torch's formula there too.
"""
from __future__ import annotations

import math

from ..backends import numpy_backend as _npb
from .._promotion import Promote
from ._autograd_utils import conj, reduction_tangent
from .._utils import plain_int
from ._registry import FUNCTIONS, METHODS, defop
from ._selection import warn_at_caller as _warn
from .reduction import (_NO_DIM, _dims, _numel, dense, invalid_arguments, reduced_axes,
                        sum_backward, unsqueeze_multiple, write_out)

_DOF_WARNING = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                "reduction factor (input numel divided by output numel). (Triggered internally "
                "at /__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")


def _moments(xp, x, dim, correction, keepdim, name):
    """(variance, mean) of `x` over `dim`; the variance is real, the mean has x's dtype."""
    if x.dtype.kind not in "fcV":
        what = "std and var" if name in ("var", "std") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    axes = _dims(dim, x.ndim)
    n = x.size if axes is None else _numel(x.shape[a] for a in axes)
    dof = n - (1 if correction is None else correction)
    if dof <= 0:
        _warn(_DOF_WARNING.format(name))
    # accumulate in double precision (torch's CPU kernels use a double accumulator for float)
    acc = xp.complex128 if x.dtype.kind == "c" else xp.float64
    xa = x.astype(acc)
    with xp.errstate(divide="ignore", invalid="ignore"):
        # the mean is shifted by each slice's first element: exact for constant slices (whose
        # variance is then exactly 0, as with torch's Welford updates)
        first = tuple(slice(0, 1) if axes is None or i in axes else slice(None)
                      for i in range(x.ndim))
        shift = xa[first] if n else xp.zeros((), acc)
        mean = shift + xp.true_divide(xp.sum(xa - shift, axis=axes, keepdims=True), n)
        dev = xa - mean
        sq = dev.real * dev.real + dev.imag * dev.imag if x.dtype.kind == "c" else dev * dev
        var = xp.true_divide(xp.sum(sq, axis=axes, keepdims=keepdim), max(0.0, dof))
    if not keepdim:
        mean = mean.reshape(var.shape)
    real = xp.float32 if x.dtype == xp.complex64 else (
        xp.float64 if x.dtype.kind == "c" else x.dtype)
    return xp.asarray(var, real, order="C"), xp.asarray(mean, x.dtype, order="C")


def _safe_size(sizes, dim) -> int:
    if not sizes:
        return 1
    dims = (dim,) if isinstance(dim, int) else dim
    return _numel(sizes[d % len(sizes)] for d in dims)


def var_backward(grad, self, dim, correction, keepdim):
    """torch's var_backward: 2 (x - mean) / (N - correction), with its dof <= 0 rule."""
    c = 1 if correction is None else correction
    if self.dim() == 0 or dim is None:
        dof = self.numel() - c
        if dof <= 0:
            # 2 / 0 is inf; inf * 0 is NaN where x equals the mean
            where = FUNCTIONS["where"]
            return grad * where(self == self.mean(), float("nan"), float("inf"))
        return (2.0 / dof) * grad * (self - self.mean())
    if not keepdim and self.dim() > 1:
        grad = unsqueeze_multiple(grad, dim, self.dim())
    rnumel = _safe_size(tuple(self.shape), dim)   # torch: 1 for dim=()
    scale = 2.0 / (rnumel - c) if rnumel != c else math.inf   # (torch's SymFloat division)
    return scale * grad * (self - self.mean(dim, True))


def std_backward(result, grad, self, dim, correction, keepdim):
    grad_var = FUNCTIONS["where"](result == 0, 0.0, grad / (result * 2))
    return var_backward(grad_var, self, dim, correction, keepdim)


def mean_backward(grad, sizes, dim, keepdim):
    if dim is None or dim == () or dim == []:
        n = _numel(sizes)
    else:
        n = _safe_size(sizes, dim)
    return sum_backward(grad, sizes, dim, keepdim) / n


def _declare(name, node, saves, outputs=()):
    @defop(f"{name}.correction", node=node, promote=Promote.NONE, variants=(), public=name,
           saves=saves, outputs=outputs, kernel_dtypes=True, scalars=())
    def op(xp, self, dim=None, *, correction=None, keepdim=False):
        var, mean = _moments(xp, self, dim, correction, keepdim, name)
        if name.startswith("std"):
            var = xp.sqrt(var)
        return (var, mean) if name.endswith("_mean") else var
    return op


_var = _declare("var", "VarBackward0", ("self",))
_std = _declare("std", "StdBackward0", ("self", "result"))
_var_mean = _declare("var_mean", "VarMeanBackward0", ("self",))
_std_mean = _declare("std_mean", "StdMeanBackward0", ("self", "result0"),
                     outputs=("result0", "result1"))


@_var.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return var_backward(grad, self, ctx.dim, ctx.correction, ctx.keepdim)


def _var_tangent(ctx, self_t, var):
    """var_backward with a unit gradient, through reduction_tangent (torch's var_jvp); inf / NaN
    with no degrees of freedom, as torch."""
    self = ctx.primals[0]
    partial = var_backward(var.new_ones(var.shape), self, ctx.dim, ctx.correction, ctx.keepdim)
    dim = ctx.dim
    dims = [] if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    return reduction_tangent(partial, self_t, var, dims, ctx.keepdim)


def _std_tangent(ctx, self_t, std):
    return FUNCTIONS["where"](std == 0, 0.0, _var_tangent(ctx, self_t, std * std) / (2 * std))


def _mean_tangent(ctx, self_t):
    dim = ctx.dim
    if dim is None or dim == () or dim == []:
        return self_t.mean() if not ctx.keepdim else self_t.mean(list(range(self_t.dim())), True)
    return self_t.mean(dim, ctx.keepdim)


_var.jvp(lambda ctx, self_t: _var_tangent(ctx, self_t, ctx.result))


@_std.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return std_backward(result, grad, self, ctx.dim, ctx.correction, ctx.keepdim)


_std.jvp(lambda ctx, self_t: _std_tangent(ctx, self_t, ctx.result))


def _with_mean(ctx, gself, gmean):
    if gmean is not None:
        aux = mean_backward(gmean, ctx.self_shape, ctx.dim, ctx.keepdim)
        gself = aux if gself is None else gself + aux
    return gself


@_var_mean.backward
def _(ctx, gvar=None, gmean=None):
    self, = ctx.saved_tensors
    gself = None if gvar is None else var_backward(gvar, self, ctx.dim, ctx.correction,
                                                   ctx.keepdim)
    return _with_mean(ctx, gself, gmean)


_var_mean.jvp(lambda ctx, self_t: (_var_tangent(ctx, self_t, ctx.result[0]),
                                   _mean_tangent(ctx, self_t)))


@_std_mean.backward
def _(ctx, gstd=None, gmean=None):
    self, std = ctx.saved_tensors
    gself = None if gstd is None else std_backward(std, gstd, self, ctx.dim, ctx.correction,
                                                   ctx.keepdim)
    return _with_mean(ctx, gself, gmean)


_std_mean.jvp(lambda ctx, self_t: (_std_tangent(ctx, self_t, ctx.result[0]),
                                   _mean_tangent(ctx, self_t)))


_SIGNATURES = ("Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False{}",
               "Tensor input, tuple of ints dim = None, *, Number correction = None, "
               "bool keepdim = False{}",
               "Tensor input, bool unbiased = True")
_NAMES = ("dim", "unbiased", "keepdim")


def _resolver(name, spec, pair):
    has_out = not pair
    signatures = (_SIGNATURES[0].format(", *, Tensor out = None" if has_out else ""),
                  _SIGNATURES[1].format(", Tensor out = None" if has_out else ""),
                  _SIGNATURES[2])

    def public(input, *args, **kwargs):
        # torch's three overloads, told apart as its argument parser does
        given = dict(zip(_NAMES, args))
        extra = {k: v for k, v in kwargs.items() if k not in given}
        bad = len(args) > 3 or len(extra) < len(kwargs) or \
            any(k not in _NAMES + ("correction",) + (("out",) if has_out else ()) for k in kwargs)
        opts = {**given, **extra}
        out = opts.pop("out", None)
        dim, unbiased = plain_int(opts.get("dim", _NO_DIM)), opts.get("unbiased", _NO_DIM)
        correction = opts.get("correction", _NO_DIM)
        bad = bad or (unbiased is not _NO_DIM and correction is not _NO_DIM) or (
            unbiased is not _NO_DIM and type(unbiased) is not bool)   # (var(x, 0, 1))
        if type(dim) is bool and "dim" in given:   # var(input, unbiased)
            bad = bad or len(opts) > 1
            dim, unbiased = _NO_DIM, dim
        elif dim is not _NO_DIM and dim is not None and not isinstance(dim, (int, tuple, list)):
            bad = True
        if bad:
            raise invalid_arguments(name, (input,) + args, kwargs, signatures)
        if correction is not _NO_DIM:
            c = correction
        elif unbiased is not _NO_DIM:
            c = int(bool(unbiased))
        else:
            c = None if dim is _NO_DIM else 1
        result = spec(input, None if dim is _NO_DIM else dim, correction=c,
                      keepdim=opts.get("keepdim", False))
        if pair:
            return tuple(result)
        return result if out is None else write_out(name, out, result)

    public.__name__ = public.__qualname__ = name
    what = {"var": "variance", "std": "standard deviation"}[name.split("_")[0]]
    public.__doc__ = (f"The {what}{' and the mean' if pair else ''} over ``dim`` (everything "
                      "by default), dividing by ``N - correction`` (``unbiased``: correction 1 "
                      "or 0). Floating and complex inputs only; complex gives a real result.")
    FUNCTIONS[name] = METHODS[name] = public
    if pair:
        del METHODS[name]   # torch has no Tensor.var_mean
    return public


var = _resolver("var", _var, False)
std = _resolver("std", _std, False)
var_mean = _resolver("var_mean", _var_mean, True)
std_mean = _resolver("std_mean", _std_mean, True)


# -- logsumexp -----------------------------------------------------------------------------------
@defop("logsumexp", node="LogsumexpBackward0", promote=Promote.INT_TO_FLOAT,
       variants=("function", "method", "out"), saves=("self", "result"), scalars=())
def logsumexp(xp, self, dim, keepdim=False):
    if dim is None:   # (torch's parser takes no None here: it words the error)
        raise TypeError("logsumexp(): dim None")
    if isinstance(dim, (tuple, list)) and not dim and self.ndim and not keepdim:
        # torch reduces nothing yet writes into a kept-dims output: its error, as it is (with
        # keepdim it reduces every dim)
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"[{', '.join(['1'] * self.ndim)}]")
    axes = _dims(dim, self.ndim)
    x = self.astype(xp.float32) if self.dtype in _npb.LOW else self
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if x.size:
            # subtract the (finite) maximum so that exp cannot overflow: stable at +-1000
            m = xp.max(x.real, axis=axes, keepdims=True)
            m = xp.where(xp.isinf(m), xp.zeros((), m.dtype), m)
        else:
            m = xp.zeros((1,) * x.ndim, x.real.dtype)
        r = xp.log(xp.sum(xp.exp(x - m), axis=axes, keepdims=True)) + m
    if not keepdim:
        r = r.reshape(tuple(s for i, s in enumerate(r.shape)
                            if i not in reduced_axes(dim, self.ndim)))
    return dense(xp, r.astype(self.dtype))


@logsumexp.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    if not ctx.keepdim and self.dim() != 0:
        grad = unsqueeze_multiple(grad, ctx.dim, self.dim())
        result = unsqueeze_multiple(result, ctx.dim, self.dim())
    return grad * conj((self - result).exp())   # d/dx logsumexp = softmax


@logsumexp.jvp
def _(ctx, self_t):   # sum(softmax * t)
    self, result = ctx.saved_tensors
    if not self.numel():
        return result * 0   # -inf * 0: NaN, as torch
    if self.dim() == 0:
        return self_t * (self - result).exp()
    if not ctx.keepdim:
        result = unsqueeze_multiple(result, ctx.dim, self.dim())
    return ((self - result).exp() * self_t).sum(ctx.dim, ctx.keepdim)


FUNCTIONS["special.logsumexp"] = logsumexp
