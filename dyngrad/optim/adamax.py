"""Adamax: Adam with the infinity norm in place of the second moment (torch/optim/adamax.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops import FUNCTIONS
from ..ops.creation import zeros_like
from .optimizer import (Optimizer, _check_capturable, _get_value, _new_step, _steps_to_tensors,
                        _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adamax", "adamax"]

maximum = FUNCTIONS["maximum"]    # torch.maximum (a registry primitive)


class Adamax(Optimizer):
    r"""Adamax: ``m`` as in Adam, ``u = max(beta2 * u, |g| + eps)``, and
    ``p -= lr / (1 - beta1^t) * m / u``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 2e-3).
        betas (Tuple[float, float]): coefficients of ``m`` and ``u`` (default: (0.9, 0.999)).
        eps (float): added to ``|g|`` (default: 1e-8).
        weight_decay (float): L2 penalty (default: 0).
        foreach, differentiable, capturable: accepted as in torch (one loop in dyngrad;
            ``capturable=True`` raises at step() as torch does on the CPU).
        maximize (bool): maximize the objective (default: False).
    """

    _dense_only = "Adamax"

    def __init__(self, params, lr: float | Tensor = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        _steps_to_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_infs, steps = self._gather(
                group, lambda p: {"step": _new_step(group, p), "exp_avg": zeros_like(p),
                                  "exp_inf": zeros_like(p)},
                ("exp_avg", "exp_inf", "step"))
            beta1, beta2 = group["betas"]
            adamax(params, grads, exp_avgs, exp_infs, steps, eps=group["eps"], beta1=beta1,
                   beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                   maximize=group["maximize"], capturable=group["capturable"],
                   differentiable=group["differentiable"])
        return loss


def adamax(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
           exp_infs: list[Tensor], state_steps: list[Tensor], *, eps: float, beta1: float,
           beta2: float, lr: float, weight_decay: float, maximize: bool,
           capturable: bool = False, differentiable: bool = False) -> None:
    """The Adamax update of each parameter in place (functional form; see :class:`Adamax`)."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_inf, step_t = exp_avgs[i], exp_infs[i], state_steps[i]
        _check_capturable(capturable)
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        if differentiable:          # out= does not record autograd history
            exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
        else:
            maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        clr = lr / (1 - beta1 ** _get_value(step_t))
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
