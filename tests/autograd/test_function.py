"""Custom autograd Functions (``autograd.Function``) against live torch.

Each scenario is one snippet run on both libraries (``assert_prints_like_torch``): what it
prints (values, grads, grad_fn names, needs_input_grad, versions) and the error it raises must
be the same. Node reprs differ only by the module (``torch.`` vs ``dyngrad.autograd.function``),
so the snippets print ``type(node).__name__`` / ``node.name()``.
"""
from __future__ import annotations

import warnings

import pytest
import torch

import dyngrad
from .helpers import assert_prints_like_torch


def _x(lib, values=(1.0, -2.0, 3.0), dtype="float64", rg=True):
    return lib.tensor(list(values), dtype=getattr(lib, dtype), requires_grad=rg)


# -- the seeds' examples (/work/shared/seeds, run unchanged with `import dyngrad as torch`) -----
def test_seed_square():
    def ex(torch):
        class MySquare(torch.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(input)
                return input ** 2

            @staticmethod
            def backward(ctx, grad_output):
                input, = ctx.saved_tensors
                return grad_output * 2 * input

        x = torch.tensor(3.0, requires_grad=True)
        y = MySquare.apply(x)
        y.backward()
        print(x.grad, y, type(y.grad_fn).__name__, y.grad_fn.name())
    assert_prints_like_torch(ex)


def test_seed_exp():
    def run(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, i):
                result = i.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                result, = ctx.saved_tensors
                return grad_output * result

        input = _x(lib)
        output = Exp.apply(input)
        output.sum().backward()
        print(output, input.grad)
        saved = output.grad_fn.saved_tensors[0]
        print(saved is output, saved.equal(output), type(saved.grad_fn).__name__)
        print(lib.autograd.gradcheck(Exp.apply, (_x(lib),)))
    assert_prints_like_torch(run)


def test_seed_relu():
    def ex(torch):
        class MyReLU(torch.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(input)
                return input.clamp(min=0)

            @staticmethod
            def backward(ctx, grad_output):
                input, = ctx.saved_tensors
                grad_input = grad_output.clone()
                grad_input[input <= 0] = 0
                return grad_input

        x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
        y = MyReLU.apply(x)
        y.sum().backward()
        print(x.grad, y)
    assert_prints_like_torch(ex)


def test_seed_multiply_add_square():
    def ex(torch):
        class MultiplyAddSquare(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                return x * w + w ** 2

            @staticmethod
            def backward(ctx, grad_output):
                x, w = ctx.saved_tensors
                grad_x = grad_output * w
                grad_w = grad_output * (x + 2 * w)
                return grad_x, grad_w

        x = torch.tensor(2.0, requires_grad=True)
        w = torch.tensor(3.0, requires_grad=True)
        y = MultiplyAddSquare.apply(x, w)
        y.backward()
        print("dy/dx =", x.grad)
        print("dy/dw =", w.grad)
        print(y.grad_fn.next_functions[0][0].name(), len(y.grad_fn.next_functions))
    assert_prints_like_torch(ex)


def test_seed_leaky_relu_and_gradcheck():
    def ex(torch):
        from_gradcheck = torch.autograd.gradcheck

        class MyLeakyReLU(torch.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(input)
                return torch.where(input > 0, input, 0.1 * input)

            @staticmethod
            def backward(ctx, grad_output):
                input, = ctx.saved_tensors
                grad_input = grad_output.clone()
                grad_input[input > 0] = 1.0
                grad_input[input <= 0] = 0.1
                return grad_input

        x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
        y = MyLeakyReLU.apply(x)
        y.sum().backward()
        print(x.grad)
        # the seed's backward ignores grad_output (and 0 is a kink): gradcheck says so
        x = torch.tensor([1.0, -1.0, 0.0], dtype=torch.double, requires_grad=True)
        test = from_gradcheck(MyLeakyReLU.apply, (x,), eps=1e-6, atol=1e-4)
        print("Gradient correct?", test)
    assert_prints_like_torch(ex)


# -- ctx features --------------------------------------------------------------------------------
def test_node_name_edges_needs_input_grad_and_non_tensor_args():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k=2):
                print("needs", ctx.needs_input_grad)
                ctx.save_for_backward(x)
                ctx.k = k
                return x * k + y

            @staticmethod
            def backward(ctx, g):
                print("needs", ctx.needs_input_grad)
                return g * ctx.k, g, None

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.tensor([3.0, 4.0])
        z = MyFn.apply(x, y, 3)
        print(z, type(z.grad_fn).__name__, z.grad_fn.name())
        print([type(f).__name__ if f is not None else None for f, _ in z.grad_fn.next_functions])
        z.sum().backward()
        print(x.grad)
        z = MyFn.apply(x, y, k=4)
        print(z)
    assert_prints_like_torch(ex)


def test_wrong_number_of_gradients():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y

            @staticmethod
            def backward(ctx, g):
                return g

        MyFn.apply(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward()
    assert_prints_like_torch(ex)


def test_extra_none_gradients_are_dropped_but_not_extra_tensors():
    def ex(torch):
        class Extra(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g, None, None

        class Extra2(Extra):
            @staticmethod
            def backward(ctx, g):
                return g, g

        x = torch.ones(2, requires_grad=True)
        Extra.apply(x).sum().backward()
        print(x.grad)
        Extra2.apply(x).sum().backward()
    assert_prints_like_torch(ex)


def test_gradient_for_non_tensor_input_raises():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, g

        MyFn.apply(torch.ones(2, requires_grad=True), 3).sum().backward()
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("kind", ["int", "float", "list", "array", "str", "object"])
def test_gradient_that_is_not_a_tensor_raises(kind):
    """torch checks each gradient a custom backward returns: a tensor or None."""
    def ex(torch):
        import numpy

        class Box:
            pass
        value = {"int": 5, "float": 2.5, "list": [1.0, 1.0], "array": numpy.ones(2), "str": "g",
                 "object": Box()}[kind]

        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return value, None

        MyFn.apply(torch.ones(2, requires_grad=True), 3).sum().backward()
    assert_prints_like_torch(ex)


def test_invalid_gradient_shape():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return torch.ones(3)

        MyFn.apply(torch.ones(2, requires_grad=True)).sum().backward()
    assert_prints_like_torch(ex)


def test_broadcast_gradient_is_summed_and_cast():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return torch.ones(3, 2, dtype=torch.float64)

        x = torch.ones(2, requires_grad=True)
        MyFn.apply(x).sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_legacy_function_and_direct_forward_calls():
    def ex(torch):
        class Legacy(torch.autograd.Function):
            def forward(self, x):
                return x * 2

            def backward(self, g):
                return g * 3

        x = torch.ones(2, requires_grad=True)
        y = Legacy.apply(x)        # torch calls a plain forward as if it were static
        y.sum().backward()
        print(y, x.grad)
        Legacy()(x)
    assert_prints_like_torch(ex)


def test_instantiating_warns():
    msgs = {}
    for lib in (torch, dyngrad):
        class Legacy(lib.autograd.Function):
            def forward(self, x):
                return x

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Legacy()
        msgs[lib.__name__] = [(w.category, str(w.message)) for w in caught]
    assert msgs["torch"] == msgs["dyngrad"]
    assert msgs["torch"][0][0] is DeprecationWarning


def test_forward_called_directly():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x)
                return x + y

        x = torch.ones(2, requires_grad=True)
        try:
            MyFn.forward(x, x)        # x taken as ctx
        except Exception as e:
            print(type(e).__name__, e)
        MyFn.forward(None, x, x)
    assert_prints_like_torch(ex)


def test_missing_forward_and_backward():
    def ex(torch):
        class NoFwd(torch.autograd.Function):
            pass

        class NoBwd(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        x = torch.ones(2, requires_grad=True)
        try:
            NoFwd.apply(x)
        except NotImplementedError as e:
            print(e)
        NoBwd.apply(x).sum().backward()
    assert_prints_like_torch(ex)


def test_no_grad_and_no_input_requiring_grad_record_nothing():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                print("needs", ctx.needs_input_grad)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        x = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            z = MyFn.apply(x)
        print(z.grad_fn, z.requires_grad)
        z = MyFn.apply(x.detach())
        print(z.grad_fn, z.requires_grad)
    assert_prints_like_torch(ex)


def test_input_returned_as_is_becomes_a_view():
    def ex(torch):
        class Id(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = torch.ones(2, requires_grad=True)
        z = Id.apply(x)
        print(z is x, type(z.grad_fn).__name__, z._base is x, x.grad_fn)
        z.sum().backward()
        print(x.grad)
        a = x * 1
        z = Id.apply(a)
        print(z is a, type(z.grad_fn).__name__, z._base is a, type(a.grad_fn).__name__)

        class ViewFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.view(-1)

            @staticmethod
            def backward(ctx, g):
                return g.view(2, 2)

        y = torch.ones(2, 2, requires_grad=True)
        v = ViewFn.apply(y)
        print(type(v.grad_fn).__name__, v._base is y)
        v.sum().backward()
        print(y.grad)
    assert_prints_like_torch(ex)


def test_multiple_outputs_and_materialize_grads():
    def ex(torch):
        class Two(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                print("grads", g1, g2)
                return g1 * 2 + g2 * 3

        class Lazy(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                print("grads", g1, g2)
                return g1 * 2

        x = torch.ones(2, requires_grad=True)
        u, v = Two.apply(x)
        print(u.grad_fn is v.grad_fn, u, v)
        u.sum().backward()
        (u + v).sum().backward()
        u, v = Lazy.apply(x)
        u.sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_non_tensor_and_integer_outputs():
    def ex(torch):
        class NonT(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5, None, (x > 0).long()

            @staticmethod
            def backward(ctx, g, a, b, gi):
                print("grads", g, a, b, gi)
                return g * 2

        x = torch.tensor([1.0, -1.0], requires_grad=True)
        r = NonT.apply(x)
        print(r[1:3], r[3].requires_grad, r[3].grad_fn, type(r[0].grad_fn).__name__)
        r[0].sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_mark_non_differentiable():
    def ex(torch):
        class Sort(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                v, i = a.sort()
                ctx.mark_non_differentiable(i)
                ctx.save_for_backward(i)
                return v, i

            @staticmethod
            def backward(ctx, gv, gi):
                print("gi", gi)
                i, = ctx.saved_tensors
                return torch.zeros_like(gv).scatter(0, i, gv)

        x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
        v, i = Sort.apply(x)
        print(v, i, v.requires_grad, i.requires_grad, i.grad_fn)
        (v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_mark_dirty():
    def ex(torch):
        class Inpl(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                a.mul_(2)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        print(a._version)
        b = Inpl.apply(a)
        print(b is a, type(a.grad_fn).__name__, a._version,
              type(b.grad_fn.next_functions[0][0]).__name__, a)
        b.sum().backward()
        print(x.grad)
        try:
            Inpl.apply(x)
        except RuntimeError as e:
            print(e)

        class Dirty2(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        Dirty2.apply(x * 1)
    assert_prints_like_torch(ex)


def test_mark_dirty_on_a_view_goes_through_copy_slices():
    def ex(torch):
        class Inpl(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                a.mul_(3)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        base = x * 1
        Inpl.apply(base[1:])
        print(base, base.grad_fn.name())
        base.sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_mark_dirty_on_a_view_that_is_not_the_first_input():
    """torch's CopySlices writes the gradient the node returns for its first input into the
    view's slice, whichever input was dirty, and sends the others to their inputs."""
    def ex(torch):
        class WriteSecond(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                y.mul_(2)
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g, g * 2

        leaf = torch.ones(4, requires_grad=True)
        a = torch.ones(2, requires_grad=True)
        base = leaf.clone()
        out = WriteSecond.apply(a, base[:2])
        print(out.grad_fn.name(), base.grad_fn.name(), base)
        (base * torch.arange(4.0)).sum().backward()
        print(leaf.grad, a.grad)
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("second", ["tensor", "number"])
def test_mark_dirty_on_a_view_with_more_outputs_raises(second):
    def ex(torch):
        class WriteAndMore(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x, (x.detach() * 3 if second == "tensor" else 3)

            @staticmethod
            def backward(ctx, g1, g2):
                return g1

        base = torch.ones(4, requires_grad=True).clone()
        view = base[:2]
        try:
            WriteAndMore.apply(view)
        finally:
            print(view._version, base.grad_fn.name())
    assert_prints_like_torch(ex)


@pytest.mark.parametrize("where", ["leaf", "non-leaf", "view"])
def test_non_differentiable_input_comes_back_detached(where):
    """torch returns a detached alias of an input marked non-differentiable that requires
    grad, dirty or not, and leaves the input's history as it was (a leaf is no error)."""
    def ex(torch):
        class Mark(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, dirty):
                if dirty:
                    x.mul_(2)
                    ctx.mark_dirty(x)
                ctx.mark_non_differentiable(x)
                return x, x.detach() * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g2 * 3, None

        for dirty in (False, True):
            leaf = torch.ones(4, requires_grad=True)
            x = {"leaf": leaf, "non-leaf": leaf * 1, "view": (leaf * 1)[1:3]}[where]
            out, other = Mark.apply(x, dirty)
            print(out, out is x, out.requires_grad, out.grad_fn, out._is_view(), x._version)
            print(x.grad_fn.name() if x.grad_fn else None, other.grad_fn.name())
            other.sum().backward()
            print(leaf.grad)
    assert_prints_like_torch(ex)


def test_saved_tensor_version_check_and_freeing():
    def ex(torch):
        class Sq(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 2

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 2 * a * g

        class SaveOut(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                y, = ctx.saved_tensors
                print(type(y.grad_fn).__name__, y.requires_grad)
                return g * y

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = SaveOut.apply(x)
        y.sum().backward()
        y = Sq.apply(x)
        print(y.grad_fn.saved_tensors[0] is x)
        y.sum().backward()
        for thunk in (lambda: y.grad_fn.saved_tensors, lambda: y.sum().backward()):
            try:
                thunk()
            except RuntimeError as e:
                print(e)
        a = x * 1
        y = Sq.apply(a)
        a.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as e:
            print(e)
        y = SaveOut.apply(x)
        y.mul_(2)
        y.sum().backward()
    assert_prints_like_torch(ex)


def test_save_for_backward_type_check_and_none():
    def ex(torch):
        class SaveNone(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                print(a.requires_grad, b)
                return g

        class SaveBad(SaveNone):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

        x = torch.ones(2, requires_grad=True)
        SaveNone.apply(x).sum().backward()
        SaveBad.apply(x)
    assert_prints_like_torch(ex)


def test_save_for_backward_names_the_type_as_torch_does():
    def ex(torch):
        import numpy

        class SaveArray(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(numpy.ones(2))
                return x * 2

        SaveArray.apply(torch.ones(2, requires_grad=True))
    assert_prints_like_torch(ex)


def test_save_for_backward_checks_types_only_when_recording():
    """A call that records no node may save anything (torch checks the types as it saves them
    on the node); one that records raises."""
    def ex(torch):
        class SaveNumber(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return y * 2

            @staticmethod
            def backward(ctx, g):
                return None, g

        print(SaveNumber.apply(0.5, torch.ones(2)))
        with torch.no_grad():
            print(SaveNumber.apply(0.5, torch.ones(2, requires_grad=True)))
        SaveNumber.apply(0.5, torch.ones(2, requires_grad=True))
    assert_prints_like_torch(ex)


def test_saved_tensor_hooks_apply():
    def ex(torch):
        class Sq(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 2

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 2 * a * g

        def pack(t):
            print("pack", t)
            return t * 10

        def unpack(t):
            print("unpack", t)
            return t

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = Sq.apply(x)
        y.sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_setup_context_style():
    def ex(torch):
        class New(torch.autograd.Function):
            @staticmethod
            def forward(x, k=2):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.k = k
                ctx.save_for_backward(x)
                print("setup", len(inputs), output.requires_grad, ctx.needs_input_grad)

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * ctx.k, None

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = New.apply(x, 3)
        print(type(y.grad_fn).__name__, y)
        y.sum().backward()
        y = New.apply(x, k=5)
        y = New.apply(x)
        y.sum().backward()
        print(x.grad, New.forward(x, 3).grad_fn.name())
    assert_prints_like_torch(ex)


def test_vjp_alias():
    def ex(torch):
        class Vjp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 2

        x = torch.ones(2, requires_grad=True)
        Vjp.apply(x).sum().backward()
        print(x.grad, Vjp.backward is Vjp.vjp,
              torch.autograd.Function.backward is torch.autograd.Function.vjp)
    assert_prints_like_torch(ex)


def test_double_backward_through_custom_backward():
    def ex(torch):
        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 3 * a ** 2 * g

        x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        g, = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        print(g, g.grad_fn.name())
        gg, = torch.autograd.grad(g.sum(), x)
        print(gg)
        print(torch.autograd.gradgradcheck(Cube.apply, (x,)))
    assert_prints_like_torch(ex)


def test_once_differentiable():
    def ex(torch):
        from_once = torch.autograd.function.once_differentiable

        class SqOnce(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 2

            @staticmethod
            @from_once
            def backward(ctx, g):
                a, = ctx.saved_tensors
                print("grad mode in backward", torch.is_grad_enabled())
                return 2 * a * g

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = SqOnce.apply(x)
        g, = torch.autograd.grad(y.sum(), x, create_graph=True)
        print(g, g.grad_fn, g.requires_grad)
        y = SqOnce.apply(x)
        go = torch.ones(2, requires_grad=True)
        g, = torch.autograd.grad(y, x, go, create_graph=True)
        print(g.grad_fn.name(), g.requires_grad, len(g.grad_fn.next_functions))
        g.sum().backward()
    assert_prints_like_torch(ex)


def test_hooks_on_custom_node():
    def ex(torch):
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = torch.ones(2, requires_grad=True)
        y = MyFn.apply(x)
        y.grad_fn.register_prehook(lambda go: print("pre", go))
        y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        print(x.grad)
    assert_prints_like_torch(ex)


def test_metaclass_makes_one_node_class_per_function():
    class A(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    x = dyngrad.ones(1, requires_grad=True)
    assert type(A.apply(x).grad_fn) is type(A.apply(x).grad_fn) is A._backward_cls
    assert isinstance(A.apply(x).grad_fn, dyngrad.autograd.graph.Node)
    assert repr(A.apply(x).grad_fn).startswith("<dyngrad.autograd.function.ABackward object")


@pytest.mark.parametrize("lib", [torch, dyngrad], ids=["torch", "dyngrad"])
def test_from_import_paths(lib):
    mod = __import__(f"{lib.__name__}.autograd.function", fromlist=["x"])
    assert mod.Function is lib.autograd.Function
    assert callable(mod.once_differentiable)
    assert issubclass(mod.FunctionCtx, object)


def test_inplace_on_a_view_output_is_forbidden():
    def ex(torch):
        class Id(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        class ViewFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[1:]

            @staticmethod
            def backward(ctx, g):
                return torch.cat([torch.zeros(1), g])

        x = torch.ones(3, requires_grad=True)
        for F in (Id, ViewFn):
            a = x * 1
            z = F.apply(a)
            try:
                z.mul_(2)
            except RuntimeError as e:
                print(e)
            z = F.apply(a)
            a.add_(1)
            try:
                print(z.grad_fn)
            except RuntimeError as e:
                print(e)
            z = F.apply(a * 1)
            print(z.sum().backward(), x.grad)
    assert_prints_like_torch(ex)


def test_inputs_returned_as_is_when_nothing_is_recorded():
    def ex(torch):
        class Id(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        class Inpl(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                a.mul_(2)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = torch.ones(3, requires_grad=True)
        a = x * 1
        with torch.no_grad():
            z = Id.apply(a)
        print(z is a, z._base is a, z.requires_grad, z._version)
        z.add_(1)
        print(a, z._version, a._version)
        d = x.detach()
        z = Id.apply(d)
        print(z is d, z._base is d, z.requires_grad)
        b = torch.ones(3)
        z = Inpl.apply(b)
        print(z is b, b._version, b)
    assert_prints_like_torch(ex)


def test_backward_runs_without_incoming_gradients_like_torch():
    """A custom Function's backward runs even when no gradient reaches it (with zeros, or with
    None after set_materialize_grads(False)), and what it returns flows on; an op's node that
    gets no gradient is skipped."""
    def ex(torch):
        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                print("Twice.backward got", g)
                return None if g is None else g * 2

        class Lazy(Twice):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2

        class Stop(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x + 1

            @staticmethod
            def backward(ctx, g):
                print("Stop.backward")
                return None

        for first in (Twice.apply, Lazy.apply, torch.exp):
            x = torch.ones(2, requires_grad=True)
            Stop.apply(first(x)).sum().backward()
            print(x.grad)
    assert_prints_like_torch(ex)


def test_jvp_reads_an_empty_saved_tensors_without_save_for_forward():
    """In jvp, ``ctx.saved_tensors`` is what save_for_forward kept: nothing (an empty tuple)
    when it was not called, even after save_for_backward."""
    def ex(torch):
        class OnlyBackwardSaves(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

            @staticmethod
            def jvp(ctx, t):
                print(ctx.saved_tensors)
                return t * 2

        fwad = torch.autograd.forward_ad
        with fwad.dual_level():
            x = fwad.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
            print(fwad.unpack_dual(OnlyBackwardSaves.apply(x)).tangent)
    assert_prints_like_torch(ex)
