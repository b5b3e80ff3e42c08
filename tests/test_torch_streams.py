"""dyngrad's random numbers against live torch's after the same seed: the generator (seeding,
``initial_seed``, the 5056-byte state, in both directions), the samplers of every dtype and
size (both Box-Muller paths, the 32- and 64-bit integer paths), fills of strided views, the
``_like`` factories, nn layers' default initialisation, ``nn.init``, dropout and multinomial.

Exact equality everywhere except torch's vectorised float32 Box-Muller (and float64's, via
libm), where a few samples differ in the last bit.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

import dyngrad


def _intel_mkl() -> bool:
    """torch's MKL builds draw bernoulli_(float p) from MKL's own stream on Intel CPUs."""
    try:
        with open("/proc/cpuinfo") as f:
            intel = "GenuineIntel" in f.read(4096)
    except OSError:
        intel = True
    return intel and torch.backends.mkl.is_available()


MKL_BERNOULLI = pytest.mark.skipif(_intel_mkl(), reason="torch uses MKL's Bernoulli stream here")
SEEDS = [0, 1, 123, 2 ** 32 + 9, 2 ** 63 + 5, -1]


def both(fn, seed=0, exact=True, rtol=1e-6):
    """fn(lib) after lib.manual_seed(seed) on each side: equal arrays (or close, `exact` off)."""
    out = []
    for lib in (torch, dyngrad):
        lib.manual_seed(seed)
        r = fn(lib)
        out.append(r if isinstance(r, (list, tuple)) else [r])
    for t, d in zip(*out):
        if isinstance(t, torch.Tensor):
            assert str(d.dtype) == str(t.dtype) and tuple(d.shape) == tuple(t.shape)
            assert d.stride() == t.stride()
            t, d = t.detach().numpy(), d.detach().numpy()
        if exact:
            np.testing.assert_array_equal(d, t)
        else:
            np.testing.assert_allclose(d, t, rtol=rtol, atol=rtol)


# -- generator -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_seed_gives_torch_words_and_state(seed):
    both(lambda L: (L.rand(700), L.get_rng_state(), L.initial_seed()), seed)


def test_fresh_generator_and_state_after_draws():
    both(lambda L: L.Generator().get_state())
    both(lambda L: [L.Generator().initial_seed()])
    # a cached normal sample is part of the state
    both(lambda L: (L.randn(3), L.get_rng_state(), L.randn(1), L.get_rng_state()))


@pytest.mark.parametrize("count", [0, 1, 623, 624, 625, 1300])
def test_state_round_trips_between_libraries(count):
    torch.manual_seed(5)
    torch.rand(count)
    torch.randn(1)                                  # leaves a cached normal sample
    state = torch.get_rng_state()
    dyngrad.set_rng_state(dyngrad.tensor(state.numpy()))
    np.testing.assert_array_equal(dyngrad.get_rng_state().numpy(), state.numpy())
    assert dyngrad.initial_seed() == 5
    np.testing.assert_array_equal(dyngrad.randn(5).numpy(), torch.randn(5).numpy())
    dyngrad.rand(3)
    torch.set_rng_state(torch.from_numpy(dyngrad.get_rng_state().numpy()))
    np.testing.assert_array_equal(torch.rand(9).numpy(), dyngrad.rand(9).numpy())


def test_generator_objects():
    def run(L):
        g = L.Generator().manual_seed(3)
        a = L.rand(3, generator=g)
        s = g.get_state()
        b = L.randn(5, generator=g)
        g.set_state(s)
        return a, b, L.randn(5, generator=g), s, g.initial_seed()
    both(run)
    g = dyngrad.Generator().manual_seed(8)
    dyngrad.randn(1, generator=g)
    h = pickle.loads(pickle.dumps(g))
    assert h.get_state().tolist() == g.get_state().tolist()


def test_invalid_state_message():
    for bad in (lambda s: s.__setitem__(slice(8, 12), 0), lambda s: s.__setitem__(12, 0),
                lambda s: s.__setitem__(slice(8, 12), 255)):
        errors = []
        for lib in (torch, dyngrad):
            s = lib.get_rng_state()
            bad(s)
            with pytest.raises(RuntimeError) as e:
                lib.set_rng_state(s)
            errors.append(str(e.value))
        assert errors[0] == errors[1]


# -- uniform -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64", "complex128"])
@pytest.mark.parametrize("n", [0, 1, 3, 17, 1000])
def test_rand(dtype, n):
    both(lambda L: L.rand(n, dtype=getattr(L, dtype)), n)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("bounds", [(-3, 7), (0.1, 0.2), (0.999, 1), (-1e-3, 5e-4), (2, 2)])
def test_uniform_(dtype, bounds):
    both(lambda L: L.empty(20000, dtype=getattr(L, dtype)).uniform_(*bounds))


# -- normal --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 15])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64"])
def test_randn_scalar_path(seed, n, dtype):
    """Under 16 real values: double-precision pairs and a cached sample (float64 through libm:
    close; rounded to float32 or float16: exact)."""
    if dtype == "complex64" and n > 7:
        n = 7
    both(lambda L: [L.randn(n, dtype=getattr(L, dtype)) for _ in range(3)], seed,
         exact=dtype != "float64", rtol=1e-14)


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("n", [16, 17, 31, 32, 33, 100, 4099])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_randn_box_muller_blocks(seed, n, dtype):
    both(lambda L: [L.randn(n, dtype=getattr(L, dtype)), L.rand(4)], seed, exact=False)


@pytest.mark.parametrize("n", [16, 17, 32, 33, 160, 1001])
def test_randn_float16_blocks(n):
    both(lambda L: L.randn(n, dtype=L.float16), exact=False, rtol=1e-3)


def test_normal_variants():
    both(lambda L: [L.zeros(50).normal_(2, 3), L.zeros(5).normal_(-1, 0.5),
                    L.normal(1.0, 2.0, (40,)), L.normal(L.zeros(20), L.ones(20) * 2),
                    L.normal(L.arange(5.0), 2.0), L.normal(0.5, L.ones(3, 7)),
                    L.zeros(50, dtype=L.float64).log_normal_()], exact=False)


# -- integers ------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [(10, (5,)), (-3, 4, (7,)), (0, 2 ** 40, (5,)), (7, (0,)),
                                  (-2 ** 63, 2 ** 63 - 1, (4,)), (-5, 2 ** 33, (9,))])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_randint(args, dtype):
    if args[-2] >= 2 ** 33 and dtype == "float32":
        args = args[:-2] + (2 ** 24,) + args[-1:]
    both(lambda L: L.randint(*args, dtype=getattr(L, dtype)))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "float16",
                                   "float32", "float64", "bool"])
def test_random_(dtype):
    hi = 2 if dtype == "bool" else 9
    both(lambda L: [L.zeros(6, dtype=getattr(L, dtype)).random_(),
                    L.zeros(6, dtype=getattr(L, dtype)).random_(hi),
                    L.zeros(6, dtype=getattr(L, dtype)).random_(hi - 2, hi)])
    if dtype in ("int64", "float32", "float64"):
        both(lambda L: L.zeros(6, dtype=getattr(L, dtype)).random_(-2 ** 63 if dtype == "int64"
                                                                   else -9, None))


@pytest.mark.parametrize("n", [0, 1, 2, 5, 1000])
def test_randperm(n):
    both(lambda L: [L.randperm(n), L.randperm(n, dtype=L.float32)])


# -- layouts -------------------------------------------------------------------------------------
def test_fills_of_strided_views_follow_memory_order():
    both(lambda L: [L.zeros(3, 5).t().uniform_(), L.zeros(4, 6)[:, ::2].normal_(),
                    L.zeros(5, 6).t().normal_(2, 3), L.zeros(2, 3, 4).permute(2, 0, 1).random_(9),
                    L.zeros(6, 4).t().exponential_()], exact=False)


def test_like_factories():
    x = (lambda L: L.ones(3, 4, 5).permute(2, 0, 1))
    both(lambda L: [L.rand_like(x(L)), L.randn_like(x(L)), L.randint_like(x(L), 2, 9),
                    L.randn_like(L.ones(40)), L.rand_like(L.ones(2, 3).t())], exact=False)


# -- other samplers ------------------------------------------------------------------------------
def test_bernoulli_with_tensor_p():
    both(lambda L: [L.bernoulli(L.full((50,), 0.3)),
                    L.bernoulli(L.full((50,), 0.3, dtype=L.float64)),
                    L.zeros(3, 4).bernoulli_(L.rand(4)), L.bernoulli(L.rand(3, 5).t())])


@MKL_BERNOULLI
def test_bernoulli_with_float_p_and_dropout():
    F = (lambda L: L.nn.functional)
    both(lambda L: [L.zeros(50).bernoulli_(0.3), L.bernoulli(L.zeros(4, 5).t(), 0.3),
                    F(L).dropout(L.ones(100), 0.4), L.nn.Dropout(0.5)(L.ones(4, 30)),
                    F(L).dropout2d(L.ones(2, 6, 3, 3), 0.5), F(L).alpha_dropout(L.ones(40), 0.3,
                                                                                True)],
         exact=False)


def test_rrelu_training_slopes():
    """One 53-bit uniform per element <= 0, in memory order, bounds in the kernel's type."""
    x = np.random.default_rng(0).standard_normal((4, 7))
    F = (lambda L: L.nn.functional)
    both(lambda L: [F(L).rrelu(L.tensor(x, dtype=dt), training=True)
                    for dt in (L.float32, L.float64)] +
         [F(L).rrelu(L.tensor(x).t(), 0.1, 0.3, True), L.nn.RReLU()(L.tensor(x))])


def test_continuous_samplers():
    both(lambda L: [L.zeros(50).exponential_(2.0), L.zeros(50, dtype=L.float64).exponential_(),
                    L.zeros(50).geometric_(0.3), L.zeros(50).cauchy_(1, 2),
                    L.zeros(50).log_normal_()], exact=False)


def test_multinomial():
    p = (lambda L: L.tensor([[0.1, 0.2, 0.3, 0.4]] * 3))
    both(lambda L: [L.multinomial(p(L), 3), L.multinomial(p(L)[0], 1),
                    L.multinomial(p(L), 1, True), L.multinomial(p(L), 6, True), L.multinomial(p(L).double(), 50, True),
                    L.multinomial(L.rand(5, 100), 20)])


# -- nn ------------------------------------------------------------------------------------------
def test_layer_initialisation():
    both(lambda L: [p.detach() for m in (L.nn.Linear(20, 7), L.nn.Conv2d(3, 4, 3),
                                         L.nn.Embedding(10, 4), L.nn.LSTM(5, 6),
                                         L.nn.Bilinear(3, 4, 5), L.nn.LayerNorm(4))
                    for p in m.parameters()], exact=False)


def test_nn_init():
    def run(L):
        init, w = L.nn.init, (lambda: L.empty(30, 20))
        return [init.uniform_(w(), -2, 3), init.normal_(w(), 1, 2), init.xavier_uniform_(w()),
                init.xavier_normal_(w()), init.kaiming_uniform_(w(), a=0.1),
                init.kaiming_normal_(w(), mode="fan_out"), init.trunc_normal_(w()),
                init.orthogonal_(w()), init.sparse_(w(), 0.3)]
    both(run, exact=False, rtol=1e-5)
