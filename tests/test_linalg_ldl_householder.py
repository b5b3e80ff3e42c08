"""linalg.ldl_factor / ldl_solve on many random matrices (pivots as torch's LAPACK picks them,
Note [Bunch-Kaufman pivoting]) and geqrf + householder_product against linalg.qr."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad


def _matrix(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_factor_and_solve_match_torch(dtype, hermitian):
    rng = np.random.default_rng(5)
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    for n in (1, 2, 3, 4, 6, 9, 17):
        a = _matrix(rng, (2, n, n), dtype)
        if n > 1:
            a[0, 0, 0] = 0   # a 2x2 pivot first
        LD, piv, info = torch.linalg.ldl_factor_ex(torch.from_numpy(a), hermitian=hermitian)
        dLD, dpiv, dinfo = dyngrad.linalg.ldl_factor_ex(dyngrad.tensor(a), hermitian=hermitian)
        np.testing.assert_array_equal(dpiv._data, piv.numpy())
        np.testing.assert_array_equal(dinfo._data, info.numpy())
        np.testing.assert_allclose(dLD._data, LD.numpy(), rtol=tol, atol=tol)
        assert dLD.stride() == LD.stride() and str(dpiv.dtype) == str(piv.dtype)
        b = _matrix(rng, (2, n, 3), dtype)
        X = torch.linalg.ldl_solve(LD, piv, torch.from_numpy(b), hermitian=hermitian)
        dX = dyngrad.linalg.ldl_solve(dLD, dpiv, dyngrad.tensor(b), hermitian=hermitian)
        np.testing.assert_allclose(dX._data, X.numpy(), rtol=100 * tol, atol=100 * tol)
        assert dX.stride() == X.stride()


def test_ldl_factor_singular():
    z = np.zeros((3, 3))
    _, _, info = dyngrad.linalg.ldl_factor_ex(dyngrad.tensor(z))
    assert int(info) == int(torch.linalg.ldl_factor_ex(torch.from_numpy(z)).info) == 1
    with pytest.raises(RuntimeError) as texc:
        torch.linalg.ldl_factor(torch.from_numpy(z))
    with pytest.raises(RuntimeError) as exc:
        dyngrad.linalg.ldl_factor(dyngrad.tensor(z))
    # torch's message carries an internal-assert prefix with its source path
    assert str(texc.value).endswith(str(exc.value))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (2, 6, 2)])
def test_geqrf_householder_product_is_qr(dtype, shape):
    a = _matrix(np.random.default_rng(2), shape, dtype)
    A, tau = dyngrad.geqrf(dyngrad.tensor(a))
    Q = dyngrad.linalg.householder_product(A, tau)
    tQ, _ = torch.linalg.qr(torch.from_numpy(a))
    np.testing.assert_allclose(Q._data, tQ.numpy(), rtol=1e-10, atol=1e-10)
    R = np.triu(A._data[..., :shape[-1], :])
    np.testing.assert_allclose(Q._data @ R, a, rtol=1e-10, atol=1e-10)
