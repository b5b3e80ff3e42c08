"""DDP scaling: throughput at 1, 2 and 4 processes, and how much all-reduce time backward hides.

    python -m bench.ddp_scaling [--steps 20] [--procs 1,2,4] [--markdown bench/DDP_RESULTS.md]

Each run starts ``python -m dyngrad.distributed.run -n P bench/ddp_scaling.py --worker`` and
trains the bench's MLP (784-256-256-10, SGD) with a per-rank batch of 32 (weak scaling: the
global batch grows with P). Per configuration, every rank times, in interleaved rounds:

* ``local``: forward + backward + step under ``no_sync()`` (no communication at all);
* ``ddp``: the same step with DDP's bucketed all-reduces overlapping backward;
* ``blocking``: the time to all-reduce the same buckets *after* backward, one after another
  (what the communication costs when nothing hides it);
* ``tail``: in the ``ddp`` step, the time spent waiting for the buckets once backward is done,
  on the rank that finished backward last (the other ranks also wait for that rank, which is
  load imbalance, not communication: the table shows the largest wait too).

The share of all-reduce time hidden behind backward is ``1 - tail / blocking``. Throughput is
the global batch over the slowest rank's median ``ddp`` step. Threads are pinned to 1 per
process (DESIGN.md §8); with 4 processes on a 2-core machine the ranks share cores, which the
table states.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"


def worker(args) -> None:
    import numpy as np

    import dyngrad as torch
    import dyngrad.distributed as dist
    from dyngrad import nn
    from dyngrad.distributed._work import Work
    from dyngrad.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group()
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                              nn.Linear(256, 10)), bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(rank)
    x = torch.from_numpy(rng.standard_normal((32, 784)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, 32))
    reducer = model.reducer

    def step(sync: bool) -> float:
        dist.barrier()
        start = time.perf_counter()
        opt.zero_grad()
        if sync:
            nn.functional.cross_entropy(model(x), y).backward()
        else:
            with model.no_sync():
                nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        return time.perf_counter() - start

    def blocking() -> float:
        dist.barrier()
        start = time.perf_counter()
        for bucket in reducer.buckets:
            Work("bench", model.process_group._impl.allreduce(bucket.flat, 0)).wait()
        return time.perf_counter() - start

    times = {"local": [], "ddp": [], "blocking": [], "tail": []}
    for i in range(args.steps + 3):
        local, ddp = step(False), step(True)
        tail = reducer.last_wait_s
        block = blocking()
        if i >= 3:                                  # warm-up rounds
            times["local"].append(local)
            times["ddp"].append(ddp)
            times["tail"].append(tail)
            times["blocking"].append(block)
    medians = {k: statistics.median(v) for k, v in times.items()}
    everyone = [None] * world
    dist.all_gather_object(everyone, medians)
    if rank == 0:
        worst = {k: max(m[k] for m in everyone) for k in medians}
        # The rank that finishes backward last waits only for communication still in flight;
        # the others also wait for it (load imbalance), which is not communication.
        worst["tail"] = min(m["tail"] for m in everyone)
        worst["tail_max"] = max(m["tail"] for m in everyone)
        worst["buckets"] = len(reducer.buckets)
        print("RESULT " + json.dumps(worst), flush=True)
    dist.destroy_process_group()


def run(procs: int, steps: int, bucket_mb: float) -> dict:
    cmd = [sys.executable, "-m", "dyngrad.distributed.run", "-n", str(procs),
           os.path.abspath(__file__), "--worker", "--steps", str(steps),
           "--bucket-mb", str(bucket_mb)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"no result from {procs} processes:\n{out.stdout}\n{out.stderr}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ddp_scaling", description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--procs", default="1,2,4")
    p.add_argument("--bucket-mb", type=float, default=0.25)
    p.add_argument("--worker", action="store_true")
    p.add_argument("--markdown", default=None)
    args = p.parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    rows, base = [], None
    for procs in [int(n) for n in args.procs.split(",")]:
        r = run(procs, args.steps, args.bucket_mb)
        throughput = 32 * procs / r["ddp"]
        base = base or throughput
        hidden = max(0.0, min(1.0, 1 - r["tail"] / r["blocking"])) if r["blocking"] else 0.0
        rows.append(f"| {procs} | {r['local'] * 1e3:.1f} | {r['ddp'] * 1e3:.1f} | "
                    f"{throughput:.0f} | {throughput / base:.2f} | {r['buckets']} | "
                    f"{r['blocking'] * 1e3:.2f} | {r['tail'] * 1e3:.2f} | "
                    f"{r['tail_max'] * 1e3:.2f} | {hidden:.0%} |")
        print(rows[-1], flush=True)
    cores = os.cpu_count()
    table = "\n".join([
        f"DDP scaling, MLP 784-256-256-10, per-rank batch 32, SGD, buckets of "
        f"{args.bucket_mb} MB, {args.steps} timed steps, 1 thread per process, {cores} cores "
        "(more processes than cores share them).",
        "",
        "| processes | local step (ms) | DDP step (ms) | samples/s | speed-up | buckets | "
        "all-reduce after backward (ms) | wait after backward, last rank (ms) | "
        "largest wait (ms) | all-reduce hidden |",
        "|---|---|---|---|---|---|---|---|---|---|", *rows])
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
