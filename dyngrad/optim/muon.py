"""Muon: momentum followed by Newton-Schulz orthogonalisation of 2-d updates (torch/optim/_muon.py).

Note [Muon without bfloat16]
torch runs the Newton-Schulz iteration in bfloat16. dyngrad's bfloat16 needs the optional
ml_dtypes package, and Muon must run without it, so the iteration runs in float32 and every intermediate torch would hold in bfloat16 is rounded to
bfloat16's precision (round to nearest even on the upper 16 bits), with the update returned
in float32 holding bfloat16 values. torch's bfloat16 matmuls accumulate in float32 and round
once, as here, but the order of their sums differs, so updates agree to bfloat16 precision
(about 3 significant digits), not bit for bit.
"""
from __future__ import annotations

import math

from .. import _dtypes
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _to_scalar

__all__ = ["Muon", "muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _round_bf16(t: Tensor) -> Tensor:
    """float32 values rounded to bfloat16's precision (Note [Muon without bfloat16])."""
    bits = t.contiguous().view(_dtypes.int32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & -65536
    return bits.view(_dtypes.float32)


def _zeropower_via_newtonschulz(grad: Tensor, ns_coefficients, ns_steps: int,
                                eps: float) -> Tensor:
    """A quintic Newton-Schulz iteration towards the orthogonal factor of ``grad`` (2-d)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = _round_bf16(grad.float())
    if grad.size(0) > grad.size(1):
        x = x.T
    x = _round_bf16(x / _round_bf16(x.norm()).clamp(min=eps))
    for _ in range(ns_steps):
        gram = _round_bf16(x @ x.T)
        update = _round_bf16(gram.addmm(gram, gram, beta=b, alpha=c))
        x = _round_bf16(x.addmm(update, x, beta=a))
    if grad.size(0) > grad.size(1):
        x = x.T
    return x


def _adjust_lr(lr: float, adjust_lr_fn, param_shape) -> float:
    """Scale the step so orthogonalised updates of rectangular matrices keep a steady RMS."""
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    r"""Muon, for the 2-d weights of hidden layers: a momentum buffer ``B = mu B + g`` (as
    ``lerp``), the update ``g + mu B`` (Nesterov) or ``B``, orthogonalised by ``ns_steps``
    Newton-Schulz iterations; then ``p *= 1 - lr * weight_decay`` and
    ``p -= adjusted_lr * update``. See Note [Muon without bfloat16].

    Args:
        params (iterable): 2-d parameters or parameter groups.
        lr (float, Tensor): learning rate (default: 1e-3).
        weight_decay (float): decoupled weight decay (default: 0.1).
        momentum (float): momentum factor (default: 0.95).
        nesterov (bool): Nesterov momentum (default: True).
        ns_coefficients (tuple of 3 floats): the iteration's polynomial (default:
            (3.4445, -4.7750, 2.0315)).
        eps (float): floor of the norm the update is divided by (default: 1e-7).
        ns_steps (int): Newton-Schulz iterations (default: 5).
        adjust_lr_fn (str, optional): "original" (sqrt(max(1, A / B)), the default) or
            "match_rms_adamw" (0.2 sqrt(max(A, B))).
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps: float = EPS,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_group(self, group, params_with_grad, grads, momentum_bufs) -> bool:
        from ..ops._registry import FUNCTIONS
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            if p.grad.is_sparse:
                raise RuntimeError("Muon does not support sparse gradients")
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = FUNCTIONS["zeros_like"](p.grad)
            momentum_bufs.append(state["momentum_buffer"])
        return False

    def step(self, closure=None):
        """Perform one optimization step; ``closure`` recomputes and returns the loss."""
        loss = self._evaluate_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads, bufs = [], [], []
                has_complex = self._init_group(group, params, grads, bufs)
                muon(params, grads, bufs, lr=group["lr"], weight_decay=group["weight_decay"],
                     momentum=group["momentum"], nesterov=group["nesterov"],
                     ns_coefficients=group["ns_coefficients"], eps=group["eps"],
                     ns_steps=group["ns_steps"], adjust_lr_fn=group["adjust_lr_fn"],
                     has_complex=has_complex)
        return loss


def muon(params: list[Tensor], grads: list[Tensor], muon_momentum_bufs: list[Tensor], *,
         foreach: bool | None = None, lr: float, weight_decay: float, momentum: float,
         nesterov: bool, ns_coefficients, ns_steps: int, eps: float, adjust_lr_fn,
         has_complex: bool) -> None:
    """The Muon update of each parameter in place (functional form; see :class:`Muon`)."""
    if foreach is not None and foreach:
        raise RuntimeError("Foreach is not supported for Muon yet")
    lr = _to_scalar(lr)
    if has_complex:
        raise ValueError("Complex parameters are not supported")
    for i, param in enumerate(params):
        grad = grads[i]
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf = muon_momentum_bufs[i]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if nesterov else buf
        update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        adjusted_lr = _adjust_lr(lr, adjust_lr_fn, param.shape)
        param.mul_(1 - lr * weight_decay)
        param.add_(update, alpha=-adjusted_lr)
