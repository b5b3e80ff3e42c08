"""nn.utils against torch: gradient clipping and parameter/vector conversion."""
import math

import numpy as np
import pytest
import torch

import dyngrad

from .helpers import pair
from .test_module import same_error, same_result


def _with_grads(lib, scale=1.0):
    rng = np.random.default_rng(0)
    params = []
    for shape in ((3, 4), (4,), (2, 2, 2)):
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape)))
        p.grad = lib.tensor(rng.standard_normal(shape) * scale)
        params.append(p)
    params.append(lib.nn.Parameter(lib.ones(2, dtype=lib.float64)))   # no grad: skipped
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_like_torch(norm_type, max_norm):
    def clip(lib):
        params = _with_grads(lib)
        versions = [p.grad._version for p in params[:3]]
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type,
                                             foreach=True)
        return (round(total.item(), 10), str(total.dtype), total.shape == (),
                [np.round(p.grad.numpy(), 10).tolist() for p in params[:3]],
                [p.grad._version > v for p, v in zip(params, versions)], params[3].grad)
    same_result(clip)


def test_clip_grad_norm_inputs():
    def single_tensor(lib):
        p = lib.nn.Parameter(lib.ones(4))
        p.grad = lib.full((4,), 2.0)
        total = lib.nn.utils.clip_grad_norm_(p, 1.0)
        return total.item(), p.grad.tolist()
    same_result(single_tensor)

    def empty(lib):
        import warnings
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            total = lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
            none = lib.nn.utils.clip_grad_norm_([lib.nn.Parameter(lib.ones(1))], 1.0)
        return total.item(), str(total.dtype), none.item(), [str(x.message) for x in w]
    same_result(empty)

    def nonfinite(lib):
        params = _with_grads(lib)
        params[0].grad[0, 0] = float("inf")
        lib.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    same_error(nonfinite)

    def overflowing(lib):   # float32 squares past float32's range: an inf norm, as torch's
        params = [lib.nn.Parameter(lib.ones(2))]
        params[0].grad = lib.tensor([1e20, 1.0])
        lib.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    same_error(overflowing)

    def overflowing_unchecked(lib):
        params = [lib.nn.Parameter(lib.ones(2))]
        params[0].grad = lib.tensor([1e20, 1.0])
        total = lib.nn.utils.clip_grad_norm_(params, 1.0)
        return total.item(), params[0].grad.tolist()
    same_result(overflowing_unchecked)

    def deprecated(lib):
        import warnings
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            total = lib.nn.utils.clip_grad_norm(_with_grads(lib), 1.0)
        return round(total.item(), 10), [(x.category.__name__, str(x.message)) for x in w]
    same_result(deprecated)


def test_clip_grad_norm_records_no_graph():
    p = dyngrad.nn.Parameter(dyngrad.ones(3))
    p.grad = dyngrad.full((3,), 5.0)
    total = dyngrad.nn.utils.clip_grad_norm_([p], 1.0)
    assert total.grad_fn is None and p.grad.grad_fn is None and not total.requires_grad


def test_clip_grad_value_like_torch():
    def clip(lib):
        params = _with_grads(lib, scale=3.0)
        r = lib.nn.utils.clip_grad_value_(params, 1.5, foreach=False)
        single = lib.nn.Parameter(lib.ones(2))
        single.grad = lib.tensor([-4.0, 0.5])
        lib.nn.utils.clip_grad_value_(single, 1)
        return r, [p.grad.tolist() for p in params[:3]], single.grad.tolist()
    same_result(clip)


def test_parameters_to_vector_and_back():
    def convert(lib):
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Linear(2, 1))
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) + 10 * i)
        vec = lib.nn.utils.parameters_to_vector(m.parameters())
        info = (vec.tolist(), type(vec.grad_fn).__name__, vec.requires_grad)
        new = lib.arange(vec.numel(), dtype=lib.float32) * -1
        lib.nn.utils.vector_to_parameters(new, m.parameters())
        w = m[0].weight
        return (info, [p.tolist() for p in m.parameters()], type(w).__name__, w.is_leaf,
                w.requires_grad, w.data_ptr() == new.data_ptr())
    same_result(convert)
    same_error(lambda lib: lib.nn.utils.vector_to_parameters([1.0], []))


def test_parameters_to_vector_backward():
    ours, theirs = pair(lambda lib: lib.nn.Linear(3, 2))
    for lib, m in ((dyngrad, ours), (torch, theirs)):
        v = lib.nn.utils.parameters_to_vector(m.parameters())
        (v * lib.arange(8.0)).sum().backward()
    np.testing.assert_array_equal(ours.weight.grad.numpy(), theirs.weight.grad.numpy())
    np.testing.assert_array_equal(ours.bias.grad.numpy(), theirs.bias.grad.numpy())
