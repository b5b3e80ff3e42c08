"""dyngrad.autograd: ``backward`` and ``grad`` (torch.autograd), grad modes and the graph.

Both entry points check their arguments as torch does, then hand the work to the engine
(engine.py), the only code that executes backward.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping

from . import graph  # noqa: F401
from .grad_mode import (  # noqa: F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled, is_multithreading_enabled, set_multithreading_enabled,
)
from . import function  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401  (shadows the module, as torch)
from . import anomaly_mode, profiler  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from . import functional  # noqa: F401
from . import forward_ad  # noqa: F401
from .variable import Variable  # noqa: F401
from .engine import run_backward as _run_backward
from .engine import _tensor_module
from . import grad_mode
from ..backends.numpy_backend import xp as _np

from .saved import _tensor_class as _tensor_cls   # dyngrad.Tensor, imported on first use

_creation = None


def _ops_creation():
    global _creation
    if _creation is None:
        from ..ops import creation
        _creation = creation
    return _creation


def is_view_replay_enabled() -> bool:
    """False: a view modified in place gets its new grad_fn from its geometry (as_strided), as
    torch does while view replay is off, its default; dyngrad has no switch to replay the view
    ops instead (torch's ``_force_original_view_tracking``)."""
    return False


def _is_checkpoint_valid() -> bool:
    """False inside ``grad()`` / ``backward(inputs=)``, where reentrant checkpoint cannot run."""
    from .engine import is_checkpoint_valid
    return is_checkpoint_valid()


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, _tensor_cls()):
        return (x,)
    return tuple(x)


def _as_inputs(x, caller: str):
    """``inputs=`` as a tuple of tensors and GradientEdges, in torch's forms: one tensor or
    edge, a dict of them (its values; ``grad`` returns a dict with its keys) or any other
    iterable. Another kind of Mapping is refused, as torch does."""
    if isinstance(x, (graph.GradientEdge, _tensor_cls())):
        return (x,)
    if type(x) is dict:
        inputs = tuple(x.values())
    elif isinstance(x, Mapping):
        raise TypeError(f"`inputs` argument to `{caller}()` must be a dict, not "
                        f"{type(x).__name__}. Other Mapping types are not supported.")
    else:
        inputs = tuple(x)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{caller}()` cannot be empty.")
    return inputs


def _checked_count(outputs, grads):
    """`grads` (made by _make_grads, which pairs them with the outputs as zip does, so extra
    ones are dropped, as in torch), after the engine's check that none is missing."""
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads


def _make_grads(outputs, grads, is_grads_batched=False):
    """torch's _make_grads: default ones for scalars, shape checks for the rest."""
    new = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out._requires_grad:
                data = out._data
                if data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if data.dtype.kind not in "fV":   # (complex outputs too: "real" scalars only)
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                if data.ndim == 0 and not grad_mode._state.inference:
                    # a scalar loss: ones_like's answer, without its dispatch
                    new.append(_tensor_module()._wrap(_np.array(1, data.dtype)))
                else:
                    new.append(_ops_creation().ones_like(out, memory_format=None))
            else:
                new.append(None)
        else:
            if not isinstance(g, _tensor_cls()):
                raise TypeError("gradients can be either Tensors or None, but got "
                                + type(g).__name__)
            first = g[0] if is_grads_batched else g   # (batched: each row is one gradient)
            if first._data.shape != out._data.shape:
                from .._utils import Size
                if is_grads_batched:   # (torch's message drops one more leading dim there)
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        "dimensions are expected to match the shape of corresponding output, "
                        "but a mismatch was detected: grad_output[{}] has a shape of {} and "
                        "output[{}] has a shape of {}. If you only want some tensors in "
                        "`grad_output` to be considered batched, consider using vmap.".format(
                            i, Size(first._data.shape[1:]), i, Size(out._data.shape)))
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} "
                    f"and output[{i}] has a shape of {Size(out._data.shape)}.")
            if out.is_complex() != g.is_complex():
                raise RuntimeError(
                    f"For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{g.dtype} and output[{i}] has a dtype of {out.dtype}.")
            new.append(g)
    return new


def _batched_grad(outputs, grads, inputs, retain_graph, create_graph, allow_unused):
    """``grad(is_grads_batched=True)``: the first dim of every grad_output indexes independent
    gradients, and each input's results are stacked along a new first dim. torch runs the rows
    at once under vmap; here, as in dyngrad.func.vmap (Note [vmap as a loop]), one backward
    per row, the graph kept until the last. An unused input stays None."""
    for i, (out, g) in enumerate(zip(outputs, grads)):
        # (the implicit gradient of a one-element output, ones of its shape, has no batch dim)
        if g.ndim == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some "
                             "input, but that input is a Tensor of dimensionality 0 so "
                             "expected in_dim to satisfy 0 <= in_dim < 0.")
        if g.shape[1:] != out.shape:
            raise RuntimeError(f"invalid gradient at index {i} - got {list(g.shape[1:])} but "
                               f"expected shape compatible with {list(out.shape)}")
    sizes = [g.shape[0] for g in grads]
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    rows = [_run_backward(outputs, [g[b] for g in grads], retain_graph or b < sizes[0] - 1,
                          create_graph, inputs=inputs, allow_unused=allow_unused,
                          accumulate=False)
            for b in range(sizes[0])]
    from ..ops import stack
    return [None if column[0] is None else stack(column) for column in zip(*rows)]


def _check_roots(outputs):
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate the gradients of `tensors` into the ``.grad`` of the graph's leaves.

    Args:
        tensors: the roots (usually a scalar loss).
        grad_tensors: gradients w.r.t. each root; None for scalar roots (ones).
        retain_graph: keep saved values for another backward (default: ``create_graph``).
        create_graph: record the backward itself, for higher-order derivatives.
        inputs: accumulate only into these tensors.
    """
    tensors = _as_tuple(tensors)
    if inputs is not None:
        inputs = _as_inputs(inputs, "backward")
        for t in inputs:   # torch retains each tensor input's gradient first (for good: it
            if not isinstance(t, graph.GradientEdge):   # retains it in later backwards too)
                t.retain_grad()
    grad_tensors = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    grads = _checked_count(tensors, _make_grads(tensors, grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    _check_roots(tensors)
    _run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs,
                  accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False):
    """The gradients of `outputs` w.r.t. `inputs`, returned (``.grad`` is left alone).

    Returns a tuple with one entry per input; None for an unused input when
    ``allow_unused=True`` (zeros with ``materialize_grads=True``).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs_t = _as_inputs(inputs, "grad")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    for i, t in enumerate(inputs_t):
        if isinstance(t, graph.GradientEdge):
            if materialize_grads:
                raise RuntimeError("materialize_grads cannot be used when the given input is a "
                                   "GradientEdge")
        elif not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grad_outputs = _as_tuple(grad_outputs) if grad_outputs is not None \
        else (None,) * len(outputs)
    grads = _checked_count(outputs, _make_grads(outputs, grad_outputs, is_grads_batched))
    if retain_graph is None:
        retain_graph = create_graph
    _check_roots(outputs)
    if is_grads_batched:
        result = _batched_grad(outputs, grads, inputs_t, retain_graph, create_graph,
                               allow_unused)
    else:
        result = _run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_t,
                               allow_unused=allow_unused, accumulate=False)
    if materialize_grads:
        zeros_like = _ops_creation().zeros_like
        result = [zeros_like(t, requires_grad=create_graph) if g is None else g
                  for t, g in zip(inputs_t, result)]
    if type(inputs) is dict:   # (a dict of inputs: their gradients under the same keys)
        return dict(zip(inputs.keys(), result))
    return tuple(result)
