"""torch.distributed.algorithms.ddp_comm_hooks: hooks for
``DistributedDataParallel.register_comm_hook`` (``default_hooks``: all-reduce, and all-reduce
of a float16 copy)."""
from . import default_hooks  # noqa: F401
