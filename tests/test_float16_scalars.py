"""float16 (and bfloat16) tensors with a Python number or a 0-dim tensor, bit for bit against torch.

torch's CPU kernels for mul, div (every rounding mode) and floor_divide take their second
operand, when it is a scalar, in float32 ("opmath") straight from its original value; add, sub,
pow, the comparisons and a scalar first operand round it to the tensor's dtype first
(Note [Reduced-precision scalars] in dyngrad/ops/_dispatch.py).
"""
import numpy as np
import pytest
import torch

import dyngrad
from compare import like_torch

SCALARS = [0.1, 3.0, 0.7, 1 / 3, 0.3, 1e-5, 7.1, -1.7, 2.3, 1e5, 1e-9, 3, 7, 100003, True]


def values(lib, dtype="float16", n=6000):
    """Many float16 values (of three magnitudes) on either library, in ``dtype``."""
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.uniform(-100, 100, n), rng.uniform(-1, 1, n),
                        rng.uniform(-6e4, 6e4, n // 10)]).astype(np.float16)
    return lib.from_numpy(v).to(getattr(lib, dtype))


OPS = {
    "mul": lambda L, x, s: x * s,
    "rmul": lambda L, x, s: s * x,
    "div": lambda L, x, s: x / s,
    "rdiv": lambda L, x, s: s / x,
    "floordiv": lambda L, x, s: x // s,
    "torch_mul": lambda L, x, s: L.mul(x, s),
    "true_divide": lambda L, x, s: L.true_divide(x, s),
    "div_trunc": lambda L, x, s: L.div(x, s, rounding_mode="trunc"),
    "div_floor": lambda L, x, s: L.div(x, s, rounding_mode="floor"),
    "mul_": lambda L, x, s: x.clone().mul_(s),
    "div_": lambda L, x, s: x.clone().div_(s),
    "imul": lambda L, x, s: _imul(x, s),
    "floor_divide_": lambda L, x, s: x.clone().floor_divide_(s),
    "div_floor_": lambda L, x, s: x.clone().div_(s, rounding_mode="floor"),
    "add": lambda L, x, s: x + s,
    "sub": lambda L, x, s: x - s,
    "rsub": lambda L, x, s: s - x,
    "add_": lambda L, x, s: x.clone().add_(s),
    "pow": lambda L, x, s: x.abs() ** s if abs(s) < 100 else x,
    "rpow": lambda L, x, s: abs(s) ** (x / 1000) if abs(s) < 100 else x,
    "fmod": lambda L, x, s: x.fmod(s) if abs(s) > 1e-6 else x,
    "lt": lambda L, x, s: x < s,
    "ge": lambda L, x, s: x >= s,
    "eq": lambda L, x, s: x == s,
    "strided_mul": lambda L, x, s: x[::3] * s,
    "2d_mul": lambda L, x, s: x[:6000].reshape(60, 100).t() * s,
}


def _imul(x, s):
    x = x.clone()
    x *= s
    return x


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", OPS)
def test_python_number(op, dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    for s in SCALARS:
        for _ in range(2):   # (a second call: the fast paths' caches are filled by then)
            like_torch(lambda L: OPS[op](L, values(L, dtype), s))


ZERO_DIM = {
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "floordiv": lambda x, y: x // y,
    "div_trunc": lambda x, y: x.div(y, rounding_mode="trunc"),
    "mul_": lambda x, y: x.clone().mul_(y),
    "div_": lambda x, y: x.clone().div_(y),
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "pow": lambda x, y: x.abs() ** y,
    "lt": lambda x, y: x < y,
    "maximum": lambda x, y: x.maximum(y),
    "zerodim_first": lambda x, y: y * x,        # (the scalar as the first operand: rounded)
    "zerodim_first_div": lambda x, y: y.to(x.dtype).new_full((), 1.0) * y / x,
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("other", ["float32", "float64", "float16", "int64", "bfloat16"])
@pytest.mark.parametrize("op", ZERO_DIM)
def test_zero_dim_tensor(op, other, dtype):
    if "bfloat16" in (dtype, other):
        pytest.importorskip("ml_dtypes")
    for s in (0.1, 1 / 3, 7.1, -2.3, 1e-5, 3):
        for _ in range(2):
            like_torch(lambda L: ZERO_DIM[op](values(L, dtype, 2000),
                                              L.tensor(s, dtype=getattr(L, other))))


def test_float32_keeps_the_fast_path():
    """The float32 and float64 fast-path entries stay; float16's mul takes the general path."""
    from dyngrad.ops import arithmetic
    for dt in ("float32", "float64", "float16"):
        dyngrad.ones(3, dtype=getattr(dyngrad, dt)) * 2.0
        dyngrad.ones(3, dtype=getattr(dyngrad, dt)) + 2.0
    cache = arithmetic.mul._dtype_cache
    assert (np.dtype(np.float32), float) in cache and (np.dtype(np.float64), float) in cache
    assert (np.dtype(np.float16), float) not in cache
    assert (np.dtype(np.float16), float) in arithmetic.add._dtype_cache


def test_autograd_through_float16_scalar_mul():
    def fn(L):
        x = values(L, n=300).requires_grad_()
        y = x * 0.1 / 0.7
        y.sum().backward()
        return y, x.grad
    like_torch(fn)
