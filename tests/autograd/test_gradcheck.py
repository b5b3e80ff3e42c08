"""``autograd.gradcheck`` / ``gradgradcheck``: behaviour and messages against torch, then a
sweep over the op database (float64) with our own gradcheck.

The sweep takes the first small samples of each differentiable op. When our gradcheck fails,
torch's gradcheck runs on the same sample: failing on both is the function's nature (a kink, a
NaN), failing only on ours is a bug in our gradients (the test fails, naming the op).
"""
from __future__ import annotations

import sys
import warnings

import pytest
import torch

import dyngrad
from .helpers import assert_prints_like_torch

from opinfo import OP_DB


# -- behaviour against torch ------------------------------------------------------------------------
def _good_and_wrong(torch):
    class Good(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b + b ** 2

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * (a + 2 * b)

    class Wrong(Good):
        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * (a + b)      # d/db of b**2 forgotten once
    return Good, Wrong


def _ab(torch):
    a = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.double, requires_grad=True)
    b = torch.tensor([0.5, -1.], dtype=torch.double, requires_grad=True)
    return a, b


def test_passes_on_a_correct_function():
    def ex(torch):
        Good, _ = _good_and_wrong(torch)
        a, b = _ab(torch)
        print(torch.autograd.gradcheck(Good.apply, (a, b)),
              torch.autograd.gradgradcheck(Good.apply, (a, b)),
              torch.autograd.gradcheck(lambda t: (t.sin(), t.cos() * 2), b),
              torch.autograd.gradgradcheck(lambda t: (t.sin(), t.cos() * 2), (b,)),
              torch.autograd.gradcheck(lambda t: t.argmax(), (b,)))
    assert_prints_like_torch(ex)


def test_catches_a_wrong_backward_with_both_jacobians():
    def ex(torch):
        _, Wrong = _good_and_wrong(torch)
        a, b = _ab(torch)
        print(torch.autograd.gradcheck(Wrong.apply, (a, b), raise_exception=False))
        try:
            torch.autograd.gradcheck(Wrong.apply, (a, b))
        except RuntimeError as e:
            print(type(e).__name__, isinstance(e, RuntimeError))
            print(e)
    assert_prints_like_torch(ex)


def test_error_class():
    from dyngrad.autograd.gradcheck import GradcheckError
    assert issubclass(GradcheckError, RuntimeError)
    assert GradcheckError.__module__ == "dyngrad.autograd.gradcheck"
    assert dyngrad.autograd.gradcheck is sys.modules["dyngrad.autograd.gradcheck"].gradcheck


def test_backward_not_multiplied_by_grad_output_and_gradgrad_failure():
    def ex(torch):
        class NoMul(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2 + 1

        class FakeSecond(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 3 * a.detach() ** 2 * g     # right once, constant for double backward

        x = torch.tensor([0.5, -1.0], dtype=torch.double, requires_grad=True)
        for fn in (lambda: torch.autograd.gradcheck(NoMul.apply, (x,)),
                   lambda: print(torch.autograd.gradcheck(FakeSecond.apply, (x,))),
                   lambda: torch.autograd.gradgradcheck(FakeSecond.apply, (x,),
                                                        torch.ones(2, dtype=torch.double))):
            try:
                fn()
            except RuntimeError as e:
                print(type(e).__name__, e)
    assert_prints_like_torch(ex)


def test_input_checks_and_float32_warning():
    def ex(torch):
        xf = torch.tensor([1., 2.], requires_grad=True)
        print(torch.autograd.gradcheck(lambda t: t * 2, (xf,), atol=1e-1, rtol=1e-1))
        try:
            torch.autograd.gradcheck(lambda t: t * 2, (xf,))
        except RuntimeError as e:
            print(e)
        for inputs in ((torch.ones(2, dtype=torch.double),),
                       (torch.ones(1, dtype=torch.double).expand(3).requires_grad_(),)):
            try:
                torch.autograd.gradcheck(lambda t: t * 2, inputs)
            except (ValueError, RuntimeError) as e:
                print(type(e).__name__, e)
    assert_prints_like_torch(ex)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dyngrad.autograd.gradcheck(lambda t: t * 2, (dyngrad.ones(2, requires_grad=True),),
                                   atol=1e-1, rtol=1e-1)
    assert [str(w.message) for w in caught] == [
        "Input #0 requires gradient and is not a double precision floating point or complex. "
        "This check will likely fail if all the inputs are not of double precision floating "
        "point or complex. "]


def test_seed_leaky_relu_fixed_passes():
    def ex(torch):
        class MyLeakyReLU(torch.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(input)
                return torch.where(input > 0, input, 0.1 * input)

            @staticmethod
            def backward(ctx, grad_output):
                input, = ctx.saved_tensors
                return torch.where(input > 0, grad_output, 0.1 * grad_output)

        x = torch.tensor([1.0, -1.0, 0.5], dtype=torch.double, requires_grad=True)
        print(torch.autograd.gradcheck(MyLeakyReLU.apply, (x,), eps=1e-6, atol=1e-4),
              torch.autograd.gradgradcheck(MyLeakyReLU.apply, (x,)))
    assert_prints_like_torch(ex)


def test_undefined_output_grads():
    def ex(torch):
        class Two(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.set_materialize_grads(False)
                return a * 2, a * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 2 + g2 * 3       # fails when one gradient is undefined

        x = torch.tensor([0.5, -1.0], dtype=torch.double, requires_grad=True)
        print(torch.autograd.gradcheck(Two.apply, (x,), check_undefined_grad=False))
        try:
            torch.autograd.gradcheck(Two.apply, (x,))
        except RuntimeError as e:
            print(type(e).__name__, e, type(e.__cause__).__name__)
    assert_prints_like_torch(ex, check_warnings=False)


def test_signature_matches_torch():
    import inspect
    for name in ("gradcheck", "gradgradcheck"):
        ours = inspect.signature(getattr(dyngrad.autograd, name))
        theirs = inspect.signature(getattr(torch.autograd, name))
        assert [(p.name, p.default, p.kind) for p in ours.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in theirs.parameters.values()]


# -- the op database ----------------------------------------------------------------------------
MAX_NUMEL = 12          # elements over all differentiable inputs of a sample
MAX_GRADGRAD_NUMEL = 6
SAMPLES = 2

# Ops where our gradcheck fails and torch's passes: real bugs, reported, not hidden.
KNOWN_BUGS: dict = {}


def _db_ops():
    return [pytest.param(op, id=op.id) for op in OP_DB
            if op.supports_autograd and op.check_values and not op.inplace_only
            and "float64" in op.dtypes]


def _split(value, leaves):
    """Replace the floating and complex tensors in `value` (recursively) by slots; collect
    them."""
    if isinstance(value, dyngrad.Tensor | torch.Tensor):
        if value.dtype.is_floating_point or value.dtype.is_complex:
            leaves.append(value)
            return _Slot(len(leaves) - 1)
        return value
    if isinstance(value, list | tuple):
        return type(value)(_split(v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: _split(v, leaves) for k, v in value.items()}
    return value


class _Slot:
    def __init__(self, i):
        self.i = i


def _fill(value, tensors):
    if isinstance(value, _Slot):
        return tensors[value.i]
    if isinstance(value, list | tuple):
        return type(value)(_fill(v, tensors) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, tensors) for k, v in value.items()}
    return value


def _case(op, sample, lib):
    """(function of the float tensors, those tensors requiring grad) for one sample."""
    args, kwargs = sample.to(lib)
    leaves = []
    args, kwargs = _split(args, leaves), _split(kwargs, leaves)
    for t in leaves:
        t.requires_grad_()
    fn = op.op(lib)

    def call(*tensors):
        return fn(*_fill(args, tensors), **_fill(kwargs, tensors))
    return call, tuple(leaves)


def _small_samples(op, limit, dtype="float64"):
    out = []
    for sample in op.sample_inputs(dtype):
        call, leaves = _case(op, sample, dyngrad)
        n = sum(t.numel() for t in leaves)
        if leaves and 0 < n <= limit and all(t.numel() for t in leaves):
            out.append(sample)
        if len(out) == SAMPLES:
            break
    return out


def _check(op, sample, checker_name, **kw):
    """None when fine; else a message (ours failed where torch passed)."""
    dyngrad.manual_seed(0)   # gradgradcheck draws random grad_outputs: keep the test repeatable
    call, leaves = _case(op, sample, dyngrad)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call(*leaves)
            if not any(o.requires_grad for o in (out if isinstance(out, tuple | list)
                                                 else (out,)) if isinstance(o, dyngrad.Tensor)):
                return None
            outs = out if isinstance(out, tuple | list) else (out,)
            if checker_name == "gradgradcheck" and any(
                    isinstance(o, dyngrad.Tensor) and o.requires_grad
                    and o.dtype not in (dyngrad.float64, dyngrad.complex128) for o in outs):
                # the random grad_outputs then have a lower precision than finite differences
                # need (torch's gradcheck warns about such inputs): pass or fail is luck
                return None
            getattr(dyngrad.autograd, checker_name)(call, leaves, **kw)
        return None
    except Exception as e:   # noqa: BLE001 -- torch's verdict decides
        ours = e
    tcall, tleaves = _case(op, sample, torch)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(torch.autograd, checker_name)(tcall, tleaves, **kw)
    except Exception:   # noqa: BLE001 -- fails on both: the function's nature at this point
        return None
    return f"{op.id} {sample}: our {checker_name} failed, torch's passed:\n" \
           f"{type(ours).__name__}: {str(ours)[:2000]}"



@pytest.mark.parametrize("op", _db_ops())
def test_gradcheck_op_database(op):
    problems = []
    for sample in _small_samples(op, MAX_NUMEL):
        msg = _check(op, sample, "gradcheck")
        if msg:
            problems.append(msg)
    if op.supports_gradgrad:
        for sample in _small_samples(op, MAX_GRADGRAD_NUMEL)[:1]:
            msg = _check(op, sample, "gradgradcheck")
            if msg:
                problems.append(msg)
    reason = KNOWN_BUGS.get(op.id)
    if reason:
        assert problems, f"{op.id} is listed in KNOWN_BUGS ({reason}) but passes now"
        pytest.xfail(reason)
    assert not problems, "\n\n".join(problems)


# Ops whose forward-mode checks fail in dyngrad and pass in torch: {op id: reason}. Strict.
KNOWN_FORWARD_BUGS: dict = {}


@pytest.mark.parametrize("op", _db_ops())
def test_forward_mode_op_database(op):
    """The sweep in forward mode: gradcheck's ``check_forward_ad`` on the op, and
    gradgradcheck's ``check_fwd_over_rev``, which differentiates the op's backward formulas in
    forward mode (what ``func.hessian``'s jacfwd over jacrev needs)."""
    problems = []
    for sample in _small_samples(op, MAX_NUMEL)[:1]:
        msg = _check(op, sample, "gradcheck", check_forward_ad=True, check_backward_ad=False)
        if msg:
            problems.append(msg)
    if op.supports_gradgrad:
        for sample in _small_samples(op, MAX_GRADGRAD_NUMEL)[:1]:
            msg = _check(op, sample, "gradgradcheck", check_fwd_over_rev=True,
                         check_rev_over_rev=False, check_undefined_grad=False)
            if msg:
                problems.append(msg)
    reason = KNOWN_FORWARD_BUGS.get(op.id)
    if reason:
        assert problems, f"{op.id} is listed in KNOWN_FORWARD_BUGS ({reason}) but passes now"
        pytest.xfail(reason)
    assert not problems, "\n\n".join(problems)


def _complex_ops():
    return [pytest.param(op, id=op.id) for op in OP_DB
            if op.supports_autograd and op.check_values and not op.inplace_only
            and "complex128" in op.dtypes and op.supports_complex_autograd]


@pytest.mark.parametrize("op", _complex_ops())
def test_forward_mode_op_database_complex(op):
    """The forward-mode sweep in complex128: a rule that conjugates wrongly (a formula that is
    not holomorphic taken as one) shows only there."""
    problems = []
    for sample in _small_samples(op, 8, "complex128")[:1]:
        msg = _check(op, sample, "gradcheck", check_forward_ad=True, check_backward_ad=False)
        if msg:
            problems.append(msg)
        if op.supports_gradgrad:
            msg = _check(op, sample, "gradgradcheck", check_fwd_over_rev=True,
                         check_rev_over_rev=False, check_undefined_grad=False)
            if msg:
                problems.append(msg)
    assert not problems, "\n\n".join(problems)


def test_non_reentrant_backward_and_dtype_checks():
    def ex(torch):
        calls = []

        class Flaky(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                calls.append(1)
                return g * (2 + 1e-3 * (len(calls) > 2))

        class WrongDtype(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return (g * 2).float()

        x = torch.tensor([0.5, -1.0], dtype=torch.double, requires_grad=True)
        for thunk in (lambda: torch.autograd.gradcheck(Flaky.apply, (x,)),
                      lambda: print(torch.autograd.gradcheck(WrongDtype.apply, (x,))),
                      lambda: torch.autograd.gradcheck(WrongDtype.apply, (x,),
                                                       check_grad_dtypes=True)):
            calls.clear()
            try:
                thunk()
            except RuntimeError as e:
                print(type(e).__name__, e)
    assert_prints_like_torch(ex)
