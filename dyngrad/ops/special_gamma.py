"""The regularized incomplete gamma functions ``igamma`` (P(a, x), also ``special.gammainc``)
and ``igammac`` (Q(a, x) = 1 - P, also ``special.gammaincc``), and the Hurwitz zeta function
``special.zeta(x, q)``.

igamma and igammac take two tensors of a floating dtype (integer and bool inputs raise torch's
"igamma_cpu" error: there is no promotion to float), with function, method, in-place and
``out=`` forms. Their derivative exists for ``other`` (x) only:
dP/dx = x^(a-1) e^-x / Gamma(a) = -dQ/dx; backward asking for ``self`` (a) raises torch's
"the derivative for 'igamma: input' is not implemented.".

special.zeta has torch's three overloads (Tensor-Tensor, Number-Tensor, Tensor-Number, nodes
SpecialZetaBackward0/1/2); integers compute in the default float dtype, float16 is rejected.
Only q has a derivative: d/dq zeta(x, q) = -x zeta(x + 1, q).

Note [Incomplete gamma kernel]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
As Cephes (and torch): P by its power series while x <= max(a, 1), Q by its continued fraction
(Cephes' igamc recurrence, rescaled when it grows) otherwise, the other one as the complement;
for small x (below 1.1) Q uses the series of Gamma(a, x) (torch's ``_igamc_helper_series``),
accurate where Q is close to 1 for tiny a. torch switches to Temme's uniform asymptotic
expansion for a > 20 near the transition x ~ a; we keep iterating instead (about 8 sqrt(a)
steps, on the elements still converging only) up to a = 1e5, and use Temme's expansion
Q = erfc(eta sqrt(a/2)) / 2 + exp(-a eta^2 / 2) / sqrt(2 pi a) (C0(eta) + C1(eta) / a) beyond
(with eta^2 / 2 = lambda - 1 - log(lambda), lambda = x / a, and the Taylor series of C0 and C1
near eta = 0); the two agree to 3e-13 at the switch. The prefactor x^a e^-x / Gamma(a) is
exp(a log x - x - lgamma(a)) for a < 10 and, from 10 on, Stirling's form
exp(a (log1p(t) - t) + log(a) / 2 - log(2 pi) / 2 - c(a)) with t = (x - a) / a, log1p(t) - t
summed as a series near t = 0, so that nothing cancels for large a. Everything runs in float64,
cast to the result dtype. (torch's own values drift from the exact ones: ~2e-9 relative for
a > 20, up to percents in the tails for a ~ 1e7, and float32 ones carry float's rounding: the
tests measure the agreement range by range.)
"""
from __future__ import annotations

import math

from .._promotion import Promote
from ..backends import special_math as _sm
from ._registry import FUNCTIONS, INPLACE, METHODS, defop
from ..autograd.forward_ad import fw_not_implemented
from .binary import _binary_family
from .pointwise import _call, _dtype, _not_implemented, _tensor_cls, exp, log
from .unary import lgamma
from ._arg_parser import type_name as _tp_name

_MACHEP = 1.11022302462515654042e-16


def _polynomial(coeffs, t):
    """sum coeffs[k] t^k (Horner)."""
    acc = 0.0 * t
    for c in reversed(coeffs):
        acc = acc * t + c
    return acc


_BIG = 4.503599627370496e15
_BIGINV = 2.22044604925031308085e-16
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _log1p_minus(xp, t):
    """log1p(t) - t without the cancellation near t = 0 (series below |t| = 1/4)."""
    small = xp.clip(t, -0.25, 0.25)
    series = _polynomial([(-1.0) ** (k + 1) / k for k in range(2, 32)], small) * small * small
    return xp.where(xp.abs(t) < 0.25, series, xp.log1p(t) - t)


def _log_prefactor(xp, a, x):
    """log(x^a e^-x / Gamma(a)) for a > 0, x > 0 (See Note [Incomplete gamma kernel])."""
    direct = a * xp.log(x) - x - _sm.lgamma(a)
    big = xp.maximum(a, 10.0)
    inv = 1.0 / big
    corr = xp.zeros_like(big)
    for c in reversed(_sm._STIRLING):
        corr = corr * inv * inv + c
    t = (x - big) / big
    log_ratio_minus_t = xp.where(xp.abs(t) < 0.5, _log1p_minus(xp, t),
                                 xp.log(x) - xp.log(big) - t)   # log(x / a) - t
    stirling = big * log_ratio_minus_t + 0.5 * xp.log(big) - _HALF_LOG_2PI - corr * inv
    return xp.where(a < 10.0, direct, stirling)


def _iterate(xp, step, state, limit=200000):
    """Run ``step(state) -> (state, done)`` on 1-d arrays until each element is done, on the
    elements still going only; returns the final state."""
    state = [s.copy() for s in state]
    live = xp.arange(state[0].shape[0])
    current = list(state)
    for _ in range(limit):
        if live.shape[0] == 0:
            break
        current, done = step(current)
        finished = live[done]
        for full, part in zip(state, current):
            full[finished] = part[done]
        keep = ~done
        live = live[keep]
        current = [c[keep] for c in current]
    for full, part in zip(state, current):
        full[live] = part
    return state


def _p_series(xp, a, x):
    """P(a, x) by sum x^n / ((a+1)...(a+n)) (Cephes igam_series)."""
    def step(s):
        a_, x_, r, c, ans = s
        r = r + 1.0
        c = c * x_ / r
        ans = ans + c
        return [a_, x_, r, c, ans], ~(c > _MACHEP * ans)
    one = xp.ones_like(a)
    ans = _iterate(xp, step, [a, x, a.copy(), one, one.copy()])[4]
    return ans * xp.exp(_log_prefactor(xp, a, x)) / a


def _q_fraction(xp, a, x):
    """Q(a, x) by Cephes' continued fraction (x >= 1 and x > a)."""
    y = 1.0 - a
    z = x + y + 1.0
    c = xp.zeros_like(a)
    pkm2 = xp.ones_like(a)
    qkm2 = x.copy()
    pkm1 = x + 1.0
    qkm1 = z * x

    def step(s):
        y, z, c, pkm2, qkm2, pkm1, qkm1, ans = s
        c = c + 1.0
        y = y + 1.0
        z = z + 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nonzero = qk != 0
        r = pk / xp.where(nonzero, qk, 1.0)
        t = xp.where(nonzero, xp.abs((ans - r) / xp.where(r == 0, 1.0, r)), 1.0)
        ans = xp.where(nonzero, r, ans)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        scale = xp.where(xp.abs(pk) > _BIG, _BIGINV, 1.0)
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        return [y, z, c, pkm2, qkm2, pkm1, qkm1, ans], t <= _MACHEP
    ans = _iterate(xp, step, [y, z, c, pkm2, qkm2, pkm1, qkm1, pkm1 / qkm1])[7]
    return ans * xp.exp(_log_prefactor(xp, a, x))


def _lgamma1p(xp, a):
    """lgamma(1 + a), accurate relative to its size for small |a| as well."""
    near = _sm._lgamma_near2(xp.clip(a, -0.5, 0.5)) - xp.log1p(a)
    return xp.where(xp.abs(a) <= 0.5, near, _sm.lgamma(1.0 + a))


def _q_small_x(xp, a, x):
    """Q(a, x) for small x from the series of Gamma(a, x) (torch's _igamc_helper_series)."""
    def step(s):
        a_, x_, n, fac, total = s
        n = n + 1.0
        fac = fac * -x_ / n
        term = fac / (a_ + n)
        total = total + term
        return [a_, x_, n, fac, total], ~(xp.abs(term) > _MACHEP * xp.abs(total))
    zero = xp.zeros_like(a)
    total = _iterate(xp, step, [a, x, zero, xp.ones_like(a), zero.copy()], limit=2000)[4]
    log_x = xp.log(x)
    return -xp.expm1(a * log_x - _lgamma1p(xp, a)) - xp.exp(a * log_x - _sm.lgamma(a)) * total


# Taylor coefficients in eta of Temme's C0 and C1 (See Note [Incomplete gamma kernel])
_C0_SERIES = (-1 / 3, 1 / 12, -2 / 135, 1 / 864, 1 / 2835, -139 / 777600, 1 / 25515)
_C1_SERIES = (-1 / 540, -1 / 288, 1 / 378, -9.9022633744855967e-4, 2.0576131687242798e-4)
_TEMME_FROM = 1e5


def _temme(xp, a, x, upper):
    """P (Q when `upper`) for large a by Temme's uniform expansion to the 1/a term."""
    d = (x - a) / a   # lambda - 1 (x - a is exact near x = a)
    eta = xp.sign(d) * xp.sqrt(-2.0 * _log1p_minus(xp, d))
    near = xp.abs(eta) < 0.1
    far_eta = xp.where(near, 1.0, eta)
    far_d = xp.where(near, 1.0, d)
    c0 = xp.where(near, _polynomial(_C0_SERIES, eta), 1.0 / far_d - 1.0 / far_eta)
    c1 = xp.where(near, _polynomial(_C1_SERIES, eta),
                  1.0 / far_eta ** 3 - 1.0 / far_d ** 3 - 1.0 / far_d ** 2 - 1.0 / (12.0 * far_d))
    tail = xp.exp(-0.5 * a * eta * eta) / xp.sqrt(2.0 * math.pi * a) * (c0 + c1 / a)
    root = eta * xp.sqrt(a / 2.0)
    return 0.5 * _sm.erfc(root) + tail if upper else 0.5 * _sm.erfc(-root) - tail


def _regularized(xp, a, x, upper):
    """P(a, x) (Q(a, x) when `upper`) elementwise in float64, torch's values at the edges."""
    a, x = xp.broadcast_arrays(a.astype(xp.float64), x.astype(xp.float64))
    shape = a.shape
    a, x = a.reshape(-1), x.reshape(-1)
    # torch's cases in its order: a or x < 0; a == 0; x == 0; a = inf; x = inf
    p_edge = xp.where((a < 0) | (x < 0), xp.nan, xp.where(
        a == 0, xp.where(x > 0, 1.0, xp.nan), xp.where(
            x == 0, 0.0, xp.where(xp.isinf(a), xp.where(xp.isinf(x), xp.nan, 0.0), 1.0))))
    edge = (a <= 0) | (x <= 0) | xp.isinf(a) | xp.isinf(x)
    out = xp.where(edge, 1.0 - p_edge if upper else p_edge, xp.nan)
    live = ~edge & ~xp.isnan(a) & ~xp.isnan(x)
    temme = live & (a > _TEMME_FROM)
    out[temme] = _temme(xp, a[temme], x[temme], upper)
    live = live & ~temme
    a, x = a[live], x[live]
    small = x < 1.1
    q_small = small & xp.where(x < 0.5, -0.4 / xp.log(x) >= a, x * 1.1 >= a)
    use_fraction = ~small & (x >= a) if upper else (x > 1.0) & (x > a)
    value = xp.empty_like(a)
    if upper:
        series = ~q_small & ~use_fraction
        value[q_small] = _q_small_x(xp, a[q_small], x[q_small])
    else:
        series = ~use_fraction
    value[series] = _p_series(xp, a[series], x[series])
    value[use_fraction] = _q_fraction(xp, a[use_fraction], x[use_fraction])
    flip = use_fraction if not upper else series
    value[flip] = 1.0 - value[flip]
    out[live] = value
    return out.reshape(shape)


def _igamma_kernel(name, upper):
    def kernel(xp, self, other):
        dt = _dtype(self, other)
        if dt.kind not in "fV":
            raise _not_implemented(f"{name}_cpu", dt)
        return _regularized(xp, self, other, upper).astype(dt)
    kernel.__name__ = name
    return kernel


def _pdf(self, other):
    """x^(a-1) e^-x / Gamma(a): dP/dx, written with dyngrad ops (torch's formula)."""
    return exp((self - 1) * log(other) - other - lgamma(self))


def _igamma_op(name, node, upper):
    """The function/out= primitive and the in-place one (torch's forward AD error names it),
    with Tensor.NAME and Tensor.NAME_ (torch counts a method's arguments from ``other``)."""
    kernel = _igamma_kernel(name, upper)
    common = dict(node=node, inputs=("self", "other"), saves=("self", "other"), scalars=(),
                  pointwise=True)
    spec = defop(name, variants=("function", "out"), **common)(kernel)
    in_place_spec = defop(name + "_", variants=(), **common)(kernel)

    @spec.backward
    def _(ctx, grad):
        self, other = ctx.saved_tensors
        need_self, need_other = ctx.needs_input_grad
        if need_self:
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        if not need_other:
            return None, None
        density = _pdf(self, other)
        return None, grad * (-density if upper else density)

    in_place_spec.backward(spec.backward_fn)
    in_place_spec.jvp(fw_not_implemented(name + "_", explicit=True))

    def method(self, other):
        _other_tensor(name, other)
        return spec(self, other)

    def in_place(self, other):
        _other_tensor(name + "_", other)
        return in_place_spec.call_inplace(self, other)

    method.__name__, in_place.__name__ = name, name + "_"
    METHODS[name] = method
    METHODS[name + "_"] = INPLACE[name + "_"] = in_place
    return spec


igamma = _igamma_op("igamma", "IgammaBackward0", False)
igammac = _igamma_op("igammac", "IgammacBackward0", True)


def _other_tensor(name, other):
    if not isinstance(other, _tensor_cls()):
        raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                        f"{_tp_name(other)}")



def _tensors_only(name, input, other):
    for position, (arg, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, _tensor_cls()):
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")


def special_gammainc(input, other, *, out=None):
    """``torch.special.gammainc``: ``igamma`` (IgammaBackward0)."""
    _tensors_only("special_gammainc", input, other)
    return _call(igamma, (input, other), out)


def special_gammaincc(input, other, *, out=None):
    """``torch.special.gammaincc``: ``igammac`` (IgammacBackward0)."""
    _tensors_only("special_gammaincc", input, other)
    return _call(igammac, (input, other), out)


FUNCTIONS["special.gammainc"] = special_gammainc
FUNCTIONS["special.gammaincc"] = special_gammaincc


# -- Hurwitz zeta ----------------------------------------------------------------------------
def _zeta_kernel(xp, self, other):
    dt = _dtype(self, other)
    if dt.kind not in "fV" or dt.itemsize == 2:
        raise _not_implemented("zeta_cpu", dt)
    self, other = (v if hasattr(v, "dtype") else xp.asarray(v, dtype=dt) for v in (self, other))
    return _sm.zeta(self, other).astype(dt)


_ZETA = dict(promote=Promote.INT_TO_FLOAT, inputs=("self", "other"), variants=(),
             public="special.zeta", pointwise=True)
zeta_tensor = defop("special_zeta", node="SpecialZetaBackward0", scalars=(),
                    saves=("self", "other"), **_ZETA)(_zeta_kernel)
zeta_self_scalar = defop("special_zeta.self_scalar", node="SpecialZetaBackward1",
                         differentiable=("other",), scalars=("self",), saves=("self", "other"),
                         **_ZETA)(_zeta_kernel)
# (no derivative: torch saves nothing)
zeta_other_scalar = defop("special_zeta.other_scalar", node="SpecialZetaBackward2",
                          differentiable=("self",), scalars=("other",), **_ZETA)(_zeta_kernel)


def _zeta_q_grad(grad, self, other):
    return grad * -self * zeta_tensor(self + 1.0, other) if hasattr(self, "dtype") else \
        grad * -self * zeta_self_scalar(self + 1.0, other)


@zeta_tensor.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    need_self, need_other = ctx.needs_input_grad
    if need_self:
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    return None, _zeta_q_grad(grad, self, other) if need_other else None


@zeta_self_scalar.backward
def _(ctx, grad):
    self, other = ctx.saved_tensors
    return _zeta_q_grad(grad, self, other)


@zeta_other_scalar.backward
def _(ctx, grad):
    raise NotImplementedError("the derivative for 'zeta' is not implemented.")


special_zeta, _, _ = _binary_family("zeta", zeta_tensor, zeta_other_scalar, zeta_self_scalar,
                                    error_name="special_zeta")
FUNCTIONS["special.zeta"] = special_zeta
