"""The collectives of torch.distributed, on the process groups of distributed_c10d.py.

Each function follows the same four steps:

1. check its arguments locally (torch's messages where torch has one);
2. check that all ranks run the same collective (Note [Checking that the ranks agree]);
3. get contiguous arrays for the tensors, their own when possible (Note [Zero-copy buffers]);
4. post one non-blocking call on the transport and return ``_finish(...)``: a ``Work`` when
   ``async_op=True``, else wait for it and return None.

None of them records autograd history: results are written into the given tensors' memory, as
torch's c10d ops do (``dyngrad.distributed.nn.functional`` has the differentiable versions).
"""
from __future__ import annotations

import numpy as np

from .distributed_c10d import (
    ReduceOp, _agree, _Buffers, _bytes, _check_op, _check_tensor, _check_tensor_list,
    _contiguous, _default, _divide_by, _exchange_counts, _finish, _fingerprint, _group_root,
    _resolve, _same_dtype, _shape_str, get_group_rank,
)
from .distributed_c10d import RedOpType


def _reduce_fp(op_name: str, tensor, op: RedOpType, root: int = -1, shape=True) -> list:
    return _fingerprint(op_name, tensor, root, int(op), shape)


def _maybe_average(bufs: _Buffers, arr, op, pg) -> None:
    if RedOpType(op) == RedOpType.AVG:
        bufs.steps.append(_divide_by(arr, pg.size()))


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce `tensor` over all ranks with `op`; every rank gets the result in `tensor`."""
    pg = _resolve(group, "all_reduce")
    if pg is None:
        return None
    _check_tensor(tensor, "tensor")
    post_op = _check_op(op, tensor, "all_reduce")
    _agree(pg, "all_reduce", _reduce_fp("ALLREDUCE", tensor, op))
    bufs = _Buffers()
    arr = bufs.inout(tensor)
    _maybe_average(bufs, arr, op, pg)
    requests = pg._impl.allreduce(arr, post_op)
    return _finish(pg, "all_reduce", requests, bufs, [tensor], async_op)


def broadcast(tensor, src: int | None = None, group=None, async_op: bool = False,
              group_src: int | None = None):
    """Copy `tensor` of rank `src` into `tensor` on every rank of the group."""
    pg = _resolve(group, "broadcast")
    if pg is None:
        return None
    _check_tensor(tensor, "tensor")
    root = _group_root(pg, "broadcast", src, group_src, "src")
    _agree(pg, "broadcast", _fingerprint("BROADCAST", tensor, root))
    bufs = _Buffers()
    arr = bufs.inout(tensor)
    requests = pg._impl.bcast(_bytes(arr), root)
    return _finish(pg, "broadcast", requests, bufs, [tensor], async_op)


def reduce(tensor, dst: int | None = None, op=ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst: int | None = None):
    """Reduce `tensor` over all ranks; only rank `dst` gets the result."""
    pg = _resolve(group, "reduce")
    if pg is None:
        return None
    _check_tensor(tensor, "tensor")
    root = _group_root(pg, "reduce", dst, group_dst, "dst")
    post_op = _check_op(op, tensor, "reduce")
    _agree(pg, "reduce", _reduce_fp("REDUCE", tensor, op, root))
    bufs = _Buffers()
    arr = bufs.inout(tensor)
    if pg.rank() == root:
        _maybe_average(bufs, arr, op, pg)
    requests = pg._impl.reduce(arr, root, post_op)
    return _finish(pg, "reduce", requests, bufs, [tensor], async_op)


def _check_same_shapes(name: str, tensors, shape) -> None:
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(shape):
            raise RuntimeError(f"{name}: invalid tensor size at index {i} (expected "
                               f"{_shape_str(shape)}, got {_shape_str(t.shape)})")


def _check_list_length(name: str, tensors, n: int, what: str) -> None:
    if len(tensors) != n:
        raise RuntimeError(f"{name}: invalid {what} tensor list at index 0 (expected length "
                           f"{n}, got {len(tensors)})")


def _unpack_into(tensors, packed):
    """A finalize step: copy consecutive chunks of `packed` (bytes) into `tensors`."""
    def step():
        offset = 0
        for t in tensors:
            n = t._data.nbytes
            t._data[...] = packed[offset:offset + n].view(t._data.dtype).reshape(t._data.shape)
            offset += n
    return step


def _pack(tensors):
    """One contiguous byte buffer holding `tensors` one after the other."""
    if not tensors:
        return np.empty(0, np.uint8)
    return np.concatenate([_bytes(_contiguous(t._data)) for t in tensors])


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Gather `tensor` of every rank into `tensor_list` (one entry per rank) on every rank."""
    pg = _resolve(group, "all_gather")
    if pg is None:
        return None
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    _same_dtype(tensor_list, [tensor])
    _check_list_length("all_gather", tensor_list, pg.size(), "output")
    _check_same_shapes("all_gather", tensor_list, tensor.shape)
    _agree(pg, "all_gather", _fingerprint("ALLGATHER", tensor))
    send = _bytes(_contiguous(tensor._data))
    packed = np.empty(send.size * pg.size(), np.uint8)
    bufs = _Buffers()
    bufs.steps.append(_unpack_into(tensor_list, packed))
    requests = pg._impl.allgatherv(send, packed, [send.size] * pg.size())
    return _finish(pg, "all_gather", requests, bufs, list(tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Gather every rank's `input_tensor` into `output_tensor`: concatenated along dim 0
    (shape ``(world_size * n, ...)``) or stacked (``(world_size, n, ...)``)."""
    pg = _resolve(group, "all_gather_into_tensor")
    if pg is None:
        return None
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    _same_dtype([output_tensor, input_tensor])
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError(f"all_gather_into_tensor: the output tensor must have world_size "
                         f"({pg.size()}) times the elements of the input; got output "
                         f"{_shape_str(output_tensor.shape)}, input "
                         f"{_shape_str(input_tensor.shape)}")
    _agree(pg, "all_gather_into_tensor", _fingerprint("_ALLGATHER_BASE", input_tensor))
    bufs = _Buffers()
    recv = _bytes(bufs.out(output_tensor))
    send = _bytes(_contiguous(input_tensor._data))
    requests = pg._impl.allgatherv(send, recv, [send.size] * pg.size())
    return _finish(pg, "all_gather_into_tensor", requests, bufs, [output_tensor], async_op)


def gather(tensor, gather_list=None, dst: int | None = None, group=None,
           async_op: bool = False, group_dst: int | None = None):
    """Gather `tensor` of every rank into `gather_list` on rank `dst` (None elsewhere)."""
    pg = _resolve(group, "gather")
    if pg is None:
        return None
    _check_tensor(tensor, "tensor")
    root = _group_root(pg, "gather", dst, group_dst, "dst")
    if pg.rank() == root:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_tensor_list(gather_list, "gather_list")
        _same_dtype(gather_list, [tensor])
        _check_list_length("gather", gather_list, pg.size(), "output")
        _check_same_shapes("gather", gather_list, tensor.shape)
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on "
                         "non-destination ranks.")
    _agree(pg, "gather", _fingerprint("GATHER", tensor, root))
    send = _bytes(_contiguous(tensor._data))
    bufs = _Buffers()
    packed = None
    if pg.rank() == root:
        packed = np.empty(send.size * pg.size(), np.uint8)
        bufs.steps.append(_unpack_into(gather_list, packed))
    requests = pg._impl.gatherv(send, packed, [send.size] * pg.size(), root)
    return _finish(pg, "gather", requests, bufs, list(gather_list or []), async_op)


def scatter(tensor, scatter_list=None, src: int | None = None, group=None,
            async_op: bool = False, group_src: int | None = None):
    """Rank `src` sends ``scatter_list[i]`` to rank i, which receives it into `tensor`."""
    pg = _resolve(group, "scatter")
    if pg is None:
        return None
    _check_tensor(tensor, "tensor")
    root = _group_root(pg, "scatter", src, group_src, "src")
    if pg.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_tensor_list(scatter_list, "scatter_list")
        _same_dtype(scatter_list, [tensor])
        _check_list_length("scatter", scatter_list, pg.size(), "input")
        _check_same_shapes("scatter", scatter_list, tensor.shape)
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    _agree(pg, "scatter", _fingerprint("SCATTER", tensor, root))
    bufs = _Buffers()
    recv = _bytes(bufs.out(tensor))
    packed = _pack(scatter_list) if pg.rank() == root else None
    requests = pg._impl.scatterv(packed, [recv.size] * pg.size(), recv, root)
    return _finish(pg, "scatter", requests, bufs, [tensor], async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``input_list[i]`` over all ranks into `output` on rank i."""
    pg = _resolve(group, "reduce_scatter")
    if pg is None:
        return None
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    _same_dtype([output], input_list)
    _check_list_length("reduce_scatter", input_list, pg.size(), "input")
    _check_same_shapes("reduce_scatter", input_list, output.shape)
    post_op = _check_op(op, output, "reduce_scatter")
    _agree(pg, "reduce_scatter", _reduce_fp("REDUCE_SCATTER", output, op))
    bufs = _Buffers()
    recv = bufs.out(output).reshape(-1)
    send = np.concatenate([_contiguous(t._data).reshape(-1) for t in input_list])
    _maybe_average(bufs, recv, op, pg)
    requests = pg._impl.reduce_scatter(send, recv, [recv.size] * pg.size(), post_op)
    return _finish(pg, "reduce_scatter", requests, bufs, [output], async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce `input` over all ranks and give rank i the i-th of `world_size` equal chunks of
    the result (along dim 0) in `output`."""
    pg = _resolve(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _same_dtype([output, input])
    if input.numel() != output.numel() * pg.size():
        raise ValueError(f"reduce_scatter_tensor: the input tensor must have world_size "
                         f"({pg.size()}) times the elements of the output; got input "
                         f"{_shape_str(input.shape)}, output {_shape_str(output.shape)}")
    post_op = _check_op(op, output, "reduce_scatter_tensor")
    _agree(pg, "reduce_scatter_tensor", _reduce_fp("_REDUCE_SCATTER_BASE", output, op))
    bufs = _Buffers()
    recv = bufs.out(output).reshape(-1)
    send = _contiguous(input._data).reshape(-1)
    _maybe_average(bufs, recv, op, pg)
    requests = pg._impl.reduce_scatter(send, recv, [recv.size] * pg.size(), post_op)
    return _finish(pg, "reduce_scatter_tensor", requests, bufs, [output], async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank i sends ``input_tensor_list[j]`` to rank j, which receives it into
    ``output_tensor_list[i]``. Tensors may differ in size (each pair must agree)."""
    pg = _resolve(group, "all_to_all")
    if pg is None:
        return None
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    _same_dtype(output_tensor_list, input_tensor_list)
    _check_list_length("all_to_all", input_tensor_list, pg.size(), "input")
    _check_list_length("all_to_all", output_tensor_list, pg.size(), "output")
    _agree(pg, "all_to_all", _fingerprint("ALLTOALL", input_tensor_list[0], shape=False))
    send_counts = [t._data.nbytes for t in input_tensor_list]
    recv_counts = [t._data.nbytes for t in output_tensor_list]
    _exchange_counts(pg, "all_to_all", send_counts, recv_counts, "bytes, from the tensor sizes")
    send = _pack(input_tensor_list)
    packed = np.empty(sum(recv_counts), np.uint8)
    bufs = _Buffers()
    bufs.steps.append(_unpack_into(output_tensor_list, packed))
    requests = pg._impl.alltoallv(send, send_counts, packed, recv_counts)
    return _finish(pg, "all_to_all", requests, bufs, list(output_tensor_list), async_op)


def _split_rows(name: str, tensor, splits, n: int, arg: str) -> list:
    """Rows of dim 0 per rank: the given split sizes, or an equal division."""
    rows = tensor.shape[0] if tensor.dim() > 0 else 1
    if splits is None or len(splits) == 0:
        if rows % n != 0:
            raise ValueError(f"{name}: dim 0 of the {arg} ({rows}) does not divide equally "
                             f"across the group size {n}")
        return [rows // n] * n
    splits = [int(s) for s in splits]
    if len(splits) != n:
        raise ValueError(f"{name}: {arg}_split_sizes has {len(splits)} entries for a group of "
                         f"{n} ranks")
    if sum(splits) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    return splits


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op: bool = False):
    """Split `input` along dim 0 (``input_split_sizes`` rows per rank, or equally), send chunk
    j to rank j, and concatenate what every rank sent into `output`
    (``output_split_sizes`` rows from each rank)."""
    pg = _resolve(group, "all_to_all_single")
    if pg is None:
        return None
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _same_dtype([output, input])
    n = pg.size()
    in_rows = _split_rows("all_to_all_single", input, input_split_sizes, n, "input")
    out_rows = _split_rows("all_to_all_single", output, output_split_sizes, n, "output")
    _agree(pg, "all_to_all_single", _fingerprint("ALLTOALL_BASE", input, shape=False))
    in_row_bytes = input._data.nbytes // max(sum(in_rows), 1)
    out_row_bytes = output._data.nbytes // max(sum(out_rows), 1)
    send_counts = [r * in_row_bytes for r in in_rows]
    recv_counts = [r * out_row_bytes for r in out_rows]
    _exchange_counts(pg, "all_to_all_single", send_counts, recv_counts,
                     "bytes, from input_split_sizes and output_split_sizes")
    bufs = _Buffers()
    recv = _bytes(bufs.out(output))
    send = _bytes(_contiguous(input._data))
    requests = pg._impl.alltoallv(send, send_counts, recv, recv_counts)
    return _finish(pg, "all_to_all_single", requests, bufs, [output], async_op)


def barrier(group=None, async_op: bool = False, device_ids=None, timeout=None):
    """Wait until every rank of the group reached the barrier."""
    pg = _resolve(group, "barrier")
    if pg is None:
        return None
    _agree(pg, "barrier", _fingerprint("BARRIER"))
    work = _finish(pg, "barrier", pg._impl.barrier(), None, [], True)
    if async_op:
        return work
    work.wait(timeout)
    return None


# -- point to point ------------------------------------------------------------------------
def _peer(pg, name: str, rank, group_rank, arg: str, word: str) -> int:
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {arg} and group_{arg}")
    if group_rank is None:
        if rank is None:
            return None
        group_rank = get_group_rank(pg, rank) if pg is not _default() else rank
    if group_rank == pg.rank():
        raise ValueError(f"Invalid {word} rank: {word} rank should not be the same as the rank "
                         "of the current process.")
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"{name}: invalid {word} rank {group_rank} (group size {pg.size()})")
    return group_rank


def isend(tensor, dst: int | None = None, group=None, tag: int = 0,
          group_dst: int | None = None):
    """Send `tensor` to rank `dst` without blocking; returns a Work."""
    pg = _resolve(group, "isend")
    if pg is None:
        return None
    _check_tensor(tensor, "tensor")
    peer = _peer(pg, "isend", dst, group_dst, "dst", "destination")
    if peer is None:
        raise ValueError("isend: dst (or group_dst) must be given")
    data = _contiguous(tensor._data)
    bufs = _Buffers()
    bufs.steps.append(lambda: data)   # keeps the send buffer alive until completion
    return _finish(pg, "isend", pg._impl.isend(_bytes(data), peer, tag), bufs, [tensor], True)


def irecv(tensor, src: int | None = None, group=None, tag: int = 0,
          group_src: int | None = None):
    """Receive into `tensor` from rank `src` (any rank when None) without blocking."""
    pg = _resolve(group, "irecv")
    if pg is None:
        return None
    _check_tensor(tensor, "tensor")
    peer = _peer(pg, "irecv", src, group_src, "src", "source")
    bufs = _Buffers()
    arr = bufs.out(tensor)
    requests, sender = pg._impl.irecv(_bytes(arr), peer, tag)
    return _finish(pg, "irecv", requests, bufs, [tensor], True,
                   source=lambda: pg._ranks[sender()])


def send(tensor, dst: int | None = None, group=None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Send `tensor` to rank `dst` (blocks until the data left this process's buffer)."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src: int | None = None, group=None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into `tensor` from rank `src` (any rank when None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work.source_rank()


# -- Python objects (pickled) ----------------------------------------------------------------
def broadcast_object_list(object_list, src: int | None = None, group=None, device=None,
                          group_src: int | None = None) -> None:
    """Replace `object_list`'s items on every rank with rank `src`'s (pickled)."""
    pg = _resolve(group, "broadcast_object_list")
    if pg is None:
        return
    root = _group_root(pg, "broadcast_object_list", src, group_src, "src")
    objects = pg._impl.bcast_object(list(object_list) if pg.rank() == root else None, root)
    if len(objects) != len(object_list):
        raise RuntimeError(f"broadcast_object_list: rank {root} sent {len(objects)} objects, "
                           f"this rank's list holds {len(object_list)}")
    object_list[:] = objects


def all_gather_object(object_list, obj, group=None) -> None:
    """Fill ``object_list[i]`` with rank i's `obj` (pickled), on every rank."""
    pg = _resolve(group, "all_gather_object")
    if pg is None:
        return
    gathered = pg._impl.allgather_object(obj)
    for i, item in enumerate(gathered):
        object_list[i] = item
