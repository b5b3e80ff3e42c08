"""The three-tensor fast path (``ternary_fast_path`` in dyngrad/ops/_dispatch.py; addmm, every
linear layer's forward) against the general path it shortcuts and against torch: values,
graph, saved tensors, errors, and the cases it must leave to the general path."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.ops import _dispatch
from dyngrad.ops.linalg import addmm as addmm_spec

from .test_graph_parity import compare_graphs


def _args(lib, dtype="float32", bias_shape=(3,), requires_grad=True):
    rng = np.random.default_rng(0)
    b = lib.tensor(rng.standard_normal(bias_shape).astype(dtype), requires_grad=requires_grad)
    x = lib.tensor(rng.standard_normal((4, 5)).astype(dtype), requires_grad=requires_grad)
    w = lib.tensor(rng.standard_normal((3, 5)).astype(dtype), requires_grad=requires_grad)
    return b, x, w


@pytest.fixture
def fast_calls(monkeypatch):
    """How many addmm calls the fast path served (it returns None for the others)."""
    served = []
    original = addmm_spec.fast_path

    def counting(*args):
        t = original(*args)
        served.append(t is not None)
        return t
    monkeypatch.setattr(addmm_spec, "fast_path", counting)
    return served


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_through_the_fast_path_is_torchs(dtype, fast_calls):
    b, x, w = _args(dyngrad, dtype)
    tb, tx, tw = _args(torch, dtype)
    dyngrad.addmm(b, x, w.t())                      # (the first call plans the dtypes)
    y = dyngrad.nn.functional.linear(x, w, b)
    ty = torch.nn.functional.linear(tx, tw, tb)
    assert fast_calls[-1]
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    compare_graphs([y.grad_fn], [ty.grad_fn], [b, x, w], [tb, tx, tw], "linear")
    cot = np.ones((4, 3), dtype)
    got = dyngrad.autograd.grad(y, (b, x, w), dyngrad.tensor(cot))
    want = torch.autograd.grad(ty, (tb, tx, tw), torch.tensor(cot))
    for g, t in zip(got, want):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-5)


def test_fast_path_equals_general_path(fast_calls):
    b, x, w = _args(dyngrad, "float64")
    dyngrad.addmm(b, x, w.t())
    fast = dyngrad.addmm(b, x, w.t())
    assert fast_calls[-1]
    general = dyngrad.addmm(b, x, w.t(), beta=1)    # a keyword: the general path
    assert fast.grad_fn.name() == general.grad_fn.name() == "AddmmBackward0"
    np.testing.assert_array_equal(fast.detach().numpy(), general.detach().numpy())
    assert fast.stride() == general.stride()


@pytest.mark.parametrize("case", ["mixed dtypes", "0-dim bias", "no grad", "int64 (no grad)"])
def test_cases_left_to_the_general_path_match_torch(case, fast_calls):
    def run(lib):
        b, x, w = _args(lib, "float64" if case == "mixed dtypes" else "float32",
                        () if case == "0-dim bias" else (3,), requires_grad=case != "int64 (no grad)")
        if case == "mixed dtypes":
            b = b.float()
        if case == "int64 (no grad)":
            b, x, w = b.long(), x.long(), w.long()
        if case == "no grad":
            with lib.no_grad():
                return lib.addmm(b, x, w.t())
        try:
            return lib.addmm(b, x, w.t())
        except RuntimeError as e:
            return str(e)
    for _ in range(2):
        got, want = run(dyngrad), run(torch)
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert got.requires_grad == want.requires_grad
    if case in ("mixed dtypes", "0-dim bias"):
        assert not any(fast_calls)


def test_shape_error_is_torchs():
    b, x, w = _args(dyngrad)
    tb, tx, tw = _args(torch)
    dyngrad.addmm(b, x, w.t())
    with pytest.raises(RuntimeError) as got:
        dyngrad.addmm(b, x, w)
    with pytest.raises(RuntimeError) as want:
        torch.addmm(tb, tx, tw)
    assert str(got.value) == str(want.value)


def test_off_under_the_profiler_and_forward_ad(fast_calls):
    b, x, w = _args(dyngrad)
    dyngrad.addmm(b, x, w.t())
    fast_calls.clear()
    with dyngrad.autograd.profiler.profile() as prof:
        dyngrad.addmm(b, x, w.t())
    assert "aten::addmm" in {e.name for e in prof.function_events}
    with dyngrad.autograd.forward_ad.dual_level():
        dual = dyngrad.autograd.forward_ad.make_dual(x.detach(), dyngrad.ones(4, 5))
        out = dyngrad.addmm(b.detach(), dual, w.detach().t())
        tangent = dyngrad.autograd.forward_ad.unpack_dual(out).tangent
    np.testing.assert_allclose(tangent.numpy(), np.ones((4, 5)) @ w.detach().numpy().T,
                               rtol=1e-5, atol=1e-6)
    assert not any(fast_calls)
    assert not _dispatch._fast_off
