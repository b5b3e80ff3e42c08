"""The legacy hook-based spectral normalization (torch.nn.utils.spectral_norm).

``spectral_norm(module)`` keeps the raw weight as the parameter ``weight_orig`` and the power
iteration vectors as buffers ``weight_u`` / ``weight_v``; a forward pre-hook sets
``module.weight = weight_orig / sigma`` with ``sigma = u . (W v)``, running
``n_power_iterations`` steps of power iteration first in training mode. ``u`` and ``v`` start
as normalized ``normal_(0, 1)`` draws (``u`` first), so after ``manual_seed`` they are torch's.
State dict hooks record the version (``_metadata[...]["spectral_norm"]``) and convert a
version-0 checkpoint (one holding ``weight`` rather than ``weight_v``) on load.
"""
from __future__ import annotations

from typing import Any

from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from .. import functional as F
from ..modules.module import Module
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


def _register_state_dict_hook(module: Module, hook) -> RemovableHandle:
    """torch's private ``Module._register_state_dict_hook``: ``hook(module, state_dict,
    prefix, local_metadata)`` after the module saved its entries."""
    handle = RemovableHandle(module._state_dict_hooks)
    module._state_dict_hooks[handle.id] = hook
    return handle


def _register_load_state_dict_pre_hook(module: Module, hook) -> RemovableHandle:
    """torch's private ``Module._register_load_state_dict_pre_hook`` (without the module):
    ``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
    error_msgs)`` before the module loads."""
    handle = RemovableHandle(module._load_state_dict_pre_hooks)
    module._load_state_dict_pre_hooks[handle.id] = hook
    return handle


def _mv(matrix, vector):
    from ... import mv
    return mv(matrix, vector)


class SpectralNorm:
    """The forward pre-hook: ``module.<name> = <name>_orig / sigma``."""

    _version: int = 1   # 1: v is stored (version 0 stored the normalized weight instead)

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(
                self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module: Module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                # u and v are updated in place (out=): the buffers are the power iteration state
                for _ in range(self.n_power_iterations):
                    v = F.normalize(_mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(_mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                if self.n_power_iterations > 0:
                    # clones, so that backward sees the values used here
                    u = u.clone()
                    v = v.clone()
        from ... import dot
        sigma = dot(u, _mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # v such that u = normalize(W v) and u^T W v = target_sigma (version-0 checkpoints)
        from ... import dot, linalg
        v = linalg.multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(),
                              u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / dot(u, _mv(weight_mat, v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward sets the normalized weight
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        _register_state_dict_hook(module, SpectralNormStateDictHook(fn))
        _register_load_state_dict_pre_hook(module, SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-0 state dict (``weight``, ``weight_orig``, ``weight_u``) to the
    current layout by solving for ``weight_v``."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if (version is None
                    and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                    and weight_key not in state_dict):
                # a current-layout dict saved without metadata: nothing to convert
                return
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with no_grad():
                weight_orig = state_dict[weight_key + "_orig"]
                weight = state_dict.pop(weight_key)
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = state_dict[weight_key + "_u"]
                v = fn._solve_v_and_rescale(weight_mat, u, sigma)
                state_dict[weight_key + "_v"] = v


class SpectralNormStateDictHook:
    """Records ``spectral_norm[<name>.version]`` in the state dict's metadata."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def _is_conv_transpose(module: Module) -> bool:
    from ..modules import conv
    kinds = tuple(getattr(conv, n) for n in ("ConvTranspose1d", "ConvTranspose2d",
                                              "ConvTranspose3d") if hasattr(conv, n))
    return isinstance(module, kinds)


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration.

    Args:
        module (nn.Module): the module.
        name (str, optional): the weight parameter. Default ``"weight"``.
        n_power_iterations (int, optional): power iteration steps per forward in training.
        eps (float, optional): added in the normalizations.
        dim (int, optional): the output dimension (default 0, or 1 for ConvTranspose).

    Example::

        >>> m = spectral_norm(nn.Linear(20, 40))
        >>> m.weight_u.size()
        torch.Size([40])
    """
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``: ``module.<name>`` becomes a Parameter of the current
    normalized weight, and the hooks are removed."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    for k, hook in module._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break
    return module
