"""Started by `python -m dyngrad.distributed.run`: torchrun's variables are set, argv is ours,
and init_process_group() with no backend picks MPI."""
import os
import sys

import dyngrad as torch
import dyngrad.distributed as dist

dist.init_process_group()
rank, world = dist.get_rank(), dist.get_world_size()
assert dist.get_backend() == "mpi"
assert os.environ["RANK"] == str(rank) and os.environ["WORLD_SIZE"] == str(world)
assert os.environ["LOCAL_RANK"] == str(rank) and os.environ["LOCAL_WORLD_SIZE"] == str(world)
assert os.environ["MASTER_ADDR"] and os.environ["MASTER_PORT"] == "29500"
assert __name__ == "__main__" and sys.argv[1:] == ["--flag", "value"], sys.argv
x = torch.tensor([float(rank)])
dist.all_reduce(x)
print(f"launched rank {rank}/{world}: sum {x.item():g}", flush=True)
if "--fail" in sys.argv:
    raise SystemExit(3)
