"""Tensor methods torch keeps for other devices and layouts, or for old code, as they behave
on a strided CPU tensor, each against live torch: ``_is_view``, ``const_data_ptr``,
``to_dense``, ``dense_dim``/``sparse_dim``, ``volatile``, ``reinforce``,
``_is_zerotensor``, ``_is_all_true``/``_is_any_true``, ``_make_subclass``, ``_fix_weakref``,
the sparse-only accessors' errors, ``xpu``/``ipu``/``mtia`` and the untyped storage's repr."""
import pytest
import torch

import dyngrad

from compare import same_outcome


def _x(L):
    return L.arange(6.).reshape(2, 3)


CASES = {
    "is_view": lambda L: (_x(L)._is_view(), _x(L).t()._is_view(), _x(L)[0]._is_view(),
                          _x(L).detach()._is_view(), _x(L).data._is_view(),
                          _x(L).view(6).view(3, 2)._is_view()),
    "const_data_ptr": lambda L: (lambda x: x.const_data_ptr() == x.data_ptr())(_x(L)),
    "to_dense_self": lambda L: (lambda x: x.to_dense() is x)(_x(L)),
    "to_dense_masked_grad": lambda L: (lambda x: x.to_dense(masked_grad=True) is x)(_x(L)),
    "to_dense_same_dtype": lambda L: (lambda x: x.to_dense(L.float32) is x)(_x(L)),
    "to_dense_dtype": lambda L: _x(L).requires_grad_().to_dense(dtype=L.float64),
    "dense_dim": lambda L: (_x(L).dense_dim(), _x(L).sparse_dim(), L.tensor(1.).dense_dim()),
    "volatile_get": lambda L: _x(L).volatile,
    "volatile_set": lambda L: setattr(_x(L), "volatile", True),
    "reinforce": lambda L: _x(L).reinforce(1),
    "is_zerotensor": lambda L: _x(L)._is_zerotensor(),
    "is_all_true": lambda L: (L.tensor([True, False])._is_all_true(),
                              L.tensor([True])._is_all_true(),
                              L.tensor([], dtype=L.bool)._is_all_true()),
    "is_all_true_float": lambda L: _x(L)._is_all_true(),
    "is_any_true_float": lambda L: _x(L)._is_any_true(),
    "is_any_true": lambda L: (L.tensor([True, False])._is_any_true(),
                              L.tensor([[False]])._is_any_true(),
                              L.tensor([], dtype=L.bool)._is_any_true()),
    "make_subclass": lambda L: (lambda p: (type(p).__name__, p.requires_grad, p.is_leaf))(
        L.Tensor._make_subclass(L.nn.Parameter, _x(L), True)),
    "make_subclass_int": lambda L: L.Tensor._make_subclass(L.nn.Parameter, L.arange(2), True),
    "fix_weakref": lambda L: _x(L)._fix_weakref(),
    "values": lambda L: _x(L).values(),
    "indices": lambda L: _x(L).indices(),
    "coalesce": lambda L: _x(L).coalesce(),
    "is_coalesced": lambda L: _x(L).is_coalesced(),
    "xpu": lambda L: _x(L).xpu(),
    "xpu_index": lambda L: _x(L).xpu(0),
    "ipu": lambda L: _x(L).ipu(),
    "mtia": lambda L: _x(L).mtia(),
    "mtia_string": lambda L: _x(L).mtia("mtia:1"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_like_torch(case):
    same_outcome(CASES[case])


def test_make_subclass_shares_memory_and_version():
    x = dyngrad.zeros(3)
    p = dyngrad.Tensor._make_subclass(dyngrad.nn.Parameter, x, False)
    x.add_(1)
    assert p.tolist() == [1.0, 1.0, 1.0] and p._version == x._version == 1


@pytest.mark.parametrize("values", [[1.0, 2.0], [], [3]])
def test_untyped_storage_prints_its_bytes(values):
    got = dyngrad.tensor(values).untyped_storage()
    want = torch.tensor(values).untyped_storage()
    assert repr(got) == repr(want)
    assert type(got).__name__ == type(want).__name__ == "UntypedStorage"


def test_storage_module():
    x = dyngrad.ones(2)
    assert type(x.untyped_storage()) is dyngrad.storage.UntypedStorage is dyngrad.UntypedStorage
    assert dyngrad.storage.TypedStorage is dyngrad.TypedStorage
    assert torch.storage.UntypedStorage is torch.UntypedStorage
