"""What runs inside a DataLoader worker process (torch.utils.data._utils.worker's role).

Note [DataLoader workers]
~~~~~~~~~~~~~~~~~~~~~~~~~
With ``num_workers = N > 0`` the DataLoader starts N processes (Python's ``multiprocessing``,
its default start method unless ``multiprocessing_context`` names another). Each worker

1. seeds itself from the iterator's base seed, as torch does: Python's ``random`` and dyngrad's
   generator with ``base_seed + worker_id``, NumPy's global generator with a 4-word state
   hashed from (base_seed, worker_id) (``numpy_seed_state``). A dataset that draws random
   numbers in ``__getitem__`` therefore draws, in each worker, what torch's worker draws;
2. sets ``get_worker_info()`` and calls ``worker_init_fn(worker_id)``;
3. answers tasks ``(task_idx, index)`` from its own index queue with ``(task_idx, batch)`` on
   the shared result queue, until it receives None. A failure travels back as an
   ``ExceptionWrapper`` and is raised again in the main process with the worker's traceback.

The main process hands out the indices round-robin and yields the batches in task order
(_multiprocessing.py), so the batches are torch's, in torch's order. An IterableDataset is
iterated by every worker, each over its own copy: a worker whose copy is exhausted answers
``_IterableDatasetStopIteration`` and gets no more tasks that epoch. Batches cross the process
boundary pickled (torch moves tensors through shared memory instead).

Note [Leaving the result queue]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every worker writes into one result queue, whose pipe a lock shared by the workers guards; a
background thread of each worker does the writing. A worker that leaves early (its iterable
dataset is exhausted, the main process sent None) must let that thread finish: a process that
exits while its thread holds the lock leaves it held for good, and the other workers' results
never arrive (a DataLoader that waits forever, which an early version did). Only when the main
process shuts every worker down (``done_event`` set) does a worker drop what it has not written,
as torch's workers do, since nobody reads the queue any more.
"""
from __future__ import annotations

import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """``get_worker_info()`` inside a worker: its id, the number of workers, its seed and its
    own copy of the dataset."""
    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str = "multiprocessing"


def get_worker_info():
    """The current worker's WorkerInfo; None in the main process."""
    return _worker_info


class _IterableDatasetStopIteration:
    """A worker's answer once its copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Sent to persistent workers at the start of each later epoch."""

    def __init__(self, seed=None):
        self.seed = seed


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, exc_info=None, where="in background"):
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the worker's exception type here, its message naming the worker and holding
        the original traceback (a RuntimeError where the type cannot take a message)."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001 -- a type whose constructor wants other arguments
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # (this frame, kept by the traceback, would otherwise keep the exception in a cycle
            # with it, and the iterator that raised it alive, workers and all, until the cyclic
            # collector runs: dropped, the iterator shuts its workers down as soon as the
            # caller drops the exception)
            del exception


class _KeyErrorMessage(str):
    """KeyError prints its argument's repr; this keeps the traceback readable."""

    def __repr__(self):
        return self


# -- seeds -----------------------------------------------------------------------------------
_MASK32 = 0xFFFFFFFF


def draw_base_seed(generator) -> int:
    """The seed an iterator gives its workers, drawn (as torch draws it, at every ``iter()``,
    workers or not) from the loader's generator: a shared generator's stream stays in step with
    torch's sequence of draws."""
    import dyngrad
    return dyngrad.empty((), dtype=dyngrad.int64).random_(generator=generator).item()


def numpy_seed_state(base_seed: int, worker_id: int) -> list:
    """The four 32-bit words torch seeds NumPy's global generator with in worker `worker_id`:
    (worker_id, base_seed's low and high words, 0) hashed and mixed as NumPy's SeedSequence
    does (the same constants and steps; torch writes it out so it needs no NumPy)."""
    hash_mult = [0x931E8875]
    hash_const = [0x43B0D7E5]

    def hashed(value):
        value = (value ^ hash_const[0]) & _MASK32
        hash_const[0] = (hash_const[0] * hash_mult[0]) & _MASK32
        value = (value * hash_const[0]) & _MASK32
        return (value ^ (value >> 16)) & _MASK32

    def mixed(x, y):
        result = ((0xCA01F9DD * x) - (0x4973F715 * y)) & _MASK32
        return (result ^ (result >> 16)) & _MASK32

    pool = [hashed(v) for v in (worker_id, base_seed & _MASK32, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mixed(pool[dst], hashed(pool[src]))
    out_const, out_mult = 0x8B51F9DD, 0x58F38DED
    state = []
    for value in pool:
        value = (value ^ out_const) & _MASK32
        out_const = (out_const * out_mult) & _MASK32
        value = (value * out_const) & _MASK32
        state.append((value ^ (value >> 16)) & _MASK32)
    return state


def warn_if_past_length(it) -> None:
    """torch's warning when an IterableDataset yields more batches than len() promised."""
    import warnings
    if it._IterableDataset_len_called is not None and \
            it._num_yielded > it._IterableDataset_len_called:
        warnings.warn(f"Length of IterableDataset {it._dataset} was reported to be "
                      f"{it._IterableDataset_len_called}(when accessing len(dataloader)), "
                      f"but {it._num_yielded} samples have been fetched. ", stacklevel=3)


def warn_pin_memory(loader) -> None:
    if loader.pin_memory:
        import warnings
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                      "then device pinned memory won't be used.", stacklevel=4)


# -- what both iterators share ----------------------------------------------------------------
class BaseIter:
    """What the in-process iterator and the worker-process one take from their DataLoader
    (torch's _BaseDataLoaderIter): the dataset, the index sampler and its iterator, batching,
    and the base seed, drawn for every iterator so that seeded code draws the same numbers
    with or without workers."""

    def __init__(self, loader):
        warn_pin_memory(loader)
        self._dataset = loader.dataset
        self._iterable = loader._dataset_kind == 1   # (an IterableDataset)
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = draw_base_seed(loader.generator)
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)


# -- fetching --------------------------------------------------------------------------------
class Fetcher:
    """Turns one fetch key into one batch: a list of indices (or one index) for a map-style
    dataset; for an IterableDataset, the next items of its iterator. Shared by the in-process
    iterator and the workers."""

    def __init__(self, dataset, iterable: bool, auto_collation: bool, collate_fn, drop_last):
        self.dataset = dataset
        self.iterable = iterable
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False
        if iterable:
            self.dataset_iter = iter(dataset)

    def fetch(self, index):
        if self.iterable:
            return self._fetch_iterable(index)
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if getitems else [self.dataset[i] for i in index]
        return self.collate_fn(data)

    def _fetch_iterable(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if len(data) == 0 or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


# -- the worker's loop -----------------------------------------------------------------------
def worker_loop(dataset, iterable, index_queue, data_queue, done_event, auto_collation,
                collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    """The body of worker `worker_id` (Note [DataLoader workers])."""
    global _worker_info
    import numpy as np
    import dyngrad
    dyngrad.set_num_threads(1)   # (as torch's workers)
    seed = base_seed + worker_id
    random.seed(seed)
    dyngrad.manual_seed(seed)
    np.random.seed(numpy_seed_state(base_seed, worker_id))
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                              dataset=dataset)
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = Fetcher(dataset, iterable, auto_collation, collate_fn, drop_last)
    except Exception:  # noqa: BLE001 -- sent to the main process with the first answer
        init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
    exhausted = False
    while True:
        try:
            task = index_queue.get(timeout=5.0)
        except queue.Empty:
            continue
        if task is None:
            break
        if isinstance(task, _ResumeIteration):   # a persistent worker's next epoch
            data_queue.put((task, None))
            exhausted = False
            if init_error is None:
                fetcher = Fetcher(dataset, iterable, auto_collation, collate_fn, drop_last)
            continue
        idx, index = task
        if init_error is not None:
            data, init_error = init_error, None
        elif exhausted:
            data = _IterableDatasetStopIteration(worker_id)
        else:
            try:
                data = fetcher.fetch(index)
            except Exception as e:  # noqa: BLE001 -- raised again in the main process
                if isinstance(e, StopIteration) and iterable:
                    data = _IterableDatasetStopIteration(worker_id)
                    exhausted = True
                else:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        data_queue.put((idx, data))
        del data, index, task
    if done_event.is_set():   # Note [Leaving the result queue]
        data_queue.cancel_join_thread()
        data_queue.close()
