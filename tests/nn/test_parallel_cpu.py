"""nn.DataParallel and nn.SyncBatchNorm as torch runs them on a machine without GPUs."""
from __future__ import annotations

import tempfile

import numpy as np
import pytest
import torch
import torch.distributed as tdist

import dyngrad
import dyngrad.distributed as ddist


def _raised(fn, lib):
    try:
        fn(lib)
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return e
    return None


def _same_error(fn):
    texc, exc = _raised(fn, torch), _raised(fn, dyngrad)
    assert texc is not None and exc is not None, (texc, exc)
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))


def _net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU())


def test_data_parallel_wraps_the_module():
    m, tm = _net(dyngrad), _net(torch)
    tm.load_state_dict({k: torch.from_numpy(v.numpy().copy())
                        for k, v in m.state_dict().items()})
    dp, tdp = dyngrad.nn.DataParallel(m, device_ids=[0], dim=1), torch.nn.DataParallel(tm)
    assert dp.module is m and dp.device_ids == tdp.device_ids == []
    assert repr(dp) == repr(tdp)
    assert list(dp.state_dict()) == list(tdp.state_dict())
    assert [n for n, _ in dp.named_parameters()] == [n for n, _ in tdp.named_parameters()]
    for name in ("output_device", "dim", "src_device_obj"):
        assert hasattr(dp, name) == hasattr(tdp, name)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype("float32")
    out, tout = dp(dyngrad.from_numpy(x.copy())), tdp(torch.from_numpy(x.copy()))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    # a DataParallel state_dict loads into a plain module only after stripping "module."
    plain = _net(dyngrad)
    plain.load_state_dict({k[len("module."):]: v for k, v in dp.state_dict().items()})
    assert dyngrad.nn.DataParallel is dyngrad.nn.parallel.DataParallel
    _same_error(lambda lib: lib.nn.parallel.data_parallel(lib.nn.Linear(2, 2), lib.ones(1, 2)))


def _sync_pair(**kwargs):
    return dyngrad.nn.SyncBatchNorm(3, **kwargs), torch.nn.SyncBatchNorm(3, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"affine": False},
                                    {"track_running_stats": False}, {"bias": False}])
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_sync_batchnorm_without_a_group_is_batch_norm(kwargs, shape):
    m, tm = _sync_pair(**kwargs)
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    for training in (True, True, False):
        m.train(training)
        tm.train(training)
        out, tout = m(dyngrad.from_numpy(x.copy())), tm(torch.from_numpy(x.copy()))
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-5,
                                   atol=1e-5)
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(m.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(3)),
    lambda lib: lib.nn.SyncBatchNorm(0)(lib.ones(2, 0)),
])
def test_sync_batchnorm_errors(make):
    _same_error(make)


def test_convert_sync_batchnorm():
    results = []
    for lib in (torch, dyngrad):
        net = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2, momentum=0.3),
                                lib.nn.Sequential(lib.nn.BatchNorm1d(5, affine=False)))
        bn = net[1]
        bn.eval()
        converted = lib.nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group="pg")
        assert converted is net and isinstance(net[1], lib.nn.SyncBatchNorm)
        assert net[1].weight is bn.weight and net[1].running_mean is bn.running_mean
        assert not net[1].training and net[1].process_group == "pg"
        single = lib.nn.SyncBatchNorm.convert_sync_batchnorm(lib.nn.BatchNorm3d(4))
        results.append((repr(net), list(net.state_dict()), repr(single)))
    assert results[0] == results[1]


def test_sync_batchnorm_with_an_initialised_group():
    ddist.init_process_group("loopback")
    tdist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0,
                             world_size=1)
    try:
        _same_error(lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(2, 3)))
        for lib in (torch, dyngrad):   # eval mode does not synchronise
            m = lib.nn.SyncBatchNorm(3).eval()
            assert tuple(m(lib.ones(2, 3)).shape) == (2, 3)
    finally:
        ddist.destroy_process_group()
        tdist.destroy_process_group()
