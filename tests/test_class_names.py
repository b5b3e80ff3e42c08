"""The public classes print as torch's do: ``type(x)`` is ``<class 'torch.Tensor'>`` there,
``<class 'dyngrad.Tensor'>`` here (the module torch names, with dyngrad's name), and pickle
finds each class at that address."""
from __future__ import annotations

import pickle

import pytest
import torch

import dyngrad

OBJECTS = ["L.ones(2)", "L.Size([1])", "L.float32", "L.device('cpu')", "L.finfo(L.float32)",
           "L.iinfo(L.int8)", "L.ones(2).untyped_storage()", "L.nn.Parameter(L.ones(1))"]


@pytest.mark.parametrize("expr", OBJECTS)
def test_class_repr_like_torch(expr):
    ours = repr(type(eval(expr, {"L": dyngrad}))).replace("dyngrad", "torch")
    assert ours == repr(type(eval(expr, {"L": torch})))


def test_typed_storage_and_tensor_class():
    assert repr(dyngrad.storage.TypedStorage) == "<class 'dyngrad.storage.TypedStorage'>"
    assert repr(torch.storage.TypedStorage) == "<class 'torch.storage.TypedStorage'>"
    assert repr(dyngrad.Tensor) == repr(torch.Tensor).replace("torch", "dyngrad")
    for cls in (dyngrad.Tensor, dyngrad.Size, dyngrad.dtype, dyngrad.device):
        assert pickle.loads(pickle.dumps(cls)) is cls
