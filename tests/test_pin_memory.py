"""``pin_memory=`` of the factories: torch's CPU-only build refuses True (pinned memory needs an
accelerator's allocator) and takes False; dyngrad ignored True, and the ``*_like`` factories
refused the keyword altogether."""
from __future__ import annotations

import warnings

import pytest
import torch

import dyngrad

CALLS = {
    "zeros_like, False": lambda L: L.zeros_like(L.ones(2), pin_memory=False),
    "empty_like": lambda L: L.empty_like(L.ones(2), pin_memory=True),
    "full_like": lambda L: L.full_like(L.ones(2), 1.0, pin_memory=True),
    "rand_like": lambda L: L.rand_like(L.ones(2), pin_memory=True),
    "randn_like, False": lambda L: L.randn_like(L.ones(2), pin_memory=False),
    "randint_like": lambda L: L.randint_like(L.ones(2), 3, pin_memory=True),
    "zeros": lambda L: L.zeros(2, pin_memory=True),
    "zeros, False": lambda L: L.zeros(2, pin_memory=False),
    "empty": lambda L: L.empty(2, pin_memory=True),
    "empty_strided": lambda L: L.empty_strided((2,), (1,), pin_memory=True),
    "empty_permuted": lambda L: L.empty_permuted((2, 3), (1, 0), pin_memory=True),
    "full": lambda L: L.full((2,), 1.0, pin_memory=True),
    "eye": lambda L: L.eye(2, pin_memory=True),
    "scalar_tensor": lambda L: L.scalar_tensor(1, pin_memory=True),
    "tensor": lambda L: L.tensor([1], pin_memory=True),
    "new_ones": lambda L: L.ones(2).new_ones(2, pin_memory=True),
    "new_empty_strided": lambda L: L.ones(2).new_empty_strided((2,), (1,), pin_memory=True),
    "arange": lambda L: L.arange(3, pin_memory=True),
    "linspace": lambda L: L.linspace(0, 1, 3, pin_memory=True),
    "logspace": lambda L: L.logspace(0, 1, 3, pin_memory=True),
    "rand": lambda L: L.rand(2, pin_memory=True),
    "randint": lambda L: L.randint(3, (2,), pin_memory=True),
    "randperm": lambda L: L.randperm(3, pin_memory=True),
    "normal": lambda L: L.normal(0.0, 1.0, (2,), pin_memory=True),
    "hann_window": lambda L: L.hann_window(4, pin_memory=True),
    "tril_indices": lambda L: L.tril_indices(3, 3, pin_memory=True),
    "fftfreq": lambda L: L.fft.fftfreq(4, pin_memory=True),
    # torch validates the arguments first and refuses pinned memory when it allocates
    "zeros, negative size": lambda L: L.zeros(-1, pin_memory=True),
    "linspace, negative steps": lambda L: L.linspace(0, 1, -1, pin_memory=True),
    "logspace, negative steps": lambda L: L.logspace(0, 1, -2, pin_memory=True),
    "tril_indices, negative row": lambda L: L.tril_indices(-1, 3, pin_memory=True),
    "scalar_tensor, str": lambda L: L.scalar_tensor("a", pin_memory=True),
    "empty_permuted, duplicate dim": lambda L: L.empty_permuted((2, 3), (0, 0),
                                                                pin_memory=True),
    "randint, empty range": lambda L: L.randint(3, 1, (2,), pin_memory=True),
    "arange, wrong step sign": lambda L: L.arange(0, 5, -1, pin_memory=True),
}


def _outcome(lib, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", tuple(call(lib).shape)
        except Exception as e:   # noqa: BLE001  (compared with torch's)
            return type(e).__name__, str(e)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_pin_memory(name):
    assert _outcome(dyngrad, CALLS[name]) == _outcome(torch, CALLS[name])


@pytest.mark.parametrize("call", [
    lambda lib: lib.hann_window(-1, pin_memory=True),
    lambda lib: lib.hann_window(0, pin_memory=True),
    lambda lib: lib.hann_window(5, dtype=lib.complex64, pin_memory=True),
    lambda lib: lib.hann_window(5, dtype=lib.uint8, pin_memory=True)], ids=lambda c: "")
def test_window_check_order(call):
    """Windows check dtype and length before pinned memory, as torch does."""
    assert _outcome(dyngrad, call) == _outcome(torch, call)


@pytest.mark.parametrize("expr", [
    "x.is_pinned()", "x.is_pinned(None)", "x.is_pinned(0)", "x.is_pinned(device=1)",
    "x.is_pinned(1.5)", "x.is_pinned(device=1.5)", "x.is_pinned(L.device('cpu'))"])
def test_is_pinned(expr):
    """No pinned memory on the CPU; an index names an accelerator there is none of; a device
    of another type gets the parser's TypeError."""
    def outcome(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return "ok", eval(expr, {"x": lib.ones(2), "L": lib})
            except Exception as e:   # noqa: BLE001  (compared with torch's)
                return type(e).__name__, str(e)
    assert outcome(dyngrad) == outcome(torch)
