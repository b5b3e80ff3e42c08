"""OpInfo entries for dyngrad/ops/distributions.py: the functional samplers ``normal`` and
``bernoulli`` and the in-place ones (``uniform_``, ``normal_``, ``bernoulli_``, ``random_``,
``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``).

dyngrad draws torch's numbers after the same seed, but the op-database tests call each op
several times without reseeding either library, so every entry has ``check_values=False``:
dtype, shape, strides, errors, version counters and writes through views are compared with
torch, and ``support`` checks that the values lie where the distribution puts them; the values
themselves are compared in tests/test_torch_streams.py and tests/test_random.py. Sampling has no
derivative: torch's formulas give zeros, which the gradient tests compare.
"""
from __future__ import annotations

import numpy as np

from .core import (COMPLEX, FLOATS, FLOATS_AND_COMPLEX, INTS, OP_DB, REAL_AND_BOOL, Gen, OpInfo,
                   SampleInput, expanded, make_array, permuted3, sliced, transposed)


def _layouts(dtype, rng):
    """Inputs to fill: contiguous, 0-dim, empty, non-contiguous (written through to a base)."""
    return [make_array((3, 4), dtype, rng), make_array((), dtype, rng),
            make_array((2, 0, 3), dtype, rng), transposed((3, 4), dtype, rng),
            sliced((3, 4), dtype, rng), permuted3(dtype, rng)]


def _inplace_samples(*calls):
    """Samples filling each layout with the first call's arguments, then one per further call
    (``(args, kwargs)``) on a (3, 4) tensor, then one with a seeded generator."""
    def gen(dtype, rng):
        (args, kwargs), *rest = calls
        out = [SampleInput(x, *args, **kwargs) for x in _layouts(dtype, rng)]
        out += [SampleInput(make_array((3, 4), dtype, rng), *a, **k) for a, k in rest]
        out.append(SampleInput(make_array((3, 4), dtype, rng), *args, generator=Gen(1), **kwargs))
        out.append(SampleInput(expanded((3, 4), dtype, rng), *args, desc="expanded self",
                               **kwargs))
        return out
    return gen


def _arg(sample, index, name, default):
    """The value of a sampler's argument, given positionally or by keyword."""
    if len(sample.args) > index:
        return sample.args[index]
    return sample.kwargs.get(name, default)


def _parts(values):
    """Real values to check: a complex sample's real and imaginary parts."""
    values = np.asarray(values)
    if values.dtype.kind == "c":
        return np.concatenate([values.real.ravel(), values.imag.ravel()])
    return values.ravel().astype(np.float64)


def _integral(v):
    return bool(np.all(v == np.floor(v)))


# -- supports ------------------------------------------------------------------------------------
def _uniform_support(values, sample):
    lo, hi = _arg(sample, 0, "from", 0), _arg(sample, 1, "to", 1)
    v = _parts(values)
    return bool(np.all((lo <= v) & ((v < hi) | (v == lo))))     # [a, a) gives a, as torch


def _finite(values, sample):
    return bool(np.all(np.isfinite(_parts(values))))


def _not_nan(values, sample):
    return not np.isnan(_parts(values)).any()


def _nonnegative(values, sample):
    v = _parts(values)
    return bool(np.all(v >= 0))


def _zero_or_one(values, sample):
    v = _parts(values)
    return bool(np.all((v == 0) | (v == 1)))


def _bernoulli_support(values, sample):
    """0 or 1; where the probability (the input) is 0 or 1, exactly that."""
    if not _zero_or_one(values, sample):
        return False
    if "p" in sample.kwargs or sample.args or not isinstance(sample.input, np.ndarray):
        return True
    p = sample.input
    return bool(np.all(values[p == 0] == 0) and np.all(values[p == 1] == 1))


def _geometric_support(values, sample):
    v = _parts(values)
    return _integral(v) and bool(np.all(v >= 1))


_RANDOM_TOP = {"bool": 1, "float16": 2 ** 11, "float32": 2 ** 24, "float64": 2 ** 53}


def _random_support(values, sample):
    """Integers in [from, to) (``random_()``: [0, 2**mantissa] for floats, [0, max] for ints)."""
    dtype = np.asarray(values).dtype.name
    top = _RANDOM_TOP.get(dtype)
    if top is None:
        top = int(np.iinfo(dtype).max)
    args = list(sample.args) + [sample.kwargs[k] for k in ("from", "to") if k in sample.kwargs]
    if len(args) == 2:
        lo, hi = args[0], (top + 1 if args[1] is None else args[1])
    elif len(args) == 1:
        lo, hi = 0, args[0]
    else:
        lo, hi = 0, top + 1
    v = _parts(values)
    return _integral(v) and bool(np.all((lo <= v) & (v < hi)))


# -- functional samplers -------------------------------------------------------------------------
def _normal(dtype, rng):
    def x(shape=(3, 4), **kw):
        return make_array(shape, dtype, rng, **kw)

    std = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)   # real stds
    out = [SampleInput(x(), make_array((3, 4), std, rng, 0.1, 2)),
           SampleInput(x((3, 1)), make_array((4,), std, rng, 0.1, 2), desc="broadcast"),
           SampleInput(x(), 2.0), SampleInput(x()), SampleInput(x(()), std=0.5),
           SampleInput(transposed((3, 4), dtype, rng), sliced((3, 4), std, rng, low=0, high=1)),
           SampleInput(x((0, 2)), 1.0), SampleInput(x(), 1.0, generator=Gen(2)),
           SampleInput(-1.5, make_array((3, 4), std, rng, 0, 1)),
           SampleInput(1.0, std=make_array((2,), std, rng, 0, 1)),
           SampleInput(0.5, 2.0, (2, 3)), SampleInput(0.5, 2.0, size=(4,)),
           SampleInput(x(), -1.0, desc="negative std"),
           SampleInput(x(), make_array((3, 4), std, rng, -2, -1), desc="negative std"),
           SampleInput(x(), make_array((3, 4), "float64", rng, 0, 1), desc="mixed dtypes"),
           SampleInput(make_array((3, 4), "int64", rng), 1.0, desc="integer mean"),
           SampleInput(x(), make_array((5,), std, rng, 0, 1), desc="shapes do not broadcast")]
    if dtype in COMPLEX:
        out.append(SampleInput(x(), x(low=0), desc="complex std"))
    return out


def _bernoulli(dtype, rng):
    def p(shape=(3, 4)):
        return make_array(shape, dtype, rng, 0, 1)

    exact = np.array([[0, 1, 0.5], [1, 0, 0.25]], dtype=dtype)
    return [SampleInput(p()), SampleInput(exact, desc="p of 0 and 1"), SampleInput(p(())),
            SampleInput(p((2, 0))), SampleInput(transposed((3, 4), dtype, rng, low=0, high=1)),
            SampleInput(sliced((3, 4), dtype, rng, low=0, high=1)),
            SampleInput(p(), generator=Gen(3)), SampleInput(p(), 0.3), SampleInput(p(), p=1.0),
            SampleInput(make_array((3, 4), dtype, rng, 1.5, 3), desc="p > 1"),
            SampleInput(p(), 1.5, desc="float p > 1")]


# -- in-place samplers with their invalid arguments ---------------------------------------------
def _with_errors(gen, *bad):
    """`gen`'s samples plus one call per ``(args, kwargs)`` in `bad` (torch rejects them)."""
    def samples(dtype, rng):
        return gen(dtype, rng) + [SampleInput(make_array((3, 4), dtype, rng), *a, desc="invalid",
                                              **k) for a, k in bad]
    return samples


def _bernoulli_tensor_p(dtype, rng):
    """bernoulli_ with a tensor of probabilities (broadcast to self; any floating dtype)."""
    x = make_array((3, 4), dtype, rng)
    return [SampleInput(x, make_array((3, 4), "float64", rng, 0, 1)),
            SampleInput(transposed((3, 4), dtype, rng), make_array((4,), "float32", rng, 0, 1)),
            SampleInput(x, np.array(1.0)), SampleInput(x, make_array((3, 4), "float64", rng, 2, 3)),
            SampleInput(x, make_array((2, 4), "float64", rng, 0, 1), desc="shape mismatch"),
            SampleInput(x, make_array((3, 4), "int64", rng, 0, 2), desc="integer p")]


def _random(dtype, rng):
    hi = 2 if dtype == "bool" else 100
    lo = 0 if dtype in ("bool", "uint8") else -50
    out = _inplace_samples(((), {}), ((hi,), {}), ((lo, hi), {}), ((lo, None), {}),
                           ((), {"to": hi}), ((), {"from": lo, "to": hi}))(dtype, rng)
    x = make_array((3, 4), dtype, rng)
    out += [SampleInput(x, hi, lo, desc="from >= to"), SampleInput(x, 2 ** 40, desc="too big"),
            SampleInput(x, 2 ** 70, desc="not an int64"),
            SampleInput(x, -5, desc="to <= 0"), SampleInput(x, 1.5, desc="float bound")]
    return out


_NEG = ((-1.0,), {})
OP_DB += [
    OpInfo("normal", _normal, FLOATS_AND_COMPLEX, check_values=False, support=_finite,
           inplace=False),
    OpInfo("bernoulli", _bernoulli, FLOATS, check_values=False, support=_bernoulli_support,
           inplace=False),
    OpInfo("Tensor.uniform_",
           _with_errors(_inplace_samples(((), {}), ((-2, 3), {}), ((), {"from": -2, "to": 3}),
                                         ((0.5,), {}), ((1.5, 1.5), {})),
                        ((3, -2), {}), ((0, 1e300), {})),
           FLOATS_AND_COMPLEX, inplace_only=True, check_values=False, support=_uniform_support),
    OpInfo("Tensor.normal_",
           _with_errors(_inplace_samples(((), {}), ((2, 0.5), {}), ((), {"mean": -1, "std": 3}),
                                         ((1, 0), {})),
                        ((0, -1), {})),
           FLOATS_AND_COMPLEX, inplace_only=True, check_values=False, support=_finite),
    OpInfo("Tensor.bernoulli_",
           _with_errors(_inplace_samples(((), {}), ((0.3,), {}), ((), {"p": 1.0}), ((0,), {})),
                        ((1.5,), {}), ((-0.5,), {})),
           REAL_AND_BOOL, inplace_only=True, check_values=False, support=_zero_or_one),
    OpInfo("Tensor.bernoulli_", _bernoulli_tensor_p, REAL_AND_BOOL, variant="Tensor",
           inplace_only=True, check_values=False, support=_zero_or_one),
    OpInfo("Tensor.random_", _random, REAL_AND_BOOL, inplace_only=True, check_values=False,
           support=_random_support),
    OpInfo("Tensor.exponential_",
           _with_errors(_inplace_samples(((), {}), ((2.5,), {}), ((), {"lambd": 0.5})),
                        ((0,), {}), _NEG),
           FLOATS, inplace_only=True, check_values=False, support=_nonnegative),
    OpInfo("Tensor.geometric_",
           _with_errors(_inplace_samples(((0.3,), {}), ((), {"p": 0.9})),
                        ((0,), {}), ((1,), {}), ((), {})),
           INTS + FLOATS, inplace_only=True, check_values=False, support=_geometric_support),
    OpInfo("Tensor.cauchy_",
           _with_errors(_inplace_samples(((), {}), ((1, 0.5), {}), ((), {"sigma": 2})),
                        ((0, 0), {}), ((0, -1), {})),
           FLOATS, inplace_only=True, check_values=False, support=_not_nan),
    OpInfo("Tensor.log_normal_",
           _with_errors(_inplace_samples(((), {}), ((0, 0.5), {}), ((), {"std": 0.25})),
                        ((1, 0), {}), ((1, -1), {})),
           FLOATS, inplace_only=True, check_values=False, support=_nonnegative),
]
