"""Modified Bessel functions of the first kind: ``torch.i0`` (also ``special.i0``) and
``special.i0e``, ``special.i1``, ``special.i1e`` (the ``e`` forms are scaled by ``exp(-|x|)``).

Integer and bool inputs compute in the default float dtype; complex inputs raise torch's
error. Each derivative follows torch's: i0' = i1, i0e' = i1e - sgn(x) i0e, i1' = i0 - i1 / x
and i1e' = i0e - i1e (sgn(x) + 1 / x), with the limit 1/2 at 0 for the last two.

Note [Bessel kernels]
~~~~~~~~~~~~~~~~~~~~~
As Cephes (and torch) do, ``exp(-x) I0(x)`` and ``exp(-x) I1(x) / x`` are Chebyshev
expansions on [0, 8], and ``exp(-x) I0(x) sqrt(x)``, ``exp(-x) I1(x) sqrt(x)`` expansions in
16 / x on (8, inf). Our coefficients were computed for this file with mpmath (40 digits,
Chebyshev interpolation at 60 nodes, t = x / 4 - 1 and t = 16 / x - 1 on [-1, 1]), and kept
down to 1e-19 of the leading one: the relative error is below 1e-15 over [0, 1e6]. The sums are
evaluated in float64 with Clenshaw's recurrence and cast to the result dtype. The unscaled
functions multiply by ``exp(|x|)`` computed in the precision torch computes it (float for
float32 and float16, so that it overflows where torch's does), before dividing by sqrt(|x|):
``i0(inf)`` is NaN (inf / inf), as torch's.
"""
from __future__ import annotations

from .._promotion import Promote
from ..autograd.forward_ad import AUTO_ELEMENT_WISE
from ._registry import FUNCTIONS, defop
from .pointwise import ALL, _tensor_cls, sgn, where_self
from .unary import _real_only
from ._arg_parser import type_name as _tp_name

# Chebyshev coefficients (see Note [Bessel kernels]); the sum halves the first
_I0E_SMALL = (
    6.7679527440947608e-1, -3.046826723431984e-1, 1.7162090152220878e-1,
    -9.4901097048047644e-2, 4.9305284239670708e-2, -2.3737414805899469e-2,
    1.0546460394594998e-2, -4.3243099950505759e-3, 1.6394756169413358e-3,
    -5.7637557453858237e-4, 1.8850288509584166e-4, -5.7541950100821037e-5,
    1.6448448070728897e-5, -4.4167383584587506e-6, 1.1173875391201037e-6,
    -2.6707938539406117e-7, 6.0469950225419189e-8, -1.300025009986248e-8,
    2.6598237246823867e-9, -5.1897956016352629e-10, 9.6758090353732369e-11,
    -1.7268262914415557e-11, 2.9550526631296398e-12, -4.8564467831119295e-13,
    7.6761854986049356e-14, -1.1685332877993452e-14, 1.715391285555133e-15,
    -2.4312798465479547e-16, 3.3307945188222381e-17, -4.4153416464793394e-18,
    5.6691780069214962e-19, -7.0571006924572934e-20)

_I0E_LARGE = (
    8.0449041101410883e-1, 3.3691164782556941e-3, 6.889758346916824e-5, 2.8913705208347565e-6,
    2.0489185894690637e-7, 2.2666689904981781e-8, 3.3962320257083863e-9,
    4.9406023882249696e-10, 1.1889147107846438e-11, -3.1499165279632414e-11,
    -1.3215811840447713e-11, -1.7941785315068061e-12, 7.1801244513836662e-13,
    3.8527783827421427e-13, 1.5400862175214098e-14, -4.1505693472872221e-14,
    -9.5548466988283076e-15, 3.8116806693526224e-15, 1.7725601330565264e-15,
    -3.4254856196772191e-16, -2.8276239805165835e-16, 3.4612228676974611e-17,
    4.46562142029676e-17, -4.8305044859441821e-18, -7.233180487874754e-18,
    9.9214754121736986e-19, 1.1936508908459821e-18, -2.4887098371508072e-19,
    -1.9384264541609059e-19)

_I1E_SMALL = (
    2.5258718644363365e-1, -1.7641651835783406e-1, 1.026436586898471e-1,
    -5.2945981208094991e-2, 2.4726449030626517e-2, -1.0564084894626198e-2,
    4.1564229443128882e-3, -1.5135724506312531e-3, 5.1228595616857577e-4,
    -1.6176081582589675e-4, 4.7815651075500542e-5, -1.3273163656039436e-5,
    3.4702513081376785e-6, -8.5687202646954547e-7, 2.0032947535521353e-7,
    -4.4450591287963281e-8, 9.3815373864957718e-9, -1.8872497517228293e-9,
    3.625590281552117e-10, -6.6634897235020277e-11, 1.1736186298890902e-11,
    -1.9839743977649437e-12, 3.2237933659455747e-13, -5.0421855047279117e-14,
    7.6006842947354069e-15, -1.1055969477353863e-15, 1.5536319577362005e-16,
    -2.1114212143581661e-17, 2.7779141127610464e-18, -3.5415817725421362e-19,
    4.379302756655071e-20)

_I1E_LARGE = (
    7.7857623501828012e-1, -9.7610974913614684e-3, -1.1058893876262372e-4,
    -3.8825648088776904e-6, -2.5122362378702089e-7, -2.6314688468895195e-8,
    -3.835380385964237e-9, -5.5897434621965838e-10, -1.8974958123505412e-11,
    3.2526035830154882e-11, 1.4125807436613781e-11, 2.0356285441470895e-12,
    -7.1985517762459085e-13, -4.0835511110921973e-13, -2.1015418427726643e-14,
    4.2724400167119514e-14, 1.0420276984128803e-14, -3.8144030724370078e-15,
    -1.8803547755107824e-15, 3.3082023109209283e-16, 2.9626289976459501e-16,
    -3.209525921993424e-17, -4.6503053684893583e-17, 4.4143483230717079e-18,
    7.5172963108421048e-18, -9.3141788673268834e-19, -1.242193275194891e-18,
    2.4142767194548485e-19, 2.0269443840532852e-19)


def _chebyshev(xp, coeffs, t):
    """sum'_k coeffs[k] T_k(t) (the first term halved), by Clenshaw's recurrence."""
    b1 = xp.zeros_like(t)
    b2 = xp.zeros_like(t)
    for c in coeffs[:0:-1]:
        b1, b2 = c + 2.0 * t * b1 - b2, b1
    return coeffs[0] / 2 + t * b1 - b2


def _bessel(xp, x, order, scaled):
    """I_order(x) (``scaled``: times exp(-|x|)) for a real floating array, in x's dtype."""
    y = xp.abs(x.astype(xp.float64))
    near = xp.minimum(y, 8.0)
    far = xp.maximum(y, 8.0)           # (NaN stays NaN in both)
    small_c, large_c = (_I0E_SMALL, _I0E_LARGE) if order == 0 else (_I1E_SMALL, _I1E_LARGE)
    small = _chebyshev(xp, small_c, near / 4.0 - 1.0)
    if order == 1:
        small = small * y
    large_sum = _chebyshev(xp, large_c, 16.0 / far - 1.0)
    if scaled:
        out = xp.where(y <= 8.0, small, large_sum / xp.sqrt(far))
    else:
        work = xp.float64 if x.dtype == xp.float64 else xp.float32
        grow = xp.exp(y.astype(work)).astype(xp.float64)
        out = xp.where(y <= 8.0, grow * small, grow * large_sum / xp.sqrt(far))
    if order == 1:
        out = xp.where(x < 0, -out, out)
    return out.astype(x.dtype)


def _special(name, node, public, kernel_name, order, scaled, saves, variants):
    @defop(name, node=node, promote=Promote.INT_TO_FLOAT, variants=variants, scalars=(),
           saves=saves, public=public, pointwise=True)
    def op(xp, self):
        _real_only(kernel_name, self)
        return _bessel(xp, self, order, scaled)
    op.jvp(AUTO_ELEMENT_WISE)
    return op


i0 = _special("i0", "I0Backward0", None, "i0_vml_cpu", 0, False, ("self",), ALL)
i0e = _special("special_i0e", "SpecialI0EBackward0", "special.i0e", "i0e_cpu", 0, True,
               ("self", "result"), ("function", "out"))
i1 = _special("special_i1", "SpecialI1Backward0", "special.i1", "i1_cpu", 1, False,
              ("self", "result"), ("function", "out"))
i1e = _special("special_i1e", "SpecialI1EBackward0", "special.i1e", "i1e_cpu", 1, True,
               ("self", "result"), ("function", "out"))


@i0.backward
def _(ctx, grad):
    self, = ctx.saved_tensors
    return grad * i1(self)


@i0e.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    return grad * (i1e(self) - sgn(self) * result)


def _tiny_safe(self):
    """(|x| > eps, x with eps where it is not): the I1 derivatives divide by x."""
    eps = self.new_full((), _EPS[str(self.dtype)])
    big = self.abs() > eps
    return big, where_self(big, self, eps)


_EPS = {"torch.float16": 2.0 ** -10, "torch.float32": 2.0 ** -23, "torch.float64": 2.0 ** -52}


@i1.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    big, safe = _tiny_safe(self)
    return grad * where_self(big, i0(safe) - result * safe.reciprocal(), 0.5)


@i1e.backward
def _(ctx, grad):
    self, result = ctx.saved_tensors
    big, safe = _tiny_safe(self)
    derivative = i0e(safe) - result * (sgn(safe) + safe.reciprocal())
    return grad * where_self(big, derivative, 0.5)


def special_i0(input, *, out=None):
    """``torch.special.i0``: ``torch.i0`` (I0Backward0)."""
    if not isinstance(input, _tensor_cls()):
        raise TypeError(f"special_i0(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")
    return i0(input) if out is None else i0(input, out=out)


FUNCTIONS["special.i0"] = special_i0
