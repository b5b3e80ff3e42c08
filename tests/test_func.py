"""dyngrad.func against torch.func: each case runs the same code on both libraries and compares
the results' structure, values, dtypes and whether they carry a graph, or the errors' types and
messages. (Note [vmap as a loop] in dyngrad/func/vmap.py lists what is left different.)"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.func

import dyngrad
import dyngrad.func
from dyngrad.utils import _pytree
from torch.utils import _pytree as tp


def _t(lib, values, **kw):
    return lib.tensor(values, dtype=lib.float64, **kw)


def _mlp_loss(lib, F):
    def loss(params, x, y):
        h = (x @ params["w1"] + params["b1"]).tanh()
        return ((h @ params["w2"]).squeeze(-1) - y).pow(2).mean()
    return loss


def _params(lib):
    rng = np.random.default_rng(0)
    return {"w1": lib.from_numpy(rng.standard_normal((3, 4))),
            "b1": lib.from_numpy(rng.standard_normal(4)),
            "w2": lib.from_numpy(rng.standard_normal((4, 1)))}


def _batch(lib):
    rng = np.random.default_rng(1)
    return lib.from_numpy(rng.standard_normal((5, 3))), lib.from_numpy(rng.standard_normal(5))


CASES = {
    # grad and grad_and_value
    "grad": lambda lib, F: F.grad(lambda x: (x ** 3).sum())(_t(lib, [1., -2., 0.5])),
    "grad argnums": lambda lib, F: F.grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(
        _t(lib, [1., 2.]), _t(lib, [0.5, -1.])),
    "grad negative argnum": lambda lib, F: F.grad(lambda x, y: (x * y).sum(), argnums=-1)(
        _t(lib, [1., 2.]), _t(lib, [3., 4.])),
    "grad dict input": lambda lib, F: F.grad(_mlp_loss(lib, F))(_params(lib), *_batch(lib)),
    "grad has_aux": lambda lib, F: F.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(
        _t(lib, [1., 2., 3.])),
    "grad_and_value": lambda lib, F: F.grad_and_value(lambda x: x.sin().sum())(
        _t(lib, [0.1, 0.2])),
    "grad unused input": lambda lib, F: F.grad(lambda x, y: (2 * x).sum(), argnums=(0, 1))(
        _t(lib, [1., 2.]), _t(lib, [1., 2.])),
    "grad constant output": lambda lib, F: F.grad(lambda x: _t(lib, 3.))(_t(lib, [1., 2.])),
    "grad of grad": lambda lib, F: F.grad(F.grad(lambda x: x.sin() * x ** 2))(_t(lib, 0.7)),
    "grad third order": lambda lib, F: F.grad(F.grad(F.grad(lambda x: x ** 4)))(_t(lib, 2.)),
    "grad closure over parameter": lambda lib, F: _closure_case(lib, F),
    "grad of parameter input": lambda lib, F: F.grad(lambda x: (x ** 2).sum())(
        _t(lib, [1., 2.], requires_grad=True)),
    "grad nonscalar": lambda lib, F: F.grad(lambda x: x ** 2)(_t(lib, [1., 2.])),
    "grad int input": lambda lib, F: F.grad(lambda x: x.sum())(lib.tensor([1, 2])),
    "grad float input": lambda lib, F: F.grad(lambda x: x * 2)(3.0),
    "grad bad argnum": lambda lib, F: F.grad(lambda x, y: x.sum(), argnums=2)(
        _t(lib, [1.]), _t(lib, [1.])),
    "grad repeated argnums": lambda lib, F: F.grad(lambda x, y: x.sum(), argnums=(0, 0))(
        _t(lib, [1.]), _t(lib, [1.])),
    "grad empty argnums": lambda lib, F: F.grad(lambda x: x.sum(), argnums=())(_t(lib, [1.])),
    "grad str argnums": lambda lib, F: F.grad(lambda x: x.sum(), argnums="0")(_t(lib, [1.])),
    "grad aux not a pair": lambda lib, F: F.grad(lambda x: x.sum(), has_aux=True)(
        _t(lib, [1.])),
    "grad non-tensor output": lambda lib, F: F.grad(lambda x: 3.0)(_t(lib, [1.])),
    # vjp
    "vjp": lambda lib, F: _vjp_case(lib, F, lambda x: x.sin(), [0.3, 0.6], [1., -2.]),
    "vjp two outputs": lambda lib, F: F.vjp(lambda x, y: (x * y, x + y), _t(lib, [1., 2.]),
                                            _t(lib, [3., 4.]))[1](
        (_t(lib, [1., 1.]), _t(lib, [0.5, 2.]))),
    "vjp has_aux": lambda lib, F: F.vjp(lambda x: (x.exp(), x.sum()), _t(lib, [0., 1.]),
                                        has_aux=True)[2],
    "vjp called twice": lambda lib, F: _vjp_twice(lib, F),
    "vjp shape mismatch": lambda lib, F: F.vjp(lambda x: x.sin(), _t(lib, [1., 2.]))[1](
        _t(lib, [1., 2., 3.])),
    "vjp structure mismatch": lambda lib, F: F.vjp(lambda x: x.sin(), _t(lib, [1., 2.]))[1](
        (_t(lib, [1., 2.]),)),
    "vjp non-tensor primal": lambda lib, F: F.vjp(lambda x: x, 3.0),
    "vjp non-tensor output": lambda lib, F: F.vjp(lambda x: (x, 3.0), _t(lib, [1.])),
    "grad non-tensor aux": lambda lib, F: F.grad(lambda x: (x.sum(), {"a": 1}), has_aux=True)(
        _t(lib, [1.])),
    "jacrev non-tensor output": lambda lib, F: F.jacrev(lambda x: 3.0)(_t(lib, [1.])),
    "jvp non-tensor primal": lambda lib, F: F.jvp(lambda x: x, (3.0,), (1.0,)),
    "grad with keywords": lambda lib, F: F.grad(lambda x, p=2: (x ** p).sum())(
        _t(lib, [1., 2.]), p=3),
    "vmap with keywords": lambda lib, F: F.vmap(lambda x, scale=1.0: x * scale)(
        lib.ones(2, 3), scale=2.0),
    # jvp and linearize
    "jvp": lambda lib, F: F.jvp(lambda x: x.sin() * x, (_t(lib, [0.3, 0.6]),),
                                (_t(lib, [1., -1.]),)),
    "jvp two outputs": lambda lib, F: F.jvp(lambda x, y: (x * y, (x - y).sum()),
                                            (_t(lib, [1., 2.]), _t(lib, [3., 5.])),
                                            (_t(lib, [1., 0.]), _t(lib, [0., 1.]))),
    "jvp has_aux": lambda lib, F: F.jvp(lambda x: (x.exp(), x.sum()), (_t(lib, [0., 1.]),),
                                        (_t(lib, [1., 1.]),), has_aux=True),
    "jvp primals not a tuple": lambda lib, F: F.jvp(lambda x: x, _t(lib, [1.]), _t(lib, [1.])),
    "jvp structure mismatch": lambda lib, F: F.jvp(lambda x: x, (_t(lib, [1.]),),
                                                   [_t(lib, [1.])]),
    "jvp size mismatch": lambda lib, F: F.jvp(lambda x: x, (_t(lib, [1., 2.]),),
                                              (_t(lib, [1.]),)),
    "linearize": lambda lib, F: _linearize_case(lib, F),
    "linearize tangent count": lambda lib, F: F.linearize(lambda a, b: a * b, _t(lib, [1.]),
                                                          _t(lib, [2.]))[1](_t(lib, [1.])),
    "linearize tangent structure": lambda lib, F: F.linearize(
        lambda a, b: a * b, _t(lib, [1.]), _t(lib, [2.]))[1](_t(lib, [1.]), [_t(lib, [1.])]),
    "linearize tangent shape": lambda lib, F: F.linearize(lambda a: a.sin(), _t(lib, [1., 2.]))[1](
        _t(lib, [1.])),
    "linearize tangent dtype": lambda lib, F: F.linearize(lambda a: a.sin(), _t(lib, [1., 2.]))[1](
        lib.ones(2, dtype=lib.float64)),
    # Jacobians and Hessians
    "jacrev": lambda lib, F: F.jacrev(lambda x: x.sin() * x.sum())(_t(lib, [0.1, 0.5, 0.9])),
    "jacrev argnums": lambda lib, F: F.jacrev(lambda x, y: x @ y, argnums=(0, 1))(
        _t(lib, [[1., 2.], [3., 4.]]), _t(lib, [0.5, -1.])),
    "jacrev dict output": lambda lib, F: F.jacrev(lambda x: {"a": x * 2, "b": x.sum()})(
        _t(lib, [1., 2.])),
    "jacrev scalar input": lambda lib, F: F.jacrev(lambda x: x.sin())(_t(lib, 1.)),
    "jacrev has_aux": lambda lib, F: F.jacrev(lambda x: (x ** 2, x.sum()), has_aux=True)(
        _t(lib, [1., 3.])),
    "jacrev chunk_size": lambda lib, F: F.jacrev(lambda x: x, chunk_size=0),
    "jacfwd": lambda lib, F: F.jacfwd(lambda x: x.sin() * x.sum())(_t(lib, [0.1, 0.5, 0.9])),
    "jacfwd matrix input": lambda lib, F: F.jacfwd(lambda x: x.t() @ x)(
        _t(lib, [[1., 2.], [0.5, -1.]])),
    "jacfwd two outputs": lambda lib, F: F.jacfwd(lambda x: (x.exp(), x.sum()))(
        _t(lib, [0., 1.])),
    "jacfwd of jacfwd": lambda lib, F: F.jacfwd(F.jacfwd(lambda x: x.exp().sum()))(
        _t(lib, [0.3, 0.7])),
    "jacrev of jacrev": lambda lib, F: F.jacrev(F.jacrev(lambda x: x.sin().prod()))(
        _t(lib, [0.3, 0.7])),
    "hessian": lambda lib, F: F.hessian(lambda x: (x.sin() * x.roll(1)).sum())(
        _t(lib, [0.1, 0.5, 0.9])),
    "hessian argnums": lambda lib, F: F.hessian(lambda x, y: (x * x * y).sum(), argnums=(0, 1))(
        _t(lib, [1., 2.]), _t(lib, [3., 4.])),
    "hessian of mlp loss": lambda lib, F: F.hessian(_mlp_loss(lib, F))(_params(lib),
                                                                       *_batch(lib))["w2"],
    # conv's derivatives go through FROM_BACKWARD's placeholder leaves: none may leak a graph
    "hessian of a convolution": lambda lib, F: F.hessian(
        lambda k: lib.nn.functional.conv2d(lib.arange(16.).reshape(1, 1, 4, 4), k,
                                           padding=1).pow(2).sum())(lib.ones(1, 1, 2, 2)),
    # vmap
    "vmap": lambda lib, F: F.vmap(lambda a: a.sum() * a)(_t(lib, [[1., 2.], [3., 4.]])),
    "vmap in_dims": lambda lib, F: F.vmap(lambda x, y: x * y, in_dims=(1, None))(
        _t(lib, [[1., 2., 3.], [4., 5., 6.]]), _t(lib, [2., 3.])),
    "vmap negative in_dim": lambda lib, F: F.vmap(lambda x: x.sum(), in_dims=-1)(
        _t(lib, [[1., 2., 3.], [4., 5., 6.]])),
    "vmap out_dims": lambda lib, F: F.vmap(lambda x: (x * 2, x.sum()), out_dims=(1, 0))(
        _t(lib, [[1., 2., 3.], [4., 5., 6.]])),
    "vmap out_dims None": lambda lib, F: F.vmap(lambda x: (x * 2, 5.0), out_dims=(0, None))(
        _t(lib, [[1., 2.], [3., 4.]])),
    "vmap dict input": lambda lib, F: F.vmap(lambda d: d["a"] + d["b"])(
        {"a": _t(lib, [[1., 2.]]), "b": _t(lib, [[3., 4.]])}),
    "vmap nested in_dims": lambda lib, F: F.vmap(lambda p, x: p[0] * x + p[1],
                                                 in_dims=((0, None), 0))(
        (_t(lib, [1., 2.]), _t(lib, 10.)), _t(lib, [3., 4.])),
    "vmap of vmap": lambda lib, F: F.vmap(F.vmap(lambda x: x.sum()))(lib.ones(2, 3, 4)),
    "vmap empty batch": lambda lib, F: F.vmap(lambda x: x * 2)(lib.ones(0, 3)),
    "vmap per-sample grads": lambda lib, F: F.vmap(F.grad(_mlp_loss(lib, F)),
                                                   in_dims=(None, 0, 0))(_params(lib),
                                                                         *_batch(lib)),
    "vmap of jacrev": lambda lib, F: F.vmap(F.jacrev(lambda x: x ** 2))(
        _t(lib, [[1., 2.], [3., 4.]])),
    "vmap size mismatch": lambda lib, F: F.vmap(lambda a, b: a + b)(lib.ones(2, 3),
                                                                    lib.ones(3, 3)),
    "vmap bad in_dim": lambda lib, F: F.vmap(lambda a: a, in_dims=2)(lib.ones(2, 3)),
    "vmap in_dims None": lambda lib, F: F.vmap(lambda a: a, in_dims=None)(lib.ones(2)),
    "vmap in_dims str": lambda lib, F: F.vmap(lambda a: a, in_dims="a")(lib.ones(2)),
    "vmap in_dims structure": lambda lib, F: F.vmap(lambda a: a, in_dims=(0, 0))(lib.ones(2)),
    "vmap no inputs": lambda lib, F: F.vmap(lambda: lib.ones(2))(),
    "vmap non-tensor input": lambda lib, F: F.vmap(lambda a: a)(3.0),
    "vmap non-tensor output": lambda lib, F: F.vmap(lambda a: 3.0)(lib.ones(2)),
    "vmap bad out_dim": lambda lib, F: F.vmap(lambda a: a, out_dims=2)(lib.ones(2)),
    "vmap bad randomness": lambda lib, F: F.vmap(lambda a: a, randomness="bad"),
    "vmap random in error mode": lambda lib, F: F.vmap(lambda a: a + lib.rand(3))(
        lib.ones(2, 3)),
    "vmap randomness different": lambda lib, F: _random_case(lib, F, "different"),
    "vmap randomness same": lambda lib, F: _random_case(lib, F, "same"),
    # modules as functions
    "ensemble with stack_module_state": lambda lib, F: _ensemble_case(lib, F),
    "functional_call repeated keys": lambda lib, F: F.functional_call(
        lib.nn.Linear(3, 2), ({"weight": lib.ones(2, 3)}, {"weight": lib.ones(2, 3)}),
        (lib.ones(1, 3),)),
    "functional_call not dicts": lambda lib, F: F.functional_call(lib.nn.Linear(3, 2), 3,
                                                                  (lib.ones(1, 3),)),
    "stack_module_state of none": lambda lib, F: F.stack_module_state([]),
    "stack_module_state mixed modes": lambda lib, F: F.stack_module_state(
        [lib.nn.Linear(1, 1), lib.nn.Linear(1, 1).eval()]),
    "replace_all_batch_norm_modules_": lambda lib, F: _bn_case(lib, F),
    # torch.return_types results are pytree nodes: the transforms see through them
    "jvp of max(x, 1)": lambda lib, F: F.jvp(lambda x: lib.max(x, 1), (_RT(lib),),
                                             (lib.ones(2, 3),)),
    "jvp of a nest with sort": lambda lib, F: F.jvp(
        lambda x: {"a": x.sort(1), "b": [x.sum()]}, (_RT(lib),), (lib.ones(2, 3),)),
    "jacfwd of max(x, 1)": lambda lib, F: F.jacfwd(lambda x: lib.max(x, 1))(_RT(lib)),
    "vmap of max(x, 0)": lambda lib, F: F.vmap(lambda x: lib.max(x, 0))(_RT(lib)),
    "grad through max(x, 1).values": lambda lib, F: F.grad(
        lambda x: lib.max(x, 1).values.sum())(_RT(lib)),
    "jacrev of aminmax().min": lambda lib, F: F.jacrev(lambda x: lib.aminmax(x).min)(_RT(lib)),
    "vjp of max(x, 1) (int indices)": lambda lib, F: F.vjp(lambda x: lib.max(x, 1), _RT(lib)),
    "jacrev of max(x, 1) (int indices)": lambda lib, F: F.jacrev(lambda x: lib.max(x, 1))(
        _RT(lib)),
    "jvp of an int": lambda lib, F: F.jvp(lambda x: (x, 1), (_RT(lib),), (lib.ones(2, 3),)),
    "jvp of nothing": lambda lib, F: F.jvp(lambda x: (), (_RT(lib),), (lib.ones(2, 3),)),
    "jvp of None": lambda lib, F: F.jvp(lambda x: None, (_RT(lib),), (lib.ones(2, 3),)),
    "vjp of nothing": lambda lib, F: F.vjp(lambda x: [], _RT(lib)),
    "tree_map over max(x, 1)": lambda lib, F: lib.utils._pytree.tree_map(
        lambda v: v * 2, lib.max(_RT(lib), 1)),
}


def _RT(lib):
    return lib.tensor([[1., 5., 2.], [7., 3., 4.]])


def _ensemble_case(lib, F):
    lib.manual_seed(0)
    models = [lib.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = F.stack_module_state(models)
    x = lib.ones(5, 3, dtype=lib.float32)
    out = F.vmap(lambda p, b, x: F.functional_call(models[0], (p, b), (x,)),
                 in_dims=(0, 0, None))(params, buffers, x)
    out.pow(2).sum().backward()
    return out, params["weight"].grad, params["bias"].is_leaf


def _bn_case(lib, F):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    F.replace_all_batch_norm_modules_(m)
    return (m[1].running_mean is None, m[1].track_running_stats,
            m(lib.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]])))


def _closure_case(lib, F):
    w = _t(lib, [1., -1., 2.], requires_grad=True)
    g = F.grad(lambda x: (x * w).sum() ** 2)(_t(lib, [1., 2., 3.]))
    return g, lib.autograd.grad(g.sum(), w)[0]


def _vjp_case(lib, F, f, x, v):
    out, fn = F.vjp(f, _t(lib, x))
    return out, fn(_t(lib, v))


def _vjp_twice(lib, F):
    _, fn = F.vjp(lambda x: x.exp() * x, _t(lib, [0.5, 1.5]))
    return fn(_t(lib, [1., 0.])), fn(_t(lib, [0., 1.]))


def _linearize_case(lib, F):
    out, fn = F.linearize(lambda x: x.sin() * x, _t(lib, [0.3, 0.6]))
    return out, fn(_t(lib, [1., 0.])), fn(_t(lib, [0., 2.]))


def _random_case(lib, F, mode):
    lib.manual_seed(0)
    out = F.vmap(lambda a: a + lib.rand(3), randomness=mode)(lib.ones(2, 3))
    return out, lib.rand(2)


def _run(lib, name):
    F = torch.func if lib is torch else dyngrad.func
    try:
        return CASES[name](lib, F), None
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return None, e


def _flat(result):
    lib = torch if any(isinstance(x, torch.Tensor) for x in tp.tree_leaves(result)) else dyngrad
    leaves, spec = lib.utils._pytree.tree_flatten(result)   # (each knows its return types)
    return leaves, lib.utils._pytree.treespec_pprint(spec)


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    expected, texc = _run(torch, name)
    got, exc = _run(dyngrad, name)
    if texc is not None:
        assert exc is not None, f"torch raised {texc!r}, dyngrad returned {got!r}"
        assert (type(exc), str(exc)) == (type(texc), str(texc))
        return
    assert exc is None, f"dyngrad raised {exc!r}"
    (tl, tspec), (dl, dspec) = _flat(expected), _flat(got)
    assert dspec == tspec
    for d, t in zip(dl, tl):
        if not isinstance(t, torch.Tensor):
            assert d == t
            continue
        assert str(d.dtype) == str(t.dtype)
        assert tuple(d.shape) == tuple(t.shape)
        assert d.requires_grad == t.requires_grad
        tol = 1e-10 if t.dtype == torch.float64 else 1e-5
        np.testing.assert_allclose(d.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def test_vmap_loop_differences():
    """What Note [vmap as a loop] says stays different: .item() and data-dependent control
    flow work per sample (torch refuses them), and several random draws per sample come in
    sample order (torch draws each call's batch at once)."""
    x = dyngrad.tensor([[1.0, -2.0], [3.0, 4.0]])
    out = dyngrad.func.vmap(lambda a: a * 2 if a.sum().item() > 0 else a)(x)
    assert out.tolist() == [[1.0, -2.0], [6.0, 8.0]]
    with pytest.raises(RuntimeError, match="item"):
        torch.func.vmap(lambda a: a * 2 if a.sum().item() > 0 else a)(torch.tensor(x.tolist()))


def test_pytree_matches_torch():
    """Flattening order, the spec's repr and unflattening, against torch.utils._pytree."""
    import collections
    from torch.utils import _pytree as tp
    Point = collections.namedtuple("Point", "x y")
    tree = {"b": [1, (2, 3)], "a": Point(4, {"c": 5}), "d": None}
    leaves, spec = _pytree.tree_flatten(tree)
    tleaves, tspec = tp.tree_flatten(tree)
    assert leaves == tleaves
    assert _pytree.tree_unflatten([x * 10 if x else x for x in leaves], spec) == \
        tp.tree_unflatten([x * 10 if x else x for x in tleaves], tspec)
    simple = (1, [2, 3], {"k": 4})
    assert repr(_pytree.tree_flatten(simple)[1]) == repr(tp.tree_flatten(simple)[1])


def _old_style(L):
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return F


FUNCTION_UNDER_TRANSFORMS = {
    "vmap": lambda L, F: L.vmap(F.apply)(L.ones(3, 2)),
    "grad": lambda L, F: L.func.grad(lambda a: F.apply(a).sum())(L.ones(2)),
    "jacrev": lambda L, F: L.func.jacrev(F.apply)(L.ones(2)),
    "jacfwd": lambda L, F: L.func.jacfwd(F.apply)(L.ones(2)),
    "vjp": lambda L, F: L.func.vjp(F.apply, L.ones(2))[0],
    "jvp": lambda L, F: L.func.jvp(F.apply, (L.ones(2),), (L.ones(2),)),
    "after a transform": lambda L, F: (L.func.grad(lambda a: a.sum())(L.ones(2)),
                                       F.apply(L.ones(2, requires_grad=True))),
    "autograd.functional": lambda L, F: L.autograd.functional.jacobian(F.apply, L.ones(2)),
}


@pytest.mark.parametrize("case", FUNCTION_UNDER_TRANSFORMS)
def test_function_without_setup_context_under_transforms(case):
    """A custom Function without setup_context is refused inside torch.func's transforms (torch's
    error), and works outside them."""
    from compare import same_outcome
    # (torch's first jacfwd in a process warns of torch.jit.script, from its own internals)
    same_outcome(lambda L: FUNCTION_UNDER_TRANSFORMS[case](L, _old_style(L)), warns=False)
