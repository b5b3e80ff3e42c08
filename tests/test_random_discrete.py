"""dyngrad.poisson / dyngrad.binomial against torch: after the same manual_seed the samples are
torch's (and the generator ends in the same place); dtypes, shapes, strides, grad_fn and errors
match too."""
import warnings

import numpy as np
import pytest
import torch

import dyngrad


def _same_draws(fn, seed=3):
    torch.manual_seed(seed)
    dyngrad.manual_seed(seed)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        theirs = fn(torch)
    with warnings.catch_warnings(record=True) as wd:
        warnings.simplefilter("always")
        ours = fn(dyngrad)
    assert [str(w.message) for w in wd] == [str(w.message) for w in wt]
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.stride() == theirs.stride()
    np.testing.assert_array_equal(np.asarray(ours.detach()._data), theirs.detach().numpy())
    # the generators are left at the same position
    assert dyngrad.rand(3).tolist() == torch.rand(3).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("rate", [0.0, 0.5, 3.0, 9.99, 10.0, 15.5, 100.0, 1e4])
def test_poisson_stream(dtype, rate):
    _same_draws(lambda L: L.poisson(L.full((200,), rate, dtype=getattr(L, dtype))))


def test_poisson_mixed_rates_and_layout():
    _same_draws(lambda L: L.poisson(L.linspace(0, 40, 500).reshape(20, 25).t()))
    _same_draws(lambda L: L.poisson(L.linspace(0, 40, 24, dtype=L.float64).reshape(2, 3, 4)[:, ::2]))
    _same_draws(lambda L: L.poisson(L.zeros(0, 3)))
    _same_draws(lambda L: L.poisson(L.tensor(7.0)))


def test_poisson_generator():
    _same_draws(lambda L: L.poisson(L.full((50,), 12.0), generator=L.Generator().manual_seed(5)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,p", [(10, .5), (5, .2), (100, .3), (100, .7), (1000, .01), (50, .95),
                                 (1e6, .4), (20, .5), (33, .999), (7.5, .3), (0, .5), (10, 0.),
                                 (10, 1.), (-3, .5), (3, float("nan"))])
def test_binomial_stream(dtype, n, p):
    _same_draws(lambda L: L.binomial(L.full((200,), n, dtype=getattr(L, dtype)),
                                     L.full((200,), p, dtype=getattr(L, dtype))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_mixed(dtype):
    _same_draws(lambda L: L.binomial(L.arange(1., 201.).to(getattr(L, dtype)) * 3,
                                     L.linspace(0.01, 0.99, 200).to(getattr(L, dtype))))
    _same_draws(lambda L: L.binomial(L.full((4, 3), 30.), L.tensor([0.2, 0.5, 0.9])))
    _same_draws(lambda L: L.binomial(L.full((3, 1), 30.), L.tensor([0.2, 0.5, 0.9])))


def test_grad_fns():
    for L in (dyngrad, torch):
        r = L.tensor([1., 20.], requires_grad=True)
        y = L.poisson(r)
        assert type(y.grad_fn).__name__ == "PoissonBackward0"
        y.sum().backward()
        assert r.grad.tolist() == [0.0, 0.0]
    names, errors = [], []
    for L in (dyngrad, torch):
        c = L.tensor([10., 5.], requires_grad=True)
        y = L.binomial(c, L.tensor([.5, .2]))
        names.append(type(y.grad_fn).__name__)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        errors.append(str(e.value))
    assert names == ["NotImplemented", "NotImplemented"] and errors[0] == errors[1]


_ERRORS = [
    lambda L: L.poisson(L.tensor([-1.])),
    lambda L: L.poisson(L.tensor([float("nan")])),
    lambda L: L.poisson(L.tensor([1, 2])),
    lambda L: L.poisson(L.tensor([True])),
    lambda L: L.poisson(L.tensor([1 + 1j])),
    lambda L: L.poisson(2.0),
    lambda L: L.binomial(L.tensor([1, 2]), L.tensor([1, 2])),
    lambda L: L.binomial(L.tensor([1., 2]), L.tensor([1, 2])),
    lambda L: L.binomial(L.tensor([1.]), L.tensor([.5], dtype=L.float64)),
    lambda L: L.binomial(L.tensor([1.], dtype=L.float64), L.tensor([.5])),
    lambda L: L.binomial(L.tensor([1.], dtype=L.float16), L.tensor([.5], dtype=L.float16)),
    lambda L: L.binomial(L.tensor([1.]), 0.5),
    lambda L: L.binomial(1.0, L.tensor([0.5])),
]


@pytest.mark.parametrize("k", range(len(_ERRORS)))
def test_errors(k):
    with pytest.raises(Exception) as te:
        _ERRORS[k](torch)
    with pytest.raises(Exception) as de:
        _ERRORS[k](dyngrad)
    assert (type(de.value), str(de.value)) == (type(te.value), str(te.value))


def test_distribution_moments():
    dyngrad.manual_seed(0)
    x = dyngrad.poisson(dyngrad.full((20000,), 4.0, dtype=dyngrad.float64))
    assert abs(x.mean().item() - 4.0) < 0.1 and abs(x.var().item() - 4.0) < 0.2
    y = dyngrad.binomial(dyngrad.full((20000,), 40.0), dyngrad.full((20000,), 0.3))
    assert abs(y.mean().item() - 12.0) < 0.15 and abs(y.var().item() - 8.4) < 0.4
