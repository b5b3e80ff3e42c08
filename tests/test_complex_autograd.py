"""Complex autograd against live torch: conjugate (Wirtinger) gradients, real inputs of complex
ops (torch's handle_r_to_c), double backward, and gradcheck of complex functions.

Every case runs one lambda on both libraries (``lib`` is torch or dyngrad) with the same
inputs and compares the gradients, or the errors where torch refuses. The op database covers
each op's formula alone (tests/ops/test_backward.py, complex128); these are compositions.
See Note [Complex gradients] in dyngrad/ops/_autograd_utils.py.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

A = np.array([1 + 2j, 3 - 1j])
B = np.array([2 - 1j, 0.5 + 1j])
R = np.array([1.5, -2.0])


def _leaves(lib, arrays):
    return [lib.tensor(a.tolist(), dtype=lib.complex128 if np.iscomplexobj(a) else lib.float64,
                       requires_grad=True) for a in arrays]


def _numpy(t):
    return None if t is None else np.array(t.detach().tolist())


def _grads(lib, fn, arrays, create_graph=False):
    leaves = _leaves(lib, arrays)
    out = fn(lib, *leaves)
    grads = lib.autograd.grad(out, leaves, allow_unused=True, create_graph=create_graph)
    return leaves, grads


def _same_grads(fn, *arrays):
    """fn(lib, *leaves) -> a real scalar; the leaves' gradients and dtypes agree."""
    (_, ours), (_, theirs) = (_grads(lib, fn, arrays) for lib in (dyngrad, torch))
    for g, tg in zip(ours, theirs):
        assert (g is None) == (tg is None)
        if g is not None:
            assert str(g.dtype) == str(tg.dtype)
            np.testing.assert_allclose(_numpy(g), _numpy(tg), rtol=1e-10, atol=1e-12)


def _same_error(fn, *arrays):
    errors = []
    for lib in (torch, dyngrad):
        with pytest.raises(Exception) as info:
            _grads(lib, fn, arrays)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[1] == errors[0]


def test_example_from_the_brief():
    """abs, division, imag of a real * complex product, exp and conj, through .backward()."""
    results = []
    for lib in (torch, dyngrad):
        a, b, r = _leaves(lib, (A, B, R))
        out = (a * b).abs().sum() + (a / b).real.sum() + (a * r).imag.sum() + \
            (a.exp() * a.conj()).abs().sum()
        out.backward()
        results.append([_numpy(t.grad) for t in (a, b, r)] + [str(r.grad.dtype)])
    for ours, theirs in zip(*results[::-1]):
        if isinstance(ours, str):
            assert ours == theirs
        else:
            np.testing.assert_allclose(ours, theirs, rtol=1e-10)


REAL_TO_COMPLEX = {
    "mul": lambda lib, r, c: (r * c).abs().sum(),
    "add_alpha": lambda lib, r, c: lib.add(r, c, alpha=2).abs().sum(),
    "add_complex_alpha": lambda lib, r, c: lib.add(c, r, alpha=1 - 2j).imag.sum(),
    "sub_alpha": lambda lib, r, c: lib.sub(r, c, alpha=0.5 + 1j).abs().sum(),
    "rsub": lambda lib, r, c: lib.rsub(r, c).angle().sum(),
    "div": lambda lib, r, c: (r / c).real.sum() + (c / r).imag.sum(),
    "scalars": lambda lib, r, c: ((r * (1 + 2j)).abs() + (r - 1j).imag + (2j / r).real).sum(),
    "pow": lambda lib, r, c: ((r.abs() + 1) ** c).abs().sum() + (c ** r).real.sum()
    + (r.abs() ** (1 + 1j)).imag.sum() + ((1 - 1j) ** r).real.sum(),
    "addcmul": lambda lib, r, c: lib.addcmul(r, c, r, value=2).abs().sum(),
    "addcdiv": lambda lib, r, c: lib.addcdiv(c, r, c).abs().sum(),
    "copy_": lambda lib, r, c: (c * 1).copy_(r).mul(c).abs().sum(),
    "to": lambda lib, r, c: (r.to(lib.complex128) * c).abs().sum(),
    "stack": lambda lib, r, c: lib.stack([r, c]).abs().sum(),
}


@pytest.mark.parametrize("case", REAL_TO_COMPLEX)
def test_real_input_of_complex_op(case):
    """A real tensor in a complex computation gets the real part of its gradient (torch's
    handle_r_to_c) and keeps its dtype."""
    _same_grads(REAL_TO_COMPLEX[case], R, A)


NO_REAL_TO_COMPLEX = {
    "where": lambda lib, r, c: lib.where(r > 0, r, c).abs().sum(),
    "sum_dtype": lambda lib, r, c: (r.sum(dtype=lib.complex128) * c).abs().sum(),
    "logaddexp": lambda lib, r, c: lib.logaddexp(r, c).abs().sum(),
    "masked_fill": lambda lib, r, c: c.masked_fill(c.real > 2, r[0]).abs().sum(),
}


@pytest.mark.parametrize("case", NO_REAL_TO_COMPLEX)
def test_real_input_refused(case):
    """Ops whose formulas have no handle_r_to_c: the engine refuses the complex gradient of a
    real input, with torch's error."""
    _same_error(NO_REAL_TO_COMPLEX[case], R, A)


HOLOMORPHIC_AND_NOT = {
    "chain": lambda lib, a, b: (a.sin() * b.log() / (a + b).sqrt()).abs().pow(2).sum(),
    "activations": lambda lib, a, b: (a.sigmoid() + b.tanh() + (a * b).reciprocal()).abs().sum(),
    "sgn_angle": lambda lib, a, b: (a.sgn() * b).real.sum() + (a * b).angle().sum(),
    "matmul": lambda lib, a, b: (a.outer(b) @ b.unsqueeze(1)).abs().sum() + lib.dot(a, b).imag
    + lib.vdot(a, b).real,
    "reductions": lambda lib, a, b: (a * b).prod().abs() + (a.cumsum(0) * b).mean().real
    + (a * b).cumprod(0).imag.sum(),
}


@pytest.mark.parametrize("case", HOLOMORPHIC_AND_NOT)
def test_conjugate_gradients(case):
    _same_grads(HOLOMORPHIC_AND_NOT[case], A, B)


@pytest.mark.parametrize("case", ["chain", "activations", "sgn_angle", "matmul"])
def test_double_backward(case):
    """The gradient built with create_graph, then the gradient of a real loss of it."""
    fn = HOLOMORPHIC_AND_NOT[case]
    results = []
    for lib in (torch, dyngrad):
        leaves, grads = _grads(lib, fn, (A, B), create_graph=True)
        loss = sum((g * g.conj()).real.sum() + g.imag.sum() for g in grads)
        results.append(lib.autograd.grad(loss, leaves))
    for g, tg in zip(results[1], results[0]):
        np.testing.assert_allclose(_numpy(g), _numpy(tg), rtol=1e-9, atol=1e-12)


def test_double_backward_real_to_complex():
    """A real input's gradient through a complex product, differentiated again."""
    results = []
    for lib in (torch, dyngrad):
        (r, c), (gr, gc) = _grads(lib, lambda lib, r, c: (r * c * c).abs().sum(), (R, A),
                                  create_graph=True)
        results.append(lib.autograd.grad((gr * gr).sum() + gc.abs().sum(), (r, c)))
    for g, tg in zip(results[1], results[0]):
        assert str(g.dtype) == str(tg.dtype)
        np.testing.assert_allclose(_numpy(g), _numpy(tg), rtol=1e-9, atol=1e-12)


# -- gradcheck ------------------------------------------------------------------------------
def _inputs(lib):
    z = lib.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j], dtype=lib.complex128, requires_grad=True)
    r = lib.tensor([1.5, -2.0, 0.3], dtype=lib.float64, requires_grad=True)
    return z, r


CHECKED = {
    "holomorphic": lambda z, r: (z * z).sin() / (z + 2),
    "real_output": lambda z, r: z.abs() * r,
    "mixed": lambda z, r: (z * r).exp() * z.conj(),
    "two_outputs": lambda z, r: (z.real * r, z * r),
}


@pytest.mark.parametrize("case", CHECKED)
def test_gradcheck_complex(case):
    for lib in (torch, dyngrad):
        assert lib.autograd.gradcheck(CHECKED[case], _inputs(lib))
        assert lib.autograd.gradgradcheck(CHECKED[case], _inputs(lib))


def _unconjugated(lib):
    """A custom Function z -> z * z whose backward forgets to conjugate (2 z grad)."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, grad):
            z, = ctx.saved_tensors
            return 2 * grad * z
    return Square.apply


def test_gradcheck_catches_a_missing_conjugate():
    """The same failure, message included, and False without raise_exception."""
    messages = []
    for lib in (torch, dyngrad):
        z = _inputs(lib)[0]
        with pytest.raises(RuntimeError) as info:   # GradcheckError
            lib.autograd.gradcheck(_unconjugated(lib), (z,))
        messages.append(f"{type(info.value).__name__}: {info.value}")
        assert lib.autograd.gradcheck(_unconjugated(lib), (z,), raise_exception=False) is False
    assert messages[1] == messages[0]
    assert messages[0].startswith("GradcheckError: While considering the imaginary part")


def test_real_and_imag_are_views_as_in_torch():
    """``z.real`` and ``z.imag`` are views of the complex tensor's memory (view_as_real, then
    a select), as torch's: writes through them and the property setters land in ``z``; the
    graph is SelectBackward0 over ViewAsRealBackward0; the strides are twice z's."""
    import contextlib
    import io

    def program(lib):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            z = lib.tensor([1 + 2j, 3 + 4j])
            r = z.real
            r.mul_(10)
            print(z, r._base is z, r.stride(), z.imag.storage_offset(), z._version)
            z.real = lib.tensor([5.0, 6.0])
            z.imag = -1.5
            print(z)
            x = lib.tensor([1 + 2j, 3 + 4j], requires_grad=True)
            y = x * 2
            print(y.real.grad_fn.name(), y.imag.grad_fn.next_functions[0][0].name(),
                  y.real.grad_fn._saved_dim, y.imag.grad_fn._saved_index)
            (y.real * 3 + y.imag * 5).sum().backward()
            print(x.grad)
            zt = lib.tensor([[1 + 2j, 3 + 4j], [5j, 6]]).t()
            print(zt.real.stride(), zt.imag.stride(), zt.imag.storage_offset())
            v = x.detach().clone().requires_grad_() * 1
            v.real.add_(1)
            print(v.grad_fn.name(), lib.ones(2).real)
            try:
                lib.ones(2).imag
            except RuntimeError as e:
                print(e)
        return out.getvalue()
    assert program(dyngrad) == program(torch)
