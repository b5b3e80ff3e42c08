"""The Tensor methods that torch writes in Python (Note [Methods torch writes in Python] in
dyngrad/_tensor_python.py): their names and signatures are torch's, so a bad call gets
Python's words for it, as torch's does; the bindings they call refuse what torch's refuse.
And the methods torch binds with no parameters (Note [Methods of no arguments])."""
from __future__ import annotations

import inspect
import warnings

import pytest
import torch

import dyngrad
from dyngrad import _tensor_python
from dyngrad.ops import fft_helpers, linalg_lu
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
                                   linalg_lu._LU_WITH_INFO, fft_helpers.STFT])
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
    c.format(n) for n in sorted(PYTHON_METHODS - _SKIP) for c in _CALLS])
def test_bad_call_like_torch(call):
    name = call[2:].partition("(")[0]
    assert _outcome(dyngrad, call, name) == _outcome(torch, call, name)


# the public functions these methods call, called directly: their bindings' parsers, and
# torch/functional.py's own steps before them (unique's flags decide its function by truth)
_FUNCTION_CALLS = [
    "lib.linalg.vector_norm(x, True)", "lib.linalg.vector_norm(x, 2, True)",
    "lib.linalg.vector_norm(x, 2, 'a')", "lib.linalg.vector_norm(x, 2, dim='a')",
    "lib.linalg.vector_norm(x, x)", "lib.linalg.vector_norm(x, lib.tensor(3.))",
    "lib.linalg.vector_norm(x, zzz=1)", "lib.linalg.vector_norm(x, 1, (0, 1), keepdim=1)",
    "lib.linalg.vector_norm(x, 2.5, [0])", "lib.linalg.vector_norm(x, 0, None, True)",
    "lib.norm(x, 1, 'a')", "lib.norm(x, x)", "lib.linalg.norm(x, 2, 'a')",
    "lib.linalg.norm(x, 'a', 0)", "lib.linalg.norm(x, zzz=1)", "lib.linalg.norm(x, x)",
    "lib.linalg.norm(x, 1.5, 0, True)", "lib.linalg.norm(x, None, 0, 1)",
    "lib.unique(x, return_inverse=x[0])", "lib.unique(x, return_counts=x)",
    "lib.unique(x, dim='a')", "lib.unique_consecutive(x, dim=True)",
    "lib.stft(x.reshape(-1), 4, hop_length='a')", "lib.istft(x, 4, hop_length='a')",
    "lib.istft(x, 'a')", "lib.split(x, 1, 'a')", "lib.split(x)", "lib.split(1, 2)",
    "lib.lu(x, 'a')", "lib.lu(1)",
]


@pytest.mark.parametrize("call", _FUNCTION_CALLS)
def test_function_call_like_torch(call):
    def outcome(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = eval(call, {"lib": lib, "x": lib.ones(3, 4)})
            except Exception as e:   # noqa: BLE001
                return type(e).__name__, str(e)
        return "ok", repr(r)
    assert outcome(dyngrad) == outcome(torch)


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


@pytest.mark.parametrize("name", _tensor_python._NOARGS)
@pytest.mark.parametrize("args", ["zzz=1", "1", "1, 2", "1, zzz=2"])
def test_no_argument_method_refuses_like_torch(name, args):
    """An argument to a method torch binds with none gets Python's words for torch's C method,
    before anything else (the sparse-layout methods' layout check included)."""
    call = f"x.{name}({args})"
    assert _outcome(dyngrad, call, name) == _outcome(torch, call, name)


@pytest.mark.parametrize("name", _tensor_python._NOARGS)
def test_no_argument_method_still_works(name):
    x, t = dyngrad.ones(2, 3), torch.ones(2, 3)
    if name in ("coalesce", "indices", "is_coalesced", "values"):   # (a strided tensor's error)
        assert _outcome(dyngrad, f"x.{name}()", name) == _outcome(torch, f"x.{name}()", name)
        return
    if name == "retain_grad":
        x, t = x.requires_grad_() * 1, t.requires_grad_() * 1
    got, want = getattr(x, name)(), getattr(t, name)()
    if name in ("data_ptr", "const_data_ptr", "untyped_storage", "retain_grad", "detach_"):
        assert type(got).__name__ == type(want).__name__
    else:
        assert got == want


@pytest.mark.parametrize("name", _tensor_python._PARSER_NAMED)
@pytest.mark.parametrize("kwargs", ["zzz=1", "out=x"])
def test_hand_written_parser_method_keyword_like_torch(name, kwargs):
    """An unknown keyword to a method torch binds through its parser and dyngrad writes by
    hand: the parser's words, the bare name. (With a positional argument of a wrong type
    beside it, the parser names that first and Python the keyword: not matched.)"""
    call = f"x.{name}({kwargs})"
    assert _outcome(dyngrad, call, name) == _outcome(torch, call, name)
