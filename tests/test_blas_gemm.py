"""addmm's product onto its bias in one BLAS gemm call (Note [gemm onto the bias] in
dyngrad/backends/blas.py), against live torch: values, layouts, graph, the bias's NaN and inf,
and the cases left to NumPy's product and sum (other dtypes, strides, scalars, the few-rows
transposed product, no SciPy)."""
from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.backends import blas

from tests.blas_support import counted, one_blas_thread, threadpoolctl  # noqa: F401 (autouse)


@pytest.fixture
def calls(monkeypatch):
    """The gemm calls made, as (dtype, rows, columns) of the result (c is it transposed)."""
    made = []
    counted(monkeypatch, blas, "_gemms",
            lambda alpha, a, b, beta, c, *flags: made.append((c.dtype, c.shape[1], c.shape[0])))
    return made


def _arrays(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _close(got, want, dtype):
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["cc", "cf", "fc", "ff"])
@pytest.mark.parametrize("bias_shape", [(40,), (70, 40), (1, 40), (70, 1), ()])
def test_addmm_matches_torch(calls, dtype, layout, bias_shape):
    """Each operand C- or F-ordered (a transpose of a contiguous matrix), every bias shape
    addmm broadcasts: torch's values, a C-contiguous result, one gemm call."""
    bias, m1, m2 = _arrays([bias_shape, (70, 30), (30, 40)], dtype)
    if layout[0] == "f":
        m1 = np.ascontiguousarray(m1.T).T
    if layout[1] == "f":
        m2 = np.ascontiguousarray(m2.T).T
    got = dyngrad.addmm(*(dyngrad.from_numpy(a) for a in (bias, m1, m2)))
    want = torch.addmm(*(torch.from_numpy(a) for a in (bias, m1, m2)))
    assert calls == [(np.dtype(dtype), 70, 40)]
    assert got.stride() == want.stride() == (40, 1)
    assert got.dtype == (dyngrad.float32 if dtype == "float32" else dyngrad.float64)
    _close(got.numpy(), want.numpy(), dtype)


def test_linear_layer_graph_and_gradients(calls):
    """nn.Linear at a batch where the gemm runs: torch's forward values, node, saved tensors
    and gradients (the bias's is the gradient summed over the batch, as before)."""
    x, w, b = _arrays([(128, 64), (32, 64), (32,)], "float32")
    got = [dyngrad.tensor(a, requires_grad=True) for a in (x, w, b)]
    want = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    y, ty = dyngrad.nn.functional.linear(*got), torch.nn.functional.linear(*want)
    assert calls == [(np.dtype("float32"), 128, 32)]
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "AddmmBackward0"
    assert y.grad_fn._saved_mat2_sym_strides == ty.grad_fn._saved_mat2_sym_strides
    _close(y.detach().numpy(), ty.detach().numpy(), "float32")
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    for a, ta in zip(got, want):
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_bias_nan_and_inf_propagate(calls):
    """beta = 1 reads the bias: its NaN and inf reach the result, as in torch."""
    bias, m1, m2 = _arrays([(8,), (16, 4), (4, 8)], "float32")
    bias[2], bias[5] = np.nan, -np.inf
    got = dyngrad.addmm(*(dyngrad.from_numpy(a) for a in (bias, m1, m2))).numpy()
    want = torch.addmm(*(torch.from_numpy(a) for a in (bias, m1, m2))).numpy()
    assert len(calls) == 1
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[:, 2]).all() and (got[:, 5] == -np.inf).all()
    _close(got, want, "float32")


@pytest.mark.parametrize("case", ["float16", "int64", "strided", "beta", "alpha", "empty inner",
                                  "few rows"])
def test_cases_left_to_numpy(calls, case):
    """Where the call does not apply, NumPy's product and sum run as before, with torch's
    values: another dtype, an operand BLAS cannot read without a copy, a beta or alpha other
    than 1, an empty inner dimension, and the few-rows product that is faster transposed."""
    dtype = {"float16": "float16", "int64": "int64"}.get(case, "float32")
    shapes = {"few rows": [(256,), (32, 784), (256, 784)],
              "empty inner": [(40,), (70, 0), (40, 0)]}.get(case, [(40,), (70, 30), (40, 30)])
    bias, m1, w = _arrays(shapes, "float64")
    if dtype == "int64":
        bias, m1, w = (np.round(a * 4) for a in (bias, m1, w))
    bias, m1, w = (a.astype(dtype) for a in (bias, m1, w))
    kw = {"beta": 0.5} if case == "beta" else {"alpha": 2.0} if case == "alpha" else {}
    operands = (bias, m1[::2] if case == "strided" else m1, w)
    got = dyngrad.addmm(dyngrad.from_numpy(operands[0]), dyngrad.from_numpy(operands[1]),
                        dyngrad.from_numpy(operands[2]).t(), **kw)
    want = torch.addmm(torch.from_numpy(operands[0]), torch.from_numpy(operands[1]),
                       torch.from_numpy(operands[2]).t(), **kw)
    assert calls == []
    assert got.shape == want.shape and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy().astype("float64"), want.numpy().astype("float64"),
                               rtol=2e-3, atol=2e-3)


def test_without_scipy_numpy_product(monkeypatch):
    """With no SciPy, NumPy's product and then the bias, as before."""
    monkeypatch.setattr(blas, "_gemms", {})
    bias, m1, m2 = _arrays([(40,), (70, 30), (30, 40)], "float32")
    got = dyngrad.addmm(*(dyngrad.from_numpy(a) for a in (bias, m1, m2))).numpy()
    expected = np.dot(m1, m2)
    expected += bias
    np.testing.assert_array_equal(got, expected)


def test_load_without_scipy(monkeypatch):
    """``_load`` finds no gemm when SciPy cannot be imported (it is an optional extra)."""
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)
    monkeypatch.setattr(blas, "_routines", None)
    monkeypatch.setattr(blas, "_gemms", None)
    bias, m1, m2 = _arrays([(40,), (70, 30), (30, 40)], "float32")
    assert blas.gemm_plus(bias, m1, m2) is None and blas._gemms == {}


def test_a_copying_scipy_is_written_back(monkeypatch):
    """A SciPy that hands back a new array instead of writing into the result: the answer is
    copied into the result, which is still the one returned."""
    if blas._gemms is None:
        blas._load()
    real = blas._gemms[np.dtype("float32")]

    def copying(alpha, a, b, beta, c, trans_a, trans_b, overwrite_c):
        return real(alpha, a, b, beta, c.copy(order="F"), trans_a, trans_b, 0)
    monkeypatch.setattr(blas, "_gemms", {np.dtype("float32"): copying})
    bias, m1, m2 = _arrays([(40,), (70, 30), (30, 40)], "float32")
    got = blas.gemm_plus(bias, m1, m2)
    assert got.flags.c_contiguous
    _close(got, bias + m1 @ m2, "float32")


def test_more_than_one_blas_thread_keeps_numpy(monkeypatch):
    """With two threads per BLAS library, neither SciPy routine runs (its thread pool would
    spin beside NumPy's): NumPy's product and passes give the results, and they are torch's."""
    if blas._gemms is None:
        blas._load()
    made = []

    def never(*args, **kwargs):
        made.append(args)
        raise AssertionError("SciPy's BLAS ran with more than one thread")
    monkeypatch.setattr(blas, "_gemms", {k: never for k in blas._gemms})
    monkeypatch.setattr(blas, "_routines", {k: never for k in blas._routines})
    bias, m1, m2 = _arrays([(40,), (70, 30), (30, 40)], "float32")
    p, g = _arrays([(64, 70), (64, 70)], "float32")
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        assert not blas.single_threaded()
        got = dyngrad.addmm(*(dyngrad.from_numpy(a) for a in (bias, m1, m2)))
        param = dyngrad.from_numpy(p.copy())
        param.add_(dyngrad.from_numpy(g), alpha=-0.5)
    assert made == []
    _close(got.numpy(), torch.addmm(*(torch.from_numpy(a) for a in (bias, m1, m2))).numpy(),
           "float32")
    tp = torch.from_numpy(p.copy()).add_(torch.from_numpy(g), alpha=-0.5)
    np.testing.assert_allclose(param.numpy(), tp.numpy(), rtol=1e-6, atol=1e-6)
    assert blas.single_threaded()   # (the fixture's one thread again)


def test_load_without_threadpoolctl(monkeypatch):
    """Without threadpoolctl the thread counts are unknown: SciPy's routines are not used."""
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    monkeypatch.setattr(blas, "_routines", None)
    monkeypatch.setattr(blas, "_gemms", None)
    monkeypatch.setattr(blas, "_counters", ())
    bias, m1, m2 = _arrays([(40,), (70, 30), (30, 40)], "float32")
    assert blas.gemm_plus(bias, m1, m2) is None and blas._routines == blas._gemms == {}
