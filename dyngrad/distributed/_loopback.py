"""The single-process transport (backend "loopback"): a world of one rank, no MPI.

It has the MPI transport's methods (see _mpi.py) with world size 1, where every collective is
a copy or nothing at all. Tests and notebooks use it to run distributed code in one process;
torch code asking for ``"gloo"`` with ``world_size=1`` gets it too.
"""
from __future__ import annotations


class ProcessGroupLoopback:
    """A one-rank process group: every method completes at once (no requests)."""

    def rank(self) -> int:
        return 0

    def size(self) -> int:
        return 1

    def allreduce(self, arr, op) -> list:
        return []

    def reduce(self, arr, root: int, op) -> list:
        return []

    def reduce_scatter(self, send, recv, counts, op) -> list:
        recv[...] = send
        return []

    def bcast(self, arr, root: int) -> list:
        return []

    def allgatherv(self, send, recv, counts) -> list:
        recv[...] = send
        return []

    def gatherv(self, send, recv, counts, root: int) -> list:
        recv[...] = send
        return []

    def scatterv(self, send, counts, recv, root: int) -> list:
        recv[...] = send
        return []

    def alltoallv(self, send, send_counts, recv, recv_counts) -> list:
        recv[...] = send
        return []

    def barrier(self) -> list:
        return []

    def allgather_object(self, obj) -> list:
        return [obj]

    def bcast_object(self, obj, root: int):
        return obj

    def subgroup(self, ranks):
        return ProcessGroupLoopback()

    def destroy(self) -> None:
        pass
