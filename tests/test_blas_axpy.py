"""``add_`` / ``sub_`` with an alpha through BLAS's axpy (Note [axpy for add_ with alpha] in
dyngrad/backends/blas.py), against live torch: values, version counters, errors, and the cases
that must keep NumPy's two passes (alpha 0, small or broadcast or non-contiguous operands, ints,
no SciPy)."""
from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.backends import blas

from tests.blas_support import counted, one_blas_thread  # noqa: F401 (an autouse fixture)


@pytest.fixture
def calls(monkeypatch):
    """The axpy calls made (dtype, size): SciPy's routines, wrapped to count."""
    made = []
    counted(monkeypatch, blas, "_routines", lambda x, y, a: made.append((y.dtype, y.size)))
    return made


def _pair(lib, shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    p, g = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    return lib.from_numpy(p), lib.from_numpy(g)


def _assert_close(got, want):
    """Within rounding of torch's values (a few elements may round twice, see the Note), with
    the same infs and NaNs."""
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", ["add_", "sub_"])
@pytest.mark.parametrize("alpha", [-1e-3, 3, 0.5])
def test_matches_torch(calls, dtype, method, alpha):
    tp, tg = _pair(torch, (64, 70), dtype)
    p, g = _pair(dyngrad, (64, 70), dtype)
    version = p._version
    out = getattr(p, method)(g, alpha=alpha)
    getattr(tp, method)(tg, alpha=alpha)
    assert out is p and p._version == version + 1
    assert calls == [(np.dtype(dtype), 64 * 70)]
    _assert_close(p.numpy(), tp.numpy())


def test_fused_like_torch_on_the_bulk(calls):
    """axpy rounds once, as torch's fused multiply-add does, where NumPy's two passes round twice:
    with alpha 3, every element but the few OpenBLAS leaves to its scalar tail loop is torch's
    to the bit (the two passes differ from torch in about a tenth of them)."""
    tp, tg = _pair(torch, (4096,), "float32", seed=3)
    p, g = _pair(dyngrad, (4096,), "float32", seed=3)
    two_pass = p.numpy() + np.float32(3) * g.numpy()
    p.add_(g, alpha=3)
    tp.add_(tg, alpha=3)
    assert calls
    assert np.count_nonzero(two_pass != tp.numpy()) > 100
    assert np.count_nonzero(p.numpy() != tp.numpy()) < 32


@pytest.mark.parametrize("case", ["alpha 0", "alpha 0 in float32", "small", "broadcast",
                                  "transposed other", "int64", "alpha 1", "requires grad"])
def test_numpy_passes_where_axpy_does_not_apply(calls, case):
    """These keep NumPy's passes: their results are torch's (inf * 0 is NaN with alpha 0, which
    BLAS's early return for alpha 0 would lose)."""
    def run(lib):
        p, g = _pair(lib, (32, 32), "float32")
        alpha = {"alpha 0": 0.0, "alpha 0 in float32": 1e-50, "alpha 1": 1}.get(case, 2.5)
        g[0, 0] = float("inf")
        if case == "small":
            p, g = p[0], g[0]
        elif case == "broadcast":
            g = g[0]
        elif case == "transposed other":
            g = g.t()
        elif case == "int64":
            p, g = p.long(), g.clamp(-5, 5).long()
            alpha = 3
        elif case == "requires grad":
            p = p.clone().requires_grad_() * 1
        p.add_(g, alpha=alpha)
        return p.detach().numpy()
    _assert_close(run(dyngrad), run(torch))
    assert calls == []


def test_same_tensor_as_both_operands(calls):
    tp, _ = _pair(torch, (40, 40), "float64")
    p, _ = _pair(dyngrad, (40, 40), "float64")
    p.add_(p, alpha=2)
    tp.add_(tp, alpha=2)
    assert calls
    np.testing.assert_array_equal(p.numpy(), tp.numpy())   # (p + 2p: exact either way)


@pytest.mark.parametrize("alpha", [True, 1j, 0.5])
def test_alpha_errors_are_torchs(alpha):
    """A bool alpha on floats, a complex alpha on reals, a float alpha on ints: torch's errors,
    with the target unchanged."""
    integer = alpha == 0.5
    messages = []
    for lib in (torch, dyngrad):
        p, g = _pair(lib, (30, 30), "float64")
        if integer:
            p, g = p.long(), g.long()
        before = p.clone()
        for method in ("add_", "sub_"):
            with pytest.raises(RuntimeError) as err:
                getattr(p, method)(g, alpha=alpha)
            messages.append(str(err.value))
            assert p.equal(before)
    assert messages[:2] == messages[2:]


def test_without_scipy_two_numpy_passes(monkeypatch):
    """With no SciPy the kernel runs NumPy's two passes, as before."""
    monkeypatch.setattr(blas, "_routines", {})
    tp, tg = _pair(torch, (64, 64), "float32")
    p, g = _pair(dyngrad, (64, 64), "float32")
    expected = p.numpy() + np.float32(-0.01) * g.numpy()
    p.add_(g, alpha=-0.01)
    tp.add_(tg, alpha=-0.01)
    np.testing.assert_array_equal(p.numpy(), expected)
    _assert_close(p.numpy(), tp.numpy())


def test_sgd_step_uses_axpy(calls):
    """optim.SGD's update (``param.add_(grad, alpha=-lr)``) is the call this serves."""
    w = dyngrad.nn.Parameter(dyngrad.ones(300, 4))
    opt = dyngrad.optim.SGD([w], lr=0.1)
    (w * 2).sum().backward()
    opt.step()
    assert calls == [(np.dtype("float32"), 1200)]
    np.testing.assert_allclose(w.detach().numpy(), 0.8, rtol=1e-6)


def test_load_without_scipy(monkeypatch):
    """``_load`` finds no routines when SciPy cannot be imported (it is an optional extra)."""
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)
    monkeypatch.setattr(blas, "_routines", None)
    monkeypatch.setattr(blas, "_gemms", None)
    assert blas._load() == {} and blas._gemms == {}
    p, g = _pair(dyngrad, (64, 64), "float32")
    expected = p.numpy() + np.float32(0.5) * g.numpy()
    p.add_(g, alpha=0.5)
    np.testing.assert_array_equal(p.numpy(), expected)
