"""SyncBatchNorm's statistics helpers: ``batch_norm_update_stats`` and the CUDA-only ones.

torch's CPU build implements only ``batch_norm_update_stats`` (a primitive here, with torch's
``NotImplemented`` node): the batch mean and biased variance over every dim but 1, folded into
the running statistics in place with ``momentum`` (the unbiased variance for ``running_var``).
``batch_norm_stats``, ``batch_norm_elemt``, ``batch_norm_gather_stats(_with_counts)`` and
``batch_norm_backward_reduce/_elemt`` have CUDA kernels only: on CPU tensors torch's dispatcher
raises NotImplementedError, and so do they here, after torch's argument checks.

Differences from torch: the dispatcher's error stops after the list of backends (torch goes on
with one line per backend naming the C++ file that registered it); running statistics of the
wrong size get their first ``min(C, size)`` entries updated (torch reads and writes past the end
of a shorter buffer).
"""
from __future__ import annotations

from .. import _dtypes as D
from .._promotion import Promote
from .._utils import shape_str
from ..autograd.forward_ad import fw_not_implemented
from ._registry import FUNCTIONS, defop
from ._schema_args import parse
from .arithmetic import _no_derivative

_BACKENDS = (
    "Meta, BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, "
    "Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, "
    "AutogradHIP, AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, "
    "AutogradLazy, AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, "
    "AutogradPrivateUse3, AutogradMeta, AutogradNestedTensor, Tracer, AutocastCPU, "
    "AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, "
    "BatchedNestedTensor, FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, "
    "PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher")


def no_cpu_kernel(op: str, extra_backends: str = "") -> NotImplementedError:
    """torch's dispatcher error for an op with no CPU kernel (``op``: ``"aten::name.overload"``;
    ``extra_backends``: those the op has besides the CUDA build's, such as ``"SparseCPU, "``)."""
    backends = _BACKENDS.replace("Meta, ", "Meta, " + extra_backends, 1)
    return NotImplementedError(
        f"Could not run '{op}' with arguments from the 'CPU' backend. This could be because "
        "the operator doesn't exist for this backend, or was omitted during the selective/custom "
        "build process (if using custom build). If you are a Facebook employee using PyTorch on "
        "mobile, please visit https://fburl.com/ptmfixes for possible resolutions. "
        f"'{op}' is only available for these backends: [{backends}].")


# -- the CUDA-only helpers -----------------------------------------------------------------------
_SCHEMAS = {
    "batch_norm_stats": (("input", "Tensor"), ("eps", "float")),
    "batch_norm_elemt": (("input", "Tensor"), ("weight", "Tensor?"), ("bias", "Tensor?"),
                         ("mean", "Tensor"), ("invstd", "Tensor"), ("eps", "float")),
    "batch_norm_gather_stats": (("input", "Tensor"), ("mean", "Tensor"), ("invstd", "Tensor"),
                                ("running_mean", "Tensor?"), ("running_var", "Tensor?"),
                                ("momentum", "float"), ("eps", "float"), ("count", "int")),
    "batch_norm_gather_stats_with_counts": (
        ("input", "Tensor"), ("mean", "Tensor"), ("invstd", "Tensor"),
        ("running_mean", "Tensor?"), ("running_var", "Tensor?"), ("momentum", "float"),
        ("eps", "float"), ("counts", "Tensor")),
    "batch_norm_backward_reduce": (("grad_out", "Tensor"), ("input", "Tensor"),
                                   ("mean", "Tensor"), ("invstd", "Tensor"),
                                   ("weight", "Tensor?"), ("input_g", "bool"),
                                   ("weight_g", "bool"), ("bias_g", "bool")),
    "batch_norm_backward_elemt": (("grad_out", "Tensor"), ("input", "Tensor"),
                                  ("mean", "Tensor"), ("invstd", "Tensor"),
                                  ("weight", "Tensor?"), ("sum_dy", "Tensor"),
                                  ("sum_dy_xmu", "Tensor"), ("count", "Tensor")),
}


def _cuda_only(name: str):
    schema = _SCHEMAS[name]
    takes_out = name == "batch_norm_elemt"   # the one whose out= torch's Python API exposes

    def fn(*args, **kwargs):
        out = kwargs.pop("out", None) if takes_out else None
        parse(name, schema, args, kwargs)
        if out is not None:
            parse(name, (("out", "Tensor"),), (), {"out": out})
        raise no_cpu_kernel(f"aten::{name}" + (".out" if out is not None else ""))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"torch's ``{name}`` (SyncBatchNorm): CUDA only; on CPU tensors it raises "
                  "torch's NotImplementedError.")
    return fn


for _name in _SCHEMAS:
    FUNCTIONS[_name] = _cuda_only(_name)


# -- batch_norm_update_stats -----------------------------------------------------------------------
def _param_dtype(input_dtype, params):
    """The dtype of the statistics, after torch's mixed-dtype checks: a half input may come with
    float32 running statistics (the statistics are then float32); otherwise each must have the
    input's dtype. Which rule applies is decided by the first one given."""
    if not params or params[0].dtype == input_dtype:
        for p in params:
            if p.dtype != input_dtype:
                raise RuntimeError(f"expected scalar type {D.from_np(input_dtype)._legacy} but "
                                   f"found {D.from_np(p.dtype)._legacy}")
        return input_dtype
    if any(p.dtype != D.float32.np for p in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input_dtype != D.float16.np:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return D.float32.np


@defop("batch_norm_update_stats", node="NotImplemented", promote=Promote.NONE,
       inputs=("input", "running_mean", "running_var"), variants=(), scalars=(),
       kernel_dtypes=True)
def _batch_norm_update_stats(xp, input, running_mean=None, running_var=None, momentum=0.1):
    if input.dtype.kind not in "fV":
        raise NotImplementedError("\"batch_norm_update_stats_cpu\" not implemented for "
                                  f"'{D.from_np(input.dtype)._legacy}'")
    params = [p for p in (running_mean, running_var) if p is not None]
    dt = _param_dtype(input.dtype, params)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    if input.ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if input.size == 0:
        raise RuntimeError("input tensor must have at least one element, but got input_sizes = "
                           f"{shape_str(input.shape)}")
    c = input.shape[1]
    axes = (0,) + tuple(range(2, input.ndim))
    x = input.astype(xp.float64)
    mean = x.mean(axis=axes)
    var = ((x - mean.reshape((1, c) + (1,) * (input.ndim - 2))) ** 2).mean(axis=axes)
    n = input.size // c
    # the running statistics change in place without a version bump: torch's schema does not
    # mark them as written
    for running, batch in ((running_mean, mean), (running_var, None)):
        if running is None:
            continue
        if batch is None:   # (one value per channel: 0 * inf, NaN, as torch's n / (n - 1))
            batch = var * (n / (n - 1)) if n > 1 else xp.full_like(var, xp.nan)
        k = min(c, running.shape[0])
        running[:k] = (1 - momentum) * running[:k] + momentum * batch[:k]
    return mean.astype(dt), var.astype(dt)


_batch_norm_update_stats.backward(_no_derivative("batch_norm_update_stats"))
_batch_norm_update_stats.jvp(fw_not_implemented("aten::batch_norm_update_stats", short=True))

_UPDATE_STATS = (("input", "Tensor"), ("running_mean", "Tensor?"), ("running_var", "Tensor?"),
                 ("momentum", "float"))


def batch_norm_update_stats(*args, **kwargs):
    """``(mean, var)`` of `input` over every dim but 1 (biased variance), updating
    `running_mean` / `running_var` in place when given:
    ``running = (1 - momentum) * running + momentum * batch`` (the unbiased variance for
    ``running_var``). Backward through it raises, as torch's NotImplemented node does.

    Example::

        >>> mean, var = torch.batch_norm_update_stats(x, running_mean, running_var, 0.1)
    """
    input, running_mean, running_var, momentum = parse("batch_norm_update_stats",
                                                       _UPDATE_STATS, args, kwargs)
    return _batch_norm_update_stats(input, running_mean, running_var, float(momentum))


FUNCTIONS["batch_norm_update_stats"] = batch_norm_update_stats
