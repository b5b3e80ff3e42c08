"""torch.distributed's c10d API: process groups and collectives on tensors.

The names, arguments and semantics are torch's: collectives write their results into the tensors
given (in place; like torch, without bumping ``_version`` and without autograd: see
``dyngrad.distributed.nn.functional`` for differentiable ones), return None, or a ``Work`` with
``async_op=True``. ``src``/``dst`` are global ranks, ``group_src``/``group_dst`` ranks within
``group``. The transport is MPI (``_mpi.py``, backend "mpi") or one process (``_loopback.py``).

Note [Zero-copy buffers]
~~~~~~~~~~~~~~~~~~~~~~~~
A contiguous tensor's NumPy array is handed to mpi4py as it is: MPI reads from and writes into
the tensor's own memory. A non-contiguous tensor is copied into a contiguous scratch array, and
the result copied back when the operation completes (``Work`` runs that "finalize" step).
Collectives over lists of tensors (``all_gather``, ``all_to_all``…) pack them into one buffer,
since one MPI call takes one buffer. Data that is only moved travels as raw bytes (so every
dtype goes through); reductions pass typed arrays and MPI reduces them.

Note [Checking that the ranks agree]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
MPI trusts every rank to call the same collective with matching sizes; a mismatch gives a
truncation error, garbage or a hang. Before each collective on more than one rank, the ranks
all-gather a small fingerprint (operation, dtype, root, reduce op, shape) and every rank compares
the table, so a mismatch raises the same RuntimeError on all ranks, naming both sides (the
message follows torch's ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` check). It costs one small collective;
``DistributedDataParallel`` skips it for its gradient buckets after checking the parameter shapes
once. ``all_to_all`` variants also exchange their split sizes, so wrong splits are named too.
"""
from __future__ import annotations

import enum
import os
import warnings
from datetime import timedelta

import numpy as np

from ._work import Work

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")
default_pg_timeout = timedelta(minutes=30)


class RedOpType(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class ReduceOp:
    """The element-wise reduction of a collective: ``ReduceOp.SUM``, ``AVG``, ``PRODUCT``,
    ``MIN``, ``MAX`` and the bitwise ``BAND``, ``BOR``, ``BXOR`` (torch's values).

    Differences from torch: no ``PREMUL_SUM`` (an NCCL-only operation).
    """

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM

    def __new__(cls, op=RedOpType.SUM):
        return RedOpType(op)


class Backend(str):
    """A backend name (a ``str``), as ``torch.distributed.Backend``.

    ``"mpi"`` runs over MPI; ``"loopback"`` (also spelled ``"fake"`` or ``"single"``) is a
    world of one process. ``"gloo"``, ``"nccl"`` and ``"ucc"`` are accepted for torch code:
    they mean MPI under ``mpiexec`` and the one-process backend for ``world_size=1``.
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    FAKE = "fake"
    XCCL = "xccl"
    LOOPBACK = "loopback"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: "
                             f"{type(name)}")
        value = name.lower()
        if value not in ("undefined", "gloo", "nccl", "ucc", "mpi", "fake", "xccl", "loopback",
                         "single"):
            raise ValueError(f"Invalid backend: '{name}'")
        if value == "single":
            value = "loopback"
        return str.__new__(cls, value)


class ProcessGroup:
    """A set of ranks that run collectives together (the world, or one from ``new_group``)."""

    def __init__(self, impl, ranks, backend: str, timeout: timedelta):
        self._impl = impl                  # the transport: ProcessGroupMPI / Loopback
        self._ranks = list(ranks)          # global rank of each group rank
        self._backend = Backend(backend)
        self._timeout = timeout

    def rank(self) -> int:
        return self._impl.rank()

    def size(self) -> int:
        return self._impl.size()

    def name(self) -> str:
        return self._backend

    def __repr__(self) -> str:
        return (f"<dyngrad.distributed.ProcessGroup {self._backend} ranks={self._ranks} "
                f"rank={self.rank()}>")


class GroupMember:
    """``GroupMember.WORLD`` is the default group once initialised (None before);
    ``NON_GROUP_MEMBER`` is what ``new_group`` returns on ranks outside the group."""

    WORLD = None
    NON_GROUP_MEMBER = -100


group = GroupMember

_state = {"default": None, "groups": []}


# -- environment -----------------------------------------------------------------------------
def is_available() -> bool:
    """True: the distributed package is always there (its MPI backend needs mpi4py)."""
    return True


def is_mpi_available() -> bool:
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return False


def _launched_by_mpiexec() -> bool:
    """True in a process started by mpiexec (hydra, and Open MPI's launcher)."""
    return any(k in os.environ for k in ("PMI_RANK", "PMI_SIZE", "PMIX_RANK",
                                          "OMPI_COMM_WORLD_SIZE", "MPI_LOCALRANKID"))


def is_initialized() -> bool:
    return _state["default"] is not None


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None,
                       device_id=None) -> None:
    """Create the default process group.

    Args:
        backend: ``"mpi"`` (ranks and world size come from ``mpiexec``), ``"loopback"`` (one
            process); ``None`` picks MPI under ``mpiexec`` and loopback otherwise. ``"gloo"`` /
            ``"nccl"`` are read the same way, so torch scripts run unchanged.
        init_method, store, group_name, pg_options, device_id: accepted for torch's signature;
            ``mpiexec`` does the rendezvous.
        timeout: how long a collective waits for the other ranks before raising
            (default 30 minutes).
        world_size, rank: if given, checked against what MPI reports.

    Example::

        >>> dist.init_process_group("mpi")      # under: mpiexec -n 4 python script.py
        >>> dist.get_rank(), dist.get_world_size()
    """
    if _state["default"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    timeout = default_pg_timeout if timeout is None else timeout
    name = Backend(backend) if backend is not None else (
        Backend.MPI if _launched_by_mpiexec() else Backend.LOOPBACK)
    if name in (Backend.GLOO, Backend.NCCL, Backend.UCC, Backend.XCCL, Backend.UNDEFINED):
        if _launched_by_mpiexec():
            name = Backend.MPI
        elif world_size in (-1, 1):
            name = Backend.LOOPBACK
        else:
            raise ValueError(f"backend '{name}' with world_size={world_size}: dyngrad runs "
                             "several processes over MPI; launch them with "
                             "`python -m dyngrad.distributed.run -n N script.py`")
    if name == Backend.FAKE:
        name = Backend.LOOPBACK
    if name == Backend.LOOPBACK:
        if world_size not in (-1, 1) or rank not in (-1, 0):
            raise ValueError(f"the single-process backend has world_size 1 and rank 0 (got "
                             f"world_size={world_size}, rank={rank}); run several processes "
                             "with backend='mpi' under mpiexec")
        from ._loopback import ProcessGroupLoopback
        impl = ProcessGroupLoopback()
    elif name == Backend.MPI:
        from . import _mpi
        impl = _mpi.world()
        for arg, value, actual in (("world_size", world_size, impl.size()),
                                   ("rank", rank, impl.rank())):
            if value != -1 and value != actual:
                raise ValueError(f"init_process_group: {arg}={value} was given, but MPI "
                                 f"reports {actual} (mpiexec decides ranks and world size)")
    else:
        raise ValueError(f"backend '{name}' is not available in dyngrad (use 'mpi')")
    pg = ProcessGroup(impl, range(impl.size()), name, timeout)
    _state["default"] = pg
    _state["groups"] = [pg]
    GroupMember.WORLD = pg


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Destroy one group, or (``group=None``) every group and the default one."""
    if group is None or group is _state["default"]:
        for pg in _state["groups"]:
            pg._impl.destroy()
        _state["default"] = None
        _state["groups"] = []
        GroupMember.WORLD = None
        return
    if group in _state["groups"]:
        group._impl.destroy()
        _state["groups"].remove(group)


def _default() -> ProcessGroup:
    pg = _state["default"]
    if pg is None:
        raise ValueError(_NOT_INITIALIZED)
    return pg


def _resolve(group, op_name: str | None = None):
    """The ProcessGroup for `group` (None: default); None when this rank is not in it."""
    pg = _default()
    if group is None or group is GroupMember.WORLD:
        return pg
    if isinstance(group, int) and group == GroupMember.NON_GROUP_MEMBER:
        if op_name is not None:
            warnings.warn(f"Running {op_name} on global rank {pg.rank()} which does not belong "
                          "to the given group.")
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    return group


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None, device_id=None,
              sort_ranks: bool = True):
    """A process group of some ranks; every rank of the default group must call it.

    Returns the group on its members and ``GroupMember.NON_GROUP_MEMBER`` elsewhere.
    """
    pg = _default()
    ranks = list(range(pg.size())) if not ranks else list(ranks)
    if sort_ranks:
        ranks = sorted(ranks)
    for r in ranks:
        if not 0 <= r < pg.size():
            raise ValueError(f"The new group's rank should be within the world_size set by "
                             f"init_process_group: rank {r}, world size {pg.size()}")
    impl = pg._impl.subgroup(ranks)
    if impl is None:
        return GroupMember.NON_GROUP_MEMBER
    sub = ProcessGroup(impl, ranks, pg._backend, pg._timeout if timeout is None else timeout)
    _state["groups"].append(sub)
    return sub


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in `group` (the default group when None); -1 outside it."""
    pg = _resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    pg = _resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group: ProcessGroup | None = None) -> Backend:
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg._backend


def get_process_group_ranks(group) -> list:
    pg = _resolve(group)
    return list(pg._ranks)


def get_global_rank(group, group_rank: int) -> int:
    return _resolve(group)._ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    pg = _resolve(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def _group_root(pg: ProcessGroup, op_name: str, rank, group_rank, arg: str) -> int:
    """The root's rank inside `pg` from torch's (src|dst, group_src|group_dst) pair."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {arg} and group_{arg}")
    if group_rank is None:
        rank = 0 if rank is None else rank
        group_rank = get_group_rank(pg, rank) if pg is not _state["default"] else rank
    if not 0 <= group_rank < pg.size():
        raise RuntimeError(f"{op_name}: invalid root rank: {group_rank}")
    return group_rank


# -- tensors and buffers ---------------------------------------------------------------------
def _check_tensor(t, arg: str) -> None:
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{arg}` of type "
                        f"torch.Tensor\n             but got {type(t)} instead.")


def _check_tensor_list(ts, arg: str) -> None:
    from .._tensor import Tensor
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{arg}` of type "
                        "List[torch.Tensor]\n             but got "
                        f"{type(ts)} with elements of type "
                        f"{[type(t) for t in ts] if isinstance(ts, (list, tuple)) else '?'}.")


def _same_dtype(*tensor_lists) -> None:
    """torch's _ensure_all_tensors_same_dtype (its message, typos included)."""
    first = None
    for ts in tensor_lists:
        for t in ts:
            if first is None:
                first = t.dtype
            elif t.dtype != first:
                raise ValueError("Invalid usage of tensors with different dtypes"
                                 f"Found {first} and  {t.dtype}")


def _shape_str(shape) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ")"


def _contiguous(arr):
    return arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)


def _bytes(arr):
    """A flat uint8 view of a C-contiguous array (for data MPI only moves)."""
    return arr.reshape(-1).view(np.uint8)


class _Buffers:
    """Scratch arrays standing in for non-contiguous tensors, copied back at the end."""

    def __init__(self):
        self.copies = []   # (tensor, scratch array)
        self.steps = []    # extra functions to run when the operation completed

    def inout(self, tensor):
        """An array MPI may read and overwrite: the tensor's own when contiguous."""
        arr = tensor._data
        if arr.flags.c_contiguous:
            return arr
        scratch = np.ascontiguousarray(arr)
        self.copies.append((tensor, scratch))
        return scratch

    def out(self, tensor):
        arr = tensor._data
        if arr.flags.c_contiguous:
            return arr
        scratch = np.empty(arr.shape, arr.dtype)
        self.copies.append((tensor, scratch))
        return scratch

    def finalize(self) -> None:
        for step in self.steps:
            step()
        for tensor, scratch in self.copies:
            tensor._data[...] = scratch


def _finish(pg: ProcessGroup, name: str, requests, buffers, outputs, async_op: bool,
            source=None):
    work = Work(name, requests, buffers.finalize if buffers is not None else None, outputs,
                pg._timeout, source)
    if async_op:
        return work
    work.wait()
    return None


# -- the fingerprint check (Note [Checking that the ranks agree]) ----------------------------
_OPS = ("ALLREDUCE", "BROADCAST", "REDUCE", "ALLGATHER", "_ALLGATHER_BASE", "GATHER",
        "SCATTER", "REDUCE_SCATTER", "_REDUCE_SCATTER_BASE", "ALLTOALL", "ALLTOALL_BASE",
        "BARRIER")
_DTYPES = (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
           np.float64, np.complex64, np.complex128)
_MAX_DIMS = 8


def _fingerprint(op: str, tensor=None, root: int = -1, redop: int = -1, shape=True) -> list:
    row = [_OPS.index(op), -1, root, redop, -1] + [-1] * _MAX_DIMS
    if tensor is not None:
        row[1] = _DTYPES.index(tensor._data.dtype.type)
        if shape:
            dims = tensor._data.shape
            row[4] = len(dims)
            for i, n in enumerate(dims[:_MAX_DIMS]):
                row[5 + i] = n
    return row


def _describe(row) -> str:
    from .._dtypes import _FROM_NP
    parts = [f"OpType={_OPS[row[0]]}"]
    if row[4] >= 0:
        parts.append("TensorShape=[" + ", ".join(str(n) for n in row[5:5 + row[4]]) + "]")
    if row[1] >= 0:
        parts.append(f"TensorDtypes={_FROM_NP[np.dtype(_DTYPES[row[1]])]}")
    if row[2] >= 0:
        parts.append(f"Root={row[2]}")
    if row[3] >= 0:
        parts.append(f"ReduceOp={RedOpType(row[3]).name}")
    return "CollectiveFingerPrint(" + ", ".join(parts) + ")"


def _agree(pg: ProcessGroup, name: str, row: list) -> None:
    """Raise on every rank when the ranks are not running the same collective."""
    if pg.size() == 1:
        return
    # One all-reduce (MAX of the row and of its negation) says whether all rows are equal:
    # measured 3x faster than all-gathering the rows on 4 ranks over 2 cores. Only after a
    # mismatch do the ranks all-gather the rows, to name them.
    both = np.concatenate([np.asarray(row, np.int64), -np.asarray(row, np.int64)])
    Work(name, pg._impl.allreduce(both, RedOpType.MAX), timeout=pg._timeout).wait()
    if np.array_equal(both[:len(row)], -both[len(row):]):
        return
    requests, table = pg._impl.allgather_ints(row)
    Work(name, requests, timeout=pg._timeout).wait()
    first = table[0].tolist()
    for r in range(1, pg.size()):
        other = table[r].tolist()
        if other != first:
            raise RuntimeError(
                f"Detected mismatch between collectives on ranks. Rank 0 is running collective: "
                f"{_describe(first)}, but Rank {r} is running collective: {_describe(other)}")


def _exchange_counts(pg: ProcessGroup, name: str, send_counts, recv_counts, what: str) -> None:
    """all_to_all: what each rank sends me must be what I expect from it."""
    if pg.size() == 1:
        if list(send_counts) != list(recv_counts):
            raise RuntimeError(f"{name}: the input sends {list(send_counts)} element(s) but the "
                               f"output expects {list(recv_counts)} ({what})")
        return
    requests, incoming = pg._impl.alltoall_ints(send_counts)
    Work(name, requests, timeout=pg._timeout).wait()
    bad = [j for j in range(pg.size()) if incoming[j] != recv_counts[j]]
    flag_requests, table = pg._impl.allgather_ints([len(bad)])
    Work(name, flag_requests, timeout=pg._timeout).wait()
    if bad:
        j = bad[0]
        raise RuntimeError(f"{name}: rank {j} sends {int(incoming[j])} element(s) to rank "
                           f"{pg.rank()}, which expects {int(recv_counts[j])} ({what})")
    if table.any():
        culprit = int(np.flatnonzero(table[:, 0])[0])
        raise RuntimeError(f"{name}: the split sizes disagree between ranks (see rank "
                           f"{culprit}'s error)")


def _check_op(op, tensor, name: str):
    """The ReduceOp to post to the transport (AVG posts SUM and divides afterwards)."""
    try:
        op = RedOpType(op)
    except (ValueError, TypeError):
        raise TypeError(f"{name}: op must be a torch.distributed.ReduceOp, got {op!r}") from None
    if op == RedOpType.PREMUL_SUM:
        raise ValueError(f"{name}: ReduceOp.PREMUL_SUM is not supported by the MPI backend")
    kind = tensor._data.dtype.kind
    if kind == "c" and op in (RedOpType.MIN, RedOpType.MAX, RedOpType.BAND, RedOpType.BOR,
                              RedOpType.BXOR):
        raise ValueError(f"{name} does not support {op} on complex tensors")
    if kind in "fV" and op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR):
        raise ValueError(f"{name} does not support {op} on floating-point tensors")
    if op == RedOpType.AVG:
        if kind not in "fcV":
            raise ValueError(f"{name}: ReduceOp.AVG needs a floating-point or complex tensor, "
                             f"got {tensor.dtype}")
        return RedOpType.SUM
    return op


def _divide_by(arr, n: int):
    def step():
        arr[...] = arr / n
    return step
