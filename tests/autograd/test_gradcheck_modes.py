"""gradcheck's other modes against torch: ``fast_mode`` (random products ``v^T J u``),
``check_forward_ad`` (Jacobians from dual tensors), and the batched checks under vmap.

Each scenario runs on both libraries and must print the same: the verdicts, the failure
messages (their numbers come from the same fixed generator on both sides), and a draw from the
global generator afterwards, which shows that each mode consumes the user's random state as
torch's does (fast mode none of it, the batched checks two draws per output or input).
"""
from __future__ import annotations

import re

import pytest

from .helpers import assert_prints_like_torch


def _verdict(fn):
    try:
        print(fn())
    except Exception as e:  # noqa: BLE001 -- the type and message are compared with torch's
        print(type(e).__name__, e)


def _functions(torch):
    class Wrong(torch.autograd.Function):   # the derivative of x**2 taken as 3x
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x * g

        @staticmethod
        def jvp(ctx, t):
            return t * 3

    class Jvp(torch.autograd.Function):   # x * sin(y), both derivatives given
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            ctx.save_for_forward(x, y)
            return x * y.sin()

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y.sin(), g * x * y.cos()

        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * y.sin() + ty * x * y.cos()

    class WrongJvp(Jvp):   # d/dy taken as x
        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * y.sin() + ty * x

    return Wrong, Jvp, WrongJvp


def _inputs(torch):
    torch.manual_seed(0)
    f64 = torch.float64
    x = torch.tensor([1.0, 2.0], dtype=f64, requires_grad=True)
    y = torch.tensor([0.5, -1.0], dtype=f64, requires_grad=True)
    m = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=f64, requires_grad=True)
    c = torch.tensor([1 + 1j, 2 - 1j], dtype=torch.complex128, requires_grad=True)
    return x, y, m, c


# -- fast mode ---------------------------------------------------------------------------------
def test_fast_mode_passes_where_slow_mode_passes():
    def ex(torch):
        x, y, m, c = _inputs(torch)
        gc = torch.autograd
        for f, args in [(lambda a: a.sin(), (x,)),
                        (lambda a, b: (a.sum() * b, b.exp()), (x, m)),
                        (lambda a: a * a.conj(), (c,)),
                        (lambda a: (a.abs(), a.angle()), (c,)),
                        (lambda a, b: a.real.sum() * b, (c, m)),
                        (lambda a: (a.argmax(), a * 2), (x,)),
                        (lambda a: a.detach() * 2, (x,)),
                        (lambda a, k: a * k, (x, 3)),
                        (lambda a: a.exp() * 1j, (x,))]:
            _verdict(lambda: gc.gradcheck(f, args, fast_mode=True))
            _verdict(lambda: gc.gradgradcheck(f, args, fast_mode=True))
        print(torch.rand(2))   # fast mode draws its vectors from a generator of its own
    assert_prints_like_torch(ex)


def test_fast_mode_failure_messages():
    def ex(torch):
        Wrong, _, _ = _functions(torch)
        x, _, _, c = _inputs(torch)
        gc = torch.autograd
        _verdict(lambda: gc.gradcheck(Wrong.apply, (x,), fast_mode=True))
        _verdict(lambda: gc.gradcheck(Wrong.apply, (x,), fast_mode=True, raise_exception=False))
        _verdict(lambda: gc.gradcheck(lambda a: Wrong.apply(a) * 1j, (x,), fast_mode=True))
        _verdict(lambda: gc.gradcheck(lambda a: a.detach() * 2 + 0 * a.sum().detach(), (x,),
                                      fast_mode=True))
        # a complex input: the pair (real, imaginary) of vectors, and the product's parts
        try:
            gc.gradcheck(lambda a: Wrong.apply(a.real) + a.imag, (c,), fast_mode=True)
        except gc.gradcheck.GradcheckError as e:
            numbers = re.findall(r"[-+]?\d+\.\d+", str(e).split("\n\n")[0])
            print([round(float(n), 9) for n in numbers], str(e).split("\n\n", 1)[1])
    assert_prints_like_torch(ex)


def test_fast_mode_says_when_slow_mode_would_pass():
    """Errors below the element-wise tolerance can add up in ``v^T J u``: the message then
    says that the slow check passes."""
    def ex(torch):
        class Off(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[0:1] - x[1:2]

            @staticmethod
            def backward(ctx, g):
                return torch.cat([g * 1.0009, -g * 0.9991])

        x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        _verdict(lambda: torch.autograd.gradcheck(Off.apply, (x,), atol=0, rtol=1e-3))
        try:
            torch.autograd.gradcheck(Off.apply, (x,), atol=0, rtol=1e-3, fast_mode=True)
        except RuntimeError as e:
            head, rest = str(e).split("\n\n", 1)
            print(len(head.splitlines()), rest)   # the products differ in the last bit (BLAS)
    assert_prints_like_torch(ex)


# -- forward mode ------------------------------------------------------------------------------
@pytest.mark.parametrize("fast_mode", [False, True])
def test_forward_ad_checks(fast_mode):
    def ex(torch):
        _, Jvp, WrongJvp = _functions(torch)
        x, y, _, c = _inputs(torch)
        gc = torch.autograd
        for f, args, kw in [
                (Jvp.apply, (x, y), {}),
                (Jvp.apply, (x, y), {"check_backward_ad": False}),
                (WrongJvp.apply, (x, y), {}),
                (lambda a, b: (a.sin() * b, a.exp()), (x, y), {}),
                (lambda a: a * a.conj() + a, (c,), {}),
                (lambda a: (a * a).abs(), (c,), {}),
                (lambda a: a * 1j, (x,), {}),
                (lambda a: WrongJvp.apply(a.real, a.imag), (c,), {"check_backward_ad": False}),
                (lambda a: (a.sin(), a.detach()), (x,), {}),
                (lambda a: a.detach(), (x,), {}),
                (lambda k, a: a * k, (3.0, x), {})]:
            _verdict(lambda: gc.gradcheck(f, args, check_forward_ad=True, fast_mode=fast_mode,
                                          **kw))
        _verdict(lambda: gc.gradgradcheck(lambda a, b: a.sin() * b, (x, y), fast_mode=fast_mode,
                                          check_fwd_over_rev=True))
        print(torch.rand(2))
    assert_prints_like_torch(ex)


def test_forward_ad_needs_a_jvp_and_checks_undefined_tangents():
    def ex(torch):
        class NoJvp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class OnesForNone(torch.autograd.Function):   # an undefined tangent read as ones
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_forward(x, y)
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g, g

            @staticmethod
            def jvp(ctx, tx, ty):
                x, y = ctx.saved_tensors
                one = torch.ones(2, dtype=torch.float64)
                return (one if tx is None else tx) * y + x * (one if ty is None else ty)

        x, y, _, _ = _inputs(torch)
        gc = torch.autograd
        _verdict(lambda: gc.gradcheck(NoJvp.apply, (x,), check_forward_ad=True))
        for undefined in (True, False):
            _verdict(lambda: gc.gradcheck(OnesForNone.apply, (x, y), check_forward_ad=True,
                                          check_backward_ad=False,
                                          check_undefined_grad=undefined))
    assert_prints_like_torch(ex)


# -- the batched checks ------------------------------------------------------------------------
def test_batched_checks_pass_and_draw_from_the_global_generator():
    def ex(torch):
        x, y, _, _ = _inputs(torch)
        gc = torch.autograd
        f = lambda a, b: (a.sin() * b, a.exp())   # noqa: E731
        _verdict(lambda: gc.gradcheck(f, (x, y), check_batched_grad=True))
        print(torch.rand(2))
        _verdict(lambda: gc.gradcheck(f, (x, y), check_batched_grad=True, check_forward_ad=True,
                                      check_batched_forward_grad=True))
        print(torch.rand(2))
        _verdict(lambda: gc.gradgradcheck(lambda a, b: a.sin() * b, (x, y),
                                          check_batched_grad=True))
        print(torch.rand(2))
        m = torch.tensor([[1.0, 2.0]], dtype=torch.float64, requires_grad=True)
        n = torch.tensor([[3.0], [4.0]], dtype=torch.float64, requires_grad=True)
        _verdict(lambda: gc.gradcheck(lambda a, b: a @ b, (m, n), check_forward_ad=True,
                                      check_batched_forward_grad=True, check_batched_grad=True))
        print(torch.rand(2))
    assert_prints_like_torch(ex)
