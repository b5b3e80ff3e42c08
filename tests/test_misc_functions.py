"""Assorted top-level functions against live torch: the ``sym_*`` helpers, ``cond`` and
``while_loop``, ``empty_permuted``, ``conj_physical_``, ``native_norm``, ``init_num_threads``,
``get_device_module``, ``to_dlpack``, the SyncBatchNorm statistics helpers and
``slice_inverse``: values, dtypes, strides, grad_fn names, gradients and error messages.

Each check runs one lambda on both libraries (``lib`` is torch or dyngrad) and compares what
came out, or the exception type and message. torch's long messages (the dispatcher's list of
registrations, torch.compile's debug context) are compared up to where dyngrad's stop: dyngrad's
text must be a prefix of torch's, and cover the informative part.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

import dyngrad
from compare import torch_part


# -- helpers --------------------------------------------------------------------------------------
def _describe(value):
    """A comparable description of a result: tensors by dtype, shape, strides, values and
    grad_fn name; modules by their name under the library; numbers by type and repr."""
    if isinstance(value, (torch.Tensor, dyngrad.Tensor)):
        data = value.detach()
        arr = data.numpy() if isinstance(data, torch.Tensor) else np.array(data._data)
        return ("tensor", str(value.dtype), tuple(value.shape), value.stride(),
                arr.tolist(), value.requires_grad,
                None if value.grad_fn is None else type(value.grad_fn).__name__)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(_describe(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _describe(v)) for k, v in value.items())
    if type(value).__name__ == "module":
        return ("module", value.__name__.split(".", 1)[1])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, repr(value))


def _same(got, expected, rtol=1.3e-6, atol=1e-7):
    """Equal descriptions; tensor values within the tolerances (NaNs equal), the rest exactly
    (float32 transcendental functions may differ in the last bit between NumPy and torch)."""
    if isinstance(expected, tuple) and expected and expected[0] == "tensor":
        assert isinstance(got, tuple) and got[:4] == expected[:4] and got[5:] == expected[5:], \
            (got, expected)
        a, b = np.array(got[4]), np.array(expected[4])
        if b.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert a.tolist() == b.tolist(), (got, expected)
    elif isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected):
            _same(g, e, rtol, atol)
    else:
        assert got == expected, (got, expected)


def _run(fn, lib):
    try:
        return _describe(fn(lib)), None
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return None, e


def _mask(text: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def check(fn, *, prefix=False):
    """``fn(torch)`` and ``fn(dyngrad)`` agree: equal results, or the same exception type and
    message (with ``prefix``: dyngrad's message starts torch's, addresses masked, and is not
    cut before torch's first blank line or debug context)."""
    expected, texc = _run(fn, torch)
    got, exc = _run(fn, dyngrad)
    if texc is None:
        if exc is not None:
            raise AssertionError(f"torch returned {expected}, dyngrad raised {exc!r}") from exc
        _same(got, expected)
        return
    assert exc is not None, f"torch raised {texc!r}, dyngrad returned {got}"
    assert type(exc).__name__ == type(texc).__name__, (exc, texc)
    ours, theirs = torch_part(str(exc)), _mask(str(texc))
    if prefix:
        assert theirs.startswith(ours), f"\n{ours!r}\nis not a prefix of\n{theirs!r}"
        # what dyngrad leaves out is only torch's trailer
        rest = theirs[len(ours):]
        assert rest == "" or rest.startswith(("\n\n", "\nMeta:", "  Developer debug context",
                                              "\nfrom user code", "\n  Developer")), repr(rest)
    else:
        assert ours == theirs


def _seeded(lib, shape, seed=0, dtype="float64", requires_grad=False):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return lib.tensor(arr, requires_grad=requires_grad)


def _edges(t):
    """grad_fn's next_functions as class names (None for an empty edge)."""
    return [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]


# -- sym_* ----------------------------------------------------------------------------------------
_SYM_VALUES = [3, 2.7, -2.7, True, False, 0, "a", None, 1 + 2j, 4, float("nan"),
               np.int64(5), np.float32(2.5)]


@pytest.mark.parametrize("name", ["sym_float", "sym_int", "sym_not", "sym_sqrt"])
@pytest.mark.parametrize("value", _SYM_VALUES, ids=repr)
def test_sym_unary_on_python_values(name, value):
    check(lambda L: getattr(L, name)(value))


@pytest.mark.parametrize("name", ["sym_float", "sym_int", "sym_not", "sym_sqrt"])
@pytest.mark.parametrize("make", [lambda L: L.tensor(2.5), lambda L: L.tensor(3),
                                  lambda L: L.tensor([4.0]), lambda L: L.tensor([1.0, 4.0]),
                                  lambda L: L.tensor(-1.0), lambda L: L.tensor(True)],
                         ids=["f0d", "i0d", "f1el", "f2el", "neg", "bool"])
def test_sym_unary_on_tensors(name, make):
    check(lambda L: getattr(L, name)(make(L)))


_PAIRS = [(1, 2), (2.5, 1), (1, 2.5), (True, 2), (3, 3.0), (3.0, 3), (True, False),
          (float("nan"), 1), (1, float("nan")), (-0.0, 0.0), (0.0, -0.0), (np.int64(3), 2.5),
          (np.int64(3), np.int64(2)), (np.float32(1.5), 3), ("a", "b"), (1, None)]


@pytest.mark.parametrize("name", ["sym_max", "sym_min"])
@pytest.mark.parametrize("a,b", _PAIRS, ids=repr)
def test_sym_max_min(name, a, b):
    check(lambda L: getattr(L, name)(a, b))


@pytest.mark.parametrize("name", ["sym_max", "sym_min"])
def test_sym_max_min_refuse_tensors(name):
    check(lambda L: getattr(L, name)(L.tensor(2.5), 1.0))
    check(lambda L: getattr(L, name)(1, L.tensor([1.0, 4.0])))


@pytest.mark.parametrize("args", [(True, 1, 2), (False, 1, 2), (1, 1, 2), (0, "a", "b"),
                                  (None, 1, 2), (True, 1, 2.0), (False, "a", "b")], ids=repr)
def test_sym_ite(args):
    check(lambda L: L.sym_ite(*args))


def test_sym_ite_with_tensors():
    check(lambda L: L.sym_ite(True, L.tensor(2.5), L.tensor([1.0, 4.0])))
    check(lambda L: L.sym_ite(False, L.tensor(2.5), L.tensor([1.0, 4.0])))
    check(lambda L: L.sym_ite(L.tensor(True), 1, 2))
    check(lambda L: L.sym_ite(True, L.ones(1), 1))


@pytest.mark.parametrize("fn", [lambda L: L.sym_sum([1, 2, 3]), lambda L: L.sym_sum([1, 2.5]),
                                lambda L: L.sym_sum([]), lambda L: L.sym_sum((1, 2)),
                                lambda L: L.sym_sum([True, True]), lambda L: L.sym_sum(1, 2, 3),
                                lambda L: L.sym_sum(), lambda L: L.sym_sum(5),
                                lambda L: L.sym_sum(["a", "b"]),
                                lambda L: L.sym_sum(i for i in range(3)),
                                lambda L: L.sym_sum([L.tensor(2.5), L.tensor([1.0, 4.0])]),
                                lambda L: L.sym_sum([L.tensor([1.0, 4.0])])])
def test_sym_sum(fn):
    check(fn)


# -- cond -----------------------------------------------------------------------------------------
def _x(L, requires_grad=True):
    return L.tensor([1.0, 2.0, 3.0], requires_grad=requires_grad)


@pytest.mark.parametrize("pred", [True, False, 0, 1, 0.5, 0.0])
def test_cond_python_pred_is_an_if(pred):
    # torch runs the branch directly: its own grad_fn, no argument checks
    check(lambda L: L.cond(pred, lambda a: a.sin(), lambda a: a.cos(), (_x(L),)))
    check(lambda L: L.cond(pred, lambda: 1, lambda: 2))
    check(lambda L: L.cond(pred, 1, 2, ()))
    check(lambda L: L.cond(pred, lambda a: a, lambda a: a, _x(L)))


@pytest.mark.parametrize("pred", [lambda L: L.tensor(True), lambda L: L.tensor(False),
                                  lambda L: L.tensor(0), lambda L: L.tensor(1.5),
                                  lambda L: L.tensor([[True]])],
                         ids=["true", "false", "int0", "float", "2d"])
def test_cond_tensor_pred(pred):
    check(lambda L: L.cond(pred(L), lambda a: a.sin(), lambda a: a.cos(), (_x(L),)))
    check(lambda L: L.cond(pred(L), lambda a: a.sin(), lambda a: a.cos(),
                           (_x(L, False),)))


@pytest.mark.parametrize("fn", [
    lambda L, p, x, y: L.cond(p, lambda a, b: a * b, lambda a, b: a - b, [x, y]),
    lambda L, p, x, y: L.cond(p, lambda t: t[0] * t[1], lambda t: t[0] - t[1], [(x, y)]),
    lambda L, p, x, y: L.cond(p, lambda d: d["a"] + 1, lambda d: d["a"] - 1, ({"a": x},)),
    lambda L, p, x, y: L.cond(p, lambda a, b: (a + b, a * 2), lambda a, b: (a - b, a / 2),
                              (x, y)),
    lambda L, p, x, y: L.cond(p, lambda a, b: [a.exp() * b], lambda a, b: [a.log() + b],
                              (x, y)),
    lambda L, p, x, y: L.cond(p, lambda a, b: (1, a * b), lambda a, b: (2, a + b), (x, y)),
    lambda L, p, x, y: L.cond(p, lambda a, b: 1, lambda a, b: 2, (x, y)),
    lambda L, p, x, y: L.cond(p, lambda a, b: (a.long() + 1, a * b),
                              lambda a, b: (a.long(), a * 3 + b), (x, y)),
    lambda L, p, x, y: L.cond(p, lambda: y + 1, lambda: y - 1),
])
@pytest.mark.parametrize("value", [True, False])
def test_cond_structures_and_graph(fn, value):
    def run(L):
        return fn(L, L.tensor(value), _x(L), L.tensor([2.0, 2.0, 5.0]))
    check(run)

    def edges(L):
        leaves = [t for t in _flat(run(L)) if isinstance(t, (torch.Tensor, dyngrad.Tensor))
                  and t.grad_fn is not None]
        return [_edges(t) for t in leaves]
    assert edges(dyngrad) == edges(torch)


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _flat(item)]
    if isinstance(value, dict):
        return [v for item in value.values() for v in _flat(item)]
    return [value]


def _cond_grads(L, value):
    x = _x(L)
    w = L.tensor([2.0, -1.0, 0.5], requires_grad=True)
    h = w * 3   # a non-leaf captured by the branches
    out = L.cond(L.tensor(value), lambda a: (a * a * h, a.sin() * w),
                 lambda a: (a.exp() + h, a * w), (x,))
    (out[0].sum() + (out[1] * L.tensor([1.0, 2.0, 3.0])).sum()).backward()
    return x.grad, w.grad, sorted(map(str, _edges(out[0])))


@pytest.mark.parametrize("value", [True, False])
def test_cond_gradients_reach_operands_and_captured_tensors(value):
    check(lambda L: _cond_grads(L, value))


def test_cond_gradients_have_no_history():
    def run(L):
        x = _x(L)
        r = L.cond(L.tensor(True), lambda a: a ** 3, lambda a: a.clone(), (x,))
        (g,) = L.autograd.grad(r.sum(), x, create_graph=True)
        return g
    check(run)

    def double(L):
        g = run(L)
        g.sum().backward()
    check(double)


def test_cond_second_backward_and_retain_graph():
    def twice(L, retain):
        x = _x(L)
        r = L.cond(L.tensor(True), lambda a: a ** 3, lambda a: a.clone(), (x,))
        r.sum().backward(retain_graph=retain)
        r.sum().backward()
        return x.grad
    check(lambda L: twice(L, True))
    check(lambda L: twice(L, False))


def test_cond_operand_changed_in_place_before_backward():
    def run(L):
        x = _x(L)
        y = x * 1
        r = L.cond(L.tensor(True), lambda a: a.exp(), lambda a: a.clone(), (y,))
        with L.no_grad():
            y.add_(1)
        r.sum().backward()
        return x.grad
    check(run)


def test_cond_without_grad():
    def run(L):
        with L.no_grad():
            return L.cond(L.tensor(True), lambda a: a.sin(), lambda a: a.cos(), (_x(L),))
    check(run)


@pytest.mark.parametrize("fn", [
    lambda L: L.cond(L.tensor([True, False]), lambda a: a, lambda a: a, (_x(L),)),
    lambda L: L.cond(L.tensor([]), lambda a: a, lambda a: a, (_x(L),)),
    lambda L: L.cond(None, lambda a: a, lambda a: a, (_x(L),)),
    lambda L: L.cond("a", lambda a: a, lambda a: a, (_x(L),)),
    lambda L: L.cond(np.bool_(True), lambda a: a, lambda a: a, (_x(L),)),
    lambda L: L.cond(L.tensor(True), 1, lambda a: a, (_x(L),)),
    lambda L: L.cond(L.tensor(True), lambda a: a, lambda a: a, (1,)),
    lambda L: L.cond(L.tensor(True), lambda a: a, lambda a: a, (None,)),
    lambda L: L.cond(L.tensor(True), lambda a: a, lambda a: a, _x(L)),
])
def test_cond_argument_errors(fn):
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda L: L.cond(L.tensor(True), lambda a: a, lambda a: a.clone(), (_x(L, False),)),
    lambda L: L.cond(L.tensor(True), lambda a: a[:2], lambda a: a[:2].clone(), (_x(L),)),
    lambda L: L.cond(L.tensor(True), lambda a: 1.5, lambda a: 2.5, (_x(L),)),
    lambda L: L.cond(L.tensor(True), lambda: _x(L) + 1, lambda: _x(L), (_x(L),)),
])
def test_cond_tracing_errors(fn):
    check(fn, prefix=True)


# -- while_loop -----------------------------------------------------------------------------------
# int carries: torch refuses them beside a carry that requires grad (see control_flow.py)
_INT_CARRIES = [
    lambda L, x: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2), (0, x)),
    lambda L, x: L.while_loop(lambda b, a: b, lambda b, a: (False, a * 2), (True, x)),
]


@pytest.mark.parametrize("fn", _INT_CARRIES)
def test_while_loop_int_carries(fn):
    check(lambda L: fn(L, _x(L, False)))


@pytest.mark.parametrize("fn", [
    lambda L, x: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2),
                              (L.tensor(0), x)),
    lambda L, x: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2),
                              [L.tensor(0), x]),
    lambda L, x: L.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a * 2],
                              (L.tensor(0), x)),
    lambda L, x: L.while_loop(lambda a: a.sum() < 20, lambda a: (a * 2,), (x,)),
    lambda L, x: L.while_loop(lambda a: a.sum() < 20, lambda a: a * 2, (x,)),
    lambda L, x: L.while_loop(lambda i, a: bool(i < 3), lambda i, a: (i + 1, a * 2),
                              (L.tensor(0), x)),
    lambda L, x: L.while_loop(lambda d: d["i"] < 3, lambda d: {"i": d["i"] + 1},
                              ({"i": L.tensor(0)},)),
    lambda L, x: L.while_loop(lambda i, a: None, lambda i, a: (i + 1, a * 2),
                              (L.tensor(0), x)),
    lambda L, x: L.while_loop(lambda: False, lambda: (), ()),
    # zero iterations: the carries come back as new tensors
    lambda L, x: L.while_loop(lambda i, a: i < 0, lambda i, a: (i + 1, a * 2),
                              (L.tensor(0), x)),
    lambda L, x: L.while_loop(lambda i, a: i < 0, lambda i, a: (i + 1, a * 2),
                              [L.tensor(0), x]),
])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_while_loop(fn, requires_grad):
    check(lambda L: fn(L, _x(L, requires_grad)))


def test_while_loop_results_are_new_tensors():
    for L in (torch, dyngrad):
        x, i0 = _x(L, False), L.tensor(0)
        i, y = L.while_loop(lambda i, a: i < 0, lambda i, a: (i + 1, a * 2), (i0, x))
        assert y is not x and y.data_ptr() != x.data_ptr()
        # a condition that is a Python constant: the carries come back themselves
        for falsy in (False, None, 0):
            i, y = L.while_loop(lambda i, a: falsy, lambda i, a: (i + 1, a * 2), [i0, x])
            assert y is x and i is i0


def _while_grads(L):
    x = _x(L)
    w = L.tensor(2.0, requires_grad=True)
    i, y = L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w), (L.tensor(0), x))
    (y * L.tensor([1.0, -1.0, 2.0])).sum().backward()
    return i, y.detach(), x.grad, w.grad, _edges(y), y.grad_fn.name()


def test_while_loop_gradients():
    check(_while_grads)


def test_while_loop_without_grad():
    def run(L):
        with L.no_grad():
            return L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2),
                                (L.tensor(0), _x(L)))
    check(run)


@pytest.mark.parametrize("fn", [
    lambda L: L.while_loop(1, lambda a: a, (_x(L),)),
    lambda L: L.while_loop(lambda a, b: b < 3, lambda a, b: (a, b + 1), (1.5, _x(L))),
    lambda L: L.while_loop(lambda a: True, lambda a: a, (None,)),
])
def test_while_loop_argument_errors(fn):
    check(fn)


_I0 = (lambda L: L.tensor(0))


@pytest.mark.parametrize("fn", [
    lambda L: L.while_loop(lambda i, a: a < 3, lambda i, a: (i + 1, a * 2), (_I0(L), _x(L))),
    lambda L: L.while_loop(lambda i, a: (i < 3).float(), lambda i, a: (i + 1, a * 2),
                           (_I0(L), _x(L))),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a.sum()),
                           (_I0(L), _x(L, False))),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a.double()),
                           (_I0(L), _x(L, False))),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1,), (_I0(L), _x(L, False))),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (1, a * 2), (_I0(L), _x(L, False))),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a), (_I0(L), _x(L, False))),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (1.5, a * 2),
                           (_I0(L), _x(L, False))),
    lambda L: L.while_loop(lambda i, a: 1, lambda i, a: (i + 1, a * 2), (_I0(L), _x(L))),
    lambda L: L.while_loop(lambda a: a.sum() < 10, lambda a: a * 2, _x(L, False)),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2),
                           (L.tensor([0]), _x(L))),
])
def test_while_loop_tracing_errors(fn):
    check(fn, prefix=True)


# -- empty_permuted -------------------------------------------------------------------------------
@pytest.mark.parametrize("size,layout", [((2, 3, 5, 7), (0, 2, 3, 1)), ((2, 3), (1, 0)),
                                         ([2, 3, 4], [2, 0, 1]), ((), ()), ((2, 0, 3), (2, 1, 0)),
                                         ((4,), (0,)), ((1, 5, 1), (1, 2, 0))])
@pytest.mark.parametrize("kwargs", [{}, {"dtype": "int64"}, {"dtype": "float64"},
                                    {"requires_grad": True}, {"dtype": "bool"}])
def test_empty_permuted_layout(size, layout, kwargs):
    def run(L):
        kw = {k: getattr(L, v) if k == "dtype" else v for k, v in kwargs.items()}
        t = L.empty_permuted(size, layout, **kw)
        return str(t.dtype), tuple(t.shape), t.stride(), t.requires_grad, t.is_leaf, \
            t.storage_offset(), t.is_contiguous()
    check(run)


def test_empty_permuted_keywords():
    check(lambda L: L.empty_permuted(size=(2, 3), physical_layout=(1, 0), layout=L.strided,
                                     device="cpu", pin_memory=False).stride())
    check(lambda L: L.empty_permuted(L.Size([2, 3]), [1, 0]).stride())


@pytest.mark.parametrize("fn", [
    lambda L: L.empty_permuted((2, 3), (0, 0)), lambda L: L.empty_permuted((2, 3), (0,)),
    lambda L: L.empty_permuted((2, 3), (0, 2)), lambda L: L.empty_permuted((2, 3), (-1, 0)),
    lambda L: L.empty_permuted((2, -3), (1, 0)), lambda L: L.empty_permuted(3, (0,)),
    lambda L: L.empty_permuted((2, 3), 1), lambda L: L.empty_permuted((2., 3), (0, 1)),
    lambda L: L.empty_permuted((2, 3), (True, 0)), lambda L: L.empty_permuted((2, 3, 4), (0, 0, 5)),
    lambda L: L.empty_permuted((2, 3), (1, 0), L.float64), lambda L: L.empty_permuted(),
    lambda L: L.empty_permuted((2, 3)), lambda L: L.empty_permuted(physical_layout=(0,)),
    lambda L: L.empty_permuted((2, 3), (1, 0), out=L.empty(2)),
    lambda L: L.empty_permuted((2, 3), (1, 0), dtype=3),
    lambda L: L.empty_permuted((2, 3), (1, 0), dtype=L.long, requires_grad=True),
])
def test_empty_permuted_errors(fn):
    check(fn)


# -- conj_physical_ -------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda L: L.tensor([1 + 2j, 3 - 4j]),
                                  lambda L: L.tensor([1.0, 2.0]), lambda L: L.tensor([1, 2]),
                                  lambda L: L.tensor([True]),
                                  lambda L: L.tensor([[1 + 2j, 2j], [3, -1j]]).t()],
                         ids=["complex", "float", "int", "bool", "transposed"])
def test_conj_physical_(make):
    def run(L):
        t = make(L)
        r = L.conj_physical_(t)
        return r is t, r, t._version
    check(run)
    check(lambda L: L.conj_physical_(input=make(L)))


def test_conj_physical_autograd():
    def nonleaf(L, dtype):
        x = L.tensor([1 + 2j, 2j] if dtype == "complex" else [1.0, 2.0], requires_grad=True)
        y = x * 2
        r = L.conj_physical_(y)
        g = r.real.sum() if dtype == "complex" else r.sum()
        (gx,) = L.autograd.grad(g, x)
        return r, gx
    check(lambda L: nonleaf(L, "complex"))
    check(lambda L: nonleaf(L, "float"))
    check(lambda L: L.conj_physical_(L.tensor([1 + 2j], requires_grad=True)))


@pytest.mark.parametrize("fn", [lambda L: L.conj_physical_(self=L.ones(1)),
                                lambda L: L.conj_physical_(),
                                lambda L: L.conj_physical_(L.ones(1), L.ones(1)),
                                lambda L: L.conj_physical_(None),
                                lambda L: L.conj_physical_([1]),
                                lambda L: L.conj_physical_(L.ones(1), out=L.ones(1))])
def test_conj_physical_errors(fn):
    check(fn)


# -- native_norm: sparse-only in torch ------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda L, x: L.native_norm(x), lambda L, x: L.native_norm(x, 3),
    lambda L, x: L.native_norm(x, p=1), lambda L, x: L.native_norm(input=x),
    lambda L, x: L.native_norm(x, 2, [0], True, L.float64),
    lambda L, x: L.native_norm(x, None, [0], False, None),
    lambda L, x: L.native_norm(x, 2, 0, False, None),
    lambda L, x: L.native_norm(x, p=2, dim=[0], keepdim=True, dtype=None),
    lambda L, x: L.native_norm(L.tensor([1, 2])),
    lambda L, x: L.native_norm(x, 2, [1], False), lambda L, x: L.native_norm(),
    lambda L, x: L.native_norm([1.0]), lambda L, x: L.native_norm(x, "fro"),
    lambda L, x: L.native_norm(x, None), lambda L, x: L.native_norm(x, 2, [0]),
    lambda L, x: L.native_norm(x, 2, [0], True, None, 1), lambda L, x: L.native_norm(x, dim=[0]),
])
def test_native_norm(fn):
    check(lambda L: fn(L, L.ones(2, 3, requires_grad=True)), prefix=True)


# -- init_num_threads, get_device_module ----------------------------------------------------------
@pytest.mark.parametrize("fn", [lambda L: L.init_num_threads(), lambda L: L.init_num_threads(1),
                                lambda L: L.init_num_threads(1, "a", a=1, b=2),
                                lambda L: L.init_num_threads(a=1)])
def test_init_num_threads(fn):
    check(fn)


def test_init_num_threads_keeps_the_thread_count():
    for L in (torch, dyngrad):
        n = L.get_num_threads()
        L.init_num_threads()
        assert L.get_num_threads() == n


@pytest.mark.parametrize("device", [None, "cpu", "cuda", "cuda:0", "meta", "foo", 0,
                                    "device-cpu"])
def test_get_device_module(device):
    def run(L):
        d = L.device("cpu") if device == "device-cpu" else device
        return L.get_device_module(d)
    check(run)


def test_cpu_module():
    for name in ("is_available", "is_initialized", "device_count", "current_device"):
        check(lambda L: getattr(L.get_device_module("cpu"), name)())
    check(lambda L: L.cpu.synchronize())
    check(lambda L: L.cpu.set_device("cpu"))


# -- to_dlpack ------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda L: L.arange(6.0).reshape(2, 3).t(),
                                  lambda L: L.ones(3, requires_grad=True),
                                  lambda L: L.tensor([1, 2, 3], dtype=L.int32)[::2],
                                  lambda L: L.tensor([1 + 1j, 2j]), lambda L: L.tensor(5.0)],
                         ids=["transposed", "requires_grad", "sliced", "complex", "0-dim"])
def test_to_dlpack_round_trip(make):
    def run(L):
        x = make(L)
        cap = L.to_dlpack(x)
        y = L.from_dlpack(cap)
        return type(cap).__name__, y, y.data_ptr() == x.data_ptr()
    check(run)
    check(lambda L: L.from_dlpack(L.to_dlpack(data=make(L))))


def test_to_dlpack_capsule_is_read_once_and_is_the_utils_function():
    check(lambda L: [L.to_dlpack(L.ones(2)) for _ in range(1)][0].__class__.__name__)
    for L in (torch, dyngrad):
        assert L.to_dlpack is L.utils.dlpack.to_dlpack
    check(lambda L: (lambda c: (L.from_dlpack(c), L.from_dlpack(c)))(L.to_dlpack(L.ones(2))))


@pytest.mark.parametrize("fn", [lambda L: L.to_dlpack([1]), lambda L: L.to_dlpack(tensor=L.ones(1)),
                                lambda L: L.to_dlpack(), lambda L: L.to_dlpack(L.ones(2), 1),
                                lambda L: L.to_dlpack(1, tensor=2)])
def test_to_dlpack_errors(fn):
    check(fn)


# -- the SyncBatchNorm helpers --------------------------------------------------------------------
def _bn_args(L):
    x = _seeded(L, (4, 3), 0, "float32")
    m, v = _seeded(L, (3,), 1, "float32"), _seeded(L, (3,), 2, "float32").abs() + 0.5
    return x, m, v


_CUDA_ONLY = [
    lambda L, x, m, v: L.batch_norm_stats(x, 1e-5),
    lambda L, x, m, v: L.batch_norm_stats(x.double(), 1e-5),
    lambda L, x, m, v: L.batch_norm_elemt(x, m, m, m, v, 1e-5),
    lambda L, x, m, v: L.batch_norm_elemt(x, None, None, m, v, 1e-5),
    lambda L, x, m, v: L.batch_norm_elemt(x, m, m, m, v, 1e-5, out=L.empty(4, 3)),
    lambda L, x, m, v: L.batch_norm_gather_stats(x, m[None], v[None], None, None, 0.1, 1e-5, 4),
    lambda L, x, m, v: L.batch_norm_gather_stats(x, m[None], v[None], m, v, 0.1, 1e-5, 4),
    lambda L, x, m, v: L.batch_norm_gather_stats_with_counts(x, m[None], v[None], None, None,
                                                             0.1, 1e-5, L.tensor([4.0])),
    lambda L, x, m, v: L.batch_norm_backward_reduce(x, x, m, v, m, True, True, True),
    lambda L, x, m, v: L.batch_norm_backward_reduce(x, x, m, v, None, True, False, False),
    lambda L, x, m, v: L.batch_norm_backward_elemt(x, x, m, v, m, m, m,
                                                   L.tensor([4], dtype=L.int32)),
    # torch's argument checks come first
    lambda L, x, m, v: L.batch_norm_stats([1], 1e-5),
    lambda L, x, m, v: L.batch_norm_stats(x),
    lambda L, x, m, v: L.batch_norm_stats(x, eps="a"),
    lambda L, x, m, v: L.batch_norm_stats(x, 1e-5, 1),
    lambda L, x, m, v: L.batch_norm_elemt(x, m, m, m, [1], 1e-5),
    lambda L, x, m, v: L.batch_norm_gather_stats(x, m, v, None, None, 0.1, 1e-5, 2.5),
    lambda L, x, m, v: L.batch_norm_gather_stats(x, m, v, None, None, momentum=0.1, count=3),
    lambda L, x, m, v: L.batch_norm_backward_reduce(x, x, m, v, m, 1, True, True),
]


@pytest.mark.parametrize("fn", _CUDA_ONLY)
def test_batch_norm_cuda_only_helpers(fn):
    check(lambda L: fn(L, *_bn_args(L)), prefix=True)


def _update(L, shape, momentum, dtypes=("float64", "float64", "float64"), running=(True, True),
            seed=0):
    x = _seeded(L, shape, seed, dtypes[0]) * 2 + 1
    c = shape[1]
    rm = _seeded(L, (c,), seed + 1, dtypes[1]) if running[0] else None
    rv = _seeded(L, (c,), seed + 2, dtypes[2]).abs() if running[1] else None
    mean, var = L.batch_norm_update_stats(x, rm, rv, momentum)
    versions = tuple(t._version for t in (rm, rv) if t is not None)
    return mean, var, rm, rv, versions


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 4, 5), (1, 3), (5, 1, 2)])
@pytest.mark.parametrize("momentum", [0.1, 0.5, 1, 0.0])
@pytest.mark.parametrize("running", [(True, True), (True, False), (False, True)])
def test_batch_norm_update_stats_running_statistics(shape, momentum, running):
    _close(lambda L: _update(L, shape, momentum, running=running))


def _close(fn, rtol=1e-12, atol=1e-12):
    """Like check, for calls that succeed on both, with the tolerances given."""
    expected, texc = _run(fn, torch)
    got, exc = _run(fn, dyngrad)
    assert texc is None and exc is None, (texc, exc)
    _same(got, expected, rtol, atol)


@pytest.mark.parametrize("dtypes", [(i, m, v) for i in ("float16", "float32", "float64")
                                    for m in ("float16", "float32", "float64", None)
                                    for v in ("float16", "float32", "float64", None)])
def test_batch_norm_update_stats_dtypes(dtypes):
    def run(L):
        x = _seeded(L, (4, 3), 0, dtypes[0])
        rm = None if dtypes[1] is None else L.zeros(3, dtype=getattr(L, dtypes[1]))
        rv = None if dtypes[2] is None else L.ones(3, dtype=getattr(L, dtypes[2]))
        mean, var = L.batch_norm_update_stats(x, rm, rv, 0.1)
        return str(mean.dtype), str(var.dtype), [str(t.dtype) for t in (rm, rv) if t is not None]
    check(run)


def test_batch_norm_update_stats_half_values():
    _close(lambda L: _update(L, (4, 3), 0.1, ("float16", "float32", "float32")), 2e-3, 2e-3)
    _close(lambda L: _update(L, (4, 3), 0.1, ("float16", "float16", "float16")), 2e-3, 2e-3)


@pytest.mark.parametrize("fn", [
    lambda L: L.batch_norm_update_stats(L.ones(6, 3, dtype=L.long), L.zeros(3), L.ones(3), 0.5),
    lambda L: L.batch_norm_update_stats(L.ones(4, 3, dtype=L.bool), None, None, 0.1),
    lambda L: L.batch_norm_update_stats(L.ones(4, 3, dtype=L.complex64), None, None, 0.1),
    lambda L: L.batch_norm_update_stats(L.tensor(1.0), None, None, 0.1),
    lambda L: L.batch_norm_update_stats(L.tensor(1.0), L.zeros(3).half(), None, 0.1),
    lambda L: L.batch_norm_update_stats(L.ones(3), None, None, 0.1),
    lambda L: L.batch_norm_update_stats(L.ones(0, 3), None, None, 0.1),
    lambda L: L.batch_norm_update_stats(L.ones(4, 3, 0), None, None, 0.1),
    lambda L: L.batch_norm_update_stats(L.ones(4, 3), None, None, None),
    lambda L: L.batch_norm_update_stats(L.ones(4, 3), None, None),
    lambda L: L.batch_norm_update_stats([1], None, None, 0.1),
    lambda L: L.batch_norm_update_stats(L.ones(4, 3), [1], None, 0.1),
    lambda L: L.batch_norm_update_stats(input=L.ones(4, 3), running_mean=None,
                                        running_var=None, momentum=0.5),
    lambda L: L.batch_norm_update_stats(L.ones(4, 3), None, None, 1),
])
def test_batch_norm_update_stats_errors_and_arguments(fn):
    check(fn)


def test_batch_norm_update_stats_autograd():
    def run(L, which):
        x = _seeded(L, (4, 3), 0, requires_grad=which == "input")
        rm = _seeded(L, (3,), 1, requires_grad=which == "running_mean")
        mean, var = L.batch_norm_update_stats(x, rm, None, 0.1)
        return mean, var, _edges(mean) if mean.grad_fn is not None else None, rm._version
    for which in ("input", "running_mean", None):
        _close(lambda L: run(L, which))

    def backward(L):
        x = _seeded(L, (4, 3), 0, requires_grad=True)
        L.batch_norm_update_stats(x, None, None, 0.1)[0].sum().backward()
    check(backward)

    def no_grad(L):
        with L.no_grad():
            return L.batch_norm_update_stats(_seeded(L, (4, 3), 0, requires_grad=True), None,
                                             None, 0.1)
    _close(no_grad)


# -- slice_inverse --------------------------------------------------------------------------------
def _slice_case(L, requires=("input",)):
    base = L.arange(20.0, dtype=L.float64).reshape(4, 5) * 1.5
    inp = base[:, 1:4].detach()
    src = L.zeros(4, 5, dtype=L.float64)
    if "input" in requires:
        inp.requires_grad_(True)
    if "src" in requires:
        src.requires_grad_(True)
    return base, inp, src


@pytest.mark.parametrize("requires", [(), ("input",), ("src",), ("input", "src")])
def test_slice_inverse_view_and_gradients(requires):
    def run(L):
        base, inp, src = _slice_case(L, requires)
        out = L.slice_inverse(inp, src, 1, 1, 4, 1)
        info = (out, out._base is not None, out.storage_offset(),
                None if out.grad_fn is None else (_edges(out), out.grad_fn._saved_dim,
                                                  out.grad_fn._saved_start,
                                                  out.grad_fn._saved_end,
                                                  out.grad_fn._saved_step))
        if out.requires_grad:
            g = L.arange(20.0, dtype=L.float64).reshape(4, 5)
            leaves = [t for t in (inp, src) if t.requires_grad]
            info += L.autograd.grad(out, leaves, g)
        return info
    check(run)


def test_slice_inverse_shares_memory():
    def run(L):
        base = L.arange(10.0)
        x = base[2:8:2]
        out = L.slice_inverse(x, base, 0, 2, 8, 2)
        out[0] = -1.0
        return out._base is base, base, out, x._version
    check(run)
    check(lambda L: L.arange(20.0)[2:8:2].slice_inverse(L.zeros(4, 5)[1:, 1:], 0, 0, 1, 1))


@pytest.mark.parametrize("fn", [
    lambda L: L.slice_inverse(L.ones(3, 2), L.zeros(3, 5), 1, 1, 5, 2),
    lambda L: L.slice_inverse(L.zeros(0), L.zeros(3, 2), 0),
    lambda L: L.slice_inverse(L.arange(4.0), [1], 0),
    lambda L: L.slice_inverse(L.arange(4.0), L.zeros(2), True),
    lambda L: L.slice_inverse(L.arange(4.0), L.zeros(2), 0, 1.5),
    lambda L: L.slice_inverse(input=L.arange(4.0), src=L.zeros(2), dim=0),
    lambda L: L.slice_inverse(self=L.arange(4.0), src=L.zeros(2), dim=0),
    lambda L: L.slice_inverse(src=L.zeros(2)),
    lambda L: L.slice_inverse(L.arange(4.0), dim=0),
    lambda L: L.slice_inverse(L.arange(4.0), L.zeros(2), 5, 0, 1, -1),
    lambda L: L.slice_inverse(L.tensor(1.0), L.zeros(()), 0),
    lambda L: L.slice_inverse(L.zeros(4, dtype=L.complex128, requires_grad=True), L.zeros(2)),
])
def test_slice_inverse_errors_and_edge_cases(fn):
    check(fn)


def test_slice_inverse_backward_shape_errors():
    def mismatch(L, src_grad):
        base = L.arange(10.0, requires_grad=True)
        x = base[2:8:2].detach().requires_grad_()
        src = L.zeros(10, requires_grad=src_grad)
        out = L.slice_inverse(x, src, 0, None, None, 3)
        out.backward(L.arange(10.0))
    check(lambda L: mismatch(L, True))
    check(lambda L: mismatch(L, False))


@pytest.mark.parametrize("fn", [
    lambda L: L.cond(L.tensor(True), lambda a: None, lambda a: None, (_x(L),)),
    lambda L: L.cond(L.tensor(True), lambda a: (a + 1, None), lambda a: (a - 1, None),
                     (_x(L),)),
    lambda L: L.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, None), (_I0(L), _x(L))),
])
def test_none_outputs_are_refused(fn):
    check(fn, prefix=True)
