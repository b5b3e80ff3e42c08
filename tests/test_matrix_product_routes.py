"""The routes of two matrices' product in ops/linalg.py's ``_product`` (Note [np.dot or
np.matmul]): np.matmul for a short inner dimension and a large result, np.dot for the rest,
with the operands at every layout, against live torch (values, strides) and against NumPy's
own product (the same BLAS call, so the same bits)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.ops import linalg


SHAPES = {
    "matmul: short inner dim, large result": (256, 4, 256),
    "matmul: a weight's gradient at batch 32": (256, 32, 784),
    "dot: small result": (64, 32, 64),
    "dot: inner dim 1 (an outer product)": (300, 1, 300),
    "dot: long inner dim": (40, 300, 50),
}


def _operand(rng, shape, layout, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    return np.asfortranarray(a) if layout == "F" else a


@pytest.mark.parametrize("case", sorted(SHAPES))
@pytest.mark.parametrize("layouts", ["CC", "CF", "FC", "FF"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_mm_routes_match_torch(case, layouts, dtype):
    m, k, n = SHAPES[case]
    rng = np.random.default_rng(7)
    a = _operand(rng, (m, k), layouts[0], dtype)
    b = _operand(rng, (k, n), layouts[1], dtype)
    got = dyngrad.mm(dyngrad.from_numpy(a), dyngrad.from_numpy(b))
    want = torch.mm(torch.from_numpy(a), torch.from_numpy(b))
    assert got.stride() == want.stride()
    tol = 1e-4 if dtype != "float64" else 1e-10
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    np.testing.assert_array_equal(got.numpy(), np.matmul(a, b))


@pytest.mark.parametrize("case", sorted(SHAPES))
def test_route_chosen(case, monkeypatch):
    """Which NumPy function computes the product: np.matmul exactly where the Note says."""
    m, k, n = SHAPES[case]
    called = []
    real_dot, real_matmul = np.dot, np.matmul

    class Spy:   # the xp handed to _product: NumPy, with matmul counted
        def __getattr__(self, name):
            return getattr(np, name)

    spy = Spy()
    spy.matmul = lambda a, b: called.append("matmul") or real_matmul(a, b)
    # (np.dot is the backend's, without NumPy's __array_function__ dispatch)
    monkeypatch.setattr(linalg._npb, "dot", lambda a, b: called.append("dot") or real_dot(a, b))
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    np.testing.assert_array_equal(linalg._product(spy, spy.matmul, a, b), a @ b)
    assert called == [case.split(":")[0]]
