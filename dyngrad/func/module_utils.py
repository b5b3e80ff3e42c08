"""Modules as functions of their state: ``functional_call`` (run a module with parameters and
buffers given in dicts) and ``stack_module_state`` (stack the state of M like modules, to
``vmap`` over an ensemble)."""
from __future__ import annotations

from collections.abc import Sequence


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced, for this call
    only, by the tensors in `parameter_and_buffer_dicts` (one dict, or several with distinct
    keys). See ``nn.utils.stateless.functional_call``."""
    if isinstance(parameter_and_buffer_dicts, dict):
        state = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        state = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    from ..nn.utils import stateless
    return stateless._functional_call(module, state, args, kwargs, tie_weights=tie_weights,
                                      strict=strict)


def _stacked_leaf(tensors, name: str):
    from ..ops.join import stack
    grads = [t.requires_grad for t in tensors]
    if any(grads) and not all(grads):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if all(grads) else result


def stack_module_state(models):
    """``(params, buffers)``: dicts from each state-dict name to the M models' tensors stacked
    along a new first dim; the stacked parameters are new leaves (an optimizer can take them).

    Example::

        >>> params, buffers = stack_module_state(models)
        >>> vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)),
        ...      in_dims=(0, 0, None))(params, buffers, x)
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Stop every batch norm under `root` from tracking running statistics (in place; returns
    `root`), so that a vmapped call does not write into shared buffers."""
    from ..nn.modules.batchnorm import _BatchNorm
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
