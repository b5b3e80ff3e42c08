"""Too many positional arguments: torch's TypeError and message, for methods (which do not count
`self`, and say "takes no arguments" when they take none) and for functions."""
from __future__ import annotations

import pytest
import torch

import dyngrad


def _error(call, lib):
    with pytest.raises(TypeError) as err:
        call(lib)
    return str(err.value)


METHODS = ["mul", "maximum", "atan2", "logaddexp", "mm", "matmul", "abs", "sin", "sigmoid_",
           "neg_", "exp", "trunc_", "cummax", "gather", "index_add", "diagonal", "transpose",
           "tril", "unsqueeze", "roll", "float", "int", "half", "cov", "flatten",
           "split_with_sizes", "mul_", "logical_and_", "amax", "argmax", "logsumexp", "nansum",
           "cross", "diff", "select", "svd", "qr", "chunk", "clone", "register_hook"]


def _method_call(name, given):
    def call(lib):
        x = lib.ones(2, 2)   # (written as a plain method call, ``x.abs(1, 1)``: torch's C
        # methods taking no argument then name their class "TensorBase."; called through
        # getattr or with ``*args``, Python names it "Tensor.")
        return eval(f"x.{name}({', '.join(['1'] * given)})", {"x": x})
    return call


def _torch_count_error(name, given):
    try:
        _method_call(name, given)(torch)
    except TypeError as e:
        return " takes " in str(e)
    except Exception:   # noqa: BLE001 -- (another error: not this test's)
        return False
    return False


# every (method, number of arguments) for which torch raises its too-many-arguments error
CASES = [(n, k) for n in METHODS for k in (1, 2, 9) if _torch_count_error(n, k)]


@pytest.mark.parametrize("name,given", CASES)
def test_method_extra_positional(name, given):
    """``x.<name>(1, ..., 1)`` with more positional arguments than the method takes."""
    assert _error(_method_call(name, given), dyngrad) == _error(_method_call(name, given), torch)


def test_every_listed_method_is_checked():
    assert {n for n, _ in CASES} == set(METHODS)


@pytest.mark.parametrize("call", [
    lambda lib, x: x.add(x, x),
    lambda lib, x: x.add_(x, x),
    lambda lib, x: lib.add(x, x, x),
    lambda lib, x: x.mul(x, x),
    lambda lib, x: x.float(1),
    lambda lib, x: x.float(1, 2),
    lambda lib, x: x.abs(1),
    lambda lib, x: x.cummax(0, 1),
    lambda lib, x: lib.cummax(x, 0, 1),
    lambda lib, x: lib.exp(x, x),
    lambda lib, x: lib.atan2(x, x, x),
    lambda lib, x: (x.mul_(1), x.mul_(1, 1)),   # (the first call readies the in-place fast path)
], ids=["x.add(x, x)", "x.add_(x, x)", "add(x, x, x)", "x.mul(x, x)", "x.float(1)",
        "x.float(1, 2)", "x.abs(1)", "x.cummax(0, 1)", "cummax(x, 0, 1)", "exp(x, x)",
        "atan2(x, x, x)", "x.mul_(1) then x.mul_(1, 1)"])
def test_extra_positional_like_torch(call):
    got = _error(lambda lib: call(lib, lib.ones(2)), dyngrad)
    assert got == _error(lambda lib: call(lib, lib.ones(2)), torch)
    assert " takes " in got


def test_inner_type_errors_are_left_alone():
    """A TypeError raised inside a method's body, not in binding its arguments, keeps its
    message, even one that reads like a count of arguments."""
    from dyngrad._tensor import _as_method

    def probe(self, *args):
        raise TypeError("probe() takes 2 positional arguments but 3 were given")
    method = _as_method(lambda self, *args: probe(self, *args), "probe")
    with pytest.raises(TypeError, match=r"^probe\(\) takes 2 positional arguments but 3 were"):
        method(dyngrad.ones(2), 1, 2)
