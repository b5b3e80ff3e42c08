"""DataLoader (``torch.utils.data.DataLoader``): batches from a dataset, fetched in this
process (``num_workers=0``) or in worker processes (Note [DataLoader workers] in _worker.py).

The steps of one epoch, as in torch::

    sampler ─► BatchSampler ─► [i0, i1, …] ─► [dataset[i0], dataset[i1], …] ─► collate_fn ─► batch

With ``batch_size=None`` automatic batching is off: each index gives one sample, passed through
``default_convert`` (NumPy → tensors) instead of ``default_collate``. ``pin_memory=True`` is
accepted and, as torch does on a machine with no accelerator, warns that pinned memory won't
be used.
"""
from __future__ import annotations

import math
import os
import warnings
from typing import Any, Callable, Generic, TypeVar

import dyngrad

from . import _collate, _worker
from ._multiprocessing import MultiProcessingDataLoaderIter
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

default_collate = _collate.default_collate
default_convert = _collate.default_convert
T_co = TypeVar("T_co", covariant=True)


get_worker_info = _worker.get_worker_info


class _DatasetKind:
    Map = 0
    Iterable = 1


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: ``None`` forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """Iterate over a dataset in batches.

    Args:
        dataset (Dataset): a map-style or iterable-style dataset.
        batch_size (int, optional): samples per batch (default 1); ``None`` turns automatic
            batching off.
        shuffle (bool, optional): reshuffle at every epoch (a :class:`RandomSampler`).
        sampler (Sampler or Iterable, optional): the indices to load; excludes ``shuffle``.
        batch_sampler (Sampler or Iterable, optional): lists of indices, one per batch;
            excludes ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last``.
        num_workers (int): how many worker processes fetch batches (0: this process).
        collate_fn (Callable, optional): turns a list of samples into a batch
            (default :func:`default_collate`).
        pin_memory (bool): accepted; there is no pinned memory without an accelerator.
        drop_last (bool): drop the last batch when it is short.
        timeout (float): must be 0 without workers, as in torch.
        generator (Generator, optional): used by the default RandomSampler, and for the base
            seed drawn at each ``iter()`` as torch does.

    Example::

        >>> ds = TensorDataset(dyngrad.arange(10.), dyngrad.arange(10))
        >>> for x, y in DataLoader(ds, batch_size=4):
        ...     print(x.shape, y.tolist())
        torch.Size([4]) [0, 1, 2, 3]
        torch.Size([4]) [4, 5, 6, 7]
        torch.Size([2]) [8, 9]

    Differences from torch: no worker processes (see Note [DataLoader in one process]); a
    shuffle order comes from dyngrad's random stream, not torch's.
    """

    _initialized = False

    def __init__(self, dataset: Dataset[T_co], batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn: Callable[[list], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context=None, generator=None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        # argument checks in torch's order, with torch's messages
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading "
                f"(num_workers > 0), but got num_workers={num_workers}")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            # an IterableDataset decides its own order: no shuffle, sampler or batch_sampler
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None
        self._iterator = None      # a persistent-workers iterator, kept for the next epoch
        self._initialized = True
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self) -> None:
        """torch's warning when more workers are asked for than this process has CPUs."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        suggest = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            advice = ("DataLoader is not able to compute a suggested max number of worker in "
                      "current system.")
        else:
            advice = (f"Our suggested max number of worker in current system is {suggest}"
                      f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}, "
                      "which is smaller than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                      f"total. {advice} Please be aware that excessive worker creation might get "
                      "DataLoader running slow or even freeze, lower the worker number to avoid "
                      "potential slowness/freeze if necessary.", stacklevel=2)

    def __setattr__(self, attr, val) -> None:
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                          "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What yields the fetch keys: the batch sampler when batching, else the sampler."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        if not self.persistent_workers:
            self.check_worker_number_rationality()
            return MultiProcessingDataLoaderIter(self)
        if self._iterator is None:
            self.check_worker_number_rationality()
            self._iterator = MultiProcessingDataLoaderIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            # the dataset's own length, in batches; remembered to warn if iteration runs longer
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last \
                    else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(_worker.BaseIter):
    """One pass over a DataLoader: next index (or batch of indices) → samples → collate."""

    def __init__(self, loader: DataLoader) -> None:
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        super().__init__(loader)   # (the base seed is drawn, as torch does, though unused)
        self._fetcher = _worker.Fetcher(self._dataset, self._iterable, self._auto_collation,
                                        self._collate_fn, self._drop_last)

    def __next__(self):
        index = next(self._sampler_iter)          # may raise StopIteration
        data = self._fetcher.fetch(index)
        self._num_yielded += 1
        if self._iterable:
            _worker.warn_if_past_length(self)
        return data
