"""biject_to / transform_to and the Cat/Stack/CumulativeDistribution transforms against
torch: the chosen transform (repr, domain, codomain, bijective), values, inverses, log|det J|
and gradients."""
import numpy as np
import pytest
import torch

import dyngrad


def close(a, b, rtol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=1e-12)
    assert tuple(a.shape) == tuple(b.shape)


def _constraint(lib, name):
    C = lib.distributions.constraints
    t = lambda v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
    return {
        "real": lambda: C.real,
        "real_vector": lambda: C.real_vector,
        "positive": lambda: C.positive,
        "nonnegative": lambda: C.nonnegative,
        "greater_than": lambda: C.greater_than(t([1.0, -2.0, 0.5])),
        "greater_than_eq": lambda: C.greater_than_eq(2.0),
        "less_than": lambda: C.less_than(t([1.0, -2.0, 0.5])),
        "unit_interval": lambda: C.unit_interval,
        "interval": lambda: C.interval(t([-1.0, 0.0, 2.0]), t([1.0, 3.0, 2.5])),
        "half_open_interval": lambda: C.half_open_interval(-2.0, 5.0),
        "independent_positive": lambda: C.independent(C.positive, 1),
        "simplex": lambda: C.simplex,
        "corr_cholesky": lambda: C.corr_cholesky,
        "lower_cholesky": lambda: C.lower_cholesky,
        "positive_definite": lambda: C.positive_definite,
        "positive_semidefinite": lambda: C.positive_semidefinite,
        "cat": lambda: C.cat([C.real, C.positive, C.unit_interval], dim=-1, lengths=[1, 1, 1]),
        "stack": lambda: C.stack([C.positive, C.real, C.interval(0.0, 4.0)], dim=-1),
    }[name]()


BIJECT = ["real", "real_vector", "positive", "nonnegative", "greater_than", "greater_than_eq",
          "less_than", "unit_interval", "interval", "half_open_interval",
          "independent_positive", "simplex", "corr_cholesky", "cat", "stack"]
TRANSFORM = BIJECT + ["lower_cholesky", "positive_definite", "positive_semidefinite"]
SQUARE = {"lower_cholesky", "positive_definite", "positive_semidefinite"}
X = np.random.default_rng(5).normal(size=(2, 3))
XM = np.random.default_rng(6).normal(size=(2, 3, 3))


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", TRANSFORM)
def test_registry_like_torch(registry, name):
    if registry == "biject_to" and name not in BIJECT:
        for lib in (torch, dyngrad):
            with pytest.raises(NotImplementedError,
                               match=f"Cannot transform {type(_constraint(lib, name)).__name__}"
                                     " constraints"):
                getattr(lib.distributions, registry)(_constraint(lib, name))
        return
    tt = getattr(torch.distributions, registry)(_constraint(torch, name))
    dt = getattr(dyngrad.distributions, registry)(_constraint(dyngrad, name))
    assert repr(dt) == repr(tt)
    assert type(dt).__name__ == type(tt).__name__
    assert dt.bijective == tt.bijective
    assert repr(dt.domain) == repr(tt.domain)
    arr = XM if name in SQUARE else X
    tx = torch.tensor(arr, requires_grad=True)
    dx = dyngrad.tensor(arr, requires_grad=True)
    ty, dy = tt(tx), dt(dx)
    close(dy, ty)
    assert bool(dt.codomain.check(dy).all()) == bool(tt.codomain.check(ty).all())
    close(dt.inv(dy), tt.inv(ty))
    if not tt.bijective:      # no log|det J| (softmax, lower Cholesky, L L^T)
        (ty.sum()).backward()
        (dy.sum()).backward()
    else:
        tl, dl = tt.log_abs_det_jacobian(tx, ty), dt.log_abs_det_jacobian(dx, dy)
        close(dl, tl)
        (tl.sum() + ty.sum()).backward()
        (dl.sum() + dy.sum()).backward()
    close(dx.grad, tx.grad)


def test_registry_register_and_errors_like_torch():
    for lib in (torch, dyngrad):
        D = lib.distributions
        reg = D.constraint_registry.ConstraintRegistry()
        with pytest.raises(NotImplementedError, match="Cannot transform _Real constraints"):
            reg(D.constraints.real)
        with pytest.raises(TypeError, match="Expected constraint to be either a Constraint "
                                            "subclass or instance, but got 3"):
            reg.register(3, lambda c: None)

        @reg.register(D.constraints.positive)
        def _f(c):
            return D.transforms.SoftplusTransform()
        assert isinstance(reg(D.constraints.positive), D.transforms.SoftplusTransform)
        reg.register(type(D.constraints.real), lambda c: D.transforms.ExpTransform())
        assert isinstance(reg(D.constraints.real), D.transforms.ExpTransform)


def _cat_stack(lib, name):
    T = lib.distributions.transforms
    t = lambda v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
    return {
        "cat0": lambda: T.CatTransform([T.ExpTransform(), T.identity_transform,
                                        T.SigmoidTransform()], dim=0, lengths=[1, 1, 0]),
        "cat_last": lambda: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 3.0)],
                                           dim=-1, lengths=[2, 1]),
        "cat_event": lambda: T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1),
                                             T.AffineTransform(0.0, 2.0)],
                                            dim=-1, lengths=[2, 1]),
        "cat_batchdim_event": lambda: T.CatTransform(
            [T.IndependentTransform(T.ExpTransform(), 1),
             T.IndependentTransform(T.SigmoidTransform(), 1)],
            dim=0, lengths=[1, 1]),
        "stack": lambda: T.StackTransform([T.ExpTransform(), T.TanhTransform(),
                                           T.AffineTransform(t(2.0), t(-1.5))], dim=1),
        "stack0": lambda: T.StackTransform([T.SoftplusTransform(), T.ExpTransform()], dim=0),
        "cdf": lambda: T.CumulativeDistributionTransform(
            lib.distributions.Normal(t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5]))),
    }[name]()


@pytest.mark.parametrize("name", ["cat0", "cat_last", "cat_event", "cat_batchdim_event",
                                  "stack", "stack0", "cdf"])
def test_cat_stack_cdf_transforms_like_torch(name):
    tt, dt = _cat_stack(torch, name), _cat_stack(dyngrad, name)
    arr = X
    tx = torch.tensor(arr, requires_grad=True)
    dx = dyngrad.tensor(arr, requires_grad=True)
    ty, dy = tt(tx), dt(dx)
    close(dy, ty)
    close(dt.inv(dy), tt.inv(ty))
    assert dt.bijective == tt.bijective and repr(dt) == repr(tt)
    assert repr(dt.domain) == repr(tt.domain) and repr(dt.codomain) == repr(tt.codomain)
    assert dyngrad.distributions.__dict__[type(dt).__name__] is type(dt)
    if name.startswith("cat"):
        assert dt.event_dim == tt.event_dim and dt.length == tt.length
    tl, dl = tt.log_abs_det_jacobian(tx, ty), dt.log_abs_det_jacobian(dx, dy)
    close(dl, tl)
    (tl.sum() + ty.sum()).backward()
    (dl.sum() + dy.sum()).backward()
    close(dx.grad, tx.grad)
    c = dt.with_cache(1)
    assert c(dx) is c(dx) and c.inv(c(dx)) is dx


@pytest.mark.parametrize("fn", [
    lambda lib: lib.distributions.transforms.CatTransform([1]),
    lambda lib: lib.distributions.transforms.CatTransform(
        [lib.distributions.transforms.ExpTransform()], lengths=[1, 2]),
    lambda lib: lib.distributions.transforms.CatTransform(
        [lib.distributions.transforms.ExpTransform()], dim=0, lengths=[2])(lib.zeros(3)),
    lambda lib: lib.distributions.transforms.CatTransform(
        [lib.distributions.transforms.ExpTransform()], dim=3)(lib.zeros(3)),
    lambda lib: lib.distributions.transforms.StackTransform(
        [lib.distributions.transforms.ExpTransform()], dim=0)(lib.zeros(3)),
    lambda lib: lib.distributions.transforms.StackTransform(
        [lib.distributions.transforms.ExpTransform()], dim=0).inv(lib.zeros(2, 2)),
])
def test_cat_stack_errors_like_torch(fn):
    with pytest.raises(Exception) as te:
        fn(torch)
    with pytest.raises(Exception) as de:
        fn(dyngrad)
    assert type(de.value) is type(te.value)
    assert str(de.value) == str(te.value)
