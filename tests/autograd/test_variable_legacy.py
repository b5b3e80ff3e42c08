"""torch.autograd.Variable (the legacy wrapper: the same tensor detached) and the multithreading
switch, against torch."""
from __future__ import annotations

import warnings

import pytest
import torch

import dyngrad


@pytest.mark.parametrize("lib", (torch, dyngrad), ids=("torch", "dyngrad"))
def test_variable_is_a_detached_tensor(lib):
    Variable = lib.autograd.Variable
    a = lib.ones(2)
    v = Variable(a, requires_grad=True)
    assert type(v) is lib.Tensor and v is not a and v.is_leaf and v.requires_grad
    assert v.data_ptr() == a.data_ptr()
    assert isinstance(a, Variable) and not isinstance([1.0], Variable)
    assert not Variable(a).requires_grad
    b = lib.ones(2, requires_grad=True) * 2
    assert Variable(b).grad_fn is None and not Variable(b).requires_grad
    assert tuple(Variable().shape) == (0,)


def test_variable_messages():
    out = []
    for lib in (torch, dyngrad):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.autograd.Variable(lib.ones(1), volatile=True)
        with pytest.raises(TypeError) as err:
            lib.autograd.Variable([1.0])
        out.append(([str(x.message) for x in w], str(err.value)))
    assert out[0] == out[1]


@pytest.mark.parametrize("lib", (torch, dyngrad), ids=("torch", "dyngrad"))
def test_set_multithreading_enabled(lib):
    """Takes effect when made, restores the previous value when its block exits."""
    ag = lib.autograd
    assert ag.is_multithreading_enabled()
    switch = ag.set_multithreading_enabled(False)
    assert not ag.is_multithreading_enabled()
    with switch:
        assert not ag.is_multithreading_enabled()
    assert ag.is_multithreading_enabled()
