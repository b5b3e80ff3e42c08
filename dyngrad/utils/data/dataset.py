"""Datasets (``torch.utils.data.dataset``): map-style and iterable-style, and ways to combine them.

A *map-style* dataset answers ``dataset[i]`` and usually ``len(dataset)``; a DataLoader asks it
for the indices its sampler picks. An *iterable-style* dataset (:class:`IterableDataset`) is a
stream: the DataLoader just iterates it.
"""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

import dyngrad

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
    "ChainDataset", "Subset", "random_split",
]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys (usually ``0 … len-1``) to samples; subclasses define ``__getitem__``.

    Subclasses usually define ``__len__`` too (samplers and ``len(DataLoader)`` need it), and may
    define ``__getitems__(indices)`` to fetch a whole batch at once. ``a + b`` concatenates.
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset[T_co]") -> "ConcatDataset[T_co]":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples; subclasses define ``__iter__``. ``a + b`` chains two streams.

    Differences from torch: data is always loaded in the main process (see ``DataLoader``), so
    ``get_worker_info()`` is ``None`` inside ``__iter__``.
    """

    def __add__(self, other: Dataset[T_co]):
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple]):
    """Samples are rows of the given tensors: ``dataset[i] == (t[i] for t in tensors)``.

    Args:
        *tensors (Tensor): tensors with the same size in their first dimension.
    """

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")   # torch's type and text
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Datasets of equal length side by side: samples are tuples (``*args``) or dicts
    (``**kwargs``) of the datasets' samples at the same index."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or"
                             "``dict``- (via ``kwargs``) like input/output, but both types are "
                             "given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(dataset) for dataset in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Several map-style datasets one after the other.

    ``cumulative_sizes[k]`` is the total length of the first ``k + 1`` datasets; an index is
    found by bisecting it.
    """

    @staticmethod
    def cumsum(sequence) -> list:
        sizes, total = [], 0
        for dataset in sequence:
            total += len(dataset)
            sizes.append(total)
        return sizes

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if dataset_idx == 0 else self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][idx - start]


class ChainDataset(IterableDataset):
    """Several iterable datasets chained, one stream after the other."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence): indices into it.
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        # the DataLoader fetches batches through __getitems__, which would bypass an
        # overridden __getitem__; torch refuses such a subclass up front
        if type(self).__getitem__ is not Subset.__getitem__ and \
                type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        # fetch a batch through the wrapped dataset's own batch getter when it has one
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence, generator=None) -> list:
    """Split ``dataset`` at random into non-overlapping :class:`Subset` s of the given lengths.

    Args:
        dataset (Dataset): the dataset to split.
        lengths (sequence): lengths that sum to ``len(dataset)``, or fractions that sum to 1:
            each split then gets ``floor(frac * len(dataset))`` items and what is left over is
            dealt out one at a time, round-robin from the first split.
        generator (Generator): the generator for the permutation (default: the global one).

    Example::

        >>> g = dyngrad.Generator().manual_seed(42)
        >>> train, test = random_split(range(10), [0.7, 0.3], generator=g)
        >>> len(train), len(test)
        (7, 3)

    Differences from torch: the permutation comes from dyngrad's random stream, so a seed picks
    other items than it does in torch.
    """
    if generator is None:
        generator = dyngrad.default_generator
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = dyngrad.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
