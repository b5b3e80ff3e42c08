"""Grad modes (seed 001 §1.4-1.6): no_grad, enable_grad, set_grad_enabled, inference_mode."""
import threading

import dyngrad

from .helpers import assert_prints_like_torch


def test_modes_as_managers_decorators_and_functions():
    def ex(torch):
        w = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            print(torch.is_grad_enabled(), (w * 2).requires_grad)
            with torch.enable_grad():
                print(torch.is_grad_enabled(), (w * 2).requires_grad)
            z = torch.ones(2, requires_grad=True)
            print(z.requires_grad, z.is_leaf, (z * 2).requires_grad)

        @torch.no_grad()
        def f(a):
            return a * 2

        @torch.enable_grad()
        def g(a):
            return a * 2
        print(f(w).requires_grad, torch.is_grad_enabled())
        with torch.no_grad():
            print(g(w).requires_grad)
        print(torch.set_grad_enabled(False), torch.is_grad_enabled())
        torch.set_grad_enabled(True)
        with torch.set_grad_enabled(False):
            print((w * 2).requires_grad)
        print(torch.is_grad_enabled())

        @torch.set_grad_enabled(False)
        def h(a):
            return a * 2
        print(h(w).requires_grad, torch.is_grad_enabled())
    assert_prints_like_torch(ex)


def test_decorators_without_parentheses_and_on_classes():
    """``@torch.no_grad``, ``@torch.enable_grad`` and ``@torch.inference_mode`` decorate
    without parentheses; a decorated class is called through a function, with torch's
    FutureWarning."""
    def ex(torch):
        @torch.no_grad
        def f():
            return torch.is_grad_enabled()

        @torch.inference_mode
        def g():
            return torch.is_inference_mode_enabled()
        print(f(), g(), f.__name__, g.__name__)
        with torch.no_grad():
            @torch.enable_grad
            def h():
                return torch.is_grad_enabled()
            print(h())

        @torch.no_grad()
        class A:
            def __init__(self):
                self.flag = torch.is_grad_enabled()
        print(A().flag)
    assert_prints_like_torch(ex)


def test_decorated_generators_switch_the_mode_around_each_step():
    """A decorated generator function runs each step (next, send, throw, close) in the mode,
    and its consumer in its own, as torch's context_decorator does."""
    def ex(torch):
        @torch.no_grad()
        def gen():
            got = yield torch.is_grad_enabled()
            print("got", got, torch.is_grad_enabled())
            try:
                yield 2
            except ValueError as e:
                print("caught", e, torch.is_grad_enabled())
                yield 3
            return 9
        g = gen()
        print(next(g), torch.is_grad_enabled())
        print(g.send("hi"), torch.is_grad_enabled())
        print(g.throw(ValueError("boom")))
        try:
            next(g)
        except StopIteration as e:
            print("stop", e.value)
        g = gen()
        next(g)
        g.close()

        @torch.inference_mode()
        def inference_gen():
            yield torch.is_inference_mode_enabled()

        @torch.enable_grad()
        def grad_gen():
            yield torch.is_grad_enabled()
        with torch.no_grad():
            print(list(inference_gen()), list(grad_gen()), torch.is_grad_enabled())
    assert_prints_like_torch(ex)


def test_inference_mode():
    def ex(torch):
        w = torch.ones(2, requires_grad=True)
        with torch.inference_mode():
            x = torch.ones(2) * 1
            y = x * 2
            z = torch.ones(2, requires_grad=True)
            print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
            print(z.requires_grad, (z * 2).requires_grad, (w * 2).requires_grad)
            with torch.inference_mode(False):
                print(torch.is_inference_mode_enabled(), (w * 2).requires_grad)
        print(x.is_inference(), y.is_inference(), w.is_inference())
        print((w.exp() + x).requires_grad)
        for bad in (lambda: w * x, lambda: x.add_(1), lambda: x.mul(w)):
            try:
                bad()
            except RuntimeError as e:
                print("RuntimeError:", e)

        @torch.inference_mode()
        def f(a):
            return a * 2
        print(f(w).requires_grad, f(w).is_inference())
    assert_prints_like_torch(ex)


def test_grad_mode_switched_on_inside_inference_mode_records_nothing():
    # Note [Grad mode inside inference mode]: is_grad_enabled() reports the mode as set, but
    # ops stay unrecorded and their results are inference tensors
    def ex(torch):
        w = torch.ones(2, requires_grad=True)
        with torch.inference_mode():
            with torch.enable_grad():
                y = w * 2
                print(torch.is_grad_enabled(), y.requires_grad, y.is_inference(), y.grad_fn)
                with torch.no_grad():
                    print(torch.is_grad_enabled(), (w * 2).is_inference())
                print(torch.is_grad_enabled())
            with torch.set_grad_enabled(True):
                print(torch.is_grad_enabled(), (w * 2).requires_grad)
                with torch.inference_mode(False):
                    print(torch.is_grad_enabled(), (w * 2).grad_fn.name())
            print(torch.is_grad_enabled(), (w.exp()).requires_grad)

            @torch.enable_grad()
            def f(a):
                return a * 3, torch.is_grad_enabled()
            print(f(w)[0].requires_grad, f(w)[1])
        print(torch.is_grad_enabled(), (w * 2).grad_fn.name())
        try:
            (y * w).sum().backward()
        except RuntimeError as e:
            print("RuntimeError:", e)
    assert_prints_like_torch(ex)


def test_grad_mode_is_thread_local():
    seen = {}

    def other():
        seen["other"] = dyngrad.is_grad_enabled()

    with dyngrad.no_grad():
        t = threading.Thread(target=other)
        t.start()
        t.join()
        seen["main"] = dyngrad.is_grad_enabled()
    assert seen == {"other": True, "main": False}


def test_inference_mode_marks_every_fast_path_result():
    # Note [Open inference blocks]: the dispatcher's fast paths (operators, unary methods,
    # two-tensor calls) step aside inside inference_mode, and the results are still marked
    def ex(torch):
        x, y = torch.ones(3), torch.full((3,), 2.0)
        with torch.inference_mode():
            outs = [x + y, x * 2, 2.5 - x, -x, abs(x), x.exp(), torch.mul(x, y), x > y]
            print([o.is_inference() for o in outs])
            with torch.inference_mode(False):
                print([o.is_inference() for o in (x + y, -x, x.exp())])
        print([o.is_inference() for o in (x + y, -x, x.exp())])
    assert_prints_like_torch(ex)


def test_inference_mode_in_another_thread_leaves_this_one_alone():
    from dyngrad.ops import _dispatch
    inside, leave = threading.Event(), threading.Event()

    def other():
        with dyngrad.inference_mode():
            inside.set()
            leave.wait(10)

    t = threading.Thread(target=other)
    t.start()
    inside.wait(10)
    w = dyngrad.ones(2, requires_grad=True)
    y = w * 2 + 1
    assert not y.is_inference() and type(y.grad_fn).__name__ == "AddBackward0"
    assert not (-y).is_inference() and not y.exp().is_inference()
    leave.set()
    t.join()
    try:
        with dyngrad.inference_mode():
            raise KeyError
    except KeyError:
        pass
    assert _dispatch._fast_off is False   # every block closed: the fast paths serve again


def _each(torch, cases):
    """Run each case, printing its result or its error (the snippet goes on after an error)."""
    for label, case in cases:
        try:
            print(label, case())
        except Exception as e:  # noqa: BLE001 -- printed, compared against torch's
            print(label, type(e).__name__, e)


def test_requires_grad_on_inference_tensors():
    # an inference tensor may require grad only inside inference_mode; a copy of one may
    # (torch's TensorImpl check, for the attribute and the method alike)
    def ex(torch):
        with torch.inference_mode():
            t = torch.ones(2)
            n = torch.ones(2, dtype=torch.long)
            inside = torch.ones(2).requires_grad_()
            print(inside.requires_grad, inside.is_inference())

        def set_attr(value):
            t.requires_grad = value
            return t.requires_grad
        _each(torch, [
            ("method", lambda: t.requires_grad_()),
            ("method False", lambda: t.requires_grad_(False).requires_grad),
            ("attr", lambda: set_attr(True)),
            ("attr False", lambda: set_attr(False)),
            ("int", lambda: n.requires_grad_()),          # the dtype's error comes first
            ("detach", lambda: t.detach().requires_grad_()),
            ("data", lambda: t.data.requires_grad_()),
            ("view", lambda: t[:1].requires_grad_()),
            ("clone", lambda: t.clone().requires_grad_().requires_grad),
            ("Parameter", lambda: torch.nn.Parameter(t)),
            ("inside again", lambda: inside.requires_grad_(False).requires_grad),
        ])
        with torch.no_grad():
            _each(torch, [("no_grad", lambda: t.requires_grad_())])
        with torch.inference_mode(False):
            _each(torch, [("inference_mode(False)", lambda: t.requires_grad_())])
        with torch.inference_mode():
            print(t.requires_grad_().requires_grad)
    assert_prints_like_torch(ex)


def test_aliases_of_inference_tensors_are_inference_tensors():
    # detach, .data, Parameter and Buffer share an inference tensor's memory: they are
    # inference tensors too; its views are not views (no _base: torch tracks none)
    def ex(torch):
        with torch.inference_mode():
            f = torch.ones(2, 3)
            g = torch.ones(2, 3, requires_grad=True)
            p = torch.nn.Parameter(torch.ones(2))
        for label, r in [("detach", f.detach()), ("data", f.data), ("g.detach", g.detach()),
                         ("Parameter", torch.nn.Parameter(f, requires_grad=False)),
                         ("Buffer", torch.nn.Buffer(f)), ("view", f.view(3, 2)), ("t", f.t()),
                         ("clone", f.clone()), ("g * 1", g * 1)]:
            print(label, r.is_inference(), r.requires_grad, r._is_view(), r._base is None)
        print(p.is_inference(), p.requires_grad, type(p).__name__)
        x = torch.ones(2, 3)
        print(x._is_view(), x.t()._is_view(), x[0]._is_view(), x.detach()._is_view(),
              x.view(6).view(3, 2)._is_view(), x.data._is_view())
    assert_prints_like_torch(ex)


def test_views_made_in_inference_mode():
    # a view of a normal tensor made in inference mode is a normal tensor (its creation meta
    # remembers the mode); a view of an inference tensor is an inference tensor
    def ex(torch):
        m = torch.ones(3, 4)
        r = torch.ones(2, requires_grad=True)
        with torch.inference_mode():
            views = [m[0], m.view(12), m.t(), m.unbind(0)[0], m[:1].expand(2, 4), m.diagonal()]
            rv = r.view(2)
            made = torch.ones(2)
            mv = made.view(2)
        print([(v.is_inference(), v._is_view(), v._version) for v in views])
        print(mv.is_inference(), rv.is_inference(), rv.requires_grad, rv._is_view())
        views[0].add_(1)                      # allowed: its base needs no gradient
        print(m[0], m._version)
        _each(torch, [("rv.mul_", lambda: rv.mul_(2)), ("mv.add_", lambda: mv.add_(1)),
                      ("made._version", lambda: made._version)])
    assert_prints_like_torch(ex)


def test_inplace_updates_of_inference_tensors():
    # every in-place update, of the values or of the geometry, is refused outside
    # inference_mode and allowed inside it
    def fresh(torch):
        with torch.inference_mode():
            return torch.ones(2, 3)

    updates = {
        "add_": lambda torch, t: t.add_(1), "copy_": lambda torch, t: t.copy_(torch.zeros(2, 3)),
        "setitem": lambda torch, t: (t.__setitem__(0, 5.0), t)[1],
        "resize_": lambda torch, t: t.resize_(3),
        "resize_as_": lambda torch, t: t.resize_as_(torch.ones(3)),
        "set_": lambda torch, t: t.set_(torch.ones(2)), "set_()": lambda torch, t: t.set_(),
        "t_": lambda torch, t: t.t_(), "unsqueeze_": lambda torch, t: t.unsqueeze_(0),
        "squeeze_": lambda torch, t: t.squeeze_(), "as_strided_":
            lambda torch, t: t.as_strided_((2,), (1,)),
        "index_put_": lambda torch, t: t.index_put_((torch.tensor([0]),), torch.tensor(1.0)),
        "masked_fill_": lambda torch, t: t.masked_fill_(t > 0, 0.0),
    }

    def ex(torch):
        _each(torch, [(name, lambda u=u: u(torch, fresh(torch)).shape)
                      for name, u in updates.items()])
        with torch.inference_mode():
            _each(torch, [(name + " inside", lambda u=u: u(torch, fresh(torch)).shape)
                          for name, u in updates.items()])
    assert_prints_like_torch(ex)
