"""Ad-hoc tests, against live torch, of dyngrad/ops/aliases.py, split_extra.py and
copy_variants.py beyond the op database: the ``torch.X_`` function forms of in-place methods,
the predicates, warnings, graph structure (node names, ``next_functions``), gradients, memory
sharing and version counters."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import warn_always
from dyngrad.ops.aliases import _INPLACE_FUNCTIONS

LIBS = (dyngrad, torch)


def _np(t):
    t = t.detach()
    return t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


def _same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)
        return
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-12, atol=1e-12)
    assert (ours.grad_fn and ours.grad_fn.name()) == (theirs.grad_fn and theirs.grad_fn.name())


def _error(fn):
    """(type, message) of what ``fn(lib)`` raises on each library."""
    out = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:
            fn(lib)
        out.append((type(info.value), str(info.value)))
    return out


def _assert_same_error(fn):
    ours, theirs = _error(fn)
    assert ours == theirs


def _next_names(t):
    return [(n.name() if n is not None else None, i) for n, i in t.grad_fn.next_functions]


X = np.random.default_rng(0).uniform(0.2, 0.9, (3, 4))


def _x(lib, dtype="float64", values=X):
    return lib.tensor(values, dtype=getattr(lib, dtype))


# -- torch.X_ -------------------------------------------------------------------------------------
_INPLACE_ARGS = {
    "addmv_": lambda lib: (_x(lib)[0, :3], _x(lib)[:3, :3], _x(lib)[1, :3]),
    "as_strided_": lambda lib: (_x(lib), (2, 2), (1, 2)),
    "clamp_": lambda lib: (_x(lib), 0.3, 0.6), "clip_": lambda lib: (_x(lib), 0.3),
    "clamp_max_": lambda lib: (_x(lib), 0.5), "clamp_min_": lambda lib: (_x(lib), 0.5),
    "fill_": lambda lib: (_x(lib), 2.5),
    "gcd_": lambda lib: (lib.tensor([12, 18]), lib.tensor([8, 27])),
    "lcm_": lambda lib: (lib.tensor([12, 18]), lib.tensor([8, 27])),
    "index_put_": lambda lib: (_x(lib), (lib.tensor([0, 2]),), lib.tensor(1.5, dtype=lib.float64),
                                     True),
    "ldexp_": lambda lib: (_x(lib), lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)),
    "xlogy_": lambda lib: (_x(lib), 2.0),
    "nan_to_num_": lambda lib: (lib.tensor([float("nan"), 1.0, float("inf")]), 0.5),
    "round_": lambda lib: (_x(lib) * 10,),
}


@pytest.mark.parametrize("name", _INPLACE_FUNCTIONS)
def test_inplace_function_forms_like_torch(name):
    results = []
    for lib in LIBS:
        args = _INPLACE_ARGS.get(name, lambda lib: (_x(lib),))(lib)
        target = args[0]
        result = getattr(lib, name)(*args)
        assert result is target
        results.append(result)
    _same(*results)


@pytest.mark.parametrize("name", ["exp_", "zero_", "detach_", "ldexp_", "index_put_",
                                  "as_strided_", "sin_", "negative_"])
def test_inplace_function_forms_reject_non_tensors_like_torch(name):
    _assert_same_error(lambda lib: getattr(lib, name)(3))


def test_inplace_function_forms_take_input_by_keyword():
    _same(dyngrad.exp_(input=_x(dyngrad)), torch.exp_(input=_x(torch)))
    _same(dyngrad.fill_(_x(dyngrad), value=3), torch.fill_(_x(torch), value=3))


# -- aliases --------------------------------------------------------------------------------------
@pytest.mark.parametrize("alias,op", [("absolute", "abs"), ("negative", "neg")])
def test_unary_aliases_name_themselves_in_errors(alias, op):
    _assert_same_error(lambda lib: getattr(lib, alias)("a"))
    x = [_x(lib).requires_grad_() for lib in LIBS]
    _same(getattr(x[0], alias)(), getattr(x[1], alias)())
    y = [_x(lib) for lib in LIBS]
    _same(getattr(y[0], alias + "_")(), getattr(y[1], alias + "_")())
    _same(dyngrad.negative_(_x(dyngrad)), torch.negative_(_x(torch)))


@pytest.mark.parametrize("alias", ["greater", "greater_equal", "less", "less_equal",
                                   "not_equal"])
def test_comparison_aliases_in_place(alias):
    results = [getattr(_x(lib), alias + "_")(0.5) for lib in LIBS]
    _same(*results)
    _assert_same_error(lambda lib: getattr(lib.ones(2), alias + "_")(lib.ones(3, 2)))


# -- predicates -----------------------------------------------------------------------------------
def test_predicates_like_torch():
    for fn in (lambda lib: lib.is_same_size(lib.ones(2), lib.ones(2)),
               lambda lib: lib.ones(2).is_same_size(lib.ones(3)),
               lambda lib: lib.is_signed(lib.ones(2, dtype=lib.uint8)),
               lambda lib: lib.is_signed(lib.ones(2, dtype=lib.int8)),
               lambda lib: lib.is_nonzero(lib.tensor([0.0])),
               lambda lib: lib.tensor(float("nan")).is_nonzero(),
               lambda lib: lib.tensor([[1 + 0j]]).is_nonzero(),
               lambda lib: lib.is_nonzero(input=lib.tensor([True])),
               lambda lib: lib.is_inference(lib.ones(2))):
        assert fn(dyngrad) == fn(torch)
    with dyngrad.inference_mode():
        assert dyngrad.is_inference(dyngrad.ones(2))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2).is_nonzero(), lambda lib: lib.ones(0).is_nonzero(),
    lambda lib: lib.is_nonzero(3), lambda lib: lib.is_same_size(lib.ones(2), 3),
    lambda lib: lib.is_signed(3), lambda lib: lib.is_inference(3), lambda lib: lib.detach(3),
    lambda lib: lib.isreal("a"), lambda lib: lib.adjoint(lib.ones(3)),
    lambda lib: lib.fill(lib.ones(2, dtype=lib.uint8), 300),
    lambda lib: lib.fill(lib.ones(2, dtype=lib.int64), 2 + 1j),
])
def test_errors_like_torch(fn):
    _assert_same_error(fn)


# -- detach, adjoint, fill ------------------------------------------------------------------------
def test_detach_function_shares_memory():
    for lib in LIBS:
        x = _x(lib).requires_grad_()
        d = lib.detach(x)
        assert d.grad_fn is None and not d.requires_grad
        d.add_(1)
        assert _np(x)[0, 0] == X[0, 0] + 1


def test_adjoint_is_a_transpose_view_and_warns_on_0d():
    x = [_x(lib).requires_grad_() for lib in LIBS]
    a = [xi.adjoint() for xi in x]
    _same(*a)
    assert a[0]._base is x[0]
    messages = []
    for lib in LIBS:
        with warn_always(lib), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = lib.adjoint(lib.tensor(2.0))
        assert float(r) == 2.0
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def _transposes(lib, shape, dtype):
    """What each of .T, .H, .mT, .mH and adjoint() gives: shape, strides, node, whether it is
    a view of x or x itself, and the warnings on the way; or the error."""
    x = lib.ones(shape, dtype=getattr(lib, dtype), requires_grad=True)
    out = []
    for get in (lambda: x.T, lambda: x.H, lambda: x.mT, lambda: x.mH, x.adjoint):
        with warn_always(lib), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                y = get()
                node = type(y.grad_fn).__name__
                # (torch's conj is a lazy view of x; ours a new tensor: not compared)
                got = (tuple(y.shape), y.stride(), node) + (
                    () if node == "ConjBackward0" else (y._base is x, y is x))
            except RuntimeError as e:
                got = str(e)
        out.append((got, [(str(w.message), w.filename) for w in caught]))
    return out


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_transpose_properties_like_torch(shape, dtype):
    assert _transposes(dyngrad, shape, dtype) == _transposes(torch, shape, dtype)


def test_transpose_properties_warn_once():
    for lib in LIBS:
        counts = []
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lib.ones(3).T, lib.ones(2, 3, 4).T, lib.ones(()).mT
            counts.append(len(caught))
        assert counts[1] == 0, lib.__name__


def test_fill_nodes_and_gradients_like_torch():
    grads = []
    for lib in LIBS:
        x = _x(lib).requires_grad_()
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        t = x.t()
        a, b = lib.fill(t, 3), lib.fill(t, v)
        assert (a.grad_fn.name(), b.grad_fn.name()) == ("FillBackward0", "FillBackward1")
        assert _next_names(b) == [("TBackward0", 0), ("torch::autograd::AccumulateGrad", 0)]
        (a * 2 + b * 3).sum().backward()
        grads.append((x.grad, v.grad))
    _same(grads[0][0], grads[1][0])
    _same(grads[0][1], grads[1][1])


# -- splits ---------------------------------------------------------------------------------------
def test_unsafe_split_pieces_are_not_views_but_share_memory():
    grads = []
    for lib in LIBS:
        x = _x(lib).requires_grad_()
        y = x * 1
        for name, args in (("unsafe_split", (3, 1)), ("unsafe_chunk", (2, 1)),
                           ("unsafe_split_with_sizes", ([1, 2], 0))):
            pieces = getattr(lib, name)(y, *args)
            assert isinstance(pieces, tuple)
            assert all(p._base is None for p in pieces)
        pieces = lib.unsafe_split(y, 2, 1)
        assert pieces[0].grad_fn.name() == "UnsafeSplitBackward0"
        (pieces[0] * 2).sum().backward()
        grads.append(x.grad)
        z = _x(lib)
        lib.unsafe_split(z, 2)[1].fill_(7)
        assert _np(z)[2, 0] == 7
    _same(*grads)


def test_fill_diagonal_wrap_on_a_tall_matrix():
    results, grads = [], []
    for lib in LIBS:
        x = lib.tensor(np.arange(21.0).reshape(7, 3), requires_grad=True)
        y = x * 1
        version = y._version
        y.fill_diagonal_(-1.0, wrap=True)
        assert y._version - version == 2      # two strided fills, as torch
        assert y.grad_fn.name().endswith("CopySlices")
        y.sum().backward()
        results.append(y)
        grads.append(x.grad)
    np.testing.assert_array_equal(_np(results[0]), _np(results[1]))
    _same(*grads)


def test_unravel_index_and_max_pool1d_with_indices_return_tuples():
    _same(dyngrad.unravel_index(dyngrad.tensor([4, 7]), (3, 4)),
          torch.unravel_index(torch.tensor([4, 7]), (3, 4)))
    x = np.random.default_rng(1).random((1, 2, 7))
    _same(dyngrad.max_pool1d_with_indices(dyngrad.tensor(x, requires_grad=True), 3, 2),
          torch.max_pool1d_with_indices(torch.tensor(x, requires_grad=True), 3, 2))


# -- *_copy ---------------------------------------------------------------------------------------
_COPY_CALLS = {
    "permute_copy": lambda lib, t: lib.permute_copy(t, (1, 0)),
    "t_copy": lambda lib, t: lib.t_copy(t),
    "expand_copy": lambda lib, t: lib.expand_copy(t[:, :1], (2, 4, 3)),
    "squeeze_copy": lambda lib, t: lib.squeeze_copy(t[:1], 0),
    "unsqueeze_copy": lambda lib, t: lib.unsqueeze_copy(t, 1),
    "transpose_copy": lambda lib, t: lib.transpose_copy(t, 0, 1),
    "select_copy": lambda lib, t: lib.select_copy(t, 1, 2),
    "slice_copy": lambda lib, t: lib.slice_copy(t, 0, 1, 4, 2),
    "diagonal_copy": lambda lib, t: lib.diagonal_copy(t, 1),
    "split_copy": lambda lib, t: lib.split_copy(t, 3),
    "split_with_sizes_copy": lambda lib, t: lib.split_with_sizes_copy(t, [1, 3]),
    "unbind_copy": lambda lib, t: lib.unbind_copy(t, 1),
    "unfold_copy": lambda lib, t: lib.unfold_copy(t, 0, 2, 1),
    "alias_copy": lambda lib, t: lib.alias_copy(t),
    "view_copy": lambda lib, t: lib.view_copy(t.contiguous(), (2, 6)),
    "as_strided_copy": lambda lib, t: lib.as_strided_copy(t, (2, 2), (1, 2), 1),
    "view_as_real_copy": lambda lib, t: lib.view_as_real_copy(lib.complex(t, t * 2)),
    "detach_copy": lambda lib, t: lib.detach_copy(t),
}


@pytest.mark.parametrize("name", list(_COPY_CALLS))
def test_copy_variants_graph_and_gradients_like_torch(name):
    outs, grads = [], []
    for lib in LIBS:
        x = _x(lib).requires_grad_()
        r = _COPY_CALLS[name](lib, x.t())
        outs.append(r)
        pieces = r if isinstance(r, tuple) else (r,)
        assert all(p.is_contiguous() and p._base is None for p in pieces)
        if name == "detach_copy":
            assert pieces[0].grad_fn.name() == "torch::autograd::NotImplemented"
            continue
        loss = sum(((p.real if p.is_complex() else p) * (k + 2)).sum()
                   for k, p in enumerate(pieces))
        (grad,) = lib.autograd.grad(loss, x)
        grads.append(grad)
    _same(*outs)
    if grads:
        _same(*grads)
    names = [[_next_names(p) for p in (o if isinstance(o, tuple) else (o,))] for o in outs]
    assert names[0] == names[1]


def test_detach_copy_backward_raises_like_torch():
    _assert_same_error(lambda lib: lib.detach_copy(_x(lib).requires_grad_() * 1).sum()
                       .backward())


def test_view_as_complex_copy_refuses_autograd_like_torch():
    _assert_same_error(lambda lib: lib.view_as_complex_copy(
        lib.ones(3, 2, requires_grad=True)))
    with dyngrad.no_grad():
        r = dyngrad.view_as_complex_copy(dyngrad.ones(3, 2, requires_grad=True))
    assert r.dtype is dyngrad.complex64


def test_copy_variants_out_like_torch():
    res = []
    for lib in LIBS:
        out = lib.empty(0, dtype=lib.float64)
        r = lib.permute_copy(_x(lib).t(), (1, 0), out=out)
        assert r is out
        res.append(r)
        out = lib.empty(2, 6, dtype=lib.int32)
        lib.view_copy(_x(lib, "float32"), lib.int32, out=out)
        res.append(out)
    _same(res[0], res[2])
    _same(res[1], res[3])


def test_output_nr_like_torch():
    def numbers(lib):
        x = lib.ones(6, requires_grad=True) * 1
        values, indices = lib.ones(2, 3, requires_grad=True).max(1)
        return ([t.output_nr for t in x.split(2)], x.output_nr, lib.ones(2).output_nr,
                values.output_nr, indices.output_nr)
    assert numbers(dyngrad) == numbers(torch)


@pytest.mark.parametrize("make", [lambda L: L.ones(3).view(3), lambda L: L.ones(2, 3).t(),
                                  lambda L: L.ones(3, requires_grad=True)[:2],
                                  lambda L: L.ones(3, requires_grad=True).detach(),
                                  lambda L: L.ones(3)])
def test_detach__refuses_every_view_like_torch(make):
    """torch refuses detach_() on any view, whether its base requires grad or not; detach()'s
    alias is no view there."""
    outcome = []
    for lib in (torch, dyngrad):
        try:
            make(lib).detach_()
            outcome.append(None)
        except RuntimeError as e:
            outcome.append(str(e))
    assert outcome[0] == outcome[1]
