"""The demo's digits CNN (examples/demo.py) trained data-parallel with DistributedDataParallel.

    python examples/ddp_digits.py                                   # one process
    python -m dyngrad.distributed.run -n 2 examples/ddp_digits.py   # two
    python -m dyngrad.distributed.run -n 4 examples/ddp_digits.py   # four

Same model, data split, optimizer (AdamW + OneCycleLR) and global batch (64) as the demo:
DistributedSampler gives each rank its shard of every epoch and each rank takes
64 // world_size samples per step, and DDP averages the gradients, so every rank takes the same
optimizer steps. Every rank scores the whole test set (the weights are identical on all ranks);
rank 0 prints one line, ``world_size=N test accuracy: 0.XXXX``.

The runs agree approximately, not bit-for-bit: BatchNorm's batch statistics (and running
averages) are computed per rank over its 64 / N samples (there is no SyncBatchNorm), the
sampler shuffles in a different order from the demo's DataLoader, and each rank draws its own
Dropout masks. Each still reaches about the demo's accuracy (~98-99%).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dyngrad as torch                                     # noqa: E402
import dyngrad.distributed as dist                          # noqa: E402
from dyngrad import nn                                      # noqa: E402
from dyngrad.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from dyngrad.utils.data import DataLoader, DistributedSampler  # noqa: E402
from demo import DigitsCNN, evaluate, load_data            # noqa: E402


def main(epochs=12, global_batch=64):
    dist.init_process_group()             # MPI under mpiexec, one process otherwise
    rank, world = dist.get_rank(), dist.get_world_size()
    assert global_batch % world == 0, "the global batch must split evenly"
    torch.manual_seed(0)
    train_set, test_set = load_data()
    model = DDP(DigitsCNN())              # rank 0's weights are broadcast to every rank
    torch.manual_seed(rank)               # each rank its own Dropout masks
    sampler = DistributedSampler(train_set, shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=global_batch // world, sampler=sampler)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    loss_fn = nn.CrossEntropyLoss()
    start = time.perf_counter()
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()
            scheduler.step()
    elapsed = time.perf_counter() - start
    accuracy = evaluate(model, DataLoader(test_set, batch_size=256))
    if rank == 0:
        print(f"world_size={world} test accuracy: {accuracy:.4f} "
              f"(training took {elapsed:.1f} s)", flush=True)
    dist.destroy_process_group()
    return accuracy


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=12)
    main(epochs=p.parse_args().epochs)
