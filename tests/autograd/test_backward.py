"""backward() and autograd.grad() over their options, against torch."""
import numpy as np
import pytest
import torch

import dyngrad

from compare import same_outcome, warn_always

from .helpers import assert_prints_like_torch


def pair(shape=(3,), seed=0, lo=-1, hi=1):
    arr = np.random.default_rng(seed).uniform(lo, hi, shape)
    return (dyngrad.tensor(arr, requires_grad=True), torch.tensor(arr, requires_grad=True))


def close(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)


FUNCS = {
    "poly": lambda x, y: (x ** 3 * y + y * 2 - x / 3).sum(),
    "broadcast": lambda x, y: (x.reshape(3, 1) * y + x).sum() if hasattr(x, "reshape") else
    (x * y).sum(),
    "exp_log": lambda x, y: ((x.exp() + y.abs() + 1).log() * y).sum(),
    "shared": lambda x, y: (x * x * x + x * y).mean(),
    "where_clamp": lambda x, y: (x.clamp(-0.3, 0.3) * 2 + (x > 0) * y).sum(),
    "maxmin": lambda x, y: (x.maximum(y) - x.minimum(y) * 3).sum(),
    "sqrt_div": lambda x, y: ((x * x + 1).sqrt() / (y * y + 1)).sum(),
}


@pytest.mark.parametrize("name", list(FUNCS))
@pytest.mark.parametrize("retain_graph", [None, True])
def test_backward_matches_torch(name, retain_graph):
    f = FUNCS[name]
    dx, tx = pair(seed=1)
    dy, ty = pair(seed=2)
    f(dx, dy).backward(retain_graph=retain_graph)
    f(tx, ty).backward(retain_graph=retain_graph)
    close(dx.grad, tx.grad)
    close(dy.grad, ty.grad)
    # a second backward accumulates
    f(dx, dy).backward()
    f(tx, ty).backward()
    close(dx.grad, tx.grad)


@pytest.mark.parametrize("name", list(FUNCS))
def test_grad_matches_torch_and_leaves_grad_alone(name):
    f = FUNCS[name]
    dx, tx = pair(seed=3)
    dy, ty = pair(seed=4)
    got = dyngrad.autograd.grad(f(dx, dy), (dx, dy))
    want = torch.autograd.grad(f(tx, ty), (tx, ty))
    for g, w in zip(got, want):
        close(g, w)
    assert dx.grad is None and dy.grad is None


@pytest.mark.parametrize("name", list(FUNCS))
def test_second_and_third_order(name):
    f = FUNCS[name]
    dx, tx = pair(seed=5)
    dy, ty = pair(seed=6)
    results = []
    for lib, x, y in ((dyngrad, dx, dy), (torch, tx, ty)):
        g, = lib.autograd.grad(f(x, y), x, create_graph=True)
        results.append(g.requires_grad)
        if not g.requires_grad:    # linear in x: the first gradient is a constant
            results.append((g, None, None))
            continue
        h, = lib.autograd.grad(g.sum(), x, create_graph=True, allow_unused=True)
        t = None
        if h is not None and h.requires_grad:
            t, = lib.autograd.grad((h * h).sum(), x, allow_unused=True)
        results.append((g, h, t))
    assert results[0] == results[2]
    for g, w in zip(results[1], results[3]):
        close(g, w)


def test_non_scalar_backward_with_gradient():
    dx, tx = pair((2, 3), seed=7)
    g = np.random.default_rng(8).standard_normal((2, 3))
    (dx * dx).backward(dyngrad.tensor(g))
    (tx * tx).backward(torch.tensor(g))
    close(dx.grad, tx.grad)


def test_backward_inputs_only_accumulates_there():
    dx, tx = pair(seed=9)
    dy, ty = pair(seed=10)
    for lib, x, y in ((dyngrad, dx, dy), (torch, tx, ty)):
        (x * y).sum().backward(inputs=[x])
    close(dx.grad, tx.grad)
    assert dy.grad is None and ty.grad is None


def test_backward_inputs_non_leaf():
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        (y * y).sum().backward(inputs=[y])
        print(y.grad, x.grad)
    assert_prints_like_torch(ex)


def test_grad_runs_only_the_nodes_that_lead_to_its_inputs():
    """autograd.grad prunes the graph: a node that leads to none of the inputs never runs (its
    hooks stay silent), and a captured node that leads nowhere else is not run past the capture,
    while a node feeding both a pruned branch and the inputs runs once."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([3.0, -1.0], requires_grad=True)
        h = x * w                    # MulBackward0: leads to x (kept) and to w (pruned)
        u = h.exp()
        v = (w * 2).sin()            # a branch that leads to w only: pruned
        out = (u * v).sum() + h.sum()
        for node in (v.grad_fn, w.grad_fn.next_functions[0][0] if w.grad_fn else None,
                     v.grad_fn.next_functions[0][0], u.grad_fn, h.grad_fn):
            if node is not None:
                name = node.name()
                node.register_prehook(lambda g, name=name: print("pre", name))
                node.register_hook(lambda gi, go, name=name: print("post", name))
        print(torch.autograd.grad(out, [x], retain_graph=True))
        print(torch.autograd.grad(out, [h, x], retain_graph=True))
        print(torch.autograd.grad(out, [u]))
    assert_prints_like_torch(ex)


def test_pruning_keeps_nodes_that_reach_a_captured_node_by_any_edge():
    """torch prunes by node, not by edge: with one half of a split as the input, the nodes
    behind the other half still run (they reach the split's node), and the other half's tensor
    hook sees its gradient at the captured node. Likewise for backward(inputs=)."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        a, b = x.split(2)
        ya, yb = a * 2, (b * 3) * b
        for node in (ya.grad_fn, yb.grad_fn, yb.grad_fn.next_functions[0][0]):
            name = node.name()
            node.register_hook(lambda gi, go, name=name: print("node", name))
        b.register_hook(lambda g: print("b hook", g))
        a.register_hook(lambda g: print("a hook", g))
        loss = ya.sum() + yb.sum()
        print(torch.autograd.grad(loss, [a], retain_graph=True))
        loss.backward(inputs=[a], retain_graph=True)
        print(a.grad, x.grad)
        c, d = (x * 1).unbind(0)[:2]
        (c.sin() + d.cos()).backward(inputs=[c])
        print(c.grad, x.grad)
    assert_prints_like_torch(ex)


def test_captured_gradient_before_or_after_tensor_hooks():
    """As torch's engine: a node that must run (it leads to another input) captures the
    gradient as it arrives, before the tensor's hooks; a node only captured at captures it
    after them. retain_grad keeps the hooked one either way."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = a * 3
        a.register_hook(lambda g: g + 100)
        print(torch.autograd.grad(b.sum(), [a], retain_graph=True))
        print(torch.autograd.grad(b.sum(), [a, x], retain_graph=True))
        print(torch.autograd.grad(b.sum(), [x, a], retain_graph=True))
        a.retain_grad()
        print(torch.autograd.grad(b.sum(), [a, x]), a.grad)
    assert_prints_like_torch(ex)


def test_backward_inputs_retains_a_non_leafs_grad():
    """backward(inputs=[a]) calls a.retain_grad() as torch does: a.grad is the gradient after
    a's hooks, and a keeps its gradient in later backwards too."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = a * 3
        a.register_hook(lambda g: g + 100)
        print(a.retains_grad)
        b.sum().backward(inputs=[a], retain_graph=True)
        print(a.grad, x.grad, a.retains_grad)
        b.sum().backward(retain_graph=True)
        print(a.grad, x.grad, a.retains_grad)
        b.sum().backward(inputs=[a, x])
        print(a.grad, x.grad, a.retains_grad)
    assert_prints_like_torch(ex)


def test_grad_allow_unused_and_materialize():
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        z = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).sum()
        print(torch.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True))
        print(torch.autograd.grad(y, [x, z], materialize_grads=True, retain_graph=True))
        # with create_graph the made-up zeros require grad, as torch's
        print(torch.autograd.grad(y, [x, z], materialize_grads=True, create_graph=True))
        torch.autograd.grad(y, [x, z])
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("case", [
    "non_scalar", "no_grad_root", "shape_mismatch", "grad_shape_mismatch", "twice",
    "saved_after_free", "unused", "not_requires_grad_input", "complex_grad_for_real"])
def test_errors_match_torch(case):
    def ex(torch):
        x = torch.ones(2, 2, requires_grad=True)
        if case == "non_scalar":
            (x * 2).backward()
        elif case == "no_grad_root":
            torch.ones(2).sum().backward()
        elif case == "shape_mismatch":
            (x * 2).backward(torch.ones(3))
        elif case == "grad_shape_mismatch":
            torch.autograd.grad((x * 2).sum(), x, grad_outputs=torch.ones(2))
        elif case == "twice":
            y = (x * x).sum()
            y.backward()
            y.backward()
        elif case == "saved_after_free":
            y = x.exp()
            y.sum().backward()
            print(y.grad_fn._saved_result)
        elif case == "unused":
            torch.autograd.grad((x * 2).sum(), [x, torch.ones(1, requires_grad=True)])
        elif case == "not_requires_grad_input":
            torch.autograd.grad((x * 2).sum(), [torch.ones(1)])
        elif case == "complex_grad_for_real":
            x.sum(dtype=torch.complex64).real.backward()
    assert_prints_like_torch(ex)


def test_a_real_tensor_cast_to_complex_takes_the_real_part_of_its_gradient():
    """ToCopyBackward0 (torch's _to_copy_backward): real(grad) for a real input, where a
    plain complex gradient would fail the engine's check above."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        z = torch.view_as_real(x.to(torch.complex64))
        g, = torch.autograd.grad(z, x, torch.tensor([[2.0, 3.0], [4.0, 5.0]]), create_graph=True)
        print(g, g.requires_grad)
        x.to(torch.complex128).pow(2).abs().sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_retain_graph_allows_second_backward():
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_grad_accumulation_keeps_the_same_grad_object():
    for lib in (dyngrad, torch):
        x = lib.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        g = x.grad
        (x * 3).sum().backward()
        assert x.grad is g and g.tolist() == [5.0, 5.0, 5.0]


def test_grad_layout_follows_leaf_strides():
    for lib in (dyngrad, torch):
        base = lib.ones(3, 4, requires_grad=False)
        x = base.t().detach().requires_grad_()   # a transposed leaf
        (x * 2).sum().backward()
        assert x.grad.stride() == x.stride()


def test_stolen_gradient_is_never_shared():
    """AccumulateGrad may keep the engine's gradient instead of copying it; never a shared one."""
    x = dyngrad.ones(3, requires_grad=True)
    y = dyngrad.ones(3, requires_grad=True)
    (x + y).sum().backward()       # AddBackward0 hands the same gradient to both leaves
    assert x.grad is not y.grad
    x.grad.add_(1)
    assert y.grad.tolist() == [1.0, 1.0, 1.0]
    g = dyngrad.ones(3)
    z = dyngrad.ones(3, requires_grad=True)
    z.backward(g)                   # the user's gradient object must not become z.grad
    assert z.grad is not g


def _shares(a, b):
    return np.shares_memory(a.detach().numpy(), b.detach().numpy())


def _products_made(monkeypatch):
    """The data pointers of the matrix products the formulas compute, as they make them."""
    from dyngrad.ops import linalg
    made = []
    product = linalg._product

    def spy(*args):
        r = product(*args)
        made.append(r.__array_interface__["data"][0])
        return r
    monkeypatch.setattr(linalg, "_product", spy)
    return made


def test_a_linear_layers_gradients_are_taken_not_copied(monkeypatch):
    """The weight gradient is the transposed product t(t(mm result)): nothing else reaches its
    memory, so the leaf keeps it (Note [Transposed gradients as arrays]); the bias's is a fresh
    sum."""
    made = _products_made(monkeypatch)
    rng = np.random.default_rng(0)
    w = dyngrad.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    b = dyngrad.tensor(rng.standard_normal(4), requires_grad=True)
    x = dyngrad.tensor(rng.standard_normal((5, 3)))
    dyngrad.nn.functional.linear(x, w, b).pow(2).sum().backward()
    assert w.grad.data_ptr() in made
    tw = torch.tensor(w.detach().numpy(), requires_grad=True)
    tb = torch.tensor(b.detach().numpy(), requires_grad=True)
    torch.nn.functional.linear(torch.tensor(x.numpy()), tw, tb).pow(2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
    assert w.grad.stride() == tw.grad.stride() and w.grad._base is None and b.grad._base is None


def test_hooks_see_a_linear_layers_transposed_gradients_as_views_like_torch():
    """Where a hook or inputs= can see them, the transposed gradients are views, as torch's
    (Note [Transposed gradients as arrays]); the leaf's gradient is the same either way."""
    def run(lib, where):
        w = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = lib.zeros(2, requires_grad=True)
        x = lib.tensor([[1.0, -1.0, 2.0]] * 4)
        wt = w.t()
        out = lib.addmm(b, x, wt)
        seen = []
        node = out.grad_fn
        t_node = node.next_functions[2][0]

        def look(grads):
            seen.append([None if g is None else (g._base is not None, g.stride()) for g in grads])
        if where == "post":
            node.register_hook(lambda gi, go: look(gi))
        elif where == "pre":
            t_node.register_prehook(lambda go: look(go))
        elif where == "t_post":
            t_node.register_hook(lambda gi, go: look(gi))
        elif where == "leaf":
            w.register_hook(lambda g: look([g]))
        elif where == "tensor":
            wt.register_hook(lambda g: look([g]))
        loss = (out * out).sum()
        if where == "inputs":
            seen.append([(g._base is not None, g.stride())
                         for g in lib.autograd.grad(loss, (wt, w), retain_graph=True)])
        loss.backward()
        return seen, w.grad.tolist(), w.grad.stride(), w.grad._base is None

    for where in ("post", "pre", "t_post", "leaf", "tensor", "inputs"):
        assert run(dyngrad, where) == run(torch, where), where


def test_a_gradient_penalty_keeps_torchs_views_only_where_inputs_captures(monkeypatch):
    """autograd.grad(penalty, params) captures the weights' gradients: those come back as
    torch's views. The transposes inside the first gradient's graph go to no captured node:
    they take the array form (Note [Transposed gradients as arrays]); values and strides of
    what is returned are torch's."""
    from dyngrad.ops import shape
    views = []
    t_op = shape._t
    monkeypatch.setattr(shape, "_t", lambda grad: views.append(grad) or t_op(grad))

    def run(lib):
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.standard_normal((6, 4)), requires_grad=True)
        w1 = lib.tensor(rng.standard_normal((5, 4)), requires_grad=True)
        b1 = lib.tensor(rng.standard_normal(5), requires_grad=True)
        w2 = lib.tensor(rng.standard_normal((1, 5)), requires_grad=True)
        F = lib.nn.functional
        out = F.linear(lib.tanh(F.linear(x, w1, b1)), w2)
        g, = lib.autograd.grad(out.sum(), x, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        views.clear()
        grads = lib.autograd.grad(penalty, (w1, b1, w2))
        return [(r.detach().numpy(), r.stride(), r._base is not None) for r in grads]

    want, got = run(torch), run(dyngrad)
    assert [g[1:] for g in got] == [w[1:] for w in want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g[0], w[0], rtol=1e-12, atol=1e-15)
    assert len(views) == 2   # TBackward0 of w1.t() and w2.t(), whose leaves are captured


def test_a_custom_function_sees_a_transposed_gradient_as_a_view_like_torch():
    """A custom Function's backward is user code: the gradient it gets is torch's view
    (Note [Transposed gradients as arrays])."""
    def run(lib):
        seen = []

        class ColumnMajor(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.t().contiguous().t()

            @staticmethod
            def backward(ctx, grad):
                seen.append((grad._base is not None, grad.stride()))
                return grad

        w = lib.ones(3, 2, requires_grad=True)
        lib.ones(4, 3).mm(ColumnMajor.apply(w)).sum().backward()
        return seen, w.grad.tolist()

    assert run(dyngrad) == run(torch)


def test_a_view_gradient_is_taken_whether_its_storage_buffer_was_made_or_not(monkeypatch):
    """The Storage holds the memory's owner through its flat buffer once made (data_ptr()
    makes it), through the array it will be made from until then: counted either way."""
    from dyngrad.autograd import engine
    taken = []
    check = engine._only_view_of_its_memory
    monkeypatch.setattr(engine, "_only_view_of_its_memory",
                        lambda g: taken.append(check(g)) or taken[-1])
    x = dyngrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for touch in (False, True):
        w = dyngrad.ones(2, 3, requires_grad=True)
        z = w.t()              # as in a linear layer: mm's gradient t(mm(...)), then TBackward0
        # (a hook that looks, or inputs=, keeps the transposes views: Note [Transposed
        # gradients as arrays])
        if touch:
            z.register_hook(lambda g: g.data_ptr() and None)   # makes the buffer, keeps nothing
        else:
            z.register_hook(lambda g: None)
        x.mm(z).sum().backward()
        assert w.grad.tolist() == [[5.0, 7.0, 9.0], [5.0, 7.0, 9.0]]
        assert w.grad._base is None and w.grad.stride() == (3, 1)
    assert taken == [True, True]


def test_a_view_gradient_that_someone_else_reaches_is_copied():
    # a hook keeps the gradient the view was made from
    kept = []
    w = dyngrad.ones(2, 3, requires_grad=True)
    z = w.t()
    z.register_hook(kept.append)
    (z * 2).sum().backward()
    assert not _shares(w.grad, kept[0])
    # one gradient, viewed for two leaves (AddBackward0 passes the same tensor on)
    a = dyngrad.ones(2, 3, requires_grad=True)
    b = dyngrad.ones(2, 3, requires_grad=True)
    (a.t() + b.t()).sum().backward()
    assert not _shares(a.grad, b.grad)
    a.grad.add_(1)
    assert b.grad.tolist() == [[1.0] * 3] * 2
    # a retained non-leaf gradient whose view goes on to the leaf
    c = dyngrad.ones(2, 3, requires_grad=True)
    y = c * 1
    y.retain_grad()
    y.t().sum().backward()
    assert not _shares(c.grad, y.grad)
    # the mm result saved by a later node (create_graph keeps every gradient in the graph)
    d = dyngrad.ones(2, 3, requires_grad=True)
    out = dyngrad.nn.functional.linear(dyngrad.ones(4, 3), d).pow(2).sum()
    gd, = dyngrad.autograd.grad(out, d, create_graph=True)
    gd.sum().backward()
    assert d.grad is not None and not _shares(d.grad, gd)


def test_one_fresh_gradient_for_two_transposes_is_not_shared():
    """AddBackward0 hands one fresh gradient to two TBackward0 nodes. Here it is mm's gradient
    for a column-major input, whose transpose is C-contiguous: the first node may not make its
    memory a leaf's gradient that the second's leaf would share (shape._sole_owner counts the
    holders; Note [Transposed gradients as arrays])."""
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.0, 0.0, 2.0]]
    grads = {}
    for lib in (dyngrad, torch):
        a = lib.ones(2, 3, requires_grad=True)
        b = lib.ones(2, 3, requires_grad=True)
        lib.tensor(x).mm(a.t() + b.t()).sum().backward()   # (a.t() + b.t(): column-major)
        grads[lib.__name__] = (a.grad.tolist(), b.grad.tolist(), a.grad.stride())
        if lib is dyngrad:
            assert not _shares(a.grad, b.grad)
            a.grad.add_(1)
            assert b.grad.tolist() == grads["dyngrad"][1]
    assert grads["dyngrad"] == grads["torch"]


def test_a_fresh_gradient_is_taken_and_a_kept_one_copied():
    """The leaf keeps the very memory a formula returned when nothing else holds it."""
    seen, kept = [], []

    def make(keep):
        class Double(dyngrad.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                out = g * 2
                seen.append(out.data_ptr())   # an int: no reference to `out`
                if keep:
                    kept.append(out)
                return out
        return Double

    x = dyngrad.ones(3, requires_grad=True)
    make(False).apply(x).sum().backward()
    assert x.grad.data_ptr() == seen[-1]
    y = dyngrad.ones(3, requires_grad=True)
    make(True).apply(y).sum().backward()
    assert y.grad.data_ptr() != seen[-1] and not _shares(y.grad, kept[0])
    assert y.grad.tolist() == [2.0] * 3


def test_a_leafs_size_1_dim_stride_in_its_gradient_like_torch():
    """A copied gradient takes the leaf's strides, a size-1 dim's own stride included (NumPy
    calls such a leaf C-contiguous); a stolen one keeps its own, as torch's layout contract
    ignores size-1 dims."""
    x0 = np.random.default_rng(0).standard_normal((6, 7, 3))
    grads = {}
    for lib in (dyngrad, torch):
        x = lib.tensor(x0).permute(1, 0, 2).narrow(1, 0, 1).detach().requires_grad_()
        out = []
        for make in (lambda t: t.sum(), lambda t: (t * 2).sum(), lambda t: t.exp().sum()):
            x.grad = None
            make(x).backward()
            out.append((x.grad.stride(), x.grad.numpy().copy()))
        x.sum().backward()                         # accumulated into the existing gradient
        out.append((x.grad.stride(), x.grad.numpy().copy()))
        grads[lib] = out
    for (ours, a), (theirs, b) in zip(grads[dyngrad], grads[torch]):
        assert ours == theirs
        np.testing.assert_allclose(a, b, rtol=1e-14)


# -- backward(create_graph=True) into .grad: torch's AccumulateGrad ------------------------------
def _node(t):
    return None if t is None or t.grad_fn is None else t.grad_fn.name()


def _leaf(lib, make):
    return make(lib).detach().requires_grad_()


# Each case runs backward(create_graph=True) and returns what .grad holds: its node (a copy in
# the leaf's layout, CopyBackwards; a clone for a leaf with gaps or a non-leaf; a sum once a
# gradient is there) and its strides. torch warns of the reference cycle once per process.
CREATE_GRAPH_CASES = {
    "first gradient": lambda lib: _grad_after(lib, lambda lib: lib.ones(2), lambda x: x * x),
    "no history to keep": lambda lib: _grad_after(lib, lambda lib: lib.ones(2), lambda x: x * 1),
    "transposed leaf": lambda lib: _grad_after(lib, lambda lib: lib.ones(2, 3).t(),
                                                lambda x: x * x),
    "gradient arriving transposed": lambda lib: _grad_after(
        lib, lambda lib: lib.ones(3, 2), lambda x: x.t() * x.t()),
    "leaf with gaps": lambda lib: _grad_after(lib, lambda lib: lib.ones(4, 2)[:, :1],
                                              lambda x: x * x),
    "float64 history": lambda lib: _grad_after(lib, lambda lib: lib.ones(2),
                                               lambda x: x.double() * x.double()),
    "second backward adds": lambda lib: _grad_after(lib, lambda lib: lib.ones(2),
                                                    lambda x: x * x, times=2),
    "onto a set .grad": lambda lib: _grad_after(lib, lambda lib: lib.ones(2), lambda x: x * x,
                                                preset=True),
    "non-leaf input": lambda lib: _input_grad(lib, retain=False),
    "retained non-leaf": lambda lib: _input_grad(lib, retain=True),
}


def _grad_after(lib, make, f, times=1, preset=False):
    x = _leaf(lib, make)
    if preset:
        x.grad = lib.zeros(x.shape)
    for _ in range(times):
        f(x).sum().backward(create_graph=True)
    g = x.grad
    return _node(g), g.stride(), g.requires_grad, g is not None and g._base is None


def _input_grad(lib, retain):
    x = lib.ones(2, requires_grad=True)
    y = x * x
    if retain:
        y.retain_grad()
    (y * y).sum().backward(create_graph=True, inputs=[y] if not retain else None)
    return _node(y.grad), _node(x.grad)


@pytest.mark.parametrize("case", list(CREATE_GRAPH_CASES))
def test_create_graph_grads_like_torch(case):
    import warnings
    got = []
    for lib in (torch, dyngrad):
        with warn_always(lib), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = CREATE_GRAPH_CASES[case](lib)
        got.append((result, [str(w.message) for w in caught]))
    assert got[1] == got[0]
    assert got[0][1], "torch warns of the cycle"


def test_backward_without_create_graph_adds_into_a_gradient_with_history():
    """torch adds a later gradient in place (no grad mode in the engine): the .grad object and
    its grad_fn stay; autograd.grad never warns of the cycle."""
    import warnings
    got = []
    for lib in (torch, dyngrad):
        x = lib.ones(2, requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        g = x.grad
        (x * x).sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.autograd.grad((x * x).sum(), x, create_graph=True)
        got.append((x.grad is g, _node(x.grad), x.grad.tolist(), g._version))
    assert got[1] == got[0]


# -- autograd.grad(is_grads_batched=True) -------------------------------------------------------
def _batched(lib, out_fn, grad_outputs, inputs=1, **kw):
    xs = [lib.tensor([1.0, 2.0], requires_grad=True) for _ in range(inputs)]
    outs = out_fn(xs[0])
    return lib.autograd.grad(outs, xs, grad_outputs=grad_outputs, is_grads_batched=True, **kw)


BATCHED_CASES = {
    "rows of the identity": lambda lib: _batched(lib, lambda x: x * x * 3, lib.eye(2)),
    "one row per output": lambda lib: _batched(
        lib, lambda x: [x * x, x * 2], [lib.eye(2), lib.ones(2, 2)]),
    "a sum's rows": lambda lib: _batched(lib, lambda x: (x * 2).sum(), lib.ones(3)),
    "unused input": lambda lib: _batched(lib, lambda x: x * 3, lib.eye(2), inputs=2,
                                         allow_unused=True),
    "unused input materialized": lambda lib: _batched(lib, lambda x: x * 3, lib.eye(2),
                                                      inputs=2, materialize_grads=True),
    "row shape mismatch": lambda lib: _batched(lib, lambda x: (x * 2).sum(), lib.ones(3, 1)),
    "row shape mismatch, vector": lambda lib: _batched(lib, lambda x: x * 2, lib.ones(3)),
    "batch sizes differ": lambda lib: _batched(lib, lambda x: [x * 2, x * 3],
                                               [lib.ones(3, 2), lib.ones(4, 2)]),
    "0-dim grad_output": lambda lib: _batched(lib, lambda x: (x * 2).sum(), lib.ones(())),
    "empty batch": lambda lib: _batched(lib, lambda x: x * x, lib.ones(0, 2)),
    "implicit gradient of a scalar": lambda lib: _batched(lib, lambda x: (x * 2).sum(), None),
    "implicit gradient of a 1-vector": lambda lib: _batched(
        lib, lambda x: (x * 2).sum().reshape(1), None),
    "complex grad_output": lambda lib: _batched(
        lib, lambda x: (x * 2).sum(), lib.ones(3, dtype=lib.complex64)),
}


@pytest.mark.parametrize("case", list(BATCHED_CASES))
def test_batched_grads_like_torch(case):
    results = []
    for lib in (torch, dyngrad):
        try:
            results.append([None if g is None else (g.tolist(), tuple(g.shape))
                            for g in BATCHED_CASES[case](lib)])
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            results.append((type(e).__name__, str(e)))
    assert results[1] == results[0]


def test_batched_grads_keep_the_graph_until_the_last_row_and_record_with_create_graph():
    for lib in (torch, dyngrad):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * x * x
        g, = lib.autograd.grad(y, x, lib.eye(2), is_grads_batched=True, create_graph=True)
        assert g.requires_grad   # (torch's node comes from vmap; ours stacks the rows)
        h, = lib.autograd.grad(g.sum(), x)
        assert h.tolist() == [6.0, 12.0]
        y = x * x * x
        lib.autograd.grad(y, x, lib.eye(2), is_grads_batched=True)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            lib.autograd.grad(y, x, lib.eye(2), is_grads_batched=True)


def test_implicit_gradient_of_a_complex_scalar_is_refused_like_torch():
    def ex(lib):
        (lib.tensor([1 + 1j], requires_grad=True) * 2).sum().backward()
    assert_prints_like_torch(ex)


def _leaves(L):
    w = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor(3.0, requires_grad=True)
    return w, b, (w * w).sum() + 2 * b


INPUTS = {   # torch 2.13's forms of ``inputs=``: a dict of tensors, and what it refuses
    "grad dict": lambda L: (lambda w, b, y: L.autograd.grad(y, {"w": w, "b": b}))(*_leaves(L)),
    "grad dict keys kept": lambda L: list((lambda w, b, y: L.autograd.grad(
        y, {"b": b, "w": w}))(*_leaves(L))),
    "grad OrderedDict": lambda L: (lambda w, b, y: L.autograd.grad(
        y, __import__("collections").OrderedDict(w=w)))(*_leaves(L)),
    "grad mappingproxy": lambda L: (lambda w, b, y: L.autograd.grad(
        y, __import__("types").MappingProxyType({"w": w})))(*_leaves(L)),
    "grad empty list": lambda L: (lambda w, b, y: L.autograd.grad(y, []))(*_leaves(L)),
    "grad empty dict": lambda L: (lambda w, b, y: L.autograd.grad(y, {}))(*_leaves(L)),
    "grad only_inputs=False": lambda L: (lambda w, b, y: L.autograd.grad(
        y, w, only_inputs=False))(*_leaves(L)),
    "backward dict": lambda L: (lambda w, b, y: (y.backward(inputs={"w": w}), w.grad,
                                                 b.grad))(*_leaves(L)),
    "backward OrderedDict": lambda L: (lambda w, b, y: y.backward(
        inputs=__import__("collections").OrderedDict(w=w)))(*_leaves(L)),
    "backward empty dict": lambda L: (lambda w, b, y: y.backward(inputs={}))(*_leaves(L)),
    "autograd.backward dict": lambda L: (lambda w, b, y: (L.autograd.backward(
        y, inputs={"b": b}), w.grad, b.grad))(*_leaves(L)),
}


@pytest.mark.parametrize("case", sorted(INPUTS))
def test_inputs_forms(case):
    same_outcome(INPUTS[case])


@pytest.mark.parametrize("case", ["hooks", "freed", "edge"])
def test_backward_inputs_runs_a_non_leaf_inputs_node(case):
    """backward(inputs=[m]) with a non-leaf m runs m's own node, as torch does (its pre- and
    post-hooks; the freed-graph error), with nothing needed beyond it."""
    def run(lib):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        m = x.exp()
        m.grad_fn.register_prehook(lambda go: log.append(("pre", go)))
        m.grad_fn.register_hook(lambda gi, go: log.append(("post", gi, go)))
        if case == "freed":
            lib.autograd.grad(m.sum(), x)
        target = lib.autograd.graph.get_gradient_edge(m) if case == "edge" else m
        (m * 3).sum().backward(inputs=[target])
        return log, m.grad, x.grad
    same_outcome(run)
