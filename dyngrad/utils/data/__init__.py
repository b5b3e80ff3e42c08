"""dyngrad.utils.data: datasets, samplers and the DataLoader (``torch.utils.data``).

| file            | what is in it                                                          |
|-----------------|------------------------------------------------------------------------|
| dataset.py      | Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset,  |
|                 | ChainDataset, Subset, random_split                                     |
| sampler.py      | Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,        |
|                 | WeightedRandomSampler, BatchSampler                                    |
| dataloader.py   | DataLoader (in one process: Note [DataLoader in one process])          |
| _collate.py     | default_collate, default_convert                                       |
"""
from .dataset import (  # noqa: F401
    Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset,
    Subset, random_split,
)
from .sampler import (  # noqa: F401
    Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
    BatchSampler,
)
from .dataloader import DataLoader, get_worker_info, _DatasetKind  # noqa: F401
from ._collate import default_collate, default_convert  # noqa: F401
from .distributed import DistributedSampler  # noqa: F401  (torch.utils.data.distributed)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
    "default_convert", "get_worker_info", "random_split",
]
