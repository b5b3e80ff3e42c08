"""Assigning to a tensor's attributes, against torch: the read-only ones raise torch's
AttributeError (Note [Read-only attributes] in _tensor.py), ``grad_fn`` among them;
``requires_grad`` takes a bool alone; ``real``/``imag`` take a tensor or a Python number."""
from __future__ import annotations

import pytest
import torch

import dyngrad

READ_ONLY = ["is_leaf", "grad_fn", "shape", "dtype", "device", "is_cuda", "ndim", "T", "layout",
             "_version", "output_nr", "is_sparse", "itemsize", "nbytes", "mT", "H", "mH",
             "is_quantized", "is_meta", "retains_grad", "is_nested"]


def _outcome(lib, setup, name, value):
    x = setup(lib)
    try:
        setattr(x, name, value(lib) if callable(value) else value)
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return type(e).__name__, str(e)
    return "ok", x.tolist(), x.requires_grad, x.grad_fn is None


def _ones(lib):
    return lib.ones(2)


def _non_leaf(lib):
    return lib.ones(2, requires_grad=True) * 2


def _complex(lib):
    return lib.ones(2, dtype=lib.complex64)


@pytest.mark.parametrize("name", READ_ONLY)
@pytest.mark.parametrize("setup", [_ones, _non_leaf])
def test_read_only_attributes(name, setup):
    assert _outcome(dyngrad, setup, name, None) == _outcome(torch, setup, name, None)


@pytest.mark.parametrize("setup,name,value", [
    (_ones, "requires_grad", None), (_ones, "requires_grad", 1), (_ones, "requires_grad", 0.0),
    (_ones, "requires_grad", True), (_non_leaf, "requires_grad", 0),
    (_non_leaf, "requires_grad", False), (_ones, "real", None), (_ones, "real", [1.0, 2.0]),
    (_ones, "real", "a"), (_ones, "real", 2.5), (_ones, "real", True),
    (_ones, "real", lambda lib: lib.tensor([3.0, 4.0])), (_complex, "imag", None),
    (_complex, "imag", [1.0, 2.0]), (_complex, "imag", -1.5), (_ones, "real", 1 + 0j),
    (_ones, "real", 1 + 2j), (_complex, "real", 2 - 1j), (_complex, "imag", 3 + 0j)])
def test_setters(setup, name, value):
    ours = _outcome(dyngrad, setup, name, value)
    assert ours == _outcome(torch, setup, name, value)


@pytest.mark.parametrize("name", ["grad_fn", "shape", "is_leaf"])
def test_deleting_read_only_attributes(name):
    def outcome(lib):
        x = lib.ones(2, requires_grad=True) * 2
        try:
            delattr(x, name)
        except AttributeError as e:
            return str(e)
    assert outcome(dyngrad) == outcome(torch)
