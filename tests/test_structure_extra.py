"""isin, inner, tril/triu_indices, trapezoid, vander, chain_matmul, renorm, narrow_copy and
index_reduce against live torch, beyond the OpInfo database: warnings emitted once per process,
out= dtype rules, saved attributes, gradients the database does not reach (complex renorm,
x of cumulative_trapezoid), vander's failing backward and index_reduce's double-backward
error.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import dyngrad

LIBS = (dyngrad, torch)


def outcome(fn, lib):
    """``fn(lib)`` as comparable values, or ("error", type, message)."""
    try:
        result = fn(lib)
    except Exception as e:  # noqa: BLE001 -- compared with torch's
        return ("error", type(e).__name__, str(e))
    if isinstance(result, (dyngrad.Tensor, torch.Tensor)):
        arr = np.array(result.detach().numpy() if isinstance(result, torch.Tensor)
                       else result._data)
        return (str(result.dtype), tuple(result.shape), result.stride(), arr.tolist())
    return result


def same(fn):
    ours, theirs = outcome(fn, dyngrad), outcome(fn, torch)
    assert ours == theirs, f"dyngrad {ours}\ntorch   {theirs}"


def _t(lib, values, dtype="float64", requires_grad=False):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


# -- out= and argument rules -------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda L: L.isin(_t(L, [1, 2], "int64"), _t(L, [2], "int64"), out=L.empty(0, dtype=L.int64)),
    lambda L: L.isin(_t(L, [1, 2], "int64"), 2, out=L.empty(2, dtype=L.bool)),
    lambda L: L.isin(elements=_t(L, [1, 2], "int64"), test_element=2),
    lambda L: L.isin(element=2, test_elements=_t(L, [1, 2], "int64")),
    lambda L: L.isin(_t(L, [1.5, 2.0]), 1 + 0j),
    lambda L: L.inner(_t(L, [[1.0, 2.0]]), _t(L, [[3.0, 4.0]]), out=L.empty(0, dtype=L.float32)),
    lambda L: L.inner(_t(L, 2.0), _t(L, [3.0, 4.0], "float32"), out=L.empty(0)),
    lambda L: L.inner(_t(L, [1.0, 2.0]), _t(L, [3.0, 4.0]), out=L.empty(0, dtype=L.float64)),
    lambda L: L.tril_indices(3, 3, requires_grad=True),
    lambda L: L.triu_indices(3, 4, 1, dtype=L.int32, device="cpu", layout=L.strided),
    lambda L: L.tril_indices(3, 3, dtype=L.float32),
    lambda L: L.trapz(_t(L, [[1.0, 2.0, 4.0]]), dx=True),
    lambda L: L.renorm(_t(L, [[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0, out=L.empty(0)),
    lambda L: L.renorm(_t(L, [[3.0, 4.0], [0.3, 0.4]]), True, 0, 1.0),
    lambda L: L.renorm(_t(L, [[3.0, 4.0], [0.3, 0.4]], "float16"), 2, 0, 1.0),
    lambda L: L.narrow_copy(_t(L, [[1.0, 2.0]]), 1, 0, 1, out=L.empty(0, dtype=L.float32)),
    lambda L: L.narrow_copy(_t(L, [[1.0, 2.0]]), 1, L.tensor(1), 1),
    lambda L: L.index_reduce(_t(L, [[1.0, 2.0]]), 0, _t(L, [0], "int64"), _t(L, [[3.0, 4.0]]),
                             "amax", out=L.empty(0, dtype=L.float32)),
    lambda L: L.chain_matmul(_t(L, [[1.0, 2.0]]), out=L.empty(0, dtype=L.float64)),
    lambda L: L.trapezoid(_t(L, 1.0), _t(L, [1.0])),
    lambda L: L.cumulative_trapezoid(_t(L, 1.0), _t(L, [1.0])),
    lambda L: L.linalg.vander(_t(L, [1.0, 2.0]), N=2.0),
    lambda L: L.ones(2, 3).index_reduce(0.0, L.tensor([0]), L.ones(1, 3), "prod"),
    lambda L: L.ones(2, 3).index_reduce_(0.0, L.tensor([0]), L.ones(1, 3), "prod"),
    lambda L: L.ones(2, 3).inner(2.0),
    lambda L: L.chain_matmul(),
    lambda L: L.chain_matmul([_t(L, [[1.0]])]),
])
def test_like_torch(case):
    same(case)


# -- warnings torch emits once per process -----------------------------------------------------
_FIRST_WARNING = """
import warnings, {lib} as L
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    {call}
    {call}
print(repr([(c.category.__name__, str(c.message)) for c in w]))
"""


@pytest.mark.parametrize("call", [
    "L.chain_matmul(L.ones(2, 2), L.ones(2, 2))",
    "L.ones(3, 2).index_reduce(0, L.tensor([0]), L.ones(1, 2), 'amax')",
])
def test_warned_once_as_torch(call):
    def run(lib):
        code = _FIRST_WARNING.format(lib=lib, call=call)
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout
    assert run("dyngrad") == run("torch")


def _warned(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(lib)
    return [str(w.message) for w in caught], tuple(result.shape), result.requires_grad, \
        result.grad_fn.name() if result.grad_fn else None


@pytest.mark.parametrize("case", [
    lambda L: L.isin(2, L.tensor([1, 2]), out=L.empty((), dtype=L.bool)),
    lambda L: L.isin(2, L.tensor([1, 2]), out=L.empty(3, dtype=L.bool)),
    lambda L: L.isin(2, L.tensor([1, 2]), out=L.empty(0, dtype=L.bool)),
    lambda L: L.inner(L.ones(2, 3, requires_grad=True), L.ones(4, 3), out=L.empty(5)),
    lambda L: L.chain_matmul(L.ones(2, 3, requires_grad=True), out=L.empty(0)),
])
def test_out_warnings_and_graph_like_torch(case):
    assert _warned(case, dyngrad) == _warned(case, torch)


# -- gradients ---------------------------------------------------------------------------------
def _grads(fn, arrays):
    """(result, gradients) of sum(fn(*leaves)) on each library."""
    out = {}
    for lib in LIBS:
        leaves = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
        r = fn(lib, *leaves)
        (r.abs() if r.is_complex() else r).sum().backward()
        out[lib] = (r, [leaf.grad for leaf in leaves])
    return out


def test_renorm_complex_gradient():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    got = _grads(lambda L, x: L.renorm(x, 2, 0, 1.0), [a])
    ours, theirs = got[dyngrad], got[torch]
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == "RenormBackward0"
    np.testing.assert_allclose(ours[1][0]._data, theirs[1][0].numpy(), rtol=1e-10)


def test_cumulative_trapezoid_gradient_of_x():
    rng = np.random.default_rng(1)
    got = _grads(lambda L, y, x: L.cumulative_trapezoid(y, x, dim=0) * 1.5,
                 [rng.standard_normal((4, 3)), rng.standard_normal((4, 1))])
    for o, t in zip(got[dyngrad][1], got[torch][1]):
        np.testing.assert_allclose(o._data, t.numpy(), rtol=1e-10)


def test_vander_backward_fails_as_torch():
    """ATen's vander overwrites the input cumprod saved: backward raises (both libraries)."""
    errors = []
    for lib in LIBS:
        x = _t(lib, [1.0, 2.0, 3.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            lib.vander(x).sum().backward()
        errors.append(str(info.value).splitlines()[0])
    assert errors[0] == errors[1]


def test_index_reduce_prod_double_backward_error():
    """Two zero source factors on one slice: the gradient is right, its derivative raises."""
    messages, grads = [], []
    for lib in LIBS:
        x = _t(lib, [[2.0, 3.0], [4.0, 5.0]], requires_grad=True)
        s = _t(lib, [[0.0, 1.0], [0.0, 2.0]], requires_grad=True)
        r = x.index_reduce(0, lib.tensor([1, 1]), s, "prod")
        (g,) = lib.autograd.grad(r.sum(), s, create_graph=True)
        grads.append(np.array(g.detach().numpy() if lib is torch else g._data))
        with pytest.raises(RuntimeError) as info:
            g.sum().backward()
        messages.append(str(info.value))
    np.testing.assert_array_equal(grads[0], grads[1])
    assert messages[0] == messages[1]


# -- saved attributes --------------------------------------------------------------------------
def test_saved_attributes():
    nodes = {}
    for lib in LIBS:
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        nodes[lib] = (x.narrow_copy(1, 1, 2).grad_fn, x.renorm(2, 0, 1.5).grad_fn,
                      x.index_reduce(0, lib.tensor([2]), lib.ones(1, 4, dtype=lib.float64),
                                     "mean", include_self=False).grad_fn)
    (nc, rn, ir), (tnc, trn, tir) = nodes[dyngrad], nodes[torch]
    for a in ("dim", "start", "length", "self_sym_sizes"):
        assert tuple(np.atleast_1d(getattr(nc, "_saved_" + a))) == \
            tuple(np.atleast_1d(getattr(tnc, "_saved_" + a))), a
    for a in ("p", "dim", "maxnorm"):
        assert getattr(rn, "_saved_" + a) == getattr(trn, "_saved_" + a), a
    for a in ("dim", "reduce", "include_self"):
        assert getattr(ir, "_saved_" + a) == getattr(tir, "_saved_" + a), a
    np.testing.assert_array_equal(ir._saved_result._data, tir._saved_result.detach().numpy())
