"""Sparse COO tensors against live torch: making them, their reprs and accessors, the ops with
sparse kernels (and torch's refusal of the others), their gradients (sparse where torch's are),
the engine's sums of sparse gradients, nn.Embedding(sparse=True), gather(sparse_grad=True) and
the optimizers that take or refuse sparse gradients."""
import gc
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.ops import _dispatch

warnings.filterwarnings("ignore", message="Sparse invariant checks")


def _layout_free(message: str) -> str:
    """A dispatcher error up to its list of backends (torch's list is longer than ours)."""
    return message.split(" is only available for these backends")[0]


def describe(L, r):
    if isinstance(r, (tuple, list)):
        return type(r).__name__, tuple(describe(L, x) for x in r)
    if not isinstance(r, L.Tensor):
        return r if not isinstance(r, (L.dtype, L.layout, L.Size)) else str(r)
    grad_fn = type(r.grad_fn).__name__ if r.grad_fn is not None else None
    head = (str(r.layout), tuple(r.shape), str(r.dtype), r.requires_grad, grad_fn)
    if r.is_sparse:
        return head + (r._indices().tolist(), r.detach()._values().tolist(), r.is_coalesced(),
                       r._nnz(), r.sparse_dim(), r.dense_dim(), repr(r.detach()))
    return head + (r.detach().tolist(), r.stride())


def outcome(L, fn):
    try:
        return describe(L, fn(L))
    except Exception as e:   # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, _layout_free(str(e))


def same(fn):
    expected = outcome(torch, fn)
    got = outcome(dyngrad, fn)
    assert got == expected


def _i(L):
    return L.tensor([[0, 1, 1], [2, 0, 2]])


def _s(L, requires_grad=False, values=(3., 4., 5.)):
    return L.sparse_coo_tensor(_i(L), L.tensor(values), (2, 3), requires_grad=requires_grad)


def _dup(L):
    """Uncoalesced, with a repeated address (1, 0) and its addresses out of order."""
    return L.sparse_coo_tensor([[1, 0, 1], [0, 2, 0]], [1., 2., 3.], (2, 3))


def _hybrid(L):
    return L.sparse_coo_tensor([[1, 3, 1]], L.arange(6.).reshape(3, 2), (5, 2))


def _dense(L):
    return L.arange(6.).reshape(2, 3)


MAKING = {
    "basic": lambda L: _s(L),
    "no_size": lambda L: L.sparse_coo_tensor(_i(L), L.tensor([3., 4., 5.])),
    "lists": lambda L: L.sparse_coo_tensor([[0], [1]], [2.], (2, 2)),
    "int_values": lambda L: L.sparse_coo_tensor([[0], [1]], [2], (2, 2)),
    "bool_values": lambda L: L.sparse_coo_tensor([[0]], [True], (2,)),
    "dtype": lambda L: L.sparse_coo_tensor(_i(L), [3., 4., 5.], (2, 3), dtype=L.float64),
    "int32_indices": lambda L: L.sparse_coo_tensor(L.tensor([[0]], dtype=L.int32), [1.], (2,)),
    "hybrid": _hybrid,
    "size_only": lambda L: L.sparse_coo_tensor(size=(2, 3)),
    "requires_grad": lambda L: _s(L, True),
    "duplicates": _dup,
    "is_coalesced_kw": lambda L: L.sparse_coo_tensor([[0, 1]], [1., 2.], (2,),
                                                     is_coalesced=True),
    "one_element_is_coalesced": lambda L: L.sparse_coo_tensor([[1]], [1.], (2,)),
    "bad_size_unchecked": lambda L: L.sparse_coo_tensor(_i(L), [3., 4., 5.], (1, 1)),
    "index_out_of_size": lambda L: L.sparse_coo_tensor([[0, 5]], [1., 2.], (2,),
                                                       check_invariants=True),
    "1d_indices": lambda L: L.sparse_coo_tensor([0, 1], [1., 2.], (2,)),
    "nnz_mismatch": lambda L: L.sparse_coo_tensor([[0, 1]], [1.], (2,)),
    "size_rank": lambda L: L.sparse_coo_tensor([[0, 1]], [1., 2.], (2, 3, 4)),
    "values_rank": lambda L: L.sparse_coo_tensor([[0]], [[1.]], (2,)),
    "to_sparse": lambda L: L.tensor([[0., 1.], [2., 0.]]).to_sparse(),
    "to_sparse_dim": lambda L: L.tensor([[0., 1.], [2., 0.]]).to_sparse(1),
    "to_sparse_3d": lambda L: L.tensor([[[0., 1.], [0., 0.]], [[2., 0.], [0., 3.]]]).to_sparse(),
}

ACCESS = {
    "layout": lambda L: (_s(L).layout, _dense(L).layout, L.sparse_coo),
    "flags": lambda L: (_s(L).is_sparse, _dense(L).is_sparse, _s(L).device.type),
    "metadata": lambda L: (_s(L).shape, _s(L).dtype, _s(L).numel(), _s(L).dim(),
                           _s(L).element_size(), _s(L).stride(), _s(L).is_contiguous()),
    "nnz": lambda L: (_s(L)._nnz(), _dup(L)._nnz(), _hybrid(L)._nnz()),
    "dims": lambda L: (_hybrid(L).sparse_dim(), _hybrid(L).dense_dim(), _dense(L).sparse_dim(),
                       _dense(L).dense_dim()),
    "is_coalesced": lambda L: (_s(L).is_coalesced(), _s(L).coalesce().is_coalesced()),
    "indices_uncoalesced": lambda L: _s(L).indices(),
    "values_uncoalesced": lambda L: _s(L).values(),
    "_indices": lambda L: _dup(L)._indices(),
    "_values": lambda L: _dup(L)._values(),
    "coalesced_accessors": lambda L: (_dup(L).coalesce().indices(),
                                      _dup(L).coalesce().values()),
    "coalesce": lambda L: _dup(L).coalesce(),
    "to_dense": lambda L: (_dup(L).to_dense(), _hybrid(L).to_dense()),
    "to_dense_dtype": lambda L: _s(L).to_dense(L.float64),
    "numpy": lambda L: _s(L).numpy(),
    "tolist": lambda L: _s(L).tolist(),
    "item": lambda L: _s(L).item(),
    "data_ptr": lambda L: _s(L).data_ptr(),
    "storage": lambda L: _s(L).untyped_storage(),
    "strided_values": lambda L: _dense(L).values(),
    "strided_indices": lambda L: _dense(L).indices(),
    "strided__values": lambda L: _dense(L)._values(),
    "strided__nnz": lambda L: _dense(L)._nnz(),
    "strided_coalesce": lambda L: _dense(L).coalesce(),
    "strided_is_coalesced": lambda L: _dense(L).is_coalesced(),
    "detach": lambda L: _s(L, True).detach(),
    "zeros_like": lambda L: L.zeros_like(_s(L)),
    "empty_like_layout": lambda L: L.empty_like(_s(L)).layout,
    "ones_like": lambda L: L.ones_like(_s(L)),
    "zero_": lambda L: _s(L).clone().zero_(),
    "type_name": lambda L: (_s(L).type(), _s(L).double().type()),
    "coalesced_is_itself": lambda L: (lambda c: c.coalesce() is c)(_dup(L).coalesce()),
    "coalesce_leaf_requiring_grad": lambda L: L.sparse_coo_tensor(
        [[0]], [2.], (2,), requires_grad=True).coalesce(),
    "float_indices": lambda L: L.sparse_coo_tensor(L.tensor([[0.]]), [2.], (2,)),
    "deepcopy": lambda L: __import__("copy").deepcopy(_dup(L)),
    "pickle": lambda L: (lambda p: p.loads(p.dumps(_s(L, True))))(__import__("pickle")),
    "nonzero_no_kernel": lambda L: _s(L).nonzero(),
}

OPS = {
    "neg": lambda L: -_dup(L),
    "mul_number": lambda L: (_dup(L) * 2, _dup(L).coalesce() * 2),
    "div_number": lambda L: _s(L) / 2,
    "mul_dense": lambda L: _s(L) * L.ones(2, 3),
    "mul_sparse": lambda L: _s(L).coalesce() * _s(L).coalesce(),
    "sqrt": lambda L: _dup(L).sqrt(),
    "tanh_abs": lambda L: (_s(L).tanh(), (-_s(L)).abs()),
    "pow": lambda L: _dup(L).pow(2),
    "relu": lambda L: L.relu(-_s(L)),
    "add_sparse": lambda L: _s(L) + _s(L),
    "add_walk": lambda L: _dup(L) + L.sparse_coo_tensor([[0, 1], [1, 0]], [10., 20.], (2, 3)),
    "add_coalesced": lambda L: _dup(L).coalesce() + L.sparse_coo_tensor(
        [[0, 1], [1, 0]], [10., 20.], (2, 3)).coalesce(),
    "add_alpha": lambda L: L.add(_s(L), _dup(L), alpha=3),
    "sub_sparse": lambda L: _s(L) - _dup(L),
    "add_dense_sparse": lambda L: (L.ones(2, 3) + _dup(L), L.ones(2, 3) - _s(L)),
    "add_sparse_dense": lambda L: _s(L) + L.ones(2, 3),
    "add_sparse_number": lambda L: _s(L) + 1,
    "add_shapes": lambda L: L.ones(3, 3) + _s(L),
    "add_empty": lambda L: (L.sparse_coo_tensor(size=(2, 3)) + _dup(L),
                            _dup(L) + L.sparse_coo_tensor(size=(2, 3))),
    "add_noncontiguous_values": lambda L: _hybrid(L) + L.sparse_coo_tensor(
        [[1, 3, 1]], L.ones(1, 2).expand(3, 2), (5, 2)),
    "inplace_add": lambda L: (lambda a: (a.add_(a), a))(_hybrid(L).clone()),
    "dense_add_": lambda L: L.zeros(2, 3).add_(_dup(L), alpha=-2),
    "dense_add_fma": lambda L: (lambda g: L.full((4, 3), 0.1).add_(L.sparse_coo_tensor(
        L.tensor(g.integers(0, 4, (1, 40))), L.tensor(g.standard_normal((40, 3)).astype(
            np.float32)), (4, 3)), alpha=-0.3))(np.random.default_rng(0)),
    "mul_": lambda L: _dup(L).mul_(3),
    "copy_dense_sparse": lambda L: L.zeros(2, 3).copy_(_s(L)),
    "copy_sparse": lambda L: L.sparse_coo_tensor(size=(2, 3)).copy_(_dup(L)),
    "sum": lambda L: (_dup(L).sum(), _s(L).sum(dtype=L.float64)),
    "sparse_sum": lambda L: (L.sparse.sum(_dup(L)), L.sparse.sum(_hybrid(L), 0),
                             L.sparse.sum(_hybrid(L), 1), L.sparse.sum(_s(L), (0,))),
    "t": lambda L: (_s(L).t(), _s(L).coalesce().t(), _s(L).transpose(0, 1)),
    "mm": lambda L: (L.mm(_dup(L), L.arange(6.).reshape(3, 2)), _s(L) @ L.ones(3, 2),
                     L.ones(2, 2) @ _s(L), L.matmul(_s(L), L.ones(3, 1))),
    "mm_shapes": lambda L: L.mm(_s(L), L.ones(2, 2)),
    "sparse_mm": lambda L: L.sparse.mm(_s(L), L.ones(3, 2)),
    "spmm": lambda L: L.spmm(_s(L), L.ones(3, 2)),
    "mv": lambda L: L.mv(_s(L), L.ones(3)),
    "sparse_addmm": lambda L: L.sparse.addmm(L.ones(2, 2), _s(L), L.ones(3, 2), beta=2.,
                                             alpha=.5),
    "addmm": lambda L: L.addmm(L.ones(2, 2), _s(L), L.ones(3, 2)),
    **{f"sparse_addmm_int_{beta}_{alpha}": (lambda beta, alpha: lambda L: L.sparse.addmm(
        L.ones(3, 2, dtype=L.int16), L.ones(3, 4, dtype=L.int16).to_sparse(),
        L.ones(4, 2, dtype=L.int16), beta=beta, alpha=alpha))(beta, alpha)
       for beta, alpha in [(0.0, -1.0), (2.0, 3.0), (2, 3.0), (1, 2.5), (0.0, 0.5), (1.0, 2),
                           (300, 1)]},
    "clone": lambda L: (_dup(L).clone(), _s(L).coalesce().clone()),
    "neg_bool": lambda L: -L.sparse_coo_tensor([[0]], [True], (2,)),
    "mul_int_by_float": lambda L: L.sparse_coo_tensor([[0]], [2], (2,)) * 1.5,
    "permute": lambda L: (_s(L).T, _s(L).permute(1, 0), _hybrid(L).permute(0, 1)),
    "permute_dense_dim": lambda L: _hybrid(L).permute(1, 0),
    "sum_dim": lambda L: (_s(L).sum(1), _hybrid(L).sum(0), _hybrid(L).sum(1)),
    "sum_keepdim": lambda L: (_s(L).sum(0, keepdim=True), _hybrid(L).sum(1, keepdim=True),
                              _s(L).sum((0, 1), keepdim=True)),
    "unsqueeze": lambda L: (_s(L).unsqueeze(0), _hybrid(L).unsqueeze(2),
                            _hybrid(L).unsqueeze(1)),
    "dense_mul_": lambda L: L.ones(2, 3).mul_(_dup(L)),
    "mul_broadcast": lambda L: (_s(L) * L.arange(3.), L.arange(3.) * _s(L)),
    "mul_shapes": lambda L: _s(L) * L.ones(3, 3),
    "mul_sparse_shapes": lambda L: _s(L) * _s(L).t(),
    "pow_zero": lambda L: _s(L).pow(0),
    "div_dense": lambda L: (L.ones(2, 3) / _s(L), _s(L) / L.ones(2, 3)),
    "to": lambda L: (_s(L).double(), _s(L).to(L.float64), _s(L).float()),
    "contiguous": lambda L: _s(L).contiguous(),
    "sparse_mask": lambda L: L.ones(2, 3).sparse_mask(_s(L).coalesce()),
    "sparse_mask_strided": lambda L: L.ones(2, 3).sparse_mask(L.ones(2, 3)),
    "no_kernel_exp": lambda L: _s(L).exp(),
    "no_kernel_eq": lambda L: _s(L) == _s(L),
    "no_kernel_view": lambda L: _s(L).view(6),
    "no_kernel_max": lambda L: _s(L).max(),
    "no_kernel_sigmoid": lambda L: _s(L).sigmoid(),
}


@pytest.mark.parametrize("case", sorted(MAKING))
def test_making_like_torch(case):
    same(MAKING[case])


@pytest.mark.parametrize("case", sorted(ACCESS))
def test_accessors_like_torch(case):
    same(ACCESS[case])


@pytest.mark.parametrize("case", sorted(OPS))
def test_ops_like_torch(case):
    same(OPS[case])


def _grads(L, fn, *leaves):
    out = fn(*leaves)
    return describe(L, out), describe(L, L.autograd.grad(out, leaves, allow_unused=True))


def _backward(L, fn, *leaves):
    out = fn(*leaves)
    out.backward()
    return describe(L, out), describe(L, tuple(t.grad for t in leaves))


GRADS = {
    "sparse_mm": lambda L: _backward(L, lambda s, d: L.sparse.mm(s, d).sum(), _s(L, True),
                                     L.ones(3, 2, requires_grad=True)),
    "mm_gives_dense": lambda L: _backward(L, lambda s, d: L.mm(s, d).sum(), _s(L, True),
                                          L.ones(3, 2, requires_grad=True)),
    "to_dense": lambda L: _backward(
        L, lambda s: (s.to_dense() * L.arange(6.).view(2, 3)).sum(), _s(L, True)),
    "values_of_factory": lambda L: _backward(
        L, lambda v: L.sparse_coo_tensor(_i(L), v, (2, 3)).to_dense().sum(),
        L.tensor([3., 4., 5.], requires_grad=True)),
    "coalesce_values": lambda L: _backward(
        L, lambda v: (L.sparse_coo_tensor([[1, 0, 1], [0, 2, 0]], v, (2, 3)).coalesce()
                      .values() * L.tensor([1., 2.])).sum(),
        L.tensor([1., 2., 3.], requires_grad=True)),
    "sparse_sum": lambda L: _backward(L, lambda s: L.sparse.sum(s), _s(L, True)),
    "sparse_sum_dim": lambda L: _backward(
        L, lambda s: L.sparse.sum(L.sparse.sum(s, 1) * 2), _hybrid(L).requires_grad_()),
    "sum_gives_dense": lambda L: _backward(L, lambda s: s.sum(), _s(L, True)),
    "mul": lambda L: _backward(L, lambda s: (s * 2).to_dense().sum(), _s(L, True)),
    "add_twice": lambda L: _backward(L, lambda s: L.sparse.sum(s + s), _s(L, True)),
    "t": lambda L: _backward(L, lambda s: L.sparse.sum(s.t() * L.tensor(3.)), _s(L, True)),
    "to_sparse": lambda L: _backward(
        L, lambda x: L.sparse.sum(x.to_sparse() * 3), L.tensor([[0., 1.], [2., 0.]],
                                                                requires_grad=True)),
    "autograd_grad": lambda L: _grads(L, lambda s, d: L.sparse.mm(s, d).sum(), _s(L, True),
                                      L.ones(3, 2, requires_grad=True)),
    "mv": lambda L: _backward(L, lambda s, v: L.mv(s, v).sum(), _s(L, True),
                              L.ones(3, requires_grad=True)),
    "sparse_addmm": lambda L: _backward(
        L, lambda a, s, d: (L.sparse.addmm(a, s, d, beta=2., alpha=.5) * L.tensor(
            [[1., 2.], [3., 4.]])).sum(), L.ones(2, 2, requires_grad=True), _s(L, True),
        L.arange(6.).reshape(3, 2).requires_grad_()),
}


def test_sparse_mm_node_like_torch():
    """torch.sparse.mm is torch's _sparse_addmm on zeros: three edges, the first empty."""
    def fn(L):
        node = L.sparse.mm(_s(L, True), L.ones(3, 2, requires_grad=True)).grad_fn
        return (type(node).__name__, [None if f is None else type(f).__name__
                                      for f, _ in node.next_functions],
                node._saved_alpha, node._saved_beta, node._saved_mat2_sym_strides,
                sorted(n for n in dir(node) if n.startswith("_saved_")))
    same(fn)


@pytest.mark.parametrize("case", sorted(GRADS))
def test_gradients_like_torch(case):
    same(GRADS[case])


def _embedding_grads(L, first_sparse, second_sparse):
    w = L.ones(5, 2, requires_grad=True)
    L.nn.functional.embedding(L.tensor([[1, 2], [1, 4]]), w, sparse=first_sparse).sum() \
        .backward()
    g1 = w.grad
    L.nn.functional.embedding(L.tensor([3, 1]), w, sparse=second_sparse).pow(2).sum() \
        .backward()
    return describe(L, (g1, w.grad)), g1 is w.grad


@pytest.mark.parametrize("first,second", [(True, True), (True, False), (False, True)])
def test_embedding_sparse_gradients_accumulate_like_torch(first, second):
    same(lambda L: _embedding_grads(L, first, second))


def test_embedding_sparse_gradient_details_like_torch():
    def fn(L):
        e = L.nn.Embedding(5, 2, sparse=True, padding_idx=2)
        out = e(L.tensor([[1, 2], [1, 4]]))
        out.sum().backward()
        return describe(L, e.weight.grad), type(out.grad_fn).__name__
    same(fn)
    same(lambda L: L.nn.functional.embedding(
        L.tensor([1]), L.ones(3, 2, requires_grad=True), sparse=True,
        scale_grad_by_freq=True).sum().backward())


def test_zero_grad_of_a_sparse_gradient_like_torch():
    def fn(L, set_to_none):
        e = L.nn.Embedding(5, 2, sparse=True)
        e(L.tensor([1, 3])).sum().backward()
        e.zero_grad(set_to_none=set_to_none)
        return describe(L, e.weight.grad)
    same(lambda L: fn(L, True))
    same(lambda L: fn(L, False))


def _train(L, name, steps=3, **kw):
    L.manual_seed(0)
    e = L.nn.Embedding(5, 2, sparse=True)
    opt = getattr(L.optim, name)(e.parameters(), lr=0.1, **kw)
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = e(L.tensor([1, 3, 1])).pow(2).sum()
            loss.backward()
            return loss
        if name == "LBFGS":
            opt.step(closure)
        else:
            closure()
            opt.step()
    return e.weight.detach().tolist()


@pytest.mark.parametrize("name,kw", [
    ("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True}),
    ("SGD", {"weight_decay": 0.1}), ("Adagrad", {}), ("Adagrad", {"lr_decay": 0.1}),
    ("Adagrad", {"weight_decay": 0.1}), ("SparseAdam", {}), ("SparseAdam", {"maximize": True}),
    ("Adam", {}), ("AdamW", {}), ("Adadelta", {}), ("RMSprop", {}), ("Rprop", {}),
    ("Adamax", {}), ("NAdam", {}), ("RAdam", {}), ("ASGD", {}), ("Adafactor", {})])
def test_optimizers_with_sparse_gradients_like_torch(name, kw):
    same(lambda L: _train(L, name, **kw))


def test_sparse_adam_refuses_dense_gradients_like_torch():
    def fn(L):
        e = L.nn.Embedding(5, 2)
        opt = L.optim.SparseAdam(e.parameters())
        e(L.tensor([1])).sum().backward()
        opt.step()
    same(fn)


def test_lbfgs_takes_sparse_gradients():
    """torch's LBFGS makes them dense; the result differs from torch's in the last bits, as
    LBFGS on dense gradients does, so it is compared with dense gradients here."""
    def dense(L):
        L.manual_seed(0)
        e = L.nn.Embedding(5, 2)
        opt = L.optim.LBFGS(e.parameters(), lr=0.1)

        def closure():
            opt.zero_grad()
            loss = e(L.tensor([1, 3, 1])).pow(2).sum()
            loss.backward()
            return loss
        for _ in range(3):
            opt.step(closure)
        return e.weight.detach().tolist()
    assert _train(dyngrad, "LBFGS") == dense(dyngrad)


@pytest.mark.parametrize("writer,reader", [(torch, dyngrad), (dyngrad, torch),
                                           (dyngrad, dyngrad)])
@pytest.mark.parametrize("weights_only", [False, True])
def test_save_and_load_in_torchs_format(writer, reader, weights_only, tmp_path):
    """A sparse tensor is saved as torch saves one (its indices and values as tensors of their
    own, with the coalesced flag): files go both ways."""
    s = writer.sparse_coo_tensor([[0, 1, 0]], [3., 4., 5.], (3,))
    writer.save({"s": s, "c": s.coalesce()}, tmp_path / "f.pt")
    got = reader.load(tmp_path / "f.pt", weights_only=weights_only)
    lib = reader
    assert describe(lib, got["s"]) == describe(lib, lib.sparse_coo_tensor(
        [[0, 1, 0]], [3., 4., 5.], (3,)))
    assert describe(lib, got["c"]) == describe(lib, lib.sparse_coo_tensor(
        [[0, 1, 0]], [3., 4., 5.], (3,)).coalesce())


def test_reprs_like_torch():
    for fn in (lambda L: _s(L, True), lambda L: _s(L).double(), _hybrid,
               lambda L: L.sparse_coo_tensor(size=(2, 3), dtype=L.float64),
               lambda L: L.sparse.mm(_s(L, True), L.ones(3, 2)),
               lambda L: _s(L, True) * 2):
        assert repr(fn(dyngrad)) == repr(fn(torch))


def test_fast_paths_return_once_no_sparse_tensor_is_left():
    """Ops take the general path only while a sparse tensor exists (Note [Sparse dispatch])."""
    gc.collect()
    assert not _dispatch._sparse and not _dispatch._intercept
    s = _s(dyngrad)
    assert _dispatch._sparse and _dispatch._intercept
    t = s.coalesce().values() * 2
    del s
    gc.collect()
    assert not _dispatch._sparse and not _dispatch._intercept
    assert t.tolist() == [6., 8., 10.]


def test_coalesce_sums_repeats_in_torchs_order():
    """Up to 16 elements torch sorts the addresses stably and sums an address's repeats one by
    one: the sums are bit for bit torch's (past 16 its sort is unstable: README)."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(1, 17))
        idx, v = rng.integers(0, 3, (2, n)), rng.standard_normal(n).astype(np.float32)
        got, expected = (L.sparse_coo_tensor(L.tensor(idx), L.tensor(v), (3, 3)).coalesce()
                         for L in (dyngrad, torch))
        assert got._indices().tolist() == expected._indices().tolist()
        assert got._values().numpy().tobytes() == expected._values().numpy().tobytes()


@pytest.mark.parametrize("other", [
    lambda L: _dup(L), lambda L: _dup(L).coalesce() * 1.0001, lambda L: _dup(L) * 2,
    lambda L: L.sparse_coo_tensor([[0], [2]], [2.], (2, 3)), lambda L: _s(L),
    lambda L: _hybrid(L)])
def test_assert_close_of_sparse_tensors_like_torch(other):
    same(lambda L: L.testing.assert_close(_dup(L), other(L)))
