"""A rank that fails must not leave the others waiting forever.

mode "raise": rank 1 raises; the excepthook aborts the job (MPI_Abort) while the others wait
in an all_reduce. mode "leave": rank 1 leaves without error before a collective the others
enter; they time out (timeout=3 s) with a clear RuntimeError and abort the job in turn.
"""
import sys

import dyngrad as torch
import dyngrad.distributed as dist
from common import init

mode = sys.argv[1]
R, N = init(timeout_s=3.0)
x = torch.ones(3)
dist.all_reduce(x)                      # everyone is up
if R == 1:
    if mode == "raise":
        raise ValueError("rank 1 failed on purpose")
    print("rank 1 leaves early", flush=True)
    sys.exit(0)
dist.all_reduce(x)                      # rank 1 never comes
print(f"rank {R} should not get here", flush=True)
