"""Optimizer steps: Adam on the MLP's parameters (784-256-256-10), the gradients given.

An optimizer step is a run of small in-place ops per parameter with nothing to record (torch's
single-tensor loop on CPU; dyngrad's is the same loop), so it measures the in-place dispatch
(Note [Hot path] in dyngrad/ops/_dispatch.py). The NumPy baseline is the same update written
with in-place ufuncs. No budget in DESIGN.md §8: reported.
"""
from __future__ import annotations

import numpy as np

from .training import _mlp_init
from .workloads import Workload

LR, BETAS, EPS = 1e-3, (0.9, 0.999), 1e-8


def _adam_numpy(params, grads, state):
    """One Adam step (torch's formula, weight decay 0), in place; `state` holds m, v, step."""
    b1, b2 = BETAS
    state["step"] += 1
    t = state["step"]
    for p, g, m, v in zip(params, grads, state["m"], state["v"]):
        m += (1 - b1) * (g - m)                      # lerp_(g, 1 - b1)
        v *= b2
        v += (1 - b2) * g * g                        # addcmul_(g, g, value=1 - b2)
        denom = np.sqrt(v) / np.sqrt(1 - b2 ** t)
        denom += EPS
        p -= (LR / (1 - b1 ** t)) * m / denom        # addcdiv_(m, denom, value=-step_size)


class AdamStep(Workload):
    """Adam's step over the six parameters of the MLP 784-256-256-10 (266 610 numbers)."""
    name = "Adam step, MLP 784-256-256-10 parameters"
    unit = "ms"
    budget = "reported (no budget)"

    def setup(self):
        import torch
        import dyngrad
        rng = np.random.default_rng(7)
        init = _mlp_init()
        grads = [rng.standard_normal(p.shape).astype(np.float32) * 1e-2 for p in init]
        self.init, self.grads = init, grads
        systems = {}
        for name, lib in (("dyngrad", dyngrad), ("torch", torch)):
            params = [lib.tensor(p, requires_grad=True) for p in init]
            for p, g in zip(params, grads):
                p.grad = lib.tensor(g)
            systems[name] = lib.optim.Adam(params, lr=LR, betas=BETAS, eps=EPS).step
        np_params = [p.copy() for p in init]
        state = {"step": 0, "m": [np.zeros_like(p) for p in init],
                 "v": [np.zeros_like(p) for p in init]}
        systems["numpy"] = lambda: _adam_numpy(np_params, grads, state)
        return systems

    def check(self, systems):
        """Three steps from the same start give the baseline's parameters."""
        import torch
        import dyngrad
        want = [p.copy() for p in self.init]
        state = {"step": 0, "m": [np.zeros_like(p) for p in want],
                 "v": [np.zeros_like(p) for p in want]}
        for _ in range(3):
            _adam_numpy(want, self.grads, state)
        for lib in (dyngrad, torch):
            params = [lib.tensor(p, requires_grad=True) for p in self.init]
            for p, g in zip(params, self.grads):
                p.grad = lib.tensor(g)
            opt = lib.optim.Adam(params, lr=LR, betas=BETAS, eps=EPS)
            for _ in range(3):
                opt.step()
            for p, w in zip(params, want):
                np.testing.assert_allclose(p.detach().numpy(), w, rtol=1e-5, atol=1e-7)


ALL = [AdamStep()]
