"""``nn.DataParallel`` and ``nn.parallel.data_parallel`` as torch runs them without GPUs.

torch's DataParallel replicates a module over GPUs; when no accelerator is available it keeps
the module, sets ``device_ids = []`` (and no ``output_device`` / ``dim``) and its forward is the
module's. dyngrad computes on the CPU, so this is that behaviour: the wrapper's state_dict keys
carry the ``module.`` prefix, as torch's. The functional ``data_parallel`` raises torch's
"device type could not be determined". For several processes use DistributedDataParallel.
"""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    r"""Wrap ``module`` for single-process data parallelism; on the CPU the forward is
    ``module(*inputs, **kwargs)``.

    Args:
        module (Module): the module to run. device_ids, output_device, dim: accepted as in
            torch and ignored without accelerators.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """The functional DataParallel: torch needs an accelerator to know the device type."""
    raise RuntimeError("device type could not be determined")
