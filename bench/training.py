"""Training-shaped workloads: the MLP step (c), the gradient penalty (e), peak memory (f) and the
100 000-op chain (g). The same model code runs on dyngrad and torch (``lib`` is either module);
the NumPy baseline is the forward and its hand-derived backward, the zero-overhead limit.
"""
from __future__ import annotations

import numpy as np

from .workloads import Workload


# -- (c) MLP 784-256-256-10, one SGD step ----------------------------------------------------------
def _mlp_init(seed=0, sizes=((256, 784), (256, 256), (10, 256))):
    rng = np.random.default_rng(seed)
    params = []
    for out_f, in_f in sizes:
        bound = 1 / np.sqrt(in_f)
        params.append(rng.uniform(-bound, bound, (out_f, in_f)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, out_f).astype(np.float32))
    return params


def _sgd(lib, params, lr, update):
    """The gradients; then, with `update`, one SGD step that clears them."""
    grads = [p.grad for p in params]
    if update:
        with lib.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-lr)
                p.grad = None
    return grads


def _mlp_lib(lib, params, x, y, lr, update=True):
    """One step on `lib`: forward, cross-entropy, backward, SGD; returns the gradients."""
    F = lib.nn.functional
    w1, b1, w2, b2, w3, b3 = params
    h = F.relu(F.linear(x, w1, b1))
    h = F.relu(F.linear(h, w2, b2))
    loss = F.cross_entropy(F.linear(h, w3, b3), y)
    loss.backward()
    return _sgd(lib, params, lr, update)


def _mlp_numpy(params, x, y, lr, update=True):
    w1, b1, w2, b2, w3, b3 = params
    n = x.shape[0]
    z1 = x @ w1.T + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2.T + b2
    h2 = np.maximum(z2, 0)
    z3 = h2 @ w3.T + b3
    e = np.exp(z3 - z3.max(1, keepdims=True))
    g3 = e / e.sum(1, keepdims=True)          # softmax; d(mean CE)/dz3 = (softmax - onehot) / n
    g3[np.arange(n), y] -= 1
    g3 /= n
    gw3, gb3 = g3.T @ h2, g3.sum(0)
    g2 = (g3 @ w3) * (z2 > 0)
    gw2, gb2 = g2.T @ h1, g2.sum(0)
    g1 = (g2 @ w2) * (z1 > 0)
    gw1, gb1 = g1.T @ x, g1.sum(0)
    grads = [gw1, gb1, gw2, gb2, gw3, gb3]
    if update:
        for p, g in zip(params, grads):
            p -= lr * g
    return grads


class TrainStep(Workload):
    """One SGD training step of a model given as (init, lib step, NumPy step) functions."""
    unit = "ms"
    lr = 1e-3

    def __init__(self, name, budget, init, lib_step, numpy_step, x_shape, seed):
        self.name, self.budget = name, budget
        self.init, self.lib_step, self.numpy_step = init, lib_step, numpy_step
        self.x_shape, self.seed = x_shape, seed

    def setup(self):
        import torch
        import dyngrad
        rng = np.random.default_rng(self.seed)
        x = rng.standard_normal(self.x_shape).astype(np.float32)
        y = rng.integers(0, 10, self.x_shape[0])
        init = self.init()
        self.np_params = [p.copy() for p in init]
        self.libs = {}
        for name, lib in (("dyngrad", dyngrad), ("torch", torch)):
            params = [lib.tensor(p, requires_grad=True) for p in init]
            self.libs[name] = (lib, params, lib.tensor(x), lib.tensor(y))
        self.x, self.y = x, y
        systems = {name: (lambda name=name: self.lib_step(*self.libs[name], self.lr))
                   for name in self.libs}
        systems["numpy"] = lambda: self.numpy_step(self.np_params, x, y, self.lr)
        return systems

    def check(self, systems):
        want = self.numpy_step([p.copy() for p in self.np_params], self.x, self.y, self.lr,
                               False)
        for name in ("dyngrad", "torch"):
            got = self.lib_step(*self.libs[name], self.lr, update=False)
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.numpy(), w, rtol=2e-3, atol=1e-5)
            for p in self.libs[name][1]:
                p.grad = None


def mlp_step(batch, budget):
    """(c) MLP 784-256-256-10 training step (forward, cross-entropy, backward, SGD)."""
    return TrainStep(f"MLP 784-256-256-10 train step, batch {batch}", budget, _mlp_init,
                     _mlp_lib, _mlp_numpy, (batch, 784), 1)


# The same steps at toy sizes, where every kernel costs next to nothing: what is left is each
# system's layer around its kernels (dyngrad's Python against torch's C++), per step. Reported
# beside the budgeted rows to tell how much of their ratio that layer is.
TOY = "reported (the layer around the kernels)"


def _toy_mlp_init(seed=0):
    return _mlp_init(seed, sizes=((8, 8), (8, 8), (10, 8)))


def toy_mlp_step():
    step = TrainStep("the MLP step at toy sizes, 8-8-8-10, batch 2", TOY, _toy_mlp_init,
                     _mlp_lib, _mlp_numpy, (2, 8), 1)
    step.unit = "us"
    return step


class MLPProducts(Workload):
    """The eight matrix products of the MLP step alone (its three linear layers with their
    biases, then the five products of the backward), each system's own kernels: what the BLAS
    library costs, with no autograd around it. dyngrad and torch run them as no-grad ops, NumPy
    as ``@``. It tells how much of the step's ratio to torch is its BLAS (MKL) against NumPy's
    and SciPy's OpenBLAS, which no engine of NumPy's can change."""
    unit = "ms"

    def __init__(self, batch):
        self.batch = batch
        self.name = f"the MLP step's 8 matrix products alone, batch {batch} (no autograd)"
        self.budget = "reported (the BLAS share)"

    def setup(self):
        import torch
        import dyngrad
        rng = np.random.default_rng(5)
        n = self.batch
        arrays = _mlp_init() + [rng.standard_normal(shape).astype(np.float32) for shape in
                                ((n, 784), (n, 256), (n, 256), (n, 10), (n, 256))]
        self.arrays = arrays

        def run_lib(lib, t):
            F = lib.nn.functional
            w1, b1, w2, b2, w3, b3, x, h1, h2, g3, g2 = t
            with lib.no_grad():
                return (F.linear(x, w1, b1), F.linear(h1, w2, b2), F.linear(h2, w3, b3),
                        g3.t().mm(h2), g3.mm(w3), g2.t().mm(h1), g2.mm(w2), g2.t().mm(x))

        def run_numpy():
            w1, b1, w2, b2, w3, b3, x, h1, h2, g3, g2 = arrays
            return (x @ w1.T + b1, h1 @ w2.T + b2, h2 @ w3.T + b3,
                    g3.T @ h2, g3 @ w3, g2.T @ h1, g2 @ w2, g2.T @ x)

        systems = {"numpy": run_numpy}
        for name, lib in (("dyngrad", dyngrad), ("torch", torch)):
            tensors = [lib.tensor(a) for a in arrays]
            systems[name] = lambda lib=lib, tensors=tensors: run_lib(lib, tensors)
        return systems

    def check(self, systems):
        want = systems["numpy"]()
        for name in ("dyngrad", "torch"):
            for got, w in zip(systems[name](), want):
                np.testing.assert_allclose(got.numpy(), w, rtol=1e-4, atol=1e-3)


# -- (d) small CNN: 2 x (conv 3x3 + relu + max-pool 2), linear, cross-entropy ----------------------
def _conv_numpy(x, w):
    """3x3 convolution, padding 1, stride 1: windows of the padded input, one einsum."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", cols, w, optimize=True), cols


def _conv_numpy_backward(g, cols, w):
    """(grad input, grad weight) of _conv_numpy: the input gradient is a convolution of the
    padded output gradient with the flipped kernel."""
    gw = np.einsum("nohw,nchwij->ocij", g, cols, optimize=True)
    gp = np.pad(g, ((0, 0), (0, 0), (1, 1), (1, 1)))
    gcols = np.lib.stride_tricks.sliding_window_view(gp, (3, 3), axis=(2, 3))
    gx = np.einsum("nohwij,ocij->nchw", gcols, w[:, :, ::-1, ::-1], optimize=True)
    return gx, gw


def _pool_numpy(x):
    n, c, h, w = x.shape
    r = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    return out, r == out[:, :, :, None, :, None]


def _cnn_init(seed=3):
    rng = np.random.default_rng(seed)
    shapes = [(8, 1, 3, 3), (8,), (16, 8, 3, 3), (16,), (10, 16 * 7 * 7), (10,)]
    fan_in = [9, 9, 72, 72, 784, 784]
    return [(rng.uniform(-1, 1, s) / np.sqrt(f)).astype(np.float32) for s, f in zip(shapes, fan_in)]


def _cnn_lib(lib, params, x, y, lr, update=True):
    F = lib.nn.functional
    c1, b1, c2, b2, w3, b3 = params
    h = F.max_pool2d(F.relu(F.conv2d(x, c1, b1, padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, c2, b2, padding=1)), 2)
    loss = F.cross_entropy(F.linear(h.flatten(1), w3, b3), y)
    loss.backward()
    return _sgd(lib, params, lr, update)


def _cnn_numpy(params, x, y, lr, update=True):
    c1, b1, c2, b2, w3, b3 = params
    n = x.shape[0]
    z1, cols1 = _conv_numpy(x, c1)
    z1 += b1[:, None, None]
    p1, m1 = _pool_numpy(np.maximum(z1, 0))
    z2, cols2 = _conv_numpy(p1, c2)
    z2 += b2[:, None, None]
    p2, m2 = _pool_numpy(np.maximum(z2, 0))
    f = p2.reshape(n, -1)
    z3 = f @ w3.T + b3
    e = np.exp(z3 - z3.max(1, keepdims=True))
    g3 = e / e.sum(1, keepdims=True)
    g3[np.arange(n), y] -= 1
    g3 /= n
    gw3, gb3 = g3.T @ f, g3.sum(0)
    gp2 = (g3 @ w3).reshape(p2.shape)
    gz2 = (m2 * gp2[:, :, :, None, :, None]).reshape(z2.shape) * (z2 > 0)
    gb2 = gz2.sum((0, 2, 3))
    gp1, gc2 = _conv_numpy_backward(gz2, cols2, c2)
    gz1 = (m1 * gp1[:, :, :, None, :, None]).reshape(z1.shape) * (z1 > 0)
    gb1 = gz1.sum((0, 2, 3))
    gc1 = np.einsum("nohw,nchwij->ocij", gz1, cols1, optimize=True)
    grads = [gc1, gb1, gc2, gb2, gw3, gb3]
    if update:
        for p, g in zip(params, grads):
            p -= lr * g
    return grads


def cnn_step():
    """(d) small CNN train step: 2 x (conv 3x3 + relu + max-pool 2) on 28x28, batch 32."""
    return TrainStep("small CNN train step (2 conv+pool, 28x28), batch 32", "≤ 1.5× torch",
                     _cnn_init, _cnn_lib, _cnn_numpy, (32, 1, 28, 28), 4)


# -- (e) gradient penalty (double backward) -------------------------------------------------------
class GradientPenalty(Workload):
    """(e) WGAN-GP style penalty on a 32-64-1 tanh net, batch 64: grad w.r.t. the input with
    create_graph, then backward through that gradient's norm."""
    name = "gradient penalty (double backward), 32-64-1 tanh, batch 64"
    unit = "ms"
    budget = "≤ 1.5× torch"
    batch, width, hidden = 64, 32, 64

    def setup(self):
        import torch
        import dyngrad
        rng = np.random.default_rng(2)
        self.x0 = rng.standard_normal((self.batch, self.width))
        self.w1 = rng.standard_normal((self.hidden, self.width)) / 6
        self.b1 = rng.standard_normal(self.hidden) / 6
        self.w2 = rng.standard_normal((1, self.hidden)) / 8
        self.libs = {}
        for name, lib in (("dyngrad", dyngrad), ("torch", torch)):
            params = [lib.tensor(p, requires_grad=True) for p in (self.w1, self.b1, self.w2)]
            self.libs[name] = (lib, params, lib.tensor(self.x0))
        systems = {name: (lambda name=name: self._lib(*self.libs[name])) for name in self.libs}
        systems["numpy"] = self._numpy
        return systems

    @staticmethod
    def _lib(lib, params, x0):
        F = lib.nn.functional
        w1, b1, w2 = params
        x = x0.detach().requires_grad_()
        out = F.linear(lib.tanh(F.linear(x, w1, b1)), w2)
        g, = lib.autograd.grad(out.sum(), x, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        grads = lib.autograd.grad(penalty, params)
        return grads

    def _numpy(self):
        x, w1, b1, w2 = self.x0, self.w1, self.b1, self.w2
        n = x.shape[0]
        h = np.tanh(x @ w1.T + b1)
        s = 1 - h * h
        u = w2 * s                               # d out / d z, per sample
        g = u @ w1                               # d out / d x
        norm = np.sqrt((g * g).sum(1, keepdims=True))
        G = 2 * (norm - 1) * g / norm / n        # d penalty / d g
        gw1 = u.T @ G
        U = G @ w1.T                             # d penalty / d u
        gw2 = (U * s).sum(0, keepdims=True)
        dz = -2 * h * (U * w2) * s               # through s = 1 - tanh(z)^2
        gw1 += dz.T @ x
        return gw1, dz.sum(0), gw2

    def check(self, systems):
        want = self._numpy()
        for name in ("dyngrad", "torch"):
            for g, w in zip(systems[name](), want):
                np.testing.assert_allclose(g.numpy(), w, rtol=1e-9, atol=1e-12)


class ToyGradientPenalty(GradientPenalty):
    """The gradient penalty at toy sizes (see TOY above)."""
    name = "the gradient penalty at toy sizes, 4-4-1 tanh, batch 2"
    unit = "us"
    budget = TOY
    batch, width, hidden = 2, 4, 4


# -- (f) peak memory of the MLP batch-512 step ----------------------------------------------------
class MLPMemory(TrainStep):
    """(f) peak memory (tracemalloc) of one MLP batch-512 step: dyngrad vs the NumPy baseline
    (torch allocates outside Python's allocator, so tracemalloc cannot see it)."""
    memory = True
    unit = "MB"

    def __init__(self):
        super().__init__("peak memory, MLP train step batch 512 (tracemalloc)", "≤ 0.8× numpy",
                         _mlp_init, _mlp_lib, _mlp_numpy, (512, 784), 1)

    def setup(self):
        systems = super().setup()
        del systems["torch"]
        return systems


# -- (g) 100 000-op chain --------------------------------------------------------------------------
class LongChain(Workload):
    """(g) a 100 000-op chain (alternating ``* w`` and ``+ w``) forward + backward, (4,) float32:
    time per op, and that the iterative engine runs it at all."""
    name = "100 000-op chain fwd+bwd, (4,) float32, per op"
    ops = 100_000
    per_call_scale = 1 / 100_000
    rounds = 3
    budget = "runs; ≤ 1.0× torch"

    def setup(self):
        import torch
        import dyngrad
        half = self.ops // 2
        x0 = np.full(4, 0.5, np.float32)
        w0 = np.full(4, 0.999, np.float32)

        def run(lib):
            w = lib.tensor(w0, requires_grad=True)
            y = lib.tensor(x0)
            for _ in range(half):
                y = y * w
                y = y + w
            y.sum().backward()
            return w.grad

        def run_numpy():
            y, ys = x0, []
            for _ in range(half):
                ys.append(y)
                y = y * w0 + w0
            g, gw = np.ones_like(y), np.zeros_like(w0)
            for prev in reversed(ys):
                gw += g + g * prev
                g = g * w0
            return gw

        return {"dyngrad": lambda: run(dyngrad), "torch": lambda: run(torch),
                "numpy": run_numpy}

    def check(self, systems):
        want = systems["numpy"]()
        np.testing.assert_allclose(systems["dyngrad"]().numpy(), want, rtol=1e-3)


class LongChainWithoutGC(LongChain):
    """(g) the 100 000-op chain with Python's cyclic GC switched off while it runs (every
    system alike): the difference from the row above is what the collector costs dyngrad, whose
    graph is 100 000 Python nodes that each full collection walks (torch's graph is C++)."""
    name = "100 000-op chain fwd+bwd, cyclic GC off (gc.disable), per op"
    budget = "reported (the GC's share)"

    def setup(self):
        import gc

        def without_gc(fn):
            def run():
                was_enabled = gc.isenabled()
                gc.disable()
                try:
                    return fn()
                finally:
                    if was_enabled:
                        gc.enable()
            return run
        return {name: without_gc(fn) for name, fn in super().setup().items()}


class LongChainMemory(LongChain):
    """(g) peak memory of the 100 000-op chain: the graph with its saved values, dyngrad vs the
    NumPy baseline (which keeps every intermediate for its backward)."""
    name = "peak memory, 100 000-op chain fwd+bwd (tracemalloc)"
    memory = True
    unit = "MB"
    budget = "reported (no budget)"

    def setup(self):
        systems = super().setup()
        del systems["torch"]
        return systems


ALL = [mlp_step(32, "≤ 1.0× torch"), MLPProducts(32), mlp_step(512, "≤ 1.1× torch, ≤ 1.0× numpy"),
       MLPProducts(512), cnn_step(),
       GradientPenalty(), toy_mlp_step(), ToyGradientPenalty(), MLPMemory(), LongChain(),
       LongChainWithoutGC(), LongChainMemory()]
