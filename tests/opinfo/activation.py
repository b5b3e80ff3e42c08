"""OpInfo entries for dyngrad/ops/activation.py and activation_smooth.py.

Each activation gets the generic unary samples (shapes, 0-dim, non-contiguous, empty, special
values) plus a sample of its kinks (relu at 0, hardtanh at ±1, hardswish at ±3…), where the
gradient conventions show. The ``torch.*`` form of an op is the main entry; its
``nn.functional`` twin takes a few samples only. ``inplace=True`` and the in-place-only
functions (``F.leaky_relu_``…) mutate their input, which the generic tests forbid: they are
checked in tests/test_activation.py, with the numerical stability at ±1000.
"""
from __future__ import annotations

import numpy as np

import dyngrad

from .core import (ALL_DTYPES, COMPLEX, FLOATS, INTS, OP_DB, REAL_AND_BOOL, OpInfo,
                   SampleInput, chain, make_array, special_values, transposed,
                   unary_samples)

REAL = INTS + FLOATS
SIGNED_AND_FLOATS = tuple(d for d in REAL if d != "uint8")


def _specials(kwargs=None):
    """NaN, ±inf, ±0 and ordinary values, 32 of them: torch's vectorised kernels take tensors
    this long (16+ float32 elements on AVX2 or 32+ on AVX-512), and their NaN conventions
    (hardtanh'(NaN) = 0, elu'(NaN) = NaN…) are the ones dyngrad keeps; short float32 tensors
    take a scalar path in torch that sometimes differs at NaN."""
    def gen(dtype, rng):
        sv = special_values(dtype)
        if sv is None:
            return []
        return [SampleInput(np.tile(sv, (2, 2)), desc="special values", **(kwargs or {}))]
    return gen


def _gelu_specials(dtype, rng):
    """`_specials` for the exact gelu, without ±inf below float64: torch's AVX-512 float32
    kernel returns NaN for gelu(+inf) (its vectorised erf), and so do its float16 and bfloat16
    ones, which compute in it, on an Intel Xeon, where its AVX2 and scalar paths return inf as
    dyngrad does, so that value depends on the CPU (tests/test_activation.py checks ±inf
    against torch's float64)."""
    samples = _specials()(dtype, rng)
    for s in samples if dtype in ("float32", "float16", "bfloat16") else ():
        s.input[np.isinf(s.input)] = 7.0
    return samples


def _unary(low=None, high=None, kwargs=None):
    """The generic unary samples, with `_specials` for the special values."""
    return chain(unary_samples(low, high, special=False, kwargs=kwargs), _specials(kwargs))


def _kinks(*values, kwargs=None):
    """One sample holding `values` (floating dtypes), where a derivative changes."""
    def gen(dtype, rng):
        if dtype not in FLOATS:
            return []
        x = np.array(list(values) + [-2.5, 1.75], dtype=dtype)
        return [SampleInput(x, desc="kinks", **(kwargs or {}))]
    return gen


def _with_args(*calls, low=None, high=None):
    """Samples calling with extra arguments: each call is (args, kwargs)."""
    def gen(dtype, rng):
        out = []
        for i, (args, kwargs) in enumerate(calls):
            shape = ((3, 4), (5,), ())[i % 3]
            out.append(SampleInput(make_array(shape, dtype, rng, low, high), *args, **kwargs))
        out.append(SampleInput(transposed((3, 4), dtype, rng, low=low, high=high), *calls[0][0],
                               **calls[0][1]))
        return out
    return gen


def _few(gen, n=3):
    """The first `n` samples of `gen` (for an alias of an op tested in full elsewhere)."""
    return lambda dtype, rng: gen(dtype, rng)[:n]


# -- relu, hardtanh, threshold --------------------------------------------------------------------
_relu = chain(_unary(), _kinks(0.0, -0.0, 1e-30))


def _hardtanh_samples(dtype, rng):
    if dtype in INTS:
        calls = [((), {}), ((-2, 5), {}), ((-1.5, 1.5), {}), ((), {"min_val": 0, "max_val": 4})]
    else:
        calls = [((), {}), ((-0.5, 2.0), {}), ((), {"max_val": 0.25}), ((-2, 3), {})]
    return _with_args(*calls)(dtype, rng)


def _threshold_samples(dtype, rng):
    calls = [((1, 2), {}), ((0.5, 20.0), {}), ((3, 0), {})]
    if dtype != "uint8":
        calls.append(((-1.5, -7), {}))
    out = _with_args(*calls)(dtype, rng)
    out.append(SampleInput(make_array((2, 3, 4), dtype, rng), 0.5, 2))
    out.append(SampleInput(make_array((0, 3), dtype, rng), 0.5, 2))
    if dtype in FLOATS:
        x = np.tile(np.array([0.5, 0.25, 1.0, np.nan, -np.inf, np.inf, -0.0, 0.75],
                             dtype=dtype), 4)
        out.append(SampleInput(x, 0.5, 2.0, desc="at the threshold"))
    return out


# -- the elu family and leaky relus ---------------------------------------------------------------
_leaky = chain(_with_args(((), {}), ((0.2,), {}), ((), {"negative_slope": -0.5}), ((0.0,), {})),
               _unary(), _kinks(0.0, kwargs={"negative_slope": 0.3}))
_elu = chain(_with_args(((), {}), ((0.5,), {}), ((), {"alpha": 2.0})), _unary(),
             _kinks(0.0, -1e-8, 1e-8))
_celu = chain(_with_args(((), {}), ((0.5,), {}), ((), {"alpha": -0.5})), _unary(),
              _kinks(0.0))
_rrelu = chain(_with_args(((), {}), ((0.1, 0.3), {}), ((), {"lower": 0.2, "upper": 0.2}),
                          ((), {"training": False})), _unary(), _kinks(0.0))


# -- smooth functions -----------------------------------------------------------------------------
_gelu = chain(_with_args(((), {}), ((), {"approximate": "tanh"}), ((), {"approximate": "none"})),
              unary_samples(special=False), _gelu_specials,
              _unary(kwargs={"approximate": "tanh"}),
              _kinks(0.0, 8.0, -8.0, kwargs={"approximate": "tanh"}))
_softplus = chain(_with_args(((), {}), ((2, 1), {}), ((), {"beta": -1.0}), ((0.5,), {}),
                             ((), {"threshold": 0.0})),
                  _unary(), _kinks(20.0, 10.0, -10.0, kwargs={"beta": 2}))
_logistic = chain(_unary(-8, 8), _kinks(0.0, 30.0, -30.0))
_hard = chain(_unary(-5, 5), _kinks(-3.0, 3.0, 0.0, -2.999, 2.999))


def _logit_samples(dtype, rng):
    if dtype not in FLOATS:
        return _with_args(((), {}), ((0.25,), {}), ((), {"eps": None}), low=0, high=2)(dtype, rng)
    out = _with_args(((), {}), ((0.1,), {}), ((), {"eps": 0.25}), ((-1.0,), {}),
                     low=-0.2, high=1.2)(dtype, rng)
    out += _unary(0.05, 0.95)(dtype, rng)
    x = np.array([0.0, 1.0, 0.1, 0.9, 0.5, -0.5, 1.5, 0.3], dtype=dtype)
    out += [SampleInput(x, desc="bounds"), SampleInput(x, 0.1, desc="bounds, eps")]
    return out


# -- shrink functions -----------------------------------------------------------------------------
_hardshrink = chain(_with_args(((), {}), ((1.0,), {}), ((), {"lambd": 0.0}), ((-1.0,), {})),
                    _unary(-2, 2), _kinks(0.5, -0.5, 0.0))
_softshrink = chain(_with_args(((), {}), ((1.0,), {}), ((), {"lambd": 0.0}), ((2,), {})),
                    _unary(-2, 2), _kinks(0.5, -0.5, 0.0))


# -- prelu, glu -----------------------------------------------------------------------------------
def _prelu_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)

    def w(shape):
        return make_array(shape, dtype, rng, 0.0, 0.5)
    return [SampleInput(x((2, 3, 4)), w((3,))), SampleInput(x((2, 3, 4)), w((1,))),
            SampleInput(x((2, 3)), w(())), SampleInput(x((5,)), w((1,))),
            SampleInput(x(()), w(())), SampleInput(x(()), w((1,))), SampleInput(x((4,)), w(())),
            SampleInput(transposed((3, 4), dtype, rng), w((4,))),
            SampleInput(x((2, 0, 3)), w((1,))), SampleInput(x((2, 3, 4)), w((4,)), desc="bad")]


def _glu_samples(dtype, rng):
    def x(shape):
        return make_array(shape, dtype, rng)
    return [SampleInput(x((4,))), SampleInput(x((3, 4))), SampleInput(x((4, 3)), 0),
            SampleInput(x((2, 6, 2)), dim=1), SampleInput(x((2, 3, 4)), -1),
            SampleInput(transposed((4, 6), dtype, rng), 0), SampleInput(x((0, 4))),
            SampleInput(x((3,)), desc="odd size")]


_F = "nn.functional."
_NO_OUT = dict(supports_out=False)

OP_DB += [
    # relu, relu6, hardtanh, threshold
    OpInfo("relu", _relu, REAL, **_NO_OUT),
    OpInfo(_F + "relu", _few(_relu), REAL, **_NO_OUT),
    OpInfo(_F + "relu6", chain(_unary(-3, 9), _kinks(0.0, 6.0)), REAL, **_NO_OUT),
    OpInfo(_F + "hardtanh", chain(_hardtanh_samples, _unary(), _kinks(-1.0, 1.0, 0.0)),
           SIGNED_AND_FLOATS, **_NO_OUT),
    OpInfo("threshold", _threshold_samples, REAL, gradgrad_samples=3),
    OpInfo(_F + "threshold", _few(_threshold_samples), REAL, **_NO_OUT),
    # leaky relus and the elu family
    OpInfo(_F + "leaky_relu", _leaky, FLOATS, gradgrad_samples=3, **_NO_OUT),
    OpInfo(_F + "elu", _elu, FLOATS, gradgrad_samples=3, **_NO_OUT),
    OpInfo("selu", chain(_unary(), _kinks(0.0)), FLOATS, gradgrad_samples=3, **_NO_OUT),
    OpInfo(_F + "selu", _few(_unary()), FLOATS, gradgrad_samples=2, **_NO_OUT),
    OpInfo("celu", _celu, FLOATS, gradgrad_samples=3, **_NO_OUT),
    OpInfo(_F + "celu", _few(_celu), FLOATS, gradgrad_samples=2, **_NO_OUT),
    # torch saves rrelu's noise uninitialised in eval mode (at::empty_like): the graph tests
    # cannot compare it, tests/test_activation.py checks rrelu's gradients and graph
    OpInfo(_F + "rrelu", _rrelu, FLOATS, supports_autograd=False, **_NO_OUT),
    OpInfo("rrelu", _few(_rrelu, 4), FLOATS, supports_autograd=False, **_NO_OUT),
    # smooth functions
    OpInfo(_F + "gelu", _gelu, FLOATS, gradgrad_samples=4),
    OpInfo(_F + "silu", _logistic, FLOATS + COMPLEX, gradgrad_samples=3,
           supports_complex_autograd=False, **_NO_OUT),
    OpInfo(_F + "mish", _logistic, FLOATS, gradgrad_samples=3, **_NO_OUT),
    OpInfo(_F + "softplus", _softplus, FLOATS, gradgrad_samples=4),
    OpInfo(_F + "logsigmoid", _logistic, FLOATS, gradgrad_samples=3),
    OpInfo(_F + "softsign", _unary(), REAL + COMPLEX, gradgrad_samples=2, **_NO_OUT),
    OpInfo("sigmoid", _logistic, ALL_DTYPES, gradgrad_samples=3),
    OpInfo(_F + "sigmoid", _few(_logistic), ALL_DTYPES, gradgrad_samples=2, **_NO_OUT),
    OpInfo("special.expit", _few(_logistic), ALL_DTYPES, gradgrad_samples=2),
    OpInfo("logit", _logit_samples, REAL_AND_BOOL, gradgrad_samples=4),
    OpInfo("special.logit", _few(_logit_samples), REAL_AND_BOOL, gradgrad_samples=2),
    OpInfo(_F + "hardsigmoid", _hard, FLOATS, gradgrad_samples=3, **_NO_OUT),
    OpInfo(_F + "hardswish", _hard, FLOATS, gradgrad_samples=4, **_NO_OUT),
    # shrink functions
    OpInfo("hardshrink", _hardshrink, FLOATS, gradgrad_samples=3),
    OpInfo(_F + "hardshrink", _few(_hardshrink), FLOATS, gradgrad_samples=2),
    OpInfo(_F + "softshrink", _softshrink, FLOATS, gradgrad_samples=3),
    # prelu, glu
    OpInfo("prelu", _prelu_samples, FLOATS, gradgrad_samples=4, **_NO_OUT),
    OpInfo(_F + "prelu", _few(_prelu_samples, 4), FLOATS, gradgrad_samples=2, **_NO_OUT),
    OpInfo(_F + "glu", _glu_samples, FLOATS, gradgrad_samples=4, **_NO_OUT),
]

# tanh lives in ops/unary.py; F.tanh and tanhshrink call the method, so they join once it exists
if hasattr(dyngrad.Tensor, "tanh"):
    OP_DB += [
        OpInfo(_F + "tanhshrink", _unary(-3, 3), REAL + COMPLEX, gradgrad_samples=2,
               **_NO_OUT),
        OpInfo(_F + "tanh", _few(_unary(-3, 3)), ALL_DTYPES,
               gradgrad_samples=2, **_NO_OUT),
    ]
