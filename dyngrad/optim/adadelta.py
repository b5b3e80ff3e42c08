"""Adadelta: an adaptive learning rate from running averages of squared gradients and squared
updates (torch/optim/adadelta.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation import zeros_like
from .optimizer import (Optimizer, _new_step, _steps_to_tensors, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["Adadelta", "adadelta"]

# Adadelta's capturable check leaves out "xla" (torch: supports_xla=False)
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone"]


class Adadelta(Optimizer):
    r"""Adadelta: ``v = rho * v + (1 - rho) * g²``,
    ``delta = sqrt(u + eps) / sqrt(v + eps) * g``, ``u = rho * u + (1 - rho) * delta²``
    and ``p -= lr * delta``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): coefficient that scales the update (default: 1.0).
        rho (float): coefficient of the running averages (default: 0.9).
        eps (float): added inside the square roots (default: 1e-6).
        weight_decay (float): L2 penalty (default: 0).
        foreach, capturable, differentiable: accepted as in torch (one loop in dyngrad;
            ``capturable=True`` raises at step() as torch does on the CPU).
        maximize (bool): maximize the objective (default: False).
    """

    _dense_only = "Adadelta"

    def __init__(self, params, lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
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
            params, grads, square_avgs, acc_deltas, steps = self._gather(
                group, lambda p, g=group: {"step": _new_step(g, p),
                                           "square_avg": zeros_like(p),
                                           "acc_delta": zeros_like(p)},
                ("square_avg", "acc_delta", "step"))
            adadelta(params, grads, square_avgs, acc_deltas, steps, lr=group["lr"],
                     rho=group["rho"], eps=group["eps"], weight_decay=group["weight_decay"],
                     foreach=group["foreach"], maximize=group["maximize"],
                     differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def adadelta(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
             acc_deltas: list[Tensor], state_steps: list[Tensor], capturable: bool = False,
             foreach: bool | None = None, differentiable: bool = False,
             has_complex: bool = False, *, lr: float, rho: float, eps: float,
             weight_decay: float, maximize: bool) -> None:
    """The Adadelta update of each parameter in place (functional form; see
    :class:`Adadelta`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    if foreach and differentiable:
        raise AssertionError("_foreach ops don't support autograd")
    if capturable and params:
        raise AssertionError("If capturable=True, params and state_steps must be on "
                             f"supported devices: {_CAPTURABLE_DEVICES}.")
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs,
                                                         acc_deltas, state_steps):
        step += 1
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)
