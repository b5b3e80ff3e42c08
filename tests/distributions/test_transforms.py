"""dyngrad.distributions.transforms against torch's: values, inverses, log|det J|,
gradients, shapes, repr, domain/codomain, caching."""
import numpy as np
import pytest
import torch

import dyngrad

X = np.random.default_rng(2).normal(size=(2, 3))
M = np.random.default_rng(3).normal(size=(2, 3, 3))


def _mk(lib, name):
    T = lib.distributions.transforms
    return {
        "exp": lambda: T.ExpTransform(),
        "sigmoid": lambda: T.SigmoidTransform(),
        "tanh": lambda: T.TanhTransform(),
        "softplus": lambda: T.SoftplusTransform(),
        "affine": lambda: T.AffineTransform(lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64),
                                            lib.tensor([2.0, 0.5, -3.0], dtype=lib.float64)),
        "affine_num": lambda: T.AffineTransform(1.0, -2.0),
        "affine_event": lambda: T.AffineTransform(0.0, lib.tensor([1.0, 2.0, 3.0],
                                                                  dtype=lib.float64), 1),
        "power": lambda: T.ComposeTransform([T.ExpTransform(), T.PowerTransform(
            lib.tensor(1.5, dtype=lib.float64))]),
        "stick": lambda: T.StickBreakingTransform(),
        "compose": lambda: T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.TanhTransform(),
                                               T.ExpTransform().inv]),
        "exp_inv": lambda: T.ExpTransform().inv.inv,
        "independent": lambda: T.IndependentTransform(T.SigmoidTransform(), 1),
        "reshape": lambda: T.ReshapeTransform((3,), (3, 1)),
    }[name]()


NAMES = ["exp", "sigmoid", "tanh", "softplus", "affine", "affine_num", "affine_event", "power",
         "stick", "compose", "exp_inv", "independent", "reshape"]


def close(a, b, rtol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=1e-12)
    assert tuple(a.shape) == tuple(b.shape)


@pytest.mark.parametrize("name", NAMES)
def test_transform_like_torch(name):
    tt, dt = _mk(torch, name), _mk(dyngrad, name)
    tx = torch.tensor(X, requires_grad=True)
    dx = dyngrad.tensor(X, requires_grad=True)
    ty, dy = tt(tx), dt(dx)
    close(dy, ty)
    close(dt.inv(dy), tt.inv(ty))
    assert repr(dt) == repr(tt)
    assert repr(dt.domain) == repr(tt.domain) and repr(dt.codomain) == repr(tt.codomain)
    assert dt.bijective == tt.bijective
    assert tuple(dt.forward_shape((4, 2, 3))) == tuple(tt.forward_shape((4, 2, 3)))
    tl, dl = tt.log_abs_det_jacobian(tx, ty), dt.log_abs_det_jacobian(dx, dy)
    close(dl, tl)
    (tl.sum() + ty.sum()).backward()
    (dl.sum() + dy.sum()).backward()
    close(dx.grad, tx.grad)


def test_lower_cholesky_and_softmax_like_torch():
    for cls, arr in (("LowerCholeskyTransform", M), ("SoftmaxTransform", X),
                     ("CorrCholeskyTransform", X)):
        tt = getattr(torch.distributions.transforms, cls)()
        dt = getattr(dyngrad.distributions.transforms, cls)()
        ty, dy = tt(torch.tensor(arr)), dt(dyngrad.tensor(arr))
        close(dy, ty)
        close(dt.inv(dy), tt.inv(ty))


def test_inverse_identity_and_cache():
    T = dyngrad.distributions.transforms
    t = T.ExpTransform()
    assert t.inv.inv is t and t.inv == T.ExpTransform().inv
    c = T.ExpTransform(cache_size=1)
    x = dyngrad.tensor([1.0, 2.0])
    y = c(x)
    assert c.inv(y) is x
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)


def test_transformed_distribution_like_torch():
    for lib in (torch, dyngrad):
        D = lib.distributions
        base = D.Normal(lib.tensor(X[0]), lib.tensor(np.abs(X[1]) + 0.5))
        lib.manual_seed(5)
        d = D.TransformedDistribution(base, [D.transforms.AffineTransform(1.0, 2.0),
                                             D.transforms.SigmoidTransform()])
        out = (d.sample((3,)), d.log_prob(lib.tensor([0.2, 0.5, 0.9])),
               d.cdf(lib.tensor([0.2, 0.5, 0.9])), repr(d.support), tuple(d.batch_shape))
        if lib is torch:
            ref = out
    for a, b in zip(out, ref):
        if isinstance(a, dyngrad.Tensor):
            close(a, b)
        else:
            assert a == b
