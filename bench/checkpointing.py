"""Activation checkpointing: peak memory (tracemalloc) of a 20-layer MLP forward + backward,
without checkpointing and with ``checkpoint_sequential`` in 5 segments (non-reentrant). Both runs
first check they give identical gradients. Run alone: ``python -m bench.checkpointing``.
"""
from __future__ import annotations

import numpy as np

from .workloads import Workload

LAYERS, WIDTH, BATCH = 20, 64, 2048


def _params(seed=5):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
            for _ in range(LAYERS)]


SEGMENTS = 5   # about sqrt(20): checkpointed segments of 4 layers; the last runs plainly


def _block(a, w):
    """One layer: SiLU(a @ w) written out (it saves a, a @ w and its sigmoid)."""
    z = a @ w
    return z * z.sigmoid()


def _run(lib, x, ws, checkpointed):
    """Forward through the 20 layers, backward; returns the weights' gradients."""
    from dyngrad.utils.checkpoint import checkpoint_sequential
    layers = [(lambda a, w=w: _block(a, w)) for w in ws]
    if checkpointed:
        h = checkpoint_sequential(layers, SEGMENTS, x, use_reentrant=False)
    else:
        h = x
        for layer in layers:
            h = layer(h)
    h.sum().backward()
    grads = [w.grad for w in ws]
    for w in ws:
        w.grad = None
    return grads


class CheckpointMemory(Workload):
    """Peak memory of the 20-layer MLP step, with or without checkpoint_sequential."""
    memory = True
    unit = "MB"

    def __init__(self, checkpointed):
        self.checkpointed = checkpointed
        what = f"checkpoint_sequential, {SEGMENTS} segments" if checkpointed else "no checkpoint"
        self.name = f"peak memory, 20-layer MLP {WIDTH} wide fwd+bwd, {what} (tracemalloc)"
        self.budget = "≥ 3× below no checkpoint" if checkpointed else "reference"

    def setup(self):
        import dyngrad
        rng = np.random.default_rng(6)
        self.x = dyngrad.tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
        self.ws = [dyngrad.tensor(w, requires_grad=True) for w in _params()]
        return {"dyngrad": lambda: _run(dyngrad, self.x, self.ws, self.checkpointed)}

    def check(self, systems):
        import dyngrad
        plain = _run(dyngrad, self.x, self.ws, False)
        ck = _run(dyngrad, self.x, self.ws, True)
        for a, b in zip(plain, ck):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


ALL = [CheckpointMemory(False), CheckpointMemory(True)]


if __name__ == "__main__":
    from .runner import run_workload
    peaks = [run_workload(w, 1)["stats"]["dyngrad"]["median"] for w in ALL]
    print(f"no checkpoint: {peaks[0] / 1e6:.1f} MB, checkpoint_sequential: "
          f"{peaks[1] / 1e6:.1f} MB, ratio {peaks[0] / peaks[1]:.2f}x")
