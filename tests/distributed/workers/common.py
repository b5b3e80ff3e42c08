"""Helpers shared by the worker scripts that the tests start under mpiexec."""
from __future__ import annotations

import sys
from datetime import timedelta

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist


class Checks:
    """Counts checks; a failing one raises (which aborts every rank: see _mpi.py)."""

    def __init__(self):
        self.count = 0

    def close(self, got, want, what, rtol=1e-7, atol=0.0):
        got = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
        want = np.asarray(want)
        assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)
        else:
            np.testing.assert_array_equal(got, want, err_msg=what)
        self.count += 1

    def true(self, cond, what):
        assert cond, what
        self.count += 1

    def raises(self, exc_type, fragment, fn, what):
        try:
            fn()
        except exc_type as e:
            assert fragment in str(e), f"{what}: message {str(e)!r} lacks {fragment!r}"
            self.count += 1
            return
        raise AssertionError(f"{what}: {exc_type.__name__} not raised")

    def done(self, name):
        print(f"{name} rank {dist.get_rank()}/{dist.get_world_size()}: {self.count} checks OK")
        sys.stdout.flush()


def init(timeout_s: float = 60.0):
    """Join the MPI world (once: suite.py runs several worker modules in one process)."""
    if not dist.is_initialized():
        dist.init_process_group("mpi", timeout=timedelta(seconds=timeout_s))
    return dist.get_rank(), dist.get_world_size()


def data(rank: int, shape, dtype=np.float64, key: int = 0) -> np.ndarray:
    """Rank `rank`'s input: every rank can compute every other rank's data (the reference)."""
    rng = np.random.default_rng(10_000 * key + rank)
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-4, 5, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.random(shape) + 0.5).astype(dtype)


def tensor(arr: np.ndarray):
    return torch.from_numpy(np.array(arr))
