"""Gradient clipping (torch.nn.utils.clip_grad), in place on ``.grad`` and under no_grad.

`foreach` is accepted everywhere and changes nothing: torch's fused "foreach" kernels are a
speed path, and dyngrad always loops over the tensors (torch accepts foreach=True on CPU too).
"""
from __future__ import annotations

import functools
import types
import warnings

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _no_grad(func):
    """Run `func` under no_grad (the clipping never records history)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


@_no_grad
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The `norm_type`-norm of the norms of `tensors` (= the norm of all of them
    concatenated). An empty list gives ``tensor(0.)``."""
    from ... import linalg, stack, tensor
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    norms = [linalg.vector_norm(g, norm_type) for g in tensors]
    total_norm = linalg.vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    r"""Scale every ``.grad`` by :math:`\min(\text{max\_norm} / (\text{total\_norm} +
    10^{-6}), 1)` in place (torch multiplies even when the factor is 1)."""
    from ... import clamp
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef_clamped = clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.dtype) if g.dtype != clip_coef_clamped.dtype
               else clip_coef_clamped)


@_no_grad
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    r"""Rescale the gradients of `parameters` so that their total norm is at most `max_norm`.

    Args:
        parameters (Tensor or iterable of Tensors): whose ``.grad`` to clip.
        max_norm (float): the largest allowed total norm.
        norm_type (float): the p of the norms (``inf`` for the max norm). Default: 2.0
        error_if_nonfinite (bool): raise if the total norm is nan or inf. Default: ``False``
        foreach (bool, optional): accepted for compatibility (dyngrad loops either way).

    Returns:
        The total norm of the gradients before clipping (a 0-dim tensor).
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                          "occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of :func:`clip_grad_norm_` (with torch's FutureWarning)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every ``.grad`` of `parameters` to ``[-clip_value, clip_value]`` in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for grad in grads:
        grad.clamp_(min=-clip_value, max=clip_value)
