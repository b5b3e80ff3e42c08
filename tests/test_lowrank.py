"""torch.svd_lowrank / pca_lowrank against torch with the same seed: dyngrad's randn draws
torch's numbers and the QR steps agree, so S and U diag(S) V^H match; U's and V's columns match
up to a sign / phase only, as the final small SVD's do (see Note [Signs of singular vectors and
eigenvectors] in dyngrad/ops/linalg_spectral.py)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad


def _np(t):
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else \
        t.detach()._data


CASES = [((8, 5), (3,), {}), ((5, 8), (4,), {}), ((2, 7, 6), (), {}),
         ((6, 6), (6,), {"niter": 0}), ((9, 4), (), {"niter": 3})]


@pytest.mark.parametrize("fn", ["svd_lowrank", "pca_lowrank"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("shape,args,kwargs", CASES)
def test_lowrank_matches_torch(fn, dtype, shape, args, kwargs):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape)
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    ta = torch.from_numpy(a.copy()).requires_grad_()
    da = dyngrad.tensor(a.copy()).requires_grad_()
    torch.manual_seed(1)
    U, S, V = getattr(torch, fn)(ta, *args, **kwargs)
    dyngrad.manual_seed(1)
    dU, dS, dV = getattr(dyngrad, fn)(da, *args, **kwargs)
    tol = 1e-4 if dtype == "float32" else 1e-9
    for got, want in ((dU, U), (dS, S), (dV, V)):
        assert tuple(got.shape) == tuple(want.shape) and str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(_np(dS), _np(S), rtol=tol, atol=tol)
    recon = (_np(dU) * _np(dS)[..., None, :]) @ np.swapaxes(_np(dV), -1, -2).conj()
    trecon = (_np(U) * _np(S)[..., None, :]) @ np.swapaxes(_np(V), -1, -2).conj()
    np.testing.assert_allclose(recon, trecon, rtol=tol, atol=tol)
    phase = (_np(dU).conj() * _np(U)).sum(-2, keepdims=True)
    np.testing.assert_allclose(np.abs(phase), 1, rtol=tol, atol=tol)
    assert type(dU.grad_fn).__name__ == type(U.grad_fn).__name__
    g, = torch.autograd.grad(S.sum(), ta)
    dg, = dyngrad.autograd.grad(dS.sum(), da)
    np.testing.assert_allclose(_np(dg), _np(g), rtol=10 * tol, atol=10 * tol)


def test_pca_lowrank_errors():
    for lib in (torch, dyngrad):
        a = lib.ones(4, 3)
        with pytest.raises(ValueError, match=r"q\(=4\) must be non-negative integer"):
            lib.pca_lowrank(a, 4)
        with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
            lib.pca_lowrank(a, 2, niter=-1)
