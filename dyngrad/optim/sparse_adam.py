"""SparseAdam: Adam for sparse-layout gradients (torch/optim/sparse_adam.py).

dyngrad has no sparse tensors, so every gradient is dense, and torch refuses dense gradients
at step(): a step with any gradient present raises torch's RuntimeError, and a step with
no gradient at all only evaluates the closure.  The class exists so that code written for
torch constructs, checks its arguments, saves and loads state dicts the same way.
"""
from __future__ import annotations

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    r"""Masked Adam for parameters whose gradients have a sparse layout
    (``nn.Embedding(sparse=True)`` in torch).

    Args:
        params (iterable): parameters or parameter groups (dense, real).
        lr (float, Tensor): learning rate (default: 1e-3).
        betas (Tuple[float, float]): averaging coefficients (default: (0.9, 0.999)).
        eps (float): added to the denominator (default: 1e-8).
        maximize (bool): maximize the objective (default: False).

    Differences from torch: dyngrad has no sparse gradients, so ``step()`` always meets a
    dense one and raises what torch raises for it.
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, betas=(0.9, 0.999),
                 eps: float = 1e-8, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        complex_params = [[index, d_index]
                          for index, group in enumerate(self.param_groups)
                          for d_index, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does "
                             "not support complex parameters")

    @no_grad()
    def step(self, closure=None):
        """Evaluate ``closure``; then raise on the first (dense) gradient, as torch does."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None and not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
        return loss
