"""Random numbers: determinism, distributions, and value/dtype/shape/layout/error parity with
torch.

dyngrad's generator is torch's Mersenne Twister and its samplers are torch's CPU kernels, so
after the same seed the values match torch's too (tests/test_torch_streams.py goes further).
"""
import math
import warnings

import numpy as np
import pytest
import torch

import dyngrad


def run(expr, lib):
    lib.manual_seed(0)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            result = eval(expr, {"t": lib, "np": np})
        return "ok", result, [str(x.message) for x in w]
    except Exception as e:   # noqa: BLE001 - the exception is the result under test
        return "err", type(e).__name__, str(e)


def assert_meta(d, t):
    """Same type, dtype, shape, strides, requires_grad and values (the same seed was set)."""
    if isinstance(t, torch.Tensor):
        assert isinstance(d, dyngrad.Tensor)
        assert str(d.dtype) == str(t.dtype)
        assert tuple(d.shape) == tuple(t.shape)
        assert d.stride() == t.stride()
        tol = 1e-3 if t.dtype == torch.float16 else 1e-6     # torch's vectorised Box-Muller
        np.testing.assert_allclose(d.detach().numpy(), t.detach().numpy(), rtol=tol, atol=0)
        assert d.requires_grad == t.requires_grad
        gd, gt = d.grad_fn, t.grad_fn
        assert (gd is None) == (gt is None)
        if gt is not None:
            assert type(gd).__name__ == type(gt).__name__
    elif isinstance(t, (tuple, list)):
        for a, b in zip(d, t):
            assert_meta(a, b)
    elif isinstance(t, torch.dtype):
        assert str(d) == str(t)
    else:
        assert type(d) is type(t)


def check(expr, warns=False):
    d, t = run(expr, dyngrad), run(expr, torch)
    if t[0] == "err":
        assert d[0] == "err", f"torch raised {t[1]}: {t[2]!r}; dyngrad returned {d[1]!r}"
        assert d[1:] == t[1:]
        return
    assert d[0] == "ok", f"dyngrad raised {d[1]}: {d[2]}"
    assert_meta(d[1], t[1])
    if warns:
        assert d[2] == t[2]


META_CASES = [
    "t.rand(2, 3)", "t.rand((2, 3))", "t.rand(size=(2, 3))", "t.rand(())",
    "t.rand(2, dtype=t.float64)",
    "t.rand(2, dtype=t.int64)", "t.rand(2, dtype=t.complex64)", "t.rand(2, dtype=t.float16)",
    "t.rand(2, dtype=t.bool)", "t.rand(2, requires_grad=True)",
    "t.rand(2, generator=t.Generator())",
    "t.rand(2.5)", "t.rand(2, -1)", "t.rand(0, 3)",
    "t.randn(2, 3)", "t.randn(2, dtype=t.int64)", "t.randn(2, dtype=t.complex128)",
    "t.randn(2, dtype=t.float16)", "t.randn(2, -1)", "t.randn(2, requires_grad=True)",
    "t.randint(10, (3,))", "t.randint(3, 10, (3,))", "t.randint(3, 10, (3,), dtype=t.float32)",
    "t.randint(3, 10, (3,), dtype=t.bool)", "t.randint(0, 2, (3,), dtype=t.bool)",
    "t.randint(0, 300, (3,), dtype=t.uint8)", "t.randint(-1, 3, (3,), dtype=t.uint8)",
    "t.randint(5, 2, (3,))", "t.randint(5, 5, (3,))", "t.randint(0, (3,))", "t.randint(-3, (3,))",
    "t.randint(10, 3)", "t.randint(10)", "t.randint(10, size=(3,))",
    "t.randint(low=2, high=10, size=(3,))",
    "t.randint(high=10, size=(3,))", "t.randint(2.5, 10.5, (3,))", "t.randint(0, 2**63, (3,))",
    "t.randint(-2**63, 2**63 - 1, (3,))", "t.randint(10, (3,), requires_grad=True)",
    "t.randint(10, (3,), dtype=t.float32, requires_grad=True)",
    "t.randint(0, 100000, (3,), dtype=t.float16)",
    "t.randint(0, 3, (3,), dtype=t.complex64)", "t.randint(-300, 3, (3,), dtype=t.int8)",
    "t.randint(-70000, 3, (3,), dtype=t.int16)", "t.randint(-2**40, 3, (3,), dtype=t.int32)",
    "t.randint(-2, 3, (3,), dtype=t.bool)", "t.randint(-2**63, 3, (3,), dtype=t.float16)",
    "t.randint(10, (2, 0))", "t.randint(3, (2, -1))",
    "t.randperm(5)", "t.randperm(5, dtype=t.float32)", "t.randperm(5, dtype=t.int32)",
    "t.randperm(0)",
    "t.randperm(-1)", "t.randperm(300, dtype=t.uint8)", "t.randperm(256, dtype=t.uint8)",
    "t.randperm(257, dtype=t.uint8)", "t.randperm(129, dtype=t.int8)",
    "t.randperm(3, dtype=t.bool)",
    "t.randperm(3, dtype=t.float16)", "t.randperm(2049, dtype=t.float16)",
    "t.randperm(2050, dtype=t.float16)",
    "t.randperm(5, requires_grad=True)", "t.randperm(5, dtype=t.float32, requires_grad=True)",
    "t.randperm(5.0)", "t.randperm(5, dtype=t.complex64)",
    "t.normal(t.zeros(3), t.ones(3))", "t.normal(t.zeros(3), 1.)", "t.normal(0., t.ones(3))",
    "t.normal(0., 1., (2, 3))", "t.normal(0., 1., size=(2, 3))", "t.normal(0, 1, (2,))",
    "t.normal(0., 1., (2,), dtype=t.float64)", "t.normal(t.zeros(3, dtype=t.float64), t.ones(3))",
    "t.normal(t.zeros(3), t.ones(3, dtype=t.float64))", "t.normal(t.zeros(3, dtype=t.int64), 1.)",
    "t.normal(t.zeros(3), t.ones(2))", "t.normal(t.zeros(2, 1), t.ones(3))",
    "t.normal(t.zeros(3), t.ones(3, dtype=t.int64))", "t.normal(t.zeros(3), -t.ones(3))",
    "t.normal(t.zeros(3), -1.)", "t.normal(0., -t.ones(3))", "t.normal(0., -1., (3,))",
    "t.normal(t.zeros(6), t.ones(2, 3))",
    "t.normal(t.zeros(3), t.ones(3), generator=t.Generator())",
    "t.normal(t.zeros(3, requires_grad=True), 1.)",
    "t.normal(t.zeros(3), t.ones(3, requires_grad=True))",
    "t.normal(0., t.ones(3, requires_grad=True))", "t.normal(0., 1., (3,), requires_grad=True)",
    "t.normal(t.zeros(3), 1., (3,))", "t.normal(0., 1.)",
    "t.normal(t.zeros(3, dtype=t.complex64), 1.)",
    "t.normal(t.zeros(3))", "t.normal(t.ones(2, 3).t(), 1.)",
    "t.normal(t.ones(2, 3).t(), t.ones(2, 3).t())",
    "t.normal(0., t.ones(2, 3).t())", "t.normal(0., 1., (2,), dtype=t.int64)",
    "t.normal(0., float('nan'), (2,))",
    "t.bernoulli(t.full((3,), 0.5))", "t.bernoulli(t.full((3,), 0.5, dtype=t.float64))",
    "t.bernoulli(t.full((3,), 0.5), 0.3)", "t.bernoulli(t.full((3,), 0.5), p=0.3)",
    "t.bernoulli(t.ones(3, dtype=t.int64))", "t.bernoulli(t.ones(3, dtype=t.int64), 0.5)",
    "t.bernoulli(t.full((3,), 1.5))", "t.bernoulli(t.full((3,), 0.5, requires_grad=True))",
    "t.bernoulli(t.full((3,), 0.5), 1.5)", "t.bernoulli(t.ones(2, 3).t())",
    "t.bernoulli(t.ones(2, 3).t(), 0.5)", "t.ones(3).bernoulli()", "t.ones(3).bernoulli(0.5)",
    "t.multinomial(t.tensor([1., 2, 3]), 2)", "t.multinomial(t.tensor([[1., 2, 3], [1, 1, 1]]), 2)",
    "t.multinomial(t.tensor([1., 2, 3]), 4)",
    "t.multinomial(t.tensor([1., 2, 3]), 4, replacement=True)",
    "t.multinomial(t.tensor([1., -2, 3]), 1, True)", "t.multinomial(t.tensor([0., 0]), 1, True)",
    "t.multinomial(t.tensor([1., 0, 3]), 3)", "t.multinomial(t.tensor([1., -2, 3]), 2)",
    "t.multinomial(t.tensor([0., 0, 0]), 2)", "t.multinomial(t.tensor([1., float('inf'), 3]), 2)",
    "t.multinomial(t.tensor([1., float('nan'), 3]), 2)", "t.multinomial(t.tensor([1, 2, 3]), 2)",
    "t.multinomial(t.tensor(1.), 1)", "t.multinomial(t.ones(2, 2, 2), 1)",
    "t.multinomial(t.tensor([1., 2, 3]), 0)",
    "t.multinomial(t.tensor([1., 2, 3]), -1)", "t.multinomial(t.tensor([]), 1)",
    "t.multinomial(t.tensor([1., 2, 3], dtype=t.float64), 2)",
    "t.multinomial(t.tensor([1., 2, 3], requires_grad=True), 2)",
    "t.tensor([1., 2, 3]).multinomial(2)", "t.multinomial(t.tensor([1., 2, 3]), 2, True)",
    "t.multinomial(t.tensor([1., -2, 3]), 2, True)",
    "t.multinomial(t.tensor([1., float('inf'), 3]), 2, True)",
    "t.multinomial(t.tensor([1., float('nan'), 3]), 2, True)",
    "t.multinomial(t.tensor([0., 0, 0]), 2, True)",
    "t.multinomial(t.tensor([[1., 1], [0, 0]]), 1)", "t.zeros(3).multinomial(1)",
    "t.rand_like(t.ones(2, 3).t())", "t.randn_like(t.ones(2, 3, 4, 5).permute(0, 2, 3, 1))",
    "t.randn_like(t.ones(2, 3, dtype=t.int64))", "t.rand_like(t.ones(2, 3, dtype=t.int64))",
    "t.rand_like(t.ones(2, 3), dtype=t.float64)", "t.rand_like(t.ones(2, 3), requires_grad=True)",
    "t.rand_like(t.ones(2, 3, requires_grad=True))", "t.randn_like(t.ones(2, 3)[:, ::2])",
    "t.randint_like(t.ones(2, 3), 10)", "t.randint_like(t.ones(2, 3), 3, 10)",
    "t.randint_like(t.ones(2, 3).t(), 10)",
    "t.randint_like(t.ones(2, 3, dtype=t.int32), 10)",
    "t.randint_like(t.ones(2, 3, dtype=t.bool), 2)",
    "t.randint_like(t.ones(2, 3), 10, dtype=t.int64)", "t.randint_like(t.ones(2, 3), 5, 2)",
    "t.randint_like(t.ones(2, 3, dtype=t.uint8), 300)",
]


@pytest.mark.parametrize("expr", META_CASES)
def test_meta_and_errors(expr):
    check(expr)


INPLACE_CASES = [
    "t.zeros(3).random_()", "t.zeros(3, dtype=t.uint8).random_()", "t.zeros(3).random_(5)",
    "t.zeros(3).random_(2, 5)", "t.zeros(3).random_(5, 2)", "t.zeros(3).random_(0)",
    "t.zeros(3).random_(-5)",
    "t.zeros(3, dtype=t.uint8).random_(300)", "t.zeros(3, dtype=t.bool).random_()",
    "t.zeros(3, dtype=t.complex64).random_()", "t.zeros(3).random_(2.5)",
    "t.zeros(3).random_(to=5)",
    "t.zeros(3).random_(1, None)", "t.zeros(3, dtype=t.uint8).random_(1, None)",
    "t.zeros(3).random_(2**30, None)",
    "t.zeros(3, dtype=t.uint8).random_(-1, None)", "t.zeros(3, dtype=t.int8).random_(200)",
    "t.zeros(3, dtype=t.int64).random_(-2**63, None)", "t.zeros(3).random_(-5, 5)",
    "t.zeros(3).uniform_()", "t.zeros(3).uniform_(2, 1)", "t.zeros(3).uniform_(2, 2)",
    "t.zeros(3).uniform_(1e39, 1e40)", "t.zeros(3).uniform_(-1e39, 1e39)",
    "t.zeros(3, dtype=t.int64).uniform_()",
    "t.zeros(3, dtype=t.complex64).uniform_(0, 1)", "t.zeros(3).uniform_(float('nan'), 1)",
    "t.zeros(3).uniform_(0, float('inf'))", "t.zeros(3).uniform_(1, float('nan'))",
    "t.zeros(3, dtype=t.float16).uniform_(-1e5, 1)",
    "t.zeros(3, dtype=t.float16).uniform_(-6e4, 6e4)",
    "t.zeros(3).uniform_(-3e38, 1)",
    "t.zeros(3).normal_()", "t.zeros(3).normal_(1, -1)", "t.zeros(3).normal_(1, 0)",
    "t.zeros(3, dtype=t.int64).normal_()",
    "t.zeros(3, dtype=t.complex64).normal_()", "t.zeros(3).normal_(mean=1, std=2)",
    "t.zeros(3).normal_(0, float('nan'))",
    "t.zeros(3).bernoulli_()", "t.zeros(3).bernoulli_(0.5)", "t.zeros(3).bernoulli_(1.5)",
    "t.zeros(3).bernoulli_(-0.5)",
    "t.zeros(3, dtype=t.int64).bernoulli_(0.5)", "t.zeros(3, dtype=t.bool).bernoulli_(0.5)",
    "t.zeros(3).bernoulli_(t.tensor([0., 1., 1.]))", "t.zeros(3).bernoulli_(t.tensor([0., 1.]))",
    "t.zeros(3).bernoulli_(t.tensor([0., 2., 1.]))", "t.zeros(3).bernoulli_(t.tensor(1.))",
    "t.zeros(3).bernoulli_(p=t.tensor([1., 1., 1.]))",
    "t.zeros(2, 3).bernoulli_(t.tensor([0., 1., 1.]))",
    "t.zeros(3).bernoulli_(t.tensor([0, 1, 1]))", "t.zeros(3, dtype=t.complex64).bernoulli_(0.5)",
    "t.zeros(3).exponential_()", "t.zeros(3).exponential_(0)", "t.zeros(3).exponential_(-1)",
    "t.zeros(3, dtype=t.int64).exponential_()", "t.zeros(3).exponential_(lambd=2)",
    "t.zeros(3).geometric_(0.5)", "t.zeros(3).geometric_(0)", "t.zeros(3).geometric_(1)",
    "t.zeros(3).geometric_(1.5)",
    "t.zeros(3, dtype=t.int64).geometric_(0.5)", "t.zeros(3).geometric_()",
    "t.zeros(3).cauchy_()", "t.zeros(3).cauchy_(0, -1)", "t.zeros(3).cauchy_(0, 0)",
    "t.zeros(3, dtype=t.int64).cauchy_()",
    "t.zeros(3).log_normal_()", "t.zeros(3).log_normal_(0, -1)", "t.zeros(3).log_normal_(0, 0)",
    "t.zeros(3, dtype=t.int64).log_normal_()",
    "t.zeros(3).expand(2, 3).normal_()", "t.zeros(3).expand(2, 3).uniform_()",
    "t.zeros(3).expand(2, 3).bernoulli_()", "t.zeros(3).expand(2, 3).random_()",
    "t.zeros(3, requires_grad=True).normal_()", "t.zeros(3, requires_grad=True).uniform_()",
    "(t.ones(3, requires_grad=True) * 2).normal_()",
    "(t.ones(3, requires_grad=True) * 2).uniform_()",
    "(t.ones(3, requires_grad=True) * 2).bernoulli_(0.5)",
    "(t.ones(3, requires_grad=True) * 2).bernoulli_(t.full((3,), 0.5))",
    "(t.ones(3, requires_grad=True) * 2).random_()",
    "(t.ones(3, requires_grad=True) * 2).random_(5)",
    "(t.ones(3, requires_grad=True) * 2).random_(1, 5)",
    "(t.ones(3, requires_grad=True) * 2).exponential_()",
    "(t.ones(3, requires_grad=True) * 2).geometric_(0.5)",
    "(t.ones(3, requires_grad=True) * 2).cauchy_()",
    "(t.ones(3, requires_grad=True) * 2).log_normal_()",
]


@pytest.mark.parametrize("expr", INPLACE_CASES)
def test_inplace_meta_and_errors(expr):
    check(expr)


@pytest.mark.parametrize("expr", [
    "t.randint(0, 2**25, (3,), dtype=t.float32)", "t.randint(0, 2**60, (3,), dtype=t.float64)",
    "t.randint(-2**63, 3, (3,), dtype=t.float32)",
])
def test_precision_warnings(expr):
    check(expr, warns=True)


# ---------------------------------------------------------------------------------------------
# Determinism and generators
# ---------------------------------------------------------------------------------------------
SAMPLERS = [
    lambda g: dyngrad.rand(5, generator=g), lambda g: dyngrad.randn(2, 3, generator=g),
    lambda g: dyngrad.randint(0, 100, (6,), generator=g),
    lambda g: dyngrad.randperm(10, generator=g),
    lambda g: dyngrad.normal(dyngrad.zeros(4), 2.0, generator=g),
    lambda g: dyngrad.bernoulli(dyngrad.full((8,), 0.5), generator=g),
    lambda g: dyngrad.multinomial(dyngrad.tensor([1.0, 2, 3, 4]), 3, generator=g),
    lambda g: dyngrad.zeros(5).uniform_(-2, 3, generator=g),
    lambda g: dyngrad.zeros(5).exponential_(generator=g),
    lambda g: dyngrad.rand_like(dyngrad.ones(2, 3).t(), generator=g),
]


@pytest.mark.parametrize("sample", SAMPLERS)
def test_same_seed_same_numbers(sample):
    a = sample(dyngrad.Generator().manual_seed(123))
    b = sample(dyngrad.Generator().manual_seed(123))
    c = sample(dyngrad.Generator().manual_seed(124))
    assert a.tolist() == b.tolist()
    d = sample(dyngrad.Generator().manual_seed(7))
    assert c.tolist() != a.tolist() or d.tolist() != a.tolist()


def test_global_seed():
    dyngrad.manual_seed(0)
    a = dyngrad.rand(4), dyngrad.randn(3), dyngrad.zeros(2).normal_()
    dyngrad.manual_seed(0)
    b = dyngrad.rand(4), dyngrad.randn(3), dyngrad.zeros(2).normal_()
    assert [x.tolist() for x in a] == [x.tolist() for x in b]
    dyngrad.manual_seed(1)
    assert dyngrad.rand(4).tolist() != a[0].tolist()
    assert dyngrad.initial_seed() == 1


def test_manual_seed_values_and_errors():
    for seed in (0, 5, -1, 2 ** 64 - 1, 1.5, np.int64(5)):
        assert dyngrad.manual_seed(seed).initial_seed() == torch.manual_seed(seed).initial_seed()
    assert dyngrad.manual_seed(dyngrad.tensor(5)).initial_seed() == 5
    for bad in (2 ** 64, -2 ** 63 - 1, "a"):
        with pytest.raises(Exception) as d:
            dyngrad.manual_seed(bad)
        with pytest.raises(Exception) as t:
            torch.manual_seed(bad)
        assert (type(d.value), str(d.value)) == (type(t.value), str(t.value))
    assert dyngrad.manual_seed(3) is dyngrad.default_generator
    assert dyngrad.Generator().initial_seed() == torch.Generator().initial_seed()
    assert dyngrad.Generator().device == dyngrad.device("cpu")
    assert dyngrad.Generator("cpu").manual_seed(4).initial_seed() == 4


def test_seed_is_nondeterministic_and_reported():
    s1, s2 = dyngrad.seed(), dyngrad.seed()
    assert isinstance(s1, int) and s1 != s2 and dyngrad.initial_seed() == s2


def test_rng_state_round_trip():
    dyngrad.manual_seed(42)
    dyngrad.rand(3)
    state = dyngrad.get_rng_state()
    assert state.dtype is dyngrad.uint8 and state.ndim == 1
    a = dyngrad.rand(5).tolist(), dyngrad.randn(2).tolist()
    dyngrad.manual_seed(99)
    dyngrad.set_rng_state(state)
    assert (dyngrad.rand(5).tolist(), dyngrad.randn(2).tolist()) == a
    assert dyngrad.initial_seed() == 42
    g = dyngrad.Generator().manual_seed(8)
    st = g.get_state()
    x = dyngrad.rand(3, generator=g)
    assert g.set_state(st) is g
    assert dyngrad.rand(3, generator=g).tolist() == x.tolist()


def test_rng_state_errors():
    for lib in (dyngrad, torch):
        with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
            lib.set_rng_state(lib.zeros(3))
        with pytest.raises(TypeError, match="expected a torch.ByteTensor, but got list"):
            lib.set_rng_state([1, 2])
        with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size .* but "
                                               "found the input RNG state size to be 10"):
            lib.set_rng_state(lib.zeros(10, dtype=lib.uint8))
        with pytest.raises(RuntimeError, match="Cannot get CUDA generator without ATen_cuda"):
            lib.Generator("cuda")


def test_fork_rng_restores_state():
    dyngrad.manual_seed(3)
    with dyngrad.random.fork_rng():
        dyngrad.rand(10)
    a = dyngrad.rand(2).tolist()
    dyngrad.manual_seed(3)
    assert dyngrad.rand(2).tolist() == a


def test_generator_does_not_touch_global_stream():
    dyngrad.manual_seed(11)
    a = dyngrad.rand(3).tolist()
    dyngrad.manual_seed(11)
    dyngrad.rand(100, generator=dyngrad.Generator())
    assert dyngrad.rand(3).tolist() == a


def test_generator_is_picklable():
    import copy
    import pickle
    g = dyngrad.Generator().manual_seed(5)
    dyngrad.rand(2, generator=g)
    h = pickle.loads(pickle.dumps(g))
    k = copy.deepcopy(g)
    assert dyngrad.rand(3, generator=g).tolist() == dyngrad.rand(3, generator=h).tolist() \
        == dyngrad.rand(3, generator=k).tolist()


def test_bad_generator_argument():
    with pytest.raises(TypeError):
        dyngrad.rand(2, generator=3)


# ---------------------------------------------------------------------------------------------
# Distributions (loose bounds on 20 000 samples)
# ---------------------------------------------------------------------------------------------
N = 20000


@pytest.fixture
def g():
    return dyngrad.Generator().manual_seed(2024)


def test_uniform_distribution(g):
    for dt in (dyngrad.float32, dyngrad.float64, dyngrad.float16):
        x = dyngrad.rand(N, generator=g, dtype=dt).numpy().astype(np.float64)
        assert x.min() >= 0 and x.max() < 1
        assert abs(x.mean() - 0.5) < 0.02 and abs(x.std() - 0.2887) < 0.02
    y = dyngrad.zeros(N).uniform_(-3, 5, generator=g).numpy()
    assert y.min() >= -3 and y.max() <= 5 and abs(y.mean() - 1) < 0.1
    c = dyngrad.rand(N, dtype=dyngrad.complex64, generator=g).numpy()
    assert abs(c.real.mean() - 0.5) < 0.02 and abs(c.imag.mean() - 0.5) < 0.02


def test_normal_distribution(g):
    for dt in (dyngrad.float32, dyngrad.float64, dyngrad.float16):
        x = dyngrad.randn(N, generator=g, dtype=dt).numpy().astype(np.float64)
        assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05
    y = dyngrad.normal(3.0, 2.0, (N,), generator=g).numpy()
    assert abs(y.mean() - 3) < 0.1 and abs(y.std() - 2) < 0.1
    m = dyngrad.full((N,), -1.0)
    z = dyngrad.normal(m, dyngrad.full((N,), 0.5), generator=g).numpy()
    assert abs(z.mean() + 1) < 0.05 and abs(z.std() - 0.5) < 0.05
    c = dyngrad.randn(N, dtype=dyngrad.complex64, generator=g).numpy()
    assert abs(c.real.std() - 1 / math.sqrt(2)) < 0.03 and abs((abs(c) ** 2).mean() - 1) < 0.05
    w = dyngrad.zeros(N).normal_(5, 0.1, generator=g).numpy()
    assert abs(w.mean() - 5) < 0.01


def test_integer_distributions(g):
    x = dyngrad.randint(-3, 7, (N,), generator=g).numpy()
    assert x.min() == -3 and x.max() == 6 and abs(x.mean() - 1.5) < 0.1
    p = dyngrad.randperm(1000, generator=g).numpy()
    assert sorted(p.tolist()) == list(range(1000))
    r = dyngrad.zeros(N, dtype=dyngrad.uint8).random_(generator=g).numpy()
    assert r.min() == 0 and r.max() == 255
    b = dyngrad.zeros(N, dtype=dyngrad.bool).random_(generator=g).numpy()
    assert 0.45 < b.mean() < 0.55
    f = dyngrad.zeros(N).random_(generator=g).numpy()
    assert f.min() >= 0 and f.max() <= 2 ** 24 and (f == np.round(f)).all()
    q = dyngrad.zeros(N).random_(-2, 2, generator=g).numpy()
    assert set(q.tolist()) == {-2.0, -1.0, 0.0, 1.0}
    geo = dyngrad.zeros(N).geometric_(0.25, generator=g).numpy()
    assert geo.min() >= 1 and abs(geo.mean() - 4) < 0.2


def test_bernoulli_and_multinomial(g):
    b = dyngrad.bernoulli(dyngrad.full((N,), 0.3), generator=g).numpy()
    assert set(np.unique(b).tolist()) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    p = dyngrad.tensor([0.0, 1.0, 1.0])
    assert dyngrad.zeros(3).bernoulli_(p, generator=g).tolist() == [0.0, 1.0, 1.0]
    probs = dyngrad.tensor([1.0, 2.0, 7.0])
    s = dyngrad.multinomial(probs, N, replacement=True, generator=g).numpy()
    counts = np.bincount(s, minlength=3) / N
    assert np.allclose(counts, [0.1, 0.2, 0.7], atol=0.02)
    rows = dyngrad.multinomial(dyngrad.tensor([[1.0, 0, 0, 0], [0, 0, 0, 1.0]]), 1, generator=g)
    assert rows.tolist() == [[0], [3]]
    no_rep = dyngrad.multinomial(dyngrad.ones(2, 50), 50, generator=g).numpy()
    assert all(sorted(r) == list(range(50)) for r in no_rep.tolist())
    zero = dyngrad.multinomial(dyngrad.tensor([1.0, 0.0, 3.0]), 2, generator=g).tolist()
    assert sorted(zero) == [0, 2]


def test_continuous_distributions(g):
    e = dyngrad.zeros(N).exponential_(2.0, generator=g).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.03
    ln = dyngrad.zeros(N, dtype=dyngrad.float64).log_normal_(0.0, 0.5, generator=g).numpy()
    assert ln.min() > 0 and abs(np.log(ln).mean()) < 0.02 and abs(np.log(ln).std() - 0.5) < 0.02
    c = dyngrad.zeros(N).cauchy_(1.0, 2.0, generator=g).numpy()
    assert abs(np.median(c) - 1.0) < 0.1


# ---------------------------------------------------------------------------------------------
# In-place semantics: storage, views, versions
# ---------------------------------------------------------------------------------------------
INPLACE_CALLS = [
    lambda x: x.uniform_(), lambda x: x.normal_(), lambda x: x.bernoulli_(),
    lambda x: x.bernoulli_(dyngrad.full(x.shape, 0.5)), lambda x: x.random_(0, 10),
    lambda x: x.random_(), lambda x: x.random_(5), lambda x: x.exponential_(),
    lambda x: x.geometric_(0.3), lambda x: x.cauchy_(), lambda x: x.log_normal_(),
]


@pytest.mark.parametrize("call", INPLACE_CALLS)
def test_inplace_writes_storage_through_views(call):
    base = dyngrad.full((4, 6), -7.0)
    ptr = base.data_ptr()
    view = base[1:3].t()             # a non-contiguous view
    v0 = base._version
    out = call(view)
    assert out is view
    assert base.data_ptr() == ptr
    assert base._version == v0 + 1 and view._version == base._version
    arr = base.numpy()
    assert (arr[[0, 3]] == -7).all()               # rows outside the view untouched
    assert (arr[1:3] != -7).all()                  # every element of the view written


def test_inplace_keeps_layout_and_dtype():
    x = dyngrad.zeros(3, 4).t()
    x.normal_()
    assert x.stride() == (1, 4) and x.dtype is dyngrad.float32
    y = dyngrad.zeros(5, dtype=dyngrad.int32)
    y.random_(0, 3)
    assert y.dtype is dyngrad.int32 and set(y.tolist()) <= {0, 1, 2}


def test_random_functions_are_namespaced_like_torch():
    import importlib
    assert importlib.import_module("dyngrad.random") is dyngrad.random
    assert dyngrad.random.manual_seed is dyngrad.manual_seed
    assert callable(dyngrad.random.get_rng_state) and callable(dyngrad.random.fork_rng)
    assert isinstance(dyngrad.default_generator, dyngrad.Generator)
