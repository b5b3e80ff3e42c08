"""autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) against live torch."""
import warnings

import numpy as np
import pytest

from tests.compare import like_torch


def mk(lib, *shapes, rg=False, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(lib.tensor(rng.standard_normal(s), requires_grad=rg) for s in shapes)


def F(lib):
    return lib.autograd.functional


CASES = {
    "jacobian exp-sum": lambda L: F(L).jacobian(lambda x: x.exp().sum(1), mk(L, (3, 4))[0]),
    "jacobian tuple in/out": lambda L: F(L).jacobian(
        lambda x, y: (x * y, (x ** 2).sum(), y.sin()), mk(L, (3,), (3,))),
    "jacobian independent output": lambda L: F(L).jacobian(
        lambda x, y: (x * 2, x.sum()), mk(L, (3,), (2,))),
    "jacobian vectorize": lambda L: F(L).jacobian(
        lambda x, y: (x * 2, x.sum()), mk(L, (3,), (2,)), vectorize=True),
    "jacobian create_graph": lambda L: F(L).jacobian(
        lambda x: x.exp(), mk(L, (3,), rg=True)[0], create_graph=True),
    "jacobian matmul": lambda L: F(L).jacobian(lambda a, b: a @ b, mk(L, (2, 3), (3, 2))),
    "jacobian forward-mode": lambda L: F(L).jacobian(
        lambda x: x.tanh(), mk(L, (3,))[0], strategy="forward-mode", vectorize=True),
    "hessian": lambda L: F(L).hessian(lambda x: (x ** 3).sum(), mk(L, (2, 2))[0]),
    "hessian tuple": lambda L: F(L).hessian(lambda x, y: (x * y.exp()).sum(), mk(L, (2,), (2,))),
    "hessian logsumexp": lambda L: F(L).hessian(lambda x: x.logsumexp(0), mk(L, (4,))[0]),
    "vjp": lambda L: F(L).vjp(lambda x: x.exp().sum(1), *mk(L, (4, 4), (4,))),
    "vjp scalar": lambda L: F(L).vjp(lambda x: (x.sigmoid() ** 2).sum(), mk(L, (3,))[0]),
    "jvp": lambda L: F(L).jvp(lambda x: x.exp().sum(1), *mk(L, (4, 4), (4, 4))),
    "jvp create_graph": lambda L: F(L).jvp(lambda x: x.exp().sum(1), *mk(L, (4, 4), (4, 4)),
                                           create_graph=True),
    "jvp tuple": lambda L: F(L).jvp(lambda x, y: (x * y, y.cos()), mk(L, (3,), (3,)),
                                    mk(L, (3,), (3,), seed=1)),
    "hvp": lambda L: F(L).hvp(lambda x: (x ** 3).sum(), *mk(L, (3,), (3,))),
    "vhp tuple": lambda L: F(L).vhp(lambda x, y: (x ** 2 * y).sum(), mk(L, (3,), (3,)),
                                    mk(L, (3,), (3,), seed=1)),
    "hvp independent input": lambda L: F(L).hvp(lambda x, y: (x ** 3).sum(), mk(L, (3,), (2,)),
                                                mk(L, (3,), (2,), seed=1)),
    # errors
    "strict jacobian": lambda L: F(L).jacobian(lambda x, y: x * 2, mk(L, (3,), (3,)),
                                               strict=True),
    "strict hessian linear": lambda L: F(L).hessian(lambda x: x.sum(), mk(L, (3,))[0],
                                                    strict=True),
    "strict jvp": lambda L: F(L).jvp(lambda x, y: x * 2, mk(L, (3,), (3,)),
                                     mk(L, (3,), (3,)), strict=True),
    "strict vjp output": lambda L: F(L).vjp(lambda x: x.detach(), *mk(L, (3,), (3,)),
                                            strict=True),
    "strict vectorize": lambda L: F(L).jacobian(lambda x: x, mk(L, (3,))[0], strict=True,
                                                vectorize=True),
    "forward-mode without vectorize": lambda L: F(L).jacobian(
        lambda x: x.exp(), mk(L, (3,))[0], strategy="forward-mode"),
    "bad strategy": lambda L: F(L).jacobian(lambda x: x, mk(L, (3,))[0], strategy="x"),
    "non-tensor input": lambda L: F(L).jacobian(lambda x: x.exp(), [1]),
    "non-tensor in tuple": lambda L: F(L).vjp(lambda x, y: x, (mk(L, (3,))[0], 2)),
    "non-tensor output": lambda L: F(L).jacobian(lambda x: 3, mk(L, (3,))[0]),
    "v needed": lambda L: F(L).vjp(lambda x: x.exp(), mk(L, (3,))[0]),
    "v wrong size": lambda L: F(L).jvp(lambda x: x.exp(), *mk(L, (3,), (2,))),
    "v wrong length": lambda L: F(L).vhp(lambda x, y: (x * y).sum(), mk(L, (3,), (3,)),
                                         mk(L, (3,))),
    "hessian non-scalar": lambda L: F(L).hessian(lambda x: x * 2, mk(L, (3,))[0]),
    "hvp tuple output": lambda L: F(L).hvp(lambda x: (x.sum(), x.sum()), *mk(L, (3,), (3,))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_like_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        like_torch(CASES[name], rtol=1e-12, atol=1e-12)


def test_create_graph_higher_order():
    """A Jacobian with create_graph is itself differentiable: d/dx sum(J) against torch."""
    def fn(L):
        x = mk(L, (3,), rg=True)[0]
        jac = F(L).jacobian(lambda a: a.sin() * a, x, create_graph=True)
        g, = L.autograd.grad(jac.sum(), x)
        _, hv = F(L).hvp(lambda a: (a.exp() * a).sum(), x, x.detach(), create_graph=True)
        g2, = L.autograd.grad(hv.sum(), x)
        return jac, g, g2
    like_torch(fn, rtol=1e-12, atol=1e-12)


def test_hessian_forward_outer_values():
    import torch
    import dyngrad
    got = dyngrad.autograd.functional.hessian(lambda x: (x ** 3).sum(), mk(dyngrad, (2,))[0],
                                              vectorize=True,
                                              outer_jacobian_strategy="forward-mode")
    want = torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), mk(torch, (2,))[0],
                                             vectorize=True,
                                             outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)
