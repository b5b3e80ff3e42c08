"""dyngrad.distributed: torch.distributed's c10d API over MPI (mpi4py + the mpich wheel).

Launch N processes with ``python -m dyngrad.distributed.run -n N script.py`` (a thin wrapper
over ``mpiexec``), call ``init_process_group("mpi")`` in each, then use the collectives.
``init_process_group("loopback")`` gives a one-process world (no MPI needed). Differentiable
collectives live in ``dyngrad.distributed.nn.functional``; see docs/distributed.md.
"""
from __future__ import annotations

from .distributed_c10d import (  # noqa: F401
    Backend, GroupMember, ProcessGroup, ReduceOp, default_pg_timeout, destroy_process_group,
    get_backend, get_global_rank, get_group_rank, get_process_group_ranks, get_rank,
    get_world_size, group, init_process_group, is_available, is_gloo_available,
    is_initialized, is_mpi_available, is_nccl_available, is_torchelastic_launched, new_group,
)
from ._collectives import (  # noqa: F401
    all_gather, all_gather_into_tensor, all_gather_object, all_reduce, all_to_all,
    all_to_all_single, barrier, broadcast, broadcast_object_list, gather, irecv, isend, recv,
    reduce, reduce_scatter, reduce_scatter_tensor, scatter, send,
)
from ._work import Work  # noqa: F401
from ._grad_bucket import GradBucket  # noqa: F401,E402  (DDP communication hooks)
from . import algorithms  # noqa: F401,E402  (ddp_comm_hooks)
