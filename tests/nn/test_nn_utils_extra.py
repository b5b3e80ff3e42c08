"""nn.utils.stateless.functional_call, skip_init, conv/linear + batch norm fusion and the conv
weight memory-format converters, against torch."""
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from tests.nn._seq_compare import raises_same
from tests.nn.helpers import pair

LIBS = (dyngrad, torch)


def npy(t):
    return np.array(t.detach().numpy())


def close(a, b, rtol=1e-5, atol=1e-6):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(npy(a), npy(b), rtol=rtol, atol=atol)


def functional_call(lib, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return lib.nn.utils.stateless.functional_call(*args, **kwargs)


def test_functional_call_values_grads_restored():
    ours, theirs = pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(),
                                                      lib.nn.Linear(4, 2)))
    r = np.random.default_rng(0)
    w = r.standard_normal((4, 3)).astype(np.float32)
    x = r.standard_normal((5, 3)).astype(np.float32)
    res = []
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        wt = lib.tensor(w, requires_grad=True)
        before = m[0].weight
        out = functional_call(lib, m, {"0.weight": wt}, (lib.tensor(x),))
        assert m[0].weight is before
        out.sum().backward()
        res.append((out, wt.grad, m[2].weight.grad))
    for a, b in zip(res[0], res[1]):
        close(a, b)


def test_functional_call_kwargs_buffers_and_deprecation():
    ours, theirs = pair(lambda lib: lib.nn.BatchNorm1d(3))
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    res = []
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        state = {"running_mean": lib.ones(3), "running_var": lib.full((3,), 2.0)}
        m.eval()
        out = functional_call(lib, m, state, kwargs={"input": lib.tensor(x)})
        res.append((out, m.running_mean))
    close(res[0][0], res[1][0])
    close(res[0][1], res[1][1])
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        dyngrad.nn.utils.stateless.functional_call(dyngrad.nn.Linear(1, 1), {},
                                                   dyngrad.ones(1, 1))


def test_functional_call_tied_and_strict():
    def tied(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
        m[1].weight = m[0].weight
        return m

    ours, theirs = pair(tied)
    res = []
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        out = functional_call(lib, m, {"0.weight": lib.eye(2) * 2}, lib.ones(1, 2))
        untied = functional_call(lib, m, {"0.weight": lib.eye(2) * 2}, lib.ones(1, 2),
                                 tie_weights=False)
        res.append((out, untied))
    close(res[0][0], res[1][0])
    close(res[0][1], res[1][1])
    raises_same(lambda lib: functional_call(
        lib, tied(lib), {"0.weight": lib.eye(2), "1.weight": lib.ones(2, 2)}, lib.ones(1, 2)))
    raises_same(lambda lib: functional_call(lib, lib.nn.Linear(2, 2), {"weight": lib.eye(2),
                                                                       "extra": lib.ones(1)},
                                            lib.ones(1, 2), strict=True))


def test_func_functional_call_alias():
    m = dyngrad.nn.Linear(2, 1)
    out = dyngrad.func.functional_call(m, {"weight": dyngrad.ones(1, 2),
                                           "bias": dyngrad.zeros(1)}, dyngrad.ones(1, 2))
    assert out.item() == 2.0


def test_skip_init():
    for lib in LIBS:
        lib.manual_seed(0)
        m = lib.nn.utils.skip_init(lib.nn.Linear, 5, 3, bias=True)
        assert type(m) is lib.nn.Linear and tuple(m.weight.shape) == (3, 5)
        assert m.weight.device.type == "cpu"
        m2 = lib.nn.utils.skip_init(lib.nn.Linear, 5, 3, dtype=lib.float64)
        assert str(m2.weight.dtype).endswith("float64")
    # the random stream is untouched (torch builds on the meta device)
    dyngrad.manual_seed(0)
    dyngrad.nn.utils.skip_init(dyngrad.nn.Linear, 5, 3)
    torch.manual_seed(0)
    close(dyngrad.randn(4), torch.randn(4))

    class NoDevice(torch.nn.Module):
        pass

    class NoDeviceD(dyngrad.nn.Module):
        pass

    raises_same(lambda lib: lib.nn.utils.skip_init(NoDevice if lib is torch else NoDeviceD))
    with pytest.raises(RuntimeError, match="Expected a Module"):
        dyngrad.nn.utils.skip_init(int)


def _set_bn(lib, bn, r):
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor(r.standard_normal(bn.num_features).astype(np.float32)))
        bn.running_var.copy_(lib.tensor(r.uniform(0.5, 2, bn.num_features).astype(np.float32)))


@pytest.mark.parametrize("kind", ["conv2d", "conv1d", "convT2d", "conv_nobias"])
def test_fuse_conv_bn_eval(kind):
    def make(lib):
        conv = {"conv2d": lambda: lib.nn.Conv2d(2, 4, 3),
                "conv1d": lambda: lib.nn.Conv1d(2, 4, 3),
                "convT2d": lambda: lib.nn.ConvTranspose2d(2, 4, 3),
                "conv_nobias": lambda: lib.nn.Conv2d(2, 4, 3, bias=False)}[kind]()
        bn = lib.nn.BatchNorm1d(4) if kind == "conv1d" else lib.nn.BatchNorm2d(4)
        return lib.nn.Sequential(conv, bn)

    ours, theirs = pair(make)
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        _set_bn(lib, m[1], np.random.default_rng(2))
        m.eval()
    shape = (1, 2, 6) if kind == "conv1d" else (1, 2, 6, 6)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    res = []
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        fused = lib.nn.utils.fuse_conv_bn_eval(m[0], m[1], transpose=kind == "convT2d")
        assert isinstance(fused.weight, lib.nn.Parameter)
        res.append((fused(lib.tensor(x)), m(lib.tensor(x)), fused.weight, fused.bias))
    for a, b in zip(res[0], res[1]):
        close(a, b)
        assert a.requires_grad == b.requires_grad
    close(res[0][0], res[0][1], 1e-4, 1e-5)


def test_fuse_linear_bn_eval_and_errors():
    ours, theirs = pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4)))
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        _set_bn(lib, m[1], np.random.default_rng(4))
        m.eval()
    x = np.random.default_rng(5).standard_normal((2, 3)).astype(np.float32)
    res = []
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        fused = lib.nn.utils.fuse_linear_bn_eval(m[0], m[1])
        res.append((fused(lib.tensor(x)), fused.weight, fused.bias))
    for a, b in zip(res[0], res[1]):
        close(a, b)
    raises_same(lambda lib: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(3, 4),
                                                             lib.nn.BatchNorm1d(4)))
    raises_same(lambda lib: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(3, 4).eval(),
                                                             lib.nn.BatchNorm1d(3).eval()))
    raises_same(lambda lib: lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(3, 4, 1),
                                                           lib.nn.BatchNorm2d(4)))


def test_fuse_weights_functions():
    r = np.random.default_rng(6)
    arrays = [r.standard_normal(s).astype(np.float32) for s in [(4, 2, 3, 3), (4,), (4,)]]
    rv = r.uniform(0.5, 2, 4).astype(np.float32)
    res = []
    for lib in LIBS:
        w, rm, bw = (lib.tensor(a) for a in arrays)
        cw, cb = lib.nn.utils.fuse_conv_bn_weights(w, None, rm, lib.tensor(rv), 1e-5, bw, None)
        lw, lb = lib.nn.utils.fuse_linear_bn_weights(w[:, :, 0, 0], None, rm, lib.tensor(rv),
                                                     1e-5, bw, rm)
        res.append((cw, cb, lw, lb))
    for a, b in zip(res[0], res[1]):
        close(a, b)
        assert type(a).__name__ == type(b).__name__ == "Parameter"
        assert a.requires_grad == b.requires_grad


@pytest.mark.parametrize("dims", [2, 3])
def test_convert_conv_weight_memory_format(dims):
    def make(lib):
        conv = lib.nn.Conv2d if dims == 2 else lib.nn.Conv3d
        convT = lib.nn.ConvTranspose2d if dims == 2 else lib.nn.ConvTranspose3d
        return lib.nn.Sequential(conv(2, 4, 3), lib.nn.Sequential(convT(4, 2, 3)),
                                 lib.nn.Linear(3, 3))

    ours, theirs = pair(make)
    params = [p for p in ours.parameters()]
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        fmt = lib.channels_last if dims == 2 else lib.channels_last_3d
        fn = (lib.nn.utils.convert_conv2d_weight_memory_format if dims == 2
              else lib.nn.utils.convert_conv3d_weight_memory_format)
        assert fn(m, fmt) is m
    assert [p for p in ours.parameters()] == params   # same Parameter objects
    for (n, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert a.stride() == b.stride(), n
        close(a, b)
