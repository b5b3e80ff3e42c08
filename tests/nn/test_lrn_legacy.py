"""nn.CrossMapLRN2d (torch's legacy cross-channel LRN Function) against live torch."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad


def _raised(fn, lib):
    try:
        fn(lib)
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return e
    return None


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("channels", [1, 3, 6])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_backward_match_torch(size, channels, dtype):
    rng = np.random.default_rng(size * 10 + channels)
    a = (rng.standard_normal((2, channels, 3, 4)) * 3).astype(dtype)
    w = rng.standard_normal(a.shape).astype(dtype)
    args = (size, 0.5, 0.6, 1.5)
    x = dyngrad.from_numpy(a.copy()).requires_grad_()
    tx = torch.from_numpy(a.copy()).requires_grad_()
    y, ty = dyngrad.nn.CrossMapLRN2d(*args)(x), torch.nn.CrossMapLRN2d(*args)(tx)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    assert y.dtype == getattr(dyngrad, dtype) and y.stride() == ty.stride()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **tol)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "CrossMapLRN2dBackward"
    texc = _raised(lambda lib: ty.backward(torch.from_numpy(w.copy())), torch)
    exc = _raised(lambda lib: y.backward(dyngrad.from_numpy(w.copy())), dyngrad)
    if texc is not None:   # size 1: torch's backward narrows past its padded buffer
        assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))
        return
    assert exc is None, exc
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), **tol)


def test_module_attributes_repr_state_dict():
    m, tm = dyngrad.nn.CrossMapLRN2d(5, beta=0.5), torch.nn.CrossMapLRN2d(5, beta=0.5)
    assert repr(m) == repr(tm)
    assert (m.size, m.alpha, m.beta, m.k) == (tm.size, tm.alpha, tm.beta, tm.k)
    assert list(m.state_dict()) == list(tm.state_dict()) == []
    with dyngrad.no_grad():
        assert not m(dyngrad.ones(1, 2, 2, 2, requires_grad=True)).requires_grad


ERRORS = [
    lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(5, 3, 4)),
    lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(2, 5, 3, 4, dtype=lib.int64)),
    lambda lib: _grad_of_sum(lib, create_graph=True),
]


def _grad_of_sum(lib, **kwargs):
    x = lib.ones(1, 3, 2, 2, requires_grad=True)
    return lib.autograd.grad(lib.nn.CrossMapLRN2d(3)(x).sum(), x, **kwargs)


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    texc = _raised(ERRORS[index], torch)
    assert texc is not None
    exc = _raised(ERRORS[index], dyngrad)
    assert exc is not None, f"dyngrad did not raise {texc!r}"
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))
