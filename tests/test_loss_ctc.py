"""ctc_loss against live torch: values and gradients on a larger random batch, the graph torch
records (which the OpInfo graph test cannot compare: torch's saved log_alpha is uninitialised
past each element's lengths), the defined part of log_alpha, errors, torch.ctc_loss's reduction
codes and nn.CTCLoss."""
import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch

RNG = np.random.default_rng(3)
T, N, C, S = 30, 5, 7, 8
LOGITS = RNG.standard_normal((T, N, C)) * 3
TARGETS = RNG.integers(0, C, (N, S))
TARGETS[1, 2:4] = 3                    # repeats and labels equal to the blank below
IL = np.array([30, 22, 17, 23, 1])
TL = np.array([0, 4, 5, 7, 1])


def _inputs(lib, dtype="float64", unbatched=False):
    x = lib.tensor(LOGITS.astype(dtype)).log_softmax(-1).detach().requires_grad_()
    if unbatched:
        return x[:, 3].detach().requires_grad_(), lib.tensor(TARGETS[3, :7]), 23, 7
    return x, lib.tensor(TARGETS), lib.tensor(IL), lib.tensor(TL)


@pytest.mark.parametrize("blank", [0, 3])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients(blank, reduction, dtype):
    def fn(lib):
        x, t, il, tl = _inputs(lib, dtype)
        loss = lib.nn.functional.ctc_loss(x, t, il, tl, blank=blank, reduction=reduction)
        g = lib.ones_like(loss) if reduction == "none" else None
        return (loss,) + lib.autograd.grad(loss, x, g)
    like_torch(fn, rtol=1e-4 if dtype == "float32" else 1e-10,
               atol=2e-5 if dtype == "float32" else 1e-12)


def test_concatenated_targets_equal_padded():
    def fn(lib):
        x, _, il, tl = _inputs(lib)
        flat = lib.tensor(np.concatenate([TARGETS[b, :n] for b, n in enumerate(TL)]))
        loss = lib.nn.functional.ctc_loss(x, flat, il, tl, reduction="sum")
        return (loss,) + lib.autograd.grad(loss, x)
    like_torch(fn, rtol=1e-10, atol=1e-12)


def test_unbatched():
    def fn(lib):
        x, t, il, tl = _inputs(lib, unbatched=True)
        loss = lib.nn.functional.ctc_loss(x, t, lib.tensor(il), lib.tensor(tl),
                                          reduction="none")
        return (loss,) + lib.autograd.grad(loss, x)
    like_torch(fn, rtol=1e-10, atol=1e-12)


def _names(fn, depth=4):
    """Node names, breadth first, with the None-ness of each edge."""
    out, level = [], [fn]
    for _ in range(depth):
        nxt = []
        for node in level:
            out.append(type(node).__name__)
            for child, nr in node.next_functions:
                out.append(None if child is None else nr)
                if child is not None:
                    nxt.append(child)
        level = nxt
    return out


@pytest.mark.parametrize("kwargs", [dict(reduction="mean"), dict(reduction="sum"),
                                    dict(reduction="none", zero_infinity=True),
                                    dict(reduction="mean", zero_infinity=True)])
def test_graph(kwargs):
    graphs = []
    for lib in (torch, dyngrad):
        x, t, il, tl = _inputs(lib)
        graphs.append(_names(lib.nn.functional.ctc_loss(x, t, il, tl, **kwargs).grad_fn))
    assert graphs[0] == graphs[1]


def test_unbatched_graph():
    graphs = []
    for lib in (torch, dyngrad):
        x, t, il, tl = _inputs(lib, unbatched=True)
        graphs.append(_names(lib.nn.functional.ctc_loss(x, t, [il], [tl],
                                                        reduction="none").grad_fn))
    assert graphs[0] == graphs[1] and graphs[0][0] == "SqueezeBackward1"


def test_saved_values():
    """Every saved value torch shows, and log_alpha where torch defines it: frames before each
    element's input length, states up to 2 * target length."""
    nodes = []
    for lib in (torch, dyngrad):
        x, t, il, tl = _inputs(lib)
        nodes.append(lib.nn.functional.ctc_loss(x, t, il, tl, reduction="none").grad_fn)
    theirs, ours = nodes
    assert type(ours).__name__ == type(theirs).__name__ == "CtcLossBackward0"
    for name in ("blank", "zero_infinity", "input_lengths", "target_lengths"):
        assert list(np.ravel(getattr(ours, "_saved_" + name))) == \
            list(np.ravel(getattr(theirs, "_saved_" + name))), name
    for name in ("log_probs", "targets", "result0"):
        np.testing.assert_allclose(getattr(ours, "_saved_" + name).detach().numpy(),
                                   getattr(theirs, "_saved_" + name).detach().numpy(),
                                   rtol=1e-10, atol=1e-12, err_msg=name)
    a, ta = ours._saved_result1.numpy(), theirs._saved_result1.numpy()
    assert a.shape == ta.shape == (N, T, 2 * TL.max() + 1)
    for b in range(N):
        np.testing.assert_allclose(a[b, :IL[b], :2 * TL[b] + 1], ta[b, :IL[b], :2 * TL[b] + 1],
                                   rtol=1e-10, atol=1e-12)


def test_impossible_alignment():
    """An input too short for its target: an infinite loss and NaN gradients, or zeros with
    zero_infinity."""
    il = np.array([30, 22, 17, 5, 1])
    for zero_infinity in (False, True):
        def fn(lib):
            x, t, _, tl = _inputs(lib)
            loss = lib.nn.functional.ctc_loss(x, t, lib.tensor(il), tl, reduction="sum",
                                              zero_infinity=zero_infinity)
            return (loss,) + lib.autograd.grad(loss, x)
        like_torch(fn, rtol=1e-10, atol=1e-12)


def test_empty_targets():
    """All targets empty, concatenated (an empty tensor) or padded (N, 0)."""
    for targets in (np.zeros(0, "int64"), np.zeros((N, 0), "int64")):
        def fn(lib):
            x = _inputs(lib)[0]
            loss = lib.nn.functional.ctc_loss(x, lib.tensor(targets), lib.tensor(IL),
                                              lib.zeros(N, dtype=lib.int64), reduction="mean")
            return (loss,) + lib.autograd.grad(loss, x)
        like_torch(fn, rtol=1e-10, atol=1e-12)


def test_empty_input():
    def fn(lib):
        x, t, _, _ = _inputs(lib)
        loss = lib.nn.functional.ctc_loss(x, t, [0, 0, 3, 3, 1], [0, 1, 0, 1, 1],
                                          reduction="none")
        return (loss,) + lib.autograd.grad(loss.sum(), x)
    like_torch(fn, rtol=1e-10, atol=1e-12)


def test_double_backward_is_not_implemented():
    def fn(lib):
        x, t, il, tl = _inputs(lib)
        g, = lib.autograd.grad(lib.nn.functional.ctc_loss(x, t, il, tl), x, create_graph=True)
        assert type(g.grad_fn).__name__ == "NotImplemented"
        return lib.autograd.grad(g.sum(), x)
    like_torch(fn)


def test_target_and_length_dtypes():
    def fn(lib):
        x, t, il, tl = _inputs(lib)
        return (lib.nn.functional.ctc_loss(x, t.double(), il.int(), tl.short()),
                lib.nn.functional.ctc_loss(x, t.int(), tuple(IL.tolist()), TL.tolist()))
    like_torch(fn, rtol=1e-10)


def test_aten_function_takes_reduction_codes():
    for code in (0, 1, 2):
        def fn(lib):
            x, t, il, tl = _inputs(lib)
            return lib.ctc_loss(x, t, il, tl, 3, code, True)
        like_torch(fn, rtol=1e-10)


@pytest.mark.parametrize("case", [
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il.float(), tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il, tl > 0),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il, tl, blank=-1),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il, tl, blank=7),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il + 1, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il - 2, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il, tl - 1),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il, tl + 2),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t[:4], il, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t[None], il, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t[0], il, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il[:4], tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il, tl[:3]),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x[None], t, il, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x.half(), t, il, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x.long(), t, il, tl),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x, t, il, tl, reduction="avg"),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x[:0], t, il * 0, tl * 0),
    lambda lib, x, t, il, tl: lib.nn.functional.ctc_loss(x[:0].half(), t, il * 0, tl * 0),
], ids=lambda f: "")
def test_errors(case):
    like_torch(lambda lib: case(lib, *_inputs(lib)))


# -- nn.CTCLoss ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, dict(blank=3, reduction="sum"),
                                    dict(reduction="none", zero_infinity=True)])
def test_module(kwargs):
    ours, theirs = dyngrad.nn.CTCLoss(**kwargs), torch.nn.CTCLoss(**kwargs)
    assert repr(ours) == repr(theirs)
    assert (ours.blank, ours.reduction, ours.zero_infinity) == \
        (theirs.blank, theirs.reduction, theirs.zero_infinity)

    def fn(lib):
        x, t, _, tl = _inputs(lib)
        module = ours if lib is dyngrad else theirs
        loss = module(x, t, lib.tensor([30, 22, 17, 5, 1]), tl)
        g = lib.ones_like(loss) if loss.dim() else None
        return (loss,) + lib.autograd.grad(loss, x, g)
    like_torch(fn, rtol=1e-10, atol=1e-12)
