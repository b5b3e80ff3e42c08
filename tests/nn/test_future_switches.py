"""torch.__future__'s module-conversion switches (overwrite, swap) and Tensor.module_load, as
nn.Module._apply and load_state_dict use them, against torch."""
import contextlib

import pytest
import torch

import dyngrad


@contextlib.contextmanager
def switches(lib, swap, overwrite):
    lib.__future__.set_swap_module_params_on_conversion(swap)
    lib.__future__.set_overwrite_module_params_on_conversion(overwrite)
    try:
        yield
    finally:
        lib.__future__.set_swap_module_params_on_conversion(False)
        lib.__future__.set_overwrite_module_params_on_conversion(False)


def _convert(lib, swap, overwrite):
    with switches(lib, swap, overwrite):
        m = lib.nn.Linear(2, 2)
        w = m.weight
        m(lib.ones(1, 2)).sum().backward()
        g = w.grad
        m.double()
        return (m.weight is w, str(m.weight.dtype), str(w.dtype), m.weight.grad is g,
                str(m.weight.grad.dtype), str(g.dtype), type(m.weight).__name__,
                m.weight.requires_grad, lib.__future__.get_swap_module_params_on_conversion(),
                lib.__future__.get_overwrite_module_params_on_conversion())


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("overwrite", [False, True])
def test_module_conversion(swap, overwrite):
    assert _convert(dyngrad, swap, overwrite) == _convert(torch, swap, overwrite)


def _load(lib, swap, assign):
    with switches(lib, swap, False):
        m = lib.nn.Linear(2, 2)
        w = m.weight
        sd = {"weight": lib.full((2, 2), 3.0), "bias": lib.zeros(2)}
        result = m.load_state_dict(sd, assign=assign)
        return (repr(result), m.weight is w, m.weight.tolist(), type(m.weight).__name__,
                m.weight.requires_grad, m.weight is sd["weight"],
                m.weight.data_ptr() == sd["weight"].data_ptr())


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("assign", [False, True])
def test_load_state_dict(swap, assign):
    assert _load(dyngrad, swap, assign) == _load(torch, swap, assign)


def _load_error(lib):
    with switches(lib, True, False):
        m = lib.nn.Linear(2, 2)
        try:
            m.load_state_dict({"weight": lib.ones(2, 2), "bias": "x"})
        except RuntimeError as e:
            return str(e)


def test_load_error_names_swapping_or_copying():
    assert _load_error(dyngrad) == _load_error(torch)


def _module_load_returning_other(lib):
    class Keep(lib.Tensor):
        def module_load(self, other, assign=False):
            return other

    with switches(lib, True, False):
        m = lib.nn.Module()
        m.register_buffer("b", lib.zeros(2).as_subclass(Keep))
        try:
            m.load_state_dict({"b": lib.ones(2)})
        except RuntimeError as e:
            return str(e)


def test_module_load_must_return_a_new_tensor():
    assert _module_load_returning_other(dyngrad) == _module_load_returning_other(torch)


def test_module_load():
    def fn(lib):
        a, b = lib.zeros(2), lib.ones(2, requires_grad=True)
        loaded = a.module_load(b)
        assigned = a.module_load(b, assign=True)
        return (loaded.tolist(), a.tolist(), loaded is a, assigned is b,
                assigned.requires_grad, assigned.data_ptr() == b.data_ptr())
    assert fn(dyngrad) == fn(torch)


def test_names():
    def names(lib):
        return sorted(n for n in dir(lib.__future__) if not n.startswith("_"))
    assert names(dyngrad) == names(torch)
