"""torch's CPU gamma machinery for the gamma family: the Marsaglia-Tsang sampler behind
``torch._standard_gamma`` / ``torch._sample_dirichlet`` (drawing from dyngrad's copy of
torch's generator exactly as ATen's ``sample_gamma`` does: 53-bit uniforms and the cached
Box-Muller normal), and the reparameterised gradient ``_standard_gamma_grad``
(d sample / d alpha = -(dCDF/dalpha) / pdf, from ATen's ``standard_gamma_grad_one``).

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
    tiny = xp.finfo(alpha_arr.dtype).tiny
    return xp.maximum(out, tiny).reshape(alpha_arr.shape)


def sample_dirichlet_array(alpha_arr, generator=None, return_gammas=False):
    """torch's _s_dirichlet_cpu: double-precision gammas normalised over the last dim and
    clamped into [tiny, nextafter(1, 0)] of the dtype (and the gammas, on request)."""
    g = numpy_generator(generator)
    flat = xp.ascontiguousarray(alpha_arr).astype(xp.float64).ravel()
    gam = xp.empty(flat.shape, xp.float64)
    for i, a in enumerate(flat.tolist()):
        gam[i] = max(_sample_one(g, a, False), xp.finfo(xp.float64).tiny)
    gam = gam.reshape(alpha_arr.shape)
    ret = (gam / gam.sum(-1, keepdims=True)).astype(alpha_arr.dtype)
    dt = alpha_arr.dtype
    hi = xp.nextafter(dt.type(1), dt.type(0))
    ret = xp.minimum(hi, xp.maximum(xp.finfo(dt).tiny, ret))
    return (ret, gam) if return_gammas else ret


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


class _Dirichlet(Function):
    """x = _sample_dirichlet(alpha), same values as torch for a seed.

    Differences from torch: the backward differentiates x = g / sum(g) through the gammas g
    (dg/dalpha from _standard_gamma_grad), an unbiased reparameterised gradient, where torch
    uses _dirichlet_grad (the Beta-marginal gradient): per-sample gradients differ, their
    expectations agree."""

    @staticmethod
    def forward(ctx, alpha):
        x_arr, gam = sample_dirichlet_array(_to_array(alpha), return_gammas=True)
        dgam = standard_gamma_grad_array(_to_array(alpha).astype(xp.float64), gam)
        total = gam.sum(-1, keepdims=True)
        ctx.dgam = dgam
        ctx.total = total
        x = _from_array(x_arr, alpha)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # d x_i / d alpha_j = (delta_ij - x_i) * dg_j / S
        dg = _from_array(ctx.dgam / ctx.total, x)
        return dg * (grad - (x * grad).sum(-1, True))


def dirichlet_rsample(alpha):
    return _Dirichlet.apply(alpha)
