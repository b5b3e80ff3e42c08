"""3-d pooling, max unpooling, LP pooling and channel shuffle against live torch, beyond the OpInfo
entries (tests/opinfo/pooling3d.py, unpool.py, lp_pool.py): the modules (reprs, forward and
gradients), which index max_pool3d picks, ceil_mode's last window, the graphs torch builds
(adaptive (1, 1, 1) as a mean restrided for channels_last_3d, double-backward nodes, the LP
pools' composite graph), unpooling's output sizes and invalid-index errors, and layouts.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch as _like_torch
from nn.helpers import check_forward_backward

NAN, INF = float("nan"), float("inf")


def like_torch(fn):
    _like_torch(fn, rtol=1e-6, atol=1e-6)


def _rand(lib, shape, seed=0, requires_grad=False):
    x = lib.from_numpy(np.random.default_rng(seed).standard_normal(shape))
    return x.requires_grad_() if requires_grad else x


def _names(fn):
    """grad_fn names of a graph, depth first."""
    out = []

    def walk(node):
        if node is None:
            return
        out.append(type(node).__name__)
        for nxt, _ in node.next_functions:
            walk(nxt)
    walk(fn)
    return [n.replace("torch::autograd::", "") for n in out]


# -- modules ------------------------------------------------------------------------------------
def f(*shape):
    return lambda rng: rng.standard_normal(shape)


MODULES = [
    ("MaxPool3d", lambda nn: nn.MaxPool3d(2), [f(2, 3, 4, 5, 6)]),
    ("MaxPool3d_full", lambda nn: nn.MaxPool3d((3, 2, 3), (2, 1, 2), 1, (1, 2, 1),
                                               return_indices=True, ceil_mode=True),
     [f(2, 2, 5, 6, 7)]),
    ("MaxPool3d_unbatched", lambda nn: nn.MaxPool3d(2, 1), [f(2, 3, 4, 5)]),
    ("AvgPool3d", lambda nn: nn.AvgPool3d(2), [f(2, 3, 4, 5, 6)]),
    ("AvgPool3d_full", lambda nn: nn.AvgPool3d((3, 2, 3), 2, 1, True, False, None),
     [f(2, 2, 5, 6, 7)]),
    ("AvgPool3d_divisor", lambda nn: nn.AvgPool3d(2, 1, divisor_override=3), [f(2, 3, 4, 5)]),
    ("AdaptiveAvgPool3d", lambda nn: nn.AdaptiveAvgPool3d((None, 2, 3)), [f(2, 3, 4, 5, 6)]),
    ("AdaptiveAvgPool3d_one", lambda nn: nn.AdaptiveAvgPool3d(1), [f(2, 3, 4, 5, 6)]),
    ("AdaptiveMaxPool3d", lambda nn: nn.AdaptiveMaxPool3d((3, 2, 4), return_indices=True),
     [f(2, 3, 4, 5, 6)]),
    ("AdaptiveMaxPool3d_big", lambda nn: nn.AdaptiveMaxPool3d(7), [f(3, 4, 5, 6)]),
    ("LPPool1d", lambda nn: nn.LPPool1d(2, 3, 2), [f(2, 3, 9)]),
    ("LPPool2d", lambda nn: nn.LPPool2d(2.0, (2, 3), ceil_mode=True), [f(2, 3, 5, 7)]),
    ("LPPool3d", lambda nn: nn.LPPool3d(2, 2), [f(2, 3, 4, 4, 6)]),
    ("LPPool2d_inf", lambda nn: nn.LPPool2d(INF, 2), [f(2, 3, 4, 6)]),
    ("ChannelShuffle", lambda nn: nn.ChannelShuffle(2), [f(2, 4, 3, 3)]),
    ("ChannelShuffle_3d", lambda nn: nn.ChannelShuffle(3), [f(2, 6, 5)]),
]


@pytest.mark.parametrize("name,make,inputs", MODULES, ids=[m[0] for m in MODULES])
def test_module_repr(name, make, inputs):
    ours, theirs = make(dyngrad.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == []


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,inputs", MODULES, ids=[m[0] for m in MODULES])
def test_module_forward_backward(name, make, inputs, dtype):
    rng = np.random.default_rng(0)
    check_forward_backward(make(dyngrad.nn), make(torch.nn), [g(rng) for g in inputs], dtype)


@pytest.mark.parametrize("dims,shape", [(1, (2, 3, 9)), (2, (2, 3, 6, 7)), (3, (2, 2, 4, 5, 6))])
@pytest.mark.parametrize("output_size", [None, "default", "bigger", "full"])
def test_unpool_modules_invert_pooling(dims, shape, output_size):
    def run(lib):
        nn = lib.nn
        pool = getattr(nn, f"MaxPool{dims}d")(2, return_indices=True)
        unpool = getattr(nn, f"MaxUnpool{dims}d")(2)
        x = _rand(lib, shape, requires_grad=True)
        out, idx = pool(x)
        size = {None: None, "default": tuple(x.shape[-dims:]),
                "bigger": tuple(s + 1 for s in x.shape[-dims:]), "full": x.size()}[output_size]
        back = unpool(out, idx, output_size=size)
        grad, = lib.autograd.grad((back * back).sum(), x)
        return back, grad
    like_torch(run)
    assert repr(dyngrad.nn.MaxUnpool2d(3, 1, 1)) == repr(torch.nn.MaxUnpool2d(3, 1, 1))


# -- max_pool3d: which index wins ------------------------------------------------------------
@pytest.mark.parametrize("row", [
    [1.0, NAN, 3.0, NAN], [2.0, 2.0, 1.0, 2.0], [-INF, -INF, -INF, -INF], [NAN, -INF, 1.0, NAN],
    [0.0, -0.0, 0.0, -1.0]])
def test_max_pool3d_tie_breaking(row):
    def t(lib):
        return lib.tensor([[[[row, row[::-1]]]]], dtype=lib.float64)
    like_torch(lambda lib: lib.nn.functional.max_pool3d(t(lib), (1, 2, 4), return_indices=True))
    like_torch(lambda lib: lib.nn.functional.max_pool3d(
        t(lib), (1, 1, 3), stride=1, padding=(0, 0, 1), return_indices=True))
    like_torch(lambda lib: lib.nn.functional.adaptive_max_pool3d(
        t(lib), (1, 1, 2), return_indices=True))


def test_all_minus_inf_window_with_padding_and_dilation():
    volume = [[[[[-INF] * 7] * 5] * 3]]
    like_torch(lambda lib: lib.nn.functional.max_pool3d(
        lib.tensor(volume, dtype=lib.float64), 3, 2, 1, 2, return_indices=True))


def test_integer_max_pool3d():
    a = np.iinfo(np.int64).min
    like_torch(lambda lib: lib.nn.functional.max_pool3d(
        lib.tensor([[[[[a, a, 3, a], [a, a, a, a]]]]]), 2, padding=1, return_indices=True))


@pytest.mark.parametrize("size,k,s,p,d", [(6, 3, 2, 1, 1), (7, 2, 2, 0, 1), (5, 3, 2, 1, 2),
                                          (4, 2, 3, 1, 1), (8, 4, 3, 2, 1)])
def test_ceil_mode_last_window(size, k, s, p, d):
    shape = (1, 2, size, size + 1, size - 1)
    like_torch(lambda lib: lib.nn.functional.max_pool3d(
        _rand(lib, shape), k, s, p, d, ceil_mode=True, return_indices=True))
    like_torch(lambda lib: lib.nn.functional.avg_pool3d(_rand(lib, shape), k, s, p, True))
    like_torch(lambda lib: lib.nn.functional.avg_pool3d(_rand(lib, shape), k, s, p, True, False))


def test_avg_pool3d_int64_truncates():
    like_torch(lambda lib: lib.nn.functional.avg_pool3d(
        lib.tensor([[[[[-7, 2, 5], [1, -1, 8]]]]]), (1, 2, 2), 1, (0, 1, 1)))


def test_adaptive_avg_pool3d_half_sums_in_half():
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5, 6)).astype(np.float16)
    _like_torch(lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.from_numpy(x), (2, 3, 4)))


# -- graphs and layouts ------------------------------------------------------------------------
def _channels_last_3d(lib, requires_grad=True):
    x = _rand(lib, (2, 3, 4, 5, 6)).contiguous(memory_format=lib.channels_last_3d)
    return x.requires_grad_() if requires_grad else x


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool3d(x, 2, return_indices=True),
    lambda F, x: F.avg_pool3d(x, 2),
    lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
    lambda F, x: F.adaptive_avg_pool3d(x, 1),
    lambda F, x: F.adaptive_max_pool3d(x, 2, True),
    lambda F, x: F.lp_pool3d(x, 2, 2),
    lambda F, x: F.channel_shuffle(x, 3),
], ids=["max", "avg", "adaptive_avg", "adaptive_avg_one", "adaptive_max", "lp", "shuffle"])
def test_channels_last_3d_results_and_gradients(call):
    def run(lib):
        x = _channels_last_3d(lib)
        out = call(lib.nn.functional, x)
        first = out[0] if isinstance(out, tuple) else out
        grad, = lib.autograd.grad((first * first).sum(), x)
        return out, grad
    like_torch(run)


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool3d(x, 2, 1, 1),
    lambda F, x: F.avg_pool3d(x, 3, 2, 1, True, False),
    lambda F, x: F.adaptive_avg_pool3d(x, (3, 2, 4)),
    lambda F, x: F.adaptive_max_pool3d(x, (3, 2, 4)),
    lambda F, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2,
                                output_size=x.shape[2:]),
    lambda F, x: F.max_unpool2d(*F.max_pool2d(x[0], 2, return_indices=True), 2,
                                output_size=x.shape[3:]),
    lambda F, x: F.channel_shuffle(x, 3),
], ids=["max", "avg", "adaptive_avg", "adaptive_max", "unpool3d", "unpool2d", "shuffle"])
def test_double_backward_graph(call):
    """The gradient's own graph (the ...BackwardBackward0 nodes, or gather for unpooling)."""
    def run(lib):
        x = _rand(lib, (2, 3, 4, 5, 6), requires_grad=True)
        out = call(lib.nn.functional, x)
        w = _rand(lib, tuple(out.shape), seed=1, requires_grad=True)
        grad, = lib.autograd.grad((out * w).sum(), x, create_graph=True)
        names = _names(grad.grad_fn)
        gg = lib.autograd.grad((grad * grad).sum(), (x, w), allow_unused=True)
        return grad, names, [g for g in gg if g is not None]
    torch_result, ours = run(torch), run(dyngrad)
    assert ours[1] == torch_result[1]
    _like_torch(lambda lib: run(lib)[0], rtol=1e-6, atol=1e-6)
    for a, b in zip(ours[2], torch_result[2]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


def test_adaptive_avg_pool3d_one_is_a_mean():
    for make in (lambda lib: _rand(lib, (2, 3, 4, 5, 6), requires_grad=True),
                 lambda lib: _channels_last_3d(lib), lambda lib: _rand(lib, (3, 4, 5, 6))):
        like_torch(lambda lib: lib.nn.functional.adaptive_avg_pool3d(make(lib), (1, 1, 1)))
    assert _names(dyngrad.nn.functional.adaptive_avg_pool3d(
        _channels_last_3d(dyngrad), 1).grad_fn) == ["AsStridedBackward1", "MeanBackward1",
                                                     "AccumulateGrad"]


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("p", [2, 3.0, INF, -INF])
def test_lp_pool_graph(dims, p):
    shape = (2, 3, 4, 6, 6)[:dims + 2]

    def run(lib):
        fn = getattr(lib.nn.functional, f"lp_pool{dims}d")
        x = lib.from_numpy(np.random.default_rng(0).uniform(0.5, 2, shape)).requires_grad_()
        return fn(x, p, 2)
    assert _names(run(dyngrad).grad_fn) == _names(run(torch).grad_fn)
    like_torch(run)


def test_native_channel_shuffle_has_no_derivative():
    def run(lib):
        x = _rand(lib, (2, 4, 3), requires_grad=True)
        return lib.native_channel_shuffle(x, 2).sum().backward()
    like_torch(run)
    like_torch(lambda lib: lib.native_channel_shuffle(_rand(lib, (2, 4, 3), requires_grad=True),
                                                      2))


# -- unpooling ------------------------------------------------------------------------------
def test_unpool_reports_the_last_invalid_index():
    """ATen's serial loop keeps the last invalid index it meets (per pixel when channels_last)."""
    values = np.arange(36.0).reshape(2, 3, 2, 3)
    index = (np.arange(36) * 3).reshape(2, 3, 2, 3)
    like_torch(lambda lib: lib.nn.functional.max_unpool2d(
        lib.from_numpy(values), lib.from_numpy(index), 2))
    like_torch(lambda lib: lib.nn.functional.max_unpool2d(
        lib.from_numpy(values).contiguous(memory_format=lib.channels_last),
        lib.from_numpy(index).contiguous(memory_format=lib.channels_last), 2))
    like_torch(lambda lib: lib.nn.functional.max_unpool3d(
        lib.from_numpy(values[None]), lib.from_numpy(index[None] - 40), 2))


def test_unpool_repeated_indices_keep_the_last_value():
    index = np.array([0, 1, 0, 2, 1, 0] * 6).reshape(2, 3, 2, 3)
    like_torch(lambda lib: lib.nn.functional.max_unpool2d(
        _rand(lib, (2, 3, 2, 3)), lib.from_numpy(index), 2))


@pytest.mark.parametrize("output_size", [(9,), (2, 3, 8), (12,), (7, 7), [8]])
def test_unpool1d_output_size(output_size):
    like_torch(lambda lib: lib.nn.functional.max_unpool1d(
        *lib.nn.functional.max_pool1d(_rand(lib, (2, 3, 8)), 2, return_indices=True), 2,
        output_size=output_size))


def test_unpool_argument_errors():
    def pooled(lib):
        return lib.nn.functional.max_pool2d(_rand(lib, (2, 3, 4, 6)), 2, return_indices=True)
    for call in (lambda lib: lib.nn.functional.max_unpool2d([1.0], pooled(lib)[1], 2),
                 lambda lib: lib.nn.functional.max_unpool2d(pooled(lib)[0], [1], 2),
                 lambda lib: lib.nn.functional.max_unpool1d(pooled(lib)[0][0], [1], 2),
                 lambda lib: lib.nn.functional.max_unpool2d(*pooled(lib), (2, 2, 2)),
                 lambda lib: lib.nn.functional.max_unpool2d(*pooled(lib), 2, 1, 2),
                 lambda lib: lib.nn.functional.max_unpool3d(pooled(lib)[0][None],
                                                            pooled(lib)[1][None], (2, 2))):
        like_torch(call)


def test_channel_shuffle_arguments():
    x = np.arange(24.0).reshape(2, 4, 3)
    like_torch(lambda lib: lib.channel_shuffle(lib.from_numpy(x), 2.0))
    like_torch(lambda lib: lib.channel_shuffle([1.0], 2))
    like_torch(lambda lib: lib.nn.functional.channel_shuffle(lib.from_numpy(x), groups=4))
    like_torch(lambda lib: lib.channel_shuffle(lib.from_numpy(x).transpose(1, 2), 3))


# -- forward mode and saved attributes ----------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda F, d: F.max_pool3d(d, 2, 1, 1),
    lambda F, d: F.avg_pool3d(d, 3, 2, 1),
    lambda F, d: F.adaptive_avg_pool3d(d, (2, 3, 4)),
    lambda F, d: F.adaptive_max_pool3d(d, (2, 3, 4)),
    lambda F, d: F.max_unpool3d(d[:, :, :2, :2, :3], F.max_pool3d(d, 2, return_indices=True)[1],
                                2, output_size=(4, 5, 6)),
    lambda F, d: F.lp_pool3d(d, 2, 2),
    lambda F, d: F.channel_shuffle(d, 3),
    lambda F, d: F.native_channel_shuffle(d, 3),
], ids=["max", "avg", "adaptive_avg", "adaptive_max", "unpool", "lp", "shuffle",
        "native_shuffle"])
def test_forward_ad(call):
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((2, 3, 4, 5, 6)), rng.standard_normal((2, 3, 4, 5, 6))

    def run(lib):
        fa = lib.autograd.forward_ad
        with fa.dual_level():
            out = call(lib.nn.functional, fa.make_dual(lib.from_numpy(x), lib.from_numpy(t)))
            return fa.unpack_dual(out[0] if isinstance(out, tuple) else out).tangent
    like_torch(run)


def test_saved_attributes():
    def run(lib):
        x = _rand(lib, (1, 2, 4, 4, 4), requires_grad=True)
        F = lib.nn.functional
        mp = F.max_pool3d(x, (2, 1, 2), padding=(1, 0, 0), ceil_mode=True).grad_fn
        ap = F.avg_pool3d(x, 2, 1, divisor_override=3).grad_fn
        cs = lib.channel_shuffle(x, 2).grad_fn
        return (mp._saved_kernel_size, mp._saved_stride, mp._saved_padding, mp._saved_dilation,
                mp._saved_ceil_mode, ap._saved_stride, ap._saved_divisor_override,
                ap._saved_count_include_pad, cs._saved_groups)
    assert run(dyngrad) == run(torch)


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool3d(x, 2.0), lambda F, x: F.max_pool3d(x, (2.0, 2, 2)),
    lambda F, x: F.max_pool3d(x, 2, None, None), lambda F, x: F.max_pool3d(x, 2, (True, 1, 1)),
    lambda F, x: F.max_pool3d(x, 2, ceil_mode=1), lambda F, x: F.max_pool3d([1.0], 2),
    lambda F, x: F.max_pool3d(x, 2, 1, 0, 1.5, return_indices=True),
    lambda F, x: F.avg_pool3d(x, 2.0), lambda F, x: F.avg_pool3d(x, 2, (1.0, 1, 1)),
    lambda F, x: F.avg_pool3d(x, 2, ceil_mode=0),
    lambda F, x: F.avg_pool3d(x, 2, divisor_override=True),
    lambda F, x: F.avg_pool3d(x, 2, count_include_pad=None),
    lambda F, x: F.adaptive_avg_pool3d(x, 2.0), lambda F, x: F.adaptive_max_pool3d(x, None),
    lambda F, x: F.adaptive_avg_pool3d(x, (2.0, 2, 2)), lambda F, x: F.adaptive_avg_pool3d(x, 1),
    lambda F, x: F.adaptive_max_pool3d(x, np.int64(2)), lambda F, x: F.max_pool3d(x, np.int64(2)),
])
def test_argument_errors(call):
    like_torch(lambda lib: call(lib.nn.functional, _rand(lib, (2, 3, 4, 5, 6))))
