"""torch.distributed.nn: differentiable collectives (see functional.py)."""
from .functional import (  # noqa: F401
    all_gather, all_reduce, all_to_all, all_to_all_single, broadcast, gather, reduce,
    reduce_scatter, scatter,
)
