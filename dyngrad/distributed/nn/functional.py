"""Differentiable collectives (torch.distributed.nn.functional).

The plain collectives of ``dyngrad.distributed`` write into tensors and record no history, so a
gradient stops at them (as in torch: ``dist.all_to_all_single`` "breaks the chain"). Here each
collective is an ``autograd.Function`` that returns new tensors and whose backward runs the
*adjoint* collective on every rank, so gradients travel back to the ranks the data came from.

Note [Adjoint collectives]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A collective is a linear map from every rank's input to every rank's output. Its backward
maps every rank's output gradient to every rank's input gradient with the transposed map,
which is again a collective:

=====================  ================================================
forward                backward
=====================  ================================================
all_reduce(SUM)        all_reduce(SUM) of the gradients (AVG: AVG)
broadcast from src     reduce(SUM) to src (other ranks' inputs: zero)
reduce(SUM) to dst     broadcast from dst
all_gather             reduce_scatter(SUM)
reduce_scatter(SUM)    all_gather
gather to dst          scatter from dst
scatter from src       gather to src
all_to_all             all_to_all back (the same exchange reversed)
all_to_all_single      all_to_all_single with the split sizes swapped
=====================  ================================================

Each backward calls these Functions' ``apply``, so with ``create_graph=True`` the backward is
itself recorded and differentiable (double backward). Every rank must run backward through the
same collectives in the same order, as with any collective.

The node names match torch's (``_AllReduceBackward``, ``_AlltoAllBackward``…).

Differences from torch: torch's ``all_reduce`` backward all-reduces the gradients with the
forward's op for every op, which is the derivative only for SUM and AVG; here PRODUCT, MIN and
MAX get their derivative (MIN/MAX split the gradient between tied ranks; PRODUCT assumes no
zero inputs). ``all_gather``'s backward is a reduce-scatter on every backend (torch emulates it
with all_to_all off NCCL: same values). The deprecation warnings pointing to
``torch.distributed._functional_collectives`` are not given (that module does not exist here).
"""
from __future__ import annotations

from ... import autograd as _autograd
from .. import distributed_c10d as _c10d
from .. import _collectives as dist
from ..distributed_c10d import GroupMember, ReduceOp

Function = _autograd.Function


def _zeros_like(t):
    from ...ops import creation
    return creation.zeros_like(t)


def _empty(shape, like):
    from ...ops import creation
    return creation.empty(tuple(shape), dtype=like.dtype)


def broadcast(tensor, src, group=GroupMember.WORLD):
    """Rank `src`'s `tensor`, returned on every rank; the gradient is summed back to `src`."""
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=GroupMember.WORLD):
    """Every rank's `tensor`, as a tuple on rank `dst` (zeros elsewhere)."""
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=GroupMember.WORLD):
    """``tensors[i]`` of rank `src` returned on rank i. Every rank passes tensors of the
    right shape (only `src`'s values are used)."""
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=GroupMember.WORLD):
    """The reduction of every rank's `tensor`, returned on rank `dst`."""
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=GroupMember.WORLD):
    """Reduce ``input_list[i]`` over the ranks into `output` on rank i; returns `output`."""
    return _Reduce_Scatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=GroupMember.WORLD):
    """Every rank's `tensor`, as a tuple (one entry per rank) on every rank."""
    return _AllGather.apply(group, tensor)


def _all_gather_base(output_tensor, input_tensor, group=GroupMember.WORLD):
    """Every rank's `input_tensor` concatenated into `output_tensor` (returned)."""
    return _AllGatherBase.apply(output_tensor, input_tensor, group)


def all_to_all(output_tensor_list, input_tensor_list, group=GroupMember.WORLD):
    """Rank i's ``input_tensor_list[j]`` arrives in rank j's ``output_tensor_list[i]``;
    returns the output tensors as a tuple."""
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=GroupMember.WORLD):
    """``dist.all_to_all_single`` with a gradient: returns `output`."""
    return _AlltoAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=GroupMember.WORLD):
    """The reduction of every rank's `tensor`, returned (a new tensor) on every rank."""
    return _AllReduce.apply(op, group, tensor)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src = src
        ctx.group = group
        ctx.rank = _c10d.get_rank(group)
        tensor = tensor.clone()           # the plain collective works in place
        dist.broadcast(tensor, src, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        grad = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if ctx.src != ctx.rank:
            grad.zero_()                  # keeps the graph: double backward runs everywhere
        return None, None, grad


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst = dst
        ctx.group = group
        tensors = [_zeros_like(tensor) for _ in range(_c10d.get_world_size(group))]
        tensor = tensor.contiguous()
        if _c10d.get_rank(group) == dst:
            dist.gather(tensor, tensors, dst, group=group)
        else:
            dist.gather(tensor, None, dst, group=group)
        return tuple(tensors)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return (None, None, _Scatter.apply(ctx.dst, ctx.group, *grad_outputs))


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        ctx.src = src
        ctx.group = group
        if any(t.shape != tensors[0].shape for t in tensors):
            raise ValueError("scatter: the tensors to scatter must all have the same shape")
        output = _zeros_like(tensors[0])
        if _c10d.get_rank(group) == src:
            dist.scatter(output, list(tensors), src, group=group)
        else:
            dist.scatter(output, None, src, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad_output)


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst = dst
        ctx.group = group
        tensor = tensor.clone()
        dist.reduce(tensor, dst, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output))


class _Reduce_Scatter(Function):
    @staticmethod
    def forward(ctx, op, group, tensor, *input_tensor_list):
        ctx.group = group
        dist.reduce_scatter(tensor, [t.contiguous() for t in input_tensor_list], op=op,
                            group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None) + _AllGather.apply(ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        tensor = tensor.contiguous()
        tensors = [_empty(tensor.shape, tensor) for _ in range(_c10d.get_world_size(group))]
        dist.all_gather(tensors, tensor, group=group)
        return tuple(tensors)

    @staticmethod
    def backward(ctx, *grad_outputs):
        rank = _c10d.get_rank(ctx.group)
        grad = _empty(grad_outputs[rank].shape, grad_outputs[rank])
        return None, _Reduce_Scatter.apply(ReduceOp.SUM, ctx.group, grad, *grad_outputs)


class _AllGatherBase(Function):
    @staticmethod
    def forward(ctx, output_tensor, input_tensor, group):
        ctx.group = group
        dist.all_gather_into_tensor(output_tensor, input_tensor.contiguous(), group=group)
        return output_tensor

    @staticmethod
    def backward(ctx, grad_output):
        world = _c10d.get_world_size(ctx.group)
        shape = list(grad_output.shape)
        if shape[0] % world != 0:
            raise RuntimeError(f"Tensor with dimensions: {shape} does not have first dimension "
                               f"divisible by world_size: {world}")
        shape[0] //= world
        grad = _empty(shape, grad_output)
        chunks = list(grad_output.contiguous().chunk(world))
        return None, _Reduce_Scatter.apply(ReduceOp.SUM, ctx.group, grad, *chunks), None


class _AlltoAll(Function):
    @staticmethod
    def forward(ctx, group, out_tensor_list, *tensors):
        ctx.group = group
        ctx.input_tensor_size_list = [t.shape for t in tensors]
        dist.all_to_all(out_tensor_list, [t.contiguous() for t in tensors], group=group)
        return tuple(out_tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        tensors = [_empty(shape, grad_outputs[0]) for shape in ctx.input_tensor_size_list]
        return (None, None) + _AlltoAll.apply(ctx.group, tensors, *grad_outputs)


class _AlltoAllSingle(Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group = group
        ctx.input_size = input.shape
        ctx.output_split_sizes = input_split_sizes    # the backward exchange is reversed
        ctx.input_split_sizes = output_split_sizes
        dist.all_to_all_single(output, input.contiguous(), output_split_sizes=output_split_sizes,
                               input_split_sizes=input_split_sizes, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        grad = _empty(ctx.input_size, grad_output)
        return (None, None, None, None,
                _AlltoAllSingle.apply(ctx.group, grad, ctx.output_split_sizes,
                                      ctx.input_split_sizes, grad_output.contiguous()))


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group = group
        ctx.op = ReduceOp(op)
        result = tensor.clone(memory_format=_contiguous_format())
        dist.all_reduce(result, op=op, group=group)
        if ctx.op in (ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX):
            ctx.save_for_backward(tensor, result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        op = ctx.op
        if op in (ReduceOp.SUM, ReduceOp.AVG):
            return None, None, _AllReduce.apply(op, ctx.group, grad_output)
        tensor, result = ctx.saved_tensors
        total = _AllReduce.apply(ReduceOp.SUM, ctx.group, grad_output)
        if op == ReduceOp.PRODUCT:
            return None, None, total * result / tensor     # d prod / d x_i = prod / x_i
        winners = (tensor == result).to(grad_output.dtype)
        ties = winners.detach().clone()
        dist.all_reduce(ties, group=ctx.group)           # how many ranks hold the extremum
        return None, None, total * winners / ties


def _contiguous_format():
    from ... import contiguous_format
    return contiguous_format
