"""Weight normalization: ``w = g * v / ||v||`` (the norm over every dim but ``dim``).

``torch._weight_norm`` / ``torch.norm_except_dim`` as functions, and the legacy hook-based
``torch.nn.utils.weight_norm`` / ``remove_weight_norm`` (parameters ``weight_g`` and
``weight_v``, the weight recomputed by a forward pre-hook). The parametrization-based
``weight_norm`` lives in parametrizations.py and uses the same ``_weight_norm``.

Note [Fused weight norm]
~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``_weight_norm(v, g, dim)`` calls the fused ``_weight_norm_interface`` (one node,
``WeightNormInterfaceBackward0``) when ``dim`` is 0 or ``v.dim() - 1``, and otherwise the
composite ``v * (g / norm_except_dim(v, 2, dim))`` (``MulBackward0``); ``dim=None`` means
``-1``, which is never fused (and normalizes over the whole tensor). We declare the fused op
here, kept out of the op table (it is reached only through ``_weight_norm``), with a backward
written in tensor ops so that double backward works.
"""
from __future__ import annotations

import warnings
from typing import Any

from ..._promotion import Promote
from ...ops import _registry
from ...ops._registry import defop
from ..modules.module import Module
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _other_dims(ndim: int, dim: int) -> tuple:
    return tuple(d for d in range(ndim) if d != dim)


@defop("_weight_norm_interface", node="WeightNormInterfaceBackward0", inputs=("v", "g"),
       promote=Promote.NONE, variants=(), saves=("v", "g"))
def _weight_norm_interface(xp, v, g, dim=0):
    dims = _other_dims(v.ndim, dim)
    norms = xp.sqrt(xp.sum(v * v, axis=dims, keepdims=True))
    return v * (g.reshape(norms.shape) / norms)


del _registry.OPS[_weight_norm_interface.name]   # See Note [Fused weight norm]


@_weight_norm_interface.backward
def _(ctx, grad):
    v, g = ctx.saved_tensors
    dims = _other_dims(v.dim(), ctx.dim)
    norms = (v * v).sum(dims, keepdim=True).sqrt()
    gv = (grad * v).sum(dims, keepdim=True)
    # d/dg = <grad, v>/|v|;  d/dv = g/|v| (grad - v <grad, v>/|v|^2)
    grad_g = (gv / norms).reshape(g.shape)
    grad_v = (g.reshape(norms.shape) / norms) * (grad - v * (gv / (norms * norms)))
    return grad_v, grad_g


def norm_except_dim(v, pow: float = 2, dim: int = 0):
    """The ``pow``-norm of ``v`` over every dimension but ``dim``, shaped to broadcast
    against ``v`` (size 1 except along ``dim``); ``dim=-1`` gives the norm of all of ``v``."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [v.size(0)] + [1] * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = [1] * (v.dim() - 1) + [v.size(-1)]
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim: int = 0):
    """``v * (g / norm_except_dim(v, 2, dim))``, fused when torch fuses it.
    See Note [Fused weight norm]."""
    if v.device != g.device:
        raise RuntimeError(f"weight_norm: expected v and g on the same device, got "
                           f"{v.device} and {g.device}")
    v, g = v.contiguous(), g.contiguous()
    if dim == 0 or dim == v.dim() - 1:
        return _weight_norm_interface(v, g, dim)
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook of the legacy ``weight_norm``: it recomputes ``module.<name>``
    from ``<name>_g`` and ``<name>_v`` before each forward."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int) -> None:
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module: Module) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> WeightNorm:
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        # the weight becomes plain state recomputed from g and v
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``<name>_g * <name>_v / ||<name>_v||`` (deprecated in
    torch in favour of ``parametrizations.weight_norm``; emits torch's FutureWarning).

    Args:
        module (Module): the module.
        name (str): the parameter.
        dim (int, optional): the dimension kept by the norm; ``None`` for the whole tensor.

    Example::

        >>> m = weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.weight_g.size()
        torch.Size([40, 1])
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``module.<name>`` becomes a Parameter of its current value."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
