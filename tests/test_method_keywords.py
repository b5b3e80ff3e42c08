"""Tensor methods called with ``out=``: torch's methods are its functions' overloads without
``out=``, so every one refuses it with a TypeError. Each public method of both libraries is
called as ``x.<name>(out=y)`` and the error compared with torch's, type and message. The two
name lists the messages depend on (methods without parameters, methods written in Python) are
compared with torch's too."""
from __future__ import annotations

import types
import warnings

import pytest
import torch

import dyngrad
from dyngrad.ops._signatures import NOARGS_METHODS, PYTHON_METHODS

# calls that do something else than fail on an argument: hooks, storage sharing, devices...
_SKIP = {"backward", "register_hook", "share_memory_", "pin_memory", "apply_", "map_", "map2_",
         "record_stream", "cuda", "xpu", "mps", "ipu", "hpu", "mtia", "to_sparse", "module_load",
         "tolist", "numpy"}


def _public_methods(cls):
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n, None))}


NAMES = sorted((_public_methods(torch.Tensor) & _public_methods(dyngrad.Tensor)) - _SKIP)

# Strict: each of these gives torch's TypeError with other words (none accepts out= any more).
_WORDING = {
    # torch's C methods of no parameters that run in loops, written by hand on dyngrad's
    # Tensor class: Python words them (Note [Methods of no arguments] in _tensor_python.py)
    "hand": """detach dim is_complex is_floating_point item ndimension nelement numel""",
}
_XFAIL = {n: reason for reason, names in _WORDING.items() for n in names.split()}


def _outcome(lib, name):
    x, y = lib.ones(2, 2), lib.empty(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:   # (a plain method call: torch's C methods then name their class "TensorBase.")
            eval(f"x.{name}(out=y)", {"x": x, "y": y})
        except Exception as e:   # noqa: BLE001
            return type(e).__name__, str(e)
    return "no error", ""


@pytest.mark.parametrize("name", NAMES)
def test_method_refuses_out(name):
    """Where torch refuses ``out=`` with a TypeError, so does dyngrad."""
    assert _outcome(torch, name)[0] == "TypeError"
    assert _outcome(dyngrad, name)[0] == "TypeError"


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_XFAIL[n])) if n in _XFAIL
    else n for n in NAMES])
def test_method_out_message(name):
    assert _outcome(dyngrad, name) == _outcome(torch, name)


def test_noargs_methods_are_torchs():
    """NOARGS_METHODS: torch's C methods that refuse every keyword as Python's METH_NOARGS."""
    x = torch.ones(2, 2)
    found = set()
    for name in dir(torch.Tensor):
        if name.startswith("_") or type(getattr(torch.Tensor, name)).__name__ != \
                "method_descriptor":
            continue
        try:
            getattr(x, name)(zzz=1)
        except TypeError as e:
            if "takes no keyword arguments" in str(e):
                found.add(name)
        except Exception:   # noqa: BLE001  (another error: it took the keyword)
            pass
    assert NOARGS_METHODS == found


def test_python_methods_are_torchs():
    """PYTHON_METHODS: the public methods torch defines in Python (torch/_tensor.py) that
    dyngrad's Tensor has too."""
    found = {n for n, v in vars(torch.Tensor).items()
             if not n.startswith("_") and isinstance(v, types.FunctionType)
             and hasattr(dyngrad.Tensor, n)}
    assert PYTHON_METHODS == found


@pytest.mark.parametrize("call", [
    lambda x, y: x.add(x, out=y), lambda x, y: x.exp(out=y), lambda x, y: x.sum(out=y),
    lambda x, y: x.mm(x, out=y), lambda x, y: x.amax(0, out=y), lambda x, y: x.acos_(out=y),
    lambda x, y: x.absolute(out=y), lambda x, y: x.norm(out=y), lambda x, y: x.t(out=y),
    lambda x, y: x.exp(foo=1), lambda x, y: x.abs_(1), lambda x, y: x.uniform_(out=y),
])
def test_out_refused_leaves_it_untouched(call):
    """Other arguments too; ``out`` keeps its values and version."""
    got = {}
    for lib in (torch, dyngrad):
        x, y = lib.ones(2, 2), lib.zeros(2, 2)
        version = y._version
        with pytest.raises(TypeError) as err:
            call(x, y)
        assert y._version == version and not y.any()
        got[lib] = str(err.value)
    assert got[dyngrad] == got[torch]


def _same_on_4d(call):
    """``call(lib, x)`` on a 4-d tensor gives the same value or TypeError text in both."""
    got = {}
    for lib in (torch, dyngrad):
        try:
            got[lib] = call(lib, lib.ones(2, 3, 4, 5))
        except TypeError as e:
            got[lib] = str(e)
    assert got[dyngrad] == got[torch]


@pytest.mark.parametrize("call", [
    lambda L, x: x.type(zzz=1),
    lambda L, x: x.type(L.float64, True, 3),
    lambda L, x: x.type(L.float64, memory_format=L.channels_last).stride(),
    lambda L, x: x.type(L.float32, memory_format=L.channels_last).stride(),
    lambda L, x: x.type(L.float32, memory_format=L.contiguous_format) is x,
    lambda L, x: x.type(L.float64, non_blocking=True).stride(),
])
def test_type_keywords(call):
    """Tensor.type takes dtype, non_blocking and memory_format (it took any keyword)."""
    _same_on_4d(call)


@pytest.mark.parametrize("call", [
    lambda L, x: x.cpu(memory_format=L.channels_last).stride(),
    lambda L, x: x.cpu(memory_format=L.preserve_format) is x,
    lambda L, x: x.cpu(memory_format=L.contiguous_format) is x,
    lambda L, x: x.cpu() is x,
    lambda L, x: x.cpu(1),
    lambda L, x: x.cpu(memory_format=1),
])
def test_cpu_memory_format(call):
    """Tensor.cpu converts to the memory format it is given (it ignored it)."""
    _same_on_4d(call)


@pytest.mark.parametrize("expr", [
    # a method made of a function of another name words its errors with the method's
    *(f"x.{n}(zzz=1)" for n in ("cov", "diff", "eig", "lstsq", "nan_to_num", "norm", "rot90",
                                 "solve", "symeig")),
    # an in-place method's counts leave self out, as torch's parser counts
    'x.transpose_("a", "b", "c")', "x.put_(*[object()] * 9)", "x.unsqueeze_(1, 2)",
    "x.scatter_add_(*[object()] * 9)", "x.renorm_(*[object()] * 9)",
    "x.masked_scatter_(1, 2, 3)", "x.uniform_(1, 2, 3)", "x.nan_to_num_(*[object()] * 9)",
    "x.pin_memory(1, 2, 3)",
    # torch's words for several missing arguments ("argument", then the names quoted)
    "x.index_add_()", "x.put_()", "x.renorm_(zzz=1)", "x.as_strided_()",
])
def test_method_error_words(expr):
    got = {}
    for lib in (torch, dyngrad):
        with pytest.raises(TypeError) as err:
            eval(expr, {"x": lib.ones(2, 2)})
        got[lib] = str(err.value)
    assert got[dyngrad] == got[torch]
