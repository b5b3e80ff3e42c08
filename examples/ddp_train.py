"""Data-parallel training of a small CNN with DistributedDataParallel.

    python examples/ddp_train.py                                   # one process
    python -m dyngrad.distributed.run -n 2 examples/ddp_train.py   # two
    python -m dyngrad.distributed.run -n 4 examples/ddp_train.py   # four

The global batch stays 32 whatever the number of processes (each rank takes 32 / world_size
samples of it through DistributedSampler), and DDP averages the gradients, so every run takes
the same optimizer steps and reaches the same accuracy, up to float rounding.

The data are synthetic 12x12 images of four classes (a bright horizontal bar, vertical bar,
diagonal or square at a random place, plus noise), so the example needs no download.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
from dyngrad import nn
from dyngrad.nn.parallel import DistributedDataParallel as DDP
from dyngrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_images(n: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 0.3, (n, 1, 12, 12)).astype(np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        r, c = rng.integers(2, 8, 2)
        if y[i] == 0:
            x[i, 0, r, c - 2:c + 3] += 1.5
        elif y[i] == 1:
            x[i, 0, r - 2:r + 3, c] += 1.5
        elif y[i] == 2:
            for k in range(-2, 3):
                x[i, 0, r + k, c + k] += 1.5
        else:
            x[i, 0, r - 1:r + 2, c - 1:c + 2] += 1.0
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 3 * 3, 4)

    def forward(self, x):
        x = nn.functional.max_pool2d(nn.functional.relu(self.conv1(x)), 2)
        x = nn.functional.max_pool2d(nn.functional.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def evaluate(model, data, world: int) -> float:
    """Accuracy on `data`, each rank scoring its share, summed with all_reduce."""
    sampler = DistributedSampler(data, shuffle=False)
    correct = torch.zeros(2)
    with torch.no_grad():
        for x, y in DataLoader(data, batch_size=64, sampler=sampler):
            correct[0] += (model(x).argmax(1) == y).sum()
            correct[1] += len(y)
    dist.all_reduce(correct)
    return float(correct[0] / correct[1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--global-batch", type=int, default=32)
    p.add_argument("--train", type=int, default=512)
    args = p.parse_args()

    dist.init_process_group()             # MPI under mpiexec, one process otherwise
    rank, world = dist.get_rank(), dist.get_world_size()
    assert args.global_batch % world == 0, "the global batch must split evenly"
    train, test = make_images(args.train, seed=0), make_images(256, seed=1)

    torch.manual_seed(0)
    model = DDP(Net())
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sampler = DistributedSampler(train, shuffle=True, seed=0)
    loader = DataLoader(train, batch_size=args.global_batch // world, sampler=sampler)
    start = time.perf_counter()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(2)
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            total += torch.tensor([loss.item() * len(y), len(y)])
        dist.all_reduce(total)
        acc = evaluate(model, test, world)
        if rank == 0:
            print(f"epoch {epoch}: train loss {total[0] / total[1]:.4f}  test accuracy "
                  f"{acc:.4f}  ({world} process{'es' if world > 1 else ''}, "
                  f"{time.perf_counter() - start:.1f} s)", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
