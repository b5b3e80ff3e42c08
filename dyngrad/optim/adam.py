"""Adam (and the base of AdamW): adaptive moment estimation (torch/optim/adam.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops import FUNCTIONS
from ..ops.creation import zeros_like
from .optimizer import (Optimizer, refuse_sparse, _check_capturable, _check_fused_flags, _get_value,
                        _new_step, _squeeze_scalar, _steps_to_tensors, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["Adam", "adam"]

maximum = FUNCTIONS["maximum"]    # torch.maximum (a registry primitive)


class Adam(Optimizer):
    r"""Adam: ``m`` and ``v`` are running averages of the gradient and its square; the
    update is ``p -= lr * m_hat / (sqrt(v_hat) + eps)`` with bias-corrected ``m_hat, v_hat``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 1e-3).
        betas (Tuple[float, float]): averaging coefficients of ``m`` and ``v``
            (default: (0.9, 0.999)).
        eps (float): added to the denominator (default: 1e-8).
        weight_decay (float): L2 penalty, or decoupled decay with
            ``decoupled_weight_decay=True`` (AdamW) (default: 0).
        amsgrad (bool): use the running maximum of ``v`` (AMSGrad) (default: False).
        maximize (bool): maximize the objective (default: False).
        foreach, capturable, differentiable, fused: accepted as in torch; dyngrad always runs
            the one-tensor-at-a-time loop, and ``capturable=True`` raises at step() as torch
            does on the CPU.
        decoupled_weight_decay (bool): decay the weights directly, as AdamW (default: False).
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
            if lr.numel() != 1:
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
        both_floats = isinstance(betas[0], float) and isinstance(betas[1], float)
        both_tensors = isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)
        if not (both_floats or both_tensors):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                     "capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_squeeze_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
        _steps_to_tensors(self)

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                    state_steps) -> None:
        """Collect the parameters that have a gradient, creating their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            refuse_sparse("Adam", (p.grad,), ", please consider SparseAdam instead")
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(group, p)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps)
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps,
                 amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"],
                 maximize=group["maximize"], capturable=group["capturable"],
                 differentiable=group["differentiable"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
         exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor],
         *, amsgrad: bool, beta1: float, beta2: float, lr: float, weight_decay: float,
         eps: float, maximize: bool, capturable: bool = False, differentiable: bool = False,
         decoupled_weight_decay: bool = False) -> None:
    """The Adam update of each parameter in place (functional form; see :class:`Adam`)."""
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        _check_capturable(capturable)
        step_t += 1
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        exp_avg.lerp_(grad, 1 - beta1)                                  # m = b1 m + (1-b1) g
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)    # v = b2 v + (1-b2) g²

        step = _get_value(step_t)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            if differentiable:      # out= does not record autograd history
                max_exp_avg_sqs[i].copy_(maximum(max_exp_avg_sqs[i].clone(), exp_avg_sq))
            else:
                maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)
