"""torch.nn.parallel: DistributedDataParallel (data parallelism over dyngrad.distributed) and
DataParallel (one process: on the CPU it calls the module)."""
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401

DDP = DistributedDataParallel
