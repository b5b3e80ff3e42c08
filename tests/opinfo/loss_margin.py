"""OpInfo entries for dyngrad/ops/loss_margin.py: multi_margin_loss, multilabel_margin_loss
(primitives) and the composites multilabel_soft_margin_loss, gaussian_nll_loss and
triplet_margin_with_distance_loss; and for dyngrad/ops/loss_ctc.py: ctc_loss.

torch's margin kernels leave an empty batch's 'mean' and 'sum' uninitialised (random values),
so empty batches are sampled with reduction='none' only.
"""
from __future__ import annotations

import numpy as np

from .core import COMPLEX, FLOATS, INTS, OP_DB, OpInfo, SampleInput, sliced, transposed
from .loss import HALF_TOL, REDUCTIONS, make_array

MARGIN_DTYPES = ("float32", "float64")     # torch's CPU kernels: no float16


def _classes(shape, c, rng):
    return rng.integers(0, c, size=shape).astype("int64")


def _multi_margin(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -2, 2)
    t = _classes((3,), 4, rng)
    w = make_array((4,), dtype, rng, 0.2, 1)
    out = [SampleInput(x((3, 4)), t, reduction=r) for r in REDUCTIONS]
    out += [SampleInput(x((3, 4)), t, p=2, reduction=r) for r in REDUCTIONS]
    out += [SampleInput(x((3, 4)), t, margin=0.5, reduction="none"),
            SampleInput(x((3, 4)), t, p=2, margin=2.0),
            SampleInput(x((3, 4)), t, weight=w),
            SampleInput(x((3, 4)), t, p=2, weight=w, reduction="none"),
            SampleInput(x((5,)), _classes((), 5, rng)),
            SampleInput(x((5,)), _classes((1,), 5, rng), reduction="none"),
            SampleInput(x(()), np.array(0), reduction="none"),
            SampleInput(x((0, 4)), _classes((0,), 4, rng), reduction="none"),
            SampleInput(transposed((3, 4), dtype, rng, low=-2, high=2), t, reduction="none"),
            SampleInput(sliced((3, 4), dtype, rng, low=-2, high=2), t, p=2, reduction="sum"),
            SampleInput(x((3, 4)), np.array([0, 4, 1]), desc="target out of range: error"),
            SampleInput(x((3, 4)), t[:2], desc="target size: error"),
            SampleInput(x((3, 4)), t.astype("int32"), desc="int32 target: error"),
            SampleInput(x((3, 0)), t, desc="no classes: error"),
            SampleInput(x((2, 3, 4)), t[:2], desc="3-d input: error"),
            SampleInput(x((3, 4)), t, weight=w[:3], desc="weight size: error"),
            SampleInput(x((3, 4)), t, p=3, desc="p = 3: error"),
            SampleInput(x((3, 4)), t, reduction="bad", desc="reduction: error")]
    return out


def _multilabel_margin(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -2, 2)
    t = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 1, 0, 0]])
    repeated = np.array([[3, 3, -1, 1], [2, 0, -1, 3], [1, -1, 0, 0]])
    out = [SampleInput(x((3, 4)), t, reduction=r) for r in REDUCTIONS]
    out += [SampleInput(x((3, 4)), repeated, reduction="none", desc="repeated classes"),
            SampleInput(x((4,)), np.array([2, 0, -1, 3])),
            SampleInput(x((4,)), np.array([1, -1, 0, 0]), reduction="none"),
            SampleInput(x(()), np.array(0), reduction="none"),
            SampleInput(x((0, 4)), np.zeros((0, 4), "int64"), reduction="none"),
            SampleInput(transposed((3, 4), dtype, rng, low=-2, high=2), t, reduction="sum"),
            SampleInput(x((3, 4)), t[:2], desc="target size: error"),
            SampleInput(x((3, 4)), t + 1, desc="target out of range: error"),
            SampleInput(x((3, 4)), t - 2, desc="target below -1: error"),
            SampleInput(x((3, 4)), t.astype("float64"), desc="float target: error"),
            SampleInput(x((3, 0)), t[:, :0], desc="no classes: error")]
    return out


def _multilabel_soft_margin(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -3, 3)

    def y(shape):
        return (rng.random(shape) < 0.5).astype(dtype)
    w = make_array((4,), dtype, rng, 0.2, 1)
    out = [SampleInput(x((3, 4)), y((3, 4)), reduction=r) for r in REDUCTIONS]
    return out + [SampleInput(x((3, 4)), y((3, 4)), weight=w),
                  SampleInput(x((3, 4)), y((3, 4)), weight=w, reduction="none"),
                  SampleInput(x((4,)), y((4,))),
                  SampleInput(x((2, 3, 4)), y((2, 3, 4)), reduction="none"),
                  SampleInput(transposed((3, 4), dtype, rng, low=-3, high=3), y((3, 4))),
                  SampleInput(x((3, 4)), make_array((3, 4), dtype, rng, 0, 1), reduction="sum",
                              desc="soft labels"),
                  SampleInput(x((3, 4)), y((3, 4)), reduction="bad", desc="reduction: error")]


def _gaussian_nll(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -2, 2)

    def v(shape):
        return make_array(shape, dtype, rng, 0.2, 2)
    out = [SampleInput(x((3, 4)), x((3, 4)), v((3, 4)), reduction=r) for r in REDUCTIONS]
    if dtype not in FLOATS:
        return out
    small = v((3, 4))
    small[0, 0] = 1e-8          # clamped at eps
    return out + [
        SampleInput(x((3, 4)), x((3, 4)), v((3,)), desc="homoscedastic: var one dim short"),
        SampleInput(x((3, 4)), x((3, 4)), v((3, 1)), full=True, reduction="none"),
        SampleInput(x((2, 3, 4)), x((2, 3, 4)), v((2, 1, 4)), reduction="sum"),
        SampleInput(x((3, 4)), x((3, 4)), 0.5, desc="float var"),
        SampleInput(x((3, 4)), x((3, 4)), small, eps=1e-3, reduction="none", desc="clamped var"),
        SampleInput(x((3, 4)), x((3, 4)), v((3, 4)), full=True),
        SampleInput(transposed((3, 4), dtype, rng, low=-2, high=2), x((3, 4)), v((3, 4)),
                    reduction="none"),
        SampleInput(x((3, 4)), x((3, 4)), v((2, 4)), desc="var size: error"),
        SampleInput(x((3, 4)), x((3, 4)), v((1, 1)), desc="two dims differ: error"),
        SampleInput(x((3, 4)), x((3, 4)), -v((3, 4)), desc="negative var: error"),
        SampleInput(x((3, 4)), x((3, 4)), -0.5, desc="negative float var: error"),
        SampleInput(x((3, 4)), x((3, 4)), v((3, 4)), reduction="bad", desc="reduction: error")]


def _l1_distance(a, b):
    """A custom distance written with Tensor methods (so one callable serves both libraries)."""
    return (a - b).abs().sum(-1)


def _triplet_with_distance(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng, -2, 2)
    out = [SampleInput(x((3, 4)), x((3, 4)), x((3, 4)), reduction=r) for r in REDUCTIONS]
    return out + [
        SampleInput(x((3, 4)), x((3, 4)), x((3, 4)), swap=True, margin=2.0),
        SampleInput(x((3, 4)), x((3, 4)), x((3, 4)), distance_function=_l1_distance,
                    reduction="none"),
        SampleInput(x((3, 4)), x((3, 4)), x((3, 4)), distance_function=_l1_distance, swap=True,
                    reduction="sum"),
        SampleInput(x((4,)), x((4,)), x((4,))),
        SampleInput(transposed((3, 4), dtype, rng, low=-2, high=2), x((3, 4)), x((3, 4)),
                    reduction="none"),
        SampleInput(x((3, 4)), x((3, 4)), x((4,)), desc="dims differ: error"),
        SampleInput(x((3, 4)), x((3, 4)), x((3, 4)), margin=0.0, desc="margin 0: error"),
        SampleInput(x((3, 4)), x((3, 4)), x((3, 4)), reduction="bad", desc="reduction: error")]


OP_DB += [
    OpInfo("nn.functional.multi_margin_loss", _multi_margin, MARGIN_DTYPES, gradgrad_samples=3),
    OpInfo("nn.functional.multilabel_margin_loss", _multilabel_margin, MARGIN_DTYPES,
           gradgrad_samples=3),
    OpInfo("nn.functional.multilabel_soft_margin_loss", _multilabel_soft_margin, FLOATS,
           gradgrad_samples=2, tol=HALF_TOL),
    OpInfo("nn.functional.gaussian_nll_loss", _gaussian_nll, FLOATS, gradgrad_samples=2,
           tol=HALF_TOL),
    OpInfo("nn.functional.triplet_margin_with_distance_loss", _triplet_with_distance,
           FLOATS + INTS + COMPLEX, gradgrad_samples=2, tol=HALF_TOL),
]


# -- ctc_loss (dyngrad/ops/loss_ctc.py) ----------------------------------------------------------
def _ctc(dtype, rng):
    """(T, N, C) = (6, 3, 5) log-probabilities (any values: the loss does not need them
    normalised), padded or concatenated targets, lengths as tensors or lists."""
    def lp(shape):
        return make_array(shape, dtype, rng, -3, 0)
    targets = np.array([[1, 2, 2], [3, 1, 4], [4, 0, 0]])
    il, tl = np.array([6, 5, 4]), np.array([3, 2, 1])
    out = [SampleInput(lp((6, 3, 5)), targets, il, tl, reduction=r) for r in REDUCTIONS]
    return out + [
        SampleInput(lp((6, 3, 5)), np.array([1, 2, 2, 3, 1, 4]), il, tl, reduction="none",
                    desc="concatenated targets"),
        SampleInput(lp((6, 3, 5)), targets, [6, 5, 4], [3, 2, 1], desc="lists"),
        SampleInput(lp((6, 3, 5)), np.array([[1, 1, 2], [2, 2, 2], [4, 1, 1]]), il,
                    np.array([3, 3, 2]), blank=2, reduction="sum",
                    desc="repeats, labels equal to blank"),
        SampleInput(lp((6, 3, 5)), targets, np.array([0, 5, 4]), np.array([0, 2, 0]),
                    reduction="none", desc="empty input and targets"),
        SampleInput(lp((6, 3, 5)), targets, np.array([2, 5, 4]), tl, zero_infinity=True,
                    desc="impossible alignment, zeroed"),
        SampleInput(lp((6, 3, 5)), targets, np.array([2, 5, 4]), tl, zero_infinity=True,
                    reduction="none"),
        SampleInput(lp((6, 5)), np.array([1, 2, 2]), np.array(6), np.array(3),
                    reduction="none", desc="unbatched"),
        SampleInput(transposed((6, 5), dtype, rng, low=-3, high=0), np.array([1, 3]),
                    np.array(5), np.array(2)),
        SampleInput(sliced((6, 5), dtype, rng, low=-3, high=0), np.array([4, 4]), [6], [2],
                    reduction="sum"),
        SampleInput(lp((6, 3, 5)), targets, il, tl, blank=5, desc="blank out of range: error"),
        SampleInput(lp((6, 3, 5)), targets, np.array([7, 5, 4]), tl, desc="input too long: error"),
        SampleInput(lp((6, 3, 5)), targets, il, np.array([4, 2, 1]),
                    desc="target too long: error"),
        SampleInput(lp((6, 3, 5)), targets[:2], il, tl, desc="target batch: error"),
        SampleInput(lp((6, 3, 5)), targets, il[:2], tl, desc="lengths size: error"),
        SampleInput(lp((6, 3, 5)), targets, il.astype("float64"), tl,
                    desc="float lengths: error"),
        SampleInput(lp((6, 3, 5)), targets, il, tl, reduction="bad", desc="reduction: error")]


# torch's log_alpha (CtcLossBackward0._saved_result1) is torch.empty past each element's input
# and target lengths: those entries hold whatever memory held (ours hold -inf), so the saved
# values cannot agree; tests/test_loss_ctc.py compares the graph and log_alpha's defined part.
CTC_SAVED = "torch leaves log_alpha (_saved_result1) uninitialised past each element's lengths"
OP_DB.append(OpInfo("nn.functional.ctc_loss", _ctc, MARGIN_DTYPES, gradgrad_samples=2,
                    xfail={"graph_parity": CTC_SAVED}))
