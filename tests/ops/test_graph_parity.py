"""The graph each op records, against live torch (STYLE.md §6).

For each OpInfo (``supports_autograd``) × sample, in float64, with every floating tensor of the
sample requiring grad, for the op and (test_graph_parity_inplace) for its in-place variant on a
clone of the input, the graphs behind the outputs are walked side by side from the outputs'
``grad_fn`` down to the leaves' ``AccumulateGrad``:

* node names (``MulBackward0``), the number of edges, each edge's ``input_nr`` and its None-ness
  (``x * 2`` has ``((AccumulateGrad, 0), (None, 0))``); shared nodes are shared on both sides,
  and each AccumulateGrad belongs to the same leaf;
* the ``_saved_*`` attributes: every name torch shows must be readable on our node with the same
  value (tensors close, sizes/dims/numbers equal; a None on torch's side means torch did not need
  the value, so ours is not checked), and every tensor our node saves must be one torch saves.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

from ._grad_support import StrictXfail, grad_cases, run_with_grad, to_numpy


@pytest.mark.parametrize("op,dtype", grad_cases("supports_autograd", ("float64",)))
def test_graph_parity(op, dtype):
    with StrictXfail(op.xfail_reason("graph_parity", dtype)):
        _check_graphs(op, dtype)


@pytest.mark.parametrize("op,dtype", grad_cases("supports_autograd", ("float64",), inplace=True))
def test_graph_parity_inplace(op, dtype):
    with StrictXfail(op.xfail_reason("graph_parity_inplace", dtype)):
        _check_graphs(op, dtype, inplace=True)


def _check_graphs(op, dtype, inplace=False):
    checked = 0
    for sample in op.sample_inputs(dtype):
        if inplace and not sample.input_is_tensor:
            continue
        where = f"{op.id}[{dtype}] {sample}" + (f" ({op.inplace})" if inplace else "")
        tleaves, touts, texc = run_with_grad(op, sample, torch, inplace)
        if texc is not None:
            continue
        leaves, outs, exc = run_with_grad(op, sample, dyngrad, inplace)
        if exc is not None:
            raise AssertionError(f"{where}: dyngrad raised {exc!r}") from exc
        assert len(outs) == len(touts), f"{where}: {len(outs)} outputs, torch {len(touts)}"
        for i, (o, t) in enumerate(zip(outs, touts)):
            assert o.requires_grad == t.requires_grad, \
                f"{where}: output {i} requires_grad {o.requires_grad}, torch {t.requires_grad}"
        compare_graphs([o.grad_fn for o in outs], [t.grad_fn for t in touts], leaves, tleaves,
                       where, values=op.check_values)
        checked += 1
    assert checked, f"{op.id}[{dtype}]: torch rejected every sample; fix the OpInfo"


def compare_graphs(roots, troots, leaves, tleaves, where, values=True):
    """Walk both graphs from their roots; see the module docstring for what must agree.

    ``values=False`` (random ops) compares the names of saved values, not the values.
    """
    ours_of, theirs_of = {}, {}
    keep = []   # torch nodes stay alive while their ids are keys
    stack = [(o, t, f"output {i}") for i, (o, t) in enumerate(zip(roots, troots))]
    while stack:
        node, tnode, path = stack.pop()
        at = f"{where}: {path}"
        if tnode is None or node is None:
            assert node is None and tnode is None, \
                f"{at}: dyngrad {_name(node)}, torch {_name(tnode)}"
            continue
        seen_ours, seen_theirs = ours_of.get(id(tnode)), theirs_of.get(id(node))
        if seen_ours is not None or seen_theirs is not None:
            assert seen_ours is node and seen_theirs is tnode, \
                f"{at}: {_name(tnode)} is shared differently in the two graphs"
            continue
        ours_of[id(tnode)], theirs_of[id(node)] = node, tnode
        keep.append(tnode)
        name, tname = _name(node), _name(tnode)
        assert name == tname, f"{at}: node {name}, torch {tname}"
        path = f"{path} -> {tname}"
        if tname == "AccumulateGrad":
            assert _index(leaves, node.variable) == _index(tleaves, tnode.variable), \
                f"{at}: AccumulateGrad of another leaf"
            continue
        compare_saved(node, tnode, f"{where}: {path}", values)
        edges, tedges = node.next_functions, tnode.next_functions
        assert len(edges) == len(tedges), \
            f"{at}: {len(edges)} edges {_edges(edges)}, torch {len(tedges)} {_edges(tedges)}"
        for k, ((nxt, nr), (tnxt, tnr)) in enumerate(zip(edges, tedges)):
            assert (nxt is None) == (tnxt is None) and (tnxt is None or nr == tnr), \
                f"{at}: edges {_edges(edges)}, torch {_edges(tedges)}"
            stack.append((nxt, tnxt, f"{path}[{k}]"))


def compare_saved(node, tnode, at, values=True):
    tnames = {a for a in dir(tnode) if a.startswith("_saved_")}
    for name in sorted(tnames):
        tvalue = getattr(tnode, name)
        try:
            value = getattr(node, name)
        except AttributeError:
            raise AssertionError(f"{at}: no {name} (torch shows {sorted(tnames)})") from None
        if tvalue is not None and values:
            _same_value(value, tvalue, f"{at}.{name}")
    spec = getattr(type(node), "spec", None)
    if spec is not None:
        extra = {f"_saved_{n}" for n in spec.saves} - tnames
        assert not extra, f"{at}: saves {sorted(extra)}, which torch does not"


def _same_value(value, tvalue, at):
    if isinstance(tvalue, torch.Tensor):
        if isinstance(value, dyngrad.Tensor):
            assert tuple(value.shape) == tuple(tvalue.shape), f"{at}: shape differs"
            assert str(value.layout) == str(tvalue.layout), f"{at}: layout differs"
            ours = to_numpy(value)
        else:   # a Python number where torch wrapped it as a 0-dim tensor
            assert tvalue.dim() == 0, f"{at}: {value!r}, torch a tensor of shape {tvalue.shape}"
            ours = np.asarray(value)
        np.testing.assert_allclose(ours, to_numpy(tvalue), rtol=1e-12, atol=0, equal_nan=True,
                                   err_msg=at)
    elif isinstance(tvalue, (tuple, list)) and any(
            v is None or isinstance(v, torch.Tensor) for v in tvalue):   # index tensors
        assert isinstance(value, (tuple, list)) and len(value) == len(tvalue), \
            f"{at}: {value!r}, torch {tvalue!r}"
        for i, (v, tv) in enumerate(zip(value, tvalue)):
            assert (v is None) == (tv is None), f"{at}[{i}]: {v!r}, torch {tv!r}"
            if tv is not None:
                _same_value(v, tv, f"{at}[{i}]")
    elif isinstance(tvalue, (tuple, list)) or isinstance(value, (tuple, list)):
        assert _ints(value) == _ints(tvalue), f"{at}: {value!r}, torch {tvalue!r}"
    elif type(tvalue) is int and type(value) is int:
        assert _ints(value) == _ints(tvalue), f"{at}: {value!r}, torch {tvalue!r}"
    elif isinstance(tvalue, (int, float)) and not isinstance(tvalue, bool):
        assert isinstance(value, (int, float)) and not isinstance(value, bool) \
            and value == tvalue, f"{at}: {value!r}, torch {tvalue!r}"
    else:
        assert type(value) is type(tvalue) and value == tvalue, \
            f"{at}: {value!r}, torch {tvalue!r}"


def _ints(value):
    """Sizes and dims as a tuple of ints; torch shows a negative int64 as its uint64 value."""
    if isinstance(value, int):
        value = (value,)
    return tuple(v - 2 ** 64 if v >= 2 ** 63 else v for v in value)


def _index(leaves, t):
    return next((i for i, leaf in enumerate(leaves) if leaf is t), None)


def _name(node):
    """The node's class name (torch's C++ nodes' name() adds "torch::autograd::")."""
    return None if node is None else type(node).__name__


def _edges(edges):
    return [(_name(n), nr) for n, nr in edges]


OPERATORS = {
    "2 + x": lambda x: 2 + x, "x + 2": lambda x: x + 2, "2 - x": lambda x: 2 - x,
    "x - 2": lambda x: x - 2, "2 * x": lambda x: 2 * x, "x * 2": lambda x: x * 2,
    "2 / x": lambda x: 2 / x, "x / 2": lambda x: x / 2, "2 ** x": lambda x: 2 ** x,
    "x ** 2": lambda x: x ** 2, "2 % x": lambda x: 2 % x, "x % 2": lambda x: x % 2,
    "2 // x": lambda x: 2 // x, "x // 2": lambda x: x // 2, "-x": lambda x: -x,
    "abs(x)": lambda x: abs(x), "x @ x": lambda x: x @ x,
}


@pytest.mark.parametrize("expr", OPERATORS)
def test_operators_with_numbers(expr):
    """Python operators with a number build torch's graph (``2 / x`` is reciprocal, then mul)
    and give torch's gradient, or torch's error when the op has no derivative."""
    values = [1.5, -0.25, 3.0]
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    x = dyngrad.tensor(values, dtype=dyngrad.float64, requires_grad=True)
    ty, y = OPERATORS[expr](tx), OPERATORS[expr](x)
    compare_graphs([y.grad_fn], [ty.grad_fn], [x], [tx], expr)
    try:
        expected, texc = torch.autograd.grad(ty.sum(), tx)[0], None
    except RuntimeError as e:
        texc = e
    if texc is not None:
        with pytest.raises(RuntimeError) as info:
            dyngrad.autograd.grad(y.sum(), x)
        assert str(info.value) == str(texc)
        return
    got, = dyngrad.autograd.grad(y.sum(), x)
    torch.testing.assert_close(torch.from_numpy(to_numpy(got)), expected)
