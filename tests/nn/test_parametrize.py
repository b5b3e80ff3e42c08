"""nn.utils.parametrize and nn.utils.parametrizations against torch: the class swap, reprs,
state_dict keys, values and gradients, right_inverse (one tensor or a tuple), caching,
removal, transfer, errors; orthogonal (three maps, with and without trivialization),
spectral_norm (power iteration from torch's random u/v) and weight_norm."""
import copy
import pickle

import numpy as np
import pytest
import torch

import dyngrad
from tests.nn._seq_compare import raises_same

LIBS = (dyngrad, torch)


def npy(t):
    return np.array(t.detach().numpy())


def close(a, b, rtol=1e-6, atol=1e-7):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(npy(a), npy(b), rtol=rtol, atol=atol)


def module_classes(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

    class Scale(lib.nn.Module):
        def __init__(self, s=2.0):
            super().__init__()
            self.s = s

        def forward(self, X):
            return X * self.s

        def right_inverse(self, Y):
            return Y / self.s

    class SumOfTwo(lib.nn.Module):   # right_inverse returns a tuple
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    class Expm(lib.nn.Module):
        def forward(self, X):
            return lib.matrix_exp(X)

    return dict(Symmetric=Symmetric, Scale=Scale, SumOfTwo=SumOfTwo, Expm=Expm)


def pair(build, seed=0):
    """``build(lib, classes)`` on both libraries from the same seed."""
    out = []
    for lib in LIBS:
        lib.manual_seed(seed)
        out.append(build(lib, module_classes(lib)))
    return out


def compare_modules(ours, theirs, x_shape=(2, 3), seed=1):
    assert repr(ours) == repr(theirs)
    assert type(ours).__name__ == type(theirs).__name__
    sd_o, sd_t = ours.state_dict(), theirs.state_dict()
    assert list(sd_o) == list(sd_t)
    for k in sd_o:
        close(sd_o[k], sd_t[k])
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x = np.random.default_rng(seed).standard_normal(x_shape).astype(np.float32)
    yo, yt = ours(dyngrad.tensor(x)), theirs(torch.tensor(x))
    close(yo, yt, rtol=1e-5, atol=1e-6)
    yo.square().sum().backward()
    yt.square().sum().backward()
    params_t = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        assert (p.grad is None) == (params_t[name].grad is None), name
        if p.grad is not None:
            close(p.grad, params_t[name].grad, rtol=1e-4, atol=1e-5)


def test_register_repr_state_dict_grad():
    def build(lib, c):
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", c["Symmetric"]())
        return m
    ours, theirs = pair(build)
    compare_modules(ours, theirs)
    assert type(ours.weight.grad_fn).__name__ == type(theirs.weight.grad_fn).__name__
    P = dyngrad.nn.utils.parametrize
    assert P.is_parametrized(ours) and P.is_parametrized(ours, "weight")
    assert not P.is_parametrized(ours, "bias")
    assert P.type_before_parametrizations(ours) is dyngrad.nn.Linear
    assert isinstance(ours, dyngrad.nn.Linear)
    assert isinstance(ours.parametrizations.weight, P.ParametrizationList)


def test_chained_and_buffer_parametrizations():
    def build(lib, c):
        m = lib.nn.Linear(3, 3)
        m.register_buffer("buf", lib.randn(3, 3))
        R = lib.nn.utils.parametrize
        R.register_parametrization(m, "weight", c["Symmetric"]())
        R.register_parametrization(m, "weight", c["Scale"](3.0))
        R.register_parametrization(m, "bias", c["Scale"]())
        R.register_parametrization(m, "buf", c["Expm"]())
        return m
    ours, theirs = pair(build)
    compare_modules(ours, theirs)
    close(ours.buf, theirs.buf, rtol=1e-5)


def test_right_inverse_assignment_and_sequence():
    def build(lib, c):
        m = lib.nn.Linear(3, 4)
        R = lib.nn.utils.parametrize
        R.register_parametrization(m, "weight", c["SumOfTwo"]())
        R.register_parametrization(m, "bias", c["Scale"](4.0))
        m.bias = lib.arange(4.0)            # through right_inverse
        return m
    ours, theirs = pair(build)
    compare_modules(ours, theirs, (2, 3))
    close(ours.parametrizations.bias.original, theirs.parametrizations.bias.original)
    assert ours.parametrizations.weight.ntensors == 2
    for lib, m in zip(LIBS, (ours, theirs)):
        with lib.no_grad():
            m.weight = lib.ones(4, 3)
    close(ours.parametrizations.weight.original1, theirs.parametrizations.weight.original1)
    close(ours.weight, theirs.weight)


def test_original_keeps_identity_and_shares_memory():
    m = dyngrad.nn.Linear(3, 3)
    w = m.weight
    dyngrad.nn.utils.parametrize.register_parametrization(
        m, "weight", module_classes(dyngrad)["Scale"]())
    assert m.parametrizations.weight.original is w
    assert isinstance(w, dyngrad.nn.Parameter) and w.requires_grad


@pytest.mark.parametrize("leave_parametrized", [True, False])
@pytest.mark.parametrize("which", ["Scale", "SumOfTwo"])
def test_remove_parametrizations(leave_parametrized, which):
    def build(lib, c):
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", c[which]())
        return m
    ours, theirs = pair(build)
    if which == "SumOfTwo" and not leave_parametrized:
        raises_same(lambda lib: lib.nn.utils.parametrize.remove_parametrizations(
            ours if lib is dyngrad else theirs, "weight", leave_parametrized=False))
        return
    for lib, m in zip(LIBS, (ours, theirs)):
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized)
    assert type(ours) is dyngrad.nn.Linear and type(theirs) is torch.nn.Linear
    assert not hasattr(ours, "parametrizations")
    compare_modules(ours, theirs)
    assert isinstance(ours.weight, dyngrad.nn.Parameter)


def test_remove_one_of_two_keeps_class():
    def build(lib, c):
        m = lib.nn.Linear(3, 3)
        R = lib.nn.utils.parametrize
        R.register_parametrization(m, "weight", c["Scale"]())
        R.register_parametrization(m, "bias", c["Scale"]())
        R.remove_parametrizations(m, "bias")
        return m
    ours, theirs = pair(build)
    compare_modules(ours, theirs)


def test_cached():
    calls = []

    class Counting(dyngrad.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2

    m = dyngrad.nn.Linear(3, 3)
    dyngrad.nn.utils.parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    with dyngrad.nn.utils.parametrize.cached():
        a, b = m.weight, m.weight
        with dyngrad.nn.utils.parametrize.cached():
            c = m.weight
    assert a is b is c and len(calls) == 1
    m.weight
    assert len(calls) == 2


def test_transfer_parametrizations_and_params():
    def build(lib, c):
        R = lib.nn.utils.parametrize
        src = lib.nn.Linear(3, 3)
        R.register_parametrization(src, "weight", c["Scale"]())
        R.register_parametrization(src, "bias", c["SumOfTwo"]())
        dst = lib.nn.Linear(3, 3)
        R.transfer_parametrizations_and_params(src, dst)
        return dst
    ours, theirs = pair(build)
    compare_modules(ours, theirs)


def test_transfer_to_module_without_the_tensor():
    def build(lib, c):
        R = lib.nn.utils.parametrize
        src = lib.nn.Linear(3, 3)
        R.register_parametrization(src, "weight", c["Scale"]())
        dst = lib.nn.Identity()
        R.transfer_parametrizations_and_params(src, dst, "weight")
        return dst
    ours, theirs = pair(build)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    close(ours.weight, theirs.weight)


def test_deepcopy_and_pickle():
    def build(lib, c):
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", c["Scale"]())
        return m
    ours, theirs = pair(build)
    ours2, theirs2 = copy.deepcopy(ours), copy.deepcopy(theirs)
    compare_modules(ours2, theirs2)
    assert ours2.parametrizations.weight.original is not ours.parametrizations.weight.original
    raises_same(lambda lib: pickle.dumps(ours if lib is dyngrad else theirs))


def test_load_state_dict_roundtrip():
    def build(lib, c):
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", c["Symmetric"]())
        return m
    ours, theirs = pair(build)
    state = {k: dyngrad.tensor(npy(v) + 1) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    theirs.load_state_dict({k: torch.tensor(npy(v)) for k, v in state.items()})
    compare_modules(ours, theirs)


def test_register_errors():
    def bad_shape(lib):
        class Flat(lib.nn.Module):
            def forward(self, X):
                return X.flatten()
        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                          Flat())

    def bad_dtype(lib):
        class Dbl(lib.nn.Module):
            def forward(self, X):
                return X.double()
        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                          Dbl())

    def second_bad_shape(lib):
        m = lib.nn.Linear(2, 2)
        c = module_classes(lib)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", c["Scale"]())

        class Flat(lib.nn.Module):
            def forward(self, X):
                return X.flatten()
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Flat())

    def not_a_tensor(lib):
        class Bad(lib.nn.Module):
            def forward(self, X):
                return X

            def right_inverse(self, X):
                return 3
        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                          Bad())

    def no_right_inverse(lib):
        m = lib.nn.Linear(2, 2)
        lib.nn.utils.parametrize.register_parametrization(
            m, "weight", module_classes(lib)["Symmetric"]())
        m.weight = lib.ones(2, 2)

    for fn in (bad_shape, bad_dtype, second_bad_shape, not_a_tensor, no_right_inverse,
               lambda lib: lib.nn.utils.parametrize.remove_parametrizations(
                   lib.nn.Linear(2, 2), "weight"),
               lambda lib: lib.nn.utils.parametrize.ParametrizationList(
                   [], lib.nn.Parameter(lib.ones(2)))):
        raises_same(fn)
    m = dyngrad.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                         "parametrized element with name 'nope'"):
        dyngrad.nn.utils.parametrize.register_parametrization(m, "nope", dyngrad.nn.Identity())


def test_unsafe_changes_shape():
    def build(lib, c):
        class Flat(lib.nn.Module):
            def forward(self, X):
                return X.flatten()[:3].view(1, 3)
        m = lib.nn.Linear(3, 1)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Flat(), unsafe=True)
        return m
    ours, theirs = pair(build)
    compare_modules(ours, theirs, (2, 3))


# -- parametrizations ----------------------------------------------------------------------------
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_orthogonal(orthogonal_map, use_trivialization, shape):
    def build(lib, c):
        m = lib.nn.Linear(shape[1], shape[0]).double()
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map,
                                                 use_trivialization=use_trivialization)
        return m
    ours, theirs = pair(build)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    close(ours.weight, theirs.weight, rtol=1e-9, atol=1e-10)
    x = np.random.default_rng(2).standard_normal((2, shape[1]))
    yo, yt = ours(dyngrad.tensor(x)), theirs(torch.tensor(x))
    close(yo, yt, rtol=1e-9, atol=1e-10)
    (yo ** 3).sum().backward()
    (yt ** 3).sum().backward()
    close(ours.parametrizations.weight.original.grad,
          theirs.parametrizations.weight.original.grad, rtol=1e-7, atol=1e-9)
    # assigning an orthogonal matrix (or failing as torch does)
    q = np.linalg.qr(np.random.default_rng(3).standard_normal((max(shape), max(shape))))[0]
    q = q[:shape[0], :shape[1]]

    def assign(lib):
        m = ours if lib is dyngrad else theirs
        with lib.no_grad():
            m.weight = lib.tensor(q)
        return m.weight

    if not use_trivialization and orthogonal_map in (None, "matrix_exp", "cayley") and \
            (orthogonal_map is not None or shape[0] == shape[1]):
        raises_same(assign)
    else:
        close(assign(dyngrad), assign(torch), rtol=1e-8, atol=1e-9)


def test_orthogonal_errors():
    raises_same(lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3),
                                                                     orthogonal_map="qr"))
    raises_same(lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.BatchNorm1d(3)))
    raises_same(lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3),
                                                                     "nope"))


@pytest.mark.parametrize("make,dim", [
    (lambda lib: lib.nn.Linear(5, 3), None),
    (lambda lib: lib.nn.Conv2d(2, 4, 3), None),
    (lambda lib: lib.nn.ConvTranspose2d(2, 4, 3), None),
    (lambda lib: lib.nn.Conv1d(2, 4, 3), 2),
    (lambda lib: lib.nn.Linear(5, 3), -1),
])
@pytest.mark.parametrize("n_power_iterations", [1, 3])
def test_spectral_norm_parametrization(make, dim, n_power_iterations):
    def build(lib, c):
        m = make(lib)
        lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=n_power_iterations,
                                                    dim=dim)
        return m
    ours, theirs = pair(build)
    assert repr(ours) == repr(theirs)
    sn_o, sn_t = ours.parametrizations.weight[0], theirs.parametrizations.weight[0]
    close(sn_o._u, sn_t._u, rtol=1e-5, atol=1e-6)
    close(sn_o._v, sn_t._v, rtol=1e-5, atol=1e-6)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for step in range(2):
        wo, wt = ours.weight, theirs.weight   # training: one more power iteration each read
        close(wo, wt, rtol=1e-4, atol=1e-5)
        (wo * wo.detach()).sum().backward()
        (wt * wt.detach()).sum().backward()
    close(ours.parametrizations.weight.original.grad,
          theirs.parametrizations.weight.original.grad, rtol=1e-3, atol=1e-4)
    ours.eval()
    theirs.eval()
    close(ours.weight, theirs.weight, rtol=1e-4, atol=1e-5)
    close(sn_o._u, sn_t._u, rtol=1e-4, atol=1e-5)


def test_spectral_norm_parametrization_1d_and_errors():
    def build(lib, c):
        m = lib.nn.Linear(3, 2)
        lib.nn.utils.parametrizations.spectral_norm(m, "bias")
        return m
    ours, theirs = pair(build)
    close(ours.bias, theirs.bias)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    raises_same(lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(3, 2),
                                                                        dim=2))
    raises_same(lambda lib: lib.nn.utils.parametrizations.spectral_norm(
        lib.nn.Linear(3, 2), n_power_iterations=0))
    raises_same(lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.ReLU()))


@pytest.mark.parametrize("make,dim", [
    (lambda lib: lib.nn.Linear(5, 3), 0), (lambda lib: lib.nn.Linear(5, 3), 1),
    (lambda lib: lib.nn.Linear(5, 3), None), (lambda lib: lib.nn.Conv2d(2, 4, 3), 0),
    (lambda lib: lib.nn.Conv2d(2, 4, 3), 2), (lambda lib: lib.nn.Conv2d(2, 4, 3), -1),
])
def test_weight_norm_parametrization(make, dim):
    def build(lib, c):
        m = make(lib).double()
        lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
        return m
    ours, theirs = pair(build)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    wo, wt = ours.weight, theirs.weight
    close(wo, wt, rtol=1e-12)
    assert type(wo.grad_fn).__name__ == type(wt.grad_fn).__name__
    g = np.random.default_rng(4).standard_normal(tuple(wt.shape))
    po = [ours.parametrizations.weight.original0, ours.parametrizations.weight.original1]
    pt = [theirs.parametrizations.weight.original0, theirs.parametrizations.weight.original1]
    go = dyngrad.autograd.grad((wo * dyngrad.tensor(g)).sum(), po, create_graph=True)
    gt = torch.autograd.grad((wt * torch.tensor(g)).sum(), pt, create_graph=True)
    for a, b in zip(go, gt):
        close(a, b, rtol=1e-10, atol=1e-12)
    # double backward: torch's fused node (WeightNormInterfaceBackward0) gets it wrong (its
    # own gradgradcheck fails), so the reference is torch's composite formula
    ho = dyngrad.autograd.grad(sum((a * a).sum() for a in go), po)
    wdim = -1 if dim is None else dim
    wt = pt[1] * (pt[0] / torch.norm_except_dim(pt[1], 2, wdim))
    gt = torch.autograd.grad((wt * torch.tensor(g)).sum(), pt, create_graph=True)
    ht = torch.autograd.grad(sum((b * b).sum() for b in gt), pt)
    for a, b in zip(ho, ht):
        close(a, b, rtol=1e-9, atol=1e-11)


def test_weight_norm_loads_legacy_keys():
    def build(lib, c):
        m = lib.nn.Linear(4, 3)
        lib.nn.utils.parametrizations.weight_norm(m)
        return m
    ours, theirs = pair(build)
    legacy = {"weight_g": np.full((3, 1), 2.0, np.float32),
              "weight_v": np.arange(12, dtype=np.float32).reshape(3, 4),
              "bias": np.zeros(3, np.float32)}
    ours.load_state_dict({k: dyngrad.tensor(v) for k, v in legacy.items()})
    theirs.load_state_dict({k: torch.tensor(v) for k, v in legacy.items()})
    compare_modules(ours, theirs, (2, 4))
