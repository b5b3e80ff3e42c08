"""Adafactor: Adam-like steps from a factored second moment (torch/optim/_adafactor.py)."""
from __future__ import annotations

from .._tensor import Tensor
from .. import _dtypes
from ..autograd.grad_mode import no_grad
from ..ops import FUNCTIONS
from ..ops.creation import zeros_like
from ..ops.tensor_new import tensor
from .optimizer import Optimizer, _get_scalar_dtype, _squeeze_scalar, refuse_sparse

__all__ = ["Adafactor", "adafactor"]

norm = FUNCTIONS["norm"]


class Adafactor(Optimizer):
    r"""Adafactor: for a matrix (or a batch of matrices) the running second moment is kept as
    its row means ``R`` and column means ``C`` (estimate ``R @ C / mean(R)``); a vector keeps
    the full running average.  The averaging weight of step ``t`` is ``t ** beta2_decay``; the
    update ``g / sqrt(estimate)`` is clipped to an RMS of ``d`` and scaled by
    ``max(eps2, RMS(p)) * min(lr, 1 / sqrt(t))``.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float, Tensor): the cap on the relative step size (default: 1e-2).
        beta2_decay (float): the decay rate of the averaging weight, <= 0 (default: -0.8).
        eps (Tuple[float | None, float]): ``eps1`` floors the second moment (None: the
            machine epsilon of the first parameter's dtype), ``eps2`` floors the parameter
            RMS (default: (None, 1e-3)).
        d (float): the clipping threshold on the update's RMS (default: 1.0).
        weight_decay (float): decoupled weight decay, as AdamW (default: 0.0).
        foreach: accepted as in torch (one loop in dyngrad).
        maximize (bool): maximize the objective (default: False).
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps=(None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    def _init_group(self, group, params, grads, row_vars, col_vars, variances, steps) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            refuse_sparse("Adafactor", (p.grad,))
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                if p.grad.dim() > 1:
                    # the row factor is reduced along the last dim, the column factor along
                    # the one before
                    row_shape = list(p.grad.shape)
                    row_shape[-1] = 1
                    state["row_var"] = p.grad.new_zeros(row_shape)
                    col_shape = list(p.grad.shape)
                    col_shape[-2] = 1
                    state["col_var"] = p.grad.new_zeros(col_shape)
                else:
                    state["variance"] = zeros_like(p.grad)
            row_vars.append(state.get("row_var", None))
            col_vars.append(state.get("col_var", None))
            variances.append(state.get("variance", None))
            steps.append(state["step"])

    @no_grad()
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, row_vars, col_vars, variances, steps = [], [], [], [], [], []
            self._init_group(group, params, grads, row_vars, col_vars, variances, steps)
            eps1, eps2 = group["eps"]
            adafactor(params, grads, row_vars, col_vars, variances, steps, d=group["d"],
                      lr=group["lr"], beta2_decay=group["beta2_decay"],
                      weight_decay=group["weight_decay"], eps1=eps1, eps2=eps2,
                      maximize=group["maximize"], grad_scale=getattr(self, "grad_scale", None),
                      found_inf=getattr(self, "found_inf", None))
        return loss


def adafactor(params: list[Tensor], grads: list[Tensor], row_vars: list[Tensor | None],
              col_vars: list[Tensor | None], variances: list[Tensor | None],
              state_steps: list[Tensor], foreach: bool | None = None,
              grad_scale: Tensor | None = None, found_inf: Tensor | None = None,
              has_complex: bool = False, *, d: float, lr: float | Tensor, beta2_decay: float,
              weight_decay: float, eps1: float | None, eps2: float, maximize: bool) -> None:
    """The Adafactor update of each parameter in place (functional form; see
    :class:`Adafactor`)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("`state_steps` argument must contain a list of singleton tensors")
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Grad scaling should occur outside of optimizer.step()")
    lr = _squeeze_scalar(lr)    # a tensor lr stays a tensor, as torch's _to_scalar
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        step_t, row_var, col_var, variance = state_steps[i], row_vars[i], col_vars[i], variances[i]
        if eps1 is None:
            # torch sets it once, from the first parameter of the group, and keeps it
            eps1 = _dtypes.finfo(param.dtype).eps
        step_t += 1
        step_float = step_t.item()
        one_minus_beta2_t = step_float ** beta2_decay
        rho_t = min(lr, 1 / (step_float ** 0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            # mean of g² along a dim, as a squared norm (no g²-sized intermediate)
            row_mean = norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
            row_var.lerp_(row_mean, one_minus_beta2_t)
            col_mean = norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
            col_var.lerp_(col_mean, one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance.lerp_(grad * grad, one_minus_beta2_t)
            var_estimate = variance.clone()     # the update must not write into variance
        # eps1 is squared because of the square root that follows
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        param.add_(update, alpha=-alpha / denom)
