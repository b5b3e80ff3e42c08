"""nn.utils.prune against torch: the masks of every method (L1 ties broken as torch's topk does,
random masks bit-equal after manual_seed), int/float amounts, iterative pruning through
PruningContainer, global pruning, importance scores, the reparametrization (weight_orig
parameter, weight_mask buffer, forward pre-hook, state_dict keys), gradients, remove, and
the error messages."""
import importlib
import math

import pytest
import torch

import dyngrad
from tests.compare import like_torch, node_chain

torch_prune = importlib.import_module("torch.nn.utils.prune")
dyn_prune = importlib.import_module("dyngrad.nn.utils.prune")


def P(lib):
    return torch_prune if lib is torch else dyn_prune


def both(fn):
    """fn(lib) on both libraries; returns (dyngrad's, torch's)."""
    return fn(dyngrad), fn(torch)


def tied(lib, shape=(4, 6), dtype=None):
    """A tensor with many ties in |value| (ints in [-3, 3]), from a fixed seed."""
    g = torch.Generator().manual_seed(7)
    vals = torch.randint(-3, 4, shape, generator=g).tolist()
    return lib.tensor(vals, dtype=dtype or lib.float32)


def linear(lib, inp=6, out=4, seed=0, ties=False, dtype=None):
    lib.manual_seed(seed)
    m = lib.nn.Linear(inp, out)
    if dtype is not None:
        m = m.to(dtype)
    if ties:
        with lib.no_grad():
            m.weight.copy_(tied(lib, (out, inp)))
            m.bias.copy_(lib.tensor([1.0, -1.0, 0.0, 1.0][:out]))
    return m


def conv(lib, seed=1):
    lib.manual_seed(seed)
    return lib.nn.Conv2d(3, 5, 3)


# -- masks of single methods -------------------------------------------------------------------

@pytest.mark.parametrize("amount", [0, 1, 5, 24, 0.0, 0.3, 0.5, 0.75, 1.0])
@pytest.mark.parametrize("ties", [False, True])
def test_l1_unstructured_mask(amount, ties):
    def fn(lib):
        m = linear(lib, ties=ties)
        P(lib).l1_unstructured(m, "weight", amount=amount)
        return m.weight_mask, m.weight, m.weight_orig
    like_torch(fn)


@pytest.mark.parametrize("shape", [(7,), (3, 4, 5), (2, 3, 2, 2)])
def test_l1_ties_prune_method(shape):
    """topk's tie-breaking on tensors of repeated magnitudes, through .prune()."""
    def fn(lib):
        t = tied(lib, shape)
        return (P(lib).L1Unstructured(0.4).prune(t),
                P(lib).L1Unstructured(3).compute_mask(t, lib.ones_like(t)))
    like_torch(fn)


@pytest.mark.parametrize("amount", [0, 3, 0.25, 0.6, 1.0])
@pytest.mark.parametrize("seed", [0, 3])
def test_random_unstructured_mask(amount, seed):
    def fn(lib):
        m = linear(lib)
        lib.manual_seed(seed)
        P(lib).random_unstructured(m, "weight", amount=amount)
        return m.weight_mask, m.weight, lib.rand(2)   # and the generator's state after
    like_torch(fn)


@pytest.mark.parametrize("amount,dim", [(1, 0), (2, -1), (0.5, 1), (0.4, 0), (0, 0), (4, 0),
                                        (1.0, 1)])
@pytest.mark.parametrize("seed", [0, 5])
def test_random_structured_mask(amount, dim, seed):
    def fn(lib):
        m = linear(lib)
        lib.manual_seed(seed)
        P(lib).random_structured(m, "weight", amount=amount, dim=dim)
        return m.weight_mask, m.weight, lib.rand(2)
    like_torch(fn)


def test_random_structured_conv():
    def fn(lib):
        m = conv(lib)
        lib.manual_seed(11)
        P(lib).random_structured(m, "weight", amount=2, dim=0)
        P(lib).random_structured(m, "weight", amount=0.5, dim=1)
        return m.weight_mask, m.weight
    like_torch(fn)


@pytest.mark.parametrize("n", [1, 2, 3, math.inf, -math.inf, "fro", 0.5])
@pytest.mark.parametrize("amount,dim", [(1, 0), (0.5, 1), (2, -1), (0, 0), (0.34, -2)])
def test_ln_structured_conv(n, amount, dim):
    def fn(lib):
        m = conv(lib)
        P(lib).ln_structured(m, "weight", amount=amount, n=n, dim=dim)
        return m.weight_mask, m.weight
    like_torch(fn)


@pytest.mark.parametrize("n", [1, 2, math.inf])
def test_ln_structured_ties(n):
    """Channels of equal norm: topk keeps the ones torch keeps."""
    def fn(lib):
        m = linear(lib, ties=True)
        with lib.no_grad():
            m.weight[1] = m.weight[0]
            m.weight[3] = -m.weight[0]
        P(lib).ln_structured(m, "weight", amount=2, n=n, dim=0)
        return m.weight_mask
    like_torch(fn)


def test_identity_and_custom_from_mask():
    def fn(lib):
        m = linear(lib)
        P(lib).identity(m, "bias")
        mask = (lib.arange(24).reshape(4, 6) % 3 != 0)
        P(lib).custom_from_mask(m, "weight", mask=mask)
        return m.bias_mask, m.bias, m.weight_mask, m.weight
    like_torch(fn)


def test_float64_module_masks():
    def fn(lib):
        m = linear(lib, dtype=lib.float64)
        P(lib).l1_unstructured(m, "weight", 0.5)
        P(lib).ln_structured(m, "weight", 1, 1, dim=0)
        P(lib).custom_from_mask(m, "bias", lib.tensor([1, 0, 1, 1]))
        return m.weight_mask, m.weight, m.bias_mask, m.bias
    like_torch(fn)


# -- the reparametrization -----------------------------------------------------------------------

def _structure(lib, m):
    hooks = [(type(h).__name__, getattr(h, "_tensor_name", None))
             for h in m._forward_pre_hooks.values()]
    return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
            list(m.state_dict().keys()), hooks, P(lib).is_pruned(m),
            type(m.weight).__name__, m.weight.requires_grad, "weight" in m._parameters)


def test_reparametrization_structure():
    def fn(lib):
        m = linear(lib)
        out = [_structure(lib, m)]
        P(lib).l1_unstructured(m, "weight", 0.5)
        out.append(_structure(lib, m))
        P(lib).random_unstructured(m, "bias", 1)
        out.append(_structure(lib, m))
        P(lib).ln_structured(m, "weight", 1, 2, dim=0)
        out.append(_structure(lib, m))
        container = m._forward_pre_hooks[0] if 0 in m._forward_pre_hooks else None
        out.append([type(x).__name__ for x in container] if container is not None else None)
        return out
    ours, theirs = both(fn)
    assert ours == theirs


def test_state_dict_values_and_load():
    def fn(lib):
        m = linear(lib, ties=True)
        P(lib).l1_unstructured(m, "weight", 7)
        sd = m.state_dict()
        m2 = linear(lib, seed=3)
        P(lib).identity(m2, "weight")
        m2.load_state_dict(sd)
        m2(lib.ones(1, 6))                 # the hook recomputes weight from the loaded tensors
        return tuple(sd.values()) + (m2.weight,)
    like_torch(fn)


def test_forward_pre_hook_recomputes_weight():
    def fn(lib):
        m = linear(lib)
        P(lib).l1_unstructured(m, "weight", 0.5)
        with lib.no_grad():
            m.weight_orig.mul_(3)
        before = m.weight.clone()
        y = m(lib.ones(2, 6))
        return before, m.weight, y
    like_torch(fn)


def test_gradients_flow_to_orig():
    def fn(lib):
        m = linear(lib)
        P(lib).l1_unstructured(m, "weight", 0.5)
        P(lib).ln_structured(m, "weight", 1, 2, dim=1)
        x = lib.arange(12.0).reshape(2, 6)
        m(x).pow(2).sum().backward()
        return m.weight_orig.grad, m.bias.grad, m.weight
    like_torch(fn, rtol=1e-6)   # matmul sums in another order
    ours, theirs = both(lambda lib: (node_chain(linear_pruned(lib).weight),
                                     linear_pruned(lib).weight_mask.requires_grad))
    assert ours == theirs and ours[0][0] == "MulBackward0"


def linear_pruned(lib):
    m = linear(lib)
    P(lib).random_unstructured(m, "weight", 3)
    return m


# -- iterative pruning -------------------------------------------------------------------------

@pytest.mark.parametrize("steps", [
    [("l1", 0.3), ("l1", 0.5), ("l1", 4)],
    [("l1", 0.5), ("ln", 1, 2, 0), ("ln", 0.5, 1, 1)],
    [("ln", 1, 2, -1), ("l1", 0.5), ("rs", 1, 0), ("ru", 0.2)],
    [("ru", 5), ("rs", 0.5, 1), ("custom",), ("l1", 0.5)],
    [("identity",), ("l1", 0.25), ("identity",)],
])
def test_iterative_pruning(steps):
    def fn(lib):
        m = linear(lib, ties=True)
        lib.manual_seed(9)
        pr, out = P(lib), []
        for s in steps:
            if s[0] == "l1":
                pr.l1_unstructured(m, "weight", s[1])
            elif s[0] == "ln":
                pr.ln_structured(m, "weight", s[1], s[2], dim=s[3])
            elif s[0] == "rs":
                pr.random_structured(m, "weight", s[1], dim=s[2])
            elif s[0] == "ru":
                pr.random_unstructured(m, "weight", s[1])
            elif s[0] == "identity":
                pr.identity(m, "weight")
            else:
                pr.custom_from_mask(m, "weight", lib.eye(4, 6) == 0)
            out += [m.weight_mask, m.weight]
        return out
    like_torch(fn)

    def kinds(lib):
        m = linear(lib, ties=True)
        hook = None
        for _ in range(3):
            hook = P(lib).L1Unstructured.apply(m, "weight", amount=0.2)
        return (type(hook).__name__, len(hook), [type(h).__name__ for h in hook],
                hook[0]._tensor_name, len(m._forward_pre_hooks))
    ours, theirs = both(kinds)
    assert ours == theirs


def test_container_on_tensor():
    def fn(lib):
        pr = P(lib)
        a, b = pr.L1Unstructured(0.5), pr.LnStructured(1, 2, dim=0)
        a._tensor_name = b._tensor_name = "w"
        c = pr.PruningContainer(a)
        c.add_pruning_method(b)
        t = tied(lib, (4, 6))
        m1 = a.compute_mask(t, lib.ones_like(t))
        return m1, c.compute_mask(t, m1), c.prune(t, default_mask=m1)
    like_torch(fn)


# -- importance scores -------------------------------------------------------------------------

def test_importance_scores():
    def fn(lib):
        m = linear(lib)
        scores = lib.arange(24.0).reshape(4, 6).flip(1)
        P(lib).l1_unstructured(m, "weight", 0.5, importance_scores=scores)
        P(lib).ln_structured(m, "weight", 1, 2, dim=0, importance_scores=-scores)
        meth = P(lib).L1Unstructured(3)
        return m.weight_mask, meth.prune(m.weight_orig, importance_scores=scores)
    like_torch(fn)


# -- global pruning ----------------------------------------------------------------------------

@pytest.mark.parametrize("amount", [0.2, 0.5, 10, 0])
def test_global_unstructured(amount):
    def fn(lib):
        a, c = linear(lib, ties=True), conv(lib)
        P(lib).l1_unstructured(c, "weight", 0.5)      # an existing mask is composed with
        params = ((a, "weight"), (a, "bias"), (c, "weight"))
        P(lib).global_unstructured(params, pruning_method=P(lib).L1Unstructured, amount=amount)
        return a.weight_mask, a.bias_mask, c.weight_mask, c.weight, a.weight
    like_torch(fn)


def test_global_unstructured_random_and_scores():
    def fn(lib):
        a, b = linear(lib), linear(lib, seed=2)
        lib.manual_seed(4)
        params = [(a, "weight"), (b, "weight")]
        P(lib).global_unstructured(params, P(lib).RandomUnstructured, amount=0.5)
        c, d = linear(lib), linear(lib, seed=2)
        scores = {(c, "weight"): lib.ones(4, 6)}
        P(lib).global_unstructured([(c, "weight"), (d, "weight")], P(lib).L1Unstructured,
                                   importance_scores=scores, amount=20)
        return a.weight_mask, b.weight_mask, c.weight_mask, d.weight_mask
    like_torch(fn)
    ours, theirs = both(lambda lib: [type(h).__name__ for h in
                                     linear_global(lib)._forward_pre_hooks.values()])
    assert ours == theirs


def linear_global(lib):
    m = linear(lib)
    P(lib).global_unstructured([(m, "weight")], P(lib).L1Unstructured, amount=2)
    return m


# -- remove ------------------------------------------------------------------------------------

def test_remove():
    def fn(lib):
        m = linear(lib)
        P(lib).l1_unstructured(m, "weight", 0.5)
        P(lib).random_unstructured(m, "weight", 2)
        orig = m.weight_orig
        P(lib).remove(m, "weight")
        return m.weight, m.weight is orig, _structure(lib, m)
    (ow, oi, os_), (tw, ti, ts) = both(fn)
    like_torch(lambda lib: fn(lib)[0])
    assert (oi, os_) == (ti, ts)
    assert type(ow).__name__ == "Parameter"


# -- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("amount", [-1, 1.5, -0.1, "0.5", None, 25, 3 + 0j])
def test_bad_amounts(amount):
    like_torch(lambda lib: P(lib).l1_unstructured(linear(lib), "weight", amount).weight)


@pytest.mark.parametrize("call", [
    lambda pr, m: pr.random_structured(m, "weight", 5, dim=0),      # > channels
    lambda pr, m: pr.random_structured(m, "weight", 1, dim=2),      # bad dim
    lambda pr, m: pr.ln_structured(m, "weight", 1, 2, dim=5),
    lambda pr, m: pr.ln_structured(m, "bias", 1, 2, dim=0),         # 1-D
    lambda pr, m: pr.random_structured(m, "bias", 1, dim=0),
    lambda pr, m: pr.l1_unstructured(m, "nope", 1),                 # no such attribute
    lambda pr, m: pr.remove(m, "weight"),                           # not pruned
    lambda pr, m: pr.l1_unstructured(m, "weight", 1, importance_scores=m.bias),
    lambda pr, m: pr.custom_from_mask(m, "weight", m.bias),
    lambda pr, m: pr.global_unstructured(5, pr.L1Unstructured, amount=1),
    lambda pr, m: pr.global_unstructured([(m, "weight")], pr.L1Unstructured,
                                         importance_scores=[1], amount=1),
    lambda pr, m: pr.L1Unstructured(1).prune(m.weight, importance_scores=m.bias),
])
def test_errors(call):
    like_torch(lambda lib: call(P(lib), linear(lib)).weight)


def test_global_structured_method_rejected():
    """The message names the class: torch's module path is dyngrad's here."""
    def fn(lib):
        m = linear(lib)
        with pytest.raises(TypeError) as info:
            P(lib).global_unstructured([(m, "weight")], P(lib).LnStructured, amount=1, n=1)
        return str(info.value).replace("dyngrad.", "torch."), _structure(lib, m)
    ours, theirs = both(fn)
    assert ours == theirs
    assert "<class 'torch.nn.utils.prune.LnStructured'> of type structured" in ours[0]


def test_failed_pruning_rolls_back():
    def fn(lib):
        m = linear(lib)
        try:
            P(lib).ln_structured(m, "bias", 1, 2, dim=0)
        except ValueError:
            pass
        return _structure(lib, m)
    ours, theirs = both(fn)
    assert ours == theirs and ours[0] == ["weight", "bias"]


def test_container_errors():
    def fn(lib, which):
        pr = P(lib)
        a = pr.L1Unstructured(1)
        a._tensor_name = "w"
        c = pr.PruningContainer(a)
        try:
            if which == 0:
                c.add_pruning_method(3)
            else:
                b = pr.L1Unstructured(1)
                b._tensor_name = "v"
                c.add_pruning_method(b)
        except Exception as e:   # noqa: BLE001
            msg = str(e).replace("torch.", "").replace("dyngrad.", "")
            return type(e).__name__, msg.split(" object at ")[0], msg.split("'")[-2:]
    for which in (0, 1):
        assert fn(dyngrad, which) == fn(torch, which)


def test_pruning_a_buffer_and_abstract_base():
    def fn(lib):
        bn = lib.nn.BatchNorm1d(3)
        P(lib).l1_unstructured(bn, "running_mean", 1)
    like_torch(fn)
    like_torch(lambda lib: P(lib).BasePruningMethod())
    like_torch(lambda lib: P(lib).Identity().apply_mask(linear(lib)))
