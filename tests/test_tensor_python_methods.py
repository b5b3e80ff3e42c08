"""The Tensor methods that torch writes in Python (Note [Methods torch writes in Python] in
dyngrad/_tensor_python.py): their names and signatures are torch's, so a bad call gets
Python's words for it, as torch's does; the bindings they call refuse what torch's refuse."""
from __future__ import annotations

import inspect
import warnings

import pytest
import torch

import dyngrad
from dyngrad import _tensor_python
from dyngrad.ops import linalg_lu
from dyngrad.ops._signatures import PYTHON_METHODS

import torchgen_signatures as TG


def _parameters(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", sorted(PYTHON_METHODS))
def test_name_and_signature_are_torchs(name):
    mine, theirs = getattr(dyngrad.Tensor, name), getattr(torch.Tensor, name)
    assert mine.__qualname__ == theirs.__qualname__ == f"Tensor.{name}"
    assert _parameters(mine) == _parameters(theirs)


@pytest.mark.parametrize("texts", [_tensor_python.SPLIT, _tensor_python.SPLIT_WITH_SIZES,
                                   linalg_lu._LU_WITH_INFO])
def test_bindings_are_torchgens(texts):
    name = texts[0].partition("(")[0]
    assert tuple(t for t in TG.entry(name) if "|method" not in t) == texts


def test_module_function_is_not_renamed():
    """The method is a copy where the function has other names: ``dyngrad.split`` keeps its."""
    assert dyngrad.split.__qualname__ == "split"
    assert dyngrad.Tensor.split is not dyngrad.split


_CALLS = ["x.{}(zzz=1)", "x.{}(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)", "x.{}()",
          "x.{}(1, zzz=2)", "x.{}('a')", "x.{}(1)", "x.{}(2, 1)", "x.{}(None)", "x.{}(x)",
          "x.{}((1, 2), 0)", "x.{}(dim=0)", "x.{}(True, True, True)", "x.{}(1, 'a')",
          "x.{}(0, ())", "x.{}(0, (3, 1))", "x.{}([1, 2])", "x.{}(2, dim='a')", "x.{}(x[0])",
          "x.{}(1, out=x)"]
# calls that reach the public function (torch.norm, torch.stft...), whose own checks differ
_FUNCTION_CHECKS = {
    "x.istft(x)", "x.istft(1, 'a')", "x.istft(0, ())", "x.istft(0, (3, 1))", "x.norm(x)",
    "x.norm(True, True, True)", "x.norm(1, 'a')", "x.stft(True, True, True)", "x.stft(1, 'a')",
    "x.stft(0, ())", "x.stft(0, (3, 1))", "x.unique_consecutive(x)", "x.stft(x[0])",
    "x.istft(x[0])", "x.norm(x[0])", "x.unique_consecutive(x[0])", "x.norm(2, dim='a')"}
# the methods that do something (or raise) without reading a bad argument: not probed
_SKIP = {"backward", "register_hook", "register_post_accumulate_grad_hook", "module_load",
         "storage_type", "reinforce", "resize", "resize_as"}


def _outcome(lib, call, name):
    x = lib.ones(16) if name in ("stft", "istft") else lib.ones(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = eval(call, {"x": x})
        except Exception as e:   # noqa: BLE001
            return type(e).__name__, str(e).split("\n")[0]
    return "ok", repr(result) if name == "split" else ""


@pytest.mark.parametrize("call", [
    c.format(n) for n in sorted(PYTHON_METHODS - _SKIP) for c in _CALLS
    if c.format(n) not in _FUNCTION_CHECKS])
def test_bad_call_like_torch(call):
    name = call[2:].partition("(")[0]
    assert _outcome(dyngrad, call, name) == _outcome(torch, call, name)


@pytest.mark.parametrize("call", sorted(_FUNCTION_CHECKS))
def test_calls_left_to_the_functions(call):
    """Each of these reaches the public function (torch.norm, torch.stft...), whose checks
    differ from torch's: the method's own part is torch's. Strict: a test that starts passing
    says one of them now matches."""
    name = call[2:].partition("(")[0]
    if _outcome(dyngrad, call, name) == _outcome(torch, call, name):
        pytest.fail("now like torch's: move it to the probed calls")


@pytest.mark.parametrize("args", [(2,), ([1, 3],), (dyngrad.tensor(2),), (2, 1), (2, -1),
                                  ([1, 2], 1), ((1, 1, 1), -1)])
def test_split_results_like_torch(args):
    x, t = dyngrad.arange(12.).reshape(4, 3), torch.arange(12.).reshape(4, 3)
    targs = tuple(torch.tensor(a.item()) if isinstance(a, dyngrad.Tensor) else a for a in args)
    for got, want in zip(x.split(*args), t.split(*targs), strict=True):
        assert got.tolist() == want.tolist() and got.stride() == want.stride()
        assert got.grad_fn is None
    y = dyngrad.arange(12., requires_grad=True).reshape(4, 3)
    assert type(y.split(*args)[0].grad_fn).__name__ == type(
        torch.arange(12., requires_grad=True).reshape(4, 3).split(*targs)[0].grad_fn).__name__
    got = dyngrad.split(x, *args)
    assert [g.tolist() for g in got] == [w.tolist() for w in torch.split(t, *targs)]


def test_lu_pivot_is_checked_before_the_warning():
    x = dyngrad.eye(3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match=r"^_lu_with_info\(\): argument 'pivot' must be "
                                            r"bool, not int$"):
            dyngrad.lu(x, 1)
    assert not seen
