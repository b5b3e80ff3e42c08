"""linalg.eig / eigvals on general matrices, against torch: eigenvectors up to their phases
(see Note [Eigenvectors of eig]) and gradients of losses that do not depend on those phases."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad


def _pair(shape, dtype, seed):
    a = np.random.default_rng(seed).standard_normal(shape + (2,)) @ np.array([1, 1j])
    a = a if dtype.startswith("complex") else a.real
    a = a.astype(dtype)
    return (torch.from_numpy(a.copy()).requires_grad_(),
            dyngrad.tensor(a.copy()).requires_grad_())


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach()._data


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 3), (5, 5), (2, 4, 4)])
def test_eig_up_to_phase(dtype, shape):
    ta, da = _pair(shape, dtype, 7)
    L, V = torch.linalg.eig(ta)
    dL, dV = dyngrad.linalg.eig(da)
    assert str(dL.dtype) == str(L.dtype) and str(dV.dtype) == str(V.dtype)
    assert dV.stride() == V.stride()
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    # the order of the eigenvalues may differ too (single precision): compare both sorted
    (l, v), (tl, tv) = _sorted(_np(dL), _np(dV)), _sorted(_np(L), _np(V))
    np.testing.assert_allclose(l, tl, rtol=tol, atol=tol)
    phase = (np.conj(v) * tv).sum(-2, keepdims=True)   # the column-wise phase between them
    np.testing.assert_allclose(np.abs(phase), 1, rtol=tol, atol=tol)
    np.testing.assert_allclose(v * phase, tv, rtol=10 * tol, atol=10 * tol)
    a = _np(da)
    np.testing.assert_allclose(a @ v, v * l[..., None, :], rtol=10 * tol, atol=10 * tol)


def _sorted(L, V):
    order = np.argsort(np.round(L.real, 3) * 1e4 + L.imag, axis=-1)
    return (np.take_along_axis(L, order, -1),
            np.take_along_axis(V, order[..., None, :], -1))


def _invariant_loss(L, V, lib):
    w = lib.tensor([0.3, -1.2, 0.7, 2.0, 0.1][:L.shape[-1]], dtype=lib.float64)
    return (L.real * w).sum() + (L.imag ** 2).sum() + (V.abs() ** 2 * w).sum()


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 4), (2, 3, 3)])
def test_eig_phase_invariant_gradients(dtype, shape):
    ta, da = _pair(shape, dtype, 11)
    loss = _invariant_loss(*torch.linalg.eig(ta), torch)
    dloss = _invariant_loss(*dyngrad.linalg.eig(da), dyngrad)
    g, = torch.autograd.grad(loss, ta, create_graph=True)
    dg, = dyngrad.autograd.grad(dloss, da, create_graph=True)
    np.testing.assert_allclose(_np(dg), _np(g), rtol=1e-8, atol=1e-8)
    assert str(dg.dtype) == str(g.dtype)
    gg, = torch.autograd.grad((g.abs() ** 2).sum(), ta)
    dgg, = dyngrad.autograd.grad((dg.abs() ** 2).sum(), da)
    np.testing.assert_allclose(_np(dgg), _np(gg), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eigvals_gradient_and_graph(dtype):
    ta, da = _pair((4, 4), dtype, 3)
    L, dL = torch.linalg.eigvals(ta), dyngrad.linalg.eigvals(da)
    assert type(dL.grad_fn).__name__ == type(L.grad_fn).__name__ == "LinalgEigBackward0"
    cot = np.random.default_rng(0).standard_normal((4, 2)) @ np.array([1, 1j])
    g, = torch.autograd.grad(L, ta, torch.from_numpy(cot))
    dg, = dyngrad.autograd.grad(dL, da, dyngrad.tensor(cot))
    np.testing.assert_allclose(_np(dg), _np(g), rtol=1e-8, atol=1e-8)


def test_eig_phase_dependent_loss_raises():
    ta, da = _pair((3, 3), "complex128", 5)
    with pytest.raises(RuntimeError) as texc:
        torch.autograd.grad(torch.linalg.eig(ta)[1].real.sum(), ta)
    with pytest.raises(RuntimeError) as exc:
        dyngrad.autograd.grad(dyngrad.linalg.eig(da)[1].real.sum(), da)
    assert str(exc.value) == str(texc.value)


def test_eig_non_finite_and_out():
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
            lib.linalg.eig(lib.tensor([[float("nan"), 1.0], [1.0, 1.0]]))
    ta, da = _pair((3, 3), "float64", 1)
    outs = (dyngrad.empty(0, dtype=dyngrad.complex128), dyngrad.empty(0, dtype=dyngrad.complex128))
    with dyngrad.no_grad():
        res = dyngrad.linalg.eig(da, out=outs)
    assert res[0] is outs[0] and res[1] is outs[1]
    L, V = torch.linalg.eig(ta.detach())
    np.testing.assert_allclose(_np(outs[0]), _np(L), rtol=1e-10, atol=1e-10)
    assert outs[1].stride() == V.stride()


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_forward_ad(dtype):
    import torch.autograd.forward_ad as tfw
    import dyngrad.autograd.forward_ad as dfw
    rng = np.random.default_rng(4)
    a, t = (rng.standard_normal((2, 3, 3)).astype(dtype) for _ in range(2))
    tangents = []
    for lib, fw, make in ((torch, tfw, torch.from_numpy), (dyngrad, dfw, dyngrad.tensor)):
        with fw.dual_level():
            x = fw.make_dual(make(a.copy()), make(t.copy()))
            outs = (lib.linalg.eigvals(x), *lib.linalg.eig(x))
            tangents.append([_np(fw.unpack_dual(o).tangent.resolve_conj()) for o in outs])
    for got, want in zip(tangents[1], tangents[0]):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
