"""torch's CPU gamma machinery for the gamma family: the Marsaglia-Tsang sampler behind
``torch._standard_gamma`` / ``torch._sample_dirichlet`` (drawing from dyngrad's copy of
torch's generator exactly as ATen's ``sample_gamma`` does: 53-bit uniforms and the cached
Box-Muller normal), and the reparameterised gradients ``_standard_gamma_grad``
(d sample / d alpha = -(dCDF/dalpha) / pdf, from ATen's ``standard_gamma_grad_one``) and
``_dirichlet_grad`` (ATen's ``dirichlet_grad_one``, used by Dirichlet and Beta rsample).

These run one element at a time in Python (rejection sampling needs a data-dependent number of
draws), so they are slow for large tensors.
"""
from __future__ import annotations

import math

import dyngrad as torch
from ..backends import numpy_backend as _npb
from ..ops import random_streams as _rs
from ..ops.random import numpy_generator
from ..autograd.function import Function, once_differentiable

xp = _npb.xp
_F32 = xp.float32
_C0331 = float(_F32(0.0331))         # the float literal 0.0331f promoted to double
_THIRD_F = _F32(1.0) / _F32(3.0)


def _uniform(g) -> float:
    return float(_rs.uniform01_double(g, 1)[0])


def _normal(g) -> float:
    return float(_rs._normal_scalar(g, 1, 0.0, 1.0)[0])


def _sample_one(g, alpha, single: bool) -> float:
    """ATen's sample_gamma<scalar_t, double>: `single` computes the alpha arithmetic in
    float32 (scalar_t = float) as the C++ code does."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(_F32(1.0) / _F32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1 - _uniform(g), inv)
        alpha = float(_F32(alpha) + _F32(1.0)) if single else alpha + 1.0
    d = float(_F32(alpha) - _THIRD_F) if single else alpha - float(_THIRD_F)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _normal(g)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - _uniform(g)
        xx = x * x
        if u < 1.0 - _C0331 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma_array(alpha_arr, generator=None):
    """Samples of Gamma(alpha, 1), element by element in C order (torch's serial kernel),
    clamped below at the dtype's smallest normal number."""
    g = numpy_generator(generator)
    single = alpha_arr.dtype == xp.float32
    flat = xp.ascontiguousarray(alpha_arr).ravel()
    out = xp.empty(flat.shape, xp.float64)
    for i, a in enumerate(flat.tolist()):
        out[i] = _sample_one(g, a, single)
    out = out.astype(alpha_arr.dtype)
    tiny = _npb.finfo(alpha_arr.dtype).tiny
    return xp.maximum(out, tiny).reshape(alpha_arr.shape)


def sample_dirichlet_array(alpha_arr, generator=None):
    """torch's _s_dirichlet_cpu: double-precision gammas normalised over the last dim and
    clamped into [tiny, nextafter(1, 0)] of the dtype."""
    g = numpy_generator(generator)
    flat = xp.ascontiguousarray(alpha_arr).astype(xp.float64).ravel()
    gam = xp.empty(flat.shape, xp.float64)
    for i, a in enumerate(flat.tolist()):
        gam[i] = max(_sample_one(g, a, False), _npb.finfo(xp.float64).tiny)
    gam = gam.reshape(alpha_arr.shape)
    ret = (gam / gam.sum(-1, keepdims=True)).astype(alpha_arr.dtype)
    dt = alpha_arr.dtype
    hi = xp.nextafter(dt.type(1), dt.type(0))
    ret = xp.minimum(hi, xp.maximum(_npb.finfo(dt).tiny, ret))
    return ret


_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def _digamma(x):
    """Cephes digamma for positive arrays (shift to >= 10, then the asymptotic series)."""
    x = x.copy()
    result = xp.zeros_like(x)
    while True:
        small = x < 10
        if not small.any():
            break
        result = xp.where(small, result - 1 / x, result)
        x = xp.where(small, x + 1, x)
    z = 1.0 / (x * x)
    poly = xp.zeros_like(x)
    for a in _PSI_A:
        poly = poly * z + a
    y = xp.where(x < 1.0e17, z * poly, 0.0)
    return result + xp.log(x) - 0.5 / x - y


def _digamma_as(x):
    """ATen's digamma_one<scalar_t, double> for positive `x` of dtype scalar_t: the shift
    steps (1 / x, x + 1), log(x) and 0.5 / x in scalar_t, the sums in double, the result
    cast to scalar_t."""
    if x.dtype == xp.float64:
        return _digamma(x)
    dt = x.dtype
    x = x.copy()
    result = xp.zeros(x.shape, dtype=xp.float64)
    while True:
        small = x < 10
        if not small.any():
            break
        result = xp.where(small, result - (dt.type(1) / x).astype(xp.float64), result)
        x = xp.where(small, x + dt.type(1), x)
    at_ten = x == 10
    z = 1.0 / (x * x).astype(xp.float64)
    poly = xp.zeros_like(z)
    for a in _PSI_A:
        poly = poly * z + a
    y = xp.where(x < 1.0e17, z * poly, 0.0)
    out = (result + xp.log(x).astype(xp.float64) - (dt.type(0.5) / x).astype(xp.float64)
           - y)
    out = xp.where(at_ten, result + 2.25175258906672110764, out)
    return out.astype(dt)


_COEF_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343,
             1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
             0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
             0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07))


def standard_gamma_grad_array(alpha_arr, x_arr):
    """d x / d alpha for x ~ Gamma(alpha, 1) (torch's _standard_gamma_grad): a Taylor series
    for x < 0.8, Rice's saddle-point expansion for alpha > 8, else a rational fit."""
    dt = alpha_arr.dtype
    alpha, x = xp.broadcast_arrays(alpha_arr.astype(xp.float64), x_arr.astype(xp.float64))
    alpha, x = alpha.copy(), x.copy()
    with xp.errstate(all="ignore"):
        # Taylor series of the incomplete gamma function in x
        numer = xp.ones_like(x)
        denom = alpha.copy()
        s1 = numer / denom
        s2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            s1 = s1 + numer / denom
            s2 = s2 + numer / (denom * denom)
        pow_xa = xp.power(x, alpha)
        pdf = xp.power(x, alpha - 1) * xp.exp(-x)
        cdf = pow_xa * s1
        cdf_alpha = (xp.log(x) - _digamma(alpha)) * cdf - pow_xa * s2
        taylor = -cdf_alpha / pdf
        taylor = xp.where(xp.isnan(taylor), 0.0, taylor)
        # Rice saddle point, near the mode
        near = (0.9 * alpha <= x) & (x <= 1.1 * alpha)
        n1 = 1 + 24 * alpha * (1 + 12 * alpha)
        n2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
              + alpha * (107 + 3600 * x))
        rice_near = n1 * n2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        den = xp.sqrt(8 * alpha)
        term2 = den / (alpha - x)
        term3 = xp.power(x - alpha - alpha * xp.log(x / alpha), -1.5)
        term23 = xp.where(x < alpha, term2 - term3, term2 + term3)
        term1 = (xp.log(x / alpha) * term23
                 - xp.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        rice_far = -stirling * (x * term1) / den
        rice = xp.where(near, rice_near, rice_far)
        # bivariate rational approximation
        u = xp.log(x / alpha)
        v = xp.log(alpha)
        cv = [c0 + u * (c1 + u * c2) for c0, c1, c2 in zip(*_COEF_UV)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        rational = xp.exp(p / q)
        out = xp.where(x < 0.8, taylor, xp.where(alpha > 8.0, rice, rational))
    return out.astype(dt)


def _to_array(t):
    return t.detach().contiguous().numpy()


def _from_array(arr, like):
    return torch.tensor(arr, dtype=like.dtype, device=like.device)


class _StandardGamma(Function):
    """x = _standard_gamma(alpha) with the reparameterised gradient dx/dalpha."""

    @staticmethod
    def forward(ctx, alpha):
        x = _from_array(standard_gamma_array(_to_array(alpha)), alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _from_array(standard_gamma_grad_array(_to_array(alpha), _to_array(x)),
                                  alpha)


def standard_gamma(alpha):
    """torch._standard_gamma: Gamma(alpha, 1) samples with torch's stream for a seed."""
    return _StandardGamma.apply(alpha)


def sample_dirichlet(alpha):
    """torch._sample_dirichlet (no gradient)."""
    return _from_array(sample_dirichlet_array(_to_array(alpha)), alpha)


_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))))


def _beta_grad_alpha_small(x, alpha, beta):
    """d x / d alpha for x ~ Beta(alpha, beta), x near 0: Taylor series in x."""
    dt = x.dtype
    factor = _digamma_as(alpha) - _digamma_as(alpha + beta) - xp.log(x)
    numer = xp.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((dt.type(i) - beta) * x / dt.type(i))
        denom = alpha + dt.type(i)
        series = series + numer / denom * (factor + 1 / denom)
    result = x * xp.power(1 - x, -beta) * series
    return xp.where(xp.isnan(result), 0.0, result)


def _beta_grad_beta_small(x, alpha, beta):
    """d x / d beta for x ~ Beta(alpha, beta), x near 0."""
    dt = x.dtype
    factor = _digamma_as(alpha + beta) - _digamma_as(beta)
    numer, betas, dbetas = xp.ones_like(x), xp.ones_like(x), xp.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        c = dt.type(i)
        numer = numer * (-x / c)
        dbetas = dbetas * (beta - c) + betas
        betas = betas * (beta - c)
        series = series + numer / (alpha + c) * (dbetas + factor * betas)
    result = -xp.power(1 - x, 1 - beta) * series
    return xp.where(xp.isnan(result), 0.0, result)


def _beta_grad_alpha_mid(x, alpha, beta):
    """d x / d alpha for large alpha and beta: Rice saddle-point expansion."""
    total = alpha + beta
    mean = alpha / total
    std = xp.sqrt(alpha * beta / (total + 1)) / total
    near = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    at_mean = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / xp.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (xp.sqrt(2 * alpha / beta) * xp.power(total, 1.5) * axbx * axbx)
    term2 = 0.5 * xp.log(alpha / (total * x))
    term3 = xp.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = xp.power(beta * xp.log(beta / (total * (1 - x)))
                     + alpha * xp.log(alpha / (total * x)), -1.5)
    term1234 = term1 + term2 * (term3 + xp.where(x < mean, term4, -term4))
    return xp.where(near, at_mean, stirling * prefactor * term1234)


def _dirichlet_grad_rational(x, alpha, total, dt):
    """A rational correction to x (psi(total) - psi(alpha)) / (total - alpha) (digammas
    of the parameters cast to `dt`, as ATen's digamma_one<scalar_t> takes them)."""
    u = xp.log(x)
    a = xp.log(alpha) - u
    b = xp.log(total) - a
    pow_u, pow_a = (1.0, u, u * u), (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_C[0][i][j], _DIRICHLET_C[1][i][j]
            p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    psi = [_digamma_as(v.astype(dt)).astype(xp.float64) for v in (total, alpha)]
    approx = x * (psi[0] - psi[1]) / (total - alpha)
    return p / q * approx


def dirichlet_grad_array(x_arr, alpha_arr, total_arr):
    """torch._dirichlet_grad: d x / d alpha for the Beta(alpha, total - alpha) marginal x
    (ATen's dirichlet_grad_one: series near 0 and 1, saddle point when both parameters are
    large, else a rational fit): the series in the input dtype, the rest in float64, as
    ATen's scalar_t / accscalar_t split on CPU."""
    dt = x_arr.dtype
    xs, alphas, totals = (xp.asarray(a, dtype=dt) for a in
                          xp.broadcast_arrays(x_arr, alpha_arr, total_arr))
    betas = totals - alphas
    boundary = totals * xs * (1 - xs)
    x, alpha, total = (a.astype(xp.float64) for a in (xs, alphas, totals))
    beta = total - alpha
    with xp.errstate(all="ignore"):
        small = _beta_grad_alpha_small(xs, alphas, betas).astype(xp.float64)
        near_one = -_beta_grad_beta_small(1 - xs, betas, alphas).astype(xp.float64)
        mid = _beta_grad_alpha_mid(x, alpha, beta)
        rational = _dirichlet_grad_rational(x, alpha, total, dt)
    out = xp.where((xs <= 0.5) & (boundary < 2.5), small,
                   xp.where((xs >= 0.5) & (boundary < 0.75), near_one,
                            xp.where((alphas > 6) & (betas > 6), mid, rational)))
    return out.astype(dt)


class _Dirichlet(Function):
    """x = _sample_dirichlet(alpha), same values as torch for a seed, and torch's
    reparameterised gradient: with g = _dirichlet_grad(x, alpha, sum(alpha)),
    grad_alpha = g * (grad_x - <x, grad_x>)."""

    @staticmethod
    def forward(ctx, alpha):
        x = _from_array(sample_dirichlet_array(_to_array(alpha)), alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, alpha = ctx.saved_tensors
        a = _to_array(alpha)
        total = xp.broadcast_to(a.sum(-1, keepdims=True), a.shape)
        g = _from_array(dirichlet_grad_array(_to_array(x), a, total), x)
        return g * (grad - (x * grad).sum(-1, True))


def dirichlet_rsample(alpha):
    return _Dirichlet.apply(alpha)
