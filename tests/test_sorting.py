"""Scans, sorting and selection against live torch, beyond the op database (tests/opinfo/scan.py
and sorting.py): ties and which index torch reports, NaN ordering, stable sorts, unique's
options, torch's errors, ``out=`` tuples, named-tuple reprs, and the gradient conventions
(scatter back to the selected index, median's even split, cumprod with zeros).

Where torch's order of ties is not deterministic across machines (``sort(stable=False)`` of
int32/int64/float32/float64 runs x86-simd-sort), only the values are compared and the indices
are checked to be a permutation that yields them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad

NAN, INF = float("nan"), float("inf")
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
XSS = ("int32", "int64", "float32", "float64")


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.array(t._data)


def same(ours, theirs, where=""):
    """Same type (named tuple name), dtype, shape, strides and values (NaN equal, exact)."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours).__name__ == type(theirs).__name__, where
        assert len(ours) == len(theirs), where
        for o, t in zip(ours, theirs):
            same(o, t, where)
        return
    assert str(ours.dtype) == str(theirs.dtype), f"{where}: {ours.dtype} != {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: {ours.shape} != {theirs.shape}"
    assert ours.stride() == theirs.stride(), f"{where}: {ours.stride()} != {theirs.stride()}"
    np.testing.assert_array_equal(_np(ours), _np(theirs), err_msg=where)


def both(fn, *arrays):
    """``fn(lib, *tensors)`` on dyngrad and torch, from the same NumPy arrays."""
    ours = fn(dyngrad, *[dyngrad.from_numpy(a.copy()) for a in arrays])
    theirs = fn(torch, *[torch.from_numpy(a.copy()) for a in arrays])
    return ours, theirs


def check(fn, *arrays, where=""):
    ours, theirs = both(fn, *arrays)
    same(ours, theirs, where)


def raises_like_torch(fn):
    try:
        fn(torch)
    except Exception as e:   # noqa: BLE001
        texc = e
    else:
        raise AssertionError("torch did not raise")
    with pytest.raises(type(texc)) as info:
        fn(dyngrad)
    assert str(info.value) == str(texc)


def tied(rng, shape, dtype, high=3):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    return rng.integers(0, high, shape).astype(dtype)


# -- ties and the index torch reports -------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_stable_sort_keeps_order_of_ties(dtype):
    rng = np.random.default_rng(1)
    for shape, dim in (((4, 50), 1), ((50, 3), 0), ((7,), 0)):
        x = tied(rng, shape, dtype)
        for descending in (False, True):
            check(lambda lib, t: lib.sort(t, dim=dim, descending=descending, stable=True), x,
                  where=f"{shape} {descending}")
            check(lambda lib, t: lib.argsort(t, dim=dim, descending=descending, stable=True), x)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d not in XSS])
def test_unstable_sort_ties_replay_std_sort(dtype):
    """bool/uint8/int8/int16/float16: torch's std::sort (introsort) order of ties, exactly."""
    rng = np.random.default_rng(2)
    for n in (5, 16, 17, 40, 300):
        x = tied(rng, (3, n), dtype)
        for descending in (False, True):
            check(lambda lib, t: lib.sort(t, descending=descending), x, where=f"n={n}")


@pytest.mark.parametrize("dtype", XSS)
def test_unstable_sort_ties_values_only(dtype):
    """int32/int64/float32/float64: torch sorts with x86-simd-sort, whose order of ties depends
    on the CPU; the values match and the indices select them."""
    rng = np.random.default_rng(3)
    x = tied(rng, (3, 60), dtype)
    for descending in (False, True):
        (v, i), (tv, ti) = both(lambda lib, t: lib.sort(t, descending=descending), x)
        same(v, tv)
        assert sorted(_np(i)[0].tolist()) == list(range(60))
        np.testing.assert_array_equal(np.take_along_axis(x, _np(i), 1), _np(tv))


@pytest.mark.parametrize("dtype", ["int64", "float16", "float32", "float64", "uint8"])
def test_topk_ties(dtype):
    rng = np.random.default_rng(4)
    for n, ks in ((10, (1, 3, 5, 10)), (130, (1, 2)), (300, (4, 150))):
        x = tied(rng, (3, n), dtype)
        for k in ks:
            for largest in (True, False):
                for sorted_ in (True, False):
                    check(lambda lib, t: lib.topk(t, k, largest=largest, sorted=sorted_), x,
                          where=f"n={n} k={k} largest={largest} sorted={sorted_}")


@pytest.mark.parametrize("dtype", ["int32", "float16", "float64"])
def test_kthvalue_median_mode_ties(dtype):
    rng = np.random.default_rng(5)
    for n in (3, 8, 17, 60):
        x = tied(rng, (4, n), dtype)
        for k in sorted({1, (n + 1) // 2, n}):
            check(lambda lib, t: lib.kthvalue(t, k, 1), x, where=f"kthvalue n={n} k={k}")
        check(lambda lib, t: lib.median(t, 1), x, where=f"median n={n}")
        check(lambda lib, t: lib.nanmedian(t, 0), x)
        check(lambda lib, t: lib.mode(t, 1), x, where=f"mode n={n}")
        check(lambda lib, t: lib.median(t), x)


def test_cummax_cummin_take_the_last_index_of_equal_extremes():
    x = np.array([[1, 3, 3, 2, 3, 0, 0], [5, 5, 5, 5, 5, 5, 5]], dtype=np.int64)
    for name in ("cummax", "cummin"):
        check(lambda lib, t: getattr(lib, name)(t, 1), x)
    y = np.array([0.0, -0.0, 0.0, -1.0, -0.0, NAN, 2.0, NAN, 5.0])
    for name in ("cummax", "cummin"):
        (v, i), (tv, ti) = both(lambda lib, t: getattr(lib, name)(t, 0), y)
        same(i, ti)
        np.testing.assert_array_equal(np.signbit(_np(v)), np.signbit(_np(tv)))


# -- NaN ordering ---------------------------------------------------------------------------------
SPECIAL = np.array([3.0, NAN, 1.0, -0.0, 0.0, NAN, -INF, INF, 1.0, 3.0])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nan_is_largest(dtype):
    x = SPECIAL.astype(dtype)
    check(lambda lib, t: lib.sort(t, stable=True), x)
    check(lambda lib, t: lib.sort(t, descending=True, stable=True), x)
    for k in (1, 2, 3, 10):
        check(lambda lib, t: lib.topk(t, k), x)
        check(lambda lib, t: lib.topk(t, k, largest=False), x)
        check(lambda lib, t: lib.kthvalue(t, k), x)
    for fn in (lambda lib, t: lib.median(t), lambda lib, t: lib.nanmedian(t),
               lambda lib, t: lib.median(t, 0), lambda lib, t: lib.nanmedian(t, 0),
               lambda lib, t: lib.mode(t), lambda lib, t: lib.cummax(t, 0),
               lambda lib, t: lib.unique(t, return_inverse=True, return_counts=True)):
        check(fn, x)


def test_all_nan_lanes():
    for n in (1, 2, 5, 17, 20):
        check(lambda lib, t: lib.nanmedian(t, 0), np.full(n, NAN), where=f"n={n}")
        check(lambda lib, t: lib.nanmedian(t), np.full(n, NAN))
        check(lambda lib, t: lib.median(t, 0), np.full(n, NAN))


# -- values and dtypes ----------------------------------------------------------------------------
def test_median_is_the_lower_median_without_averaging():
    x = np.array([[4.0, 1.0, 3.0, 2.0]])
    (v, i), _ = both(lambda lib, t: lib.median(t, 1), x)
    assert v.item() == 2.0 and i.item() == 3
    check(lambda lib, t: lib.median(t), x)
    check(lambda lib, t: lib.median(t), np.array([], np.float32))
    for dtype in ("uint8", "int8", "int32", "int64"):
        check(lambda lib, t: lib.median(t), np.array([], dtype))   # NaN cast to the dtype


def test_cumsum_accumulates_in_double_for_float32():
    check(lambda lib, t: lib.cumsum(t, 0), np.array([1e8, 1.0, -1e8], np.float32))
    rng = np.random.default_rng(6)
    for dtype in ("float16", "float32"):
        x = rng.uniform(-1, 1, 5000).astype(dtype)
        check(lambda lib, t: lib.cumsum(t, 0), x, where=dtype)
        check(lambda lib, t: lib.cumprod(t, 0), (1 + x / 100).astype(dtype), where=dtype)


def test_cumsum_dtypes_and_in_place():
    x = np.array([[1, 2, 100], [3, 4, 100]], np.int8)
    check(lambda lib, t: lib.cumsum(t, 1), x)                          # int8 -> int64
    check(lambda lib, t: t.cumsum_(1), x)                              # wraps in int8
    check(lambda lib, t: t.cumprod_(-1), x)
    check(lambda lib, t: lib.cumsum(t, 0, dtype=lib.float16), x)
    check(lambda lib, t: lib.cumsum(t, 1, out=lib.empty(0, dtype=lib.float32)), x)
    check(lambda lib, t: lib.cumsum(t, 1), np.array([True, True, False]).reshape(1, 3))
    check(lambda lib, t: t.cumsum_(0), np.array(True))
    raises_like_torch(lambda lib: lib.tensor([1.0, 2.0]).cumsum_(0, dtype=lib.float64))
    raises_like_torch(lambda lib: lib.tensor([True, False]).cumsum_(0))
    raises_like_torch(lambda lib: lib.tensor([True]).cumsum(0, dtype=lib.bool))
    raises_like_torch(lambda lib: lib.cumsum(lib.tensor([1, 2]), 0, dtype=lib.int64,
                                             out=lib.empty(0)))
    raises_like_torch(lambda lib: lib.ones(2, 3).cumsum(2))
    raises_like_torch(lambda lib: lib.tensor(1.0).cumprod(1))
    raises_like_torch(lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0))
    raises_like_torch(lambda lib: lib.cummax(lib.tensor([1j]), 0))
    raises_like_torch(lambda lib: lib.cummin(lib.tensor(1.0), 1))


def test_logcumsumexp_is_stable():
    x = np.array([[1000.0, -1000.0, 999.0, 1000.0, 1e-30], [-INF, -INF, 0.0, INF, -INF]])
    for dtype in ("float32", "float64"):
        check(lambda lib, t: lib.logcumsumexp(t, 1), x.astype(dtype))
    z = np.array([1 + 2j, 1000 - 1j, -INF + 0j, 3j])
    ours, theirs = both(lambda lib, t: lib.logcumsumexp(t, 0), z)
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-12)


# -- unique ---------------------------------------------------------------------------------------
UNIQUE_OPTIONS = [dict(sorted=s, return_inverse=i, return_counts=c) for s in (True, False)
                  for i in (False, True) for c in (False, True)]


@pytest.mark.parametrize("dtype", ["bool", "int16", "float16", "float64"])
def test_unique_options(dtype):
    rng = np.random.default_rng(7)
    x = tied(rng, (3, 5), dtype)
    for kw in UNIQUE_OPTIONS:
        check(lambda lib, t: lib.unique(t, **kw), x, where=str(kw))
        check(lambda lib, t: t.unique(**kw), x)
        for dim in (0, 1, -1):
            check(lambda lib, t: lib.unique(t, dim=dim, **kw), x, where=f"dim={dim} {kw}")
        kw = {k: v for k, v in kw.items() if k != "sorted"}
        check(lambda lib, t: lib.unique_consecutive(t, **kw), x)
        check(lambda lib, t: lib.unique_consecutive(t, dim=1, **kw), x)
        check(lambda lib, t: lib.unique_consecutive(t, dim=0, **kw), x)


def test_unique_nan_and_signed_zero():
    x = np.array([3.0, NAN, 1.0, -0.0, 0.0, NAN, 2.0, 1.0])
    check(lambda lib, t: lib.unique(t, return_inverse=True, return_counts=True), x)
    check(lambda lib, t: lib.unique_consecutive(t, return_inverse=True, return_counts=True), x)
    rows = np.array([[NAN, 1.0], [NAN, 1.0], [0.0, 2.0], [0.0, 2.0]])
    check(lambda lib, t: lib.unique(t, dim=0, return_inverse=True, return_counts=True), rows)
    half = np.tile(np.array([0.0, -0.0, NAN, 1.0], np.float16), 6)   # std::sort replayed
    check(lambda lib, t: lib.unique(t, return_inverse=True, return_counts=True), half)


def test_unique_errors():
    raises_like_torch(lambda lib: lib.unique(lib.tensor(3.0), dim=0))
    raises_like_torch(lambda lib: lib.unique(lib.ones(2, 0, 3), dim=0))
    raises_like_torch(lambda lib: lib.unique(lib.ones(2, 0, 0), dim=1))
    raises_like_torch(lambda lib: lib.unique(lib.ones(2, 3), dim=2))
    raises_like_torch(lambda lib: lib.unique(lib.tensor([1j])))
    raises_like_torch(lambda lib: lib.unique_consecutive(lib.tensor(3.0), dim=0))


def test_unique_has_no_derivative():
    for fn in (lambda lib, t: lib.unique(t), lambda lib, t: lib.unique(t, dim=0),
               lambda lib, t: lib.unique_consecutive(t)):
        def run(lib):
            t = lib.tensor([1.0, 2.0, 1.0], requires_grad=True)
            out = fn(lib, t)
            assert type(out.grad_fn).__name__ in ("Unique2Backward0", "UniqueDimBackward0",
                                                   "UniqueConsecutiveBackward0")
            out.sum().backward()
        raises_like_torch(run)


# -- errors ---------------------------------------------------------------------------------------
ERRORS = {
    "topk k too large": lambda lib: lib.ones(3).topk(4),
    "topk k negative": lambda lib: lib.ones(3).topk(-1),
    "topk 0-dim k=2": lambda lib: lib.tensor(1.0).topk(2),
    "topk bool": lambda lib: lib.tensor([True]).topk(1),
    "topk complex": lambda lib: lib.tensor([1j]).topk(1),
    "topk dim": lambda lib: lib.ones(2, 3).topk(1, 2),
    "kthvalue k=0": lambda lib: lib.ones(3).kthvalue(0),
    "kthvalue k too large": lambda lib: lib.ones(2, 3).kthvalue(3, 0),
    "kthvalue 0-dim": lambda lib: lib.tensor(1.0).kthvalue(2),
    "kthvalue empty": lambda lib: lib.ones(0).kthvalue(1),
    "kthvalue bool": lambda lib: lib.tensor([True]).kthvalue(1),
    "median empty dim": lambda lib: lib.ones(2, 0).median(1),
    "nanmedian empty dim": lambda lib: lib.ones(2, 0).nanmedian(1),
    "median bool": lambda lib: lib.tensor([True]).median(),
    "median dim bool": lambda lib: lib.tensor([True]).median(0),
    "median complex": lambda lib: lib.tensor([1j]).median(),
    "median dim None": lambda lib: lib.ones(3).median(dim=None),
    "mode empty dim": lambda lib: lib.ones(0).mode(),
    "mode complex": lambda lib: lib.tensor([1j]).mode(),
    "sort complex": lambda lib: lib.tensor([1j]).sort(),
    "argsort complex": lambda lib: lib.tensor([1j]).argsort(),
    "sort dim": lambda lib: lib.ones(2, 3).sort(2),
    # stable= is taken with dim and descending as keywords only, as torch's parser has it
    "sort positional dim with stable": lambda lib: lib.sort(lib.ones(2, 3), 1, stable=True),
    "sort method positional dim with stable": lambda lib: lib.ones(2, 3).sort(1, stable=True),
    "argsort positional dim with stable": lambda lib: lib.argsort(lib.ones(2), 0, stable=True),
    "argsort method positional dim with stable":
        lambda lib: lib.ones(2).argsort(0, True, stable=False),
    "sort 0-dim dim": lambda lib: lib.tensor(1.0).sort(1),
    "cummax 0-dim dim": lambda lib: lib.tensor(1.0).cummax(1),
    "searchsorted side": lambda lib: lib.searchsorted(lib.ones(3), lib.ones(2), side="mid"),
    "searchsorted side vs right": lambda lib: lib.searchsorted(lib.ones(3), lib.ones(2),
                                                              side="left", right=True),
    "searchsorted 0-dim boundaries": lambda lib: lib.searchsorted(lib.tensor(1.0), lib.ones(2)),
    "searchsorted scalar with 2-d": lambda lib: lib.searchsorted(lib.ones(2, 3), 1.0),
    "searchsorted shapes": lambda lib: lib.searchsorted(lib.ones(2, 3), lib.ones(3, 1)),
    "searchsorted sorter shape": lambda lib: lib.searchsorted(lib.ones(3), lib.ones(1),
                                                             sorter=lib.tensor([0, 1])),
    "searchsorted sorter dtype": lambda lib: lib.searchsorted(
        lib.ones(2), lib.ones(1), sorter=lib.tensor([0, 1], dtype=lib.int32)),
    "searchsorted sorter range": lambda lib: lib.searchsorted(lib.ones(2), lib.ones(1),
                                                             sorter=lib.tensor([0, 2])),
    "searchsorted bool": lambda lib: lib.searchsorted(lib.tensor([False]), lib.tensor([True])),
    "searchsorted out dtype": lambda lib: lib.searchsorted(
        lib.ones(2), lib.ones(1), out=lib.empty(0, dtype=lib.int32)),
    "bucketize 2-d boundaries": lambda lib: lib.bucketize(lib.ones(2), lib.ones(2, 2)),
    "bucketize complex": lambda lib: lib.bucketize(lib.tensor([1j]), lib.ones(2)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_error_like_torch(case):
    raises_like_torch(ERRORS[case])


# -- out= -----------------------------------------------------------------------------------------
OUT_CALLS = {
    "sort": lambda lib, x, out: lib.sort(x, 1, out=out),
    "topk": lambda lib, x, out: lib.topk(x, 2, out=out),
    "kthvalue": lambda lib, x, out: lib.kthvalue(x, 2, out=out),
    "median": lambda lib, x, out: lib.median(x, 1, out=out),
    "nanmedian": lambda lib, x, out: lib.nanmedian(x, 0, True, out=out),
    "mode": lambda lib, x, out: lib.mode(x, 1, out=out),
    "cummax": lambda lib, x, out: lib.cummax(x, 1, out=out),
    "cummin": lambda lib, x, out: lib.cummin(x, 0, out=out),
}


@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_out_tuples(name):
    x = np.array([[3.0, 1.0, 2.0, 2.0], [0.0, 5.0, 4.0, 5.0]], np.float32)
    call = OUT_CALLS[name]

    def run(lib, values_dtype="float32", indices_dtype="int64", shape=(0,)):
        out = (lib.empty(shape, dtype=getattr(lib, values_dtype)),
               lib.empty(shape, dtype=getattr(lib, indices_dtype)))
        got = call(lib, lib.from_numpy(x.copy()), out)
        assert got[0] is out[0] and got[1] is out[1]
        return got

    same(run(dyngrad), run(torch))
    raises_like_torch(lambda lib: run(lib, values_dtype="float64"))
    raises_like_torch(lambda lib: run(lib, indices_dtype="int32"))
    raises_like_torch(lambda lib: call(lib, lib.ones(2, 4, requires_grad=True),
                                       (lib.empty(0), lib.empty(0, dtype=lib.int64))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        same(run(dyngrad, shape=(5,)), run(torch, shape=(5,)))
    assert any("was resized" in str(w.message) for w in caught)


def test_single_out():
    x = np.array([[3.0, 1.0], [0.0, 5.0]], np.float32)
    for fn in (lambda lib, t: lib.msort(t.t(), out=lib.empty(0)),
               lambda lib, t: lib.argsort(t, stable=True, out=lib.empty(0, dtype=lib.int64)),
               lambda lib, t: lib.logcumsumexp(t, 0, out=lib.empty(0)),
               lambda lib, t: lib.searchsorted(t[0].sort().values, t, out_int32=True,
                                               out=lib.empty(0, dtype=lib.int32))):
        check(fn, x)
    raises_like_torch(lambda lib: lib.logcumsumexp(lib.ones(2), 0, out=lib.empty(0,
                                                                                dtype=lib.int64)))


# -- named tuples ---------------------------------------------------------------------------------
def test_named_tuple_reprs_and_fields():
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], np.float32)
    calls = [lambda lib, t: lib.sort(t), lambda lib, t: t.topk(2), lambda lib, t: t.kthvalue(1),
             lambda lib, t: t.median(0), lambda lib, t: t.nanmedian(1, True),
             lambda lib, t: t.mode(1), lambda lib, t: t.cummax(1), lambda lib, t: t.cummin(0),
             lambda lib, t: lib.sort(t, out=(lib.empty(0), lib.empty(0, dtype=lib.int64)))]
    for fn in calls:
        ours, theirs = both(fn, x)
        assert repr(ours) == repr(theirs)
        assert type(ours).__name__ == type(theirs).__name__
        assert ours.values is ours[0] and ours.indices is ours[1]
        values, indices = ours
        assert values is ours.values


# -- searchsorted / bucketize ---------------------------------------------------------------------
def test_searchsorted_nan_sorter_and_promotion():
    b = np.array([1.0, 2.0, 2.0, 3.0, NAN])
    v = np.array([[0.0, 2.0, 2.5], [3.0, NAN, 4.0]])
    for right in (False, True):
        check(lambda lib, s, t: lib.searchsorted(s, t, right=right), b, v)
        check(lambda lib, s, t: lib.bucketize(t, s, right=right), b, v)
    check(lambda lib, s, t: lib.searchsorted(s, t, sorter=s.argsort(stable=True)),
          np.array([3.0, 1.0, 2.0, 2.0]), np.array([1.5, 2.0, 9.0]))
    check(lambda lib, s, t: lib.searchsorted(s, t), np.array([1, 2, 3]), np.array([1.5, 2.0]))
    check(lambda lib, s: lib.searchsorted(s, 300), np.array([1, 2, 3], np.int8))   # wraps
    check(lambda lib, s: lib.bucketize(2.5, s), np.array([1.0, 2.0, 3.0]))


def test_searchsorted_noncontiguous_warns_once_like_torch():
    from dyngrad.ops import pointwise
    pointwise._WARNED -= {m for m in pointwise._WARNED if m.startswith("torch.searchsorted()")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = dyngrad.searchsorted(dyngrad.arange(8.0)[::2], dyngrad.ones(2, 3).t())
        theirs = torch.searchsorted(torch.arange(8.0)[::2], torch.ones(2, 3).t())
    texts = [str(w.message) for w in caught]
    for what, line in (("input value", 32), ("boundary", 38)):
        assert (f"torch.searchsorted(): {what} tensor is non-contiguous, this will lower the "
                "performance due to extra data copy when converting non-contiguous tensor to "
                f"contiguous, please use contiguous {what} tensor if possible. This message will "
                "only appear once per program. (Triggered internally at /__w/pytorch/pytorch/"
                f"aten/src/ATen/native/BucketizationUtils.h:{line}.)") in texts
    same(ours, theirs)


# -- gradients ------------------------------------------------------------------------------------
def grads(fn, x, create_graph=False, seed=0):
    """Gradient of ``sum(fn(x) * w)`` (w random, fixed) on both libraries; with create_graph,
    also the gradient of that gradient's weighted sum."""
    out = []
    for lib in (dyngrad, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        y = fn(lib, t)
        y = y[0] if isinstance(y, tuple) else y
        w = lib.from_numpy(np.random.default_rng(seed).standard_normal(tuple(y.shape)))
        g, = lib.autograd.grad((y * w).sum(), t, create_graph=create_graph)
        result = [_np(g)]
        if create_graph:
            v = lib.from_numpy(np.random.default_rng(seed + 1).standard_normal(tuple(g.shape)))
            gg = lib.autograd.grad((g * v).sum(), t, allow_unused=True)[0] \
                if g.requires_grad else None
            result.append(None if gg is None else _np(gg))
        out.append(result)
    return out


def assert_grads_match(fn, x, create_graph=False):
    ours, theirs = grads(fn, x, create_graph)
    for o, t in zip(ours, theirs):
        if t is None:
            assert o is None or not np.any(o)
        else:
            np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12, equal_nan=True)


TIES = np.array([[2.0, 1.0, 2.0, 1.0, 2.0], [0.0, 0.0, 3.0, 3.0, 1.0]])


@pytest.mark.parametrize("name,fn", [
    ("sort", lambda lib, t: lib.sort(t, dim=1, stable=True)),
    ("topk", lambda lib, t: lib.topk(t, 3)), ("kthvalue", lambda lib, t: lib.kthvalue(t, 2)),
    ("median dim", lambda lib, t: lib.median(t, 1)), ("mode", lambda lib, t: lib.mode(t, 1)),
    ("cummax", lambda lib, t: lib.cummax(t, 1)), ("cummin", lambda lib, t: lib.cummin(t, 0)),
    ("median", lambda lib, t: lib.median(t)), ("nanmedian", lambda lib, t: lib.nanmedian(t)),
    ("msort", lambda lib, t: lib.msort(t))])
def test_gradient_goes_to_the_selected_index(name, fn):
    assert_grads_match(fn, TIES)
    assert_grads_match(fn, TIES, create_graph=True)


def test_cumprod_gradient_with_zeros():
    x = np.array([[2.0, 0.0, 3.0, 0.0, 4.0], [0.0, 1.5, -2.0, 0.5, 3.0], [1.0, 2.0, 3.0, 4.0, 0.0],
                  [1.0, NAN, 0.0, INF, 2.0]])
    for dim in (0, 1):
        assert_grads_match(lambda lib, t: lib.cumprod(t, dim), x)
        assert_grads_match(lambda lib, t: lib.cumprod(t, dim), x[:3], create_graph=True)


def test_scan_gradients():
    x = np.random.default_rng(8).standard_normal((3, 6))
    for fn in (lambda lib, t: lib.cumsum(t, 1), lambda lib, t: lib.cumsum(t, 0, dtype=lib.float32),
               lambda lib, t: lib.logcumsumexp(t, 1), lambda lib, t: lib.cumprod(t, -1)):
        assert_grads_match(fn, x)
        assert_grads_match(fn, x, create_graph=True)


def test_graph_names():
    x = dyngrad.tensor([[3.0, 1.0], [2.0, 2.0]], requires_grad=True)
    names = {
        "SortBackward0": x.sort(0).values, "SortBackward1": x.sort(stable=False).values,
        "TopkBackward0": x.topk(1).values, "KthvalueBackward0": x.kthvalue(1).values,
        "MedianBackward0": x.median(), "MedianBackward1": x.median(0).values,
        "NanmedianBackward0": x.nanmedian(), "NanmedianBackward1": x.nanmedian(1).values,
        "ModeBackward0": x.mode().values, "CummaxBackward0": x.cummax(0).values,
        "CumminBackward0": x.cummin(0).values, "CumsumBackward0": x.cumsum(1),
        "CumprodBackward0": x.cumprod(1), "LogcumsumexpBackward0": x.logcumsumexp(0),
        "Unique2Backward0": x.unique(), "UniqueDimBackward0": x.unique(dim=1),
        "UniqueConsecutiveBackward0": x.unique_consecutive(dim=0)}
    for name, t in names.items():
        assert type(t.grad_fn).__name__ == name
    assert x.sort(0).indices.grad_fn is None and not x.argsort().requires_grad
    assert x.sort(0).values.grad_fn._saved_indices.tolist() == [[1, 0], [0, 1]]
