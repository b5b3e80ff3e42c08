"""ASGD: averaged stochastic gradient descent (torch/optim/asgd.py)."""
from __future__ import annotations

from .._tensor import Tensor
from .. import _dtypes
from ..ops.creation import ones, zeros, zeros_like
from ..ops.tensor_new import tensor
from .optimizer import (Optimizer, _get_scalar_dtype, _get_value, _squeeze_scalar, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["ASGD", "asgd"]

class ASGD(Optimizer):
    r"""ASGD: SGD with a decaying step ``eta`` and a running average ``ax`` of the iterates.

    Each step: ``p *= 1 - lambd * eta``; ``p -= eta * g``; ``ax += mu * (p - ax)`` (a copy of
    ``p`` while ``mu == 1``); then ``eta = lr / (1 + lambd * lr * t) ** alpha`` and
    ``mu = 1 / max(1, t - t0)``.  ``eta`` and ``mu`` are 0-dim state tensors of the scalar
    dtype (float32 unless the default dtype is float64), as in torch.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 1e-2).
        lambd (float): decay term (default: 1e-4).
        alpha (float): power of the ``eta`` update (default: 0.75).
        t0 (float): step at which averaging starts (default: 1e6).
        weight_decay (float): L2 penalty (default: 0).
        foreach (bool): ``True`` uses torch's multi-tensor formulas (they round differently;
            see :func:`asgd`), still one loop in dyngrad (default: None, the single-tensor
            formulas torch uses on the CPU).
        differentiable, capturable: accepted as in torch (``capturable=True`` raises at
            step() as torch does on the CPU).
        maximize (bool): maximize the objective (default: False).
    """

    _dense_only = "ASGD"

    def __init__(self, params, lr: float | Tensor = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
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
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) == 0:
                    continue
                for key in ("step", "eta", "mu"):    # old state dicts held plain numbers
                    if not isinstance(p_state[key], Tensor):
                        p_state[key] = tensor(float(p_state[key]), dtype=_get_scalar_dtype(),
                                              device=p.device)

    def _init_state(self, group, p) -> dict:
        dtype = _get_scalar_dtype()
        return {"step": zeros((), device=p.device, dtype=dtype),
                "eta": tensor(_to_scalar(group["lr"]), device=p.device, dtype=dtype),
                "mu": ones((), device=p.device, dtype=dtype),
                "ax": zeros_like(p)}

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, mus, axs, etas, steps = self._gather(
                group, lambda p, g=group: self._init_state(g, p), ("mu", "ax", "eta", "step"))
            asgd(params, grads, axs, mus, etas, steps, lambd=group["lambd"], lr=group["lr"],
                 t0=group["t0"], alpha=group["alpha"], weight_decay=group["weight_decay"],
                 foreach=group["foreach"], maximize=group["maximize"],
                 differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def asgd(params: list[Tensor], grads: list[Tensor], axs: list[Tensor], mus: list[Tensor],
         etas: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
         maximize: bool = False, differentiable: bool = False, capturable: bool = False,
         has_complex: bool = False, *, lambd: float, lr: float, t0: float, alpha: float,
         weight_decay: float) -> None:
    """The ASGD update of each parameter in place (functional form; see :class:`ASGD`).

    ``foreach=True`` follows torch's multi-tensor formulas, which round differently: the
    update is ``p -= eta * (g + lambd * p)`` in one product, the average is always
    ``ax += mu * (p - ax)``, and ``eta`` is computed from the float step-count tensor.
    """
    if foreach and params and differentiable:
        raise AssertionError("_foreach ops don't support autograd")
    # a tensor lr stays a tensor (torch's _to_scalar): eta is then computed in its dtype
    lr = _squeeze_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]
        if capturable:
            raise AssertionError("If capturable=True, params, mus, etas, and state_steps must "
                                 f"be on supported devices: {_capturable_devices(foreach)}.")
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if foreach:
            param.addcmul_(grad.add(param, alpha=lambd), eta, value=-1)
            ax.addcmul_(param.sub(ax), mu)
            new_eta = lr / _pow(1 + lambd * lr * step_t, alpha)
        else:
            eta_value = _get_value(eta)
            param.mul_(1 - lambd * eta_value)       # decay term
            param.add_(grad, alpha=-eta_value)      # update parameter
            if mu.item() != 1:                      # averaging
                ax.add_(param.sub(ax).mul_(mu))
            else:
                ax.copy_(param)
            new_eta = lr / _pow(1 + lambd * lr * _get_value(step_t), alpha)
        # torch.as_tensor(a float) has the default dtype: the new values are rounded to it
        eta.copy_(new_eta if isinstance(new_eta, Tensor) else tensor(new_eta))
        mu.copy_(tensor(1 / max(1, _get_value(step_t) - t0)))


def _pow(base, exponent):
    """``base ** exponent``; a float32 tensor base is raised in float64 and rounded back.

    NumPy's vectorised float32 power can be one ulp off the correctly rounded result that
    torch's CPU kernel gives (1.0000050068 ** 0.75, say), and eta feeds every later step.
    """
    if isinstance(base, Tensor) and base.dtype is _dtypes.float32:
        return (base.double() ** exponent).float()
    return base ** exponent


def _capturable_devices(foreach) -> list[str]:
    """Devices named by torch's capturable check (its multi-tensor ASGD leaves out xla)."""
    devices = ["cuda", "xpu", "hpu", "privateuseone"]
    return devices if foreach else devices + ["xla"]
