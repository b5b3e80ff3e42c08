"""The bench's "MLP step on dyngrad's kernels alone" makes the NumPy calls dyngrad's own step
makes: its gradients, and the parameters after its update, are dyngrad's bit for bit (the same
calls in the same order give the same bits; another kernel, order or layout would not). So when
an op or formula of the step changes its calls, this fails until bench/mlp_kernels.py follows."""
import numpy as np
import pytest

import dyngrad
from bench.mlp_kernels import kernels_step
from bench.training import _mlp_init, _mlp_lib


@pytest.mark.parametrize("batch", [32, 512])
def test_the_kernels_step_is_dyngrads_step(batch):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    init = _mlp_init()
    params = [dyngrad.tensor(p, requires_grad=True) for p in init]
    got = _mlp_lib(dyngrad, params, dyngrad.tensor(x), dyngrad.tensor(y), 1e-3, update=False)
    arrays = [p.copy() for p in init]
    want = kernels_step(arrays, x, y, 1e-3)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)
    with dyngrad.no_grad():
        for p in params:
            p.add_(p.grad, alpha=-1e-3)
    for p, a in zip(params, arrays):
        np.testing.assert_array_equal(p.detach().numpy(), a)


def test_a_different_kernel_is_caught():
    """The comparison above can fail: the baseline's own gradients (the same values, other
    calls) differ from dyngrad's in the last bits somewhere."""
    from bench.training import _mlp_numpy
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 784)).astype(np.float32)
    y = rng.integers(0, 10, 32)
    init = _mlp_init()
    mine = kernels_step([p.copy() for p in init], x, y, 1e-3, update=False)
    baseline = _mlp_numpy([p.copy() for p in init], x, y, 1e-3, update=False)
    assert any(not np.array_equal(a, b) for a, b in zip(mine, baseline))
    for a, b in zip(mine, baseline):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=1e-5)
