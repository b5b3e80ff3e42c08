"""Every plain collective against a NumPy reference (run under mpiexec -n 2 and -n 4)."""
from __future__ import annotations

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
from common import Checks, data, init, tensor

R, N = init()
ck = Checks()
Op = dist.ReduceOp
SHAPE = (2, 3)
REDUCERS = {Op.SUM: lambda a: a.sum(0), Op.PRODUCT: lambda a: a.prod(0),
            Op.MIN: lambda a: a.min(0), Op.MAX: lambda a: a.max(0),
            Op.AVG: lambda a: a.mean(0), Op.BAND: lambda a: np.bitwise_and.reduce(a, 0),
            Op.BOR: lambda a: np.bitwise_or.reduce(a, 0),
            Op.BXOR: lambda a: np.bitwise_xor.reduce(a, 0)}
OPS_FOR = {np.float64: (Op.SUM, Op.PRODUCT, Op.MIN, Op.MAX, Op.AVG),
           np.float32: (Op.SUM, Op.MAX, Op.AVG), np.float16: (Op.SUM, Op.MIN),
           np.int64: (Op.SUM, Op.PRODUCT, Op.MIN, Op.MAX, Op.BAND, Op.BOR, Op.BXOR),
           np.int32: (Op.SUM, Op.MAX), np.complex128: (Op.SUM, Op.PRODUCT, Op.AVG)}


def everyone(shape, dtype=np.float64, key=0):
    return np.stack([data(r, shape, dtype, key) for r in range(N)])


def tol(dtype):
    return {np.float16: 2e-3, np.float32: 1e-5}.get(dtype, 1e-12)


# -- all_reduce, every dtype and op; contiguous (zero-copy) and transposed tensors ----------
for dtype, ops in OPS_FOR.items():
    for op in ops:
        for transposed in (False, True):
            key = 1 + int(op)
            x = tensor(data(R, SHAPE, dtype, key))
            if transposed:
                x = tensor(data(R, SHAPE[::-1], dtype, key)).t()
                ref = REDUCERS[op](np.stack([data(r, SHAPE[::-1], dtype, key).T
                                             for r in range(N)]))
            else:
                ref = REDUCERS[op](everyone(SHAPE, dtype, key))
            buffer = x._data.__array_interface__["data"][0]
            assert dist.all_reduce(x, op=op) is None
            ck.close(x, ref.astype(dtype), f"all_reduce {dtype.__name__} {op!r} T={transposed}",
                     rtol=tol(dtype))
            ck.true(x._data.__array_interface__["data"][0] == buffer, "result in place")
            ck.true(x._version == 0, "torch's collectives do not bump the version")

b = tensor(data(R, (5,), np.bool_, 3))
dist.all_reduce(b)
ck.close(b, everyone((5,), np.bool_, 3).any(0), "all_reduce bool SUM is logical or")
b = tensor(data(R, (5,), np.bool_, 3))
dist.all_reduce(b, op=Op.MIN)
ck.close(b, everyone((5,), np.bool_, 3).all(0), "all_reduce bool MIN is logical and")
scalar = torch.tensor(float(R + 1))
dist.all_reduce(scalar)
ck.close(scalar, np.array(N * (N + 1) / 2), "all_reduce 0-d")

# -- async: Work --------------------------------------------------------------------------
works = [dist.all_reduce(tensor(data(R, (4,), np.float64, k)), async_op=True) for k in range(3)]
outs = [w.result()[0] for w in works]
for k, (w, out) in enumerate(zip(works, outs)):
    ck.true(w.wait() is True, "Work.wait() returns True")
    ck.true(w.is_completed() and w.is_success(), "completed")
    ck.close(out, everyone((4,), np.float64, k).sum(0), f"async all_reduce #{k}")

# -- Work.get_future: the futures complete from the MPI requests when waited on or polled ------
works = [dist.all_reduce(tensor(data(R, (4,), np.float64, 10 + k)), async_op=True)
         for k in range(3)]
futures = [w.get_future() for w in works]
chained = futures[0].then(lambda f: f.value()[0] * 2)
both = torch.futures.collect_all(futures[1:])
ck.close(chained.wait(), 2 * everyone((4,), np.float64, 10).sum(0), "future.then of all_reduce")
for k, fut in enumerate(both.wait(), start=1):
    ck.true(fut.done(), "collect_all's futures are done")
    ck.close(fut.value()[0], everyone((4,), np.float64, 10 + k).sum(0), f"future #{k}")
ck.true(torch.futures.wait_all([dist.barrier(async_op=True).get_future()]) == [[]],
        "a barrier's future holds no tensors")

# -- broadcast / reduce from every root ----------------------------------------------------
for root in range(N):
    x = tensor(data(R, SHAPE, np.float32, 7))
    dist.broadcast(x, src=root)
    ck.close(x, data(root, SHAPE, np.float32, 7), f"broadcast from {root}")
    x = tensor(data(R, SHAPE, np.int64, 8)).t()
    work = dist.broadcast(x, src=root, async_op=True)
    work.wait()
    ck.close(x, data(root, SHAPE, np.int64, 8).T, "async broadcast of a transposed tensor")
    for op in (Op.SUM, Op.MAX, Op.AVG):
        x = tensor(data(R, SHAPE, np.float64, 9))
        dist.reduce(x, dst=root, op=op)
        if R == root:
            ck.close(x, REDUCERS[op](everyone(SHAPE, np.float64, 9)), f"reduce to {root}")

# -- gathers -------------------------------------------------------------------------------
for dtype in (np.float64, np.int32, np.bool_, np.complex64):
    out = [torch.zeros(SHAPE, dtype=tensor(np.zeros(1, dtype)).dtype) for _ in range(N)]
    dist.all_gather(out, tensor(data(R, SHAPE, dtype, 10)))
    for r in range(N):
        ck.close(out[r], data(r, SHAPE, dtype, 10), f"all_gather {dtype.__name__} [{r}]")
flat = torch.empty(N * 2, 3, dtype=torch.float64)
dist.all_gather_into_tensor(flat, tensor(data(R, SHAPE, np.float64, 11)))
ck.close(flat, np.concatenate(everyone(SHAPE, np.float64, 11)), "all_gather_into_tensor cat")
stacked = torch.empty(N, 2, 3, dtype=torch.float64)
dist.all_gather_into_tensor(stacked, tensor(data(R, SHAPE, np.float64, 11)))
ck.close(stacked, everyone(SHAPE, np.float64, 11), "all_gather_into_tensor stacked")
for root in range(N):
    gl = [torch.zeros(3) for _ in range(N)] if R == root else None
    dist.gather(tensor(data(R, (3,), np.float32, 12)), gl, dst=root)
    if R == root:
        for r in range(N):
            ck.close(gl[r], data(r, (3,), np.float32, 12), f"gather to {root} [{r}]")
    out = torch.zeros(4, dtype=torch.int64)
    sl = [tensor(data(root, (4,), np.int64, 20 + r)) for r in range(N)] if R == root else None
    dist.scatter(out, sl, src=root)
    ck.close(out, data(root, (4,), np.int64, 20 + R), f"scatter from {root}")

# -- reduce_scatter ------------------------------------------------------------------------
for op in (Op.SUM, Op.MAX, Op.AVG):
    inputs = [tensor(data(R, (3,), np.float64, 30 + j)) for j in range(N)]
    out = torch.empty(3, dtype=torch.float64)
    dist.reduce_scatter(out, inputs, op=op)
    ck.close(out, REDUCERS[op](np.stack([data(r, (3,), np.float64, 30 + R) for r in range(N)])),
             f"reduce_scatter {op!r}")
    big = tensor(data(R, (N * 2, 2), np.float64, 40))
    out = torch.empty(2, 2, dtype=torch.float64)
    dist.reduce_scatter_tensor(out, big, op=op)
    ck.close(out, REDUCERS[op](everyone((N * 2, 2), np.float64, 40))[2 * R:2 * R + 2],
             f"reduce_scatter_tensor {op!r}")

# -- all_to_all: uneven sizes; all_to_all_single with and without split sizes --------------
# rank i sends i + j + 1 rows of width 2 to rank j
send = [tensor(data(R, (R + j + 1, 2), np.float64, 50 + j)) for j in range(N)]
recv = [torch.empty(i + R + 1, 2, dtype=torch.float64) for i in range(N)]
dist.all_to_all(recv, send)
for i in range(N):
    ck.close(recv[i], data(i, (i + R + 1, 2), np.float64, 50 + R), f"all_to_all from {i}")
x = tensor(data(R, (N * 2, 3), np.float32, 60))
out = torch.empty(N * 2, 3)
dist.all_to_all_single(out, x)
want = np.concatenate([data(i, (N * 2, 3), np.float32, 60)[2 * R:2 * R + 2] for i in range(N)])
ck.close(out, want, "all_to_all_single equal splits")
in_splits = [R + j for j in range(N)]            # rank i sends i + j rows to rank j
out_splits = [i + R for i in range(N)]
x = tensor(data(R, (sum(in_splits), 2), np.int64, 61))
out = torch.empty(sum(out_splits), 2, dtype=torch.int64)
work = dist.all_to_all_single(out, x, out_splits, in_splits, async_op=True)
work.wait()
pieces = []
for i in range(N):
    rows = data(i, (sum(i + j for j in range(N)), 2), np.int64, 61)
    start = sum(i + j for j in range(R))
    pieces.append(rows[start:start + i + R])
ck.close(out, np.concatenate(pieces), "all_to_all_single with split sizes")

# the plain collective does not record a gradient (as torch): the chain breaks here
w = tensor(data(R, (N, 2), np.float64, 62)).requires_grad_()
out = torch.empty(N, 2, dtype=torch.float64)
dist.all_to_all_single(out, w * 2)
ck.true(not out.requires_grad and out.grad_fn is None, "all_to_all_single is not autograd-aware")
ck.raises(RuntimeError, "does not require grad", lambda: out.sum().backward(),
          "backward through a plain collective")

# -- barrier, point to point, objects ------------------------------------------------------
dist.barrier()
dist.barrier(async_op=True).wait()
right, left = (R + 1) % N, (R - 1) % N
got = torch.empty(3, dtype=torch.float64)
if R % 2 == 0:
    dist.send(tensor(data(R, (3,), np.float64, 70)), dst=right)
    dist.recv(got, src=left)
else:
    dist.recv(got, src=left)
    dist.send(tensor(data(R, (3,), np.float64, 70)), dst=right)
ck.close(got, data(left, (3,), np.float64, 70), "send/recv ring")
req = dist.irecv(got, src=None)
snd = dist.isend(tensor(data(R, (3,), np.float64, 71)), dst=right)
snd.wait()
req.wait()
ck.true(req.source_rank() == left, "irecv from any source knows its sender")
ck.close(got, data(left, (3,), np.float64, 71), "isend/irecv")
objs = [None] * N
dist.all_gather_object(objs, {"rank": R, "name": f"r{R}"})
ck.true(objs == [{"rank": r, "name": f"r{r}"} for r in range(N)], "all_gather_object")
objs = ["mine", R] if R == N - 1 else [None, None]
dist.broadcast_object_list(objs, src=N - 1)
ck.true(objs == ["mine", N - 1], "broadcast_object_list")

# -- groups --------------------------------------------------------------------------------
evens = dist.new_group([r for r in range(N) if r % 2 == 0])
if R % 2 == 0:
    ck.true(dist.get_rank(evens) == R // 2, "rank inside the group")
    ck.true(dist.get_world_size(evens) == (N + 1) // 2, "group size")
    x = torch.tensor([float(R)])
    dist.all_reduce(x, group=evens)
    ck.close(x, np.array([float(sum(range(0, N, 2)))]), "all_reduce on a group")
    y = torch.tensor([float(R)])
    dist.broadcast(y, src=0, group=evens)         # src is a global rank
    ck.close(y, np.array([0.0]), "broadcast on a group")
else:
    ck.true(evens == dist.GroupMember.NON_GROUP_MEMBER, "non-member gets NON_GROUP_MEMBER")
    ck.true(dist.get_rank(evens) == -1, "get_rank outside the group is -1")
dist.barrier()

# -- mismatches are named on every rank ----------------------------------------------------
ck.raises(RuntimeError, "Detected mismatch between collectives",
          lambda: dist.all_reduce(torch.ones(2 + (R == N - 1))), "shape mismatch")
ck.raises(RuntimeError, "Detected mismatch between collectives",
          lambda: dist.all_reduce(torch.ones(2, dtype=torch.float64 if R == 0 else torch.float32)),
          "dtype mismatch")
ck.raises(RuntimeError, "Detected mismatch between collectives",
          lambda: dist.broadcast(torch.ones(2), src=R % 2) if N > 1 else 1 / 0, "root mismatch")
bad_in = [1] * N
bad_in[0] = 2 if R == 1 else 1
bad_out = [1] * N
ck.raises(RuntimeError, "all_to_all_single",
          lambda: dist.all_to_all_single(torch.empty(N), torch.empty(sum(bad_in)), bad_out, bad_in),
          "split sizes that disagree across ranks")
dist.barrier()
x = torch.ones(2)
dist.all_reduce(x)                                   # the group still works afterwards
ck.close(x, np.full(2, float(N), np.float32), "collectives work after a caught mismatch")
ck.done("collectives")
