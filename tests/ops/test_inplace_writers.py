"""Gradients of the in-place writers where the destination does not require grad (a cast the
OpInfo-driven tests cannot express: they mark every floating tensor of a sample).

``zeros(3, 4).copy_(src)`` gives ``CopyBackwards`` with no edge for the destination and the
gradient (cast and summed to src's shape) for ``src``; ``fill_(value)`` and ``bernoulli_(p)``
likewise link only the tensor argument. Compared with live torch: graph, gradients, errors.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad

from ._grad_support import assert_grads_close, assert_same_error
from .test_graph_parity import compare_graphs


def _arg(lib, shape, dtype, seed, low=-2.0, high=2.0):
    a = np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)
    return lib.from_numpy(a).requires_grad_()


CASES = {
    "copy_ broadcast, cast": (lambda lib, a: lib.zeros(3, 4, dtype=lib.float64).copy_(a),
                              (4,), "float32"),
    "copy_ same shape": (lambda lib, a: lib.zeros(3, 4).copy_(a), (3, 4), "float32"),
    "copy_ 0-dim src": (lambda lib, a: lib.ones(2, 3).copy_(a), (), "float64"),
    "copy_ into long": (lambda lib, a: lib.zeros(3, dtype=lib.int64).copy_(a), (3,), "float64"),
    "copy_ into complex": (lambda lib, a: lib.zeros(3, dtype=lib.complex64).copy_(a), (3,),
                           "float32"),
    "fill_ tensor": (lambda lib, a: lib.zeros(3, 4).fill_(a), (), "float64"),
    "bernoulli_ tensor p": (lambda lib, a: lib.zeros(3, 4).bernoulli_(a), (4,), "float64"),
    "normal_ then copy_": (lambda lib, a: lib.empty(2, 2).normal_().copy_(a), (2,), "float32"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_writer_into_a_tensor_without_grad(name):
    fn, shape, dtype = CASES[name]
    low = 0.0 if "bernoulli" in name else -2.0
    ta, a = _arg(torch, shape, dtype, 0, low, 1.0), _arg(dyngrad, shape, dtype, 0, low, 1.0)
    ty, y = fn(torch, ta), fn(dyngrad, a)
    assert y.requires_grad == ty.requires_grad and str(y.dtype) == str(ty.dtype)
    compare_graphs([y.grad_fn], [ty.grad_fn], [a], [ta], name)
    if not ty.requires_grad or ty.is_complex():
        return
    cot = np.random.default_rng(1).standard_normal(tuple(ty.shape)).astype(str(ty.dtype)[6:])
    expected = torch.autograd.grad(ty, ta, torch.from_numpy(cot.copy()))
    got = dyngrad.autograd.grad(y, a, dyngrad.from_numpy(cot.copy()))
    assert_grads_close(got, expected, name, (1e-6, 1e-6))


def test_bernoulli_float_p_has_no_derivative():
    """``bernoulli(x, p)`` records torch's NotImplemented node: backward raises torch's error."""
    errors = []
    for lib in (torch, dyngrad):
        y = lib.bernoulli(lib.full((2, 3), 0.5, dtype=lib.float64, requires_grad=True), 0.3)
        assert type(y.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        errors.append(info.value)
    assert_same_error(errors[1], errors[0], "bernoulli(x, p) backward")


def test_bernoulli_float_p_has_no_out():
    errors = []
    for lib in (torch, dyngrad):
        with pytest.raises(TypeError) as info:
            lib.bernoulli(lib.zeros(3), 0.3, out=lib.empty(3))
        errors.append(info.value)
    assert_same_error(errors[1], errors[0], "bernoulli(x, p, out=)")
