"""AdamW: Adam with decoupled weight decay (torch/optim/adamw.py)."""
from __future__ import annotations

from .._tensor import Tensor
from .adam import Adam, adam

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    r"""Adam whose weight decay shrinks the weights directly (``p *= 1 - lr * weight_decay``)
    instead of adding ``weight_decay * p`` to the gradient.  Same arguments as
    :class:`Adam`, with ``weight_decay`` defaulting to 1e-2.
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, **kwargs) -> None:
    """The AdamW update (functional form): :func:`adam` with decoupled weight decay."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
         decoupled_weight_decay=True, **kwargs)
