"""torch.lobpcg against torch from the same seed (dyngrad/ops/lobpcg.py): eigenvalues, and
eigenvectors up to their signs."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad


def _spd(rng, m, batch=(), dtype="float64"):
    a = rng.standard_normal(batch + (m, m))
    return (a @ np.swapaxes(a, -1, -2) + m * np.eye(m)).astype(dtype)


CASES = [({"k": 2}, ()), ({"k": 1, "largest": False}, ()), ({"k": 2, "method": "basic"}, ()),
         ({"k": 2, "n": 3}, ()), ({"k": 2, "B": "spd"}, ()), ({"k": 2, "X": "random"}, ()),
         ({"k": 2}, (2,)), ({"k": 3, "ortho_bparams": {"ortho_use_drop": True}}, ()),
         ({"k": 2, "niter": 3}, ()), ({"k": 2, "iK": "spd", "method": "basic"}, ())]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs,batch", CASES)
def test_lobpcg_matches_torch(kwargs, batch, dtype):
    rng = np.random.default_rng(0)
    a = _spd(rng, 12, batch, dtype)
    targs, dargs = {}, {}
    for key, value in kwargs.items():
        if value in ("spd", "random"):
            arr = _spd(rng, 12, (), dtype) if value == "spd" else \
                rng.standard_normal((12, 2)).astype(dtype)
            if key == "iK":
                arr = np.linalg.inv(arr).astype(dtype)
            targs[key], dargs[key] = torch.from_numpy(arr), dyngrad.tensor(arr)
        else:
            targs[key] = dargs[key] = value
    torch.manual_seed(0)
    E, X = torch.lobpcg(torch.from_numpy(a), **targs)
    dyngrad.manual_seed(0)
    dE, dX = dyngrad.lobpcg(dyngrad.tensor(a), **dargs)
    assert tuple(dE.shape) == tuple(E.shape) and tuple(dX.shape) == tuple(X.shape)
    assert str(dE.dtype) == str(E.dtype)
    tol = 1e-3 if dtype == "float32" else 1e-8
    np.testing.assert_allclose(dE._data, E.numpy(), rtol=tol, atol=tol)
    x, dx = X.numpy(), dX._data
    sign = np.sign((x * dx).sum(-2, keepdims=True))
    np.testing.assert_allclose(dx * sign, x, rtol=10 * tol, atol=10 * tol)


def test_lobpcg_errors():
    for lib in (torch, dyngrad):
        with pytest.raises(ValueError, match="not applicable when the number of A rows"):
            lib.lobpcg(lib.eye(5, dtype=lib.float64), k=2)
    with pytest.raises(ValueError, match="B != I"):
        a = dyngrad.eye(12, dtype=dyngrad.float64).requires_grad_()
        E, _ = dyngrad.lobpcg(a * 2, k=1, B=dyngrad.eye(12, dtype=dyngrad.float64))
        E.sum().backward()


@pytest.mark.parametrize("m,k,batch,largest", [(12, 2, (), None), (12, 1, (), False),
                                                (9, 3, (2,), True), (6, 2, (), True)])
def test_lobpcg_gradient(m, k, batch, largest):
    rng = np.random.default_rng(1)
    a = _spd(rng, m, batch)
    ta = torch.from_numpy(a).requires_grad_()
    da = dyngrad.tensor(a).requires_grad_()
    torch.manual_seed(0)
    E, X = torch.lobpcg(ta, k=k, largest=largest)
    dyngrad.manual_seed(0)
    dE, dX = dyngrad.lobpcg(da, k=k, largest=largest)
    assert type(dE.grad_fn).__name__ == type(E.grad_fn).__name__
    w = rng.standard_normal(k)
    # a loss that does not see the eigenvectors' signs
    g, = torch.autograd.grad((E * torch.from_numpy(w)).sum()
                             + (X ** 2 * torch.from_numpy(w)).sum(), ta)
    dg, = dyngrad.autograd.grad((dE * dyngrad.tensor(w)).sum()
                                + (dX ** 2 * dyngrad.tensor(w)).sum(), da)
    np.testing.assert_allclose(dg._data, g.numpy(), rtol=1e-8, atol=1e-10)
