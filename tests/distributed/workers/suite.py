"""The checking workers in one process per rank (one mpiexec start instead of three):
every plain collective, the differentiable collectives, DDP and DistributedSampler."""
import collectives  # noqa: F401
import autograd_collectives  # noqa: F401
import ddp  # noqa: F401
