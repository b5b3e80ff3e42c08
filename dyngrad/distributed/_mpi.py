"""The MPI transport: a process group over an mpi4py communicator.

This is the only file that imports mpi4py, and only when a process group with backend "mpi" is
made. Every method takes C-contiguous NumPy arrays (the tensors' own arrays when they are
contiguous: see Note [Zero-copy buffers] in distributed_c10d.py), posts one MPI non-blocking
call and returns its request list; ``distributed_c10d`` wraps that in a ``Work``.

Counts are in elements of the arrays given. The c10d layer moves data it does not reduce as raw
bytes (uint8 views), so any dtype travels; reductions receive typed arrays and pick an MPI
operation here.
"""
from __future__ import annotations

import os
import sys
import time
import traceback

import numpy as np

_MPI = None


def mpi():
    """mpi4py's MPI module, imported on first use (initialising MPI)."""
    global _MPI
    if _MPI is None:
        from mpi4py import MPI
        _MPI = MPI
    return _MPI


def _displacements(counts) -> list:
    displs, total = [], 0
    for c in counts:
        displs.append(total)
        total += int(c)
    return displs


class ProcessGroupMPI:
    """Collectives of one communicator (the world, or a ``new_group`` subset)."""

    def __init__(self, comm):
        self.comm = comm
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    # -- reductions (typed arrays) -------------------------------------------------------
    def _op(self, op, dtype):
        """The MPI operation for a ReduceOp on this dtype (bool: logical or / and)."""
        from .distributed_c10d import ReduceOp
        MPI = mpi()
        if dtype == np.bool_:
            return {ReduceOp.SUM: MPI.LOR, ReduceOp.MAX: MPI.LOR, ReduceOp.BOR: MPI.LOR,
                    ReduceOp.PRODUCT: MPI.LAND, ReduceOp.MIN: MPI.LAND,
                    ReduceOp.BAND: MPI.LAND, ReduceOp.BXOR: MPI.LXOR}[op]
        return {ReduceOp.SUM: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
                ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR,
                ReduceOp.BXOR: MPI.BXOR}[op]

    def allreduce(self, arr, op) -> list:
        return [self.comm.Iallreduce(mpi().IN_PLACE, arr, self._op(op, arr.dtype))]

    def reduce(self, arr, root: int, op) -> list:
        MPI = mpi()
        mop = self._op(op, arr.dtype)
        if self._rank == root:
            return [self.comm.Ireduce(MPI.IN_PLACE, arr, mop, root=root)]
        return [self.comm.Ireduce(arr, None, mop, root=root)]

    def reduce_scatter(self, send, recv, counts, op) -> list:
        return [self.comm.Ireduce_scatter(send, recv, [int(c) for c in counts],
                                          self._op(op, send.dtype))]

    # -- data movement (byte arrays) -----------------------------------------------------
    def bcast(self, arr, root: int) -> list:
        return [self.comm.Ibcast(arr, root=root)]

    def allgatherv(self, send, recv, counts) -> list:
        return [self.comm.Iallgatherv(send, [recv, (list(counts), _displacements(counts))])]

    def gatherv(self, send, recv, counts, root: int) -> list:
        if self._rank == root:
            return [self.comm.Igatherv(send, [recv, (list(counts), _displacements(counts))],
                                       root=root)]
        return [self.comm.Igatherv(send, None, root=root)]

    def scatterv(self, send, counts, recv, root: int) -> list:
        if self._rank == root:
            return [self.comm.Iscatterv([send, (list(counts), _displacements(counts))], recv,
                                        root=root)]
        return [self.comm.Iscatterv(None, recv, root=root)]

    def alltoallv(self, send, send_counts, recv, recv_counts) -> list:
        return [self.comm.Ialltoallv([send, (list(send_counts), _displacements(send_counts))],
                                     [recv, (list(recv_counts), _displacements(recv_counts))])]

    def barrier(self) -> list:
        return [self.comm.Ibarrier()]

    def isend(self, arr, dst: int, tag: int) -> list:
        return [self.comm.Isend(arr, dest=dst, tag=tag)]

    def irecv(self, arr, src, tag: int):
        """Post a receive; returns (requests, a callable giving the sender's rank)."""
        MPI = mpi()
        status = MPI.Status()
        source = MPI.ANY_SOURCE if src is None else src
        request = self.comm.Irecv(arr, source=source, tag=tag)
        holder = {}

        def sender():
            if "rank" not in holder:   # the status is filled by the Test that completed it
                holder["rank"] = status.Get_source() if src is None else src
            return holder["rank"]
        # mpi4py fills a Status only through the Test/Wait that takes it: keep our own test.
        return [_StatusRequest(request, status)], sender

    # -- small blocking helpers ----------------------------------------------------------
    def allgather_ints(self, values) -> list:
        """Post an all-gather of one int64 row per rank; returns (requests, table)."""
        row = np.ascontiguousarray(values, dtype=np.int64)
        table = np.empty((self._size, row.size), dtype=np.int64)
        return [self.comm.Iallgather(row, table)], table

    def alltoall_ints(self, values) -> tuple:
        send = np.ascontiguousarray(values, dtype=np.int64)
        recv = np.empty(self._size, dtype=np.int64)
        return [self.comm.Ialltoall(send, recv)], recv

    def allgather_object(self, obj) -> list:
        return self.comm.allgather(obj)

    def bcast_object(self, obj, root: int):
        return self.comm.bcast(obj, root=root)

    def subgroup(self, ranks):
        """A ProcessGroupMPI over `ranks` (collective over this group); None off the group."""
        MPI = mpi()
        comm = self.comm.Create(self.comm.Get_group().Incl(list(ranks)))
        if comm == MPI.COMM_NULL:
            return None
        return ProcessGroupMPI(comm)

    def destroy(self) -> None:
        MPI = mpi()
        if self.comm not in (MPI.COMM_WORLD, MPI.COMM_SELF, MPI.COMM_NULL):
            self.comm.Free()


class _StatusRequest:
    """An Irecv request that keeps its Status (so the sender is known after ANY_SOURCE)."""

    def __init__(self, request, status):
        self.request = request
        self.status = status
        self.done = False

    def Test(self) -> bool:
        # once complete, never test again: MPI would overwrite the status with an empty one
        if not self.done:
            self.done = self.request.Test(self.status)
        return self.done


def world():
    """The process group of MPI_COMM_WORLD, and an excepthook that aborts every rank.

    Note [A failing rank stops the job]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    When one rank raises and exits, the others would wait forever in their next collective.
    We chain ``sys.excepthook``: it prints the traceback as usual, says which rank failed, then
    calls ``MPI_Abort``, which makes ``mpiexec`` kill every rank (non-zero exit status). This
    is what ``python -m mpi4py script.py`` does too. A rank that exits cleanly while others still
    wait is caught by the wait timeout instead (Note [Waiting with a deadline]).
    """
    MPI = mpi()
    comm = MPI.COMM_WORLD
    if not getattr(sys.excepthook, "_dyngrad_abort", False):
        previous = sys.excepthook

        def abort_on_error(exc_type, exc, tb):
            if issubclass(exc_type, KeyboardInterrupt) or comm.Get_size() == 1:
                return previous(exc_type, exc, tb)
            note = (f"dyngrad.distributed: rank {comm.Get_rank()} raised {exc_type.__name__}; "
                    f"aborting all {comm.Get_size()} ranks (MPI_Abort)\n")
            if previous is sys.__excepthook__:
                # one write for the whole report: mpiexec forwards each rank's stderr in the
                # chunks it was written in and may kill the job between two of them
                text = "".join(traceback.format_exception(exc_type, exc, tb)) + note
                sys.stderr.flush()
                os.write(sys.stderr.fileno(), text.encode(errors="replace"))
            else:
                previous(exc_type, exc, tb)
                sys.stderr.write(note)
                sys.stderr.flush()
            time.sleep(0.2)     # let mpiexec forward the report before it kills every rank
            comm.Abort(1)
        abort_on_error._dyngrad_abort = True
        sys.excepthook = abort_on_error
    return ProcessGroupMPI(comm)
