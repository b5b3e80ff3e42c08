"""quantile, nanquantile, cov, corrcoef, histc, histogram and bincount against live torch,
beyond the op database (tests/opinfo/quantile.py, covariance.py, histogram.py): the whole
graph torch records (node names through ``next_functions``), gradients with respect to q and
the weights, ``out=`` (resizing, its warning, CopyBackwards), warnings, the order of torch's
checks, NotImplemented nodes and their backward error, and the dtypes of bincount's result.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch, to_numpy

F64 = "float64"


def graph(t):
    """The node names reachable from ``t.grad_fn``, depth first, each node once."""
    out, seen, stack = [], set(), [(t.grad_fn, 0)]
    while stack:
        fn, depth = stack.pop()
        if fn is None:
            out.append((depth, None))
            continue
        out.append((depth, fn.name()))
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        stack += [(f, depth + 1) for f, _ in reversed(fn.next_functions)]
    return out


def run(fn):
    """``fn(lib)`` on both libraries: (result, exception, warning texts) for each."""
    results = []
    for lib in (torch, dyngrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value, exc = fn(lib), None
            except Exception as e:   # noqa: BLE001 (compared with torch's)
                value, exc = None, e
        results.append((value, exc, [str(w.message) for w in caught]))
    return results


def same_error(fn):
    (_, texc, _), (_, exc, _) = run(fn)
    assert texc is not None, "torch did not raise"
    assert exc is not None, f"dyngrad did not raise; torch: {texc!r}"
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))


def rng_array(shape, seed=0, dtype=F64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# -- quantile ------------------------------------------------------------------------------------
QUANTILE_CALLS = {
    "flat": lambda lib, x, q: lib.quantile(x, 0.3),
    "last dim": lambda lib, x, q: lib.quantile(x, 0.3, dim=-1),
    "first dim keepdim": lambda lib, x, q: lib.quantile(x, q, dim=0, keepdim=True),
    "flat keepdim": lambda lib, x, q: lib.quantile(x, q, keepdim=True),
    "lower": lambda lib, x, q: lib.quantile(x, q, 1, interpolation="lower"),
    "midpoint": lambda lib, x, q: x.quantile(q, 1, interpolation="midpoint"),
    "nearest": lambda lib, x, q: lib.quantile(x, 0.5, 1, interpolation="nearest"),
    "nanquantile": lambda lib, x, q: lib.nanquantile(x, q, 1),
    "nanquantile flat": lambda lib, x, q: x.nanquantile(0.25),
}


@pytest.mark.parametrize("name", QUANTILE_CALLS)
@pytest.mark.parametrize("q_grad", [False, True])
def test_quantile_graph_and_gradients(name, q_grad):
    """The whole graph (q requiring grad adds its own nodes) and both gradients."""
    x0 = rng_array((3, 4, 5))
    x0[1, 2, 3] = np.nan
    q0 = np.array([0.1, 0.5, 0.95])
    out = []
    for lib in (torch, dyngrad):
        x = lib.tensor(x0, requires_grad=True)
        q = lib.tensor(q0, requires_grad=q_grad)
        r = QUANTILE_CALLS[name](lib, x, q)
        leaves = [x] + ([q] if q_grad and r.grad_fn is not None else [])
        cot = lib.tensor(np.random.default_rng(1).standard_normal(tuple(r.shape)))
        grads = lib.autograd.grad(r, leaves, cot, allow_unused=True)
        out.append((r, graph(r), grads))
    (t, tg, tgrads), (d, dg, dgrads) = out
    assert dg == tg
    assert d.stride() == t.stride()
    np.testing.assert_allclose(to_numpy(d), to_numpy(t), rtol=1e-12, equal_nan=True)
    for a, b in zip(dgrads, tgrads):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-12, atol=1e-12,
                                       equal_nan=True)


def test_quantile_out():
    """out= resizes with torch's warning and copies (CopyBackwards when the input needs grad);
    a leaf out that requires grad is refused."""
    x0 = rng_array((3, 4))
    (t, _, tw), (d, _, dw) = run(lambda lib: lib.quantile(lib.tensor(x0), 0.4, 1,
                                                          out=lib.zeros(2, dtype=lib.float64)))
    assert dw == tw and len(tw) == 1
    np.testing.assert_array_equal(to_numpy(d), to_numpy(t))
    (t, _, _), (d, _, _) = run(lambda lib: lib.quantile(
        lib.tensor(x0, requires_grad=True), 0.4, out=lib.zeros(0, dtype=lib.float64)))
    assert d.grad_fn.name() == t.grad_fn.name() == "torch::autograd::CopyBackwards"
    same_error(lambda lib: lib.quantile(lib.tensor(x0), 0.4,
                                        out=lib.zeros(0, dtype=lib.float64, requires_grad=True)))


QUANTILE_ERRORS = {
    "q out of range, int input": lambda lib: lib.quantile(lib.arange(4), 1.5),
    "q out of range, bad mode": lambda lib: lib.quantile(lib.ones(3), 1.5, interpolation="x"),
    "bad mode, empty": lambda lib: lib.quantile(lib.zeros(0), 0.5, interpolation="x"),
    "empty, 2-D q": lambda lib: lib.quantile(lib.zeros(0), lib.zeros(1, 1)),
    "2-D q, int input": lambda lib: lib.quantile(lib.arange(4), lib.zeros(1, 1)),
    "int input, q dtype": lambda lib: lib.quantile(lib.arange(4), lib.zeros(1, dtype=lib.float64)),
    "int input, bad dim": lambda lib: lib.quantile(lib.arange(4), 0.5, dim=3),
    "out dtype, bad dim": lambda lib: lib.quantile(lib.ones(3), 0.5, 4, out=lib.zeros(1).long()),
    "bad dim, q values": lambda lib: lib.quantile(lib.ones(3), lib.tensor([2.0]), dim=5),
    "q dtype, q values": lambda lib: lib.quantile(lib.ones(3), lib.tensor([2.0]).double()),
    "q values nan": lambda lib: lib.quantile(lib.ones(3), lib.tensor([float("nan")])),
    "q nan": lambda lib: lib.nanquantile(lib.ones(3), float("nan")),
    "method list": lambda lib: lib.ones(3).quantile([0.5]),
    "method interpolation": lambda lib: lib.ones(3).nanquantile(0.5, interpolation=None),
    "function keepdim int": lambda lib: lib.nanquantile(lib.ones(3), 0.5, 0, 1),
    "input list": lambda lib: lib.quantile([1.0], 0.5),
}


@pytest.mark.parametrize("case", QUANTILE_ERRORS)
def test_quantile_errors(case):
    same_error(QUANTILE_ERRORS[case])


def test_quantile_float32_ranks():
    """Ranks are computed in the input's dtype (q * (n - 1) in float32): the same ranks pick
    the same values. (The blend itself is lerp's: torch's vectorised lerp uses a fused
    multiply-add, dyngrad's lerp does not, so 'linear' and 'midpoint' may differ in the last
    bit.)"""
    x0 = rng_array((7, 33), 3, "float32")
    q = np.linspace(0, 1, 11, dtype="float32")
    for mode in ("lower", "higher", "nearest"):
        like_torch(lambda lib: lib.quantile(lib.tensor(x0), lib.tensor(q), 1, interpolation=mode))
    for mode in ("linear", "midpoint"):
        like_torch(lambda lib: lib.quantile(lib.tensor(x0), lib.tensor(q), 1, interpolation=mode),
                   rtol=1e-6, atol=1e-7)


# -- cov / corrcoef ------------------------------------------------------------------------------
COV_CALLS = {
    "plain": lambda lib, x, fw, aw: lib.cov(x),
    "fweights": lambda lib, x, fw, aw: lib.cov(x, fweights=fw),
    "aweights": lambda lib, x, fw, aw: lib.cov(x, aweights=aw),
    "aweights, correction 0": lambda lib, x, fw, aw: lib.cov(x, correction=0, aweights=aw),
    "both, correction 2": lambda lib, x, fw, aw: x.cov(correction=2, fweights=fw, aweights=aw),
    "1-D": lambda lib, x, fw, aw: lib.cov(x[0], aweights=aw),
    "corrcoef": lambda lib, x, fw, aw: lib.corrcoef(x),
    "corrcoef 1-D": lambda lib, x, fw, aw: x[1].corrcoef(),
}


@pytest.mark.parametrize("name", COV_CALLS)
def test_cov_graph_and_gradients(name):
    x0, aw0 = rng_array((3, 5)), np.random.default_rng(2).random(5)
    out = []
    for lib in (torch, dyngrad):
        x = lib.tensor(x0, requires_grad=True)
        aw = lib.tensor(aw0, requires_grad=True)
        fw = lib.tensor([1, 2, 0, 3, 1])
        r = COV_CALLS[name](lib, x, fw, aw)
        grads = lib.autograd.grad(r.sum(), [x, aw], allow_unused=True)
        out.append((r, graph(r), grads))
    (t, tg, tgrads), (d, dg, dgrads) = out
    assert dg == tg
    np.testing.assert_allclose(to_numpy(d), to_numpy(t), rtol=1e-12)
    for a, b in zip(dgrads, tgrads):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_cov_complex_values(dtype):
    """The conjugated product, and corrcoef's real and imaginary parts clipped apart."""
    z = (rng_array((3, 6), 4) + 1j * rng_array((3, 6), 5)).astype(dtype)
    aw = np.random.default_rng(6).random(6).astype("float32")
    for fn in (lambda lib: lib.cov(lib.tensor(z)),
               lambda lib: lib.cov(lib.tensor(z), aweights=lib.tensor(aw), correction=0),
               lambda lib: lib.corrcoef(lib.tensor(z)), lambda lib: lib.corrcoef(lib.tensor(z[0]))):
        (t, _, _), (d, _, _) = run(fn)
        assert str(d.dtype) == str(t.dtype)
        np.testing.assert_allclose(to_numpy(d), to_numpy(t), rtol=2e-5, atol=1e-6)


def test_cov_warning():
    """Degrees of freedom <= 0: torch's warning, and inf / NaN."""
    for fn in (lambda lib: lib.cov(lib.ones(3, 1)), lambda lib: lib.corrcoef(lib.tensor(2.0)),
               lambda lib: lib.cov(lib.ones(2, 4), correction=4)):
        (t, _, tw), (d, _, dw) = run(fn)
        assert dw == tw and tw
        np.testing.assert_array_equal(to_numpy(d), to_numpy(t))


COV_ERRORS = {
    "bool weights": lambda lib: lib.cov(lib.ones(2, 3), fweights=lib.ones(3, dtype=lib.bool)),
    "weights sum to zero": lambda lib: lib.cov(lib.ones(2, 3), aweights=lib.zeros(3)),
    "no observations": lambda lib: lib.cov(lib.ones(2, 0), fweights=lib.ones(0).long()),
    "corrcoef list": lambda lib: lib.corrcoef([1.0]),
    "corrcoef bool": lambda lib: lib.corrcoef(lib.ones(2, 3, dtype=lib.bool)),
    "positional correction": lambda lib: lib.ones(2, 3).cov(1),
    "aweights list": lambda lib: lib.ones(2, 3).cov(aweights=[1.0]),
    "unknown keyword": lambda lib: lib.cov(lib.ones(2, 3), foo=1),
}


@pytest.mark.parametrize("case", COV_ERRORS)
def test_cov_errors(case):
    same_error(COV_ERRORS[case])


# -- histc / histogram / bincount ---------------------------------------------------------------
def test_histc_has_no_gradient_and_out():
    for fn in (lambda lib: lib.histc(lib.tensor([0.5, 1.5, 2.0], requires_grad=True), 3),
               lambda lib: lib.histc(lib.tensor([0.5, 1.5, 2.0]), 3, out=lib.zeros(5)),
               lambda lib: lib.tensor([0.5, 1.5, 2.0]).histc(bins=4, min=0, max=2)):
        (t, _, tw), (d, _, dw) = run(fn)
        assert dw == tw
        assert d.requires_grad == t.requires_grad is False
        np.testing.assert_array_equal(to_numpy(d), to_numpy(t))


HIST_ERRORS = {
    "histc NaN data": lambda lib: lib.histc(lib.tensor([1.0, float("nan")]), 3),
    "histc NaN min": lambda lib: lib.histc(lib.tensor([1.0]), 3, float("nan"), 1),
    "histc out dtype": lambda lib: lib.histc(lib.ones(3, dtype=lib.complex64), 3, 0, 1,
                                             out=lib.zeros(3)),
    "histc int range": lambda lib: lib.histc(lib.ones(3, dtype=lib.int64), 3, 2, 1),
    "histc bins keyword": lambda lib: lib.histc(lib.ones(3), bins=True),
    "histc method bins": lambda lib: lib.ones(3).histc(True),
    "histogram out dtype": lambda lib: lib.histogram(lib.ones(3), 2, out=(
        lib.zeros(0), lib.zeros(0, dtype=lib.float64))),
    "histogram edges out dtype": lambda lib: lib.histogram(lib.ones(3), lib.tensor([0.0, 1.0]),
                                                           out=(lib.zeros(0).double(),
                                                                lib.zeros(0))),
    "histogram int, range": lambda lib: lib.histogram(lib.arange(4), 3, range=(0.0, 1.0)),
    "histogram int, weight": lambda lib: lib.histogram(lib.arange(4), 3, weight=lib.ones(3)),
    "histogram method range tensor": lambda lib: lib.ones(3).histogram(3, range=lib.ones(2)),
    "bincount minlength keyword": lambda lib: lib.tensor([1]).bincount(minlength=True),
    "bincount method minlength": lambda lib: lib.tensor([1]).bincount(None, True),
    "bincount weights keyword": lambda lib: lib.tensor([1]).bincount(weights=1),
    "bincount float, minlength": lambda lib: lib.bincount(lib.ones(2, 2), minlength=-1),
    "histc too many": lambda lib: lib.histc(lib.ones(2), 3, 0, 1, 5),
    "histc method too many": lambda lib: lib.ones(2).histc(3, 0, 1, 5),
    "histc bins twice": lambda lib: lib.histc(lib.ones(2), 3, bins=3),
    "histc unknown keyword": lambda lib: lib.histc(lib.ones(2), 3, foo=1),
    "bincount method too many": lambda lib: lib.tensor([1]).bincount(None, 0, 1),
}


@pytest.mark.parametrize("case", HIST_ERRORS)
def test_histogram_errors(case):
    same_error(HIST_ERRORS[case])


def test_histogram_and_bincount_nodes():
    """NotImplemented nodes linked to the inputs that require grad; backward raises torch's
    error. bincount's weights dtypes decide the result's (float and double kept, else
    double; complex warns)."""
    def calls(lib):
        x = lib.tensor([0.5, 1.5, 2.0, 0.1], requires_grad=True)
        w = lib.ones(4, requires_grad=True)
        e = lib.tensor([0.0, 1.0, 2.0], requires_grad=True)
        return [lib.histogram(x, 3, weight=w), lib.histogram(x.detach(), e, weight=w),
                lib.histogram(x, e), lib.bincount(lib.tensor([0, 1, 1]), w[:3]),
                lib.bincount(lib.tensor([0, 2]), lib.ones(2, dtype=lib.float16,
                                                          requires_grad=True))]
    (tres, _, _), (dres, _, _) = run(calls)
    for d, t in zip(dres, tres):
        for dt, tt in zip(d if isinstance(d, tuple) else (d,), t if isinstance(t, tuple) else (t,)):
            assert graph(dt) == graph(tt)
            assert str(dt.dtype) == str(tt.dtype)
            np.testing.assert_array_equal(to_numpy(dt), to_numpy(tt))
    for k in (0, 3):
        same_error(lambda lib: calls(lib)[k][0].sum().backward())


def test_histogram_out():
    """out=(hist, bin_edges): both resized (edges first, each with torch's warning), a
    histogram_out named tuple returned."""
    x = rng_array((10,), 7, "float32")
    (t, _, tw), (d, _, dw) = run(lambda lib: lib.histogram(lib.tensor(x), 3, out=(
        lib.zeros(5), lib.zeros(1))))
    assert dw == tw and len(tw) == 2
    assert repr(type(d)) == repr(type(t)).replace("torch.return_types", "torch.return_types")
    assert type(d).__name__ == type(t).__name__ == "histogram_out"
    for a, b in zip(d, t):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))


@pytest.mark.parametrize("wdtype", ["float16", "int32", "int64", "bool", "complex64"])
def test_bincount_weight_dtypes(wdtype):
    w = (np.arange(1, 5) * (1 + 1j)).astype(wdtype) if wdtype == "complex64" else \
        np.arange(1, 5).astype(wdtype)
    from dyngrad.ops import creation, pointwise
    pointwise._WARNED.discard(creation._COMPLEX_WARNING)
    (t, _, tw), (d, _, dw) = run(lambda lib: lib.bincount(lib.tensor([0, 3, 3, 1]),
                                                          lib.from_numpy(w.copy())))
    if wdtype == "complex64" and not tw:
        # torch's cast warning is TORCH_WARN_ONCE, maybe given by an earlier test already
        # (test_interop checks the text against torch's); dyngrad's state was reset above
        assert dw == [creation._COMPLEX_WARNING]
    else:
        assert dw == tw
    assert str(d.dtype) == str(t.dtype)
    np.testing.assert_array_equal(to_numpy(d), to_numpy(t))


def test_histogram_weights_in_order():
    """Weights are added one at a time in order (torch with one thread, as the suite runs)."""
    x = rng_array((300,), 8)
    w = np.random.default_rng(9).random(300)
    like_torch(lambda lib: lib.histogram(lib.tensor(x), 7, range=(-1.0, 1.0),
                                         weight=lib.tensor(w)))
    like_torch(lambda lib: lib.bincount(lib.tensor(np.arange(300) % 7), lib.tensor(w)))


def test_histogramdd_nodes():
    """Two NotImplemented nodes for a bin count (edges, counts), one for edge tensors, which
    come back as the very tensors given (Note [histogramdd's ops])."""
    def calls(lib):
        x = lib.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]], requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        e = [lib.tensor([0.0, 1.0, 2.0], requires_grad=True), lib.tensor([0.0, 2.0])]
        return [lib.histogramdd(x, 2, weight=w), lib.histogramdd(x.detach(), e, weight=w),
                lib.histogramdd(x, [2, 3], range=[0.0, 1.0, 0.0, 3.0]), e]
    (tres, _, _), (dres, _, _) = run(calls)
    for d, t in zip(dres[:3], tres[:3]):
        assert graph(d.hist) == graph(t.hist)
        assert [graph(b) for b in d.bin_edges] == [graph(b) for b in t.bin_edges]
        assert (d.bin_edges[0].grad_fn is d.bin_edges[1].grad_fn) == \
            (t.bin_edges[0].grad_fn is t.bin_edges[1].grad_fn)
        np.testing.assert_array_equal(to_numpy(d.hist), to_numpy(t.hist))
    assert dres[1].bin_edges[0] is dres[3][0] and tres[1].bin_edges[0] is tres[3][0]
    same_error(lambda lib: calls(lib)[0].hist.sum().backward())
    same_error(lambda lib: calls(lib)[0].bin_edges[1].sum().backward())
    same_error(lambda lib: calls(lib)[1].hist.sum().backward())
