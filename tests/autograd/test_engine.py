"""Engine properties: deep graphs, threads, memory release, hooks order."""
import gc
import threading
import weakref

import numpy as np
import pytest
import torch

import dyngrad

from .helpers import assert_prints_like_torch


def test_100k_op_chain_backward_without_recursion():
    x = dyngrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0 + 0.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
    del y  # freeing the chain must not overflow the C stack either


def test_concurrent_backward_accumulates_exactly():
    x = dyngrad.ones(4, requires_grad=True)
    errors = []

    def work():
        try:
            for _ in range(50):
                (x * 2).sum().backward()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert x.grad.tolist() == [400.0] * 4


def test_saved_arrays_are_released_after_their_node_runs():
    x = dyngrad.ones(1000, requires_grad=True)
    y = x.exp()                    # saves its result
    node = y.grad_fn
    saved_array = weakref.ref(node._held[0].storage)
    z = (y * 2).sum()
    del y
    z.backward()
    assert node._held is None
    assert saved_array() is None


def test_finished_graph_is_freed_without_gc():
    gc.disable()
    try:
        x = dyngrad.ones(10, requires_grad=True)
        y = x.exp().sin() if hasattr(dyngrad.Tensor, "sin") else x.exp().exp()
        node = weakref.ref(y.grad_fn)
        out = weakref.ref(y)
        del y
        assert node() is None and out() is None
    finally:
        gc.enable()


def test_hook_order_and_replacement():
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y * 3
        y.register_hook(lambda g: print("tensor hook y", g) or g * 10)
        y.grad_fn.register_prehook(lambda go: print("node prehook", go[0]))
        y.grad_fn.register_hook(lambda gi, go: print("node hook", gi[0], go[0]))
        h = x.register_hook(lambda g: print("leaf hook", g))
        x.register_post_accumulate_grad_hook(lambda t: print("post acc", t.grad))
        y.retain_grad()
        z.sum().backward()
        print(x.grad, y.grad)
        h.remove()
        x.grad = None
        (x * 1).sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_hook_returning_new_grad_for_leaf():
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 100)
        (x * x).sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_reentrant_backward_inside_hook():
    def ex(torch):
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0], requires_grad=True)

        def hook(g):
            (b * b).sum().backward()
            return g
        y = a * 2
        y.register_hook(hook)
        y.sum().backward()
        print(a.grad, b.grad)
    assert_prints_like_torch(ex)


def test_incorrect_number_and_shape_of_gradients():
    x = dyngrad.ones(2, requires_grad=True)
    y = x * 2
    spec = type(y.grad_fn).spec
    saved = spec.backward_fn
    try:
        spec.backward_fn = lambda ctx, g: (g,)
        try:
            y.sum().backward()
        except RuntimeError as e:
            assert str(e) == ("function MulBackward0 returned an incorrect number of gradients "
                              "(expected 2, got 1)")
        else:
            raise AssertionError("no error")
        y = x * 2
        spec.backward_fn = lambda ctx, g: (dyngrad.ones(3), None)
        try:
            y.sum().backward()
        except RuntimeError as e:
            assert str(e) == ("Function MulBackward0 returned an invalid gradient at index 0 - "
                              "got [3] but expected shape compatible with [2]")
        else:
            raise AssertionError("no error")
    finally:
        spec.backward_fn = saved


def test_gradient_penalty_matches_torch():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3))
    xv = rng.standard_normal((5, 4))
    res = []
    for lib in (dyngrad, torch):
        W = lib.tensor(w, requires_grad=True)
        X = lib.tensor(xv, requires_grad=True)
        out = ((X.reshape(5, 4, 1) * W).sum(1).exp()).sum()
        g, = lib.autograd.grad(out, X, create_graph=True)
        penalty = (((g * g).sum(1).sqrt() - 1) ** 2).mean()
        penalty.backward()
        res.append(W.grad.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-10)


def test_failed_backward_leaves_grads_as_torch_does():
    """Leaves accumulate as their nodes run: a backward that fails midway keeps those grads."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.tensor([3.0, 4.0], requires_grad=True)
        b = y.exp()
        c = (b * 3).sum()
        b.add_(1)                  # ExpBackward0's saved result is now stale
        a = (x * 2).sum()          # created last, so it runs (and x accumulates) first
        loss = a + c
        try:
            loss.backward()
        except RuntimeError as e:
            print("RuntimeError:", str(e)[:60])
        print(x.grad, y.grad)
    assert_prints_like_torch(ex)


def test_buffer_sums_never_touch_gradients_others_hold():
    """The engine adds into its own buffer sums in place; hooks and grad() see stable values."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        seen = []
        a, b, c = y * 2, y * 3, y * 4
        for t in (a, b, c):
            t.register_hook(lambda g: seen.append(g))
        out = (a + b + c).sum()
        gy, = torch.autograd.grad(out, y, retain_graph=True)
        out.backward()
        print(gy, x.grad, [s.tolist() for s in seen])
    assert_prints_like_torch(ex)


def _retained(lib, **backward_kwargs):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    p = x * 1
    p.retain_grad()
    (p ** 3).sum().backward(**backward_kwargs)
    return x, p


def test_backward_inputs_on_a_retained_non_leaf_stores_its_grad_once():
    for lib in (dyngrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        p = x * 1
        p.retain_grad()
        (p ** 3).sum().backward(inputs=[p])
        assert p.grad.tolist() == [3.0, 12.0] and x.grad is None, lib.__name__


def test_retained_grad_with_create_graph_is_a_clone_with_history():
    for lib in (dyngrad, torch):
        x, p = _retained(lib, create_graph=True)
        assert p.grad.tolist() == [3.0, 12.0]
        assert type(p.grad.grad_fn).__name__ == "CloneBackward0", lib.__name__


def _backward_op_counts(lib, inputs_of):
    """aten op counts of one autograd.grad through linear + tanh, for the inputs chosen."""
    x = lib.ones(4, 3, requires_grad=True)
    w = lib.ones(5, 3, requires_grad=True)
    b = lib.ones(5, requires_grad=True)
    out = (lib.nn.functional.linear(x, w, b) * 0.1).sum()
    with lib.autograd.profiler.profile() as prof:
        lib.autograd.grad(out, inputs_of(x, w, b))
    return {e.key: e.count for e in prof.key_averages()
            if e.key in ("aten::mm", "aten::sum", "aten::mul")}


@pytest.mark.parametrize("which", ["x", "w", "b", "x and w"])
def test_formulas_skip_gradients_that_lead_to_no_input(which):
    """torch's task_should_compute_output: autograd.grad(out, x) computes no weight or bias
    gradient (AddmmBackward0 runs one mm, not two, and sums nothing)."""
    pick = {"x": lambda x, w, b: (x,), "w": lambda x, w, b: (w,), "b": lambda x, w, b: (b,),
            "x and w": lambda x, w, b: (x, w)}[which]
    assert _backward_op_counts(dyngrad, pick) == _backward_op_counts(torch, pick)


def test_an_unasked_gradient_of_the_wrong_shape_still_raises():
    messages = []
    for lib in (dyngrad, torch):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                return x * w

            @staticmethod
            def backward(ctx, g):
                return g, lib.ones(7)
        x, w = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            lib.autograd.grad(Bad.apply(x, w).sum(), x)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_nodes_run_in_torchs_order():
    # chains (one ready node at a time) next to branches and joins (several at once), and
    # leaves whose AccumulateGrad nodes tie on sequence number: the engine's ready-node
    # shortcut must keep torch's order exactly
    def ex(torch):
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([0.5, 0.25], requires_grad=True)
        y1 = a * 2
        y2 = b.exp()
        y3 = y1 + y2
        y4 = y1.sin() * y3
        y5 = (y4 * a).cos()
        p = b.exp()     # two branches made in interleaved order: the node that becomes
        q = a * 2       # ready while an older branch waits in the heap must not jump it
        r = p.sin()
        loss = y5.sum() + y2.sum() + (b * 3).sum() + q.sum() + r.sum()
        seen, todo = set(), [loss.grad_fn]
        while todo:
            fn = todo.pop()
            if fn is None or fn in seen:
                continue
            seen.add(fn)
            fn.register_prehook(lambda go, name=fn.name(): print("run", name))
            todo.extend(f for f, _ in fn.next_functions)
        a.register_post_accumulate_grad_hook(lambda t: print("acc a"))
        b.register_post_accumulate_grad_hook(lambda t: print("acc b"))
        loss.backward()
        print(a.grad, b.grad)
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_broadcast_gradients_are_summed_like_torch(dtype):
    """A gradient of the broadcast shape is summed to its input's (validate_outputs): over one
    or two leading dims, from contiguous and transposed gradients, without and with a
    profiler watching (which must list the sum), in each floating dtype."""
    rng = np.random.default_rng(3)
    cases = [((5, 3), (3,)), ((4, 5, 3), (3,)), ((4, 5, 3), (5, 3)), ((6, 7), (1, 7))]
    for shape, bias_shape in cases:
        x0, b0 = rng.standard_normal(shape), rng.standard_normal(bias_shape)
        c0 = rng.standard_normal(shape[::-1]).T   # a transposed weight: transposed gradients
        for profile in (False, True):
            grads = []
            for lib in (dyngrad, torch):
                x = lib.tensor(x0, dtype=getattr(lib, dtype))
                b = lib.tensor(b0, dtype=getattr(lib, dtype), requires_grad=True)
                c = lib.tensor(c0.T, dtype=getattr(lib, dtype)).T
                y = ((x + b) * c).sum()
                if profile:
                    with lib.autograd.profiler.profile() as prof:
                        y.backward()
                    assert "aten::sum" in {e.name for e in prof.function_events}
                else:
                    y.backward()
                grads.append(b.grad)
            ours, theirs = grads
            assert str(ours.dtype) == str(theirs.dtype) and ours.shape == theirs.shape
            assert ours.stride() == theirs.stride()
            np.testing.assert_allclose(ours.numpy().astype(np.float64),
                                       theirs.numpy().astype(np.float64),
                                       rtol=1e-2 if dtype == "float16" else 1e-6)
