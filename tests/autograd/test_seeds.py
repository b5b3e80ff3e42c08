"""The user's notes (../shared/seeds/) run unchanged on dyngrad and print what torch prints.

Each test names the seed and section it comes from. Where a seed contradicts real torch (seed
000 claims ``x.add_(3)`` on a leaf that requires grad leaves ``.grad`` as None; torch raises),
torch's behaviour is what is checked.
"""
from .helpers import assert_prints_like_torch


def test_seed000_out_of_place_add_keeps_graph():
    """seed 000 §一: add vs add_ (non in-place keeps the graph)."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.add(3)
        print(x)
        print(y)
        print(x is y)
    assert_prints_like_torch(ex)


def test_seed000_inplace_on_leaf_raises():
    """seed 000 §一/§二 case 2: torch raises for add_ on a leaf that requires grad."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.add_(3)
        print(y)
    assert_prints_like_torch(ex)


def test_seed000_case1_gradient_flows():
    """seed 000 §二 case 1."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x + 3
        z = y.sum()
        z.backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_seed000_rebinding_is_not_inplace():
    """seed 000 §三: ``x = x + 3`` builds a new tensor; ``x += 3`` on the leaf raises."""
    def ex(torch):
        x = torch.tensor([1.0], requires_grad=True)
        x = x + 3
        (x.sum()).backward()
        print(x.grad)   # x is now a non-leaf: None with torch's warning
        x = torch.tensor([1.0], requires_grad=True)
        x += 3
    assert_prints_like_torch(ex)


def test_seed002_pow_mul_sum_backward():
    """seed 002 In[92]: out = (x.pow(2)*y).sum(); out.backward()."""
    def ex(torch):
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        y = torch.tensor([[5., 6.], [7., 8.]], requires_grad=True)
        out = (x.pow(2) * y).sum()
        out.backward()
        print(x.grad)
        print(y.grad)
    assert_prints_like_torch(ex)


def test_seed002_leaves_retain_grad_detach():
    """seed 002 In[99]-In[100]: leaves, retain_grad, detach, a new leaf, grads."""
    def ex(torch):
        x = torch.tensor([1.0], requires_grad=True)
        y = torch.tensor([3.0])
        y.requires_grad = True
        ind_a = x * y * 2
        ind_b = x + y
        ind_a.retain_grad()
        det_a = ind_b.detach()
        print(det_a.requires_grad)
        det_a.requires_grad_(True)
        z = ind_a * ind_b + ind_b
        c = det_a * y
        z.backward()
        print(x.requires_grad, y.requires_grad, ind_a.requires_grad, ind_b.requires_grad,
              z.requires_grad)
        print(x.is_leaf, y.is_leaf, ind_a.is_leaf, ind_b.is_leaf, z.is_leaf)
        print(x.grad, y.grad)
        print(ind_a.grad, ind_b.grad)
        x.grad.zero_()
        y.grad.zero_()
        ind_a.grad.zero_()
        c.backward()
        print(det_a.grad, y.grad)
        print(det_a.is_leaf)
    assert_prints_like_torch(ex)


def test_seed002_zeroing_and_recomputing():
    """seed 002 In[101]: zero the grads, rebuild the graph, backward again."""
    def ex(torch):
        x = torch.tensor([1.0], requires_grad=True)
        y = torch.tensor([3.0], requires_grad=True)
        det_a = (x + y).detach().requires_grad_(True)
        for _ in range(2):
            ind_a = x * y * 2
            ind_a.retain_grad()
            ind_b = x + y
            z = ind_a * ind_b + ind_b
            z.backward()
            print(x.grad, y.grad)
            print(ind_a.grad)
            x.grad.zero_()
            y.grad.zero_()
            c = det_a * y
            c.backward()
            print(det_a.grad, y.grad)
            det_a.grad.zero_()
            y.grad.zero_()
    assert_prints_like_torch(ex)


def test_seed002_no_grad_vs_detach():
    """seed 002: no_grad blocks recording; detach shares memory and cuts the graph."""
    def ex(torch):
        x = torch.tensor([3.0], requires_grad=True)
        with torch.no_grad():
            y = x * 2
        print(y, y.requires_grad, x.requires_grad)
        z = x.detach()
        print(z.requires_grad, z.data_ptr() == x.data_ptr())
    assert_prints_like_torch(ex)


def test_seed001_grad_modes():
    """seed 001 §1.4-1.6: no_grad, set_grad_enabled, requires_grad=False on a leaf."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with torch.no_grad():
            y = x * 2
        print(y.requires_grad)
        with torch.set_grad_enabled(False):
            y = x * 2
        print(y.requires_grad)
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
        x.requires_grad = False
        z = x * y
        z.sum().backward()
        print(x.grad, y.grad)
        print(torch.is_grad_enabled())
    assert_prints_like_torch(ex)


def test_seed001_saved_tensors():
    """seed 001 §1.2: _saved_self is x for pow; _saved_result equals but is not y for exp."""
    def ex(torch):
        x = torch.randn(5, requires_grad=True)
        y = x.pow(2)
        print(x.equal(y.grad_fn._saved_self))
        print(x is y.grad_fn._saved_self)
        x = torch.randn(5, requires_grad=True)
        y = x.exp()
        print(y.equal(y.grad_fn._saved_result))
        print(y is y.grad_fn._saved_result)
    assert_prints_like_torch(ex)


def test_seed004_inplace_after_backward_raises():
    """seed 004 'Tensor 的原地操作': x.mul_(2) after a retained backward, then backward again."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        z = y + 1
        z.sum().backward(retain_graph=True)
        print(x.grad)
        x.mul_(2)
    assert_prints_like_torch(ex)


def test_seed004_detached_inplace_is_fine():
    """seed 004: modifying x.detach() in place keeps the (retained) graph usable here."""
    def ex(torch):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        z = (y + 1).sum()
        z.backward(retain_graph=True)
        x_detached = x.detach()
        x_detached.mul_(2)
        z.backward()
        print(x.grad, x)
    assert_prints_like_torch(ex)


def test_seed003_graph_walk():
    """seed 003 Part 2: grad_fn, next_functions and a recursive print of the graph."""
    def ex(torch):
        x = torch.tensor(3.0, requires_grad=True)
        y = x * x + 1
        print(y.grad_fn)
        print(y.grad_fn.next_functions)

        def print_graph(g, indent=0):
            print(" " * indent + str(g))
            if hasattr(g, "next_functions"):
                for n, _ in g.next_functions:
                    if n is not None:
                        print_graph(n, indent + 4)
        x = torch.tensor([3.0], requires_grad=True)
        print_graph((x ** 2 + 1).grad_fn)
    assert_prints_like_torch(ex)


def test_seed003_backward_values_and_higher_order():
    """seed 003 Parts 1, 4, 5: chain rule values, retain_graph, create_graph, manual SGD."""
    def ex(torch):
        a = torch.tensor([2.0], requires_grad=True)
        b = a * 3
        c = b ** 2
        c.backward()
        print(a.grad)
        x = torch.tensor([3.0], requires_grad=True)
        (x * x + 2).backward()
        print(x.grad)
        x = torch.tensor(2.0, requires_grad=True)
        y = x ** 3
        g = torch.autograd.grad(y, x, create_graph=True)[0]
        g2 = torch.autograd.grad(g, x)[0]
        print(g, g2)
        w = torch.tensor(1.0, requires_grad=True)
        for _ in range(5):
            loss = (w - 3) ** 2
            loss.backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
            w.grad.zero_()
        print(w)
    assert_prints_like_torch(ex)


def test_seed003_backward_twice_raises():
    """seed 003 Part 4-C: a second backward without retain_graph raises torch's error."""
    def ex(torch):
        x = torch.tensor(2.0, requires_grad=True)
        y = x.exp()
        y.backward()
        y.backward()
    assert_prints_like_torch(ex)


def test_seed003_gradient_penalty():
    """seed 003 Part 5-D: a gradient penalty via create_graph."""
    def ex(torch):
        x = torch.tensor([2.0, -1.0], requires_grad=True)
        y = (x ** 2).sum()
        g = torch.autograd.grad(y, x, create_graph=True)[0]
        penalty = ((g * g).sum().sqrt() - 1) ** 2     # (g.norm() - 1) ** 2 once norm exists
        penalty.backward()
        print(x.grad)
    assert_prints_like_torch(ex)
