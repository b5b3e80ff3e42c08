"""The gradient reducer of DistributedDataParallel: buckets of gradients all-reduced while
backward is still running.

Note [Bucketed gradient all-reduce]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
One all-reduce per parameter would pay MPI's latency once per tensor; one all-reduce of all
gradients at the end of backward would leave the network idle while backward computes. torch's
Reducer (and ours) sits between the two:

* Parameters are grouped into *buckets* of about ``bucket_cap_mb`` (the first one 1 MB, so that
  communication starts early), in the reverse order of ``module.parameters()``: backward
  produces the last layers' gradients first.
* Each parameter gets a post-accumulate-grad hook (``Tensor.register_post_accumulate_grad_hook``).
  When it fires, the gradient is copied into its slot of the bucket's flat buffer; when a
  bucket is full, a non-blocking all-reduce (``MPI_Iallreduce``) of the buffer is posted and
  backward goes on computing the earlier layers meanwhile.
* Buckets are posted in bucket order on every rank (a ready bucket waits for the ones before
  it), since MPI needs every rank to post collectives in the same order.
* Every later hook calls ``Test`` on the posted requests: MPI without a progress thread only
  moves data while some MPI call runs, so these pokes are the only chances it gets to advance
  during backward (bench/DDP_RESULTS.md measures how much that hides: little on 2 cores).
* When the last bucket is posted, the reducer waits for all of them, divides by the world size
  (the average gradient) and writes the results back into each ``param.grad``.

``find_unused_parameters=True`` walks the autograd graph from the forward's outputs and marks
the parameters it cannot reach as ready at once (they contribute zeros); a small all-reduce of a
"used" mask at the end leaves ``.grad`` alone for parameters no rank used, as torch does.
"""
from __future__ import annotations

import numpy as np

_FIRST_BUCKET_BYTES = 1024 * 1024

UNFINISHED_MESSAGE = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` "
    "function. Please include the loss function and the structure of the return value of "
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable).")


class _Bucket:
    __slots__ = ("params", "offsets", "flat", "remaining", "work", "future")

    def __init__(self, params, dtype):
        self.params = params
        self.offsets = []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p.numel()
        self.flat = np.zeros(total, dtype=dtype)
        self.remaining = len(params)
        self.work = None
        self.future = None   # a communication hook's Future (Note [Communication hooks])


def build_buckets(params, cap_bytes: int) -> list:
    """Group parameters (taken in reverse order) into buckets of one dtype, about `cap_bytes`
    each, the first one at most 1 MB; within a bucket they keep the model's order, as in
    torch's buckets (a communication hook sees that layout)."""
    buckets, current, size, cap = [], [], 0, min(_FIRST_BUCKET_BYTES, cap_bytes)
    for p in reversed(params):
        if current and (p.dtype != current[0].dtype or size + p._data.nbytes > cap):
            buckets.append(current)
            current, size, cap = [], 0, cap_bytes
        current.append(p)
        size += p._data.nbytes
    if current:
        buckets.append(current)
    return [_Bucket(ps[::-1], ps[0]._data.dtype) for ps in buckets]


def reachable_parameters(outputs) -> set:
    """ids of the leaves reachable from the autograd graph of `outputs` (nested containers)."""
    from ..._tensor import Tensor
    roots, stack = [], [outputs]
    while stack:
        obj = stack.pop()
        if isinstance(obj, Tensor):
            if obj.grad_fn is not None:
                roots.append(obj.grad_fn)
        elif isinstance(obj, (list, tuple)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
    seen, found = set(), set()
    while roots:
        node = roots.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.add(id(variable))
        roots.extend(fn for fn, _ in node.next_functions)
    return found


class Reducer:
    """Averages the gradients of `params` over the process group (see the Note above)."""

    def __init__(self, params, pg, cap_bytes: int, find_unused: bool):
        self.params = params
        self.pg = pg
        self.find_unused = find_unused
        self.buckets = build_buckets(params, cap_bytes)
        self.where = {}                       # id(param) -> (bucket, slot)
        for bucket in self.buckets:
            for slot, p in enumerate(bucket.params):
                self.where[id(p)] = (bucket, slot)
        self.index = {id(p): i for i, p in enumerate(params)}
        self.expecting = False                # a synced backward is under way
        self.ready = set()
        self.next_bucket = 0
        self.used = np.zeros(len(params), np.int32)
        self.handles = [p.register_post_accumulate_grad_hook(self._on_grad) for p in params]
        self.comm_hook = None                 # (state, hook) once register_comm_hook ran
        # timings for bench/: seconds spent waiting at the end of backward, and posted bytes
        self.last_wait_s = 0.0

    def prepare(self, outputs) -> None:
        """Start an iteration (called by the DDP forward when gradients will be synced)."""
        if self.expecting:
            missing = " ".join(str(i) for i, p in enumerate(self.params)
                               if id(p) not in self.ready)
            raise RuntimeError(
                f"{UNFINISHED_MESSAGE}\nParameter indices which did not receive grad for rank "
                f"{self.pg.rank()}: {missing}\n In addition, you can set the environment "
                "variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out "
                "information about which particular parameters did not receive gradient on "
                "this rank as part of this error")
        self.expecting = True
        self.ready = set()
        self.next_bucket = 0
        self.used[:] = 0
        for bucket in self.buckets:
            bucket.remaining = len(bucket.params)
            bucket.work = bucket.future = None
        if self.find_unused:
            reached = reachable_parameters(outputs)
            for p in self.params:
                if id(p) not in reached:
                    self._mark_ready(p, used=False)

    def _on_grad(self, param) -> None:
        if self.expecting:
            self._mark_ready(param, used=True)

    def _mark_ready(self, param, used: bool) -> None:
        if id(param) in self.ready:
            raise RuntimeError("Expected to mark a variable ready only once. This error is "
                               "caused by one of the following reasons: 1) Use of a module "
                               "parameter outside the `forward` function. 2) Reused parameters "
                               "in multiple reentrant backward passes.")
        self.ready.add(id(param))
        bucket, slot = self.where[id(param)]
        start, n = bucket.offsets[slot], param.numel()
        grad = param._grad
        if used and grad is not None:
            bucket.flat[start:start + n] = grad._data.reshape(-1)
            self.used[self.index[id(param)]] = 1
        else:
            bucket.flat[start:start + n] = 0
        bucket.remaining -= 1
        self._post_ready_buckets()

    def _post_ready_buckets(self) -> None:
        from ...distributed.distributed_c10d import ReduceOp
        from ...distributed._work import Work
        buckets = self.buckets
        for bucket in buckets[:self.next_bucket]:      # poke MPI: see the Note
            if bucket.work is not None:
                bucket.work.is_completed()
            elif bucket.future is not None:   # (a hook's future polls its own requests)
                bucket.future.done()
        while self.next_bucket < len(buckets) and buckets[self.next_bucket].remaining == 0:
            bucket = buckets[self.next_bucket]
            if self.comm_hook is not None:
                bucket.future = self._run_hook(bucket, self.next_bucket)
            else:
                bucket.work = Work("DistributedDataParallel gradient all_reduce",
                                   self.pg._impl.allreduce(bucket.flat, ReduceOp.SUM),
                                   timeout=self.pg._timeout)
            self.next_bucket += 1
        if self.next_bucket == len(buckets):
            self._finish()

    def _run_hook(self, bucket, index):
        """Hand the bucket to the registered communication hook; its Future of the reduced
        buffer. See Note [Communication hooks]."""
        from ...distributed._grad_bucket import GradBucket
        from ...futures import Future
        from ..._tensor import _wrap
        state, hook = self.comm_hook
        grad_bucket = GradBucket(index, index == len(self.buckets) - 1, _wrap(bucket.flat),
                                 bucket.params, bucket.offsets)
        future = hook(state, grad_bucket)
        if not isinstance(future, Future):
            from ..._tensor import Tensor
            name = "torch.Tensor" if isinstance(future, Tensor) else \
                f"{type(future).__module__}.{type(future).__qualname__}"
            shown = "<class 'torch.Tensor'>" if isinstance(future, Tensor) else str(type(future))
            raise RuntimeError(
                f"Unable to cast Python instance of type {shown} to C++ type '?' (#define "
                "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details). DDP "
                "communication hook's callback must return a torch.futures.Future object, but "
                f"got {name}")
        return future

    def _finish(self) -> None:
        import time
        from ...distributed.distributed_c10d import ReduceOp
        from ...distributed._work import Work
        from ..._tensor import _wrap
        start = time.perf_counter()
        used = self.used
        if self.find_unused:
            used = self.used.copy()
            Work("DistributedDataParallel unused-parameter map",
                 self.pg._impl.allreduce(used, ReduceOp.MAX), timeout=self.pg._timeout).wait()
        for bucket in self.buckets:
            if bucket.future is not None:   # the hook's reduced buffer, already averaged
                reduced = bucket.future.wait()
                if reduced._data.size != bucket.flat.size:
                    raise RuntimeError(
                        f"DDP communication hook's Future result has {reduced._data.size} "
                        f"elements where bucket {self.buckets.index(bucket)} has "
                        f"{bucket.flat.size}")
                bucket.flat[...] = reduced._data.reshape(-1)
            else:
                bucket.work.wait()
        self.last_wait_s = time.perf_counter() - start
        world = self.pg.size()
        for bucket in self.buckets:
            flat = bucket.flat
            if bucket.future is None:
                flat /= world
            for p, start in zip(bucket.params, bucket.offsets):
                if not used[self.index[id(p)]]:
                    continue                  # no rank used it: .grad stays as it was
                avg = flat[start:start + p.numel()].reshape(p._data.shape)
                if p._grad is None:
                    p._grad = _wrap(avg.copy())
                else:
                    p._grad._data[...] = avg
        self.expecting = False

    def remove_hooks(self) -> None:
        for h in self.handles:
            h.remove()



# Note [Communication hooks]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``DistributedDataParallel.register_comm_hook(state, hook)`` replaces the bucket's all-reduce:
# when a bucket is full, ``hook(state, GradBucket)`` is called (in bucket order, from the
# gradient hooks, as the all-reduces are posted) and returns a Future of the reduced flat
# buffer. At the end of backward the reducer waits on each Future (which also moves their MPI
# requests on: Note [Futures that wait on MPI] in distributed/_work.py) and writes the result
# into the gradients as it is: averaging is the hook's business (default_hooks.allreduce_hook
# divides by the world size, as the built-in reduction does).
