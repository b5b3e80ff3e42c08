"""A 0-dim tensor given for a number: torch's parser reads the value of a 0-dim tensor that
does not require grad wherever a parameter is a Scalar or an int (an integer tensor), and one
element with ``__index__`` where it takes one dim of an int list (Note [Tensors for numbers]
in ops/_dispatch.py). Before, dyngrad refused most of these with the parser's TypeError,
mixed a number and a tensor bound of clamp with a message of its own, and gave nll_loss and
cross_entropy a wrong value for a tensor ``ignore_index``."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

CALLS = [
    # int[1] dims: an integer or bool tensor of one element, any shape; not two elements
    "x.sum(one)", "x.sum(dim=one)", "x.sum(L.tensor(True))", "x.sum(L.tensor([[1]]))",
    "x.sum(L.tensor([0, 1]))", "x.sum(L.tensor(1.0))", "x.sum([z, one])", "x.sum([z, 1])",
    "x.mean(one)", "x.amax(one)", "x.std(one)", "x.var(dim=one)", "x.logsumexp(one)",
    "x.nansum(one)", "x.any(one)", "x.all(dim=one)", "x.count_nonzero(one)",
    "L.linalg.vector_norm(x, dim=one)", "x.movedim(z, one)",
    # int: a 0-dim integer tensor
    "x.prod(one)", "x.argmax(one)", "x.argmin(dim=one)", "x.median(one).values",
    "x.cumsum(one)", "x.kthvalue(n).values", "L.bincount(lab, minlength=L.tensor(5))",
    "L.round(x / 3, decimals=n)", "x.argmax(L.tensor(1.0))",
    # Scalar: a 0-dim tensor that does not require grad
    "x.clamp(one, 5)", "x.clamp(0.5, L.tensor(5.0))", "x.clone().clip_(one, 5)",
    "L.arange(5).clamp(L.tensor(1.5), 3)", "x.clamp(L.tensor([1.0]), 5)",
    "x.clamp(L.tensor(1.0, requires_grad=True), 5)",
    "F.leaky_relu(x - 5, L.tensor(0.1))", "F.threshold(x, L.tensor(5.0), 0.0)",
    "F.hardtanh(x, L.tensor(1.0), L.tensor(3.0))", "F.elu(x - 5, alpha=L.tensor(2.0))",
    "F.softplus(x, beta=n)", "F.celu(x - 5, L.tensor(1.0))",
    "L.histc(x, bins=4, min=z, max=L.tensor(12))",
    "F.nll_loss(x[:, :3], lab, ignore_index=n)", "F.cross_entropy(x[:, :3], lab, ignore_index=n)",
    "F.nll_loss(x[:, :3], lab, ignore_index=n, reduction='none')",
]


def _outcome(lib, expr):
    names = {"L": lib, "F": lib.nn.functional, "x": lib.arange(12.0).reshape(3, 4),
             "n": lib.tensor(2), "one": lib.tensor(1), "z": lib.tensor(0),
             "lab": lib.tensor([0, 2, 1])}
    try:
        r = eval(expr, names)
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return type(e).__name__, str(e), None
    return "ok", str(r.dtype), r.tolist()


@pytest.mark.parametrize("expr", CALLS)
def test_like_torch(expr):
    ours, theirs = _outcome(dyngrad, expr), _outcome(torch, expr)
    assert ours[:2] == theirs[:2]
    if ours[0] != "ok":
        assert ours[2] == theirs[2]
    else:   # (float32 kernels may round the last bit otherwise, as with the number itself)
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)


def test_node_saves_the_value():
    # the node keeps the number, as torch's does (its _saved_ attribute reads it)
    for lib in (dyngrad, torch):
        x = lib.ones(3, requires_grad=True)
        y = lib.nn.functional.leaky_relu(x, lib.tensor(0.25))
        assert y.grad_fn._saved_negative_slope == 0.25
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0]
