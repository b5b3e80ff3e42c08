"""The workloads. Each gives one callable per system and a check of dyngrad against the baseline.

A workload's callables take no arguments and do the whole measured step; inputs are built once
in ``setup`` from one seed, so every system computes on the same values.
"""
from __future__ import annotations

import numpy as np


class Workload:
    name = ""
    unit = "us"            # how the table prints times
    per_call_scale = 1.0   # multiply a call's time by this (e.g. 1/ops per call)
    budget = ""

    def setup(self) -> dict:
        raise NotImplementedError

    def check(self, systems: dict) -> None:
        pass


class NoGradPointwise(Workload):
    """(b) one no-grad pointwise op on a tiny (4,) tensor, per op (DESIGN §8: ≤ 1.0× torch).

    Each call runs a chain of 100 ``add``/``mul`` ops so the loop overhead is negligible.
    """
    name = "no-grad pointwise op, (4,) float32, per op"
    ops = 100
    per_call_scale = 1 / 100
    budget = "≤ 1.0× torch, ≤ 3× numpy"

    def setup(self):
        import torch
        import dyngrad
        rng = np.random.default_rng(0)
        a = rng.standard_normal(4).astype(np.float32)
        b = rng.standard_normal(4).astype(np.float32)
        self.inputs = (a, b)

        def chain(x, y):
            for _ in range(self.ops // 2):
                x = x + y
                x = x * y
            return x

        da, db = dyngrad.tensor(a), dyngrad.tensor(b)
        ta, tb = torch.tensor(a), torch.tensor(b)

        def run_dyngrad():
            with dyngrad.no_grad():
                return chain(da, db)

        def run_torch():
            with torch.no_grad():
                return chain(ta, tb)

        def run_numpy():
            return chain(a, b)

        return {"dyngrad": run_dyngrad, "torch": run_torch, "numpy": run_numpy}

    def check(self, systems):
        want = systems["numpy"]()
        got = systems["dyngrad"]()
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
        np.testing.assert_allclose(systems["torch"]().numpy(), want, rtol=1e-5)


class UnaryMethod(Workload):
    """A unary method call (``x.exp()``) on a tiny tensor, per op."""
    name = "no-grad unary method x.exp(), (4,) float32, per op"
    per_call_scale = 1 / 100
    budget = "≤ 1.0× torch"

    def setup(self):
        import torch
        import dyngrad
        a = np.linspace(-1, 1, 4, dtype=np.float32)
        da, ta = dyngrad.tensor(a), torch.tensor(a)

        def chain(x):
            for _ in range(100):
                y = x.exp()
            return y

        return {"dyngrad": lambda: chain(da), "torch": lambda: chain(ta),
                "numpy": lambda: [np.exp(a) for _ in range(100)][-1]}

    def check(self, systems):
        np.testing.assert_allclose(systems["dyngrad"]().numpy(), systems["numpy"](), rtol=1e-6)


class OpOverhead(Workload):
    """(a) per-op overhead: a chain of 200 pointwise ops on a (4,) tensor, forward + backward.

    The chain alternates ``x * w`` and ``x + w`` with w a leaf that requires grad; the NumPy
    baseline computes the same forward and its hand-derived backward.
    """
    name = "op overhead: 200-op chain fwd+bwd, (4,) float32, per op"
    ops = 200
    per_call_scale = 1 / 200
    budget = "≤ 1.0× torch"

    def setup(self):
        import torch
        import dyngrad
        rng = np.random.default_rng(0)
        x0 = rng.uniform(0.9, 1.1, 4).astype(np.float32)
        w0 = rng.uniform(0.9, 1.1, 4).astype(np.float32)
        half = self.ops // 2

        def run(lib):
            x = lib.tensor(x0)
            w = lib.tensor(w0, requires_grad=True)
            y = x
            for _ in range(half):
                y = y * w
                y = y + w
            y.sum().backward()
            return w.grad

        def run_numpy():
            ys = [x0]                  # the input of each step's multiply
            y = x0
            for _ in range(half):
                y = y * w0 + w0
                ys.append(y)
            g = np.ones_like(y)
            gw = np.zeros_like(w0)
            for i in range(half, 0, -1):
                gw += g                # from y = a + w
                gw += g * ys[i - 1]    # from a = y_prev * w
                g = g * w0
            return gw

        return {"dyngrad": lambda: run(dyngrad), "torch": lambda: run(torch),
                "numpy": run_numpy}

    def check(self, systems):
        want = systems["numpy"]()
        np.testing.assert_allclose(systems["dyngrad"]().numpy(), want, rtol=1e-4)
        np.testing.assert_allclose(systems["torch"]().numpy(), want, rtol=1e-4)


ALL = [NoGradPointwise(), UnaryMethod(), OpOverhead()]
