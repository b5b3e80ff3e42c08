"""DataLoader with worker processes (Note [DataLoader workers]) against torch's: the same
batches in the same order, including what datasets draw from the generators inside workers,
worker_init_fn, get_worker_info, IterableDataset copies, persistent workers, errors, timeouts."""
import dataclasses
import random
import time

import numpy as np
import pytest
import torch

import dyngrad
from compare import torch_part


def _plain(x):
    """A batch as nested Python lists (tensors, arrays and numbers alike)."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (torch.Tensor, dyngrad.Tensor)):
        return np.asarray(x.numpy()).tolist()
    return x


def _random_dataset(lib, n=10):
    class Draws(lib.utils.data.Dataset):
        """Each item draws from the library's generator, NumPy's and Python's, and tells
        which worker fetched it."""
        def __len__(self):
            return n

        def __getitem__(self, i):
            info = lib.utils.data.get_worker_info()
            return (lib.tensor([float(i)]), lib.rand(2), float(np.random.rand()),
                    random.random(), -1 if info is None else info.id)
    return Draws()


def _epochs(lib, epochs=2, **kw):
    g = lib.Generator().manual_seed(7)
    loader = lib.utils.data.DataLoader(_random_dataset(lib), batch_size=3, shuffle=True,
                                       generator=g, **kw)
    return [[_plain(b) for b in loader] for _ in range(epochs)]


@pytest.mark.parametrize("kw", [dict(num_workers=2), dict(num_workers=2, persistent_workers=True),
                                dict(num_workers=3, prefetch_factor=1),
                                dict(num_workers=2, batch_size=None, shuffle=False)])
def test_worker_batches_and_draws_equal_torch(kw):
    kw = dict(kw)
    if kw.get("batch_size", 1) is None:   # no batching: one sample per index
        def run(lib):
            lib.manual_seed(11)   # (the base seed comes from the global generator here)
            loader = lib.utils.data.DataLoader(_random_dataset(lib, 5), **kw)
            return [_plain(b) for b in loader]
        assert run(dyngrad) == run(torch)
        return
    assert _epochs(dyngrad, **kw) == _epochs(torch, **kw)


def test_worker_init_fn_and_worker_info():
    def run(lib):
        def init(worker_id):
            info = lib.utils.data.get_worker_info()
            random.seed(1000 + worker_id * info.num_workers)

        class Info(lib.utils.data.Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                info = lib.utils.data.get_worker_info()
                return (i, info.id, info.num_workers, info.seed - lib.initial_seed(),
                        random.random(), info.dataset is self)
        loader = lib.utils.data.DataLoader(Info(), batch_size=2, num_workers=2,
                                           worker_init_fn=init,
                                           generator=lib.Generator().manual_seed(3))
        return [_plain(b) for b in loader], lib.utils.data.get_worker_info()
    assert run(dyngrad) == run(torch)


def _iterable_dataset(lib, shard):
    class Numbers(lib.utils.data.IterableDataset):
        def __iter__(self):
            info = lib.utils.data.get_worker_info()
            start, step = (0, 1) if info is None or not shard else (info.id, info.num_workers)
            stop = 7 if info is None or info.id == 0 else 4   # uneven: worker 1 ends first
            return iter(range(start, stop, step))
    return Numbers()


@pytest.mark.parametrize("shard", [False, True])
@pytest.mark.parametrize("kw", [dict(batch_size=2), dict(batch_size=2, drop_last=True),
                                dict(batch_size=None), dict(batch_size=2,
                                                            persistent_workers=True)])
def test_iterable_dataset_in_workers(shard, kw):
    def run(lib):
        loader = lib.utils.data.DataLoader(_iterable_dataset(lib, shard), num_workers=2, **kw)
        return [[_plain(b) for b in loader] for _ in range(2)]
    assert run(dyngrad) == run(torch)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 -- compared with torch's
        # (torch's re-raise keeps its exception in a reference cycle with the iterator that
        # raised it; without the traceback the iterator is freed now and shuts its workers
        # down at once, instead of in some later collection, which waits 5 s for them)
        e.__traceback__ = None
        return type(e).__name__, str(e)
    return None


def test_worker_error_is_raised_with_its_traceback():
    def run(lib):
        class Failing(lib.utils.data.Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, i):
                if i == 5:
                    raise ValueError(f"bad item {i}")
                return i
        return _error(lambda: list(lib.utils.data.DataLoader(Failing(), batch_size=2,
                                                             num_workers=2)))
    (tname, tmsg), (dname, dmsg) = run(torch), run(dyngrad)
    assert dname == tname == "ValueError"
    assert dmsg.splitlines()[:2] == tmsg.splitlines()[:2] == [
        "Caught ValueError in DataLoader worker process 0.",
        "Original Traceback (most recent call last):"]
    assert dmsg.splitlines()[-1] == tmsg.splitlines()[-1] == "ValueError: bad item 5"


def test_worker_init_error_and_key_error():
    def run(lib, init, key):
        class Items(lib.utils.data.Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, i):
                return {}[i] if key else i
        return _error(lambda: list(lib.utils.data.DataLoader(Items(), num_workers=1,
                                                             worker_init_fn=init)))

    def bad_init(worker_id):
        raise RuntimeError("no init")
    for init, key in ((bad_init, False), (None, True)):
        (tname, tmsg), (dname, dmsg) = run(torch, init, key), run(dyngrad, init, key)
        assert dname == tname
        assert dmsg.splitlines()[0] == tmsg.splitlines()[0]
        assert dmsg.splitlines()[-1] == tmsg.splitlines()[-1]


def test_timeout_message():
    def run(lib):
        class Slow(lib.utils.data.Dataset):
            def __len__(self):
                return 2

            def __getitem__(self, i):
                time.sleep(1.0)
                return i
        return _error(lambda: next(iter(lib.utils.data.DataLoader(Slow(), num_workers=1,
                                                                  timeout=0.2))))
    assert run(dyngrad) == run(torch) == ("RuntimeError",
                                          "DataLoader timed out after 0.2 seconds")


def test_worker_info_is_frozen():
    errors = []
    for lib in (torch, dyngrad):
        info_cls = type(lib.utils.data.get_worker_info) and \
            lib.utils.data._utils.worker.WorkerInfo if lib is torch else \
            dyngrad.utils.data._worker.WorkerInfo
        info = info_cls(id=0, num_workers=1, seed=5, dataset=None)
        errors.append((repr(info), _error(lambda: setattr(info, "id", 3)),
                       dataclasses.asdict(info)))
    assert errors[0][0] == errors[1][0]
    assert errors[0][1][1] == errors[1][1][1] == "cannot assign to field 'id'"
    assert errors[0][2] == errors[1][2]
    assert torch_part(errors[1][1][1]) == errors[0][1][1]


def test_too_many_workers_warns_as_torch():
    import os
    import warnings
    n = len(os.sched_getaffinity(0)) + 1
    texts = []
    for lib in (torch, dyngrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loader = lib.utils.data.DataLoader(list(range(4)), num_workers=n)
            batches = [_plain(b) for b in loader]
        texts.append(([str(w.message) for w in caught], batches))
    assert texts[0] == texts[1]
    assert len(texts[0][0]) == 2 and "worker processes in total" in texts[0][0][0]


def test_worker_threads():
    def run(lib):
        class Threads(lib.utils.data.Dataset):
            def __len__(self):
                return 2

            def __getitem__(self, i):
                return lib.get_num_threads()
        return [_plain(b) for b in lib.utils.data.DataLoader(Threads(), num_workers=1)]
    assert run(dyngrad) == run(torch) == [[1], [1]]


def test_a_worker_leaving_early_does_not_stop_the_others():
    """A worker whose iterable dataset ends first exits mid-epoch. It must let its result-queue
    thread finish writing: a worker that exited holding the queue's write lock once left the
    other worker's results stuck, and the loader waited forever (Note [Leaving the result
    queue]). `timeout` turns such a wait into an error here; the hang showed within a few
    loaders."""
    loader = dyngrad.utils.data.DataLoader(_iterable_dataset(dyngrad, False), num_workers=2,
                                           batch_size=None, timeout=20)
    for _ in range(12):
        assert sorted(int(b) for b in loader) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6]
