"""The parser table's entries are torch's own: each of those made from torchgen
(dyngrad/ops/_signatures_more.py) and of those written by hand (_signatures.py) that torch
generates equals what tests/torchgen_signatures.py reads from the native_functions.yaml that
torch 2.13's wheel ships, overloads, order and marks."""
from __future__ import annotations

import pytest

from dyngrad.ops._arg_parser import signatures
from dyngrad.ops._signatures import SIGNATURES
from dyngrad.ops._signatures_more import SIGNATURES as MORE

import torchgen_signatures as TG


@pytest.mark.parametrize("name", sorted(MORE))
def test_entry_is_torchgens(name):
    assert MORE[name] == TG.entry(name)
    assert SIGNATURES[name] is MORE[name]


def _hand_kept():
    """The entries of _signatures.py that torchgen knows: torch's generated bindings (not its
    Python functions, such as unflatten, nor the bindings it writes by hand, such as to)."""
    import types

    import torch
    return sorted(n for n in SIGNATURES if n not in MORE and TG.entry(n) is not None
                  and not isinstance(getattr(torch, n, None), types.FunctionType))


@pytest.mark.parametrize("name", _hand_kept())
def test_hand_kept_entry_is_torchgens(name):
    """The table's hand-written entries say what torchgen says, overloads, order and marks."""
    assert tuple(SIGNATURES[name]) == TG.entry(name)


def test_converted_types():
    """torchgen's C++ types read as the table's (int64_t? -> int?, IntArrayRef[1] -> int[1])."""
    assert TG._param("int64_t? dim=None") == "int? dim=None"
    assert TG._param("IntArrayRef[1] dim") == "int[1] dim"
    assert TG._param("TensorList[2] out=None") == "Tensor[2] out=None"
    assert TG._param("c10::List<::std::optional<Tensor>> indices") == "Tensor[] indices"
    assert TG._param("ScalarType? dtype=None") == "dtype? dtype=None"


@pytest.mark.parametrize("name, is_method, listed", [
    # a deprecated overload is matched but not listed; one of the method alone stays with it
    ("addbmm", False, ["addbmm(Tensor input, Tensor batch1, Tensor batch2, *, Number beta = 1, "
                       "Number alpha = 1, Tensor out = None)"]),
    ("addbmm", True, ["addbmm(Tensor batch1, Tensor batch2, *, Number beta = 1, "
                      "Number alpha = 1)"]),
    ("polygamma", True, ["polygamma(int n)"]),
    ("new_empty_strided", False, []),
])
def test_marks(name, is_method, listed):
    """``|fn,hidden`` and ``|method,hidden`` keep an overload to one of the two, unlisted."""
    sigs = signatures(name, is_method)
    assert [f"{s.name}{s.printed()}" for s in sigs if not s.hidden] == listed
    hidden = [s for s in sigs if s.hidden]
    assert len(hidden) == (2 if name == "addbmm" else 0)


def test_no_entry_for_torchs_python_functions():
    """torch's functions written in Python (torch/functional.py: einsum, meshgrid, split...)
    check their arguments themselves before any binding: their errors are not the parser's,
    so the table holds no entry under their names. A Tensor method torch writes in Python over
    a function that is a binding (istft) has one: the function's, which dyngrad's method
    (_tensor_python.py) hands its arguments to, as torch's does."""
    import types

    import torch
    from dyngrad.ops._signatures import PYTHON_METHODS
    python = {n for n in MORE if isinstance(getattr(torch, n, None), types.FunctionType)
              or isinstance(getattr(torch.Tensor, n, None), types.FunctionType)
              and n not in PYTHON_METHODS}
    assert python == set()
    assert {n for n in MORE if n in PYTHON_METHODS} == {"istft"}


def test_one_wrapper_in_both_namespaces():
    """A function that torch.nn.functional shares with torch is one object in dyngrad too."""
    import torch
    import torch.nn.functional as TF

    import dyngrad
    import dyngrad.nn.functional as DF
    shared = {n for n in ("pdist", "conv2d", "bilinear", "prelu", "hardshrink", "celu_",
                          "channel_shuffle", "pixel_shuffle", "threshold_")
              if getattr(TF, n) is getattr(torch, n)}
    assert len(shared) == 9
    assert all(getattr(DF, n) is getattr(dyngrad, n) for n in shared)
