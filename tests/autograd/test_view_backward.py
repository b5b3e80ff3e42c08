"""Backward of the view/shape and indexing ops against live torch.

Every case is one lambda run on both libraries over the same float64 data (tinygrad's trick),
with the input a contiguous leaf, a transposed leaf or a sliced leaf (strides and a storage
offset of its own). For each we compare with torch:

* the graph: ``grad_fn`` names down three levels of ``next_functions``, and the ``_saved_*``
  attributes torch's node has;
* first derivatives: ``autograd.grad((out * w).sum(), x)``;
* the backward's own graph and derivative: ``g = grad(out, x, w, create_graph=True)`` with ``w``
  requiring grad (this runs the backward-of-backward primitives such as
  ``SelectBackwardBackward0``), then ``grad((g * v).sum(), w)``;
* second derivatives: ``grad((grad((out ** 3 * w).sum(), x, create_graph=True) * v).sum(), x)``.
"""
import numpy as np
import pytest
import torch

import dyngrad

LIBS = (dyngrad, torch)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _leaf(lib, arr, layout):
    """A float64 leaf holding `arr`, laid out as `layout` says."""
    if layout == "contiguous" or (layout == "transposed" and arr.ndim < 2):
        t = lib.tensor(arr)
    elif layout == "transposed":   # strides reversed
        t = lib.tensor(np.ascontiguousarray(arr.T)).permute(*reversed(range(arr.ndim)))
    else:                          # "sliced": every other element, storage offset 1
        big = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1] + 1,)) if arr.ndim else np.zeros(2)
        if arr.ndim:
            big[..., 1::2] = arr
            t = lib.tensor(big)[..., 1::2]
        else:
            big[1] = arr
            t = lib.tensor(big)[1]
    return t.detach().requires_grad_()


def _names(fn, depth=3):
    """grad_fn names level by level (None for missing edges)."""
    out = []
    level = [fn]
    for _ in range(depth):
        if not level:
            break
        out.append([None if f is None else type(f).__name__ for f in level])
        level = [n for f in level if f is not None for n, _ in f.next_functions]
    return out


def _np(t):
    if t is None:
        return None
    if isinstance(t, np.ndarray):
        return t
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


def _close(got, want, what):
    if want is None:
        assert got is None, what
        return
    assert got is not None, what
    assert tuple(got.shape) == tuple(want.shape), what
    assert str(got.dtype) == str(want.dtype), what
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-10, atol=1e-12, err_msg=what)


def _saved_value(v):
    """A saved attribute in a comparable form (torch shows negative ints as uint64)."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return v - 2 ** 64 if v >= 2 ** 63 else v
    if isinstance(v, (list, tuple)):
        return tuple(_saved_value(e) for e in v)
    if isinstance(v, (torch.Tensor, dyngrad.Tensor, np.ndarray)):
        return ("tensor", _np(v).tolist())
    return v


def _saved(fn, names=None):
    """{name: value} of a node's ``_saved_*`` attributes (torch's names, or `names`)."""
    if names is None:
        names = [n for n in dir(fn) if n.startswith("_saved_")]
    return {n: _saved_value(getattr(fn, n)) for n in names}


def _outputs(y):
    return tuple(y) if isinstance(y, (tuple, list)) else (y,)


# Note [CopySlices in as_strided's backward]: torch scatters the gradient of a non-overlapping
# as_strided with ``storage.as_strided(...).copy_(grad)``, an in-place copy into a view, which
# records CopySlices; dyngrad calls the out-of-place as_strided_scatter, with the same values.
RENAMED = {"AsStridedScatterBackward0": "CopySlices"}


def _run(lib, fn, arr, layout, seed, saved_names=None):
    """Everything the tests compare, computed with `lib`."""
    rng = np.random.default_rng(seed)
    x = _leaf(lib, arr, layout)
    outs = _outputs(fn(lib, x))
    ws = [lib.tensor(rng.standard_normal(tuple(o.shape))) for o in outs]
    v = lib.tensor(rng.standard_normal(arr.shape))
    res = {"graph": [_names(o.grad_fn) for o in outs],
           "saved": [_saved(o.grad_fn, None if saved_names is None else saved_names[i])
                     for i, o in enumerate(outs)]}
    # first derivative
    loss = sum((o * w).sum() for o, w in zip(outs, ws))
    res["grad"] = lib.autograd.grad(loss, x)[0]
    # the backward's graph, and its derivative w.r.t. the incoming gradient
    wr = [w.clone().requires_grad_() for w in ws]
    outs = _outputs(fn(lib, x))
    g = lib.autograd.grad(outs, x, wr, create_graph=True)[0]
    res["g"] = g
    res["g_graph"] = [[RENAMED.get(n, n) for n in level] for level in _names(g.grad_fn)]
    res["g_requires_grad"] = g.requires_grad   # False where torch returns plain zeros
    res["gw"] = lib.autograd.grad((g * v).sum(), wr, allow_unused=True) if g.requires_grad \
        else [None] * len(wr)
    # second derivative w.r.t. the input
    outs = _outputs(fn(lib, x))
    loss = sum((o ** 3 * w).sum() for o, w in zip(outs, ws))
    g1 = lib.autograd.grad(loss, x, create_graph=True)[0]
    res["g1"] = g1
    res["g2"] = lib.autograd.grad((g1 * v).sum(), x)[0] if g1.requires_grad else None
    return res


def check_like_torch(fn, shape, layout="contiguous", seed=0, graph=True):
    arr = np.random.default_rng(seed + 1).standard_normal(shape)
    want = _run(torch, fn, arr, layout, seed)
    got = _run(dyngrad, fn, arr, layout, seed, [list(d) for d in want["saved"]])
    if graph:
        assert got["graph"] == want["graph"]
        assert got["g_graph"] == want["g_graph"]
        assert got["saved"] == want["saved"]
    assert got["g_requires_grad"] == want["g_requires_grad"]
    for key in ("grad", "g", "g1", "g2"):
        _close(got[key], want[key], key)
    for i, (a, b) in enumerate(zip(got["gw"], want["gw"])):
        _close(a, b, f"gw[{i}]")


# ---------------------------------------------------------------------------------------------
# the cases: (name, fn(lib, x), input shape)
# ---------------------------------------------------------------------------------------------
VIEW_CASES = [
    # pure re-shaping views
    ("view", lambda lib, x: x.view(12, 5) if x.is_contiguous() else x.reshape(12, 5), (3, 4, 5)),
    ("reshape", lambda lib, x: x.reshape(5, -1), (3, 4, 5)),
    ("reshape_copy", lambda lib, x: x.transpose(0, 1).reshape(-1), (3, 4, 5)),
    ("view_as", lambda lib, x: x.contiguous().view_as(lib.zeros(12, 5)), (3, 4, 5)),
    ("reshape_as", lambda lib, x: x.reshape_as(x.new_zeros(20, 3)), (3, 4, 5)),
    ("flatten", lambda lib, x: x.flatten(1), (3, 4, 5)),
    ("flatten_0d", lambda lib, x: x.flatten(), ()),
    ("unflatten", lambda lib, x: x.unflatten(2, (5, 1)), (3, 4, 5)),
    ("transpose", lambda lib, x: x.transpose(0, 2), (3, 4, 5)),
    ("transpose_neg", lambda lib, x: lib.transpose(x, -1, 1), (3, 4, 5)),
    ("swapaxes", lambda lib, x: x.swapaxes(0, 1), (3, 4, 5)),
    ("t", lambda lib, x: x.t(), (3, 4)),
    ("t_1d", lambda lib, x: x.t(), (4,)),
    ("permute", lambda lib, x: x.permute(2, 0, 1), (3, 4, 5)),
    ("permute_neg", lambda lib, x: lib.permute(x, (-2, -1, 0)), (3, 4, 5)),
    ("movedim", lambda lib, x: x.movedim((0, 1), (2, 0)), (3, 4, 5)),
    ("squeeze", lambda lib, x: x.squeeze(), (3, 1, 4, 1)),
    ("squeeze_dim", lambda lib, x: x.squeeze(-1), (3, 1, 4, 1)),
    ("squeeze_dim_noop", lambda lib, x: x.squeeze(0), (3, 1, 4, 1)),
    ("squeeze_dims", lambda lib, x: x.squeeze((0, 1, 3)), (3, 1, 4, 1)),
    ("squeeze_0d", lambda lib, x: x.squeeze(0), ()),
    ("unsqueeze", lambda lib, x: x.unsqueeze(1), (3, 4)),
    ("unsqueeze_neg", lambda lib, x: x.unsqueeze(-1), (3, 4)),
    ("expand", lambda lib, x: x.expand(2, 3, 4, 5), (3, 1, 5)),
    ("expand_0d", lambda lib, x: x.expand(3, 2), ()),
    ("expand_as", lambda lib, x: x.expand_as(lib.zeros(4, 3, 4)), (3, 1)),
    ("alias", lambda lib, x: x[...], (3, 4)),
    ("clone", lambda lib, x: x.clone(), (3, 4)),
    ("contiguous", lambda lib, x: x.t().contiguous(), (3, 4)),
    # views that select part of the input
    ("select", lambda lib, x: x[1], (3, 4, 5)),
    ("select_neg", lambda lib, x: x.select(2, -1), (3, 4, 5)),
    ("slice", lambda lib, x: x[1:3], (3, 4, 5)),
    ("slice_step", lambda lib, x: x[:, ::2, 1:], (3, 4, 5)),
    ("slice_neg", lambda lib, x: x[-2:], (3, 4, 5)),
    ("slice_empty", lambda lib, x: x[:, 4:], (3, 4, 5)),
    ("narrow", lambda lib, x: x.narrow(1, 1, 2), (3, 4, 5)),
    ("getitem_mixed", lambda lib, x: x[1, None, ..., ::3], (3, 4, 5)),
    ("diagonal", lambda lib, x: x.diagonal(), (4, 4)),
    ("diagonal_offset", lambda lib, x: x.diagonal(1, 0, 2), (3, 4, 5)),
    ("diagonal_neg", lambda lib, x: lib.diagonal(x, -1, -1, 0), (3, 4, 5)),
    ("unfold", lambda lib, x: x.unfold(2, 2, 2), (3, 4, 5)),
    ("unfold_overlap", lambda lib, x: x.unfold(1, 3, 1), (3, 4, 5)),
    ("unfold_0d", lambda lib, x: x.unfold(0, 1, 1), ()),
    ("as_strided", lambda lib, x: x.as_strided((3, 4), (5, 1), 2), (3, 4, 5)),
    ("as_strided_overlap", lambda lib, x: x.as_strided((3, 3), (2, 1), 1), (3, 4, 5)),
    ("as_strided_expand", lambda lib, x: x.as_strided((2, 3, 4), (0, 4, 1)), (3, 4)),
    ("as_strided_ones", lambda lib, x: x.as_strided((1, 5, 1), (7, 2, 0)), (3, 4)),
    ("as_strided_empty", lambda lib, x: x.as_strided((0, 2), (1, 1)), (3, 4)),
    ("as_strided_of_view", lambda lib, x: x.t().as_strided((3, 3), (2, 7), 1), (4, 5)),
    ("as_strided_offset_below", lambda lib, x: x[1:].as_strided((2, 2), (4, 1), 0), (3, 4)),
    ("as_strided_of_expanded", lambda lib, x: x.expand(3, 4).as_strided((2, 3), (1, 1)), (4,)),
    # multi-output views, only some outputs used
    ("unbind", lambda lib, x: x.unbind(1)[1:3], (3, 4, 5)),
    ("unbind_all", lambda lib, x: lib.unbind(x), (3, 4)),
    ("split", lambda lib, x: x.split(2, 1)[1], (3, 5)),
    ("split_sizes", lambda lib, x: x.split([1, 3, 1], -1)[::2], (3, 5)),
    ("chunk", lambda lib, x: x.chunk(3, 0)[0], (5, 3)),
    ("tensor_split", lambda lib, x: x.tensor_split([1, 3], 1)[1:], (3, 5)),
    # indexing
    ("index", lambda lib, x: x[[0, 2, 0]], (3, 4, 5)),
    ("index_two", lambda lib, x: x[:, [1, 1, 3], [0, 2, 4]], (3, 4, 5)),
    ("index_separated", lambda lib, x: x[[0, 2], :, [1, 1]], (3, 4, 5)),
    ("index_mask", lambda lib, x: x[lib.tensor([[True, False, True, True]] * 3)], (3, 4, 5)),
    ("index_tensor", lambda lib, x: x[lib.tensor([[2, 0], [1, 2]])], (3, 4)),
    ("index_select", lambda lib, x: x.index_select(1, lib.tensor([0, 3, 3])), (3, 4, 5)),
    ("index_select_0d", lambda lib, x: lib.index_select(x, 0, lib.tensor([0])), ()),
    ("masked_select", lambda lib, x: x.masked_select(lib.tensor([True, False, True, True])),
     (3, 4)),
    ("masked_select_bcast", lambda lib, x: lib.masked_select(x, lib.tensor([[True], [False]])),
     (4,)),
    ("take", lambda lib, x: x.take(lib.tensor([[0, 5], [5, -1]])), (3, 4)),
    ("index_put", lambda lib, x: x.index_put((lib.tensor([0, 2]),), x[1] * 2), (3, 4)),
    ("index_put_acc", lambda lib, x: x.index_put(
        (lib.tensor([0, 0]), lib.tensor([1, 1])), x[2, :2] * 3, accumulate=True), (3, 4)),
    ("index_put_bcast", lambda lib, x: lib.index_put(
        x, (lib.tensor([1, 2]),), x[0, 0] * x[2, 3]), (3, 4)),
    ("index_put_mask", lambda lib, x: x.index_put(
        (lib.tensor([True, False, True]),), x[1, 1:2] + 1), (3, 4)),
]

LAYOUTS = ("contiguous", "transposed", "sliced")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn,shape", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_backward_like_torch(name, fn, shape, layout):
    check_like_torch(fn, shape, layout)


CHAINS = [
    ("t_slice_unsqueeze_expand",
     lambda lib, x: x.t()[1:, ::2].unsqueeze(0).expand(2, 4, 2), (3, 5)),
    ("select_of_transpose_of_view", lambda lib, x: x.reshape(4, 3, 2).transpose(0, 2)[1], (2, 12)),
    ("unfold_then_diagonal", lambda lib, x: x.unfold(1, 3, 1).diagonal(0, 1, 2), (2, 5)),
    ("split_then_index", lambda lib, x: x.split(2)[1][[1, 0, 1]], (5, 3)),
    ("index_then_views", lambda lib, x: x[[2, 0]].t()[1:].unsqueeze(-1), (3, 4)),
    ("expand_then_as_strided", lambda lib, x: x[:, :1].expand(3, 4).as_strided((3, 2), (1, 1)),
     (3, 4)),
    ("select_twice_same_input", lambda lib, x: (x[0], x[:, 1], x.diagonal()), (3, 3)),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn,shape", CHAINS, ids=[c[0] for c in CHAINS])
def test_chains_of_views(name, fn, shape, layout):
    check_like_torch(fn, shape, layout)


# in-place view ops rebase the history of a non-leaf: (name, fn(y) on y = x * 1, input shape)
INPLACE_VIEWS = [
    ("t_", lambda y: y.t_(), (3, 4)),
    ("transpose_", lambda y: y.transpose_(0, 2), (3, 1, 4)),
    ("swapaxes_", lambda y: y.swapaxes_(-1, 0), (3, 1, 4)),
    ("swapdims_", lambda y: y.swapdims_(1, 2), (3, 1, 4)),
    ("squeeze_", lambda y: y.squeeze_(), (3, 1, 4)),
    ("squeeze_dim", lambda y: y.squeeze_(1), (3, 1, 4)),
    ("squeeze_dims", lambda y: y.squeeze_((0, 1)), (3, 1, 4)),
    ("unsqueeze_", lambda y: y.unsqueeze_(-1), (3, 4)),
    ("as_strided_", lambda y: y.as_strided_((2, 2), (1, 2), 1), (3, 4)),
    ("as_strided_no_offset", lambda y: y.as_strided_((3, 2), (1, 3)), (3, 4)),
    ("on_a_view", lambda y: y[1].unsqueeze_(0).t_(), (3, 4)),
]


@pytest.mark.parametrize("name,fn,shape", INPLACE_VIEWS, ids=[c[0] for c in INPLACE_VIEWS])
def test_inplace_view_ops_like_torch(name, fn, shape):
    def through(lib, x):
        y = x * 1
        out = fn(y)
        assert out._version == y._version > 0   # one counter, bumped
        return out
    check_like_torch(through, shape, "transposed")


@pytest.mark.parametrize("fn", [lambda x: x.t_(), lambda x: x[0].unsqueeze_(0),
                                lambda x: x.t()[1:].squeeze_(),
                                lambda x: x.as_strided_((2,), (1,))],
                         ids=["leaf", "view_of_leaf", "view_of_view_of_leaf", "as_strided_"])
def test_inplace_view_ops_on_leaves_raise_like_torch(fn):
    def run(lib):
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        try:
            fn(x)
        except RuntimeError as e:
            return str(e)
        return "no error"
    assert run(dyngrad) == run(torch)
    with torch.no_grad(), dyngrad.no_grad():   # allowed without grad mode
        assert run(dyngrad) == run(torch) == "no error"


# ---------------------------------------------------------------------------------------------
# single scenarios
# ---------------------------------------------------------------------------------------------
def test_unused_split_outputs_count_as_zeros():
    for lib in LIBS:
        x = lib.arange(12.0, dtype=lib.float64).reshape(4, 3).requires_grad_()
        a, b, c = x.split([1, 2, 1])
        (b * 2).sum().backward()
        assert x.grad.tolist() == [[0.0] * 3, [2.0] * 3, [2.0] * 3, [0.0] * 3]


def test_backward_accumulates_through_views_into_leaf():
    def f(lib):
        x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        (x.t() * lib.tensor([1.0, 2.0])).sum().backward()
        (x[1] ** 2).sum().backward()
        x.unsqueeze(0).expand(4, 2, 3).sum().backward()
        return x.grad
    _close(f(dyngrad), f(torch), "grad")


def test_view_dtype_is_not_differentiable():
    for lib in LIBS:
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        y = x * 2
        for dt in (lib.float64, lib.int64, lib.float32):
            v = y.view(dt)
            assert v.grad_fn is None and not v.requires_grad


def test_contiguous_records_clone_only_when_it_copies():
    for lib in LIBS:
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        assert x.contiguous() is x
        assert type(x.t().contiguous().grad_fn).__name__ == "CloneBackward0"


@pytest.mark.parametrize("case", ["leaf", "nonleaf", "nograd"])
def test_resize_errors_like_torch(case):
    def run(lib):
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        t = x if case != "nonleaf" else x * 1
        try:
            if case == "nograd":
                with lib.no_grad():
                    t.resize_(12)
            else:
                t.resize_(12)
        except RuntimeError as e:
            return str(e)
        return tuple(t.shape)
    assert run(dyngrad) == run(torch)


def test_index_put_inplace_on_non_leaf():
    def run(lib):
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        v = lib.tensor(rng.standard_normal(4), requires_grad=True)
        y = x * 2
        out = y.index_put_((lib.tensor([2, 0]),), v * 3, accumulate=False)
        assert out is y
        names = _names(y.grad_fn)
        gx, gv = lib.autograd.grad((y ** 2).sum(), (x, v))
        return names, gx, gv, y._version
    got, want = run(dyngrad), run(torch)
    assert got[0] == want[0]
    _close(got[1], want[1], "gx")
    _close(got[2], want[2], "gv")
    assert got[3] == want[3]


def test_index_put_inplace_on_leaf_raises_like_torch():
    def run(lib):
        x = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        try:
            x.index_put_((lib.tensor([0]),), lib.ones(1, dtype=lib.float64))
        except RuntimeError as e:
            return str(e)
    assert run(dyngrad) == run(torch) is not None


@pytest.mark.parametrize("write", ["exp_", "zero_", "fill_", "copy_", "transpose_",
                                   "setitem"])
def test_inplace_on_a_view_made_to_require_grad_raises_like_torch(write):
    """A view of a leaf that does not require grad, then made to (``requires_grad_``), is a
    leaf; an in-place write on it is refused as a view of a leaf (torch asks whether the base
    is a leaf, not whether it requires grad)."""
    def run(lib):
        base = lib.arange(6.0).reshape(2, 3)
        v = base.view(2, 3).requires_grad_()
        ops = {"exp_": lambda: v.exp_(), "zero_": lambda: v.zero_(),
               "fill_": lambda: v.fill_(1), "copy_": lambda: v.copy_(lib.ones(2, 3)),
               "transpose_": lambda: v.transpose_(0, 1),
               "setitem": lambda: v.__setitem__(0, 2.0)}
        try:
            ops[write]()
        except RuntimeError as e:
            return v.is_leaf, str(e)
    assert run(dyngrad) == run(torch) is not None


def test_index_put_values_only_require_grad():
    def run(lib):
        x = lib.zeros(3, 4, dtype=lib.float64)
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        y = x.index_put((x == 0,), v)
        return _names(y.grad_fn), lib.autograd.grad((y * y).sum(), v)[0]
    got, want = run(dyngrad), run(torch)
    assert got[0] == want[0]
    _close(got[1], want[1], "gv")


SETITEM = {
    "values_require_grad": lambda lib, x, v: (x.detach().clone(), [0, 2], v * 2),
    "mask": lambda lib, x, v: (x.detach().clone(), lib.tensor([True, False, True]), v * 2),
    "self_requires_grad": lambda lib, x, v: (x * 1, ([0, 1], [3, 3]), 5.0),
    "both": lambda lib, x, v: (x * 3, [1], v),
}


@pytest.mark.parametrize("name", list(SETITEM))
def test_setitem_with_index_tensors_records_index_put(name):
    def run(lib, names=None):
        rng = np.random.default_rng(5)
        x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        v = lib.tensor(rng.standard_normal(4), requires_grad=True)
        y, index, value = SETITEM[name](lib, x, v)
        before = y._version
        y[index] = value
        graph = _names(y.grad_fn), y._version - before, _saved(y.grad_fn, names)
        return graph, lib.autograd.grad((y ** 2).sum(), (x, v), allow_unused=True)
    want = run(torch)
    got = run(dyngrad, list(want[0][2]))
    assert got[0] == want[0]
    for a, b in zip(got[1], want[1]):
        _close(a, b, "grad")


def test_reshape_node_like_torch():
    # view when contiguous, _reshape_alias for other viewable layouts, else a copy
    cases = [lambda x: x[:, :, ::2].flatten(0, 1), lambda x: x[:, :, ::2].reshape(12, 3),
             lambda x: x[:, 1:2].reshape(3, 5), lambda x: x.expand(2, 3, 4, 5).reshape(6, 20),
             lambda x: x[0:0].reshape(0, 5), lambda x: x[1].reshape(20),
             lambda x: x.transpose(1, 2).flatten(), lambda x: x[..., None].reshape(3, 4, 5)]

    def run(lib):
        x = lib.tensor(np.arange(60.0).reshape(3, 4, 5), requires_grad=True)
        return [(type(f(x).grad_fn).__name__, f(x).stride()) for f in cases]
    assert run(dyngrad) == run(torch)


def test_saved_version_check_on_take():
    # take saves self (as torch does): modifying it in place breaks the backward alike
    def run(lib):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x * 1
        z = y.take(lib.tensor([0, 2]))
        y.add_(1)
        try:
            z.sum().backward()
        except RuntimeError as e:
            return type(e).__name__, str(e).split(":")[0]
    assert run(dyngrad) == run(torch) is not None


THIRD = {
    "select_unfold": lambda lib, x: x.unfold(1, 2, 1)[1],
    "diagonal_slice": lambda lib, x: x[:, 1:].diagonal(),
    "index": lambda lib, x: x[[2, 0, 2]],
    "index_select": lambda lib, x: x.index_select(1, lib.tensor([3, 0, 3])),
    "masked_select": lambda lib, x: x.masked_select(lib.tensor([True, False, True, True])),
    "take": lambda lib, x: x.take(lib.tensor([1, 7, 1])),
    "as_strided": lambda lib, x: x.as_strided((3, 3), (2, 1), 1),
    "split": lambda lib, x: x.split(1)[2],
}


@pytest.mark.parametrize("name", list(THIRD))
def test_third_derivatives(name):
    def run(lib):
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
        y = (THIRD[name](lib, x) ** 4).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        h, = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        k, = lib.autograd.grad((h * h).sum(), x)
        return g, h, k
    for a, b in zip(run(dyngrad), run(torch)):
        _close(a, b, "derivative")
