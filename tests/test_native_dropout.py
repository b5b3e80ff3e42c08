"""torch.native_dropout against live torch with the same seed: outputs, bool masks, layouts,
the NativeDropoutBackward0 node and its gradients (first and second order)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

RNG = np.random.default_rng(0)
ARRAYS = {
    "float32": RNG.standard_normal((6, 7)).astype("float32"),
    "float64": RNG.standard_normal((5, 9)).astype("float64"),
    "float16": RNG.standard_normal((8, 5)).astype("float16"),
    "complex64": (RNG.standard_normal((4, 5)) + 1j * RNG.standard_normal((4, 5))).astype(
        "complex64"),
}


def _run(lib, dtype, p, train, view=None, seed=11):
    lib.manual_seed(seed)
    x = lib.from_numpy(ARRAYS[dtype].copy())
    if view == "t":
        x = x.t()
    x.requires_grad_(dtype != "float16")
    if dtype.startswith("complex"):
        try:
            lib.native_dropout(x, p, train)
        except RuntimeError as e:
            assert "does not support automatic differentiation" in str(e)
        x = x.detach()
    out, mask = lib.native_dropout(x, p, train)
    return x, out, mask


@pytest.mark.parametrize("dtype", sorted(ARRAYS))
@pytest.mark.parametrize("p,train", [(0.3, True), (0.8, None), (0.5, False), (0.0, True),
                                     (1.0, True)])
@pytest.mark.parametrize("view", [None, "t"])
def test_values_masks_and_gradients(dtype, p, train, view):
    x, out, mask = _run(dyngrad, dtype, p, train, view)
    tx, tout, tmask = _run(torch, dtype, p, train, view)
    assert mask.dtype == dyngrad.bool and tmask.dtype == torch.bool
    np.testing.assert_array_equal(mask.numpy(), tmask.numpy())
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    assert (out.stride(), mask.stride()) == (tout.stride(), tmask.stride())
    assert not mask.requires_grad
    if dtype == "float16":
        return
    if dtype.startswith("complex"):   # torch refuses to record complex outputs of this op
        assert out.grad_fn is None and tout.grad_fn is None
        return
    assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__ == "NativeDropoutBackward0"
    assert out.grad_fn._saved_p == tout.grad_fn._saved_p
    np.testing.assert_array_equal(out.grad_fn._saved_result1.numpy(),
                                  tout.grad_fn._saved_result1.numpy())
    w = RNG.standard_normal(tuple(tout.shape)).astype(dtype)
    # create_graph: torch records grad * (mask * scale), a MulBackward0
    g, = dyngrad.autograd.grad((out * dyngrad.from_numpy(w)).sum() * out.sum(), x,
                               create_graph=True)
    tg, = torch.autograd.grad((tout * torch.from_numpy(w)).sum() * tout.sum(), tx,
                              create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-4, atol=1e-4)
    assert type(g.grad_fn).__name__ == type(tg.grad_fn).__name__
    assert [None if f is None else type(f).__name__ for f, _ in g.grad_fn.next_functions][1:] == \
        [None if f is None else type(f).__name__ for f, _ in tg.grad_fn.next_functions][1:]
    gg, = dyngrad.autograd.grad(g.abs().sum(), x)
    tgg, = torch.autograd.grad(tg.abs().sum(), tx)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-4, atol=1e-4)


def test_stream_advances_like_torch():
    a = RNG.standard_normal((33, 17)).astype("float32")
    dyngrad.manual_seed(4)
    torch.manual_seed(4)
    for _ in range(3):
        _, m = dyngrad.native_dropout(dyngrad.from_numpy(a.copy()), 0.4, True)
        _, tm = torch.native_dropout(torch.from_numpy(a.copy()), 0.4, True)
        np.testing.assert_array_equal(m.numpy(), tm.numpy())


ERRORS = [
    lambda lib: lib.native_dropout(lib.ones(3), 1.5, True),
    lambda lib: lib.native_dropout(lib.ones(3), -0.5, None),
    lambda lib: lib.native_dropout(lib.ones(3, dtype=lib.int64), 0.5, True),
    lambda lib: lib.native_dropout(lib.ones(3, dtype=lib.bool), 0.5, True),
    lambda lib: lib.native_dropout(lib.ones(3), 0.5, True, out=lib.ones(3)),
    lambda lib: lib.native_dropout(lib.ones(3, dtype=lib.complex64, requires_grad=True), 0.5,
                                   True),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    def raised(lib):
        try:
            ERRORS[index](lib)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            return e
        return None
    texc, exc = raised(torch), raised(dyngrad)
    assert texc is not None and exc is not None, (texc, exc)
    assert (type(exc).__name__, str(exc)) == (type(texc).__name__, str(texc))


def test_eval_and_empty():
    for lib in (torch, dyngrad):
        out, mask = lib.native_dropout(lib.ones(2, 3, dtype=lib.int64), 0.5, False)
        assert str(out.dtype).endswith("int64") and bool(mask.all())
        out, mask = lib.native_dropout(lib.ones(0, 3), 0.5, True)
        assert str(mask.dtype).endswith("float32") and tuple(mask.shape) == (0, 3)


@pytest.mark.parametrize("train", [True, None, False])
def test_forward_ad_matches_torch(train):
    """torch's forward formula scales by 1 / (1 - p) for train=None too (its backward does
    not): both are followed."""
    a = RNG.standard_normal((4, 5)).astype("float32")
    t = RNG.standard_normal((4, 5)).astype("float32")
    tangents = []
    for lib in (torch, dyngrad):
        fa = lib.autograd.forward_ad
        lib.manual_seed(3)
        with fa.dual_level():
            x = fa.make_dual(lib.from_numpy(a.copy()), lib.from_numpy(t.copy()))
            out, _ = lib.native_dropout(x, 0.4, train)
            tangents.append(fa.unpack_dual(out).tangent.numpy())
    np.testing.assert_allclose(tangents[1], tangents[0])
