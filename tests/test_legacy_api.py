"""Removed and deprecated top-level functions against torch: the same errors, warnings, and
(for range, resize_as_, get_device, is_distributed, set_default_tensor_type) results."""
import warnings

import numpy as np
import pytest
import torch

import dyngrad


def _run(L, fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn(L)
            if isinstance(r, (L.Tensor,)):
                out = (str(r.dtype), tuple(r.shape), r.stride(), r.requires_grad,
                       np.asarray(r.detach().numpy() if L is torch else r.detach()._data).tolist())
            else:
                out = r
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            out = (type(e).__name__, str(e))
    return out, [(x.category.__name__, str(x.message)) for x in w]


def _like_torch(fn):
    assert _run(dyngrad, fn) == _run(torch, fn)


_REMOVED = [
    lambda L: L.matrix_rank(L.ones(2, 2)),
    lambda L: L.matrix_rank(L.ones(2, 2), 1e-3, True),
    lambda L: L.matrix_rank(),
    lambda L: L.lstsq(L.ones(2, 2), L.ones(2, 2)),
    lambda L: L.lstsq(L.ones(2, 2)),
    lambda L: L.lstsq(),
    lambda L: L.solve(L.ones(2, 2), L.ones(2, 2)),
    lambda L: L.solve(L.ones(2, 2)),
    lambda L: L.eig(L.ones(2, 2)),
    lambda L: L.eig(L.ones(2, 2), True),
    lambda L: L.symeig(L.ones(2, 2)),
    lambda L: L.symeig(L.ones(2, 2), eigenvectors=True, upper=False),
    lambda L: L.ones(2, 2).solve(L.ones(2, 2)),
    lambda L: L.ones(2, 2).lstsq(L.ones(2, 2)),
    lambda L: L.ones(2, 2).eig(),
    lambda L: L.ones(2, 2).eig(eigenvectors=True),
    lambda L: L.ones(2, 2).symeig(),
    lambda L: L.ones(2, 2).symeig(True),
]


@pytest.mark.parametrize("k", range(len(_REMOVED)))
def test_removed_linalg_raise_like_torch(k):
    _like_torch(_REMOVED[k])


_RANGE = [
    lambda L: L.range(1, 4), lambda L: L.range(0, 1, 0.25), lambda L: L.range(0, 1, 0.1),
    lambda L: L.range(0, 1, 0.1, dtype=L.float64), lambda L: L.range(1, 4, dtype=L.int64),
    lambda L: L.range(1, 10, 3, dtype=L.int32), lambda L: L.range(0.5, 3.7, dtype=L.int64),
    lambda L: L.range(-0.5, 3.7, dtype=L.int64), lambda L: L.range(1, 4, 2),
    lambda L: L.range(4, 1), lambda L: L.range(4, 1, -1), lambda L: L.range(1, 4, 0),
    lambda L: L.range(5), lambda L: L.range(1, 4, requires_grad=True),
    lambda L: L.range(1.5, 4), lambda L: L.range(0, float("inf")),
    lambda L: L.range(1, 4, out=L.empty(4)), lambda L: L.range(0, 2, 0.3, dtype=L.float16),
    lambda L: L.range(-3, 3, 0.7), lambda L: L.range(2, 2), lambda L: L.range(10, 0, -3),
    lambda L: L.range(0, 1, 1 / 3, dtype=L.float64), lambda L: L.range(1, 3, dtype=L.uint8),
]


@pytest.mark.parametrize("k", range(len(_RANGE)))
def test_range_like_torch(k):
    _like_torch(_RANGE[k])


def test_range_default_dtype_float64():
    def fn(L):
        L.set_default_dtype(L.float64)
        try:
            return L.range(0, 1, 0.1)
        finally:
            L.set_default_dtype(L.float32)
    _like_torch(fn)


@pytest.mark.parametrize("fn", [
    lambda L: tuple(L.resize_as_(L.ones(2), L.ones(3, 2)).shape),
    lambda L: L.resize_as_(L.ones(2), L.ones(3, 2)).stride(),
    lambda L: L.resize_as_(L.ones(2), 3),
    lambda L: L.resize_as_(3, L.ones(2)),
    lambda L: L.get_device(L.ones(2)),
    lambda L: L.get_device(3),
    lambda L: L.is_distributed(L.ones(2)),
    lambda L: L.is_distributed(3),
    lambda L: L.ones(2).is_distributed(),
])
def test_small_functions_like_torch(fn):
    _like_torch(fn)


def test_resize_as_keeps_prefix():
    x = dyngrad.arange(4.)
    y = dyngrad.resize_as_(x, dyngrad.ones(2, 2))
    assert y is x and x.tolist() == [[0., 1.], [2., 3.]]


@pytest.mark.parametrize("arg", ["torch.DoubleTensor", "torch.FloatTensor", "torch.HalfTensor",
                                 "torch.IntTensor", "torch.LongTensor", "foo", "torch.float64",
                                 "torch.NoSuchTensor", "DTYPE"])
def test_set_default_tensor_type_like_torch(arg):
    from dyngrad.ops import legacy_removed

    def fn(L):
        a = L.float64 if arg == "DTYPE" else arg
        try:
            L.set_default_tensor_type(a)
            return str(L.get_default_dtype()), str(L.tensor([1.5]).dtype)
        finally:
            L.set_default_dtype(L.float32)

    ours_out, _ = _run(dyngrad, fn)
    theirs_out, _ = _run(torch, fn)
    assert ours_out == theirs_out
    # the deprecation warning, once per process as torch's
    from dyngrad.ops import pointwise
    pointwise._WARNED.discard(legacy_removed._DEFAULT_TYPE_WARNING)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        dyngrad.set_default_tensor_type("torch.DoubleTensor")
        dyngrad.set_default_tensor_type("torch.FloatTensor")
    assert [str(x.message) for x in w] == [legacy_removed._DEFAULT_TYPE_WARNING]
    assert dyngrad.get_default_dtype() is dyngrad.float32
