"""Calling a module with other tensors in place of its parameters and buffers
(torch.nn.utils.stateless.functional_call, also torch.func.functional_call).

The given tensors are swapped into the module's ``_parameters`` / ``_buffers`` (or set as
attributes) for the duration of the call and swapped back afterwards, even on error, as
torch's ``NamedMemberAccessor`` does; tied tensors given under one name are used for all
their names when ``tie_weights`` is true.
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any

from ..._tensor import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _get_submodule(module: Module, name: str, memo: dict) -> Module:
    if not name:
        return module
    if name in memo:
        return memo[name]
    prefix, dot, attr = name.rpartition(".")
    parent = _get_submodule(module, prefix, memo) if dot else module
    try:
        sub = getattr(parent, attr)
    except AttributeError as ex:
        raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
    if not isinstance(sub, Module):
        raise TypeError(f"submodule `{name}`: {sub} is not an instance of torch.nn.Module")
    memo[name] = sub
    return sub


def _swap_tensor(module: Module, name: str, tensor, allow_missing: bool = False):
    """Put ``tensor`` at ``module.<name>`` and return what was there (``_MISSING`` if
    nothing; swapping ``_MISSING`` in deletes)."""
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for registry in (module._parameters, module._buffers):
        if name in registry:
            orig = registry[name]
            if tensor is not _MISSING:
                registry[name] = tensor
            else:
                del registry[name]
            return orig
    if hasattr(module, name):
        orig = getattr(module, name)
    else:
        if not allow_missing:
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        orig = _MISSING
    if orig is not _MISSING and not isinstance(orig, Tensor) and orig is not None:
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _swap_all(module: Module, named: dict, memo: dict) -> dict:
    orig = {}
    try:
        for name, tensor in named.items():
            prefix, _, attr = name.rpartition(".")
            orig[name] = _swap_tensor(_get_submodule(module, prefix, memo), attr, tensor,
                                      allow_missing=True)
    except Exception:
        _swap_back(module, orig, memo)
        raise
    return orig


def _swap_back(module: Module, orig: dict, memo: dict) -> dict:
    new = {}
    for name, tensor in orig.items():
        prefix, _, attr = name.rpartition(".")
        new[name] = _swap_tensor(_get_submodule(module, prefix, memo), attr, tensor,
                                 allow_missing=True)
    return new


def _untie_named_tensors_map(module: Module, parameters_and_buffers: dict) -> dict:
    """Extend the map so that a tensor given under one of several tied names is used for all
    of them; two different values for tied names is an error."""
    all_named = {}
    all_named.update(module.named_parameters(remove_duplicate=False))
    all_named.update(module.named_buffers(remove_duplicate=False))
    tied_by_tensor: dict = {}
    for name, tensor in all_named.items():
        tied_by_tensor.setdefault(id(tensor), set()).add(name)
    tied_names_map = {}
    for names in tied_by_tensor.values():
        if len(names) > 1:
            for name in names:
                tied_names_map[name] = names
    given = set(parameters_and_buffers)
    given_tied = {name for name in given if name in tied_names_map}
    for name in given_tied:
        tied = tied_names_map[name]
        if (len(tied & given_tied) > 1
                and len({id(parameters_and_buffers[t]) for t in tied if t in given}) != 1):
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = parameters_and_buffers.copy()
    for name in given_tied:
        for tied_name in tied_names_map[name]:
            untied[tied_name] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module: Module, parameters_and_buffers: dict,
                          tie_weights: bool = False, strict: bool = False):
    if tie_weights:
        untied = _untie_named_tensors_map(module, parameters_and_buffers)
    else:
        untied = parameters_and_buffers
    if strict:
        valid = {name for name, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
        missing_keys, unexpected_keys = sorted(valid - set(untied)), sorted(set(untied) - valid)
        error_msgs = []
        if unexpected_keys:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected_keys))}.")
        if missing_keys:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        if error_msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(error_msgs)))
    memo: dict = {}
    orig: dict = {}
    try:
        orig = _swap_all(module, untied, memo)
        yield
    finally:
        new = _swap_back(module, orig, memo)
        # tensors the call replaced (e.g. a running_mean updated by assignment) go back out
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _functional_call(module: Module, parameters_and_buffers: dict, args: Any = None,
                     kwargs: dict | None = None, *, tie_weights: bool = True,
                     strict: bool = False):
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)


def functional_call(module: Module, parameters_and_buffers: dict, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False):
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced by the
    tensors in ``parameters_and_buffers`` (keyed by dotted name), restoring them afterwards.

    Deprecated in torch (FutureWarning) in favour of ``torch.func.functional_call``.

    Args:
        module (nn.Module): the module.
        parameters_and_buffers (dict of str to Tensor): the replacements.
        args (Any or tuple): positional arguments (a non-tuple is one argument).
        kwargs (dict): keyword arguments.
        tie_weights (bool): a tensor given for one of several tied names replaces all.
        strict (bool): the keys must be exactly the module's parameters and buffers.

    Example::

        >>> out = functional_call(model, {"weight": w, "bias": b}, (x,))
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
