"""OpInfo entries for dyngrad/ops/loss.py and loss_nll.py: the losses of nn.functional."""
from __future__ import annotations

import numpy as np

from .core import COMPLEX, FLOATS, INTS, OP_DB, OpInfo, SampleInput, transposed
from .core import make_array as _make_array

REDUCTIONS = ("mean", "sum", "none")


def make_array(shape, dtype, rng, low=None, high=None):
    """core.make_array; integer/bool dtypes (error samples) keep their default ranges."""
    if dtype not in FLOATS + COMPLEX:
        low = high = None
    return _make_array(shape, dtype, rng, low, high)


def _range(dtype, low, high):
    return dict(low=low, high=high) if dtype in FLOATS + COMPLEX else {}
HALF_TOL = {"float16": (1e-2, 1e-2)}


def _pairs(low=-3.0, high=3.0, t_low=-3.0, t_high=3.0, broadcast=True, extra=None):
    """(input, target) samples: each reduction, 0-dim, 1-d, empty, non-contiguous, broadcast."""
    extra = extra or {}

    def gen(dtype, rng):
        def x(shape):
            return make_array(shape, dtype, rng, low, high)

        def t(shape):
            return make_array(shape, dtype, rng, t_low, t_high)

        out = [SampleInput(x((3, 4)), t((3, 4)), reduction=r, **extra) for r in REDUCTIONS]
        out += [SampleInput(x(()), t(()), **extra), SampleInput(x((5,)), t((5,)), **extra),
                SampleInput(x((0,)), t((0,)), **extra),
                SampleInput(x((0, 2)), t((0, 2)), reduction="sum", **extra),
                SampleInput(transposed((3, 4), dtype, rng, **_range(dtype, low, high)), t((3, 4)),
                            reduction="none", **extra),
                SampleInput(x((2, 3, 2)), t((2, 3, 2)), reduction="sum", **extra)]
        if broadcast:
            out.append(SampleInput(x((3, 4)), t((4,)), desc="broadcast (warns)", **extra))
        return out
    return gen


def _with(gen, **kwargs):
    """`gen`'s first samples again with extra keyword arguments."""
    def g(dtype, rng):
        base = gen(dtype, rng)
        return base + [SampleInput(s.input, *s.args, **{**s.kwargs, **kwargs})
                       for s in base[:3]]
    return g


def _smooth_l1(dtype, rng):
    out = _pairs()(dtype, rng)
    x, t = make_array((3, 4), dtype, rng, -3, 3), make_array((3, 4), dtype, rng, -3, 3)
    return out + [SampleInput(x, t, beta=0.5), SampleInput(x, t, beta=2.0, reduction="none"),
                  SampleInput(x, t, beta=0.0), SampleInput(x, t, beta=-1.0, desc="error")]


def _huber(dtype, rng):
    out = _pairs()(dtype, rng)
    x, t = make_array((3, 4), dtype, rng, -3, 3), make_array((3, 4), dtype, rng, -3, 3)
    return out + [SampleInput(x, t, delta=0.5), SampleInput(x, t, delta=2.0, reduction="sum"),
                  SampleInput(x, t, delta=0.0, desc="error"),
                  SampleInput(x, t, weight=make_array((3, 4), dtype, rng, 0.1, 1))]


def _weighted_pairs(dtype, rng):
    out = _pairs()(dtype, rng)
    x, t = make_array((3, 4), dtype, rng, -3, 3), make_array((3, 4), dtype, rng, -3, 3)
    w = make_array((3, 4), dtype, rng, 0.1, 1) if dtype in FLOATS else None
    if w is not None:
        out += [SampleInput(x, t, weight=w, reduction=r) for r in REDUCTIONS]
    return out + [SampleInput(x, t, reduction="bad", desc="error")]


def _bce(dtype, rng):
    out = _pairs(0.02, 0.98, 0.0, 1.0, broadcast=False)(dtype, rng)
    x, t = make_array((3, 4), dtype, rng, 0.05, 0.95), make_array((3, 4), dtype, rng, 0, 1)
    w = make_array((4,), dtype, rng, 0.1, 1)
    edge = np.array([0.0, 1.0, 0.0, 1.0, 0.5], dtype)
    return out + [SampleInput(x, t, weight=w), SampleInput(x, t, weight=w, reduction="none"),
                  SampleInput(edge, np.array([1.0, 0.0, 0.0, 1.0, 0.5], dtype),
                              desc="log clamped at -100", reduction="none"),
                  SampleInput(x * 2, t, desc="out of range: error"),
                  SampleInput(x, t[0, ...], desc="size mismatch: error")]


def _bce_logits(dtype, rng):
    out = _pairs(-4, 4, 0.0, 1.0, broadcast=False)(dtype, rng)
    x, t = make_array((3, 4), dtype, rng, -4, 4), make_array((3, 4), dtype, rng, 0, 1)
    w, pw = make_array((4,), dtype, rng, 0.1, 1), make_array((4,), dtype, rng, 0.5, 2)
    if dtype not in FLOATS:
        return out
    big = np.array([1000.0, -1000.0, 1000.0, -1000.0], dtype) if dtype != "float16" else \
        np.array([100.0, -100.0, 100.0, -100.0], dtype)
    return out + [SampleInput(x, t, weight=w), SampleInput(x, t, pos_weight=pw),
                  SampleInput(x, t, weight=w, pos_weight=pw, reduction="none"),
                  SampleInput(big, np.array([0.0, 1.0, 1.0, 0.0], dtype), desc="+-1000"),
                  SampleInput(big, np.array([1.0, 0.0, 0.5, 0.5], dtype), pos_weight=pw,
                              reduction="none", desc="+-1000"),
                  SampleInput(x, t[0, ...], desc="size mismatch: error")]


def _soft_margin(dtype, rng):
    """Targets are int64 signs: torch refuses a target that requires grad."""
    def x(shape):
        return make_array(shape, dtype, rng, -3, 3)

    def sign(shape):
        return np.where(rng.random(shape) < 0.5, -1, 1).astype("int64")
    out = [SampleInput(x((3, 4)), sign((3, 4)), reduction=r) for r in REDUCTIONS]
    return out + [SampleInput(x(()), sign(())), SampleInput(x((0, 2)), sign((0, 2))),
                  SampleInput(transposed((3, 4), dtype, rng), sign((3, 4)), reduction="none")]


def _kl(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -3, 0)

    def p(shape):
        a = make_array(shape, dtype, rng, 0, 1)
        if a.size:
            a.flat[0] = 0   # xlogy(0, 0) = 0
        return a
    out = [SampleInput(x((3, 4)), p((3, 4)), reduction=r) for r in ("batchmean", "sum", "none")]
    out += [SampleInput(x((3, 4)), x((3, 4)), log_target=True, reduction="batchmean"),
            SampleInput(x((3, 4)), x((3, 4)), log_target=True, reduction="none"),
            SampleInput(x((3, 4)), p((3, 4)), desc="mean (warns)"),
            SampleInput(x(()), p(()), reduction="batchmean"),
            SampleInput(x((0, 2)), p((0, 2)), reduction="batchmean"),
            SampleInput(x((3, 4)), p((4,)), reduction="sum")]
    return out


def _poisson(dtype, rng):
    def x(shape, lo=-2.0, hi=2.0):
        return make_array(shape, dtype, rng, lo, hi)
    t = make_array((3, 4), dtype, rng, 0, 4)
    out = [SampleInput(x((3, 4)), t, reduction=r) for r in REDUCTIONS]
    if dtype in FLOATS:
        out += [SampleInput(x((3, 4), 0.5, 3), t, log_input=False),
                SampleInput(x((3, 4)), t, full=True, reduction="none"),
                SampleInput(x((3, 4), 0.5, 3), t, log_input=False, full=True, eps=1e-4)]
    return out + [SampleInput(x(()), t[0, 0, ...]), SampleInput(x((3, 4)), t, reduction="x")]


def _margin_ranking(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    sign = np.where(rng.random((5,)) < 0.5, -1, 1).astype(dtype if dtype != "uint8" else "int64")
    out = [SampleInput(x((5,)), x((5,)), sign, reduction=r) for r in REDUCTIONS]
    return out + [SampleInput(x((5,)), x((5,)), sign, margin=0.5),
                  SampleInput(x(()), x(()), sign[0, ...]),
                  SampleInput(x((5,)), x((5,)), sign[None], desc="dims differ: error")]


def _hinge(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -2, 2)
    sign = np.where(rng.random((3, 4)) < 0.5, -1, 1).astype(dtype if dtype != "uint8"
                                                             else "int64")
    out = [SampleInput(x((3, 4)), sign, reduction=r) for r in REDUCTIONS]
    return out + [SampleInput(x((3, 4)), sign, margin=0.5), SampleInput(x(()), sign[0, 0, ...])]


def _cosine_embedding(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    sign = np.array([1, -1, 1], dtype="int64")
    out = [SampleInput(x((3, 4)), x((3, 4)), sign, reduction=r) for r in REDUCTIONS]
    return out + [SampleInput(x((3, 4)), x((3, 4)), sign, margin=0.2),
                  SampleInput(x((4,)), x((4,)), sign[1, ...]),
                  SampleInput(x((3, 4)), x((3, 4)), sign[None], desc="2-d target: error")]


def _nll(dtype, rng, ce=False):
    def x(shape):
        return make_array(shape, dtype, rng, -3, 0)

    def t(shape, c):
        return make_array(shape, "int64", rng, 0, c)
    w = make_array((4,), dtype, rng, 0.2, 1)
    tg = t((3,), 4)
    out = [SampleInput(x((3, 4)), tg, reduction=r) for r in REDUCTIONS]
    out += [SampleInput(x((0, 4)), t((0,), 4)), SampleInput(x((3, 4)), tg, weight=w),
            SampleInput(x((3, 4)), tg, weight=w, reduction="none"),
            SampleInput(x((3, 4)), np.array([0, -100, 3]), desc="ignored target"),
            SampleInput(x((3, 4)), np.array([0, 2, 3]), ignore_index=2, weight=w),
            SampleInput(x((3, 4)), np.array([-100, -100, -100]), desc="all ignored: nan"),
            SampleInput(x((4,)), np.array(2)), SampleInput(x((4,)), np.array(1), reduction="none"),
            SampleInput(x((2, 3, 4, 5)), t((2, 4, 5), 3), desc="nll_loss2d"),
            SampleInput(x((2, 3, 4, 5)), t((2, 4, 5), 3), reduction="none"),
            SampleInput(x((2, 3, 4)), t((2, 4), 3), weight=w[:3], reduction="sum"),
            SampleInput(x((2, 3, 4)), t((2, 4), 3), reduction="none"),
            SampleInput(x((2, 3, 2, 1, 2)), t((2, 2, 1, 2), 3), reduction="none"),
            SampleInput(transposed((3, 4), dtype, rng), tg, reduction="sum"),
            SampleInput(x((3, 4)), np.array([0, 5, 1]), desc="out of bounds"),
            SampleInput(x((3, 4)), np.array([0, 1]), desc="batch mismatch"),
            SampleInput(x((3, 4)), tg, weight=w[:3], desc="weight size")]
    if ce:
        p = make_array((3, 4), dtype, rng, 0, 1)
        p = p / p.sum(1, keepdims=True)
        out += [SampleInput(x((3, 4)), tg, label_smoothing=0.1),
                SampleInput(x((3, 4)), np.array([0, -100, 3]), weight=w, label_smoothing=0.2),
                SampleInput(x((3, 4)), tg, label_smoothing=0.3, reduction="none"),
                SampleInput(x((3, 4)), tg, weight=w, label_smoothing=0.3, reduction="sum"),
                SampleInput(x((2, 3, 4)), t((2, 4), 3), label_smoothing=0.1),
                SampleInput(x((3, 4)), p, desc="probabilities"),
                SampleInput(x((3, 4)), p, weight=w, reduction="none"),
                SampleInput(x((3, 4)), p, label_smoothing=0.2, reduction="sum"),
                SampleInput(x((2, 3, 4)), make_array((2, 3, 4), dtype, rng, 0, 1)),
                SampleInput(x((0, 4)), make_array((0, 4), dtype, rng)), SampleInput(x((4,)), p[0])]
    return out


def _ce(dtype, rng):
    return _nll(dtype, rng, ce=True)


OP_DB += [
    OpInfo("nn.functional.mse_loss", _weighted_pairs, FLOATS, gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.l1_loss", _weighted_pairs, FLOATS + COMPLEX, gradgrad_samples=2,
           tol=HALF_TOL),
    OpInfo("nn.functional.smooth_l1_loss", _smooth_l1, FLOATS, gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.huber_loss", _huber, FLOATS, gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.soft_margin_loss", _soft_margin, FLOATS + COMPLEX, gradgrad_samples=2,
           tol=HALF_TOL, supports_complex_autograd=False),
    OpInfo("nn.functional.binary_cross_entropy", _bce, FLOATS, gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.binary_cross_entropy_with_logits", _bce_logits, FLOATS,
           gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.kl_div", _kl, FLOATS, gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.poisson_nll_loss", _poisson, FLOATS + INTS + COMPLEX,
           gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.margin_ranking_loss", _margin_ranking, FLOATS + INTS,
           gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.hinge_embedding_loss", _hinge, FLOATS, gradgrad_samples=2,
           tol=HALF_TOL),
    OpInfo("nn.functional.cosine_embedding_loss", _cosine_embedding, FLOATS + INTS + ("bool",),
           gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.nll_loss", _nll, FLOATS, gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.cross_entropy", _ce, FLOATS, gradgrad_samples=2, tol=HALF_TOL),
]
