"""Pooling and resampling against live torch, beyond the OpInfo entries (tests/opinfo/pooling.py,
upsample.py): which index max pooling picks (first max, last NaN, first valid position of an
all -inf window), ceil_mode's last window, the graphs torch builds (1-d pools through the 2-d
op, adaptive (1, 1) as a mean, double-backward node names), F.interpolate's argument errors and
warnings, and channels_last layouts (speed is measured in bench/, not here).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch as _like_torch, node_chain, same

LIBS = (torch, dyngrad)
NAN, INF = float("nan"), float("inf")


def _same(ours, theirs, where=""):
    same(ours, theirs, where, rtol=1e-6, atol=1e-6)


def like_torch(fn):
    _like_torch(fn, rtol=1e-6, atol=1e-6)


def _t(lib, values, requires_grad=False):
    x = lib.tensor(values, dtype=lib.float64)
    return x.requires_grad_() if requires_grad else x


def _rand(lib, shape, seed=0, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    x = lib.from_numpy(a)
    return x.requires_grad_() if requires_grad else x


# -- which index wins ----------------------------------------------------------------------------
@pytest.mark.parametrize("row", [
    [1.0, NAN, 3.0, NAN], [2.0, 2.0, 1.0, 2.0], [-INF, -INF, -INF, -INF], [NAN, -INF, 1.0, NAN],
    [0.0, -0.0, 0.0, -1.0]])
def test_max_pool_tie_breaking(row):
    like_torch(lambda lib: lib.nn.functional.max_pool2d(
        _t(lib, [[[row]]]), (1, 4), return_indices=True))
    like_torch(lambda lib: lib.nn.functional.max_pool2d(
        _t(lib, [[[row]]]), (1, 3), stride=1, padding=(0, 1), return_indices=True))
    like_torch(lambda lib: lib.nn.functional.adaptive_max_pool2d(
        _t(lib, [[[row]]]), (1, 2), return_indices=True))


def test_all_minus_inf_window_with_padding_and_dilation():
    row = [[[[-INF] * 7] * 5]]
    like_torch(lambda lib: lib.nn.functional.max_pool2d(
        _t(lib, row), 3, 2, 1, 2, return_indices=True))


def test_integer_max_pool():
    a = np.iinfo(np.int64).min
    like_torch(lambda lib: lib.nn.functional.max_pool2d(
        lib.tensor([[[[a, a, 3, a], [a, a, a, a]]]]), 2, padding=1, return_indices=True))


@pytest.mark.parametrize("size,k,s,p,d", [(6, 3, 2, 1, 1), (7, 2, 2, 0, 1), (5, 3, 2, 1, 2),
                                          (4, 2, 3, 1, 1), (8, 4, 3, 2, 1)])
def test_ceil_mode_last_window(size, k, s, p, d):
    like_torch(lambda lib: lib.nn.functional.max_pool2d(
        _rand(lib, (1, 2, size, size + 1)), k, s, p, d, ceil_mode=True, return_indices=True))
    like_torch(lambda lib: lib.nn.functional.avg_pool2d(
        _rand(lib, (1, 2, size, size + 1)), k, s, p, ceil_mode=True))
    like_torch(lambda lib: lib.nn.functional.avg_pool2d(
        _rand(lib, (1, 2, size, size + 1)), k, s, p, ceil_mode=True, count_include_pad=False))


def test_avg_pool_int64_truncates():
    like_torch(lambda lib: lib.nn.functional.avg_pool2d(
        lib.tensor([[[[-7, 2, 5], [1, -1, 8]]]]), 2, 1, 1))


# -- errors ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool2d(x, 2, padding=2),
    lambda F, x: F.max_pool2d(x, 7),
    lambda F, x: F.max_pool2d(x, 0),
    lambda F, x: F.max_pool2d(x, 0, stride=1),
    lambda F, x: F.max_pool2d(x, 2, stride=0),
    lambda F, x: F.max_pool2d(x, 2, dilation=0),
    lambda F, x: F.max_pool2d(x, 2, padding=-1),
    lambda F, x: F.max_pool2d(x[0, 0], 2),
    lambda F, x: F.max_pool2d(x, (2, 2, 2)),
    lambda F, x: F.avg_pool2d(x, 2, padding=2),
    lambda F, x: F.avg_pool2d(x, 7),
    lambda F, x: F.avg_pool2d(x, 2, divisor_override=0),
    lambda F, x: F.max_pool1d(x[0], 8),
    lambda F, x: F.max_pool1d(x[0], 2, padding=2),
    lambda F, x: F.max_pool1d(x[0, 0, 0], 2),
    lambda F, x: F.avg_pool1d(x[0], 8),
    lambda F, x: F.adaptive_avg_pool2d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool2d(x, (-1, 2)),
    lambda F, x: F.adaptive_max_pool2d(x[0, 0], 2),
    lambda F, x: F.interpolate(x, size=3, scale_factor=2),
    lambda F, x: F.interpolate(x),
    lambda F, x: F.interpolate(x[0], scale_factor=2, mode="bilinear"),
    lambda F, x: F.interpolate(x, scale_factor=2, mode="linear"),
    lambda F, x: F.interpolate(x, scale_factor=2, align_corners=True),
    lambda F, x: F.interpolate(x, scale_factor=(2, 2, 2)),
    lambda F, x: F.interpolate(x, size=3, recompute_scale_factor=True),
    lambda F, x: F.interpolate(x, size=(0, 2)),
    lambda F, x: F.interpolate(x[0], size=0),
    lambda F, x: F.pixel_shuffle(x, 2),
    lambda F, x: F.pixel_unshuffle(x, 2),
    lambda F, x: F.pixel_shuffle(x, -1),
])
def test_errors_like_torch(call):
    like_torch(lambda lib: call(lib.nn.functional, _rand(lib, (2, 3, 6, 7))))


# -- graphs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool1d(x[0], 3, 2, 1),
    lambda F, x: F.avg_pool1d(x[0], 3, 2, 1),
    lambda F, x: F.adaptive_avg_pool1d(x[0], 4),
    lambda F, x: F.adaptive_avg_pool1d(x[0], 1),
    lambda F, x: F.adaptive_max_pool1d(x[0], 4),
    lambda F, x: F.adaptive_avg_pool2d(x, 1),
    lambda F, x: F.adaptive_avg_pool2d(x.contiguous(memory_format=torch.channels_last
                                                    if isinstance(x, torch.Tensor)
                                                    else dyngrad.channels_last), 1),
])
def test_graph_chain(call):
    outs = [call(lib.nn.functional, _rand(lib, (2, 3, 6, 7), requires_grad=True)) for lib in LIBS]
    assert node_chain(outs[1]) == node_chain(outs[0])
    _same(outs[1], outs[0])


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool2d(x, 3, 2, 1),
    lambda F, x: F.avg_pool2d(x, 3, 2, 1),
    lambda F, x: F.adaptive_avg_pool2d(x, (4, 3)),
    lambda F, x: F.adaptive_max_pool2d(x, (4, 3)),
])
def test_double_backward_node(call):
    names = []
    for lib in LIBS:
        x = _rand(lib, (2, 3, 6, 7), requires_grad=True)
        g, = lib.autograd.grad(call(lib.nn.functional, x).sum(), x, create_graph=True)
        names.append((type(g.grad_fn).__name__, [type(f).__name__ if f else None
                                                 for f, _ in g.grad_fn.next_functions]))
    assert names[0] == names[1]


def test_saved_attributes():
    for call in (lambda F, x: F.max_pool2d(x, 2), lambda F, x: F.avg_pool2d(x, 3, 1, 1),
                 lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear"),
                 lambda F, x: F.interpolate(x, size=(5, 9))):
        nodes = [call(lib.nn.functional, _rand(lib, (2, 3, 6, 7), requires_grad=True)).grad_fn
                 for lib in LIBS]
        for name in ("kernel_size", "stride", "padding", "dilation", "ceil_mode",
                     "count_include_pad", "divisor_override", "output_size", "scales_h",
                     "scales_w", "align_corners", "self_sym_sizes"):
            attr = "_saved_" + name
            if hasattr(nodes[0], attr):
                assert getattr(nodes[1], attr) == tuple(getattr(nodes[0], attr)) \
                    if isinstance(getattr(nodes[0], attr), (tuple, list)) \
                    else getattr(nodes[1], attr) == getattr(nodes[0], attr), attr


# -- layouts, aliases, warnings -------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool2d(x, 2, return_indices=True),
    lambda F, x: F.avg_pool2d(x, 2),
    lambda F, x: F.adaptive_avg_pool2d(x, 3),
    lambda F, x: F.adaptive_max_pool2d(x, 3, return_indices=True),
    lambda F, x: F.interpolate(x, scale_factor=2),
    lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear"),
    lambda F, x: F.pixel_unshuffle(x[..., :6], 2),
])
def test_channels_last_layout(call):
    def run(lib):
        x = _rand(lib, (2, 3, 6, 7)).contiguous(memory_format=lib.channels_last)
        return call(lib.nn.functional, x)
    like_torch(run)


def test_top_level_aliases():
    like_torch(lambda lib: lib.max_pool2d(_rand(lib, (2, 3, 6, 7)), 2))
    like_torch(lambda lib: lib.max_pool1d(_rand(lib, (2, 3, 7)), 2))
    like_torch(lambda lib: lib.avg_pool1d(_rand(lib, (2, 3, 7)), 2))
    like_torch(lambda lib: lib.adaptive_avg_pool1d(_rand(lib, (2, 3, 7)), 3))
    like_torch(lambda lib: lib.adaptive_max_pool1d(_rand(lib, (2, 3, 7)), 3))
    like_torch(lambda lib: lib.pixel_shuffle(_rand(lib, (2, 12, 3, 4)), 2))
    like_torch(lambda lib: lib.nn.functional.max_pool2d_with_indices(_rand(lib, (2, 3, 6, 7)), 2))


def test_upsample_warns():
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.upsample(_rand(lib, (1, 1, 2, 2)), scale_factor=2)
        assert any("deprecated" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        like_torch(lambda lib: lib.nn.functional.upsample_bilinear(_rand(lib, (1, 2, 3, 3)), 5))
        like_torch(lambda lib: lib.nn.functional.upsample_nearest(_rand(lib, (1, 2, 3, 3)), 5))


@pytest.mark.parametrize("scale", [0.3, 1.7, 2.0, 3.1, 0.5])
def test_fractional_scales(scale):
    for mode, ac in (("nearest", None), ("bilinear", False), ("bilinear", True)):
        like_torch(lambda lib: lib.nn.functional.interpolate(
            _rand(lib, (1, 2, 7, 9)), scale_factor=scale, mode=mode, align_corners=ac))
    like_torch(lambda lib: lib.nn.functional.interpolate(
        _rand(lib, (1, 2, 9)), scale_factor=scale, mode="linear"))


def test_pixel_shuffle_round_trip():
    x = _rand(dyngrad, (2, 3, 2, 6, 4))
    assert dyngrad.equal(dyngrad.nn.functional.pixel_shuffle(
        dyngrad.nn.functional.pixel_unshuffle(x, 2), 2), x)


@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("shape", [(1, 1, 8), (1, 8), (8,), (2, 1, 1, 8), (1, 0, 8), (0, 1, 8),
                                   (0, 8), (1, 1, 0)])
def test_max_pool1d_checks_like_torch(shape, return_indices):
    """max_pool1d checks its arguments its own way; with return_indices torch runs
    max_pool1d_with_indices, whose checks are the 2-d op's (other messages, another order)."""
    cases = [dict(kernel_size=2, padding=2), dict(kernel_size=0), dict(kernel_size=2, stride=0),
             dict(kernel_size=2, padding=-1), dict(kernel_size=2, dilation=0),
             dict(kernel_size=9), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)]
    for kw in cases:
        for dtype in ("float32", "int64"):
            got = []
            for lib in (torch, dyngrad):
                x = lib.tensor(np.arange(np.prod(shape)).reshape(shape).astype(dtype))
                try:
                    r = lib.nn.functional.max_pool1d(x, return_indices=return_indices, **kw)
                    got.append([t.tolist() for t in r] if return_indices else r.tolist())
                except Exception as e:   # noqa: BLE001 (compared with torch's)
                    got.append(f"{type(e).__name__}: {e}")
            assert got[1] == got[0], (kw, dtype)
