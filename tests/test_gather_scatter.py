"""cat/stack and gather/scatter/fill ops against live torch, beyond the OpInfo database:
``out=`` casts and layouts, index wrapping, overflow and dtype errors, warnings, graphs of the
composites and in-place forms, torch's gradient conventions (amax ties, products with zeros,
the double-backward error), and the documented differences.
"""
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.ops import _registry

LIBS = (dyngrad, torch)


def _np(t):
    return t.detach().numpy().copy() if isinstance(t, torch.Tensor) else np.array(t._data)


def _ints(lib, *shape, dtype="float32", seed=0):
    a = np.random.default_rng(seed).integers(-3, 4, size=shape).astype(dtype)
    return lib.from_numpy(a.copy()) if a.size else lib.zeros(shape, dtype=getattr(lib, dtype))


def _idx(lib, values, dtype="int64"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


def outcome(fn, lib):
    """What ``fn(lib)`` gives, in comparable form, or ("error", type, message)."""
    try:
        result = fn(lib)
    except Exception as e:  # noqa: BLE001 -- compared with torch's
        return ("error", type(e).__name__, str(e))
    return describe(result)


def describe(value):
    if isinstance(value, (tuple, list)):
        return [describe(v) for v in value]
    if isinstance(value, (torch.Tensor, dyngrad.Tensor)):
        return (str(value.dtype), tuple(value.shape), tuple(value.stride()),
                repr(_np(value).tolist()))   # (repr: NaN compares equal)
    return value


def assert_like_torch(fn):
    ours, theirs = outcome(fn, dyngrad), outcome(fn, torch)
    assert ours == theirs, f"\n dyngrad: {ours}\n   torch: {theirs}"


M = [[True, False, True], [False, False, True]]
CASES = {
    # cat / stack: out= casts and layouts, axis=, legacy empty tensors
    "cat out= of a lower category": lambda lib: lib.cat([_ints(lib, 2, 3)] * 2,
                                                        out=lib.empty(0, dtype=lib.int64)),
    "cat out= bool": lambda lib: lib.cat([_ints(lib, 2, dtype="int64")] * 2,
                                         out=lib.empty(0, dtype=lib.bool)),
    "cat out= narrower ints": lambda lib: lib.cat([_ints(lib, 2, dtype="int64")] * 2,
                                                 out=lib.empty(0, dtype=lib.int8)),
    "cat out= keeps its strides": lambda lib: lib.cat([_ints(lib, 2, 3)] * 2,
                                                     out=lib.empty(3, 4).t()),
    "cat out= channels_last": lambda lib: lib.cat(
        [_ints(lib, 2, 3, 2, 2).contiguous(memory_format=lib.channels_last)] * 2, 1,
        out=lib.empty(0)),
    "stack out= is contiguous": lambda lib: lib.stack(
        [_ints(lib, 2, 3, 2, 2).contiguous(memory_format=lib.channels_last)] * 2, 1,
        out=lib.empty(0)),
    "cat out= an input": lambda lib: (lambda x: lib.cat([x, x], out=x))(lib.ones(2, 3)),
    "cat axis=": lambda lib: lib.cat([_ints(lib, 2, 3)] * 2, axis=1),
    "stack axis=": lambda lib: lib.stack([_ints(lib, 2, 3)] * 2, axis=-1),
    "cat all legacy empty, dim out of range": lambda lib: lib.cat([lib.empty(0)] * 2, 5),
    "cat legacy empty between": lambda lib: lib.cat([_ints(lib, 2, 3), lib.empty(0),
                                                     _ints(lib, 3, 3)], 1),
    "cat of a non-list": lambda lib: lib.cat(_ints(lib, 2)),
    "hstack of a non-list": lambda lib: lib.hstack(_ints(lib, 2)),
    "cat element": lambda lib: lib.cat([_ints(lib, 2), 1]),
    "row_stack of nothing": lambda lib: lib.row_stack([]),
    # gather / scatter
    "gather out= of another dtype": lambda lib: lib.gather(
        _ints(lib, 2, 3), 1, _idx(lib, [[0, 1]]), out=lib.empty(0, dtype=lib.float64)),
    "gather out=": lambda lib: lib.gather(_ints(lib, 2, 3), 1, _idx(lib, [[0, 1]]),
                                          out=lib.empty(0)),
    "gather list index": lambda lib: lib.gather(_ints(lib, 2, 3), 1, [[0]]),
    "gather method list index": lambda lib: _ints(lib, 2, 3).gather(1, [[0]]),
    "scatter value wraps into uint8": lambda lib: lib.scatter(
        _ints(lib, 2, 3, dtype="uint8"), 1, _idx(lib, [[0, 1]]), -1),
    "scatter value overflow uint8": lambda lib: lib.scatter(
        _ints(lib, 2, 3, dtype="uint8"), 1, _idx(lib, [[0, 1]]), 300),
    "scatter value float into long": lambda lib: lib.scatter(
        _ints(lib, 2, 3, dtype="int64"), 1, _idx(lib, [[0, 0]]), 2.7, reduce="add"),
    "scatter_add number src": lambda lib: lib.scatter_add(_ints(lib, 2, 3), 1,
                                                          _idx(lib, [[0]]), 1.0),
    "scatter_add_ number src": lambda lib: _ints(lib, 2, 3).scatter_add_(1, _idx(lib, [[0]]),
                                                                          1.0),
    "scatter_reduce 'max' alias": lambda lib: lib.scatter_reduce(
        _ints(lib, 2, 3), 1, _idx(lib, [[0, 0, 1]]), _ints(lib, 2, 3, seed=1), "max"),
    "scatter_reduce integer mean floors": lambda lib: lib.scatter_reduce(
        _ints(lib, 2, 3, dtype="int64"), 1, _idx(lib, [[0, 0, 1], [1, 1, 1]]),
        _ints(lib, 2, 3, dtype="int64", seed=1), "mean", include_self=False),
    "scatter_reduce int8 sum wraps": lambda lib: lib.scatter_reduce(
        lib.tensor([[1, 2, 3]], dtype=lib.int8), 1, _idx(lib, [[0, 0, 1]]),
        lib.tensor([[100, 100, 3]], dtype=lib.int8), "mean"),
    "scatter_reduce bool prod": lambda lib: lib.scatter_reduce(
        lib.tensor([[True, False, True]]), 1, _idx(lib, [[0, 0, 1]]),
        lib.tensor([[True, False, True]]), "prod"),
    "scatter_reduce amax NaN": lambda lib: lib.scatter_reduce(
        lib.tensor([[1.0, 2.0]]), 1, _idx(lib, [[0, 0]]), lib.tensor([[float("nan"), 5.0]]),
        "amax"),
    "scatter_reduce complex amin with empty index": lambda lib: lib.scatter_reduce(
        _ints(lib, 2, dtype="complex64"), 0, lib.empty(0, dtype=lib.int64),
        _ints(lib, 2, dtype="complex64"), "amin"),
    "take_along_dim wraps indices": lambda lib: lib.take_along_dim(
        _ints(lib, 2, 3), _idx(lib, [[-1, 3, 7]]), 1),
    "take_along_dim out=": lambda lib: lib.take_along_dim(
        _ints(lib, 2, 3), _idx(lib, [[-1, 3]]), 1, out=lib.empty(0)),
    "take_along_dim empty size": lambda lib: lib.take_along_dim(
        lib.zeros(2, 0), lib.zeros(2, 1, dtype=lib.int64), 1),
    # index_copy / index_fill / masked_fill
    "index_copy slice shapes (3-d)": lambda lib: lib.index_copy(
        _ints(lib, 2, 3, 4), 0, _idx(lib, [0, 1]), _ints(lib, 2, 4, 4)),
    "index_copy repeated index (last wins)": lambda lib: lib.index_copy(
        _ints(lib, 3), 0, _idx(lib, [0, 0, 1]), lib.tensor([5.0, 6.0, 7.0])),
    "index_copy_ into an expanded tensor": lambda lib: _ints(lib, 3).expand(2, 3).index_copy_(
        0, _idx(lib, [1, 0]), _ints(lib, 2, 3)),
    "index_fill negative index": lambda lib: lib.index_fill(_ints(lib, 2, 3), 1,
                                                            _idx(lib, [-1, -3]), 9.0),
    "index_fill half overflow": lambda lib: lib.index_fill(
        _ints(lib, 2, 3, dtype="float16"), 0, _idx(lib, [1]), 1e6),
    "index_fill complex tensor value": lambda lib: lib.index_fill(
        _ints(lib, 2, 3), 0, _idx(lib, [1]), lib.tensor(1j)),
    "masked_fill_ mask wider than self": lambda lib: _ints(lib, 3).masked_fill_(
        lib.tensor(M), 5.0),
    "masked_fill_ shapes": lambda lib: _ints(lib, 3, 1).masked_fill_(lib.tensor(M), 5.0),
    "masked_fill long with a float tensor": lambda lib: lib.masked_fill(
        _ints(lib, 2, 3, dtype="int64"), lib.tensor(M), lib.tensor(1.5)),
    "masked_fill out=": lambda lib: lib.masked_fill(_ints(lib, 2, 3), lib.tensor(M), 1.0,
                                                    out=lib.empty(0)),
    # nonzero
    "nonzero out= of the right shape keeps its strides": lambda lib: lib.nonzero(
        lib.ones(2, 3), out=lib.empty(6, 2, dtype=lib.int64)),
    "nonzero out= resized": lambda lib: lib.nonzero(_ints(lib, 2, 3),
                                                    out=lib.empty(3, dtype=lib.int64)),
    "nonzero out= float": lambda lib: lib.nonzero(_ints(lib, 2, 3), out=lib.empty(0)),
    "argwhere out=": lambda lib: lib.argwhere(_ints(lib, 2, 3), out=lib.empty(0)),
    "where(condition)": lambda lib: lib.where(_ints(lib, 2, 3) > 0),
    "where(0-dim condition)": lambda lib: lib.where(lib.tensor(1)),
    # ops torch cannot differentiate on complex outputs
    "scatter_reduce of complex tensors requiring grad": lambda lib: lib.scatter_reduce(
        _ints(lib, 2, dtype="complex128").requires_grad_(), 0, _idx(lib, [0]),
        _ints(lib, 1, dtype="complex128"), "sum"),
    "scatter_reduce_ of complex tensors requiring grad": lambda lib: _ints(
        lib, 2, dtype="complex128").requires_grad_().clone().scatter_reduce_(
        0, _idx(lib, [0]), _ints(lib, 1, dtype="complex128"), "sum"),
    "select_scatter of complex tensors requiring grad": lambda lib: lib.select_scatter(
        _ints(lib, 2, dtype="complex128"), _ints(lib, dtype="complex128").requires_grad_(), 0,
        1),
    "slice_scatter of complex tensors requiring grad": lambda lib: lib.slice_scatter(
        _ints(lib, 2, dtype="complex128").requires_grad_(), _ints(lib, 2, dtype="complex128")),
    # *_scatter keep self's strides
    "select_scatter of a sliced tensor": lambda lib: lib.select_scatter(
        _ints(lib, 2, 6)[:, ::2], _ints(lib, 3), 0, 1),
    "slice_scatter of a 3-d slice": lambda lib: lib.slice_scatter(
        _ints(lib, 2, 6, 5)[:, ::2, 1:3], _ints(lib, 2, 3, 1), 2, 1),
    "diagonal_scatter of an expanded tensor": lambda lib: lib.diagonal_scatter(
        _ints(lib, 3).expand(2, 3), _ints(lib, 2)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_like_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_like_torch(CASES[case])


# -- graphs and gradients ------------------------------------------------------------------------
def names(fn, depth=3):
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return [type(fn).__name__, [names(f, depth - 1) for f, _ in fn.next_functions]]


def _leaf(lib, *shape, dtype="float64", seed=0):
    return _ints(lib, *shape, dtype=dtype, seed=seed).requires_grad_()


def _graph_and_grads(fn, lib):
    out, leaves = fn(lib)
    grads = lib.autograd.grad(out.sum(), leaves, allow_unused=True)
    return names(out.grad_fn), [None if g is None else _np(g).tolist() for g in grads]


GRAPHS = {
    "hstack of vectors": lambda lib: (lambda a: (lib.hstack([a[0], a[1]]), [a]))(
        _leaf(lib, 2, 3)),
    "vstack of 0-dim": lambda lib: (lambda a: (lib.vstack([a[0, 0], a[1, 1]]), [a]))(
        _leaf(lib, 2, 3)),
    "dstack of vectors": lambda lib: (lambda a: (lib.dstack([a, a * 2]), [a]))(_leaf(lib, 3)),
    "column_stack of vectors": lambda lib: (lambda a: (lib.column_stack([a, a]), [a]))(
        _leaf(lib, 3)),
    "take_along_dim": lambda lib: (lambda a: (lib.take_along_dim(a, _idx(lib, [[2, 0]]), 1),
                                              [a]))(_leaf(lib, 2, 3)),
    "take_along_dim without dim": lambda lib: (lambda a: (
        lib.take_along_dim(a, _idx(lib, [5, 0, 5])), [a]))(_leaf(lib, 2, 3)),
    "cat with a legacy empty tensor": lambda lib: (lambda a, e: (lib.cat([e, a, e], 1), [a, e]))(
        _leaf(lib, 2, 3), _leaf(lib, 0)),
    "cat of real and complex": lambda lib: (lambda a, c: (lib.cat([a, c]).abs(), [a, c]))(
        _leaf(lib, 2), _leaf(lib, 3, dtype="complex128")),
    "scatter_ on a clone": lambda lib: (lambda a, s: (
        a.clone().scatter_(1, _idx(lib, [[2, 0]]), s), [a, s]))(_leaf(lib, 2, 3),
                                                               _leaf(lib, 1, 2, seed=1)),
    "masked_fill_ with a tensor value": lambda lib: (lambda a, v: (
        a.clone().masked_fill_(a > 0, v), [a, v]))(_leaf(lib, 2, 3), _leaf(lib, seed=2)),
    "index_fill_ with a tensor value": lambda lib: (lambda a, v: (
        a.clone().index_fill_(1, _idx(lib, [2, 2, 0]), v), [a, v]))(_leaf(lib, 2, 3),
                                                                    _leaf(lib, seed=2)),
    "index_copy of a 0-dim source": lambda lib: (lambda a, s: (
        lib.index_copy(a, 0, _idx(lib, [1]), s), [a, s]))(_leaf(lib, 3), _leaf(lib, seed=3)),
    # an excluded self equal to the result still shares the gradient (torch's formula)
    "amax with include_self=False, self equal to the result": lambda lib: (lambda s, src: (
        s.scatter_reduce(0, _idx(lib, [0, 0]), src, "amax", include_self=False), [s, src]))(
        lib.tensor([3.0, 5.0], dtype=lib.float64, requires_grad=True),
        lib.tensor([3.0, 1.0], dtype=lib.float64, requires_grad=True)),
    "amin ties split evenly": lambda lib: (lambda s, src: (
        s.scatter_reduce(0, _idx(lib, [0, 0, 1]), src, "amin"), [s, src]))(
        lib.tensor([1.0, 5.0], dtype=lib.float64, requires_grad=True),
        lib.tensor([1.0, 1.0, 7.0], dtype=lib.float64, requires_grad=True)),
    "prod with zeros": lambda lib: (lambda s, src: (
        s.scatter_reduce(0, _idx(lib, [0, 0, 1, 1]), src, "prod"), [s, src]))(
        lib.tensor([0.0, 2.0], dtype=lib.float64, requires_grad=True),
        lib.tensor([0.0, 3.0, 0.0, 4.0], dtype=lib.float64, requires_grad=True)),
}


@pytest.mark.parametrize("case", list(GRAPHS))
def test_graph_and_gradients_like_torch(case):
    ours = _graph_and_grads(GRAPHS[case], dyngrad)
    theirs = _graph_and_grads(GRAPHS[case], torch)
    assert ours == theirs


def test_prod_double_backward_error_like_torch():
    """Two zeros of src at one position: the first gradient is right, the second raises."""
    results = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        src = lib.tensor([0.0, 0.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = x.scatter_reduce(0, _idx(lib, [0, 0, 1]), src, "prod")
        gx, gs = lib.autograd.grad(y.sum(), (x, src), create_graph=True)
        with pytest.raises(RuntimeError) as info:
            lib.autograd.grad(gs.sum(), (x, src))
        results.append((_np(gx).tolist(), _np(gs).tolist(), type(gs.grad_fn).__name__,
                        str(info.value)))
    assert results[0] == results[1]


def test_legacy_scatter_reduce_has_no_derivative():
    for name, call in (("scatter", lambda lib, x, s: lib.scatter(x, 1, _idx(lib, [[0]]), s,
                                                                 reduce="add")),
                       ("scatter_", lambda lib, x, s: x.clone().scatter_(
                           1, _idx(lib, [[0]]), s, reduce="add"))):
        messages = []
        for lib in LIBS:
            x, s = _leaf(lib, 2, 3), _leaf(lib, 2, 3, seed=1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = call(lib, x, s)
            assert type(y.grad_fn).__name__ == "NotImplemented"
            with pytest.raises(RuntimeError) as info:
                y.sum().backward()
            messages.append(str(info.value))
        assert messages[0] == messages[1] == f"derivative for aten::{name} is not implemented"


# -- kept fill values -------------------------------------------------------------------------------
def test_fills_of_equal_numbers_keep_their_type_and_sign():
    """The fill values _fill_value keeps must not mix 0.0 with -0.0, nor 1 with True or 1.0."""
    got = {}
    for lib in LIBS:
        x, m = lib.ones(3), lib.tensor([True, False, True])
        fills = [0.0, -0.0, 0.0, 1, True, 1.0, -0.0]
        out = [np.copysign(1.0, _np(x.masked_fill(m, v))).tolist() for v in fills]
        out.append([str(lib.zeros(2, dtype=lib.bool).masked_fill(lib.tensor([True, False]),
                                                                  v).dtype) for v in (1, True)])
        got[lib.__name__] = out
    assert got["dyngrad"] == got["torch"]


# -- warnings --------------------------------------------------------------------------------------
def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("name", ["index_fill_", "masked_fill_"])
def test_fill_of_an_expanded_tensor_warns_and_writes_like_torch(name):
    got = {}
    for lib in LIBS:
        x = _ints(lib, 3).expand(2, 3)
        args = (0, _idx(lib, [1]), 7.0) if name == "index_fill_" else (lib.tensor(M), 7.0)
        caught = _warnings_of(lambda: getattr(x, name)(*args))
        got[lib.__name__] = (caught, _np(x).tolist(), x._version)
    assert got["dyngrad"] == got["torch"]


def test_scatter_reduce_argument_warns_once():
    from dyngrad.ops import gather_scatter, pointwise
    pointwise._WARNED.discard(gather_scatter._REDUCE_WARNING)
    x = dyngrad.ones(2, 3)
    call = lambda: x.scatter(1, _idx(dyngrad, [[0]]), dyngrad.ones(1, 1), reduce="add")  # noqa
    assert _warnings_of(call) == [gather_scatter._REDUCE_WARNING]
    assert _warnings_of(call) == []
    assert gather_scatter._REDUCE_WARNING.startswith(
        "The reduce argument of torch.scatter with Tensor src is deprecated")


# -- odds and ends ---------------------------------------------------------------------------------
def test_nonzero_as_tuple_gives_views_of_one_result():
    for lib in LIBS:
        rows, cols = lib.nonzero(lib.tensor([[1, 0], [0, 3]]), as_tuple=True)
        assert rows._base is cols._base is not None
        assert (rows.storage_offset(), cols.storage_offset()) == (0, 2)


def test_nonzero_has_no_gradient():
    x = dyngrad.ones(2, 3, requires_grad=True)
    assert not dyngrad.nonzero(x).requires_grad
    assert not dyngrad.where(x > 0)[0].requires_grad


def test_gather_sparse_grad_gives_a_sparse_gradient_like_torch():
    """sparse_grad=True: the gradient is a sparse COO tensor, each element of the incoming
    gradient at the address it was gathered from, in torch's order."""
    got = {}
    for lib in LIBS:
        x = _leaf(lib, 2, 3)
        y = lib.gather(x, 1, _idx(lib, [[0, 0], [2, 1]]), sparse_grad=True)
        assert y.grad_fn._saved_sparse_grad is True
        (g,) = lib.autograd.grad((y * _ints(lib, 2, 2, dtype="float64", seed=1)).sum(), x)
        got[lib.__name__] = (str(g.layout), _np(g._indices()).tolist(),
                             _np(g._values()).tolist(), g.is_coalesced(),
                             _np(g.to_dense()).tolist())
    assert got["dyngrad"] == got["torch"]


def test_public_cat_and_stack_are_the_registered_primitives():
    """view_backward.py has backward-only cat/stack of the same names; OPS keeps ours."""
    from dyngrad.ops import join
    assert _registry.OPS["cat"] is join._cat and _registry.OPS["stack"] is join._stack
    # (dyngrad.cat is join.cat behind the parser-error frame: Note [Parser errors])
    assert dyngrad.cat.__wrapped__ is join.cat and dyngrad.Tensor.masked_fill is not None
