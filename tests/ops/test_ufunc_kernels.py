"""Note [Kernels that are one ufunc] (ops/_dispatch.py): an op declared with ``ufunc=`` has its
fast paths call that ufunc instead of the kernel, so the two must agree on everything the fast
paths can hand them: two arrays of one dtype, or an array and a Python number, for every
dtype."""
import warnings

import numpy as np
import pytest

import dyngrad  # noqa: F401  (registers the ops)
from dyngrad.backends import numpy_backend as npb
from dyngrad.ops._registry import OPS

DECLARED = sorted(name for name, spec in OPS.items() if spec.ufunc is not None)
DTYPES = ["bool", "uint8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


def _arrays(dtype):
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(13) * 3, [0.0, -0.0, 1.0, -1.0, 0.5]])
    if dtype == "bool":
        return values > 0
    if dtype.startswith("complex"):
        return (values + 1j * values[::-1]).astype(dtype)
    if dtype.startswith(("int", "uint")):
        return np.abs(values * 10).astype(dtype) if dtype == "uint8" else (values * 10).astype(dtype)
    return values.astype(dtype)


def _outcome(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as e:   # noqa: BLE001  (the same failure is the expected outcome)
            return None, type(e)


def test_some_ops_declare_their_ufunc():
    assert {"add.Tensor", "mul.Tensor", "exp", "tanh"} <= set(DECLARED)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", DECLARED)
def test_kernel_is_its_ufunc(name, dtype):
    spec = OPS[name]
    x = _arrays(dtype)
    calls = [(x,)] if spec.n_inputs == 1 else [(x, x[::-1].copy()), (x, 2.5), (x, 3)]
    for args in calls:
        want, want_err = _outcome(spec.kernel, npb.xp, *args)
        got, got_err = _outcome(spec.ufunc, *args)
        assert got_err == want_err, (name, dtype, args[1:])
        if want is not None:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
