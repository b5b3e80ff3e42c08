"""Special functions (backends/special_math.py) and unary ops (ops/unary.py) against live torch.

The backend functions are checked in float64 over wide ranges, tails included, to a few units in
the last place; the ops at their edges (infinities, NaN, signed zeros, poles, domain ends), on
integer, bool and float16 inputs, and with their derivatives at the domain edges.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.backends import special_math as sm

RNG = np.random.default_rng(20240613)


def _ranges(*parts):
    return np.concatenate([np.asarray(p, dtype=np.float64).ravel() for p in parts])


def _rel_error(ours, theirs, floor=0.0):
    """|ours - theirs| / max(|theirs|, floor); 0 where both are the same (NaN and inf too)."""
    ours = np.asarray(ours, dtype=np.float64)
    theirs = np.asarray(theirs, dtype=np.float64)
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    with np.errstate(all="ignore"):
        err = np.abs(ours - theirs) / np.maximum(np.abs(theirs), floor)
    err[same] = 0.0
    return np.where(np.isnan(err), np.inf, err)


def _torch64(fn, x):
    return fn(torch.from_numpy(np.asarray(x, dtype=np.float64))).numpy()


# -- float64 accuracy of the backend --------------------------------------------------------------
NORMAL = np.finfo(np.float64).tiny

def _cody_erf(x):
    """erf as a NumPy-only install computes it (Note [Cody's erf]), SciPy's route set aside."""
    saved = sm._compiled_erf
    sm._compiled_erf = False
    try:
        return sm.erf(x)
    finally:
        sm._compiled_erf = saved


ERF_POINTS = _ranges(RNG.uniform(-6, 6, 20000), RNG.uniform(-0.5, 0.5, 5000),
                     10.0 ** RNG.uniform(-310, 1.5, 3000), [0.46875, 4.0, 5.9, 6.0, 27.0])

ACCURACY = {
    # name: (ours, torch's, inputs, max relative error, floor of the denominator)
    "erf": (sm.erf, torch.erf, ERF_POINTS, 1e-15, NORMAL),
    "erf without SciPy": (_cody_erf, torch.erf, ERF_POINTS, 1e-15, NORMAL),
    "erfc": (sm.erfc, torch.erfc, _ranges(RNG.uniform(-6, 27, 30000),
                                          [0.46875, 4.0, 10.0, 20.0, 26.0, 26.5]), 2e-15, NORMAL),
    "erfinv": (sm.erfinv, torch.erfinv, _ranges(RNG.uniform(-1, 1, 20000),
                                                1 - 10.0 ** RNG.uniform(-16, 0, 3000),
                                                -(10.0 ** RNG.uniform(-300, 0, 3000)),
                                                [0.7, 0.5, 1 - 2.0 ** -53]), 2e-15, NORMAL),
    "lgamma positive": (sm.lgamma, torch.lgamma, _ranges(
        RNG.uniform(0, 12, 20000), 10.0 ** RNG.uniform(-300, 305, 3000),
        [1.0, 2.0, 1.5, 2.5, 0.5, 10.0, 1 + 1e-12, 2 - 1e-12, 1e-320]), 1e-15, 1e-300),
    # near the zeros of lgamma on the negative axis cancellation costs absolute error only
    "lgamma negative": (sm.lgamma, torch.lgamma, _ranges(
        RNG.uniform(-30, 0, 20000), -(10.0 ** RNG.uniform(-300, 15, 3000)) + 0.25),
        4e-15, 1.0),
    "digamma": (sm.digamma, torch.digamma, _ranges(
        RNG.uniform(0, 30, 10000), 10.0 ** RNG.uniform(-300, 300, 3000),
        [10.0, 1e17, 1e20, 1e-320]), 1e-15, 1e-300),
    # on the negative axis both go through the reflection's pi / tan(pi x), whose rounding
    # (and torch's vectorised tan, which differs between AVX2 and AVX-512) costs absolute error
    # near the zeros: there the comparison is absolute for values below 1 (a few ulp of 1)
    "digamma negative": (sm.digamma, torch.digamma, _ranges(
        RNG.uniform(-30, 0, 10000), [-0.5]), 4e-15, 1.0),
    "trigamma": (sm.trigamma, lambda t: torch.polygamma(1, t), _ranges(
        RNG.uniform(-30, 30, 20000), 10.0 ** RNG.uniform(-150, 300, 3000)), 1e-15, 1e-300),
    "polygamma 2": (lambda x: sm.polygamma(2, x), lambda t: torch.polygamma(2, t), _ranges(
        RNG.uniform(0, 20, 5000), 10.0 ** RNG.uniform(-100, 100, 2000)), 1e-15, 1e-300),
    "polygamma 2 negative": (lambda x: sm.polygamma(2, x), lambda t: torch.polygamma(2, t),
                             _ranges(RNG.uniform(-20, 0, 5000)), 1e-14, 1.0),
    "polygamma 7": (lambda x: sm.polygamma(7, x), lambda t: torch.polygamma(7, t), _ranges(
        RNG.uniform(-20, 20, 10000), 10.0 ** RNG.uniform(-40, 40, 2000)), 4e-15, 1e-300),
}


@pytest.mark.parametrize("name", ACCURACY)
def test_float64_accuracy_against_torch(name):
    ours_fn, torch_fn, x, bound, floor = ACCURACY[name]
    ours, theirs = ours_fn(x), _torch64(torch_fn, x)
    err = _rel_error(ours, theirs, floor)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, f"{name}({x[worst]!r}) = {ours[worst]!r}, torch {theirs[worst]!r}"


def test_erf_is_scipys_where_scipy_is_installed():
    """The test extras install SciPy: erf is then its ufunc (Note [Cody's erf]), bit for bit,
    still a float64 array for a 0-dim input, with inf, NaN and signed zeros as torch's."""
    from scipy.special import erf as scipy_erf
    edges = _ranges([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -30.0])
    x = _ranges(ERF_POINTS[:500], edges)
    np.testing.assert_array_equal(sm.erf(x), scipy_erf(x))
    np.testing.assert_array_equal(sm.erf(edges), _torch64(torch.erf, edges))
    zero_dim = sm.erf(np.float32(-0.0))
    assert type(zero_dim) is np.ndarray and zero_dim.shape == () and zero_dim.dtype == np.float64
    assert np.signbit(zero_dim)
    for special in ([0.0, -0.0, np.inf, -np.inf, np.nan], [0.5, -2.0]):
        np.testing.assert_array_equal(np.signbit(sm.erf(special)), np.signbit(_cody_erf(special)))


def test_erfc_underflows_through_the_subnormals_like_torch():
    x = np.array([26.6, 27.0, 27.2, 27.25, 27.3, 28.0, 40.0, np.inf])
    ours, theirs = sm.erfc(x), _torch64(torch.erfc, x)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=2e-323)


def test_erfinv_inverts_erf_where_erf_is_invertible():
    x = RNG.uniform(-3.5, 3.5, 5000)    # beyond, erf(x) rounds to 1 too often
    np.testing.assert_allclose(sm.erfinv(sm.erf(x)), x, rtol=1e-11)


def test_zeta_known_values():
    np.testing.assert_allclose(sm.zeta([2.0, 4.0, 3.0], 1.0),
                               [np.pi ** 2 / 6, np.pi ** 4 / 90, 1.2020569031595942], rtol=1e-15)
    assert np.isinf(sm.zeta(1.0, 2.0)) and np.isnan(sm.zeta(0.5, 2.0))
    assert np.isinf(sm.zeta(3.0, -2.0)) and np.isnan(sm.zeta(2.5, -0.5))


# -- edge values of the ops, every floating dtype ---------------------------------------------
EDGES = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1.5, 1e-30,
         -1e-30, 1e30, -1e30, 1e-310, 0.999999, -1.000001]
UNARY = ["exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "sin", "cos", "tan", "asin", "acos",
         "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv",
         "lgamma", "digamma", "floor", "ceil", "round", "trunc", "fix", "frac", "nan_to_num",
         "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "deg2rad", "rad2deg",
         "sinc", "angle", "square"]


def _same(ours, theirs, rtol, atol=0.0, where=""):
    if theirs.is_complex():
        _same(dyngrad.real(ours), theirs.real, rtol, atol, where + " (real)")
        _same(dyngrad.imag(ours), theirs.imag, rtol, atol, where + " (imag)")
        return
    assert str(ours.dtype) == str(theirs.dtype), where
    assert tuple(ours.shape) == tuple(theirs.shape), where
    a = np.asarray(ours._data, dtype=np.float64) if ours.dtype.is_floating_point \
        else np.asarray(ours._data)
    b = theirs.numpy().astype(np.float64) if theirs.dtype.is_floating_point else theirs.numpy()
    if a.dtype == bool or a.dtype.kind in "iu":
        np.testing.assert_array_equal(a, b, err_msg=where)
        return
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=where)
    np.testing.assert_array_equal(np.signbit(a[np.isinf(b)]), np.signbit(b[np.isinf(b)]),
                                  err_msg=where)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-14), ("float32", 2e-6),
                                        ("float16", 1e-3)])
@pytest.mark.parametrize("name", UNARY)
def test_edge_values(name, dtype, rtol):
    x = np.array(EDGES, dtype=dtype)
    theirs = getattr(torch, name)(torch.from_numpy(x.copy()))
    ours = getattr(dyngrad, name)(dyngrad.from_numpy(x.copy()))
    # float32: digamma(1e-30) is -1e30 within an ulp, others agree to a few ulps; float64: torch's
    # log1p of a subnormal is an ulp off
    atol = {"float32": 1e-6, "float64": 1e-320}.get(dtype, 0.0)
    _same(ours, theirs, rtol, atol, f"{name}[{dtype}]")


@pytest.mark.parametrize("name", UNARY + ["polygamma"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64"])
def test_integer_and_bool_inputs(name, dtype):
    x = np.array([0, 1, 2, 5, 7, 1, 0, 3]) if dtype == "bool" else np.arange(-3, 5)
    x = x.astype(dtype) if dtype != "uint8" else np.arange(0, 8).astype(dtype)
    fn = (lambda lib: lambda t: lib.polygamma(1, t)) if name == "polygamma" else \
        (lambda lib: getattr(lib, name))
    try:
        theirs = fn(torch)(torch.from_numpy(x.copy()))
    except Exception as e:   # noqa: BLE001
        with pytest.raises(type(e)) as info:
            fn(dyngrad)(dyngrad.from_numpy(x.copy()))
        assert str(info.value) == str(e)
        return
    ours = fn(dyngrad)(dyngrad.from_numpy(x.copy()))
    _same(ours, theirs, 2e-6, 1e-6, f"{name}[{dtype}]")


def test_integer_inputs_follow_the_default_dtype():
    for lib in (torch, dyngrad):
        lib.set_default_dtype(lib.float64)
    try:
        for name in ("erf", "lgamma", "digamma", "sin", "exp2", "sinc", "angle"):
            t = getattr(torch, name)(torch.arange(1, 5))
            d = getattr(dyngrad, name)(dyngrad.arange(1, 5))
            _same(d, t, 1e-15, 0, name)
    finally:
        torch.set_default_dtype(torch.float32)
        dyngrad.set_default_dtype(dyngrad.float32)


# -- round, polygamma, nan_to_num: arguments -------------------------------------------------
@pytest.mark.parametrize("decimals", [-3, -1, 0, 1, 2, 3, 6, 20, 400, -400])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_round_decimals(decimals, dtype):
    x = np.array([0.125, 0.375, 2.675, -1.005, 15.0, 25.0, -35.0, 1234.5678, 0.5, -0.5,
                  np.inf, np.nan, -0.0], dtype=dtype)
    theirs = torch.round(torch.from_numpy(x.copy()), decimals=decimals)
    ours = dyngrad.round(dyngrad.from_numpy(x.copy()), decimals=decimals)
    _same(ours, theirs, 0.0, 0.0, f"round(decimals={decimals})[{dtype}]")
    assert ours.grad_fn is None
    assert (dyngrad.special.round(dyngrad.from_numpy(x.copy()), decimals=decimals)._data
            .tobytes() == ours._data.tobytes())


def test_round_rounds_half_to_even():
    x = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5]
    assert dyngrad.round(dyngrad.tensor(x)).tolist() == torch.round(torch.tensor(x)).tolist()


def _raises_like_torch(fn):
    try:
        fn(torch)
    except Exception as e:   # noqa: BLE001
        with pytest.raises(type(e)) as info:
            fn(dyngrad)
        assert str(info.value) == str(e)
        return
    raise AssertionError("torch did not raise")


@pytest.mark.parametrize("case", [
    lambda lib: lib.round(lib.ones(2), decimals=1.5),
    lambda lib: lib.round(lib.ones(2, dtype=lib.int64), decimals=1),
    lambda lib: lib.round(lib.ones(2, dtype=lib.bool)),
    lambda lib: lib.polygamma(-1, lib.ones(2)),
    lambda lib: lib.polygamma(1.5, lib.ones(2)),
    lambda lib: lib.ones(2).polygamma_(-2),
    lambda lib: lib.special.polygamma(-1, lib.ones(2)),
    lambda lib: lib.polygamma(0, lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.polygamma(1, lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.polygamma(3, lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.arcsin(2.0),
    lambda lib: lib.erf(2),
    lambda lib: lib.special.expm1(2.0),
    lambda lib: lib.special.psi(lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.frac(lib.ones(2, dtype=lib.int32)),
    lambda lib: lib.floor(lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.isposinf(lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.signbit(lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.deg2rad(lib.ones(2, dtype=lib.complex64)),
    lambda lib: lib.ones(2, dtype=lib.int64).sin_(),
    lambda lib: lib.isnan(lib.ones(2), out=lib.empty(2, dtype=lib.bool)),
], ids=lambda c: "")
def test_errors_like_torch(case):
    _raises_like_torch(case)


def test_nan_to_num_arguments():
    x = [float("nan"), float("inf"), -float("inf"), 1.5]
    for kw in ({}, {"nan": 2.0}, {"posinf": 1e30}, {"neginf": -3}, {"nan": 1, "posinf": 2,
                                                                      "neginf": 3}):
        for dtype in ("float16", "float32", "float64"):
            t = torch.nan_to_num(torch.tensor(x, dtype=getattr(torch, dtype)), **kw)
            d = dyngrad.nan_to_num(dyngrad.tensor(x, dtype=getattr(dyngrad, dtype)), **kw)
            _same(d, t, 0, 0, f"nan_to_num({kw})[{dtype}]")
    z = [complex(float("nan"), float("inf")), complex(-float("inf"), 1.0)]
    _same(dyngrad.nan_to_num(dyngrad.tensor(z), 1.0), torch.nan_to_num(torch.tensor(z), 1.0),
          0, 0)


def test_square_is_pow():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    d = dyngrad.tensor([1.0, -2.0], requires_grad=True)
    assert type(x.square().grad_fn).__name__ == d.square().grad_fn.name() == "PowBackward0"
    for dtype in ("bool", "uint8", "int32"):
        t = torch.square(torch.tensor([1, 0, 3], dtype=getattr(torch, dtype)))
        o = dyngrad.square(dyngrad.tensor([1, 0, 3], dtype=getattr(dyngrad, dtype)))
        _same(o, t, 0, 0, dtype)


# -- derivatives at the edges -------------------------------------------------------------------
GRAD_EDGES = {
    "asin": [1.0, -1.0, 0.0, 1.5], "acos": [1.0, -1.0, 0.0], "atanh": [1.0, -1.0, 2.0],
    "acosh": [1.0, 0.5, 2.0], "log1p": [-1.0, -2.0, 0.0], "rsqrt": [0.0, -0.0, 4.0],
    "log2": [0.0, -1.0], "log10": [0.0, 1.0], "erfinv": [1.0, -1.0, 0.0, 0.999],
    "lgamma": [0.0, -1.0, 1.0, 2.0, -0.5], "digamma": [0.0, -0.0, -1.0, 1.0, 10.0],
    "tanh": [0.0, 30.0, -30.0], "sinc": [0.0, 1.0, -2.5], "erf": [0.0, 30.0],
    "erfc": [0.0, -30.0], "nan_to_num": [float("nan"), float("inf"), 1.0],
    "floor": [0.5, 1.0], "round": [0.5, 2.5], "frac": [0.5, -1.5], "angle": [-1.0, 0.0, 2.0],
    "expm1": [-800.0, 0.0, 700.0], "exp2": [-1100.0, 0.0], "tan": [0.0, 1.5],
}


@pytest.mark.parametrize("name", GRAD_EDGES)
def test_derivatives_at_the_edges(name):
    values = GRAD_EDGES[name]
    results = []
    for lib in (torch, dyngrad):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = getattr(lib, name)(x)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x, allow_unused=True) if g.requires_grad else (None,)
        results.append((type(y.grad_fn).__name__ if lib is torch else y.grad_fn.name(), g, gg))
    (tname, tg, tgg), (name_, g, gg) = results
    assert name_ == tname
    np.testing.assert_allclose(np.asarray(g.detach()._data), tg.detach().numpy(), rtol=1e-12)
    assert (gg is None) == (tgg is None)
    if gg is not None:
        np.testing.assert_allclose(np.asarray(gg._data), tgg.numpy(), rtol=1e-10)


def test_polygamma_graph():
    for lib in (torch, dyngrad):
        x = lib.tensor([0.5, 1.5, 3.0], dtype=lib.float64, requires_grad=True)
        y = lib.polygamma(2, x)
        node = y.grad_fn
        assert (type(node).__name__ if lib is torch else node.name()) == "PolygammaBackward0"
        assert node._saved_n == 2
        z = x.clone()
        z.polygamma_(1)
        assert (type(z.grad_fn).__name__ if lib is torch else z.grad_fn.name()) == \
            "PolygammaBackward1"
    x = dyngrad.tensor([0.5, 1.5, 3.0], dtype=dyngrad.float64, requires_grad=True)
    t = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64, requires_grad=True)
    g = dyngrad.autograd.grad(dyngrad.digamma(x).sum(), x, create_graph=True)[0]
    tg = torch.autograd.grad(torch.digamma(t).sum(), t, create_graph=True)[0]
    gg = dyngrad.autograd.grad(g.sum(), x)[0]
    tgg = torch.autograd.grad(tg.sum(), t)[0]
    np.testing.assert_allclose(np.asarray(gg._data), tgg.numpy(), rtol=1e-14)


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "arcsinh"])
def test_inplace_inverse_hyperbolics_have_no_derivative(name):
    messages = []
    for lib in (torch, dyngrad):
        x = lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True)
        z = x.clone()
        getattr(z, name + "_")()
        node = z.grad_fn
        assert (type(node).__name__ if lib is torch else node.name()) == \
            f"{name.replace('arc', 'a').capitalize()}Backward1"
        with pytest.raises(NotImplementedError) as info:
            lib.autograd.grad(z.sum(), x)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_predicates_and_rounding_of_ints_have_no_graph():
    x = dyngrad.tensor([1.0, float("nan")], requires_grad=True)
    for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"):
        y = getattr(dyngrad, name)(x)
        assert y.dtype is dyngrad.bool and y.grad_fn is None and not y.requires_grad
    z = dyngrad.floor(x)
    assert z.grad_fn.name() == "FloorBackward0"
    g, = dyngrad.autograd.grad(z.sum(), x)
    assert g.tolist() == [0.0, 0.0]
