"""nn.FractionalMaxPool2d/3d and F.fractional_max_pool2d/3d against live torch.

The op database (tests/opinfo/fractional_pool.py) covers the kernels with given samples; here
the samples are drawn by the libraries themselves after ``manual_seed`` (dyngrad's generator
reproduces torch's stream), and the modules' constructor checks, buffers, state_dict and
repr are compared."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad



def raised(fn, lib):
    try:
        fn(lib)
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return e
    return None


def assert_raises_like_torch(fn, where=""):
    texc = raised(fn, torch)
    assert texc is not None, f"{where}: torch did not raise"
    exc = raised(fn, dyngrad)
    assert exc is not None, f"{where}: dyngrad did not raise {texc!r}"
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc)), where

SHAPES = {2: (2, 3, 11, 9), 3: (2, 2, 7, 8, 6)}


def _input(nd, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(SHAPES[nd]).astype(dtype)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("how", ["size", "ratio"])
def test_module_draws_torch_samples(nd, dtype, how):
    kwargs = {"output_size": 4} if how == "size" else {"output_ratio": 0.5}
    a = _input(nd, dtype)
    tx = torch.from_numpy(a.copy()).requires_grad_()
    x = dyngrad.from_numpy(a.copy()).requires_grad_()
    tm = getattr(torch.nn, f"FractionalMaxPool{nd}d")(2, return_indices=True, **kwargs)
    m = getattr(dyngrad.nn, f"FractionalMaxPool{nd}d")(2, return_indices=True, **kwargs)
    torch.manual_seed(7)
    dyngrad.manual_seed(7)
    for _ in range(3):   # the stream advances alike
        (to, ti), (o, i) = tm(tx), m(x)
        np.testing.assert_array_equal(o.detach().numpy(), to.detach().numpy())
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
    assert type(o.grad_fn).__name__ == type(to.grad_fn).__name__ == \
        f"FractionalMaxPool{nd}DBackward0"
    for name in (a for a in dir(to.grad_fn) if a.startswith("_saved_")):
        ours, theirs = getattr(o.grad_fn, name), getattr(to.grad_fn, name)
        if isinstance(theirs, torch.Tensor):
            np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
        else:
            assert tuple(ours) == tuple(theirs), name
    w = np.random.default_rng(1).standard_normal(tuple(to.shape)).astype(dtype)
    g, = dyngrad.autograd.grad(o, x, dyngrad.from_numpy(w), create_graph=True)
    tg, = torch.autograd.grad(to, tx, torch.from_numpy(w), create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy())
    assert type(g.grad_fn).__name__ == type(tg.grad_fn).__name__
    # double backward: the gradient read back at the indices
    gg, = dyngrad.autograd.grad((g * g).sum(), x, allow_unused=True)
    tgg, = torch.autograd.grad((tg * tg).sum(), tx, allow_unused=True)
    assert (gg is None) == (tgg is None)


@pytest.mark.parametrize("nd", [2, 3])
def test_functional_with_indices_and_unpool(nd):
    a = _input(nd)
    fname = f"fractional_max_pool{nd}d"
    results = {}
    for lib in (torch, dyngrad):
        lib.manual_seed(3)
        F = lib.nn.functional
        out, idx = getattr(F, fname + "_with_indices")(lib.from_numpy(a.copy()), (2,) * nd,
                                                       output_ratio=(0.5,) * nd)
        plain = getattr(F, fname)(lib.from_numpy(a.copy()), 2, output_size=3)
        back = getattr(F, f"max_unpool{nd}d")(out, idx, 2, output_size=a.shape[-nd:])
        results[lib.__name__] = [t.numpy() for t in (out, idx, plain, back)]
    for ours, theirs in zip(results["dyngrad"], results["torch"]):
        np.testing.assert_array_equal(ours, theirs)


def test_random_samples_buffer_and_state_dict():
    u = np.random.default_rng(0).random((2, 3, 2)).astype("float32")
    a = _input(2)
    tm = torch.nn.FractionalMaxPool2d(3, output_size=(5, 4),
                                      _random_samples=torch.from_numpy(u.copy()))
    m = dyngrad.nn.FractionalMaxPool2d(3, output_size=(5, 4),
                                       _random_samples=dyngrad.from_numpy(u.copy()))
    assert list(m.state_dict()) == list(tm.state_dict()) == ["_random_samples"]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in tm.named_buffers()]
    np.testing.assert_array_equal(m(dyngrad.from_numpy(a.copy())).numpy(),
                                  tm(torch.from_numpy(a.copy())).numpy())
    for lib in (torch, dyngrad):
        fresh = lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.5))
        assert list(fresh.state_dict()) == [] and fresh._random_samples is None
    assert repr(m) == repr(tm) == "FractionalMaxPool2d()"
    for name in ("kernel_size", "output_size", "output_ratio", "return_indices"):
        assert getattr(m, name) == getattr(tm, name)
    m3 = dyngrad.nn.FractionalMaxPool3d((2, 1, 2), output_ratio=0.25)
    t3 = torch.nn.FractionalMaxPool3d((2, 1, 2), output_ratio=0.25)
    assert (m3.kernel_size, m3.output_ratio, m3.output_size) == \
        (t3.kernel_size, t3.output_ratio, t3.output_size)


CTOR_ERRORS = [
    lambda lib: lib.nn.FractionalMaxPool2d(3),
    lambda lib: lib.nn.FractionalMaxPool3d(3),
    lambda lib: lib.nn.FractionalMaxPool2d(3, output_size=2, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool2d(3, output_ratio=1.5),
    lambda lib: lib.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.0)),
    lambda lib: lib.nn.FractionalMaxPool3d(3, output_ratio=(0.5, 0.5, 1)),
    lambda lib: lib.nn.FractionalMaxPool3d(0, output_size=2),
    lambda lib: lib.nn.FractionalMaxPool3d((2, -1, 2), output_size=2),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 6, 6), 2),
    lambda lib: lib.nn.functional.fractional_max_pool3d(lib.ones(1, 2, 6, 6, 6), 2),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 6, 6), 2,
                                                        output_ratio=0.5),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 6, 6), 2,
                                                        output_ratio=(0.5, 0.5, 0.5)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(6, 6), 2, output_size=2),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 2, 6, 6, dtype=lib.int64),
                                                        2, output_size=2),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.ones(1, 2, 6, 6), 2, output_size=2,
        _random_samples=lib.ones(1, 2, 2, requires_grad=True)),
]


@pytest.mark.parametrize("index", range(len(CTOR_ERRORS)))
def test_errors_match_torch(index):
    assert_raises_like_torch(CTOR_ERRORS[index], f"case {index}")


def test_samples_given_without_grad_mode():
    u = dyngrad.ones(1, 2, 2, requires_grad=True) * 0.5
    with dyngrad.no_grad():
        out = dyngrad.nn.functional.fractional_max_pool2d(dyngrad.ones(1, 2, 6, 6), 2,
                                                          output_size=2, _random_samples=u)
    assert tuple(out.shape) == (1, 2, 2, 2)
