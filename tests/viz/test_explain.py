"""explain: the causes of a None or zero .grad from the notes' checklist.

Each situation is run in torch first to show what the user sees there (a None .grad, zeros, or
torch's error), then dyngrad's explain must name the cause.
"""
import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.viz import explain

V = np.array([0.5, -1.0, 2.0], dtype=np.float32)


def leaf(lib, requires_grad=True, values=V):
    return lib.tensor(values, requires_grad=requires_grad)


def test_non_leaf_without_retain_grad():
    for lib in (torch, dyngrad):
        x = leaf(lib)
        h = x * 2
        loss = (h * h).sum()
        if lib is torch:
            loss.backward()
            with pytest.warns(UserWarning, match="non-leaf"):
                assert h.grad is None
    text = explain(loss, {"h": h, "x": x})
    assert text.codes("h") == {"non_leaf"} and text.codes("x") == {"ok"}
    assert "retain_grad()" in text and "MulBackward0" in text
    h.retain_grad()
    assert explain(loss, {"h": h}).codes("h") == {"ok"}


def test_detach_and_data_cut_the_graph():
    for lib in (torch, dyngrad):
        x, w = leaf(lib), leaf(lib)
        loss = (x.detach() * w).sum() + (w.data * w).sum()
        if lib is torch:
            loss.backward()
            assert x.grad is None
    text = explain(loss, {"x": x, "w": w})
    assert text.codes("x") == {"detached"} and text.codes("w") == {"ok"}
    assert ".detach()" in text
    d = w.detach()
    assert explain(loss, {"d": d}).codes("d") == {"detached"}


def test_computed_under_no_grad():
    for lib in (torch, dyngrad):
        x, w = leaf(lib), leaf(lib)
        with lib.no_grad():
            y = x * 2
        loss = (y * w).sum()
        if lib is torch:
            loss.backward()
            assert x.grad is None and y.grad is None and not y.requires_grad
    text = explain(loss, {"y": y, "x": x})
    assert text.codes("y") == {"requires_grad_false"} and "no_grad()" in text
    assert text.codes("x") == {"unreachable"}


def test_created_under_inference_mode():
    for lib in (torch, dyngrad):
        x, w = leaf(lib), leaf(lib)
        with lib.inference_mode():
            y = x * 2
        loss = (y + w).sum()
        if lib is torch:
            loss.backward()
            assert y.is_inference() and y.grad is None
    assert explain(loss, {"y": y}).codes("y") == {"inference"}


def test_leaf_that_does_not_require_grad():
    for lib in (torch, dyngrad):
        w = leaf(lib, requires_grad=False)
        b = leaf(lib)
        loss = (w * b).sum()
        if lib is torch:
            loss.backward()
            assert w.grad is None
    text = explain(loss, {"w": w, "b": b})
    assert text.codes("w") == {"requires_grad_false"} and ".requires_grad_()" in text


def test_integer_dtype():
    message = "^Only Tensors of floating point and complex dtype can require gradients$"
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError, match=message):
            lib.tensor([1, 2, 3], requires_grad=True)
    x = leaf(dyngrad)
    idx = dyngrad.tensor([1, 2, 3])
    text = explain((x * idx).sum(), {"idx": idx, "x": x})
    assert text.codes("idx") == {"integer_dtype"} and "int64" in text


def test_branch_that_does_not_reach_the_loss():
    for lib in (torch, dyngrad):
        x, w = leaf(lib), leaf(lib)
        unused = w * 3          # noqa: F841  computed, never added to the loss
        loss = (x * x).sum()
        if lib is torch:
            loss.backward()
            assert w.grad is None
    assert explain(loss, {"w": w, "unused": unused}).codes("unused") == {"unreachable",
                                                                          "non_leaf"}
    assert explain(loss, {"w": w}).codes("w") == {"unreachable"}


def test_in_place_change_of_a_saved_tensor():
    for lib in (torch, dyngrad):
        x = leaf(lib)
        a = x * 2
        loss = a.sin().sum()
        a.mul_(2)               # sin saved `a` for its backward
        if lib is torch:
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward(retain_graph=True)
    text = explain(loss, {"x": x, "a": a})
    assert "inplace_modified" in text.codes("[1] SinBackward0")
    assert text.codes("a") == {"inplace_modified", "non_leaf"} and "rebased" in text
    assert text.codes("x") == {"ok"} and "backward would raise" in text
    assert "SinBackward0" in text and "MODIFIED IN PLACE" in text and "version 0 (now 1)" in text


def test_zero_gradient_through_relu():
    neg = np.array([-1.0, -2.0, -0.5], dtype=np.float32)
    for lib in (torch, dyngrad):
        x, w = leaf(lib, values=neg), leaf(lib)
        loss = (x.relu() * w).sum() + w.sum()
    text = explain(loss, {"x": x, "w": w})
    assert text.codes("x") == {"zero_grad"} and "at ReluBackward0" in text
    assert text.codes("w") == {"ok"}
    assert x.grad is None            # explain leaves .grad alone
    loss.backward()                  # graph freed: explain reads .grad instead
    tx = torch.tensor(neg, requires_grad=True)
    tw = torch.tensor(V, requires_grad=True)
    ((tx.relu() * tw).sum() + tw.sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), tw.grad.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    assert not tx.grad.any()
    after = explain(loss, {"x": x})
    assert after.codes("x") == {"zero_grad"} and "freed" in after


def test_loss_that_does_not_require_grad():
    for lib in (torch, dyngrad):
        x = leaf(lib)
        with lib.no_grad():
            loss = (x * 2).sum()
        if lib is torch:
            with pytest.raises(RuntimeError, match="does not require grad"):
                loss.backward()
    text = explain(loss)
    assert "loss_no_grad" in text.codes() and "no graph" in text


def test_default_inputs_are_the_graph_leaves_and_nodes_are_listed():
    w = dyngrad.tensor(V, requires_grad=True)
    b = dyngrad.tensor(V, requires_grad=True)
    loss = (w.exp() * b).sum()
    text = explain(loss)
    assert [c.code for c in text.causes] == ["ok", "ok"]
    lines = text.splitlines()
    assert lines[0].startswith("graph of Tensor() (grad_fn=SumBackward0): 5 nodes")
    assert "  [1] MulBackward0" in lines and "      inputs: [2] ExpBackward0, [3] AccumulateGrad" \
        in lines
    assert any("saved result (output)" in line for line in lines)
    print(text)
