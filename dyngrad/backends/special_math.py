"""Special functions NumPy lacks (erf, erfc, erfinv, lgamma, digamma, polygamma), vectorised.

Each function takes an array (or number) and returns an array accurate to a few units in the
last place: float64 for erf, erfc, erfinv, lgamma and zeta (callers cast); digamma, trigamma and
polygamma compute in the input's precision (float for half), as torch's own kernels do (see
Note [digamma as torch computes it]). Values at the poles and domain edges follow torch
(``lgamma(0) = inf``, ``digamma(0) = -inf``, ``digamma(-0.0) = inf``, ``digamma(-1) = nan``).
Only NumPy is used, but for erf where SciPy is installed (Note [Cody's erf]); erf is imported on
its own by ``nn.functional.gelu``.

Note [Cody's erf]
~~~~~~~~~~~~~~~~~
erf and erfc use W. J. Cody's rational Chebyshev approximations (Math. Comp. 1969, CALERF),
in three ranges of y = |x|: y <= 0.46875 (erf directly), up to 4 and beyond (erfc, written as
exp(-y^2) times a rational function of y or of 1/y^2). exp(-y^2) is split as
exp(-ysq^2) * exp(-(y - ysq)(y + ysq)) with ysq = y rounded down to 1/16, so that y^2 is not
rounded before the exponential (the relative error of exp(-y^2) would be y^2 * eps otherwise).

Written in NumPy, the three ranges cost masks, gathers and scatters: 316 us for 8192 float64
values, most of a GELU's forward and backward (860 us against torch's 83 on a (64, 128) batch).
Where SciPy is installed (the ``fast`` extra) erf is ``scipy.special.erf`` instead, a compiled
ufunc (Cephes) as accurate against torch as Cody's here (relative error 4.0e-16 against 4.6e-16
over tests/test_special_math.py's points) and 3.5x faster (88 us there). erfc stays Cody's: SciPy's
loses precision in the subnormal tail, where torch's keeps it.

Note [lgamma]
~~~~~~~~~~~~~
torch calls the C library's lgamma. Ours: the Taylor series of lgamma around 2 (coefficients
(-1)^k (zeta(k) - 1) / k, from the zeta below), which is accurate relative to its small value
near the zeros at 1 and 2; arguments below 10 are moved there by the recurrence, larger ones
use Stirling's series, negative ones the reflection formula. Near the zeros of lgamma on the
negative axis (x ~ -2.457, ...) the reflection cancels and only the absolute error stays small
(~1e-16), as for any formula not special-casing those zeros.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

__all__ = ["erf", "erfc", "erfinv", "lgamma", "digamma", "trigamma", "polygamma", "zeta"]

_F = np.float64

# -- erf / erfc (see Note [Cody's erf]) ---------------------------------------------------------
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
          2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
          2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
          1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
          3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
          1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
          6.05183413124413191e-2, 2.33520497626869185e-3)
_RSQRT_PI = 5.6418958354775628695e-1     # 1 / sqrt(pi)
_SMALL_RANGE = 0.46875                   # Cody's split between erf and erfc forms


def _erf_small(x):
    """erf(x) for |x| <= 0.46875."""
    z = x * x
    num = _ERF_A[4] * z
    den = z
    for i in range(3):
        num = (num + _ERF_A[i]) * z
        den = (den + _ERF_B[i]) * z
    return x * (num + _ERF_A[3]) / (den + _ERF_B[3])


def _exp_minus_square(y):
    """exp(-y*y) without rounding y*y first; scaled near underflow (erfc's subnormal tail)."""
    ysq = np.trunc(y * 16.0) / 16.0
    rest = (y - ysq) * (y + ysq)
    big = ysq * ysq
    deep = big > 700.0
    if np.any(deep):   # exp(-big) would be subnormal: scale by e^700 and undo at the end
        shifted = np.exp(-big + np.where(deep, 700.0, 0.0)) * np.exp(-rest)
        return shifted, deep
    return np.exp(-big) * np.exp(-rest), None


def _erfc_large(y):
    """erfc(y) for y > 0.46875 (y positive, finite)."""
    mid = y <= 4.0
    out = np.empty_like(y)
    if np.any(mid):
        t = y[mid]
        num = _ERF_C[8] * t
        den = t
        for i in range(7):
            num = (num + _ERF_C[i]) * t
            den = (den + _ERF_D[i]) * t
        out[mid] = (num + _ERF_C[7]) / (den + _ERF_D[7])
    far = ~mid
    if np.any(far):
        t = y[far]
        z = 1.0 / (t * t)
        num = _ERF_P[5] * z
        den = z
        for i in range(4):
            num = (num + _ERF_P[i]) * z
            den = (den + _ERF_Q[i]) * z
        r = z * (num + _ERF_P[4]) / (den + _ERF_Q[4])
        out[far] = (_RSQRT_PI - r) / t
    scale, deep = _exp_minus_square(y)
    out = out * scale
    if deep is not None:
        out[deep] *= math.exp(-700.0)
    out[y > 27.3] = 0.0   # below the smallest subnormal
    return out


_compiled_erf = None   # scipy.special.erf once looked up; False when SciPy is missing


def _scipy_erf():
    """SciPy's erf ufunc, or None without SciPy (Note [Cody's erf])."""
    global _compiled_erf
    if _compiled_erf is None:
        try:
            from scipy.special import erf as compiled
        except Exception:   # (not installed, or an install that cannot load: Cody's)
            compiled = False
        _compiled_erf = compiled
    return _compiled_erf or None


def erf(x):
    """The error function, 2/sqrt(pi) * integral of exp(-t^2) from 0 to x."""
    x = np.asarray(x, dtype=_F)
    compiled = _scipy_erf()
    if compiled is not None:
        return compiled(x, out=np.empty_like(x))
    y = np.abs(x)
    out = np.empty_like(x)
    small = y <= _SMALL_RANGE
    out[small] = _erf_small(x[small])
    big = ~small & ~np.isnan(x)
    if np.any(big):
        yb = np.minimum(y[big], 30.0)                # erf is 1 to double precision far before
        out[big] = np.copysign((0.5 - _erfc_large(yb)) + 0.5, x[big])
    out[np.isnan(x)] = np.nan
    return out


def erfc(x):
    """The complementary error function 1 - erf(x), accurate in the tail."""
    x = np.asarray(x, dtype=_F)
    y = np.abs(x)
    out = np.empty_like(x)
    small = y <= _SMALL_RANGE
    out[small] = 1.0 - _erf_small(x[small])
    big = ~small & ~np.isnan(x)
    if np.any(big):
        r = _erfc_large(np.minimum(y[big], 30.0))
        out[big] = np.where(x[big] < 0, 2.0 - r, r)
    out[np.isnan(x)] = np.nan
    return out


def _working(x):
    """`x` as an array of the dtype torch's scalar kernels compute in (half -> float)."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        return x
    return x.astype(np.float32)


# -- Hurwitz zeta -------------------------------------------------------------------------------
def _bernoulli_even(count):
    """B_2, B_4, ..., B_2count as Fractions (Akiyama-Tanigawa)."""
    n_max = 2 * count
    row = [Fraction(0)] * (n_max + 1)
    out = {}
    for m in range(n_max + 1):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        if m >= 2 and m % 2 == 0:
            out[m] = row[0]
    return [out[2 * k] for k in range(1, count + 1)]


# (2k)! / B_2k for k = 1..12: the Euler-Maclaurin tail of zeta (cephes' table)
_ZETA_EM = tuple(float(Fraction(math.factorial(2 * k)) / b)
                 for k, b in enumerate(_bernoulli_even(12), start=1))
_MACHEP = 1.11022302462515654042e-16


def zeta(x, q):
    """Hurwitz zeta sum_{k>=0} (k + q)^-x in float64, by the cephes algorithm torch uses.

    Direct sum while the terms are large (at least 9 terms, up to k + q > 9), then
    Euler-Maclaurin; ``inf`` at x == 1 and at non-positive integer q, ``nan`` for x < 1 and for
    non-integer x with q <= 0.
    """
    x, q = np.broadcast_arrays(np.asarray(x, dtype=_F), np.asarray(q, dtype=_F))
    bad_q = q <= 0
    pole = (x == 1) | (bad_q & (q == np.floor(q)))
    undefined = (x < 1) | (bad_q & ~pole & (x != np.floor(x))) | np.isnan(x) | np.isnan(q)
    live = ~pole & ~undefined
    x = np.where(live, x, 2.0)            # harmless values where the answer is known
    a = np.where(live, q, 1.0)
    s = a ** -x
    b = np.zeros_like(s)
    done = np.zeros(s.shape, bool)
    i = 0
    # direct summation, each element stopping once its terms are negligible (torch's loop)
    while True:
        go = ~done & ((i < 9) | (a <= 9.0))
        if not go.any():
            break
        i += 1
        a = np.where(go, a + 1.0, a)
        b = np.where(go, a ** -x, b)
        s = np.where(go, s + b, s)
        done |= go & (-_MACHEP * s < b) & (b < _MACHEP * s)
    # Euler-Maclaurin tail for the others
    w = a
    s = np.where(done, s, s + b * w / (x - 1.0) - 0.5 * b)
    fac = np.ones_like(s)
    k = np.zeros_like(s)
    for coef in _ZETA_EM:
        fac = fac * (x + k)
        b = b / w
        t = fac * b / coef
        s = np.where(done, s, s + t)
        done = done | (np.abs(t / s) < _MACHEP)
        k = k + 1.0
        fac = fac * (x + k)
        b = b / w
        k = k + 1.0
    s = np.where(pole, np.inf, s)
    return np.where(undefined, np.nan, s)


# -- lgamma -------------------------------------------------------------------------------------
_EULER = 0.57721566490153286061
# lgamma(2 + z) = (1 - gamma) z + sum_{k>=2} (-1)^k (zeta(k) - 1) / k z^k, |z| < 2
_LGAMMA2_COEFS = tuple((-1) ** k * (float(zeta(float(k), 2.0)) / k) for k in range(2, 32))
_HALF_LOG_2PI = 0.91893853320467274178
# Stirling: B_2k / (2k (2k - 1)) for k = 1..8
_STIRLING = tuple(float(b / (2 * k * (2 * k - 1)))
                  for k, b in enumerate(_bernoulli_even(8), start=1))


def _lgamma_near2(z):
    """lgamma(2 + z) for |z| <= 0.5 (series around the zero at 2; accurate relative to z)."""
    acc = np.zeros_like(z)
    for c in reversed(_LGAMMA2_COEFS):
        acc = acc * z + c
    return z * ((1.0 - _EULER) + z * acc)


def _lgamma_positive(x):
    """lgamma for x > 0 (other elements give garbage, selected away by the caller).

    Below 10, x is moved by whole steps into [1.5, 2.5) where the series around 2 applies:
    lgamma(x) = lgamma(x - k) + log((x-1)...(x-k)) for k > 0, and - log(x (x+1)...) for k < 0
    (both products are exact to a few ulps, and never cancel against the series). From 10 on,
    Stirling's series.
    """
    k = np.clip(np.floor(x - 1.5), -2.0, 8.0)
    z = x - (k + 2.0)                           # exact: x and k + 2 are close or k + 2 is 0
    up = np.ones_like(x)
    for j in range(1, 9):
        up = np.where(k >= j, up * (x - j), up)
    down = np.where(k == -1.0, x, np.where(k == -2.0, x * (x + 1.0), 1.0))
    small = _lgamma_near2(np.clip(z, -0.5, 0.5)) + np.log(up) - np.log(down)
    t = np.maximum(x, 10.0)
    inv = 1.0 / t
    inv2 = inv * inv
    series = np.zeros_like(t)
    for c in reversed(_STIRLING):
        series = series * inv2 + c
    stirling = (t - 0.5) * (np.log(t) - 1.0) + (_HALF_LOG_2PI - 0.5) + series * inv
    return np.where(x < 10.0, small, stirling)


def _sinpi_abs(x):
    """|sin(pi x)| with the argument reduced exactly (x - nearest integer)."""
    r = x - np.round(x)
    return np.abs(np.sin(np.pi * r))


def lgamma(x):
    """log|Gamma(x)|; +inf at 0 and the negative integers (and at +-inf), as torch."""
    x = np.asarray(x, dtype=_F)
    finite = np.isfinite(x)
    neg = (x < 0) & finite
    # reflection for x < 0: |Gamma(x) Gamma(1 - x)| = pi / |sin(pi x)|
    y = np.where(neg, 1.0 - x, np.where(finite & (x > 0), x, 1.0))
    out = _lgamma_positive(y)
    if neg.any():
        out = np.where(neg, np.log(np.pi / _sinpi_abs(x)) - out, out)
    pole = ~np.isnan(x) & ((x == np.floor(x)) & (x <= 0) | ~finite)
    out = np.where(pole, np.inf, out)
    return np.where(np.isnan(x), x, out)


# -- digamma, trigamma, polygamma ---------------------------------------------------------------
# Note [digamma as torch computes it]
# torch's digamma and trigamma are its own (cephes-derived) kernels, run in the input's float type
# (float for half): digamma shifts x up to >= 10 by psi(x) = psi(x + 1) - 1/x, then uses the
# asymptotic series log(x) - 1/(2x) - sum B_2k / (2k x^2k); negative x reflect through
# psi(1 - x) - pi / tan(pi r) with r the signed fractional part of x. Following the same steps
# in the same precision gives torch's values to the last bit or so.
_PSI_10 = 2.25175258906672110764
_PSI_ASYMPTOTIC = (8.33333333333333333333e-2, -2.10927960927960927961e-2,
                   7.57575757575757575758e-3, -4.16666666666666666667e-3,
                   3.96825396825396825397e-3, -8.33333333333333333333e-3,
                   8.33333333333333333333e-2)


def _digamma_nonneg(x):
    """digamma for x > 0 (and nan/inf), in x's dtype."""
    t = x.dtype.type
    acc = np.zeros_like(x)
    for _ in range(10):        # x += 1 one step at a time, rounding as torch's loop does
        low = x < 10
        if not low.any():
            break
        acc = np.where(low, acc - t(1) / x, acc)
        x = np.where(low, x + t(1), x)
    z = t(1) / (x * x)
    poly = np.zeros_like(x)
    for c in _PSI_ASYMPTOTIC:
        poly = poly * z + t(c)
    series = np.where(x < t(1e17), z * poly, t(0))
    out = acc + np.log(x) - t(0.5) / x - series
    return np.where(x == 10, acc + t(_PSI_10), out)


def digamma(x):
    """psi(x) = d/dx lgamma(x): -inf at +0, +inf at -0, nan at negative integers and -inf."""
    x = _working(x)
    t = x.dtype.type
    out = np.empty_like(x)
    neg = x < 0
    out[~neg] = _digamma_nonneg(x[~neg])
    if neg.any():
        v = x[neg]
        r = np.fmod(v, 1.0).astype(np.float64)          # the signed fractional part
        cot = (np.pi / np.tan(np.pi * r)).astype(x.dtype)
        out[neg] = np.where(v == np.trunc(v), t(np.nan), _digamma_nonneg(t(1) - v) - cot)
    zero = x == 0
    out[zero] = np.copysign(t(np.inf), -x[zero])
    return out


def trigamma(x):
    """psi'(x) by reflection below 1/2, six recurrence steps and the asymptotic series."""
    x = _working(x).copy()
    t = x.dtype.type
    acc = np.zeros_like(x)
    reflect = x < 0.5
    sign = np.where(reflect, t(-1), t(1))
    if reflect.any():
        s = np.sin(t(np.pi) * x[reflect])
        acc[reflect] -= t(np.pi) * t(np.pi) / (s * s)
        x[reflect] = t(1) - x[reflect]
    for _ in range(6):
        acc += t(1) / (x * x)
        x += t(1)
    ixx = t(1) / (x * x)
    tail = t(1) + t(1) / (t(2) * x) + ixx * (t(1 / 6) - ixx * (t(1 / 30) - ixx * t(1 / 42)))
    return sign * (acc + tail / x)


@functools.lru_cache(maxsize=64)
def _lgamma_of_int(n: int):
    return lgamma(float(n))


def polygamma(n: int, x):
    """The n-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x) for n >= 2."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    x = _working(x)
    t = x.dtype.type
    factorial = np.exp(_lgamma_of_int(n + 1).astype(x.dtype))   # exp(lgamma(n + 1)), as torch
    value = zeta(float(n + 1), x).astype(x.dtype)
    return (t(1) if n % 2 else t(-1)) * factorial * value


# -- erfinv -------------------------------------------------------------------------------------
# Note [erfinv]
# A rational first guess (D. Pavlis' coefficients, ~1e-7 relative), then two Halley steps on
# erf(x) = y, whose derivatives satisfy f''/f' = -2x, so the step is x -= d / (1 + x d) with
# d = f / f'. For |y| >= 1/2 the residual is taken on erfc(x) = 1 - |y| (exact subtraction), so
# that values near +-1 keep their relative accuracy.
_ERFINV_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_ERFINV_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_ERFINV_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ERFINV_D = (3.543889200, 1.637067800)
_TWO_RSQRT_PI = 2.0 * _RSQRT_PI


def _erfinv_guess(y):
    a = np.abs(y)
    z = y * y
    central = y * (((_ERFINV_A[3] * z + _ERFINV_A[2]) * z + _ERFINV_A[1]) * z + _ERFINV_A[0]) / (
        (((_ERFINV_B[3] * z + _ERFINV_B[2]) * z + _ERFINV_B[1]) * z + _ERFINV_B[0]) * z + 1.0)
    w = np.sqrt(-np.log((1.0 - np.minimum(a, 1.0 - 1e-300)) / 2.0))
    tail = np.copysign(((_ERFINV_C[3] * w + _ERFINV_C[2]) * w + _ERFINV_C[1]) * w + _ERFINV_C[0],
                       y) / ((_ERFINV_D[1] * w + _ERFINV_D[0]) * w + 1.0)
    return np.where(a <= 0.7, central, tail)


def erfinv(y):
    """The inverse error function on [-1, 1]: +-inf at +-1, nan outside."""
    y = np.asarray(y, dtype=_F)
    a = np.abs(y)
    inside = a < 1
    out = np.where(a == 1, np.copysign(np.inf, y), np.nan)
    yi = y[inside]
    ai = a[inside]
    x = _erfinv_guess(yi)
    tail = ai >= 0.5
    w = 1.0 - ai
    for _ in range(2):
        slope = _TWO_RSQRT_PI * np.exp(-x * x)
        ax = np.abs(x)
        # residual of |erf|(|x|) = |y|, measured on erfc in the tail; sign of x restored below
        res = np.empty_like(ax)
        res[tail] = w[tail] - erfc(ax[tail])
        res[~tail] = erf(ax[~tail]) - ai[~tail]
        d = res / slope
        ax = ax - d / (1.0 + ax * d)
        x = np.copysign(ax, yi)
    tiny = ai < 1e-300          # erfinv(y) = sqrt(pi)/2 y (1 + pi/12 y^2 + ...): no residual left
    x[tiny] = yi[tiny] * (0.5 / _RSQRT_PI)
    out[inside] = x
    return out
