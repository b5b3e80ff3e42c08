"""Rprop: resilient backpropagation, per-coordinate step sizes driven by gradient signs
(torch/optim/rprop.py)."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation import full_like, zeros_like
from .optimizer import (Optimizer, _check_capturable, _new_step, _steps_to_tensors,
                        _to_scalar, _use_grad_for_differentiable)

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    r"""Rprop: where the gradient keeps its sign the step size grows by ``etas[1]``, where
    it flips the step size shrinks by ``etas[0]`` (and that coordinate's gradient counts as
    zero); step sizes stay within ``step_sizes``; ``p -= sign(g) * step_size``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): initial step size (default: 1e-2).
        etas (Tuple[float, float]): (etaminus, etaplus), the shrink and growth factors
            (default: (0.5, 1.2)).
        step_sizes (Tuple[float, float]): the smallest and largest step size
            (default: (1e-6, 50)).
        capturable, foreach, differentiable: accepted as in torch (one loop in dyngrad;
            ``capturable=True`` raises at step() as torch does on the CPU).
        maximize (bool): maximize the objective (default: False).
    """

    _dense_only = "Rprop"

    def __init__(self, params, lr: float | Tensor = 1e-2, etas=(0.5, 1.2),
                 step_sizes=(1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
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
            params, grads, prevs, step_sizes, steps = self._gather(
                group, lambda p, g=group: {"step": _new_step(g, p), "prev": zeros_like(p),
                                           "step_size": full_like(p.grad, _to_scalar(g["lr"]))},
                ("prev", "step_size", "step"))
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            rprop(params, grads, prevs, step_sizes, steps, step_size_min=step_size_min,
                  step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus,
                  foreach=group["foreach"], maximize=group["maximize"],
                  differentiable=group["differentiable"],
                  capturable=group["capturable"])
        return loss


def rprop(params: list[Tensor], grads: list[Tensor], prevs: list[Tensor],
          step_sizes: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
          capturable: bool = False, maximize: bool = False, differentiable: bool = False,
          has_complex: bool = False, *, step_size_min: float, step_size_max: float,
          etaminus: float, etaplus: float) -> None:
    """The Rprop update of each parameter in place (functional form; see :class:`Rprop`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    if foreach and params and differentiable:
        raise AssertionError("_foreach ops don't support autograd")
    for param, grad, prev, step_size, step in zip(params, grads, prevs, step_sizes,
                                                  state_steps):
        grad = grad if not maximize else -grad
        _check_capturable(capturable)
        step += 1
        sign = grad.mul(prev.clone() if differentiable else prev).sign()
        sign.masked_fill_(sign.gt(0), etaplus)
        sign.masked_fill_(sign.lt(0), etaminus)
        sign.masked_fill_(sign.eq(0), 1)
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        # where the sign flipped the gradient counts as zero (no move, no memory)
        grad = grad.clone()
        grad.masked_fill_(sign.eq(etaminus), 0)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
