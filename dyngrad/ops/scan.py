"""Scans along one dim: cumsum, cumprod, logcumsumexp, cummax, cummin, and their derivatives.

Note [Accumulating scans]
~~~~~~~~~~~~~~~~~~~~~~~~~
torch's CPU scans keep the running value in the accumulation type (``acc_type``: double for
float, float for half, complex<double> for complex<float>, int64 for integers) and round each
partial result to the output dtype. NumPy's ``accumulate`` also runs left to right, so computing
in the wider dtype and casting gives torch's bits: the float32 ``cumsum`` of [1e8, 1, -1e8] is
[1e8, 1e8, 1], not [1e8, 1e8, 0]. ``dtype=`` (or an ``out=`` tensor) casts the input first.

cummax and cummin return (values, indices): see Note [Values selected by indices] in
_selection.py.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .. import return_types
from .._promotion import Promote
from .._utils import canonical_dim
from ..autograd import grad_mode as _gm
from ..backends import numpy_backend as _npb
from . import _dispatch
from ._geometry import _numel
from ._registry import FUNCTIONS, METHODS, defop
from ..autograd.forward_ad import AUTO_LINEAR, FROM_BACKWARD
from ._selection import (check_no_grad_out, contiguous, gather_along, scalar_type_check,
                         scatter_grad, structured_out_check, wrap_plain, write_out, write_outs)
from .linalg import cpp_type_name
from .pointwise import _not_implemented, _require_tensor, _warn_once
from .reduction import _COMPLEX_TO_REAL

_xp = _npb.xp


def _conj(t):
    return t.conj() if t.is_complex() else t


def flip(t, dim):
    return FUNCTIONS["flip"](t, (dim,))


def reversed_cumsum(t, dim):
    """torch's reversed_cumsum: sums from each position to the end of the lane."""
    return flip(cumsum(flip(t, dim), dim), dim)


# ---------------------------------------------------------------------------------------------
# cumsum / cumprod
# ---------------------------------------------------------------------------------------------
_ACC = {"float16": "float32", "bfloat16": "float32", "float32": "float64",
        "complex64": "complex128"}


def _accumulate(xp, ufunc, x, dim, dtype, kernel_name):
    """torch's cumulative kernel (see Note [Accumulating scans])."""
    d = canonical_dim(dim, x.ndim)
    if dtype is not None and x.dtype != dtype.np:
        if x.dtype.kind == "c" and not dtype.is_complex:
            _warn_once(_COMPLEX_TO_REAL)
            x = xp.real(x)
        x = x.astype(dtype.np)
    if x.ndim == 0:
        return x.copy()
    if x.dtype.kind == "b" and x.size:
        raise _not_implemented(kernel_name, x.dtype)
    acc = _ACC.get(x.dtype.name, "int64" if x.dtype.kind in "iu" else x.dtype.name)
    out = ufunc.accumulate(x, axis=d, dtype=acc)
    return contiguous(out.astype(x.dtype, copy=False))


@defop("cumsum", node="CumsumBackward0", promote=Promote.SUM_TO_LONG, variants=(), scalars=())
def _cumsum(xp, self, dim, *, dtype=None):
    return _accumulate(xp, xp.add, self, dim, dtype, "cumsum_out_cpu")


@_cumsum.backward
def _(ctx, grad):
    sizes = ctx.self_shape
    grad = grad.to(ctx.self_dtype)
    if _numel(sizes) <= 1 or sizes[canonical_dim(ctx.dim, len(sizes))] == 1:
        return grad
    return reversed_cumsum(grad, canonical_dim(ctx.dim, len(sizes)))


_cumsum.jvp(AUTO_LINEAR)


@defop("cumprod", node="CumprodBackward0", promote=Promote.SUM_TO_LONG, variants=(),
       scalars=(), saves=("self", "result"))
def _cumprod(xp, self, dim, *, dtype=None):
    return _accumulate(xp, xp.multiply, self, dim, dtype, "cumprod_out_cpu")


@_cumprod.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    sizes = tuple(self.shape)
    grad = grad.to(self.dtype)
    if _numel(sizes) <= 1:
        return grad
    d = canonical_dim(ctx.dim, len(sizes))
    if sizes[d] == 1:
        return grad
    # d/dx_i of y_k = prod_{j<=k} x_j is prod_{j<=k, j!=i} x_j (k >= i); with no zero in x
    # that is y_k / x_i, so the gradient is reversed_cumsum(y * grad) / x, as torch computes it
    # (complex inputs: the map is holomorphic, so conjugated input and output, as torch)
    self, result = _conj(self), _conj(result)
    is_zero = self == 0
    if not bool(is_zero.sum()):
        return reversed_cumsum(result * grad, d) / self
    if _gm._state.grad_enabled:
        return _cumprod_grad_with_zeros(grad, self, d)
    return _cumprod_grad_first_zero(grad, self, d, result, is_zero)


_cumprod.jvp(FROM_BACKWARD)


def _cumprod_grad_first_zero(grad, x, d, result, is_zero):
    """torch's O(n) cumprod gradient for inputs with zeros (used without create_graph): before
    the first zero z1 the y / x formula on the masked lane; at z1, prod(x[:z1]) times the
    gradient of the cumprod of x(z1, z2); zero after it. See torch's cumprod_backward."""
    where = FUNCTIONS["where"]
    zeros_seen = is_zero.cumsum(d)
    before = zeros_seen == 0
    grad_input = where(before, reversed_cumsum(where(before, result * grad, 0.0), d) / x, 0.0)
    first_zero = is_zero & (zeros_seen == 1)
    between = (zeros_seen == 1) & ~first_zero
    n = x.shape[d]
    # prod(x[:z1]) as the cumprod leaves it at z1 - 1 (1 when z1 == 0)
    prefix = cumprod(where(before, x, 1.0), d).narrow(d, n - 1, 1)
    at_zero = (cumprod(where(between, x, 1.0), d) * where(zeros_seen == 1, grad, 0.0)).sum(
        d, keepdim=True) * prefix
    return where(first_zero, at_zero, grad_input)


def _cumprod_grad_with_zeros(grad, x, d):
    """The cumprod gradient when x has zeros, differentiable (torch too switches to an O(n^2)
    formula under create_graph): for each i, the cumprod of x with x_i set to 1 gives
    prod_{j<=k, j!=i} x_j, summed against grad_k over k >= i."""
    where, arange, eye = FUNCTIONS["where"], FUNCTIONS["arange"], FUNCTIONS["eye"]
    xm, gm = x.movedim(d, -1), grad.movedim(d, -1)
    n = xm.shape[-1]
    omitted = where(eye(n, dtype=D.bool_), 1.0, xm.unsqueeze(-2))    # [..., i, k]
    partial = cumprod(omitted, -1)
    upper = arange(n).unsqueeze(-1) <= arange(n)                     # k >= i
    terms = where(upper, partial * gm.unsqueeze(-2), 0.0)
    return terms.sum(-1).movedim(-1, d)


def _cum_public(spec, name):
    def fn(input, dim, *, dtype=None, out=None):
        _require_tensor(name, input)
        if out is None:
            return spec(input, dim, dtype=dtype) if dtype is not None else spec(input, dim)
        check_no_grad_out(name, input)
        if dtype is not None:
            structured_out_check(dtype, out)
        _dispatch.check_out_overlap(out, (input,), "partial")   # (Note [out= and memory
        result = spec(input, dim, dtype=out.dtype)   # overlap]; out's dtype decides the op's)
        write_out(out, result)
        return out

    def method(self, dim, *, dtype=None):
        return fn(self, dim, dtype=dtype)

    def inplace(self, dim, *, dtype=None):
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {cpp_type_name(self.dtype)}"
                               f" and output tensor dtype {cpp_type_name(dtype)} should match")
        return spec.call_inplace(self, dim, dtype=self.dtype)   # the result keeps self's dtype

    fn.__name__ = name
    fn.__doc__ = (f"Cumulative {'sum' if name == 'cumsum' else 'product'} of ``input`` along "
                  "``dim`` (in the dtype ``dtype`` when given).")
    return fn, method, inplace


cumsum, _cumsum_method, cumsum_ = _cum_public(_cumsum, "cumsum")
cumprod, _cumprod_method, cumprod_ = _cum_public(_cumprod, "cumprod")


# ---------------------------------------------------------------------------------------------
# logcumsumexp
# ---------------------------------------------------------------------------------------------
def _log_add_exp_complex(xp, x, y):
    """torch's complex ``_log_add_exp_helper`` (NaN-infectious; equal infinities kept)."""
    nan_x = xp.isnan(x.real) | xp.isnan(x.imag)
    nan_y = xp.isnan(y.real) | xp.isnan(y.imag)
    y_smaller = y.real < x.real
    lo = xp.where(nan_y, y, xp.where(nan_x, x, xp.where(y_smaller, y, x)))
    hi = xp.where(nan_y, y, xp.where(nan_x, x, xp.where(y_smaller, x, y)))
    out = xp.log1p(xp.exp(lo - hi)) + hi
    both_inf = ~xp.isfinite(lo.real) & (lo.real == hi.real)
    out = xp.where(both_inf & (lo.real < 0), lo, out)
    out = xp.where(both_inf & (lo.real > 0), xp.log(xp.exp(lo) + xp.exp(hi)), out)
    nan = xp.isnan(lo.real) | xp.isnan(lo.imag)
    return xp.where(nan, complex(float("nan"), float("nan")), out)


@defop("logcumsumexp", node="LogcumsumexpBackward0", promote=Promote.NONE, variants=(),
       scalars=(), saves=("self", "result"))
def _logcumsumexp(xp, self, dim):
    d = canonical_dim(dim, self.ndim)
    if self.dtype.kind not in "fcV":
        raise _not_implemented("logcumsumexp_out_cpu", self.dtype)
    if self.ndim == 0:
        return self.copy()
    acc = self.astype(_ACC.get(self.dtype.name, self.dtype.name))
    if acc.dtype.kind in "fV":   # NumPy's logaddexp is torch's helper (log1p(exp(min-max))+max)
        out = xp.logaddexp.accumulate(acc, axis=d)
    else:
        moved = xp.moveaxis(acc, d, 0)
        out = xp.empty_like(moved)
        running = xp.full(moved.shape[1:], complex(-float("inf"), 0), acc.dtype)
        for i in range(moved.shape[0]):
            running = out[i] = _log_add_exp_complex(xp, moved[i], running)
        out = xp.moveaxis(out, 0, d)
    return contiguous(out.astype(self.dtype, copy=False))


@_logcumsumexp.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    if grad.dim() == 0 or not grad.numel():
        return grad
    d = canonical_dim(ctx.dim, grad.dim())
    where = FUNCTIONS["where"]
    # torch's formula (after TensorFlow's): the positive and negative parts of grad in log
    # space, each pushed through a reversed logcumsumexp
    def reverse_lcse(t):
        return flip(logcumsumexp(flip(t, d), d), d)

    if grad.is_complex():     # no sign to split: the log of a complex number carries it
        return _conj((reverse_lcse(_conj(grad).log() - result) + self).exp())
    lowest = D.finfo(grad.dtype).min
    log_abs_grad = grad.abs().log()
    log_pos = where(grad > 0, log_abs_grad, lowest)
    log_neg = where(grad < 0, log_abs_grad, lowest)
    return (reverse_lcse(log_pos - result) + self).exp() - \
        (reverse_lcse(log_neg - result) + self).exp()


@_logcumsumexp.jvp
def _(ctx, self_t):   # sum_{i<=j} t_i exp(x_i - result_j), summed in log space for stability
    self, result = ctx.saved_tensors
    if self.dim() == 0 or not self.numel():
        return self_t.clone()
    d = canonical_dim(ctx.dim, self.dim())
    where = FUNCTIONS["where"]
    if self_t.is_complex():   # the log of a complex tangent carries its sign (its phase)
        log_t = where(self_t == 0, 1.0, self_t).log()
        log_t = where(self_t == 0, complex(-math.inf, 0.0), log_t)
        terms = (logcumsumexp(self + log_t, d) - result).exp()
        return where(result == -math.inf, 0.0, terms)
    parts = []   # real: each sign's part on its own
    for part in (where(self_t > 0, self_t, 0.0), where(self_t < 0, -self_t, 0.0)):
        log_part = where(part > 0, part, 1.0).log()
        log_part = where(part > 0, log_part, -math.inf)
        parts.append((logcumsumexp(self + log_part, d) - result).exp())
    return where(result == -math.inf, 0.0, parts[0] - parts[1])   # only -inf so far: 0


def logcumsumexp(input, dim, *, out=None):
    """log(cumsum(exp(input))) along ``dim``, computed stably."""
    _require_tensor("logcumsumexp", input)
    if out is None:
        return _logcumsumexp(input, dim)
    check_no_grad_out("logcumsumexp", input)
    if out.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar_type {input.dtype._legacy} but found "
                           f"{out.dtype._legacy}")
    _dispatch.check_out_overlap(out, (input,), "partial")   # (Note [out= and memory overlap])
    write_out(out, _logcumsumexp(input, dim))
    return out


# ---------------------------------------------------------------------------------------------
# cummax / cummin (see Note [Values selected by indices])
# ---------------------------------------------------------------------------------------------
def _cum_extreme_indices(x, dim, name):
    """torch's cummax/cummin index: the last position where the running extreme was reached
    (``>=``/``<=`` update), or the last NaN once a NaN has been seen."""
    arr = x._data
    kind = "max" if name == "cummax" else "min"
    if arr.dtype.kind == "c":
        raise _not_implemented(f"{name}_cpu", arr.dtype)
    if arr.ndim == 0:
        if dim not in (0, -1):
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        return wrap_plain(_xp.zeros((), _xp.int64))
    d = canonical_dim(dim, arr.ndim)
    out = _xp.zeros(arr.shape, _xp.int64)
    if arr.size:
        ufunc = _xp.maximum if kind == "max" else _xp.minimum
        running = ufunc.accumulate(arr, axis=d)    # NaN-propagating, as torch's scan
        updated = arr == running
        if arr.dtype.kind in "fV":
            updated |= _xp.isnan(arr)
        shape = [1] * arr.ndim
        shape[d] = arr.shape[d]
        positions = _xp.arange(arr.shape[d]).reshape(shape)
        out[...] = _xp.maximum.accumulate(_xp.where(updated, positions, 0), axis=d)
    return wrap_plain(out)


def _cum_extreme_op(name, node):
    @defop(name, node=node, promote=Promote.NONE, inputs=("self", "indices"),
           differentiable=("self",), saves=("self", "indices"), variants=(), scalars=())
    def kernel(xp, self, indices, dim):
        return gather_along(xp, self, indices, dim)

    @kernel.backward
    def _(ctx, grad):
        self, indices = ctx.saved_tensors
        if not self.numel():
            return grad
        return scatter_grad(grad, ctx.dim, indices, self.shape, accumulate=True)

    kernel.jvp(AUTO_LINEAR)   # the tangent gathered at the running extremum's indices

    check = scalar_type_check(("expected scalar_type {want._legacy} but found {got._legacy}",
                               "expected scalar_type {want._legacy} but found {got._legacy}"))

    def fn(input, dim, *, out=None):
        _require_tensor(name, input)
        indices = _cum_extreme_indices(input, dim, name)
        values = kernel(input, indices, dim)
        if out is not None:
            check_no_grad_out(name, input)
            return write_outs(name, out, values, indices, check(input.dtype))
        return getattr(return_types, name)((values, indices))

    fn.__name__ = name
    fn.__doc__ = (f"Running {name[3:]}imum of ``input`` along ``dim`` and the index where it "
                  f"was last reached: ``({name[3:]}_values, indices)``.")
    return kernel, fn


_cummax, cummax = _cum_extreme_op("cummax", "CummaxBackward0")
_cummin, cummin = _cum_extreme_op("cummin", "CumminBackward0")


for _name, _fn in (("cumsum", cumsum), ("cumprod", cumprod), ("logcumsumexp", logcumsumexp),
                   ("cummax", cummax), ("cummin", cummin)):
    FUNCTIONS[_name] = _fn
    METHODS[_name] = _fn
METHODS["cumsum"], METHODS["cumprod"] = _cumsum_method, _cumprod_method
METHODS["cumsum_"], METHODS["cumprod_"] = cumsum_, cumprod_
