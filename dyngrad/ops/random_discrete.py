"""Discrete samplers: ``poisson`` and ``binomial`` (torch's ``_s_poisson_cpu`` and
``_s_binomial_cpu``).

Both walk the output element by element (C order: torch allocates a contiguous result and its
serial kernel visits it in memory order) and draw 53-bit uniforms from the generator one at a
time, as torch's ``uniform_real_distribution<double>(0, 1)`` does, so the same seed gives
torch's samples:

- poisson: a rate below 10 multiplies uniforms until the product falls to ``exp(-rate)``
  (Knuth); a rate of 10 or more uses Hörmann's transformed rejection (PTRS), two uniforms per
  try.
- binomial: ``n * p < 10`` (with ``p`` folded to ``min(p, 1 - p)``) sums geometric waiting
  times (inversion); larger means use Hörmann's BTRS with the Stirling tail table. The
  float32 kernel does some products in single precision, as torch's ``scalar_t`` does.

Neither has a useful derivative: poisson's is zero (``PoissonBackward0``), binomial's node
raises torch's "not implemented" error.

Differences from torch: the rejection tests call Python's ``math.lgamma``/``math.log1p``; a
result that differs from the C library's in the last bit could flip an accept on an exact tie,
which we have not seen happen.
"""
from __future__ import annotations

import math

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import broadcast_shapes
from ..backends import numpy_backend as _npb
from .creation import check_tensor_arg, zeros_like
from .random import numpy_generator as _gen
from ._registry import FUNCTIONS, defop
from ._selection import resized_warning
from ..autograd.forward_ad import AUTO_ELEMENT_WISE, fw_not_implemented

xp = _npb.xp
_M53 = 2 ** 53 - 1
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _uniform(g) -> float:
    """One draw of torch's uniform_real_distribution<double>(0, 1)."""
    return float(int(g.words64(1)[0]) & _M53) * 2.0 ** -53


def _poisson_one(g, lam: float) -> int:
    if not lam >= 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if lam >= 10:   # transformed rejection (Hörmann 1993)
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform(g) - 0.5
            v = _uniform(g)
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam, x, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= _uniform(g)
        if prod > enlam:
            x += 1
        else:
            return x


def _stirling_tail(k: float) -> float:
    """log(k!) minus its Stirling approximation: a table up to 9, a series above."""
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


class _Scalar:
    """Arithmetic of torch's ``scalar_t``: float32 rounds each result, float64 is Python's."""

    def __init__(self, np_dtype):
        self.f = (lambda x: float(xp.float32(x))) if np_dtype == xp.float32 else float
        self.log1p = ((lambda x: float(xp.log1p(xp.float32(x)))) if np_dtype == xp.float32
                      else math.log1p)
        self.sqrt = ((lambda x: float(xp.sqrt(xp.float32(x)))) if np_dtype == xp.float32
                     else math.sqrt)


def _binomial_inversion(g, s: _Scalar, count: float, prob: float) -> float:
    logprob = s.log1p(-prob)
    geom_sum, num_geom = 0.0, 0.0
    while True:
        geom_sum += math.ceil(math.log(_uniform(g)) / logprob)
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(g, s: _Scalar, count: float, prob: float) -> float:
    f = s.f
    stddev = s.sqrt(f(f(count * prob) * f(1 - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = f(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = f(prob / f(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(f(f(count + 1) * prob))
    while True:
        u = _uniform(g) - 0.5
        v = _uniform(g)
        us = 0.5 - abs(u)
        k = f(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + f(count + 1) * math.log((count - m + 1) / f(count - k + 1))
                 + (k + 0.5) * math.log(r * f(count - k + 1) / f(k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(f(count - k)))
        if v <= upper:
            return k


def _binomial_one(g, s: _Scalar, count: float, prob: float) -> float:
    f = s.f
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if f(count * prob) >= 10.0:
            return _btrs(g, s, count, prob)
        return _binomial_inversion(g, s, count, prob)
    if prob > 0.5:
        q = f(1.0 - prob)
        if f(count * q) >= 10.0:
            return f(count - _btrs(g, s, count, q))
        return f(count - _binomial_inversion(g, s, count, q))
    return math.nan


def _not_implemented(fname, dt):
    return NotImplementedError(f"\"{fname}\" not implemented for '{D.from_np(dt)._legacy}'")


@defop("poisson", node="PoissonBackward0", promote=Promote.NONE, variants=(), public="poisson")
def poisson_op(xp, self, generator=None):
    if self.dtype.kind not in "fV":
        raise _not_implemented("poisson_cpu", self.dtype)
    g = _gen(generator)
    flat = xp.ascontiguousarray(self).ravel().astype(xp.float64)
    out = xp.array([_poisson_one(g, float(lam)) for lam in flat.tolist()], dtype=xp.float64)
    return out.astype(self.dtype).reshape(self.shape)


@poisson_op.backward
def _(ctx, grad):
    return (zeros_like(grad),)   # torch: zeros_like(self)


@defop("binomial", node="NotImplemented", promote=Promote.NONE, inputs=("count", "prob"),
       variants=(), public="binomial")
def binomial_op(xp, count, prob, generator=None):
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {D.from_np(prob.dtype)._legacy} but expected "
                           f"{D.from_np(count.dtype)._legacy}")
    if count.dtype not in (xp.float32, xp.float64):
        raise _not_implemented("binomial_cpu", count.dtype)
    shape = tuple(broadcast_shapes(count.shape, prob.shape))
    if shape != count.shape and count.size:
        resized_warning(count.shape, shape)
    g = _gen(generator)
    s = _Scalar(count.dtype)
    cs = xp.broadcast_to(count, shape).ravel().tolist()
    ps = xp.broadcast_to(prob, shape).ravel().tolist()
    out = [_binomial_one(g, s, float(c), float(p)) for c, p in zip(cs, ps)]
    return xp.array(out, dtype=xp.float64).astype(count.dtype).reshape(shape)


@binomial_op.backward
def _(ctx, grad):
    raise RuntimeError("derivative for aten::binomial is not implemented")


def poisson(input, generator=None):
    """Sample ``Poisson(input)`` elementwise (non-negative floating rates); the result has
    `input`'s dtype and shape, contiguous, and a zero gradient.

    Example::

        >>> dyngrad.manual_seed(0); dyngrad.poisson(dyngrad.tensor([1.0, 20.0]))
    """
    check_tensor_arg("poisson", input)
    return poisson_op(input, generator=generator)


def binomial(count, prob, generator=None):
    """Sample ``Binomial(count, prob)`` elementwise (floating tensors of one dtype, `prob`
    broadcast to `count`'s shape). Not differentiable (its node raises on backward, as
    torch's)."""
    check_tensor_arg("binomial", count, "count", 1)
    check_tensor_arg("binomial", prob, "prob", 2)
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{t.dtype._legacy}")
    return binomial_op(count, prob, generator=generator)


poisson_op.jvp(AUTO_ELEMENT_WISE)   # zero tangents, as torch's
binomial_op.jvp(fw_not_implemented("aten::binomial", short=True))

FUNCTIONS["poisson"] = poisson
FUNCTIONS["binomial"] = binomial
