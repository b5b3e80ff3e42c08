"""DataLoader (``torch.utils.data.DataLoader``): batches from a dataset, in the main process.

Note [DataLoader in one process]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's DataLoader can fetch batches in worker processes. dyngrad always fetches them in the
calling process: ``num_workers > 0`` is accepted (so scripts written for torch run unchanged)
but only warns, once per DataLoader, and then loads in-process. For a map-style dataset the
batches are exactly the ones torch's workers would deliver (torch returns them in sampler order).
Things that exist only in workers do not happen: ``worker_init_fn`` is never called and
``get_worker_info()`` is always ``None``; an IterableDataset is iterated once (torch's workers
would each iterate their own copy). ``pin_memory=True`` is accepted and, as torch does on a
machine with no accelerator, warns that pinned memory won't be used.

The steps of one epoch, as in torch::

    sampler ─► BatchSampler ─► [i0, i1, …] ─► [dataset[i0], dataset[i1], …] ─► collate_fn ─► batch

With ``batch_size=None`` automatic batching is off: each index gives one sample, passed through
``default_convert`` (NumPy → tensors) instead of ``default_collate``.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Generic, TypeVar

import dyngrad

from . import _collate
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

default_collate = _collate.default_collate
default_convert = _collate.default_convert
T_co = TypeVar("T_co", covariant=True)


def get_worker_info():
    """Information about the current worker process: always ``None`` in dyngrad (no workers;
    see Note [DataLoader in one process])."""
    return None


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
        num_workers (int): accepted; data is still loaded in this process (with a warning).
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
        self._initialized = True
        if num_workers > 0:
            warnings.warn(
                f"dyngrad's DataLoader loads data in the main process: num_workers={num_workers} "
                "is accepted, but no worker processes are started (worker_init_fn is not "
                "called and get_worker_info() returns None).", stacklevel=2)

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

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            # the dataset's own length, in batches; remembered to warn if iteration runs longer
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last \
                    else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader: next index (or batch of indices) → samples → collate."""

    def __init__(self, loader: DataLoader) -> None:
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # torch draws a base seed for its workers at every iter(); drawing it too keeps a
        # shared generator's stream in step with torch's sequence of draws
        self._base_seed = dyngrad.empty((), dtype=dyngrad.int64).random_(
            generator=loader.generator).item()
        self._num_yielded = 0
        if self._dataset_kind == _DatasetKind.Iterable:
            self._dataset_iter = iter(self._dataset)
            self._ended = False

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __next__(self):
        index = next(self._sampler_iter)          # may raise StopIteration
        if self._dataset_kind == _DatasetKind.Map:
            data = self._fetch_map(index)
        else:
            data = self._fetch_iterable(index)
        self._num_yielded += 1
        if self._dataset_kind == _DatasetKind.Iterable and \
                self._IterableDataset_len_called is not None and \
                self._num_yielded > self._IterableDataset_len_called:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._IterableDataset_len_called}(when accessing len(dataloader)), "
                          f"but {self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data

    def _fetch_map(self, index):
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        getitems = getattr(self._dataset, "__getitems__", None)
        if getitems:
            data = getitems(index)
        else:
            data = [self._dataset[i] for i in index]
        return self._collate_fn(data)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if len(data) == 0 or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)
