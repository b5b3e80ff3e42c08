"""native_layer_norm and norm_except_dim against torch: values, shapes, grad_fns, gradients."""
import numpy as np
import pytest
import torch

import dyngrad


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (dyngrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True))


def _check(fn, shape, names):
    x, tx = _pair(shape)
    ours, theirs = fn(dyngrad, x), fn(torch, tx)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for o, t, name in zip(ours, theirs, names):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        np.testing.assert_allclose(o.detach()._data, t.detach().numpy(), rtol=1e-12, atol=1e-12)
        got = type(o.grad_fn).__name__ if o.grad_fn is not None else None
        want = type(t.grad_fn).__name__ if t.grad_fn is not None else None
        assert got == want == name or (got, want) == (name[0], name[1])
    g = np.random.default_rng(1).standard_normal(tuple(theirs[0].shape))
    (gx,) = dyngrad.autograd.grad(ours[0], x, dyngrad.tensor(g))
    (tgx,) = torch.autograd.grad(theirs[0], tx, torch.tensor(g))
    np.testing.assert_allclose(gx._data, tgx.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape,ns", [((3, 4), [4]), ((2, 3, 4), [3, 4]), ((5, 2), (2,))])
def test_native_layer_norm(shape, ns):
    _check(lambda L, x: L.native_layer_norm(x, ns, None, None, 1e-5), shape,
           ["NativeLayerNormBackward0", None, None])


def test_native_layer_norm_affine():
    w, tw = _pair((4,), 3)
    b, tb = _pair((4,), 4)
    _check(lambda L, x: L.native_layer_norm(x, [4], w if L is dyngrad else tw,
                                            b if L is dyngrad else tb, 1e-5),
           (3, 4), ["NativeLayerNormBackward0", None, None])


@pytest.mark.parametrize("shape,pow,dim", [((3, 4), 2, 0), ((3, 4), 2, 1), ((2, 3, 4), 2, 1),
                                           ((2, 3, 4), 3, 2), ((2, 3, 4), 1, 0)])
def test_norm_except_dim(shape, pow, dim):
    _check(lambda L, x: L.norm_except_dim(x, pow, dim), shape, ["ViewBackward0"]
           if dim in (0, len(shape) - 1) else ["TransposeBackward0"])


def test_norm_except_dim_all():
    # torch's C++ at::norm records NormBackward0; dyngrad's norm LinalgVectorNormBackward0
    _check(lambda L, x: L.norm_except_dim(x, 2, -1), (3, 4),
           [("LinalgVectorNormBackward0", "NormBackward0")])
