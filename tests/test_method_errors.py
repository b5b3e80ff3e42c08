"""A wrong argument type in a method call: torch's message counts positions after ``self``
(``x.add('a')``: "argument 'other' (position 1)"), its function form counts ``self`` too
(``torch.add(x, 'a')``: "position 2"). Checked for every registry op that is a Tensor method
with a second input (in-place ones too: ``add_()``), wherever torch answers with that
message."""
from __future__ import annotations

import re

import pytest
import torch

import dyngrad
from dyngrad.ops._registry import METHODS, OpSpec

_PATTERN = re.compile(r"\w+\(\): argument '\w+' \(position \d+\)")
def _error(call):
    try:
        call()
    except Exception as e:   # noqa: BLE001  (compared with torch's)
        return type(e), str(e).split("\n")[0]
    return None


def _torch_says_position(name) -> bool:
    err = _error(lambda: getattr(torch.ones(2, 2), name)("zz"))
    return bool(err) and bool(_PATTERN.match(err[1]))


# (the others get another message from torch: an overload list, a conversion error...)
def _spec(fn):
    """The op behind a method: an OpSpec, or the OpSpec whose in-place call it is."""
    return fn if isinstance(fn, OpSpec) else getattr(fn, "__self__", None)


_NAMES = sorted(n for n, fn in METHODS.items()
                if isinstance(_spec(fn), OpSpec) and _spec(fn).n_inputs >= 2
                and hasattr(torch.Tensor, n) and _torch_says_position(n))


@pytest.mark.parametrize("name", _NAMES)
def test_method_and_function_positions(name):
    calls = [lambda lib, x: getattr(x, name)("zz")]
    if hasattr(torch, name):
        calls.append(lambda lib, x: getattr(lib, name)(x, "zz"))
    for call in calls:
        expected = _error(lambda: call(torch, torch.ones(2, 2)))
        assert _error(lambda: call(dyngrad, dyngrad.ones(2, 2))) == expected
