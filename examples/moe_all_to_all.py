"""A mixture-of-experts layer whose tokens travel to their expert's rank with all_to_all.

    python -m dyngrad.distributed.run -n 4 examples/moe_all_to_all.py

Each rank hosts one expert (a small MLP of its own) and a copy of the gate (kept identical by
DistributedDataParallel). Every step, each rank's gate picks an expert for each of its tokens;
the tokens go to the experts' ranks with ``dyngrad.distributed.nn.functional.all_to_all``, the
experts run, and the results come back with a second ``all_to_all``. Both exchanges are
autograd-aware: backward sends the gradients the reverse way, so each expert learns from the
tokens of every rank. (With the plain ``dist.all_to_all`` the chain would break there and the
experts would never learn.)

The task: y = A_k x, where the region k of x (which of its first world_size coordinates is the
largest) picks one of world_size hidden linear maps; the gate must learn the regions and each
expert one map.
"""
from __future__ import annotations

import argparse

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
import dyngrad.distributed.nn.functional as dF
from dyngrad import nn
from dyngrad.nn.parallel import DistributedDataParallel as DDP

D = 8


def batch(rank: int, step: int, tokens: int, world: int, maps):
    rng = np.random.default_rng(1000 * step + rank)
    x = rng.standard_normal((tokens, D)).astype(np.float32)
    region = x[:, :world].argmax(1)
    y = np.einsum("nij,nj->ni", maps[region], x).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


def moe_forward(x, gate, expert, world: int):
    """Route each token to one expert (top-1), run it there, bring the results back."""
    probs = gate(x).softmax(-1)
    choice = probs.argmax(-1)
    order = choice.argsort()
    send_counts = (choice[:, None] == torch.arange(world)).sum(0)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)       # how many tokens each rank sends
    send = list(x[order].split(send_counts.tolist()))
    recv = [torch.empty(int(n), D) for n in recv_counts.tolist()]
    arrived = dF.all_to_all(recv, send)                     # tokens to their expert
    # Run the expert even on zero tokens: every rank must record the second all_to_all in
    # its graph, since its backward is a collective all ranks have to enter.
    done = expert(torch.cat(arrived))
    back = [torch.empty(int(n), D) for n in send_counts.tolist()]
    returned = torch.cat(dF.all_to_all(back, list(done.split(recv_counts.tolist()))))
    out = torch.empty_like(returned).index_copy(0, order, returned)   # undo the sort
    return out * probs.gather(1, choice[:, None])           # the gate's weight: it learns too


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--check", action="store_true", help="fail unless the loss fell 4x")
    args = p.parse_args()
    dist.init_process_group()
    rank, world = dist.get_rank(), dist.get_world_size()
    maps = np.random.default_rng(0).standard_normal((world, D, D)).astype(np.float32) / 2

    torch.manual_seed(0)
    gate = DDP(nn.Linear(D, world))                         # the same gate on every rank
    torch.manual_seed(100 + rank)
    expert = nn.Sequential(nn.Linear(D, 32), nn.Tanh(), nn.Linear(32, D))   # this rank's
    opt = torch.optim.Adam(list(gate.parameters()) + list(expert.parameters()), lr=1e-2)
    first = last = None
    for step in range(args.steps):
        x, y = batch(rank, step, args.tokens, world, maps)
        opt.zero_grad()
        loss = nn.functional.mse_loss(moe_forward(x, gate, expert, world), y)
        loss.backward()
        opt.step()
        mean = torch.tensor([loss.item()])
        dist.all_reduce(mean, op=dist.ReduceOp.AVG)
        last = mean.item()
        first = last if first is None else first
        if rank == 0 and step % 50 == 0:
            print(f"step {step}: loss {last:.4f}", flush=True)
    if rank == 0:
        print(f"loss {first:.4f} -> {last:.4f} with {world} experts", flush=True)
    if args.check and not last < first / 4:
        raise RuntimeError(f"the mixture of experts did not train: {first} -> {last}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
