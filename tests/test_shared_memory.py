"""Tensor.share_memory_, Storage.share_memory_ and nn.Module.share_memory against torch's, in one
process (tests/test_multiprocessing.py checks that the memory really is shared between
processes), and dyngrad's refusal to move memory that aliases it cannot find would lose
(Note [Shared memory] in dyngrad/_shared_memory.py)."""
import gc
import os
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad import _shared_memory


def both(fn):
    return fn(torch), fn(dyngrad)


def same(fn):
    t, d = both(fn)
    assert t == d
    return d


def _storage_ptr(x):
    return x.untyped_storage().data_ptr()


def test_share_memory_moves_the_bytes_and_keeps_the_tensor():
    def run(L):
        x = L.arange(6.).reshape(2, 3)
        x.add_(1)
        before = (x.is_shared(), _storage_ptr(x))
        out = x.share_memory_()
        return [before[0], out is x, x.is_shared(), _storage_ptr(x) != before[1], x.tolist(),
                x.stride(), x.storage_offset(), x._version, x.untyped_storage().nbytes(),
                x.data_ptr() == _storage_ptr(x)]
    same(run)


def test_the_new_memory_is_a_shared_mapping():
    x = dyngrad.arange(4.)
    x.share_memory_()
    seg = _shared_memory.segment_of(x.untyped_storage().buffer)
    assert isinstance(seg, _shared_memory.SharedMap) and len(seg) == 16
    assert os.readlink(f"/proc/self/fd/{seg.fd}").startswith("/memfd:dyngrad-shm")
    assert x._data.base is x.untyped_storage().buffer   # the tensor views the segment


def test_sharing_again_changes_nothing():
    def run(L):
        x = L.ones(3)
        x.share_memory_()
        ptr, version = _storage_ptr(x), x._version
        x.share_memory_()
        x.untyped_storage().share_memory_()
        return [_storage_ptr(x) == ptr, x._version == version, x.is_shared()]
    same(run)


@pytest.mark.parametrize("make", [
    lambda L: L.arange(12.).reshape(3, 4).t(),             # non-contiguous
    lambda L: L.arange(12.)[2:8:2],                        # offset and stride
    lambda L: L.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)[1:],
    lambda L: L.zeros(3, 1).expand(3, 4),                  # zero stride (read-only array)
    lambda L: L.empty(0),
    lambda L: L.empty(0, 3, dtype=L.int32),
    lambda L: L.tensor(3.5),
    lambda L: L.tensor([True, False]),
    lambda L: L.arange(5, dtype=L.int64),
    lambda L: L.tensor([1 + 2j, 3j], dtype=L.complex64),
    lambda L: L.arange(6., dtype=L.float64).reshape(2, 3)[:, 1],
])
def test_geometry_values_and_dtypes_are_kept(make):
    def run(L):
        x = make(L)
        x.share_memory_()
        return [x.is_shared(), x.tolist(), x.shape, x.stride(), x.storage_offset(),
                x.dtype.itemsize, x.untyped_storage().nbytes(), x.data_ptr() - _storage_ptr(x),
                x.is_contiguous()]
    t, d = both(run)
    assert t[0] is True and d == t


def test_views_of_the_tensor_and_its_base_move_along():
    def run(L):
        t = L.arange(6.)
        v = t[1:]
        w = t.view(2, 3).t()
        t.share_memory_()
        v[0] = 100.
        w[2, 1] = -1.
        b = L.arange(4.)
        vv = b[1:]
        vv.share_memory_()   # a view: its base's storage moves, and the base with it
        vv[0] = 9.
        return [v.is_shared(), w.is_shared(), t.tolist(), v.data_ptr() - t.data_ptr(),
                b.is_shared(), vv.is_shared(), b.tolist()]
    same(run)


def test_views_that_change_the_dtype_move_along():
    def run(L):
        c = L.zeros(2, dtype=L.complex64)
        r = L.view_as_real(c)
        f = L.zeros(2)
        i = f.view(L.int32)
        c.share_memory_()
        f.share_memory_()
        r[0, 1] = 5.
        i[0] = 1065353216   # the bits of 1.0
        return [r.is_shared(), c.tolist(), f.tolist(), i.is_shared()]
    same(run)


def test_requires_grad_leaf_nonleaf_and_grad():
    def run(L):
        leaf = L.zeros(3, requires_grad=True)
        leaf.share_memory_()
        (leaf * 2).sum().backward()
        nonleaf = L.ones(2, requires_grad=True) * 3
        nonleaf.share_memory_()
        return [leaf.is_shared(), leaf.requires_grad, leaf.is_leaf, leaf.grad.is_shared(),
                leaf.grad.tolist(), nonleaf.is_shared(), nonleaf.grad_fn.name()]
    same(run)


def test_version_counter_is_kept_for_saved_tensors():
    def run(L):
        a = L.ones(3, requires_grad=True)
        x = L.full((3,), 2.)
        y = a * x   # saves x
        x.share_memory_()
        x.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return [x._version, str(e).split(";")[0]]
    t, d = both(run)
    assert t == d and t[1].startswith("one of the variables needed for gradient computation")


def _refusal(fn):
    with pytest.raises(RuntimeError, match=r"share_memory_\(\): cannot move this tensor to shared "
                                           r"memory: other tensors or arrays view the same memory"):
        fn()


def test_refuses_to_move_memory_that_untracked_aliases_view():
    """torch moves all of these and its aliases follow; dyngrad cannot find them (no registry),
    so it moves nothing rather than leave them on the old memory, and says so."""
    x = dyngrad.zeros(3)
    alias = x.detach()
    _refusal(x.share_memory_)
    assert not x.is_shared()
    x[0] = 5.   # nothing moved: the alias still sees the writes
    assert alias.tolist() == [5., 0., 0.]
    del alias
    x.share_memory_()
    assert x.is_shared()

    y = dyngrad.zeros(3)
    data = y.data
    _refusal(y.share_memory_)
    del data
    z = dyngrad.zeros(3)
    arr = z.numpy()
    _refusal(z.share_memory_)
    arr[1] = 2.
    assert z.tolist() == [0., 2., 0.]
    a = np.zeros(3, np.float32)
    _refusal(dyngrad.from_numpy(a).share_memory_)
    owned = dyngrad.from_numpy(np.zeros(3, np.float32))   # the array is the tensor's alone
    owned.share_memory_()
    assert owned.is_shared()
    leaf = dyngrad.zeros(4, requires_grad=True)   # views of leaves requiring grad are untracked
    view = leaf[1:]
    _refusal(leaf.share_memory_)
    view.share_memory_()   # (but a view knows its base: both move)
    assert leaf.is_shared() and view.data_ptr() - leaf.data_ptr() == 4
    p = dyngrad.nn.Parameter(y)   # y and p share their array
    _refusal(p.share_memory_)
    assert not p.is_shared() and not y.is_shared()


def test_a_tensor_saved_as_an_array_is_an_alias():
    lstm = dyngrad.nn.LSTM(3, 4)
    out, _ = lstm(dyngrad.randn(2, 1, 3))
    with pytest.raises(RuntimeError, match="share_memory_"):
        lstm.share_memory()
    del out, _
    assert lstm.share_memory() is lstm
    assert all(p.is_shared() for p in lstm.parameters())


def test_storage_share_memory():
    def run(L):
        s = L.zeros(4).untyped_storage()   # no tensor views it any more
        ptr = s.data_ptr()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ts = L.zeros(3).storage()
            typed = [ts.share_memory_() is ts, ts.is_shared(), ts._is_shared()]
        return [s.is_shared(), s.share_memory_() is s, s.is_shared(), s.data_ptr() != ptr,
                s.tolist()] + typed
    same(run)


def test_storage_share_memory_refuses_while_a_tensor_views_it():
    """torch points the storage, hence its tensors, at the new memory; a dyngrad Storage cannot
    find the tensors whose arrays view it."""
    y = dyngrad.zeros(3)
    with pytest.raises(RuntimeError, match=r"share_memory_\(\): cannot move this storage to shared "
                                           r"memory: .*Call share_memory_\(\) on the tensor"):
        y.untyped_storage().share_memory_()
    assert not y.is_shared()
    assert y.share_memory_().is_shared()


def test_module_share_memory():
    def run(L):
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4), L.nn.Linear(4, 2))
        opt = L.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(2):
            opt.zero_grad(set_to_none=False)
            m(L.randn(5, 3)).pow(2).sum().backward()
            opt.step()
        weight = m[0].weight
        before = weight.detach().clone()
        out = m.share_memory()
        facts = [out is m, m[0].weight is weight, type(weight).__name__,
                 [p.is_shared() for p in m.parameters()],
                 [p.grad.is_shared() for p in m.parameters()],
                 [b.is_shared() for b in m.buffers()], weight._version]
        opt.zero_grad()
        m(L.randn(5, 3)).pow(2).sum().backward()
        opt.step()   # the optimizer, made before, updates the shared parameters in place
        return facts + [weight.is_shared(), not L.equal(before, weight)]
    same(run)


def test_lazy_module_share_memory_keeps_its_error_then_shares():
    def run(L):
        m = L.nn.LazyLinear(2)
        try:
            m.share_memory()
        except RuntimeError as e:
            msg = str(e)
        m(L.ones(1, 3))
        return [msg, m.share_memory() is m, m.weight.is_shared(), m.bias.is_shared()]
    same(run)


def test_adagrad_share_memory_shares_its_sums():
    def run(L):
        p = L.nn.Parameter(L.ones(2))
        opt = L.optim.Adagrad([p])
        return [opt.share_memory(), opt.state[p]["sum"].is_shared(), p.is_shared()]
    same(run)


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


def test_a_shared_storage_holds_one_file_descriptor():
    gc.collect()
    before = _open_fds()
    xs = [dyngrad.ones(8).share_memory_() for _ in range(5)]
    assert _open_fds() == before + 5
    fds = {_shared_memory.segment_of(x.untyped_storage().buffer).fd for x in xs}
    assert len(fds) == 5 and all(os.readlink(f"/proc/self/fd/{fd}").startswith("/memfd:")
                                 for fd in fds)


def test_segments_close_their_file_descriptors():
    for _ in range(3):   # (warm up whatever opens files once)
        dyngrad.ones(8).share_memory_()
    gc.collect()
    before = _open_fds()
    for _ in range(50):
        x = dyngrad.ones(8).share_memory_()
        v = x[2:]
        del x, v
    gc.collect()
    assert _open_fds() == before
