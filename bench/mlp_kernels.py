"""The MLP step of training.py run on dyngrad's own kernels alone: the NumPy calls dyngrad's ops
and backward formulas make for that step, in the same order, on bare arrays, with no tensors, no
graph, no dispatcher and no engine. Its time beside the NumPy baseline's tells how fast
dyngrad's kernels are; its time beside dyngrad's full step, what the Python layer costs.
tests/test_bench_mlp_kernels.py checks that its gradients are bit for bit dyngrad's own, so the
calls here stay the ones dyngrad makes.
"""
from __future__ import annotations

import numpy as np

from .training import _mlp_init, _mlp_numpy
from .workloads import Workload


def kernels_step(params, x, y, lr, update=True):
    """One SGD step of the MLP 784-256-256-10 on dyngrad's kernels: each call is the one an op or
    backward formula of the step makes (the comments name them), on the arrays."""
    from dyngrad.backends import numpy_backend as npb
    from dyngrad.ops.activation import relu, threshold_backward
    from dyngrad.ops.arithmetic import add
    from dyngrad.ops.linalg import _product, addmm
    from dyngrad.ops.loss_nll import _nll_backward_kernel, _nll_forward
    from dyngrad.ops.softmax import _log_softmax, _log_softmax_backward_data
    xp = np
    w1, b1, w2, b2, w3, b3 = params
    # forward: three linear layers (addmm with the weight's transpose), relu, log_softmax, nll
    z1 = addmm.kernel(xp, b1, x, w1.T)
    h1 = relu.kernel(xp, z1)
    z2 = addmm.kernel(xp, b2, h1, w2.T)
    h2 = relu.kernel(xp, z2)
    z3 = addmm.kernel(xp, b3, h2, w3.T)
    logp = _log_softmax.kernel(xp, z3, 1)
    _, total = _nll_forward(xp, logp, y, None, 1, -100, "nll_loss_out_frame")
    # backward: NllLossBackward0, LogSoftmaxBackward0, then per layer AddmmBackward0 (the
    # bias's row sum, the weight's gradient as grad.T @ input, the input's as grad @ weight)
    # and ReluBackward0 (threshold_backward)
    g = _nll_backward_kernel(xp, np.ones((), z3.dtype), logp, y, total)
    g = _log_softmax_backward_data.kernel(xp, g, logp, 1)
    layers = []
    for w, h in ((w3, h2), (w2, h1), (w1, x)):
        bias_grad = npb.leading_sum(g, 1)
        if h is not x:   # (the input needs no gradient)
            h_grad = _product(xp, xp.matmul, g, w)
        layers.append((_product(xp, xp.matmul, g.T, h), bias_grad))
        if h is not x:
            g = threshold_backward.kernel(xp, h_grad, h, 0)
    (gw3, gb3), (gw2, gb2), (gw1, gb1) = layers
    grads = [gw1, gb1, gw2, gb2, gw3, gb3]
    if update:   # p.add_(p.grad, alpha=-lr) under no_grad: the add kernel writing into p
        for p, grad in zip(params, grads):
            add.kernel(xp, p, grad, alpha=-lr, _into=p)
    return grads


class MLPKernels(Workload):
    """The MLP step on dyngrad's kernels alone (see the module's docstring), against the NumPy
    baseline; torch has no part in it."""
    unit = "ms"
    lr = 1e-3

    def __init__(self, batch):
        self.batch = batch
        self.name = (f"the MLP step on dyngrad's kernels alone, batch {batch} (no tensors, "
                     "no graph)")
        self.budget = "reported (the Python layer's share)"

    def setup(self):
        rng = np.random.default_rng(1)
        self.x = rng.standard_normal((self.batch, 784)).astype(np.float32)
        self.y = rng.integers(0, 10, self.batch)
        init = _mlp_init()
        kernel_params = [p.copy() for p in init]
        numpy_params = [p.copy() for p in init]
        self.init = init
        return {"dyngrad": lambda: kernels_step(kernel_params, self.x, self.y, self.lr),
                "numpy": lambda: _mlp_numpy(numpy_params, self.x, self.y, self.lr)}

    def check(self, systems):
        want = _mlp_numpy([p.copy() for p in self.init], self.x, self.y, self.lr, False)
        got = kernels_step([p.copy() for p in self.init], self.x, self.y, self.lr, False)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=2e-3, atol=1e-5)


ALL = [MLPKernels(32), MLPKernels(512)]
