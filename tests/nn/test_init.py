"""nn.init against torch: gains, fans, deterministic fills exactly, random fills by their
distribution (test_torch_streams.py compares seeded values with torch's), errors, no_grad, and
the layers' default initialisation laws."""
import math

import numpy as np
import pytest
import torch

import dyngrad

from .test_module import same_error, same_result


@pytest.mark.parametrize("args", [("linear",), ("conv_transpose2d",), ("sigmoid",), ("tanh",),
                                  ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                                  ("leaky_relu", 3), ("selu",)])
def test_calculate_gain(args):
    assert dyngrad.nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


@pytest.mark.parametrize("args", [("foo",), ("leaky_relu", True), ("leaky_relu", "x")])
def test_calculate_gain_errors(args):
    same_error(lambda lib: lib.nn.init.calculate_gain(*args))


@pytest.mark.parametrize("shape", [(3, 5), (4, 2, 3), (6, 3, 2, 2), (2, 4, 1, 2, 3)])
def test_fan_in_and_fan_out(shape):
    same_result(lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.empty(shape)))


ERRORS = {
    "fan_1d": lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
    "eye_1d": lambda lib: lib.nn.init.eye_(lib.empty(3)),
    "dirac_2d": lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)),
    "dirac_groups": lambda lib: lib.nn.init.dirac_(lib.empty(3, 3, 3), 2),
    "orthogonal_1d": lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
    "kaiming_mode": lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode="fan_avg"),
    "sparse_3d": lambda lib: lib.nn.init.sparse_(lib.empty(2, 2, 2), 0.5),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_init_errors_like_torch(case):
    same_error(ERRORS[case])


def test_deterministic_fills_equal_torch():
    def fills(lib):
        init = lib.nn.init
        out = []
        for fn in (lambda t: init.constant_(t, 0.3), init.ones_, init.zeros_, init.eye_):
            t = lib.nn.Parameter(lib.empty(3, 4))
            r = fn(t)
            out.append((r is t, t.tolist(), t.requires_grad, t.grad_fn is None))
        for groups, shape in ((1, (4, 3, 3)), (2, (4, 2, 3, 3)), (1, (2, 2, 1, 3, 3))):
            out.append(init.dirac_(lib.empty(shape), groups).tolist())
        return out
    same_result(fills)


def _sample(fn, shape=(200, 300), dtype=dyngrad.float64, **kwargs):
    p = dyngrad.nn.Parameter(dyngrad.empty(shape, dtype=dtype))
    out = fn(p, **kwargs)
    assert out is p and p.is_leaf and p.requires_grad and p.grad_fn is None
    return p.detach().numpy().ravel()


def test_uniform_and_normal_laws():
    x = _sample(dyngrad.nn.init.uniform_, a=-2.0, b=3.0)
    assert x.min() >= -2 and x.max() < 3 and abs(x.mean() - 0.5) < 0.05
    x = _sample(dyngrad.nn.init.normal_, mean=1.0, std=2.0)
    assert abs(x.mean() - 1) < 0.05 and abs(x.std() - 2) < 0.05


@pytest.mark.parametrize("a,b,mean,std", [(-2.0, 2.0, 0.0, 1.0), (0.5, 0.6, 0.0, 1.0),
                                          (-1.0, 3.0, 1.0, 0.5)])
def test_trunc_normal_law(a, b, mean, std):
    x = _sample(dyngrad.nn.init.trunc_normal_, mean=mean, std=std, a=a, b=b)
    assert x.min() >= a and x.max() <= b
    ref = torch.nn.init.trunc_normal_(torch.empty(200, 300, dtype=torch.float64), mean, std,
                                      a, b).numpy().ravel()
    assert abs(x.mean() - ref.mean()) < 0.02 * (b - a) and abs(x.std() - ref.std()) < 0.02


def test_trunc_normal_warns_far_mean():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        dyngrad.nn.init.trunc_normal_(dyngrad.empty(3), mean=10.0)


@pytest.mark.parametrize("shape", [(200, 300), (64, 32, 3, 3)])
def test_xavier_and_kaiming_laws(shape):
    fan_in = shape[1] * math.prod(shape[2:])
    fan_out = shape[0] * math.prod(shape[2:])
    init = dyngrad.nn.init
    bound = math.sqrt(6.0 / (fan_in + fan_out)) * 2.0
    x = _sample(init.xavier_uniform_, shape, gain=2.0)
    assert np.abs(x).max() <= bound and np.abs(x).max() > 0.95 * bound
    x = _sample(init.xavier_normal_, shape)
    assert abs(x.std() / math.sqrt(2.0 / (fan_in + fan_out)) - 1) < 0.05
    bound = math.sqrt(3.0) * init.calculate_gain("leaky_relu", math.sqrt(5)) / math.sqrt(fan_in)
    x = _sample(init.kaiming_uniform_, shape, a=math.sqrt(5))
    assert np.abs(x).max() <= bound and np.abs(x).max() > 0.95 * bound
    x = _sample(init.kaiming_normal_, shape, mode="fan_out", nonlinearity="relu")
    assert abs(x.std() / (math.sqrt(2.0) / math.sqrt(fan_out)) - 1) < 0.05


def test_kaiming_zero_element_warns():
    for lib in (torch, dyngrad):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            lib.nn.init.kaiming_uniform_(lib.empty(0, 3))


@pytest.mark.parametrize("shape", [(5, 8), (8, 5), (6, 2, 2)])
def test_orthogonal(shape):
    w = dyngrad.nn.init.orthogonal_(dyngrad.empty(shape, dtype=dyngrad.float64), gain=2.0)
    m = w.reshape(shape[0], -1).numpy()
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 4 * np.eye(gram.shape[0]), atol=1e-10)


def test_sparse_zeros_per_column():
    w = dyngrad.nn.init.sparse_(dyngrad.empty(10, 6), sparsity=0.3, std=0.5).numpy()
    assert ((w == 0).sum(axis=0) == 3).all()


def test_sparse_with_a_generator_like_torch():
    # torch draws the values from the generator given but which rows to zero from the global
    # one: the same global seed and generator give torch's tensor
    def scenario(lib):
        lib.manual_seed(5)
        g = lib.Generator().manual_seed(3)
        return lib.nn.init.sparse_(lib.empty(3, 4), 0.5, generator=g).tolist()
    assert scenario(dyngrad) == scenario(torch)


def test_generator_makes_fills_reproducible():
    g1 = dyngrad.Generator().manual_seed(5)
    g2 = dyngrad.Generator().manual_seed(5)
    a = dyngrad.nn.init.kaiming_uniform_(dyngrad.empty(4, 4), generator=g1)
    b = dyngrad.nn.init.kaiming_uniform_(dyngrad.empty(4, 4), generator=g2)
    assert dyngrad.equal(a, b)


def test_deprecated_names_warn():
    for lib in (torch, dyngrad):
        with pytest.warns(FutureWarning, match=r"`nn.init.normal` is now deprecated in favor "
                                               r"of `nn.init.normal_`."):
            lib.nn.init.normal(lib.empty(2))


def test_init_records_no_history_even_with_grad_enabled():
    p = dyngrad.nn.Parameter(dyngrad.empty(3, 3))
    v = p._version
    dyngrad.nn.init.xavier_uniform_(p)
    assert p.grad_fn is None and p._version > v


# -- the layers' default initialisation (torch's laws, checked by their bounds) ---------------
def _bounds_ok(t, bound):
    a = np.abs(t.detach().numpy())
    return a.max() <= bound and a.max() > 0.8 * bound


def test_linear_and_conv_default_init():
    nn = dyngrad.nn
    lin = nn.Linear(400, 300)
    assert _bounds_ok(lin.weight, 1 / math.sqrt(400)) and _bounds_ok(lin.bias, 1 / math.sqrt(400))
    conv = nn.Conv2d(8, 64, 3, groups=2)
    fan_in = 4 * 9
    assert _bounds_ok(conv.weight, 1 / math.sqrt(fan_in))
    assert _bounds_ok(conv.bias, 1 / math.sqrt(fan_in))
    tconv = nn.ConvTranspose2d(16, 32, 2)
    fan_in = 32 * 4    # weight (in, out/groups, k, k): fan_in is its dim 1 times the kernel
    assert _bounds_ok(tconv.weight, 1 / math.sqrt(fan_in))
    bil = nn.Bilinear(50, 4, 200)   # 200 biases: the bound is reached
    assert _bounds_ok(bil.weight, 1 / math.sqrt(50)) and _bounds_ok(bil.bias, 1 / math.sqrt(50))
    with pytest.warns(UserWarning, match="zero-element"):   # torch warns too
        empty_linear = nn.Linear(0, 3)
    assert empty_linear.bias.abs().sum().item() == 0   # fan_in 0: bias bound 0


def test_norm_embedding_prelu_default_init():
    nn = dyngrad.nn
    for m in (nn.BatchNorm2d(5), nn.LayerNorm(5), nn.GroupNorm(1, 5),
              nn.InstanceNorm1d(5, affine=True)):
        assert m.weight.tolist() == [1.0] * 5 and m.bias.tolist() == [0.0] * 5
    assert nn.RMSNorm(3).weight.tolist() == [1.0] * 3
    bn = nn.BatchNorm1d(3)
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert int(bn.num_batches_tracked) == 0 and str(bn.num_batches_tracked.dtype) == "torch.int64"
    emb = nn.Embedding(300, 200, padding_idx=3).weight.detach().numpy()
    assert (emb[3] == 0).all() and abs(emb.std() - 1) < 0.02 and abs(emb.mean()) < 0.02
    assert nn.PReLU(4, init=0.1).weight.tolist() == pytest.approx([0.1] * 4)


def test_factory_kwargs():
    def made(lib):
        nn = lib.nn
        mods = [nn.Linear(2, 3, dtype=lib.float64), nn.Conv1d(1, 2, 3, dtype=lib.float64,
                                                                 device="cpu"),
                nn.BatchNorm1d(2, dtype=lib.float64), nn.Embedding(3, 2, dtype=lib.float64),
                nn.LayerNorm(2, dtype=lib.float64), nn.PReLU(dtype=lib.float64)]
        return [[str(t.dtype) for t in m.state_dict().values()] for m in mods]
    same_result(made)
