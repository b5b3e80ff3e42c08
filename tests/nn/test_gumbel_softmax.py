"""nn.functional.gumbel_softmax against live torch: seeded samples (the Gumbel noise is drawn
from the generator as torch draws it), the straight-through hard sample, gradients, graph."""
import warnings

import numpy as np
import pytest
import torch

import dyngrad


def _sample(lib, hard, tau, dim, dtype):
    lib.manual_seed(3)
    x = lib.randn(4, 6, dtype=dtype).requires_grad_()
    y = lib.nn.functional.gumbel_softmax(x, tau=tau, hard=hard, dim=dim)
    (y * lib.arange(6, dtype=dtype)).sum().backward()
    return (y.detach().numpy(), x.grad.numpy(), y.dtype == lib.float64, y.grad_fn.name(),
            lib.rand(2).numpy())   # the generator's state after the draw


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("tau,dim", [(1, -1), (0.3, 0), (2.0, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gumbel_softmax_matches_torch(hard, tau, dim, dtype):
    want = _sample(torch, hard, tau, dim, getattr(torch, dtype))
    got = _sample(dyngrad, hard, tau, dim, getattr(dyngrad, dtype))
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got[0], want[0], rtol=rtol, atol=1e-7)
    np.testing.assert_allclose(got[1], want[1], rtol=rtol, atol=1e-6)
    assert got[2:4] == want[2:4]
    np.testing.assert_array_equal(got[4], want[4])
    if hard:
        assert set(np.unique(got[0])) <= {0.0, 1.0}


def test_gumbel_softmax_eps_warns_as_torch():
    for lib in (torch, dyngrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.gumbel_softmax(lib.zeros(3), eps=1e-5)
        assert [str(w.message) for w in caught] == \
            ["`eps` parameter is deprecated and has no effect."]
