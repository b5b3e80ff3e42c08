"""``DistributedSampler`` (torch.utils.data.distributed): each rank reads its own share of a
dataset.

Differences from torch: with ``shuffle=True`` the order comes from dyngrad's random stream
(seeded with ``seed + epoch``, the same on every rank), not torch's.
"""
from __future__ import annotations

import math
from collections.abc import Iterator

import dyngrad

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Rank ``rank`` of ``num_replicas`` gets every ``num_replicas``-th index of one common
    (shuffled) order, starting at ``rank``: the ranks' shares are disjoint and together cover
    the dataset. Without ``drop_last`` the order is padded by repeating its start so that every
    rank gets ``ceil(len / num_replicas)`` indices; with it the tail is dropped instead.

    Args:
        dataset: the dataset (only its length is used).
        num_replicas: number of ranks (default: the default group's world size).
        rank: this rank (default: ``dist.get_rank()``).
        shuffle: shuffle the order, differently each epoch (call ``set_epoch``).
        seed: the shuffle seed; must be the same on every rank.
        drop_last: drop the tail instead of padding.

    Example::

        >>> sampler = DistributedSampler(dataset)
        >>> loader = DataLoader(dataset, batch_size=32, sampler=sampler)
        >>> for epoch in range(3):
        ...     sampler.set_epoch(epoch)
        ...     for x, y in loader: ...
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        from ... import distributed as dist
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = dyngrad.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = dyngrad.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use the order of `epoch` (with ``shuffle=True``, each epoch has its own)."""
        self.epoch = epoch
