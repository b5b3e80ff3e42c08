"""Sums over the leading axes as a product with a vector of ones (BLAS gemv; Note
[Leading-axis sums as products] in dyngrad/backends/numpy_backend.py), against live torch:
values, shapes, strides, inf/NaN/-0.0, a linear layer's bias gradient, and the cases left to
NumPy's reduction."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.backends import numpy_backend as npb


@pytest.fixture
def calls(monkeypatch):
    """The leading-axis sums taken as products, as (shape, leading axes)."""
    made = []
    real = npb.leading_sum

    def counting(x, lead):
        result = real(x, lead)
        if result is not None:
            made.append((x.shape, lead))
        return result
    monkeypatch.setattr(npb, "leading_sum", counting)
    return made


def _pair(shape, dtype, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return dyngrad.from_numpy(x.copy()), torch.from_numpy(x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((512, 256), 0), ((7, 5, 3), (0, 1)), ((7, 5, 3), (1, 0)),
                                       ((4, 6), -2), ((1, 9), 0), ((300, 1), 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matches_torch(calls, dtype, shape, dim, keepdim):
    x, tx = _pair(shape, dtype)
    got, want = x.sum(dim, keepdim=keepdim), tx.sum(dim, keepdim=keepdim)
    lead = len(dim) if isinstance(dim, tuple) else 1
    assert calls == [(shape, lead)]
    assert got.shape == want.shape and got.stride() == want.stride()
    assert got.dtype == (dyngrad.float32 if dtype == "float32" else dyngrad.float64)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


def test_more_accurate_than_row_by_row():
    """The product's partial sums: closer to a float64 sum than NumPy's row-by-row reduction."""
    x, _ = _pair((4096, 64), "float32", seed=3)
    exact = x.numpy().astype(np.float64).sum(0)
    assert np.abs(x.sum(0).numpy() - exact).max() < np.abs(x.numpy().sum(0) - exact).max()


def test_inf_nan_and_negative_zero_as_torch(calls):
    data = np.ones((6, 5), np.float32)
    data[2, 0], data[4, 1] = np.inf, np.nan
    data[1, 2], data[3, 2] = np.inf, -np.inf
    data[:, 3] = -0.0
    got, want = dyngrad.from_numpy(data).sum(0).numpy(), torch.from_numpy(data).sum(0).numpy()
    assert len(calls) == 1
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))   # +0.0, as torch


def test_linear_bias_gradient(calls):
    """A linear layer's bias gradient is the output gradient summed over the batch: the engine
    takes the product, and the gradients are torch's."""
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in [(256, 32), (16, 32), (16,)])
    got = [dyngrad.tensor(a, requires_grad=True) for a in (x, w, b)]
    want = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    dyngrad.nn.functional.linear(*got).tanh().sum().backward()
    torch.nn.functional.linear(*want).tanh().sum().backward()
    assert ((256, 16), 1) in calls
    for a, ta in zip(got, want):
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["float16", "int64", "bool", "transposed", "trailing", "all",
                                  "dtype", "empty"])
def test_cases_left_to_numpy(calls, case):
    """Other dtypes, a non-contiguous input, a trailing or every axis, a requested dtype and an
    empty input keep NumPy's reduction, with torch's values and strides."""
    dtype = {"float16": "float16", "int64": "int64", "bool": "bool"}.get(case, "float32")
    data = np.random.default_rng(2).standard_normal((0, 5) if case == "empty" else (40, 6))
    data = (data > 0) if dtype == "bool" else np.round(data * 3).astype(dtype)
    x, tx = dyngrad.from_numpy(data), torch.from_numpy(data)
    if case == "transposed":
        x, tx = x.t(), tx.t()
    dim = {"trailing": 1, "all": (0, 1)}.get(case, 0)
    kw = {"dtype": dyngrad.float64} if case == "dtype" else {}
    got = x.sum(dim, **kw)
    want = tx.sum(dim, **({"dtype": torch.float64} if kw else {}))
    assert calls == []
    assert got.shape == want.shape and got.stride() == want.stride()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy().astype("float64"), want.numpy().astype("float64"),
                               rtol=1e-3, atol=1e-3)


def test_ones_are_shared_and_read_only():
    x = np.ones((3, 4), np.float32)
    npb.leading_sum(x, 1)
    ones = npb._ONES[(3, np.dtype(np.float32))]
    assert not ones.flags.writeable
    npb.leading_sum(x * 2, 1)
    assert npb._ONES[(3, np.dtype(np.float32))] is ones
