"""The deprecated public helpers of autograd.gradcheck against torch: get_numerical_jacobian,
get_analytical_jacobian, get_numerical_jacobian_wrt_specific_input -- their FutureWarnings,
signatures, return structures, values (bit for bit where the function is exact) and errors."""
import importlib
import inspect
import warnings

import pytest
import torch

import dyngrad
from tests.compare import like_torch

T_GC = importlib.import_module("torch.autograd.gradcheck")
D_GC = importlib.import_module("dyngrad.autograd.gradcheck")
NAMES = ("get_numerical_jacobian", "get_analytical_jacobian",
         "get_numerical_jacobian_wrt_specific_input")


def G(lib):
    return T_GC if lib is torch else D_GC


def inputs(lib, dtype=None):
    g = torch.Generator().manual_seed(3)
    a = lib.tensor(torch.randn(2, 3, generator=g, dtype=torch.float64).tolist(),
                   dtype=dtype or lib.float64, requires_grad=True)
    b = lib.tensor(torch.randn(3, generator=g, dtype=torch.float64).tolist(),
                   dtype=dtype or lib.float64, requires_grad=True)
    return a, b


def quiet(fn):
    def run(lib, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return fn(lib, *args)
    return run


def test_all_and_signatures():
    assert D_GC.__all__ == T_GC.__all__
    for name in NAMES:
        # parameters only: torch annotates one return type with torch.Tensor
        assert inspect.signature(getattr(D_GC, name)).parameters == \
            inspect.signature(getattr(T_GC, name)).parameters, name


@pytest.mark.parametrize("call", [
    lambda lib, a, b: G(lib).get_numerical_jacobian(lambda i: i[0] * i[1], (a, b)),
    lambda lib, a, b: G(lib).get_analytical_jacobian((a, b), a * b),
])
def test_future_warnings(call):
    def fn(lib):
        a, b = inputs(lib)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call(lib, a, b)
        return [(x.category, str(x.message), x.filename) for x in w]
    ours, theirs = fn(dyngrad), fn(torch)
    assert ours == theirs and len(ours) == 1 and ours[0][2] == __file__


def test_wrt_specific_input_does_not_warn():
    a, b = inputs(dyngrad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        D_GC.get_numerical_jacobian_wrt_specific_input(lambda x, y: (x * y,), 0, (a, b),
                                                       (a * b,), 1e-3)


# -- get_numerical_jacobian ------------------------------------------------------------------

@pytest.mark.parametrize("eps", [1e-3, 1e-6, 0.25])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_numerical_jacobian_exact(eps, dtype):
    """Exact arithmetic in the function: the finite differences match bit for bit."""
    def fn(lib):
        a, b = inputs(lib, getattr(lib, dtype))
        return G(lib).get_numerical_jacobian(lambda i: (i[0] * i[1] + i[1] ** 2, i[0]), (a, b),
                                             eps=eps)
    like_torch(quiet(fn))


def test_numerical_jacobian_transcendental():
    def fn(lib):
        a, b = inputs(lib)
        return G(lib).get_numerical_jacobian(lambda i: (i[0].sin() * i[1].exp()).sum(1),
                                             (a, b))
    like_torch(quiet(fn), rtol=1e-7, atol=1e-9)


def test_numerical_jacobian_target_and_non_grad_inputs():
    def fn(lib):
        a, b = inputs(lib)
        c = lib.ones(3, dtype=lib.float64)                 # no grad: skipped
        out = [G(lib).get_numerical_jacobian(lambda i: i[0] * i[1] * i[2], (a, c, b))]
        out.append(G(lib).get_numerical_jacobian(lambda i: i[0] * i[1], (a, b), target=(b,)))
        out.append(G(lib).get_numerical_jacobian(lambda i: i[0] * 2, a))   # single tensor
        return out
    like_torch(quiet(fn))


@pytest.mark.parametrize("case", ["grad_out", "complex_output", "no_grad_target"])
def test_numerical_jacobian_errors(case):
    def fn(lib):
        a, b = inputs(lib)
        gc = G(lib)
        if case == "grad_out":
            return gc.get_numerical_jacobian(lambda i: i[0] * 2, (a,), grad_out=2.0)
        if case == "complex_output":
            return gc.get_numerical_jacobian(lambda i: i[0] * 1j, (a,))
        return gc.get_numerical_jacobian(lambda i: i[0] * 2, (a.detach(),))
    like_torch(quiet(fn))


# -- get_analytical_jacobian -----------------------------------------------------------------

def test_analytical_jacobian_structure_and_values():
    def fn(lib):
        a, b = inputs(lib)
        c = lib.ones(3, dtype=lib.float64, requires_grad=True)   # unused: zero columns
        n = lib.arange(3)                                          # integer: ignored
        out = (a * b + b ** 2)
        jac, reentrant, flag1, flag2 = G(lib).get_analytical_jacobian((a, n, b, c), out)
        return jac, reentrant, flag1, flag2
    ours, theirs = quiet(fn)(dyngrad), quiet(fn)(torch)
    assert type(ours[0]) is tuple and len(ours[0]) == len(theirs[0]) == 3
    assert ours[1:] == theirs[1:] == (True, True, True)
    like_torch(lambda lib: quiet(fn)(lib)[0])


def test_analytical_jacobian_float32_and_view_output():
    def fn(lib):
        a, b = inputs(lib, lib.float32)
        out = (a * b).t()
        return G(lib).get_analytical_jacobian([a, b], out)[0]
    like_torch(quiet(fn))


def test_analytical_jacobian_not_reentrant():
    def make(lib):
        class Flaky(lib.autograd.Function):
            calls = 0

            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                Flaky.calls += 1
                return g * (2 + Flaky.calls * 1e-3)
        return Flaky

    def fn(lib, tol):
        a, _ = inputs(lib)
        out = make(lib).apply(a)
        jac, reentrant, f1, f2 = G(lib).get_analytical_jacobian((a,), out, nondet_tol=tol)
        return reentrant, f1, f2
    for tol in (0.0, 1e-5, 1.0):
        assert quiet(fn)(dyngrad, tol) == quiet(fn)(torch, tol)
    assert quiet(fn)(dyngrad, 0.0)[0] is False


@pytest.mark.parametrize("case", ["grad_out", "complex_output"])
def test_analytical_jacobian_errors(case):
    def fn(lib):
        a, b = inputs(lib)
        if case == "grad_out":
            return G(lib).get_analytical_jacobian((a,), a * 2, grad_out=0.5)
        return G(lib).get_analytical_jacobian((a,), a * 1j)
    like_torch(quiet(fn))


# -- get_numerical_jacobian_wrt_specific_input -----------------------------------------------

def test_wrt_specific_input_outputs_filtered():
    """One Jacobian per floating/complex output; integer outputs are dropped."""
    def fn(lib):
        a, b = inputs(lib)
        f = lambda x, y: (x * y, (x > 0).sum(), y * 3)   # noqa: E731
        outs = f(a, b)
        return (G(lib).get_numerical_jacobian_wrt_specific_input(f, 1, (a, b), outs, 1e-3),
                G(lib).get_numerical_jacobian_wrt_specific_input(f, 0, (a, b), outs[:1], 0.5))
    like_torch(fn)


def test_wrt_specific_input_complex_input():
    def fn(lib):
        c = lib.tensor([1 + 2j, -0.5 + 0.25j, 3j], dtype=lib.complex128, requires_grad=True)
        f = lambda z: (z.real * z.imag, z.abs() * 0 + z.real ** 2)   # noqa: E731
        return G(lib).get_numerical_jacobian_wrt_specific_input(f, 0, (c,), f(c), 1e-3)
    like_torch(fn)


def test_wrt_specific_input_explicit_input():
    """`input` given: perturbed in place (not necessarily one of `inputs`)."""
    def fn(lib):
        a, b = inputs(lib)
        f = lambda x: (x * b,)   # noqa: E731  (closes over b)
        return G(lib).get_numerical_jacobian_wrt_specific_input(f, 0, (a,), f(a), 1e-3,
                                                                input=b)
    like_torch(fn)


@pytest.mark.parametrize("case", ["no_grad", "shape_changes", "dtype_changes", "index"])
def test_wrt_specific_input_errors(case):
    def fn(lib):
        a, b = inputs(lib)
        gc = G(lib)
        if case == "no_grad":
            return gc.get_numerical_jacobian_wrt_specific_input(lambda x: (x,), 0,
                                                                (a.detach(),), (a,), 1e-3)
        x = lib.zeros(1, 1, dtype=lib.float64, requires_grad=True)
        if case == "shape_changes":
            f = lambda x: (x * 1 if x.sum() > 0 else x.reshape(-1),)   # noqa: E731
        elif case == "dtype_changes":
            f = lambda x: (x * 1 if x.sum() > 0 else x.float(),)   # noqa: E731
        else:
            return gc.get_numerical_jacobian_wrt_specific_input(lambda x: (x,), 3, (a,),
                                                                (a,), 1e-3)
        return gc.get_numerical_jacobian_wrt_specific_input(f, 0, (x,), (x,), 1e-3)
    like_torch(fn)


def test_inputs_restored_after_perturbation():
    def fn(lib):
        a, b = inputs(lib)
        before = a._version
        G(lib).get_numerical_jacobian_wrt_specific_input(lambda x, y: (x * y,), 0, (a, b),
                                                         (a * b,), 1e-3)
        return a, lib.tensor(a._version - before)
    like_torch(fn)
