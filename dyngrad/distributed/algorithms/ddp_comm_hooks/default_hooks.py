"""torch's default DDP communication hooks: the averaging all-reduce DDP does without a hook,
and the same over a float16 copy of the bucket (half the bytes on the wire, float16's
rounding in the result)."""
from __future__ import annotations

from ... import distributed_c10d as _c10d

__all__ = ["allreduce_hook", "fp16_compress_hook"]


def _allreduce_fut(process_group, tensor):
    """All-reduce `tensor` divided by the group's size: a Future of the averaged tensor."""
    from ... import all_reduce, get_world_size
    group = process_group if process_group is not None else _c10d.GroupMember.WORLD
    tensor.div_(get_world_size(group))
    fut = all_reduce(tensor, group=group, async_op=True).get_future()
    return fut.then(lambda f: f.value()[0])


def allreduce_hook(process_group, bucket):
    """Average the bucket over `process_group` (None: the default group): what DDP does
    without a hook.

    Example::

        >>> ddp_model.register_comm_hook(process_group, allreduce_hook)
    """
    return _allreduce_fut(process_group, bucket.buffer())


def fp16_compress_hook(process_group, bucket):
    """Average the bucket as float16 (the buffer cast, divided by the group's size, reduced),
    then write the result back into the bucket's buffer in its own dtype.

    Example::

        >>> ddp_model.register_comm_hook(state, fp16_compress_hook)
    """
    from ... import all_reduce, get_world_size
    from .... import float16
    group = process_group if process_group is not None else _c10d.GroupMember.WORLD
    buffer = bucket.buffer()
    compressed = buffer.to(float16).div_(get_world_size(group))
    fut = all_reduce(compressed, group=group, async_op=True).get_future()

    def decompress(f):
        buffer.copy_(f.value()[0])
        return buffer
    return fut.then(decompress)
