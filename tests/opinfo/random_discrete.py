"""OpInfo entries for dyngrad/ops/random_discrete.py: ``poisson`` and ``binomial``.

As for the other samplers (tests/opinfo/random.py), the op-database tests call each op without
reseeding, so values are checked by ``support`` only; the values themselves (torch's stream) are
compared in tests/test_random_discrete.py. poisson's gradient is zero, as torch's; binomial's
node raises torch's "not implemented" error on backward, so it skips the gradient tests.
"""
from __future__ import annotations

import numpy as np

from .core import FLOATS, OP_DB, Gen, OpInfo, SampleInput, make_array, sliced, transposed


def _counts(values, sample):
    v = np.asarray(values, dtype=np.float64)
    return bool(np.all((v >= 0) & (v == np.floor(v))))


def _binomial_support(values, sample):
    v = np.asarray(values, dtype=np.float64)
    # a fractional count gives fractional samples when prob > 0.5 (count - a count), as torch
    if not isinstance(sample.input, np.ndarray):     # a strided layout wrapper: the sign only
        return bool(np.all(v >= 0))
    count = np.broadcast_to(sample.input.astype(np.float64), v.shape)
    return bool(np.all((v >= 0) & (v <= np.maximum(count, 0))))


def _poisson(dtype, rng):
    return [SampleInput(make_array((3, 4), dtype, rng, 0, 5)),
            SampleInput(make_array((3, 4), dtype, rng, 10, 40), desc="rates >= 10"),
            SampleInput(make_array((), dtype, rng, 0, 5)),
            SampleInput(make_array((2, 0), dtype, rng, 0, 5)),
            SampleInput(transposed((3, 4), dtype, rng, low=0, high=20)),
            SampleInput(sliced((3, 4), dtype, rng, low=0, high=20)),
            SampleInput(make_array((3, 4), dtype, rng, 0, 20), generator=Gen(2)),
            SampleInput(make_array((3, 4), dtype, rng, -2, -1), desc="negative rates")]


def _binomial(dtype, rng):
    def counts(shape=(3, 4), low=0, high=30):
        return np.round(make_array(shape, dtype, rng, low, high))

    def probs(shape=(3, 4)):
        return make_array(shape, dtype, rng, 0, 1)
    return [SampleInput(counts(), probs()),
            SampleInput(counts(low=100, high=200), probs(), desc="btrs"),
            SampleInput(counts(()), probs(())),
            SampleInput(counts((2, 0)), probs((2, 0))),
            SampleInput(counts(), probs((4,)), desc="broadcast prob"),
            SampleInput(counts(), probs(), generator=Gen(4)),
            SampleInput(transposed((3, 4), dtype, rng, low=0, high=20), probs())]


OP_DB += [
    OpInfo("poisson", _poisson, FLOATS, check_values=False, support=_counts, supports_out=False,
           method=False, inplace=False),
    OpInfo("binomial", _binomial, ("float32", "float64"), check_values=False,
           support=_binomial_support, supports_out=False, method=False, inplace=False,
           supports_autograd=False),
]
