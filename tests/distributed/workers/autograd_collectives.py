"""Differentiable collectives: gradients checked by finite differences across ranks, against
the same computation done in one process, and second derivatives (double backward).

Each case gives every rank some inputs and a function making output tensors with
dyngrad.distributed.nn.functional; the loss of rank r is sum_j <W_rj, sin(out_j)>, and the
quantity differentiated is the sum of the losses over all ranks. The reference ("one process")
recomputes rank r's outputs from every rank's inputs with ordinary tensor ops.
"""
from __future__ import annotations

import sys

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
import dyngrad.distributed.nn.functional as F
from common import Checks, data, init, tensor

R, N = init()
ck = Checks()
Op = dist.ReduceOp
EPS = 1e-6
# Double backward is checked for every case on 2 ranks; on more ranks (4 share 2 cores, and
# every finite-difference step runs both backward passes' collectives) for these only.
SECOND_ORDER_ON_MORE_RANKS = {"all_reduce SUM", "all_to_all", "all_gather"}


def loss_of(outs, rank, key):
    total = torch.zeros((), dtype=torch.float64)
    for j, out in enumerate(outs):
        w = tensor(data(rank, tuple(out.shape), np.float64, 900 + 17 * key + j))
        total = total + (out.sin() * w).sum()
    return total


def all_ranks_sum(value: float) -> float:
    t = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(t)
    return float(t[0])


def fd_check(fn, arrays, what, directions=3):
    """Check rank R's gradient of S = sum over ranks of fn(...) by central differences.

    As torch's gradcheck(fast_mode=True): along a few random directions D (a random tensor on
    every rank), (S(x + eps D) - S(x - eps D)) / 2 eps must equal sum over ranks <grad, D>.
    All ranks step together, so they run the same collectives; the one-process comparison in
    check_case checks every coordinate exactly.
    """
    xs = [tensor(a).requires_grad_() for a in arrays]
    grads = torch.autograd.grad(fn(*xs), xs, allow_unused=True)
    grads = [np.zeros(a.shape) if g is None else g.numpy() for g, a in zip(grads, arrays)]
    rng = np.random.default_rng(R + 77)
    for _ in range(directions):
        direction = [rng.standard_normal(a.shape) for a in arrays]
        values = []
        for sign in (1.0, -1.0):
            ts = [tensor(a + sign * EPS * d).requires_grad_() for a, d in zip(arrays, direction)]
            values.append(all_ranks_sum(float(fn(*ts))))
        numeric = (values[0] - values[1]) / (2 * EPS)
        analytic = all_ranks_sum(sum(float((g * d).sum()) for g, d in zip(grads, direction)))
        np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-7, err_msg=what)
        ck.count += 1
    return grads


def check_case(name, make_inputs, dist_outs, local_outs, key, second_order=True):
    arrays = make_inputs(R)

    def first(*xs):
        return loss_of(dist_outs(list(xs)), R, key)

    # forward values and gradients against the single-process computation
    xs = [tensor(a).requires_grad_() for a in arrays]
    outs = dist_outs(xs)
    everyone = [[tensor(a).requires_grad_() for a in make_inputs(r)] for r in range(N)]
    want = local_outs(everyone, R)
    ck.true(len(outs) == len(want), f"{name}: number of outputs")
    for o, w in zip(outs, want):
        ck.close(o.detach(), w.detach().numpy(), f"{name}: forward", rtol=1e-12)
    grads = fd_check(first, arrays, name)
    total = torch.zeros((), dtype=torch.float64)
    for r in range(N):
        total = total + loss_of(local_outs(everyone, r), r, key)
    total.backward()
    for i, g in enumerate(grads):
        ref = everyone[R][i].grad
        ref = np.zeros(arrays[i].shape) if ref is None else ref.numpy()
        ck.close(g, ref, f"{name}: gradient equals the one-process gradient", rtol=1e-10,
                 atol=1e-12)
    if second_order and (N <= 2 or name in SECOND_ORDER_ON_MORE_RANKS):
        def second(*xs):                    # <V, d(sum of losses)/dx>: needs double backward
            gs = torch.autograd.grad(first(*xs), xs, create_graph=True, allow_unused=True)
            total = torch.zeros((), dtype=torch.float64)
            for i, g in enumerate(gs):
                if g is not None:
                    v = tensor(data(R, tuple(g.shape), np.float64, 700 + key + i))
                    total = total + (g * v).sum()
            return total
        fd_check(second, arrays, name + " (double backward)")


def one(shape, key):
    return lambda r: [data(r, shape, np.float64, key)]


def per_rank(shapes_of, key):
    return lambda r: [data(r, s, np.float64, key + j) for j, s in enumerate(shapes_of(r))]


# all_reduce: SUM, AVG and (unlike torch, whose backward is wrong there) MAX, MIN, PRODUCT
reducers = {Op.SUM: lambda ts: sum(ts[1:], ts[0]), Op.AVG: lambda ts: sum(ts[1:], ts[0]) / N,
            Op.MAX: lambda ts: torch.stack(ts).amax(0), Op.MIN: lambda ts: torch.stack(ts).amin(0),
            Op.PRODUCT: lambda ts: torch.stack(ts).prod(0)}
for k, (op, reducer) in enumerate(reducers.items()):
    check_case(f"all_reduce {op.name}", one((3,), 10 + k),
               lambda xs, op=op: [F.all_reduce(xs[0], op=op)],
               lambda every, r, f=reducer: [f([x[0] for x in every])], key=k,
               second_order=op in (Op.SUM, Op.PRODUCT))
y = F.all_reduce(tensor(data(R, (2,), np.float64, 1)).requires_grad_())
ck.true(type(y.grad_fn).__name__ == "_AllReduceBackward", "grad_fn name")

for src in sorted({0, N - 1}):
    check_case(f"broadcast from {src}", one((3,), 20),
               lambda xs, s=src: [F.broadcast(xs[0], s)],
               lambda every, r, s=src: [every[s][0] * 1], key=20 + src)


def reduce_outs(xs, dst):
    # off `dst` the output is unspecified: weigh it by 0, but keep it in the graph, since
    # every rank must run the backward collective (a broadcast from dst)
    out = F.reduce(xs[0], dst)
    return [out] if R == dst else [out * 0]


def reduce_ref(every, r, dst):
    if r == dst:
        return [sum((x[0] for x in every[1:]), every[0][0])]
    return [every[r][0] * 0]


for dst in sorted({0, N - 1}):
    check_case(f"reduce to {dst}", one((3,), 30), lambda xs, d=dst: reduce_outs(xs, d),
               lambda every, r, d=dst: reduce_ref(every, r, d), key=30 + dst)

check_case("all_gather", one((2,), 40), lambda xs: list(F.all_gather(xs[0])),
           lambda every, r: [x[0] * 1 for x in every], key=40)
check_case("_all_gather_base", one((2, 1), 41),
           lambda xs: [F._all_gather_base(torch.empty(2 * N, 1, dtype=torch.float64), xs[0])],
           lambda every, r: [torch.cat([x[0] for x in every])], key=41)
check_case("reduce_scatter", per_rank(lambda r: [(2,)] * N, 50),
           lambda xs: [F.reduce_scatter(torch.empty(2, dtype=torch.float64), xs)],
           lambda every, r: [sum((x[r] for x in every[1:]), every[0][r])], key=50)


def gather_ref(every, r, dst):
    if r == dst:
        return [x[0] * 1 for x in every]
    return [torch.zeros(2, dtype=torch.float64) for _ in every]


check_case("gather", one((2,), 60), lambda xs: list(F.gather(xs[0], dst=N - 1)),
           lambda every, r: gather_ref(every, r, N - 1), key=60)
check_case("scatter", per_rank(lambda r: [(2,)] * N, 70), lambda xs: [F.scatter(xs, src=0)],
           lambda every, r: [every[0][r] * 1], key=70)

# all_to_all with uneven sizes: rank i sends i + j + 1 rows to rank j
check_case("all_to_all", per_rank(lambda r: [(r + j + 1,) for j in range(N)], 80),
           lambda xs: list(F.all_to_all([torch.empty(i + R + 1, dtype=torch.float64)
                                         for i in range(N)], xs)),
           lambda every, r: [every[i][r] * 1 for i in range(N)], key=80)
outs = F.all_to_all([torch.empty(i + R + 1, dtype=torch.float64) for i in range(N)],
                    [tensor(a).requires_grad_() for a in
                     per_rank(lambda r: [(r + j + 1,) for j in range(N)], 80)(R)])
ck.true(all(type(o.grad_fn).__name__ == "_AlltoAllBackward" for o in outs), "grad_fn names")


def a2a_single_ref(every, r):
    pieces = []
    for i in range(N):
        start = sum(i + j for j in range(r))
        pieces.append(every[i][0][start:start + i + r])
    return [torch.cat(pieces)]


check_case("all_to_all_single",
           lambda r: [data(r, (sum(r + j for j in range(N)),), np.float64, 90)],
           lambda xs: [F.all_to_all_single(
               torch.empty(sum(i + R for i in range(N)), dtype=torch.float64), xs[0],
               [i + R for i in range(N)], [R + j for j in range(N)])],
           a2a_single_ref, key=90)

# the plain all_to_all_single on a tensor that requires grad: no gradient flows (as torch)
x = tensor(data(R, (N,), np.float64, 95)).requires_grad_()
out = torch.empty(N, dtype=torch.float64)
dist.all_to_all_single(out, x * 1)
ck.true(out.grad_fn is None and not out.requires_grad, "plain all_to_all_single: no grad_fn")
out2 = F.all_to_all_single(torch.empty(N, dtype=torch.float64), x * 1)
(out2 * 2).sum().backward()
ck.close(x.grad, np.full(N, 2.0), "the autograd-aware one propagates")
ck.done("autograd_collectives")
sys.stdout.flush()
