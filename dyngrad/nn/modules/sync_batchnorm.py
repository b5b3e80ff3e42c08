"""``nn.SyncBatchNorm``: batch norm whose training statistics are reduced across processes.

torch synchronises only for GPU-like inputs: with no initialised process group (or a group of
one process) it is plain ``F.batch_norm``, and with an initialised group a CPU input in
training raises ("SyncBatchNorm expected input tensor to be on GPU ..."). dyngrad's tensors
live on the CPU, so it behaves exactly so: batch norm without a group, torch's ValueError with
one. ``convert_sync_batchnorm`` swaps every BatchNorm*d of a model for one, sharing its
parameters and buffers.
"""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .batchnorm import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _group_initialised() -> bool:
    from ... import distributed
    return distributed.is_available() and distributed.is_initialized()


class SyncBatchNorm(_BatchNorm):
    r"""Batch normalisation over (N, C, ...) inputs (at least 2-d), meant to share batch
    statistics across processes; see the module note for what dyngrad does on the CPU.

    Args:
        num_features (int): C. eps, momentum, affine, track_running_stats, bias: as
            :class:`BatchNorm1d`. process_group: the group to reduce over (default: WORLD).
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input: Tensor) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        use_buffers = not self.training or self.track_running_stats
        if bn_training and self.training and _group_initialised():
            raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or "
                             "privateuseone")
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight, self.bias,
                            bn_training, factor, self.eps)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d replaced by a SyncBatchNorm holding the same
        parameters and buffers (a BatchNorm itself comes back as a new SyncBatchNorm)."""
        from ...autograd.grad_mode import no_grad
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out
