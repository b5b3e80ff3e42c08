"""NAdam: Adam with Nesterov momentum (torch/optim/nadam.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation import zeros_like
from ..ops.tensor_new import tensor
from .optimizer import (Optimizer, _check_capturable, _get_scalar_dtype, _get_value, _new_step,
                        _steps_to_tensors, _to_scalar, _use_grad_for_differentiable)

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    r"""NAdam: Adam whose momentum coefficient follows the schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``, applied Nesterov-style.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 2e-3).
        betas (Tuple[float, float]): coefficients of the running averages
            (default: (0.9, 0.999)).
        eps (float): added to the denominator (default: 1e-8).
        weight_decay (float): L2 penalty, or decoupled decay (default: 0).
        momentum_decay (float): the momentum schedule's decay (default: 4e-3).
        decoupled_weight_decay (bool): decay the weights directly as AdamW (default: False).
        foreach, capturable, differentiable: accepted as in torch (one loop in dyngrad;
            ``capturable=True`` raises at step() as torch does on the CPU).
        maximize (bool): maximize the objective (default: False).

    Note: the running product of the ``mu_t`` is kept in a 0-dim tensor of the step dtype
    (float32 by default), as torch keeps it, so it rounds exactly as torch's does.
    """

    _dense_only = "NAdam"

    def __init__(self, params, lr: float | Tensor = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
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
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
        _steps_to_tensors(self, extra=("mu_product",))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, mu_products, steps = self._gather(
                group, lambda p: {"step": _new_step(group, p),
                                  "mu_product": tensor(1.0, dtype=_get_scalar_dtype()),
                                  "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)},
                ("exp_avg", "exp_avg_sq", "mu_product", "step"))
            beta1, beta2 = group["betas"]
            nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps, beta1=beta1,
                  beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                  momentum_decay=group["momentum_decay"], eps=group["eps"],
                  decoupled_weight_decay=group["decoupled_weight_decay"],
                  maximize=group["maximize"], capturable=group["capturable"])
        return loss


def nadam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
          exp_avg_sqs: list[Tensor], mu_products: list[Tensor], state_steps: list[Tensor], *,
          beta1: float, beta2: float, lr: float, weight_decay: float, momentum_decay: float,
          eps: float, decoupled_weight_decay: bool = False, maximize: bool = False,
          capturable: bool = False) -> None:
    """The NAdam update of each parameter in place (functional form; see :class:`NAdam`)."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq = exp_avgs[i], exp_avg_sqs[i]
        mu_product, step_t = mu_products[i], state_steps[i]
        _check_capturable(capturable, "params, mu_products and state_steps")
        step_t += 1
        step = _get_value(step_t)
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        # the momentum schedule for this step and the next one
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_product *= mu

        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()

        mu_product_next = _get_value(mu_product) * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - _get_value(mu_product)))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))
