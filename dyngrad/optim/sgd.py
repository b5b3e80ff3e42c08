"""SGD: stochastic gradient descent with optional momentum and Nesterov (torch/optim/sgd.py)."""
from __future__ import annotations

from .._tensor import Tensor
from .optimizer import Optimizer, _check_fused_flags, _to_scalar, _use_grad_for_differentiable

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with momentum.

    With ``g`` the gradient (negated when ``maximize``) plus ``weight_decay * p``: the momentum
    buffer starts as ``g`` and then becomes ``b = momentum * b + (1 - dampening) * g``; the
    update direction is ``b`` (or ``g + momentum * b`` with ``nesterov``), and
    ``p -= lr * direction``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 1e-3).
        momentum (float): momentum factor (default: 0).
        dampening (float): dampening of the momentum (default: 0).
        weight_decay (float): L2 penalty (default: 0).
        nesterov (bool): Nesterov momentum (default: False).
        maximize (bool): maximize the objective instead of minimizing (default: False).
        foreach, differentiable, fused: accepted as in torch; dyngrad always runs the
            one-tensor-at-a-time loop.

    Example::

        >>> opt = dyngrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> opt.zero_grad(); loss_fn(w).backward(); opt.step()
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float | Tensor = 0, nesterov: bool = False,
                 *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, momentum_buffers = [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                if group["momentum"] != 0:
                    momentum_buffers.append(self.state[p].get("momentum_buffer"))
            sgd(params, grads, momentum_buffers, weight_decay=group["weight_decay"],
                momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                nesterov=group["nesterov"], maximize=group["maximize"])
            if group["momentum"] != 0:
                # sgd() created the buffers of first steps: keep them in the state
                for p, buf in zip(params, momentum_buffers):
                    self.state[p]["momentum_buffer"] = buf
        return loss


def sgd(params: list[Tensor], grads: list[Tensor], momentum_buffers: list[Tensor | None], *,
        weight_decay: float, momentum: float, lr: float, dampening: float, nesterov: bool,
        maximize: bool) -> None:
    """The SGD update of each parameter in place (functional form; see :class:`SGD`)."""
    lr = _to_scalar(lr)
    weight_decay = _to_scalar(weight_decay)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffers[i]
            if buf is None:
                buf = grad.detach().clone()      # the first buffer is the gradient itself
                momentum_buffers[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        param.add_(grad, alpha=-lr)
