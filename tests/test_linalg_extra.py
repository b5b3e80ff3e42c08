"""Ad-hoc tests for matrix_exp, the LU family, torch.cholesky, cholesky_inverse and cond, against
live torch: what the op database cannot express (pivoting on ties, tuple ``out=``, deprecation
warnings, gradchecks of rectangular LU, forward-mode, errors raised in backward)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.autograd import gradcheck, gradgradcheck


def _pair(a, requires_grad=False):
    a = np.ascontiguousarray(a)
    return (dyngrad.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _same(ours, theirs, rtol=1e-10, atol=1e-12):
    theirs = theirs.resolve_conj().detach()
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.stride() == theirs.stride()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=rtol, atol=atol)


# -- LU: pivoting ----------------------------------------------------------------------------------
TIES = [np.array([[1., 2, 3], [1, 5, 6], [-1, 8, 10]]),         # |1| three times: the first
        np.array([[0., 1, 2], [0, 3, 4], [0, 5, 7]]),            # a zero column
        np.ones((4, 4)), np.array([[2., 1], [-2, 3], [2, 0]]),
        # rank one, with multipliers that are powers of two: exact in any LAPACK's elimination
        # (with 3 as the pivot, 2/3 and 1/3 round, and torch's MKL leaves 2.2e-16 where NumPy's
        # OpenBLAS leaves exact zeros on an Intel Xeon: another info, another L and U)
        np.array([[1, 2, 3, 4], [2, 4, 6, 8], [4, 8, 12, 16.]])]


@pytest.mark.parametrize("a", TIES, ids=range(len(TIES)))
def test_lu_pivots_follow_getrf_on_ties(a):
    ours, theirs = _pair(a)
    for o, t in zip(dyngrad.linalg.lu_factor_ex(ours), torch.linalg.lu_factor_ex(theirs)):
        _same(o, t)
    for o, t in zip(dyngrad.linalg.lu(ours), torch.linalg.lu(theirs)):
        _same(o, t)


def test_lu_complex_pivot_uses_abs_re_plus_abs_im():
    # |re| + |im|: 1.5 + 1.5 > 2 (while |2| > |1.5 + 1.5j| = 2.12 is false either way: 3 > 2)
    a = np.array([[2, 1], [1.5 + 1.5j, 3]], dtype=np.complex128)
    b = np.array([[2.05, 1], [1.5 + 1.5j, 3]], dtype=np.complex128)   # modulus says row 0
    for m in (a, b):
        ours, theirs = _pair(m)
        for o, t in zip(dyngrad.linalg.lu_factor_ex(ours), torch.linalg.lu_factor_ex(theirs)):
            _same(o, t)


def test_lu_random_batches_match_torch():
    rng = np.random.default_rng(0)
    for shape in ((5, 3, 3), (2, 3, 6, 4), (4, 7, 7)):
        ours, theirs = _pair(rng.standard_normal(shape))
        for o, t in zip(dyngrad.linalg.lu_factor_ex(ours), torch.linalg.lu_factor_ex(theirs)):
            _same(o, t)
        P, L, U = dyngrad.linalg.lu(ours)
        np.testing.assert_allclose((P @ L @ U).numpy(), ours.numpy(), atol=1e-12)


# -- LU: gradients -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (2, 2, 4)])
def test_lu_gradcheck_rectangular(shape):
    a = np.random.default_rng(1).standard_normal(shape) + 2 * np.eye(*shape[-2:])
    x = dyngrad.tensor(a, requires_grad=True)

    def factors(t):
        P, L, U = dyngrad.linalg.lu(t)
        return L, U

    def packed(t):
        return dyngrad.linalg.lu_factor(t)[0]
    for fn in (factors, packed):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_gradcheck_through_the_factorisation(left, adjoint):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2) if left else (2, 3))
    (A, tA), (B, tB) = _pair(a, True), _pair(b, True)

    def fn(lib, A, B):
        LU, pivots = lib.linalg.lu_factor(A)
        return lib.linalg.lu_solve(LU, pivots, B, left=left, adjoint=adjoint)
    assert gradcheck(lambda A, B: fn(dyngrad, A, B), (A, B))
    assert gradgradcheck(lambda A, B: fn(dyngrad, A, B), (A, B))
    X, tX = fn(dyngrad, A, B), fn(torch, tA, tB)
    _same(X, tX)
    g = rng.standard_normal(tuple(X.shape))
    X.backward(dyngrad.tensor(g))
    tX.backward(torch.tensor(g))
    _same(A.grad, tA.grad)
    _same(B.grad, tB.grad)


# -- tuple out= ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,nout", [("linalg.lu_factor", 2), ("linalg.lu_factor_ex", 3),
                                       ("linalg.lu", 3)])
def test_tuple_out(name, nout):
    a = np.random.default_rng(3).standard_normal((2, 3, 3))
    ours, theirs = _pair(a)
    fn, tfn = dyngrad, torch
    for part in name.split("."):
        fn, tfn = getattr(fn, part), getattr(tfn, part)
    expected = tfn(theirs)
    outs = tuple(dyngrad.empty(0, dtype=getattr(dyngrad, str(e.dtype).split(".")[-1]))
                 for e in expected)
    touts = tuple(torch.empty(0, dtype=e.dtype) for e in expected)
    got, tgot = fn(ours, out=outs), tfn(theirs, out=touts)
    assert type(got).__name__ == type(tgot).__name__ and len(got) == nout
    for o, g, t in zip(outs, got, touts):
        assert o is g
        _same(o, t)


def test_lu_unpack_out_and_partial_unpacking():
    a = np.random.default_rng(4).standard_normal((3, 4))
    LU, piv = torch.linalg.lu_factor(torch.tensor(a))
    ours = (dyngrad.tensor(LU.numpy()), dyngrad.tensor(piv.numpy()))
    outs = tuple(dyngrad.empty(0, dtype=dyngrad.float64) for _ in range(3))
    touts = tuple(torch.empty(0, dtype=torch.float64) for _ in range(3))
    dyngrad.lu_unpack(*ours, out=outs)
    torch.lu_unpack(LU, piv, out=touts)
    for o, t in zip(outs, touts):
        _same(o, t)
    for flags in ((False, True), (True, False), (False, False)):
        for o, t in zip(dyngrad.lu_unpack(*ours, *flags), torch.lu_unpack(LU, piv, *flags)):
            _same(o, t)


def test_out_with_requires_grad_raises_like_torch():
    ours, theirs = _pair(np.eye(3), requires_grad=True)
    with pytest.raises(RuntimeError) as texc:
        torch.linalg.lu_factor(theirs, out=(torch.empty(0, dtype=torch.float64),
                                            torch.empty(0, dtype=torch.int32)))
    with pytest.raises(RuntimeError) as exc:
        dyngrad.linalg.lu_factor(ours, out=(dyngrad.empty(0, dtype=dyngrad.float64),
                                            dyngrad.empty(0, dtype=dyngrad.int32)))
    assert str(exc.value) == str(texc.value)
    piv = np.arange(1, 4, dtype=np.int32)
    for call in (lambda lib, x, **k: lib.cholesky_inverse(x, **k),
                 lambda lib, x, **k: lib.linalg.lu_solve(x, lib.tensor(piv), x.detach(), **k)):
        with pytest.raises(RuntimeError) as texc:
            call(torch, theirs, out=torch.empty(0, dtype=torch.float64))
        with pytest.raises(RuntimeError) as exc:
            call(dyngrad, ours, out=dyngrad.empty(0, dtype=dyngrad.float64))
        assert str(exc.value) == str(texc.value)


def test_matrix_exp_has_no_out_like_torch():
    ours, theirs = _pair(np.eye(2))
    for name in ("matrix_exp", "linalg.matrix_exp"):
        fn, tfn = dyngrad, torch
        for part in name.split("."):
            fn, tfn = getattr(fn, part), getattr(tfn, part)
        with pytest.raises(TypeError) as texc:
            tfn(theirs, out=theirs)
        with pytest.raises(TypeError) as exc:
            fn(ours, out=ours)
        assert str(exc.value) == str(texc.value)


# -- deprecated forms ------------------------------------------------------------------------------
_CALLS = {"lu": "{m}.lu({m}.eye(2))", "cholesky": "{m}.cholesky({m}.eye(2))",
          "lu_solve": "{m}.lu_solve({m}.ones(2, 1), {m}.eye(2), {m}.ones(2, dtype={m}.int32))"}


def _first_warnings(module: str):
    """The warnings of a fresh process calling each deprecated function twice (warned once)."""
    code = (f"import warnings, {module}\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n" +
            "".join(f"    {c.format(m=module)}; {c.format(m=module)}\n" for c in _CALLS.values())
            + "print(repr([(x.category.__name__, str(x.message)) for x in w]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def test_deprecation_warnings_like_torch():
    assert _first_warnings("dyngrad") == _first_warnings("torch")


# -- matrix_exp ------------------------------------------------------------------------------------
def test_matrix_exp_large_norms_and_batches():
    rng = np.random.default_rng(5)
    for scale in (1e-8, 0.3, 7.0, 40.0):
        a = rng.standard_normal((3, 5, 5)) * scale / 5
        ours, theirs = _pair(a)
        _same(dyngrad.linalg.matrix_exp(ours), torch.linalg.matrix_exp(theirs), rtol=1e-11,
              atol=1e-11 * float(np.exp(np.abs(a).sum(-1).max())))


def test_matrix_exp_float16_is_accurate():
    # torch's float16 kernel overflows: dyngrad rounds the exponential once
    a = np.array([[1., 1], [1, 1]], dtype=np.float16)
    got = dyngrad.linalg.matrix_exp(dyngrad.tensor(a))
    expected = torch.linalg.matrix_exp(torch.tensor(a, dtype=torch.float64)).half()
    assert got.dtype == dyngrad.float16
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_matrix_exp_jvp_and_double_backward():
    import dyngrad.autograd.forward_ad as fwad
    import torch.autograd.forward_ad as tfwad
    rng = np.random.default_rng(6)
    a, t = rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 3))
    with fwad.dual_level():
        out = fwad.unpack_dual(dyngrad.linalg.matrix_exp(
            fwad.make_dual(dyngrad.tensor(a), dyngrad.tensor(t)))).tangent
    with tfwad.dual_level():
        tout = tfwad.unpack_dual(torch.linalg.matrix_exp(
            tfwad.make_dual(torch.tensor(a), torch.tensor(t)))).tangent
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-10, atol=1e-12)
    x = dyngrad.tensor(a, requires_grad=True)
    assert gradcheck(dyngrad.linalg.matrix_exp, (x,))
    assert gradgradcheck(dyngrad.linalg.matrix_exp, (x,))


# -- cond ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, float("inf"), "fro"])
def test_cond_backward_through_the_filled_inverse_raises_like_torch(p):
    """torch fills ``inv_ex``'s saved output in place, so its backward fails for these orders."""
    ours, theirs = _pair(np.eye(3) * 2 + 0.1, requires_grad=True)
    with pytest.raises(RuntimeError) as texc:
        torch.linalg.cond(theirs, p).backward()
    with pytest.raises(RuntimeError) as exc:
        dyngrad.linalg.cond(ours, p).backward()
    # (dyngrad's engine appends a line naming the saved tensor)
    assert str(exc.value).startswith(str(texc.value))


def test_cond_graph_names():
    ours, theirs = _pair(np.eye(3) * 2 + 0.1, requires_grad=True)
    for p in (None, -2, "nuc", 1, "fro"):
        assert dyngrad.linalg.cond(ours, p).grad_fn.name() == \
            torch.linalg.cond(theirs, p).grad_fn.name()
