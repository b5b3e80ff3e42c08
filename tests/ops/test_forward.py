"""Forward results of every op in the database against live torch (STYLE.md §6).

For each OpInfo × dtype × sample: the function, method, in-place and ``out=`` variants run on
both libraries. Results must agree in values (dtype-appropriate tolerance, NaN positions equal),
dtype, shape and strides; out-of-place variants must leave their inputs untouched; in-place
variants return ``self``, bump ``_version`` by one, write through views into the base and leave
their other inputs untouched; ``out=`` writes into and returns ``out``. In-place-only ops
(``fill_``, ``copy_``, ``uniform_``) run only as the in-place variant. Random ops
(``check_values=False``) are checked for dtype, shape, strides and their values' support.
Where torch raises, dyngrad must raise the same exception type with the same message.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad.ops._registry import OPS
from opinfo import OP_DB
from opinfo.core import TOLERANCES

from ._grad_support import StrictXfail

CASES = [pytest.param(op, dt, id=f"{op.id}-{dt}") for op in OP_DB for dt in op.dtypes]


# -- helpers -------------------------------------------------------------------------------------
def call(fn, args, kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as e:   # noqa: BLE001  (compared with torch's exception below)
        return None, e


def assert_same_error(ours_exc, theirs_exc, where: str) -> None:
    assert ours_exc is not None, (
        f"{where}: torch raised {type(theirs_exc).__name__}({theirs_exc}) but dyngrad did not")
    assert type(ours_exc).__name__ == type(theirs_exc).__name__ and \
        str(ours_exc) == str(theirs_exc), (
            f"{where}: dyngrad raised {type(ours_exc).__name__}({ours_exc!r}), torch "
            f"{type(theirs_exc).__name__}({str(theirs_exc)!r})")


def to_numpy(t) -> np.ndarray:
    return np.array(t._data, copy=True)


def assert_same_tensor(ours, theirs, where: str, op=None) -> None:
    """Same dtype, shape, strides and values (tolerance by dtype, from `op` when given)."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), where
        for o, t in zip(ours, theirs):
            assert_same_tensor(o, t, where, op)
        return
    assert isinstance(ours, dyngrad.Tensor), f"{where}: got {type(ours).__name__}"
    assert str(ours.dtype) == str(theirs.dtype), f"{where}: dtype {ours.dtype} != {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), \
        f"{where}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
    assert ours.stride() == theirs.stride(), \
        f"{where}: stride {ours.stride()} != {theirs.stride()} (shape {tuple(theirs.shape)})"
    if op is not None and not op.check_values:
        return
    dtype_name = str(theirs.dtype).split(".")[-1]
    rtol, atol = op.tolerance(dtype_name) if op else TOLERANCES.get(dtype_name, (0.0, 0.0))
    torch.testing.assert_close(torch.from_numpy(to_numpy(ours)), theirs.detach().resolve_conj(),
                               rtol=rtol, atol=atol, equal_nan=True, check_stride=False,
                               msg=lambda m: f"{where}: {m}")


def assert_in_support(op, ours, sample, where: str) -> None:
    """A random op's values lie in the distribution's support (``op.support``)."""
    if op.check_values or op.support is None:
        return
    values = to_numpy(ours)
    assert op.support(values, sample), f"{where}: values outside the support: {values}"


def snapshot(args, kwargs):
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, dyngrad.Tensor)]
    return [(t, to_numpy(t)) for t in tensors]


def assert_unmutated(snap, where: str) -> None:
    for t, before in snap:
        assert to_numpy(t).tobytes() == before.tobytes(), f"{where}: an input was modified"


# -- the OpInfo-driven test ----------------------------------------------------------------------
@pytest.mark.parametrize("op,dtype", CASES)
def test_forward(op, dtype):
    with StrictXfail(op.xfail_reason("forward", dtype)):
        _check_op(op, dtype)


def _check_op(op, dtype):
    ours_fn, theirs_fn = op.op(dyngrad), op.op(torch)
    samples = op.sample_inputs(dtype)
    assert samples, f"{op}: no samples for {dtype}"
    succeeded = 0
    for sample in samples:
        where = f"{op.id}[{dtype}] {sample}"
        if op.inplace_only:
            succeeded += _check_inplace(op, sample, where + f" ({op.inplace})")
            continue
        # function
        args, kwargs = sample.to(dyngrad)
        targs, tkwargs = sample.to(torch)
        snap = snapshot(args, kwargs)
        expected, texc = call(theirs_fn, targs, tkwargs)
        got, exc = call(ours_fn, args, kwargs)
        if texc is not None:
            assert_same_error(exc, texc, where)
        else:
            if exc is not None:
                raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
            assert_same_tensor(got, expected, where, op)
            assert_in_support(op, got, sample, where)
            assert_unmutated(snap, where)
            succeeded += 1
        if sample.input_is_tensor and op.method:
            _check_method(op, sample, where + " (method)")
        if sample.input_is_tensor and op.inplace:
            _check_inplace(op, sample, where + f" ({op.inplace})")
        if op.supports_out and texc is None and isinstance(expected, torch.Tensor):
            _check_out(op, sample, expected, where + " (out=)")
    assert succeeded, f"{op.id}[{dtype}]: torch rejected every sample; fix the OpInfo"


def _check_method(op, sample, where):
    args, kwargs = sample.to(dyngrad)
    targs, tkwargs = sample.to(torch)
    snap = snapshot(args, kwargs)
    expected, texc = call(getattr(torch.Tensor, op.method), targs, tkwargs)
    got, exc = call(lambda *a, **k: getattr(a[0], op.method)(*a[1:], **k), args, kwargs)
    if texc is not None:
        assert_same_error(exc, texc, where)
        return
    if exc is not None:
        raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
    assert_same_tensor(got, expected, where, op)
    assert_in_support(op, got, sample, where)
    assert_unmutated(snap, where)


def _check_inplace(op, sample, where) -> bool:
    """Run the in-place variant on the sample's input; False when torch rejects the call."""
    args, kwargs = sample.to(dyngrad)
    targs, tkwargs = sample.to(torch)
    x, tx = args[0], targs[0]
    version, tversion = x._version, tx._version
    others = snapshot(args[1:], kwargs)
    base = x._base
    base_before = None if base is None else to_numpy(base)
    expected, texc = call(lambda *a, **k: getattr(tx, op.inplace)(*a, **k), targs[1:], tkwargs)
    got, exc = call(lambda *a, **k: getattr(x, op.inplace)(*a, **k), args[1:], kwargs)
    if texc is not None:
        assert_same_error(exc, texc, where)
        return False
    if exc is not None:
        raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
    assert got is x, f"{where}: the in-place variant must return self"
    assert x._version - version == tx._version - tversion == 1, \
        f"{where}: _version went {version} -> {x._version} (torch {tversion} -> {tx._version})"
    assert_same_tensor(x, tx, where, op)
    assert_in_support(op, x, sample, where)
    assert_unmutated(others, where)
    if base is not None:
        _assert_written_through(x, base, base_before, where)
        assert base._version == x._version, f"{where}: the base's version differs from the view's"
        if op.check_values:
            assert_same_tensor(base, tx._base, where + " (base)", op)
    return True


def _assert_written_through(x, base, before, where) -> None:
    """The view's elements are the base's (same memory), the rest of the base is untouched."""
    flat, before = to_numpy(base).reshape(-1), before.reshape(-1)
    index = np.full((), x.storage_offset(), dtype=np.int64)
    for n, st in zip(x.shape, x.stride()):
        index = index[..., None] + np.arange(n) * st
    np.testing.assert_array_equal(flat[index], to_numpy(x), err_msg=f"{where}: base != view")
    outside = np.ones(flat.shape, bool)
    outside[index.reshape(-1)] = False
    assert flat[outside].tobytes() == before[outside].tobytes(), \
        f"{where}: elements of the base outside the view were written"


def _check_out(op, sample, expected, where):
    args, kwargs = sample.to(dyngrad)
    targs, tkwargs = sample.to(torch)
    tout = torch.empty(0, dtype=expected.dtype)
    tresult, texc = call(op.op(torch), targs, dict(tkwargs, out=tout))
    if isinstance(texc, TypeError):
        return   # this overload has no out= in torch
    out = dyngrad.empty(0, dtype=getattr(dyngrad, str(expected.dtype).split(".")[-1]))
    got, exc = call(op.op(dyngrad), args, dict(kwargs, out=out))
    if texc is not None:
        assert_same_error(exc, texc, where)
        return
    if exc is not None:
        raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
    assert got is out, f"{where}: out= must return the out tensor"
    assert_same_tensor(out, tout, where, op)
    assert_in_support(op, out, sample, where)


# -- the database covers every primitive ---------------------------------------------------------
def test_every_registered_op_has_an_opinfo():
    """Each primitive in OPS must be reached by some OpInfo sample (a new op needs an entry)."""
    reached = set()
    originals = {}

    def recording(name, kernel):
        def wrapper(*args, **kwargs):
            reached.add(name)
            return kernel(*args, **kwargs)
        return wrapper

    for name, spec in OPS.items():
        originals[name] = spec.kernel
        spec.kernel = recording(name, spec.kernel)
    try:
        for op in OP_DB:
            fn = op.op(dyngrad)
            for dtype in op.dtypes:
                for sample in op.sample_inputs(dtype):
                    args, kwargs = sample.to(dyngrad)
                    call(fn, args, kwargs)
                    if sample.input_is_tensor and op.inplace:
                        call(getattr(args[0], op.inplace), args[1:], kwargs)
    finally:
        for name, kernel in originals.items():
            OPS[name].kernel = kernel
    missing = sorted(set(OPS) - reached)
    assert not missing, f"primitives without an OpInfo sample reaching them: {missing}"


def test_opinfo_names_resolve_on_both_libraries():
    for op in OP_DB:
        assert callable(op.op(torch)), op
        assert callable(op.op(dyngrad)), f"dyngrad has no {op.name}"


# -- ad-hoc: operators and forms the generic test does not reach ---------------------------------
def _pair(lib, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 3, (3, 4)).astype(dtype)
    b = rng.uniform(0.5, 3, (4,)).astype(dtype)
    return lib.from_numpy(a.copy()), lib.from_numpy(b.copy())


OPERATOR_EXPRESSIONS = {
    "x + y": lambda x, y: x + y, "2 + x": lambda x, y: 2 + x, "x - y": lambda x, y: x - y,
    "2 - x": lambda x, y: 2 - x, "2.5 - x": lambda x, y: 2.5 - x, "x * 3": lambda x, y: x * 3,
    "3 * x": lambda x, y: 3 * x, "x / y": lambda x, y: x / y, "2 / x": lambda x, y: 2 / x,
    "x // y": lambda x, y: x // y, "7 // x": lambda x, y: 7 // x, "x % y": lambda x, y: x % y,
    "7 % x": lambda x, y: 7 % x, "x ** 2": lambda x, y: x ** 2, "2 ** x": lambda x, y: 2 ** x,
    "x ** y": lambda x, y: x ** y, "-x": lambda x, y: -x, "+x": lambda x, y: +x,
    "abs(-x)": lambda x, y: abs(-x), "x @ y": lambda x, y: x @ y,
    "x < y": lambda x, y: x < y, "2 < x": lambda x, y: 2 < x, "x == x": lambda x, y: x == x,
    "x.where(x > 1, y)": lambda x, y: x.where(x > 1, y),
    "x.real": lambda x, y: x.real, "x.clip(min=1)": lambda x, y: x.clip(min=1),
}


@pytest.mark.parametrize("expr", list(OPERATOR_EXPRESSIONS))
def test_operator_forms(expr):
    fn = OPERATOR_EXPRESSIONS[expr]
    ours, theirs = fn(*_pair(dyngrad)), fn(*_pair(torch))
    assert_same_tensor(ours, theirs, expr)


INT_OPERATOR_EXPRESSIONS = {
    "x & y": lambda x, y: x & y, "x | 6": lambda x, y: x | 6, "6 ^ x": lambda x, y: 6 ^ x,
    "~x": lambda x, y: ~x, "x << 2": lambda x, y: x << 2, "1 << x": lambda x, y: 1 << x,
    "x >> y": lambda x, y: x >> y, "x // 2": lambda x, y: x // 2, "x / 2": lambda x, y: x / 2,
    "x ** 2": lambda x, y: x ** 2, "2 ** y": lambda x, y: 2 ** y, "x - 1": lambda x, y: x - 1,
}


@pytest.mark.parametrize("expr", list(INT_OPERATOR_EXPRESSIONS))
def test_integer_operator_forms(expr):
    fn = INT_OPERATOR_EXPRESSIONS[expr]

    def make(lib):
        x = lib.tensor([[5, -3, 0, 7], [1, 2, -8, 4], [9, -1, 3, 6]], dtype=lib.int32)
        return x, lib.tensor([1, 0, 2, 3], dtype=lib.int32)
    ours, theirs = fn(*make(dyngrad)), fn(*make(torch))
    assert_same_tensor(ours, theirs, expr)


def test_identity_results_match_torch():
    """positive() and real() of a real tensor return the input object itself, as in torch."""
    x = dyngrad.ones(3)
    assert dyngrad.positive(x) is x and +x is x and dyngrad.real(x) is x and x.real is x
    tx = torch.ones(3)
    assert torch.positive(tx) is tx and torch.real(tx) is tx


def test_inplace_through_views_writes_the_base():
    """In-place ops on a non-contiguous view write through to the base, as torch."""
    for lib in (dyngrad, torch):
        base = lib.from_numpy(np.arange(12, dtype=np.float32))
        view = base.as_strided((3, 2), (4, 2), 1) if lib is torch else \
            base._make_view((3, 2), (4, 2), 1)
        view.mul_(10).add_(1, alpha=2)
        if lib is torch:
            expected_base, expected_version = base.numpy().copy(), base._version
        else:
            got_base, got_version = to_numpy(base), base._version
    np.testing.assert_array_equal(got_base, expected_base)
    assert got_version == expected_version


def test_rsub_layout_follows_other():
    """torch runs sub(other, self): the result's layout follows `other` (OpSpec.layout_reversed)."""
    def run(lib):
        x = lib.from_numpy(np.arange(12.0).reshape(4, 3).copy())
        return lib.rsub(x.T if lib is torch else x._make_view((3, 4), (1, 3), 0), lib.ones(3, 4))
    assert run(dyngrad).stride() == run(torch).stride()


KEYWORD_CALLS = {
    "add": lambda lib, x, y: lib.add(input=x, other=y, alpha=2),
    "sub": lambda lib, x, y: lib.sub(input=x, other=y, alpha=2),
    "rsub": lambda lib, x, y: lib.rsub(input=x, other=y, alpha=2),
    "mul": lambda lib, x, y: lib.mul(input=x, other=y),
    "div": lambda lib, x, y: lib.div(input=x, other=y, rounding_mode="floor"),
    "true_divide": lambda lib, x, y: lib.true_divide(input=x, other=y),
    "floor_divide": lambda lib, x, y: lib.floor_divide(input=x, other=y),
    "remainder": lambda lib, x, y: lib.remainder(input=x, other=y),
    "pow": lambda lib, x, y: lib.pow(input=x, exponent=y),
    "pow scalar": lambda lib, x, y: lib.pow(input=x, exponent=2),
    "abs": lambda lib, x, y: lib.abs(input=x),
    "neg": lambda lib, x, y: lib.neg(input=x),
    "exp": lambda lib, x, y: lib.exp(input=x),
    "eq": lambda lib, x, y: lib.eq(input=x, other=y),
    "lt": lambda lib, x, y: lib.lt(input=x, other=2),
    "logical_xor": lambda lib, x, y: lib.logical_xor(input=x, other=y),
    "where": lambda lib, x, y: lib.where(condition=x > 1, input=x, other=y),
    "clamp": lambda lib, x, y: lib.clamp(input=x, min=1, max=2),
    "clip": lambda lib, x, y: lib.clip(input=x, max=y),
    "maximum": lambda lib, x, y: lib.maximum(input=x, other=y),
    "sum": lambda lib, x, y: lib.sum(input=x, dim=1, keepdim=True, dtype=lib.float64),
    "mean": lambda lib, x, y: lib.mean(input=x, dim=(0, 1)),
    "matmul": lambda lib, x, y: lib.matmul(input=x, other=y),
    "mv": lambda lib, x, y: lib.mv(input=x, vec=y),
    "dot": lambda lib, x, y: lib.dot(input=y, tensor=y),
    "x.add(other=, alpha=)": lambda lib, x, y: x.add(other=y, alpha=3),
    "x.div_(other=, rounding_mode=)": lambda lib, x, y: x.div_(other=y, rounding_mode="trunc"),
    "x.clamp_(min=)": lambda lib, x, y: x.clamp_(min=1.5),
    "x.sum(dim=, keepdim=)": lambda lib, x, y: x.sum(dim=0, keepdim=True),
    "x.pow(exponent=)": lambda lib, x, y: x.pow(exponent=3),
    "x.mm(mat2=)": lambda lib, x, y: x.mm(mat2=x.T),
}


@pytest.mark.parametrize("name", list(KEYWORD_CALLS))
def test_keyword_arguments(name):
    """torch's keyword names work (``input`` for the first argument of the function form)."""
    fn = KEYWORD_CALLS[name]
    assert_same_tensor(fn(dyngrad, *_pair(dyngrad)), fn(torch, *_pair(torch)), name)


def _grad_fn_chain(t):
    """Node names from the output down the first edges, as far as the leaves."""
    names, fn = [], t.grad_fn
    while fn is not None and type(fn).__name__ != "AccumulateGrad":
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


MATMUL_GRAPHS = [((2, 3), (3,), 0), ((3,), (3,), 0), ((2, 3), (3, 4), 1), ((4, 2, 3), (3, 5), 0),
                 ((4, 2, 3), (3,), 0), ((3,), (4, 3, 2), 0), ((3,), (4, 3, 2), 1),
                 ((5, 2, 3), (5, 3, 4), 0), ((4, 2, 3), (1, 3, 2), 0), ((2, 3), (5, 3, 2), 0),
                 ((2, 1, 2, 3), (5, 3, 2), 1)]


@pytest.mark.parametrize("a,b,grad_arg", MATMUL_GRAPHS, ids=str)
def test_matmul_graph_like_torch(a, b, grad_arg):
    """matmul dispatches to the same primitives and views as torch (Note [matmul is a resolver])."""
    def chain(lib):
        x, y = lib.ones(*a, dtype=lib.float64), lib.ones(*b, dtype=lib.float64)
        (x if grad_arg == 0 else y).requires_grad_()
        return _grad_fn_chain(x @ y)
    assert chain(dyngrad) == chain(torch)


def test_matmul_vector_matrix_graph_like_torch():
    def chain(lib):
        x, y = lib.ones(3, dtype=lib.float64, requires_grad=True), lib.ones(3, 4, dtype=lib.float64)
        return _grad_fn_chain(x @ y)
    assert chain(dyngrad) == chain(torch)
