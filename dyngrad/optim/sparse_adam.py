"""SparseAdam: Adam for sparse gradients (torch/optim/sparse_adam.py), such as those of
``nn.Embedding(sparse=True)``: the moments and the parameter change only at the addresses a
gradient holds."""
from __future__ import annotations

import math

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.creation import zeros_like
from ..ops.sparse import sparse_coo_tensor
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    r"""Masked Adam for parameters whose gradients are sparse COO tensors
    (``nn.Embedding(sparse=True)``).

    For each gradient (coalesced): the moments ``m`` and ``v`` move towards ``g`` and ``g**2``
    at the gradient's addresses only (``m += (1 - beta1) * (g - m)`` there), and the parameter
    takes the bias-corrected step ``-lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) +
    eps)`` at those addresses.

    Args:
        params (iterable): parameters or parameter groups (dense, real).
        lr (float, Tensor): learning rate (default: 1e-3).
        betas (Tuple[float, float]): averaging coefficients (default: (0.9, 0.999)).
        eps (float): added to the denominator (default: 1e-8).
        maximize (bool): maximize the objective (default: False).
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
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                if not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                state["step"] += 1
                steps.append(state["step"])
            sparse_adam(params, grads, exp_avgs, exp_avg_sqs, steps, eps=group["eps"],
                        beta1=beta1, beta2=beta2, lr=group["lr"],
                        maximize=group["maximize"])
        return loss


def sparse_adam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, eps: float, beta1: float,
                beta2: float, lr: float, maximize: bool) -> None:
    """The SparseAdam update of each parameter in place (functional form, torch's order of
    operations)."""
    for param, grad, exp_avg, exp_avg_sq, step in zip(params, grads, exp_avgs, exp_avg_sqs,
                                                      state_steps):
        grad = (grad if not maximize else -grad).coalesce()   # (the update is not linear)
        indices, values = grad._indices(), grad._values()
        if values.numel() == 0:
            continue

        def same_addresses(v):
            return sparse_coo_tensor(indices, v, grad.shape)

        old_exp_avg = exp_avg.sparse_mask(grad)._values()
        exp_avg_update = values.sub(old_exp_avg).mul_(1 - beta1)
        exp_avg.add_(same_addresses(exp_avg_update))
        old_exp_avg_sq = exp_avg_sq.sparse_mask(grad)._values()
        exp_avg_sq_update = values.pow(2).sub_(old_exp_avg_sq).mul_(1 - beta2)
        exp_avg_sq.add_(same_addresses(exp_avg_sq_update))
        numer = exp_avg_update.add_(old_exp_avg)
        exp_avg_sq_update.add_(old_exp_avg_sq)
        denom = exp_avg_sq_update.sqrt_().add_(eps)
        step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        param.add_(same_addresses(-step_size * numer.div_(denom)))
