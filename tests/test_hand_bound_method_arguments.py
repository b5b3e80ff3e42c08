"""The arguments of the Tensor methods torch binds by hand (``to``, ``new_tensor``, ``new``,
``set_``, ``map_``, ``map2_``: their entries in dyngrad/ops/_signatures.py) as torch's parser takes them: the calls
it accepts do what torch's do, and the others get its TypeError, word for word."""
from __future__ import annotations

import warnings

import pytest
import torch

import dyngrad

CALLS = [
    # accepted: the result's dtype, and whether it is the tensor itself
    'x.to("cpu")', "x.to(x)", "x.to(torch.float64, True)", "x.to(None, torch.float64)",
    'x.to("cpu", torch.float64, False, True)', "x.to(0)", "x.to(float)", 'x.to("cpu", float)',
    "x.to(dtype=int)", 'x.to(device="cpu", dtype=torch.int32, copy=True)',
    "x.to(torch.float64, copy=True)", "x.to(memory_format=torch.contiguous_format)",
    "x.to(non_blocking=True)", 'x.to("cpu", None)', "x.to(None)", "x.to(tensor=x)",
    'x.to("cpu", torch.float64, non_blocking=True, copy=True)', "x.to(x, False, True)",
    # a Python number is a tensor to this parser (its dtype: float64, bool, complex128)
    "x.to(1.5)", "x.to(True)", "x.to(2j)", "x.to(1.5, True, True)",
    # refused: the parser's listing
    "x.to(zzz=1)", "x.to(1, 2, 3, 4, 5, 6)", 'x.to("cpu", "a")',
    "x.to(torch.float64, non_blocking=1)", "x.to(torch.float32, False, False, False)",
    "x.to(copy=1)", "x.to(x, 1)", 'x.to("cpu", torch.float64, 1)', "x.to([1])",
    "x.to(torch.float64, torch.float32)", 'x.to(dtype="a")', "x.to(device=1.5)",
    "x.to(torch.float64, memory_format=1)", "x.to(x, dtype=torch.int32)", "x.to(out=x)",
    'x.to(dtype=torch.float64, device="cpu", zzz=1)',
]


def _outcome(lib, call):
    x = lib.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval(call, {"x": x, "torch": lib})
        except Exception as e:   # noqa: BLE001
            return type(e).__name__, str(e)
    values = r.tolist() if call.startswith("x.map") else None   # (new's memory is not set)
    return "ok", str(r.dtype), r is x, tuple(r.shape), r.stride(), values


@pytest.mark.parametrize("call", CALLS)
def test_to_like_torch(call):
    assert _outcome(dyngrad, call) == _outcome(torch, call)


NEW_TENSOR = [
    "x.new_tensor([1, 2])", "x.new_tensor([1], dtype=torch.int32)", "x.new_tensor(data=[1])",
    "x.new_tensor([1], device='cpu', requires_grad=True)", "x.new_tensor([1], dtype=None)",
    "x.new_tensor()", "x.new_tensor([1], zzz=1)", "x.new_tensor([1], 2)",
    "x.new_tensor([1], dtype=1)", "x.new_tensor([1], requires_grad=1)",
    "x.new_tensor([1], pin_memory=False)", "x.new_tensor([1], layout=torch.strided)",
]


@pytest.mark.parametrize("call", NEW_TENSOR)
def test_new_tensor_like_torch(call):
    assert _outcome(dyngrad, call) == _outcome(torch, call)


NEW_AND_SET = [
    "x.new()", "x.new(2, 3)", "x.new((2, 3))", "x.new([1., 2.])", "x.new(x)",
    "x.new(device='cpu')", "x.new(2, device='cpu')", "x.new(zzz=1)", "x.new('a')",
    "x.new(2, 'a')",
    "x.set_()", "x.set_(x)", "x.set_(x, 0, (2,))", "x.set_(x.untyped_storage())",
    "x.set_(source=x)", "x.set_(zzz=1)", "x.set_(1)", "x.set_(x, 'a')", "x.set_(x, 1)",
    "x.set_(x, 0, (2,), (1,), 5)", "x.set_(x, 0, 'a')",
    # an offset comes with a size, or neither is given (a 0 offset included)
    "x.set_(x, 0)", "x.set_(x, storage_offset=0)", "x.set_(x.untyped_storage(), 0)",
    "x.set_(x, size=(2,))", "x.set_(x, stride=(1,))", "x.set_(x, 0, size=(2,))",
    "x.set_(x.untyped_storage(), 1, (1,))", "x.set_(x.storage(), 'a')",
]


MAPS = [f"x.{name}({args})" for name in ("map_", "map2_") for args in (
    "zzz=1", "1, 2, 3", "'a'", "x", "x, 1", "x, lambda a, b: a + b",
    "x, x, lambda a, b, c: a + b + c")]


@pytest.mark.parametrize("call", NEW_AND_SET + MAPS)
def test_new_and_set_like_torch(call):
    assert _outcome(dyngrad, call) == _outcome(torch, call)


@pytest.mark.parametrize("make, size", [
    ("lib.ones(2, 3).t()", (3, 2)), ("lib.ones(2, 3).t()", (2, 3)),
    ("lib.ones(4)[::2]", (3,)), ("lib.ones(6)[::2]", (3,))])
def test_set_keeps_strides_of_the_same_size(make, size):
    """torch resizes self to the new size, keeping its strides where the size is the same."""
    got = []
    for lib in (torch, dyngrad):
        x = eval(make, {"lib": lib})
        x.set_(lib.arange(6.), 0, size)
        got.append((x.stride(), x.tolist()))
    assert got[0] == got[1]
