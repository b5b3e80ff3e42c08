"""Adagrad: per-coordinate learning rates from the sum of squared gradients
(torch/optim/adagrad.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation import full_like
from .optimizer import (Optimizer, _check_fused_flags, _get_value, _new_step,
                        _steps_to_tensors, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad: ``sum += g²`` and ``p -= clr * g / (sqrt(sum) + eps)`` with
    ``clr = lr / (1 + (step - 1) * lr_decay)``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 1e-2).
        lr_decay (float): learning rate decay (default: 0).
        weight_decay (float): L2 penalty (default: 0).
        initial_accumulator_value (float): starting value of ``sum`` (default: 0).
        eps (float): added to the denominator (default: 1e-10).
        foreach, differentiable, fused: accepted as in torch (one loop in dyngrad).
        maximize (bool): maximize the objective (default: False).

    A sparse gradient (``nn.Embedding(sparse=True)``) updates only the rows it holds, as torch's
    sparse branch does (no ``weight_decay`` then).
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError("Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)
        # Adagrad creates its state at once, not at the first step (as torch)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group, p, initial_accumulator_value)

    def _init_state(self, group, p, initial_accumulator_value) -> None:
        state = self.state[p]
        state["step"] = _new_step(group, p)
        state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
        _steps_to_tensors(self)

    def share_memory(self) -> None:
        """Move each parameter's sum of squared gradients to shared memory (for Hogwild
        training: Tensor.share_memory_)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, state_sums, state_steps = [], [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:     # a parameter added by add_param_group
                    self._init_state(group, p, self.defaults["initial_accumulator_value"])
                state_sums.append(state["sum"])
                state_steps.append(state["step"])
            adagrad(params, grads, state_sums, state_steps, lr=group["lr"],
                    weight_decay=group["weight_decay"], lr_decay=group["lr_decay"],
                    eps=group["eps"], maximize=group["maximize"])
        return loss


def adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor],
            state_steps: list[Tensor], *, lr: float, weight_decay: float, lr_decay: float,
            eps: float, maximize: bool) -> None:
    """The Adagrad update of each parameter in place (functional form; see :class:`Adagrad`)."""
    lr = _to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t += 1
        step = _get_value(step_t)
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            if grad.is_sparse:
                raise RuntimeError("weight_decay option is not compatible with sparse gradients")
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        if grad.is_sparse:   # only the rows the gradient holds (its values, coalesced)
            grad = grad.coalesce()
            indices, values = grad._indices(), grad._values()
            state_sum.add_(_same_addresses(grad, indices, values.pow(2)))
            std = state_sum.sparse_mask(grad)._values().sqrt_().add_(eps)
            param.add_(_same_addresses(grad, indices, values / std), alpha=-clr)
            continue
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)


def _same_addresses(grad, indices, values):
    """A sparse tensor of `values` at `grad`'s addresses."""
    from ..ops.sparse import sparse_coo_tensor
    return sparse_coo_tensor(indices, values, grad.shape)
