"""RAdam: Adam with a rectified adaptive learning rate (torch/optim/radam.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation import zeros_like
from .optimizer import (Optimizer, _check_capturable, _get_value, _new_step, _steps_to_tensors,
                        _to_scalar, _use_grad_for_differentiable)

__all__ = ["RAdam", "radam"]


class RAdam(Optimizer):
    r"""RAdam: while the variance of the adaptive rate is intractable (``rho_t <= 5``) the
    update is plain momentum SGD with the bias-corrected average; afterwards it is Adam's
    update times the rectification term ``r_t``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 1e-3).
        betas (Tuple[float, float]): coefficients of the running averages
            (default: (0.9, 0.999)).
        eps (float): added to the denominator (default: 1e-8).
        weight_decay (float): L2 penalty, or decoupled decay (default: 0).
        decoupled_weight_decay (bool): decay the weights directly as AdamW (default: False).
        foreach, capturable, differentiable: accepted as in torch (one loop in dyngrad;
            ``capturable=True`` raises at step() as torch does on the CPU).
        maximize (bool): maximize the objective (default: False).
    """

    _dense_only = "RAdam"

    def __init__(self, params, lr: float | Tensor = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
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
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("capturable", False)
        _steps_to_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, steps = self._gather(
                group, lambda p: {"step": _new_step(group, p), "exp_avg": zeros_like(p),
                                  "exp_avg_sq": zeros_like(p)},
                ("exp_avg", "exp_avg_sq", "step"))
            beta1, beta2 = group["betas"]
            radam(params, grads, exp_avgs, exp_avg_sqs, steps, beta1=beta1, beta2=beta2,
                  lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"],
                  decoupled_weight_decay=group["decoupled_weight_decay"],
                  maximize=group["maximize"], capturable=group["capturable"])
        return loss


def radam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
          exp_avg_sqs: list[Tensor], state_steps: list[Tensor], *, beta1: float, beta2: float,
          lr: float, weight_decay: float, eps: float, decoupled_weight_decay: bool = False,
          maximize: bool = False, capturable: bool = False) -> None:
    """The RAdam update of each parameter in place (functional form; see :class:`RAdam`)."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        _check_capturable(capturable)
        step_t += 1
        step = _get_value(step_t)
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1

        # rho: the length of the approximated simple moving average (its limit and at step t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add_(eps)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
