"""utils.checkpoint (both variants) against un-checkpointed runs and live torch."""
import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint  # noqa: F401

import dyngrad
import dyngrad.utils.checkpoint  # noqa: F401
from tests.autograd.helpers import run_printing
from tests.compare import like_torch

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 5))
W = [rng.standard_normal((5, 5)) / 2 for _ in range(4)]


def ck(L, f, *a, **kw):
    kw.setdefault("use_reentrant", False)
    return L.utils.checkpoint.checkpoint(f, *a, **kw)


def mlp(L, checkpointed, reentrant=False):
    x = L.tensor(X, requires_grad=True)
    ws = [L.tensor(w, requires_grad=True) for w in W]
    h = x
    for w in ws:
        f = (lambda a, w=w: (a @ w).tanh())
        h = ck(L, f, h, use_reentrant=reentrant) if checkpointed else f(h)
    h.sum().backward()
    return (h, x.grad) + tuple(w.grad for w in ws)


@pytest.mark.parametrize("reentrant", [False, True])
def test_mlp_gradients(reentrant):
    like_torch(lambda L: mlp(L, True, reentrant), rtol=1e-12)
    for a, b in zip(mlp(dyngrad, True, reentrant), mlp(dyngrad, False)):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_recomputes_instead_of_saving():
    calls = []

    def f(a):
        calls.append(1)
        return a.sin().exp()
    x = dyngrad.tensor(X, requires_grad=True)
    y = ck(dyngrad, f, x)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2


def test_grad_and_create_graph():
    def fn(L):
        x = L.tensor(X, requires_grad=True)
        y = ck(L, lambda a: (a.sin() * a).exp(), x)
        g, = L.autograd.grad(y.sum(), x, create_graph=True)
        gg, = L.autograd.grad(g.sum(), x)
        return y, g, gg
    like_torch(fn, rtol=1e-12)


def test_dropout_recomputes_identically():
    L = dyngrad
    x = L.tensor(X, requires_grad=True)
    L.manual_seed(3)
    y = ck(L, lambda a: L.nn.functional.dropout(a.exp(), 0.5), x)
    L.randn(10)   # the RNG moves on between forward and backward
    y.sum().backward()
    x2 = L.tensor(X, requires_grad=True)
    L.manual_seed(3)
    y2 = L.nn.functional.dropout(x2.exp(), 0.5)
    y2.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), y2.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())


def test_nested():
    def fn(L):
        x = L.tensor(X, requires_grad=True)
        y = ck(L, lambda a: ck(L, lambda b: (b * b).sin(), a.cos()).exp() * a, x)
        y.sum().backward()
        return y, x.grad
    like_torch(fn, rtol=1e-12)


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_sequential(reentrant):
    def fn(L):
        x = L.tensor(X, requires_grad=True)
        ws = [L.tensor(w, requires_grad=True) for w in W]
        layers = [(lambda h, w=w: (h @ w).tanh()) for w in ws]
        y = L.utils.checkpoint.checkpoint_sequential(layers, 2, x, use_reentrant=reentrant)
        y.sum().backward()
        return (y, x.grad) + tuple(w.grad for w in ws)
    like_torch(fn, rtol=1e-12)


def test_non_tensor_args_and_outputs():
    def fn(L):
        x = L.tensor(X, requires_grad=True)
        out = ck(L, lambda a, k, flag=None: (a * k, "s", flag), x, 3.0, flag=1)
        out[0].sum().backward()
        assert out[1:] == ("s", 1)
        return out[0], x.grad
    like_torch(fn)


def test_retain_graph_recomputes_each_backward():
    def fn(L):
        x = L.tensor(X, requires_grad=True)
        y = ck(L, lambda a: a.sin().exp(), x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return x.grad, y.grad_fn._saved_result
    like_torch(fn)


def both_alike(fn, prefix_only=False):
    want, got = run_printing(fn, torch), run_printing(fn, dyngrad)
    assert got[0] == want[0]
    if prefix_only:   # dyngrad adds its own diagnostics after torch's text
        assert got[1][0] == want[1][0] and got[1][1].startswith(want[1][1])
    else:
        assert got[1] == want[1]
    assert got[2] == want[2]


def _changing(n_first, n_later):
    state = {"n": 0}

    def f(a):
        state["n"] += 1
        return n_first(a) if state["n"] == 1 else n_later(a)
    return f


ERRORS = {
    "fewer tensors recomputed": lambda L: ck(
        L, _changing(lambda a: a.sin().exp(), lambda a: a.sin()),
        L.tensor(X, requires_grad=True)).sum().backward(),
    "different shapes recomputed": lambda L: ck(
        L, _changing(lambda a: (a.sin() * a).sum(), lambda a: (a[:2].sin() * a[:2]).sum()),
        L.tensor(X, requires_grad=True)).backward(),
    "more tensors, early stop off": lambda L: _more(L),
    "reentrant with grad()": lambda L: _reentrant_grad(L),
    "reentrant kwargs": lambda L: ck(L, lambda a, b=1: a, L.ones(1), use_reentrant=True, b=2),
    "reentrant debug": lambda L: ck(L, lambda a: a, L.ones(1), use_reentrant=True, debug=True),
    "bad determinism_check": lambda L: ck(L, lambda a: a, L.ones(1), determinism_check="x"),
    "reentrant no output needs grad": lambda L: ck(
        L, lambda a: (a.sin(), a.detach()), L.tensor(X, requires_grad=True),
        use_reentrant=True)[1].sum().backward(),
    "reentrant no input needs grad": lambda L: print(ck(
        L, lambda a: a.sin(), L.tensor(X), use_reentrant=True).requires_grad),
    "use_reentrant not passed": lambda L: print(L.utils.checkpoint.checkpoint(
        lambda a: a * 2, L.ones(2, requires_grad=True)).grad_fn.name()),
    "sequential use_reentrant not passed": lambda L: print(
        L.utils.checkpoint.checkpoint_sequential([lambda a: a * 2] * 2, 2, L.ones(2))),
    "no_grad": lambda L: print(_no_grad(L)),
}


def _reentrant_grad(L):
    x = L.tensor(X, requires_grad=True)
    return L.autograd.grad(ck(L, lambda a: a.sin(), x, use_reentrant=True).sum(), x)


def _more(L):
    with L.utils.checkpoint.set_checkpoint_early_stop(False):
        y = ck(L, _changing(lambda a: a.sin().exp(), lambda a: a.sin().exp().cos()),
               L.tensor(X, requires_grad=True))
    y.sum().backward()


def _no_grad(L):
    with L.no_grad():
        return ck(L, lambda a: a.sin(), L.tensor(X, requires_grad=True)).requires_grad


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_and_warnings_like_torch(name):
    with warnings.catch_warnings():
        both_alike(ERRORS[name])


def test_unpack_twice_error():
    def fn(L):
        class Twice(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                ctx.saved_tensors
                ctx.saved_tensors
                return g * 2
        ck(L, lambda a: Twice.apply(a.sin()), L.tensor(X, requires_grad=True)).sum().backward()
    both_alike(fn)


def test_input_modified_in_place():
    def fn(L):
        h = L.tensor(X, requires_grad=True) * 1
        y = ck(L, lambda a: a.sin(), h)
        with L.no_grad():
            h.add_(1)
        y.sum().backward()
    both_alike(fn, prefix_only=True)


def test_context_fn():
    entered = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *a):
            return None
    x = dyngrad.tensor(X, requires_grad=True)
    y = ck(dyngrad, lambda a: a.sin(), x, context_fn=lambda: (Ctx("fwd"), Ctx("recompute")))
    assert entered == ["fwd"]
    y.sum().backward()
    assert entered == ["fwd", "recompute"]
