"""dyngrad.utils.data against torch.utils.data: datasets, samplers, collation, DataLoader.

Everything deterministic (sequential batching, collation structure and dtypes, lengths,
drop_last, errors) is compared with live torch. For shuffled orders we check the properties (a
seeded Generator repeats the order and every index appears exactly once); the seeded orders
themselves are compared with torch's in test_torch_streams.py.
"""
import collections
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import dyngrad
import dyngrad.utils.data as ddata
from compare import same

LIBS = {"torch": (torch, tdata), "dyngrad": (dyngrad, ddata)}
Point = collections.namedtuple("Point", "x y")


def same_batch(ours, theirs, where="batch"):
    """Equal nested structures: tensors via compare.same, containers by type and contents."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, dyngrad.Tensor), f"{where}: {type(ours)}"
        same(ours, theirs, where)
    elif isinstance(theirs, tuple) and hasattr(theirs, "_fields"):
        assert type(ours).__name__ == type(theirs).__name__, where
        assert ours._fields == theirs._fields, where
        for a, b, name in zip(ours, theirs, theirs._fields):
            same_batch(a, b, f"{where}.{name}")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs), f"{where}: {type(ours)} != {type(theirs)}"
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same_batch(a, b, f"{where}[{i}]")
    elif isinstance(theirs, dict):
        assert type(ours).__name__ == type(theirs).__name__, where
        assert list(ours) == list(theirs), where
        for k in theirs:
            same_batch(ours[k], theirs[k], f"{where}[{k!r}]")
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def both(fn):
    """Run ``fn(lib, data)`` on both libraries; the same result or the same exception."""
    results = {}
    for name, (lib, data) in LIBS.items():
        try:
            results[name] = ("ok", fn(lib, data))
        except Exception as e:   # noqa: BLE001  (compared below)
            results[name] = ("raised", (type(e).__name__, str(e)))
    (tkind, tval), (dkind, dval) = results["torch"], results["dyngrad"]
    assert dkind == tkind, f"torch {tkind} {tval!r}, dyngrad {dkind} {dval!r}"
    if tkind == "raised":
        assert dval == tval
    else:
        same_batch(dval, tval)
    return dval


def make_tensors(lib, n=10):
    x = lib.from_numpy(np.arange(n * 3, dtype=np.float32).reshape(n, 3))
    y = lib.from_numpy(np.arange(n, dtype=np.int64))
    return x, y


# -- datasets -------------------------------------------------------------------------------
def test_tensor_dataset_items_and_len():
    both(lambda lib, data: [data.TensorDataset(*make_tensors(lib))[i] for i in (0, 3, -1)])
    both(lambda lib, data: data.TensorDataset(*make_tensors(lib))[2:5])
    both(lambda lib, data: len(data.TensorDataset(*make_tensors(lib, 7))))


def test_tensor_dataset_size_mismatch():
    both(lambda lib, data: data.TensorDataset(lib.zeros(3), lib.zeros(4)))


def test_subset_concat_stack_chain():
    both(lambda lib, data: [data.Subset(list(range(10)), [7, 2, 5])[i] for i in range(3)])
    both(lambda lib, data: len(data.Subset(list(range(10)), [7, 2, 5])))

    def concat(lib, data):
        c = data.ConcatDataset([data.TensorDataset(lib.arange(3)), list(range(10, 14))])
        return [len(c), c.cumulative_sizes, [c[i] for i in range(-7, 7)]]
    both(concat)
    both(lambda lib, data: data.ConcatDataset([[1, 2], [3]])[-4])
    both(lambda lib, data: data.ConcatDataset([]))
    both(lambda lib, data: [len(data.Subset([0, 1, 2], [0]) + data.Subset([0, 1], [1, 0]))])

    def stack(lib, data):
        s = data.StackDataset(a=list(range(3)), b=data.TensorDataset(lib.arange(3.)))
        t = data.StackDataset(list(range(3)), ["x", "y", "z"])
        return [len(s), s[1], t[2]]
    both(stack)
    both(lambda lib, data: data.StackDataset([1], [1, 2]))
    both(lambda lib, data: data.StackDataset())

    def chain(lib, data):
        class Stream(data.IterableDataset):
            def __init__(self, lo, hi):
                self.lo, self.hi = lo, hi

            def __iter__(self):
                return iter(range(self.lo, self.hi))

            def __len__(self):
                return self.hi - self.lo
        c = Stream(0, 3) + Stream(10, 12)
        return [type(c).__name__, list(c), len(c)]
    both(chain)


def test_subset_subclass_overriding_getitem_only():
    def run(lib, data):
        class Doubled(data.Subset):
            def __getitem__(self, i):
                return 2 * super().__getitem__(i)
        return Doubled(list(range(5)), [1, 2])
    both(run)

    def fine(lib, data):
        class Doubled(data.Subset):
            def __getitem__(self, i):
                return 2 * super().__getitem__(i)

            def __getitems__(self, indices):
                return [self[i] for i in indices]
        return list(data.DataLoader(Doubled(list(range(5)), [1, 2, 4]), batch_size=2))
    both(fine)


def test_random_split_lengths_and_cover():
    for lengths in ([3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [1 / 3] * 3):
        g = dyngrad.Generator().manual_seed(1)
        parts = ddata.random_split(range(10), lengths, generator=g)
        tparts = tdata.random_split(range(10), lengths, generator=torch.Generator().manual_seed(1))
        assert [len(p) for p in parts] == [len(p) for p in tparts]
        assert sorted(i for p in parts for i in p) == list(range(10))
        assert all(isinstance(p, ddata.Subset) for p in parts)
        again = ddata.random_split(range(10), lengths, generator=dyngrad.Generator().manual_seed(1))
        assert [list(p) for p in parts] == [list(p) for p in again]


def test_random_split_default_generator_follows_manual_seed():
    dyngrad.manual_seed(3)
    a = [list(p) for p in ddata.random_split(range(8), [4, 4])]
    dyngrad.manual_seed(3)
    b = [list(p) for p in ddata.random_split(range(8), [4, 4])]
    assert a == b


def test_random_split_errors_and_warning():
    both(lambda lib, data: data.random_split(range(10), [3, 3]))
    both(lambda lib, data: data.random_split(range(10), [1.2, -0.2]))
    for name, (lib, data) in LIBS.items():
        with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
            data.random_split(range(2), [1.0, 0.0])


# -- samplers -------------------------------------------------------------------------------
def test_sequential_and_batch_sampler():
    for n, bs, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False),
                        (2, 5, True), (0, 2, False)]:
        def run(lib, data):
            s = data.BatchSampler(data.SequentialSampler(range(n)), bs, drop)
            return [list(s), len(s)]
        both(run)
    both(lambda lib, data: data.BatchSampler(range(3), 0, False))
    both(lambda lib, data: data.BatchSampler(range(3), True, False))
    both(lambda lib, data: data.BatchSampler(range(3), 2, 1))


def test_random_sampler_permutation_and_determinism():
    s = ddata.RandomSampler(range(20), generator=dyngrad.Generator().manual_seed(5))
    first, second = list(s), list(s)
    assert sorted(first) == list(range(20)) and sorted(second) == list(range(20))
    assert first != second                      # the generator moves on between epochs
    again = ddata.RandomSampler(range(20), generator=dyngrad.Generator().manual_seed(5))
    assert list(again) == first and list(again) == second
    assert len(s) == 20


def test_random_sampler_without_generator_follows_manual_seed():
    dyngrad.manual_seed(0)
    a = list(ddata.RandomSampler(range(10)))
    dyngrad.manual_seed(0)
    assert list(ddata.RandomSampler(range(10))) == a


def test_random_sampler_num_samples_and_replacement():
    g = dyngrad.Generator().manual_seed(0)
    more = list(ddata.RandomSampler(range(4), num_samples=10, generator=g))
    assert len(more) == 10 and sorted(more[:4]) == sorted(more[4:8]) == [0, 1, 2, 3]
    assert len(set(more[8:])) == 2
    drawn = list(ddata.RandomSampler(range(3), replacement=True, num_samples=70, generator=g))
    assert len(drawn) == 70 and set(drawn) == {0, 1, 2}
    both(lambda lib, data: len(data.RandomSampler(range(3), replacement=True, num_samples=70)))
    both(lambda lib, data: data.RandomSampler(range(3), replacement=1))
    both(lambda lib, data: data.RandomSampler(range(3), num_samples=0))
    both(lambda lib, data: data.RandomSampler([]))


def test_subset_random_and_weighted_samplers():
    g = dyngrad.Generator().manual_seed(0)
    idx = [10, 20, 30, 40]
    s = ddata.SubsetRandomSampler(idx, generator=g)
    assert sorted(s) == idx and len(s) == 4
    w = ddata.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=g)
    got = list(w)
    assert len(got) == 50 == len(w) and set(got) == {1, 3}
    w = ddata.WeightedRandomSampler([1.0, 1.0, 1.0, 1.0, 0.0], 4, replacement=False, generator=g)
    assert sorted(w) == [0, 1, 2, 3]
    both(lambda lib, data: data.WeightedRandomSampler([1.0], 0))
    both(lambda lib, data: data.WeightedRandomSampler([1.0], True))
    both(lambda lib, data: data.WeightedRandomSampler([1.0], 2, replacement=None))
    both(lambda lib, data: data.WeightedRandomSampler([[1.0]], 2))
    both(lambda lib, data: data.WeightedRandomSampler([1.0, 2.0], 3).weights)


# -- collation ------------------------------------------------------------------------------
def collate_cases(lib):
    return [
        [lib.ones(2, 3), lib.zeros(2, 3)],
        [lib.tensor(1), lib.tensor(2)],
        [np.ones((2,), np.float32), np.zeros((2,), np.float32)],
        [np.float32(1.5), np.float32(2)],
        [np.int16(1), np.int16(2)],
        [np.bool_(True), np.bool_(False)],
        [1.5, 2.0],
        [1, 2, 3],
        [True, False],
        ["a", "b"],
        [b"a", b"b"],
        [(0, "a"), (1, "b")],
        [[0, 1.5], [2, 3.5]],
        [{"x": 1, "y": lib.ones(2)}, {"x": 2, "y": lib.zeros(2)}],
        [collections.OrderedDict(a=1.0), collections.OrderedDict(a=2.0)],
        [Point(1, 2.0), Point(3, 4.0)],
        [(lib.ones(1), {"k": [1, 2]}), (lib.zeros(1), {"k": [3, 4]})],
    ]


@pytest.mark.parametrize("case", range(len(collate_cases(torch))))
def test_default_collate_like_torch(case):
    both(lambda lib, data: data.default_collate(collate_cases(lib)[case]))


@pytest.mark.parametrize("case", range(len(collate_cases(torch))))
def test_default_convert_like_torch(case):
    both(lambda lib, data: data.default_convert(collate_cases(lib)[case]))


def test_default_collate_errors():
    both(lambda lib, data: data.default_collate([[1, 2], [3]]))
    both(lambda lib, data: data.default_collate([object(), object()]))
    both(lambda lib, data: data.default_collate([np.array(["a"]), np.array(["b"])]))
    both(lambda lib, data: data.default_collate([lib.ones(2), lib.ones(3)]))


# -- DataLoader -----------------------------------------------------------------------------
LOADER_CONFIGS = [
    {},
    {"batch_size": 4},
    {"batch_size": 4, "drop_last": True},
    {"batch_size": 5, "drop_last": True},
    {"batch_size": 20},
    {"batch_size": None},
    {"batch_size": 3, "sampler": [9, 0, 4, 4, 1]},
    {"batch_sampler": [[0, 1], [5, 3, 2], [9]]},
    {"batch_size": 4, "collate_fn": lambda batch: [len(batch), batch[0][1]]},
]


@pytest.mark.parametrize("config", range(len(LOADER_CONFIGS)))
def test_dataloader_batches_like_torch(config):
    def run(lib, data):
        loader = data.DataLoader(data.TensorDataset(*make_tensors(lib)), **LOADER_CONFIGS[config])
        return [list(loader), len(loader)]
    both(run)


def test_dataloader_dict_and_numpy_samples():
    class Samples:
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"img": np.full((2, 2), i, np.float32), "label": i, "w": 0.5 * i,
                    "name": f"s{i}", "pt": Point(i, [i, -i])}
    both(lambda lib, data: list(data.DataLoader(Samples(), batch_size=2)))
    both(lambda lib, data: list(data.DataLoader(Samples(), batch_size=None))[:2])


def iterable(data, n, with_len=True):
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter((i, float(i)) for i in range(n))
    if with_len:
        Stream.__len__ = lambda self: n
    return Stream()


@pytest.mark.parametrize("kwargs", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                                    {"batch_size": None}, {"batch_size": 4, "drop_last": True}])
def test_dataloader_iterable_dataset(kwargs):
    def run(lib, data):
        loader = data.DataLoader(iterable(data, 10), **kwargs)
        return [list(loader), len(loader)]
    both(run)


def test_dataloader_iterable_len_warning():
    for lib, data in LIBS.values():
        loader = data.DataLoader(iterable(data, 3), batch_size=None)
        len(loader)
        loader.dataset.__class__.__len__ = lambda self: 2   # the dataset now under-reports
        len(loader)
        with pytest.warns(UserWarning, match=r"was reported to be 2\(when accessing len"):
            list(loader)


def test_dataloader_option_errors_like_torch():
    ds = data_ds
    cases = [
        lambda lib, data: data.DataLoader(ds(lib), num_workers=-1),
        lambda lib, data: data.DataLoader(ds(lib), timeout=-1),
        lambda lib, data: data.DataLoader(ds(lib), prefetch_factor=2),
        lambda lib, data: data.DataLoader(ds(lib), persistent_workers=True),
        lambda lib, data: data.DataLoader(ds(lib), sampler=[0], shuffle=True),
        lambda lib, data: data.DataLoader(ds(lib), batch_sampler=[[0]], batch_size=2),
        lambda lib, data: data.DataLoader(ds(lib), batch_sampler=[[0]], shuffle=True),
        lambda lib, data: data.DataLoader(ds(lib), batch_sampler=[[0]], sampler=[0]),
        lambda lib, data: data.DataLoader(ds(lib), batch_sampler=[[0]], drop_last=True),
        lambda lib, data: data.DataLoader(ds(lib), batch_size=None, drop_last=True),
        lambda lib, data: data.DataLoader(ds(lib), batch_size=0),
        lambda lib, data: data.DataLoader(iterable(data, 3), shuffle=True),
        lambda lib, data: data.DataLoader(iterable(data, 3), sampler=[0]),
        lambda lib, data: data.DataLoader(iterable(data, 3), batch_sampler=[[0]]),
        lambda lib, data: len(data.DataLoader(iterable(data, 3, with_len=False))),
        lambda lib, data: iter(data.DataLoader(ds(lib), timeout=1)),
        lambda lib, data: data.DataLoader(ds(lib), multiprocessing_context="spawn"),
    ]
    for case in cases:
        both(case)


def data_ds(lib):
    """A TensorDataset of 10 rows, reached through ``lib.utils.data`` after ``import lib``."""
    return lib.utils.data.TensorDataset(*make_tensors(lib))


def test_dataloader_attributes_frozen_after_init():
    def run(lib, data):
        loader = data.DataLoader(data_ds(lib), batch_size=2)
        loader.batch_size = 3
    both(run)
    loader = ddata.DataLoader(data_ds(dyngrad), batch_size=2)
    loader.collate_fn = ddata.default_convert          # other attributes stay settable
    assert loader.collate_fn is ddata.default_convert


def test_dataloader_shuffle_with_generator():
    ds = data_ds(dyngrad)

    def epoch_orders(seed):
        g = dyngrad.Generator().manual_seed(seed)
        loader = ddata.DataLoader(ds, batch_size=3, shuffle=True, generator=g)
        return [[b[1].tolist() for b in loader] for _ in range(2)]
    orders = epoch_orders(7)
    assert orders == epoch_orders(7)
    for order in orders:
        assert [len(b) for b in order] == [3, 3, 3, 1]
        assert sorted(i for b in order for i in b) == list(range(10))
    assert orders[0] != orders[1]
    # without a generator, the global seed makes the order reproducible
    dyngrad.manual_seed(11)
    a = [b[1].tolist() for b in ddata.DataLoader(ds, batch_size=4, shuffle=True)]
    dyngrad.manual_seed(11)
    assert a == [b[1].tolist() for b in ddata.DataLoader(ds, batch_size=4, shuffle=True)]


def test_dataloader_shuffle_drop_last_lengths_like_torch():
    def run(lib, data):
        loader = data.DataLoader(data_ds(lib), batch_size=3, shuffle=True, drop_last=True)
        return [len(loader), [len(b[1]) for b in loader]]
    both(run)


def test_dataloader_pin_memory_warns_like_torch():
    messages = []
    for lib, data in LIBS.values():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = list(data.DataLoader(data_ds(lib), batch_size=5, pin_memory=True))
        messages.append([str(w.message) for w in caught])
        assert len(batches) == 2
    assert messages[0] == messages[1] and messages[0]


def test_dataloader_draws_one_base_seed_per_epoch():
    """torch draws a base seed from the loader's generator at each iter(); so do we."""
    for lib, data in LIBS.values():
        g = lib.Generator().manual_seed(0)
        iter(data.DataLoader(data_ds(lib), generator=g))
        state = g.get_state()
        g2 = lib.Generator().manual_seed(0)
        lib.empty((), dtype=lib.int64).random_(generator=g2)
        assert lib.equal(g2.get_state(), state)


def test_namespace_after_import():
    assert dyngrad.utils.data.DataLoader is ddata.DataLoader
    assert set(ddata.__all__ if hasattr(ddata, "__all__") else []) <= set(dir(ddata))
    for name in ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
                 "ChainDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
                 "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
                 "DataLoader", "default_collate", "default_convert", "get_worker_info"]:
        assert hasattr(ddata, name) and hasattr(tdata, name), name
