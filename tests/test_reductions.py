"""Reductions against live torch where the op database does not reach: stability at +-1000,
gradient conventions at ties and zeros, empty reductions, named tuples, warnings and
argument errors (see tests/opinfo/{reduction,minmax,statistics,norms,softmax}.py for the rest).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import dyngrad
from tests.compare import same_outcome

INF, NAN = math.inf, math.nan


def _np(t):
    if isinstance(t, torch.Tensor):
        if t.dtype == torch.bfloat16:   # (NumPy has no bfloat16: compared in float32)
            t = t.float()
        return t.detach().numpy(force=True).copy()   # (torch's second derivatives: ZeroTensors)
    if t.dtype == dyngrad.bfloat16:
        t = t.float()
    return np.array(t._data, copy=True)


def _close(ours, theirs, where=""):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), where
        for o, t in zip(ours, theirs):
            _close(o, t, where)
        return
    assert (theirs is None) == (ours is None), where
    if theirs is None:
        return
    assert str(ours.dtype) == str(theirs.dtype), (where, ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (where, ours.shape, theirs.shape)
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-6, atol=1e-6, equal_nan=True,
                               err_msg=where)


def like_torch(fn, *values, dtype="float64", grads=True, create_graph=False):
    """Run ``fn(lib, *tensors)`` on both libraries: outputs, gradients of their sum, node names
    and (``create_graph``) second derivatives must agree."""
    results = {}
    for lib in (dyngrad, torch):
        xs = [lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=grads) for v in values]
        out = fn(lib, *xs)
        outs = [o for o in (out if isinstance(out, tuple) else (out,))
                if isinstance(o, lib.Tensor)]
        entry = {"out": outs, "names": [type(o.grad_fn).__name__ for o in outs]}
        if grads:
            total = sum(o.sum() for o in outs if o.requires_grad)
            g = lib.autograd.grad(total, xs, create_graph=create_graph, allow_unused=True)
            entry["grad"] = list(g)
            if create_graph:
                firsts = [x for x in g if x is not None and x.requires_grad]
                entry["second"] = list(lib.autograd.grad(sum(x.pow(2).sum() for x in firsts),
                                                         xs, allow_unused=True)) \
                    if firsts else None
        results[lib.__name__] = entry
    ours, theirs = results["dyngrad"], results["torch"]
    _close(ours["out"], theirs["out"], "outputs")
    assert ours["names"] == theirs["names"]
    if grads:
        _close(ours["grad"], theirs["grad"], "gradients")
        if create_graph:
            _close(ours["second"], theirs["second"], "second derivatives")
    return ours


def raises_like_torch(fn):
    errors = []
    for lib in (torch, dyngrad):
        try:
            fn(lib)
        except Exception as e:   # noqa: BLE001  (compared below)
            errors.append(e)
        else:
            errors.append(None)
    texc, exc = errors
    assert texc is not None, "torch did not raise: the case is wrong"
    assert exc is not None, f"dyngrad did not raise; torch: {texc}"
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))


# -- stability ----------------------------------------------------------------------------------
BIG = [[1000.0, 1000.0, -1000.0], [-1000.0, -999.0, -1000.0], [-INF, -INF, -INF],
       [-INF, 0.0, 1.0], [INF, 1.0, 2.0]]


@pytest.mark.parametrize("name", ["logsumexp", "softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stable_at_large_and_infinite_inputs(name, dtype):
    def fn(lib, x):
        if name == "softmin":
            return lib.nn.functional.softmin(x, 1)
        return getattr(lib, name)(x, 1)
    like_torch(fn, BIG, dtype=dtype)


def test_softmax_dtype_argument_casts_first():
    ours = like_torch(lambda lib, x: lib.softmax(x, 0, dtype=lib.float64), [1.0, 2.0],
                      dtype="float32")
    assert type(ours["out"][0].grad_fn.next_functions[0][0]).__name__ == "ToCopyBackward0"


@pytest.mark.parametrize("ndim,expected", [(1, 0), (2, 1), (3, 0), (4, 1)])
def test_functional_softmax_implicit_dim_warns(ndim, expected):
    shape = (2, 3, 4, 5)[:ndim]
    x = np.random.default_rng(0).standard_normal(shape)
    for name in ("softmax", "log_softmax", "softmin"):
        got = {}
        for lib in (dyngrad, torch):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                got[lib.__name__] = getattr(lib.nn.functional, name)(lib.tensor(x))
            assert [str(m.message) for m in w] == [
                f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                "include dim=X as an argument."]
        _close(got["dyngrad"], got["torch"])
        explicit = getattr(torch.nn.functional, name)(torch.tensor(x), expected)
        _close(got["dyngrad"], explicit)


# -- ties and zeros: gradient conventions ----------------------------------------------------
TIES = [[1.0, 3.0, 3.0, 2.0], [0.0, 0.0, -1.0, 0.0], [2.0, 2.0, 2.0, 2.0]]


@pytest.mark.parametrize("case", [
    "max()", "min()", "max(dim)", "min(dim, keepdim)", "amax(dim)", "amax(all)", "amin(tuple)",
    "aminmax()", "aminmax(dim)", "max(a, b)", "vector_norm(inf)", "matrix_norm(1)"])
def test_tie_gradients(case):
    fns = {
        "max()": lambda lib, x: x.max(),
        "min()": lambda lib, x: lib.min(x),
        "max(dim)": lambda lib, x: lib.max(x, 1).values,
        "min(dim, keepdim)": lambda lib, x: x.min(dim=0, keepdim=True)[0],
        "amax(dim)": lambda lib, x: lib.amax(x, 1),
        "amax(all)": lambda lib, x: x.amax(),
        "amin(tuple)": lambda lib, x: lib.amin(x, (0, 1), True),
        "aminmax()": lambda lib, x: tuple(lib.aminmax(x)),
        "aminmax(dim)": lambda lib, x: lib.aminmax(x, dim=1).max,
        "max(a, b)": lambda lib, x: lib.max(x, 4 - x),   # ties where x == 2
        "vector_norm(inf)": lambda lib, x: lib.linalg.vector_norm(x, INF, 1),
        "matrix_norm(1)": lambda lib, x: lib.linalg.matrix_norm(x, 1),
    }
    like_torch(fns[case], TIES)


def test_max_with_nans():
    x = [[1.0, NAN, 3.0, NAN], [2.0, 5.0, 5.0, 1.0]]
    for fn in (lambda lib, x: x.max(), lambda lib, x: lib.max(x, 1), lambda lib, x: lib.amax(x, 1),
               lambda lib, x: lib.min(x, 1, True), lambda lib, x: tuple(lib.aminmax(x, dim=1))):
        like_torch(fn, x)
    like_torch(lambda lib, x: (lib.argmax(x, 1), lib.argmin(x), x.argmax(0, True)), x,
               grads=False)


@pytest.mark.parametrize("values", [[1.5, 0.0, -2.0, 0.5], [0.0, 1.5, 0.0, 2.0],
                                    [[0.0, 2.0, 3.0], [1.0, 0.0, 0.0], [1.0, 2.0, 3.0]]],
                         ids=["one zero", "two zeros", "zeros per row"])
@pytest.mark.parametrize("form", ["full", "dim", "dim keepdim"])
def test_prod_gradient_with_zeros(values, form):
    fns = {"full": lambda lib, x: x.prod(), "dim": lambda lib, x: lib.prod(x, -1),
           "dim keepdim": lambda lib, x: lib.prod(x, 0, keepdim=True)}
    like_torch(fns[form], values)
    like_torch(fns[form], values, create_graph=True)


def test_norm_gradient_at_zero_is_zero():
    ours = like_torch(lambda lib, x: lib.norm(x), [0.0, 0.0, 0.0])
    assert not np.isnan(_np(ours["grad"][0])).any()
    like_torch(lambda lib, x: lib.linalg.vector_norm(x, 2, 1), [[0.0, 0.0], [3.0, 4.0]])
    like_torch(lambda lib, x: lib.linalg.vector_norm(x, 3, 1), [[0.0, 0.0], [3.0, 4.0]])


# torch's CPU norm kernels accumulate a float32 tensor in float32 (and float16 / bfloat16 in
# float32, their opmath type): squares past float32's range give inf, those below it 0
@pytest.mark.parametrize("ord", [2, 3, 1, 0.5, INF, -INF, 0])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)], ids=["all", "dim", "dims"])
def test_float32_norm_overflows_and_underflows_as_torch(ord, dim):
    like_torch(lambda lib, x: lib.linalg.vector_norm(x, ord, dim),
               [[1e20, 1.0], [3e-30, 4e-30]], dtype="float32")


@pytest.mark.parametrize("dim", [None, 1])
def test_overflowing_norm_in_a_thread_warns_nothing(dim):
    """A thread keeps NumPy's default error state (warnings on); torch's norm warns nothing."""
    import threading
    x = dyngrad.tensor([[1e20, 1.0], [3.0, 4.0]])
    got, caught = [], []

    def run():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got.append(dyngrad.linalg.vector_norm(x, 2, dim).tolist())
        caught.extend(seen)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not caught and got == [torch.linalg.vector_norm(torch.tensor(x.tolist()), 2, dim)
                                  .tolist()]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_norm_accumulates_in_float32(dtype):
    """300**2 + 400**2 is past float16's range; torch sums the squares in float32."""
    like_torch(lambda lib, x: lib.linalg.vector_norm(x), [300.0, 400.0], dtype=dtype)
    like_torch(lambda lib, x: lib.linalg.vector_norm(x, 2, 1), [[300.0, 400.0], [3.0, 4.0]],
               dtype=dtype)


def test_large_float32_norm_close_to_torch():
    """A whole (256, 784) gradient's norm and a norm per row: torch's value to float32's
    rounding over that many terms (both sum in float32, in different orders)."""
    x = np.random.default_rng(3).standard_normal((256, 784)).astype(np.float32) * 1e-3
    for dim in (None, 1, 0):
        ours = dyngrad.linalg.vector_norm(dyngrad.tensor(x), 2, dim)
        theirs = torch.linalg.vector_norm(torch.tensor(x), 2, dim)
        assert ours.dtype == dyngrad.float32 and ours.shape == theirs.shape
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-6)


@pytest.mark.parametrize("ord", [0, 1, 2, 3, 0.5, -1, INF, -INF])
def test_vector_norm_double_backward(ord):
    like_torch(lambda lib, x: lib.linalg.vector_norm(x, ord, 1), [[1.0, -2.0, 3.0],
                                                                  [0.5, 4.0, -1.0]],
               create_graph=True)


def _node_names(t):
    """Every node name reached from t.grad_fn, depth first (AccumulateGrad unprefixed)."""
    names, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is not None:
            names.append(fn.name().split("::")[-1])
            stack.extend(f for f, _ in reversed(fn.next_functions))
    return names


@pytest.mark.parametrize("ord", [1, 2, 3, 0.5, -1, INF, -INF])
def test_vector_norm_gradient_graph_matches_torch(ord):
    """The gradient's own graph (what a double backward runs through) has torch's nodes: a
    zero norm (or entry) is masked in place, MaskedFillBackward0, not a where."""
    graphs = []
    for lib in (dyngrad, torch):
        x = lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=lib.float64,
                       requires_grad=True)
        g, = lib.autograd.grad(lib.linalg.vector_norm(x, ord, 1).sum(), x, create_graph=True)
        graphs.append(_node_names(g))
    assert graphs[0] == graphs[1]


@pytest.mark.parametrize("case", ["var", "var dim", "std", "var_mean", "std_mean dim",
                                  "var correction 0", "std unbiased=False"])
def test_variance_double_backward(case):
    fns = {"var": lambda lib, x: x.var(), "var dim": lambda lib, x: lib.var(x, 1),
           "std": lambda lib, x: lib.std(x), "var_mean": lambda lib, x: lib.var_mean(x),
           "std_mean dim": lambda lib, x: lib.std_mean(x, 0, keepdim=True),
           "var correction 0": lambda lib, x: lib.var(x, 1, correction=0),
           "std unbiased=False": lambda lib, x: x.std(1, False)}
    like_torch(fns[case], [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], create_graph=True)


def test_variance_without_degrees_of_freedom():
    for lib in (dyngrad, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.var(lib.ones(1))
            lib.std_mean(lib.ones(2, 3), 0, correction=2)
        assert [str(m.message) for m in w] == [
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)"
            for name in ("var", "std_mean")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        like_torch(lambda lib, x: lib.var(x), [2.0])
        like_torch(lambda lib, x: lib.var(x, 0, correction=2), [[2.0, 1.0], [2.0, 3.0]])
        like_torch(lambda lib, x: lib.var(x, correction=5), [1.0, 2.0, 3.0])


# -- empty reductions ----------------------------------------------------------------------------
EMPTY_ERRORS = {
    "max()": lambda lib, e: e.max(), "min()": lambda lib, e: lib.min(e),
    "max(0)": lambda lib, e: lib.max(e, 0), "max(-2)": lambda lib, e: lib.max(e, -2),
    "amax()": lambda lib, e: lib.amax(e), "amin(0)": lambda lib, e: lib.amin(e, 0),
    "amax((0, 1))": lambda lib, e: lib.amax(e, (0, 1)),
    "aminmax()": lambda lib, e: lib.aminmax(e), "aminmax(0)": lambda lib, e: lib.aminmax(e, dim=0),
    "argmax()": lambda lib, e: lib.argmax(e), "argmin(0)": lambda lib, e: lib.argmin(e, 0),
    "vector_norm(inf)": lambda lib, e: lib.linalg.vector_norm(e, INF),
    "vector_norm(-1, 0)": lambda lib, e: lib.linalg.vector_norm(e, -1, 0),
    "matrix_norm(-inf)": lambda lib, e: lib.linalg.matrix_norm(e, -INF),
}


@pytest.mark.parametrize("case", list(EMPTY_ERRORS))
def test_empty_reduction_errors(case):
    raises_like_torch(lambda lib: EMPTY_ERRORS[case](lib, lib.zeros(0, 3)))


EMPTY_VALUES = {
    "sum": lambda lib, e: lib.sum(e), "prod": lambda lib, e: lib.prod(e),
    "prod(1)": lambda lib, e: lib.prod(e, 1), "nansum": lambda lib, e: lib.nansum(e, 0),
    "mean": lambda lib, e: lib.mean(e), "nanmean": lambda lib, e: lib.nanmean(e, 0),
    "all": lambda lib, e: lib.all(e), "any": lambda lib, e: lib.any(e, 0),
    "count_nonzero": lambda lib, e: lib.count_nonzero(e, 0), "max(1)": lambda lib, e: lib.max(e, 1),
    "amax(1)": lambda lib, e: lib.amax(e, 1), "argmax(1)": lambda lib, e: lib.argmax(e, 1),
    "logsumexp(0)": lambda lib, e: lib.logsumexp(e, 0), "norm": lambda lib, e: lib.norm(e),
    "vector_norm(inf, 1)": lambda lib, e: lib.linalg.vector_norm(e, INF, 1),
    "matrix_norm(inf)": lambda lib, e: lib.linalg.matrix_norm(e, INF),
    "softmax(1)": lambda lib, e: lib.softmax(e, 1),
}


@pytest.mark.parametrize("case", list(EMPTY_VALUES))
def test_empty_reduction_values(case):
    out = {lib.__name__: EMPTY_VALUES[case](lib, lib.zeros(0, 3)) for lib in (dyngrad, torch)}
    _close(out["dyngrad"], out["torch"], case)


def test_var_of_empty_is_nan_with_warning():
    out = {}
    for lib in (dyngrad, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out[lib.__name__] = (lib.var(lib.zeros(0, 3)), lib.std(lib.zeros(0, 3), 0))
        assert len(w) == 2
    _close(out["dyngrad"], out["torch"])


# -- named tuples, out=, dtypes ------------------------------------------------------------------
def test_named_tuple_reprs():
    def build(lib):
        x = lib.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 4.0]])
        return [lib.max(x, 1), x.min(0, keepdim=True), lib.aminmax(x), lib.aminmax(x, dim=1)]
    for ours, theirs in zip(build(dyngrad), build(torch)):
        assert repr(ours) == repr(theirs)
        assert type(ours).__name__ == type(theirs).__name__
        assert type(ours).__module__ == type(theirs).__module__ == "torch.return_types"
    v, i = dyngrad.max(dyngrad.tensor([[1.0, 5.0]]), 1)
    assert v.tolist() == [5.0] and i.tolist() == [1] and str(i.dtype) == "torch.int64"


def test_max_dim_out_tuple():
    got = {}
    for lib in (dyngrad, torch):
        v, i = lib.empty(0), lib.empty(0, dtype=lib.int64)
        r = lib.max(lib.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 4.0]]), 1, out=(v, i))
        assert r[0] is v and r[1] is i and type(r).__name__ == "max_out"
        assert repr(r).startswith("torch.return_types.max_out(\nvalues=")
        got[lib.__name__] = (v, i)
    _close(got["dyngrad"], got["torch"])


INTEGER_RESULTS = {
    "prod int8": lambda lib: lib.prod(lib.tensor([3, -2, 4], dtype=lib.int8)),
    "prod bool dim": lambda lib: lib.prod(lib.tensor([[True, False]]), 1),
    "nansum int32": lambda lib: lib.nansum(lib.tensor([1, 2], dtype=lib.int32)),
    "all uint8": lambda lib: lib.all(lib.tensor([1, 2], dtype=lib.uint8)),
    "any uint8 dim": lambda lib: lib.tensor([[0, 2]], dtype=lib.uint8).any(1),
    "all float": lambda lib: lib.all(lib.tensor([1.0, NAN])),
    "count_nonzero": lambda lib: lib.count_nonzero(lib.tensor([[0, 2], [3, 0]]), (0, 1)),
    "argmax": lambda lib: lib.argmax(lib.tensor([[1, 3, 3]]), 1, keepdim=True),
    "logsumexp int": lambda lib: lib.logsumexp(lib.tensor([1, 2, 3]), 0),
    "var complex": lambda lib: lib.var(lib.tensor([1 + 1j, 2 - 1j, 0j])),
    "var_mean complex": lambda lib: lib.var_mean(lib.tensor([1 + 1j, 2 - 1j, 0j])),
    "vector_norm complex": lambda lib: lib.linalg.vector_norm(lib.tensor([3 + 4j, 1j]), 1),
}


@pytest.mark.parametrize("case", list(INTEGER_RESULTS))
def test_result_dtypes(case):
    _close(INTEGER_RESULTS[case](dyngrad), INTEGER_RESULTS[case](torch), case)


ERRORS = {
    "mean of int": lambda lib: lib.mean(lib.tensor([1, 2])),
    "nanmean of int": lambda lib: lib.nanmean(lib.tensor([1, 2])),
    "nanmean int dtype": lambda lib: lib.nanmean(lib.ones(2), dtype=lib.int32),
    "nansum complex": lambda lib: lib.nansum(lib.ones(2, dtype=lib.complex64)),
    "var of int": lambda lib: lib.var(lib.tensor([1, 2])),
    "var_mean of int": lambda lib: lib.var_mean(lib.tensor([1, 2])),
    "std_mean of bool": lambda lib: lib.std_mean(lib.tensor([True])),
    "var unbiased and correction": lambda lib: lib.var(lib.ones(2, 3), 0, unbiased=True,
                                                       correction=1),
    "var two bools": lambda lib: lib.var(lib.ones(2, 3), True, True),
    "prod tuple dim": lambda lib: lib.prod(lib.ones(2, 3), (0, 1)),
    "prod dim None": lambda lib: lib.prod(lib.ones(2, 3), None),
    "prod keepdim alone": lambda lib: lib.prod(lib.ones(2, 3), keepdim=True),
    "max tuple dim": lambda lib: lib.max(lib.ones(2, 3), (0, 1)),
    "argmax tuple dim": lambda lib: lib.argmax(lib.ones(2, 3), (0,)),
    "argmax bool": lambda lib: lib.argmax(lib.ones(2, dtype=lib.bool)),
    "argmin complex": lambda lib: lib.argmin(lib.ones(2, dtype=lib.complex64)),
    "max complex": lambda lib: lib.max(lib.ones(2, dtype=lib.complex64)),
    "max dim complex": lambda lib: lib.max(lib.ones(2, dtype=lib.complex64), 0),
    "amax complex": lambda lib: lib.amax(lib.ones(2, dtype=lib.complex64)),
    "aminmax complex": lambda lib: lib.aminmax(lib.ones(2, dtype=lib.complex64)),
    "aminmax positional dim": lambda lib: lib.aminmax(lib.ones(2, 3), 0),
    "softmax of long": lambda lib: lib.softmax(lib.ones(2, 3, dtype=lib.int64), 1),
    "softmax of long, dim 0": lambda lib: lib.softmax(lib.ones(2, 3, dtype=lib.int64), 0),
    "log_softmax of bool": lambda lib: lib.log_softmax(lib.ones(2, dtype=lib.bool), 0),
    "softmax without dim": lambda lib: lib.softmax(lib.ones(2)),
    "softmax dim out of range": lambda lib: lib.softmax(lib.ones(2, 3), 2),
    "logsumexp dim ()": lambda lib: lib.logsumexp(lib.ones(2, 3), ()),
    "vector_norm of long": lambda lib: lib.linalg.vector_norm(lib.tensor([1, 2])),
    "vector_norm ord str": lambda lib: lib.linalg.vector_norm(lib.ones(2), "fro"),
    "vector_norm narrowing dtype": lambda lib: lib.linalg.vector_norm(
        lib.ones(2, dtype=lib.float64), dtype=lib.float32),
    "vector_norm complex dtype": lambda lib: lib.linalg.vector_norm(lib.ones(2),
                                                                    dtype=lib.complex64),
    "vector_norm int dtype": lambda lib: lib.linalg.vector_norm(lib.ones(2), dtype=lib.int64),
    "matrix_norm order 3": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), 3),
    "matrix_norm order abc": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), "abc"),
    "matrix_norm 1-D": lambda lib: lib.linalg.matrix_norm(lib.ones(3)),
    "matrix_norm three dims": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), dim=(0, 1, 2)),
    "matrix_norm same dims": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), dim=(1, -1)),
    "matrix_norm half": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2, dtype=lib.float16),
                                                           2),
    "linalg.norm 3-D with ord": lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), 1),
    "linalg.norm three dims": lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), dim=(0, 1, 2)),
    "norm of long": lambda lib: lib.norm(lib.tensor([1, 2])),
    "norm bad string": lambda lib: lib.norm(lib.ones(2, 2), "abc"),
    "norm nuc of a vector": lambda lib: lib.norm(lib.ones(3), "nuc"),
    "count_nonzero repeated dim": lambda lib: lib.count_nonzero(lib.ones(2, 3), (0, 0)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    raises_like_torch(ERRORS[case])


# -- matrix norms through singular values -----------------------------------------------------
@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_spectral_matrix_norms(ord):
    """'nuc', 2 and -2 sum or pick singular values (linalg.svdvals): values and gradients."""
    if "linalg.svdvals" not in dyngrad.ops.FUNCTIONS:
        with pytest.raises(NotImplementedError, match="svdvals"):
            dyngrad.linalg.matrix_norm(dyngrad.ones(2, 3), ord)
        return
    a = np.random.default_rng(3).standard_normal((2, 3, 4)).tolist()
    like_torch(lambda lib, x: lib.linalg.matrix_norm(x, ord), a)
    like_torch(lambda lib, x: lib.linalg.matrix_norm(x, ord, (0, 2), keepdim=True), a)
    like_torch(lambda lib, x: lib.linalg.norm(x[0], ord), a)
    if ord == "nuc":
        like_torch(lambda lib, x: lib.norm(x, "nuc", (1, 2)), a)


SHORT_ROWS = [(512, 10), (4096, 3), (2, 128, 16), (300, 2)]   # reduce_rows' transposed path


@pytest.mark.parametrize("shape", SHORT_ROWS)
def test_reduce_rows_matches_the_plain_reduction(shape):
    from dyngrad.ops.reduction import reduce_rows
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    for keepdims in (False, True):
        for ufunc in (np.maximum, np.minimum):
            want = ufunc.reduce(x, axis=-1, keepdims=keepdims)
            got = reduce_rows(np, ufunc, x, -1, keepdims)
            assert got.shape == want.shape and np.array_equal(got, want)
        want = np.add.reduce(x, axis=-1, keepdims=keepdims)
        got = reduce_rows(np, np.add, x, len(shape) - 1, keepdims)
        assert got.shape == want.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHORT_ROWS)
def test_many_short_rows_like_torch(shape, dtype):
    # sum, softmax, log_softmax and cross-entropy over many short last-axis rows, with their
    # gradients (weighted, so that every gradient is non-trivial)
    rng = np.random.default_rng(0)
    v, w = rng.standard_normal(shape) * 3, rng.standard_normal(shape)
    n = shape[-1]
    target = rng.integers(0, n, v.size // n)
    fns = {
        "sum": lambda lib, x: x.sum(-1),
        "sum keepdim": lambda lib, x: x.sum(-1, keepdim=True),
        "softmax": lambda lib, x: lib.softmax(x, -1),
        "log_softmax": lambda lib, x: x.log_softmax(dim=-1),
        "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(
            x.reshape(-1, n), lib.tensor(target), reduction="none"),
    }
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    for name, fn in fns.items():
        got = {}
        for lib in (dyngrad, torch):
            x = lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True)
            out = fn(lib, x)
            weight = lib.tensor(w.reshape(-1)[:out.numel()].reshape(tuple(out.shape)),
                                dtype=out.dtype)
            (g,) = lib.autograd.grad((out * weight).sum(), x)
            got[lib.__name__] = (out, g)
        for ours, theirs in zip(got["dyngrad"], got["torch"]):
            assert str(ours.dtype) == str(theirs.dtype), name
            assert ours.shape == theirs.shape and ours.stride() == theirs.stride(), name
            np.testing.assert_allclose(_np(ours), _np(theirs), err_msg=name, **tol)


KEEPDIM = {
    "sum": lambda t, d: t.sum(d, keepdim=True), "mean": lambda t, d: t.mean(d, keepdim=True),
    "amax": lambda t, d: t.amax(d, keepdim=True), "amin": lambda t, d: t.amin(d, keepdim=True),
    "prod": lambda t, d: t.prod(d, keepdim=True), "max": lambda t, d: t.max(d, keepdim=True)[0],
    "argmax": lambda t, d: t.argmax(d, keepdim=True), "std": lambda t, d: t.std(d, keepdim=True),
    "logsumexp": lambda t, d: t.logsumexp(d, keepdim=True),
    "norm": lambda t, d: t.norm(dim=d, keepdim=True), "any": lambda t, d: (t > 0).any(d, True),
    "all": lambda t, d: (t > 0).all(d, True), "var_mean": lambda t, d: _lib(t).var_mean(t, d, keepdim=True)[1],
    "median": lambda t, d: t.median(d, True)[0], "cumsum": lambda t, d: t.cumsum(d),
    "nansum": lambda t, d: t.nansum(d, True), "aminmax": lambda t, d: t.aminmax(dim=d, keepdim=True)[0],
}


def _lib(t):
    return dyngrad if isinstance(t, dyngrad.Tensor) else torch


@pytest.mark.parametrize("name", list(KEEPDIM))
def test_keepdim_results_have_torchs_strides(name):
    """A reduction's result is contiguous, its kept size-1 dims included: NumPy leaves such a
    dim the input's stride (a column sum of a transposed matrix), which stride() would show."""
    x = np.random.default_rng(0).standard_normal((6, 7, 3))
    for perm in [(0, 1, 2), (2, 1, 0), (1, 0, 2)]:
        for d in (0, 1, 2, -1):
            ours = KEEPDIM[name](dyngrad.tensor(x).permute(*perm), d)
            theirs = KEEPDIM[name](torch.tensor(x).permute(*perm), d)
            assert ours.stride() == theirs.stride(), (perm, d)
            _close(ours, theirs, f"{name} {perm} {d}")


@pytest.mark.parametrize("expr", [
    "t.amax(x, 0, out=t.empty(3, dtype=t.int32))", "t.amin(x, out=t.empty((), dtype=t.float64))",
    "t.amax(x.int(), 0, out=t.empty(3))",
    "t.aminmax(x, out=(t.empty(()), t.empty((), dtype=t.float64)))",
    "t.aminmax(x.long(), dim=0, out=(t.empty(3, dtype=t.int32), t.empty(3, dtype=t.int64)))",
    "t.multinomial(t.ones(3), 2, out=t.empty(2))",
    "t.multinomial(t.ones(3), 2, out=t.empty(2, dtype=t.int32))",
])
def test_out_of_another_dtype_refused_as_torch(expr):
    """amax, amin and aminmax take an out= of the input's dtype only, multinomial an int64 one:
    torch's words for each."""
    def run(lib):
        x = lib.ones(2, 3)
        return eval(expr, {"t": lib, "x": x})
    same_outcome(run)
