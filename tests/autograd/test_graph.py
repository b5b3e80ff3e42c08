"""Graph recording against torch: grad_fn names, next_functions structure, leaves, saved values."""
import numpy as np
import pytest
import torch

import dyngrad

from .helpers import assert_prints_like_torch


def structure(fn, depth=4):
    """The graph below a grad_fn as nested tuples of names (None for missing edges)."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), tuple((structure(n, depth - 1), nr) for n, nr in fn.next_functions))


def leaves(lib):
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float64, requires_grad=True)
    b = lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float64, requires_grad=True)
    c = lib.tensor(rng.standard_normal(3), dtype=lib.float64)
    s = lib.tensor(rng.uniform(0.5, 2, (2, 3)), dtype=lib.float64, requires_grad=True)
    return a, b, c, s


EXPRESSIONS = {
    "add": lambda lib, a, b, c, s: a + b,
    "add_scalar": lambda lib, a, b, c, s: a + 2,
    "radd": lambda lib, a, b, c, s: 2 + a,
    "add_alpha": lambda lib, a, b, c, s: lib.add(a, b, alpha=3),
    "sub": lambda lib, a, b, c, s: a - b,
    "rsub": lambda lib, a, b, c, s: 1 - a,
    "mul": lambda lib, a, b, c, s: a * b,
    "mul_const": lambda lib, a, b, c, s: a * c,
    "div": lambda lib, a, b, c, s: a / s,
    "rdiv": lambda lib, a, b, c, s: 1 / s,
    "neg": lambda lib, a, b, c, s: -a,
    "pow_scalar": lambda lib, a, b, c, s: a ** 2,
    "pow_tensor": lambda lib, a, b, c, s: s ** a,
    "rpow": lambda lib, a, b, c, s: 2 ** a,
    "exp": lambda lib, a, b, c, s: a.exp(),
    "log": lambda lib, a, b, c, s: s.log(),
    "sqrt": lambda lib, a, b, c, s: s.sqrt(),
    "abs": lambda lib, a, b, c, s: a.abs(),
    "sum": lambda lib, a, b, c, s: a.sum(),
    "sum_dim": lambda lib, a, b, c, s: a.sum(0),
    "sum_keepdim": lambda lib, a, b, c, s: a.sum(1, keepdim=True),
    "mean": lambda lib, a, b, c, s: a.mean(),
    "mean_dim": lambda lib, a, b, c, s: a.mean(-1),
    "where": lambda lib, a, b, c, s: lib.where(a > 0, a, b),
    "clamp": lambda lib, a, b, c, s: a.clamp(-0.5, 0.5),
    "clamp_min": lambda lib, a, b, c, s: a.clamp(min=0),
    "maximum": lambda lib, a, b, c, s: lib.maximum(a, b),
    "minimum": lambda lib, a, b, c, s: lib.minimum(a, b),
    "chain": lambda lib, a, b, c, s: ((a * b + c).exp() * 2).sum(),
    "shared_leaf": lambda lib, a, b, c, s: a * a + a,
    "diamond": lambda lib, a, b, c, s: (a.exp() + a.exp() * b).mean(),
    "seed_xy": lambda lib, a, b, c, s: (a.pow(2) * b).sum(),
    "no_grad_input": lambda lib, a, b, c, s: c * 2 + a,
}


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_graph_structure_matches_torch(name):
    f = EXPRESSIONS[name]
    want = f(torch, *leaves(torch))
    got = f(dyngrad, *leaves(dyngrad))
    assert structure(got.grad_fn) == structure(want.grad_fn)
    assert got.requires_grad == want.requires_grad and got.is_leaf == want.is_leaf


def test_leaf_edges_are_accumulate_grad_with_variable():
    x = dyngrad.ones(3, requires_grad=True)
    y = x * 2
    acc, nr = y.grad_fn.next_functions[0]
    assert acc.name() == torch.ones(1, requires_grad=True).mul(2).grad_fn.next_functions[0][0].name()
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x and nr == 0
    assert y.grad_fn.next_functions[1] == (None, 0)
    # one AccumulateGrad per leaf while the graph lives
    assert (x + 1).grad_fn.next_functions[0][0] is acc


def test_sequence_numbers_increase_and_accumulate_grad_is_max():
    x = dyngrad.ones(3, requires_grad=True)
    y = x * 2
    z = y + 1
    assert z.grad_fn._sequence_nr() > y.grad_fn._sequence_nr()
    assert y.grad_fn.next_functions[0][0]._sequence_nr() == 2 ** 64 - 1
    assert y.grad_fn.metadata == {} and y.grad_fn.name() == "MulBackward0"


def test_saved_attributes_like_torch():
    for lib in (torch, dyngrad):
        x = lib.ones(3, requires_grad=True)
        y = x.pow(2)
        assert y.grad_fn._saved_self is x
        e = x.exp()
        assert e.grad_fn._saved_result is not e and e.grad_fn._saved_result.equal(e)
        s = (x * x).sum(0)
        assert tuple(s.grad_fn._saved_self_sym_sizes) == (3,)
        assert s.grad_fn._saved_keepdim is False
        assert (x + 1).grad_fn._saved_alpha == 1


def test_requires_grad_rules():
    def ex(torch):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        print(y.requires_grad, y.is_leaf, x.is_leaf, torch.ones(2).is_leaf)
        y.requires_grad_(True)
        for bad in (lambda: setattr(y, "requires_grad", False),
                    lambda: setattr(y, "requires_grad", True),
                    lambda: torch.ones(2, dtype=torch.long).requires_grad_(),
                    lambda: torch.ones(2).retain_grad(),
                    lambda: torch.ones(2).register_hook(lambda g: g)):
            try:
                bad()
            except RuntimeError as e:
                print("RuntimeError:", e)
        with torch.no_grad():
            z = torch.ones(2, requires_grad=True)
            print(z.requires_grad, (z * 2).requires_grad)
        d = y.detach()
        print(d.requires_grad, d.is_leaf, d.data_ptr() == y.data_ptr())
        print(x.data.requires_grad, x.data.is_leaf)
    assert_prints_like_torch(ex)


def test_setting_data_checks_like_torch():
    """``x.data = t`` takes a tensor only, and for a tensor that requires grad one of a
    floating or complex dtype; a new dtype gives the leaf a new AccumulateGrad."""
    def ex(torch):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        for value in (5, None, torch.zeros(3, dtype=torch.int64)):
            try:
                x.data = value
            except (TypeError, RuntimeError) as e:
                print(type(e).__name__, e)
        x.data = torch.zeros(3)
        print(x, x.requires_grad, x.is_leaf)
        y.sum().backward()
        print(x.grad)
        before = (x * 2).grad_fn.next_functions[0][0]
        x.data = torch.zeros(3, dtype=torch.float64)
        print(before is (x * 2).grad_fn.next_functions[0][0])
        z = torch.ones(2)
        z.data = torch.ones(2, dtype=torch.int64)
        print(z)
    assert_prints_like_torch(ex)


def test_grad_on_non_leaf_warns_like_torch():
    def ex(torch):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.sum().backward()
        print(y.grad)
        y2 = x * 3
        y2.retain_grad()
        y2.sum().backward()
        print(y2.grad, y2.retains_grad)
    assert_prints_like_torch(ex)


def test_grad_on_non_leaf_warning_text_is_torchs():
    texts = []
    for lib in (torch, dyngrad):
        y = lib.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning) as record:
            assert y.grad is None
        texts.append([str(w.message) for w in record])
    assert texts[1] == texts[0]


def test_grad_setter_checks():
    def ex(torch):
        x = torch.ones(2, requires_grad=True)
        for v in (torch.ones(3), torch.ones(2, dtype=torch.float64), 3):
            try:
                x.grad = v
            except (RuntimeError, TypeError) as e:
                print(type(e).__name__, e)
        x.grad = torch.full((2,), 5.0)
        print(x.grad)
        x.grad = None
        print(x.grad)
    assert_prints_like_torch(ex)


def test_detach_inplace():
    def ex(torch):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.detach_()
        print(y.requires_grad, y.is_leaf, y.grad_fn)
    assert_prints_like_torch(ex)


def test_calling_a_node_runs_its_formula_as_torch():
    for lib in (dyngrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        both = (x * w).grad_fn(lib.ones(2))
        one = x.exp().grad_fn(lib.ones(2))
        assert type(both) is tuple and [t.tolist() for t in both] == [[3.0, 4.0], [1.0, 2.0]]
        assert isinstance(one, lib.Tensor) and one.grad_fn is not None   # (grad mode is on)


def test_node_saved_attributes_read_as_torchs():
    """Node classes carry their op's arguments, input shapes and saved values as properties
    (Note [Node attributes are class attributes]): every ``_saved_<name>`` torch's node lists
    reads the same value here, and an unknown name raises AttributeError as in torch."""
    def nodes(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4) / 7, requires_grad=True)
        F = lib.nn.functional
        y = lib.tensor([1, 0, 2])
        return [x.sum(1, keepdim=True).grad_fn, x.add(x, alpha=2).grad_fn, x.sub(1.5).grad_fn,
                x.transpose(0, 1).grad_fn, x.view(12).grad_fn, x.clamp(min=-1).grad_fn,
                x.softmax(-1).grad_fn, (x @ x.t()).grad_fn, x.pow(3).grad_fn,
                x.tanh().grad_fn, x.mean(0).grad_fn, x.norm(2, dim=1).grad_fn,
                # Note [Saved arguments as torch shows them]: ints as unsigned 64-bit numbers,
                # an int[] as a tuple; Scalars as given
                x.sum(-1).grad_fn, x.amax([0, -1]).grad_fn, x.roll(-1, 0).grad_fn,
                x.select(0, -1).grad_fn, x[:, -2:].grad_fn, x.split(2, -1)[0].grad_fn,
                x.tril(-1).grad_fn, x.var(-1, correction=-1).grad_fn,
                x.add(x, alpha=-2).grad_fn, F.hardtanh(x).grad_fn, F.pad(x, (-1, 1)).grad_fn,
                F.nll_loss(x.log_softmax(1), y, ignore_index=-5).grad_fn]

    checked = 0
    for ours, theirs in zip(nodes(dyngrad), nodes(torch)):
        assert type(ours).__name__ == theirs.name()
        for name in [n for n in dir(theirs) if n.startswith("_saved_")]:
            want = getattr(theirs, name)
            got = getattr(ours, name)
            if isinstance(want, torch.Tensor):
                np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(),
                                           rtol=1e-15)
            else:
                assert got == want, (theirs.name(), name, got, want)
            checked += 1
        for lib_node in (ours, theirs):
            with pytest.raises(AttributeError):
                lib_node._saved_no_such_name
        # what dir() lists under _saved_ (the notes' way to explore a node) is saved values
        # only: no method, and no recorded input metadata torch does not show
        for name in [n for n in dir(ours) if n.startswith("_saved_")]:
            assert not callable(getattr(ours, name, None)), name
            assert name not in ("_saved_self_shape", "_saved_self_dtype"), name
    assert checked >= 40
    assert "__getattr__" not in vars(dyngrad.autograd.graph.OpNode)
