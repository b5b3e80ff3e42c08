"""RMSprop: divide the gradient by a running root mean square (torch/optim/rmsprop.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation import zeros_like
from .optimizer import (Optimizer, refuse_sparse, _check_capturable, _new_step, _steps_to_tensors,
                        _to_scalar, _use_grad_for_differentiable)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    r"""RMSprop: ``v = alpha * v + (1 - alpha) * g²``; with ``centered`` the running mean of
    ``g`` is subtracted (``v - mean²``); ``p -= lr * g / (sqrt(v) + eps)``, or through a
    momentum buffer ``b = momentum * b + g / (sqrt(v) + eps)``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 1e-2).
        alpha (float): smoothing constant (default: 0.99).
        eps (float): added to the denominator (default: 1e-8).
        weight_decay (float): L2 penalty (default: 0).
        momentum (float): momentum factor (default: 0).
        centered (bool): normalise by the estimated variance of the gradient (default: False).
        capturable, foreach, differentiable: accepted as in torch (one loop in dyngrad;
            ``capturable=True`` raises at step() as torch does on the CPU).
        maximize (bool): maximize the objective (default: False).
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
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
            params, grads, square_avgs, grad_avgs, momentum_buffers, steps = \
                [], [], [], [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                refuse_sparse("RMSprop", (p.grad,))
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step(group, p)
                    state["square_avg"] = zeros_like(p)
                    if group["momentum"] > 0:
                        state["momentum_buffer"] = zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = zeros_like(p)
                square_avgs.append(state["square_avg"])
                steps.append(state["step"])
                if group["momentum"] > 0:
                    momentum_buffers.append(state["momentum_buffer"])
                if group["centered"]:
                    grad_avgs.append(state["grad_avg"])
            rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffers, steps,
                    lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                    weight_decay=group["weight_decay"], momentum=group["momentum"],
                    centered=group["centered"], maximize=group["maximize"],
                    capturable=group["capturable"])
        return loss


def rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
            grad_avgs: list[Tensor], momentum_buffers: list[Tensor], state_steps: list[Tensor],
            *, lr: float, alpha: float, eps: float, weight_decay: float, momentum: float,
            centered: bool, maximize: bool, capturable: bool = False) -> None:
    """The RMSprop update of each parameter in place (functional form; see :class:`RMSprop`)."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        _check_capturable(capturable)
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        state_steps[i] += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffers[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)
