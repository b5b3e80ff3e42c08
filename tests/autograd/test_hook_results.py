"""What a hook returns in place of gradients, checked as torch checks it: tensor hooks (on
leaves and non-leaves) must return a tensor of the gradient's dtype and shape, node pre- and
post-hooks a tuple of as many gradients (None or such a tensor); each refusal is torch's
exception. A gradient a hook made with requires_grad is stored detached in ``.grad``."""
import functools

import pytest

from compare import same_outcome


def _named(g):
    return g[:2]


TENSOR_HOOKS = [lambda g: g[:2], _named, functools.partial(_named), lambda g: g.double(),
                lambda g: 3, lambda g: g.half(), lambda g: g.reshape(3, 1), lambda g: g * 2,
                lambda g: g.detach().requires_grad_()]
POST_HOOKS = [lambda gi, go: (gi[0][:2], None), lambda gi, go: (5, None),
              lambda gi, go: (gi[0].double(), None), lambda gi, go: (gi[0],),
              lambda gi, go: [gi[0], None], lambda gi, go: 5, lambda gi, go: (None, None),
              lambda gi, go: (gi[0] * 10, gi[0]),
              lambda gi, go: (gi[0].detach().requires_grad_(), None)]
PRE_HOOKS = [lambda go: (go[0], go[0]), lambda go: 5, lambda go: [go[0]],
             lambda go: (go[0][:2],), lambda go: (go[0].double(),), lambda go: (None,),
             lambda go: (go[0] * 10,)]


def _backward(lib, register):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    register(x)
    return x.grad


@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("hook", TENSOR_HOOKS)
def test_tensor_hook_results(hook, leaf):
    def register(x):
        if leaf:
            x.register_hook(hook)
            (x * 2).sum().backward()
        else:
            y = x * 2
            y.register_hook(hook)
            y.sum().backward()
    same_outcome(lambda lib: _backward(lib, register))


@pytest.mark.parametrize("hook, method", [(h, "register_hook") for h in POST_HOOKS]
                         + [(h, "register_prehook") for h in PRE_HOOKS])
def test_node_hook_results(hook, method):
    def register(x):
        y = x * 2
        getattr(y.grad_fn, method)(hook)
        y.sum().backward()
    same_outcome(lambda lib: _backward(lib, register))


@pytest.mark.parametrize("hook", [lambda g: None, lambda g: g, lambda g: 3])
def test_hooks_of_an_output_without_gradient(hook):
    """A tensor hook on the sibling of the output backward starts from is called with None,
    as torch calls it; returning anything but None then is torch's error."""
    def run(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b1, b2 = (x * 1).unbind()
        b2.register_hook(lambda g: (seen.append(g), hook(g))[1])
        b1.sum().backward()
        return seen, x.grad
    same_outcome(run)


@pytest.mark.parametrize("result", [None, (), "one"])
def test_accumulate_grad_post_hooks(result):
    """A leaf's AccumulateGrad runs its post-hooks after accumulating, with no gradients in and
    the leaf's gradient out; a hook returning values is torch's count error."""
    def run(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        acc = (x * 1).grad_fn.next_functions[0][0]

        def hook(grad_inputs, grad_outputs):
            seen.append((grad_inputs, grad_outputs, x.grad))
            return (lib.zeros(2),) if result == "one" else result
        acc.register_hook(hook)
        (x * 2).sum().backward()
        return seen, x.grad
    same_outcome(run)
