"""The routes ``_product`` (ops/linalg.py) takes for two matrices, each against live torch
(values, strides, gradients): np.dot below ``_MATMUL_FROM`` result elements, np.matmul from
there on (no clearing pass before BLAS), the few-rows transposed product, and operands BLAS
cannot read (copied first)."""
import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.backends import numpy_backend as npb
from dyngrad.ops import linalg


def _operand(L, shape, layout, dtype, seed):
    rng = np.random.default_rng(seed)
    if layout == "f":     # column-major: the transpose of a row-major matrix
        return L.tensor(rng.standard_normal(shape[::-1]).astype(dtype)).t()
    if layout == "s":     # every other column of a wider matrix: neither C- nor F-ordered
        return L.tensor(rng.standard_normal((shape[0], 2 * shape[1])).astype(dtype))[:, ::2]
    return L.tensor(rng.standard_normal(shape).astype(dtype))


@pytest.fixture
def routes(monkeypatch):
    """The NumPy products called, by name."""
    seen = []
    xp = npb.xp

    class Spy:
        def __getattr__(self, name):
            return getattr(xp, name)

        @staticmethod
        def dot(*args, **kwargs):
            seen.append("dot")
            return xp.dot(*args, **kwargs)

        @staticmethod
        def matmul(*args, **kwargs):
            seen.append("matmul")
            return xp.matmul(*args, **kwargs)
    spy = Spy()
    monkeypatch.setattr(linalg, "_product", lambda _xp, fn, a, b, p=linalg._product: p(
        spy, spy.matmul if fn is xp.matmul else fn, a, b))
    return seen


CASES = {   # (m, k, n): the route the product takes
    "small": ((32, 64, 64), "dot"),
    "just below": ((127, 128, 129), "dot"),      # 16383 result elements
    "large": ((128, 64, 128), "matmul"),
    "wide": ((512, 256, 10), "dot"),             # 5120 result elements
    "backward-sized": ((256, 512, 784), "matmul"),
    "inner dim 1": ((256, 1, 256), "dot"),       # an outer product: matmul loops by itself
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["cc", "cf", "fc", "ff", "sc", "cs"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_mm_route(case, layout, dtype, routes):
    (m, k, n), route = CASES[case]
    results = {}
    for L in (torch, dyngrad):
        a = _operand(L, (m, k), layout[0], dtype, 0).requires_grad_()
        b = _operand(L, (k, n), layout[1], dtype, 1).requires_grad_()
        out = a.mm(b)
        out.backward(_operand(L, (m, n), "c", dtype, 2))
        results[L] = [t.detach() for t in (out, a.grad, b.grad)]
    tol = 2e-4 if dtype == "float32" else 1e-10
    for got, want in zip(results[dyngrad], results[torch]):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
        assert got.stride() == want.stride()
    if "s" not in layout and not (m <= 64 and layout[1] == "f"):
        assert routes[0] == route   # (the forward product; the few-rows route aside)
