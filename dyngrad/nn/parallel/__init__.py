"""torch.nn.parallel: DistributedDataParallel (data parallelism over dyngrad.distributed)."""
from .distributed import DistributedDataParallel  # noqa: F401

DDP = DistributedDataParallel
