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
