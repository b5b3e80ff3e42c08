"""``DistributedDataParallel``: data-parallel training over dyngrad.distributed.

Every rank holds a full copy of the model and runs it on its own slice of the batch; after
backward, every rank holds the *average* of all ranks' gradients, so identical optimizer steps
keep the copies identical. With the loss averaged over each rank's slice, that equals training
one model on the concatenated batch.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..modules.module import Module
from ._reducer import Reducer


class DistributedDataParallel(Module):
    """Wrap `module` for data-parallel training (torch.nn.parallel.DistributedDataParallel).

    At construction the parameters' shapes are checked across ranks, and rank 0's parameters
    and buffers are broadcast to every rank. During backward, gradients are averaged in buckets
    by non-blocking all-reduces started from post-accumulate-grad hooks, overlapping with the
    rest of backward (Note [Bucketed gradient all-reduce] in _reducer.py).

    Args:
        module: the model.
        broadcast_buffers: broadcast rank 0's buffers (BatchNorm statistics…) at every forward.
        init_sync: broadcast rank 0's parameters and buffers now.
        process_group: the group to average over (default: the default group).
        bucket_cap_mb: bucket size in MiB (default 25; the first bucket is at most 1 MiB).
        find_unused_parameters: find the parameters a forward did not use, so that backward
            does not wait for their gradients.
        device_ids, output_device, dim, check_reduction, gradient_as_bucket_view, static_graph:
            accepted for torch's signature (CPU only: there is no device to place).

    Example::

        >>> model = DistributedDataParallel(Net())
        >>> loss_fn(model(x_local), y_local).backward()    # grads are now averaged
        >>> with model.no_sync():                           # accumulate locally
        ...     loss_fn(model(x2), y2).backward()

    Differences from torch: no ``join()`` or mixed precision.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, init_sync: bool = True, process_group=None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False,
                 static_graph: bool = False, **kwargs):
        super().__init__()
        from ...distributed import distributed_c10d as c10d
        pg = c10d._resolve(process_group)
        if pg is None:
            raise ValueError("DistributedDataParallel: this rank is not part of process_group")
        params, seen = [], set()
        for p in module.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self.module = module
        self.process_group = pg
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        cap_mb = 25 if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        self._verify_same_model(params)
        if init_sync:
            self._broadcast_from_rank0(list(params) + list(module.buffers()))
        self.reducer = Reducer(params, pg, self.bucket_bytes_cap, find_unused_parameters)

    # -- construction ------------------------------------------------------------------------
    def _verify_same_model(self, params) -> None:
        """Every rank must wrap the same model: compare parameter shapes and dtypes."""
        from ... import distributed as dist
        mine = [(tuple(p.shape), str(p.dtype)) for p in params]
        everyone = [None] * self.process_group.size()
        dist.all_gather_object(everyone, mine, group=self.process_group)
        for rank, theirs in enumerate(everyone):
            if len(theirs) != len(everyone[0]):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {rank} "
                                   f"has {len(theirs)} params, while rank 0 has inconsistent "
                                   f"{len(everyone[0])} params.")
            for i, (a, b) in enumerate(zip(everyone[0], theirs)):
                if a != b:
                    raise RuntimeError(f"DDP expects same model across all ranks, but "
                                       f"parameter {i} has shape/dtype {b} on rank {rank} and "
                                       f"{a} on rank 0.")

    def _broadcast_from_rank0(self, tensors) -> None:
        """Copy rank 0's values into `tensors` on every rank (one broadcast per dtype)."""
        import numpy as np
        from ...distributed._work import Work
        pg = self.process_group
        if pg.size() == 1 or not tensors:
            return
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(t._data.dtype, []).append(t)
        for group in by_dtype.values():
            flat = np.concatenate([t._data.reshape(-1) for t in group])
            Work("DistributedDataParallel broadcast", pg._impl.bcast(flat.view(np.uint8), 0),
                 timeout=pg._timeout).wait()
            offset = 0
            for t in group:
                n = t._data.size
                t._data[...] = flat[offset:offset + n].reshape(t._data.shape)
                offset += n

    # -- training ----------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        from ...autograd.grad_mode import is_grad_enabled
        sync = is_grad_enabled() and self.require_backward_grad_sync
        self.require_forward_param_sync = sync
        if sync and self.broadcast_buffers:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast_from_rank0(buffers)
        output = self.module(*inputs, **kwargs)
        if sync:
            self.reducer.prepare(output)
        return output

    def register_comm_hook(self, state, hook) -> None:
        """Reduce each bucket of gradients with ``hook(state, bucket)`` instead of the built-in
        averaging all-reduce: `bucket` is a ``dist.GradBucket``, and the hook returns a
        ``torch.futures.Future`` of the reduced flat buffer, written back into the gradients
        as it is (see Note [Communication hooks] in _reducer.py;
        ``torch.distributed.algorithms.ddp_comm_hooks.default_hooks`` has torch's hooks).
        Only one hook, registered once.

        Example::

            >>> def allreduce_mean(state, bucket):
            ...     buf = bucket.buffer().div_(dist.get_world_size())
            ...     fut = dist.all_reduce(buf, async_op=True).get_future()
            ...     return fut.then(lambda f: f.value()[0])
            >>> ddp.register_comm_hook(None, allreduce_mean)
        """
        import inspect
        from ... import distributed as dist
        from ...futures import Future
        from ..._tensor import Tensor
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        sig = inspect.signature(hook)
        if sig.parameters["bucket"].annotation not in (inspect.Parameter.empty,
                                                       dist.GradBucket):
            raise ValueError("Communication hook: bucket annotation should be "
                             "dist.GradBucket.")
        if sig.return_annotation is not inspect.Signature.empty \
                and sig.return_annotation != Future[Tensor]:
            raise ValueError("Communication hook: return annotation should be "
                             "torch.futures.Future[torch.Tensor].")
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        self.reducer.comm_hook = (state, hook)

    @contextmanager
    def no_sync(self):
        """Inside, backward accumulates gradients locally; the first synced backward after it
        averages the accumulated gradients.

        Example::

            >>> with ddp.no_sync():
            ...     for x in micro_batches[:-1]:
            ...         ddp(x).sum().backward()
            >>> ddp(micro_batches[-1]).sum().backward()   # all-reduces the sum of all
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def __getstate__(self):
        raise RuntimeError("DistributedDataParallel holds a process group and cannot be "
                           "pickled; save ddp.module (or ddp.state_dict()) instead")
