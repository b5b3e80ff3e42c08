"""Kernels that write a later step into an earlier step's fresh array (Note [Fresh
intermediates take the next step] in dyngrad/ops/binary.py; tanh_backward and the 2-norm's
gradient do the same) compute the same operations in the same order as the plain NumPy
expression: the same bits. Checked here against that expression, in place and out of place,
where the step fits and where it does not (broadcast operands, 0-dim), and against torch.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

SHAPES = {"same": ((5, 7), (5, 7)), "broadcast": ((5, 7), (7,)), "0-dim": ((), ())}


def _arrays(shape, other_shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, shape).astype(dtype)
    b = rng.uniform(-2, 2, other_shape).astype(dtype)
    c = rng.uniform(0.5, 2, other_shape).astype(dtype)
    return a, b, c


def _expected(name, a, b, c, w):
    """torch's formulas, as the kernels wrote them before (float16 in float32)."""
    low = a.dtype == np.float16
    a, b, c = (x.astype(np.float32) if low else x for x in (a, b, c))
    if name == "lerp":
        r = a + w * (b - a) if abs(w) < 0.5 else b - (b - a) * (1 - w)
    elif name == "addcmul":
        r = a + w * b * c
    else:
        r = a + w * b / c
    return np.asarray(r).astype(np.float16) if low else np.asarray(r)


def _call(lib, name, a, b, c, w, inplace):
    t = lib.tensor(a)
    if name == "lerp":
        return t.lerp_(lib.tensor(b), w) if inplace else lib.lerp(t, lib.tensor(b), w)
    fn = getattr(t, name + "_") if inplace else getattr(lib, name)
    args = (lib.tensor(b), lib.tensor(c))
    return fn(*args, value=w) if inplace else fn(t, *args, value=w)


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shapes", list(SHAPES))
@pytest.mark.parametrize("name,w", [("lerp", 0.1), ("lerp", 0.75), ("addcmul", 0.3),
                                    ("addcdiv", -0.7)])
def test_same_bits_as_the_expression_and_torchs_values(name, w, shapes, dtype, inplace):
    shape, other = SHAPES[shapes]
    if inplace and shapes == "broadcast" and name == "lerp":
        other = shape   # (lerp_'s end must not broadcast the target: same-shape case again)
    a, b, c = _arrays(shape, other, dtype)
    got = _call(dyngrad, name, a, b, c, w, inplace)
    want = _expected(name, a, b, c, w)
    assert got.numpy().tobytes() == want.astype(got.numpy().dtype).tobytes()
    theirs = _call(torch, name, a, b, c, w, inplace)
    tol = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-14}[dtype]
    np.testing.assert_allclose(got.numpy().astype(np.float64),
                               theirs.numpy().astype(np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(6, 5), ()])
def test_tanh_backward_and_its_double_backward_same_bits(dtype, shape):
    rng = np.random.default_rng(1)
    x = dyngrad.tensor(rng.uniform(-1, 1, shape).astype(dtype), requires_grad=True)
    y = dyngrad.tanh(x)
    g = dyngrad.tensor(rng.uniform(-1, 1, shape).astype(dtype), requires_grad=True)
    gx, = dyngrad.autograd.grad(y, x, g, create_graph=True)
    yv, gv = y.detach().numpy(), g.detach().numpy()
    assert gx.detach().numpy().tobytes() == np.asarray(gv * (1 - yv * yv)).tobytes()
    h = dyngrad.tensor(rng.uniform(-1, 1, shape).astype(dtype))
    gg, = dyngrad.autograd.grad(gx, g, h, retain_graph=True)      # TanhBackwardBackward0
    assert gg.numpy().tobytes() == np.asarray(h.numpy() * (1 - yv * yv)).tobytes()
    gy, = dyngrad.autograd.grad(gx, x, h)                          # through y's saved output
    want_y = h.numpy() * (-2 * yv * gv)                             # ... then TanhBackward0
    assert gy.numpy().tobytes() == np.asarray(want_y * (1 - yv * yv)).tobytes()


def test_the_two_norms_gradient_same_bits():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 5))
    x[2] = 0   # a zero norm: its row's gradient is 0
    t = dyngrad.tensor(x, requires_grad=True)
    g = rng.standard_normal(6)
    t.norm(2, dim=1).backward(dyngrad.tensor(g))
    n = np.sqrt((x * x).sum(1, keepdims=True))
    with np.errstate(invalid="ignore"):
        scaled = np.where(n == 0, 0.0, x / n)
    assert t.grad.numpy().tobytes() == (g[:, None] * scaled).tobytes()


def test_tanh_backward_with_a_broadcasting_gradient_as_torch():
    """A gradient of another shape than the output (broadcast) does not fit the output's fresh
    array: the kernel and its double backward take the expression, with torch's values."""
    from dyngrad.ops.unary import tanh_backward
    results = []
    for lib in (dyngrad, torch):
        go = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
        out = lib.tensor(np.linspace(-0.5, 0.5, 4), requires_grad=True)
        r = tanh_backward(go, out) if lib is dyngrad else torch.ops.aten.tanh_backward(go, out)
        results.append([r.detach().numpy()] + [t.numpy() for t in
                                               lib.autograd.grad(r.sum(), (go, out))])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-14)
