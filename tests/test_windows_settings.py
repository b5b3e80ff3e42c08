"""Window factories, torch.gradient and the global settings against live torch (beyond the
op database: tests/opinfo/windows.py and numerical_gradient.py)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad import _settings as S

WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window")


def outcome(fn):
    try:
        return fn(), None
    except Exception as e:   # noqa: BLE001  (compared with torch's below)
        return None, e


def same_error(ours, theirs):
    """Both calls raise, with the same type and message (torch's captured live)."""
    _, texc = outcome(theirs)
    assert texc is not None, "torch did not raise: the case is wrong"
    with pytest.raises(type(texc)) as info:
        ours()
    assert str(info.value) == str(texc)


def assert_same(ours, theirs, rtol=1e-6, atol=1e-7):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(np.array(ours.detach()._data), theirs.detach().numpy(),
                               rtol=rtol, atol=atol)


# -- windows -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("call", [
    lambda lib, f: f(8), lambda lib, f: f(8, False), lambda lib, f: f(window_length=4),
    lambda lib, f: f(np.int64(6)), lambda lib, f: f(5, requires_grad=True),
    lambda lib, f: f(1, requires_grad=True), lambda lib, f: f(0, dtype=lib.complex64),
    lambda lib, f: f(1, False, dtype=lib.complex128), lambda lib, f: f(64, dtype=lib.float64),
    lambda lib, f: f(5, device="cpu", layout=lib.strided, pin_memory=False),
    lambda lib, f: f(5, dtype=float), lambda lib, f: f(lib.tensor(4))], ids=lambda c: "")
def test_window_values_and_leaves(name, call):
    ours, theirs = call(dyngrad, getattr(dyngrad, name)), call(torch, getattr(torch, name))
    assert_same(ours, theirs)
    assert ours.is_leaf and ours.grad_fn is None


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("call", [
    lambda lib, f: f(5, dtype=lib.int32, requires_grad=True),
    lambda lib, f: f(5, dtype=lib.uint8, pin_memory=True), lambda lib, f: f(5, dtype=lib.bool),
    lambda lib, f: f(5, dtype=lib.complex64), lambda lib, f: f(-3),
    lambda lib, f: f(-3, dtype=lib.int16), lambda lib, f: f(periodic=True),
    lambda lib, f: f(), lambda lib, f: f("5"), lambda lib, f: f(None),
    lambda lib, f: f(5, periodic=None), lambda lib, f: f(5, dtype="float"),
    lambda lib, f: f(5, requires_grad=1), lambda lib, f: f(5, True, dtype="x", zz=1),
    lambda lib, f: f(5.0, True), lambda lib, f: f(5, np.bool_(True)),
    lambda lib, f: f(lib.tensor(4.0)), lambda lib, f: f(lib.tensor([4]))], ids=lambda c: "")
def test_window_errors(name, call):
    same_error(lambda: call(dyngrad, getattr(dyngrad, name)),
               lambda: call(torch, getattr(torch, name)))


@pytest.mark.parametrize("name", ["hann_window", "blackman_window", "bartlett_window"])
@pytest.mark.parametrize("call", [
    lambda f: f(5, True, 1.0, dtype=None, layout=None, device=None, requires_grad=False),
    lambda f: f(5, True, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=3),
    lambda f: f(5, True, dtype=None, layout=None, device=None, requires_grad=False, foo=3)],
    ids=lambda c: "")
def test_window_errors_of_the_one_overload_taking_seven_arguments(name, call):
    """Only (window_length, periodic, *, 5 options) takes seven: its own error is raised."""
    same_error(lambda: call(getattr(dyngrad, name)), lambda: call(getattr(torch, name)))


def test_window_default_dtype_follows_set_default_dtype():
    for lib in (torch, dyngrad):
        lib.set_default_dtype(lib.float64)
    try:
        for name in WINDOWS:
            assert_same(getattr(dyngrad, name)(7), getattr(torch, name)(7), rtol=1e-13)
    finally:
        for lib in (torch, dyngrad):
            lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("length", [2, 3, 10, 31])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_window_extra_parameters(length, dtype):
    def both(name, *args):
        return [getattr(lib, name)(length, *args, dtype=getattr(lib, dtype))
                for lib in (dyngrad, torch)]
    tol = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12}[dtype]
    for periodic in (True, False):
        for args in ((periodic, 0.3), (periodic, 0.6, 0.1), (periodic, -1, 2)):
            assert_same(*both("hamming_window", *args), rtol=tol, atol=tol)
        for beta in (0.0, 0.5, 8, 40.0, -2.0):
            assert_same(*both("kaiser_window", periodic, beta), rtol=tol, atol=tol)


# -- gradient ------------------------------------------------------------------------------------
def node_names(t):
    """Every node name reached from t.grad_fn, depth first (torch's AccumulateGrad unprefixed)."""
    names, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None:
            continue
        names.append(fn.name().split("::")[-1])
        stack.extend(f for f, _ in reversed(fn.next_functions))
    return names


X = np.random.default_rng(0).standard_normal((4, 5))
COORDS = (np.array([0.0, 1, 3, 3.5]), np.array([0.0, 2, 3, 5, 5.5]))


@pytest.mark.parametrize("kwargs", [
    {}, {"spacing": 2}, {"edge_order": 2}, {"spacing": [2, 3.0], "edge_order": 2},
    {"spacing": "coords"}, {"spacing": "coords", "edge_order": 2},
    {"spacing": "coords1", "dim": 1, "edge_order": 2}, {"spacing": 0.5, "dim": [1, 0]},
    {"spacing": "scalar_tensor"}], ids=str)
def test_gradient_graph_and_gradients(kwargs):
    results = {}
    for lib in (torch, dyngrad):
        x = lib.tensor(X, requires_grad=True)
        coords = [lib.tensor(c, requires_grad=True) for c in COORDS]
        kw = dict(kwargs)
        spacing = kw.get("spacing")
        if spacing == "coords":
            kw["spacing"] = coords
        elif spacing == "coords1":
            kw["spacing"] = coords[1:]
        elif spacing == "scalar_tensor":
            kw["spacing"] = lib.tensor(0.25)
        out = lib.gradient(x, **kw)
        assert type(out) is tuple
        loss = sum((o * (i + 1)).sum() for i, o in enumerate(out))
        leaves = [x] + [c for c in coords if spacing in ("coords", "coords1")]
        grads = lib.autograd.grad(loss, leaves, allow_unused=True)
        results[lib] = (out, [node_names(o) for o in out], grads)
    (ours, our_names, our_grads), (theirs, their_names, their_grads) = \
        results[dyngrad], results[torch]
    assert our_names == their_names
    for o, t in zip(ours, theirs):
        assert_same(o, t, rtol=1e-12, atol=1e-12)
    for o, t in zip(our_grads, their_grads):
        assert (o is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(np.array(o._data), t.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib: lib.gradient(lib.tensor([[1, 4, 9], [2, 3, 7]]), spacing=[
        lib.tensor([0, 1]), lib.tensor([0, 2, 3])]),
    lambda lib: lib.gradient(lib.tensor([1.0, 4, 9, 16]), spacing=[
        lib.tensor([0.0, 1, 3, 4], dtype=lib.float64)]),
    lambda lib: lib.gradient(lib.tensor([1.0, 4, 9, 16]), spacing=2j),
    lambda lib: lib.gradient(lib.tensor([1.0, 4, 9, 16]), spacing=[True]),
    lambda lib: lib.gradient(lib.tensor([1, 4, 9, 16], dtype=lib.int8), edge_order=2),
    lambda lib: lib.gradient(lib.ones(3, 4), spacing=[lib.tensor([0.0, 1, 2, 3])] * 2),
    lambda lib: lib.gradient(lib.ones(2, 3), dim=[]),
    lambda lib: lib.gradient(input=lib.ones(3, 2), dim=0)], ids=lambda c: "")
def test_gradient_values(call):
    ours, theirs = call(dyngrad), call(torch)
    assert type(ours) is tuple and len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert_same(o, t)


@pytest.mark.parametrize("call", [
    lambda lib: lib.gradient([1, 2]), lambda lib: lib.gradient(),
    lambda lib: lib.gradient(lib.ones(3), 1), lambda lib: lib.gradient(lib.ones(3), foo=1),
    lambda lib: lib.gradient(lib.ones(3), spacing=[lib.ones(3), None]),
    lambda lib: lib.gradient(lib.ones(3, 3), spacing=[2.0, lib.tensor(3.0)]),
    lambda lib: lib.gradient(lib.ones(3, 3), dim=[0, None]),
    lambda lib: lib.gradient(lib.ones(3, 3), dim=1.0),
    lambda lib: lib.gradient(lib.ones(3, 3), spacing=lib.ones(3)),
    lambda lib: lib.gradient(lib.ones(3, 3, dtype=lib.uint8), dim=[5]),
    lambda lib: lib.gradient(lib.ones(3, 3), dim=[5], edge_order=3),
    lambda lib: lib.gradient(lib.ones(3, 3), spacing=[1], dim=[5]),
    lambda lib: lib.gradient(lib.ones(3, 3), spacing=[]),
    lambda lib: lib.gradient(lib.ones(3, 3), spacing=[lib.ones(3), lib.ones(())]),
    lambda lib: lib.gradient(lib.tensor([True, False, True]))], ids=lambda c: "")
def test_gradient_errors(call):
    same_error(lambda: call(dyngrad), lambda: call(torch))


# -- settings ------------------------------------------------------------------------------------
@pytest.fixture
def restore():
    """Put torch's and dyngrad's global settings back as they were."""
    saved = dict(vars(S._state))
    t_threads, t_det = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    t_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    t_prec, t_warn = torch.get_float32_matmul_precision(), torch.is_warn_always_enabled()
    yield
    vars(S._state).clear()
    vars(S._state).update(saved)
    torch.set_num_threads(t_threads)
    torch.use_deterministic_algorithms(t_det, warn_only=t_warn_only)
    torch.set_float32_matmul_precision(t_prec)
    torch.set_warn_always(t_warn)
    torch.set_flush_denormal(False)
    torch.set_default_device(None)


def test_settings_are_exported():
    assert [n for n in S.__all__ if not hasattr(torch, n)] == []
    assert all(getattr(dyngrad, n) is getattr(S, n) for n in S.__all__)


def test_threads_round_trip(restore):
    for n in (3, 1, 7):
        S.set_num_threads(n)
        assert S.get_num_threads() == n
    assert isinstance(S.get_num_interop_threads(), int)


@pytest.mark.parametrize("arg", [0, -1, 2.0, True, "2", None])
def test_set_num_threads_errors(restore, arg):
    same_error(lambda: S.set_num_threads(arg), lambda: torch.set_num_threads(arg))
    same_error(lambda: S.set_num_interop_threads(arg),
               lambda: torch.set_num_interop_threads(arg))


def test_thread_setters_take_exactly_one_argument(restore):
    same_error(lambda: S.set_num_threads(), lambda: torch.set_num_threads())
    same_error(lambda: S.set_num_threads(1, 2), lambda: torch.set_num_threads(1, 2))
    same_error(lambda: S.set_flush_denormal(), lambda: torch.set_flush_denormal())


def test_interop_threads_are_set_once(restore):
    outcome(lambda: torch.set_num_interop_threads(torch.get_num_interop_threads()))
    S.set_num_interop_threads(3)
    assert S.get_num_interop_threads() == 3
    same_error(lambda: S.set_num_interop_threads(2), lambda: torch.set_num_interop_threads(2))


def _det(lib):
    return (lib.are_deterministic_algorithms_enabled(),
            lib.is_deterministic_algorithms_warn_only_enabled(),
            lib.get_deterministic_debug_mode())


def test_deterministic_round_trip(restore):
    assert _det(S) == (False, False, 0)
    calls = [lambda lib: lib.use_deterministic_algorithms(True, warn_only=True),
             lambda lib: lib.use_deterministic_algorithms(True),
             lambda lib: lib.use_deterministic_algorithms(False, warn_only=True),
             lambda lib: lib.set_deterministic_debug_mode("warn"),
             lambda lib: lib.set_deterministic_debug_mode("error"),
             lambda lib: lib.set_deterministic_debug_mode(0),
             lambda lib: lib.set_deterministic_debug_mode(True),
             lambda lib: lib.set_deterministic_debug_mode(2),
             lambda lib: lib.set_deterministic_debug_mode("default")]
    for call in calls:
        assert call(S) is None and call(torch) is None
        assert _det(S) == _det(torch)


@pytest.mark.parametrize("call", [
    lambda lib: lib.use_deterministic_algorithms(1),
    lambda lib: lib.use_deterministic_algorithms(None),
    lambda lib: lib.use_deterministic_algorithms(True, True),
    lambda lib: lib.use_deterministic_algorithms(True, warn_only=1),
    lambda lib: lib.use_deterministic_algorithms(),
    lambda lib: lib.set_deterministic_debug_mode(3),
    lambda lib: lib.set_deterministic_debug_mode(-1),
    lambda lib: lib.set_deterministic_debug_mode("WARN"),
    lambda lib: lib.set_deterministic_debug_mode(1.0),
    lambda lib: lib.set_deterministic_debug_mode(None)], ids=lambda c: "")
def test_deterministic_errors(restore, call):
    same_error(lambda: call(S), lambda: call(torch))


def test_matmul_precision(restore):
    assert S.get_float32_matmul_precision() == "highest"
    for p in ("high", "medium", "highest"):
        S.set_float32_matmul_precision(p)
        torch.set_float32_matmul_precision(p)
        assert S.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == p
    S.set_float32_matmul_precision("medium")
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        S.set_float32_matmul_precision("foo")
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.set_float32_matmul_precision("foo")
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert ours[0].filename == __file__
    assert S.get_float32_matmul_precision() == "medium"
    same_error(lambda: S.set_float32_matmul_precision(1),
               lambda: torch.set_float32_matmul_precision(1))


def test_warn_always_and_flush_denormal(restore):
    assert S.is_warn_always_enabled() is False
    for b in (True, False):
        S.set_warn_always(b)
        torch.set_warn_always(b)
        assert S.is_warn_always_enabled() is torch.is_warn_always_enabled() is b
    for arg in (1, "x", None):
        same_error(lambda: S.set_warn_always(arg), lambda: torch.set_warn_always(arg))
        same_error(lambda: S.set_flush_denormal(arg), lambda: torch.set_flush_denormal(arg))
    assert S.set_flush_denormal(True) is torch.set_flush_denormal(True)
    assert S.set_flush_denormal(False) is torch.set_flush_denormal(False)


def test_default_device(restore):
    assert S.get_default_device() == dyngrad.device("cpu")
    for d in ("cpu", "cpu:0", dyngrad.device("cpu"), None):
        S.set_default_device(d)
        torch.set_default_device(d if not isinstance(d, dyngrad.device) else str(d))
        assert repr(S.get_default_device()) == repr(torch.get_default_device())
    for bad in ("foo", 0, 1.0):
        same_error(lambda: S.set_default_device(bad), lambda: torch.set_default_device(bad))
    S.set_default_device("cuda")
    torch.set_default_device("cuda")
    same_error(S.get_default_device, torch.get_default_device)


def test_typename_is_storage_and_abi():
    for dt in ("float32", "int64", "float16", "bool", "complex64", "uint8"):
        ours = dyngrad.ones(2, dtype=getattr(dyngrad, dt))
        assert S.typename(ours) == torch.typename(torch.ones(2, dtype=getattr(torch, dt)))
    for obj in (3, "s", None, 2.5, [1]):
        assert S.typename(obj) == torch.typename(obj)
    assert S.typename(dyngrad.nn.Linear(1, 1)) == "dyngrad.nn.modules.linear.Linear"
    assert S.typename(dyngrad.nn.Linear) == "dyngrad.nn.modules.linear.Linear"
    assert S.is_storage(dyngrad.ones(2).untyped_storage()) is True
    assert S.is_storage(dyngrad.ones(2)) is torch.is_storage(torch.ones(2)) is False
    assert S.compiled_with_cxx11_abi() is torch.compiled_with_cxx11_abi()


# -- torch.signal.windows ------------------------------------------------------------------------
SIGNAL = ("bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
          "general_hamming", "hamming", "hann", "kaiser", "nuttall")
SIGNAL_EXTRA = {
    "exponential": [dict(sym=False, center=2.0), dict(center=2.0), dict(tau=0), dict(tau=3.0)],
    "gaussian": [dict(std=0), dict(std=2.5, sym=False)],
    "kaiser": [dict(beta=-1), dict(beta=3.0, sym=False), dict(beta=0.0)],
    "general_cosine": [dict(a=[]), dict(a=3), dict(a=(0.2, 0.8))],
    "general_hamming": [dict(alpha=0.3, sym=False)]}


def signal_window(lib, name):
    """``lib.signal.windows.<name>``."""
    return getattr(lib.signal.windows, name)


def _signal_cases():
    base = [dict(M=0), dict(M=1), dict(M=1, sym=False), dict(M=2), dict(M=7),
            dict(M=8, sym=False), dict(M=9, dtype="float64"), dict(M=5, requires_grad=True),
            dict(M=6, requires_grad=True, dtype="float64", sym=False), dict(M=5, device="cpu"),
            dict(M=-1), dict(M=5, dtype="float16"), dict(M=-1, dtype="int64"), dict(M=5, foo=1)]
    for name in SIGNAL:
        for kw in base + [dict(M=6, **e) for e in SIGNAL_EXTRA.get(name, [])]:
            yield pytest.param(name, kw, id=f"{name}-{kw}")


@pytest.mark.parametrize("name,kwargs", _signal_cases())
def test_signal_windows(name, kwargs):
    results = []
    for lib in (torch, dyngrad):
        kw = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        if name == "general_cosine":
            kw.setdefault("a", [0.5, 0.3, 0.2])
        results.append(outcome(lambda: signal_window(lib, name)(kw.pop("M"), **kw)))
    (theirs, texc), (ours, exc) = results
    if texc is not None:
        assert exc is not None and type(exc) is type(texc) and str(exc) == str(texc)
        return
    assert exc is None, exc
    assert_same(ours, theirs)
    assert ours.is_leaf == theirs.is_leaf
    if theirs.grad_fn is not None:
        assert node_names(ours) == node_names(theirs)


def test_warn_always_repeats_warn_once_warnings(restore):
    """TORCH_WARN_ONCE warns every time after set_warn_always(True), as in torch."""
    import warnings
    counts = {}
    for lib in (torch, dyngrad):
        lib.set_warn_always(True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                lib.tensor([1 + 2j]).to(lib.float32)   # Copy.cpp's TORCH_WARN_ONCE
        counts[lib] = sum("discards the imaginary part" in str(w.message) for w in caught)
    assert counts[dyngrad] == counts[torch] == 3
