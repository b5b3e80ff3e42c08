"""Samplers (``torch.utils.data.sampler``): which dataset indices a DataLoader fetches, in
what order, and how they are grouped into batches.

The random samplers draw from the generator as torch's do, so a seeded generator gives torch's
order.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import dyngrad

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: a sampler is an iterable of indices (or of lists of indices, for a batch
    sampler); ``__len__`` is optional but ``len(DataLoader)`` needs it."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, …, len(data_source) - 1``, always in that order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _fresh_generator():
    """torch's RandomSampler without a generator: seed a new one from the global stream, so
    ``manual_seed`` makes the order reproducible."""
    seed = int(dyngrad.empty((), dtype=dyngrad.int64).random_().item())
    return dyngrad.Generator().manual_seed(seed)


class RandomSampler(Sampler[int]):
    """Indices in random order: a permutation (each index once), or with ``replacement=True``
    ``num_samples`` independent draws.

    Args:
        data_source (Sized): what to sample from (only its length is used).
        replacement (bool): draw with replacement. Default: ``False``.
        num_samples (int): how many indices (default ``len(data_source)``); without
            replacement, more than the length chains several permutations.
        generator (Generator): where the randomness comes from; default: a generator seeded
            from the global one at each ``iter()``.
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            # in chunks of 32, as torch draws them
            for _ in range(self.num_samples // 32):
                yield from dyngrad.randint(high=n, size=(32,), dtype=dyngrad.int64,
                                           generator=generator).tolist()
            yield from dyngrad.randint(high=n, size=(self.num_samples % 32,),
                                       dtype=dyngrad.int64, generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from dyngrad.randperm(n, generator=generator).tolist()
            yield from dyngrad.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, in a random order (without replacement)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in dyngrad.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices of ``weights``, index ``i`` drawn with probability proportional
    to ``weights[i]`` (``torch.multinomial``).

    Args:
        weights (sequence): non-negative weights, need not sum to one.
        num_samples (int): how many to draw.
        replacement (bool): with replacement (default ``True``); without it each index at most
            once.
        generator (Generator): where the randomness comes from.
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = dyngrad.as_tensor(weights, dtype=dyngrad.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = dyngrad.multinomial(self.weights, self.num_samples, self.replacement,
                                    generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups the indices of another sampler into lists of ``batch_size``.

    Args:
        sampler (Sampler or Iterable): the indices to group.
        batch_size (int): size of a batch.
        drop_last (bool): drop the last batch when it is short.

    Example::

        >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False))
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list]:
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
