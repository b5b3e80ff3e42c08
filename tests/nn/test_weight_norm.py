"""The legacy hook-based nn.utils.weight_norm / remove_weight_norm and spectral_norm /
remove_spectral_norm against torch: parameter and buffer names, state_dict keys and
metadata, values (u/v drawn from torch's random stream), gradients, removal, errors."""
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from tests.nn._seq_compare import raises_same

LIBS = (dyngrad, torch)


def npy(t):
    return np.array(t.detach().numpy())


def close(a, b, rtol=1e-6, atol=1e-7):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(npy(a), npy(b), rtol=rtol, atol=atol)


def pair(build, seed=0):
    out = []
    for lib in LIBS:
        lib.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            out.append(build(lib))
    return out


def same_state(ours, theirs, rtol=1e-6, atol=1e-7):
    so, st = ours.state_dict(), theirs.state_dict()
    assert list(so) == list(st)
    for k in so:
        close(so[k], st[k], rtol, atol)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]


@pytest.mark.parametrize("make,dim", [
    (lambda lib: lib.nn.Linear(5, 3), 0), (lambda lib: lib.nn.Linear(5, 3), 1),
    (lambda lib: lib.nn.Linear(5, 3), None), (lambda lib: lib.nn.Conv2d(2, 4, 3), 0),
    (lambda lib: lib.nn.Conv2d(2, 4, 3), 1), (lambda lib: lib.nn.Conv2d(2, 4, 3), -1),
])
def test_weight_norm(make, dim):
    def build(lib):
        return lib.nn.utils.weight_norm(make(lib), dim=dim)
    ours, theirs = pair(build)
    assert repr(ours) == repr(theirs)
    same_state(ours, theirs)
    x_shape = (2, 5) if isinstance(ours, dyngrad.nn.Linear) else (1, 2, 5, 5)
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    yo, yt = ours(dyngrad.tensor(x)), theirs(torch.tensor(x))
    close(yo, yt, 1e-5, 1e-6)
    assert type(ours.weight.grad_fn).__name__ == type(theirs.weight.grad_fn).__name__
    yo.square().sum().backward()
    yt.square().sum().backward()
    for name in ("weight_g", "weight_v", "bias"):
        close(getattr(ours, name).grad, getattr(theirs, name).grad, 1e-4, 1e-5)
    for lib, m in zip(LIBS, (ours, theirs)):
        lib.nn.utils.remove_weight_norm(m)
    same_state(ours, theirs, 1e-5, 1e-6)
    assert isinstance(ours.weight, dyngrad.nn.Parameter)


def test_weight_norm_warns_and_errors():
    with pytest.warns(FutureWarning, match="torch.nn.utils.parametrizations.weight_norm"):
        dyngrad.nn.utils.weight_norm(dyngrad.nn.Linear(2, 2))

    def twice(lib):
        m = lib.nn.Linear(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            lib.nn.utils.weight_norm(m)
            lib.nn.utils.weight_norm(m)

    raises_same(twice)
    raises_same(lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2)))


@pytest.mark.parametrize("make,dim", [
    (lambda lib: lib.nn.Linear(5, 3), None), (lambda lib: lib.nn.Conv2d(2, 4, 3), None),
    (lambda lib: lib.nn.ConvTranspose2d(2, 4, 3), None), (lambda lib: lib.nn.Conv1d(2, 4, 3), 2),
])
@pytest.mark.parametrize("n_power_iterations", [1, 2])
def test_spectral_norm(make, dim, n_power_iterations):
    def build(lib):
        return lib.nn.utils.spectral_norm(make(lib), n_power_iterations=n_power_iterations,
                                          dim=dim)
    ours, theirs = pair(build)
    assert repr(ours) == repr(theirs)
    same_state(ours, theirs)
    lin = isinstance(ours, dyngrad.nn.Linear)
    x_shape = (2, 5) if lin else ((1, 2, 5) if isinstance(ours, dyngrad.nn.Conv1d)
                                  else (1, 2, 5, 5))
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    for step in range(2):
        yo, yt = ours(dyngrad.tensor(x)), theirs(torch.tensor(x))
        close(yo, yt, 1e-4, 1e-5)
        yo.square().sum().backward()
        yt.square().sum().backward()
    close(ours.weight_orig.grad, theirs.weight_orig.grad, 1e-3, 1e-4)
    same_state(ours, theirs, 1e-4, 1e-5)
    so, st = ours.state_dict(), theirs.state_dict()
    assert so._metadata[""]["spectral_norm"] == st._metadata[""]["spectral_norm"]
    ours.eval()
    theirs.eval()
    close(ours(dyngrad.tensor(x)), theirs(torch.tensor(x)), 1e-4, 1e-5)
    for lib, m in zip(LIBS, (ours, theirs)):
        lib.nn.utils.remove_spectral_norm(m)
    same_state(ours, theirs, 1e-4, 1e-5)
    assert not ours._state_dict_hooks and not ours._load_state_dict_pre_hooks


def test_spectral_norm_state_dict_roundtrip_and_version0():
    def build(lib):
        # W^T W must be invertible for the version-0 conversion to be well posed
        return lib.nn.utils.spectral_norm(lib.nn.Linear(3, 4).double())
    ours, theirs = pair(build)
    ours(dyngrad.ones(1, 3, dtype=dyngrad.float64))
    theirs(torch.ones(1, 3, dtype=torch.float64))
    state_t = theirs.state_dict()
    fresh_o, fresh_t = pair(build, seed=5)
    fresh_o.load_state_dict({k: dyngrad.tensor(npy(v)) for k, v in state_t.items()})
    fresh_t.load_state_dict(state_t)
    same_state(fresh_o, fresh_t, 1e-5, 1e-6)
    # a version-0 checkpoint: holds the normalized weight, not v
    old = {k: npy(v) for k, v in state_t.items() if k != "weight_v"}
    old["weight"] = npy(theirs.weight)
    m_o, m_t = pair(build, seed=6)
    for lib, m in zip(LIBS, (m_o, m_t)):
        from collections import OrderedDict
        sd = OrderedDict((k, lib.tensor(v)) for k, v in old.items())
        sd._metadata = OrderedDict({"": {"version": 1}})
        m.load_state_dict(sd)
    same_state(m_o, m_t, 1e-4, 1e-5)


def test_spectral_norm_errors():
    def twice(lib):
        m = lib.nn.Linear(2, 2)
        lib.nn.utils.spectral_norm(m)
        lib.nn.utils.spectral_norm(m)

    raises_same(twice)
    raises_same(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2),
                                                       n_power_iterations=0))
    raises_same(lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2)))
    raises_same(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False),
                                                       name="bias"))
