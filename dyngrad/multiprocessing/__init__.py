"""dyngrad.multiprocessing: Python's ``multiprocessing`` (every public name of it, re-exported)
with tensors shared between processes, as torch.multiprocessing.

Importing it registers reducers with ``multiprocessing.reduction.ForkingPickler``
(reductions.py): a tensor or nn.Parameter put on a ``Queue``, sent through a ``Pipe`` or passed
to a spawned ``Process`` moves to shared memory (Note [Shared memory] in
dyngrad/_shared_memory.py) and arrives in the other process viewing the same memory, so writes
in either process are seen in both (Hogwild training: ``model.share_memory()``, then processes
that each run an optimizer on the shared parameters). ``fork`` children inherit shared memory
without any pickling. ``spawn``/``start_processes`` run a function in N processes and raise the
first failure.

Sharing strategy: only 'file_descriptor' (torch's default on Linux) is implemented; torch's
'file_system' (named shared-memory files kept alive by torch_shm_manager) is not offered.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ENV_VAR_PARALLEL_START, ProcessContext, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

_sharing_strategy = "file_descriptor"
_all_sharing_strategies = {"file_descriptor"}


def set_sharing_strategy(new_strategy):
    """Set the strategy for sharing CPU tensors (one of ``get_all_sharing_strategies()``)."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, "
                             f"expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """Return the current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """Return a set of sharing strategies supported on a current system."""
    return _all_sharing_strategies


init_reductions()
