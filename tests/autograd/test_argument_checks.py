"""Arguments of autograd's Python API checked as torch checks them, against live torch: what
ctx.mark_dirty / mark_non_differentiable / set_materialize_grads take, ctx.saved_tensors in
forward, _raw_saved_tensors and saved_variables, the count of grad_outputs / grad_tensors,
backward's inputs, increment_version, register_multi_grad_hook."""
import warnings

import pytest

from compare import same_outcome


def _function(L, forward, backward=lambda ctx, g: g):
    return type("F", (L.autograd.Function,), {"forward": staticmethod(forward),
                                              "backward": staticmethod(backward)})


def _saved_len_in_forward(L):
    seen = []

    def forward(ctx, a):
        ctx.save_for_backward(a)
        seen.append(len(ctx.saved_tensors))
        return a * 1
    F = _function(L, forward)
    x = L.ones(2, requires_grad=True)
    with L.no_grad():
        F.apply(x)
    y = F.apply(x)
    return seen, len(y.grad_fn.saved_tensors), [type(s).__name__
                                                for s in y.grad_fn._raw_saved_tensors]


def _saved_variables(L):
    def backward(ctx, g):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            n = len(ctx.saved_variables)
        seen.append((n, [(m.category.__name__, str(m.message)) for m in w]))
        return g
    seen = []
    x = L.ones(2, requires_grad=True)
    _function(L, lambda ctx, a: (ctx.save_for_backward(a), a * 1)[1], backward).apply(x) \
        .sum().backward()
    return seen


def _x(L):
    return L.tensor([1.0, 2.0], requires_grad=True)


CASES = {
    "mark_dirty(3)": lambda L: _function(L, lambda ctx, a: (ctx.mark_dirty(3), a)[1]).apply(
        _x(L).clone()),
    "mark_non_differentiable(3)": lambda L: _function(
        L, lambda ctx, a: (ctx.mark_non_differentiable(3), a * 1)[1]).apply(_x(L)),
    "set_materialize_grads(3)": lambda L: _function(
        L, lambda ctx, a: (ctx.set_materialize_grads(3), a * 1)[1]).apply(_x(L)),
    "set_materialize_grads(False)": lambda L: _function(
        L, lambda ctx, a: (ctx.set_materialize_grads(False), a * 1)[1]).apply(_x(L)),
    "saved_tensors in forward": _saved_len_in_forward,
    "saved_variables": _saved_variables,
    "extra grad_outputs": lambda L: L.autograd.grad([_x(L) * 2], _x(L), allow_unused=True,
                                                    grad_outputs=[L.ones(2), L.ones(2)]),
    "missing grad_outputs": lambda L: L.autograd.grad(
        [_x(L) * 2, _x(L) * 3], _x(L), grad_outputs=[L.ones(2)]),
    "extra grad_tensors": lambda L: L.autograd.backward([_x(L) * 2], [L.ones(2), L.ones(2)]),
    "missing grad_tensors": lambda L: L.autograd.backward([_x(L) * 2, _x(L) * 3], [L.ones(2)]),
    "backward inputs without grad": lambda L: (_x(L) * 2).sum().backward(inputs=[L.ones(1)]),
    "increment_version(3)": lambda L: L.autograd.graph.increment_version(3),
    "increment_version of a str": lambda L: L.autograd.graph.increment_version("ab"),
    "multi-grad hook, no grad": lambda L: L.autograd.graph.register_multi_grad_hook(
        (_x(L) * 1, L.ones(1)), lambda grads: None) and None,
}


@pytest.mark.parametrize("case", CASES)
def test_like_torch(case):
    same_outcome(CASES[case])
