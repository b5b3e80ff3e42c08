"""Pairwise distances: ``cdist``, ``pdist`` (``nn.functional.pdist``) and ``dist``.

As in ATen:

* ``cdist`` is a composite that picks one of two primitives. The direct kernel
  ``_cdist_forward`` (CdistBackward0) sums ``|a - b| ** p`` column by column. For p = 2 with
  ``use_mm_for_euclid_dist``, or with the default mode when either input has more than 25 rows,
  it takes the matrix-product route instead: ``_euclidean_dist`` (EuclideanDistBackward0) under
  a ``view`` to the output shape, its inputs first expanded to the common batch shape and
  flattened to one batch dim (``expand().contiguous().view()``) unless that batch has one
  element. Empty inputs always take the direct kernel.
* ``pdist`` is ``_pdist_forward(input.contiguous(), p)`` (PdistBackward0): the distances of
  every pair of rows ``i < j``, in row-major order.
* ``dist`` is a primitive (DistBackward0): the p-norm of ``input - other``, broadcast.

Note [Distance gradients are not twice differentiable]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
CdistBackward0 and PdistBackward0 call backward kernels (``_cdist_backward``,
``_pdist_backward``) that torch records as nodes of their own (CdistBackwardBackward0,
PdistBackwardBackward0) with no derivative: differentiating through them raises
NotImplementedError "the derivative for '_cdist_backward' is not implemented.". They are
declared here the same way (no backward formula). ``_euclidean_dist``'s backward is written
with ordinary ops, so that route differentiates twice.

Note [Distance kernels' summation order]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
ATen's cdist kernel adds the columns' terms one after the other in the input's dtype, and
finishes the general p-norm with a double-precision ``pow(sum, 1.0 / p)``. ``_lp_pairs`` keeps
that order (a loop over columns, each step one array operation over every pair), so float32
results agree with torch's to the last bit where NumPy's pairwise summation would not. The
gradient kernels follow ATen's per-element formulas: 0 where the distance is 0 (p = 2 and the
general p), 0 where a coordinate difference is 0 for p < 1, ``sign(diff)`` for p = 1, and for
p = inf the full gradient to every coordinate whose ``|diff|`` equals the distance.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_shapes
from . import _registry
from ._registry import FUNCTIONS, METHODS, OPS, defop
from .arithmetic import _sub_check
from ..autograd.forward_ad import fw_not_implemented
from .linalg import cpp_type_name
from .norms import _vector_norm, norm_backward, norm_jvp
from .padding import _float_arg
from ._arg_parser import type_name as _tp_name

_CHUNK = 1 << 22   # elements of the (pairs, columns) temporaries a gradient pass may hold
_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
          "donot_use_mm_for_euclid_dist": 2}


def _legacy(arr) -> str:
    return D.from_np(arr.dtype)._legacy


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# -- the kernels' arithmetic ----------------------------------------------------------------------
def _pow(xp, x, p):
    """``std::pow`` of float32 values: computed in double and rounded once (NumPy's own float32
    power may be a SIMD approximation a unit in the last place off)."""
    if x.dtype == xp.float32:
        return (x.astype(xp.float64) ** float(p)).astype(xp.float32)
    return x ** p


def _lp_pairs(xp, a, b, p):
    """Distances between the rows of a (..., r1, c) and b (..., r2, c), same dtype and batch:
    (..., r1, r2), summed column by column (Note [Distance kernels' summation order])."""
    dt = a.dtype
    pt = dt.type(p)
    acc = xp.zeros(a.shape[:-1] + (b.shape[-2],), dt)
    one = dt.type(1)
    with xp.errstate(all="ignore"):
        for k in range(a.shape[-1]):
            d = xp.abs(a[..., :, None, k] - b[..., None, :, k])
            if p == 0:
                acc = acc + xp.minimum(xp.ceil(d), one)
            elif p == 1:
                acc = acc + d
            elif p == 2:
                acc = acc + d * d
            elif math.isinf(p):
                acc = xp.where(acc < d, d, acc)          # std::max(acc, d): NaN d is skipped
            else:
                acc = acc + _pow(xp, d, pt)
        if p == 2:
            acc = xp.sqrt(acc)
        elif p != 0 and p != 1 and not math.isinf(p):
            acc = (acc.astype(xp.float64) ** (1.0 / float(pt))).astype(dt)
    return acc


def _pair_grads(xp, diff, grad, dist, p):
    """ATen's per-element backward of one pair's distance: ``diff`` (..., c), ``grad`` and
    ``dist`` broadcast against it."""
    dt = diff.dtype
    pt = dt.type(p)
    zero = dt.type(0)
    with xp.errstate(all="ignore"):
        if p == 1:
            return grad * xp.sign(diff)
        if p < 2:
            r = xp.sign(diff) * xp.abs(diff) ** (pt - 1) * grad / dist ** (pt - 1)
            r = xp.where(dist == 0, zero, r)
            return xp.where(diff == 0, zero, r) if p < 1 else r
        if p == 2:
            return xp.where(dist == 0, zero, grad * diff / dist)
        if math.isinf(p):
            hit = dt.type(1) - xp.minimum(dt.type(1), xp.ceil(xp.abs(xp.abs(diff) - dist)))
            return grad * xp.sign(diff) * hit
        r = diff * xp.abs(diff) ** (pt - 2) * grad / dist ** (pt - 1)
        return xp.where(dist == 0, zero, r)


def _batch_views(xp, x1, x2):
    """(common batch shape, x1 and x2 expanded to it and flattened to (B, rows, cols))."""
    batch = tuple(broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
    n = _prod(batch)
    a = xp.broadcast_to(x1, batch + x1.shape[-2:]).reshape((n,) + x1.shape[-2:])
    b = xp.broadcast_to(x2, batch + x2.shape[-2:]).reshape((n,) + x2.shape[-2:])
    return batch, a, b


def _check_cdist(x1, x2, p):
    """cdist_impl's checks, in its order."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype.kind not in "fV":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_legacy(x)}")
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")


# -- cdist: the direct kernel ---------------------------------------------------------------------
@defop("_cdist_forward", node="CdistBackward0", promote=Promote.NONE, inputs=("x1", "x2"),
       variants=(), saves=("x1", "x2", "result"), kernel_dtypes=True, scalars=())
def _cdist_forward(xp, x1, x2, p, compute_mode=None):
    _check_cdist(x1, x2, p)
    batch = tuple(broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    shape = batch + (r1, r2)
    if r1 == 0 or r2 == 0 or _prod(batch) == 0:
        return xp.empty(shape, x1.dtype)
    if c == 0:
        return xp.zeros(shape, x1.dtype)
    if x1.dtype == D.float16.np:
        raise NotImplementedError("\"cdist\" not implemented for 'Half'")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_legacy(x1)} but found {_legacy(x2)}")
    _, a, b = _batch_views(xp, x1, x2)
    return xp.ascontiguousarray(_lp_pairs(xp, a, b, p).reshape(shape))


@_cdist_forward.backward
def _(ctx, grad):
    x1, x2, result = ctx.saved_tensors
    p = ctx.p
    g1 = g2 = None
    if ctx.needs_input(0):
        g1 = _cdist_backward(grad.contiguous(), x1, x2, result, p)
    if ctx.needs_input(1):
        g2 = _cdist_backward(grad.mT.contiguous(), x2, x1, result.mT.contiguous(), p)
    return g1, g2


@defop("_cdist_backward", node="CdistBackwardBackward0", promote=Promote.NONE,
       inputs=("grad", "x1", "x2", "cdist"), variants=(), kernel_dtypes=True, scalars=())
def _cdist_backward(xp, grad, x1, x2, cdist, p):
    """The gradient for x1, of the batch-expanded shape (the engine sums it back); none of its
    own (Note [Distance gradients are not twice differentiable])."""
    batch, a, b = _batch_views(xp, x1, x2)
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    if r1 == 0 or r2 == 0 or c == 0 or _prod(batch) == 0:
        return xp.zeros(x1.shape, x1.dtype)
    if p == 0:
        return xp.zeros(batch + (r1, c), x1.dtype)
    g = xp.asarray(grad, x1.dtype).reshape(-1, r1, r2, 1)
    dist = xp.asarray(cdist, x1.dtype).reshape(-1, r1, r2, 1)
    out = xp.zeros(a.shape, x1.dtype)
    step = max(1, _CHUNK // (a.size or 1))     # x2's rows per pass: bounded temporaries
    for s in range(0, r2, step):
        part = slice(s, s + step)
        out += _pair_grads(xp, a[:, :, None, :] - b[:, None, part, :], g[:, :, part],
                           dist[:, :, part], p).sum(axis=2)
    return out.reshape(batch + (r1, c))


del OPS[_cdist_backward.name]   # reached through CdistBackward0 only
_cdist_backward.jvp(fw_not_implemented("_cdist_backward"))   # (none in forward mode either)


# -- cdist: the matrix-product route --------------------------------------------------------------
@defop("_euclidean_dist", node="EuclideanDistBackward0", promote=Promote.NONE,
       inputs=("x1", "x2"), variants=(), saves=("x1", "x2", "result"), kernel_dtypes=True,
       scalars=())
def _euclidean_dist(xp, x1, x2):
    """``sqrt(clamp_min([-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T, 0))``, ATen's expansion of
    ``|a - b|^2`` into one matrix product (so rounding can leave a small distance where the
    direct kernel gives 0)."""
    if x1.dtype != x2.dtype:
        if x2.ndim >= 3:   # matmul's batched product, bmm: its naive kernel (under 400
            # multiply-adds a batch) and its BLAS path name the operands in opposite orders
            work = x1.shape[-2] * (x1.shape[-1] + 2) * x2.shape[-2]
            a, b = (x1, x2) if work < 400 else (x2, x1)
            raise RuntimeError(f"expected scalar type {_legacy(a)} but found {_legacy(b)}")
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp_type_name(D.from_np(x1.dtype))} != "
                           f"{cpp_type_name(D.from_np(x2.dtype))}")
    dt = x1.dtype
    work = xp.float32 if dt == D.float16.np else dt   # torch's CPU half product: float sums
    n1 = xp.sum(x1 * x1, axis=-1, keepdims=True)
    n2 = xp.sum(x2 * x2, axis=-1, keepdims=True)
    lhs = xp.concatenate([x1 * dt.type(-2), n1, xp.ones_like(n1)], axis=-1).astype(work)
    rhs = xp.concatenate([x2, xp.ones_like(n2), n2], axis=-1).astype(work)
    with xp.errstate(invalid="ignore"):
        r = xp.matmul(lhs, xp.swapaxes(rhs, -1, -2)).astype(dt)
        r = xp.sqrt(xp.where(r < 0, dt.type(0), r))   # clamp_min_(0): NaN stays NaN
    return xp.ascontiguousarray(r)


@_euclidean_dist.backward
def _(ctx, grad):
    x1, x2, res = ctx.saved_tensors
    ratio = FUNCTIONS["masked_fill"](grad / res, res == 0, 0)   # a 0 subgradient at 0
    g1 = g2 = None
    if ctx.needs_input(0):
        g1 = x1 * ratio.sum(-1, True) - ratio.matmul(x2)
    if ctx.needs_input(1):
        g2 = x2 * ratio.sum(-2, False).unsqueeze(-1) - ratio.mT.matmul(x1)
    return g1, g2


def _euclidean_route(x1, x2):
    """cdist_impl's p = 2 product route: _euclidean_dist under a view to the output shape."""
    _check_cdist(x1._data, x2._data, 2.0)
    batch = tuple(broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    n = _prod(batch)
    if n == 1:
        d = _euclidean_dist(x1, x2)
    else:
        d = _euclidean_dist(x1.expand(batch + (r1, c)).contiguous().view(n, r1, c),
                            x2.expand(batch + (r2, c)).contiguous().view(n, r2, c))
    return d.view(batch + (r1, r2))


# -- cdist ----------------------------------------------------------------------------------------
def _tensor_arg(fname, name, value, pos):
    """A Tensor argument; `pos` None for one given by keyword (torch's message names no
    position then)."""
    if not isinstance(value, _registry._Tensor):
        at = "" if pos is None else f" (position {pos})"
        raise TypeError(f"{fname}(): argument '{name}'{at} must be Tensor, not "
                        f"{_tp_name(value)}")


_REQUIRED = object()


def _float_param(fname, name, value, pos):
    """A float argument (padding's parser); no position in the message for a keyword."""
    try:
        return _float_arg(fname, name, value, pos)
    except TypeError as e:
        if pos is not None:
            raise
        raise TypeError(str(e).replace(" (position None)", "")) from None


def _parse(fname, params, args, kwargs, first=1):
    """torch's argument parser for a builtin: ((value, position or None if by keyword), ...)
    for `params`, ((name, default or _REQUIRED), ...), with its TypeErrors."""
    if len(args) > len(params):
        low = sum(d is _REQUIRED for _, d in params)
        raise TypeError(f"{fname}() takes from {low} to {len(params)} positional arguments but "
                        f"{len(args)} were given")
    kwargs = dict(kwargs)
    out = []
    for i, (name, default) in enumerate(params):
        if i < len(args):
            if name in kwargs:
                raise TypeError(f"{fname}() got multiple values for argument '{name}'")
            out.append((args[i], i + first))
        elif name in kwargs:
            out.append((kwargs.pop(name), None))
        elif default is _REQUIRED:
            raise TypeError(f"{fname}() missing 1 required positional arguments: \"{name}\"")
        else:
            out.append((default, 0))
    if kwargs:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return out


def _cdist(x1, x2, p, mode):
    """ATen's cdist (``_VF.cdist``) with ``compute_mode`` as an int (None, 1 or 2)."""
    _tensor_arg("cdist", "x1", x1, 1)
    _tensor_arg("cdist", "x2", x2, 2)
    p = _float_arg("cdist", "p", p, 3)
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{x.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if x1.numel() and x2.numel() and p == 2 and (
            mode == 1 or (mode is None and (x1.shape[-2] > 25 or x2.shape[-2] > 25))):
        return _euclidean_route(x1, x2)
    return _cdist_forward(x1, x2, p, mode)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` and each row of ``x2``, batched over the
    leading (broadcast) dims: ``(..., r1, c), (..., r2, c) -> (..., r1, r2)``. p = 2 may use the
    matrix-product expansion (``compute_mode``; by default when either has more than 25
    rows)."""
    for name, mode in _MODES.items():
        if compute_mode == name:
            return _cdist(x1, x2, p, mode)
    raise ValueError(f"{compute_mode} is not a valid value for compute_mode")


FUNCTIONS["cdist"] = cdist


# -- pdist ----------------------------------------------------------------------------------------
@defop("_pdist_forward", node="PdistBackward0", promote=Promote.NONE, variants=(),
       saves=("self", "result"), kernel_dtypes=True, scalars=())
def _pdist_forward(xp, self, p=2.0):
    n, m = self.shape
    if n <= 1:
        return xp.empty((0,), self.dtype)
    if m == 0:
        return xp.zeros((n * (n - 1) // 2,), self.dtype)
    if self.dtype == D.float16.np:
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    i, j = xp.triu_indices(n, 1)
    return xp.ascontiguousarray(_lp_pairs(xp, self, self, p)[i, j])


@_pdist_forward.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return _pdist_backward(grad, self, result, ctx.p)


@defop("_pdist_backward", node="PdistBackwardBackward0", promote=Promote.NONE,
       inputs=("grad", "self", "pdist"), variants=(), kernel_dtypes=True, scalars=())
def _pdist_backward(xp, grad, self, pdist, p):
    """Each pair (i, j)'s term added to row i and subtracted from row j; no derivative of its
    own (Note [Distance gradients are not twice differentiable])."""
    n, m = self.shape
    out = xp.zeros(self.shape, self.dtype)
    if n <= 1 or m == 0 or p == 0:
        return out
    rows, cols = xp.triu_indices(n, 1)
    g = xp.asarray(grad, self.dtype)[:, None]
    d = xp.asarray(pdist, self.dtype)[:, None]
    step = max(1, _CHUNK // m)                  # pairs per pass: bounded temporaries
    for s in range(0, rows.size, step):
        i, j = rows[s:s + step], cols[s:s + step]
        terms = _pair_grads(xp, self[i] - self[j], g[s:s + step], d[s:s + step], p)
        xp.add.at(out, i, terms)
        xp.subtract.at(out, j, terms)
    return out


del OPS[_pdist_backward.name]   # reached through PdistBackward0 only
_pdist_backward.jvp(fw_not_implemented("_pdist_backward"))


def pdist(*args, **kwargs):
    """``pdist(input, p=2)``: the p-norm distance between every pair of rows ``i < j`` of a 2-D
    ``input``, as one vector of ``n (n - 1) / 2`` values in row-major pair order."""
    (input, at_input), (p, at_p) = _parse("pdist", (("input", _REQUIRED), ("p", 2)), args,
                                          kwargs)
    _tensor_arg("pdist", "input", input, at_input)
    p = _float_param("pdist", "p", p, at_p)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _pdist_forward(input.contiguous(), p)


FUNCTIONS["pdist"] = FUNCTIONS["nn.functional.pdist"] = pdist


# -- dist -----------------------------------------------------------------------------------------
@defop("dist", node="DistBackward0", inputs=("self", "other"), variants=(),
       saves=("self", "other", "result"), kernel_dtypes=True, scalars=())
def _dist(xp, self, other, p=2):
    """The p-norm of ``self - other`` (broadcast) over every element; a real result."""
    with xp.errstate(over="ignore"):
        diff = self - other
    if diff.dtype.kind not in "fcV":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_legacy(diff)} instead.")
    if isinstance(p, complex):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order of "
                           "norm.")
    return _vector_norm.kernel(xp, diff, int(p) if type(p) is bool else p)


@_dist.backward
def _(ctx, grad):
    self, other, result = ctx.saved_tensors
    g = norm_backward(grad, self - other, ctx.p, result, [], False)
    if g is None:   # p = 0: no gradient; torch negates it for `other`, which raises
        if ctx.needs_input(1):
            raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor "
                               "in C++) for argument #0 'self'")
        return None, None
    return (g if ctx.needs_input(0) else None), (-g if ctx.needs_input(1) else None)


@_dist.jvp
def _(ctx, self_t, other_t):
    self, other, result = ctx.saved_tensors
    return norm_jvp(self_t - other_t, self - other, ctx.p, result, [], False)


def _number_arg(value, pos):
    """torch's Number parameter: a Python number or a 0-dim tensor."""
    if isinstance(value, _registry._Tensor) and value.dim() == 0:
        return value.item()
    if isinstance(value, (bool, int, float, complex)):
        return value
    at = "" if pos is None else f" (position {pos})"
    raise TypeError(f"dist(): argument 'p'{at} must be Number, not {type(value).__name__}")


def _dist_call(input, rest):
    (other, at_other), (p, at_p) = rest
    _tensor_arg("dist", "other", other, at_other)
    p = _number_arg(p, at_p)
    _sub_check(input, other)
    return _dist(input, other, p)


def dist(*args, **kwargs):
    """``dist(input, other, p=2)``: ``linalg.vector_norm(input - other, p)`` with the inputs
    broadcast, as one primitive."""
    (input, at), *rest = _parse("dist", (("input", _REQUIRED), ("other", _REQUIRED),
                                         ("p", 2)), args, kwargs)
    _tensor_arg("dist", "input", input, at)
    return _dist_call(input, rest)


def _dist_method(self, *args, **kwargs):
    return _dist_call(self, _parse("dist", (("other", _REQUIRED), ("p", 2)), args, kwargs))


FUNCTIONS["dist"] = dist
METHODS["dist"] = _dist_method
